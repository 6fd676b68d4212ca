"""Measurements in pages: table embeds, values in prose, the hand-typed-figure lint, the Measurements page.

Placeholder seam until the measurements-in-pages work lands; the plugin calls these functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from site_plugins.messages import Problem


@dataclass(frozen=True)
class Expansion:
    markdown: str
    problems: list[Problem] = field(default_factory=list)
    shown_values: tuple[str, ...] = ()  # every measured value as rendered, in page order (for sign-off)
    experiments: tuple[str, ...] = ()  # experiment ids this page embeds or quotes


@dataclass(frozen=True)
class ResultsView:
    """Everything the pages may show about measurements, loaded once per build from measure.results."""

    root: Path


def load_view(root: Path) -> ResultsView:
    return ResultsView(root=root)


def expand(markdown: str, *, path: str, first_line: int, view: ResultsView, preview: bool) -> Expansion:
    """Replace embeds and value references in ``markdown`` (a page body starting at file line
    ``first_line`` of repo-relative ``path``); report problems (missing/stale/failed/tampered results,
    hand-typed figures) as values. In preview a broken embed renders as a visible warning banner."""
    return Expansion(markdown=markdown)


def measurements_page(view: ResultsView, embedded_by: dict[str, list[tuple[str, str]]]) -> str:
    """Markdown for the generated Measurements page; ``embedded_by`` maps experiment id -> [(title, url)]."""
    return "# Measurements\n"
