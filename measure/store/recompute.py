"""Figures derived from a row's raw samples, its declared work and the provenance: what the runner
writes and what :mod:`measure.store.judge` recomputes bit for bit."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace

from measure.store import stats
from measure.store.resultformat import Figures, Provenance, Row, Settings
from measure.store.stats import Summary


def copy_ceiling_gbps(ceilings: Iterable[Row]) -> float:
    """The best copy bandwidth (driver memcpy or copy kernel) measured in the run; nan if none. A ceiling
    row that declares FLOPs is a compute ceiling (the spec allows no other kind of ceiling row to
    declare them), not a copy, and never counts here."""
    values = [r.figures.gbps for r in ceilings if r.figures is not None and r.flops is None]
    return max(values) if values else math.nan


def fp32_ceiling_gflops(ceilings: Iterable[Row]) -> float:
    """The best GFLOP/s among the run's compute ceiling rows (those declaring FLOPs); nan if none."""
    values = [r.figures.gflops for r in ceilings if r.figures is not None and r.figures.gflops is not None]
    return max(values) if values else math.nan


def bytes_moved(row: Row) -> int:
    """The bytes a row's GB/s counts: read plus written (device memory traffic), except a host<->device
    transfer, which counts the bytes crossing the link once (the spec requires bytes_written ==
    bytes_read there). A pipeline counts both directions: its H2D bytes read plus its D2H bytes written."""
    return row.bytes_read if row.kind == "transfer" else row.bytes_read + row.bytes_written


def _summary(row: Row, settings: Settings) -> Summary | None:
    if row.samples is None or not row.samples.times_ms:
        return None
    return stats.summarize(row.samples.times_ms, row.samples.sm_clock_mhz, settings.min_sm_clock_mhz, settings.rule())


def figures_for(row: Row, summary: Summary, provenance: Provenance, ceiling_gbps: float) -> Figures:
    moved = bytes_moved(row)
    bw = stats.gbps(moved, summary.median_ms)
    return Figures(
        gbps=bw,
        gflops=stats.gflops(row.flops, summary.median_ms) if row.flops is not None else None,
        shared_gbps=stats.gbps(row.shared_bytes, summary.median_ms) if row.shared_bytes is not None else None,
        pct_of_peak=stats.percent(bw, provenance.theoretical_peak_gbps),
        pct_of_copy_ceiling=stats.percent(bw, ceiling_gbps),
        fits_in_l2=stats.fits_in_l2(row.working_set_bytes, provenance.l2_bytes),
        above_95pct_of_peak=stats.above_peak_fraction(bw, provenance.theoretical_peak_gbps),
        us_per_launch=summary.median_ms * 1000.0 / row.launches if row.launches else None,
    )


def recompute_row(row: Row, provenance: Provenance, settings: Settings, ceiling_gbps: float) -> Row:
    """The row with its summary and figures computed from its raw samples (what it must carry)."""
    summary = _summary(row, settings)
    if summary is None:
        return replace(row, summary=None, figures=None)
    return replace(row, summary=summary, figures=figures_for(row, summary, provenance, ceiling_gbps))


def recompute_ceilings(rows: list[Row], provenance: Provenance, settings: Settings) -> list[Row]:
    """Ceiling rows' summaries, then their figures against their own best (copy-ceiling % of itself)."""
    summarized = [recompute_row(r, provenance, settings, math.nan) for r in rows]
    best = copy_ceiling_gbps(summarized)
    return [recompute_row(r, provenance, settings, best) for r in summarized]
