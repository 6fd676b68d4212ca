"""Re-measuring keeps the site up (issue 34, item 4): a new run that moves the numbers a signed entry
embeds makes it "changed"; its last signed version stays published with the values it was signed with
(the results of the commit it was signed at, read from git by the results module), a strict build stays
green, and ``gloss status`` says which entries wait for re-sign because their numbers moved, and by how much."""

from __future__ import annotations

import json
from pathlib import Path

import gatekit
import measuredkit
import pytest
from signoff_helpers import PEOPLE, commit_all, init_repo, key_file

from site_plugins import cli
from site_plugins.cli import build as sitebuild

WARP = "content/terms/warp.md"
TEXT = """---
title: What is a warp in CUDA?
definition: A warp is a group of threads that run in step.
---

The padded tile moves {{ value day13-transpose size=8192x8192 row="tile[32][33]" col=gbps }}.
"""


def gloss(root: Path, *args: str) -> int:
    return cli.main([*args, "--root", str(root)])


def remeasure(root: Path, monkeypatch: pytest.MonkeyPatch, factor: float) -> None:
    """A new run on the node: the padded tile's synthetic times scaled by ``factor`` (test data only)."""
    base = {size: dict(kernels) for size, kernels in measuredkit.BASE_MS.items()}
    base["8192x8192"]["tile32-padded"] *= factor
    with monkeypatch.context() as m:
        m.setattr(measuredkit, "BASE_MS", base)
        measuredkit.write(root, measuredkit.make_result(root))
    commit_all(root, "re-measured")


@pytest.fixture
def signed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    init_repo(root)
    measuredkit.make_project(root)
    gatekit.tiny(root, {WARP: TEXT, "signoff.yaml": PEOPLE + "entries: {}\n"})
    commit_all(root, "fixture")
    for role, who in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
        assert cli.main(["sign", WARP, "--as", role, "--key", str(key_file(who)), "--root", str(root)]) == 0
    commit_all(root, "sign-off")
    capsys.readouterr()
    return root


def shown(root: Path) -> str:
    page = (root / "site/terms/warp/index.html").read_text()
    start = page.index("The padded tile moves")
    return page[start:page.index("</p>", start)]


def test_a_new_run_keeps_the_signed_version_published_with_its_own_numbers(
        signed: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ok, built, why = sitebuild.build_site(signed / "mkdocs.yml", signed / "site", strict=True)
    assert ok, why
    before = shown(signed)
    remeasure(signed, monkeypatch, 1.25)  # 25 % slower: the GB/s fall by a fifth
    assert gloss(signed, "check") == 0
    ok, built, why = sitebuild.build_site(signed / "mkdocs.yml", signed / "site", strict=True)
    assert ok, why
    assert shown(signed) == before  # the values it was signed with, not today's
    assert built is not None and built.states[WARP].state == "changed" and built.states[WARP].published
    monkeypatch.chdir(signed)
    assert cli.main(["audit", "site"]) == 0
    capsys.readouterr()
    assert gloss(signed, "status", "--json") == 0
    row = next(r for r in json.loads(capsys.readouterr().out)["entries"] if r["path"] == WARP)
    assert row["state"] == "changed" and row["published"] and row["changed"] == ["measured values"]
    moved = row["numbers_moved"]
    assert moved["signed"] != moved["now"] and moved["largest_change"] == pytest.approx(-0.2, abs=0.01)
    assert gloss(signed, "status") == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith(WARP))
    notes = " ".join(x.strip() for x in lines[at + 1:at + 8] if x.startswith("    "))  # (wrapped, indented)
    signed_on = row["published_version"]["reviewed_on"][:10]
    assert notes.startswith(f"changed (measured values); published: the version signed {signed_on}, commit "
                            f"{row['published_version']['commit'][:10]} re-sign: its numbers moved, the largest by "
                            f"-20.0 % ({moved['signed']} signed, {moved['now']} now)")
    assert "1 entry waits for re-sign because its numbers moved: gloss diff PATH shows them" in out
