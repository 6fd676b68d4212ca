"""A sign-off covers the bytes of every static file (image...) the entry's body names: a changed image makes
the entry "changed", the signed image stays published until the change is signed, and ``gloss diff``
names the file. Entries without static files keep the fingerprints they had."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import gatekit
import pytest

from site_plugins import cli
from site_plugins.cli import build as sitebuild
from site_plugins.publishing import pipeline
from site_plugins.signoff import changed_parts, covers, fingerprint, head_commits
from site_plugins.signoff.signable import Signable, WorkTree

WARP = "content/terms/warp.md"
NEW_FIGURE = gatekit.FIGURE.replace('width="4" height="4"/>', 'width="2" height="2"/>')


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def state(root: Path) -> tuple[str, tuple[str, ...]]:
    st = pipeline.prepare(root).states[WARP]
    return st.state, st.changed


def site_figure(root: Path) -> str:
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=False)
    assert ok, why
    return (root / "site/images/fig.svg").read_text()


def test_the_signature_covers_the_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = gatekit.signed(tmp_path)
    shown = f"  statics      1 static file by their bytes: content/images/fig.svg ({digest(gatekit.FIGURE)[:19]}…)"
    assert capsys.readouterr().out.splitlines().count(shown) == 2  # what gloss sign says each signer covers
    s = pipeline.signable(root, pipeline.load_content(root, "content")[0].terms["warp"],
                          pipeline.measured.load_view(root))
    assert s.statics == (("content/images/fig.svg", digest(gatekit.FIGURE)),)
    assert state(root) == ("signed", ())


@pytest.mark.parametrize("commit", [True, False])
def test_a_changed_figure_changes_the_entry_and_the_signed_one_stays(tmp_path: Path, commit: bool,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    root = gatekit.signed(tmp_path)
    (root / "content/images/fig.svg").write_text(NEW_FIGURE)
    if commit:
        gatekit.commit_all(root, "a new figure, not signed")
    assert state(root) == ("changed", ("code or static files",))
    assert site_figure(root) == gatekit.FIGURE  # the signed bytes, from the signing commit
    capsys.readouterr()
    assert cli.main(["diff", WARP, "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{WARP}: changed since sign-off by Ada Author on ")
    assert out.endswith("Static files (by the sha256 of their bytes):\n"
                        f"  content/images/fig.svg: {digest(gatekit.FIGURE)[:19]} signed, "
                        f"{digest(NEW_FIGURE)[:19]} now\n")
    # Signed again: the new figure is published.
    if not commit:
        gatekit.commit_all(root, "the new figure")  # (the signed bytes must be in git to be published)
    for role, who in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
        assert cli.main(["sign", WARP, "--as", role, "--key", str(gatekit.key_file(who)), "--root", str(root)]) == 0
    assert state(root) == ("signed", ())
    assert site_figure(root) == NEW_FIGURE


def test_a_figure_replaced_by_a_link_is_not_read(tmp_path: Path) -> None:
    root = gatekit.signed(tmp_path)
    (root / "content/images/fig.svg").unlink()
    os.symlink("/etc/hostname", root / "content/images/fig.svg")
    assert WorkTree(root).read_bytes("content/images/fig.svg") is None
    (root / "content/real").mkdir()
    (root / "content/real/fig.svg").write_text(gatekit.FIGURE)
    os.symlink("real", root / "content/linked")
    assert WorkTree(root).read_bytes("content/real/fig.svg") == gatekit.FIGURE.encode()
    assert WorkTree(root).read_bytes("content/linked/fig.svg") is None  # a linked folder is not read either
    s = pipeline.signable(root, pipeline.load_content(root, "content")[0].terms["warp"],
                          pipeline.measured.load_view(root))
    assert s.statics == ()  # (and the staging tree reports the link: test_gate)


def test_fingerprints_without_static_files_are_unchanged() -> None:
    s = Signable("content/terms/x.md", "text\r\n", ("1.0 ms",), ("code",), (("code/a.cu", "x"),))
    payload = {"v": 2, "text": "text\n", "shown_values": ["1.0 ms"], "quoted_code": ["code"],
               "files": [["code/a.cu", "x"]]}
    data = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
    assert fingerprint(s) == "sha256:" + hashlib.sha256(data).hexdigest()
    with_figure = Signable(s.path, s.text, s.shown_values, s.quoted_code, s.files, (("content/i.png", "sha256:1"),))
    other_bytes = Signable(s.path, s.text, s.shown_values, s.quoted_code, s.files, (("content/i.png", "sha256:2"),))
    assert len({fingerprint(s), fingerprint(with_figure), fingerprint(other_bytes)}) == 3
    assert changed_parts(covers(with_figure), other_bytes) == ["code or static files"]
    assert changed_parts(covers(s), s) == []


def test_a_link_to_a_folder_is_no_file_in_the_signed_version(tmp_path: Path) -> None:
    # The working copy and a git commit must agree on what the body names: a folder is no static file in either.
    body = "\nSee [the lessons](../lessons/) and [more](../images/).\n"
    root = gatekit.signed(tmp_path, {WARP: gatekit.SIGNED + body})
    (root / WARP).write_text((root / WARP).read_text().replace("See", "Now see"))
    gatekit.commit_all(root, "an unsigned edit")
    st = pipeline.prepare(root).states[WARP]
    assert (st.state, st.published, st.changed) == ("changed", True, ("text",))


def test_a_signature_records_a_commit_only_when_git_holds_the_figure_too(tmp_path: Path) -> None:
    root = gatekit.signed(tmp_path)

    def now() -> Signable:
        return pipeline.signable(root, pipeline.load_content(root, "content")[0].terms["warp"],
                                 pipeline.measured.load_view(root))

    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    assert head_commits(root, [now()]) == {WARP: head}
    (root / "content/images/fig.svg").write_text(NEW_FIGURE)  # not committed: git cannot give it back later
    assert head_commits(root, [now()]) == {WARP: None}
