"""What `gloss build` (make site, make preview) says last: a preview counts what it shows, not what is
published; a published entry edited since sign-off is named, with the site still showing its signed version."""

from __future__ import annotations

from pathlib import Path

import pytest
from signoff_helpers import commit_all, init_repo, key_file, make_site, term
from sitekit import BASE_CONFIG

from site_plugins import cli
from site_plugins.cli import build as sitebuild
from site_plugins.publishing import sitedir

WARP = term("What is a warp?", "A warp is a group of 32 threads that a multiprocessor schedules together.",
            "Threads of a warp issue the same instruction.")
LANE = term("What is a lane?", "A lane is one thread's place in its warp.", "Lanes are numbered from zero.")


def project(root: Path) -> Path:
    init_repo(root)
    make_site(root, {"warp": WARP, "lane": LANE})
    (root / "mkdocs.yml").write_text(BASE_CONFIG.format(theme="mkdocs", plugin_options=""), encoding="utf-8")
    (root / "content" / "index.md").write_text("# Home\n", encoding="utf-8")
    commit_all(root, "fixture")
    path = "content/terms/warp.md"
    for role, name in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
        assert cli.main(["sign", path, "--as", role, "--name", name, "--key", str(key_file(name)),
                         "--root", str(root)]) == 0
    commit_all(root, "warp: signed")
    return root


def build(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    capsys.readouterr()
    out = "out-preview" if "--preview" in args else "out"  # (a preview goes only to a folder named as one)
    assert sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / out), *args]) == 0
    return capsys.readouterr().out.splitlines()


def test_a_preview_counts_what_it_shows(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    assert build(root, capsys) == ["published 1 of 2 entries; 1 await sign-off: gloss status"]
    monkeypatch.setenv("GLOSS_PREVIEW", "1")  # never heeded by gloss build: still the published site
    assert build(root, capsys) == ["published 1 of 2 entries; 1 await sign-off: gloss status"]
    # as `make preview` runs it
    assert build(root, capsys, "--no-strict", "--preview") == [
        "preview of all 2 entries; 1 of them unsigned drafts: gloss status"]


def test_an_edited_signed_entry_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    (root / "content/terms/warp.md").write_text(WARP + "\nA new paragraph.\n", encoding="utf-8")
    commit_all(root, "warp: edited")
    assert build(root, capsys) == [
        "content/terms/warp.md: changed since sign-off; the site shows the version signed earlier until the "
        "change is signed again: gloss diff content/terms/warp.md",
        # (counted apart from the plainly published: issue 34)
        "published 1 of 2 entries (1 of them as last signed: a later change to it awaits sign-off); 1 await "
        "sign-off: gloss status",
    ]
    assert "A new paragraph" not in (root / "out/terms/warp/index.html").read_text(encoding="utf-8")
    # the preview shows the edit itself: nothing to warn about
    assert build(root, capsys, "--no-strict", "--preview") == [
        "preview of all 2 entries; 1 of them unsigned drafts: gloss status"]


def test_summary_words_without_a_build(tmp_path: Path) -> None:
    assert sitedir.summary(tmp_path, None, preview=False) == "published 0 entries"
