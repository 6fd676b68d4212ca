"""A synthetic glossary for the build benchmark and the scale tests: N terms with plausible A–Z names.

Each term carries a one-sentence definition, about 700 words of prose in three sections and, with
``embeds``, one measured table and two values in prose expanded from result files written through
``measure.store.results`` (three experiments, two sizes, two row selections). Names combine a head word
and a qualifier ("What is bank conflict latency?"), so initials are spread over the alphabet about as
unevenly as a real glossary's (many S and C, few Q and Z), which is what the A–Z navigation groups by.

The sample times in the synthetic result files are made up (round and evenly spread); they exist only
in a temporary folder and are never committed.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from measure.experiment.spec import sha256_file  # noqa: E402
from measure.store import results as rs  # noqa: E402

# 79 head words x 41 qualifiers: 3,239 distinct names.
HEADS = """
    achieved-occupancy active-mask arithmetic-intensity async-copy atomic-add bank-conflict barrier
    block-scheduler broadcast cache-line clock-rate cluster coalescing compute-capability constant-cache
    context-switch cooperative-group copy-engine cuda-graph cuda-stream data-race device-memory
    dynamic-parallelism event-timer fused-kernel global-memory grid-stride half-precision host-pinning
    instruction-issue kernel-launch l1-cache l2-cache lane-mask latency-hiding launch-bound load-balance
    local-memory managed-memory matrix-fragment memory-fence memory-pool multiprocessor nvlink
    occupancy-limit page-migration peer-access persistent-kernel predication prefetch quantization
    read-only-cache reduction register-file register-spill roofline scoreboard shared-memory
    shuffle-exchange sm-partition sparse-tensor stall-reason streaming-load swizzle tail-effect
    tensor-core texture-fetch thread-block throughput-bound tile-shape transpose unified-address
    vector-load virtual-memory warp-divergence warp-scheduler warp-shuffle write-back zero-copy
""".split()  # noqa: SIM905 (a word list reads better as text)
QUALIFIERS = """
    latency throughput bandwidth overhead granularity alignment ordering visibility contention
    replay pressure limit ceiling width depth size count stride pattern footprint efficiency
    utilisation scaling budget balance hazard cost model counter profile trace layout mapping
    residency eviction coherence fairness priority placement reuse locality
""".split()  # noqa: SIM905 (a word list reads better as text)

NODE = "h200-1"
L2 = 60 * 1024 * 1024

NODES_YAML = f"""\
nodes:
  {NODE}:
    gpu: NVIDIA H200
    arch: sm_90
    description: A synthetic node for the build benchmark.
"""

# Three experiments shaped like the lessons' (a copy ceiling and a ladder of kernels, two sizes each).
EXPERIMENTS = {
    "bench-transpose": ["copy", "naive", "tile32", "tile32-padded"],
    "bench-banks": ["copy", "stride1", "stride2", "stride32", "padded"],
    "bench-reduce": ["copy", "atomic", "tree", "warp-shuffle"],
}
SIZES = {"2003x3001": (2003, 3001), "8192x8192": (8192, 8192)}


def _spec(exp: str, kernels: list[str]) -> str:
    head = f"""\
id: {exp}
title: A synthetic experiment for the build benchmark
source: k.cu
element: float32
buffers:
  - {{name: src, role: input, shape: [rows, cols]}}
  - {{name: dst, role: output, shape: [rows, cols]}}
sizes:
  - {{label: 2003x3001, dims: {{rows: 2003, cols: 3001}}}}
  - {{label: 8192x8192, dims: {{rows: 8192, cols: 8192}}}}
kernels:
"""
    body = "".join(
        f"""\
  - id: {k}
    label: {k}
    function: k_{k.replace("-", "_")}
    block: [32, 8]
    grid: ["cdiv(cols, 32)", "cdiv(rows, 32)"]
    args: [dst, src, rows, cols]
    reference: copy
    bytes_read: 4 * rows * cols
    bytes_written: 4 * rows * cols
"""
        for k in kernels
    )
    return head + body


def _source(kernels: list[str]) -> str:
    fns = "".join(
        f"__global__ void k_{k.replace('-', '_')}(float* dst, const float* src, int rows, int cols) {{ }}\n"
        for k in kernels
    )
    return 'extern "C" {\n' + fns + "}\n"


def _row(kid: str, size: str, base_ms: float, kind: str = "kernel") -> rs.Row:
    r, c = SIZES.get(size, (16384, 16384))
    n = 4 * r * c
    return rs.Row(
        kernel=kid, label=kid, kind=kind,  # type: ignore[arg-type]
        function="" if kind == "memcpy" else f"k_{kid}", size=size, dims={"rows": r, "cols": c},
        launch=None if kind == "memcpy" else rs.Launch(grid=[(c + 31) // 32, (r + 31) // 32, 1], block=[32, 8, 1]),
        bytes_read=n, bytes_written=n, flops=None, shared_bytes=None, working_set_bytes=2 * n,
        check=rs.Check(passed=True, tolerance=0.0, rel_error=0.0, max_abs_error=0.0, unwritten=0, message=""),
        samples=rs.Samples([base_ms * (1 + 0.001 * ((i % 5) - 2)) for i in range(11)], [1980] * 11),
    )


def write_project(root: Path) -> None:
    (root / "measure").mkdir(parents=True)
    (root / "measure/nodes.yaml").write_text(NODES_YAML, encoding="utf-8")
    settings = rs.Settings(min_samples=10, min_gpu_time_s=0.0, max_rel_stdev=0.005, row_time_limit_s=5.0,
                           warmup_launches=3, batch_size=1, l2_flush_bytes=2 * L2, throttle_fraction=0.9,
                           min_sm_clock_mhz=1782, seed=1)
    for exp, kernels in EXPERIMENTS.items():
        folder = root / "code" / exp
        folder.mkdir(parents=True)
        (folder / "experiment.yaml").write_text(_spec(exp, kernels), encoding="utf-8")
        (folder / "k.cu").write_text(_source(kernels), encoding="utf-8")
        prov = rs.Provenance(
            node=NODE, gpu_name="NVIDIA H200", gpu_uuid="GPU-bench", pci_bus_id="00000000:00:00.0",
            compute_capability="9.0", sm_count=132, l2_bytes=L2, memory_clock_mhz=3201, bus_width_bits=6016,
            theoretical_peak_gbps=2.0 * 3201 * 1e6 * 6016 / 8.0 / 1e9, max_sm_clock_mhz=1980, nvml="available",
            driver_release="580.159.04", cuda_driver_version="13.0", nvcc_version="V13.0.88",
            nvcc_flags=["-O3", "-arch=sm_90"], pycuda_version="2025.1", numpy_version="2.1.0",
            python_version="3.12.3", hostname="bench", git_commit="unknown", git_dirty=None,
            source_path=f"code/{exp}/k.cu", source_sha256=sha256_file(folder / "k.cu"),
            spec_path=f"code/{exp}/experiment.yaml", spec_sha256=sha256_file(folder / "experiment.yaml"),
            run_id="bench", run_started_utc="2026-12-02T10:00:00Z", started_utc="2026-12-02T10:00:01Z",
            finished_utc="2026-12-02T10:00:09Z",
        )
        ceilings = rs.recompute_ceilings([_row("memcpy", "16384x16384", 0.54, "memcpy")], prov, settings)
        best = rs.copy_ceiling_gbps(ceilings)
        rows = [
            rs.recompute_row(_row(k, size, (0.14 if size == "8192x8192" else 0.02) * (1 + 0.7 * i)), prov, settings,
                             best)
            for size in SIZES
            for i, k in enumerate(kernels)
        ]
        result = rs.Result(schema_version=rs.SCHEMA_VERSION, experiment=exp, title="bench", node=NODE, status="ok",
                           error="", provenance=prov, settings=settings, builds=[], ceilings=ceilings, rows=rows)
        rs.write_result(rs.result_path(root, NODE, exp), result)


PROSE = (
    "A tile is a block of the array that a thread block stages in shared memory, so that the slow global "
    "memory is read once in the order it likes and the fast shared memory serves the order the kernel needs. "
    "The guard for a ragged edge stays below the barrier, never above it, so every thread reaches the barrier. "
)


def name(i: int) -> str:
    """Term ``i``'s name, distinct for every ``i``; the initials of consecutive terms vary. Past the
    3,239 head-and-qualifier pairs a name takes a number ("bank conflict latency 2")."""
    pairs = len(HEADS) * len(QUALIFIERS)
    k, j = divmod(i, pairs)
    h, q = HEADS[j % len(HEADS)], QUALIFIERS[(j // len(HEADS) + j) % len(QUALIFIERS)]
    return f"{h.replace('-', ' ')} {q}" + (f" {k + 1}" if k else "")


def plain_text(exp: str, size: str, rows: list[str]) -> tuple[str, str]:
    """What the gloss page shows as text of its values in prose and its embed (caption, table with its
    figures and note), in plain Markdown with the same figures, so that plain material indexes the same
    text. The provenance sentence and the chart, which the gloss site keeps out of its search index,
    are left out."""
    r, c = SIZES[size]
    base = 0.14 if size == "8192x8192" else 0.02
    kernels = EXPERIMENTS[exp]
    suspect = 8 * r * c < L2  # the working set (source and destination) fits in L2: flagged, as the runner does
    mark = " \u26a0" if suspect else ""

    def gbps(k: str) -> float:
        return 8 * r * c / (base * (1 + 0.7 * kernels.index(k)) * 1e-3) / 1e9

    best, other = kernels[-1], kernels[1]
    prose = (f"The last kernel of the ladder moves {gbps(best):,.0f}\u00a0GB/s{mark}, "
             f"{gbps(best) / gbps(other):.3f}×{mark} the second one.")
    out = [f"{exp} at {r}\u00a0×\u00a0{c}", "",
           f"| Kernel | Time (ms) | GB/s | % of copy |{' Note |' if suspect else ''}",
           f"| --- | ---: | ---: | ---: |{' --- |' if suspect else ''}"]
    for k in rows:
        ms = base * (1 + 0.7 * kernels.index(k))
        out.append(f"| `{k}`{mark} | {ms:#.3g} | {gbps(k):,.0f} | {100 * gbps(k) / gbps('copy'):.3g} |"
                   + (" 1 |" if suspect else ""))
    if suspect:
        out += ["", f"1. suspect: working set ({8 * r * c / 2**20:.1f}\u00a0MiB) fits in the "
                    f"{L2 / 2**20:.1f}\u00a0MiB L2"]
    return prose, "\n".join(out)


def term(i: int, embeds: bool) -> str:
    exps = list(EXPERIMENTS)
    exp = exps[i % len(exps)]
    kernels = EXPERIMENTS[exp]
    size = list(SIZES)[(i // len(exps)) % len(SIZES)]
    rows = kernels if i % 2 else kernels[: 3]  # two row selections per experiment and size
    best, other = kernels[-1], kernels[1]
    value = f"{{{{ value {exp} size={size} row={best} col=gbps }}}}"
    ratio = f"{{{{ ratio {exp} size={size} num={best} den={other} }}}}"
    embed = f"{{{{ measured {exp} size={size} rows={','.join(rows)} }}}}"
    prose, table = plain_text(exp, size, rows)
    first = f"The last kernel of the ladder moves {value}, {ratio} the second one." if embeds else prose
    # Plain shows what the gloss page shows as text: the definition under the title, the table.
    lede = [] if embeds else [f"The {name(i)} of a kernel, defined here in one sentence to time the build."]
    body = "\n\n".join([*lede, PROSE * 2, first, "## Why it works", PROSE * 3, "## Measured",
                        embed if embeds else table, "## Notes", PROSE])
    return (
        f"---\ntitle: What is {name(i)}?\n"
        f"definition: The {name(i)} of a kernel, defined here in one sentence to time the build.\n---\n\n"
        f"{body}\n"
    )


def write_site(root: Path, n: int, embeds: bool, plugin: bool | None = None, config: str | None = None) -> None:
    """``embeds``: terms carry the directives; ``plugin`` (default: same as embeds): gloss plugin on;
    ``config``: the mkdocs.yml to start from (default: the project's own)."""
    plugin = embeds if plugin is None else plugin
    content = root / "content"
    (content / "terms").mkdir(parents=True)
    (content / "lessons").mkdir()
    (content / "index.md").write_text("# Benchmark\n\nSynthetic terms.\n", encoding="utf-8")
    for i in range(n):
        (content / "terms" / f"term-{i:04d}.md").write_text(term(i, embeds), encoding="utf-8")
    config = config if config is not None else (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    # Unsigned synthetic entries render only in preview; warnings would abort neither build (not strict).
    config = gloss_options(config, {"preview": True} if plugin else None)
    (root / "mkdocs.yml").write_text(config, encoding="utf-8")
    if plugin:
        write_project(root)




def gloss_options(config: str, options: dict[str, object] | None) -> str:
    """``config`` (a mkdocs.yml) with extra options for the gloss plugin, or without the plugin (None)."""
    lines = config.split("\n")
    at = next((i for i, line in enumerate(lines) if line.rstrip() in ("  - gloss", "  - gloss:")), None)
    if at is None:
        raise ValueError("mkdocs.yml no longer lists the gloss plugin as '  - gloss'")
    end = at + 1
    while end < len(lines) and lines[end].startswith("      "):
        end += 1
    if options is None:
        return "\n".join(lines[:at] + lines[end:])
    extra = [f"      {k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items()]
    return "\n".join([*lines[:at], "  - gloss:", *lines[at + 1:end], *extra, *lines[end:]])
