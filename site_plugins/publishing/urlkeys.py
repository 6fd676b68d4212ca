"""One spelling of a site path, and the site path a URL names: what the final audit and the renderer's
unlinking of drafts compare, so that no spelling of a draft's address (letter case, percent-encoding, dot
segments, ``index.html``, ``.md``, a query or fragment, backslashes, an absolute URL on the site's own
address, a ``<base href>``) passes for another page. Pure over strings."""

from __future__ import annotations

import html
import re
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit


def key(path: str) -> str:
    """One spelling of a site path: percent-decoded, case-folded, dot segments resolved, without a
    trailing slash, ``index.html``/``index.md`` or a ``.md``/``.html`` suffix."""
    for _ in range(4):  # %252e: a server or a second decoder may decode twice
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    parts: list[str] = []
    for part in path.replace("\\", "/").casefold().split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    if parts and parts[-1] in ("index.html", "index.htm", "index.md"):
        parts.pop()
    if parts:
        for suffix in (".md", ".html", ".htm"):
            if parts[-1].endswith(suffix) and len(parts[-1]) > len(suffix):
                parts[-1] = parts[-1][: -len(suffix)]
                break
    return "/".join(parts)


def target_key(value: str, page: str, site_url: str, base: str | None = None) -> str | None:
    """The key of the site path a URL in ``page`` (a site path) names, or None for another site."""
    v = re.sub(r"[\t\n\r]", "", html.unescape(value)).strip().replace("\\", "/")  # as a browser reads it
    if not v or v.startswith("#"):
        return None
    site = urlsplit(site_url) if site_url else None
    scheme = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):", v)
    if scheme or v.startswith("//"):
        if scheme and scheme.group(1).lower() not in ("http", "https"):
            return None
        url = urlsplit(v if scheme else f"https:{v}")
        if site is None or (url.hostname or "").casefold() != (site.hostname or "").casefold():
            return None
        return _under_site(url.path, site.path)
    v = re.split(r"[?#]", v, maxsplit=1)[0]
    if v.startswith("/"):
        return _under_site(v, site.path if site else "")
    if base is not None:
        resolved = target_key(base, page, site_url)
        folder = resolved if base.endswith("/") or resolved is None else str(PurePosixPath(resolved).parent)
        return key(f"{folder or ''}/{v}")
    return key(f"{PurePosixPath(page).parent.as_posix()}/{v}")


def _under_site(path: str, prefix: str) -> str:
    p, pre = key(path), key(prefix)
    return p[len(pre):].lstrip("/") if pre and (p == pre or p.startswith(pre + "/")) else p
