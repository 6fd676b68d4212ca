"""The roofline of every measured row (pure: plain result data in, points, roofs, SVG and Markdown out)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from site_plugins.measured import roofline_page, rooflinechart
from site_plugins.measured.model import Provenance, Result, ResultsView, Row, Table
from site_plugins.measured.roofline import (
    NO_COUNTERS,
    NO_DRAM,
    NO_FLOPS,
    NOT_TIMED,
    WARM,
    NodeRoofline,
    Point,
    Roof,
    attainable,
    decades,
    launch_flop,
    placed,
    points,
    ridge,
    rooflines,
    roofs,
)


@pytest.mark.parametrize(
    ("compute", "bandwidth", "expected"),
    [(62960.0, 4130.0, 62960.0 / 4130.0), (1000.0, 1000.0, 1.0), (50.0, 100.0, 0.5)],
)
def test_the_ridge_is_the_compute_roof_over_the_bandwidth(compute: float, bandwidth: float, expected: float) -> None:
    assert ridge(compute, bandwidth) == pytest.approx(expected)


@pytest.mark.parametrize(("compute", "bandwidth"), [(0.0, 100.0), (100.0, 0.0), (-1.0, 5.0)])
def test_a_ridge_needs_positive_roofs(compute: float, bandwidth: float) -> None:
    with pytest.raises(ValueError, match="roofs must be positive"):
        ridge(compute, bandwidth)


@pytest.mark.parametrize(
    ("intensity", "expected"),
    [
        (0.25, 1000.0),  # on the slope: 4000 GB/s x 0.25 FLOP/B
        (10.0, 40000.0),  # still on the slope
        (15.0, 60000.0),  # the ridge itself: both roofs agree
        (16.0, 60000.0),  # past the ridge: the compute roof
        (1e6, 60000.0),
    ],
)
def test_the_attainable_rate_is_the_lower_roof(intensity: float, expected: float) -> None:
    assert attainable(intensity, 4000.0, 60000.0) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("gflops", "time_ms", "flop"),
    [(1.0, 1.0, 1e6), (63408.0, 1.0, 6.3408e10), (0.5, 4.0, 2e6)],
)
def test_a_launch_s_flops_are_its_rate_times_its_time(gflops: float, time_ms: float, flop: float) -> None:
    assert launch_flop(gflops, time_ms) == pytest.approx(flop)


@pytest.mark.parametrize(
    ("low", "high", "expected"),
    [(0.25, 16364.0, (-1, 5)), (1.0, 1.0, (0, 1)), (7.27, 376289.0, (0, 6)), (0.001, 0.002, (-3, -2))],
)
def test_log_axes_bracket_the_data_in_whole_decades(low: float, high: float, expected: tuple[int, int]) -> None:
    assert decades(low, high) == expected


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_a_log_axis_refuses_what_it_cannot_place(bad: float) -> None:
    with pytest.raises(ValueError, match="a log axis needs positive finite bounds"):
        decades(bad, 10.0)


@pytest.mark.parametrize(
    ("power", "text"),
    [(-2, "0.01"), (-1, "0.1"), (0, "1"), (2, "100"), (3, "1k"), (5, "100k"), (6, "1M"), (9, "1G"), (10, "10G")],
)
def test_tick_labels_are_short(power: int, text: str) -> None:
    assert rooflinechart.tick_text(power) == text


def _row(
    rid: str,
    gflops: float | None,
    dram_mb: float | None,
    time_ms: float | None = 1.0,
    kind: str = "kernel",
    setup: tuple[tuple[str, str], ...] = (),
    failed: str | None = None,
    gbps: float | None = 100.0,
    experiment: str = "",
    math: str = "fp32",
) -> Row:
    counters: dict[str, float | None] = {} if dram_mb is None else {"dram_mb": dram_mb}
    return Row(rid, time_ms, 0.0, gbps, gflops, None, None, id=rid, counters=counters, kind=kind, setup=setup,
               failed=failed, experiment=experiment, math=math)


@pytest.mark.parametrize(
    ("row", "outcome"),
    [
        # 1,000 GFLOP/s for 1 ms is 1e9 FLOP; over 4 MB of DRAM traffic: 250 FLOP/B.
        (_row("fma", 1000.0, 4.0), 250.0),
        (_row("copy", None, 8.0), NO_FLOPS),
        (_row("gemm", 5000.0, None, kind="cublas"), NO_COUNTERS),
        (_row("cached", 10.0, 0.0), NO_DRAM),
        (_row("warm", 10.0, 4.0, setup=(("l2", "warm"),)), WARM),
        (_row("broken", None, None, time_ms=None, failed="3 of 8 elements were never written"), NOT_TIMED),
    ],
)
def test_a_row_is_placed_at_its_counted_intensity_or_says_why_not(row: Row, outcome: float | str) -> None:
    p = placed(row)
    if isinstance(outcome, str):
        assert p == outcome
    else:
        assert isinstance(p, Point) and p.intensity == pytest.approx(outcome) and p.gflops == row.gflops


PROV = Provenance("h100-1", "NVIDIA H100 80GB HBM3", "580", "13.0", "V13.0.88", "-O3", "2026-12-05")
CEILINGS = (
    _row("memcpy", None, 2000.0, kind="memcpy", gbps=3000.0, experiment="copy-ceilings"),
    _row("tiles", None, 2000.0, gbps=3054.0, experiment="copy-ceilings"),
    _row("scalar", None, 2000.0, gbps=2900.0, experiment="copy-ceilings"),
    _row("fma", 63408.0, 8.65, gbps=1.0, experiment="copy-ceilings"),
)


def _result(experiment: str, rows: tuple[Row, ...], node: str = "h100-1", state: str = "fresh") -> Result:
    return Result(experiment, node, state, provenance=PROV,  # type: ignore[arg-type]
                  tables=(Table("big", rows, ceilings=CEILINGS),))


def test_the_roofs_are_the_best_fma_ceiling_the_fastest_copy_kernel_and_cublas_tf32() -> None:
    gemm = (_row("sgemm", 20000.0, None, kind="cublas", setup=(("math", "fp32"),)),
            _row("tf32", 376289.0, None, kind="cublas", setup=(("math", "tf32"),), math="tf32"))
    results = [_result("copy-ceilings", CEILINGS), _result("day16-matmul", gemm),
               _result("reduction", (_row("tree", 700.0, 270.0), _row("tiles", None, 1.0, gbps=9999.0)))]
    bandwidth, compute = roofs(results)
    # The driver's memcpy is not a copy kernel, an FP32 cuBLAS GEMM is not a roof, and a row that only
    # shares a ceiling's id (reduction's "tiles", labelled alike here) counts only in its own experiment:
    # the roofs are the ceilings experiments' own rows, at the size they were measured.
    assert bandwidth == Roof(3054.0, "fastest copy kernel: tiles (copy-ceilings, big)")
    assert compute == (Roof(63408.0, "FP32 FMA ceiling: fma (copy-ceilings, big)", "FP32"),
                       Roof(376289.0, "cuBLAS TF32: tf32 (day16-matmul, big)", "TF32"))


def test_points_come_from_each_experiment_s_own_rows_never_from_the_ceilings_it_carries() -> None:
    pts, skipped = points([_result("reduction", (_row("tree", 700.0, 270.0), _row("copy", None, 8.0)))])
    assert [(p.experiment, p.size, p.row) for p in pts] == [("reduction", "big", "tree")]
    assert skipped == ((NO_FLOPS, 1),)


def test_one_roofline_per_node_with_fresh_results_only() -> None:
    view = ResultsView(
        root=Path("."),
        results=(
            _result("copy-ceilings", CEILINGS),
            _result("reduction", (_row("tree", 700.0, 270.0),)),
            _result("reduction", (_row("tree", 900.0, 270.0),), node="h200-1", state="stale"),
        ),
        nodes=("h200-1", "h100-1"),
    )
    lines = rooflines(view)
    assert [line.node for line in lines] == ["h100-1"]
    assert lines[0].ridge(lines[0].compute[0]) == pytest.approx(63408.0 / 3054.0)


def _line(pts: tuple[Point, ...] = ()) -> NodeRoofline:
    return NodeRoofline(
        "h100-1", "NVIDIA H100 80GB HBM3", Roof(3054.0, "fastest copy kernel: tiles"),
        (Roof(63408.0, "FP32 FMA ceiling: fma", "FP32"), Roof(376289.0, "cuBLAS TF32: tf32 (day16-matmul)", "TF32")),
        pts, ())


POINTS = (Point("reduction", "64M", "tree", "tree", 0.248, 735.0), Point("ceilings-fp32", "1M", "fma", "fma",
                                                                         16364.0, 63408.0))


def test_every_point_and_every_roof_corner_lies_inside_the_plot() -> None:
    line = _line(POINTS)
    ax = rooflinechart.axes_for(line, 100.0)
    assert (ax.x_lo, ax.x_hi, ax.y_lo, ax.y_hi) == (-1, 5, 2, 6)
    assert rooflinechart.clipped([(ax.x(p.intensity), ax.y(p.gflops)) for p in POINTS], ax)
    for roof in line.compute:
        corners = rooflinechart.roof_path(ax, roof.value, 3054.0)
        assert rooflinechart.clipped(corners, ax)
        # The slope's corner is the ridge: compute over bandwidth, at the compute roof's height.
        assert corners[1] == pytest.approx((ax.x(roof.value / 3054.0), ax.y(roof.value)))


def test_a_roof_whose_ridge_lies_left_of_the_plot_is_only_flat() -> None:
    ax = rooflinechart.Axes(0, 3, 0, 3, 40.0, 0.0, 300.0, 240.0)
    assert rooflinechart.roof_path(ax, 10.0, 100.0) == [(ax.x(1.0), ax.y(10.0)), (ax.x(1000.0), ax.y(10.0))]


def test_the_chart_names_every_roof_and_ridge_and_titles_every_point() -> None:
    svg = rooflinechart.render(_line(POINTS))
    assert svg.startswith('<svg class="gloss-chart gloss-roofline" role="img"') and svg.endswith("</svg>")
    assert "<title>reduction, 64M, tree: 735\u00a0GFLOP/s at 0.248\u00a0FLOP/B</title>" in svg
    assert svg.count("<circle ") == 2 and svg.count("<polyline ") == 2
    desc = re.search(r"<desc [^>]*>([^<]*)</desc>", svg)
    assert desc is not None
    assert "ridge at 20.8\u00a0FLOP/B" in desc.group(1) and "ridge at 123\u00a0FLOP/B" in desc.group(1)


def test_the_page_has_a_section_per_node_with_roofs_chart_points_and_what_was_left_out() -> None:
    view = ResultsView(
        root=Path("."),
        results=(_result("copy-ceilings", CEILINGS), _result("reduction", (_row("tree", 700.0, 270.0),
                                                                             _row("copy", None, 8.0)))),
        nodes=("h100-1",),
    )
    md = roofline_page(view)
    assert md.startswith("# Roofline of every measured row\n")
    assert "## h100-1 (NVIDIA H100 80GB HBM3)" in md
    assert "- Slope: 3,054\u00a0GB/s, the fastest copy kernel: tiles (copy-ceilings, big)." in md
    roof = "- Roof: 63,408\u00a0GFLOP/s, FP32 FMA ceiling: fma (copy-ceilings, big); ridge point 20.8\u00a0FLOP/B."
    assert roof in md
    assert 'aria-labelledby="gloss-roofline-h100-1-t gloss-roofline-h100-1-d"' in md
    # 700 GFLOP/s for 1 ms over 270 MB: 2.59 FLOP/B, 8.84 % of the 7,918 GFLOP/s the slope allows there.
    assert "| Experiment | Size | Row | FLOP/B | GFLOP/s | Roof | % of that roofline at its intensity |" in md
    assert "| `reduction` | big | tree | 2.59 | 700 | FP32 | 8.84\u00a0% |" in md
    # The ceilings' own rows are points too (the FMA chains), or are counted out (the copies: no FLOPs).
    assert "| `copy-ceilings` | big | fma | 7,330 | 63,408 | FP32 | 100\u00a0% |" in md
    assert "Not on the chart (4 rows):\n\n- no FLOPs declared: 4" in md


def test_the_page_says_so_when_no_node_has_a_fresh_result() -> None:
    md = roofline_page(ResultsView(root=Path("."), results=(), nodes=("h100-1",)))
    assert md.endswith("No node has a fresh result yet.\n")



def test_rows_above_the_slope_are_counted_and_the_slope_is_called_a_measurement() -> None:
    fast = _row("stream", 1100.0, 4000.0)  # 1,100 GFLOP/s at 0.275 FLOP/B: 131 % of the 840 the slope allows
    view = ResultsView(root=Path("."), results=(_result("copy-ceilings", CEILINGS), _result("ls", (fast,))),
                       nodes=("h100-1",))
    md = roofline_page(view)
    assert ("1 row sits above its roofline (more than 100 % in the table): the slope is the fastest copy kernel "
            "measured, which reads and writes equal bytes, not a limit no kernel can pass.") in md
    assert "| `ls` | big | stream | 0.275 | 1,100 | FP32 | 131\u00a0% |" in md


def test_a_tensor_core_row_is_measured_against_the_tf32_roofline_and_without_one_gets_none() -> None:
    wmma = _row("wmma", 39000.0, 112.0, math="tf32")  # 348 FLOP/B: right of both ridges
    tf32 = _row("tf32", 364000.0, None, kind="cublas", math="tf32")
    view = ResultsView(root=Path("."), results=(_result("copy-ceilings", CEILINGS), _result("mm", (wmma, tf32))),
                       nodes=("h100-1",))
    assert "| `mm` | big | wmma | 348 | 39,000 | TF32 | 10.7\u00a0% |" in roofline_page(view)
    alone = ResultsView(root=Path("."), results=(_result("copy-ceilings", CEILINGS), _result("mm", (wmma,))),
                        nodes=("h100-1",))
    assert "| `mm` | big | wmma | 348 | 39,000 | \u2014 | \u2014 |" in roofline_page(alone)
