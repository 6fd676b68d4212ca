"""A tiny project for the publishing-gate tests: the tiny project (every entry a draft) with a site_url,
and, on request, one term signed by two fictional people (Ada Author, Rex Reviewer) with real keys."""

from __future__ import annotations

import sys
from pathlib import Path

from sitekit import BASE_CONFIG, make_site
from tinyproject import project

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "signoff"))

from signoff_helpers import PEOPLE, commit_all, init_repo, key_file

from site_plugins import cli

SITE_URL = "https://gloss.example.org/"
CONFIG = f"site_url: {SITE_URL}\n" + BASE_CONFIG.format(theme="mkdocs", plugin_options="")
SIGNED = """---
title: What is a warp in CUDA?
definition: A warp is a group of threads that run in step.
---

A signed body. ![A figure](../images/fig.svg)
"""
FIGURE = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>\n'
SCRIPT_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert("zebra")</script></svg>\n'


def tiny(root: Path, extra: dict[str, str] | None = None) -> Path:
    """The tiny project (all drafts) with a site_url, plus ``extra`` files."""
    return make_site(root, {**project(), "mkdocs.yml": CONFIG, **(extra or {})})


def signed(root: Path, extra: dict[str, str] | None = None) -> Path:
    """The tiny project in git with content/terms/warp.md signed by author and reviewer; it shows
    content/images/fig.svg."""
    root.mkdir(parents=True, exist_ok=True)
    init_repo(root)
    tiny(root, {"content/terms/warp.md": SIGNED, "content/images/fig.svg": FIGURE,
                "signoff.yaml": PEOPLE + "entries: {}\n", **(extra or {})})
    commit_all(root, "fixture")
    for role, who in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
        assert cli.main(["sign", "content/terms/warp.md", "--as", role, "--key", str(key_file(who)),
                         "--root", str(root)]) == 0
    commit_all(root, "sign-off")
    return root


def site_files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def site_text(site: Path) -> str:
    return "\n".join(b.decode("utf-8", errors="replace") for b in site_files(site).values())
