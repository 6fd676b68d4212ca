"""Build benchmark: 1,000 synthetic terms, each embedding a measured table and two values in prose.

Two builds of the same pages in the same run, each under the project's own mkdocs.yml (Material theme,
its features, search):

- **gloss**: the ``gloss`` plugin on, every term embedding ``{{ measured ... }}`` and two ``{{ value }}`` /
  ``{{ ratio }}`` references, expanded from result files written through ``measure.results``;
- **plain**: the same Markdown with the embeds removed, under plain mkdocs-material (no gloss plugin).

Prints the median wall time of each and their ratio (target: gloss <= 1.3 x plain). Both builds run
in this process after one untimed warm-up each, alternating, so imports and disk caches favour neither.
Also prints how much of the gloss build ``measured.expand`` itself took.

Usage: ``.venv/bin/python bench/build/run.py [--terms 1000] [--repeat 3] [--keep DIR]``

The sample times in the synthetic result files are made up for the benchmark (round and evenly
spread); they exist only in a temporary folder and are never committed.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from measure import results as rs  # noqa: E402
from measure.spec import sha256_file  # noqa: E402

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
    first = f"The last kernel of the ladder moves {value}, {ratio} the second one." if embeds else \
        "The last kernel of the ladder moves, the second one."
    body = "\n\n".join([PROSE * 2, first, "## Why it works", PROSE * 3, "## Measured", embed if embeds else "",
                        "## Notes", PROSE])
    return (
        f"---\ntitle: What is synthetic term {i:04d}?\n"
        f"definition: Synthetic term {i:04d} exists to time the build.\n---\n\n{body}\n"
    )


def write_site(root: Path, n: int, embeds: bool, plugin: bool | None = None) -> None:
    """``embeds``: terms carry the directives; ``plugin`` (default: same as embeds): gloss plugin on."""
    plugin = embeds if plugin is None else plugin
    content = root / "content"
    (content / "terms").mkdir(parents=True)
    (content / "lessons").mkdir()
    (content / "index.md").write_text("# Benchmark\n\nSynthetic terms.\n", encoding="utf-8")
    for i in range(n):
        (content / "terms" / f"term-{i:04d}.md").write_text(term(i, embeds), encoding="utf-8")
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    # Unsigned synthetic entries render only in preview; warnings would abort neither build (not strict).
    config = config.replace("  - gloss\n", "  - gloss:\n      preview: true\n" if plugin else "")
    assert ("  - gloss" in config) == plugin, "mkdocs.yml no longer lists the gloss plugin as '  - gloss'"
    (root / "mkdocs.yml").write_text(config, encoding="utf-8")
    if plugin:
        write_project(root)


class _Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def _timed(module: object, name: str) -> Iterator[list[float]]:
    """Record the wall time of every call of ``module.name`` while the block runs."""
    spent: list[float] = []
    original = getattr(module, name)

    def timed(*args: object, **kwargs: object) -> object:
        t = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - t)

    setattr(module, name, timed)
    try:
        yield spent
    finally:
        setattr(module, name, original)


def build(root: Path) -> tuple[float, list[str]]:
    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config

    counter = _Count()
    logging.getLogger("mkdocs").addHandler(counter)
    try:
        cfg = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"))
        t = time.perf_counter()
        mkdocs_build(cfg)
        return time.perf_counter() - t, counter.messages
    finally:
        logging.getLogger("mkdocs").removeHandler(counter)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--terms", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="timed builds of each kind (after one warm-up)")
    parser.add_argument("--keep", type=Path, help="write the sites here and keep them")
    parser.add_argument("--breakdown", action="store_true",
                        help="also time the gloss plugin on the Markdown without embeds (the plugin's own cost)")
    args = parser.parse_args(argv)
    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    base = args.keep or Path(tempfile.mkdtemp(prefix="gloss-bench-"))
    gloss_root, plain_root, bare_root = base / "gloss", base / "plain", base / "gloss-no-embeds"
    for r in (gloss_root, plain_root, bare_root):
        shutil.rmtree(r, ignore_errors=True)
    write_site(gloss_root, args.terms, embeds=True)
    write_site(plain_root, args.terms, embeds=False)
    if args.breakdown:
        write_site(bare_root, args.terms, embeds=False, plugin=True)
    try:
        _, warnings = build(gloss_root)  # warm-up, and proof that every embed resolved
        measured_warnings = [w for w in warnings if "term-" in w]
        if measured_warnings:
            print("the gloss build warned about the synthetic terms:", *measured_warnings[:5], sep="\n  ")
            return 1
        build(plain_root)
        if args.breakdown:
            build(bare_root)
        html = (gloss_root / "site/terms/term-0001/index.html").read_text(encoding="utf-8")
        assert '<div class="gloss-measured"' in html and "<svg" in html and "gloss-value" in html, "no embed rendered"
        gloss_times: list[float] = []
        plain_times: list[float] = []
        bare_times: list[float] = []
        expand_times: list[float] = []
        prepare_times: list[float] = []
        from site_plugins import measured, pipeline

        for _ in range(args.repeat):
            with _timed(measured, "expand") as spent, _timed(pipeline, "prepare") as prepared:
                gloss_times.append(build(gloss_root)[0])
            expand_times.append(sum(spent))
            prepare_times.append(sum(prepared))
            plain_times.append(build(plain_root)[0])
            if args.breakdown:
                bare_times.append(build(bare_root)[0])
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    g, p, e = statistics.median(gloss_times), statistics.median(plain_times), statistics.median(expand_times)
    prep = statistics.median(prepare_times)
    print(f"terms: {args.terms}, each with one table embed and two value references; {args.repeat} timed builds each")
    print(f"gloss plugin + mkdocs-material:   median {g:6.2f} s  ({', '.join(f'{t:.2f}' for t in gloss_times)})")
    print(f"plain mkdocs-material, no embeds: median {p:6.2f} s  ({', '.join(f'{t:.2f}' for t in plain_times)})")
    if bare_times:
        b = statistics.median(bare_times)
        print(f"gloss plugin, embeds removed:     median {b:6.2f} s  ({', '.join(f'{t:.2f}' for t in bare_times)})"
              f"  -> plugin alone {b / p:.2f}x plain; embeds {g / b:.2f}x on top")
    print(f"of the gloss build, pipeline.prepare (all of the plugin's own work) took {prep:.2f} s "
          f"({100 * prep / g:.1f} %), of which measured.expand {e:.2f} s ({100 * e / g:.1f} %)")
    print(f"ratio gloss / plain: {g / p:.2f}x (target <= 1.30x)")
    return 0 if g / p <= 1.3 else 1


if __name__ == "__main__":
    sys.exit(main())
