"""Synthetic results for TESTS ONLY (tiny sites, verify tests): never commit what these make.

:func:`make_result` builds a consistent :class:`~measure.store.results.Result` (summaries and figures
recomputed from made-up samples, so ``verify`` calls it fresh) for a spec that exists under ``root``;
:func:`write_fixture_repo` lays out a minimal repository (node registry, one experiment, its source)
to point it at. Provenance says plainly that the numbers are synthetic.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Literal

from measure.experiment.includes import included_files
from measure.experiment.spec import Declared, evaluate, load_specs, sha256_file
from measure.nsight import counters as C
from measure.store import results as R
from measure.store.observed import Limits, Outcome, occupancy
from measure.store.stats import theoretical_peak_gbps

FIXTURE_SPEC = """\
id: toy-copy
title: A toy copy for tests
source: toy.cu
element: float32
buffers:
  - {name: src, role: input, shape: [n]}
  - {name: dst, role: output, shape: [n]}
sizes:
  - {label: 1M, dims: {n: 1048576}}
  - {label: 64M, dims: {n: 67108864}}
kernels:
  - id: copy
    label: copy
    function: toy_copy
    block: [256]
    grid: ["cdiv(n, 256)"]
    args: [dst, src, n]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: slow
    label: slow copy
    function: toy_slow
    block: [256]
    grid: ["cdiv(n, 256)"]
    args: [dst, src, n]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
"""

FIXTURE_SOURCE = """\
extern "C" {
__global__ void toy_copy(float* dst, const float* src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
__global__ void toy_slow(float* dst, const float* src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
}
"""

#: The limits synthetic results carry (the H200's, as its driver reports them).
SYNTHETIC_LIMITS = Limits(49152, 232448, 233472, 65536, 65536, 2048, 32, 32, 1024)
#: What a launch refused for too much dynamic shared memory records.
REFUSED = Outcome(False, "CUDA_ERROR_INVALID_VALUE", "invalid argument")

FIXTURE_NODES = """\
nodes:
  test-node:
    gpu: NVIDIA H200
    arch: sm_90
    description: a node that exists only in tests
"""


def write_fixture_repo(root: Path) -> None:
    (root / "code" / "toy").mkdir(parents=True, exist_ok=True)
    (root / "code" / "toy" / "experiment.yaml").write_text(FIXTURE_SPEC, encoding="utf-8")
    (root / "code" / "toy" / "toy.cu").write_text(FIXTURE_SOURCE, encoding="utf-8")
    (root / "measure").mkdir(exist_ok=True)
    (root / "measure" / "nodes.yaml").write_text(FIXTURE_NODES, encoding="utf-8")


SMALL_CEILINGS_SPEC = """\
id: copy-ceilings
title: small ceilings for tests
source: copy.cu
element: float32
ceilings: true
buffers:
  - {{name: src, role: input, shape: [n]}}
  - {{name: dst, role: output, shape: [n]}}
sizes:
  - {{label: {label}, dims: {{n: {n}}}}}
kernels:
  - id: memcpy
    label: driver memcpy
    kind: memcpy
    args: [dst, src]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: copy
    label: copy kernel
    function: copy_kernel
    block: [256]
    grid: ["sm_count * 8"]
    args: [dst, src, n]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
"""


def write_small_ceilings(root: Path, label: str, n: int) -> None:
    """A ceilings experiment of one small size (driver memcpy and one copy kernel, ``copy_kernel``) for
    runs on the fake device."""
    folder = root / "code" / "ceilings"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "experiment.yaml").write_text(SMALL_CEILINGS_SPEC.format(label=label, n=n), encoding="utf-8")
    (folder / "copy.cu").write_text(
        'extern "C" {\n__global__ void copy_kernel(float* dst, const float* src, int n) { }\n}\n', encoding="utf-8"
    )


def _samples(base_ms: float, n: int) -> R.Samples:
    # A deterministic, slightly spread set of times (about 0.1 % relative spread).
    times = [base_ms * (1.0 + 0.001 * (((i * 7919) % 13) - 6) / 6) for i in range(n)]
    return R.Samples(times_ms=times, sm_clock_mhz=[1980] * n)


def make_result(
    root: Path,
    experiment: str = "toy-copy",
    node: str = "test-node",
    times_ms: dict[tuple[str, str], float] | None = None,
    failed: set[tuple[str, str]] | None = None,
    n_samples: int = 40,
    with_counters: bool = False,
    schema_version: int = R.SCHEMA_VERSION,
    outcomes: dict[tuple[str, str], Outcome] | None = None,
) -> R.Result:
    """A self-consistent result for declared ``experiment``; ``times_ms`` maps (kernel, size) to a
    median time (default 0.1 ms x size factor); ``failed`` rows carry a failed check instead;
    ``with_counters``: every kernel row carries the sm_90 default counters (see :func:`synthetic_counters`)
    and the result a counter pass. Rows of kind ``observe`` are never timed and record
    ``outcomes[(kernel, size)]`` (default: launched, no error); a refused one (e.g. :data:`REFUSED`) is not
    checked. Kernel rows carry an occupancy, the provenance the H200's limits."""
    specs, problems = load_specs(root)
    if problems:
        raise ValueError("\n".join(str(p) for p in problems))
    d: Declared = specs[experiment]
    provenance = R.Provenance(
        node=node,
        gpu_name="NVIDIA H200",
        gpu_uuid="GPU-synthetic",
        pci_bus_id="00000000:00:00.0",
        compute_capability="9.0",
        sm_count=132,
        l2_bytes=62914560,
        memory_clock_mhz=3201,
        bus_width_bits=6016,
        theoretical_peak_gbps=theoretical_peak_gbps(3201, 6016),
        max_sm_clock_mhz=1980,
        nvml="available",
        driver_release="synthetic",
        cuda_driver_version="13.0",
        nvcc_version="13.0",
        nvcc_flags=["-O3", "-arch=sm_90"],
        pycuda_version="synthetic",
        numpy_version="synthetic",
        python_version="3.12",
        hostname="synthetic",
        git_commit="unknown",
        git_dirty=None,
        source_path=d.source_path,
        source_sha256=sha256_file(root / d.source_path),
        source_includes=included_files(root, d.source_path)[0] or None,
        spec_path=d.spec_path,
        spec_sha256=sha256_file(root / d.spec_path),
        run_id="synthetic",
        run_started_utc="2026-01-01T00:00:00Z",
        started_utc="2026-01-01T00:00:00Z",
        finished_utc="2026-01-01T00:01:00Z",
        limits=SYNTHETIC_LIMITS,
    )
    settings = R.Settings(
        min_samples=10,
        min_gpu_time_s=0.001,
        max_rel_stdev=0.005,
        row_time_limit_s=5.0,
        warmup_launches=3,
        batch_size=16,
        l2_flush_bytes=268435456,
        throttle_fraction=0.75,
        min_sm_clock_mhz=1485,
        seed=1,
    )
    n_bytes = 1 << 30
    ceilings = [
        R.Row(
            kernel="memcpy",
            label="driver memcpy",
            kind="memcpy",
            function="",
            size="1 GiB",
            dims={"n": n_bytes // 4},
            launch=None,
            bytes_read=n_bytes,
            bytes_written=n_bytes,
            flops=None,
            shared_bytes=None,
            working_set_bytes=2 * n_bytes,
            check=R.Check(True, 0.0, 0.0, 0.0, 0, ""),
            samples=_samples(0.51, n_samples),
        ),
    ]
    ceilings = R.recompute_ceilings(ceilings, provenance, settings)
    best = R.copy_ceiling_gbps(ceilings)
    rows: list[R.Row] = []
    exp = d.experiment
    for i_size, size in enumerate(exp.sizes):
        for k in exp.kernels:
            env = {**size.dims, **k.params}
            br, bw = evaluate(k.bytes_read, env), evaluate(k.bytes_written, env)
            key = (k.id, size.label)
            bad = failed is not None and key in failed
            median = (times_ms or {}).get(key, 0.1 * (i_size * 10 + 1))
            check = (
                R.Check(False, k.tolerance, None, None, 12, "12 elements were never written")
                if bad
                else R.Check(True, k.tolerance, 0.0, 0.0, 0, "")
            )
            outcome = (outcomes or {}).get(key, Outcome(True, "", "")) if k.kind == "observe" else None
            if outcome is not None and not outcome.launched:
                check = R.Check(False, k.tolerance, None, None, 0, "not run: the driver refused the launch")
            threads = 1
            for b in k.block:
                threads *= b
            dynamic = evaluate(k.dynamic_shared, env) if k.dynamic_shared else 0
            blocks = 0 if outcome is not None and not outcome.launched else max(1, 2048 // max(threads, 1))
            rows.append(
                R.Row(
                    kernel=k.id,
                    label=k.label,
                    kind=k.kind,
                    function=k.function or "",
                    size=size.label,
                    dims=dict(size.dims),
                    launch=R.Launch([evaluate(g, env) for g in k.grid], list(k.block)),
                    bytes_read=br,
                    bytes_written=bw,
                    flops=evaluate(k.flops, env) if k.flops else None,
                    shared_bytes=evaluate(k.shared_bytes, env) if k.shared_bytes else None,
                    working_set_bytes=br + bw,
                    check=check,
                    samples=None if bad or k.kind == "observe" else _samples(median, n_samples),
                    occupancy=occupancy(threads, dynamic, blocks, SYNTHETIC_LIMITS) if k.kind != "memcpy" else None,
                    outcome=outcome,
                )
            )
    rows = [R.recompute_row(r, provenance, settings, best) for r in rows]
    counter_pass = None
    if with_counters:
        metrics = C.metrics_for("sm_90", C.extras_of(exp.kernels).values())
        rows = [replace(r, counters=synthetic_counters(r, metrics)) if r.kind == "kernel" else r for r in rows]
        counter_pass = R.CounterPass("synthetic", ["ncu", "--metrics", ",".join(metrics)], metrics, "")
    status: Literal["ok", "failed"] = "failed" if failed else "ok"
    return R.Result(
        counter_pass=counter_pass,
        schema_version=schema_version,
        experiment=experiment,
        title=exp.title,
        node=node,
        status=status,
        error="",
        provenance=provenance,
        settings=settings,
        # As the runner records them: one per compiled function, none for a memcpy.
        builds=[R.KernelBuild(f, 16, 0, 0, 1024)
                for f in dict.fromkeys(k.function for k in exp.kernels if k.kind != "memcpy" and k.function)],
        ceilings=ceilings,
        rows=rows,
    )


def synthetic_counters(row: R.Row, metrics: list[str]) -> dict[str, float]:
    """Made-up but self-consistent counters: a 2-way shared conflict on loads, none on stores, 4 sectors
    per global request, DRAM bytes equal to the declared bytes, a kernel time of 90 % of the median."""
    warps = (row.bytes_read + row.bytes_written) / 256.0  # one 128-byte warp access per load and store
    median_ms = row.summary.median_ms if row.summary else 0.1
    known = {
        C.DURATION: round(median_ms * 1e6 * 0.9),
        C.WAVES_LD: 2 * warps,
        C.INST_LD: warps,
        C.WAVES_ST: warps,
        C.INST_ST: warps,
        C.REQ_LD: warps,
        C.SEC_LD: 4 * warps,
        C.REQ_ST: warps,
        C.SEC_ST: 4 * warps,
        C.DRAM_RD: float(row.bytes_read),
        C.DRAM_WR: float(row.bytes_written),
        C.OCCUPANCY: 87.5,
        C.REGISTERS: 16.0,
        C.SM_CLOCK: 1.98e9,
    }
    return {m: float(known.get(m, 1.0)) for m in metrics}


def write(root: Path, result: R.Result) -> Path:
    path = R.result_path(root, result.node, result.experiment)
    R.write_result(path, result)
    return path


__all__ = [
    "FIXTURE_NODES",
    "FIXTURE_SOURCE",
    "FIXTURE_SPEC",
    "REFUSED",
    "SYNTHETIC_LIMITS",
    "make_result",
    "replace",
    "synthetic_counters",
    "write",
    "write_fixture_repo",
]
