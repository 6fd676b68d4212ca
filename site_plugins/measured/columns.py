"""Table columns: each row's figure per column, the default columns, and the columns relative to a
named denominator, whose headers always name it:

- ``pct:ID``: each row's figure in the experiment's metric (GFLOP/s where the spec declares FLOPs, else
  shared-memory GB/s, else GB/s) as a percentage of row ``ID`` (spec id or label) of the same experiment
  and size, or of the run's ceilings; header "% of <that row's label>", e.g. "% of cuBLAS SGEMM". A row
  whose arithmetic differs from that row's (``Row.math``: TF32 against FP32) gets no value.
- ``pct_fp32``: GFLOP/s as a percentage of the run's FP32 ceiling (the fastest ceiling row declaring
  FLOPs); header "% of FP32 ceiling (<its label>, <its GFLOP/s>)". TF32 rows get no value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from site_plugins.measured.fmt import COLUMNS, RELATIVE_PREFIX, Column
from site_plugins.measured.model import Result, Row, Table


def figure(row: Row, column: Column) -> float | None:
    """A timing figure, or a counter figure (raw metric or derived, measure/nsight/counters.py)."""
    timing = {
        "time": row.time_ms,
        "iqr": row.iqr_ms,
        "gbps": row.gbps,
        "shared_gbps": row.shared_gbps,
        "gflops": row.gflops,
        "pct_copy": row.pct_copy,
        "pct_peak": row.pct_peak,
        "pct_shared_peak": row.pct_shared_peak,
        "pct_fp32": row.pct_fp32,
        "us_per_launch": row.us_per_launch,
    }
    if column == "registers" and row.registers is not None:  # the compiler's count, recorded at load
        return float(row.registers)
    return timing[column] if column in timing else row.counters.get(column)


def default_columns(result: Result, rows: Sequence[Row]) -> list[Column]:
    cols: list[Column] = ["time", result.metric]
    # % of the copy ceiling compares DRAM traffic; it says nothing about a GFLOP/s or shared-memory ladder.
    if result.metric == "gbps" and any(r.pct_copy is not None for r in rows):
        cols.append("pct_copy")
    return cols


@dataclass(frozen=True)
class Columns:
    """Every column's header, and the values of the ``pct:ID`` columns ({row label: percentage})."""

    headers: dict[Column, str]
    values: dict[Column, dict[str, float | None]] = field(default_factory=dict)

    def figure(self, row: Row, column: Column) -> float | None:
        return self.values[column][row.kernel] if column in self.values else figure(row, column)


def is_relative(column: Column) -> bool:
    return column.startswith(RELATIVE_PREFIX) and len(column) > len(RELATIVE_PREFIX)


def relative_values(
    result: Result, table: Table, rows: Sequence[Row], columns: Sequence[Column]
) -> Columns | tuple[str, str]:
    """The columns' headers and relative values, or (problem, remedy)."""
    values: dict[Column, dict[str, float | None]] = {}
    headers: dict[Column, str] = {}
    for c in columns:
        if is_relative(c):
            ref_id = c[len(RELATIVE_PREFIX) :]
            ref = table.row(ref_id)
            if ref is None:
                known = ", ".join(r.id or r.kernel for r in (*table.rows, *table.ceilings))
                return (
                    f"column '{c}': experiment '{result.experiment}' has no row '{ref_id}' at {table.size}",
                    f"name a row of the same size or a ceiling row: {known}",
                )
            den = figure(ref, result.metric)
            if not den:
                return (
                    f"column '{c}': row '{ref_id}' has no {COLUMNS[result.metric][0]} figure to divide by",
                    "name a row that was timed and has the experiment's metric",
                )
            # A rate in another arithmetic (TF32 tensor cores against an FP32 row, or the reverse) is not a
            # share of it: those cells stay empty.
            values[c] = {r.kernel: _pct(figure(r, result.metric), den) if r.math == ref.math else None for r in rows}
            headers[c] = f"% of {ref.kernel}"
        elif c == "pct_fp32":
            ref_text = next((r.fp32_ref for r in rows if r.fp32_ref), "")
            headers[c] = f"% of FP32 ceiling ({ref_text})" if ref_text else COLUMNS[c][0]
        else:
            headers[c] = COLUMNS[c][0]
    return Columns(headers, values)


def _pct(x: float | None, den: float) -> float | None:
    return None if x is None else 100.0 * x / den
