"""Sign-off in a real build: a changed entry that quotes code keeps its signed version published."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from mkdocs.exceptions import Abort
from signoff_helpers import PEOPLE, commit_all, init_repo, key_file, make_site, term
from sitekit import BASE_CONFIG, build_site

from site_plugins import cli

CODED = term("What is a copy kernel?", "A copy kernel moves bytes from one array to another.",
             "Signed sentence about the copy kernel.",
             extra="code:\n  - file: code/day01-basics/copy.cu\n    region: copy\n")
EDIT = "Unsigned sentence added after sign-off."


def project(root: Path) -> Path:
    init_repo(root)
    make_site(root, {"copy-kernel": CODED}, registry=PEOPLE + "entries: {}\n")
    (root / "mkdocs.yml").write_text(BASE_CONFIG.format(theme="mkdocs", plugin_options=""), encoding="utf-8")
    commit_all(root, "fixture")
    for role, name in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
        assert cli.main(["sign", "content/terms/copy-kernel.md", "--as", role, "--key", str(key_file(name)),
                         "--root", str(root)]) == 0
    commit_all(root, "signed")
    return root


def test_signed_entry_with_quoted_code_is_published(tmp_path: Path) -> None:
    site = build_site(project(tmp_path), site_dir=str(tmp_path / "site"))
    page = (site / "terms/copy-kernel/index.html").read_text(encoding="utf-8")
    assert "Signed sentence about the copy kernel." in page and "threadIdx" in page
    assert "Written by Ada Author" in page or "Ada Author" in page


def test_changed_entry_with_quoted_code_serves_the_signed_version(tmp_path: Path) -> None:
    root = project(tmp_path)
    page_file = root / "content/terms/copy-kernel.md"
    page_file.write_text(page_file.read_text(encoding="utf-8") + f"\n{EDIT}\n", encoding="utf-8")
    commit_all(root, "edit after sign-off")
    site = build_site(root, site_dir=str(tmp_path / "site"))  # strict: no warning may be logged
    page = (site / "terms/copy-kernel/index.html").read_text(encoding="utf-8")
    assert "Signed sentence about the copy kernel." in page
    assert EDIT not in page


# --- drafts do not hold signed neighbours hostage; every page is an entry or declared chrome ----------

LINKS_TO_DRAFT = term("What is a warp?", "A warp is a group of threads scheduled together.",
                      "See [the draft](draft-term.md) and <a href=\"../draft-term/\">again</a>.")
DRAFT = term("What is a draft term?", "A draft term is not signed.", "Quartz draft sentence.")


def draft_neighbour(root: Path, chrome: str | None = None) -> Path:
    init_repo(root)
    make_site(root, {"warp": LINKS_TO_DRAFT, "draft-term": DRAFT}, registry=PEOPLE + "entries: {}\n")
    opts = f":\n      chrome: {chrome}" if chrome is not None else ""
    (root / "mkdocs.yml").write_text(BASE_CONFIG.format(theme="mkdocs", plugin_options=opts), encoding="utf-8")
    (root / "content/index.md").write_text("# Home\n", encoding="utf-8")
    commit_all(root, "fixture")
    for role, name in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
        assert cli.main(["sign", "content/terms/warp.md", "--as", role, "--key", str(key_file(name)),
                         "--root", str(root)]) == 0
    return root


def test_a_signed_entry_linking_to_a_draft_builds_strictly(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = draft_neighbour(tmp_path)
    caplog.set_level(logging.INFO, logger="mkdocs.plugins.gloss")
    site = build_site(root, site_dir=str(tmp_path / "site"))  # strict: a warning would raise
    page = (site / "terms/warp/index.html").read_text(encoding="utf-8")
    assert "See the draft and again." in page
    assert not (site / "terms/draft-term").exists()
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith("gloss: ")] == [
        "gloss: 1 link to unpublished entries shown as plain text:\n"
        "  content/terms/warp.md:6: links to draft 'content/terms/draft-term.md', which is not published; the link "
        "is shown as plain text until that entry is signed off"]


def test_an_unlisted_page_fails_the_strict_build_and_is_not_published(tmp_path: Path,
                                                                      expect_warnings: object) -> None:
    root = draft_neighbour(tmp_path)
    (root / "content/about.md").write_text("# About\n\nQuartz unlisted sentence.\n", encoding="utf-8")
    message = ("content/about.md:1: this page is neither a term, a lesson nor declared site chrome, so it is not "
               "published; move it to terms/ or lessons/ to have it signed off like every entry, or, if it is "
               "hand-written site chrome, list it under the gloss plugin's 'chrome:' option in mkdocs.yml")
    expect_warnings.add(message)  # type: ignore[attr-defined]
    with pytest.raises(Abort):
        build_site(root, site_dir=str(tmp_path / "strict"))
    site = build_site(root, strict=False, site_dir=str(tmp_path / "site"))
    assert not (site / "about").exists()
    assert not any("Quartz unlisted" in f.read_text(errors="replace") for f in site.rglob("*") if f.is_file())


def test_declared_chrome_is_published_and_checked_like_entries(tmp_path: Path, expect_warnings: object) -> None:
    root = draft_neighbour(tmp_path, chrome="[index.md, about.md]")
    (root / "content/about.md").write_text("# About\n\nIt copies at 900 GB/s. See [the draft](terms/draft-term.md).\n",
                                           encoding="utf-8")
    expect_warnings.add(  # type: ignore[attr-defined]
        "content/about.md:3: hand-typed figure '900 GB/s'; take it from a result with {{ value EXPERIMENT "
        "row=KERNEL col=COLUMN }} (or {{ ratio ... }}), or quote a cited source with {{ cited \"900 GB/s\" "
        "source=\"SOURCE TITLE\" }}")
    site = build_site(root, strict=False, site_dir=str(tmp_path / "site"))
    about = (site / "about/index.html").read_text(encoding="utf-8")
    assert "See the draft." in about
