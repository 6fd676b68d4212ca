"""Fail closed on any input: each malformed input below fails the build with its exact lines, no
traceback, the last good site left byte for byte as it was, and ``gloss check`` printing the same lines.

The project is a tiny one with every file kind (terms, a lesson, the home page, a CUDA source, an
experiment spec, the node registry, a result file, signoff.yaml, the link evidence), built once; each
case copies it, breaks one thing, runs ``gloss build`` and ``gloss check`` in-process and compares.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import measuredkit as kit
import pytest
from malformed_cases import CASES, EVIDENCE, EVIDENCE_JSON, SIGNOFF, SIGNOFF_YAML, Case, Copy
from sitekit import make_site
from tinyproject import project

from site_plugins.cli import build as sitebuild
from site_plugins.cli import check as content_cli

WARNING = re.compile(r"^WARNING -  (?P<message>.*)$")


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny project with every file kind and its strictly built site."""
    root = tmp_path_factory.mktemp("good")
    kit.make_project(root)
    make_site(root, project() | {SIGNOFF: SIGNOFF_YAML, EVIDENCE: EVIDENCE_JSON})
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=True)
    assert ok, why
    return root


def snapshot(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def apply(root: Path, changes: dict[str, object]) -> None:
    for rel, change in changes.items():
        path = root / rel
        if change is None:
            path.unlink()
            continue
        if isinstance(change, Copy):
            change = (root / change.source).read_bytes()
        elif callable(change):
            change = change(path.read_text(encoding="utf-8"))
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(change, bytes):
            path.write_bytes(change)
        else:
            path.write_text(str(change), encoding="utf-8")


def run(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, list[str], str, int, list[str], str]:
    code = sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / "site")])
    out, err = capsys.readouterr()
    built = [m.group("message") for line in err.splitlines() if (m := WARNING.match(line))]
    check_code = content_cli.main(["--root", str(root)])
    check_out, check_err = capsys.readouterr()
    return code, built, out + err, check_code, check_out.splitlines(), check_err


def test_there_are_enough_distinct_cases() -> None:
    assert len({c.id for c in CASES}) == len(CASES) >= 60
    kinds = {rel.split("/")[0] if not rel.startswith("content/") else rel.split("/")[1]
             for c in CASES for rel in c.changes}
    assert kinds >= {"terms", "lessons", "index.md", "code", "measure", "signoff.yaml", "links-evidence.json"}


@pytest.mark.timeout(120)  # a hang guard only: every bound is a cap on work, not a clock
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_malformed_input_fails_closed_and_check_says_what_the_build_says(
        good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], expect_warnings: object, case: Case) -> None:
    root = tmp_path / "project"
    shutil.copytree(good, root)
    before = snapshot(root / "site")
    apply(root, case.changes)  # type: ignore[arg-type]
    expect_warnings.add(*case.lines)  # type: ignore[attr-defined]  (a structural one is logged as an error)
    code, built, build_output, check_code, checked, check_err = run(capsys, root)
    assert "Traceback" not in build_output + check_err
    assert code == 1 and check_code == 1
    if case.structural:  # the build stops on it; the check says it and stops too
        assert built == [] and checked == []
        for line in case.lines:
            assert line in build_output and line in check_err
    else:
        assert built == list(case.lines)
        assert checked == built  # gloss check: the same lines, in the same order
    assert "site is unchanged" in build_output or str(root / "site") + " is unchanged" in build_output
    assert snapshot(root / "site") == before
