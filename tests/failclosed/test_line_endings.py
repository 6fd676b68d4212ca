"""CRLF and lone-CR files read as LF everywhere (site_plugins/files/textfile.py): a project saved with Windows or
old-Mac line endings checks and builds like the same project with LF, its problems name the same lines,
its sign-off fingerprints and measurement hashes do not change, and git's copy reads the same."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import measuredkit as kit
import pytest
from malformed_cases import EVIDENCE, EVIDENCE_JSON, SIGNOFF, SIGNOFF_YAML
from sitekit import make_site
from tinyproject import TERM_A, project

from measure.store import results as R
from site_plugins import measured, signoff
from site_plugins.cli import build as sitebuild
from site_plugins.cli import check as content_cli
from site_plugins.content import load_content
from site_plugins.files import textfile
from site_plugins.publishing import pipeline
from site_plugins.signoff.signable import GitTree, WorkTree

ENDINGS = {"LF": b"\n", "CRLF": b"\r\n", "CR": b"\r"}
TERM = "content/terms/tiling.md"


def convert(root: Path, ending: bytes) -> None:
    """Every text file of the project (not the built site) with ``ending`` for each line break."""
    for f in sorted(root.rglob("*")):
        if f.is_file() and "site" not in f.relative_to(root).parts:
            f.write_bytes(f.read_bytes().replace(b"\n", ending))


def tiny(root: Path, files: dict[str, str] | None = None) -> Path:
    kit.make_project(root)
    return make_site(root, project() | {SIGNOFF: SIGNOFF_YAML, EVIDENCE: EVIDENCE_JSON} | (files or {}))


@pytest.mark.parametrize("ending", ["CRLF", "CR"])
def test_a_project_with_other_line_endings_checks_and_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ending: str
) -> None:
    root = tiny(tmp_path)
    convert(root, ENDINGS[ending])
    assert b"\n" not in (root / TERM).read_bytes() or ending == "CRLF"
    assert content_cli.main(["--root", str(root)]) == 0
    assert capsys.readouterr().out.splitlines() == ["ok: 2 terms, 1 lessons"]
    assert sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / "site")]) == 0
    assert R.load_all(root).get(kit.EXPERIMENT, kit.NODE).state == "fresh"  # the .cu and spec hash as LF


@pytest.mark.parametrize("ending", ["LF", "CRLF", "CR"])
@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ("related: [bank-conflict]", "related: [bank-conflicts]", 4),  # front matter
        ("More words.", "More [words](gone.md).", 23),  # body
        ("More words.", "- " * 100 + "x", 23),  # body, a bound
        ("More words.", "More \x1bwords.", 23),  # a control character
    ],
    ids=["front-matter", "body-link", "body-nesting", "control"],
)
def test_problems_name_the_same_line_whatever_the_endings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ending: str, old: str, new: str, line: int
) -> None:
    root = tiny(tmp_path, {TERM: TERM_A.replace(old, new, 1)})
    convert(root, ENDINGS[ending])
    assert content_cli.main(["--root", str(root)]) == 1
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(TERM)]
    assert [ln.split(":")[1] for ln in lines] == [str(line)], lines


def test_a_decoding_error_names_its_line_in_a_lone_cr_file() -> None:
    assert [str(p) for p in textfile.decode(b"a\rb\r\nc\r\xe9", "x.md")[1]] == [
        "x.md:4: not UTF-8 text (byte 0xe9 at column 1); save the file as UTF-8"
    ]
    assert textfile.decode(b"a\r\nb\rc\n", "x.md") == ("a\nb\nc\n", [])


def _fingerprints(root: Path) -> dict[str, str]:
    content, _ = load_content(root)
    view = measured.load_view(root)
    return {e.path: signoff.fingerprint(pipeline.signable(root, e, view)) for e in content.entries()}


def test_fingerprints_do_not_change_with_line_endings(tmp_path: Path) -> None:
    """What a sign-off covers is what the page shows: the text as read, LF."""
    lf = _fingerprints(tiny(tmp_path / "lf"))
    assert len(lf) == 3
    for name, ending in (("crlf", b"\r\n"), ("cr", b"\r")):
        root = tiny(tmp_path / name)
        convert(root, ending)
        assert _fingerprints(root) == lf
    # and any other change still changes it
    root = tiny(tmp_path / "edited", {TERM: TERM_A.replace("More words.", "More words!")})
    assert _fingerprints(root)[TERM] != lf[TERM]


def test_sha256_text_is_the_plain_sha256_of_an_lf_file() -> None:
    lf = b"__global__ void k() {}\n// end\n"
    assert textfile.sha256_text(lf) == hashlib.sha256(lf).hexdigest()
    assert textfile.sha256_text(lf.replace(b"\n", b"\r\n")) == textfile.sha256_text(lf.replace(b"\n", b"\r"))
    assert textfile.sha256_text(lf) == textfile.sha256_text(lf.replace(b"\n", b"\r\n"))


def test_a_crlf_file_in_git_reads_as_the_working_copy_does(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Test Author",
           "GIT_AUTHOR_EMAIL": "author@example.invalid", "GIT_COMMITTER_NAME": "Test Author",
           "GIT_COMMITTER_EMAIL": "author@example.invalid"}

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()

    git("init", "-q")
    git("config", "core.autocrlf", "false")
    (tmp_path / "content").mkdir()
    (tmp_path / TERM.replace("terms/", "")).write_bytes(TERM_A.encode().replace(b"\n", b"\r\n"))
    git("add", "-A")
    git("commit", "-q", "-m", "crlf")
    rel = TERM.replace("terms/", "")
    assert GitTree(tmp_path, git("rev-parse", "HEAD")).read(rel) == WorkTree(tmp_path).read(rel) == TERM_A
