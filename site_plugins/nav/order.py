"""Navigation labels and order: what a reader reads first comes first.

MkDocs' automatic navigation orders the top-level sections by folder name (Code, Lessons, Terms) and
names a section after its folder ("Day13 shared memory"). Here the sections follow :data:`ORDER`
(home, Lessons, Terms, Code, then anything else in MkDocs' order), a lesson is listed as
"Day 13: <title>", and a code folder as the lesson it belongs to. Pure over the content model and
MkDocs' navigation objects; pruning and grouping of the terms live elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

from site_plugins.content import Content, LessonMeta

ORDER = ("index.md", "lessons/", "terms/", "code/")
"""Top-level navigation order by the docs path (prefix) of an item's first page."""

_DAY = re.compile(r"^day0*(\d+)(?:[-_ ](.*))?$", re.IGNORECASE)


@dataclass(frozen=True)
class Labels:
    pages: dict[str, str]  # docs src_uri -> navigation label
    sections: dict[str, str]  # docs folder (e.g. "code/day13-shared-memory") -> section label


def day_label(day: int, title: str) -> str:
    return f"Day {day}: {title}"


def folder_label(folder: str) -> str:
    """A readable label for a folder with no entry of its own: "day13-shared-memory" -> "Day 13: Shared memory"."""
    name = folder.rstrip("/").rsplit("/", 1)[-1]
    m = _DAY.match(name)
    if m is None:
        words = name.replace("-", " ").replace("_", " ")
        return words[:1].upper() + words[1:]
    rest = (m.group(2) or "").replace("-", " ").replace("_", " ").strip()
    return day_label(int(m.group(1)), rest[:1].upper() + rest[1:]) if rest else f"Day {int(m.group(1))}"


def labels(content: Content, hidden: Collection[str] = ()) -> Labels:
    """Labels from the lessons that are shown (``hidden``: docs src_uris left out of this build)."""
    pages: dict[str, str] = {}
    sections: dict[str, str] = {}
    for lesson in content.lessons.values():
        if lesson.src_uri in hidden:
            continue
        m = lesson.meta
        assert isinstance(m, LessonMeta)
        label = day_label(m.day, m.title)
        pages[lesson.src_uri] = label
        sections[m.code.rstrip("/")] = label
    return Labels(pages, sections)


def _first_uri(item: object) -> str:
    if isinstance(item, Page):
        return item.file.src_uri
    if isinstance(item, Section):
        for child in item.children:
            uri = _first_uri(child)
            if uri:
                return uri
    return ""


def _rank(item: object) -> int:
    uri = _first_uri(item)
    for i, prefix in enumerate(ORDER):
        if uri == prefix or (prefix.endswith("/") and uri.startswith(prefix)):
            return i
    return len(ORDER)


def _folder(section: Section) -> str:
    uri = _first_uri(section)
    return uri.rsplit("/", 1)[0] if "/" in uri else ""


def _relabel(items: Sequence[object], lab: Labels, top: bool) -> None:
    """Label lessons and the folders below the top level (a top-level section keeps its name)."""
    for item in items:
        if isinstance(item, Page):
            label = lab.pages.get(item.file.src_uri)
            if label is not None:
                item.title = label
        elif isinstance(item, Section) and top:
            _relabel(item.children, lab, False)
        elif isinstance(item, Section):
            folder = _folder(item)
            name = folder.rsplit("/", 1)[-1]
            if folder in lab.sections:
                item.title = lab.sections[folder]
            elif _DAY.match(name):
                item.title = folder_label(folder)
            _relabel(item.children, lab, False)


def arrange(nav: Navigation, lab: Labels) -> Navigation:
    """The navigation with top-level items in :data:`ORDER`, lessons and code folders labelled, and
    previous/next links following the new order."""
    items = sorted(nav.items, key=_rank)  # stable: MkDocs' order within a rank
    _relabel(items, lab, True)
    return relink(items)


def relink(items: Sequence[object]) -> Navigation:
    """A navigation of ``items`` whose parents and previous/next links follow their (new) order."""
    ordered: list[Page] = []

    def walk(children: Sequence[object], parent: Section | None) -> None:
        for item in children:
            item.parent = parent  # type: ignore[attr-defined]
            if isinstance(item, Page):
                ordered.append(item)
            elif isinstance(item, Section):
                walk(item.children, item)

    walk(items, None)
    ends: list[Page | None] = [None, *ordered, None]
    for before, page, after in zip(ends[:-2], ordered, ends[2:], strict=True):
        page.previous_page, page.next_page = before, after
    return Navigation(list(items), ordered)
