"""``load_view``: the one place this package asks ``measure.store.results`` (the only reader of result files).

It turns the results module's judged entries into the plain :mod:`model` dataclasses that rendering
works on, once per build. Verdicts (fresh, stale, tampered, ...) and their words come from the results
module unchanged; this module only decides how a page shows them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from measure.experiment.nodes import load_nodes
from measure.nsight import counters as C
from measure.store import audit, stats
from measure.store import results as rs
from site_plugins.measured import fmt
from site_plugins.measured.model import (
    Launched,
    Metric,
    Provenance,
    Result,
    ResultsView,
    Row,
    RowNote,
    State,
    Table,
)

_NVCC_RELEASE = re.compile(r"V\d+(?:\.\d+)+")
MIB = 1024 * 1024


def load_view(root: Path, default_node: str | None = None) -> ResultsView:
    """Every (experiment, node) the results module knows of, judged, as page-ready data. ``default_node``:
    the node whose figures prose quotes where an entry names none (the gloss plugin's option)."""
    return _view(root, rs.load_all(root), default_node=default_node)


def load_view_at(root: Path, commit: str, default_node: str | None = None) -> ResultsView | None:
    """:func:`load_view` as git commit ``commit`` held the results and what they are judged by (the values
    an entry signed then showed); None when git cannot give that commit."""
    result_set = rs.load_at(root, commit)
    # (Its problems are history: only the values it shows count, and the build reports today's problems.)
    return _view(root, result_set, problems=False, default_node=default_node) if result_set is not None else None


def results_version(root: Path, commit: str) -> str | None:
    """Which versions of the results and what judges them a commit holds (:func:`rs.version_at`)."""
    return rs.version_at(root, commit)


def results_unchanged(root: Path, commit: str = "HEAD") -> bool:
    """Whether the working copy holds the results and what judges them as ``commit`` does."""
    return rs.unchanged_since(root, commit)


def _view(root: Path, result_set: rs.ResultSet, *, problems: bool = True,
          default_node: str | None = None) -> ResultsView:
    results = tuple(_result(root, e) for e in result_set.entries)
    nodes, _ = load_nodes(root)  # its problems are among the result set's
    return ResultsView(
        root=root,
        results=results,
        nodes=tuple(result_set.nodes),
        experiments=tuple(sorted(result_set.declared)),
        setup_problems=tuple(result_set.setup_problems) if problems else (),
        problems=tuple(audit.problems(result_set, nodes)) if problems else (),
        gpus={name: n.gpu for name, n in nodes.items()},
        default_node=default_node,
    )


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _nvcc(version: str) -> str:
    m = _NVCC_RELEASE.search(version)
    return m.group(0) if m else version.strip().splitlines()[-1] if version.strip() else "unknown"


def provenance(p: rs.Provenance) -> Provenance:
    return Provenance(
        node=p.node,
        gpu=p.gpu_name,
        driver=p.driver_release,
        cuda=p.cuda_driver_version,
        nvcc=_nvcc(p.nvcc_version),
        flags=" ".join(p.nvcc_flags),
        captured=p.finished_utc[:10],
        commit=p.git_commit,
        l2_bytes=p.l2_bytes,
    )


def _mib(n: int) -> str:
    return f"{fmt.number(n / MIB)}{fmt.NBSP}MiB"


UNDETERMINED = "where the extra bytes come from is not determined by these counters"


def dram_note(finding: C.DramFinding | None) -> RowNote | None:
    """The note for a DRAM finding (None when there is none), worded from the row's own counters: whether
    the kernel's requests asked for the extra bytes, and for extra reads whether its stores write sectors
    in part. No row-specific number, so rows with the same finding share one numbered note."""
    if finding is None:
        return None
    tol = fmt.percent(100 * C.BYTES_TOLERANCE)
    if finding.suspect:
        return RowNote(
            f"DRAM read over {tol} fewer bytes than the kernel declares reading: a cache served part of them",
            "so GB/s overstates DRAM traffic",
        )
    head = f"DRAM {finding.what} over {tol} more than the declared bytes"
    verb = "loads" if finding.what == "read" else "stores"
    used = "loaded" if finding.what == "read" else "written"
    if finding.code_asked:
        why = (f"the kernel's own global {verb} asked for at least that many bytes in 32-byte sectors: "
               f"sectors used in part, or data {used} more than once")
    elif finding.code_asked is None:
        why = f"the counters do not say whether the kernel's own {verb} asked for more"
    elif finding.what == "wrote":
        why = f"more than every sector the kernel's global stores touched: {UNDETERMINED}"
    elif finding.stores_partial:
        why = ("more than every sector the kernel's global loads asked for; its global stores write sectors "
               "in part (they touch more sector bytes than they write), and a partly written sector may have "
               "to be read from DRAM to be completed: the likely source, which these counters do not separate")
    else:
        whole = ", and its stores write whole sectors" if finding.stores_partial is False else ""
        why = f"more than every sector the kernel's global loads asked for{whole}: {UNDETERMINED}"
    return RowNote(f"{head}: {why}", "GB/s counts the declared bytes")


#: A row whose declared FLOPs per declared byte are below this is measured by its bandwidth: its
#: GFLOP/s (e.g. one add per float in a reduction) is a quarter of its GB/s and says nothing more.
MIN_FLOPS_PER_BYTE = 1.0

#: A row's timed samples whose median SM clock is below this share of the node's maximum get a note with
#: the clock (e.g. cuBLAS TF32 under its power limit); the counter pass's clock below this share gets one
#: where counters are shown (short memory-bound launches read a few % low there, so the bar is lower).
TIMED_CLOCK_FRACTION = 0.97
COUNTER_CLOCK_FRACTION = 0.90


def clock_notes(v: rs.RowView, max_mhz: int) -> tuple[RowNote, ...]:
    """Notes for a row that ran below the node's maximum SM clock, in its timed samples or in the counter
    pass (none without NVML's maximum)."""
    if max_mhz <= 0:
        return ()
    out = []
    top = fmt.quantity(float(max_mhz), "MHz")
    if v.sm_clock_mhz is not None and v.sm_clock_mhz < TIMED_CLOCK_FRACTION * max_mhz:
        dropped = f"; {v.n_throttled} samples below the run's throttle floor left out" if v.n_throttled else ""
        out.append(RowNote(f"timed at a median SM clock of {fmt.quantity(v.sm_clock_mhz, 'MHz')} "
                           f"(the node's maximum is {top}{dropped})"))
    hz = (v.counters or {}).get(C.SM_CLOCK)
    if hz is not None and hz / 1e6 < COUNTER_CLOCK_FRACTION * max_mhz:
        out.append(RowNote(f"counters collected at an SM clock of {fmt.quantity(hz / 1e6, 'MHz')} "
                           f"(the node's maximum is {top})", counters_only=True))
    return tuple(out)


def _judged(v: rs.RowView, raw: rs.Row | None, p: rs.Provenance) -> tuple[tuple[str, ...], tuple[RowNote, ...]]:
    """(the reasons the row is suspect, its notes). A DRAM finding or an L2 fit is one or the other:
    suspect where it puts the row's own metric in doubt, a note where it does not (re-reads; a FLOP rate,
    which does not depend on where the bytes came from)."""
    reasons: list[str] = []
    found: list[RowNote] = []
    finding = C.dram_finding(v.counters, raw.bytes_read, raw.bytes_written) if raw is not None else None
    note = dram_note(finding)
    if note is not None and finding is not None and finding.suspect and v.gflops is None:
        reasons.append(f"{note.text}, {note.gbps}")
    elif note is not None:
        found.append(note)
    if v.kind in ("transfer", "pipeline", "launch"):
        pass  # their bytes cross the host link (or there are none): where they fit on the GPU says nothing
    elif v.fits_in_l2 and v.gflops is not None:
        found.append(RowNote("working set fits in L2", "its GB/s may be the cache's"))
    elif v.fits_in_l2:
        if raw is not None:
            reasons.append(f"working set ({_mib(raw.working_set_bytes)}) fits in the {_mib(p.l2_bytes)} L2")
        else:
            reasons.append("working set fits in L2")
    if v.above_95pct_of_peak:
        reasons.append(
            f"above 95{fmt.NBSP}% of the theoretical DRAM peak ({fmt.quantity(p.theoretical_peak_gbps, 'GB/s')})"
        )
    return tuple(reasons), (*found, *clock_notes(v, p.max_sm_clock_mhz))


def math_of(raw: rs.Row | None) -> str:
    """"tf32" for a row done on tensor cores in TF32 (a cuBLAS row with TF32 math, or a kernel whose
    function name says tf32), else "fp32"."""
    if raw is None:
        return "fp32"
    if (raw.setup or {}).get("math") == "tf32" or "tf32" in raw.function.lower():
        return "tf32"
    return "fp32"


def _copy_ref(entry: rs.Entry, v: rs.RowView) -> tuple[float | None, str]:
    ref = entry.copy_reference(v)
    if ref is None:
        return None, ""
    where = f"{ref.label} at {fmt.size_label(ref.size)}" + (" (copy ceilings)" if ref.is_ceiling else "")
    return _finite(entry.pct_of_copy(v)), f"{where}, {fmt.quantity(ref.gbps, 'GB/s')}"


def _row(entry: rs.Entry, v: rs.RowView, raw: rs.Row | None, p: rs.Provenance) -> Row:
    pct_copy, copy_ref = _copy_ref(entry, v)
    suspect, found = _judged(v, raw, p)
    math = math_of(raw)
    steps = _per_step(entry, v, raw)
    return Row(
        kernel=v.label,
        id=v.kernel,
        time_ms=v.median_ms,
        iqr_ms=v.iqr_ms,
        gbps=_finite(v.gbps),
        gflops=_finite(v.gflops),
        pct_copy=pct_copy,
        shared_gbps=_finite(v.shared_gbps),
        pct_peak=_finite(v.pct_of_peak),
        suspect=suspect,
        noisy=v.noisy,
        counters=C.figures(v.counters, v.bytes_moved),
        copy_ref=copy_ref,
        pct_shared_peak=_finite(v.pct_of_shared_peak),
        registers=v.registers,
        findings=found,
        math=math,
        us_per_launch=_finite(v.us_per_launch),
        ns_per_step=steps[0],
        cycles_per_step=steps[1],
        # A TF32 (tensor-core) rate as a share of the FP32 FMA ceiling compares two different units' peaks.
        pct_fp32=_finite(entry.pct_of_fp32(v)) if math == "fp32" else None,
        fp32_ref=_fp32_ref(entry),
        kind=v.kind,
        setup=tuple(sorted((raw.setup or {}).items())) if raw is not None else (),
        experiment=(raw.experiment or "") if raw is not None else "",
        sm_clock_mhz=_finite(v.sm_clock_mhz),
    )


def per_step(median_ms: float, steps: int, clocks_mhz: Sequence[int], floor_mhz: int) -> tuple[float, float | None]:
    """(ns per step, SM cycles per step): the median over the size's ``steps``, and that at the median SM
    clock of the kept samples (readings at or above ``floor_mhz``, as the summary keeps them; None when
    there is no such reading)."""
    ns = median_ms * 1e6 / steps
    clocks = [float(c) for c in clocks_mhz if c > 0 and c >= floor_mhz]
    return ns, (ns * stats.median(clocks) / 1000.0 if clocks else None)


def _per_step(entry: rs.Entry, v: rs.RowView, raw: rs.Row | None) -> tuple[float | None, float | None]:
    steps = raw.dims.get("steps") if raw is not None else None
    if raw is None or not steps or steps <= 0 or raw.samples is None or entry.result is None:
        return None, None
    ns, cycles = per_step(v.median_ms, steps, raw.samples.sm_clock_mhz, entry.result.settings.min_sm_clock_mhz)
    return _finite(ns), _finite(cycles)


def _fp32_ref(entry: rs.Entry) -> str:
    ref = entry.fp32_reference()
    return f"{ref.label}, {fmt.quantity(ref.gflops, 'GFLOP/s')}" if ref is not None else ""


def _failed_row(raw: rs.Row) -> Row:
    return Row(
        kernel=raw.label,
        id=raw.kernel,
        time_ms=None,
        iqr_ms=None,
        gbps=None,
        gflops=None,
        pct_copy=None,
        pct_peak=None,
        failed=raw.check.message or "did not match its reference",
    )


def _tables(entry: rs.Entry) -> tuple[Table, ...]:
    result = entry.result
    if result is None:
        return ()
    prov = result.provenance
    views = {(v.kernel, v.size): v for v in [*entry.ceiling_rows(), *entry.rows()]}

    def convert(raw: rs.Row) -> Row:
        v = views.get((raw.kernel, raw.size))
        return _row(entry, v, raw, prov) if v is not None else _failed_row(raw)

    # The ceilings are measured at several sizes; an embed may name the ones at the size that gave the
    # best copy (the ceiling every % of copy is relative to), so each ceiling label names one row.
    # A compute ceiling (FLOPs declared, e.g. FP32 FMA chains) is named at its own size.
    best = max((v for v in entry.ceiling_rows() if v.copies or v.kind == "memcpy"), key=lambda v: v.gbps, default=None)
    ceilings = tuple(
        replace(
            convert(r),
            note=f"{'FP32' if r.flops is not None else 'copy'} ceiling, measured at {r.size} in the same run",
        )
        for r in result.ceilings
        if best is None or r.size == best.size or r.flops is not None
    )
    memcpy = max((v for v in entry.ceiling_rows() if v.kind == "memcpy"), key=lambda v: v.gbps, default=None)
    memcpy_label = f"driver memcpy ({memcpy.size})" if memcpy else "driver memcpy"
    tables = []
    for size in dict.fromkeys(r.size for r in result.rows if r.kind != "observe"):
        # Observed launches are never timed: {{ observed }} shows them, tables do not.
        rows = tuple(convert(r) for r in result.rows if r.size == size and r.kind != "observe")
        # The chart's ceiling line: the copy kernel every row here is compared with, when they share one.
        refs = [entry.copy_reference(v) for v in entry.rows() if v.size == size]
        keys = {(r.kernel, r.size, r.is_ceiling) if r else None for r in refs}
        ref = refs[0] if refs and len(keys) == 1 else None
        tables.append(
            Table(
                size=size,
                rows=rows,
                ceiling_gbps=_finite(ref.gbps) if ref else None,
                ceiling_label=f"copy kernel ({ref.label}, same bytes)" if ref else "copy ceiling",
                ceilings=ceilings,
                # The driver memcpy line only beside device-memory rows (not transfers, launches, cuBLAS).
                memcpy_gbps=_finite(memcpy.gbps) if memcpy and _in_device_memory(entry, size) else None,
                memcpy_label=memcpy_label,
            )
        )
    return tuple(tables)


def _in_device_memory(entry: rs.Entry, size: str) -> bool:
    return any(v.kind in ("kernel", "memcpy") for v in entry.rows() if v.size == size) or not entry.rows()


def _words(state: str, problems: Sequence[object]) -> tuple[str, str]:
    if not problems:
        return "", ""
    first = problems[0]
    problem = str(getattr(first, "problem", ""))
    remedy = str(getattr(first, "remedy", ""))
    prefix = f"{state}: "
    if problem.startswith(prefix):
        problem = problem[len(prefix) :]
    if len(problems) > 1:
        problem += f" (and {len(problems) - 1} more; see `gloss measure verify`)"
    return problem, remedy


def _result(root: Path, entry: rs.Entry) -> Result:
    state: State = entry.state
    problem, remedy = _words(state, entry.problems)
    prov = provenance(entry.result.provenance) if entry.result is not None else None
    rows = entry.rows()
    metric: Metric = (
        "gflops"
        if any(v.gflops is not None and v.gflops >= MIN_FLOPS_PER_BYTE * v.gbps for v in rows)
        else "shared_gbps"
        if any(v.shared_gbps is not None for v in rows)
        else "gbps"
    )
    source = (
        entry.declared.source_path
        if entry.declared is not None
        else (entry.result.provenance.source_path if entry.result is not None else "")
    )
    return Result(
        experiment=entry.experiment,
        node=entry.node,
        state=state,
        metric=metric,
        provenance=prov,
        tables=_tables(entry),
        problem=problem,
        remedy=remedy,
        source=source,
        path=entry.path,
        launched=_launched(entry),
        limits=_limits(entry),
        title=entry.declared.experiment.title if entry.declared is not None else "",
    )


def _launched(entry: rs.Entry) -> tuple[Launched, ...]:
    if entry.result is None:
        return ()
    out = []
    for r in entry.result.rows:
        o, occ = r.outcome, r.occupancy
        if o is None and occ is None:
            continue
        out.append(
            Launched(
                kernel=r.label,
                id=r.kernel,
                size=r.size,
                observed=r.kind == "observe",
                launched=o.launched if o is not None else True,
                error_name=o.error_name if o is not None else "",
                error_string=o.error_string if o is not None else "",
                blocks_per_sm=occ.blocks_per_sm if occ is not None and not occ.error else None,
                warps_per_sm=occ.warps_per_sm if occ is not None and not occ.error else None,
                occupancy_pct=occ.pct if occ is not None and not occ.error else None,
                matched=r.check.passed if o is not None and o.launched and not o.error_name else None,
                wrong=wrong_elements(r.check.message) if o is not None and not r.check.passed else None,
            )
        )
    return tuple(out)


_WRONG = re.compile(r"^\w+: (\d+) of (\d+) elements (?:differ|are off|were never written|are NaN)")


def wrong_elements(message: str) -> tuple[int, int] | None:
    """(elements wrong, elements in all) from a failed check's message (measure/gpu/check.py words it
    "dst: 1234 of 16777216 elements differ from the reference ..."); None for any other message."""
    m = _WRONG.match(message)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _limits(entry: rs.Entry) -> tuple[tuple[str, int], ...]:
    limits = entry.result.provenance.limits if entry.result is not None else None
    return tuple(asdict(limits).items()) if limits is not None else ()
