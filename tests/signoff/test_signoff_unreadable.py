"""`gloss status`, `gloss sign` and `gloss diff` when an entry, a code file or signoff.yaml cannot be read:
a `path:line: problem; remedy` line and an exit code, never a traceback (nor a hang, for a FIFO)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from signoff_helpers import commit_all, init_repo, key_file, make_site, term

from site_plugins import cli

GOOD = term("What is a warp?", "A warp is a group of 32 threads that a multiprocessor schedules together.",
            "Threads of a warp issue the same instruction.")
CODED = term("What is a copy kernel?", "A copy kernel moves bytes from one array to another.",
             "It sets the ceiling a transpose is measured against.",
             extra="code:\n  - file: code/day01-basics/copy.cu\n    region: copy\n")
BAD = "content/terms/bad.md"


def latin1(file: Path) -> None:
    file.write_bytes(b"---\ntitle: Caf\xe9\ndefinition: A caf\xe9 term.\n---\n\nBody.\n")


def dangling(file: Path) -> None:
    file.symlink_to(file.parent / "no-such-file.md")


def folder(file: Path) -> None:
    file.mkdir()


def fifo(file: Path) -> None:
    os.mkfifo(file)


def loop(file: Path) -> None:
    file.symlink_to(file.name)


KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "latin-1": (latin1, f"{BAD}:2: not UTF-8 text (byte 0xe9 at column 11); save the file as UTF-8"),
    # A link is refused before anything is read through it (site_plugins/files/textfile.py), dangling or not.
    "dangling symlink": (dangling, f"{BAD}:1: a symbolic link, which is never followed, read or published; "
                                   "replace it with the file itself (a regular file in the repository), or delete it"),
    "folder": (folder, f"{BAD}:1: cannot be read (a folder); make it a regular text file, or remove it"),
    "fifo": (fifo, f"{BAD}:1: cannot be read (not a regular file); make it a regular text file, or remove it"),
    "symlink loop": (loop, f"{BAD}:1: a symbolic link, which is never followed, read or published; "
                           "replace it with the file itself (a regular file in the repository), or delete it"),
}


def gloss(root: Path, *args: str) -> int:
    return cli.main([*args, "--root", str(root)])


def sign(root: Path, path: str, role: str, name: str) -> int:
    return gloss(root, "sign", path, "--as", role, "--key", str(key_file(name)))


@pytest.fixture(params=list(KINDS))
def broken(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    init_repo(tmp_path)
    make_site(tmp_path, {"warp": GOOD})
    commit_all(tmp_path, "fixture")
    make, message = KINDS[request.param]
    make(tmp_path / BAD)
    return tmp_path, message


@pytest.mark.timeout(60)
def test_status_reports_an_unreadable_entry(broken: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    root, message = broken
    assert gloss(root, "status") == 1
    out, err = capsys.readouterr()
    assert err == message + "\n"
    assert f"{BAD}   draft  -       -\n    cannot be read (below)\n    missing: a readable entry file\n" in out
    assert gloss(root, "status", "--json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["problems"] == [message]
    assert [r for r in data["entries"] if r["path"] == BAD] == [{
        "path": BAD, "state": "draft", "published": False, "readable": False, "fingerprint": None,
        "numbers_moved": None, "author": None, "reviewer": None, "missing": ["a readable entry file"], "changed": [],
        "published_version": None}]


@pytest.mark.timeout(60)
def test_sign_refuses_an_unreadable_entry_and_signs_the_others(broken: tuple[Path, str],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    root, message = broken
    registry = (root / "signoff.yaml").read_text(encoding="utf-8")
    assert sign(root, BAD, "author", "Ada Author") == 1
    assert capsys.readouterr() == ("", f"gloss sign: {BAD} cannot be read and cannot be signed; fix it first:\n"
                                       f"  {message}\n")
    assert sign(root, "content/terms", "author", "Ada Author") == 1  # all or nothing
    assert capsys.readouterr().err == (f"gloss sign: {BAD} cannot be read and cannot be signed; fix it first:\n"
                                       f"  {message}\nnothing was signed (1 of 2 refused)\n")
    assert (root / "signoff.yaml").read_text(encoding="utf-8") == registry
    assert sign(root, "content/terms/warp.md", "author", "Ada Author") == 0


@pytest.mark.timeout(60)
def test_diff_of_an_unreadable_entry_says_why(broken: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    root, message = broken
    assert gloss(root, "diff", BAD) == 1
    assert capsys.readouterr() == ("", f"{message}\ngloss diff: {BAD} cannot be read, so there is nothing to "
                                       "compare\n")
    assert gloss(root, "diff", "content/terms/warp.md") == 1  # the others still work
    assert capsys.readouterr().out == "content/terms/warp.md: nothing signed yet to compare with (draft)\n"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["dangling symlink", "folder", "fifo", "symlink loop"])
def test_an_unreadable_code_file_is_a_problem_of_the_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           kind: str) -> None:
    init_repo(tmp_path)
    make_site(tmp_path, {"copy-kernel": CODED})
    code = tmp_path / "code/day01-basics/copy.cu"
    code.unlink()
    KINDS[kind][0](code)
    assert gloss(tmp_path, "status") == 0  # (the entry is a draft; gloss check reports its code)
    assert sign(tmp_path, "content/terms/copy-kernel.md", "author", "Ada Author") == 1
    assert capsys.readouterr().err.startswith(
        "gloss sign: content/terms/copy-kernel.md has 1 problem and cannot be signed; fix them first (gloss check "
        "lists them):\n  content/terms/copy-kernel.md:5: code file 'code/day01-basics/copy.cu' ")


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("kind", "message"), [
    ("folder", "signoff.yaml:1: cannot be read (a folder); make it a regular text file, or remove it"),
    ("dangling symlink", "signoff.yaml:1: a symbolic link, which is never followed, read or published; "
                         "replace it with the file itself (a regular file in the repository), or delete it"),
    ("fifo", "signoff.yaml:1: cannot be read (not a regular file); make it a regular text file, or remove it"),
    ("latin-1", "signoff.yaml:2: not UTF-8 text (byte 0xe9 at column 11); save the file as UTF-8"),
])
def test_an_unreadable_signoff_yaml_is_a_problem_not_an_empty_registry(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, message: str) -> None:
    init_repo(tmp_path)
    make_site(tmp_path, {"warp": GOOD})
    (tmp_path / "signoff.yaml").unlink()
    KINDS[kind][0](tmp_path / "signoff.yaml")
    assert gloss(tmp_path, "status") == 1
    assert capsys.readouterr().err == message + "\n"
    assert sign(tmp_path, "content/terms/warp.md", "author", "Ada Author") == 1
    assert capsys.readouterr().err == f"gloss sign: signoff.yaml has problems; fix them first:\n  {message}\n"


def test_signoff_yaml_that_cannot_be_written_is_an_environment_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from site_plugins.files import atomic

    init_repo(tmp_path)
    make_site(tmp_path, {"warp": GOOD})
    registry = (tmp_path / "signoff.yaml").read_text(encoding="utf-8")

    def read_only(path: Path, text: str) -> None:  # as a read-only mount answers (tests run as root)
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(atomic, "write_text", read_only)
    assert sign(tmp_path, "content/terms/warp.md", "author", "Ada Author") == 2
    assert capsys.readouterr().err == (
        "gloss sign: cannot write signoff.yaml (Permission denied); nothing was signed: check that the project "
        "folder is writable and try again\n")
    assert (tmp_path / "signoff.yaml").read_text(encoding="utf-8") == registry


def test_an_entry_file_name_that_is_not_utf8_is_spelt_out(tmp_path: Path) -> None:
    import subprocess
    import sys

    init_repo(tmp_path)
    make_site(tmp_path, {"warp": GOOD})
    with open(os.fsencode(tmp_path / "content/terms") + b"/caf\xe9.md", "wb") as fh:  # a Latin-1 file name
        fh.write(GOOD.encode())
    # A terminal that refuses what it cannot encode (as a UTF-8 locale other than C does).
    done = subprocess.run([sys.executable, "-c", "import sys; from site_plugins.cli import main; "
                           "sys.exit(main(sys.argv[1:]))", "status", "--root", str(tmp_path)],
                          capture_output=True, env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"}, check=False)
    assert (done.returncode, done.stderr.decode()) == (1, (
        "content/terms/caf\\xe9.md:1: the file name is not UTF-8; rename it; entry files are named by slugs, e.g. "
        "bank-conflict.md\n"))
    assert "content/terms/caf\\xe9.md  draft" in done.stdout.decode()
