"""``gloss build``: a good build replaces the site and says what it published; usage errors exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import make_site
from tinyproject import project

from site_plugins.cli import build as sitebuild
from site_plugins.publishing import sitedir


def test_a_good_build_replaces_the_old_site_and_ends_with_the_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_site(tmp_path, project())
    (root / "site").mkdir()
    (root / "site/stale.html").write_text("left over from an older build")
    assert sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / "site")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "published 0 of 3 entries; 3 await sign-off: gloss status"
    assert not (root / "site/stale.html").exists() and (root / "site/index.html").is_file()
    assert sorted(p.name for p in root.iterdir() if p.name.startswith(".site")) == []  # nothing left behind


def test_no_config_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert sitebuild.main(["-f", str(tmp_path / "mkdocs.yml")]) == 2
    assert capsys.readouterr().err == f"gloss build: no MkDocs config at {tmp_path / 'mkdocs.yml'}\n"


def test_summary_words(tmp_path: Path) -> None:
    assert sitedir.summary(tmp_path, None, preview=False) == "published 0 entries"
