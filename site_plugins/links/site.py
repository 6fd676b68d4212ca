"""The built site, offline: every internal link and anchor must resolve; external links are collected.

Reads ``site/**/*.html`` (MkDocs output). A link is internal when it resolves inside the site: relative
links, root-relative links under the site's base path, and absolute links under ``site_url``. Internal
links must name an existing file (directory URLs mean their ``index.html``) and, with a ``#fragment``,
an element id (or ``<a name>``) on that page. External ``http(s)`` links of ``<a>`` and ``<area>`` are
what the online check fetches. Pure over the files; no network.

Every finding points at the Markdown file and line the link came from, when the page has a Markdown
source and the link can be found in it (the link as written, its ``#fragment``, or the page it names);
otherwise (a generated page, a template) at the built page, marked as not a repository file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urljoin, urlsplit

from site_plugins.files.messages import Problem
from site_plugins.links.htmlscan import PageScan, scan_page

_IGNORED_SCHEMES = ("mailto", "tel", "javascript", "data", "sms", "ftp", "file", "irc", "news", "blob")
_FAKE_ORIGIN = "http://gloss-site.invalid"  # stands for our own site when site_url is not set


@dataclass(frozen=True)
class Located:
    """Where a link was written: ``path:line`` in the repository, or in the built site if not found there."""

    path: str
    line: int
    in_repo: bool


@dataclass(frozen=True)
class SiteCheck:
    pages: int  # HTML pages scanned
    internal: int  # internal links checked
    problems: list[Problem]  # broken internal links and anchors, one per distinct problem; at the Markdown
    #                          line, or at the built page (a path under the site folder) if not found there
    external: list[tuple[str, Located]]  # every external <a href>, where it was written


class _Sources:
    """The Markdown sources of built pages, read once each, to find the line a link was written on."""

    def __init__(self, root: Path | None, docs_dir: str) -> None:
        self.root = root
        self.docs_dir = docs_dir
        self._lines: dict[str, list[str]] = {}

    def locate(self, source: str | None, href: str, built: str, built_line: int) -> Located:
        if source is None or self.root is None:
            return Located(built, built_line, False)
        lines = self._lines.get(source)
        if lines is None:
            try:
                text = (self.root / source).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            lines = self._lines[source] = text.splitlines()
        for needle in _needles(href):
            for n, line in enumerate(lines, 1):
                if needle in line:
                    return Located(source, n, True)
        return Located(built, built_line, False)


def _needles(href: str) -> list[str]:
    """What a built link looks like in Markdown, most specific first."""
    out = [href]
    parts = urlsplit(href)
    if parts.fragment:
        out.append("#" + parts.fragment)
    segs = [s for s in parts.path.split("/") if s and s not in (".", "..")]
    if segs and not parts.netloc:
        last = segs[-1].removesuffix(".html")
        if last != "index":
            out += [f"{last}.md", f"{last}/"]
    return out


def scan_site(site_dir: Path) -> dict[str, PageScan]:
    """Every HTML page under ``site_dir``, keyed by its site-relative POSIX path."""
    pages: dict[str, PageScan] = {}
    for file in sorted(site_dir.rglob("*.html")):
        if file.is_file():
            rel = file.relative_to(site_dir).as_posix()
            pages[rel] = scan_page(file.read_text(encoding="utf-8", errors="replace"))
    return pages


def _origin_and_prefix(site_url: str) -> tuple[str, str]:
    if not site_url:
        return _FAKE_ORIGIN, "/"
    parts = urlsplit(site_url)
    prefix = parts.path if parts.path.endswith("/") else parts.path + "/"
    return f"{parts.scheme}://{parts.netloc.lower()}", prefix or "/"


def _source_of(page: str, root: Path | None, docs_dir: str) -> str | None:
    """The Markdown file a MkDocs page most likely came from (for remedies)."""
    if root is None:
        return None
    p = PurePosixPath(page)
    stem = p.parent if p.name == "index.html" else p.with_suffix("")
    cands = ["index.md", "README.md"] if str(stem) == "." else [f"{stem}.md", f"{stem}/index.md", f"{stem}/README.md"]
    for cand in cands:
        if (root / docs_dir / cand).is_file():
            return f"{docs_dir}/{cand}"
    return None


def check_site(site_dir: Path, *, display: str, site_url: str = "", root: Path | None = None,
               docs_dir: str = "content") -> SiteCheck:
    """Check internal links and anchors of the built site in ``site_dir`` (shown as ``display`` in messages)."""
    pages = scan_site(site_dir)
    origin, prefix = _origin_and_prefix(site_url)
    first: dict[str, Problem] = {}
    also: dict[str, int] = {}
    external: list[tuple[str, Located]] = []
    internal = 0
    sources = _Sources(root, docs_dir)
    for rel, scan in pages.items():
        base = f"{origin}{prefix}{rel}"
        if scan.base:
            base = urljoin(base, scan.base)
        where = f"{display}/{rel}"
        source = _source_of(rel, root, docs_dir)
        fix = (f"fix the link in {source} (or the template that renders it), then rebuild the site" if source
               else "fix the link in the template or plugin that generates this page, then rebuild the site")
        for link in scan.links:
            href = link.url
            scheme = urlsplit(href).scheme.lower()
            if scheme in _IGNORED_SCHEMES:
                continue
            target = urljoin(base, href)
            parts = urlsplit(target)
            if parts.scheme not in ("http", "https"):
                continue
            here = f"{parts.scheme}://{parts.netloc.lower()}"
            if here != origin:
                if link.tag in ("a", "area"):
                    external.append((target, sources.locate(source, href, where, link.line)))
                continue
            internal += 1
            what = _resolve(site_dir, pages, prefix, parts.path, parts.fragment, href, display)
            if what:
                # The same broken link in a shared template shows up on every page: report it once.
                if what in first:
                    also[what] = also.get(what, 0) + 1
                else:
                    at = sources.locate(source, href, where, link.line)
                    if at.in_repo:
                        first[what] = Problem(at.path, at.line, f"{what} (built into {where}:{link.line})",
                                              "fix the link, then rebuild the site")
                    else:
                        first[what] = Problem(at.path, at.line, what, fix)
    problems = []
    for key, p in first.items():
        n = also.get(key, 0)
        if n:
            p = Problem(p.path, p.line, f"{p.problem} (and {n} more link{'s' if n > 1 else ''} like it)", p.remedy)
        problems.append(p)
    return SiteCheck(len(pages), internal, sorted(problems), external)


def _resolve(site_dir: Path, pages: dict[str, PageScan], prefix: str, path: str, fragment: str, href: str,
             display: str) -> str | None:
    """None if the internal link resolves; otherwise what is wrong with it."""
    path = unquote(path)
    if not path.startswith(prefix) and path + "/" != prefix:
        return f"link '{href}' points outside the site's base path {prefix}"
    rel = path[len(prefix):] if path.startswith(prefix) else ""
    candidates = [rel + "index.html"] if rel == "" or rel.endswith("/") else [rel, rel + "/index.html"]
    found = next((c for c in candidates if (site_dir / c).is_file()), None)
    if found is None:
        return f"link '{href}' points to {display}/{candidates[0]}, which does not exist"
    if not fragment or fragment == "top":
        return None
    scan = pages.get(found)
    if scan is None:
        return None  # not an HTML page: fragments there are not ours to check
    frag = unquote(fragment)
    if fragment in scan.ids or frag in scan.ids:
        return None
    return f"link '{href}' points to #{frag}, which is not an id on {display}/{found}"
