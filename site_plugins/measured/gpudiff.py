"""Why one row's time differs between two GPUs, from what both runs recorded (pure; table-tested).

Two nodes measured the same kernel at the same size. :func:`classify` takes the row on each node (its
median time, its DRAM bytes from Nsight Compute, the median SM clock NVML read with its samples, its kind)
and the ratio of the two nodes' fastest copies, and names the first reason the data supports:

``same``
    the times are within :data:`THRESHOLD` of each other: nothing to explain.
``host``
    a host transfer, a transfer pipeline or a launch row: its time is spent on the host link or in
    launching, which the kernel counters recorded here do not measure.
``dram-bytes``
    the slower node moved more than :data:`THRESHOLD` more DRAM bytes (``dram__bytes_read.sum`` +
    ``dram__bytes_write.sum``) for the same work: less of it was served from the L2 cache, whose size
    each node's provenance records.
``clock``
    the SM clocks recorded with the samples differ by more than :data:`CLOCK_MATCH` and their ratio matches
    the time ratio within :data:`CLOCK_MATCH`.
``bandwidth``
    the same DRAM bytes (within :data:`THRESHOLD`) and a time ratio within :data:`THRESHOLD` of the ratio of
    the nodes' fastest copies: the row is as much slower as DRAM copying is.
``below-copy``
    the same DRAM bytes, slower, but by less than the copies: DRAM bandwidth accounts for at most part of
    the difference.
``unexplained``
    none of the above: the counters recorded do not account for the difference, and the page says so.

A reason is only ever a comparison of recorded figures; the words name the counter they come from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from site_plugins.measured import fmt

#: A difference (time ratio, DRAM bytes ratio) smaller than this is no difference.
THRESHOLD = 0.10
#: How closely a clock ratio must match the time ratio (and how far the clocks must differ) to explain it.
CLOCK_MATCH = 0.05
HOST_KINDS = frozenset({"transfer", "pipeline", "launch"})

Reason = Literal["same", "host", "dram-bytes", "clock", "bandwidth", "below-copy", "unexplained"]

REASON_WORDS: dict[Reason, str] = {
    "same": "within 10 %",
    "host": "host side",
    "dram-bytes": "more DRAM traffic (L2 size)",
    "clock": "SM clock",
    "bandwidth": "DRAM bandwidth",
    "below-copy": "partly DRAM bandwidth",
    "unexplained": "not explained by the counters",
}


@dataclass(frozen=True)
class Side:
    """One row as one node measured it."""

    gpu: str  # e.g. "NVIDIA H100 80GB HBM3"
    time_ms: float  # median
    kind: str = "kernel"  # the spec's row kind
    dram_mb: float | None = None  # Nsight Compute: dram__bytes_read.sum + dram__bytes_write.sum, MB
    sm_clock_mhz: float | None = None  # median SM clock NVML read with the kept samples
    l2_mib: float | None = None  # the node's L2 size as its provenance records it


@dataclass(frozen=True)
class Verdict:
    ratio: float  # time on ``a`` over time on ``b``: above 1, ``a`` took longer
    reason: Reason
    why: str  # one sentence of recorded figures; empty for "same"


def classify(a: Side, b: Side, copy_ratio: float | None) -> Verdict:
    """Why ``a``'s time differs from ``b``'s. ``copy_ratio``: ``a``'s fastest copy time over ``b``'s for the
    same bytes (``b``'s fastest copy GB/s over ``a``'s); None where a node has no copy figure."""
    ratio = a.time_ms / b.time_ms
    short_a, short_b = short(a.gpu), short(b.gpu)
    if abs(ratio - 1.0) <= THRESHOLD:
        return Verdict(ratio, "same", "")
    if a.kind in HOST_KINDS or b.kind in HOST_KINDS:
        return Verdict(ratio, "host", f"a {a.kind} row: its time is spent on the host link or in launching, which "
                                      "the kernel counters recorded here do not measure")
    dram = a.dram_mb / b.dram_mb if a.dram_mb and b.dram_mb else None
    slower, faster = (a, b) if ratio > 1.0 else (b, a)
    more = dram if ratio > 1.0 else (1.0 / dram if dram else None)
    if more is not None and more > 1.0 + THRESHOLD:
        l2 = ""
        if slower.l2_mib and faster.l2_mib and slower.l2_mib < faster.l2_mib:
            l2 = (f": less of the data stayed in its {fmt.number(slower.l2_mib)}{fmt.NBSP}MiB L2 "
                  f"({fmt.number(faster.l2_mib)}{fmt.NBSP}MiB on the {short(faster.gpu)})")
        return Verdict(ratio, "dram-bytes", (
            f"the {short(slower.gpu)} moved {fmt.ratio(more)} the DRAM bytes of the {short(faster.gpu)} "
            f"(Nsight Compute dram__bytes_read.sum + dram__bytes_write.sum){l2}"))
    if a.sm_clock_mhz and b.sm_clock_mhz:
        clocks = b.sm_clock_mhz / a.sm_clock_mhz  # a slower clock on a: a longer time on a
        if abs(clocks - 1.0) > CLOCK_MATCH and abs(ratio / clocks - 1.0) <= CLOCK_MATCH:
            return Verdict(ratio, "clock", (
                f"the SM clock recorded with the samples was {fmt.number(a.sm_clock_mhz)}{fmt.NBSP}MHz on the "
                f"{short_a} and {fmt.number(b.sm_clock_mhz)}{fmt.NBSP}MHz on the {short_b}, a ratio of "
                f"{fmt.ratio(clocks)}"))
    same_bytes = "the same DRAM bytes (within 10 %)" if dram is not None else "no DRAM counters"
    if copy_ratio is not None and dram is not None and abs(ratio / copy_ratio - 1.0) <= THRESHOLD:
        return Verdict(ratio, "bandwidth", (
            f"{same_bytes} on both, and each node's fastest copy kernel in the same run differs by "
            f"{fmt.ratio(copy_ratio)}: the row tracks DRAM bandwidth"))
    if copy_ratio is not None and a.kind == b.kind == "memcpy" and abs(ratio / copy_ratio - 1.0) <= THRESHOLD:
        # The driver's device-to-device copy has no kernel of ours to count; it is a copy by definition.
        return Verdict(ratio, "bandwidth", (
            f"the driver's copy (no counters of its own) differs as the fastest copy kernels in the same run do "
            f"({fmt.ratio(copy_ratio)})"))
    if copy_ratio is not None and dram is not None and 1.0 < ratio < copy_ratio:
        return Verdict(ratio, "below-copy", (
            f"{same_bytes} on both; the fastest copies differ by {fmt.ratio(copy_ratio)}, more than this row: "
            "DRAM bandwidth accounts for at most part of the difference"))
    clock_words = (f"; SM clocks {fmt.number(a.sm_clock_mhz)} and {fmt.number(b.sm_clock_mhz)}{fmt.NBSP}MHz"
                   if a.sm_clock_mhz and b.sm_clock_mhz else "")
    copy_words = f"; fastest copies differ by {fmt.ratio(copy_ratio)}" if copy_ratio is not None else ""
    return Verdict(ratio, "unexplained", (
        f"{same_bytes}{clock_words}{copy_words}: the counters recorded here do not account for it"))


def short(gpu: str) -> str:
    """The name prose uses for a GPU: the words up to the first with a digit, without the maker ("NVIDIA
    H100 80GB HBM3" -> "H100", "NVIDIA GeForce RTX 4090" -> "GeForce RTX 4090")."""
    out: list[str] = []
    for word in gpu.removeprefix("NVIDIA ").split():
        out.append(word)
        if any(ch.isdigit() for ch in word):
            break
    return " ".join(out) or gpu
