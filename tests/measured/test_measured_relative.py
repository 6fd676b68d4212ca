"""Columns relative to a named denominator (pct:ID, pct_fp32) and µs per launch: headers name the
denominator, values are the ratio of the experiment's metric; unknown rows are problems (no build)."""

from __future__ import annotations

import re
from pathlib import Path

import plainview as pv

from measure.store import results as R
from measure.testing import kinds as K
from site_plugins.measured import expand, fmt, load
from site_plugins.measured.model import Result, Row, Table

PATH = "content/terms/t.md"
NB = "\u00a0"

GEMM = Table(
    size="4096",
    rows=(
        Row(
            "naive",
            40.0,
            0.1,
            10.1,
            3435.9,
            None,
            None,
            id="naive",
            pct_fp32=5.0,
            fp32_ref="FMA chains, 62,981 GFLOP/s",
        ),
        Row(
            "cuBLAS SGEMM",
            2.5,
            0.01,
            160.0,
            54975.6,
            None,
            None,
            id="cublas-sgemm",
            pct_fp32=80.0,
            fp32_ref="FMA chains, 62,981 GFLOP/s",
        ),
    ),
)
LAUNCH = Table(
    size="1 warp",
    rows=(Row("1,000 launches, one graph", 1.16, 0.001, 0.1, None, None, None, id="graph-1000", us_per_launch=1.16),),
)


def run(body: str) -> tuple[str, list[str], tuple[str, ...]]:
    view = pv.view(
        Result("gemm", "h200-1", "fresh", metric="gflops", provenance=pv.PROV, tables=(GEMM,)),
        Result("launches", "h200-1", "fresh", provenance=pv.PROV, tables=(LAUNCH,)),
    )
    out = expand(body, path=PATH, first_line=1, view=view, preview=False)
    return out.markdown, [str(p) for p in out.problems], out.shown_values


def headers(md: str) -> list[str]:
    return re.findall(r'<th class="gloss-num">([^<]+)</th>', md)


def test_pct_of_a_named_row_names_it_in_the_header() -> None:
    md, problems, values = run("{{ measured gemm cols=gflops,pct:cublas-sgemm,pct_fp32 }}\n")
    assert problems == []
    assert headers(md) == ["GFLOP/s", "% of cuBLAS SGEMM", "% of FP32 ceiling (FMA chains, 62,981 GFLOP/s)"]
    assert "gemm/4096/h200-1 naive pct:cublas-sgemm: 6.25" + NB + "%" in values
    assert "gemm/4096/h200-1 cuBLAS SGEMM pct:cublas-sgemm: 100" + NB + "%" in values
    assert "gemm/4096/h200-1 naive pct_fp32: 5.00" + NB + "%" in values


def test_a_named_row_that_does_not_exist_is_a_problem() -> None:
    _, problems, _ = run("{{ measured gemm cols=gflops,pct:cublas }}\n")
    assert problems == [
        f"{PATH}:1: column 'pct:cublas': experiment 'gemm' has no row 'cublas' at 4096; name a row of the same size "
        "or a ceiling row: naive, cublas-sgemm"
    ]


def test_a_single_value_has_no_relative_column() -> None:
    _, problems, _ = run("{{ value gemm col=pct:cublas-sgemm row=naive }}\n")
    assert len(problems) == 1 and problems[0].startswith(f"{PATH}:1: unknown column 'pct:cublas-sgemm' in ")


def test_microseconds_per_launch() -> None:
    md, problems, values = run("{{ measured launches cols=time,us_per_launch }}\n")
    assert problems == []
    assert headers(md) == ["Time (ms)", "\u00b5s per launch"]
    assert "launches/1 warp/h200-1 1,000 launches, one graph us_per_launch: 1.16" + NB + "\u00b5s" in values


def test_loaded_rows_carry_us_per_launch_and_pct_of_the_runs_fp32_ceiling(tmp_path: Path) -> None:
    root = K.make_repo(tmp_path)
    assert K.run(root, K.fake(), ["toy-kinds", "toy-copies"]) == 0
    view = load.load_view(root)
    out = expand(
        "{{ measured toy-kinds cols=gflops,pct:sgemm,pct_fp32 }}\n"
        "{{ measured toy-copies rows=graph-10 cols=us_per_launch }}\n",
        path=PATH,
        first_line=1,
        view=view,
        preview=False,
    )
    assert [str(p) for p in out.problems] == []
    entry = R.load_all(root).get("toy-kinds", "test-node")
    sgemm, ref = entry.row("sgemm", "small"), entry.fp32_reference()
    assert sgemm is not None and sgemm.gflops is not None and ref is not None and ref.gflops is not None
    assert ref.label == "FMA chains"
    fp32_header = f"% of FP32 ceiling (FMA chains, {fmt.quantity(ref.gflops, 'GFLOP/s')})"
    assert headers(out.markdown)[:3] == ["GFLOP/s", "% of cuBLAS SGEMM", fp32_header]
    want = fmt.prose("pct_fp32", 100.0 * sgemm.gflops / ref.gflops)
    assert f"toy-kinds/small/test-node cuBLAS SGEMM pct_fp32: {want}" in out.shown_values
    graph = R.load_all(root).get("toy-copies", "test-node").row("graph-10", "ragged")
    assert graph is not None and graph.launches == 10 and graph.us_per_launch == graph.median_ms * 1000.0 / 10
    per = fmt.prose("us_per_launch", graph.us_per_launch)
    assert f"toy-copies/ragged/test-node 10 launches, one graph us_per_launch: {per}" in out.shown_values


def test_only_device_memory_rows_have_a_copy_reference_and_a_compute_ceiling_is_named(tmp_path: Path) -> None:
    root = K.make_repo(tmp_path)
    # A pipeline of 64 Ki elements moves 2 x 256 KiB (H2D + D2H): the bytes the copy ceiling rows move.
    (root / "code" / "copies" / "experiment.yaml").write_text(
        K.COPY_SPEC.replace("{label: ragged, dims: {n: 1003}}", "{label: 64K, dims: {n: 65536}}")
    )
    assert K.run(root, K.fake(), ["toy-copies"]) == 0
    entry = R.load_all(root).get("toy-copies", "test-node")
    pipe = entry.row("overlap-3", "64K")
    assert pipe is not None and pipe.bytes_moved == 2 * 4 * 65536 and entry.copy_reference(pipe) is None
    assert any(c.copies and c.bytes_moved == pipe.bytes_moved for c in entry.ceiling_rows())
    table = next(t for r in load.load_view(root).results if r.experiment == "toy-copies" for t in r.tables)
    fma = table.row("fma")
    assert fma is not None and fma.note == "FP32 ceiling, measured at one in the same run"
    assert table.memcpy_gbps is None  # no device-memory row in this table: no driver-memcpy line
