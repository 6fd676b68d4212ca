"""The generated words and figures of issue 30, one pure function at a time: a row's notes shown only
beside the columns they explain, clocks below the node's maximum, TF32 rows kept out of FP32 shares, no
empty chart, and a bandwidth experiment charted by its bandwidth."""

from __future__ import annotations

import re
from dataclasses import replace

import plainview as pv
import pytest

from measure.nsight import counters as C
from measure.store import results as rs
from site_plugins.measured import expand, load
from site_plugins.measured.model import Result, Row, RowNote, Table
from site_plugins.measured.notes import finding_text, notes, numbered

PATH = "content/terms/t.md"
DRAM = RowNote("DRAM read over 10 % more than the declared bytes: ...", "GB/s counts the declared bytes")
CLOCK = RowNote("counters collected at an SM clock of 1,754 MHz (the node's maximum is 1,980 MHz)", counters_only=True)


@pytest.mark.parametrize(
    ("note", "columns", "text"),
    [
        (DRAM, ["time", "gbps"], f"{DRAM.text}; GB/s counts the declared bytes"),
        (DRAM, ["time", "pct_copy"], f"{DRAM.text}; GB/s counts the declared bytes"),
        (DRAM, ["time", "gflops"], "DRAM read over 10 % more than the declared bytes: ..."),
        (CLOCK, ["time", "gflops"], ""),
        (CLOCK, ["gflops", "sectors_per_req_ld"], CLOCK.text),
    ],
)
def test_a_note_says_only_what_the_tables_columns_need(note: RowNote, columns: list[str], text: str) -> None:
    assert finding_text(note, columns) == text


def test_rows_sharing_a_finding_share_one_numbered_note() -> None:
    rows = [Row(f"k{i}", 1.0, 0.0, 1.0, None, None, None, findings=(DRAM,)) for i in range(8)]
    cells, legend = numbered({r.kernel: notes(r, False, ["gbps"]) for r in rows})
    assert legend == [finding_text(DRAM, ["gbps"])] and set(cells.values()) == {"1"}


def _view(**kw: object) -> rs.RowView:
    base = rs.RowView(
        "day16-matmul", "h200-1", "cublas-tf32", "cuBLAS TF32", "4096", 0.38, 0.37, 0.39, 0.02, 1.0, 364073.0,
        None, 1.0, 1.0, False, False, False, 1632, 204, 0.01, False,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        # power-capped: most kept samples at 1,710 MHz, 204 below the throttle floor dropped
        (
            _view(sm_clock_mhz=1710.0),
            ["timed at a median SM clock of 1,710\u00a0MHz (the node's maximum is 1,980\u00a0MHz; 204 samples below "
             "the run's throttle floor left out)"],
        ),
        (_view(sm_clock_mhz=1965.0), []),  # within 3 % of the maximum: nothing to say
        (_view(sm_clock_mhz=None), []),  # no clock read
        # the counter pass of the WMMA kernel
        (
            _view(sm_clock_mhz=1980.0, n_throttled=0, counters={C.SM_CLOCK: 1.754e9}),
            ["counters collected at an SM clock of 1,754\u00a0MHz (the node's maximum is 1,980\u00a0MHz)"],
        ),
        # a short memory-bound launch reads a few % low in the counter pass: not flagged
        (_view(sm_clock_mhz=1980.0, counters={C.SM_CLOCK: 1.874e9}), []),
    ],
)
def test_a_row_below_the_nodes_maximum_clock_says_so(view: rs.RowView, expected: list[str]) -> None:
    assert [n.text for n in load.clock_notes(view, 1980)] == expected
    assert load.clock_notes(view, -1) == ()  # no NVML maximum: nothing to compare with


def _raw(function: str, setup: dict[str, str] | None = None, kind: str = "kernel") -> rs.Row:
    check = rs.Check(True, 0.0, 0.0, 0.0, 0, "")
    return rs.Row("k", "k", kind, function, "s", {}, None, 0, 0, None, None, 0, check, setup=setup)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "math"),
    [
        (_raw("", {"math": "tf32"}, kind="cublas"), "tf32"),
        (_raw("", {"math": "fp32"}, kind="cublas"), "fp32"),
        (_raw("matmul_wmma_tf32"), "tf32"),
        (_raw("matmul_register"), "fp32"),
        (None, "fp32"),
    ],
)
def test_which_rows_compute_in_tf32(raw: rs.Row | None, math: str) -> None:
    assert load.math_of(raw) == math


GEMM = Table(
    size="4096",
    rows=(
        Row("cuBLAS SGEMM", 2.5, 0.01, 160.0, 54975.6, None, None, id="cublas-sgemm", pct_fp32=80.0,
            fp32_ref="FMA chains, 62,981 GFLOP/s"),
        Row("cuBLAS TF32", 0.4, 0.01, 1000.0, 364073.0, None, None, id="cublas-tf32", math="tf32"),
        Row("WMMA TF32", 3.5, 0.01, 120.0, 39000.0, None, None, id="wmma", math="tf32"),
    ),
)


def _cells(md: str, row: str) -> list[str]:
    m = re.search(rf"<code>{re.escape(row)}</code>.*?</tr>", md)
    assert m is not None, md
    return re.findall(r'<td class="gloss-num">([^<]*)</td>', m.group(0))


def test_a_tf32_row_is_no_share_of_an_fp32_row_or_the_fp32_ceiling() -> None:
    view = pv.view(Result("gemm", "h200-1", "fresh", metric="gflops", provenance=pv.PROV, tables=(GEMM,)))
    out = expand("{{ measured gemm cols=gflops,pct:cublas-sgemm,pct_fp32,pct:cublas-tf32 }}\n", path=PATH,
                 first_line=1, view=view, preview=False)
    assert [str(p) for p in out.problems] == []
    assert _cells(out.markdown, "cuBLAS SGEMM")[1:] == ["100", "80.0", "\u2014"]
    assert _cells(out.markdown, "WMMA TF32")[1:] == ["\u2014", "\u2014", "10.7"]


def test_a_chart_with_nothing_to_plot_is_not_drawn() -> None:
    chase = Table(size="chase", rows=(Row("chase", 1.0, 0.0, None, None, None, None, id="chase"),))
    view = pv.view(Result("lat", "h200-1", "fresh", metric="gflops", provenance=pv.PROV, tables=(chase,)))
    out = expand("{{ measured lat cols=time }}\n", path=PATH, first_line=1, view=view, preview=False)
    assert [str(p) for p in out.problems] == [] and "<table>" in out.markdown
    assert "<svg" not in out.markdown


@pytest.mark.parametrize(
    ("metric", "cols", "plotted"),
    [
        ("gbps", ["time", "gbps"], "gbps"),
        ("gbps", ["time", "pct_copy"], "gbps"),  # a share of GB/s: the GB/s chart tells the same story
        ("shared_gbps", ["time", "pct_shared_peak", "conflict_ways_ld"], "shared_gbps"),
        ("gflops", ["time", "pct:cublas-sgemm"], "gflops"),
        ("gflops", ["time", "gbps"], "gbps"),  # an author who picked GB/s gets a GB/s chart
        ("gbps", ["time", "sectors_per_req_ld", "dram_read_mb"], None),  # a chase's times and sectors: no chart
    ],
)
def test_a_chart_plots_a_rate_the_table_shows_or_nothing(metric: str, cols: list[str], plotted: str | None) -> None:
    from site_plugins.measured.render import chart_metric

    result = Result("x", "h200-1", "fresh", metric=metric, provenance=pv.PROV)  # type: ignore[arg-type]
    rows = [Row("k", 1.0, 0.0, 1.0, 1.0, None, None)]
    assert chart_metric(result, rows, cols) == plotted  # type: ignore[arg-type]
    launches = [Row("graph", 1.0, 0.0, None, None, None, None, us_per_launch=1.1)]
    assert chart_metric(result, launches, ["time"]) == "us_per_launch"


def test_a_chart_description_names_the_memcpy_line_as_a_line_it_is_drawn_against() -> None:
    rows = (Row("stream", 1.0, 0.0, 2000.0, None, None, None, id="stream"),)
    table = Table(size="s", rows=rows, memcpy_gbps=4250.0, memcpy_label="driver memcpy (1 GiB)")
    view = pv.view(Result("lat", "h200-1", "fresh", provenance=pv.PROV, tables=(table,)))
    out = expand("{{ measured lat cols=time,gbps }}\n", path=PATH, first_line=1, view=view, preview=False)
    (desc,) = re.findall(r"<desc[^>]*>(.*?)</desc>", out.markdown, re.S)
    assert desc.startswith("Bar chart of GB/s by kernel against the driver memcpy (1 GiB) 4,250\u00a0GB/s. stream:")


def test_a_chart_is_titled_by_the_column_it_plots() -> None:
    view = pv.view(Result("banks", "h200-1", "fresh", metric="shared_gbps", provenance=pv.PROV, tables=(pv.BANKS,)))
    out = expand("{{ measured banks cols=time,shared_gbps }}\n", path=PATH, first_line=1, view=view, preview=False)
    (title,) = re.findall(r"<title[^>]*>(.*?)</title>", out.markdown)
    (desc,) = re.findall(r"<desc[^>]*>(.*?)</desc>", out.markdown)
    assert title.startswith("Shared-memory GB/s by kernel, banks")
    assert desc.startswith("Bar chart of shared-memory GB/s by kernel.")


@pytest.mark.parametrize(
    ("message", "wrong"),
    [
        ("dst: 1234 of 16777216 elements differ from the reference (first at flat index 0: 0.5 instead of 0.25)",
         (1234, 16777216)),
        ("out: 1 of 6 elements are off by more than 1e-05 x max|ref| = 0.005 (worst 0.3; first at flat index 5)",
         (1, 6)),
        ("12 of 4096 elements were never written (they still hold the poison)", None),  # no buffer name: not ours
        ("not run: the driver refused the launch", None),
        ("", None),
    ],
)
def test_how_many_elements_a_check_found_wrong(message: str, wrong: tuple[int, int] | None) -> None:
    assert load.wrong_elements(message) == wrong


def _race_view() -> object:
    from site_plugins.measured.model import Launched

    launched = (
        Launched("no barrier, 1024", "racy-1024", "16M", True, matched=False, wrong=(4096, 16777216)),
        Launched("no barrier, 32", "racy-32", "16M", True, matched=True),
        Launched("refused", "refused", "16M", True, launched=False, error_name="CUDA_ERROR_INVALID_VALUE",
                 error_string="invalid argument"),
    )
    return pv.view(Result("barrier", "h200-1", "fresh", provenance=pv.PROV, launched=launched))


@pytest.mark.parametrize(
    ("line", "shown", "problem"),
    [
        ("{{ observed barrier row=racy-1024 field=check }}", "differed from the reference", None),
        ("{{ observed barrier row=racy-1024 field=wrong }}", "4,096 of 16,777,216 elements", None),
        ("{{ observed barrier row=racy-32 field=check }}", "matched the reference", None),
        ("{{ observed barrier row=racy-32 field=wrong }}", None,
         "row 'no barrier, 32' of experiment 'barrier' at 16M matched its reference, so no element was wrong; "
         "show field=check"),
        ("{{ observed barrier row=refused field=check }}", None,
         "row 'refused' of experiment 'barrier' at 16M was not compared with its reference (the launch was "
         "refused or failed); show field=launched or field=error"),
    ],
)
def test_an_observed_race_says_whether_and_how_much_it_went_wrong(line: str, shown: str | None,
                                                                  problem: str | None) -> None:
    out = expand(line + "\n", path=PATH, first_line=1, view=_race_view(), preview=False)  # type: ignore[arg-type]
    problems = [str(p) for p in out.problems]
    if problem is None:
        assert problems == [] and shown is not None and shown in out.markdown
    else:
        assert problems == [f"{PATH}:1: {problem}"]
