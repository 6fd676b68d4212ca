"""The one number formatter: tables, charts, value references and ratios all go through it.

Rule: at least three significant digits, and never round away integer digits (3893.6 GB/s shows as
"3,894", not "3,890", so the digits a reader sees are the digits the result holds to that place).
Thousands are grouped with commas; a number and its unit are joined by a no-break space so that a
figure never wraps across lines.
"""

from __future__ import annotations

import math
import re

from measure.nsight.counters import DERIVED

NBSP = "\u00a0"
DASH = "\u2014"  # shown where a figure does not exist (e.g. GFLOP/s of a copy kernel)
TIMES = "\u00d7"

SIGNIFICANT = 3

# A column name: a timing figure below, or a counter figure (measure/nsight/counters.py: conflict_ways, ...).
Column = str

# column -> (table header, unit appended in prose; "" means none)
TIMING_COLUMNS: dict[Column, tuple[str, str]] = {
    "time": ("Time (ms)", "ms"),
    "iqr": ("IQR (ms)", "ms"),
    "gbps": ("GB/s", "GB/s"),
    "shared_gbps": ("Shared-memory GB/s", "GB/s"),
    "gflops": ("GFLOP/s", "GFLOP/s"),
    "pct_copy": ("% of copy", "%"),
    "pct_peak": ("% of peak", "%"),
    "pct_shared_peak": ("% of banks", "%"),
    "pct_fp32": ("% of FP32 ceiling", "%"),
    "us_per_launch": ("\u00b5s per launch", "\u00b5s"),
    "ns_per_step": ("ns per step", "ns"),
    "cycles_per_step": ("Cycles per step", "cycles"),
}
#: A table column relative to a named row of the same experiment and size: ``pct:ID`` (its header
#: names that row: "% of cuBLAS SGEMM").
RELATIVE_PREFIX = "pct:"
COUNTER_COLUMNS: dict[Column, tuple[str, str]] = {name: (d.what, d.unit) for name, d in DERIVED.items()}
COLUMNS: dict[Column, tuple[str, str]] = {**TIMING_COLUMNS, **COUNTER_COLUMNS}
#: Counts, shown as whole numbers (registers per thread: the compiler's count, or the counter pass's).
INTEGER_COLUMNS: frozenset[Column] = frozenset({"registers"})


def number(x: float | None, sig: int = SIGNIFICANT) -> str:
    """``x`` with at least ``sig`` significant digits and all of its integer digits."""
    if x is None or not math.isfinite(x):
        return DASH
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    decimals = max(0, sig - 1 - magnitude)
    text = f"{x:,.{decimals}f}"
    # Rounding can carry into a new digit (9.996 -> "10.00"); keep exactly ``sig`` digits then.
    rounded = abs(float(text.replace(",", "")))
    if rounded != 0 and math.floor(math.log10(rounded)) > magnitude and decimals > 0:
        text = f"{x:,.{decimals - 1}f}"
    return text


def quantity(x: float | None, unit: str) -> str:
    """``x`` formatted by :func:`number` followed by its unit (no-break space between)."""
    text = number(x)
    if text == DASH or not unit:
        return text
    return f"{text}{NBSP}{unit}"


def cell(column: Column, x: float | None) -> str:
    """A table cell: the number alone (the unit is in the column header)."""
    return _count(x) if column in INTEGER_COLUMNS else number(x)


def prose(column: Column, x: float | None) -> str:
    """A value reference in prose: the number with its unit, as in the table's header."""
    return _count(x) if column in INTEGER_COLUMNS else quantity(x, COLUMNS[column][1])


def _count(x: float | None) -> str:
    return DASH if x is None or not math.isfinite(x) else f"{round(x):,}"


def ratio(x: float | None) -> str:
    """A ratio of two figures, e.g. "1.92×"."""
    text = number(x)
    return text if text == DASH else f"{text}{TIMES}"


def percent(x: float | None) -> str:
    return quantity(x, "%")


_DIMS = re.compile(r"^\d+(?:x\d+)+$")


def size_label(size: str) -> str:
    """``"8192x8192"`` -> ``"8192 × 8192"`` (sizes are written with an ``x`` in embeds); other labels
    ("256 MiB", "16384 blocks x 256 loads") as they are."""
    return f"{NBSP}{TIMES}{NBSP}".join(size.split("x")) if _DIMS.match(size) else size
