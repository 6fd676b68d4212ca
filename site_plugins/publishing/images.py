"""External images: the site promises no request beyond itself at page load, so an image must be a
file of the site (committed under the docs folder), never a URL.

Pure over Markdown text: inline images ``![alt](https://...)``, reference images ``![alt][id]`` whose
definition is a URL, and raw ``<img src="https://...">`` / ``<image href=...>``, outside code.
"""

from __future__ import annotations

import re

from site_plugins.files.messages import Problem
from site_plugins.measured.syntax import prose_segments

_URL = r"(?:[a-z][a-z0-9+.-]*:)?//[^\s)\"'>]+"
_INLINE = re.compile(rf"!\[[^\]]*\]\(\s*<?({_URL})")
_REF_USE = re.compile(r"!\[([^\]]*)\](?:\[([^\]]*)\])?")
_REF_DEF = re.compile(rf"^ {{0,3}}\[([^\]]+)\]:\s*<?({_URL})", re.MULTILINE)
_RAW = re.compile(rf"<(?:img|image|source)\b[^>]*?\b(?:src|href|srcset|xlink:href)\s*=\s*[\"']?\s*({_URL})",
                  re.IGNORECASE)

REMEDY = ("the site makes no request beyond itself: save the image under content/ (e.g. content/images/), "
          "commit it and link it by its relative path")


def external_images(markdown: str, *, path: str, first_line: int) -> list[Problem]:
    """One problem per image that would be fetched from another site."""
    lines = markdown.split("\n")
    refs = {m.group(1).strip().lower(): m.group(2) for m in _REF_DEF.finditer(markdown)}
    out = []
    for seg in prose_segments(lines):
        text = lines[seg.line][seg.start:seg.end]
        found = [m.group(1) for m in _INLINE.finditer(text)] + [m.group(1) for m in _RAW.finditer(text)]
        for m in _REF_USE.finditer(text):
            if text[m.end():m.end() + 1] == "(":
                continue  # an inline image, handled above
            key = (m.group(2) or m.group(1)).strip().lower()
            if key in refs:
                found.append(refs[key])
        out += [Problem(path, first_line + seg.line, f"external image '{url}'", REMEDY) for url in found]
    return out
