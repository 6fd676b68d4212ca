"""Nsight Compute counters: the metrics collected per architecture (declared once, here) and every
figure derived from them (pure functions the runner, the judge and the pages share).

The default set is what each kernel row of every experiment gets; a spec may ask for more per kernel
(``counters: [METRIC, ...]``). Raw values are stored in the result exactly as ncu reported them in
base units (``--print-units base``): bytes, nanoseconds, cycles per second, percent, counts.

Derived figures (names pages use, e.g. ``{{ counter EXP size=S row=R metric=conflict_ways_ld }}``):

================== ==========================================================================
name               meaning
================== ==========================================================================
conflict_ways_ld   shared-memory wavefronts per shared load instruction (1 = no conflict, 32 = 32-way)
conflict_ways_st   the same for shared stores
conflict_ways      loads and stores together
sectors_per_req_ld 32-byte sectors per global load request (4 = a warp reads 128 contiguous bytes)
sectors_per_req_st the same for global stores
sectors_per_req    loads and stores together
global_ld_mb       bytes the kernel's global loads asked the L1 for (32-byte sectors x 32), MB: what the
                   code requests, before any cache serves it
global_st_mb       the same for global stores
l2_mb              bytes requested from the L2 by every client (loads, stores, copies), MB
dram_read_mb       bytes read from DRAM during the kernel, in MB (1e6 bytes)
dram_write_mb      bytes written to DRAM during the kernel, in MB
dram_mb            both together
dram_ratio         DRAM bytes over the bytes the spec declares (read + written)
occupancy_pct      achieved occupancy: active warps over the SM's maximum, %
registers          registers per thread
ktime              the kernel's own duration (``gpu__time_duration``), no events around it, µs
sm_clock_mhz       the SM clock during the launch, MHz
================== ==========================================================================

A kernel's writes still in the L2 when it ends reach DRAM later, outside its window, so
``dram_write_mb`` can read below the bytes it wrote; :data:`BYTES_TOLERANCE` allows for that.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from measure.experiment.specformat import Kernel

#: The metrics every kernel row gets, per architecture (``sm_90``: Hopper, e.g. the H200).
DEFAULT_METRICS: dict[str, tuple[str, ...]] = {
    "sm_90": (
        "gpu__time_duration.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "smsp__sass_inst_executed_op_shared_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "lts__t_bytes.sum",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "launch__registers_per_thread",
        "launch__occupancy_limit_registers",
        "sm__cycles_elapsed.avg.per_second",
    ),
}

#: How far DRAM bytes may stray from the declared bytes before a row is marked (see :func:`dram_finding`).
BYTES_TOLERANCE = 0.10

#: Rows whose median event time is under this show the counter pass's kernel duration beside it.
SHORT_LAUNCH_US = 50.0


def arch_of(compute_capability: str) -> str:
    """``"9.0"`` -> ``"sm_90"``."""
    return "sm_" + compute_capability.replace(".", "")


def default_metrics(arch: str) -> tuple[str, ...]:
    return DEFAULT_METRICS.get(arch, ())


def extras_of(kernels: Iterable[Kernel]) -> dict[str, list[str]]:
    """Kernel id -> the extra metrics its spec entry asks for (``counters:``)."""
    return {k.id: list(k.counters) for k in kernels}


def metrics_for(arch: str, extras: Iterable[Iterable[str]]) -> list[str]:
    """The architecture's default set, then every extra a kernel asks for, each once, in order."""
    out = list(default_metrics(arch))
    for group in extras:
        out += [m for m in group if m not in out]
    return out


# --- derived figures ---------------------------------------------------------------------------------

WAVES_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
WAVES_ST = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
INST_LD = "smsp__sass_inst_executed_op_shared_ld.sum"
INST_ST = "smsp__sass_inst_executed_op_shared_st.sum"
REQ_LD = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
REQ_ST = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
SEC_LD = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
SEC_ST = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
L2_BYTES = "lts__t_bytes.sum"
SECTOR_BYTES = 32
DRAM_RD = "dram__bytes_read.sum"
DRAM_WR = "dram__bytes_write.sum"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
REGISTERS = "launch__registers_per_thread"
DURATION = "gpu__time_duration.sum"
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


@dataclass(frozen=True)
class Derived:
    needs: tuple[str, ...]  # the raw metrics it is computed from
    unit: str  # how a page labels it ("" for a plain ratio)
    digits: int  # decimals pages print
    what: str  # a short column heading
    compute: Callable[[Mapping[str, float], int], float | None]  # (counters, declared bytes) -> value


DERIVED: dict[str, Derived] = {
    "conflict_ways_ld": Derived(
        (WAVES_LD, INST_LD), "", 1, "ld ways", lambda c, _b: _ratio(c[WAVES_LD], c[INST_LD])
    ),
    "conflict_ways_st": Derived(
        (WAVES_ST, INST_ST), "", 1, "st ways", lambda c, _b: _ratio(c[WAVES_ST], c[INST_ST])
    ),
    "conflict_ways": Derived(
        (WAVES_LD, WAVES_ST, INST_LD, INST_ST),
        "",
        1,
        "conflict ways",
        lambda c, _b: _ratio(c[WAVES_LD] + c[WAVES_ST], c[INST_LD] + c[INST_ST]),
    ),
    "sectors_per_req_ld": Derived(
        (SEC_LD, REQ_LD), "", 1, "ld sectors/req", lambda c, _b: _ratio(c[SEC_LD], c[REQ_LD])
    ),
    "sectors_per_req_st": Derived(
        (SEC_ST, REQ_ST), "", 1, "st sectors/req", lambda c, _b: _ratio(c[SEC_ST], c[REQ_ST])
    ),
    "sectors_per_req": Derived(
        (SEC_LD, SEC_ST, REQ_LD, REQ_ST),
        "",
        1,
        "sectors/req",
        lambda c, _b: _ratio(c[SEC_LD] + c[SEC_ST], c[REQ_LD] + c[REQ_ST]),
    ),
    "global_ld_mb": Derived(
        (SEC_LD,), "MB", 1, "global ld MB", lambda c, _b: c[SEC_LD] * SECTOR_BYTES / 1e6
    ),
    "global_st_mb": Derived(
        (SEC_ST,), "MB", 1, "global st MB", lambda c, _b: c[SEC_ST] * SECTOR_BYTES / 1e6
    ),
    "l2_mb": Derived((L2_BYTES,), "MB", 1, "L2 MB", lambda c, _b: c[L2_BYTES] / 1e6),
    "dram_read_mb": Derived((DRAM_RD,), "MB", 1, "DRAM read MB", lambda c, _b: c[DRAM_RD] / 1e6),
    "dram_write_mb": Derived((DRAM_WR,), "MB", 1, "DRAM write MB", lambda c, _b: c[DRAM_WR] / 1e6),
    "dram_mb": Derived((DRAM_RD, DRAM_WR), "MB", 1, "DRAM MB", lambda c, _b: (c[DRAM_RD] + c[DRAM_WR]) / 1e6),
    "dram_ratio": Derived(
        (DRAM_RD, DRAM_WR), "", 2, "DRAM / declared", lambda c, b: _ratio(c[DRAM_RD] + c[DRAM_WR], b)
    ),
    "occupancy_pct": Derived((OCCUPANCY,), "%", 1, "achieved occupancy %", lambda c, _b: c[OCCUPANCY]),
    "registers": Derived((REGISTERS,), "", 0, "registers", lambda c, _b: c[REGISTERS]),
    "ktime": Derived((DURATION,), "µs", 2, "kernel µs", lambda c, _b: c[DURATION] / 1000.0),
    "sm_clock_mhz": Derived((SM_CLOCK,), "MHz", 0, "SM MHz (counter pass)", lambda c, _b: c[SM_CLOCK] / 1e6),
}


def needs(name: str) -> tuple[str, ...]:
    """The raw metrics figure ``name`` is computed from (a raw metric needs itself)."""
    d = DERIVED.get(name)
    return d.needs if d else (name,)


def missing(name: str, counters: Mapping[str, float] | None) -> list[str]:
    """The raw metrics ``name`` needs that ``counters`` lacks (all of them when there are no counters)."""
    have = counters or {}
    return [m for m in needs(name) if m not in have]


def value(name: str, counters: Mapping[str, float], declared_bytes: int) -> float | None:
    """Figure ``name`` (derived or raw) for one row; None when undefined (e.g. no shared instructions).
    Raises KeyError naming the first missing metric; check :func:`missing` first."""
    d = DERIVED.get(name)
    if d is None:
        return float(counters[name])
    return d.compute(counters, declared_bytes)


def figures(counters: Mapping[str, float] | None, declared_bytes: int) -> dict[str, float | None]:
    """Every derived figure and every raw metric of one row; a figure whose metrics are missing is absent."""
    if not counters:
        return {}
    out: dict[str, float | None] = {name: float(v) for name, v in counters.items()}
    for name in DERIVED:
        if not missing(name, counters):
            out[name] = value(name, counters, declared_bytes)
    return out


@dataclass(frozen=True)
class DramFinding:
    """What the DRAM counters say about a row's declared bytes. ``suspect``: the GB/s figure overstates
    DRAM traffic (a cache served part of the declared reads); otherwise a plain note (the kernel moved
    more than the least it must: re-reads, sectors used in part, partly written sectors)."""

    suspect: bool
    ratio: float  # DRAM bytes over declared bytes, for the direction judged
    what: str  # "read" or "wrote"
    # The sector bytes (32-byte sectors x 32) the kernel's own global requests of the judged direction
    # asked the L1 for (loads for "read", stores for "wrote"), over the declared bytes of that direction.
    # None without the sector counter.
    asked: float | None = None
    # For extra reads: the sector bytes the kernel's global stores touched over the bytes it declares
    # writing. Above 1 + BYTES_TOLERANCE the stores write sectors in part (e.g. a column write: 4 bytes of
    # each of 32 sectors per request). None without the counter, without writes, or for a "wrote" finding.
    partial_stores: float | None = None

    @property
    def code_asked(self) -> bool | None:
        """Do the kernel's own requests of the judged direction cover the DRAM bytes? True: the code
        asked for at least that many bytes (sectors used in part, data moved more than once); False: DRAM
        moved more than every sector the code asked for; None: the sector counter is absent."""
        if self.asked is None:
            return None
        return self.ratio <= self.asked * (1.0 + BYTES_TOLERANCE)

    @property
    def stores_partial(self) -> bool | None:
        """The kernel's stores write sectors in part (None: not known)."""
        return None if self.partial_stores is None else self.partial_stores > 1.0 + BYTES_TOLERANCE


#: Extra DRAM bytes below this share of all the bytes a row declares (read + written) are not judged:
#: they move no GB/s figure by more than this, and every kernel shows a few MB of writes that do not
#: depend on its code (about 2.4 MB at every row of the 64M-element experiments on the H200).
MATERIAL_FRACTION = 0.02


def _sector_bytes(counters: Mapping[str, float], metric: str, declared: int) -> float | None:
    sectors = counters.get(metric)
    if sectors is None or declared <= 0:
        return None
    return sectors * SECTOR_BYTES / declared


def dram_finding(
    counters: Mapping[str, float] | None, bytes_read: int, bytes_written: int
) -> DramFinding | None:
    """Compare DRAM bytes with the declared bytes, reads and writes apart, beyond :data:`BYTES_TOLERANCE`.

    Reads below the declared reads mean a cache served them (the L2 still held them, or the working set
    fits): the row's GB/s then overstates DRAM traffic. Reads or writes above the declared bytes (by
    more than the tolerance of that direction and more than :data:`MATERIAL_FRACTION` of all declared
    bytes) mean more was moved than the least any kernel must: the declared bytes stay that least, so
    GB/s is still defined, and the row only gets a note, with the kernel's own sector counts for the
    note's words. Writes below the declared writes are not judged: lines a kernel wrote can still sit in
    the L2 when it ends and reach DRAM after its counters stop."""
    if counters is None or DRAM_RD not in counters or DRAM_WR not in counters:
        return None
    material = MATERIAL_FRACTION * (bytes_read + bytes_written)
    if bytes_read > 0:
        ratio = counters[DRAM_RD] / bytes_read
        if ratio < 1.0 - BYTES_TOLERANCE:
            return DramFinding(True, ratio, "read")
        if ratio > 1.0 + BYTES_TOLERANCE and counters[DRAM_RD] - bytes_read > material:
            asked = _sector_bytes(counters, SEC_LD, bytes_read)
            return DramFinding(False, ratio, "read", asked, _sector_bytes(counters, SEC_ST, bytes_written))
    if bytes_written > 0:
        ratio = counters[DRAM_WR] / bytes_written
        if ratio > 1.0 + BYTES_TOLERANCE and counters[DRAM_WR] - bytes_written > material:
            return DramFinding(False, ratio, "wrote", _sector_bytes(counters, SEC_ST, bytes_written))
    return None
