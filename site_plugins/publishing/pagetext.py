"""What a reader sees of a page, as text that can be compared across engines.

Engines differ in markup (wrappers, classes, heading anchors, smart quotes, entity spelling), not in the
words a reader reads. So a page is reduced to *segments*: the text between block elements (a paragraph,
a list item, a table cell, a heading, the ``<title>``...), each with the line it starts on, plus the
values of the attributes a reader is shown (``title`` tooltips, ``alt``, ``aria-label``, ``placeholder``,
a ``<meta>`` description). Each is normalised (:func:`normalise`): Unicode NFKC, case folded, every run of
characters that are not letters, digits or ``_`` one space. Scripts, styles, templates, comments and other
attribute values are not shown text, but are kept as "hidden" segments, so that a search for a phrase
finds it there too.

Besides the blocks, a page is read as *streams* of words, where a phrase is looked for whatever the
elements around its words: the text a browser shows (inline elements join, block elements and line breaks
separate, and what an element hides by its ``hidden`` or ``aria-hidden`` attribute, an inline style or a
class the page's own ``<style>`` hides is left out, so words split by hidden elements read as shown), all
the text a crawler reads (the same with hidden elements, scripts, styles, templates at any depth,
comments, CDATA sections and declarations in place), and each attribute value on its own.

Pure over strings; :mod:`site_plugins.publishing.signedtext` uses it on built pages and on what the build renders.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import unquote

from site_plugins.publishing.fasttags import FastTags

_WORD = re.compile(r"\w+")
# Elements that start a new run of text: a reader sees their contents as a separate block.
BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "body", "button", "caption", "dd", "details", "dialog", "div",
    "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head",
    "header", "hr", "html", "label", "legend", "li", "main", "nav", "ol", "option", "p", "pre", "section",
    "select", "summary", "table", "tbody", "td", "textarea", "tfoot", "th", "thead", "title", "tr", "ul",
    "svg", "text", "desc", "img",
})
SKIP = frozenset({"script", "style", "template"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                  "track", "wbr"})
_HIDING_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*(hidden|collapse)|font-size\s*:\s*0(?![.\d]*[1-9])"
                           r"|opacity\s*:\s*0(?![.\d]*[1-9])|content-visibility\s*:\s*hidden",
                           re.IGNORECASE)
_CSS_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
SHOWN_ATTRS = ("title", "alt", "aria-label", "placeholder")
_META_SHOWN = re.compile(r"^(description|og:.*|twitter:.*)$", re.IGNORECASE)


# Every default-ignorable code point (zero-width space and joiners, soft hyphen, direction marks, BOM,
# combining grapheme joiner U+034F, variation selectors, Hangul fillers...) and every other format character
# draws nothing: a word with one inside reads as the same word.
# Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt; stable since Unicode 5.2 but for
# additions inside these blocks' reserved code points, which the ranges already cover).
DEFAULT_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
                     (0x13430, 0x1343F))  # (the last: format controls newer than some Pythons' tables)


@functools.cache
def _invisible() -> dict[int, None]:
    table: dict[int, None] = {c: None for lo, hi in DEFAULT_IGNORABLE for c in range(lo, hi + 1)}
    table.update({c: None for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"})  # (0.1 s, once)
    return table


def fold(text: str) -> str:
    """``text`` without invisible code points, NFKC, case folded (NFKC may yield an ignorable: dropped too)."""
    return unicodedata.normalize("NFKC", text.translate(_invisible())).casefold().translate(_invisible())


@functools.lru_cache(maxsize=1 << 16)  # (pure; a site repeats its attribute values and nav labels on every page)
def normalise(text: str) -> str:
    """``text`` as compared: :func:`fold`, words separated by one space."""
    return " ".join(_WORD.findall(fold(text)))


def words(text: str) -> list[str]:
    return _WORD.findall(fold(text))


@dataclass(frozen=True)
class Segment:
    line: int
    text: str  # normalised, never empty
    # "text"; "code" (inside <pre>); "attr" (an attribute value a reader is shown); "hidden" (what the page
    # holds but does not show as such: scripts, styles, comments, other attribute values)
    kind: str = "text"
    main: bool = False  # inside the page's main content (see MAIN)


class Stream:
    """Text as read in one order (see the module's docstring): pieces joined as written, so a word split by
    inline markup is one word, with the line each piece starts on."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.lines: list[int] = []

    def add(self, text: str, line: int) -> None:
        if text:
            self.pieces.append(text)
            self.lines.append(line)

    def words(self) -> list[tuple[str, int]]:
        """(normalised word, line) of each word."""
        folded = [fold(p) for p in self.pieces]
        text = "".join(folded)
        starts, at = [], 0
        for f in folded:
            starts.append(at)
            at += len(f)
        out = []
        for m in _WORD.finditer(text):
            i = max(0, bisect.bisect_right(starts, m.start()) - 1)
            out.append((m.group(), self.lines[i] if self.lines else 1))
        return out


@dataclass
class Text:
    """A page's segments, and the whole as one string for searching (segments joined by one space)."""

    segments: list[Segment]
    has_main: bool = False  # whether the page marks its main content (see MAIN)
    streams: list[list[tuple[str, int]]] = field(default_factory=list)  # (word, line) per stream
    joined: str = field(init=False)
    _starts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        starts, at = [], 1  # offsets in " " + joined + " "
        for s in self.segments:
            starts.append(at)
            at += len(s.text) + 1
        self._starts = starts
        self.joined = " ".join(s.text for s in self.segments)

    def find(self, phrase: str) -> int | None:
        """The line on which the normalised ``phrase`` starts (whole words), or None when it is not there."""
        at = f" {self.joined} ".find(f" {phrase} ")
        if at < 0 or not self.segments:
            return None
        return self.segments[max(0, bisect.bisect_right(self._starts, at + 1) - 1)].line

    def __contains__(self, phrase: str) -> bool:
        return f" {phrase} " in f" {self.joined} "


class Observer(Protocol):
    """What else one pass over a page collects (the audit's links and markers), told each tag and text."""

    def start(self, tag: str, attrs: list[tuple[str, str | None]], line: int) -> None: ...

    def data(self, data: str, line: int) -> None: ...

    def end(self, tag: str) -> None: ...


class _Reader(FastTags):
    def __init__(self, observer: Observer | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self.observer = observer
        self.segments: list[Segment] = []
        self._buf: list[str] = []
        self._line = 1
        self._skip = 0
        self._pre = 0
        # Each open main content element (a page may mark several): [its tag, how many of that tag are open]
        self._mains: list[tuple[str, int]] = []
        self.has_main = False
        self.shown, self.crawled = Stream(), Stream()
        self.attrs: list[Stream] = []
        self._hides: list[tuple[str, int]] = []  # open elements that hide their content, as _mains
        self._hiding_classes: set[str] = set()
        self._skipped: list[list[str]] = []  # the text of each open script, style or template

    def _flush(self) -> None:
        text = normalise("".join(self._buf))
        if text:
            self.segments.append(Segment(self._line, text, "code" if self._pre else "text", bool(self._mains)))
        self._buf = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open(tag, attrs, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open(tag, attrs, closed=True)

    def _open(self, tag: str, attrs: list[tuple[str, str | None]], *, closed: bool) -> None:
        line = self.getpos()[0]
        if self.observer is not None:
            self.observer.start(tag, attrs, line)
        values = {k.lower(): v or "" for k, v in attrs}
        for v in values.values():
            for form in (v, unquote(v)) if "%" in v else (v,):  # (a URL's words percent-encoded: data:, queries)
                if form.strip():
                    self.attrs.append(Stream())
                    self.attrs[-1].add(form, line)
        if tag in SKIP:
            if not closed:
                self._skip += 1
                self._skipped.append([])
            self.crawled.add(" ", line)
            return
        if self._skip:
            return
        if tag in BLOCKS:
            self._flush()
            self._gap(line)
        elif tag == "br":
            self._buf.append(" ")
            self._gap(line)
        if tag == "pre" and not closed:
            self._pre += 1
        if not closed and tag not in VOID:
            self._mains = [(t, n + (t == tag)) for t, n in self._mains]
            self._hides = [(t, n + (t == tag)) for t, n in self._hides]
            if is_main(tag, values):
                self._mains.append((tag, 1))
                self.has_main = True
            if self._hides_content(values):
                self._hides.append((tag, 1))
        shown = [a for a in SHOWN_ATTRS if values.get(a)]
        if tag == "meta" and _META_SHOWN.match(values.get("name") or values.get("property") or ""):
            shown.append("content")
        self.segments += [Segment(line, t, "attr" if name in shown else "hidden")
                          for name, v in values.items() if (t := normalise(v))]

    def _hides_content(self, values: dict[str, str]) -> bool:
        return ("hidden" in values or values.get("aria-hidden", "").strip().lower() == "true"
                or _HIDING_STYLE.search(values.get("style", "")) is not None
                or bool(self._hiding_classes & set(values.get("class", "").split())))

    def _gap(self, line: int) -> None:
        self.shown.add(" ", line)
        self.crawled.add(" ", line)

    def handle_endtag(self, tag: str) -> None:
        line = self.getpos()[0]
        if self.observer is not None:
            self.observer.end(tag)
        if tag in SKIP:
            if self._skip and self._skipped:
                self._skip -= 1
                inner = "".join(self._skipped.pop())
                text = normalise(inner)
                if text:
                    self.segments.append(Segment(line, text, "hidden"))
                if tag == "style":  # classes this page's own stylesheet hides
                    for selectors, body in _CSS_RULE.findall(inner):
                        if _HIDING_STYLE.search(body):
                            self._hiding_classes |= set(_CLASS.findall(selectors))
            self.crawled.add(" ", line)
            return
        if self._skip:
            return
        if tag in BLOCKS:
            self._flush()
            self._gap(line)
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        self._mains = [(t, left) for t, n in self._mains if (left := n - (t == tag)) > 0]
        self._hides = [(t, left) for t, n in self._hides if (left := n - (t == tag)) > 0]

    def handle_comment(self, data: str) -> None:
        self._aside(data)

    def unknown_decl(self, data: str) -> None:  # <![CDATA[...]]> and the like: text a crawler reads
        self._aside(data[6:] if data.startswith("CDATA[") else data)

    def handle_decl(self, decl: str) -> None:
        self._aside(decl)

    def handle_pi(self, data: str) -> None:
        self._aside(data)

    def _aside(self, data: str) -> None:
        line = self.getpos()[0]
        if self._skip and self._skipped:
            self._skipped[-1].append(f" {data} ")
        text = normalise(data)
        if text:
            self.segments.append(Segment(line, text, "hidden"))
        self.crawled.add(f" {data} ", line)

    def handle_data(self, data: str) -> None:
        line = self.getpos()[0]
        if self.observer is not None:
            self.observer.data(data, line)
        self.crawled.add(data, line)
        if self._skip:
            if self._skipped:
                self._skipped[-1].append(data)
            return
        if not self._hides:
            self.shown.add(data, line)
        if not "".join(self._buf).strip() and data.strip():  # the line where the text itself starts
            lead = data[: len(data) - len(data.lstrip())]
            self._line = line + lead.count("\n")
        self._buf.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def is_main(tag: str, attrs: dict[str, str]) -> bool:
    """The element holding a page's own content: Material's (and Zensical's) ``<article
    class="md-content__inner">``, or any element with ``role="main"`` (MkDocs' themes)."""
    return (tag == "article" and "md-content__inner" in attrs.get("class", "").split()) or \
        attrs.get("role", "").strip().lower() == "main"


def read(markup: str, observer: Observer | None = None) -> Text:
    """The segments of an HTML page or fragment; ``observer`` is told every tag and text on the way (one
    pass over the page for everything the audit reads in it)."""
    reader = _Reader(observer)
    reader.feed(markup)
    reader.close()
    streams = [reader.shown.words(), reader.crawled.words(), *(a.words() for a in reader.attrs)]
    return Text(reader.segments, reader.has_main, [w for w in streams if len(w) >= 3])
