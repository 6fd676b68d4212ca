"""An inline SVG bar chart of a table's rows against the copy ceiling.

No JavaScript and no colours of its own: text uses ``currentColor`` and the bars, ceiling and suspect
marks take mkdocs-material's palette variables through the classes styled in
``site_plugins/assets/measured/measured.css`` (with presentation attributes as a fallback), so the chart
follows the light/dark switch. ``<title>``, ``<desc>`` and ``aria-labelledby`` carry a text alternative
that states every bar.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from site_plugins.measured import fmt

# One bar per row with its kernel label on the line above it, so the label column does not eat the
# bars' width: a 400-unit-wide chart drawn at most 400 CSS px wide keeps 13-unit text at or above
# 11 CSS px down to a 340 px wide column (a 390 px phone leaves about 358 px).
WIDTH = 400
FONT = 13
LABEL_H = 17  # the kernel label's line
BAR_H = 14
ROW_H = LABEL_H + BAR_H + 9
TOP = 22  # room for the ceiling label
X0 = 2.0
VALUE_W = 104  # room right of the longest bar (or the ceiling) for its value label
CHAR_W = 7.6  # generous average advance of the 13px font (Roboto or a system sans), to place value labels
ID = "\x00id\x00"  # replaced by a page-unique id when the chart is placed on a page


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    text: str  # the value as formatted (same formatter as the table)
    suspect: bool = False


def _x(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def value_x(bar_end: float, text: str, ceiling_x: float | None) -> float:
    """Where a value label starts: right of its bar, or right of the ceiling line when the label would
    otherwise cross it."""
    x = bar_end + 6
    if ceiling_x is not None and bar_end < ceiling_x and x + CHAR_W * len(text) > ceiling_x - 3:
        x = ceiling_x + 6
    return x


def render(
    bars: Sequence[Bar],
    *,
    unit: str,
    title: str,
    desc: str,
    ceiling: float | None,
    ceiling_text: str,
    second: tuple[float, str] | None = None,
) -> str:
    """The ``<svg>`` element, on one line. ``ID`` stands for the page-unique id prefix. ``second``: another
    ceiling (value, label), e.g. the driver's memcpy, drawn dotted with its label on a line of its own."""
    x0 = X0
    span = WIDTH - VALUE_W - x0
    values = [b.value for b in bars if b.value is not None and b.value > 0]
    top_value = max([*values, ceiling or 0.0, second[0] if second else 0.0], default=0.0) or 1.0
    # A ceiling's label names the kernel it comes from and can be longer than the chart is wide: it
    # wraps onto lines of its own above the bars rather than running off a phone's screen.
    first_lines = wrap_label(ceiling_text)
    second_lines = wrap_label(second[1]) if second else []
    top = TOP + LABEL_H * (len(first_lines) - 1 + len(second_lines))
    height = top + ROW_H * len(bars) + 4
    cx = x0 + span * ceiling / top_value if ceiling is not None and ceiling > 0 else None
    sx = x0 + span * second[0] / top_value if second and second[0] > 0 else None
    parts = [
        f'<svg class="gloss-chart" role="img" aria-labelledby="{ID}-t {ID}-d" '
        f'viewBox="0 0 {WIDTH} {height}" width="100%" preserveAspectRatio="xMinYMin meet" '
        f'style="max-width:{WIDTH}px" font-size="{FONT}" fill="currentColor" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{ID}-t">{escape(title)}</title>',
        f'<desc id="{ID}-d">{escape(desc)}</desc>',
    ]
    for i, bar in enumerate(bars):
        y = top + ROW_H * i
        mid = y + LABEL_H + BAR_H / 2
        parts.append(
            f'<text class="gloss-chart-label" x="{_x(x0)}" y="{_x(y + LABEL_H - 4)}">{escape(bar.label)}</text>'
        )
        parts.append(
            f'<line class="gloss-chart-axis" x1="{_x(x0)}" y1="{_x(mid - BAR_H / 2 - 2)}" x2="{_x(x0)}" '
            f'y2="{_x(mid + BAR_H / 2 + 2)}" stroke="currentColor" stroke-opacity="0.4"/>'
        )
        for x, dash, cls in ((cx, "4 2", ""), (sx, "1 3", " gloss-chart-ceiling--second")):
            if x is not None:
                parts.append(
                    f'<line class="gloss-chart-ceiling{cls}" x1="{_x(x)}" y1="{_x(mid - BAR_H / 2 - 4)}" '
                    f'x2="{_x(x)}" y2="{_x(mid + BAR_H / 2 + 4)}" stroke="currentColor" stroke-dasharray="{dash}"/>'
                )
        if bar.value is None or bar.value <= 0:
            parts.append(
                f'<text class="gloss-chart-value" x="{_x(x0 + 6)}" y="{_x(mid)}" '
                f'dominant-baseline="central">{escape(bar.text)}</text>'
            )
            continue
        w = span * bar.value / top_value
        cls = "gloss-chart-bar gloss-chart-bar--suspect" if bar.suspect else "gloss-chart-bar"
        extra = ' fill-opacity="0.45" stroke="currentColor" stroke-dasharray="3 2"' if bar.suspect else ""
        parts.append(
            f'<rect class="{cls}" x="{_x(x0)}" y="{_x(mid - BAR_H / 2)}" width="{_x(w)}" height="{BAR_H}"{extra}/>'
        )
        mark = " \u26a0" if bar.suspect else ""
        label = f"{bar.text}{_unit_suffix(unit)}{mark}"
        parts.append(
            f'<text class="gloss-chart-value" x="{_x(value_x(x0 + w, label, cx))}" y="{_x(mid)}" '
            f'dominant-baseline="central">{escape(bar.text)}{escape(_unit_suffix(unit))}{mark}</text>'
        )
    first_top = top - 8 - LABEL_H * (len(first_lines) - 1)
    labels = [(cx, first_lines, first_top)] + ([(sx, second_lines, TOP - 8)] if sx is not None else [])
    for x, lines, y in labels:
        if x is None:
            continue
        lx, anchor = label_place(x, max(lines, key=len))
        for i, line in enumerate(lines):
            parts.append(
                f'<text class="gloss-chart-ceiling-label" x="{_x(lx)}" y="{y + LABEL_H * i}" '
                f'text-anchor="{anchor}">{escape(line)}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def wrap_label(text: str) -> list[str]:
    """``text`` in lines that each fit the chart's width at :data:`CHAR_W` per character (at least one)."""
    return textwrap.wrap(text, width=int((WIDTH - 2 * X0) / CHAR_W), break_on_hyphens=False) or [text]


def label_place(x: float, text: str) -> tuple[float, str]:
    """Where a ceiling's label goes and its anchor: starting at its line when it fits to the right,
    else ending at it, else as far right as it fits (never past the chart's edges)."""
    w = CHAR_W * len(text)
    if x + w <= WIDTH - 2:
        return x, "start"
    if x - w >= X0:
        return x, "end"
    return max(X0, WIDTH - 2 - w), "start"


def _unit_suffix(unit: str) -> str:
    return f"{fmt.NBSP}{unit}" if unit else ""
