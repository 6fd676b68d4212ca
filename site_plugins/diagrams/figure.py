"""Named diagrams: the figure's HTML, with an inline SVG of its initial state.

Inline SVG (not an <img>) so the figure takes the page's colours through ``currentColor`` and
mkdocs-material's CSS variables, in light and dark, and costs no request. Without JavaScript the figure
is that SVG, its text alternative and the step's sentence. With JavaScript,
``site_plugins/assets/tile-lifecycle.js`` reveals the controls (tile size, step) and redraws the same
picture with the same geometry as :func:`draw`; every number it shows (banks, conflict ways, the step
sentences) comes from :mod:`site_plugins.diagrams.tilemodel`, embedded as JSON in the figure.

A preset is a named set of parameters; an entry may override single parameters.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import escape

from site_plugins.diagrams import tilemodel as tm


@dataclass(frozen=True)
class Param:
    default: int
    low: int
    high: int
    doc: str
    choices: tuple[int, ...] = ()  # when set, the only allowed values


@dataclass(frozen=True)
class Diagram:
    params: dict[str, Param]
    presets: dict[str, dict[str, int]]
    draw: Callable[[Mapping[str, int], str], str]


# Geometry, shared with the script (which reads it from the figure's data): 400 units wide so that
# 13-unit text stays at 11 CSS px or more in a 340 px column.
W = 400
PANEL = 112  # side of the input and output panels; the tile panel is PANEL wide plus the padding column
Y_SUMMARY = 14  # the line that states the block shape, rows per thread and barriers
Y_TITLES = 34
TOP = 44
X_IN, X_TILE, X_OUT = 0.0, 140.0, 288.0
Y_BAR = TOP + PANEL + 14
Y_BANKS = Y_BAR + 34
BANK_W = 12
BANK_H = 3  # units per lane on a bank
HEIGHT = Y_BANKS + 32 * BANK_H + 26


def _n(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _cell(r: int, c: int) -> str:
    return f"M{c} {r}h1v1h-1z"


def _state(p: Mapping[str, int]) -> tm.TileState:
    return tm.TileState(tile=p["tile"], pad=p["pad"], step=p["step"], cut_x=p["cut_x"], cut_y=p["cut_y"],
                        guard_barrier=bool(p["guard_barrier"]), block_y=p["block_y"])


def outline(s: tm.TileState) -> list[tuple[int, int]]:
    """Warp 0's cells of the tile over all its passes (outlined in the drawing)."""
    return [c for acc in tm.warp_passes(s) for c in acc.cells]


def scene(s: tm.TileState) -> str:
    """The SVG's drawn content (everything inside the <svg> element but its title and description)."""
    t, name = s.tile, tm.STEPS[s.step]
    cell = PANEL / t
    out: list[str] = []

    def rect(x: float, y: float, w: float, h: float, cls: str, extra: str = "") -> None:
        out.append(f'<rect class="{cls}" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}"{extra}/>')

    def text(x: float, y: float, words: str, anchor: str = "start") -> None:
        out.append(f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}">{escape(words)}</text>')

    text(W / 2, Y_SUMMARY, tm.summary(s), "middle")
    text(X_IN, Y_TITLES, "global in")
    text(X_TILE + (PANEL + s.pad * cell) / 2, Y_TITLES, f"tile[{t}][{s.width}]", "middle")
    text(W, Y_TITLES, "global out", "end")
    for x0 in (X_IN, X_OUT):
        rect(x0, TOP, PANEL, PANEL, "tl-frame")
    # Parts of the edge tile past the matrix: hatched in the input (cols, rows) and, transposed, the output.
    for x0, cut_w, cut_h in ((X_IN, s.cut_x, s.cut_y), (X_OUT, s.cut_y, s.cut_x)):
        vw, vh = t - min(cut_w, t - 1), t - min(cut_h, t - 1)
        if vw < t:
            rect(x0 + vw * cell, TOP, (t - vw) * cell, PANEL, "tl-off")
        if vh < t:
            rect(x0, TOP + vh * cell, vw * cell, (t - vh) * cell, "tl-off")
    # Rows, in cell units: the load brings every valid input row at once; the store writes each warp's
    # column of the tile as a row of the output.
    for x0, rows, cols, when in ((X_IN, s.valid_y, s.valid_x, "load"), (X_OUT, s.valid_x, s.valid_y, "store")):
        if name == when:
            out.append(f'<g transform="translate({_n(x0)} {TOP}) scale({_n(cell)})">')
            out += [f'<rect class="tl-row" x="0" y="{_n(r + 0.1)}" width="{cols}" height="0.8"/>' for r in range(rows)]
            out.append("</g>")
    # The tile, in tile-cell units: each loaded cell in its bank's colour (one path per bank); cells the
    # load guard skipped stay empty or, if the guard also encloses the barrier, are marked as garbage
    # once the barrier is passed.
    by_bank: dict[int, list[str]] = {}
    garbage: list[str] = []
    for r in range(t):
        for c in range(t):
            if c < s.valid_x and r < s.valid_y:
                by_bank.setdefault(tm.bank(s, r, c), []).append(_cell(r, c))
            elif s.guard_barrier and s.step >= 1:
                garbage.append(_cell(r, c))
    out.append(f'<g class="tl-tile" transform="translate({_n(X_TILE)} {TOP}) scale({_n(cell)})">')
    for b in sorted(by_bank):
        out.append(f'<path class="tl-bank" style="--b:{b}" d="{"".join(by_bank[b])}"/>')
    if garbage:
        out.append(f'<path class="tl-garbage" d="{"".join(garbage)}"/>')
    if s.pad:
        out.append(f'<rect class="tl-pad" x="{t}" y="0" width="{s.pad}" height="{t}"/>')
    acc = tm.warp_access(s)
    cells = outline(s)
    if cells:  # warp 0's cells over all its passes, outlined
        out.append(f'<path class="tl-warp" d="{"".join(_cell(r, c) for r, c in cells)}"/>')
    out.append(f'<rect class="tl-frame" x="0" y="0" width="{s.width}" height="{t}"/></g>')
    mid = TOP + PANEL / 2
    if name == "load":
        out.append(f'<line class="tl-arrow" x1="{_n(X_IN + PANEL + 4)}" y1="{_n(mid)}" x2="{_n(X_TILE - 6)}" '
                   f'y2="{_n(mid)}" marker-end="url(#tl-head)"/>')
    if name == "store":
        out.append(f'<line class="tl-arrow" x1="{_n(X_TILE + s.width * cell + 4)}" y1="{_n(mid)}" '
                   f'x2="{_n(X_OUT - 6)}" y2="{_n(mid)}" marker-end="url(#tl-head)"/>')
    if name == "barrier":
        cls = "tl-barrier tl-barrier--broken" if s.guard_barrier and tm.absent_threads(s) else "tl-barrier"
        out.append(f'<line class="{cls}" x1="0" y1="{_n(Y_BAR)}" x2="{W}" y2="{_n(Y_BAR)}"/>')
        text(W / 2, Y_BAR + 18, "__syncthreads()", "middle")
    if acc is not None:  # warp 0's lanes in its first pass, stacked on their banks
        counts = [0] * tm.BANKS
        for b in acc.banks:
            counts[b] += 1
        base = Y_BANKS + tm.WARP * BANK_H
        for b, n in enumerate(counts):
            x = 8 + b * BANK_W
            rect(x, Y_BANKS, BANK_W - 2, tm.WARP * BANK_H, "tl-slot")
            if n:
                rect(x, base - n * BANK_H, BANK_W - 2, n * BANK_H, "tl-bank", f' style="--b:{b}"')
        text(8, base + 16, "bank 0")
        text(8 + 32 * BANK_W - 2, base + 16, "31", "end")
        text(W / 2, base + 16, strip_label(acc.ways), "middle")
    return "".join(out)


def strip_label(ways: int) -> str:
    return f"warp 0: {ways}-way conflict" if ways > 1 else "warp 0: no conflict"


def _svg(s: tm.TileState, alt: str) -> str:
    # Width: the column's, capped (as the charts are) where its 13-unit text reaches the body text size.
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="gloss-diagram" role="img" '
            f'viewBox="0 0 {W} {HEIGHT}" width="100%" font-size="13" fill="currentColor" '
            f'aria-labelledby="gloss-tl-title gloss-tl-desc">'
            f'<title id="gloss-tl-title">Tile lifecycle, tile[{s.tile}][{s.width}]</title>'
            f'<desc id="gloss-tl-desc">{escape(alt)}</desc>'
            '<defs><marker id="tl-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="currentColor"/></marker></defs>'
            f'<g class="tl-scene">{scene(s)}</g></svg>')


def data(s: tm.TileState) -> dict[str, object]:
    """What the script needs to redraw any tile size and step: the parameters and, per tile size, the
    figure's stated numbers (block shape, rows per thread, barriers) and whether the barrier is broken,
    and per step warp 0's cells over all passes, the banks of its first pass, the strip's label and the
    step's sentence."""
    states: dict[str, list[dict[str, object]]] = {}
    summaries: dict[str, str] = {}
    broken: dict[str, bool] = {}
    for t in tm.TILE_SIZES:
        steps: list[dict[str, object]] = []
        for i in range(len(tm.STEPS)):
            st = tm.TileState(t, s.pad, i, s.cut_x, s.cut_y, s.guard_barrier, s.block_y)
            acc = tm.warp_access(st)
            steps.append({"text": tm.describe(st), "label": strip_label(acc.ways) if acc else "",
                          "outline": [list(c) for c in outline(st)],
                          "banks": list(acc.banks) if acc else []})
        states[str(t)] = steps
        summaries[str(t)] = tm.summary(tm.TileState(t, block_y=s.block_y))
        broken[str(t)] = bool(s.guard_barrier and tm.absent_threads(tm.TileState(t, s.pad, 0, s.cut_x, s.cut_y,
                                                                                 block_y=s.block_y)))
    return {"tile": s.tile, "pad": s.pad, "step": s.step, "cut_x": s.cut_x, "cut_y": s.cut_y,
            "guard_barrier": s.guard_barrier, "broken": broken,
            "steps": list(tm.STEPS), "sizes": list(tm.TILE_SIZES), "summaries": summaries, "states": states}


def _tile_lifecycle(p: Mapping[str, int], alt: str) -> str:
    s = _state(p)
    sizes = list(tm.TILE_SIZES)
    at = sizes.index(s.tile) if s.tile in sizes else len(sizes) - 1
    steps = "".join(
        f'<li><button type="button" class="tl-step" data-step="{i}" aria-pressed="{str(i == s.step).lower()}" '
        f'aria-label="step {i + 1}, {name}">{name}</button></li>' for i, name in enumerate(tm.STEPS))
    controls = (
        '<div class="tl-controls" hidden>'
        f'<label class="tl-size">Tile size <input type="range" min="0" max="{len(sizes) - 1}" step="1" '
        f'value="{at}" aria-valuetext="{s.tile} by {s.tile}"> <output>{s.tile} × {s.tile}</output></label>'
        '<div class="tl-stepper" role="group" aria-label="Step">'
        '<button type="button" class="tl-prev" aria-label="Previous step">◀</button>'
        f'<ol class="tl-steps">{steps}</ol>'
        '<button type="button" class="tl-next" aria-label="Next step">▶</button></div></div>')
    payload = escape(json.dumps(data(s), separators=(",", ":")), quote=True)
    return (f'<div class="gloss-tl" data-tl="{payload}">{controls}{_svg(s, alt)}'
            f'<p class="tl-readout" aria-live="polite">{escape(tm.describe(s))}</p></div>')


_SIZE = f"tile side in elements, one of {', '.join(map(str, tm.TILE_SIZES))}"
DIAGRAMS: dict[str, Diagram] = {
    "tile-lifecycle": Diagram(
        params={
            "tile": Param(32, 8, 32, _SIZE, tm.TILE_SIZES),
            "pad": Param(0, 0, 1, "1 adds the padding column that avoids bank conflicts"),
            "step": Param(0, 0, len(tm.STEPS) - 1, "the step shown first: "
                          + ", ".join(f"{i} {name}" for i, name in enumerate(tm.STEPS))),
            "block_y": Param(tm.BLOCK_Y, 1, 32, "threads per block in y (blockDim.y, the code's ROWS_PER_PASS); "
                             "the block is tile × block_y threads, each handling tile / block_y rows",
                             (1, 2, 4, 8, 16, 32)),
            "cut_x": Param(0, 0, 31, "columns of the tile past the matrix's right edge (an edge tile)"),
            "cut_y": Param(0, 0, 31, "rows of the tile past the matrix's bottom edge (an edge tile)"),
            "guard_barrier": Param(0, 0, 1, "1 puts the barrier inside the bounds guard (the bug)"),
        },
        presets={
            "tile-correct": {},
            "default": {},
            "bank-conflict": {"step": 2},
            "padded": {"pad": 1, "step": 2},
            "ragged-edge": {"pad": 1, "cut_x": 5, "cut_y": 2},
            "guard-encloses-barrier": {"pad": 1, "cut_x": 5, "step": 1, "guard_barrier": 1},
        },
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
        elif spec.choices and value not in spec.choices:
            out.append((f"parameter '{key}' is {value}, not one of {', '.join(map(str, spec.choices))}",
                        f"{key}: {spec.doc}"))
        elif not spec.low <= value <= spec.high:
            out.append((f"parameter '{key}' is {value}, outside {spec.low}..{spec.high}", f"{key}: {spec.doc}"))
    return out


def render_diagram(name: str, preset: str, params: Mapping[str, int], alt: str) -> str:
    d = DIAGRAMS[name]
    values = {k: p.default for k, p in d.params.items()} | d.presets.get(preset, {}) | dict(params)
    return d.draw(values, alt)
