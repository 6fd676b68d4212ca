"""Replay refusal whatever the shape of history: an older pair copied back is known by what it signs (not
by its armor text), git history is read across merges, and a shallow clone counts no pair at all (saying
how to fetch the history) rather than publish what the full history would refuse. Real git repositories,
real clones, real ed25519 keys."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import subprocess
from pathlib import Path

import pytest
from signoff_helpers import commit_all, git, init_repo, key_file, make_site, term

from site_plugins import cli, signoff
from site_plugins.signoff.history import SHALLOW, SHALLOW_REMEDY

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


def superseded(root: Path, second: str) -> str:
    line = line_of(root, "reviewer:", after=line_of(root, f"{WARP}:")) + 1
    return (f"signoff.yaml:{line}: the published pair of {WARP} (reviewed by Rex Reviewer, 2026-12-01) was "
            f"superseded by a later review (Rex Reviewer, 2026-12-01, committed in {second[:10]}); an older "
            f"sign-off copied back does not count; restore the entry's newest sign-off from git (git show "
            f"{second[:10]}:signoff.yaml) or remove the old pair and sign again")


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str, str]:
    """warp signed at v1 (first) and again at v2 (second), lane signed once, each sign-off committed."""
    (tmp_path / "repo").mkdir()
    root = init_repo(tmp_path / "repo")
    make_site(root, {"warp": V1, "lane": LANE_TEXT})
    commit_all(root, "warp v1")
    for path in (WARP, LANE):
        sign(root, path, "author", "Ada Author")
        sign(root, path, "reviewer", "Rex Reviewer")
    first = commit_all(root, "v1 signed")
    (root / WARP).write_text(V2, encoding="utf-8")
    commit_all(root, "warp v2")
    sign(root, WARP, "author", "Ada Author")
    sign(root, WARP, "reviewer", "Rex Reviewer")
    second = commit_all(root, "warp v2 signed")
    return root, first, second


def after_armor(text: str, extra: str) -> str:
    """``text`` with ``extra`` written after the end of the first review's armor, inside its block."""
    at = text.index("-----END SSH SIGNATURE-----", text.index("reviewer:", text.index(f"{WARP}:")))
    end = at + len("-----END SSH SIGNATURE-----")
    indent = text[text.rindex("\n", 0, at) + 1:at]
    return text[:end] + "\n" + indent + extra + text[end:]


@pytest.mark.parametrize("extra", ["an extra line after the armor", "", "-----END SSH SIGNATURE-----"])
def test_an_old_pair_is_known_by_what_it_signs_not_by_its_armor(history: tuple[Path, str, str],
                                                               capsys: pytest.CaptureFixture[str], extra: str) -> None:
    root, first, second = history
    old = after_armor(git(root, "show", f"{first}:signoff.yaml"), extra)
    (root / "signoff.yaml").write_text(old, encoding="utf-8")
    (root / WARP).write_text(V1, encoding="utf-8")  # the text the old pair signed, too
    reg, _ = signoff.parse(old)  # the armor as changed still verifies: it is the old, genuine pair
    assert reg.entries[WARP].reviewer is not None and reg.entries[WARP].author is not None
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"], rows[LANE]["published"]) == (1, "draft", False, True)
    assert problems == [superseded(root, second)]


def test_an_old_pair_in_another_yaml_layout_is_known_too(history: tuple[Path, str, str],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    root, first, second = history
    old = signoff.parse(git(root, "show", f"{first}:signoff.yaml"))[0].entries[WARP]
    assert old.author is not None and old.reviewer is not None
    text = (root / "signoff.yaml").read_text(encoding="utf-8")
    head = text[:text.index("entries:")]

    def flow(sig: signoff.Signature) -> str:  # one line each, JSON strings (the armor's line breaks as \n)
        covers = json.dumps(dataclasses.asdict(sig.covers)) if sig.covers else "null"
        return (f"{{name: {json.dumps(sig.name)}, on: {sig.on.strftime('%Y-%m-%dT%H:%M:%SZ')}, fingerprint: "
                f"{json.dumps(sig.fingerprint)}, commit: {json.dumps(sig.commit)}, covers: {covers}, "
                f"signature: {json.dumps(sig.signature)}}}")

    lane = signoff.load(root)[0].entries[LANE]
    assert lane.author is not None and lane.reviewer is not None
    (root / "signoff.yaml").write_text(
        head + f"entries:\n  {WARP}: {{author: {flow(old.author)}, reviewer: {flow(old.reviewer)}}}\n"
        f"  {LANE}: {{author: {flow(lane.author)}, reviewer: {flow(lane.reviewer)}}}\n", encoding="utf-8")
    (root / WARP).write_text(V1, encoding="utf-8")
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["published"], rows[LANE]["published"]) == (1, False, True)
    warp = line_of(root, f"{WARP}:")  # (a flow mapping: the review's line is the entry's)
    assert problems == [superseded(root, second).replace(f"signoff.yaml:{warp + 2}:", f"signoff.yaml:{warp}:")]


def test_a_branch_that_kept_its_own_old_copy_does_not_hide_a_newer_review(
        history: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    root, first, second = history
    # A branch made before the second sign-off keeps v1 and its pair; merged with "-s ours" from the branch,
    # the merge holds the branch's files, and git's default history walk never visits the second sign-off.
    git(root, "checkout", "-q", "-b", "old", first)
    (root / "notes.txt").write_text("unrelated\n", encoding="utf-8")
    commit_all(root, "an unrelated change on the old branch")
    git(root, "merge", "-q", "-s", "ours", "main", "-m", "merge main, keeping the old branch's files")
    assert (root / WARP).read_text(encoding="utf-8") == V1
    assert second not in git(root, "rev-list", "HEAD", "--", "signoff.yaml").split()  # git's default walk
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"], rows[LANE]["published"]) == (1, "draft", False, True)
    assert problems == [superseded(root, second)]


def test_reviews_made_side_by_side_on_two_branches_fail_closed(history: tuple[Path, str, str],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    root, _, _ = history
    v3 = V2.replace("own data.", "own data, in lockstep.")
    git(root, "checkout", "-q", "-b", "side")
    (root / WARP).write_text(v3, encoding="utf-8")
    commit_all(root, "warp v3")
    sign(root, WARP, "author", "Ada Author")
    sign(root, WARP, "reviewer", "Rex Reviewer")
    side = commit_all(root, "warp v3 signed on a side branch")
    git(root, "checkout", "-q", "main")
    (root / WARP).write_text(v3.replace("lockstep", "step"), encoding="utf-8")
    commit_all(root, "warp v3' on main")
    sign(root, WARP, "author", "Ada Author")
    sign(root, WARP, "reviewer", "Rex Reviewer")
    commit_all(root, "warp v3' signed on main")
    # The merge keeps the side branch's text and sign-off: neither review is older than the other.
    subprocess.run(["git", "-C", str(root), "merge", "-q", "side", "-m", "merge side"], capture_output=True)
    git(root, "checkout", "side", "--", WARP, "signoff.yaml")
    git(root, "commit", "-q", "-am", "merge side, keeping its warp")
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["published"]) == (1, False)
    assert len(problems) == 1 and f"the published pair of {WARP}" in problems[0] and side[:10] not in problems[0]


def shallow_clone(root: Path, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{root}", str(dest)], check=True,
                   capture_output=True)
    return dest


SHALLOW_LINE = (f"signoff.yaml:1: {SHALLOW.format(pairs='2 pairs of author and reviewer set aside')}; "
                f"{SHALLOW_REMEDY}")


def test_a_shallow_clone_counts_no_pair_and_says_how_to_fetch_the_history(
        history: tuple[Path, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, first, _ = history
    # The copied-back old pair, committed: the one commit a depth-1 clone holds shows nothing newer.
    (root / "signoff.yaml").write_text(git(root, "show", f"{first}:signoff.yaml"), encoding="utf-8")
    (root / WARP).write_text(V1, encoding="utf-8")
    commit_all(root, "the old pair copied back")
    clone = shallow_clone(root, tmp_path / "clone")
    code, rows, problems = status(clone, capsys)
    assert (code, rows[WARP]["published"], rows[LANE]["published"]) == (1, False, False)
    assert problems == [SHALLOW_LINE]
    assert SHALLOW_LINE == (
        "signoff.yaml:1: this is a shallow git clone, so its history cannot tell an older sign-off copied back into "
        "signoff.yaml from the newest, and no sign-off counts (2 pairs of author and reviewer set aside); fetch the "
        "whole history: git fetch --unshallow (in CI, set 'fetch-depth: 0' under the actions/checkout step in "
        ".github/workflows/*.yml)")
    # Fetching the history is the remedy: the copy-back is then refused, lane published again.
    subprocess.run(["git", "-C", str(clone), "fetch", "-q", "--unshallow"], check=True, capture_output=True)
    code, rows, problems = status(clone, capsys)
    assert (rows[WARP]["published"], rows[LANE]["published"]) == (False, True)
    assert len(problems) == 1 and "was superseded by a later review" in problems[0]


def test_a_shallow_clone_of_an_entry_awaiting_re_sign_says_why(history: tuple[Path, str, str], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    root, _, _ = history
    (root / WARP).write_text(V2 + "\nA change that awaits sign-off.\n", encoding="utf-8")
    commit_all(root, "warp changed")
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["state"], rows[WARP]["published"], problems) == (0, "changed", True, [])
    clone = shallow_clone(root, tmp_path / "clone")
    code, rows, problems = status(clone, capsys)
    assert (rows[WARP]["published"], rows[LANE]["published"]) == (False, False)
    assert problems == [SHALLOW_LINE]  # the one reason, not "cannot be recovered from git"
    # Nor does gloss sign write over a pair it cannot judge.
    capsys.readouterr()
    assert cli.main(["sign", WARP, "--as", "author", "--key", str(key_file("ada")), "--root", str(clone)]) == 1
    assert f"signoff.yaml has problems; fix them first:\n  {SHALLOW_LINE}" in capsys.readouterr().err


def test_a_grafts_file_that_rewrites_history_counts_no_pair(history: tuple[Path, str, str],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    root, first, second = history
    # The copied-back old pair, committed; then a grafts file cuts the history off below that commit
    # (git honours it even with --no-replace-objects): the second review would never be seen.
    (root / "signoff.yaml").write_text(git(root, "show", f"{first}:signoff.yaml"), encoding="utf-8")
    (root / WARP).write_text(V1, encoding="utf-8")
    head = commit_all(root, "the old pair copied back")
    (root / ".git/info").mkdir(exist_ok=True)
    (root / ".git/info/grafts").write_text(f"{head}\n", encoding="utf-8")
    code, rows, problems = status(root, capsys)
    assert (code, rows[WARP]["published"], rows[LANE]["published"]) == (1, False, False)
    assert problems == [
        "signoff.yaml:1: this repository's history is rewritten by its grafts file (.git/info/grafts), so it cannot "
        "tell an older sign-off copied back into signoff.yaml from the newest, and no sign-off counts (2 pairs of "
        "author and reviewer set aside); remove the grafts file (or build from a clone without one)"]
    (root / ".git/info/grafts").unlink()
    code, rows, problems = status(root, capsys)
    assert (rows[WARP]["published"], rows[LANE]["published"]) == (False, True)
    assert len(problems) == 1 and f"committed in {second[:10]}" in problems[0]
