"""Sites with many terms, built with the project's own mkdocs.yml (mkdocs-material and its features)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from sitekit import make_site
from tinyproject import project

REPO = Path(__file__).resolve().parents[2]

WORDS = ["atomic", "bank", "barrier", "cache", "coalescing", "divergence", "fence", "grid", "kernel", "latency",
         "memory", "occupancy", "pinned", "register", "shared", "shuffle", "stream", "stride", "tensor", "tile",
         "warp", "zero", "2:4 sparsity", "__syncthreads"]


def term_name(i: int) -> str:
    return f"{WORDS[i % len(WORDS)]} case {i}"


def term_slug(i: int) -> str:
    return f"t{i:04d}"


def many_terms(n: int) -> dict[str, str]:
    """``n`` terms with distinct names spread over the alphabet (plus digits and symbols), and the tiny
    project's own two terms, lesson and code."""
    files = project()
    for i in range(n):
        files[f"content/terms/{term_slug(i)}.md"] = (
            f"---\ntitle: What is {term_name(i)}?\n"
            f"definition: Term {i} is defined by this sentence alone.\n---\n\nBody of term {i}.\n")
    return files


def config(**options: object) -> str:
    """The project's mkdocs.yml with gloss options (e.g. preview=True, nav_max_terms=4)."""
    return gloss_options((REPO / "mkdocs.yml").read_text(encoding="utf-8"), options)


def gloss_options(config: str, options: dict[str, object] | None) -> str:
    """``config`` (a mkdocs.yml) with extra options for the gloss plugin, or without the plugin (None)."""
    lines = config.split("\n")
    at = next((i for i, line in enumerate(lines) if line.rstrip() in ("  - gloss", "  - gloss:")), None)
    if at is None:
        raise ValueError("mkdocs.yml no longer lists the gloss plugin as '  - gloss'")
    end = at + 1
    while end < len(lines) and lines[end].startswith("      "):
        end += 1
    if options is None:
        return "\n".join(lines[:at] + lines[end:])
    extra = [f"      {k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items()]
    return "\n".join([*lines[:at], "  - gloss:", *lines[at + 1:end], *extra, *lines[end:]])


def make(root: Path, n: int, **options: object) -> Path:
    return make_site(root, many_terms(n) | {"mkdocs.yml": config(**options)})


def primary_nav(html: str) -> str:
    start = html.index('md-nav--primary')
    return html[start:html.index("</nav>\n      </div>", start)] if "</nav>\n      </div>" in html[start:] \
        else html[start:]


HREF = re.compile(r'href="([^"#?]*)[^"]*"')


def links(site: Path, page_url: str, html: str | None = None) -> set[str]:
    """Site-relative URLs (``terms/x/``) of the pages an HTML page links to."""
    html = html if html is not None else (site / page_url / "index.html").read_text(encoding="utf-8")
    out = set()
    for href in HREF.findall(html):
        if "://" in href or href.startswith(("mailto:", "data:")):
            continue
        url = urlsplit(urljoin("http://x/" + page_url, href)).path.lstrip("/")
        if url.endswith("/") or url == "":
            out.add(url)
    return out
