"""What is published is what was checked (issue 34, items 1-3): the strict build's content checks hold for
the exact text it publishes, the signed version of a changed entry included; a pending change is checked
like a draft; ``gloss sign`` refuses what ``gloss check`` reports, with the same lines. Real builds, real
git repositories and real ssh-keygen keys (gatekit); the messages are asserted verbatim."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gatekit
import pytest
from signoff_helpers import commit_all, key_file

from site_plugins import cli
from site_plugins.cli import build as sitebuild
from site_plugins.cli import sign as cli_sign
from site_plugins.measured import lint

WARP = "content/terms/warp.md"
IMAGES = ("the site makes no request beyond itself: save the image under content/ (e.g. content/images/), commit it "
          "and link it by its relative path")
LINK = "point the link at an existing .md file, relative to this one"


def check(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = cli.main(["check", "--root", str(root)])
    return code, capsys.readouterr().out.splitlines()


def build(root: Path, expect: Any, *warnings: str) -> bool:
    """A strict build; it must log ``warnings`` and nothing else (the autouse guard checks)."""
    expect.add(*warnings)
    ok, _, _ = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=True)
    return ok


def sign(root: Path, role: str, who: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = cli.main(["sign", WARP, "--as", role, "--key", str(key_file(who)), "--root", str(root)])
    return code, capsys.readouterr().err


def signed_unchecked(root: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """gatekit.signed with warp.md's signed text ``text``, signed as an older gloss did (no check before
    signing, as for a glossary imported and signed elsewhere)."""
    with monkeypatch.context() as m:
        m.setattr(cli_sign, "_checked", lambda project: {})
        gatekit.signed(root, {WARP: text})
    return root


def change(root: Path, text: str) -> None:
    (root / WARP).write_text(text)
    commit_all(root, "an unsigned edit")


def signed_version(line: int, problem: str, remedy: str, commit: str) -> str:
    return (f"{WARP}:{line}: in the version signed at commit {commit}, which is published while the change awaits "
            f"sign-off, line {line}: {problem}; {remedy}; then have the change signed (gloss sign {WARP}), so "
            "that the corrected version is published")


def commit_of(root: Path) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(root), "log", "--format=%H", "-n1", "--", WARP], check=True,
                          capture_output=True, text=True).stdout.strip()


OUTSIDE = gatekit.SIGNED.replace("A signed body.", "A signed body. ![chart](https://cdn.example.net/c.png)")
FIXED = gatekit.SIGNED.replace("A signed body.", "A signed body, edited.")


def test_the_signed_version_published_is_checked_for_external_resources(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        expect_warnings: Any) -> None:
    root = signed_unchecked(tmp_path, OUTSIDE, monkeypatch)
    signed_at = commit_of(root)[:10]
    change(root, FIXED)  # the working copy is clean; the version published is the signed one
    want = signed_version(6, "external image 'https://cdn.example.net/c.png'", IMAGES, signed_at)
    assert check(root, capsys) == (1, [want])
    assert not build(root, expect_warnings, want)
    # What the signed version shows cannot be signed again as it is; the change can (it fixes it).
    assert sign(root, "author", "Ada Author", capsys)[0] == 0


def test_a_dead_link_and_a_figure_in_the_signed_definition_are_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        expect_warnings: Any) -> None:
    text = gatekit.SIGNED.replace("in step.", "in step at 1.4 GHz.").replace(
        "A signed body.", "A signed body, see [gone](gone.md).")
    root = signed_unchecked(tmp_path, text, monkeypatch)
    signed_at = commit_of(root)[:10]
    change(root, FIXED)
    assert check(root, capsys) == (1, [
        signed_version(3, "hand-typed figure '1.4 GHz' in the definition", lint.lede_remedy("definition"), signed_at),
        signed_version(6, "links to 'gone.md', which is not a page of the site", LINK, signed_at)])
    assert not build(root, expect_warnings, *check(root, capsys)[1])


PENDING = gatekit.SIGNED.replace("A signed body.", "A signed body, now at 3.2 TB/s.")
FIGURE = (f"{WARP}:6: hand-typed figure '3.2 TB/s'; take it from a result with {{{{ value EXPERIMENT row=KERNEL "
          'col=COLUMN }} (or {{ ratio ... }}), or quote a cited source with {{ cited "3.2 TB/s" '
          'source="SOURCE TITLE" }}')


def test_a_pending_change_is_checked_like_a_draft_and_sign_points_at_what_check_prints(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], expect_warnings: Any) -> None:
    root = gatekit.signed(tmp_path)
    change(root, PENDING)
    assert check(root, capsys) == (1, [FIGURE])
    assert not build(root, expect_warnings, FIGURE)
    # The signed version is still what a build publishes (no strict failure of its own).
    ok, _, _ = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=False)
    assert ok and "A signed body." in (root / "site/terms/warp/index.html").read_text()
    assert sign(root, "author", "Ada Author", capsys) == (1, (
        f"gloss sign: {WARP} has 1 problem and cannot be signed; fix them first (gloss check lists them):\n"
        f"  {FIGURE}\n"))


@pytest.mark.parametrize(("body", "problem"), [
    ("A body. ![chart](https://cdn.example.net/c.png)", f"{WARP}:6: external image 'https://cdn.example.net/c.png'; "
                                                        f"{IMAGES}"),
    ('A body. <video src="//media.example.net/v.mp4"></video>',
     f"{WARP}:6: external resource '//media.example.net/v.mp4'; {IMAGES}"),
    ("A body, see [gone](gone.md).", f"{WARP}:6: links to 'gone.md', which is not a page of the site; {LINK}"),
])
def test_sign_refuses_what_check_reports_with_the_same_lines(
        tmp_path: Path, body: str, problem: str, capsys: pytest.CaptureFixture[str]) -> None:
    gatekit.signed(tmp_path)
    (tmp_path / WARP).write_text(gatekit.SIGNED.replace("A signed body. ![A figure](../images/fig.svg)", body))
    assert check(tmp_path, capsys) == (1, [problem])
    assert sign(tmp_path, "author", "Ada Author", capsys) == (1, (
        f"gloss sign: {WARP} has 1 problem and cannot be signed; fix them first (gloss check lists them):\n"
        f"  {problem}\n"))


def test_a_figure_in_the_definition_is_fixed_the_way_its_message_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gatekit.signed(tmp_path)
    lede = gatekit.SIGNED.replace("in step.", 'in step at {{ cited "4.8 TB/s" source="NVIDIA H200 datasheet" }}.')
    (tmp_path / WARP).write_text(lede)
    code, lines = check(tmp_path, capsys)
    remedy = lint.lede_remedy("definition")
    assert code == 1 and lines == [
        f"{WARP}:3: directive '{{{{ cited \"4.8 TB/s\" source=\"NVIDIA H200 datasheet\" }}}}' in the definition, "
        f"which is shown as written: no directive is expanded there; {remedy}",
        f"{WARP}:3: hand-typed figure '4.8 TB/s' in the definition; {remedy}"]
    # The remedy: words in the definition, the figure in the body from a cited source.
    (tmp_path / WARP).write_text(gatekit.SIGNED.replace("in step.", "in step, at the memory's full rate.").replace(
        "A signed body.", 'A signed body. The sources: {{ cited "4.8 TB/s" source="NVIDIA H200 datasheet" }}.')
        .replace("definition:", "sources:\n  - title: NVIDIA H200 datasheet\n    url: https://www.nvidia.com/h200\n"
                                "definition:"))
    code, lines = check(tmp_path, capsys)
    assert [x for x in lines if "definition" in x or "figure" in x] == []


def test_the_audit_finds_requests_to_other_sites_and_dead_links(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = gatekit.signed(tmp_path)
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=True)
    assert ok, why  # (the mkdocs theme's own requests, highlight.js from a CDN, are the theme's: they pass)
    page = root / "site/terms/warp/index.html"
    text = page.read_text()
    at = text.index("A signed body.")
    planted = ('<img alt="" src="https://cdn.example.net/c.png"><a href="../nowhere/">x</a>'
               '<span style="background: url(//fonts.example.net/f.woff)"></span>')
    page.write_text(text[:at] + planted + text[at:])
    line = text[:at].count("\n") + 1
    monkeypatch.chdir(root)
    capsys.readouterr()
    assert cli.main(["audit", "site"]) == 1
    assert [x for x in capsys.readouterr().out.splitlines() if "nowhere" in x or "example.net" in x] == [
        f"site/terms/warp/index.html:{line}: <a href> points to '../nowhere/', which the site does not have; point "
        "the link at a page or file the site has, or remove it",
        f"site/terms/warp/index.html:{line}: <img src> loads 'https://cdn.example.net/c.png' from another site: the "
        "site makes no request beyond itself at page load; save the file under content/ (an entry's image, a chrome "
        "file) and link it by its relative path; a theme's web fonts or scripts are turned off in its mkdocs.yml "
        "options",
        f"site/terms/warp/index.html:{line}: <span style> loads '//fonts.example.net/f.woff' from another site: the "
        "site makes no request beyond itself at page load; save the file under content/ (an entry's image, a chrome "
        "file) and link it by its relative path; a theme's web fonts or scripts are turned off in its mkdocs.yml "
        "options",
    ]


def test_the_audit_says_the_same_on_every_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    from site_plugins.cli import audit as cli_audit
    from site_plugins.publishing import audit, forkmap

    root = gatekit.signed(tmp_path)
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=True)
    assert ok, why
    page = root / "site/terms/warp/index.html"  # findings to compare: a request, a dead link, a stray page
    page.write_text(page.read_text().replace("A signed body.", 'A signed body. <img src="https://x.example/i.png">'
                                                               '<a href="../../nope/">n</a>'))
    (root / "site/stray.html").write_text("<p>stray</p>\n")
    monkeypatch.chdir(root)
    expected = cli_audit.manifest(Path("mkdocs.yml"))
    monkeypatch.setenv("GLOSS_AUDIT_WORKERS", "1")
    alone = audit.audit(Path("site"), expected)
    forked: list[str] = []
    real = multiprocessing.get_context
    monkeypatch.setattr(multiprocessing, "get_context", lambda method=None: forked.append(str(method)) or real(method))
    monkeypatch.setattr(forkmap, "MIN_ITEMS", 1)
    monkeypatch.setenv("GLOSS_AUDIT_WORKERS", "3")
    # (Other tests of a whole run may leave threads behind, where forkmap would not fork: none here.)
    monkeypatch.setattr(forkmap.threading, "active_count", lambda: 1)
    assert audit.audit(Path("site"), expected) == alone and len(alone) >= 3 and forked == ["fork"]
    # What each page must say is rendered on every core too, to the same expectations.
    assert cli_audit.manifest(Path("mkdocs.yml")).text == expected.text and forked == ["fork", "fork"]
