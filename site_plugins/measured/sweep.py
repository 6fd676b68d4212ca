"""``{{ sweep }}``: one column of an experiment's rows across all its sizes, as one table and one chart.

A table embed shows one size; an experiment whose point is how a figure changes with the size (a
bandwidth sweep from 1 MiB to 4 GiB, a pointer chase through 4 KiB to 32 MiB) needs every size side by
side. ``{{ sweep EXP rows=a,b col=gbps }}`` gives a table with one line per size (in the spec's order)
and one column per named row, and a bar chart with one bar per size and row; a suspect row's cell and
bar are marked as in a table embed, with its reasons in the cell's title. The same fresh-result rule as
every embed applies: anything else is a :class:`Failure`.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from site_plugins.measured import chart, fmt
from site_plugins.measured.columns import figure
from site_plugins.measured.fmt import COLUMNS, Column
from site_plugins.measured.model import ResultsView, Row
from site_plugins.measured.resolve import Failure, Shown, find_result, hint, select_rows

EXAMPLE = "{{ sweep chase-latency node=h200-1 rows=chase col=ns_per_step }}"


def sweep(
    view: ResultsView,
    experiment: str,
    *,
    node: str | None,
    kernels: Sequence[str] | None,
    column: Column,
    sizes: Sequence[str] | None = None,
) -> Shown | Failure:
    """Provenance sentence, a size-by-row table of ``column`` and its chart (cached per view and arguments)."""
    key = ("sweep", experiment, node, tuple(kernels or ()), column, tuple(sizes or ()))
    hit = view.cache.get(key)
    if hit is None:
        hit = _sweep(view, experiment, node=node, kernels=kernels, column=column, sizes=sizes)
        view.cache[key] = hit
    return hit  # type: ignore[return-value]


def _sweep(
    view: ResultsView,
    experiment: str,
    *,
    node: str | None,
    kernels: Sequence[str] | None,
    column: Column,
    sizes: Sequence[str] | None,
) -> Shown | Failure:
    from site_plugins.measured.render import provenance_sentence  # render imports nothing from here

    result = find_result(view, experiment, node)
    if isinstance(result, Failure):
        return result
    known = [t.size for t in result.tables]
    for s in sizes or ():
        if s not in known:
            return Failure(f"experiment '{experiment}' has no size '{s}'", f"{hint(s, known)}sizes: {', '.join(known)}")
    tables = [t for t in result.tables if sizes is None or t.size in sizes]
    grid: list[tuple[str, list[Row]]] = []
    for t in tables:
        rows = select_rows(result, t, kernels)
        if isinstance(rows, Failure):
            return rows
        grid.append((t.size, rows))
    if not grid or all(figure(r, column) is None for _, rows in grid for r in rows):
        return Failure(
            f"experiment '{experiment}' has no {COLUMNS[column][0]} figures",
            "choose a column its rows have, e.g. col=time",
        )
    assert result.provenance is not None, "a fresh result always has provenance"
    sentence = provenance_sentence(result.provenance)
    header, unit = COLUMNS[column]
    labels = [r.kernel for r in grid[0][1]]
    vkey = f"{experiment}/{result.node}"
    values = [f"{vkey} sweep provenance: {sentence}"]
    out = [
        f'<div class="gloss-measured gloss-sweep" data-experiment="{escape(experiment)}" '
        f'data-node="{escape(result.node)}">',
        f'<p class="gloss-measured-provenance" data-search-exclude>{escape(sentence)}.</p>',
        f"<table><caption>{escape(experiment)}: {escape(header)} by size</caption> <thead><tr><th>Size</th> "
        + " ".join(f'<th class="gloss-num">{escape(label)}</th>' for label in labels)
        + "</tr></thead> <tbody>",
    ]
    bars: list[chart.Bar] = []
    for size, rows in grid:
        cells = []
        for r in rows:
            x = figure(r, column)
            mark = ' <span class="gloss-suspect-mark" data-search-exclude>\u26a0</span>' if r.suspect else ""
            title = f' title="{escape("suspect: " + "; ".join(r.suspect))}"' if r.suspect else ""
            cells.append(f'<td class="gloss-num"{title}>{fmt.cell(column, x)}{mark}</td>')
            bars.append(chart.Bar(f"{fmt.size_label(size)}: {r.kernel}", x, fmt.number(x), bool(r.suspect)))
            if x is not None:
                values.append(f"{vkey} {size} {r.kernel} {column}: {fmt.prose(column, x)}")
        out.append(f"<tr><td>{escape(fmt.size_label(size))}</td> {' '.join(cells)}</tr> ")
    out.append("</tbody></table>")
    desc = "Bar chart of " + unit + " by size and kernel. " + ". ".join(
        f"{b.label}: {fmt.quantity(b.value, unit)}" + (" (suspect)" if b.suspect else "") for b in bars) + "."
    out.append(chart.render(bars, unit=unit, title=f"{header} by size, {experiment} on {result.node}", desc=desc,
                            ceiling=None, ceiling_text=""))
    out.append("</div>")
    return Shown("".join(out), tuple(values))
