"""An inline SVG bar chart of a table's rows against the copy ceiling.

No JavaScript and no colours of its own: text uses ``currentColor`` and the bars, ceiling and suspect
marks take mkdocs-material's palette variables through the classes styled in
``site_plugins/assets/measured/measured.css`` (with presentation attributes as a fallback), so the chart
follows the light/dark switch. ``<title>``, ``<desc>`` and ``aria-labelledby`` carry a text alternative
that states every bar; the table just above the chart is the full accessible form.

The drawing is computed first as a :class:`Layout` (boxes of text, lines and bars in viewBox units), so
that "no label is crossed by a line or by another label" is a property of plain data, tested without a
browser (:func:`collisions`), and then written out as SVG.

Where things go, so that no guide line ever crosses a label:

- the ceilings' names sit in a legend above the bars (a short sample of each line's dash, then its
  name), not beside their lines;
- each kernel's name has a line of its own above its bar, and the ceiling lines are drawn only across
  the bars' band, never through those name lines;
- a value label sits right of its bar and is moved right past any ceiling line it would cross (or, when
  no room is left, onto its kernel's name line, right-aligned);
- an axis along the bottom gives round values and, on a line of its own, the unit.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Literal

from site_plugins.measured import fmt

# The viewBox is 400 units wide and the SVG takes the column's width: in a 390 px phone's column (about
# 358 px) 13-unit text draws at 11.6 px. On a wide screen the chart grows until its text matches the
# body text (0.8 rem in mkdocs-material), no further: see ``style`` in :func:`svg`.
WIDTH = 400
FONT = 13
ASCENT = 12.0  # of 13-unit text above its baseline: a browser's text box (the font's ascent, about 0.92 em)
DESCENT = 3.5  # and below it (about 0.25 em)
CHAR_W = 7.6  # generous average advance of the 13px font (Roboto or a system sans), to place labels
LABEL_H = 18  # a kernel's name line, above its bar
BAR_H = 14
ROW_H = LABEL_H + BAR_H + 8
LINE_H = 17  # a legend line
SWATCH = 20  # length of a legend's line sample
X0 = 2.0
VALUE_W = 112  # room right of the longest bar (or the ceiling) for its value label
GAP = 6  # between a label and what it labels or avoids
ID = "\x00id\x00"  # replaced by a page-unique id when the chart is placed on a page

Anchor = Literal["start", "middle", "end"]
WIDE = 640  # the wide layout's viewBox, shown where the column is at least WIDE_REM wide (measured.css)
WIDE_REM = 30
BREAK_RATIO = 3.0  # a bar this many times the next one down is drawn broken, off the scale of the rest
LOG_SPAN = 100.0  # values spread over this many times (without such a gap): a logarithmic axis
OFF_W = 14  # how far an off-scale bar runs past the end of the axis


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None
    text: str  # the value as formatted (same formatter as the table)
    suspect: bool = False


@dataclass(frozen=True)
class Scale:
    """How values map onto the axis. ``linear``: 0 to ``top``. ``broken``: 0 to ``top``, and every bar
    above ``top`` runs past the axis's end with a break mark (its value written beside it). ``log``:
    ``low`` to ``top`` in powers of ten."""

    kind: Literal["linear", "broken", "log"]
    top: float
    low: float = 0.0

    def frac(self, v: float) -> float:
        """Where ``v`` lies along the axis, 0 to 1 (past 1: off the scale)."""
        if self.kind == "log":
            return (math.log10(max(v, self.low)) - math.log10(self.low)) / (math.log10(self.top) - math.log10(self.low))
        return v / self.top

    def off(self, v: float) -> bool:
        return self.kind == "broken" and v > self.top * (1 + 1e-9)


def choose_scale(values: Sequence[float], guides: Sequence[float] = ()) -> Scale:
    """The axis that shows the bars' differences, decided from the values alone:

    - values over :data:`LOG_SPAN` times or more apart with at least a quarter of the bars (two at least)
      under a twentieth of the largest: slivers on a linear axis, so a logarithmic one;
    - else one bar (or a few, at most a third of them) :data:`BREAK_RATIO` times or more above the next
      one down (cuBLAS on tensor cores over a ladder of FP32 kernels; a kernel in device memory among
      host transfers): a broken axis scaled to the rest, those bars marked off the scale;
    - else linear from 0 to the largest value or ceiling."""
    vals = sorted((v for v in values if v > 0), reverse=True)
    shown_guides = [g for g in guides if g > 0]
    top = max([*vals, *shown_guides], default=0.0) or 1.0
    if len(vals) >= 3:
        small = [v for v in vals if v < vals[0] / 20]
        if vals[0] / vals[-1] >= LOG_SPAN and len(small) >= max(2, len(vals) / 4):
            low = 10.0 ** math.floor(math.log10(vals[-1]))
            return Scale("log", 10.0 ** math.ceil(math.log10(top)), low)
        gaps = [(vals[k - 1] / vals[k], k) for k in range(1, max(1, len(vals) // 3) + 1)]
        ratio, k = max(gaps)
        if ratio >= BREAK_RATIO:
            rest = [vals[k], *(g for g in shown_guides if g < vals[k] * BREAK_RATIO)]
            return Scale("broken", max(rest))
    return Scale("linear", top)


@dataclass(frozen=True)
class Guide:
    """A ceiling drawn as a vertical line across the bars, named in the legend."""

    value: float
    label: str
    dash: str  # stroke-dasharray
    cls: str = "gloss-chart-ceiling"


@dataclass(frozen=True)
class Box:
    left: float
    top: float
    right: float
    bottom: float

    def meets(self, other: Box) -> bool:
        return (self.left < other.right and other.left < self.right
                and self.top < other.bottom and other.top < self.bottom)


@dataclass(frozen=True)
class Text:
    x: float
    y: float  # baseline
    text: str
    cls: str
    anchor: Anchor = "start"

    @property
    def width(self) -> float:
        return CHAR_W * len(self.text)

    @property
    def box(self) -> Box:
        left = self.x - {"start": 0.0, "middle": self.width / 2, "end": self.width}[self.anchor]
        return Box(left, self.y - ASCENT, left + self.width, self.y + DESCENT)


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    cls: str
    dash: str = ""

    @property
    def box(self) -> Box:  # a stroke about one unit wide
        return Box(min(self.x1, self.x2) - 0.75, min(self.y1, self.y2) - 0.75,
                   max(self.x1, self.x2) + 0.75, max(self.y1, self.y2) + 0.75)


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    suspect: bool = False
    off: bool = False  # runs past the axis: off the scale


@dataclass(frozen=True)
class Layout:
    height: float
    texts: tuple[Text, ...]
    lines: tuple[Line, ...]
    bars: tuple[Rect, ...]
    width: float = WIDTH
    scale: Scale = Scale("linear", 1.0)


def _x(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def value_x(start: float, text: str, guides_x: Sequence[float]) -> float:
    """Where a value label starts: at ``start`` (just right of its bar), or right of every guide line it
    would otherwise cross."""
    x = start
    for g in sorted(guides_x):
        if x - GAP / 2 <= g <= x + CHAR_W * len(text) + GAP / 2:
            x = g + GAP
    return x


def wrap_label(text: str, width: float = WIDTH - 2 * X0) -> list[str]:
    """``text`` in lines that each fit ``width`` units at :data:`CHAR_W` per character (at least one)."""
    return textwrap.wrap(text, width=max(1, int(width / CHAR_W)), break_on_hyphens=False) or [text]


def ticks(top: float, span: float) -> list[float]:
    """Round axis values from 0 up to ``top``: the smallest 1, 2, 2.5 or 5 × 10^k step that gives at most
    five values spaced wide enough for their labels."""
    if top <= 0:
        return [0.0]
    exp = math.floor(math.log10(top))
    for k in range(exp - 1, exp + 2):
        for m in (1.0, 2.0, 2.5, 5.0):
            step = m * 10.0**k
            values = [round(i * step, 10) for i in range(int(top / step + 1e-9) + 1)]
            widest = max(CHAR_W * len(tick_text(v)) for v in values)
            if len(values) <= 5 and span * step / top >= widest + 2 * GAP:
                return values
    return [0.0, top]


def tick_text(v: float) -> str:
    return f"{round(v):,}" if abs(v - round(v)) < 1e-9 else f"{v:,.2f}".rstrip("0")


def log_ticks(scale: Scale, span: float) -> list[float]:
    """Powers of ten from ``scale.low`` to ``scale.top``, every ``d``-th one for the smallest ``d`` that
    gives at most five values spaced wide enough for their labels."""
    lo, hi = round(math.log10(scale.low)), round(math.log10(scale.top))
    for d in range(1, hi - lo + 1):
        values = [10.0**k for k in range(lo, hi + 1, d)]
        widest = max(CHAR_W * len(tick_text(v)) for v in values)
        if len(values) <= 5 and span * d / (hi - lo) >= widest + 2 * GAP:
            return values
    return [scale.low, scale.top]


def layout(bars: Sequence[Bar], *, unit: str, guides: Sequence[Guide] = (), width: float = WIDTH) -> Layout:
    """Where every piece of the chart goes, in viewBox units (see the module's docstring)."""
    span = width - VALUE_W - X0
    scale = choose_scale([b.value for b in bars if b.value is not None], [g.value for g in guides])
    shown = [g for g in guides if g.value > 0]
    texts: list[Text] = []
    lines: list[Line] = []
    rects: list[Rect] = []
    y = 0.0
    for g in shown:  # the legend: a sample of the line, then its name (wrapped)
        off = scale.off(g.value)
        label = f"{g.label} (off the scale)" if off else g.label
        wrapped = wrap_label(label, width - X0 - SWATCH - GAP)
        lines.append(Line(X0, y + LINE_H - 8, X0 + SWATCH, y + LINE_H - 8, g.cls, g.dash))
        for i, part in enumerate(wrapped):
            texts.append(Text(X0 + SWATCH + GAP, y + LINE_H * (i + 1) - 4, part, "gloss-chart-ceiling-label"))
        y += LINE_H * len(wrapped)
    y += 4 if shown else 0
    drawn = [g for g in shown if not scale.off(g.value)]
    guides_x = [X0 + span * scale.frac(g.value) for g in drawn]
    for bar in bars:
        off = bar.value is not None and scale.off(bar.value)
        if bar.value is None or bar.value <= 0:
            label, end = bar.text, X0
        else:
            end = X0 + span + OFF_W if off else X0 + span * scale.frac(bar.value)
            label = f"{bar.text}{_unit_suffix(unit)}{' ⚠' if bar.suspect else ''}{', off the scale' if off else ''}"
        x = value_x(end + GAP, label, guides_x)
        # No room right of the bar: the value goes on the kernel's name line, right-aligned, and the
        # name wraps short of it.
        beside = x + CHAR_W * len(label) <= width
        room = width - 2 * X0 - (0 if beside else CHAR_W * len(label) + GAP)
        names = wrap_label(bar.label, room)
        for i, part in enumerate(names):
            texts.append(Text(X0, y + LABEL_H * (i + 1) - 6, part, "gloss-chart-label"))
        if not beside:
            texts.append(Text(width - X0, texts[-1].y, label, "gloss-chart-value", "end"))
        bar_top = y + LABEL_H * len(names)
        mid = bar_top + BAR_H / 2
        lines.append(Line(X0, bar_top - 1, X0, bar_top + BAR_H + 1, "gloss-chart-axis"))
        for gx, g in zip(guides_x, drawn, strict=True):
            lines.append(Line(gx, bar_top - 1, gx, bar_top + BAR_H + 1, g.cls, g.dash))
        if bar.value is not None and bar.value > 0:
            rects.append(Rect(X0, bar_top, end - X0, BAR_H, bar.suspect, off))
            if off:  # the break: two slanted cuts across the bar where the axis ends
                for dx in (-3.0, 3.0):
                    bx = X0 + span + OFF_W / 2 + dx
                    lines.append(Line(bx - 2, bar_top + BAR_H + 1, bx + 2, bar_top - 1, "gloss-chart-break"))
        if beside:
            texts.append(Text(x, mid + 4.5, label, "gloss-chart-value"))
        y = bar_top + BAR_H + ROW_H - LABEL_H - BAR_H
    # The axis: round values under the bars' start line, and the unit on a line of its own.
    axis_y = y + 2
    lines.append(Line(X0, axis_y, X0 + span, axis_y, "gloss-chart-axis"))
    tick_values = log_ticks(scale, span) if scale.kind == "log" else ticks(scale.top, span)
    for v in tick_values:
        tx = X0 + span * scale.frac(v)
        lines.append(Line(tx, axis_y, tx, axis_y + 4, "gloss-chart-axis"))
        t = Text(tx, axis_y + 4 + LINE_H - 4, tick_text(v), "gloss-chart-tick", "middle")
        if t.box.left < 0:
            t = Text(tx, t.y, t.text, t.cls, "start")
        texts.append(t)
    axis_words = {"linear": unit, "broken": f"{unit}, axis cut", "log": f"{unit}, log scale"}[scale.kind]
    if axis_words:
        texts.append(Text(X0 + span, axis_y + 4 + 2 * LINE_H - 4, axis_words.strip(", "), "gloss-chart-unit", "end"))
    height = axis_y + 4 + (2 if axis_words else 1) * LINE_H
    return Layout(height, tuple(texts), tuple(lines), tuple(rects), width, scale)


def collisions(lay: Layout) -> list[tuple[str, str]]:
    """Pairs (a text, what it meets: another text or a line's class) whose boxes overlap, and any text that
    runs past the chart's edges; empty for a legible chart. A line that meets the text it belongs to (a
    tick and its value) cannot: ticks end above their labels."""
    out: list[tuple[str, str]] = []
    frame = Box(0.0, 0.0, lay.width, lay.height)
    for i, t in enumerate(lay.texts):
        b = t.box
        if b.left < frame.left or b.right > frame.right or b.top < frame.top or b.bottom > frame.bottom:
            out.append((t.text, "the chart's edge"))
        out += [(t.text, u.text) for u in lay.texts[i + 1:] if b.meets(u.box)]
        out += [(t.text, line.cls) for line in lay.lines if b.meets(line.box) and line.cls != "gloss-chart-break"]
        out += [(t.text, "a bar") for r in lay.bars if b.meets(Box(r.x, r.y, r.x + r.w, r.y + r.h))]
    return out


def svg(lay: Layout, *, title: str, desc: str, variant: str = "") -> str:
    """The ``<svg>`` element, on one line. ``ID`` stands for the page-unique id prefix (``variant`` is
    added to it, and to the class: the wide chart's ids differ from the narrow one's).

    Its width is the column's (100 %), capped so that the text never draws larger than the body text:
    ``0.8rem`` is mkdocs-material's body size, and a chart ``width / FONT`` times that wide draws its
    ``FONT``-unit text at exactly 0.8 rem. No pixel width: the cap follows the reader's font size."""
    ident = f"{ID}{variant}"
    cls = f"gloss-chart gloss-chart--{variant}" if variant else "gloss-chart"
    width = _x(lay.width)
    parts = [
        f'<svg class="{cls}" role="img" aria-labelledby="{ident}-t {ident}-d" '
        f'viewBox="0 0 {width} {_x(lay.height)}" width="100%" preserveAspectRatio="xMinYMin meet" '
        f'style="max-width:calc(0.8rem * {width} / {FONT})" font-size="{FONT}" fill="currentColor" '
        'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{ident}-t">{escape(title)}</title>',
        f'<desc id="{ident}-d">{escape(desc)}</desc>',
    ]

    def line_svg(line: Line) -> str:
        dash = f' stroke-dasharray="{line.dash}"' if line.dash else ""
        opacity = ' stroke-opacity="0.4"' if line.cls == "gloss-chart-axis" else ""
        stroke = "var(--md-default-bg-color, #fff)" if line.cls == "gloss-chart-break" else "currentColor"
        return (f'<line class="{line.cls}" x1="{_x(line.x1)}" y1="{_x(line.y1)}" x2="{_x(line.x2)}" '
                f'y2="{_x(line.y2)}" stroke="{stroke}"{dash}{opacity}/>')

    parts += [line_svg(line) for line in lay.lines if line.cls != "gloss-chart-break"]
    for r in lay.bars:
        cls = "gloss-chart-bar gloss-chart-bar--suspect" if r.suspect else "gloss-chart-bar"
        cls += " gloss-chart-bar--off" if r.off else ""
        extra = ' fill-opacity="0.45" stroke="currentColor" stroke-dasharray="3 2"' if r.suspect else ""
        parts.append(f'<rect class="{cls}" x="{_x(r.x)}" y="{_x(r.y)}" width="{_x(r.w)}" height="{_x(r.h)}"{extra}/>')
    parts += [line_svg(line) for line in lay.lines if line.cls == "gloss-chart-break"]  # over their bars
    for t in lay.texts:
        anchor = f' text-anchor="{t.anchor}"' if t.anchor != "start" else ""
        parts.append(f'<text class="{t.cls}" x="{_x(t.x)}" y="{_x(t.y)}"{anchor}>{escape(t.text)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def scale_words(scale: Scale, unit: str) -> str:
    """What the chart's text alternative says about its axis (nothing for a plain linear one)."""
    if scale.kind == "broken":
        return (f" The axis is cut at {fmt.quantity(scale.top, unit)}: the bars beyond it are drawn broken, "
                "off the scale of the others.")
    if scale.kind == "log":
        return " The axis is logarithmic: each step is ten times the one before."
    return ""


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
    """The chart of ``bars`` against ``ceiling`` (dashed) and ``second`` (another ceiling, e.g. the
    driver's memcpy: value and label, dotted): two ``<svg>`` elements on one line, one laid out for a
    narrow column and one for a wide column (the stylesheet shows the one that fits, so that a chart uses
    the column's width with its text at the body's size)."""
    guides = []
    if ceiling is not None:
        guides.append(Guide(ceiling, ceiling_text, "4 2"))
    if second is not None:
        guides.append(Guide(second[0], second[1], "1.5 3", "gloss-chart-ceiling gloss-chart-ceiling--second"))
    narrow = layout(bars, unit=unit, guides=guides)
    wide = layout(bars, unit=unit, guides=guides, width=WIDE)
    desc += scale_words(narrow.scale, unit)
    return (svg(narrow, title=title, desc=desc, variant="")
            + svg(wide, title=title, desc=desc, variant="w").replace("<svg ", '<svg data-search-exclude="" ', 1))


def _unit_suffix(unit: str) -> str:
    return f"{fmt.NBSP}{unit}" if unit else ""
