"""The tile-lifecycle model: banks, conflict ways, guards and step sentences, computed not drawn."""

from __future__ import annotations

import json
import re
from html import unescape
from math import gcd

import pytest

from site_plugins import tilemodel as tm
from site_plugins.diagrams import DIAGRAMS, render_diagram


@pytest.mark.parametrize(("tile", "pad", "expected"), [
    # A warp spans 32 / tile rows of threads, so for small tiles the padding column does not remove
    # every conflict (tile[16][17]: lanes 0 and 31 meet on one bank).
    (32, 0, 32), (32, 1, 1), (16, 0, 8), (16, 1, 2), (8, 0, 2), (8, 1, 2),
])
def test_column_read_conflict_ways(tile: int, pad: int, expected: int) -> None:
    # Warp 0 reads tile[tx][ty]: for a [32][32] tile, all 32 lanes hit one bank.
    acc = tm.warp_access(tm.TileState(tile=tile, pad=pad, step=2))
    assert acc is not None
    assert acc.ways == expected
    # From first principles: lane i is thread (i % tile, i // tile) and reads word tx * (tile + pad) + ty.
    words = [(i % tile) * (tile + pad) + i // tile for i in range(32)]
    per_bank: dict[int, set[int]] = {}
    for w in words:
        per_bank.setdefault(w % 32, set()).add(w)
    assert max(len(v) for v in per_bank.values()) == expected


def test_row_write_is_conflict_free_and_bank_numbers_follow_the_layout() -> None:
    s = tm.TileState(tile=32, pad=0, step=0)
    acc = tm.warp_access(s)
    assert acc is not None and acc.ways == 1 and acc.banks == tuple(range(32))
    padded = tm.TileState(tile=32, pad=1)
    assert [tm.bank(padded, r, 0) for r in range(4)] == [0, 1, 2, 3]
    assert [tm.bank(s, r, 5) for r in range(4)] == [5, 5, 5, 5]


@pytest.mark.parametrize("stride", [1, 2, 4, 8, 16, 32, 3, 33])
def test_ways_agree_with_the_day15_stride_rule(stride: int) -> None:
    # code/day15-bank-conflicts: lane i reads word i * stride; the measured ladder's labels say
    # "stride S (N-way)" with N = gcd(S, 32), the rule the model must reproduce.
    assert tm.ways(lane * stride for lane in range(32)) == gcd(stride, 32)


def test_day15_spec_labels_match_the_model() -> None:
    from pathlib import Path

    spec = (Path(__file__).parents[2] / "code/day15-bank-conflicts/experiment.yaml").read_text(encoding="utf-8")
    labelled = re.findall(r"label: stride (\d+) \((\d+)-way\)", spec)
    assert labelled
    for stride, n in labelled:
        assert tm.ways(lane * int(stride) for lane in range(32)) == int(n)


def test_edge_tile_guards_switch_off_the_right_threads() -> None:
    s = tm.TileState(tile=8, cut_x=3, cut_y=1, step=0)
    assert (s.valid_x, s.valid_y) == (5, 7)
    assert tm.load_on(s, 4, 6) and not tm.load_on(s, 5, 0) and not tm.load_on(s, 0, 7)
    # The output tile is the transpose: x and y swap roles at the store.
    assert tm.store_on(s, 6, 4) and not tm.store_on(s, 0, 5) and not tm.store_on(s, 7, 0)
    assert tm.switched_off(s, "load") == 64 - 5 * 7 == tm.switched_off(s, "store")
    assert tm.describe(s).endswith("The load guard switches off 29 threads whose element lies past the matrix "
                                   "edge (columns 5 and up, rows 7 and up of this edge tile).")


def test_guard_around_the_barrier_is_explained_as_a_hang_or_corruption() -> None:
    s = tm.TileState(tile=32, cut_x=5, step=1, guard_barrier=True)
    assert tm.describe(s) == (
        "Step 2 of 5, barrier: __syncthreads() holds every thread of the block until all loads have landed in "
        "the tile. But here the bounds guard encloses the barrier: the 160 switched-off threads never reach it, "
        "so the block hangs or the others go on and read tile cells nobody wrote.")
    correct = tm.TileState(tile=32, cut_x=5, step=1)
    assert "hangs" not in tm.describe(correct)


def test_step_sentences() -> None:
    assert tm.describe(tm.TileState(tile=32, step=2)) == (
        "Step 3 of 5, compute: thread (tx, ty) reads tile[32][32][tx][ty], so a warp walks down a column of the "
        "tile; warp 0's 32 lanes hit only 1 bank (bank 0 serves 32 of them): a 32-way conflict, the access is "
        "replayed 32 times.")


@pytest.mark.parametrize("preset", ["tile-correct", "bank-conflict", "padded", "ragged-edge",
                                    "guard-encloses-barrier"])
def test_every_preset_renders_with_data_for_every_size_and_step(preset: str) -> None:
    html = render_diagram("tile-lifecycle", preset, {}, "alt")
    data = json.loads(unescape(re.search(r'data-tl="([^"]*)"', html).group(1)))  # type: ignore[union-attr]
    assert set(data["states"]) == {"8", "16", "32"}
    assert all(len(steps) == 5 for steps in data["states"].values())
    values = DIAGRAMS["tile-lifecycle"].presets[preset]
    for key in ("pad", "cut_x", "cut_y"):
        assert data[key] == values.get(key, 0)
