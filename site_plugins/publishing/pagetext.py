"""What a reader sees of a page, as text that can be compared across engines.

Engines differ in markup (wrappers, classes, heading anchors, smart quotes, entity spelling), not in the
words a reader reads. So a page is reduced to *segments*: the text between block elements (a paragraph,
a list item, a table cell, a heading, the ``<title>``...), each with the line it starts on, plus the
values of the attributes a reader is shown (``title`` tooltips, ``alt``, ``aria-label``, ``placeholder``,
a ``<meta>`` description). Each is normalised (:func:`normalise`): Unicode NFKC, case folded, every run of
characters that are not letters, digits or ``_`` one space. Scripts, styles, templates, comments and other
attribute values are not shown text, but are kept as "hidden" segments, so that a search for a phrase
finds it there too.

Pure over strings; :mod:`site_plugins.publishing.signedtext` uses it on built pages and on what the build renders.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Protocol

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
SHOWN_ATTRS = ("title", "alt", "aria-label", "placeholder")
_META_SHOWN = re.compile(r"^(description|og:.*|twitter:.*)$", re.IGNORECASE)


# Format characters (zero-width space and joiners, soft hyphen, direction marks, BOM) are invisible: a
# word with one inside reads as the same word.
@functools.cache
def _invisible() -> dict[int, None]:
    return {c: None for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"}  # (0.1 s, once)


@functools.lru_cache(maxsize=1 << 16)  # (pure; a site repeats its attribute values and nav labels on every page)
def normalise(text: str) -> str:
    """``text`` as compared: without format characters, NFKC, case folded, words separated by one space."""
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", text.translate(_invisible())).casefold()))


@dataclass(frozen=True)
class Segment:
    line: int
    text: str  # normalised, never empty
    # "text"; "code" (inside <pre>); "attr" (an attribute value a reader is shown); "hidden" (what the page
    # holds but does not show as such: scripts, styles, comments, other attribute values)
    kind: str = "text"
    main: bool = False  # inside the page's main content (see MAIN)


@dataclass
class Text:
    """A page's segments, and the whole as one string for searching (segments joined by one space)."""

    segments: list[Segment]
    has_main: bool = False  # whether the page marks its main content (see MAIN)
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
        self._hidden: list[str] = []
        # Each open main content element (a page may mark several): [its tag, how many of that tag are open]
        self._mains: list[tuple[str, int]] = []
        self.has_main = False

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
        if self.observer is not None:
            self.observer.start(tag, attrs, self.getpos()[0])
        if tag in SKIP:
            self._skip += 0 if closed else 1
            self._hidden = []
            return
        if self._skip:
            return
        if tag in BLOCKS:
            self._flush()
        elif tag in ("br", "wbr"):
            self._buf.append(" " if tag == "br" else "")
        if tag == "pre" and not closed:
            self._pre += 1
        line = self.getpos()[0]
        values = {k.lower(): v or "" for k, v in attrs}
        if not closed:
            self._mains = [(t, n + (t == tag)) for t, n in self._mains]
            if is_main(tag, values):
                self._mains.append((tag, 1))
                self.has_main = True
        shown = [a for a in SHOWN_ATTRS if values.get(a)]
        if tag == "meta" and _META_SHOWN.match(values.get("name") or values.get("property") or ""):
            shown.append("content")
        self.segments += [Segment(line, t, "attr" if name in shown else "hidden")
                          for name, v in values.items() if (t := normalise(v))]

    def handle_endtag(self, tag: str) -> None:
        if self.observer is not None:
            self.observer.end(tag)
        if tag in SKIP:
            self._skip = max(0, self._skip - 1)
            text = normalise("".join(self._hidden))
            if text:
                self.segments.append(Segment(self.getpos()[0], text, "hidden"))
            self._hidden = []
            return
        if self._skip:
            return
        if tag in BLOCKS:
            self._flush()
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        self._mains = [(t, left) for t, n in self._mains if (left := n - (t == tag)) > 0]

    def handle_comment(self, data: str) -> None:
        text = normalise(data)
        if text:
            self.segments.append(Segment(self.getpos()[0], text, "hidden"))

    def handle_data(self, data: str) -> None:
        if self.observer is not None:
            self.observer.data(data, self.getpos()[0])
        if self._skip:
            self._hidden.append(data)
            return
        if not "".join(self._buf).strip() and data.strip():  # the line where the text itself starts
            lead = data[: len(data) - len(data.lstrip())]
            self._line = self.getpos()[0] + lead.count("\n")
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
    return Text(reader.segments, reader.has_main)
