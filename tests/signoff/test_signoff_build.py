"""Sign-off in a real build: a changed entry that quotes code keeps its signed version published."""

from __future__ import annotations

from pathlib import Path

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
