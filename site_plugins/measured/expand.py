"""``expand``: replace directives in a page body, lint hand-typed figures, report problems as values."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from site_plugins.files.messages import Problem
from site_plugins.measured import chart, columns, counterref, lint, observed, render, sweep
from site_plugins.measured import comparison as two_gpus
from site_plugins.measured.fmt import COLUMNS, Column
from site_plugins.measured.model import NOT_MEASURED, ResultsView
from site_plugins.measured.pagenode import figures_line, unknown_node
from site_plugins.measured.resolve import Failure, Shown, hint
from site_plugins.measured.syntax import Directive, SyntaxProblem, find_directives, parse, prose_segments

COLUMN_NAMES: tuple[str, ...] = tuple(COLUMNS)


@dataclass(frozen=True)
class Expansion:
    markdown: str
    problems: list[Problem] = field(default_factory=list)
    shown_values: tuple[str, ...] = ()  # every measured value as rendered, in page order (for sign-off)
    experiments: tuple[str, ...] = ()  # experiment ids this page embeds or quotes, in page order


@dataclass(frozen=True)
class _Spec:
    positional: str  # what the one positional argument is
    single: tuple[str, ...]  # options that take one value
    lists: tuple[str, ...] = ()  # options that take a comma-separated list
    required: tuple[str, ...] = ()
    example: str = ""

    @property
    def options(self) -> tuple[str, ...]:
        return self.single + self.lists


SPECS: dict[str, _Spec] = {
    "measured": _Spec(
        "an experiment id",
        ("size", "node"),
        ("rows", "cols"),
        example='{{ measured day13-transpose size=8192x8192 rows=copy,"tile[32][33]" }}',
    ),
    "value": _Spec(
        "an experiment id",
        ("size", "node", "row", "col"),
        required=("row",),
        example='{{ value day13-transpose size=8192x8192 row="tile[32][33]" col=gbps }}',
    ),
    "ratio": _Spec(
        "an experiment id",
        ("size", "node", "num", "den", "col", "as"),
        required=("num", "den"),
        example='{{ ratio day13-transpose size=8192x8192 num="tile[32][33]" den="tile[32][32]" }}',
    ),
    "counter": _Spec(
        "an experiment id",
        ("size", "node", "row", "metric"),
        required=("row", "metric"),
        example='{{ counter day13-transpose size=8192x8192 row="tile[32][32]" metric=conflict_ways_ld }}',
    ),
    "cited": _Spec(
        "the figure as the source states it",
        ("source",),
        required=("source",),
        example='{{ cited "4.8 TB/s" source="NVIDIA H200 datasheet" }}',
    ),
    # On its own line right under a Markdown table: the whole table is quoted from that source.
    "cited-table": _Spec(
        "the source's title",
        (),
        example='{{ cited-table "NVIDIA H200 datasheet" }}',
    ),
    "example": _Spec(
        "the hypothetical figure as written",
        (),
        example='{{ example "10 TB/s" }}',
    ),
    "observed": _Spec(
        "an experiment id",
        ("size", "node", "row", "field", "limit"),
        example=observed.EXAMPLE,
    ),
    # On a line of its own: one column of the named rows at every size (site_plugins/measured/sweep.py).
    "sweep": _Spec("an experiment id", ("node", "col"), ("rows", "sizes"), required=("col",), example=sweep.EXAMPLE),
}
DIRECTIVES = tuple(SPECS)


def check(d: Directive) -> Failure | None:
    """Problems of form (names, options, values), before any result is looked at."""
    spec = SPECS.get(d.name)
    short = "{{ " + d.name + " }}"
    if spec is None:
        return Failure(
            f"unknown directive '{short}'", f"{hint(d.name, DIRECTIVES)}directives: {', '.join(DIRECTIVES)}"
        )
    if len(d.positional) != 1:
        return Failure(
            f"'{short}' needs {spec.positional} as its one positional argument, got {len(d.positional)}",
            f"write it as {spec.example}",
        )
    for key, values in d.options.items():
        if key not in spec.options:
            return Failure(
                f"unknown option '{key}' in '{short}'",
                f"{hint(key, spec.options)}options: {', '.join(spec.options)}",
            )
        if key in spec.single and len(values) != 1:
            return Failure(
                f"option '{key}' in '{short}' takes one value, got {len(values)}",
                "give one value; quote it if it contains a comma",
            )
        if key in ("col", "cols"):
            for v in values:
                # A table may also show pct:ID (% of a named row); a single value has no such column.
                if v not in COLUMN_NAMES and not (key == "cols" and columns.is_relative(v)):
                    return Failure(
                        f"unknown column '{v}' in '{short}'",
                        f"{hint(v, COLUMN_NAMES)}columns: {', '.join(COLUMN_NAMES)}",
                    )
        if key == "as" and values[0] not in ("times", "percent"):
            return Failure(
                f"option 'as' in '{short}' must be times or percent, got '{values[0]}'",
                "write as=times (1.92×) or as=percent (52.1 %)",
            )
        if any(v.strip() == "" for v in values):
            return Failure(f"option '{key}' in '{short}' has an empty value", "write a value or leave the option out")
    for key in spec.required:
        if key not in d.options:
            return Failure(f"'{short}' needs {key}=", f"write it as {spec.example}")
    if d.name == "observed":
        return observed.check_form(d.options)
    return None


def _one(d: Directive, key: str) -> str | None:
    values = d.options.get(key)
    return values[0] if values else None


class _Page:
    """Accumulates one page's expansion; ``ids`` numbers charts so their aria ids are unique."""

    def __init__(
        self, path: str, first_line: int, view: ResultsView, preview: bool, sources: Sequence[str] | None,
        node: str | None = None,
        comparison: str | None = None,
    ) -> None:
        self.comparison = comparison  # the GPU comparison page, relative to this page (None: no link)
        # The node prose figures come from: the entry's own, else the plugin's default (None: the one node;
        # a default that is not registered is reported once, against mkdocs.yml, and left aside here).
        default = view.default_node if view.default_node in view.nodes else None
        self.node = node or default
        # Why the entry's node cannot be quoted (reported once, where it is named); its figures are then marked.
        self.bad_node = unknown_node(view, node) if node else None
        self.quoted: dict[str, None] = {}  # nodes prose figures were read from, in page order
        self.path = path
        self.first_line = first_line
        self.view = view
        self.preview = preview
        self.sources = sources
        self.problems: list[Problem] = []
        self.values: list[str] = []
        self.experiments: dict[str, None] = {}
        self.charts = 0

    def problem(self, line: int, failure: Failure) -> None:
        self.problems.append(Problem(self.path, self.first_line + line, failure.problem, failure.remedy))

    def place(self, shown: Shown) -> str:
        self.values.extend(shown.values)
        if chart.ID not in shown.html:
            return shown.html
        self.charts += 1
        return shown.html.replace(chart.ID, f"gloss-measured-{self.charts}")

    def block(self, d: Directive) -> str:
        experiment = d.positional[0]
        self.experiments.setdefault(experiment, None)
        rows = d.options.get("rows")
        cols = d.options.get("cols")
        if d.name == "sweep":
            sizes = d.options.get("sizes")
            found = sweep.sweep(self.view, experiment, node=_one(d, "node") or self.node,
                                kernels=list(rows) if rows else None,
                                column=_one(d, "col") or "", sizes=list(sizes) if sizes else None)
            if isinstance(found, Failure):
                self.problem(d.line, found)
                return render.banner(found, preview=self.preview, what=experiment)
            return self.place(found)
        shown = render.embed(
            self.view,
            experiment,
            node=_one(d, "node"),
            size=_one(d, "size"),
            kernels=list(rows) if rows else None,
            columns=[c for c in cols] if cols else None,
            first=self.node if self.bad_node is None else None,
            author=self.preview,
        )
        if isinstance(shown, Failure):
            self.problem(d.line, shown)
            return render.banner(shown, preview=self.preview, what=experiment)
        html = self.place(shown)
        if self.comparison is None or _one(d, "node") is not None:
            return html
        # Where the two GPUs differ on these rows, a generated line says how and links to the reasons.
        line = two_gpus.embed_line(self.view, experiment, _one(d, "size"), list(rows) if rows else None,
                                     self.comparison)
        return f"{html}\n\n{line}" if line else html

    def inline(self, d: Directive) -> str:
        if d.name == "example":
            return render.example(d.positional[0])
        if d.name in ("cited", "cited-table"):
            source = (_one(d, "source") or "") if d.name == "cited" else d.positional[0]
            if self.sources is not None and source not in self.sources:
                listing = ", ".join(f"'{s}'" for s in self.sources) if self.sources else "none yet"
                self.problem(
                    d.line,
                    Failure(
                        f"cited source '{source}' is not one of this entry's sources",
                        f"{hint(source, self.sources)}add it under 'sources:' in the "
                        f"front matter or name one of: {listing}",
                    ),
                )
            return render.cited(d.positional[0], source) if d.name == "cited" else render.cited_table(source)
        experiment = d.positional[0]
        self.experiments.setdefault(experiment, None)
        col = _one(d, "col")
        if self.bad_node is not None and _one(d, "node") is None:
            return render.inline_problem(self.bad_node, preview=self.preview)
        common = {"node": _one(d, "node") or self.node, "size": _one(d, "size")}
        shown: Shown | Failure
        limit = _one(d, "limit")
        if d.name == "observed" and limit is not None:
            shown = observed.limit_value(self.view, experiment, node=common["node"], limit=limit)
        elif d.name == "observed":
            row, field_name = _one(d, "row") or "", _one(d, "field") or ""
            shown = observed.row_value(self.view, experiment, row=row, field=field_name, **common)
        elif d.name == "counter":
            shown = counterref.counter(
                self.view, experiment, kernel=_one(d, "row") or "", metric=_one(d, "metric") or "", **common
            )
        elif d.name == "value":
            kernel = _one(d, "row") or ""
            column = col if col else self._metric(experiment)
            shown = render.value(self.view, experiment, kernel=kernel, column=column, **common)
        else:
            column = col if col else self._metric(experiment)
            shown = render.ratio(
                self.view,
                experiment,
                num=_one(d, "num") or "",
                den=_one(d, "den") or "",
                column=column,
                as_percent=_one(d, "as") == "percent",
                **common,
            )
        if isinstance(shown, Failure):
            self.problem(d.line, shown)
            return render.inline_problem(shown, preview=self.preview)
        self.quoted.setdefault(shown.node, None)
        return self.place(shown)

    def _metric(self, experiment: str) -> Column:
        results = [r for r in self.view.for_experiment(experiment) if r.state not in NOT_MEASURED]
        return results[0].metric if results else "gbps"


def expand(
    markdown: str,
    *,
    path: str,
    first_line: int,
    view: ResultsView,
    preview: bool,
    sources: Sequence[str] | None = None,
    node: str | None = None,
    node_line: int = 0,
    comparison: str | None = None,
) -> Expansion:
    """Replace directives in ``markdown`` (a page body whose first line is file line ``first_line`` of
    repo-relative ``path``) and lint hand-typed figures. ``sources``: the titles of the entry's cited
    sources; when given, ``{{ cited ... source= }}`` must name one of them. ``node``: the entry's
    ``node:`` (written on file line ``node_line``), the node its prose figures come from; default: the
    view's default node. ``comparison``: the GPU comparison page as a link from this page; given, a
    table shown on two GPUs that differ by more than 10 % is followed by an "On the two GPUs" line."""
    page = _Page(path, first_line, view, preview, sources, node, comparison)
    if node and page.bad_node is not None:
        page.problems.append(Problem(path, node_line, page.bad_node.problem, page.bad_node.remedy))
    if "{{" not in markdown and not lint.FIGURE.search(markdown) and "|" not in markdown:
        return Expansion(markdown, page.problems)
    lines = markdown.split("\n")
    out: list[str] = []
    prose_lines: set[int] = set()
    edits: dict[int, list[tuple[int, int, str]]] = {}
    blocks: dict[int, str] = {}
    quoted = cited_tables(lines)  # line of each {{ cited-table }} -> the lines of the table above it
    exempt = {i for rows in quoted.values() for i in rows}  # quoted from a source: no hand-typed figures
    prose: dict[int, list[tuple[int, int]]] = {}  # line -> prose spans
    shown: dict[int, list[tuple[int, int]]] = {}  # line -> spans of directives that put a figure in prose
    for seg in prose_segments(lines):
        prose_lines.add(seg.line)
        prose.setdefault(seg.line, []).append((seg.start, seg.end))
        text = lines[seg.line]
        cursor = seg.start
        for start, end, inside in find_directives(text, seg):
            if seg.line not in exempt:
                _lint_span(page, text, seg.line, cursor, start, edits)
            cursor = end
            try:
                d = parse(inside, seg.line, start, end)
            except SyntaxProblem as exc:
                page.problem(seg.line, Failure(exc.problem, exc.remedy))
                edits.setdefault(seg.line, []).append((start, end, _marked(text[start:end])))
                continue
            failure = check(d)
            if failure is not None:
                page.problem(seg.line, failure)
                edits.setdefault(seg.line, []).append((start, end, _marked(d.raw)))
            elif d.name == "cited-table" and seg.line not in quoted:
                page.problem(seg.line, Failure(
                    "'{{ cited-table }}' must stand alone on the line right under a Markdown table",
                    "put it on its own line directly below the table's last row"))
                edits.setdefault(seg.line, []).append((start, end, _marked(d.raw)))
            elif d.name in ("measured", "sweep"):
                if text[:start].strip() or text[end:].strip():
                    page.problem(
                        seg.line,
                        Failure(
                            f"'{{{{ {d.name} }}}}' must stand alone on its line",
                            "put the table embed on a line of its own",
                        ),
                    )
                    edits.setdefault(seg.line, []).append((start, end, _marked(d.raw)))
                else:
                    blocks[seg.line] = page.block(d)
            else:
                edits.setdefault(seg.line, []).append((start, end, page.inline(d)))
                shown.setdefault(seg.line, []).append((start, end))
        if seg.line not in exempt:
            _lint_span(page, text, seg.line, cursor, seg.end, edits)
    _lint_tables(page, lines, prose_lines - exempt)
    for line, col, number in _continuations(lines, prose, shown):
        page.problems.append(lint.figure_problem(page.path, page.first_line + line, number))
        if page.preview:
            edits.setdefault(line, []).append((col, col + len(number), _marked(number)))
    for i, text in enumerate(lines):
        if i in blocks:
            indent = text[: len(text) - len(text.lstrip())]
            if out and out[-1].strip():
                out.append("")
            out.append(indent + blocks[i].replace("\n", "\n" + indent))  # (a line under the table too)
            out.append("")
            continue
        for start, end, new in sorted(edits.get(i, ()), reverse=True):
            text = text[:start] + new + text[end:]
        if i - 1 in blocks and not text.strip():
            continue  # the block already ends with a blank line
        out.append(text)
    page.problems.sort(key=lambda p: p.line)
    said = figures_line(view, sorted(page.quoted, key=lambda n: n != page.node))
    body = "\n".join(out)
    return Expansion(f"{said}\n\n{body}" if said else body, page.problems, tuple(page.values),
                     tuple(page.experiments))


def _lint_span(
    page: _Page, text: str, line: int, start: int, end: int, edits: dict[int, list[tuple[int, int, str]]]
) -> None:
    if start >= end:
        return
    chunk = text[start:end]
    unclosed = chunk.find("{{")
    if unclosed >= 0:
        page.problem(line, Failure("unclosed '{{'", "end the directive with '}}' on the same line"))
        edits.setdefault(line, []).append((start + unclosed, end, _marked(chunk[unclosed:])))
        chunk = chunk[:unclosed]
    for m in lint.FIGURE.finditer(chunk):
        page.problems.append(lint.figure_problem(page.path, page.first_line + line, m.group(0)))
        if page.preview:
            edits.setdefault(line, []).append((start + m.start(), start + m.end(), _marked(m.group(0))))


_CITED_TABLE = re.compile(r"^[ \t]*\{\{\s*cited-table\b.*\}\}[ \t]*$")


def cited_tables(lines: list[str]) -> dict[int, list[int]]:
    """Each line holding only a ``{{ cited-table }}`` directly under a Markdown table (header, separator,
    rows), with the table's line numbers."""
    out: dict[int, list[int]] = {}
    for i, text in enumerate(lines):
        if not _CITED_TABLE.match(text):
            continue
        j = i
        while j > 0 and "|" in lines[j - 1] and lines[j - 1].strip():
            j -= 1
        if j < i and lint.table_unit_columns(lines, j) is not None:
            out[i] = list(range(j, i))
    return out


def _continuations(lines: list[str], prose: dict[int, list[tuple[int, int]]],
                   shown: dict[int, list[tuple[int, int]]]) -> list[tuple[int, int, str]]:
    """(line, column, text) of bare numbers that continue a figure ("65.2 GB/s become 118.6"), sentence by
    sentence across lines; ``shown``: spans of directives that put a figure in the prose."""
    masked = []
    for i, text in enumerate(lines):
        chars = [lint.NOT_PROSE] * len(text)
        for a, b in prose.get(i, ()):
            chars[a:b] = text[a:b]
        for a, b in shown.get(i, ()):
            chars[a:b] = lint.A_FIGURE * (b - a)
        masked.append("".join(chars))
    starts = [0]
    for text in masked:
        starts.append(starts[-1] + len(text) + 1)
    out = []
    for a, b in lint.continuations("\n".join(masked)):
        line = bisect.bisect_right(starts, a) - 1
        col = a - starts[line]
        out.append((line, col, lines[line][col:col + b - a]))
    return out


def _lint_tables(page: _Page, lines: list[str], prose_lines: set[int]) -> None:
    i = 0
    n = len(lines)
    while i < n:
        if i in prose_lines and "|" in lines[i]:
            units = lint.table_unit_columns(lines, i)
            if units is not None and any(units):
                j = i + 2
                while j < n and j in prose_lines and "|" in lines[j]:
                    for cell in lint.numeric_cells(lines[j], units):
                        page.problems.append(lint.figure_problem(page.path, page.first_line + j, cell))
                    j += 1
                i = j
                continue
        i += 1


def _marked(raw: str) -> str:
    return f'<mark class="gloss-measured-problem">{render._inline(raw)}</mark>'


def lint_figures(text: str, *, path: str, first_line: int, lede: str | None = None) -> list[Problem]:
    """Hand-typed figures in text that is shown but never expanded (a term's definition, a lesson's
    summary): the same rule and words as in a body, where no directive can supply the number. ``lede``:
    the front-matter key the text comes from; no directive is expanded there, so the remedy says to move
    the figure to the body, and a directive written there is a problem of its own (it would show as written)."""
    lines = text.split("\n")
    out = []
    prose: dict[int, list[tuple[int, int]]] = {}

    def problem(line: int, figure: str) -> Problem:
        if lede is None:
            return lint.figure_problem(path, line, figure)
        return Problem(path, line, f"hand-typed figure '{figure}' in the {lede}", lint.lede_remedy(lede))

    for seg in prose_segments(lines):
        prose.setdefault(seg.line, []).append((seg.start, seg.end))
        for m in lint.FIGURE.finditer(lines[seg.line], seg.start, seg.end):
            out.append(problem(first_line + seg.line, m.group(0)))
        if lede is not None:
            out += [Problem(path, first_line + seg.line, f"directive '{raw}' in the {lede}, which is shown as "
                                                         "written: no directive is expanded there",
                            lint.lede_remedy(lede))
                    for raw in (lines[seg.line][a:b] for a, b, _ in find_directives(lines[seg.line], seg))]
    out += [problem(first_line + line, number) for line, _, number in _continuations(lines, prose, {})]
    return sorted(out, key=lambda p: p.line)
