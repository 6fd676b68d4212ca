"""The judged view of results that pages and the CLI read: :class:`RowView` (one checked, timed row's
figures) and :class:`Entry` (one experiment on one node, its state and problems). Built by
:mod:`measure.store.results`; documented there."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from measure.experiment.spec import Declared
from measure.store import stats
from measure.store.judge import State
from measure.store.recompute import bytes_moved, copy_ceiling_gbps
from measure.store.resultformat import Provenance, Result, Row
from site_plugins.files.messages import Problem


@dataclass(frozen=True)
class RowView:
    """One checked and timed row, as pages show it."""

    experiment: str
    node: str
    kernel: str
    label: str
    size: str
    median_ms: float
    q1_ms: float
    q3_ms: float
    iqr_ms: float
    gbps: float
    gflops: float | None
    shared_gbps: float | None
    pct_of_peak: float
    pct_of_copy_ceiling: float
    fits_in_l2: bool
    above_95pct_of_peak: bool
    noisy: bool
    n_samples: int
    n_throttled: int
    rel_stdev: float
    is_ceiling: bool
    kind: str = "kernel"  # or "memcpy" (the driver's copy)
    bytes_moved: int = 0  # the bytes its GB/s counts (measure.store.recompute.bytes_moved)
    counters: dict[str, float] | None = None  # Nsight Compute metrics, where the run collected them
    copies: bool = False  # a copy kernel: its spec reference is 'copy' (a "% of copy" denominator)
    registers: int | None = None  # per thread, as the compiler reported for the row's function
    pct_of_shared_peak: float | None = None  # shared GB/s over all SMs' banks at the recorded SM clock
    us_per_launch: float | None = None  # kind 'launch': median sample / launches per sample
    launches: int | None = None  # kind 'launch': launches per timed sample
    compute_ceiling: bool = False  # a ceiling row declaring FLOPs (e.g. FP32 FMA chains): a "% of FP32" denominator
    sm_clock_mhz: float | None = None  # median SM clock NVML read with the kept samples (None without readings)

    @property
    def median_us(self) -> float:
        return self.median_ms * 1000.0

    @property
    def iqr_us(self) -> float:
        return self.iqr_ms * 1000.0

    @property
    def rel_iqr(self) -> float:
        """IQR over median: the spread pages can print as '± x %'."""
        return self.iqr_ms / self.median_ms

    @property
    def suspect(self) -> bool:
        """The working set fits in L2 (a cache may be measured) or the row beats 95 % of the DRAM peak."""
        return self.fits_in_l2 or self.above_95pct_of_peak


def _registers(result: Result, row: Row) -> int | None:
    return next((b.registers for b in result.builds if row.function and b.function == row.function), None)


def _sm_clock(result: Result, row: Row) -> float | None:
    """The median SM clock of the row's kept samples (None without clock readings)."""
    if row.samples is None:
        return None
    floor = result.settings.min_sm_clock_mhz
    clocks = [float(c) for c in row.samples.sm_clock_mhz if c > 0 and c >= floor]
    return stats.median(clocks) if clocks else None


def _pct_of_shared_peak(result: Result, row: Row, shared_gbps: float | None) -> float | None:
    """Shared-memory GB/s against the banks' peak at the median SM clock of the row's kept samples
    (None without declared shared bytes or without clock readings)."""
    clock = _sm_clock(result, row)
    if shared_gbps is None or clock is None:
        return None
    return stats.percent(shared_gbps, stats.shared_peak_gbps(result.provenance.sm_count, clock))


def _view(result: Result, row: Row, is_ceiling: bool, copies: bool = False) -> RowView | None:
    s, f = row.summary, row.figures
    if s is None or f is None or not row.check.passed:
        return None
    return RowView(
        result.experiment,
        result.node,
        row.kernel,
        row.label,
        row.size,
        s.median_ms,
        s.q1_ms,
        s.q3_ms,
        s.iqr_ms,
        f.gbps,
        f.gflops,
        f.shared_gbps,
        f.pct_of_peak,
        f.pct_of_copy_ceiling,
        f.fits_in_l2,
        f.above_95pct_of_peak,
        s.noisy,
        s.n_kept,
        s.n_throttled,
        s.rel_stdev,
        is_ceiling,
        row.kind,
        bytes_moved(row),
        row.counters,
        # A ceiling kernel is a copy unless it declares FLOPs (then it is a compute ceiling).
        copies or (is_ceiling and row.kind == "kernel" and row.flops is None),
        registers=_registers(result, row),
        pct_of_shared_peak=_pct_of_shared_peak(result, row, f.shared_gbps),
        us_per_launch=f.us_per_launch,
        launches=row.launches,
        compute_ceiling=is_ceiling and row.flops is not None and f.gflops is not None,
        sm_clock_mhz=_sm_clock(result, row),
    )


@dataclass(frozen=True)
class Entry:
    """One (experiment, node) pair and its state."""

    experiment: str
    node: str
    state: State
    path: str  # repo-relative result file (it may not exist: state 'missing')
    problems: tuple[Problem, ...] = ()
    result: Result | None = None
    declared: Declared | None = field(default=None, compare=False)

    @property
    def fresh(self) -> bool:
        return self.state == "fresh"

    @property
    def provenance(self) -> Provenance | None:
        return self.result.provenance if self.result else None

    def rows(self) -> list[RowView]:
        """The experiment's checked, timed rows in spec order (sizes outer, kernels inner)."""
        if self.result is None:
            return []
        copy_kernels = (
            {k.id for k in self.declared.experiment.kernels if k.reference == "copy" and k.kind == "kernel"}
            if self.declared
            else set()
        )
        rows = self.result.rows
        return [v for r in rows if (v := _view(self.result, r, False, r.kernel in copy_kernels)) is not None]

    def ceiling_rows(self) -> list[RowView]:
        if self.result is None:
            return []
        return [v for r in self.result.ceilings if (v := _view(self.result, r, True)) is not None]

    def failed_rows(self) -> list[Row]:
        return [r for r in self.result.rows if r.failed] if self.result else []

    def row(self, kernel: str, size: str) -> RowView | None:
        """The row for kernel id (or label) ``kernel`` at size label ``size``; None if absent."""
        for v in self.rows():
            if v.size == size and kernel in (v.kernel, v.label):
                return v
        return None

    def sizes(self) -> list[str]:
        return list(dict.fromkeys(r.size for r in self.result.rows)) if self.result else []

    def kernels(self) -> list[str]:
        return list(dict.fromkeys(r.kernel for r in self.result.rows)) if self.result else []

    def copy_reference(self, row: RowView) -> RowView | None:
        """The denominator of ``row``'s "% of copy": the fastest copy KERNEL of the same run that moves the
        same bytes (read + written): the ceilings' kernel rows, and this experiment's own copy rows at
        the row's size (a copy row may be its own denominator). None when no copy kernel moved them, and
        for rows whose bytes do not go through device memory alone (transfers, pipelines, cuBLAS,
        launches): their GB/s is not a DRAM figure."""
        if row.kind not in ("kernel", "memcpy"):
            return None
        candidates = [c for c in self.ceiling_rows() if c.copies and c.bytes_moved == row.bytes_moved]
        candidates += [r for r in self.rows() if r.copies and r.size == row.size and r.bytes_moved == row.bytes_moved]
        return max(candidates, key=lambda c: c.gbps, default=None)

    def pct_of_copy(self, row: RowView) -> float | None:
        """``row``'s GB/s as a percentage of :meth:`copy_reference` (computed here, never stored)."""
        ref = self.copy_reference(row)
        return 100.0 * row.gbps / ref.gbps if ref is not None and ref.gbps > 0 else None

    def fp32_reference(self) -> RowView | None:
        """The denominator of "% of FP32": the fastest compute ceiling row (FLOPs declared) of the run."""
        candidates = [c for c in self.ceiling_rows() if c.compute_ceiling]
        return max(candidates, key=lambda c: c.gflops or 0.0, default=None)

    def pct_of_fp32(self, row: RowView) -> float | None:
        """``row``'s GFLOP/s as a percentage of :meth:`fp32_reference` (None without FLOPs or a ceiling)."""
        ref = self.fp32_reference()
        if ref is None or not ref.gflops or row.gflops is None:
            return None
        return 100.0 * row.gflops / ref.gflops

    @property
    def copy_ceiling_gbps(self) -> float:
        return copy_ceiling_gbps(self.result.ceilings) if self.result else math.nan

    @property
    def memcpy_gbps(self) -> float:
        if self.result is None:
            return math.nan
        values = [r.figures.gbps for r in self.result.ceilings if r.kind == "memcpy" and r.figures]
        return max(values) if values else math.nan

    def provenance_sentence(self) -> str:
        """One sentence naming node, GPU, driver, CUDA, date and commit, e.g. for a table caption."""
        p = self.provenance
        if p is None:
            return f"No result for {self.experiment} on {self.node}."
        commit = p.git_commit[:12] if p.git_commit != "unknown" else "an unknown commit"
        dirty = " (with uncommitted changes)" if p.git_dirty else ""
        return (
            f"Measured on {p.node} ({p.gpu_name}, {p.sm_count} SMs, driver {p.driver_release}, "
            f"CUDA {p.cuda_driver_version}, nvcc {p.nvcc_version}) on {p.finished_utc[:10]} "
            f"from {commit}{dirty}."
        )
