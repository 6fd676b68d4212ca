"""What someone who can edit signoff.yaml, but holds no one's private key, can try: copy an older pair
back, move a signature to another entry, swap roles, edit the name, date, commit or part digests, pair a
review with another author signature, or paste a signature in the old v1 format. Each is refused, with
its message. Real projects in tmp_path, real git, real ed25519 keys made by ssh-keygen."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

import pytest
from signoff_helpers import armored, commit_all, git, init_repo, key_file, make_site, term

from site_plugins import cli, signoff
from site_plugins.signoff import keys, registry

WARP = "content/terms/warp.md"
LANE = "content/terms/lane.md"
V1 = term("What is a warp?", "A warp is a group of 32 threads that a multiprocessor schedules together.",
          "Threads of a warp issue the same instruction.")
V2 = term("What is a warp?", "A warp is a group of 32 threads that a multiprocessor schedules together.",
          "Threads of a warp issue one instruction at a time, each on its own data.")
LANE_TEXT = term("What is a lane?", "A lane is one thread's slot in a warp.", "Lane 0 is the first thread.")
CLOCK = [dt.datetime(2026, 12, 1, 10, 0, 0, tzinfo=dt.UTC)]


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    CLOCK[0] = dt.datetime(2026, 12, 1, 10, 0, 0, tzinfo=dt.UTC)

    def tick() -> dt.datetime:
        now = CLOCK[0]
        CLOCK[0] = now + dt.timedelta(hours=1)
        return now

    monkeypatch.setattr(signoff, "now_utc", tick)


def sign(root: Path, path: str, role: str, name: str) -> None:
    assert cli.main(["sign", path, "--as", role, "--key", str(key_file(name)), "--root", str(root)]) == 0


def status(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, dict[str, object]], list[str]]:
    capsys.readouterr()
    code = cli.main(["status", "--json", "--root", str(root)])
    data = json.loads(capsys.readouterr().out)
    return code, {r["path"]: r for r in data["entries"]}, data["problems"]


def line_of(root: Path, needle: str, after: int = 0) -> int:
    lines = (root / "signoff.yaml").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, start=1) if i > after and needle in line)


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str, str]:
    """warp signed twice, each version by Ada Author and reviewed by Rex Reviewer, each sign-off committed:
    (root, the commit of the first sign-off, the commit of the second)."""
    root = init_repo(tmp_path)
    make_site(root, {"warp": V1, "lane": LANE_TEXT})
    commit_all(root, "warp v1")
    sign(root, WARP, "author", "Ada Author")
    sign(root, WARP, "reviewer", "Rex Reviewer")
    first = commit_all(root, "warp v1 signed")
    (root / WARP).write_text(V2, encoding="utf-8")
    commit_all(root, "warp v2")
    sign(root, WARP, "author", "Ada Author")
    sign(root, WARP, "reviewer", "Rex Reviewer")
    second = commit_all(root, "warp v2 signed")
    return root, first, second


def superseded(root: Path, what: str, second: str) -> str:
    # The line of the review's first field (under 'reviewer:').
    line = line_of(root, "reviewer:", after=line_of(root, f"{WARP}:")) + 1
    if what != "the published pair":
        line = line_of(root, "reviewer:", after=line_of(root, "previous:")) + 1
    return (f"signoff.yaml:{line}: {what} of {WARP} (reviewed by Rex Reviewer, 2026-12-01) was superseded by a "
            f"later review (Rex Reviewer, 2026-12-01, committed in {second[:10]}); an older sign-off copied back "
            f"does not count; restore the entry's newest sign-off from git (git show {second[:10]}:signoff.yaml) "
            "or remove the old pair and sign again")


def test_an_older_pair_copied_back_is_refused(history: tuple[Path, str, str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    root, first, second = history
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["state"], problems) == (0, "signed", [])
    # The whole file as it was after the first sign-off: its pair verifies, and would publish v1.
    (root / "signoff.yaml").write_text(git(root, "show", f"{first}:signoff.yaml"), encoding="utf-8")
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"]) == (1, "draft", False)
    assert problems == [superseded(root, "the published pair", second)]
    # Reverting the entry's text as well does not make the old pair count again.
    (root / WARP).write_text(V1, encoding="utf-8")
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"]) == (1, "draft", False)
    # Nor can gloss sign build on it.
    assert cli.main(["sign", WARP, "--as", "author", "--key", str(key_file("ada")), "--root", str(root)]) == 1
    assert "was superseded by a later review" in capsys.readouterr().err


def test_an_older_pair_pasted_as_previous_is_refused(history: tuple[Path, str, str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root, first, second = history
    old = signoff.parse(git(root, "show", f"{first}:signoff.yaml"))[0].entries[WARP]
    # A new round starts (v3, signed by its author); then the v1 pair is put where v2's is kept.
    (root / WARP).write_text(V2 + "\nA third version.\n", encoding="utf-8")
    sign(root, WARP, "author", "Ada Author")
    reg, _ = signoff.load(root)
    signoff.write_entry(root, WARP, dataclasses.replace(reg.entries[WARP], previous=signoff.Pair(old.author,
                                                                                                 old.reviewer)))
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"]) == (1, "awaiting-review", False)
    assert problems == [superseded(root, "the kept 'previous' pair", second)]


def test_the_newest_pair_and_an_uncommitted_one_count(history: tuple[Path, str, str],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    root, _, _ = history
    (root / WARP).write_text(V1, encoding="utf-8")  # back to v1's text, signed anew (not committed yet)
    sign(root, WARP, "author", "Ada Author")
    sign(root, WARP, "reviewer", "Rex Reviewer")
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"], problems) == (0, "signed", True, [])


def test_without_git_there_is_no_history_to_refuse_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_site(tmp_path, {"warp": V1})
    sign(tmp_path, WARP, "author", "Ada Author")
    sign(tmp_path, WARP, "reviewer", "Rex Reviewer")
    code, rows, problems = status(tmp_path, capsys)
    assert (code, rows[WARP]["state"], problems) == (0, "signed", [])


# --- edits of one signature's fields ----------------------------------------------------------------


@pytest.fixture
def signed(tmp_path: Path) -> Path:
    root = init_repo(tmp_path)
    make_site(root, {"warp": V1, "lane": LANE_TEXT})
    commit_all(root, "fixture")
    for path in (WARP, LANE):
        sign(root, path, "author", "Ada Author")
        sign(root, path, "reviewer", "Rex Reviewer")
    commit_all(root, "signed")
    return root


def record(root: Path, path: str = WARP) -> signoff.EntrySignoff:
    reg, problems = signoff.load(root)
    assert problems == []
    return reg.entries[path]


def edit(root: Path, path: str, rec: signoff.EntrySignoff) -> None:
    """Write ``rec`` as ``path``'s record, as a text edit of signoff.yaml would (no signing)."""
    signoff.write_entry(root, path, rec)


def not_verified(root: Path, role: str, path: str = WARP) -> str:
    bound = ("entry, role, name, fingerprint, commit, date and author signature" if role.endswith("reviewer")
             else "entry, role, name, fingerprint, commit and date")
    needle = f"{role.split('.')[-1]}:"
    line = line_of(root, "signature:", after=line_of(root, needle, after=line_of(root, f"{path}:")))
    return (f"signoff.yaml:{line}: the {role} signature of {path} does not verify (gloss sign did not make it over "
            f"this {bound} as written here: one of them was edited, or it was copied from elsewhere); it counts "
            f"for nothing; the signer signs again with their own registered key: gloss sign {path} --as "
            f"{role.split('.')[-1]}")


def later(sig: signoff.Signature) -> signoff.Signature:
    return dataclasses.replace(sig, on=sig.on + dt.timedelta(days=1))


EDITS = {
    # field edits of the author's signature (the review is bound to the author's signature, which is unchanged)
    "date": lambda r: dataclasses.replace(r, author=later(r.author)),
    "commit": lambda r: dataclasses.replace(r, author=dataclasses.replace(r.author, commit="0" * 40)),
    "no commit": lambda r: dataclasses.replace(r, author=dataclasses.replace(r.author, commit=None)),
    "part digests": lambda r: dataclasses.replace(r, author=dataclasses.replace(
        r.author, covers=dataclasses.replace(r.author.covers, text="sha256:" + "0" * 16))),
    "name variant": lambda r: dataclasses.replace(r, author=dataclasses.replace(r.author, name="ADA  author")),
}


@pytest.mark.parametrize("what", EDITS)
def test_an_edited_field_voids_the_signature(signed: Path, capsys: pytest.CaptureFixture[str], what: str) -> None:
    edit(signed, WARP, EDITS[what](record(signed)))
    code, rows, problems = status(signed, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"]) == (1, "draft", False)
    assert problems == [not_verified(signed, "author")]


def test_swapped_roles_do_not_verify(signed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = record(signed)
    assert rec.author is not None and rec.reviewer is not None
    edit(signed, WARP, signoff.EntrySignoff(author=dataclasses.replace(rec.reviewer, name="Ada Author"),
                                            reviewer=dataclasses.replace(rec.author, name="Rex Reviewer")))
    code, rows, problems = status(signed, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"]) == (1, "draft", False)
    assert problems == [not_verified(signed, "author"), not_verified(signed, "reviewer")]


def test_a_pair_moved_to_another_entry_does_not_verify(signed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(signed, LANE, record(signed, WARP))
    (signed / LANE).write_text(V1.replace("warp", "lane"), encoding="utf-8")
    code, rows, problems = status(signed, capsys)
    assert (code, rows[LANE]["state"], rows[LANE]["published"]) == (1, "draft", False)
    assert problems == [not_verified(signed, "author", LANE), not_verified(signed, "reviewer", LANE)]


def test_a_review_paired_with_another_author_signature_does_not_verify(
        signed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = record(signed)
    assert rec.author is not None
    # Another valid author signature of the same content, by Sam Self, made with Sam's own key...
    sam = dataclasses.replace(rec.author, name="Sam Self", on=later(rec.author).on)
    sam = dataclasses.replace(sam, signature=armored("Sam Self", registry.signed_message(WARP, "author", sam, None)))
    # ...put in place of Ada's: Rex reviewed Ada's signature, not Sam's.
    edit(signed, WARP, dataclasses.replace(rec, author=sam))
    code, rows, problems = status(signed, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["author"]["name"]) == (1, "awaiting-review", "Sam Self")
    assert problems == [not_verified(signed, "reviewer")]


def test_a_signature_in_the_old_v1_format_no_longer_counts(signed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = record(signed)
    assert rec.author is not None
    v1 = armored("Ada Author", keys.message_v1(WARP, "author", rec.author.fingerprint, rec.author.on))
    edit(signed, WARP, signoff.EntrySignoff(author=dataclasses.replace(rec.author, signature=v1)))
    code, rows, problems = status(signed, capsys)
    line = line_of(signed, "signature:", after=line_of(signed, f"{WARP}:"))
    assert (code, rows[WARP]["state"]) == (1, "draft")
    assert problems == [
        f"signoff.yaml:{line}: the author signature of {WARP} is in the old v1 format, which does not bind the "
        "signer's name, the commit or the pair, so it no longer counts; it counts for nothing; the signer signs "
        f"again with their own registered key: gloss sign {WARP} --as author"]


def test_a_later_review_that_does_not_verify_supersedes_nothing(history: tuple[Path, str, str],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root, _, _ = history
    good = (root / "signoff.yaml").read_text(encoding="utf-8")
    # Someone commits a forged later review (Rex's name, Ada's key); it must not unpublish warp for good.
    rec = record(root)
    assert rec.author is not None and rec.reviewer is not None
    forged = dataclasses.replace(rec.reviewer, on=later(rec.reviewer).on)
    forged = dataclasses.replace(forged, signature=armored(
        "Ada Author", registry.signed_message(WARP, "reviewer", forged, rec.author)))
    edit(root, WARP, dataclasses.replace(rec, reviewer=forged))
    commit_all(root, "a forged review")
    (root / "signoff.yaml").write_text(good, encoding="utf-8")
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"], problems) == (0, "signed", True, [])
