"""An empty or partly empty published site says so on its home page, with the counts of the publish
decision (the same ones ``gloss build`` prints), and how to see the rest."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from sitekit import make_site
from tinyproject import project

from site_plugins.cli import build as sitebuild
from site_plugins.publishing.render import Tally, home_notice, with_home_notice

WHEN = "Each entry appears here once its author and a reviewer have both signed it."


def test_nothing_published() -> None:
    assert home_notice(Tally(0, 19), preview=False) == (
        '<div class="admonition note gloss-unpublished" role="note"><p class="admonition-title">Nothing is '
        "published yet</p><p>None of the 19 entries (terms and lessons) has been signed by its author and a "
        f"reviewer yet, so this site shows none of them. {WHEN}</p></div>")


def test_partly_published_and_preview_and_all_published() -> None:
    assert ("<p>3 of 17 entries are published; the other 14 await sign-off by their author and a reviewer and "
            f"are left out of this site. {WHEN}</p>") in home_notice(Tally(3, 17), preview=False)
    assert ("<p>16 of 17 entries are published; the other 1 awaits sign-off by their author and a reviewer and "
            f"is left out of this site. {WHEN}</p>") in home_notice(Tally(16, 17), preview=False)
    assert ("<p>This preview shows all 17 entries. 1 of them awaits sign-off by their author and a reviewer: each "
            "carries a banner, and the published site (<code>make site</code>) leaves it out.</p>"
            ) in home_notice(Tally(16, 17), preview=True)
    assert home_notice(Tally(17, 17), preview=False) == "" == home_notice(Tally(17, 17), preview=True)


def test_the_notice_goes_under_the_first_heading() -> None:
    assert with_home_notice("# Home\n\nWelcome.\n", "<div>n</div>") == "# Home\n\n<div>n</div>\n\nWelcome.\n"
    assert with_home_notice("Welcome.\n", "<div>n</div>") == "<div>n</div>\n\nWelcome.\n"
    assert with_home_notice("# Home\n", "") == "# Home\n"


@pytest.mark.parametrize("preview", [False, True])
def test_a_fresh_project_says_why_its_site_is_empty_with_the_count_the_build_prints(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, preview: bool) -> None:
    monkeypatch.setenv("GLOSS_PREVIEW", "1")  # never heeded by gloss build: only --preview makes a preview
    root = make_site(tmp_path, project())
    site = root / ("site-preview" if preview else "site")
    args = ["-f", str(root / "mkdocs.yml"), "-d", str(site)] + (["--no-strict", "--preview"] if preview else [])
    assert sitebuild.main(args) == 0
    printed = capsys.readouterr().out.splitlines()[-1]
    home = (site / "index.html").read_text(encoding="utf-8")
    if preview:
        assert printed == "preview of all 3 entries; 3 of them unsigned drafts: gloss status"
        assert "This preview shows all 3 entries. 3 of them await sign-off" in home
    else:
        assert printed == "published 0 of 3 entries; 3 await sign-off: gloss status"
        published, total = map(int, re.findall(r"\d+", printed)[:2])
        assert published == 0
        assert f"None of the {total} entries (terms and lessons) has been signed" in home
        assert WHEN in home and "make preview" not in home and "gloss status" not in home
    assert home.index("<h1") < home.index("gloss-unpublished")  # under the page's heading


DIRTY = ("A 'dirty' build is being performed, this will likely lead to inaccurate navigation and other links "
         "within your site. This option is designed for site development purposes only.")


def test_under_serve_dirty_the_home_notice_follows_a_new_entry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, expect_warnings: Any) -> None:
    """index.md does not change when an entry is added (or signed): the home page is rebuilt anyway."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    expect_warnings.add(DIRTY, DIRTY)
    monkeypatch.setenv("GLOSS_PREVIEW", "1")
    root = make_site(tmp_path / "p", project())
    monkeypatch.chdir(root)
    site = tmp_path / "site"
    first = load_config(str(root / "mkdocs.yml"), site_dir=str(site))
    first.plugins.on_startup(command="serve", dirty=True)
    try:
        build(first, dirty=True)
        assert "This preview shows all 3 entries." in (site / "index.html").read_text(encoding="utf-8")
        (root / "content/terms/warp.md").write_text(
            "---\ntitle: What is a warp?\ndefinition: A warp is 32 threads.\n---\n\nWarps.\n", encoding="utf-8")
        build(load_config(str(root / "mkdocs.yml"), site_dir=str(site)), dirty=True)
        assert "This preview shows all 4 entries." in (site / "index.html").read_text(encoding="utf-8")
    finally:
        first.plugins.on_shutdown()
