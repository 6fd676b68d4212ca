"""Provenance against git history: the commit a result records must hold the bytes it measured.

Real git repositories in tmp_path; results written by the project's own test helpers. The build and
``gloss measure verify`` share one judgement (:func:`measure.store.audit.audit`); the build skips what cannot
be checked silently, verify prints one note line.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
from pathlib import Path

import pytest

from measure.cli import main
from measure.experiment.nodes import load_nodes
from measure.experiment.spec import sha256_file
from measure.store import audit, history
from measure.store import results as R
from measure.testing import synthetic as T

REL = "measure/results/test-node/toy-copy.json"
SOURCE = "code/toy/toy.cu"
SPEC = "code/toy/experiment.yaml"
REMEDY = (
    "re-run `gloss measure run toy-copy --node test-node` with GLOSS_COMMIT set to the commit that holds the "
    "measured sources (`git rev-parse HEAD` on your machine, not on the node)"
)
UNKNOWN = "0123456789abcdef0123456789abcdef01234567"  # a well-formed commit id no test repository holds


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Ada Author",
        "GIT_AUTHOR_EMAIL": "ada@example.invalid",
        "GIT_COMMITTER_NAME": "Ada Author",
        "GIT_COMMITTER_EMAIL": "ada@example.invalid",
    }
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


def write_result(root: Path, commit: str, dirty: bool | None = False, experiment: str = "toy-copy") -> R.Result:
    """A result of the tree as it is now, recording ``commit``."""
    result = T.make_result(root, experiment)
    provenance = dataclasses.replace(result.provenance, git_commit=commit, git_dirty=dirty)
    result = dataclasses.replace(result, provenance=provenance)
    T.write(root, result)
    return result


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository whose first commit holds the fixture's spec and source."""
    git(tmp_path, "init", "-q")
    T.write_fixture_repo(tmp_path)
    return tmp_path


def add_second_experiment(root: Path) -> None:
    (root / "code/two").mkdir()
    (root / "code/two/experiment.yaml").write_text(T.FIXTURE_SPEC.replace("id: toy-copy", "id: toy-two"))
    (root / "code/two/toy.cu").write_text(T.FIXTURE_SOURCE)


def checked(root: Path) -> audit.Audit:
    return audit.audit(R.load_all(root), load_nodes(root)[0])


def verify(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["--root", str(root), "verify"])
    return code, capsys.readouterr().out.splitlines()


def edit_source(root: Path) -> None:
    path = root / SOURCE
    path.write_text(path.read_text().replace("dst[i] = src[i];", "dst[i] = 2.0f * src[i];", 1))


def test_a_commit_that_holds_the_measured_files_passes(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = commit_all(repo, "spec and source")
    write_result(repo, first)
    commit_all(repo, "the result")  # later commits do not matter: the recorded one holds the bytes
    assert checked(repo) == audit.Audit([], "")
    assert verify(repo, capsys) == (0, ["1 of 1 results fresh"])


def test_a_commit_with_other_bytes_is_a_provenance_problem(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = commit_all(repo, "spec and source")
    old = sha256_file(repo / SOURCE)
    edit_source(repo)
    commit_all(repo, "the source changes")
    new = sha256_file(repo / SOURCE)
    write_result(repo, before)  # the node measured the new source but recorded the older commit
    problem = (
        f"{REL}:1: provenance: commit {before[:12]} does not hold the measured {SOURCE} "
        f"(sha256 {new[:12]} recorded, {old[:12]} at that commit); {REMEDY}"
    )
    assert [str(p) for p in checked(repo).problems] == [problem]  # what the build fails on
    assert R.load_all(repo).get("toy-copy").state == "fresh"  # the numbers are those of the tree's source
    assert verify(repo, capsys) == (1, [problem, "1 of 1 results fresh; 1 problem(s)"])


def test_files_missing_at_the_commit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path
    git(repo, "init", "-q")
    (repo / "README").write_text("before any experiment\n")
    empty = commit_all(repo, "no experiment yet")
    T.write_fixture_repo(repo)
    commit_all(repo, "spec and source")
    result = write_result(repo, empty)
    p = result.provenance
    assert verify(repo, capsys) == (
        1,
        [
            f"{REL}:1: provenance: commit {empty[:12]} does not hold the measured {SPEC} "
            f"(sha256 {p.spec_sha256[:12]} recorded, no such file at that commit); {REMEDY}",
            f"{REL}:1: provenance: commit {empty[:12]} does not hold the measured {SOURCE} "
            f"(sha256 {p.source_sha256[:12]} recorded, no such file at that commit); {REMEDY}",
            "1 of 1 results fresh; 2 problem(s)",
        ],
    )


def test_an_abbreviated_commit_is_checked_too(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = commit_all(repo, "spec and source")
    edit_source(repo)
    commit_all(repo, "the source changes")
    write_result(repo, before[:10])
    assert [p.problem.split(" (")[0] for p in checked(repo).problems] == [
        f"provenance: commit {before[:10]} does not hold the measured {SOURCE}"
    ]


def test_a_commit_not_in_the_history_is_skipped_with_a_note(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commit_all(repo, "spec and source")
    write_result(repo, UNKNOWN)
    assert checked(repo).problems == []  # the build: nothing to fail on
    assert verify(repo, capsys) == (
        0,
        [
            "note: the provenance of 1 result was not checked against git history: 1 names a commit that is not "
            "in this repository's history (0123456789ab; a shallow clone? `git fetch --unshallow` lets verify "
            "check them)",
            "1 of 1 results fresh",
        ],
    )


def test_a_shallow_clone_notes_every_result_it_cannot_check(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    add_second_experiment(repo)
    old = commit_all(repo, "spec and source")
    write_result(repo, old)
    write_result(repo, old, experiment="toy-two")
    (repo / "code/two/notes.txt").write_text("a later commit\n")
    commit_all(repo, "results")
    clone = repo.parent / "clone"
    git(repo.parent, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    assert checked(clone).problems == []
    code, lines = verify(clone, capsys)
    assert (code, lines[0]) == (
        0,
        "note: the provenance of 2 results was not checked against git history: 2 name commits that are not "
        f"in this repository's history ({old[:12]}; a shallow clone? `git fetch --unshallow` lets verify check "
        "them)",
    )
    assert checked(repo) == audit.Audit([], "")  # the full history holds them


def test_a_dirty_result_claims_no_commit(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = commit_all(repo, "spec and source")
    edit_source(repo)  # measured with uncommitted changes, and says so
    write_result(repo, before, dirty=True)
    assert checked(repo) == audit.Audit([], "")
    assert verify(repo, capsys) == (0, ["1 of 1 results fresh"])


def test_an_unknown_commit_claims_nothing(repo: Path) -> None:
    commit_all(repo, "spec and source")
    write_result(repo, "unknown", dirty=None)
    assert checked(repo) == audit.Audit([], "")


def test_a_recorded_commit_that_is_no_commit_id(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commit_all(repo, "spec and source")
    write_result(repo, "HEAD")  # what GLOSS_COMMIT=HEAD would record: not a commit
    assert checked(repo).problems == []
    assert verify(repo, capsys) == (
        0,
        [
            "note: the provenance of 1 result was not checked against git history: the commit recorded by 1 is "
            "not a commit id ('HEAD')",
            "1 of 1 results fresh",
        ],
    )


def test_without_a_repository_or_without_git(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    T.write_fixture_repo(tmp_path)  # no `git init`: the folder is no repository
    write_result(tmp_path, UNKNOWN)
    assert checked(tmp_path).problems == []
    code, lines = verify(tmp_path, capsys)
    assert code == 0 and lines[1] == "1 of 1 results fresh"
    assert lines[0].startswith(
        "note: the provenance of 1 result was not checked against git history: git cannot read the history here ("
    )
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))
    assert verify(tmp_path, capsys) == (
        0,
        [
            "note: the provenance of 1 result was not checked against git history: git is not installed",
            "1 of 1 results fresh",
        ],
    )


def test_a_project_inside_a_larger_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Recorded paths are relative to the project's root, which need not be the repository's top."""
    git(tmp_path, "init", "-q")
    root = tmp_path / "site"
    root.mkdir()
    T.write_fixture_repo(root)
    before = commit_all(tmp_path, "spec and source")
    write_result(root, before)
    assert verify(root, capsys) == (0, ["1 of 1 results fresh"])
    edit_source(root)
    commit_all(tmp_path, "the source changes")
    write_result(root, before)
    assert [p.problem.split(" (")[0] for p in checked(root).problems] == [
        f"provenance: commit {before[:12]} does not hold the measured {SOURCE}"
    ]


def test_one_git_process_for_every_result(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_second_experiment(repo)
    first = commit_all(repo, "spec and source")
    (repo / "code/toy/notes.txt").write_text("a later commit\n")
    second = commit_all(repo, "another commit")
    write_result(repo, second)
    write_result(repo, first, experiment="toy-two")
    calls: list[list[str]] = []
    real = subprocess.run

    def counting(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        calls.append(argv)
        return real(argv, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(history.subprocess, "run", counting)
    assert checked(repo) == audit.Audit([], "")
    assert calls == [["git", "cat-file", "--batch"]]


def test_lookup_reads_blobs_only(repo: Path) -> None:
    first = commit_all(repo, "spec and source")
    found = history.lookup(repo, [(first, SOURCE), (first, "code/toy"), (first, "code/none.cu"), (UNKNOWN, SOURCE)])
    assert found.unavailable == "" and found.commits == frozenset({first})
    assert found.files == {(first, SOURCE): sha256_file(repo / SOURCE), (first, "code/toy"): None,
                           (first, "code/none.cu"): None}
    assert history.lookup(repo, []) == history.Lookup()


def test_the_committed_results_hold_their_provenance() -> None:
    """The real repository: every committed result's commit holds what it measured (a shallow CI clone
    only notes what it cannot check)."""
    root = Path(__file__).resolve().parents[2]
    for folder in (R.RESULTS_DIR, "measure/repeat"):
        assert checked_dir(root, folder).problems == []


def checked_dir(root: Path, folder: str) -> audit.Audit:
    return audit.audit(R.load_all(root, folder), load_nodes(root)[0])
