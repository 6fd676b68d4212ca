"""A tiny measured project in tmp_path: a node registry, one experiment spec with its .cu file, and
result files written through ``measure.store.results`` (its dataclasses, its recompute functions, its atomic
writer), so staleness and tampering are produced for real: edit the .cu and the result is stale; change
a sample through the results module's own reader/writer and it is tampered.

The sample times are synthetic test data (obviously so: round, evenly spread); they never leave tmp_path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from measure.experiment.spec import sha256_file
from measure.nsight import counters as C
from measure.store import results as rs
from measure.testing import synthetic as testing

NODE = "h200-1"
EXPERIMENT = "day13-transpose"
CU = "code/day13/transpose.cu"
SPEC = "code/day13/experiment.yaml"

NODES_YAML = """\
nodes:
  h200-1:
    gpu: NVIDIA H200
    arch: sm_90
    description: A test node.
"""

SOURCE = """\
extern "C" {
__global__ void copy_kernel(float* dst, const float* src, int rows, int cols) { }
__global__ void transpose_naive(float* dst, const float* src, int rows, int cols) { }
__global__ void transpose_tile32(float* dst, const float* src, int rows, int cols) { }
__global__ void transpose_tile32_padded(float* dst, const float* src, int rows, int cols) { }
}
"""


def _kernel(kid: str, label: str, function: str, reference: str) -> str:
    return f"""\
  - id: {kid}
    label: "{label}"
    function: {function}
    block: [32, 8]
    grid: ["cdiv(cols, 32)", "cdiv(rows, 32)"]
    args: [dst, src, rows, cols]
    reference: {reference}
    bytes_read: 4 * rows * cols
    bytes_written: 4 * rows * cols
"""


SPEC_YAML = (
    """\
id: day13-transpose
title: Transposing a matrix through shared memory
source: transpose.cu
element: float32
buffers:
  - {name: src, role: input, shape: [rows, cols]}
  - {name: dst, role: output, shape: [cols, rows]}
sizes:
  - {label: 2003x3001, dims: {rows: 2003, cols: 3001}}
  - {label: 8192x8192, dims: {rows: 8192, cols: 8192}}
kernels:
"""
    + _kernel("copy", "copy", "copy_kernel", "copy")
    + _kernel("naive", "naive", "transpose_naive", "transpose")
    + _kernel("tile32", "tile[32][32]", "transpose_tile32", "transpose")
    + _kernel("tile32-padded", "tile[32][33]", "transpose_tile32_padded", "transpose")
)

KERNELS = [("copy", "copy"), ("naive", "naive"), ("tile32", "tile[32][32]"), ("tile32-padded", "tile[32][33]")]
SIZES = {"2003x3001": (2003, 3001), "8192x8192": (8192, 8192)}
# Median times in ms of the synthetic samples, per size and kernel.
BASE_MS = {
    "2003x3001": {"copy": 0.020, "naive": 0.060, "tile32": 0.035, "tile32-padded": 0.021},
    "8192x8192": {"copy": 0.140, "naive": 0.490, "tile32": 0.270, "tile32-padded": 0.145},
}
L2_BYTES = 60 * 1024 * 1024


def samples(base_ms: float, n: int = 11) -> list[float]:
    """Evenly spread around ``base_ms`` (relative spread 0.2 %): the stopping rule is met."""
    return [base_ms * (1 + 0.001 * ((i % 5) - 2)) for i in range(n)]


def settings() -> rs.Settings:
    return rs.Settings(
        min_samples=10,
        min_gpu_time_s=0.0,
        max_rel_stdev=0.005,
        row_time_limit_s=5.0,
        warmup_launches=3,
        batch_size=1,
        l2_flush_bytes=2 * L2_BYTES,
        throttle_fraction=0.9,
        min_sm_clock_mhz=1782,
        seed=1,
    )


def provenance(root: Path, node: str = NODE) -> rs.Provenance:
    return rs.Provenance(
        node=node,
        gpu_name="NVIDIA H200",
        gpu_uuid="GPU-00000000-test",
        pci_bus_id="00000000:00:00.0",
        compute_capability="9.0",
        sm_count=132,
        l2_bytes=L2_BYTES,
        memory_clock_mhz=3201,
        bus_width_bits=6016,
        theoretical_peak_gbps=2.0 * 3201 * 1e6 * 6016 / 8.0 / 1e9,
        max_sm_clock_mhz=1980,
        nvml="available",
        driver_release="580.159.04",
        cuda_driver_version="13.0",
        nvcc_version="Cuda compilation tools, release 13.0, V13.0.88",
        nvcc_flags=["-O3", "-arch=sm_90"],
        pycuda_version="2025.1",
        numpy_version="2.1.0",
        python_version="3.12.3",
        hostname="test-host",
        git_commit="unknown",
        git_dirty=None,
        source_path=CU,
        source_sha256=sha256_file(root / CU),
        spec_path=SPEC,
        spec_sha256=sha256_file(root / SPEC),
        run_id="run-1",
        run_started_utc="2026-12-02T10:00:00Z",
        started_utc="2026-12-02T10:00:01Z",
        finished_utc="2026-12-02T10:00:09Z",
    )


def row(kid: str, label: str, size: str, base_ms: float | None, *, kind: str = "kernel", failed: str = "") -> rs.Row:
    r, c = SIZES.get(size, (16384, 16384))
    nbytes = 4 * r * c
    passed = not failed
    return rs.Row(
        kernel=kid,
        label=label,
        kind=kind,  # type: ignore[arg-type]
        function="" if kind == "memcpy" else f"k_{kid}",
        size=size,
        dims={"rows": r, "cols": c},
        launch=None if kind == "memcpy" else rs.Launch(grid=[(c + 31) // 32, (r + 31) // 32, 1], block=[32, 8, 1]),
        bytes_read=nbytes,
        bytes_written=nbytes,
        flops=None,
        shared_bytes=None,
        working_set_bytes=2 * nbytes,
        check=rs.Check(
            passed=passed,
            tolerance=0.0,
            rel_error=0.0 if passed else None,
            max_abs_error=0.0 if passed else None,
            unwritten=0 if passed else 12,
            message=failed,
        ),
        samples=rs.Samples(samples(base_ms), [1980] * 11) if passed and base_ms is not None else None,
    )


def make_result(
    root: Path, *, node: str = NODE, failed: Mapping[str, str] | None = None, counters: bool = False
) -> rs.Result:
    """A result whose summaries and figures are what the results module recomputes from the samples;
    ``counters``: every kernel row carries the synthetic sm_90 counters of ``measure.testing.synthetic``."""
    failed = failed or {}
    prov = provenance(root, node)
    st = settings()
    ceilings = rs.recompute_ceilings([row("memcpy", "cudaMemcpy D2D", "16384x16384", 0.540, kind="memcpy")], prov, st)
    best = rs.copy_ceiling_gbps(ceilings)
    rows = [
        rs.recompute_row(row(kid, label, size, BASE_MS[size][kid], failed=failed.get(kid, "")), prov, st, best)
        for size in SIZES
        for kid, label in KERNELS
    ]
    status = "failed" if failed else "ok"
    counter_pass = None
    if counters:
        metrics = list(C.DEFAULT_METRICS["sm_90"])
        rows = [dataclasses.replace(r, counters=testing.synthetic_counters(r, metrics)) for r in rows]
        counter_pass = rs.CounterPass("2025.3.1.0", ["ncu", "--metrics", ",".join(metrics)], metrics, "")
    return rs.Result(
        counter_pass=counter_pass,
        schema_version=rs.SCHEMA_VERSION,
        experiment=EXPERIMENT,
        title="Transposing a matrix through shared memory",
        node=node,
        status=status,
        error="",
        provenance=prov,
        settings=st,
        builds=[],
        ceilings=ceilings,
        rows=rows,
    )


def make_project(
    root: Path,
    *,
    result: bool = True,
    node: str = NODE,
    failed: Mapping[str, str] | None = None,
    extra: Mapping[str, str] | None = None,
    counters: bool = False,
) -> Path:
    files = {"measure/nodes.yaml": NODES_YAML, SPEC: SPEC_YAML, CU: SOURCE, **(extra or {})}
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if result:
        write(root, make_result(root, node=node, failed=failed, counters=counters))
    return root


def write(root: Path, result: rs.Result) -> Path:
    path = rs.result_path(root, result.node, result.experiment)
    rs.write_result(path, result)
    return path


def tamper_one_sample(root: Path, node: str = NODE) -> None:
    """Change one raw sample, through the results module's own reader and writer."""
    path = rs.result_path(root, node, EXPERIMENT)
    rel = path.relative_to(root).as_posix()
    result, problems = rs.read_result(path, rel, EXPERIMENT, node)
    assert result is not None and not problems
    first = result.rows[5]
    assert first.samples is not None
    times = list(first.samples.times_ms)
    times[0] *= 0.5
    changed = dataclasses.replace(first, samples=dataclasses.replace(first.samples, times_ms=times))
    rows = [changed if i == 5 else r for i, r in enumerate(result.rows)]
    rs.write_result(path, dataclasses.replace(result, rows=rows))
