"""The roofline of every measured row: pure functions from the results view to points and roofs, per node.

A row is a point when its FLOPs are declared (so it has a GFLOP/s figure) and Nsight Compute counted its
DRAM bytes: its arithmetic intensity is the FLOPs of one launch over the DRAM bytes read and written in
that launch, its height the GFLOP/s of the timed launches. The roofs are the node's own measurements, from
fresh results of that node only: the best compute-ceiling row (the FP32 FMA chains), the fastest copy
kernel of the copy ceilings (its GB/s counts the bytes it reads and writes, i.e. DRAM traffic), and the
best cuBLAS TF32 GEMM where one was measured. The ridge point of a compute roof is where the bandwidth
roof reaches it: compute GFLOP/s over copy GB/s, in FLOP per byte.

Rows that cannot be placed are counted with the reason, never guessed at: no FLOPs declared, no DRAM
counters (cuBLAS, transfers, runs without counters), no DRAM bytes at all, or a warm-L2 row (its counters
were taken on a launch that started with a cold L2, so they do not describe the timed launches).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from site_plugins.measured.model import Result, ResultsView, Row

#: Why a row is not on the chart, in the page's words (and the order the page lists them).
NO_FLOPS = "no FLOPs declared"
NO_COUNTERS = "no DRAM counters"
NO_DRAM = "no DRAM traffic counted"
WARM = "timed with a warm L2 (its counters describe a cold launch)"
NOT_TIMED = "not timed (failed its check)"
REASONS = (NO_FLOPS, NO_COUNTERS, NO_DRAM, WARM, NOT_TIMED)


@dataclass(frozen=True)
class Point:
    experiment: str
    size: str
    row: str  # the row's id in its spec
    label: str  # the row's label, as tables show it
    intensity: float  # FLOP per DRAM byte
    gflops: float
    math: str = "fp32"  # the arithmetic its FLOPs are done in: its roof is the compute roof of that math


@dataclass(frozen=True)
class Roof:
    """A measured rate: a horizontal compute roof (GFLOP/s) or the bandwidth roof (GB/s)."""

    value: float
    label: str  # what was measured, e.g. "FMA chains (8 per thread), ceilings-fp32"
    short: str = ""  # how a table header names a compute roof: "FP32", "TF32"


@dataclass(frozen=True)
class NodeRoofline:
    node: str
    gpu: str
    bandwidth: Roof | None  # GB/s
    compute: tuple[Roof, ...]  # GFLOP/s: the FP32 ceiling first, then cuBLAS TF32 where measured
    points: tuple[Point, ...]
    skipped: tuple[tuple[str, int], ...]  # (reason, rows), reasons with no row left out

    def ridge(self, roof: Roof) -> float | None:
        return ridge(roof.value, self.bandwidth.value) if self.bandwidth is not None else None

    def roof_of(self, point: Point) -> Roof | None:
        """The compute roof of the point's own math (FP32 FMAs, or TF32 tensor cores), if measured."""
        return next((r for r in self.compute if r.short == point.math.upper()), None)


def ridge(compute_gflops: float, bandwidth_gbps: float) -> float:
    """The intensity (FLOP/B) at which the bandwidth roof meets a compute roof."""
    if compute_gflops <= 0 or bandwidth_gbps <= 0:
        raise ValueError(f"roofs must be positive, got {compute_gflops} GFLOP/s and {bandwidth_gbps} GB/s")
    return compute_gflops / bandwidth_gbps


def attainable(intensity: float, bandwidth_gbps: float, compute_gflops: float) -> float:
    """The roofline at ``intensity``: the lower of the compute roof and bandwidth x intensity (GFLOP/s)."""
    return min(compute_gflops, bandwidth_gbps * intensity)


def launch_flop(gflops: float, time_ms: float) -> float:
    """FLOPs of one launch from its rate and its time: GFLOP/s x ms = 1e6 FLOP."""
    return gflops * time_ms * 1e6


def dram_bytes(row: Row) -> float | None:
    """Bytes read plus written in DRAM during the profiled launch (counters in MB of 1e6 bytes)."""
    mb = row.counters.get("dram_mb")
    return None if mb is None else mb * 1e6


def placed(row: Row) -> Point | str:
    """The row's (intensity, GFLOP/s), or why it cannot be placed. Experiment and size are filled in by
    :func:`points`; here they are empty."""
    if row.failed is not None or row.time_ms is None:
        return NOT_TIMED
    if row.gflops is None:
        return NO_FLOPS
    if dict(row.setup).get("l2") == "warm":
        return WARM
    dram = dram_bytes(row)
    if dram is None:
        return NO_COUNTERS
    if dram <= 0:
        return NO_DRAM
    return Point("", "", row.id, row.kernel, launch_flop(row.gflops, row.time_ms) / dram, row.gflops, row.math)


def points(results: Iterable[Result]) -> tuple[tuple[Point, ...], tuple[tuple[str, int], ...]]:
    """Every placeable row of the tables of ``results`` (ceiling rows are placed where they are an
    experiment's own rows, not once per result that carries them), and the count of the others per reason."""
    out: list[Point] = []
    counts = dict.fromkeys(REASONS, 0)
    for r in results:
        for table in r.tables:
            for row in table.rows:
                p = placed(row)
                if isinstance(p, Point):
                    out.append(Point(r.experiment, table.size, p.row, p.label, p.intensity, p.gflops, p.math))
                else:
                    counts[p] += 1
    return tuple(out), tuple((reason, n) for reason, n in counts.items() if n)


Placed = tuple[Result, str, Row]  # a row with the result and the size it was measured in


def _best(rows: Iterable[Placed], value: str) -> Placed | None:
    candidates = [p for p in rows if getattr(p[2], value) is not None and getattr(p[2], value) > 0]
    return max(candidates, key=lambda p: getattr(p[2], value), default=None)


def _where(p: Placed) -> str:
    return f"{p[2].kernel} ({p[0].experiment}, {p[1]})"


def roofs(results: Sequence[Result]) -> tuple[Roof | None, tuple[Roof, ...]]:
    """The bandwidth roof and the compute roofs measured in ``results`` (one node's fresh results). The
    ceilings are taken where they are their own experiment's rows (a result carries the ceilings of its
    run too, but without the size they were measured at)."""
    own: list[Placed] = []
    for r in results:
        for t in r.tables:
            ceiling_ids = {(c.id, c.kernel) for c in t.ceilings if c.experiment in ("", r.experiment)}
            own += [(r, t.size, row) for row in t.rows if (row.id, row.kernel) in ceiling_ids]
    copy = _best((p for p in own if p[2].gflops is None and p[2].kind == "kernel"), "gbps")
    fp32 = _best((p for p in own if p[2].gflops is not None), "gflops")
    tf32 = _best(((r, t.size, row) for r in results for t in r.tables for row in t.rows
                  if row.kind == "cublas" and row.math == "tf32"), "gflops")
    bandwidth = Roof(copy[2].gbps, f"fastest copy kernel: {_where(copy)}") if copy and copy[2].gbps else None
    compute = []
    if fp32 and fp32[2].gflops:
        compute.append(Roof(fp32[2].gflops, f"FP32 FMA ceiling: {_where(fp32)}", "FP32"))
    if tf32 and tf32[2].gflops:
        compute.append(Roof(tf32[2].gflops, f"cuBLAS TF32: {_where(tf32)}", "TF32"))
    return bandwidth, tuple(compute)


def rooflines(view: ResultsView) -> tuple[NodeRoofline, ...]:
    """One roofline per registered node that has fresh results, in the registry's order."""
    out = []
    for node in view.nodes:
        fresh = [r for r in view.results if r.node == node and r.state == "fresh"]
        if not fresh:
            continue
        bandwidth, compute = roofs(fresh)
        pts, skipped = points(fresh)
        gpu = next((r.provenance.gpu for r in fresh if r.provenance is not None), "")
        out.append(NodeRoofline(node, gpu, bandwidth, compute, pts, skipped))
    return tuple(out)


def decades(low: float, high: float) -> tuple[int, int]:
    """The powers of ten that bracket ``[low, high]`` (both positive): a log axis's first and last tick."""
    if not (low > 0 and high > 0 and math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"a log axis needs positive finite bounds, got {low} and {high}")
    lo, hi = math.floor(math.log10(min(low, high))), math.ceil(math.log10(max(low, high)))
    return lo, max(hi, lo + 1)
