"""The files an entry's body names (its images and other static files), and what a sign-off records of them.

Both the staging tree (which publishes an entry's static files) and the sign-off fingerprint (which
covers their bytes) read an entry's links here, so they agree on which files an entry uses.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath
from urllib.parse import unquote

from site_plugins.content import normalise
from site_plugins.signoff.signable import Tree

# Where an entry's body names another file: Markdown links and images, reference definitions, and the
# URL attributes of raw HTML (srcset lists several).
_MD_TARGET = re.compile(r"\]\(\s*<?([^)\s>]+)")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
# (The look-ahead on the names' first letters lets the scanner skip most positions: twice as fast.)
_ATTR = re.compile(r"\b(?=[sdhpx])(?P<name>src|href|data|poster|srcset|xlink:href)"
                   r"\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.IGNORECASE)


def targets(page_uri: str, markdown: str) -> set[str]:
    """Docs paths that the links, images and raw-HTML URLs of a page's Markdown name (relative ones only)."""
    base = PurePosixPath(page_uri).parent
    found: list[str] = [m.group(1) for m in _MD_TARGET.finditer(markdown)]
    found += [m.group(1) for m in _REF_DEF.finditer(markdown)]
    for m in _ATTR.finditer(markdown):
        value = next(g for g in m.groups()[1:] if g is not None)
        found += [part.strip().split(" ")[0] for part in value.split(",")] if m["name"].lower() == "srcset" \
            else [value]
    out = set()
    for raw in found:
        t = unquote(raw.strip().split("#", 1)[0].split("?", 1)[0])
        if not t or "://" in t or t.startswith(("/", "mailto:", "data:", "javascript:")):
            continue
        out.add(normalise(base / t))
    return out



def statics(tree: Tree, docs_dir: str, page_uri: str, markdown: str) -> tuple[tuple[str, str], ...]:
    """(repo-relative path, sha256 of the bytes) of each file other than a page that the body names and
    ``tree`` holds (a file it names but does not hold yet is not covered: adding it changes the entry)."""
    out = []
    for uri in sorted(targets(page_uri, markdown)):
        if uri.endswith(".md") or any(part.startswith(".") for part in uri.split("/")):
            continue  # pages are entries of their own; dot files are never published
        read = getattr(tree, "read_bytes", None)
        data = read(f"{docs_dir}/{uri}") if read is not None else None
        if data is not None:
            out.append((f"{docs_dir}/{uri}", "sha256:" + hashlib.sha256(data).hexdigest()))
    return tuple(out)
