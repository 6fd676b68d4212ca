"""Which entries may be published, decided once before rendering (the seam between sign-off and render).

The renderer only ever asks :func:`decide`; it never reads ``signoff.yaml`` itself. In a normal build an
entry whose ``published`` is False is left out of every page, index, search and sitemap; in preview
(``make serve`` / ``make preview``) every entry renders, with ``banner`` shown on drafts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from site_plugins.messages import Problem

State = Literal["draft", "awaiting-review", "signed", "changed"]


@dataclass(frozen=True)
class Byline:
    """What the byline says. ``None`` means the role is still pending."""

    author: str | None = None
    reviewer: str | None = None
    written_on: str | None = None  # YYYY-MM-DD, from the author's sign-off
    reviewed_on: str | None = None  # YYYY-MM-DD, from the reviewer's sign-off


@dataclass(frozen=True)
class EntryState:
    """The publication decision for one entry (term or lesson), keyed by its repo-relative path."""

    path: str
    state: State
    published: bool
    # The Markdown file text to render when published; differs from the working copy when the entry
    # changed after sign-off and the last signed version is served instead. None: use the working copy.
    text: str | None = None
    byline: Byline = field(default_factory=Byline)
    banner: str | None = None  # shown in preview on entries that are not (or not as-is) published
    missing: tuple[str, ...] = ()  # what is missing before the entry can be published


@dataclass(frozen=True)
class Signable:
    """Exactly what a sign-off covers: the entry's text, the measured values it shows, the code it quotes."""

    path: str  # repo-relative, e.g. content/terms/tiling.md
    text: str  # the whole Markdown file, front matter included
    shown_values: tuple[str, ...] = ()  # every measured value as rendered on the page, in page order
    quoted_code: tuple[str, ...] = ()  # every code excerpt as quoted on the page, in page order


def decide(root: Path, entries: Sequence[Signable], *, preview: bool) -> tuple[dict[str, EntryState], list[Problem]]:
    """Decide publication for each entry.

    Placeholder until the sign-off module lands: every entry is published as it is.
    """
    return {e.path: EntryState(path=e.path, state="draft", published=True) for e in entries}, []
