"""The hand-typed-figure lint: a measurement figure in prose must come from a reference.

A number followed by a measurement unit (GB/s, TB/s, ms, µs, ns, GFLOP/s, TFLOP/s and their
spellings) in a page body is a problem unless it is produced by ``{{ value }}`` / ``{{ ratio }}`` or
quoted from a named source with ``{{ cited "4.8 TB/s" source="..." }}``. Numeric cells of a Markdown
table whose header names such a unit ("GB/s", "Time (ms)") are hand-typed figures too. Code (fenced
blocks and code spans) and HTML comments are not prose and are never flagged.
"""

from __future__ import annotations

import re

from site_plugins.messages import Problem

UNIT = (
    r"(?:[KMGTP]i?B/s|[KMGTP]i?Bps|[GTP]FLOP/s|[GTP]FLOPS|[mµμun]s|"
    r"(?:milli|micro|nano)seconds?|(?:msec|usec|nsec)s?)"
)
# A number (with optional decimal part or thousands groups), optional space, a unit, then no more word.
FIGURE = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?)(?:[ \t\u00a0\u202f]|&nbsp;|&#160;)?(" + UNIT + r")(?![\w/])",
    re.IGNORECASE,
)
_UNIT_ONLY = re.compile(r"(?<![\w])" + UNIT + r"(?![\w])", re.IGNORECASE)
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_NUMERIC_CELL = re.compile(r"^[~≈]?\s*\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?\s*%?$")


def remedy(figure: str) -> str:
    quoted = figure.replace("\u00a0", " ").replace('"', '\\"')
    return (
        "take it from a result with {{ value EXPERIMENT row=KERNEL col=COLUMN }} (or {{ ratio ... }}), "
        f'or quote a cited source with {{{{ cited "{quoted}" source="SOURCE TITLE" }}}}'
    )


def figure_problem(path: str, line: int, figure: str) -> Problem:
    return Problem(path, line, f"hand-typed figure '{figure}'", remedy(figure))


def figures(text: str) -> list[str]:
    """Every hand-typed figure in a stretch of prose, as written."""
    return [m.group(0) for m in FIGURE.finditer(text)]


def split_row(line: str) -> list[str]:
    cells = line.strip()
    if cells.startswith("|"):
        cells = cells[1:]
    if cells.endswith("|") and not cells.endswith("\\|"):
        cells = cells[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", cells)]


def table_unit_columns(lines: list[str], i: int) -> list[bool] | None:
    """If line ``i`` is a Markdown table header followed by its separator: per column, whether the
    header names a measurement unit. None if it is not a table header."""
    if "|" not in lines[i] or i + 1 >= len(lines) or not _TABLE_SEP.match(lines[i + 1]):
        return None
    return [bool(_UNIT_ONLY.search(h)) for h in split_row(lines[i])]


def numeric_cells(line: str, unit_columns: list[bool]) -> list[str]:
    """The numeric cells of a table row that sit under a unit-naming header."""
    out = []
    for j, cell in enumerate(split_row(line)):
        if j < len(unit_columns) and unit_columns[j] and _NUMERIC_CELL.match(cell):
            out.append(cell)
    return out
