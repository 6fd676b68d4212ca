"""What a table embed says about its own numbers, beside the provenance sentence: which copy "% of copy"
divides by, which time is the kernel's own for short launches, and the marks a noisy row carries in
tables and in prose. Pure functions over :mod:`model` rows."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from html import escape

from measure.nsight.counters import SHORT_LAUNCH_US
from site_plugins.measured import fmt
from site_plugins.measured.fmt import COUNTER_COLUMNS
from site_plugins.measured.model import Row, RowNote, Table

NOISY = "noisy: stopped at the time limit"


def kernel_ms(row: Row) -> float | None:
    """The kernel's own duration (Nsight Compute's gpu__time_duration), in ms, for a row whose median
    event time is under :data:`~measure.nsight.counters.SHORT_LAUNCH_US`; None otherwise or without counters."""
    ktime = row.counters.get("ktime")  # µs
    if ktime is None or row.time_ms is None or row.time_ms * 1000.0 >= SHORT_LAUNCH_US:
        return None
    return ktime / 1000.0


def time_cell(row: Row) -> str:
    """The time column's cell: the event median, and for a short launch the kernel's own duration."""
    k = kernel_ms(row)
    text = fmt.number(row.time_ms)
    return text if k is None else f"{text} (kernel {fmt.number(k)})"


def copy_sentence(table: Table, rows: Sequence[Row]) -> str:
    """Which copy "% of copy" is relative to, and the driver's memcpy as a separate ceiling."""
    refs = sorted({r.copy_ref for r in rows if r.pct_copy is not None and r.copy_ref})
    if not refs:
        return ""
    if len(refs) == 1:
        what = f"the fastest copy kernel that moves the same bytes in the same run ({refs[0]})"
    else:
        what = "the fastest copy kernel that moves the same bytes in the same run (named in each row's note)"
    memcpy = (
        f" The {table.memcpy_label} reached {fmt.quantity(table.memcpy_gbps, 'GB/s')} in the same run, shown as "
        "a separate ceiling."
        if table.memcpy_gbps is not None
        else ""
    )
    return f"% of copy divides each row's GB/s by {what}.{memcpy}"


def short_launch_sentence(rows: Sequence[Row]) -> str:
    if not any(kernel_ms(r) is not None for r in rows):
        return ""
    return (
        f"Times are medians of CUDA-event timings around each launch; for launches under "
        f"{fmt.number(SHORT_LAUNCH_US)}{fmt.NBSP}µs the time column also gives, as \u201ckernel\u201d, the kernel's "
        "own duration measured by Nsight Compute (gpu__time_duration), without the launch overhead and "
        "the events around it."
    )


#: Columns computed from the declared bytes: where one is shown, a note's GB/s clause is too.
BYTES_COLUMNS = frozenset({"gbps", "pct_copy", "pct_peak"})


def finding_text(note: RowNote, columns: Collection[str]) -> str:
    """A finding's words for a table showing ``columns`` ("" where it does not apply there)."""
    if note.counters_only and not any(c in COUNTER_COLUMNS for c in columns):
        return ""
    if note.gbps and BYTES_COLUMNS & set(columns):
        return f"{note.text}; {note.gbps}"
    return note.text


def notes(row: Row, several_refs: bool, columns: Collection[str] = ()) -> list[str]:
    """The Note column's reasons for one row in a table showing ``columns``: a sentence about GB/s only
    beside a GB/s figure, the counter pass's clock only beside counters."""
    out = [f"suspect: {s}" for s in row.suspect] + ([NOISY] if row.noisy else [])
    if several_refs and row.copy_ref and row.pct_copy is not None:
        out.append(f"of copy: {row.copy_ref}")
    out += [text for text in (finding_text(n, columns) for n in row.findings) if text]
    return out + ([row.note] if row.note else [])


def numbered(reasons_of: dict[str, list[str]]) -> tuple[dict[str, str], list[str]]:
    """The Note column as numbered notes: each distinct reason is written once, under the table, and a
    row's cell lists the numbers of its reasons. A reason can run to a sentence and several rows share
    it; written out in every cell it made each row several lines tall on a phone.
    Returns (cell text per kernel, the reasons in the order of their numbers)."""
    number: dict[str, int] = {}  # reason -> its number, in order of first appearance
    cells = {
        kernel: ", ".join(str(number.setdefault(reason, len(number) + 1)) for reason in reasons)
        for kernel, reasons in reasons_of.items()
    }
    return cells, list(number)


def legend_html(legend: Sequence[str]) -> str:
    """The numbered notes under a table (nothing when no row has one)."""
    if not legend:
        return ""
    items = "".join(f"<li>{escape(reason)}</li>" for reason in legend)
    return f'<ol class="gloss-notes" aria-label="Notes">{items}</ol>'


def noisy_mark(rows: Sequence[Row]) -> str:
    """The mark a value from a noisy row carries, in tables and in prose alike."""
    names = [r.kernel for r in rows if r.noisy]
    if not names:
        return ""
    title = " / ".join(f"{n}: {NOISY}" for n in names)
    return f'<sup class="gloss-noisy-mark" title="{escape(title)}" data-search-exclude>~</sup>'
