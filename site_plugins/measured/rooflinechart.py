"""An inline SVG roofline: measured rows as points on log-log axes under a node's measured roofs.

Drawn like :mod:`site_plugins.measured.chart`: no JavaScript, text in ``currentColor``, lines and points
in the classes ``site_plugins/assets/measured/measured.css`` styles, a ``<title>`` and ``<desc>`` that
state the roofs and the ridge points (the table under the chart lists every point). The roofs' names and
values sit in a legend above the plot, so no label is ever drawn across a line or a point; each point
carries its own ``<title>`` (experiment, size, row, figures) for a pointer to reveal.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from site_plugins.measured import fmt
from site_plugins.measured.chart import FONT, ID, LINE_H, WIDTH
from site_plugins.measured.roofline import NodeRoofline, decades

LEFT = 40.0  # room for the GFLOP/s tick labels (up to four characters, e.g. 100k) left of the plot
RIGHT = 8.0
PLOT_H = 240.0
SWATCH = 20.0
LEGEND_CHARS = 48  # a legend line's text wraps at this many characters (7.6 units each at most)
DASHES = ("", "5 3", "1.5 3")  # the first roof solid, then dashed, then dotted
POINT_R = 2.4


@dataclass(frozen=True)
class Axes:
    """Decades shown on each axis (powers of ten) and the plot's box in viewBox units."""

    x_lo: int
    x_hi: int
    y_lo: int
    y_hi: int
    left: float
    top: float
    width: float
    height: float

    def x(self, intensity: float) -> float:
        return self.left + (math.log10(intensity) - self.x_lo) / (self.x_hi - self.x_lo) * self.width

    def y(self, gflops: float) -> float:
        return self.top + (self.y_hi - math.log10(gflops)) / (self.y_hi - self.y_lo) * self.height


def tick_text(power: int) -> str:
    """10^power, short enough for the axis: 0.01, 0.1, 1, 10, 100, 1k, 10k, 100k, 1M, ..."""
    if power < 0:
        return f"{10.0**power:.{-power}f}"
    prefix = min(power // 3, 3)
    return f"{10 ** (power - 3 * prefix)}{('', 'k', 'M', 'G')[prefix]}"


def axes_for(line: NodeRoofline, top: float) -> Axes:
    """Decades wide enough for every point, every roof and both ends of each roof's slope."""
    xs = [p.intensity for p in line.points]
    ys = [p.gflops for p in line.points] + [r.value for r in line.compute]
    xs += [r for r in (line.ridge(c) for c in line.compute) if r is not None]
    if not xs:
        xs = [0.1, 100.0]
    if not ys:
        ys = [1.0, 1000.0]
    x_lo, x_hi = decades(min(xs), max(xs))
    y_lo, y_hi = decades(min(ys), max(ys) * 1.5)  # head room above the highest roof
    return Axes(x_lo, x_hi, y_lo, y_hi, LEFT, top, WIDTH - LEFT - RIGHT, PLOT_H)


def roof_path(ax: Axes, compute: float, bandwidth: float) -> list[tuple[float, float]]:
    """The roof's corners in viewBox units: up the bandwidth slope from the left edge (or from the bottom
    edge, where the slope enters the plot there) to the ridge, then flat to the right edge."""
    left = 10.0**ax.x_lo
    ridge = compute / bandwidth
    start = max(left, 10.0**ax.y_lo / bandwidth)
    corners = [(start, bandwidth * start), (ridge, compute), (10.0**ax.x_hi, compute)]
    if ridge <= start:  # the ridge lies left of the plot: only the flat part shows
        corners = [(left, compute), (10.0**ax.x_hi, compute)]
    return [(ax.x(i), ax.y(g)) for i, g in corners]


def legend(line: NodeRoofline) -> list[tuple[str, str]]:
    """(dash, text) per roof: its value and, for a compute roof, the ridge point (the page's list above the
    chart says what each roof measured)."""
    out = []
    if line.bandwidth is not None:
        out.append(("", f"slope: the fastest copy kernel, {fmt.quantity(line.bandwidth.value, 'GB/s')}"))
    for roof, dash in zip(line.compute, DASHES, strict=False):
        r = line.ridge(roof)
        ridge_text = f", ridge at {fmt.quantity(r, 'FLOP/B')}" if r is not None else ""
        out.append((dash, f"{roof.short or roof.label} roof: {fmt.quantity(roof.value, 'GFLOP/s')}{ridge_text}"))
    return out


def render(line: NodeRoofline) -> str:
    """The node's roofline as one ``<svg>`` line (``chart.ID`` stands for its page-unique id)."""
    parts: list[str] = []
    y = 4.0
    for dash, text in legend(line):
        wrapped = textwrap.wrap(text, LEGEND_CHARS) or [""]
        mid = y + LINE_H / 2
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<line class="gloss-chart-ceiling" x1="2" y1="{_n(mid)}" x2="{_n(2 + SWATCH)}" y2="{_n(mid)}" '
                     f'stroke="currentColor"{dash_attr}/>')
        for i, part in enumerate(wrapped):
            parts.append(f'<text class="gloss-chart-ceiling-label" x="{_n(8 + SWATCH)}" '
                         f'y="{_n(y + LINE_H * (i + 1) - 4)}">{escape(part)}</text>')
        y += LINE_H * len(wrapped)
    parts.append(f'<text class="gloss-chart-unit" x="{_n(LEFT)}" y="{_n(y + LINE_H - 4)}">GFLOP/s (log scale)</text>')
    ax = axes_for(line, y + LINE_H + 6)
    bottom = ax.top + ax.height
    parts.append(f'<rect class="gloss-chart-axis" x="{_n(ax.left)}" y="{_n(ax.top)}" width="{_n(ax.width)}" '
                 f'height="{_n(ax.height)}" fill="none" stroke="currentColor" stroke-opacity="0.4"/>')
    for k in range(ax.x_lo, ax.x_hi + 1):
        x = ax.x(10.0**k)
        parts.append(f'<line class="gloss-chart-axis" x1="{_n(x)}" y1="{_n(bottom)}" x2="{_n(x)}" '
                     f'y2="{_n(bottom + 4)}" stroke="currentColor" stroke-opacity="0.4"/>')
        # A line below the axis, clear of the lowest GFLOP/s label; the last one ends at the plot's edge.
        anchor = "end" if k == ax.x_hi else "middle"
        parts.append(f'<text class="gloss-chart-tick" x="{_n(x)}" y="{_n(bottom + 4 + LINE_H)}" '
                     f'text-anchor="{anchor}">{tick_text(k)}</text>')
    for k in range(ax.y_lo, ax.y_hi + 1):
        yy = ax.y(10.0**k)
        parts.append(f'<line class="gloss-chart-axis" x1="{_n(ax.left - 4)}" y1="{_n(yy)}" x2="{_n(ax.left)}" '
                     f'y2="{_n(yy)}" stroke="currentColor" stroke-opacity="0.4"/>')
        parts.append(f'<text class="gloss-chart-tick" x="{_n(ax.left - 6)}" y="{_n(yy + 4.5)}" '
                     f'text-anchor="end">{tick_text(k)}</text>')
    parts.append(f'<text class="gloss-chart-unit" x="{_n(ax.left + ax.width)}" y="{_n(bottom + 4 + 2 * LINE_H)}" '
                 'text-anchor="end">FLOP per DRAM byte (log scale)</text>')
    if line.bandwidth is not None:
        for roof, dash in zip(line.compute, DASHES, strict=False):
            pts = " ".join(f"{_n(px)},{_n(py)}" for px, py in roof_path(ax, roof.value, line.bandwidth.value))
            dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
            parts.append(f'<polyline class="gloss-chart-ceiling" points="{pts}" fill="none" stroke="currentColor"'
                         f"{dash_attr}/>")
    for p in line.points:
        tip = (f"{p.experiment}, {p.size}, {p.label}: {fmt.quantity(p.gflops, 'GFLOP/s')} at "
               f"{fmt.quantity(p.intensity, 'FLOP/B')}")
        parts.append(f'<circle class="gloss-chart-bar" cx="{_n(ax.x(p.intensity))}" cy="{_n(ax.y(p.gflops))}" '
                     f'r="{POINT_R}"><title>{escape(tip)}</title></circle>')
    height = bottom + 8 + 2 * LINE_H
    title = f"Roofline of {line.node} ({line.gpu}): {len(line.points)} measured rows"
    desc = "; ".join(text for _, text in legend(line)) or "no roof measured"
    head = [
        f'<svg class="gloss-chart gloss-roofline" role="img" aria-labelledby="{ID}-t {ID}-d" '
        f'viewBox="0 0 {WIDTH} {_n(height)}" width="100%" preserveAspectRatio="xMinYMin meet" '
        f'style="max-width:calc(0.8rem * {WIDTH} / {FONT})" font-size="{FONT}" fill="currentColor" '
        'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="{ID}-t">{escape(title)}</title>',
        f'<desc id="{ID}-d">{escape("Log-log axes, GFLOP/s against FLOP per DRAM byte. Roofs: " + desc)}</desc>',
    ]
    return "".join([*head, *parts, "</svg>"])


def _n(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def clipped(points: Sequence[tuple[float, float]], ax: Axes) -> bool:
    """Every corner lies inside the plot (with half a unit of rounding): used by the tests."""
    return all(ax.left - 0.5 <= x <= ax.left + ax.width + 0.5 and ax.top - 0.5 <= y <= ax.top + ax.height + 0.5
               for x, y in points)
