"""The last signed version stays published after a change, recovered from a real git repository."""

from __future__ import annotations

import re
from pathlib import Path

from signoff_helpers import PEOPLE, T1, T2, commit_all, plan_signature

from site_plugins import signoff
from site_plugins.publishing.publish import Signable, decide
from site_plugins.signoff.signable import Tree

PATH = "content/terms/tiling.md"


def version(n: int) -> str:
    return f"---\ntitle: What is tiling? (v{n})\n---\nVersion {n} of the body. It shows [[value:v{n}]].\n"


def signable(path: str, text: str) -> Signable:
    # Stands in for the pipeline: the shown values depend on the text (here: the value markers in it).
    return Signable(path, text, tuple(f"{m} ms" for m in re.findall(r"\[\[value:(\w+)\]\]", text)))


def signable_at(path: str, tree: Tree) -> Signable | None:
    text = tree.read(path)
    return signable(path, text) if text is not None else None


def write_entry(root: Path, text: str) -> Signable:
    (root / PATH).parent.mkdir(parents=True, exist_ok=True)
    (root / PATH).write_text(text, encoding="utf-8")
    return signable(PATH, text)


def sign_both(root: Path, s: Signable, *, commit: bool = True) -> None:
    for role, name, on in (("author", "Ada Author", T1), ("reviewer", "Rex Reviewer", T2)):
        reg, problems = signoff.load(root)
        assert problems == []
        c = signoff.head_commits(root, [s])[s.path] if commit else None
        record, _ = plan_signature(reg, s, role, name, on=on, commit=c)  # type: ignore[arg-type]
        signoff.write_entry(root, s.path, record)


def setup_signed(repo: Path) -> tuple[str, Signable]:
    (repo / "signoff.yaml").write_text(PEOPLE, encoding="utf-8")
    v1 = write_entry(repo, version(1))
    c1 = commit_all(repo, "v1")
    sign_both(repo, v1)
    commit_all(repo, "sign v1")
    return c1, v1


def test_signed_version_records_its_commit(repo: Path) -> None:
    c1, v1 = setup_signed(repo)
    reg, _ = signoff.load(repo)
    rec = reg.entries[PATH]
    assert rec.author is not None and rec.author.commit == c1
    states, problems = decide(repo, [v1], preview=False, signable_at=signable_at)
    assert problems == []
    assert (states[PATH].state, states[PATH].published, states[PATH].signed_commit) == ("signed", True, c1)


def test_changed_entry_serves_the_signed_version_from_git(repo: Path) -> None:
    c1, _ = setup_signed(repo)
    v2 = write_entry(repo, version(2))
    commit_all(repo, "v2")
    states, problems = decide(repo, [v2], preview=False, signable_at=signable_at)
    assert problems == []
    s = states[PATH]
    assert (s.state, s.published, s.text, s.signed_commit) == ("changed", True, version(1), c1)
    assert s.changed == ("text", "measured values")
    assert (s.byline.author, s.byline.reviewer, s.byline.written_on, s.byline.reviewed_on) == (
        "Ada Author", "Rex Reviewer", "2026-12-01", "2026-12-02")
    assert s.missing == ("author sign-off of the current content (Ada Author signed an earlier version)",
                         "review of the current content (Rex Reviewer reviewed an earlier version)")
    # Preview shows the working copy with a banner saying what readers see instead.
    p = decide(repo, [v2], preview=True, signable_at=signable_at)[0][PATH]
    assert p.text is None and p.published
    assert p.banner == (
        "Changed since sign-off (text, measured values): the published site shows the version signed on "
        f"2026-12-02 (commit {c1[:10]}) until this change is signed. Missing: author sign-off of the current "
        "content (Ada Author signed an earlier version); review of the current content (Rex Reviewer "
        "reviewed an earlier version).")


def test_uncommitted_edit_is_changed_too(repo: Path) -> None:
    setup_signed(repo)
    v2 = write_entry(repo, version(2))  # not committed: the working copy differs from what was signed
    s = decide(repo, [v2], preview=False, signable_at=signable_at)[0][PATH]
    assert (s.state, s.published, s.text) == ("changed", True, version(1))


def test_history_is_searched_when_the_recorded_commit_is_gone(repo: Path) -> None:
    (repo / "signoff.yaml").write_text(PEOPLE, encoding="utf-8")
    write_entry(repo, version(1))
    commit_all(repo, "v1")
    v2 = write_entry(repo, version(2))
    c2 = commit_all(repo, "v2")
    sign_both(repo, v2, commit=False)  # e.g. signed from a checkout where git was unavailable
    for n in (3, 4):
        write_entry(repo, version(n))
        commit_all(repo, f"v{n}")
    v4 = signable(PATH, version(4))
    s = decide(repo, [v4], preview=False, signable_at=signable_at)[0][PATH]
    assert (s.state, s.published, s.text, s.signed_commit) == ("changed", True, version(2), c2)


def test_recovery_needs_the_values_the_old_text_showed(repo: Path) -> None:
    # Without signable_at the old text is taken to show no values, so its fingerprint cannot match.
    setup_signed(repo)
    v2 = write_entry(repo, version(2))
    commit_all(repo, "v2")
    states, problems = decide(repo, [v2], preview=False)
    assert (states[PATH].state, states[PATH].published) == ("changed", False)
    assert len(problems) == 1


def test_unrecoverable_signed_version_unpublishes_with_a_warning(repo: Path) -> None:
    (repo / "signoff.yaml").write_text(PEOPLE, encoding="utf-8")
    v1 = write_entry(repo, version(1))
    sign_both(repo, v1)  # signed, but the signed text was never committed
    v2 = write_entry(repo, version(2))
    commit_all(repo, "v2 and its sign-off")
    fp1 = signoff.fingerprint(v1)
    states, problems = decide(repo, [v2], preview=False, signable_at=signable_at)
    s = states[PATH]
    assert (s.state, s.published, s.text) == ("changed", False, None)
    assert s.byline.author is None  # nothing published, nothing to credit
    assert [str(p) for p in problems] == [
        f"content/terms/tiling.md:1: changed since sign-off (text, measured values) and the signed version "
        f"({fp1[:19]}…) cannot be recovered from git, so the entry is unpublished; review the change and "
        "sign it again: gloss sign content/terms/tiling.md --as author"]
    p = decide(repo, [v2], preview=True, signable_at=signable_at)[0][PATH]
    assert p.banner is not None and p.banner.startswith(
        "Changed since sign-off, and the signed version cannot be recovered from git: not published until "
        "the change is signed.")


def test_outside_a_git_repository_nothing_can_be_recovered(tmp_path: Path) -> None:
    (tmp_path / "signoff.yaml").write_text(PEOPLE, encoding="utf-8")
    v1 = write_entry(tmp_path, version(1))
    sign_both(tmp_path, v1)
    v2 = write_entry(tmp_path, version(2))
    states, problems = decide(tmp_path, [v2], preview=False, signable_at=signable_at)
    assert (states[PATH].state, states[PATH].published) == ("changed", False)
    assert [p.path for p in problems] == [PATH]


def test_re_signing_a_change_keeps_serving_the_old_version_until_review(repo: Path) -> None:
    c1, _ = setup_signed(repo)
    v2 = write_entry(repo, version(2))
    c2 = commit_all(repo, "v2")
    reg, _ = signoff.load(repo)
    record, _ = plan_signature(reg, v2, "author", "Ada Author", on=T2, commit=c2)
    signoff.write_entry(repo, PATH, record)
    s = decide(repo, [v2], preview=False, signable_at=signable_at)[0][PATH]
    assert (s.state, s.published, s.text, s.signed_commit) == ("changed", True, version(1), c1)
    assert s.missing == ("review by a registered person other than the author",)
    reg, _ = signoff.load(repo)
    record, _ = plan_signature(reg, v2, "reviewer", "Sam Self", on=T2, commit=c2)
    signoff.write_entry(repo, PATH, record)
    s = decide(repo, [v2], preview=False, signable_at=signable_at)[0][PATH]
    assert (s.state, s.published, s.text, s.signed_commit) == ("signed", True, None, c2)
    assert (s.byline.author, s.byline.reviewer) == ("Ada Author", "Sam Self")
