"""The generated Measurements page: every experiment, per node, with its state and the pages showing it."""

from __future__ import annotations

from html import escape

from site_plugins.measured.model import Result, ResultsView
from site_plugins.measured.render import provenance_sentence

INTRO = (
    "Every experiment the site knows of, on each registered verification node, and the pages that show "
    "its figures. A page may show a result only while it is **fresh**: its summary recomputes from its raw "
    "samples, its source and spec are unchanged since the run, its node is registered and every kernel "
    "passed its correctness check. Any other state fails the build of a page that embeds it."
)

STATE_WORDS = {
    "fresh": "fresh",
    "incomplete": "incomplete (counters missing)",
    "stale": "stale",
    "failed": "failed",
    "tampered": "tampered",
    "unregistered": "unregistered node",
    "missing": "missing",
    "pending": "pending (not yet run)",
    "invalid": "invalid",
    "orphaned": "orphaned",
}


MAX_LISTED = 20
"""Pages named per experiment: the page would otherwise grow with the glossary (1.8 MB at 10,000
terms embedding three experiments); each page names the experiments it shows."""


def _link(title: str, url: str) -> str:
    label = title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    return f"[{label}]({url})"


def measurements_page(view: ResultsView, embedded_by: dict[str, list[tuple[str, str]]]) -> str:
    """Markdown of the Measurements page.

    ``embedded_by`` maps experiment id -> [(page title, link)], the link as a Markdown link target
    relative to this page (e.g. ``terms/tiling.md`` when the page sits at the docs root). The table is
    HTML with ``markdown`` attributes so the links are resolved by MkDocs (needs ``md_in_html``).
    """
    ids = sorted({*view.experiments, *(r.experiment for r in view.results), *embedded_by})
    out = ["# Measurements", "", INTRO, ""]
    if not ids:
        out += ["No experiment is declared yet.", ""]
        return "\n".join(out)
    out += [
        '<div class="gloss-measurements" markdown="1">',
        '<table markdown="1">',
        "<thead><tr><th>Experiment</th><th>Node</th><th>GPU</th><th>Captured</th><th>State</th>"
        "<th>Embedded by</th></tr></thead>",
        '<tbody markdown="1">',
    ]
    # The "Embedded by" cells are left out of the search index: they repeat the titles of pages that are
    # indexed on their own (as the A-Z does).
    for exp in ids:
        results: list[Result | None] = list(view.for_experiment(exp)) or [None]
        pages = embedded_by.get(exp, [])
        links = ", ".join(_link(t, u) for t, u in pages[:MAX_LISTED]) if pages else "no page"
        if len(pages) > MAX_LISTED:
            links += f" and {len(pages) - MAX_LISTED:,} more pages"
        for r in results:
            node = escape(r.node) if r else "\u2014"
            gpu = escape(r.provenance.gpu) if r and r.provenance else "\u2014"
            captured = escape(r.provenance.captured) if r and r.provenance else "\u2014"
            state = r.state if r else "missing"
            state_cell = f'<span class="gloss-state gloss-state--{state}">{STATE_WORDS[state]}</span>'
            title = ""
            if r and r.state != "fresh" and r.problem:
                title = f' title="{escape(r.problem + "; " + r.remedy)}"'
                state_cell = f'<span class="gloss-state gloss-state--{state}"{title}>{STATE_WORDS[state]}</span>'
            detail = f' title="{escape(provenance_sentence(r.provenance))}"' if r and r.provenance else ""
            out.append(
                f'<tr markdown="1" id="{escape(exp)}{"-" + escape(r.node) if r else ""}">'
                f"<td><code>{escape(exp)}</code></td><td{detail}>{node}</td><td>{gpu}</td>"
                f'<td>{captured}</td><td>{state_cell}</td><td markdown="span" data-search-exclude>{links}</td></tr>'
            )
    out += ["</tbody>", "</table>", "</div>", ""]
    problems = [r for r in view.results if r.state != "fresh"]
    if problems or view.setup_problems:
        out += ["## What to do", ""]
        for r in sorted(problems, key=lambda x: (x.experiment, x.node)):
            what = _escape_md(r.problem) if r.problem else STATE_WORDS[r.state]
            remedy = f"; {r.remedy}" if r.remedy else ""
            out.append(f"- `{r.experiment}` on {r.node} ({STATE_WORDS[r.state]}): {what}{remedy}")
        for p in view.setup_problems:
            out.append(f"- {_escape_md(str(p))}")
        out.append("")
    return "\n".join(out)


def _escape_md(text: str) -> str:
    return text.replace("*", "\\*").replace("_", "\\_")
