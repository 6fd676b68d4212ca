"""A tiny project for the publishing-gate tests: the tiny project (every entry a draft) with a site_url,
and, on request, one term signed by two fictional people (Ada Author, Rex Reviewer) with real keys."""

from __future__ import annotations

import sys
from pathlib import Path

# (Also run as a script, by CI: the test folders it imports from are put on the path here.)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "measured"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "signoff"))

from signoff_helpers import PEOPLE, commit_all, init_repo, key_file
from sitekit import BASE_CONFIG, make_site
from tinyproject import project

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


CHANGED = SIGNED.replace("A signed body.", "An unsigned change to the body.")


def changed(root: Path) -> Path:
    """:func:`signed`, then content/terms/warp.md edited and committed without a new sign-off: the signed
    version is the one published."""
    signed(root)
    (root / "content/terms/warp.md").write_text(CHANGED)
    commit_all(root, "an unsigned edit")
    return root


def hostile(root: Path) -> Path:
    """:func:`changed`, with a planted A–Z, a stray page and Material as the theme: what another engine
    (Zensical) serves from it, ``gloss audit`` must find (tests and .github/workflows/gate.yml)."""
    changed(root)
    (root / "content/terms/index.md").write_text("# Glossary\n\nOnly the terms we like.\n")
    (root / "content/stray.html").write_text("<p>stray</p>\n")
    (root / "mkdocs.yml").write_text(CONFIG.replace("name: mkdocs", "name: material"))
    commit_all(root, "planted")
    return root


def site_files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def site_text(site: Path) -> str:
    return "\n".join(b.decode("utf-8", errors="replace") for b in site_files(site).values())


if __name__ == "__main__":  # python tests/failclosed/gatekit.py DEST: the hostile project, for CI
    if len(sys.argv) != 2 or Path(sys.argv[1]).exists():
        sys.exit("usage: gatekit.py DEST (a folder that does not exist yet)")
    hostile(Path(sys.argv[1]))
