"""Which node a page's prose figures come from: checking an entry's ``node:`` and saying, on the page,
which GPU the figures in its text were measured on. Pure over a :class:`ResultsView`."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from site_plugins.measured.model import ResultsView
from site_plugins.measured.resolve import Failure, hint


def unknown_node(view: ResultsView, node: str) -> Failure | None:
    """Why an entry's ``node:`` cannot name the node its prose figures come from, or None."""
    if node in view.nodes:
        return None
    registered = ", ".join(view.nodes) or "none yet"
    default = f"; or leave 'node:' out to quote {view.default_node}" if view.default_node in view.nodes else ""
    return Failure(
        f"front matter 'node: {node}' is not a registered verification node",
        f"{hint(node, view.nodes)}registered nodes: {registered} (measure/nodes.yaml){default}",
    )


def figures_line(view: ResultsView, nodes: Sequence[str]) -> str:
    """The line at the top of a page saying which GPU the figures in its text were measured on (``nodes``:
    those quoted, the page's own first); tables name their GPU in each tab and provenance sentence."""
    if not nodes:
        return ""
    named = [f"{view.gpu(n)} ({n})" for n in nodes]
    text = f"Figures in the text: {named[0]}"
    if len(named) > 1:
        text += f"; where a figure's tooltip names another node: {', '.join(named[1:])}"
    return f'<p class="gloss-figures-node" data-search-exclude>{escape(text)}.</p>'
