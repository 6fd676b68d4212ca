"""`gloss sign` with SSH keys: the key decides who signs; many entries are signed in one call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from signoff_helpers import commit_all, git, init_repo, key_file, key_sha, make_site, public, term

from site_plugins import cli, signoff
from site_plugins.publishing import pipeline
from site_plugins.signoff import keys

GOOD = term("What is a warp?", "A warp is a group of 32 threads that a multiprocessor schedules together.",
            "Threads of a warp issue the same instruction.")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    init_repo(tmp_path)
    make_site(tmp_path, {"warp": GOOD})
    commit_all(tmp_path, "fixture")
    return tmp_path


def gloss(root: Path, *args: str) -> int:
    return cli.main([*args, "--root", str(root)])


def test_a_signature_with_another_persons_key_is_refused(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (site / "signoff.yaml").read_text(encoding="utf-8")
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "author", "--name", "Rex Reviewer",
                 "--key", str(key_file("ada"))) == 1
    assert capsys.readouterr().err == (
        f"gloss sign: the key {key_sha('ada')} is registered to Ada Author, not Rex Reviewer; each person signs "
        "with their own key\n")
    # Switching names does not switch people: Ada's key signs as Ada whatever --name says.
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "author", "--key", str(key_file("ada"))) == 0
    capsys.readouterr()
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "reviewer", "--name", "rex",
                 "--key", str(key_file("ada"))) == 1
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "reviewer", "--key", str(key_file("ada"))) == 1
    assert capsys.readouterr().err.endswith(
        "gloss sign: Ada Author signed content/terms/warp.md as author and cannot also review it; ask another "
        "registered person to review\n")
    reg, problems = signoff.load(site)
    assert problems == [] and reg.entries["content/terms/warp.md"].reviewer is None
    assert before != (site / "signoff.yaml").read_text(encoding="utf-8")


def test_the_key_comes_from_git_config_as_for_signed_commits(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(site, "config", "gpg.format", "ssh")
    git(site, "config", "user.signingkey", f"{key_file('rex')}.pub")  # the public half, as git takes it
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "author") == 0
    assert capsys.readouterr().out.startswith("Signed content/terms/warp.md as author: Rex Reviewer, ")
    git(site, "config", "user.signingkey", f"key::{public('sam')}")  # a literal key needs ssh-agent: not here
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "reviewer") == 2
    assert capsys.readouterr().err.startswith(f"gloss sign: ssh-keygen could not sign with key::{public('sam')}")


def test_a_key_nobody_registered_is_refused(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gloss(site, "sign", "content/terms/warp.md", "--as", "author", "--key", str(key_file("zed"))) == 1
    assert capsys.readouterr().err == (
        f"gloss sign: the key {key_sha('zed')} is not registered to anyone in signoff.yaml; add its public line "
        "under your entry's 'keys:' first\n")


def test_the_recorded_signature_verifies_with_the_library_and_with_ssh_keygen(site: Path) -> None:
    import subprocess

    assert gloss(site, "sign", "content/terms/warp.md", "--as", "author", "--key", str(key_file("ada"))) == 0
    reg, _ = signoff.load(site)
    sig = reg.entries["content/terms/warp.md"].author
    assert sig is not None
    assert sig.covers is not None and sig.commit is not None
    # The documented v2 payload, written out by hand: every field of the record but the signature itself.
    payload = {"path": "content/terms/warp.md", "role": "author", "name": "Ada Author",
               "fingerprint": sig.fingerprint, "on": keys.stamp(sig.on), "commit": sig.commit,
               "covers": {"text": sig.covers.text, "values": sig.covers.values, "code": sig.covers.code,
                          "files": sig.covers.files}, "reviews": None}
    msg = ("cuda-gloss sign-off v2\n" + json.dumps(payload, sort_keys=True, separators=(",", ":")) + "\n").encode()
    (site / "allowed").write_text(f"ada@example.invalid namespaces=\"{keys.NAMESPACE}\" {public('ada')}\n",
                                  encoding="utf-8")
    (site / "sig").write_text(sig.signature, encoding="ascii")
    done = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(site / "allowed"), "-I", "ada@example.invalid",
                           "-n", keys.NAMESPACE, "-s", str(site / "sig")], input=msg, capture_output=True)
    assert done.returncode == 0, done.stderr
    signer = keys.signer(msg, sig.signature)
    assert signer is not None and signer.sha256 == key_sha("ada")


# --- many entries in one call ---------------------------------------------------------------------------

MANY = 120


@pytest.fixture
def big(tmp_path: Path) -> Path:
    init_repo(tmp_path)
    terms = {f"term-{i:03d}": term(f"What is term {i}?", f"Term {i} is a fixture.", f"Body of term {i}.")
             for i in range(MANY)}
    make_site(tmp_path, terms)
    commit_all(tmp_path, "fixture")
    return tmp_path


def test_many_entries_are_signed_in_one_call(big: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    staged: list[str] = []
    signed: list[int] = []
    real_stage, real_sign = pipeline.stage, keys.sign_many

    def count_stage(*args: object, **kw: object) -> pipeline.Staged:
        staged.append(args[1].path)  # type: ignore[attr-defined]
        return real_stage(*args, **kw)  # type: ignore[arg-type]

    def count_sign(keyfile: str, messages: list[bytes]) -> list[str]:
        signed.append(len(messages))
        return real_sign(keyfile, messages)

    monkeypatch.setattr(pipeline, "stage", count_stage)
    monkeypatch.setattr(keys, "sign_many", count_sign)
    assert gloss(big, "sign", "content/terms/*.md", "--as", "author", "--key", str(key_file("ada"))) == 0
    # One fingerprint pass over the project, one ssh-keygen call for every entry.
    assert len(staged) == MANY and len(set(staged)) == MANY
    assert signed == [MANY]
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"Signed {MANY} entries as author: Ada Author"
    assert out[0].startswith("Signed content/terms/term-000.md as author: Ada Author, ")
    assert out[0].endswith("; state: awaiting review; still missing: review by a registered person other than "
                           "the author")
    staged.clear()
    signed.clear()
    assert gloss(big, "sign", "content/terms", "--as", "reviewer", "--key", str(key_file("rex"))) == 0  # a folder
    assert signed == [MANY]
    capsys.readouterr()
    assert gloss(big, "status", "--json") == 0
    states = {e["state"] for e in json.loads(capsys.readouterr().out)["entries"]}
    assert states == {"signed"}
    # Again: nothing to do for any of them, and nothing is signed.
    signed.clear()
    assert gloss(big, "sign", str(big / "content/terms/term-00*.md"), "--as", "reviewer",
                 "--key", str(key_file("rex"))) == 0
    assert signed in ([], [0])
    assert capsys.readouterr().out.count("nothing to do") == 10


def test_one_refused_entry_signs_none_of_the_batch(big: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = big / "content/terms/term-007.md"
    bad.write_text(term("What is term 7?", "Two sentences. Not one.", "Body."), encoding="utf-8")
    before = (big / "signoff.yaml").read_text(encoding="utf-8")
    assert gloss(big, "sign", "content/terms/term-00*.md", "content/terms/term-100.md", "--as", "author",
                 "--key", str(key_file("ada"))) == 1
    assert capsys.readouterr().err == (
        "gloss sign: content/terms/term-007.md has 1 problem and cannot be signed; fix them first (gloss check "
        "lists them):\n  content/terms/term-007.md:3: the definition must be exactly one sentence; keep one "
        "sentence ending in a full stop; move the rest into the body\n"
        "nothing was signed (1 of 11 refused)\n")
    assert (big / "signoff.yaml").read_text(encoding="utf-8") == before


def test_a_pattern_that_matches_nothing_is_a_usage_error(big: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gloss(big, "sign", "content/terms/nothing-*.md", "--as", "author", "--key", str(key_file("ada"))) == 2
    assert capsys.readouterr().err == "gloss sign: content/terms/nothing-*.md matches no term or lesson\n"
