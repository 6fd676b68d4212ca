"""Navigation that stays small as the glossary grows.

MkDocs' automatic navigation puts every term in one "Terms" section, and mkdocs-material renders the
whole navigation into every page: each page then weighs (and costs) as much as the number of terms, and
the site grows with its square. Here the terms are grouped A to Z instead: the Terms section holds one
section per initial (each opened by a generated letter page listing that letter's terms), a letter with
more than ``max_per_section`` terms is cut into consecutive runs, and with material's
``navigation.prune`` a page carries the site's sections, the letters, and only its own letter's (or
run's) terms. The Terms section's own page (the A–Z index) lists the letters with their counts, and
every letter page sits in every page's navigation and lists its terms, so a term is two clicks from
any page. A letter of more than :data:`RUNS_PER_PAGE` runs would make a page that grows with the
glossary (hundreds of KB at 10,000 terms): its page lists its runs instead, each run gets a page of its
own (the run's section index in the navigation), and its terms are three clicks away.

:func:`group` is pure over (uri, name) pairs; :func:`regroup` applies a grouping to MkDocs' navigation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

from site_plugins.nav.order import relink
from site_plugins.publishing.render import OTHER_INITIAL as OTHER
from site_plugins.publishing.render import UNSEARCHED, az_initial, rel

LETTER_PAGES = "terms/letters"
RUNS_PER_PAGE = 5  # a letter of more runs lists them on its page, and each run its terms on a page of its own


@dataclass(frozen=True)
class Run:
    """Consecutive terms of one letter, shown as one navigation section."""

    label: str  # e.g. "Sha–Sto"
    uris: tuple[str, ...]  # docs src_uris in A–Z order
    uri: str = ""  # the run's own page, when its letter's page lists runs instead of terms


@dataclass(frozen=True)
class Letter:
    label: str  # "A" ... "Z", or OTHER
    uri: str  # the generated letter page, e.g. terms/letters/a/index.md
    runs: tuple[Run, ...]  # one run (the whole letter) unless the letter is larger than the limit

    @property
    def uris(self) -> tuple[str, ...]:
        return tuple(u for r in self.runs for u in r.uris)

    @property
    def split(self) -> bool:
        """Whether the letter's page lists its runs, each run's terms being on the run's own page."""
        return any(r.uri for r in self.runs)


def letter_uri(label: str) -> str:
    return f"{LETTER_PAGES}/{'other' if label == OTHER else label.lower()}/index.md"


def run_uri(label: str, n: int) -> str:
    return letter_uri(label).replace("/index.md", f"/{n}/index.md")


def group(named: Sequence[tuple[str, str]], max_per_section: int, runs_per_page: int = RUNS_PER_PAGE) -> list[Letter]:
    """Group ``(src_uri, name)`` pairs, already in A–Z order, by initial; cut a letter holding more than
    ``max_per_section`` terms into the fewest runs of at most that many, of near-equal length. A letter
    of more than ``runs_per_page`` runs gets a page per run."""
    if max_per_section < 1:
        raise ValueError("max_per_section must be at least 1")
    by_letter: dict[str, list[tuple[str, str]]] = {}
    for uri, name in named:
        by_letter.setdefault(az_initial(name), []).append((uri, name))
    letters = []
    for label in sorted(by_letter, key=lambda x: (x == OTHER, x)):
        items = by_letter[label]
        parts = math.ceil(len(items) / max_per_section)
        size = math.ceil(len(items) / parts)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        own_pages = len(chunks) > runs_per_page
        runs = tuple(Run(_run_label(c, label) if parts > 1 else label, tuple(u for u, _ in c),
                         run_uri(label, n) if own_pages else "") for n, c in enumerate(chunks, start=1))
        letters.append(Letter(label, letter_uri(label), runs))
    return letters


def _run_label(chunk: Sequence[tuple[str, str]], label: str) -> str:
    def head(name: str) -> str:
        h = name.strip()[:3]
        return h[:1].upper() + h[1:]

    first, last = head(chunk[0][1]), head(chunk[-1][1])
    return first if first == last else f"{first}–{last}"


class Focus:
    """Shows, for the page being rendered, the full contents of only the sections on its own path.

    mkdocs-material renders a pruned section as one link to its first page, but its template still
    walks every child of that section to look for an index page. With every letter's terms in the
    navigation, each page would so visit every term: the quadratic cost pruning is meant to remove.
    Before each page is rendered the other letter and run sections hold their first child only (what
    the pruned link needs), and the page's own sections all of theirs; the HTML is the same.
    """

    def __init__(self, sections: Sequence[Section]) -> None:
        self.full = [(s, list(s.children)) for s in sections]

    def show(self, page: Page | None) -> None:
        path = {id(a) for a in page.ancestors} if page is not None else set()
        for section, children in self.full:
            section.children = children if id(section) in path else children[:1]

    def restore(self) -> None:
        for section, children in self.full:
            section.children = children


def regroup(nav: Navigation, index_uri: str, letters: Sequence[Letter]) -> tuple[Navigation, Focus]:
    """Replace the children of the section whose index page is ``index_uri`` by one section per letter.

    Term pages found in that section (at any depth) are regrouped; anything else it held stays, after
    the letters. Pages of ``letters`` missing from the section (a term not in the navigation) are left
    out of it. Returns a navigation with parents, ``pages`` and previous/next links recomputed, and the
    :class:`Focus` over the letter and run sections.
    """
    section = _section_of(nav.items, index_uri)
    if section is None:
        return nav, Focus([])
    pages: dict[str, Page] = {}
    others: list[object] = []
    _collect(section.children, pages, others)
    grouped = {u for letter in letters for u in letter.uris} | {letter.uri for letter in letters}
    grouped |= {run.uri for letter in letters for run in letter.runs if run.uri}
    index = pages.pop(index_uri, None)
    children: list[object] = [index] if index else []
    for letter in letters:
        own: list[object] = [pages[letter.uri]] if letter.uri in pages else []
        if len(letter.runs) == 1:
            own += [pages[u] for u in letter.runs[0].uris if u in pages]
        else:
            for run in letter.runs:
                run_pages: list[object] = [pages[u] for u in run.uris if u in pages]
                if run_pages and run.uri in pages:  # the run's own page opens its section (its index)
                    run_pages.insert(0, pages[run.uri])
                if run_pages:
                    own.append(Section(run.label, run_pages))  # type: ignore[arg-type]
        if own:
            children.append(Section(letter.label, own))  # type: ignore[arg-type]
    children += [p for u, p in pages.items() if u not in grouped and u != index_uri]
    children += others
    section.children = children  # type: ignore[assignment]
    grouped_sections: list[Section] = []
    for child in children:
        if isinstance(child, Section):
            grouped_sections += [child, *(c for c in child.children if isinstance(c, Section))]
    return relink(nav.items), Focus(grouped_sections)


def _section_of(items: Sequence[object], index_uri: str) -> Section | None:
    for item in items:
        if isinstance(item, Section):
            if any(isinstance(c, Page) and c.file.src_uri == index_uri for c in item.children):
                return item
            found = _section_of(item.children, index_uri)
            if found is not None:
                return found
    return None


def _collect(items: Sequence[object], pages: dict[str, Page], others: list[object]) -> None:
    for item in items:
        if isinstance(item, Page):
            pages[item.file.src_uri] = item
        elif isinstance(item, Section):
            _collect(item.children, pages, others)
        else:
            others.append(item)  # links stay




def _page_head(title: str) -> str:
    return f"{UNSEARCHED}# {title}\n\n"  # each line repeats a term's own entry


def _letter_name(letter: Letter) -> str:
    return "Other terms (digits and symbols)" if letter.label == OTHER else f"Terms: {letter.label}"


def _count(n: int) -> str:
    return f"{n:,} term{'' if n == 1 else 's'}"


def letter_page(letter: Letter, *, titles: Mapping[str, str], ledes: Mapping[str, str], index_uri: str) -> str:
    """Markdown of a letter's page: every term of the letter with its one-line definition, or, for a
    letter split into pages (:attr:`Letter.split`), each run with its count and a link to its page."""
    out = [_page_head(_letter_name(letter)),
           f"Part of the [A–Z glossary]({rel(letter.uri, index_uri)}); search finds every term too.\n"]
    if letter.split:
        out.append("\n")
        out += [f"- [{run.label}]({rel(letter.uri, run.uri)}): {_count(len(run.uris))}\n" for run in letter.runs]
        return "".join(out)
    for run in letter.runs:
        if len(letter.runs) > 1:
            out.append(f"\n## {run.label}\n")
        out.append("\n")
        out += [f"- [{titles[u]}]({rel(letter.uri, u)}): {ledes[u]}\n" for u in run.uris]
    return "".join(out)


def run_page(letter: Letter, run: Run, *, titles: Mapping[str, str], ledes: Mapping[str, str], index_uri: str) -> str:
    """Markdown of a run's own page (a letter split into pages): the run's terms with their definitions."""
    out = [_page_head(f"{_letter_name(letter)} ({run.label})"),
           f"Part of [{_letter_name(letter)}]({rel(run.uri, letter.uri)}) in the "
           f"[A–Z glossary]({rel(run.uri, index_uri)}); search finds every term too.\n\n"]
    out += [f"- [{titles[u]}]({rel(run.uri, u)}): {ledes[u]}\n" for u in run.uris]
    return "".join(out)


def pages(letters: Sequence[Letter], *, titles: Mapping[str, str], ledes: Mapping[str, str],
          index_uri: str) -> dict[str, str]:
    """Every letter page and run page, by docs path."""
    out = {}
    for letter in letters:
        out[letter.uri] = letter_page(letter, titles=titles, ledes=ledes, index_uri=index_uri)
        for run in letter.runs:
            if run.uri:
                out[run.uri] = run_page(letter, run, titles=titles, ledes=ledes, index_uri=index_uri)
    return out
