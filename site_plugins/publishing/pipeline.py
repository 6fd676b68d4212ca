"""The build, as one pure function: files on disk in, every generated page's Markdown and every problem out.

The MkDocs plugin calls :func:`prepare` once per build and then only hands pages their Markdown. Tests
call it directly, without MkDocs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from site_plugins import measured
from site_plugins.content import (
    Content,
    Entry,
    Excerpt,
    LessonMeta,
    TermMeta,
    excerpt,
    lesson_sources,
    linked_src_uris,
    load_content,
    parse_entry,
    regions,
)
from site_plugins.diagrams.figure import render_diagram
from site_plugins.files.messages import Problem
from site_plugins.files.schema import line_of
from site_plugins.measured.yours import run_yours
from site_plugins.nav import sections as nav
from site_plugins.publishing import addresses, entrycheck, publish, render
from site_plugins.publishing.packed import Packed, PackedTexts, pack, packing, unpack
from site_plugins.publishing.signedviews import Views
from site_plugins.signoff import entryfiles
from site_plugins.signoff.signable import GitTree, Signable, Tree, WorkTree

GLOSSARY_INDEX = "terms/index.md"
LESSON_INDEX = "lessons/index.md"
MEASUREMENTS_PAGE = "measurements.md"
ROOFLINE_PAGE = "roofline.md"
GENERATED_FIRST = (GLOSSARY_INDEX, LESSON_INDEX, MEASUREMENTS_PAGE)  # generated whatever the entries are


@dataclass
class Build:
    """What one build produces: generated or rewritten Markdown per docs path, and what to drop."""

    # docs src_uri -> Markdown; held compressed from here until MkDocs reads each page (memory)
    pages: MutableMapping[str, str] = field(default_factory=PackedTexts)
    hidden: dict[str, str] = field(default_factory=dict)  # docs src_uri of unpublished entries -> title
    code_files: dict[str, str] = field(default_factory=dict)  # code/x/y.cu -> file text (raw copy)
    term_tips: dict[str, str] = field(default_factory=dict)  # docs src_uri of a term -> its definition
    problems: list[Problem] = field(default_factory=list)
    states: dict[str, publish.EntryState] = field(default_factory=dict)
    # docs src_uri -> the Markdown file text MkDocs should read (its front matter gives the page title
    # and nav label), for entries whose published version is the signed one rather than the working copy
    sources: dict[str, str] = field(default_factory=dict)
    # Links whose target is a draft, shown as plain text: listed in the build summary, never a failure.
    draft_links: list[Problem] = field(default_factory=list)
    # Docs paths of Markdown pages that are neither entries nor declared site chrome: left out, and reported.
    unlisted: list[str] = field(default_factory=list)
    content: Content = field(default_factory=Content)  # the working copy
    published: Content = field(default_factory=Content)  # each entry as it is published (signed version)
    view: measured.ResultsView | None = None
    letters: list[nav.Letter] = field(default_factory=list)  # the A–Z grouping of shown terms (navigation)
    # path -> what a sign-off of each entry covers now; kept only when asked (gloss sign), else let go
    signables: dict[str, Signable] = field(default_factory=dict)
    preview: bool = False  # drafts shown (make serve, make preview)

    @property
    def packing(self) -> bool:
        """Whether this build packs what it holds (see packed.PACK_FROM): as its generated pages are."""
        return isinstance(self.pages, PackedTexts) and self.pages.on


def entry_excerpts(root: Path, entry: Entry, tree: Tree | None = None) -> tuple[list[Excerpt], list[Problem]]:
    """The code an entry shows: a term's quoted regions, a lesson's whole .cu/.cuh files. ``tree``: where
    files are read (a git commit, the signed snapshot); default: the working copy."""
    tree = tree or WorkTree(root)
    m = entry.meta
    out: list[Excerpt] = []
    problems: list[Problem] = []
    if isinstance(m, TermMeta):
        for i, ref in enumerate(m.code):
            ex, problem = excerpt(root, ref, entry.path, line_of(m, "code", i), read=tree.read)
            if ex:
                out.append(ex)
            if problem:
                problems.append(problem)
    elif isinstance(m, LessonMeta):
        rels = lesson_sources(root, m.code) if isinstance(tree, WorkTree) else [
            r for r in tree.listdir(m.code) if PurePosixPath(r).suffix in (".cu", ".cuh")]
        for rel in rels:
            text = tree.read(rel)  # an unreadable file is reported by the content check
            if text is not None:
                out.append(Excerpt(rel, "", text, 1, "cuda"))
    return out, problems


@dataclass(frozen=True)
class Snapshot:
    """The code files an entry published when it was signed, as a :class:`Tree`."""

    files: dict[str, str]

    def read(self, path: str) -> str | None:
        return self.files.get(path)

    def listdir(self, folder: str) -> list[str]:
        return sorted(p for p in self.files if str(PurePosixPath(p).parent) == folder.rstrip("/"))


def expand_body(entry: Entry, view: measured.ResultsView, preview: bool) -> measured.Expansion:
    return measured.expand(entry.body, path=entry.path, first_line=entry.body_line, view=view, preview=preview,
                           sources=[s.title for s in entry.meta.sources], node=entry.meta.node or None,
                           node_line=line_of(entry.meta, "node"),
                           comparison="../" * entry.src_uri.count("/") + measured.COMPARISON_PAGE)


@dataclass(frozen=True)
class Staged:
    """An entry's published-form expansion and excerpts, computed once per build and shared by the
    sign-off fingerprint and the page."""

    facts: measured.Expansion  # the expansion but its Markdown: problems, values shown, experiments
    # (Memory) the expansion's Markdown, packed: every entry's expansion (its tables and charts as HTML,
    # about 12 KB a term) waits from the start of the build until its page is rendered; packed, a quarter.
    packed: Packed
    excerpts: list[Excerpt]
    files: dict[str, str]  # every code file the page publishes (whole-file page, raw download) -> its text
    excerpt_problems: list[Problem] = field(default_factory=list)
    statics: tuple[tuple[str, str], ...] = ()  # (path, sha256) of each static file the body names


    @property
    def expansion(self) -> measured.Expansion:
        return dataclasses.replace(self.facts, markdown=unpack(self.packed))


def stage(root: Path, entry: Entry, view: measured.ResultsView, tree: Tree | None = None, *,
          packed: bool = True) -> Staged:
    tree = tree or WorkTree(root)
    excerpts, problems = entry_excerpts(root, entry, tree)
    files = {ex.file: text for ex in excerpts if (text := tree.read(ex.file)) is not None}
    docs_dir = entry.path[: len(entry.path) - len(entry.src_uri)].rstrip("/")
    expansion = expand_body(entry, view, preview=False)
    return Staged(dataclasses.replace(expansion, markdown=""), pack(expansion.markdown, packed),
                  excerpts, files, problems, entryfiles.statics(tree, docs_dir, entry.src_uri, entry.body))


def signable(root: Path, entry: Entry, view: measured.ResultsView, staged: Staged | None = None) -> Signable:
    """What a sign-off of ``entry`` covers: its text, the values it shows, the code it quotes and every
    code file it publishes (a lesson: every .cu/.cuh file of its folder) and the bytes of every static
    file its body names."""
    staged = staged or stage(root, entry, view)
    quoted = tuple(ex.text for ex in staged.excerpts if ex.region) if entry.kind == "term" else ()
    return Signable(entry.path, entry.text, tuple(staged.facts.shown_values), quoted,
                    tuple(sorted(staged.files.items())), staged.statics)


def signable_at(root: Path, view: measured.ResultsView, content: Content,
                views: Views | None = None) -> Callable[[str, Tree], Signable | None]:
    """A callable for the sign-off module: the Signable of an entry as it was in another tree (a commit),
    its values from the results that commit held (``views``; default: ``view``, today's)."""
    kinds = {e.path: e for e in content.entries()}
    views = views or Views(root, view)

    def at(path: str, tree: Tree) -> Signable | None:
        current = kinds.get(path)
        text = tree.read(path)
        if text is None:
            return None
        if current is None:
            return Signable(path, text)
        entry, _ = parse_entry(current.kind, path, current.src_uri, text)
        then = views.at(tree.commit) if isinstance(tree, GitTree) else view
        return signable(root, entry, then, stage(root, entry, then, tree)) if entry else Signable(path, text)

    return at


@dataclass
class Reuse:
    """What the rebuilds of one ``mkdocs serve`` share: the results view and each entry's staged form,
    valid while no file under ``measure/results/``, ``measure/nodes.yaml`` or ``code/`` changed."""

    stamp: tuple[tuple[str, int, int], ...] = ()
    view: measured.ResultsView | None = None
    staged: dict[tuple[str, str], Staged] = field(default_factory=dict)  # (path, text) -> staged form

    def refresh(self, root: Path, default_node: str | None = None) -> measured.ResultsView:
        stamp = _stamp(root, ("measure/results", "measure/nodes.yaml", "code"))
        if stamp != self.stamp or self.view is None or self.view.default_node != default_node:
            self.stamp, self.view, self.staged = stamp, measured.load_view(root, default_node), {}
        return self.view


def _stamp(root: Path, paths: tuple[str, ...]) -> tuple[tuple[str, int, int], ...]:
    out = []
    for rel_path in paths:
        top = root / rel_path
        for f in sorted([top] if top.is_file() else top.rglob("*") if top.is_dir() else []):
            if f.is_file():
                st = f.stat()
                out.append((f.relative_to(root).as_posix(), st.st_mtime_ns, st.st_size))
    return tuple(out)


def prepare(root: Path, docs_dir: str = "content", *, preview: bool = False,
            checked: Callable[[str], str | None] | None = None, chrome: Collection[str] = ("index.md",),
            nav_max_terms: int = 60, reuse: Reuse | None = None, default_node: str | None = None,
            keep_signables: bool = False) -> Build:
    """Load, check and render every entry and generated page. ``chrome``: the docs paths of hand-written
    pages published without sign-off (any other page outside terms/ and lessons/ is left out and reported).
    ``checked(url)`` gives a source's last successful check date (YYYY-MM-DD) or None; ``nav_max_terms``
    is the most terms one navigation section lists (see :mod:`site_plugins.nav.sections`); ``reuse`` carries work
    over from the previous build of the same project (``mkdocs serve``); ``default_node``: the node whose
    figures prose quotes where an entry names none; ``keep_signables``: keep what each entry's sign-off
    covers now in :attr:`Build.signables` (``gloss sign``: one pass over the project)."""
    content, problems = load_content(root, docs_dir)
    on = packing(len(content.terms) + len(content.lessons))
    build = Build(pages=PackedTexts(on=on), problems=list(problems), content=content, preview=preview)
    view = reuse.refresh(root, default_node) if reuse else measured.load_view(root, default_node)
    build.view = view
    build.problems += view.problems  # every spec, result and node file, embedded or not
    checked = checked or (lambda url: None)
    kept = reuse.staged if reuse else {}
    staged = {e.path: kept.get((e.path, e.text)) or stage(root, e, view, packed=on) for e in content.entries()}
    if reuse:
        reuse.staged = {(e.path, e.text): staged[e.path] for e in content.entries()}
    signables = [signable(root, e, view, staged[e.path]) for e in content.entries()]
    views = Views(root, view)  # each signed version's values: the results of the commit it was signed at
    states, state_problems = publish.decide(root, signables, preview=preview,
                                            signable_at=signable_at(root, view, content, views))
    build.states = states
    build.problems += state_problems
    # An entry whose address is one the build generates pages at is refused (never published).
    for e in content.entries():
        clash = addresses.clash(e.src_uri, GENERATED_FIRST)
        if clash is not None:
            build.problems.append(addresses.problem(e.path, e.src_uri, clash))
            states[e.path] = dataclasses.replace(states[e.path], published=False)
    if keep_signables:
        build.signables = {s.path: s for s in signables}
    del signables  # (memory: each entry's text and quoted code, not needed past sign-off)

    def visible(e: Entry) -> bool:
        return preview or states[e.path].published

    # Render the last signed version where sign-off says so; otherwise the working copy.
    shown: dict[str, Entry] = {}
    snapshots: dict[str, Snapshot] = {}  # src_uri -> the code files as signed, for served old versions
    for e in content.entries():
        st = states[e.path]
        # Every working copy is checked as a draft is, a pending change and a signed entry alike, so that
        # what gloss sign would sign is always ready to be signed (and sign refuses what this reports).
        mine = staged[e.path]
        build.problems += entrycheck.text_problems(e, mine.facts.problems)  # (its code: load_content)
        if not visible(e):
            build.hidden[e.src_uri] = e.title
            continue
        if st.text is not None and not preview:
            old, old_problems = parse_entry(e.kind, e.path, e.src_uri, st.text)
            if old is None or st.files is None:  # never the working copy in its place: unpublished
                build.problems += entrycheck.in_signed_version(old_problems or [Problem(
                    e.path, 1, "the signed version cannot be read", "sign the current version")], st.signed_commit)
                states[e.path] = dataclasses.replace(st, published=False)
                build.hidden[e.src_uri] = e.title
                continue
            build.problems += entrycheck.in_signed_version(old_problems, st.signed_commit)
            shown[e.src_uri] = old
            snapshots[e.src_uri] = Snapshot(dict(st.files))
            build.sources[e.src_uri] = old.text
        else:
            shown[e.src_uri] = e
    # Every view of an entry (titles, ledes, related lists, backlinks, navigation) reads the published version.
    content = build.published = served_content(content, shown)

    backlinks: dict[str, list[Entry]] = {}
    for lesson in content.lessons.values():
        targets = set(linked_src_uris(lesson))
        if isinstance(lesson.meta, LessonMeta):
            targets |= {content.terms[s].src_uri for s in lesson.meta.introduces if s in content.terms}
        for uri in targets:
            backlinks.setdefault(uri, []).append(lesson)

    embedded_by: dict[str, list[tuple[str, str]]] = {}
    served_files: dict[str, str] = {}
    for uri, e in shown.items():
        st = states[e.path]
        mine = staged.pop(e.path)  # each expansion is let go once its page is rendered (memory)
        # The working copy renders exactly as it was fingerprinted: reuse that. (Preview differs from the
        # published form only where an embed or a figure has a problem: it marks them in place.)
        if uri not in snapshots and (not preview or not mine.facts.problems):
            expansion, excerpts = mine.expansion, mine.excerpts
            build.code_files.update(mine.files)
        elif uri in snapshots:  # the signed version: checked as any text is, its problems named as its own
            expansion = expand_body(e, views.at(st.signed_commit), preview)
            excerpts, excerpt_problems = entry_excerpts(root, e, snapshots[uri])
            served_files.update(snapshots[uri].files)
            build.problems += entrycheck.in_signed_version(
                entrycheck.text_problems(e, [*expansion.problems, *excerpt_problems]), st.signed_commit)
        else:
            expansion, excerpts = expand_body(e, view, preview), entry_excerpts(root, e)[0]
            build.code_files.update(stage_files(root, excerpts))
        for exp_id in expansion.experiments:
            embedded_by.setdefault(exp_id, []).append((e.title, uri))
        diagram_svg = None
        if isinstance(e.meta, TermMeta) and e.meta.diagram is not None:
            d = e.meta.diagram
            try:
                diagram_svg = render_diagram(d.name, d.preset, d.params, d.alt)
            except KeyError:
                diagram_svg = None  # already reported by the content check
        urls = [s.url for s in e.meta.sources]
        dates = {u: checked(u) for u in urls}
        last = min(dates.values()) if urls and all(dates.values()) else None  # type: ignore[type-var]
        banner = st.banner if preview else None
        parts = render.PageParts(body=expansion.markdown, excerpts=excerpts,
                                 diagram_svg=diagram_svg, checked=dates,
                                 byline=render.render_byline(st, last, bool(urls)), banner=banner,
                                 yours=run_yours(expansion.experiments))
        if e.kind == "term":
            md = render.render_term(e, parts, content=content, visible=visible, backlinks=backlinks.get(uri, []))
            build.term_tips[uri] = e.lede
        else:
            md = render.render_lesson(e, parts, content=content, visible=visible)
        build.pages[uri] = md

    def pending(kind: str) -> int:
        return sum(1 for e in content.entries() if e.kind == kind and not states[e.path].published)

    # A file also published by an entry signed as it is now shows that (signed) version.
    build.code_files = {**served_files, **build.code_files}
    terms = [e for e in shown.values() if e.kind == "term"]
    lessons = [e for e in shown.values() if e.kind == "lesson"]
    build.pages[LESSON_INDEX] = render.render_lesson_index(LESSON_INDEX, lessons, pending("lesson"), preview=preview)
    named = render.az_order(terms)
    build.letters = nav.group([(t.src_uri, name) for t, name in named], nav_max_terms)
    names, ledes = {t.src_uri: name for t, name in named}, {t.src_uri: t.lede for t in terms}
    build.pages[GLOSSARY_INDEX] = render.render_glossary_index(
        GLOSSARY_INDEX, [(x.label, x.uri, [(names[u], u) for u in x.uris]) for x in build.letters], pending("term"),
        preview=preview)
    build.pages.update(nav.pages(build.letters, titles=names, ledes=ledes, index_uri=GLOSSARY_INDEX))
    build.pages[MEASUREMENTS_PAGE] = measured.measurements_page(view, embedded_by)
    build.pages[ROOFLINE_PAGE] = measured.roofline_page(view)
    compared = measured.comparison_page(view)
    if compared is not None:
        build.pages[measured.COMPARISON_PAGE] = compared
    for file, text in build.code_files.items():
        language = "cuda" if PurePosixPath(file).suffix in (".cu", ".cuh") else "text"
        build.pages[render.code_page_uri(file)] = render.render_code_page(file, text, regions(text), language)

    # Links from shown pages to hidden drafts become plain text, with a warning naming both pages. Links
    # to files that are not entries (already reported) become plain text too.
    gone = {**dict.fromkeys(content.unloaded, ""), **build.hidden}
    for uri, md in list(build.pages.items()) if gone else []:
        new, hits = render.unlink_hidden(md, uri, gone)
        if hits:
            build.pages[uri] = new
            source = shown.get(uri)
            where = source.path if source else f"{docs_dir}/{uri}"
            for target in (t for t in hits if t in build.hidden):
                line = _line_mentioning(source.text, PurePosixPath(target).name) if source else 0
                build.draft_links.append(draft_link(where, line, f"{docs_dir}/{target}"))
    for e in content.entries():  # (every page the build generated, code pages included)
        if not any(p.path == e.path and p.problem.startswith(addresses.CLASH) for p in build.problems):
            clash = addresses.clash(e.src_uri, [uri for uri in build.pages if uri not in shown])
            if clash is not None:
                build.problems.append(addresses.problem(e.path, e.src_uri, clash))
    build.unlisted = unlisted_pages(root, docs_dir, chrome, build.pages)
    build.problems += [Problem(f"{docs_dir}/{uri}", 1, *((GENERATED, GENERATED_REMEDY) if uri in build.pages
                                                        else (UNLISTED, UNLISTED_REMEDY))) for uri in build.unlisted]
    build.problems = sorted(set(build.problems))
    build.draft_links = sorted(set(build.draft_links))
    return build


UNLISTED = "this page is neither a term, a lesson nor declared site chrome, so it is not published"
UNLISTED_REMEDY = ("move it to terms/ or lessons/ to have it signed off like every entry, or, if it is hand-written "
                   "site chrome, list it under the gloss plugin's 'chrome:' option in mkdocs.yml")


GENERATED = "the build generates this page, so a hand-written file here is never published"
GENERATED_REMEDY = "delete it (and take it out of the gloss plugin's 'chrome:' option in mkdocs.yml if it is listed)"


def draft_link(where: str, line: int, target: str) -> Problem:
    """A link to a draft, shown as plain text (a build-summary line, not a failure)."""
    return Problem(where, line, f"links to draft '{target}', which is not published",
                   "the link is shown as plain text until that entry is signed off")


def unlisted_pages(root: Path, docs_dir: str, chrome: Collection[str], generated: Collection[str] = ()) -> list[str]:
    """Docs paths of the Markdown pages that are neither entry files nor declared chrome, and of those
    that would stand in for a page the build generates (``terms/index.md``, a letter page, ...): an
    ``index.md`` is never an entry, so it is published only when declared chrome, and never over a
    generated page."""
    docs = root / docs_dir
    if not docs.is_dir():
        return []
    found = (f.relative_to(docs).as_posix() for f in docs.rglob("*.md") if f.is_file() and not f.is_symlink())

    def entry_file(uri: str) -> bool:
        return uri.startswith(("terms/", "lessons/")) and PurePosixPath(uri).name != "index.md"

    return sorted(uri for uri in found if not entry_file(uri) and (uri not in chrome or uri in generated))


def stage_files(root: Path, excerpts: list[Excerpt]) -> dict[str, str]:
    tree = WorkTree(root)
    return {ex.file: text for ex in excerpts if (text := tree.read(ex.file)) is not None}


def served_content(content: Content, shown: dict[str, Entry]) -> Content:
    """``content`` with each published entry replaced by the version that is published."""
    def pick(e: Entry) -> Entry:
        return shown.get(e.src_uri, e)

    return dataclasses.replace(content, terms={s: pick(e) for s, e in content.terms.items()},
                               lessons={s: pick(e) for s, e in content.lessons.items()})


def _line_mentioning(text: str, needle: str) -> int:
    for n, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return n
    return 0
