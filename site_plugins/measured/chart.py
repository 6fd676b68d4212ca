"""An inline SVG bar chart of a table's rows against the copy ceiling.

No JavaScript and no colours of its own: text uses ``currentColor`` and the bars, ceiling and suspect
marks take mkdocs-material's palette variables through the classes styled in
``site_plugins/assets/measured/measured.css`` (with presentation attributes as a fallback), so the chart
follows the light/dark switch. ``<title>``, ``<desc>`` and ``aria-labelledby`` carry a text alternative
that states every bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from site_plugins.measured import fmt

WIDTH = 640
ROW_H = 26
BAR_H = 16
TOP = 24  # room for the ceiling label
VALUE_W = 110  # room right of the longest bar for its value label
CHAR_W = 8.0  # generous average advance of the 13px label font (Roboto or a system sans), to size the label column
ID = "\x00id\x00"  # replaced by a page-unique id when the chart is placed on a page


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    text: str  # the value as formatted (same formatter as the table)
    suspect: bool = False


def _x(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def render(bars: Sequence[Bar], *, unit: str, title: str, desc: str, ceiling: float | None, ceiling_text: str) -> str:
    """The ``<svg>`` element, on one line. ``ID`` stands for the page-unique id prefix."""
    label_w = min(220.0, max(60.0, CHAR_W * max((len(b.label) for b in bars), default=4) + 16))
    x0 = label_w
    span = WIDTH - VALUE_W - x0
    values = [b.value for b in bars if b.value is not None and b.value > 0]
    top_value = max([*values, ceiling or 0.0], default=0.0) or 1.0
    height = TOP + ROW_H * len(bars) + 8
    parts = [
        f'<svg class="gloss-chart" role="img" aria-labelledby="{ID}-t {ID}-d" '
        f'viewBox="0 0 {WIDTH} {height}" width="100%" preserveAspectRatio="xMinYMin meet" '
        f'font-size="13" fill="currentColor" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{ID}-t">{escape(title)}</title>',
        f'<desc id="{ID}-d">{escape(desc)}</desc>',
        f'<line class="gloss-chart-axis" x1="{_x(x0)}" y1="{TOP - 4}" x2="{_x(x0)}" y2="{height - 4}" '
        f'stroke="currentColor" stroke-opacity="0.4"/>',
    ]
    for i, bar in enumerate(bars):
        y = TOP + ROW_H * i
        mid = y + ROW_H / 2
        parts.append(
            f'<text class="gloss-chart-label" x="{_x(x0 - 8)}" y="{_x(mid)}" text-anchor="end" '
            f'dominant-baseline="central">{escape(bar.label)}</text>'
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
        parts.append(
            f'<text class="gloss-chart-value" x="{_x(x0 + w + 6)}" y="{_x(mid)}" '
            f'dominant-baseline="central">{escape(bar.text)}{_unit_suffix(unit)}{mark}</text>'
        )
    if ceiling is not None and ceiling > 0:
        cx = x0 + span * ceiling / top_value
        parts.append(
            f'<line class="gloss-chart-ceiling" x1="{_x(cx)}" y1="{TOP - 6}" x2="{_x(cx)}" '
            f'y2="{height - 4}" stroke="currentColor" stroke-dasharray="5 3"/>'
        )
        anchor = "end" if cx > WIDTH * 0.6 else "start"
        parts.append(
            f'<text class="gloss-chart-ceiling-label" x="{_x(cx)}" y="{TOP - 10}" '
            f'text-anchor="{anchor}" font-size="12">{escape(ceiling_text)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _unit_suffix(unit: str) -> str:
    return f"{fmt.NBSP}{escape(unit)}" if unit else ""
