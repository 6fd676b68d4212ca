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


# --- issue 34, item 7: operator papercuts ----------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_the_site_folder_honours_the_umask(tmp_path: Path, umask: int) -> None:
    import os

    root = make_site(tmp_path, project())
    old = os.umask(umask)
    try:
        assert sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / "site-preview"), "--no-strict"]) == 0
    finally:
        os.umask(old)
    assert (root / "site-preview").stat().st_mode & 0o777 == 0o777 & ~umask


def test_a_failed_first_build_does_not_claim_a_last_good_build(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               expect_warnings: object) -> None:
    root = make_site(tmp_path, {**project(), "content/stray.md": "# Stray\n"})
    expect_warnings.add("content/stray.md:1: this page is neither a term, a lesson nor declared site chrome, so it is "
                        "not published; move it to terms/ or lessons/ to have it signed off like every entry, or, if "
                        "it is hand-written site chrome, list it under the gloss plugin's 'chrome:' option in "
                        "mkdocs.yml")
    assert sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / "site")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (f"gloss build: failed; no site was written ({root / 'site'} does not exist: there is no "
                       "earlier good build to keep)")
    assert not (root / "site").exists()


def test_the_summary_and_home_page_count_entries_published_as_last_signed_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import gatekit

    root = gatekit.changed(tmp_path)
    capsys.readouterr()
    assert sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / "site")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "published 1 of 4 entries (1 of them as last signed: a later change to it awaits sign-off); 3 await "
        "sign-off: gloss status")
    assert ("<p>1 of 4 entries are published (1 of them as last signed: a later change to it awaits sign-off); the "
            "other 3 await sign-off by their author and a reviewer and are left out of this site.") in (
        root / "site/index.html").read_text()


@pytest.mark.parametrize(("change", "line", "problem"), [
    (("theme:", "theme: [\n"), 7, "expected ',' or ']', but got ':' (while parsing a flow sequence that starts on "
                                  "line 4)"),
    (("site_name: Tiny glossary", "site_name: 'Tiny glossary"), 1, "found unexpected end of stream (while "
                                                                   "scanning a quoted scalar that starts on line 1)"),
    (("site_dir: site", "site_dir: site\n bad: x"), 4, "mapping values are not allowed here"),
])
def test_a_malformed_config_is_one_line_with_its_line_in_check_and_build(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], line: int, problem: str) -> None:
    from site_plugins.cli import check

    root = make_site(tmp_path, project())
    config = root / "mkdocs.yml"
    assert change[0] in config.read_text()
    config.write_text(config.read_text().replace(*change, 1))
    want = f"mkdocs.yml:{line}: not valid YAML: {problem}; fix the YAML there (MkDocs and gloss read this file alike)"
    assert check.main(["--root", str(root)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [want] and "Traceback" not in err
    assert sitebuild.main(["-f", str(config), "-d", str(root / "site")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == want and err[-1].startswith("gloss build: failed; no site was written")
