"""HTML scanning with the standard library's parser: anchors of remote pages, links and ids of built pages.

Two readers over one tokenizer:

- :class:`AnchorScanner` is fed a remote page chunk by chunk (the checker stops reading as soon as every
  wanted fragment is found, or at the body cap) and collects the ids that fragments can target.
- :func:`scan_page` reads one built page of our own site: its ids and every link with its line.

:func:`find_fragment` decides whether a fragment is on a page, missing, or needs JavaScript to tell.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Literal
from urllib.parse import unquote

FragmentState = Literal["found", "missing", "cannot verify"]

# GitHub renders Markdown headings with id="user-content-<slug>" and its JavaScript scrolls #slug there.
GITHUB_PREFIX = "user-content-"
# Below this much visible text, a page with scripts is taken for an app shell filled in by JavaScript.
APP_SHELL_TEXT = 400
SCRIPT_KEEP = 2_000_000  # characters of inline script kept to look for anchors that live in script data


class AnchorScanner(HTMLParser):
    """Incremental: feed decoded text as it arrives; ``ids`` grows as the page is read."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.scripts = 0
        self.text_chars = 0
        self.script_text: list[str] = []
        self._script_kept = 0
        self._in: str | None = None  # "script" or "style" while inside one

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name == "id" or (name == "name" and tag == "a")):
                self.ids.add(value)
        if tag == "script":
            self.scripts += 1
            self._in = "script"
        elif tag == "style":
            self._in = "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in ("script", "style"):
            self._in = None

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            if self._script_kept < SCRIPT_KEEP:
                self.script_text.append(data)
                self._script_kept += len(data)
        elif self._in is None:
            self.text_chars += len(data.strip())

    def has(self, fragment: str) -> bool:
        return find_fragment(self, fragment, complete=False)[0] == "found"


def _candidates(fragment: str) -> list[str]:
    out = [fragment]
    decoded = unquote(fragment)
    if decoded != fragment:
        out.append(decoded)
    return out


def find_fragment(scan: AnchorScanner, fragment: str, *, complete: bool = True,
                  truncated_at: int | None = None) -> tuple[FragmentState, str]:
    """Whether ``fragment`` (without '#') targets something on the scanned page, and why not.

    ``complete``: the whole page was read. ``truncated_at``: bytes read when the body cap stopped reading.
    """
    if fragment in ("", "top"):  # HTML: an empty fragment or #top scrolls to the top of any page
        return "found", ""
    cands = _candidates(fragment)
    for c in cands:
        if c in scan.ids:
            return "found", ""
        lower = c.lower()
        if GITHUB_PREFIX + c in scan.ids or GITHUB_PREFIX + lower in scan.ids:
            return "found", ""
    if not complete and truncated_at is None:
        return "missing", ""
    if fragment.startswith(("/", "!")):
        return "cannot verify", "the fragment is a client-side route handled by JavaScript"
    if ":~:" in fragment:
        return "cannot verify", "text fragments are resolved by the browser, not by ids"
    script = "".join(scan.script_text)
    for c in cands:
        quoted = r"[\"'#]" + re.escape(c) + r"[\"'\\]"
        if re.search(re.escape(GITHUB_PREFIX + c) + r"(?![\w-])|" + quoted, script):
            return "cannot verify", "the anchor appears only in the page's script data (rendered by JavaScript)"
    if scan.scripts and scan.text_chars < APP_SHELL_TEXT:
        return "cannot verify", "the page is rendered by JavaScript (its HTML has almost no text)"
    if truncated_at is not None:
        return "cannot verify", f"not in the first {truncated_at:,} bytes (the body cap); the rest was not read"
    return "missing", ""


async def read_anchors(chunks: AsyncIterator[bytes], ctype: str, charset: str | None, fragments: set[str],
                       cap: int) -> dict[str, tuple[FragmentState, str]]:
    """Read a remote page's body (at most ``cap`` bytes, stopping once every fragment is found) and say
    where each fragment stands."""
    if ctype and ctype not in ("text/html", "application/xhtml+xml"):
        why = f"fragments are only checked on HTML pages, and this is {ctype}"
        return {f: ("cannot verify", why) for f in fragments}
    try:
        decoder = codecs.getincrementaldecoder(charset or "utf-8")(errors="replace")
    except LookupError:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    scanner = AnchorScanner()
    read = 0
    truncated: int | None = None
    complete = False
    async for chunk in chunks:
        if read + len(chunk) > cap:
            chunk = chunk[: cap - read]
            truncated = cap
        read += len(chunk)
        scanner.feed(decoder.decode(chunk))
        if all(scanner.has(f) for f in fragments):
            break
        if truncated is not None:
            break
    else:
        scanner.feed(decoder.decode(b"", final=True))
        scanner.close()
        complete = True
    return {f: find_fragment(scanner, f, complete=complete or truncated is not None, truncated_at=truncated)
            for f in fragments}


# --- built pages of our own site ------------------------------------------------------------------

LinkTag = Literal["a", "area", "img", "link", "script", "source", "iframe"]
_LINK_ATTRS: dict[str, str] = {"a": "href", "area": "href", "img": "src", "link": "href", "script": "src",
                               "source": "src", "iframe": "src"}


@dataclass(frozen=True)
class PageLink:
    tag: str
    url: str
    line: int


@dataclass
class PageScan:
    ids: set[str] = field(default_factory=set)
    links: list[PageLink] = field(default_factory=list)
    base: str | None = None


class _PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scan = PageScan()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        line = self.getpos()[0]
        a = dict(attrs)
        ident = a.get("id")
        if ident:
            self.scan.ids.add(ident)
        if tag == "a" and a.get("name"):
            self.scan.ids.add(a["name"] or "")
        if tag == "base" and a.get("href") and self.scan.base is None:
            self.scan.base = a["href"]
        attr = _LINK_ATTRS.get(tag)
        if attr is None:
            return
        if tag == "link" and not _checked_rel(a.get("rel") or ""):
            return
        value = a.get(attr)
        if value is not None:
            self.scan.links.append(PageLink(tag, value.strip(), line))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)


def _checked_rel(rel: str) -> bool:
    # Stylesheets, icons and the like must exist; canonical/alternate/preconnect point elsewhere on purpose.
    words = set(rel.lower().split())
    return bool(words & {"stylesheet", "icon", "shortcut", "apple-touch-icon", "manifest", "prev", "next"})


def scan_page(text: str) -> PageScan:
    parser = _PageParser()
    parser.feed(text)
    parser.close()
    return parser.scan


def fragments_of(urls: Iterable[str]) -> set[str]:
    return {u.split("#", 1)[1] for u in urls if "#" in u}
