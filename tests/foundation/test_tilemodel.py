"""The tile-lifecycle model: banks, conflict ways, guards and step sentences, computed not drawn."""

from __future__ import annotations

import json
import re
from html import unescape
from math import gcd

import pytest

from site_plugins.diagrams import tilemodel as tm
from site_plugins.diagrams.figure import DIAGRAMS, render_diagram


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


def test_edge_tile_guards_skip_the_right_elements() -> None:
    s = tm.TileState(tile=8, cut_x=3, cut_y=1, step=0)
    assert (s.valid_x, s.valid_y) == (5, 7)
    assert tm.load_on(s, 4, 6) and not tm.load_on(s, 5, 0) and not tm.load_on(s, 0, 7)
    # The output tile is the transpose: x and y swap roles at the store.
    assert tm.store_on(s, 6, 4) and not tm.store_on(s, 0, 5) and not tm.store_on(s, 7, 0)
    assert tm.skipped(s) == 64 - 5 * 7
    assert tm.describe(s).endswith("The load guard skips the 29 elements past the matrix edge (columns 5 and up, "
                                   "rows 7 and up of this edge tile).")


def test_guard_around_the_barrier_is_explained_as_a_hang_or_corruption() -> None:
    s = tm.TileState(tile=32, cut_x=5, step=1, guard_barrier=True)
    # 32 x 8 threads; the 5 columns past the edge hold 5 x 8 threads with nothing to load.
    assert tm.absent_threads(s) == 5 * 8
    assert tm.describe(s) == (
        "Step 2 of 3, barrier: __syncthreads() holds every thread of the block until all loads have landed in "
        "the tile; it is the only barrier: each block transposes one tile and never refills it. But here the "
        "bounds guard encloses the barrier: the 40 threads with nothing to load never reach it, so the block "
        "hangs or the others go on and read tile cells nobody wrote.")
    correct = tm.TileState(tile=32, cut_x=5, step=1)
    assert "hangs" not in tm.describe(correct)


def test_step_sentences() -> None:
    assert tm.describe(tm.TileState(tile=32, step=2)) == (
        "Step 3 of 3, store: thread (tx, ty) reads tile[tx][ty + 8p] of tile[32][32] in pass p and writes it to "
        "the output, so a warp walks down a column of the tile and writes a row of the output (coalesced); "
        "warp 0 in its first pass: its 32 lanes hit only 1 bank (bank 0 serves 32 of them): a 32-way "
        "conflict, the access takes 32 wavefronts instead of 1, and the same in every pass.")
    # An 8-way conflict (tile[16][16]: lanes two rows of threads deep, 4 banks) reads "an 8-way".
    assert "): an 8-way conflict," in tm.describe(tm.TileState(tile=16, step=2))


@pytest.mark.parametrize(("n", "word"), [
    (1, "a"), (2, "a"), (8, "an"), (11, "an"), (16, "a"), (18, "an"), (32, "a"), (80, "an"), (88, "an"),
    (100, "a"), (110, "a"), (111, "a"), (800, "an"), (1000, "a"), (8000, "an"), (11_000, "an"), (18_000, "an"),
    (18_000_000, "an"), (81, "an"), (180, "a"),
])
def test_article_before_a_number_follows_its_sound(n: int, word: str) -> None:
    assert tm.article(n) == word


def test_every_sentence_for_every_state_uses_the_right_article() -> None:
    for tile in tm.TILE_SIZES:
        for pad in (0, 1):
            for step in range(len(tm.STEPS)):
                for block_y in (1, 2, 4, 8, 16, 32):
                    text = tm.describe(tm.TileState(tile=tile, pad=pad, step=step, block_y=block_y))
                    for article, n in re.findall(r"\b(an?) (\d+)-way", text):
                        assert article == tm.article(int(n)), text


def test_the_model_follows_the_quoted_transpose_code() -> None:
    """Block shape, rows per thread and barrier count come from parameters that match transpose.cu; a
    change to the code's TILE, ROWS_PER_PASS or barriers makes this fail until the model follows."""
    from pathlib import Path

    root = Path(__file__).parents[2]
    code = (root / "code/day13-shared-memory/transpose.cu").read_text(encoding="utf-8")
    tile = int(re.search(r"#define TILE (\d+)", code).group(1))  # type: ignore[union-attr]
    rows_per_pass = int(re.search(r"#define ROWS_PER_PASS (\d+)", code).group(1))  # type: ignore[union-attr]
    tiled = code[code.index("[start:tiled]"):code.index("[end:tiled]")]
    body = "\n".join(line.split("//")[0] for line in tiled.splitlines())  # code, not comments
    assert body.count("__syncthreads()") == tm.barriers() == 1
    assert rows_per_pass == tm.BLOCK_Y and tile in tm.TILE_SIZES
    s = tm.TileState(tile=tile)
    assert s.block == (tile, rows_per_pass) and s.rows_per_thread == tile // rows_per_pass == 4
    assert tm.summary(s) == "block 32×8 threads, 4 rows each, 1 barrier per tile"
    # The tiling term draws it with the code's defaults (it sets no other block shape).
    meta = (root / "content/terms/tiling.md").read_text(encoding="utf-8")
    assert "block_y" not in meta and "params: {tile: 32}" in meta
    # Warp 0 is one row of threads (ty = 0): in pass p it writes tile row 8p and reads tile column 8p.
    load = tm.warp_passes(tm.TileState(tile=tile, step=0))
    assert [sorted({r for r, _ in a.cells}) for a in load] == [[0], [8], [16], [24]]
    store = tm.warp_passes(tm.TileState(tile=tile, step=2))
    assert [sorted({c for _, c in a.cells}) for a in store] == [[0], [8], [16], [24]]
    assert [a.banks[0] for a in store] == [0, 8, 16, 24] and all(a.ways == 32 for a in store)


@pytest.mark.parametrize("preset", ["tile-correct", "bank-conflict", "padded", "ragged-edge",
                                    "guard-encloses-barrier"])
def test_every_preset_renders_with_data_for_every_size_and_step(preset: str) -> None:
    html = render_diagram("tile-lifecycle", preset, {}, "alt")
    data = json.loads(unescape(re.search(r'data-tl="([^"]*)"', html).group(1)))  # type: ignore[union-attr]
    assert set(data["states"]) == {"8", "16", "32"}
    assert all(len(steps) == 3 for steps in data["states"].values())
    assert data["summaries"]["32"] == "block 32×8 threads, 4 rows each, 1 barrier per tile"
    assert data["summaries"]["8"] == "block 8×8 threads, 1 row each, 1 barrier per tile"
    values = DIAGRAMS["tile-lifecycle"].presets[preset]
    for key in ("pad", "cut_x", "cut_y"):
        assert data[key] == values.get(key, 0)
    # The numbers on the figure are the model's, not typed into the drawing.
    assert f">{tm.summary(tm.TileState(tile=32))}</text>" in html
