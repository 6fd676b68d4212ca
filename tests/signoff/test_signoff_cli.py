"""`gloss sign`, `gloss status`, `gloss diff` and `gloss new` on tiny projects made in tmp_path."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from signoff_helpers import PEOPLE, commit_all, init_repo, key_file, key_sha, make_site, person_yaml, term

from site_plugins import cli, signoff
from site_plugins.content import load_content
from site_plugins.publishing.publish import Signable
from site_plugins.signoff.signable import git

GOOD = term("What is a warp?", "A warp is a group of 32 threads that a multiprocessor schedules together.",
            "Threads of a warp issue the same instruction.")
CODED = term("What is a copy kernel?", "A copy kernel moves bytes from one array to another.",
             "It sets the ceiling a transpose is measured against.",
             extra="code:\n  - file: code/day01-basics/copy.cu\n    region: copy\n")
TWO_SENTENCES = term("What is a bad term?", "It is bad. It has two sentences.", "Body.")
EMPTY_BODY = term("What is an empty term?", "An empty term has no body.", "")

CLOCK = [dt.datetime(2026, 12, 1, 10, 0, 0, tzinfo=dt.UTC)]


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each signature one hour after the previous one, so that outputs are exact.
    CLOCK[0] = dt.datetime(2026, 12, 1, 10, 0, 0, tzinfo=dt.UTC)

    def tick() -> dt.datetime:
        now = CLOCK[0]
        CLOCK[0] = now + dt.timedelta(hours=1)
        return now

    monkeypatch.setattr(signoff, "now_utc", tick)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    init_repo(tmp_path)
    make_site(tmp_path, {"warp": GOOD, "copy-kernel": CODED, "bad": TWO_SENTENCES, "empty": EMPTY_BODY})
    commit_all(tmp_path, "fixture")
    return tmp_path


def gloss(root: Path, *args: str) -> int:
    return cli.main([*args, "--root", str(root)])


def sign(root: Path, path: str, role: str, name: str) -> int:
    """gloss sign as ``name``, with their own key (a real ed25519 key made by ssh-keygen)."""
    return gloss(root, "sign", path, "--as", role, "--name", name, "--key", str(key_file(name)))


# --- gloss sign: refusals, each with its exact message -----------------------------------------------

REFUSALS = [
    ([("content/terms/warp.md", "author", "Zed Nobody")], 1,
     "gloss sign: the key KEY(zed) is not registered to anyone in signoff.yaml; add its public line under your "
     "entry's 'keys:' first\n"),
    ([("content/terms/warp.md", "author", "Sam Self"), ("content/terms/warp.md", "reviewer", "Sam Self")], 1,
     "gloss sign: Sam Self signed content/terms/warp.md as author and cannot also review it; "
     "ask another registered person to review\n"),
    ([("content/terms/warp.md", "author", "ada"), ("content/terms/warp.md", "reviewer", "Ada Author")], 1,
     "gloss sign: Ada Author signed content/terms/warp.md as author and cannot also review it; "
     "ask another registered person to review\n"),
    ([("content/terms/warp.md", "reviewer", "Rex Reviewer")], 1,
     "gloss sign: content/terms/warp.md has no author sign-off of its current content; the author signs first "
     "(gloss sign content/terms/warp.md --as author)\n"),
    ([("content/terms/bad.md", "author", "Ada Author")], 1,
     "gloss sign: content/terms/bad.md has 1 problem and cannot be signed; fix them first (gloss check lists "
     "them):\n  content/terms/bad.md:3: the definition must be exactly one sentence; keep one sentence ending in "
     "a full stop; move the rest into the body\n"),
    ([("content/terms/empty.md", "author", "Ada Author")], 1,
     "gloss sign: content/terms/empty.md has no body text and cannot be signed; write the entry first\n"),
    ([("content/terms/nope.md", "author", "Ada Author")], 2,
     "gloss sign: content/terms/nope.md is not a term or lesson; give the path of a file under content/terms/ "
     "or content/lessons/\n"),
    ([("signoff.yaml", "author", "Ada Author")], 2,
     "gloss sign: signoff.yaml is not a term or lesson; give the path of a file under content/terms/ "
     "or content/lessons/\n"),
]


@pytest.mark.parametrize(("steps", "code", "message"), REFUSALS)
def test_sign_refusals(site: Path, capsys: pytest.CaptureFixture[str], steps: list[tuple[str, str, str]],
                       code: int, message: str) -> None:
    *before, last = steps
    for step in before:
        assert sign(site, *step) == 0
    registry = (site / "signoff.yaml").read_text(encoding="utf-8")
    capsys.readouterr()
    assert sign(site, *last) == code
    out, err = capsys.readouterr()
    assert (out, err) == ("", message.replace("KEY(zed)", key_sha("zed")))
    assert (site / "signoff.yaml").read_text(encoding="utf-8") == registry  # nothing recorded


def test_sign_refuses_while_signoff_yaml_is_malformed(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (site / "signoff.yaml").write_text("people:\n" + person_yaml("Ada Author", False) + "    nick: ada\n",
                                       encoding="utf-8")
    assert sign(site, "content/terms/warp.md", "author", "Ada Author") == 1
    assert capsys.readouterr().err == (
        "gloss sign: signoff.yaml has problems; fix them first:\n"
        "  signoff.yaml:4: unknown key 'people[0].nick'; allowed keys: name, keys, handle, email\n")


def test_sign_usage_errors_exit_2(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gloss(site, "sign", "content/terms/warp.md", "--name", "Ada Author") == 2
    assert "the following arguments are required: --as" in capsys.readouterr().err
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "editor", "--name", "Ada Author") == 2
    assert cli.main(["sign", "--help"]) == 0
    capsys.readouterr()
    # No --key and no git config user.signingkey: an environment error that says how to set one.
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "author") == 2
    assert capsys.readouterr().err == (
        "gloss sign: no signing key: pass --key ~/.ssh/id_ed25519.pub, or set it once as git does for signed "
        "commits: git config user.signingkey ~/.ssh/id_ed25519.pub\n")
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "author", "--key", str(site / "nokey")) == 2
    assert capsys.readouterr().err == (
        f"gloss sign: no key file at {site / 'nokey'}; pass --key with your key's path, or set git config "
        "user.signingkey\n")


def test_signing_the_same_thing_twice_is_a_no_op(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert sign(site, "content/terms/warp.md", "author", "Ada Author") == 0
    registry = (site / "signoff.yaml").read_text(encoding="utf-8")
    capsys.readouterr()
    assert sign(site, "content/terms/warp.md", "author", "ada") == 0
    assert capsys.readouterr().out == (
        "gloss sign: Ada Author already signed the current content of content/terms/warp.md as author; "
        "nothing to do\n")
    assert (site / "signoff.yaml").read_text(encoding="utf-8") == registry


# --- gloss sign: what it prints and records -----------------------------------------------------------


def test_sign_prints_what_was_signed(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = git(site, "rev-parse", "HEAD")
    assert head is not None
    path = "content/terms/copy-kernel.md"
    assert sign(site, path, "author", "ada") == 0
    out = capsys.readouterr().out
    reg, problems = signoff.load(site)
    assert problems == []
    sig = reg.entries[path].author
    assert sig is not None and sig.commit == head.strip() and sig.name == "Ada Author"
    c = sig.covers
    assert c is not None
    code = "__global__ void copy(float* o, const float* i) {\n    o[threadIdx.x] = i[threadIdx.x];\n}"
    assert c.code == signoff.covers(Signable(path, "", (), (code,))).code  # the excerpt as quoted
    assert out == (
        f"Signed {path} as author: Ada Author, 2026-12-01T10:00:00Z\n"
        f"  fingerprint  {sig.fingerprint}\n"
        f"  text         9 lines, {len(CODED)} characters ({c.text[:19]}…)\n"
        f"  values       0 measured values ({c.values[:19]}…)\n"
        f"  code         1 excerpt, 3 lines ({c.code[:19]}…)\n"
        f"  files        1 code file published: code/day01-basics/copy.cu ({c.files[:19]}…)\n"
        f"  commit       {head.strip()[:12]} (the signed text is committed)\n"
        "State: awaiting review; still missing: review by a registered person other than the author\n")
    assert sign(site, path, "reviewer", "rex") == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Signed {path} as reviewer: Rex Reviewer, 2026-12-01T11:00:00Z\n")
    assert out.endswith("State: signed\n")


def test_sign_warns_when_the_signed_text_is_not_committed(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (site / "content/terms/warp.md").write_text(GOOD + "\nMore.\n", encoding="utf-8")
    assert sign(site, "content/terms/warp.md", "author", "Ada Author") == 0
    assert ("  commit       none: the signed text is not committed; commit it so that this version can be "
            "recovered if the entry changes later\n") in capsys.readouterr().out


# --- gloss status: every state ------------------------------------------------------------------------


def states_site(root: Path) -> Path:
    init_repo(root)
    terms = {name: term(f"What is {name}?", f"The {name} term is a fixture.", f"The {name} body.")
             for name in ("drafted", "authored", "signed", "changed", "lost", "unknown-reviewer")}
    make_site(root, terms, registry=PEOPLE + person_yaml("Lee Leaving", False))
    commit_all(root, "fixture")
    assert sign(root, "content/terms/authored.md", "author", "Ada Author") == 0
    for slug in ("signed", "changed", "unknown-reviewer"):
        assert sign(root, f"content/terms/{slug}.md", "author", "Ada Author") == 0
        reviewer = "Lee Leaving" if slug == "unknown-reviewer" else "Rex Reviewer"
        assert sign(root, f"content/terms/{slug}.md", "reviewer", reviewer) == 0
    # 'lost' is signed on a text that was never committed, then changed again.
    (root / "content/terms/lost.md").write_text(terms["lost"] + "\nUncommitted.\n", encoding="utf-8")
    assert sign(root, "content/terms/lost.md", "author", "Ada Author") == 0
    assert sign(root, "content/terms/lost.md", "reviewer", "Rex Reviewer") == 0
    (root / "content/terms/lost.md").write_text(terms["lost"] + "\nEdited again.\n", encoding="utf-8")
    (root / "content/terms/changed.md").write_text(terms["changed"] + "\nA new paragraph.\n", encoding="utf-8")
    # Lee leaves the registry; their review no longer counts.
    text = (root / "signoff.yaml").read_text(encoding="utf-8").replace(person_yaml("Lee Leaving", False), "")
    (root / "signoff.yaml").write_text(text, encoding="utf-8")
    commit_all(root, "edits and sign-offs")
    return root


def test_status_table_shows_every_state(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = states_site(tmp_path)
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "100")  # as in a pipe: notes wrap at 100 columns
    assert gloss(root, "status") == 1  # signoff.yaml names someone who is not registered
    out, err = capsys.readouterr()
    reg, _ = signoff.load(root)
    rec = reg.entries["content/terms/changed.md"]
    assert rec.author is not None and rec.author.commit is not None
    commit = rec.author.commit[:10]
    assert out == (
        "ENTRY                              STATE                   AUTHOR                 REVIEWER\n"
        "content/terms/authored.md          awaiting review         Ada Author 2026-12-01  -\n"
        "    missing: review by a registered person other than the author\n"
        "content/terms/changed.md           changed since sign-off  Ada Author 2026-12-01  Rex Reviewer 2026-12-01\n"
        f"    changed (text); published: the version signed 2026-12-01, commit {commit}\n"
        "    missing: author sign-off of the current content (Ada Author signed an earlier version); review\n"
        "      of the current content (Rex Reviewer reviewed an earlier version)\n"
        "content/terms/drafted.md           draft                   -                      -\n"
        "content/terms/lost.md              changed since sign-off  Ada Author 2026-12-01  Rex Reviewer 2026-12-01\n"
        "    changed (text); signed version not in git: unpublished\n"
        "    missing: author sign-off of the current content (Ada Author signed an earlier version); review\n"
        "      of the current content (Rex Reviewer reviewed an earlier version)\n"
        "content/terms/signed.md            signed                  Ada Author 2026-12-01  Rex Reviewer 2026-12-01\n"
        "content/terms/unknown-reviewer.md  awaiting review         Ada Author 2026-12-01  Lee Leaving 2026-12-01\n"
        "    missing: review by a registered person (Lee Leaving is not registered)\n"
        "\n"
        "6 entries: 1 signed, 2 changed since sign-off, 2 awaiting review, 1 draft; 2 published\n"
        "A draft needs its author's sign-off, then a review by someone else: gloss sign PATH --as author\n"
    )
    assert max(len(line) for line in out.splitlines() if line.startswith("    ")) <= 100  # notes wrap
    assert err.splitlines()[0].startswith("content/terms/lost.md:1: changed since sign-off (text) and the signed "
                                          "version (sha256:")
    assert err.splitlines()[1].startswith("signoff.yaml:")
    assert err.splitlines()[1].endswith("'Lee Leaving' signed content/terms/unknown-reviewer.md as reviewer but is "
                                        "not registered; add them under 'people:' or remove the signature")


def test_status_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = states_site(tmp_path)
    capsys.readouterr()
    gloss(root, "status", "--json")
    data = json.loads(capsys.readouterr().out)
    by = {e["path"]: e for e in data["entries"]}
    assert {p: (e["state"], e["published"]) for p, e in by.items()} == {
        "content/terms/authored.md": ("awaiting-review", False),
        "content/terms/changed.md": ("changed", True),
        "content/terms/drafted.md": ("draft", False),
        "content/terms/lost.md": ("changed", False),
        "content/terms/signed.md": ("signed", True),
        "content/terms/unknown-reviewer.md": ("awaiting-review", False),
    }
    signed = by["content/terms/signed.md"]
    assert signed["author"]["name"] == "Ada Author" and signed["author"]["on"] == "2026-12-01T11:00:00Z"
    assert signed["reviewer"]["on"] == "2026-12-01T12:00:00Z" and signed["missing"] == []
    assert by["content/terms/changed.md"]["changed"] == ["text"]
    assert by["content/terms/changed.md"]["published_version"]["reviewed_on"] == "2026-12-01T14:00:00Z"
    assert by["content/terms/unknown-reviewer.md"]["reviewer"]["registered"] is False
    assert len(data["problems"]) == 2


def test_status_of_the_shipped_content_is_all_drafts(capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[2]
    assert gloss(root, "status", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["entries"] and {e["state"] for e in data["entries"]} == {"draft"}
    assert not any(e["published"] for e in data["entries"])


# --- gloss diff -----------------------------------------------------------------------------------------


def test_diff_shows_what_changed_since_sign_off(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = states_site(tmp_path)
    capsys.readouterr()
    assert gloss(root, "diff", "content/terms/changed.md") == 0
    out = capsys.readouterr().out
    reg, _ = signoff.load(root)
    rec = reg.entries["content/terms/changed.md"]
    assert rec.author is not None and rec.author.commit is not None
    c = rec.author.commit[:10]
    assert out == (
        "content/terms/changed.md: changed since sign-off by Ada Author on 2026-12-01 (text)\n"
        f"Signed version: commit {c}\n\n"
        "Text:\n"
        f"--- a/content/terms/changed.md (signed, {c})\n"
        "+++ b/content/terms/changed.md (working copy)\n"
        "@@ -4,3 +4,5 @@\n"
        " ---\n"
        " \n"
        " The changed body.\n"
        "+\n"
        "+A new paragraph.\n"
        "\nMeasured values shown:\n  (no change)\n"
        "\nCode quoted:\n  (no change)\n"
        "\nCode files published:\n  (no change)\n")


def test_diff_other_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = states_site(tmp_path)
    capsys.readouterr()
    assert gloss(root, "diff", "content/terms/signed.md") == 0
    assert capsys.readouterr().out.startswith("content/terms/signed.md: unchanged since sign-off (sha256:")
    assert gloss(root, "diff", "content/terms/drafted.md") == 1
    assert capsys.readouterr().out == "content/terms/drafted.md: nothing signed yet to compare with (draft)\n"
    assert gloss(root, "diff", "content/terms/lost.md") == 1
    out = capsys.readouterr().out
    assert out.startswith("content/terms/lost.md: changed since sign-off by Ada Author on 2026-12-01 (text)\n"
                          "The signed version (sha256:")
    assert out.endswith("cannot be recovered from git.\n")


# --- gloss new ----------------------------------------------------------------------------------------


def test_new_term_scaffold_parses_and_lists_what_is_missing(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    make_site(tmp_path, {"warp": GOOD})
    assert gloss(tmp_path, "new", "term", "bank-conflict") == 0
    assert capsys.readouterr().out == (
        "Created content/terms/bank-conflict.md\n"
        "Next: fill in the front matter and write the body; `gloss check` lists what is still missing. It stays "
        "a draft until signed: gloss sign content/terms/bank-conflict.md --as author\n")
    content, problems = load_content(tmp_path)
    entry = content.terms["bank-conflict"]
    assert entry.title == "What is bank conflict in CUDA?"
    assert [(p.path, p.problem) for p in problems] == [
        ("content/terms/bank-conflict.md", "the definition is empty")]
    assert gloss(tmp_path, "status", "--json") == 0
    states = {e["path"]: e["state"] for e in json.loads(capsys.readouterr().out)["entries"]}
    assert states["content/terms/bank-conflict.md"] == "draft"


def test_new_lesson_scaffold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_site(tmp_path, {"warp": GOOD})
    assert gloss(tmp_path, "new", "lesson", "7", "warps", "--title", 'Warps: the "unit" of scheduling') == 0
    out = capsys.readouterr().out
    assert out.startswith("Created content/lessons/day07-warps.md\nCreated code/day07-warps/ (put the lesson's "
                          ".cu files there)\n")
    content, problems = load_content(tmp_path)
    lesson = content.lessons["day07-warps"]
    assert (lesson.meta.title, lesson.meta.code) == ('Warps: the "unit" of scheduling', "code/day07-warps")
    assert problems == []
    assert (tmp_path / "code/day07-warps").is_dir()
    assert gloss(tmp_path, "new", "lesson", "7", "other") == 1
    assert capsys.readouterr().err == (
        "gloss new: day 7 already has content/lessons/day07-warps.md; choose another day\n")


def test_new_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_site(tmp_path, {"warp": GOOD})
    assert gloss(tmp_path, "new", "term", "warp") == 1
    assert capsys.readouterr().err == (
        "gloss new: content/terms/warp.md already exists; edit it, or choose another slug\n")
    assert gloss(tmp_path, "new", "term", "Bank_Conflict") == 2
    assert capsys.readouterr().err == ("gloss new: 'Bank_Conflict' is not a slug; use lower case letters, digits "
                                       "and hyphens, e.g. bank-conflict\n")
    assert gloss(tmp_path, "new", "lesson", "100", "x") == 2
    assert capsys.readouterr().err == "gloss new: day 100 is out of range; lesson days run from 0 to 99\n"
    assert gloss(tmp_path, "new", "chapter", "x") == 2
