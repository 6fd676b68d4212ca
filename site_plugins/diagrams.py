"""Named diagrams: each is a pure function from parameters to an inline SVG.

Inline SVG (not an <img>) so the figure takes the page's colours through ``currentColor`` and
mkdocs-material's CSS variables, in both the light and the dark palette, and costs no request.
A preset is a named set of parameters; an entry may override single parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class Param:
    default: int
    low: int
    high: int
    doc: str


@dataclass(frozen=True)
class Diagram:
    params: dict[str, Param]
    presets: dict[str, dict[str, int]]
    draw: Callable[[Mapping[str, int], str], str]


def _tile_lifecycle(p: Mapping[str, int], alt: str) -> str:
    tile, pad = p["tile"], p["pad"]
    shown = 8  # cells drawn per side; the labels give the real tile size
    cell = 14
    fg = "currentColor"
    accent = "fill: var(--md-accent-fg-color, #526cfe); fill-opacity: .55"
    primary = "fill: var(--md-primary-fg-color, #4051b5); fill-opacity: .35"
    parts: list[str] = []

    def grid(x: int, y: int, cols: int, rows: int, hl_col: int | None = None, hl_row: int | None = None,
             padded_cols: int = 0) -> None:
        for r in range(rows):
            for c in range(cols + padded_cols):
                style = "fill: none"
                if c >= cols:
                    style = "fill: currentColor; fill-opacity: .12"
                elif hl_row is not None and r == hl_row:
                    style = primary
                elif hl_col is not None and c == hl_col:
                    style = accent
                parts.append(f'<rect x="{x + c * cell}" y="{y + r * cell}" width="{cell}" height="{cell}" '
                             f'style="{style}; stroke: {fg}; stroke-opacity: .5"/>')

    def text(x: int, y: int, s: str, anchor: str = "middle", size: int = 12) -> None:
        parts.append(f'<text x="{x}" y="{y}" text-anchor="{anchor}" font-size="{size}" '
                     f'fill="{fg}">{escape(s)}</text>')

    def arrow(x1: int, y1: int, x2: int, y2: int) -> None:
        parts.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{fg}" stroke-width="1.5" '
                     'marker-end="url(#gloss-arrow)"/>')

    side = shown * cell
    top = 40
    x_in, x_tile, x_out = 20, 20 + side + 90, 20 + 2 * side + 180 + pad * cell
    grid(x_in, top, shown, shown, hl_row=2)
    grid(x_tile, top, shown, shown, hl_row=2, hl_col=5, padded_cols=pad)
    grid(x_out, top, shown, shown, hl_row=5)
    text(x_in + side // 2, top - 14, "input tile (global memory)")
    text(x_tile + (side + pad * cell) // 2, top - 14, f"tile[{tile}][{tile + pad}] (shared memory)")
    text(x_out + side // 2, top - 14, "output tile (global memory)")
    arrow(x_in + side + 8, top + side // 2, x_tile - 8, top + side // 2)
    text(x_in + side + 45, top + side // 2 - 8, "1. read rows", size=11)
    arrow(x_tile + side + pad * cell + 8, top + side // 2, x_out - 8, top + side // 2)
    text(x_tile + side + pad * cell + 45, top + side // 2 - 8, "3. write rows", size=11)
    bar_y = top + side + 22
    parts.append(f'<line x1="{x_tile - 10}" y1="{bar_y}" x2="{x_tile + side + pad * cell + 10}" y2="{bar_y}" '
                 f'stroke="{fg}" stroke-width="3" stroke-dasharray="6 3"/>')
    text(x_tile + (side + pad * cell) // 2, bar_y + 18, "2. __syncthreads(): every thread's load lands")
    note = ("padding column: a column read touches 32 different banks" if pad
            else "no padding: a column read hits one bank 32 times")
    text(x_tile + (side + pad * cell) // 2, bar_y + 36, note, size=11)
    width = x_out + side + 20
    height = bar_y + 50
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="gloss-diagram" role="img" '
            f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" style="max-width:100%;height:auto" '
            f'aria-labelledby="gloss-tl-title gloss-tl-desc">'
            f'<title id="gloss-tl-title">Tile lifecycle, tile[{tile}][{tile + pad}]</title>'
            f'<desc id="gloss-tl-desc">{escape(alt)}</desc>'
            '<defs><marker id="gloss-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="currentColor"/>'
            '</marker></defs>')
    return head + "".join(parts) + "</svg>"


DIAGRAMS: dict[str, Diagram] = {
    "tile-lifecycle": Diagram(
        params={
            "tile": Param(32, 4, 64, "tile side in elements"),
            "pad": Param(0, 0, 1, "1 adds the padding column that avoids bank conflicts"),
        },
        presets={"default": {"tile": 32, "pad": 0}, "padded": {"tile": 32, "pad": 1}},
        draw=_tile_lifecycle,
    ),
}


def check_diagram(name: str, preset: str, params: Mapping[str, int]) -> list[tuple[str, str]]:
    """Problems as (problem, remedy) pairs; empty when the diagram can be drawn."""
    d = DIAGRAMS.get(name)
    if d is None:
        return [(f"unknown diagram '{name}'", f"use one of: {', '.join(sorted(DIAGRAMS))}")]
    out = []
    if preset not in d.presets:
        out.append((f"unknown preset '{preset}' for diagram '{name}'", f"use one of: {', '.join(d.presets)}"))
    for key, value in params.items():
        spec = d.params.get(key)
        if spec is None:
            out.append((f"unknown parameter '{key}' for diagram '{name}'", f"use one of: {', '.join(d.params)}"))
        elif not spec.low <= value <= spec.high:
            out.append((f"parameter '{key}' is {value}, outside {spec.low}..{spec.high}", f"{key}: {spec.doc}"))
    return out


def render_diagram(name: str, preset: str, params: Mapping[str, int], alt: str) -> str:
    d = DIAGRAMS[name]
    values = {k: p.default for k, p in d.params.items()} | d.presets.get(preset, {}) | dict(params)
    return d.draw(values, alt)
