"""The row kinds cublas, transfer, pipeline and launch through the whole runner on the fake device
(check, timing, figures, result file, verify), a wrong output failing each, and several ceilings
experiments run first with their rows in every result."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from measure.experiment.spec import parse_spec
from measure.store import results as R
from measure.testing import synthetic as T
from measure.testing.kinds import COPY_SPEC, FMA_CEILING, SOURCE, SPEC, fake, make_repo, run, scale_only


def entry(root: Path, experiment: str) -> R.Entry:
    return R.load_all(root).get(experiment, "test-node")


def rows(root: Path, experiment: str) -> dict[str, R.Row]:
    e = entry(root, experiment)
    assert e.result is not None, e.problems
    return {r.kernel: r for r in e.result.rows}


def test_cublas_rows_run_both_maths_record_the_library_and_verify(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    device = fake()
    assert run(root, device, ["toy-kinds"]) == 0
    e = entry(root, "toy-kinds")
    assert e.state == "fresh", e.problems
    assert e.result is not None and e.result.schema_version == 3
    assert e.result.provenance.libraries == {"cublas": "fake/libcublas.so", "cublas_version": "0"}
    got = rows(root, "toy-kinds")
    assert set(device.gemms) == {"fp32", "tf32"}
    assert got["sgemm"].setup == {"math": "fp32", "m": "m", "n": "n", "k": "k"} and got["sgemm"].launch is None
    assert got["sgemm"].figures is not None and got["sgemm"].figures.gflops is not None


def test_a_wrong_gemm_fails_its_row_and_is_never_timed(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    device = fake()
    device.wrong.add("gemm")
    assert run(root, device, ["toy-kinds"]) == 1
    row = rows(root, "toy-kinds")["sgemm"]
    assert not row.check.passed and row.samples is None
    assert row.check.message.startswith("c: ")


def test_transfers_pipelines_and_launches_check_time_and_verify(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    device = fake()
    assert run(root, device, ["toy-copies"]) == 0
    e = entry(root, "toy-copies")
    assert e.state == "fresh", e.problems
    got = rows(root, "toy-copies")
    assert ("h2d", False) in device.copies and ("d2h", True) in device.copies
    # A transfer's GB/s counts the bytes once; a pipeline's both directions.
    h2d, pipe = got["h2d-pageable"], got["overlap-3"]
    assert h2d.summary is not None and h2d.figures is not None
    assert h2d.figures.gbps == pytest.approx(4 * 1003 / (h2d.summary.median_ms * 1e6))
    assert pipe.summary is not None and pipe.figures is not None
    assert pipe.figures.gbps == pytest.approx(8 * 1003 / (pipe.summary.median_ms * 1e6))
    # 1003 elements in 4 chunks of 251 (the last 250), chunk c on stream c % 3; the row records chunk 0's grid.
    assert device.pipeline_streams[:4] == [0, 1, 2, 0]
    assert (
        pipe.launch is not None
        and pipe.launch.grid == [1]
        and pipe.setup
        == {
            "streams": "3",
            "chunks": "4",
            "host": "pinned",
        }
    )
    graph = got["graph-10"]
    assert graph.launches == 10 and "graph" in device.repeat_modes
    assert graph.summary is not None and graph.figures is not None
    assert graph.figures.us_per_launch == graph.summary.median_ms * 1000.0 / 10
    assert got["h2d-pageable"].figures is not None and got["h2d-pageable"].figures.us_per_launch is None


@pytest.mark.parametrize(
    ("wrong", "kernel", "message"),
    [
        ("h2d", "h2d-pageable", "dst: "),
        ("d2h", "d2h-pinned", "dst: "),
    ],
)
def test_a_wrong_copy_fails_its_row(tmp_path: Path, wrong: str, kernel: str, message: str) -> None:
    root = make_repo(tmp_path)
    device = fake()
    device.wrong.add(wrong)
    assert run(root, device, ["toy-copies"]) == 1
    got = rows(root, "toy-copies")
    assert not got[kernel].check.passed and got[kernel].samples is None
    assert got[kernel].check.message.startswith(message)
    others = [r for k, r in got.items() if k != kernel]
    assert all(r.check.passed for r in others)


def test_a_wrong_pipeline_kernel_fails_on_the_host_copy(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert run(root, fake(scale_add=scale_only), ["toy-copies"]) == 1
    pipe = rows(root, "toy-copies")["overlap-3"]
    assert not pipe.check.passed and pipe.samples is None and pipe.check.message.startswith("dst: ")


def test_every_ceilings_experiment_runs_first_and_every_result_carries_all_their_rows(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    # Asked for in another order, a ceilings experiment among them: every ceilings experiment runs first.
    assert run(root, fake(), ["toy-kinds", "fp32-ceiling", "toy-copies"]) == 0
    started = {
        e.experiment: e.result.provenance.started_utc for e in R.load_all(root).entries if e.result is not None
    }
    assert sorted(started, key=lambda x: started[x]) == ["copy-ceilings", "fp32-ceiling", "toy-kinds", "toy-copies"]
    kinds = entry(root, "toy-kinds")
    assert kinds.state == "fresh", kinds.problems
    assert kinds.result is not None
    ceilings = [(r.experiment, r.kernel) for r in kinds.result.ceilings]
    assert ceilings == [("copy-ceilings", "memcpy"), ("copy-ceilings", "copy"), ("fp32-ceiling", "fma")]
    for exp in ("copy-ceilings", "fp32-ceiling"):
        e = entry(root, exp)
        assert e.state == "fresh", e.problems
        assert e.result is not None and [(r.experiment, r.kernel) for r in e.result.ceilings] == ceilings
    # The copy ceiling is the best copy: the FMA row (it declares FLOPs) never counts.
    copies = [r.figures.gbps for r in kinds.result.ceilings if r.figures is not None and r.kernel != "fma"]
    assert R.copy_ceiling_gbps(kinds.result.ceilings) == max(copies)
    fma_row = kinds.result.ceilings[2]
    assert fma_row.figures is not None and R.fp32_ceiling_gflops(kinds.result.ceilings) == fma_row.figures.gflops
    assert not math.isnan(R.fp32_ceiling_gflops(kinds.result.ceilings))


# --- spec checks, verbatim ---------------------------------------------------------------------------

GEMM = "gemm: {math: fp32, m: m, n: n, k: k}"
SPEC_CASES = [
    pytest.param(
        SPEC.replace("math: fp32", "math: fp16"),
        "code/toy/experiment.yaml:15: 'kernels[0].gemm.math' is 'fp16', not one of the allowed values; use one of "
        "'fp32', 'tf32'",
        id="unknown-math",
    ),
    pytest.param(
        SPEC.replace(GEMM, "gemm: {math: fp32, m: m, n: n}"),
        "code/toy/experiment.yaml:15: missing required key 'kernels[0].gemm.k'; add 'k:' (columns of A, rows of B "
        "(an expression))",
        id="missing-gemm-k",
    ),
    pytest.param(
        SPEC.replace(f"    {GEMM}\n", ""),
        "code/toy/experiment.yaml:14: kernel 'sgemm' is kind 'cublas' but has no 'gemm' section; add "
        "'gemm: {math: fp32, m: m, n: n, k: k}'",
        id="no-gemm",
    ),
    pytest.param(
        SPEC.replace("    kind: cublas\n    gemm: {math: fp32", "    gemm: {math: fp32", 1),
        "code/toy/experiment.yaml:14: kernel 'sgemm' declares 'gemm' but is kind 'kernel'; set 'kind: cublas', "
        "or drop 'gemm'",
        id="gemm-on-a-kernel-row",
    ),
    pytest.param(
        SPEC.replace(GEMM, "gemm: {math: fp32, m: m, n: n, k: m}"),
        "code/toy/experiment.yaml:15: kernel 'sgemm' at size 'small': buffer 'a' holds 40 elements, not 8 x 8; "
        "fix the shapes or the expressions",
        id="gemm-shape",
    ),
    pytest.param(
        SPEC.replace("args: [c, a, b]", "args: [a, c, b]", 1),
        "code/toy/experiment.yaml:16: kernel 'sgemm' argument 'a' is an input buffer; [c, a, b] (C = A @ B) "
        "needs an output there; give buffer 'a' role 'output', or name another buffer",
        id="gemm-args",
    ),
    pytest.param(
        SPEC.replace("    kind: cublas\n", "    kind: cublas\n    function: scale_add\n", 1),
        "code/toy/experiment.yaml:14: kernel 'sgemm' is kind 'cublas' but declares a function, block or grid; "
        "drop 'function', 'block' and 'grid' for kind 'cublas'",
        id="gemm-with-function",
    ),
    pytest.param(
        COPY_SPEC.replace("direction: h2d", "direction: sideways"),
        "code/toy/experiment.yaml:14: 'kernels[0].transfer.direction' is 'sideways', not one of the allowed "
        "values; use one of 'h2d', 'd2h'",
        id="bad-direction",
    ),
    pytest.param(
        COPY_SPEC.replace("host: pageable", "host: paged"),
        "code/toy/experiment.yaml:14: 'kernels[0].transfer.host' is 'paged', not one of the allowed values; use "
        "one of 'pageable', 'pinned'",
        id="bad-host",
    ),
    pytest.param(
        COPY_SPEC.replace("    bytes_written: 4 * n\n", "    bytes_written: 0\n", 1),
        "code/toy/experiment.yaml:18: kernel 'h2d-pageable' at size 'ragged': bytes_written is 0, bytes_read "
        "4012; a transfer writes the bytes it reads; fix the shapes or the expressions",
        id="transfer-bytes-differ",
    ),
    pytest.param(
        COPY_SPEC.replace("streams: 3", "streams: 0"),
        "code/toy/experiment.yaml:34: kernel 'overlap-3' pipeline.streams is 0; use 1 (the serial baseline) or more",
        id="streams-below-1",
    ),
    pytest.param(
        COPY_SPEC.replace("streams: 3", "streams: 5"),
        "code/toy/experiment.yaml:34: kernel 'overlap-3' has 5 streams for 4 chunks, so some streams stay idle; "
        "use at most as many streams as chunks",
        id="more-streams-than-chunks",
    ),
    pytest.param(
        COPY_SPEC.replace("chunks: 4", "chunks: 2000"),
        "code/toy/experiment.yaml:33: kernel 'overlap-3' at size 'ragged': 1003 elements cannot be cut into 2000 "
        "chunks; fix the shapes or the expressions",
        id="more-chunks-than-elements",
    ),
    pytest.param(
        COPY_SPEC.replace("count: 10", "count: 0"),
        "code/toy/experiment.yaml:45: kernel 'graph-10' launch.count is 0; launch 1 or more times per sample",
        id="count-below-1",
    ),
    pytest.param(
        COPY_SPEC.replace("mode: graph", "mode: burst"),
        "code/toy/experiment.yaml:45: 'kernels[3].launch.mode' is 'burst', not one of the allowed values; use one "
        "of 'stream', 'graph', 'sync'",
        id="unknown-mode",
    ),
    pytest.param(
        COPY_SPEC.replace("    function: copy_n\n", ""),
        "code/toy/experiment.yaml:38: kernel 'graph-10' has no 'function'; add 'function:' (the extern \"C\" "
        "__global__ name)",
        id="launch-without-function",
    ),
    pytest.param(
        COPY_SPEC.replace("chunks: 4}\n", "chunks: 4}\n    counters: [dram__bytes_read.sum]\n"),
        "code/toy/experiment.yaml:35: kernel 'overlap-3' is kind 'pipeline', whose launches the counter pass does "
        "not profile; drop 'counters' (only kind 'kernel' rows get counters)",
        id="pipeline-with-counters",
    ),
    pytest.param(
        FMA_CEILING.replace("    flops: 1000 * n\n", ""),
        "code/toy/experiment.yaml:12: ceiling experiment kernel 'fma' is neither a copy (reference 'copy', no "
        "flops) nor a compute ceiling (flops declared, another reference); a copy ceiling checks against 'copy' "
        "and declares no flops; a compute ceiling declares flops",
        id="ceiling-neither-copy-nor-compute",
    ),
]


@pytest.mark.parametrize(("text", "message"), SPEC_CASES)
def test_malformed_kind_rows(text: str, message: str) -> None:
    source = SOURCE.replace("copy_n", "fma_chain") if "fma_chain" in text else SOURCE
    declared, found = parse_spec(text, "code/toy/experiment.yaml", source)
    assert declared is None and [str(p) for p in found] == [message]


@pytest.mark.parametrize("text", [SPEC, COPY_SPEC, FMA_CEILING])
def test_the_kind_rows_are_read(text: str) -> None:
    source = SOURCE.replace("copy_n", "fma_chain") if "fma_chain" in text else SOURCE
    declared, found = parse_spec(text, "code/toy/experiment.yaml", source)
    assert found == [] and declared is not None


def test_a_version_2_file_keeps_its_digest_and_may_not_carry_version_3_fields(tmp_path: Path) -> None:
    T.write_fixture_repo(tmp_path)
    path = T.write(tmp_path, T.make_result(tmp_path, schema_version=2))
    text = path.read_text()
    assert '"launches"' not in text and '"us_per_launch"' not in text and '"libraries"' not in text
    e = R.load_all(tmp_path).get("toy-copy", "test-node")
    assert e.state == "fresh", e.problems
    path.write_text(text.replace('"kind": "kernel",', '"kind": "kernel",\n      "launches": 5,', 1))
    e = R.load_all(tmp_path).get("toy-copy", "test-node")
    assert (e.state, [str(p) for p in e.problems]) == (
        "invalid",
        [
            "measure/results/test-node/toy-copy.json:1: invalid: schema version 2 has no 'launches' (a version-3 "
            "field); re-run `gloss measure run toy-copy --node test-node`"
        ],
    )


def test_scale_add_reference_rounds_once_as_the_kernels_fmaf() -> None:
    import numpy as np

    from measure.experiment import references

    src = (np.random.default_rng(7).random(100_000, dtype=np.float32) * 2 - 1).astype(np.float32)
    got = references.scale_add({"src": src}, {})["dst"]
    exact = (src.astype(np.float64) * 2 + 1).astype(np.float32)  # one rounding of the exact value
    assert got.dtype == np.float32 and np.array_equal(got, exact)
