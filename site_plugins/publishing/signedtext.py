"""The audit's evidence that each page shows what may be published, whatever engine built it.

The file checks of :mod:`site_plugins.publishing.audit` say which pages exist; this module says what they show. From
the publish decision alone (never from the built site), :func:`expect` renders what every page of a
``gloss build`` shows, with the project's own Markdown extensions: each published entry from its signed
version, each generated page (the A–Z, letter pages, lesson index, measurements, code pages) from the
published entries only, each chrome page from its source. Then, for a built site:

- every published entry's page must carry ``<meta name="gloss-entry" content="PATH FINGERPRINT">`` with
  the fingerprint the sign-off module says is published (our plugin writes it; it marks which signed
  version the page claims to be, so an engine that runs no plugin is caught at once);
- every page the build has must show every block of text the build renders for it, each as a block of
  its own (a paragraph, list item, heading, cell...: compared as :mod:`site_plugins.publishing.pagetext` normalises
  it, words in order whatever the markup), so a page built from the unsigned working copy, a planted
  ``terms/index.md``, a changed chrome page or a word changed or added inside a block is caught;
- and its main content (the theme's ``role="main"`` element, or Material's ``<article
  class="md-content__inner">``, which the page must have) may hold no other block (but the title a
  theme shows for a page without a heading): a paragraph or list item added to a signed page, or a
  draft listed on the A–Z, is caught whatever its words;
- no page, search record field or sitemap part may hold any run of three consecutive words (MIN_WORDS) of
  a block of an entry that is not published, or of the unsigned change to one that is (its title, its
  definition or summary, each paragraph, list item, heading or cell of its body), in any stream
  :mod:`~site_plugins.publishing.pagetext` reads (the text shown across hidden elements, all the text a
  crawler reads, each attribute), unless some page of the build shows that run itself or the installed
  theme's templates hold it (then it is no entry's); a shorter title is looked for as a block of its own
  (a navigation item, a list item, a heading), as listings show titles.

What it does not prove: that a page shows nothing else outside its main content (a theme's words and
navigation pass there unless they quote an unpublished entry); that markup which is not well formed
cannot move an added block out of the main element as this parser reads it; that code blocks, figures
and charts look right beyond their text; that the order of the blocks is kept; phrases of one or two
words of a draft other than a whole block that is its title. The marker itself can be copied: it is a
claim, the text checks are the evidence. The comparison needs the site's Markdown extensions as
``mkdocs.yml`` declares them; another engine's different rendering of the same signed text is a finding
(fail closed), never a pass.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from site_plugins.files import mdnesting
from site_plugins.files.messages import Problem
from site_plugins.publishing import forkmap, pagetext, render

if TYPE_CHECKING:
    from site_plugins.publishing.pipeline import Build

MARKER = "gloss-entry"
MIN_WORDS = 3  # shorter phrases are ordinary words as often as leaks
REMEDY = "build the site with `gloss build`, which renders each entry from its signed version"
LEAK_REMEDY = "remove that text, or sign that entry so that it is published"

NO_MAIN = ("no main content element (role=\"main\", or Material's <article class=\"md-content__inner\">) "
           "marks the page's own text")
Render = Callable[[str], str]  # Markdown -> HTML, as the site's Markdown extensions render it


@dataclass(frozen=True)
class PageExpectation:
    what: str  # what the page must show, as findings name it
    blocks: tuple[str, ...]  # normalised text segments, each to be found on the page
    entry: tuple[str, str] | None = None  # (repo path, signed fingerprint) for a published entry's page
    titles: frozenset[str] = frozenset()  # what a theme may show as the page's title when its text has none


@dataclass(frozen=True)
class Expected:
    pages: Mapping[str, PageExpectation] = field(default_factory=dict)  # docs uri -> expectation
    # each run of MIN_WORDS words of an unpublished block that no published page shows -> where it comes from
    forbidden: Mapping[tuple[str, ...], str] = field(default_factory=dict)
    titles: tuple[tuple[str, str], ...] = ()  # (normalised title of one or two words, where it comes from)
    theme: str = ""  # the installed theme's template words, a line per template ("" when not known)


def renderer(config: Any) -> Render:
    """Markdown as the site renders it: the extensions and their options from a loaded MkDocs config."""
    import markdown

    md = markdown.Markdown(extensions=list(config.markdown_extensions),
                           extension_configs=dict(config.mdx_configs))

    def convert(text: str) -> str:
        md.reset()
        return str(md.convert(text))

    return convert


def theme_words(dirs: Iterable[Path]) -> list[list[str]]:
    """The words of every template of the installed theme (its labels, such as "On this page", in every
    language it ships), each file as one run: the theme's own words are no entry's, whatever an entry says."""
    out = []
    for folder in dirs:
        for path in sorted(folder.rglob("*.html")) if folder.is_dir() else ():
            try:
                out.append(pagetext.words(path.read_text(encoding="utf-8", errors="replace")))
            except OSError:
                continue
    return out


def expect(build: Build, handwritten: Mapping[str, str], chrome: Iterable[str], docs_dir: str,
           render_md: Render, read: Callable[[str], str | None] = lambda uri: None,
           theme: Iterable[list[str]] = ()) -> Expected:
    """What each page of a ``gloss build`` of this decision shows, and the phrases no page may show.
    ``handwritten``: each chrome page's Markdown as the build hands it over (checks.Checked.handwritten);
    ``read(uri)``: the text of a page under the docs folder that is no entry and no chrome, or of an entry
    that does not parse (their words are not published either); ``theme``: :func:`theme_words`."""
    pages: dict[str, PageExpectation] = {}
    seen: list[str] = []  # every segment some page shows, attributes included: published text
    allowed: set[tuple[str, ...]] = set()  # every run of MIN_WORDS words some page shows, across its elements
    theme_lines = []
    for words in theme:
        allowed.update(_runs(words))
        theme_lines.append(" ".join(words))
    published = {e.src_uri: e for e in build.published.entries() if build.states[e.path].published}
    sources = dict(build.pages)
    for uri in chrome:
        if uri in handwritten and uri not in sources:
            sources[uri] = handwritten[uri]

    def one(uri: str) -> tuple[str, PageExpectation, list[str], set[tuple[str, ...]]]:
        markdown = sources[uri]
        rendered = render_md(render.handed(uri, render.body_of(markdown), build.states, build.term_tips,
                                           preview=False))
        text = pagetext.read(rendered)
        blocks = tuple(dict.fromkeys(s.text for s in text.segments if s.kind in ("text", "code")))
        runs = {r for stream in [*text.streams, *([(w, 0) for w in s.text.split()] for s in text.segments)]
                for r in _runs([w for w, _ in stream])}
        named = frozenset() if "<h1" in rendered else _titles(uri, markdown)
        e = published.get(uri)
        if e is not None:
            st = build.states[e.path]
            want = PageExpectation(f"the signed version of {e.path}", blocks, (e.path, st.signed_fingerprint or ""),
                                   named)
        elif uri in build.pages:
            want = PageExpectation(f"the page the build generates for {docs_dir}/{uri}", blocks, None, named)
        else:
            want = PageExpectation(f"{docs_dir}/{uri} as it is", blocks, None, named)
        return uri, want, [s.text for s in text.segments], runs

    # Each page is rendered on its own: on every core for a large site (forkmap), the same either way.
    for uri, want, segments, runs in sorted(forkmap.run(lambda uris: [one(u) for u in uris], sorted(sources)),
                                            key=lambda r: r[0]):
        pages[uri] = want
        seen += segments
        allowed.update(runs)
    shown = "\n".join(f" {t} " for t in seen)
    unpublished: list[tuple[str, str, str, str]] = []  # (title, lede, body, where it comes from)
    for e in build.content.entries():
        st = build.states[e.path]
        if st.published and published.get(e.src_uri) is not None and published[e.src_uri].text == e.text:
            continue  # the working copy is what is published
        where = f"the unsigned change to {e.path}" if st.published else f"{e.path}, which is not published"
        unpublished.append((e.title, e.lede, e.body, where))
    for uri in sorted({*build.content.unloaded, *build.unlisted}):
        source = read(uri)
        if source is not None:
            body, meta = _front(source)
            lede = meta.get("definition", meta.get("summary", ""))
            unpublished.append((meta.get("title", ""), lede, body,
                                f"{docs_dir}/{uri}, which is not published"))
    forbidden: dict[tuple[str, ...], str] = {}
    titles: dict[str, str] = {}
    for title, lede, body, where in unpublished:
        for phrase in _phrases(title, lede, body, render_md):
            for run in _runs(phrase.split()):
                if run not in allowed:
                    forbidden.setdefault(run, where)
        short = pagetext.normalise(title)
        if short and len(short.split()) < MIN_WORDS and f"\n {short} \n" not in f"\n{shown}\n":
            titles.setdefault(short, where)  # a short title is looked for as a block of its own
    return Expected(pages, forbidden, tuple(sorted(titles.items())), "\n".join(f" {t} " for t in theme_lines))


def _runs(words: list[str]) -> Iterator[tuple[str, ...]]:
    """Every run of MIN_WORDS consecutive words."""
    for i in range(len(words) - MIN_WORDS + 1):
        yield tuple(words[i:i + MIN_WORDS])


_FRONT = re.compile(r"\A-{3}[ \t]*\n(?P<yaml>.*?\n)?(?:-{3}|\.{3})[ \t]*(?:\n|\Z)", re.S)
_FIELD = re.compile(r"^(title|definition|summary):[ \t]*(.+?)[ \t]*$", re.M)


def _titles(uri: str, markdown: str) -> frozenset[str]:
    """The title MkDocs gives a page without a first-level heading, which a theme (Material) then shows
    as one: its front matter's ``title``, else "Home" for the home page, else its file or folder name."""
    from mkdocs.utils.meta import get_data

    title = get_data(markdown)[1].get("title")
    path = PurePosixPath(uri)
    name = path.parent.name if path.stem == "index" else path.stem
    found = {str(title) if title else "", "Home" if uri == "index.md" else "",
             name.replace("-", " ").replace("_", " ").capitalize()}
    return frozenset(t for f in found if (t := pagetext.normalise(f)))


def _front(text: str) -> tuple[str, dict[str, str]]:
    """The body and the plain one-line title, definition and summary of a page that may not parse: never
    through a YAML parser (a hostile file can make one take minutes; site_plugins.files.schema bounds it)."""
    m = _FRONT.match(text)
    if m is None:
        return text, {}
    fields = {k: v.strip("'\"") for k, v in _FIELD.findall(m.group("yaml") or "")}
    return text[m.end():], fields


def _phrases(title: str, lede: str, body: str, render_md: Render) -> list[str]:
    found = [pagetext.normalise(title), pagetext.normalise(lede)]
    if mdnesting.nesting_problem(body, "") is None:
        found += [s.text for s in pagetext.read(render_md(body)).segments if s.kind == "text"]
    else:  # (too deep for Python-Markdown, which would recurse past the stack: its paragraphs as written)
        found += [pagetext.normalise(block) for block in re.split(r"\n[ \t]*\n", body)]
    return [p for p in dict.fromkeys(found) if len(p.split()) >= MIN_WORDS]


def snippet(phrase: str) -> str:
    return phrase if len(phrase) <= 60 else phrase[:59].rstrip() + "…"


def page_problems(where: str, uri: str | None, markup: str, expected: Expected, *, theme_page: bool = False,
                  text: pagetext.Text | None = None, markers: list[tuple[int, str]] | None = None) -> list[Problem]:
    """Problems of one HTML page (``uri``: the docs path of the page it is, None for a page that is none of
    the build's; ``theme_page``: the theme's own page, ``404.html``, whose main content only the theme writes).
    ``text`` and ``markers``: the page's, when a pass over it already read them (the audit's)."""
    text = text if text is not None else pagetext.read(markup)
    out: list[Problem] = []
    want = expected.pages.get(uri) if uri is not None else None
    if want is not None and want.entry is not None:
        out += _marker_problems(where, markup if markers is None else markers, *want.entry)
    if want is not None:
        shown = {s.text for s in text.segments if s.kind != "hidden"}
        missing = [b for b in want.blocks if b not in shown]
        if missing:
            out.append(Problem(where, 1, f"does not show {want.what}: {len(missing)} of {len(want.blocks)} "
                                         f"blocks of its text are missing, the first '{snippet(missing[0])}'",
                               REMEDY))
        wanted = set(want.blocks) | want.titles
        added = [s for s in text.segments if s.main and s.kind in ("text", "code") and s.text not in wanted]
        if not text.has_main:
            out.append(Problem(where, 1, f"{NO_MAIN}, so what it adds to {want.what} cannot be told", REMEDY))
        elif added:
            out.append(Problem(where, added[0].line, f"shows what is not in {want.what}: {len(added)} block"
                                                     f"{'s' if len(added) > 1 else ''} of its main content, the first "
                                                     f"'{snippet(added[0].text)}'", REMEDY))
    elif theme_page and expected.theme and text.has_main:  # a theme's own page (404.html): only its words
        foreign = [s for s in text.segments if s.main and s.kind in ("text", "code") and f" {s.text} " not in
                   expected.theme]
        if foreign:
            out.append(Problem(where, foreign[0].line, f"shows what the theme's own page does not: {len(foreign)} "
                                                       f"block{'s' if len(foreign) > 1 else ''} of its main content, "
                                                       f"the first '{snippet(foreign[0].text)}'", REMEDY))
    out += _leaks(where, text, expected, None)
    return out


def record_problems(where: str, line: int, title: str, text: str, expected: Expected) -> list[Problem]:
    """Problems of one search record: unpublished text in its title or text."""
    return _leaks(where, pagetext.read(f"<p>{html.escape(title)}</p>\n{text}"), expected, line)


def leaked(text: pagetext.Text, forbidden: Mapping[tuple[str, ...], str]) -> list[tuple[int, str, str]]:
    """(line, phrase, where it comes from) of each longest run of unpublished words in any stream of
    ``text``; a run that another stream holds inside a longer one, on the same lines, is named once."""
    found: list[tuple[int, int, str, str]] = []  # (first line, last line, phrase, source)
    for stream in text.streams:
        words = [w for w, _ in stream]
        i = 0
        while i <= len(words) - MIN_WORDS:
            source = forbidden.get(tuple(words[i:i + MIN_WORDS]))
            if source is None:
                i += 1
                continue
            j = i + 1
            while j <= len(words) - MIN_WORDS and forbidden.get(tuple(words[j:j + MIN_WORDS])) == source:
                j += 1
            end = j + MIN_WORDS - 1
            found.append((stream[i][1], stream[end - 1][1], " ".join(words[i:end]), source))
            i = end
    kept: list[tuple[int, int, str, str]] = []
    for first, last, phrase, source in sorted(found, key=lambda f: (-len(f[2]), f[0], f[2])):
        if not any(src == source and f" {phrase} " in f" {p} " and lo <= first and last <= hi
                   for lo, hi, p, src in kept):
            kept.append((first, last, phrase, source))
    return sorted({(first, phrase, source) for first, _, phrase, source in kept})


def _leaks(where: str, text: pagetext.Text, expected: Expected, line: int | None) -> list[Problem]:
    out = [Problem(where, line or at, f"shows '{snippet(phrase)}', from {source}", LEAK_REMEDY)
           for at, phrase, source in leaked(text, expected.forbidden)]
    if expected.titles:
        blocks: dict[str, int] = {}
        for s in text.segments:
            if s.kind != "hidden":
                blocks.setdefault(s.text, s.line)
        out += [Problem(where, line or blocks[title], f"shows '{title}', the title of {source}", LEAK_REMEDY)
                for title, source in expected.titles if title in blocks]
    return out


def _marker_problems(where: str, markup: str | list[tuple[int, str]], path: str, fingerprint: str) -> list[Problem]:
    found = markers(markup) if isinstance(markup, str) else markup
    if not found:
        return [Problem(where, 1, f"no {MARKER} marker: the page does not claim to be the signed version of "
                                  f"{path} ({fingerprint})", REMEDY)]
    return [Problem(where, line, f"the {MARKER} marker says '{value}', but the published version of {path} "
                                 f"is {fingerprint}", REMEDY)
            for line, value in found if value != f"{path} {fingerprint}"]


def markers(markup: str) -> list[tuple[int, str]]:
    """(line, content) of each ``<meta name="gloss-entry">`` in a page."""
    from html.parser import HTMLParser

    found: list[tuple[int, str]] = []

    class Finder(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            values = {k.lower(): v or "" for k, v in attrs}
            if tag == "meta" and values.get("name", "").lower() == MARKER:
                found.append((self.getpos()[0], " ".join(values.get("content", "").split())))

    finder = Finder(convert_charrefs=True)
    finder.feed(markup)
    finder.close()
    return found


def marker(path: str, fingerprint: str) -> str:
    """The marker our plugin writes into the ``<head>`` of a published entry's page."""
    return f'<meta name="{MARKER}" content="{html.escape(path)} {html.escape(fingerprint)}">'
