"""External resources: the site promises no request beyond itself at page load, so an image (or any
other file a page loads) must be a file of the site (committed under the docs folder), never a URL.

Pure over Markdown text: inline images ``![alt](https://...)``, reference images ``![alt][id]`` whose
definition is a URL, and, in raw HTML outside code, every attribute a browser fetches at load (``src``,
``srcset``, ``data``, ``poster``, ``background``, ``href`` of ``<link>``, ``<image>`` and ``<use>``...)
and every CSS ``url()`` or ``@import`` of another site: the class :data:`FETCHED` declares once (the
audit reads the same list in the built pages).
"""

from __future__ import annotations

import re

from site_plugins.files.messages import Problem
from site_plugins.measured.syntax import prose_segments

_URL = r"(?:[a-z][a-z0-9+.-]*:)?//[^\s)\"'>]+"
_INLINE = re.compile(rf"!\[[^\]]*\]\(\s*<?({_URL})")
_REF_USE = re.compile(r"!\[([^\]]*)\](?:\[([^\]]*)\])?")
_REF_DEF = re.compile(rf"^ {{0,3}}\[([^\]]+)\]:\s*<?({_URL})", re.MULTILINE)
#: Attributes whose URL a browser fetches when the page loads, on any element (``href`` only on these tags).
FETCHED = ("src", "srcset", "data", "poster", "background", "lowsrc", "dynsrc", "codebase", "archive", "xlink:href")
FETCHED_HREF = ("link", "image", "use", "feimage")
_ATTR = "|".join(re.escape(a) for a in FETCHED)
_RAW = re.compile(rf"<(?P<tag>[a-z][\w:-]*)\b[^>]*?(?<![\w:-])(?:(?:{_ATTR})|(?P<href>href))\s*=\s*[\"']?\s*"
                  rf"(?:[^\"'>]*?,\s*)?(?P<url>{_URL})", re.IGNORECASE)
_CSS = re.compile(rf"(?:url\(\s*[\"']?|@import\s+[\"'])\s*({_URL})", re.IGNORECASE)

REMEDY = ("the site makes no request beyond itself: save the image under content/ (e.g. content/images/), "
          "commit it and link it by its relative path")


def external_images(markdown: str, *, path: str, first_line: int) -> list[Problem]:
    """One problem per image or other resource that a page would fetch from another site."""
    lines = markdown.split("\n")
    refs = {m.group(1).strip().lower(): m.group(2) for m in _REF_DEF.finditer(markdown)}
    out = []
    for seg in prose_segments(lines):
        text = lines[seg.line][seg.start:seg.end]
        found = [("image", m.group(1)) for m in _INLINE.finditer(text)]
        for m in _RAW.finditer(text):
            tag = m.group("tag").lower()
            if m.group("href") is None or tag in FETCHED_HREF:
                found.append(("image" if tag in ("img", "image", "picture") else "resource", m.group("url")))
        found += [("resource", m.group(1)) for m in _CSS.finditer(text)]
        for m in _REF_USE.finditer(text):
            if text[m.end():m.end() + 1] == "(":
                continue  # an inline image, handled above
            key = (m.group(2) or m.group(1)).strip().lower()
            if key in refs:
                found.append(("image", refs[key]))
        out += [Problem(path, first_line + seg.line, f"external {what} '{url}'", REMEDY) for what, url in found]
    return out
