"""Two more things the final audit holds every built page to: no request beyond the site at page load,
and no link to a file the site does not have.

- **External requests.** Every URL a browser fetches when a page loads (the attributes of
  :data:`site_plugins.publishing.images.FETCHED`, ``href`` of ``<link>``, ``<image>`` and ``<use>``, CSS
  ``url()``, a refresh) must be a file of the site. A theme's own requests are its configuration, not
  content: a URL that the theme's templates themselves spell out (Material's web fonts unless ``font:
  false``, which mkdocs.yml sets; the mkdocs theme's highlight.js) is the theme's, and passes.
- **Dead links.** Every relative or on-site URL in a page (links, images, scripts, stylesheets, forms)
  must name a file the built site holds (a page by any spelling :func:`site_plugins.publishing.urlkeys.key`
  accepts: its folder, ``index.html``, ``.html``); a fragment or query is not checked.

Pure over what the audit's parser found in a page; the audit calls :func:`problems` for each page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from site_plugins.files.messages import Problem
from site_plugins.publishing.images import FETCHED, FETCHED_HREF

EXTERNAL = "the site makes no request beyond itself at page load"
EXTERNAL_REMEDY = ("save the file under content/ (an entry's image, a chrome file) and link it by its relative "
                   "path; a theme's web fonts or scripts are turned off in its mkdocs.yml options")
DEAD_REMEDY = "point the link at a page or file the site has, or remove it"
_THEME_URL = re.compile(r"""(?:https?:)?//[^\s"'<>{}()]+""")
_LOADED_ATTRS = frozenset({*FETCHED, "style", "url", "content", "srcdoc"})  # (style/url: CSS; content: refresh)


def loads(tag: str, attr: str) -> bool:
    """Whether the browser fetches the URL in ``tag``'s ``attr`` as the page loads (a link to follow is not)."""
    return attr in _LOADED_ATTRS or (attr == "href" and tag in FETCHED_HREF)


@cache
def theme_urls(folders: tuple[Path, ...]) -> tuple[str, ...]:
    """The URL prefixes a theme's templates spell out (up to the first template expression)."""
    found: set[str] = set()
    for folder in folders:
        for file in sorted(folder.rglob("*.html")) if folder.is_dir() else []:
            try:
                text = file.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            found.update(m.group() for m in _THEME_URL.finditer(text))
    return tuple(sorted(found))


def _other_site(value: str, site_url: str) -> str | None:
    v = value.strip()
    scheme = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):", v)
    if not (v.startswith("//") or (scheme and scheme.group(1).lower() in ("http", "https", "ftp", "ws", "wss"))):
        return None
    host = (urlsplit(v if scheme else f"https:{v}").hostname or "").casefold()
    own = (urlsplit(site_url).hostname or "").casefold() if site_url else ""
    return None if own and host == own else v


def problems(where: str, found: Iterable[tuple[int, str, str, str]], keys: Iterable[str | None] | None,
             present: frozenset[str], site_url: str, theme: tuple[str, ...]) -> list[Problem]:
    """``found``: (line, tag, attribute, URL) of each URL in a page (audit.links); ``keys``: the site key each
    names (urlkeys.target_key, None for another site), in the same order; ``present``: the keys of every file
    the site holds."""
    out = []
    for (line, tag, attr, value), k in zip(found, keys or [None] * 0, strict=False):
        if k is not None and k not in present and tag != "base":
            out.append(Problem(where, line, f"<{tag} {attr}> points to '{value.strip()}', which the site does not "
                                            "have", DEAD_REMEDY))
    for line, tag, attr, value in found:
        if not loads(tag, attr):
            continue
        url = _other_site(value, site_url)
        if url is not None and not any(url.startswith(t) or f"https:{url}".startswith(t) for t in theme):
            out.append(Problem(where, line, f"<{tag} {attr}> loads '{url}' from another site: {EXTERNAL}",
                               EXTERNAL_REMEDY))
    return out


def content_finding(problem: Problem) -> bool:
    """Whether an audit finding is one of these (a content problem: the build logs it as a warning, so a strict
    build fails and ``--no-strict`` publishes), not one of the gate's own (which always stop the build)."""
    return problem.remedy in (DEAD_REMEDY, EXTERNAL_REMEDY)
