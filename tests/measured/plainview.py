"""A ResultsView built from plain dataclasses (no files): for the pure rendering and syntax tests."""

from __future__ import annotations

from pathlib import Path

from site_plugins.measured.model import Provenance, Result, ResultsView, Row, State, Table

PROV = Provenance(
    node="h200-1",
    gpu="NVIDIA H200",
    driver="580.159.04",
    cuda="13.0",
    nvcc="V13.0.88",
    flags="-O3 -arch=sm_90",
    captured="2026-12-02",
)

BIG = Table(
    size="8192x8192",
    rows=(
        Row("copy", 0.1400, 0.0004, 3834.8, None, 96.43, 79.65, id="copy"),
        Row("naive", 0.4900, 0.0012, 1095.7, None, 27.55, 22.76, id="naive"),
        Row("tile[32][32]", 0.2700, 0.0007, 1988.4, None, 50.0, 41.3, id="tile32"),
        Row("tile[32][33]", 0.1450, 0.0004, 3702.6, None, 93.10, 76.91, id="tile32-padded"),
    ),
    ceiling_gbps=3976.8,
    ceilings=(Row("cudaMemcpy D2D", 0.54, 0.0013, 3976.8, None, 100.0, 82.6, id="memcpy"),),
)
SMALL = Table(
    size="2003x3001",
    rows=(
        Row("copy", 0.0200, 0.00005, 2404.4, None, 60.46, 49.94, suspect=("working set fits in L2",), id="copy"),
        Row(
            "naive",
            0.0600,
            0.00015,
            801.5,
            None,
            20.15,
            16.65,
            suspect=("working set fits in L2",),
            noisy=True,
            id="naive",
        ),
    ),
    ceiling_gbps=3976.8,
)
MATMUL = Table(
    size="4096",
    rows=(
        Row("naive", 40.0, 0.1, 10.1, 3435.9, None, None, id="naive"),
        Row("smem tile", 12.5, 0.05, 32.2, 10995.1, None, None, id="smem"),
    ),
)


def result(
    experiment: str = "day13-transpose",
    state: State = "fresh",
    node: str = "h200-1",
    tables: tuple[Table, ...] = (BIG, SMALL),
    problem: str = "",
    remedy: str = "",
) -> Result:
    return Result(
        experiment=experiment,
        node=node,
        state=state,
        provenance=PROV,
        tables=tables,
        problem=problem,
        remedy=remedy,
        source="code/day13/transpose.cu",
    )


def view(*results: Result, experiments: tuple[str, ...] | None = None) -> ResultsView:
    results = results or (
        result(),
        Result("day16-matmul", "h200-1", "fresh", metric="gflops", provenance=PROV, tables=(MATMUL,)),
    )
    declared = experiments if experiments is not None else tuple(sorted({r.experiment for r in results}))
    return ResultsView(root=Path("."), results=results, nodes=("h200-1",), experiments=declared)


BANKS = Table(
    size="16384 blocks x 256 loads",
    rows=(
        Row("stride 1 (conflict-free)", 1.0, 0.001, 85.9, None, 2.2, 1.8, id="stride-1", shared_gbps=17180.0),
        Row("stride 32 (32-way)", 30.0, 0.03, 2.9, None, 0.07, 0.06, id="stride-32", shared_gbps=572.7),
    ),
    ceiling_gbps=3976.8,
)
