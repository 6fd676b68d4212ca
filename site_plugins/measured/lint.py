"""The hand-typed-figure lint: a measurement figure in prose must come from a reference.

A number followed by a measurement unit (:data:`UNITS`: bandwidth, arithmetic intensity, throughput, time,
frequency, cycles, size and power, e.g. GB/s, FLOP/byte, TFLOP/s, µs, GHz, cycles, KiB, W, and their
spellings: "8 TB/sec", "3 TB per second", "12 microseconds"), a multiplier ("1.9x", "3× faster"), a
percentage ("57.1 percent", "57.1 %") or a bare number that continues a figure in the same sentence
("65.2 GB/s become 118.6") in a page body is a problem unless it is produced by ``{{ value }}`` /
``{{ ratio }}`` or quoted from a named source with ``{{ cited "4.8 TB/s" source="..." }}``. Numeric cells of a Markdown
table whose header names such a unit ("GB/s", "Time (ms)") are hand-typed figures too. Code (fenced
blocks and code spans) and HTML comments are not prose and are never flagged.
"""

from __future__ import annotations

import re

from site_plugins.files.messages import Problem

# Every unit a measured or quoted figure may carry, declared once by family: FIGURE (prose), the table
# header check and the tests (every unit a page renders, site_plugins.measured.fmt, is one) derive from it.
# Alternatives are tried in order and a figure must end at a word boundary, so "TB/s" is read as a
# bandwidth, not as the size "TB" followed by "/s".
_SI = "(?:kilo|mega|giga|tera|peta|kibi|mebi|gibi|tebi)"
UNITS: tuple[tuple[str, str], ...] = (
    ("bandwidth", r"[KMGTP]i?B(?:/sec|/s|ps|[ \t]per[ \t]second)"),
    ("bandwidth", rf"{_SI}?bytes?(?:/sec|/s|[ \t]per[ \t]second)"),
    ("arithmetic intensity", r"FLOPs?(?:/byte|/B|[ \t]per[ \t]byte)|bytes?/FLOP|B/FLOP"),
    ("throughput", r"[KMGTP]?FLOP(?:/s|[ \t]per[ \t]second)|[KMGTP]FLOPS|[KMGT]?IOPS|[GT]OPS"),
    # (seconds unprefixed are not: "3 s to compile" is how long a step takes, not a figure of the GPU)
    ("time", r"[mµμunp]s|(?:milli|micro|nano|pico)seconds?|(?:msec|usec|nsec)s?"),
    ("frequency", r"[kKMGT]?Hz|(?:kilo|mega|giga)?hertz"),
    ("cycles", r"(?:clock[ \t])?cycles?|clocks?|clks?"),
    ("size", rf"[KMGTP]i?B|{_SI}bytes?"),
    ("power", r"[kKm]?W|(?:kilo|milli)?watts?"),
)
UNIT = "(?:" + "|".join(f"(?:{alternatives})" for _, alternatives in UNITS) + ")"
_SEP = r"(?:[ \t\u00a0\u202f]|&nbsp;|&#160;)?"
_NUM = r"\d+(?:[.,]\d+)*(?:[eE][-+]?\d+)?"
# Words that make an integer multiplier ("3× faster", "a 4x speedup") a performance claim; a bare "4x"
# (unroll 4x, a 4x4 tile) is a design choice, not a measurement. A decimal multiplier ("1.9x") always is.
_CLAIM = (r"(?:faster|slower|quicker|speed-?ups?|improvements?|gains?|better|worse|higher|lower|more|less|"
          r"fewer|as[ \t]fast|the[ \t](?:bandwidth|throughput|speed|performance|time))\b")
_MULTIPLIER = (rf"\d+\.\d+{_SEP}[x×](?![\w/])(?!{_SEP}\d)|"
               rf"\d+{_SEP}[x×](?=[ \t\u00a0]+{_CLAIM})")
# Percentages, except the trivial 0 % and 100 % ("100 % of the threads").
_PERCENT = rf"(?!(?:100|0)(?:\.0+)?{_SEP}(?:%|percent|per[ \t]cent)){_NUM}{_SEP}(?:%|percent\b|per[ \t]cent\b)"
# A number (with optional decimal part or thousands groups), optional space, a unit, then no more word;
# or a multiplier; or a percentage.
# A power of two in a binary unit ("a 256 MiB buffer", "4 KiB pages") is how a chosen size is written,
# as a bare "4x" is a chosen factor: not a figure. Any other size ("228 KB", "50 MB", "227 KiB") is one.
_CHOSEN_SIZE = rf"(?:{'|'.join(str(2 ** k) for k in range(16, -1, -1))}){_SEP}[KMGT]iB(?![\w/])"
FIGURE = re.compile(
    rf"(?<![\w.])(?!{_CHOSEN_SIZE})(?:({_NUM}){_SEP}(" + UNIT + rf")(?![\w/])|{_MULTIPLIER}|{_PERCENT})",
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


def lede_remedy(key: str) -> str:
    """How to fix a figure in a definition or summary, which no directive can supply (it is never expanded)."""
    return (f"a {key} is shown as written (tooltips, the A–Z, search), so keep it free of figures: say it in words "
            "and give the figure in the body, from a result with {{ value ... }} or a source with {{ cited ... }}")


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


# --- a bare number that continues a figure -------------------------------------------------------------
# ``continuations`` reads a paragraph in which code and other non-prose are masked with NOT_PROSE and
# the figures that directives produce ({{ value }}, {{ ratio }}, {{ cited }}) with A_FIGURE.
A_FIGURE = "\x01"
NOT_PROSE = "\x02"
_SENTENCE_END = re.compile(r"[.!?](?=[\s\x02]|$)|\n[ \t]*\n")
_BARE = re.compile(r"(?<![\w.,/\[\x01\x02-])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w\]%\x01\x02/-]|[.,]\d)")
_FIGURE_TOKEN = re.compile(r"\x01+")
# What may join a figure and a bare number that continues it ("65.2 GB/s become 118.6", "from 65.2 to
# 118.6 GB/s", "between 1,096 and 3,703 GB/s").
_JOIN = re.compile(
    r"\b(?:becomes?|became|becoming|to|from|vs|versus|against|than|and|or|then|drops?|dropped|falls?|fell|"
    r"rises?|rose|grows?|grew|climbs?|climbed|reach(?:es|ed)?|goes|went|jumps?|jumped|improves?|improved|"
    r"compared|instead|while|but|up|down)\b|→|->|–|—",
    re.IGNORECASE,
)
# A number right after one of these words names a thing, not a quantity ("CUDA 13.0", "day 13").
_NAMING = re.compile(
    r"\b(?:cuda|driver|version|v|capability|sm|sm_|ptx|nvcc|day|days|step|chapter|section|figure|table|"
    r"lesson|line|lines|page|row|rows|column|columns|kernel|warp|lane|bank|thread|block|tile|size|"
    r"stride|node|h\d+|a\d+|gen|no|number|#)[ \t]*$",
    re.IGNORECASE,
)
# After the number: the end of the clause or a joining word, not a noun ("and 32 threads").
_AFTER_OK = re.compile(
    r"^[ \t]*(?:$|[,.;:)!?\]]|—|–|\b(?:and|or|to|vs|versus|than|with|while|when|on|in|at|for|after|before|"
    r"once|instead|compared|against|respectively|from|but|if|as)\b)",
    re.IGNORECASE,
)


def continuations(text: str) -> list[tuple[int, int]]:
    """Spans of bare numbers that continue a figure of the same sentence."""
    out: list[tuple[int, int]] = []
    start = 0
    for end in [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]:
        out += [(start + a, start + b) for a, b in _in_sentence(text[start:end])]
        start = end
    return out


def _in_sentence(s: str) -> list[tuple[int, int]]:
    figures = [(m.start(), m.end()) for m in FIGURE.finditer(s)]
    figures += [(m.start(), m.end()) for m in _FIGURE_TOKEN.finditer(s)]
    if not figures:
        return []
    out = []
    for m in _BARE.finditer(s):
        a, b = m.span()
        if any(fa <= a < fb or fa < b <= fb for fa, fb in figures):
            continue
        if _NAMING.search(s[:a]) or not _AFTER_OK.match(s[b:]):
            continue
        for fa, fb in figures:
            between = s[fb:a] if fb <= a else s[b:fa]
            if (len(between.split()) <= 6 and not re.search(r"\d|\x02", between)
                    and _JOIN.search(between)):
                out.append((a, b))
                break
    return out
