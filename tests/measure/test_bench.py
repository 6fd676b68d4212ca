"""bench/README.md's runner figures are generated from the committed results, never typed by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from measure.report import bench

REPO = Path(__file__).resolve().parents[2]


def test_the_committed_block_is_what_the_results_say() -> None:
    readme = (REPO / "bench" / "README.md").read_text(encoding="utf-8")
    assert bench.committed_block(readme) == bench.report(REPO), (
        "bench/README.md is out of date: run `gloss measure bench --write bench/README.md`"
    )


def test_splice_replaces_only_the_block() -> None:
    text = f"intro\n{bench.BEGIN}\nold\n{bench.END}\noutro\n"
    assert bench.splice(text, "new\n") == f"intro\n{bench.BEGIN}\nnew\n{bench.END}\noutro\n"
    with pytest.raises(ValueError, match="has no"):
        bench.splice("no markers", "x")


def test_the_targets_table_reports_misses_by_how_much() -> None:
    assert bench._verdict(0.879, 0.90) == "missed by 2.1 points"
    assert bench._verdict(0.965, 0.95) == "met"
