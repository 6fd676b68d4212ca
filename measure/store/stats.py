"""Statistics, the stopping rule and bandwidth math: pure functions over plain numbers.

The runner and ``gloss measure verify`` both call these, so a summary stored in a result file can be
recomputed *exactly* (bit for bit) from the raw samples stored beside it. Everything here is plain
Python (``math.fsum`` for sums, sorted lists for quantiles): no numpy, whose summation order could
differ between machines and versions, and nothing that needs a GPU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Decimal units throughout: 1 GB/s is 1e9 bytes per second, as vendors quote bandwidth.
GB = 1e9
GFLOP = 1e9


@dataclass(frozen=True)
class Rule:
    """When to stop taking samples (nvbench's defaults: 10 samples, 0.5 s, 0.5 % noise)."""

    min_samples: int = 10
    min_gpu_time_s: float = 0.5
    max_rel_stdev: float = 0.005


@dataclass(frozen=True)
class Summary:
    """Summary of the kept samples of one row. Times in milliseconds."""

    n_total: int
    n_kept: int
    n_throttled: int
    median_ms: float
    q1_ms: float
    q3_ms: float
    iqr_ms: float
    mean_ms: float
    stdev_ms: float
    rel_stdev: float
    min_ms: float
    max_ms: float
    gpu_time_s: float
    noisy: bool


def quantile(sorted_xs: Sequence[float], q: float) -> float:
    """Quantile by linear interpolation between closest ranks (numpy's default, R's type 7)."""
    if not sorted_xs:
        raise ValueError("quantile of no samples")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} outside [0, 1]")
    pos = (len(sorted_xs) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    frac = pos - lo
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * frac


def median(xs: Sequence[float]) -> float:
    return quantile(sorted(xs), 0.5)


def mean(xs: Sequence[float]) -> float:
    if not xs:
        raise ValueError("mean of no samples")
    return math.fsum(xs) / len(xs)


def stdev(xs: Sequence[float]) -> float:
    """Sample standard deviation (n - 1); 0 for fewer than two samples."""
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def rel_stdev(xs: Sequence[float]) -> float:
    """Standard deviation over mean; infinite when it cannot be judged (under two samples, zero mean)."""
    if len(xs) < 2:
        return math.inf
    m = mean(xs)
    return stdev(xs) / m if m > 0 else math.inf


def kept_mask(sm_clock_mhz: Sequence[int], min_clock_mhz: int) -> list[bool]:
    """Which samples to keep: those whose SM clock was at or above ``min_clock_mhz``.

    A clock of ``-1`` means "not read" (no NVML): such a sample is kept, and the result says that
    throttling could not be checked. ``min_clock_mhz <= 0`` keeps everything.
    """
    return [c < 0 or min_clock_mhz <= 0 or c >= min_clock_mhz for c in sm_clock_mhz]


def converged(kept_ms: Sequence[float], rule: Rule) -> bool:
    """The stopping rule: enough samples, enough GPU time, and little enough noise."""
    return (
        len(kept_ms) >= rule.min_samples
        and math.fsum(kept_ms) / 1000.0 >= rule.min_gpu_time_s
        and rel_stdev(kept_ms) <= rule.max_rel_stdev
    )


def summarize(times_ms: Sequence[float], sm_clock_mhz: Sequence[int], min_clock_mhz: int, rule: Rule) -> Summary:
    """Summary of the samples that ran at full clock; ``noisy`` when the stopping rule was not met."""
    if len(times_ms) != len(sm_clock_mhz):
        raise ValueError(f"{len(times_ms)} times but {len(sm_clock_mhz)} clock readings")
    mask = kept_mask(sm_clock_mhz, min_clock_mhz)
    kept = [t for t, k in zip(times_ms, mask, strict=True) if k]
    if not kept:
        raise ValueError("no sample ran at full clock")
    ordered = sorted(kept)
    q1, q3 = quantile(ordered, 0.25), quantile(ordered, 0.75)
    return Summary(
        n_total=len(times_ms),
        n_kept=len(kept),
        n_throttled=len(times_ms) - len(kept),
        median_ms=quantile(ordered, 0.5),
        q1_ms=q1,
        q3_ms=q3,
        iqr_ms=q3 - q1,
        mean_ms=mean(kept),
        stdev_ms=stdev(kept),
        rel_stdev=rel_stdev(kept),
        min_ms=ordered[0],
        max_ms=ordered[-1],
        gpu_time_s=math.fsum(kept) / 1000.0,
        noisy=not converged(kept, rule),
    )


# --- bandwidth and rate math -------------------------------------------------------------------------


def theoretical_peak_gbps(memory_clock_mhz: int, bus_width_bits: int) -> float:
    """DRAM peak: two transfers per memory clock (double data rate) times the bus width in bytes.

    NVML and CUDA report the HBM clock such that this formula gives the datasheet figure
    (H200: 2 x 3201 MHz x 6016 bits / 8 = 4814 GB/s).
    """
    return 2.0 * memory_clock_mhz * 1e6 * bus_width_bits / 8.0 / GB


def gbps(nbytes: int, time_ms: float) -> float:
    """Decimal GB/s for ``nbytes`` moved in ``time_ms``."""
    if time_ms <= 0:
        raise ValueError(f"time must be positive, got {time_ms} ms")
    return nbytes / (time_ms / 1000.0) / GB


def gflops(flops: int, time_ms: float) -> float:
    if time_ms <= 0:
        raise ValueError(f"time must be positive, got {time_ms} ms")
    return flops / (time_ms / 1000.0) / GFLOP


def percent(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else math.nan


#: A row moving more than this fraction of the theoretical peak is suspect (caches, wrong byte counts).
SUSPECT_PEAK_FRACTION = 0.95


#: Shared memory serves 32 banks of 4 bytes per SM per clock (CUDA C++ Programming Guide, shared memory).
SHARED_BYTES_PER_SM_CLOCK = 32 * 4


def shared_peak_gbps(sm_count: int, sm_clock_mhz: float) -> float:
    """What the banks of every SM can serve together at ``sm_clock_mhz``, in decimal GB/s."""
    return sm_count * SHARED_BYTES_PER_SM_CLOCK * sm_clock_mhz * 1e6 / 1e9


def fits_in_l2(working_set_bytes: int, l2_bytes: int) -> bool:
    return working_set_bytes <= l2_bytes


def above_peak_fraction(row_gbps: float, peak_gbps: float, fraction: float = SUSPECT_PEAK_FRACTION) -> bool:
    return row_gbps > fraction * peak_gbps
