"""`gloss signers`: a sign-off made by `gloss sign` verifies with stock `ssh-keygen -Y verify`, through the
exported allowed_signers file, message and signature (fictional people, real ed25519 keys)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from signoff_helpers import commit_all, init_repo, key_file, make_site, term

from site_plugins import cli

WARP = term("What is a warp?", "A warp is a group of 32 threads that a multiprocessor schedules together.",
            "Threads of a warp issue the same instruction.")


def gloss(root: Path, *args: str) -> int:
    return cli.main([*args, "--root", str(root)])


def verify(allowed: Path, principal: str, stem: Path) -> subprocess.CompletedProcess[bytes]:
    with Path(f"{stem}.msg").open("rb") as msg:
        return subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", principal,
                               "-n", "cuda-gloss-signoff", "-s", f"{stem}.sig"],
                              stdin=msg, capture_output=True, check=False)


def test_an_exported_signoff_verifies_with_stock_ssh_keygen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "p"
    root.mkdir()
    init_repo(root)
    make_site(root, {"warp": WARP})
    commit_all(root, "fixture")
    path = "content/terms/warp.md"
    for role, name in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
        assert gloss(root, "sign", path, "--as", role, "--name", name, "--key", str(key_file(name))) == 0
    allowed, out = tmp_path / "allowed_signers", tmp_path / "out"
    assert gloss(root, "signers", "--allowed-signers", str(allowed)) == 0
    lines = [ln for ln in allowed.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    assert any(ln.startswith('ada namespaces="cuda-gloss-signoff" ssh-ed25519 ') for ln in lines), lines
    for role, who in (("author", "ada"), ("reviewer", "rex")):
        assert gloss(root, "signers", "--signature", path, "--role", role, "--out", str(out)) == 0
        stem = out / f"warp.{role}"
        ok = verify(allowed, who, stem)
        assert ok.returncode == 0, ok.stderr
        assert b'Good "cuda-gloss-signoff" signature for ' + who.encode() in ok.stdout
        # the principal is bound: the other person's name does not verify it
        assert verify(allowed, "rex" if who == "ada" else "ada", stem).returncode != 0
    # one byte of the message changed: stock ssh-keygen refuses it
    msg = out / "warp.author.msg"
    msg.write_bytes(msg.read_bytes().replace(b"author", b"reviewer", 1))
    assert verify(allowed, "ada", out / "warp.author").returncode != 0
    capsys.readouterr()
    assert gloss(root, "signers", "--signature", "content/terms/none.md", "--role", "author") == 1
    assert capsys.readouterr().err == (  # the line of `entries:`, where its sign-off would be
        "signoff.yaml:10: no author signature of content/terms/none.md; gloss status lists what is signed\n")
    assert (root / "signoff.yaml").read_text(encoding="utf-8").splitlines()[9] == "entries:"
    assert gloss(root, "signers") == 2


def test_the_printed_command_verifies_as_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """No --allowed-signers: the export writes one beside the signature, and the command it prints, run
    where gloss ran, finds every file it names."""
    root = tmp_path / "p"
    root.mkdir()
    init_repo(root)
    make_site(root, {"warp": WARP})
    commit_all(root, "fixture")
    path = "content/terms/warp.md"
    ada = str(key_file("Ada Author"))
    assert gloss(root, "sign", path, "--as", "author", "--name", "Ada Author", "--key", ada) == 0
    here = tmp_path / "reader"
    here.mkdir()
    monkeypatch.chdir(here)
    capsys.readouterr()
    assert gloss(root, "signers", "--signature", path, "--role", "author", "--out", "exported") == 0
    out = capsys.readouterr().out
    assert out == (
        "wrote exported/warp.author.msg, exported/warp.author.sig and exported/allowed_signers; verify with:\n"
        "  ssh-keygen -Y verify -f exported/allowed_signers -I ada -n cuda-gloss-signoff "
        "-s exported/warp.author.sig < exported/warp.author.msg\n"
    )
    ran = subprocess.run(["bash", "-c", out.splitlines()[1]], cwd=here, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith('Good "cuda-gloss-signoff" signature for ada with ED25519 key SHA256:')
