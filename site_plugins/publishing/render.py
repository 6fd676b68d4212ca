"""Rendering: pure functions from the content model to the Markdown MkDocs turns into pages.

A term page follows one anatomy, in this order: definition lede, body (whose last section may be
"Measured"), Diagram, Code, Related terms, Where you meet this, Sources, Byline. Links between pages
are written as relative ``.md`` links so MkDocs checks and rewrites them like hand-written ones.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import PurePosixPath

from site_plugins.content import Content, Entry, Excerpt, LessonMeta, TermMeta, md_links, normalise
from site_plugins.publishing import urlkeys
from site_plugins.publishing.publish import EntryState

PENDING_SENTENCE = "This entry stays a draft until a named author and a different named reviewer sign it."


def rel(from_src_uri: str, to_src_uri: str) -> str:
    """Relative link from one docs file to another, as written in Markdown."""
    src = PurePosixPath(from_src_uri).parent.parts
    dst = PurePosixPath(to_src_uri).parts
    common = 0
    while common < min(len(src), len(dst) - 1) and src[common] == dst[common]:
        common += 1
    return "/".join([".."] * (len(src) - common) + list(dst[common:]))


def code_page_uri(file: str) -> str:
    """Docs path of the generated page that shows a whole source file."""
    return f"{file}.md"


def code_raw_uri(file: str) -> str:
    """Docs path of the raw copy offered for download (beside the page, which owns ``file/``)."""
    p = PurePosixPath(file)
    return str(p.parent / "raw" / p.name)


def lesson_label(lesson: Entry) -> str:
    assert isinstance(lesson.meta, LessonMeta)
    return f"Day {lesson.meta.day}: {lesson.meta.title}"


@dataclass(frozen=True)
class PageParts:
    """Everything a term or lesson page shows besides its own model, gathered by the plugin."""

    body: str  # the body after measurement embeds were expanded
    excerpts: Sequence[Excerpt] = ()
    diagram_svg: str | None = None
    checked: Mapping[str, str | None] = field(default_factory=dict)  # source url -> "YYYY-MM-DD" | None
    byline: str = ""
    banner: str | None = None
    yours: str = ""  # "Run this on your GPU" (site_plugins.measured.yours), right after the measurements


def _lede(text: str) -> str:
    return f'<p class="gloss-lede">{escape(text)}</p>\n'


def _banner(text: str | None) -> str:
    if not text:
        return ""
    # What `!!! warning "Preview"` makes, kept out of the search index (it repeats on every draft).
    return (f'<div class="admonition warning" data-search-exclude>\n<p class="admonition-title">Preview</p>\n'
            f'<p>{escape(text)}</p>\n</div>\n\n')


def render_term(entry: Entry, parts: PageParts, *, content: Content, visible: Callable[[Entry], bool],
                backlinks: Sequence[Entry]) -> str:
    m = entry.meta
    assert isinstance(m, TermMeta)
    out = [f"# {m.title}\n", _banner(parts.banner), _lede(m.definition), "\n", parts.body.strip("\n"), "\n",
           parts.yours]
    if m.diagram is not None and parts.diagram_svg:
        caption = m.diagram.caption or m.diagram.alt
        out += ["\n## Diagram\n\n", '<figure class="gloss-figure" markdown="0">\n', parts.diagram_svg,
                f"\n<figcaption>{escape(caption)}</figcaption>\n</figure>\n"]
    if parts.excerpts:
        out.append("\n## Code\n")
        for ref, ex in zip(m.code, parts.excerpts, strict=False):
            last = ex.first_line + ex.text.count("\n")
            link = rel(entry.src_uri, code_page_uri(ex.file))
            out.append(f"\nFrom [{ex.file}]({link}), region `{ex.region}` (lines {ex.first_line}–{last})"
                       + (f": {ref.caption}" if ref.caption else "") + "\n\n")
            fence = code_fence(ex.text)
            out.append(f'{fence}{ex.language} linenums="{ex.first_line}"\n{ex.text}\n{fence}\n')
    related = [content.terms[s] for s in m.related if s in content.terms and visible(content.terms[s])]
    if related:
        out.append("\n## Related terms { data-search-exclude }\n\n")  # their own pages are indexed
        out += [f"- [{t.title}]({rel(entry.src_uri, t.src_uri)}): {t.lede}\n" for t in related]
    meet = _where_you_meet(entry, m, content, visible, backlinks)
    if meet:
        out.append("\n## Where you meet this\n\n")
        out += meet
    out += _sources(m.sources, parts.checked)
    out.append(parts.byline)
    return "".join(out)


def _where_you_meet(entry: Entry, m: TermMeta, content: Content, visible: Callable[[Entry], bool],
                    backlinks: Sequence[Entry]) -> list[str]:
    lines = []
    listed = set()
    for ref in m.lessons:
        lesson = content.lessons.get(ref.lesson)
        if lesson is None or not visible(lesson):
            continue
        listed.add(lesson.slug)
        lines.append(f"- [{lesson_label(lesson)}]({rel(entry.src_uri, lesson.src_uri)}): {ref.why}\n")
    for lesson in sorted(backlinks, key=_day):
        if lesson.slug in listed or not visible(lesson):
            continue
        listed.add(lesson.slug)
        lines.append(f"- [{lesson_label(lesson)}]({rel(entry.src_uri, lesson.src_uri)}): links here"
                     f" ({lesson.lede})\n")
    return lines


def _day(lesson: Entry) -> int:
    return lesson.meta.day if isinstance(lesson.meta, LessonMeta) else 0


def _sources(sources: Sequence[object], checked: Mapping[str, str | None]) -> list[str]:
    if not sources:
        return []
    out = ["\n## Sources\n\n"]
    for src in sources:
        title, url = src.title, src.url  # type: ignore[attr-defined]
        day = checked.get(url)
        note = f"checked {day}" if day else "not yet checked"
        out.append(f"- [{title}]({url}) <span class=\"gloss-checked\">({note})</span>\n")
    return out


def render_lesson(entry: Entry, parts: PageParts, *, content: Content, visible: Callable[[Entry], bool]) -> str:
    m = entry.meta
    assert isinstance(m, LessonMeta)
    out = [f"# Day {m.day}: {m.title}\n", _banner(parts.banner), _lede(m.summary), "\n",
           parts.body.strip("\n"), "\n", parts.yours]
    terms = [content.terms[s] for s in m.introduces if s in content.terms and visible(content.terms[s])]
    if terms:
        out.append("\n## Terms introduced\n\n")
        out += [f"- [{t.title}]({rel(entry.src_uri, t.src_uri)}): {t.lede}\n" for t in terms]
    if parts.excerpts:
        out.append("\n## Code\n\n")
        out += [f"- [{ex.file}]({rel(entry.src_uri, code_page_uri(ex.file))})\n" for ex in parts.excerpts]
    out += _sources(m.sources, parts.checked)
    out.append(parts.byline)
    return "".join(out)


def render_byline(state: EntryState, last_checked: str | None, any_sources: bool) -> str:
    b = state.byline
    checked = (f" Last checked on {last_checked}." if last_checked
               else " Sources not yet checked." if any_sources else "")
    if state.state == "signed" or (state.published and b.author and b.reviewer):
        text = (f"Written by {b.author}. Reviewed by {b.reviewer}. Written on {b.written_on}.{checked}")
        return f'\n---\n\n<p class="gloss-byline" data-search-exclude>{escape(text)}</p>\n'
    author = b.author or "pending"
    reviewer = b.reviewer or "pending"
    text = f"Written by: {author}. Reviewed by: {reviewer}.{checked}"
    # Out of the search index, as everything that repeats on every page.
    return (f'\n---\n\n<p class="gloss-byline" data-search-exclude>{escape(text)}</p>\n'
            f'<p class="gloss-byline-note" data-search-exclude>{PENDING_SENTENCE}</p>\n')  # on every draft


def code_fence(code: str) -> str:
    """A backtick fence longer than any backtick run in ``code``: a line of backticks in a source file (a
    comment quoting Markdown) then cannot close the block early and have the rest read as Markdown. A
    fence closes only on a line of exactly its own length, so three are enough for most files."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


#: The front matter of a generated page that search leaves out (its lines repeat what term pages say).
#: MkDocs reads it into ``page.meta`` from the generated file; the page's Markdown is :func:`body_of`.
UNSEARCHED = "---\nsearch:\n  exclude: true\n---\n\n"
# The front matter block as MkDocs finds it (mkdocs.utils.meta.YAML_RE).
_FRONT_MATTER = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)


def body_of(markdown: str) -> str:
    """A generated page's Markdown without its front matter, which MkDocs has already read as meta data:
    what MkDocs itself hands to Markdown, so the block never reaches the page as text."""
    m = _FRONT_MATTER.match(markdown)
    return markdown[m.end():].lstrip("\n") if m else markdown


#: The A–Z page names at most this many terms under a letter; the letter's own page lists them all (with
#: their definitions), so that this page stays small however many terms there are.
AZ_NAMES = 12


def render_glossary_index(index_uri: str, letters: Sequence[tuple[str, str, Sequence[tuple[str, str]]]],
                          pending: int, *, preview: bool = False) -> str:
    """The A–Z page: each letter (``(label, letter page docs path, [(term name, term docs path), ...])``)
    with its count and the names of its first :data:`AZ_NAMES` terms, each a link to its page."""
    # Out of the search index: each term is found by its own entry.
    out = [UNSEARCHED, "# Glossary\n\n",
           "The terms A to Z; each letter's page lists its terms with their one-line definitions.\n\n"]
    if pending:
        out.append(_pending_note(pending, "term", preview))
    if not letters:
        out.append("\nNo term is published yet.\n")
    else:
        out.append("\n")
    for label, uri, terms in letters:
        shown = "Other (digits and symbols)" if label == OTHER_INITIAL else label
        count = len(terms)
        names = ", ".join(f"[{_md_text(name)}]({rel(index_uri, t)})" for name, t in terms[:AZ_NAMES])
        more = f", and {count - AZ_NAMES:,} more" if count > AZ_NAMES else ""
        out.append(f"- [{shown}]({rel(index_uri, uri)}), {count:,} term{'' if count == 1 else 's'}: {names}{more}\n")
    return "".join(out)


def _md_text(text: str) -> str:
    """A name as link text: Markdown's own punctuation kept literal."""
    return "".join(f"\\{c}" if c in "\\`*_[]<>" else c for c in text)


def _short_name(term: Entry) -> str:
    """'What is tiling in CUDA?' -> 'tiling'; falls back to the slug in words."""
    import re

    m = re.match(r"^What (?:is|are) (?:an? |the )?(.+?)(?: in CUDA)?\?$", term.title)
    # As written: "cuBLAS", "libcuda.so" and "nvidia-smi" keep their own capitalisation.
    return m.group(1) if m else term.slug.replace("-", " ")


def _sort_key(term: Entry) -> tuple[str, str]:
    return (_short_name(term).lower(), term.slug)


OTHER_INITIAL = "#"  # where names that do not start with a letter (digits, symbols) are listed


def az_initial(name: str) -> str:
    """The A–Z letter a name is listed under: its first letter without accents, upper case; else "#"."""
    first = unicodedata.normalize("NFKD", name.strip()[:1])[:1].upper()[:1]  # "ß".upper() is "SS"
    return first if "A" <= first <= "Z" else OTHER_INITIAL


def az_order(terms: Sequence[Entry]) -> list[tuple[Entry, str]]:
    """Terms in A–Z order with the name they are listed under (the index, letter pages and navigation)."""
    return [(t, _short_name(t)) for t in sorted(terms, key=_sort_key)]


def render_lesson_index(index_uri: str, lessons: Sequence[Entry], pending: int, *, preview: bool = False) -> str:
    out = ["# Lessons\n\n", "The lessons by day, each with what it covers.\n\n"]
    if pending:
        out.append(_pending_note(pending, "lesson", preview))
    for lesson in sorted(lessons, key=_day):
        out.append(f"- [{lesson_label(lesson)}]({rel(index_uri, lesson.src_uri)}): {lesson.lede}\n")
    if not lessons:
        out.append("\nNo lesson is published yet.\n")
    return "".join(out)


def _pending_note(pending: int, kind: str, preview: bool = False) -> str:
    noun = f"{kind} awaits" if pending == 1 else f"{kind}s await"
    if preview:  # the drafts are listed below: say so, and that the published site leaves them out
        it = "it is" if pending == 1 else "they are"
        where = "on the letter pages" if kind == "term" else "here"  # the A–Z lists letters, not terms
        return (f'<p class="gloss-pending">Preview: {pending} {noun} sign-off; {it} listed {where} with the '
                "published ones and left out of the published site until signed.</p>\n\n")
    return f'<p class="gloss-pending">{pending} {noun} sign-off and {"is" if pending == 1 else "are"} ' \
           "not shown here yet.</p>\n\n"


def render_code_page(file: str, source: str, regions: Mapping[str, tuple[int, int]], language: str) -> str:
    name = PurePosixPath(file).name
    out = [f"# {file}\n\n",
           f"The whole file, as measured. [Download {name}](raw/{name}).\n\n"]
    if regions:
        out.append("Named regions quoted by the glossary: "
                   + ", ".join(f"`{n}` (lines {a}–{b})" for n, (a, b) in sorted(regions.items(), key=lambda i: i[1]))
                   + ".\n\n")
    fence = code_fence(source)
    out.append(f'{fence}{language} linenums="1"\n{source.rstrip()}\n{fence}\n')
    return "".join(out)


def unlink_hidden(markdown: str, page_src_uri: str, hidden: Mapping[str, str]) -> tuple[str, list[str]]:
    """Turn links to hidden (draft) pages into their plain text; returns the hidden targets hit."""
    base = PurePosixPath(page_src_uri).parent
    hits: list[str] = []

    def swap(m: object) -> str:
        import re

        assert isinstance(m, re.Match)
        target = m.group("target")
        if "://" in target:
            return str(m.group(0))
        uri = normalise(base / target)
        if uri in hidden:
            hits.append(uri)
            return str(m.group("text"))
        return str(m.group(0))

    return md_links().sub(swap, markdown), hits


def add_term_tips(markdown: str, page_src_uri: str, tips: Mapping[str, str]) -> str:
    """Give every link to a term a title holding its definition, shown as a tooltip on hover."""
    base = PurePosixPath(page_src_uri).parent

    def swap(m: re.Match[str]) -> str:
        whole = m.group(0)
        target = m.group("target")
        if "://" in target or whole.endswith('")'):
            return whole
        uri = normalise(base / target)
        tip = tips.get(uri)
        if tip is None:
            return whole
        anchor = m.group("anchor") or ""
        title = tip.replace('"', "&quot;")
        return f'[{m.group("text")}]({target}{anchor} "{title}")'

    return md_links().sub(swap, markdown)


_HTML_LINK = re.compile(r"<a\b(?P<attrs>[^>]*?)\bhref\s*=\s*(?P<q>[\"'])(?P<href>.*?)(?P=q)[^>]*>(?P<inner>.*?)</a\s*>",
                        re.IGNORECASE | re.DOTALL)


def hidden_targets(hidden: Iterable[str]) -> dict[str, str]:
    """Every site path a hidden page could be linked by (its .md path, its directory URL, its .html page)
    -> its docs path."""
    out: dict[str, str] = {}
    for uri in hidden:
        stem = uri[:-3] if uri.endswith(".md") else uri
        for form in (uri, stem, f"{stem}/", f"{stem}/index.html", f"{stem}.html", urlkeys.key(uri) or uri):
            out[form] = uri
    return out


def unlink_hidden_html(html: str, page_src_uri: str, page_url: str,
                       targets: Mapping[str, str]) -> tuple[str, list[str]]:
    """Turn ``<a href>`` links (raw HTML in Markdown, or rendered) to hidden pages into their inner text.

    ``targets`` comes from :func:`hidden_targets`. An href is resolved against the page's URL folder
    (as a browser does), against its docs folder (as a Markdown link is) and, with a leading '/', against
    the site root; any of them naming a hidden page unlinks it. Returns the hidden docs paths hit."""
    hits: list[str] = []
    url_dir = PurePosixPath(page_url) if page_url.endswith("/") else PurePosixPath(page_url).parent
    bases = {PurePosixPath(page_src_uri).parent, url_dir}
    page_file = f"{page_url}index.html" if page_url.endswith("/") or not page_url else page_url

    def swap(m: re.Match[str]) -> str:
        href = m.group("href").strip().split("#", 1)[0].split("?", 1)[0]
        if not href or "://" in href or href.startswith(("mailto:", "data:", "javascript:")):
            return m.group(0)
        candidates = [href.lstrip("/")] if href.startswith("/") else [normalise(b / href) for b in bases]
        # Any other spelling (letter case, percent-encoding, dot segments): the final audit's key.
        key = urlkeys.target_key(m.group("href"), page_file, "")
        candidates += [key] if key else []
        for c in candidates:
            hit = targets.get(c)
            if hit is not None:
                hits.append(hit)
                return m.group("inner")
        return m.group(0)

    return _HTML_LINK.sub(swap, html), hits


@dataclass(frozen=True)
class Tally:
    """How many entries the publish decision lets out: said on the home page and by ``gloss build``.
    ``changed``: those of the published ones shown in their last signed version, a later change waiting."""

    published: int
    total: int
    changed: int = 0

    @property
    def waiting(self) -> int:
        return self.total - self.published


def tally(states: Mapping[str, EntryState]) -> Tally:
    return Tally(sum(1 for s in states.values() if s.published), len(states),
                 sum(1 for s in states.values() if s.published and s.state == "changed"))


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


#: What a reader of the published site is told about the entries it leaves out: words about review, no
#: commands (the authors' way to the drafts, make preview and gloss status, is in README and in the
#: line make site prints last).
WHEN_PUBLISHED = "Each entry appears here once its author and a reviewer have both signed it."


def as_last_signed(n: int) -> str:
    """The words for published entries whose later change awaits sign-off (home page, build summary)."""
    return f"{n} of them as last signed: a later change to {'it' if n == 1 else 'each'} awaits sign-off"


def home_notice(t: Tally, *, preview: bool) -> str:
    """The home page's word on entries not published, or published as last signed while a change waits
    (HTML; empty when every entry is published as it is). Built from the publish decision."""
    if t.waiting == 0 and t.changed == 0:
        return ""
    await_ = "awaits" if t.waiting == 1 else "await"
    if preview:
        title = "Preview"
        text = (f"This preview shows all {_entries(t.total)}. {t.waiting} of them {await_} sign-off by their author "
                "and a reviewer: each carries a banner, and the published site (<code>make site</code>) leaves "
                f"{'it' if t.waiting == 1 else 'them'} out.")
        if t.changed:
            text += (f" {t.changed} more show{'s' if t.changed == 1 else ''} a change that awaits sign-off; the "
                     "published site shows their last signed version.")
        # (Like the drafts' banners: the preview's own word on itself is no search text.)
        return _notice(title, text, ' data-search-exclude')
    if t.published == 0:
        title = "Nothing is published yet"
        text = (f"None of the {_entries(t.total)} (terms and lessons) has been signed by its author and a "
                f"reviewer yet, so this site shows none of them. {WHEN_PUBLISHED}")
    else:
        title = "Not every entry is published yet" if t.waiting else "Not every change is published yet"
        changed = f" ({as_last_signed(t.changed)})" if t.changed else ""
        rest = (f"; the other {t.waiting} {await_} sign-off by their author and a reviewer and "
                f"{'is' if t.waiting == 1 else 'are'} left out of this site." if t.waiting else ".")
        text = f"{t.published} of {_entries(t.total)} are published{changed}{rest} {WHEN_PUBLISHED}"
    return _notice(title, text)


def _notice(title: str, text: str, attrs: str = "") -> str:
    return (f'<div class="admonition note gloss-unpublished" role="note"{attrs}><p class="admonition-title">{title}</p>'
            f"<p>{text}</p></div>")


HOME = "index.md"  # the docs path of the home page, which carries the notice of unpublished entries


def handed(uri: str, markdown: str, states: Mapping[str, EntryState], tips: Mapping[str, str], *,
           preview: bool) -> str:
    """A page's Markdown as the plugin hands it to MkDocs, once its text is chosen (generated, an entry's,
    chrome): the home page with its notice of unpublished entries, every link to a term with its tooltip.
    The plugin and the audit (site_plugins.publishing.signedtext) both call this, so they render the same page."""
    if uri == HOME:  # an empty or partly empty site says so, with the counts of this build
        markdown = with_home_notice(markdown, home_notice(tally(states), preview=preview))
    return add_term_tips(markdown, uri, tips)


def with_home_notice(markdown: str, notice: str) -> str:
    """``markdown`` with ``notice`` after its first heading (or at the top when it has none)."""
    if not notice:
        return markdown
    head, _, rest = markdown.partition("\n")
    if head.startswith("# "):
        return f"{head}\n\n{notice}\n\n{rest.lstrip(chr(10))}"
    return f"{notice}\n\n{markdown}"
