"""Rendering embeds and value references from a :class:`ResultsView`: pure functions, cached per view.

Every function returns either what to show or a :class:`Failure` (problem and remedy words without a
place; :mod:`expand` adds ``path:line``). Nothing here decides whether a build fails; it only refuses
to show a figure that is not backed by a fresh, verified result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Literal

from site_plugins.measured import chart, fit, fmt, notes, tabs
from site_plugins.measured.columns import default_columns, figure, is_relative, relative_values
from site_plugins.measured.fmt import COLUMNS, TIMING_COLUMNS, Column
from site_plugins.measured.model import Provenance, Result, ResultsView, Row, Table
from site_plugins.measured.resolve import Failure as Failure
from site_plugins.measured.resolve import Shown as Shown
from site_plugins.measured.resolve import find_result as find_result
from site_plugins.measured.resolve import resolve as resolve
from site_plugins.measured.resolve import run_command as run_command
from site_plugins.measured.resolve import select_rows as select_rows
from site_plugins.measured.resolve import showable_nodes as showable_nodes

# Include paths (the experiment's folder, PyCUDA's bundled headers) say where files lay on the node, not
# how the code was compiled: readers get the flags that change the code ("-I{pycuda}/cuda" is the
# runner's placeholder for a machine's own install path).
_INCLUDE = re.compile(r"\s*-I\s*\S+")


def shown_flags(flags: str) -> str:
    return _INCLUDE.sub("", flags).strip()


def provenance_sentence(p: Provenance) -> str:
    """E.g. "NVIDIA H200, driver 580.159.04, CUDA 13.0 (V13.0.88), built with nvcc -O3 -arch=sm_90,
    captured 2026-12-02 on verification node h200-1"."""
    return (
        f"{p.gpu}, driver {p.driver}, CUDA {p.cuda} ({p.nvcc}), built with nvcc {shown_flags(p.flags)}, "
        f"captured {p.captured} on verification node {p.node}"
    )


def _values_key(result: Result, table: Table) -> str:
    return f"{result.experiment}/{table.size}/{result.node}"


def embed(
    view: ResultsView,
    experiment: str,
    *,
    node: str | None,
    size: str | None,
    kernels: Sequence[str] | None,
    columns: Sequence[Column] | None,
    first: str | None = None,
    author: bool = False,
) -> Shown | Failure:
    """Provenance sentence, table and chart for one table embed (cached per view and arguments): on
    ``node``, or, without one, on every node with a fresh result, a tab each, node ``first`` first (the
    node the page's prose quotes)."""
    key = (
        "embed",
        experiment,
        node,
        size,
        tuple(kernels) if kernels else None,
        tuple(columns) if columns else None,
        first,
        author,
    )
    hit = view.cache.get(key)
    if hit is None:
        if node is None:
            hit = _on_every_node(view, experiment, size=size, kernels=kernels, columns=columns, first=first,
                                 author=author)
        else:
            hit = _embed(view, experiment, node=node, size=size, kernels=kernels, columns=columns, author=author)
        view.cache[key] = hit
    return hit  # type: ignore[return-value]


def _on_every_node(
    view: ResultsView,
    experiment: str,
    *,
    size: str | None,
    kernels: Sequence[str] | None,
    columns: Sequence[Column] | None,
    first: str | None,
    author: bool = False,
) -> Shown | Failure:
    nodes = showable_nodes(view, experiment)
    if len(nodes) <= 1:  # one node, or none (then the one-node path says why nothing can be shown)
        return _embed(view, experiment, node=nodes[0] if nodes else None, size=size, kernels=kernels,
                      columns=columns, author=author)
    ordered = sorted(nodes, key=lambda n: (n != first, n))
    parts: list[Shown] = []
    for n in ordered:
        shown = _embed(view, experiment, node=n, size=size, kernels=kernels, columns=columns, author=author)
        if isinstance(shown, Failure):
            return shown
        parts.append(shown)
    html = tabs.tabs(experiment, [(n, view.gpu(n)) for n in ordered], [p.html for p in parts])
    return Shown(html, tuple(v for p in parts for v in p.values))


def _embed(
    view: ResultsView,
    experiment: str,
    *,
    node: str | None,
    size: str | None,
    kernels: Sequence[str] | None,
    columns: Sequence[Column] | None,
    author: bool = False,
) -> Shown | Failure:
    found = resolve(view, experiment, node, size)
    if isinstance(found, Failure):
        return found
    result, table = found
    rows = select_rows(result, table, kernels)
    if isinstance(rows, Failure):
        return rows
    cols = list(columns) if columns else default_columns(result, rows)
    shown_cols = relative_values(result, table, rows, cols)
    if isinstance(shown_cols, tuple):
        return Failure(*shown_cols)

    def fig(r: Row, c: Column) -> float | None:
        return shown_cols.figure(r, c)

    for c in cols:
        if all(fig(r, c) is None for r in rows):
            return _no_column(result, rows, c)
    assert result.provenance is not None, "a fresh result always has provenance"
    sentence = provenance_sentence(result.provenance)
    said = " ".join(
        s
        for s in (
            notes.copy_sentence(table, rows) if "pct_copy" in cols else "",
            notes.short_launch_sentence(rows) if "time" in cols else "",
        )
        if s
    )
    vkey = _values_key(result, table)
    values: list[str] = [f"{vkey} provenance: {sentence}" + (f". {said}" if said else "")]
    several = len({r.copy_ref for r in rows if r.pct_copy is not None}) > 1 and "pct_copy" in cols
    note_cells, legend = notes.numbered({r.kernel: notes.notes(r, several, cols) for r in rows})
    any_notes = bool(legend)
    headers = [shown_cols.headers[c] for c in cols]
    head = " ".join(f'<th class="gloss-num">{escape(h)}</th>' for h in headers)
    texts = {r.kernel: [notes.time_cell(r) if c == "time" else fmt.cell(c, fig(r, c)) for c in cols] for r in rows}
    # Where the table stacks its rows (fit.py): each cell then carries its column's header as a label.
    need = fit.need_rem(["Kernel", *headers, *(["Note"] if any_notes else [])],
                        [[r.kernel, *texts[r.kernel], *([note_cells[r.kernel]] if any_notes else [])] for r in rows])
    # Readers get the experiment's title; authors (the preview) also get its id, on hover.
    what = escape(result.title or experiment)
    caption = (f'<caption title="experiment {escape(experiment)}">' if author else "<caption>")
    out = [
        f'<div class="gloss-measured" data-experiment="{escape(experiment)}" '
        f'data-size="{escape(table.size)}" data-node="{escape(result.node)}" data-fit="{fit.fit_class(need)}">',
        # Out of the search index: the same sentence on every page that embeds the run (the Measurements
        # page is indexed); the table's caption, rows and figures are indexed.
        f'<p class="gloss-measured-provenance" data-search-exclude>{escape(sentence)}.'
        f'{" " + escape(said) if said else ""}</p>',
        f"<table>{caption}{what} at {fmt.size_label(table.size)}</caption> ",
        f"<thead><tr><th>Kernel</th> {head}{' <th>Note</th>' if any_notes else ''}</tr></thead> <tbody>",
    ]
    for r in rows:
        cells = []
        for c, h, text in zip(cols, headers, texts[r.kernel], strict=True):
            x = fig(r, c)
            cells.append(f'<td class="gloss-num" data-label="{escape(h)}">{text}</td>')
            if x is not None:
                k = notes.kernel_ms(r) if c == "time" else None
                unit = "pct_copy" if is_relative(c) else c  # a percentage, as "% of copy"
                kernel = f" (kernel {fmt.number(k)})" if k else ""
                values.append(f"{vkey} {r.kernel} {c}: {fmt.prose(unit, x)}{kernel}")
        note = (f'<td class="gloss-note" data-label="Note">{escape(note_cells[r.kernel])}</td>'
                if any_notes else "")
        mark = (' <span class="gloss-suspect-mark" title="suspect" data-search-exclude>\u26a0</span>'
                if r.suspect else "")
        mark += notes.noisy_mark([r])
        cls = ' class="gloss-suspect"' if r.suspect else ""
        # Cells apart, so that the search index reads each figure as a word of its own ("2,404", not
        # "0.02002,4041001"); a space between cells changes nothing on the page.
        out.append(f'<tr{cls}><td class="gloss-kernel"><code>{escape(r.kernel)}</code>{mark}</td> {" ".join(cells)}'
                   f"{' ' + note if note else ''}</tr> ")
    out.append("</tbody></table>")
    out.append(notes.legend_html(legend))
    metric = chart_metric(result, rows, cols)
    out.append(_chart(result, table, rows, metric) if metric is not None else "")
    out.append("</div>")
    return Shown("".join(out), tuple(values))


_CAPTION = re.compile(
    r'(<div class="gloss-measured" data-experiment="([^"]+)"[^>]*>(?:(?!<caption|</table>).)*)<caption>', re.S)


def with_author_ids(html: str) -> str:
    """A page's HTML as the preview shows it to authors: each table's caption (the experiment's title)
    names the experiment's id on hover, the id a directive and ``gloss measure`` take."""
    return _CAPTION.sub(lambda m: f'{m.group(1)}<caption title="experiment {m.group(2)}">', html)


def _no_column(result: Result, rows: Sequence[Row], column: Column) -> Failure:
    have = [c for c in COLUMNS if any(figure(r, c) is not None for r in rows)]
    what = COLUMNS[column][0] if column in COLUMNS else column
    return Failure(
        f"experiment '{result.experiment}' has no {what} figures",
        f"columns with figures: {', '.join(have)}",
    )


#: Columns that are shares of a rate: a table showing one of them shows that rate's story.
SHARES_OF: dict[Column, frozenset[str]] = {
    "gbps": frozenset({"pct_copy", "pct_peak"}),
    "shared_gbps": frozenset({"pct_shared_peak"}),
    "gflops": frozenset({"pct_fp32"}),
}


def chart_metric(result: Result, rows: Sequence[Row], cols: Sequence[Column]) -> Column | None:
    """What the chart plots: µs per launch where every row is a launch row; else a rate the table shows
    (the experiment's own first, or one of its shares such as % of copy), or no chart at all: a chart
    repeats a figure of the table, bigger, and never plots a quantity the embed left out (a pointer
    chase's GB/s under a table of its times and sectors)."""
    if rows and all(r.us_per_launch is not None for r in rows):
        return "us_per_launch"
    shown = set(cols)
    for own in (result.metric, "gflops", "shared_gbps", "gbps"):
        if own in shown:
            return own
    relative = any(is_relative(c) for c in cols)  # pct:ID divides the experiment's own metric
    if relative or SHARES_OF.get(result.metric, frozenset()) & shown:
        return result.metric
    for rate, shares in SHARES_OF.items():
        if shares & shown:
            return rate
    return None


def _chart(result: Result, table: Table, rows: Sequence[Row], metric: Column) -> str:
    unit = COLUMNS[metric][1]
    bars = [chart.Bar(r.kernel, figure(r, metric), fmt.number(figure(r, metric)), bool(r.suspect)) for r in rows]
    if all(b.value is None for b in bars):
        return ""  # nothing to plot (e.g. a FLOP rate of rows that declare no FLOPs): no empty chart
    # The copy ceilings bound traffic between the GPU and its memory: drawn only over such rows.
    device = metric == "gbps" and all(r.device_memory for r in rows)
    ceiling = table.ceiling_gbps if device else None
    ceiling_text = f"{table.ceiling_label} {fmt.quantity(ceiling, unit)}"
    memcpy = table.memcpy_gbps if device else None
    second = (memcpy, f"{table.memcpy_label} {fmt.quantity(memcpy, unit)}") if memcpy is not None else None
    # In words: the experiment's title (its id only where a spec has none), the size and the node.
    where = f"{result.title or result.experiment} at {fmt.size_label(table.size)} on {result.node}"
    parts = []
    for r, b in zip(rows, bars, strict=True):
        text = f"{r.kernel}: {fmt.quantity(b.value, unit)}"
        if r.pct_copy is not None and metric == "gbps":
            text += f" ({fmt.percent(r.pct_copy)} of copy)"
        if r.suspect:
            text += f" (suspect: {'; '.join(r.suspect)})"
        parts.append(text)
    lines = ([ceiling_text] if ceiling else []) + ([second[1]] if second else [])
    ceiling_desc = f" against the {' and the '.join(lines)}" if lines else ""
    what = COLUMNS[metric][0]  # the plotted column's own name: "GB/s", "Shared-memory GB/s", "µs per launch"
    lower = what[:1].lower() + what[1:] if what[1:2].islower() or what[1:2] == "-" else what
    desc = f"Bar chart of {lower} by kernel{ceiling_desc}. " + ". ".join(parts) + "."
    return chart.render(
        bars,
        unit=unit,
        title=f"{what} by kernel, {where}",
        desc=desc,
        ceiling=ceiling,
        ceiling_text=ceiling_text,
        second=second,
    )


ValueKind = Literal["value", "ratio"]


def value(
    view: ResultsView, experiment: str, *, node: str | None, size: str | None, kernel: str, column: Column
) -> Shown | Failure:
    """One measured value in prose, formatted as in the table."""
    found = resolve(view, experiment, node, size)
    if isinstance(found, Failure):
        return found
    result, table = found
    rows = select_rows(result, table, [kernel])
    if isinstance(rows, Failure):
        return rows
    x = figure(rows[0], column)
    if x is None:
        return Failure(
            f"kernel '{kernel}' of experiment '{experiment}' has no {COLUMNS[column][0]} figure",
            f"columns with figures: {', '.join(c for c in COLUMNS if figure(rows[0], c) is not None)}",
        )
    text = fmt.prose(column, x)
    kernel = rows[0].kernel  # the label, however the reference named the row
    title = f"{kernel} at {fmt.size_label(table.size)}, measured on {result.node}"  # words, no ids
    html = f'<span class="gloss-value" title="{escape(title)}">{_inline(text)}</span>{_marks(rows, column)}'
    return Shown(html, (f"{_values_key(result, table)} {kernel} {column}: {text}",), result.node)


def ratio(
    view: ResultsView,
    experiment: str,
    *,
    node: str | None,
    size: str | None,
    num: str,
    den: str,
    column: Column,
    as_percent: bool,
) -> Shown | Failure:
    """``num`` over ``den`` in one column, as "1.92×" or (``as_percent``) "52.1 %"."""
    found = resolve(view, experiment, node, size)
    if isinstance(found, Failure):
        return found
    result, table = found
    rows = select_rows(result, table, [num, den])
    if isinstance(rows, Failure):
        return rows
    a, b = figure(rows[0], column), figure(rows[1], column)
    for k, x in ((num, a), (den, b)):
        if x is None:
            return Failure(
                f"kernel '{k}' of experiment '{experiment}' has no {COLUMNS[column][0]} figure",
                f"columns with figures: "
                f"{', '.join(c for c in COLUMNS if figure(table.row(k) or rows[0], c) is not None)}",
            )
    assert a is not None and b is not None
    if b == 0:
        return Failure(
            f"kernel '{den}' of experiment '{experiment}' has a {COLUMNS[column][0]} of zero",
            "choose another denominator (den=)",
        )
    text = fmt.percent(100 * a / b) if as_percent else fmt.ratio(a / b)
    num, den = rows[0].kernel, rows[1].kernel
    title = f"{num} over {den} in {COLUMNS[column][0]} at {fmt.size_label(table.size)}, measured on {result.node}"
    html = f'<span class="gloss-value gloss-ratio" title="{escape(title)}">{_inline(text)}</span>{_marks(rows, column)}'
    return Shown(html, (f"{_values_key(result, table)} {num}/{den} {column}: {text}",), result.node)


def _marks(rows: Sequence[Row], column: Column) -> str:
    """A timing value from a suspect or noisy row carries the marks its table row carries."""
    return _suspect_mark(rows) + (notes.noisy_mark(rows) if column in TIMING_COLUMNS else "")


def _suspect_mark(rows: Sequence[Row]) -> str:
    """A value from a suspect row carries the same visible mark as its table row, with the reason."""
    reasons = [f"{r.kernel}: suspect: {'; '.join(r.suspect)}" for r in rows if r.suspect]
    if not reasons:
        return ""
    # A mark is no search word (the reason is in its title); material keeps <sup> tags in its index.
    return f'<sup class="gloss-suspect-mark" title="{escape(" / ".join(reasons))}" data-search-exclude>\u26a0</sup>'


_MD_SPECIAL = {c: f"&#{ord(c)};" for c in "*_[]`\\<>&|"}


def _inline(text: str) -> str:
    """Text safe inside an inline Markdown paragraph: HTML-escaped, Markdown punctuation as entities."""
    return "".join(_MD_SPECIAL.get(c, c) for c in text)


def cited(figure_text: str, source: str) -> str:
    return (
        f'<span class="gloss-cited">{_inline(figure_text)}<sup class="gloss-cited-source" '
        f'title="quoted from {escape(source)}">[{_inline(source)}]</sup></span>'
    )


def cited_table(source: str) -> str:
    """The source line under a table quoted from a cited source (a blank line first ends the table)."""
    return (f'\n<p class="gloss-cited-table">Source: {_inline(source)}. The table above is quoted from it, '
            "not measured here.</p>")


def example(figure_text: str) -> str:
    """A hypothetical figure in a worked example, marked so nobody takes it for a measurement."""
    return (f'<span class="gloss-example" title="a hypothetical figure for a worked example, not a measurement">'
            f'{_inline(figure_text)}<sup class="gloss-example-mark">example</sup></span>')


def banner(failure: Failure, *, preview: bool, what: str) -> str:
    """A visible block shown instead of a table that cannot be shown."""
    text = f"{failure.problem}; {failure.remedy}" if preview else failure.problem
    return (
        f'<div class="admonition danger gloss-measured-problem" role="alert">'
        f'<p class="admonition-title">Measurement not shown: {escape(what)}</p>'
        f"<p>{_inline(text)}</p></div>"
    )


def inline_problem(failure: Failure, *, preview: bool) -> str:
    """A visible mark shown instead of a value that cannot be shown."""
    text = failure.problem if preview else "measured value unavailable"
    return f'<mark class="gloss-measured-problem" title="{escape(failure.problem)}">\u26a0 {_inline(text)}</mark>'
