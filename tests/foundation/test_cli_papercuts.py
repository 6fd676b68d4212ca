"""Small things a newcomer meets first (issue 33): no traceback when a command is piped into `head`,
messages that name the right file, help text for every option, output lines of a readable length."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sitekit import BASE_CONFIG, write_tree
from tinyproject import project

from measure.testing import synthetic as T
from site_plugins import cli
from site_plugins.cli.sign import _summary
from site_plugins.signoff.signable import Signable

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny project in git (entries, signoff.yaml) with a measured toy experiment and its result."""
    root = tmp_path_factory.mktemp("tiny")
    write_tree(root, project())
    (root / "mkdocs.yml").write_text(BASE_CONFIG.format(theme="mkdocs", plugin_options=""), encoding="utf-8")
    (root / "signoff.yaml").write_text("people: []\n", encoding="utf-8")
    T.write_fixture_repo(root)
    T.write(root, T.make_result(root))
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "fixture"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)
    return root


PIPED = [
    ["--help"],
    ["status"],
    ["status", "--json"],
    ["diff", "content/terms/tiling.md"],
    ["check"],
    ["audit", "site-that-is-not-there"],
    ["signers", "--allowed-signers", "allowed_signers"],
    ["compare", "measure/results", "measure/results"],
    ["export", "--format", "bmf"],
    ["export", "--format", "google-benchmark"],
    ["measure", "list"],
    ["measure", "show", "toy-copy"],
    ["measure", "verify"],
    ["measure", "--help"],
]


@pytest.mark.parametrize("args", PIPED, ids=" ".join)
def test_no_traceback_into_a_closed_pipe(tiny: Path, args: list[str]) -> None:
    """`gloss ARGS | head`, with the reader gone before the first line: a real pipe, closed at once."""
    proc = subprocess.Popen([sys.executable, "-m", "site_plugins.cli", *args], cwd=tiny,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err
    assert code in (0, 1, 2, 141)


def test_head_ends_the_output_quietly(tiny: Path) -> None:
    """As typed in a shell: the first line, nothing on stderr, the shell's status for SIGPIPE."""
    gloss = shutil.which("gloss", path=str(Path(sys.executable).parent)) or "gloss"
    ran = subprocess.run(["bash", "-c", f"set -o pipefail; for i in 1 2 3; do {gloss} status --json; done | head -n 1"],
                         cwd=tiny, capture_output=True, text=True, timeout=300)
    assert (ran.stdout, ran.stderr) == ("{\n", "")
    assert ran.returncode == 141


def test_check_names_the_missing_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "content").mkdir()
    assert cli.main(["check", "--root", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"gloss check: no mkdocs.yml at {tmp_path / 'mkdocs.yml'}; run in the project root or pass --root\n")


def test_every_option_says_what_it_does(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["sign", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("--as {author,reviewer} the role you sign in: 'author' (you wrote the entry) or 'reviewer' (you "
            "checked someone else's entry; needs the author's signature first)") in out
    assert cli.main(["measure", "verify", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("Judge every committed result (fresh, pending, or a problem: missing, stale, failed, tampered, "
            "incomplete, unregistered, invalid, orphaned), print each problem as 'path:line: problem; remedy' and "
            "a count. Exit 0 when every result is fresh or pending, 1 otherwise. Runs anywhere: no GPU, no "
            "PyCUDA.") in out
    assert "--node NODE verify only this registered node's results (e.g. one node's run in CI)" in out
    assert cli.main(["measure", "list", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("A table of every declared experiment on every registered node: its state (fresh, stale, missing, "
            "...), when it was measured, the commit and its rows. Exit 1 when a spec or the node registry has a "
            "problem. `verify` says why a result is not fresh.") in out
    assert cli.main(["measure", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "mine run experiments on YOUR GPU (any CUDA GPU; needs PyCUDA and nvcc) and print them beside ours" in out


def test_sign_lists_a_few_values_each_on_its_own_line() -> None:
    long = "day16-matmul/4096x4096/h200-1 provenance: " + "NVIDIA H200, driver 580, CUDA 13.0, " * 10
    values = (long, *(f"day16-matmul/4096x4096/h200-1 row{i} time: 0.{i:03d}\u00a0ms" for i in range(204)))
    lines = _summary(Signable("content/lessons/day16-matmul.md", "x\n", values), "sha256:" + "0" * 64)
    got = [ln for ln in lines if not ln.startswith(("fingerprint", "text ", "code ", "files "))]
    assert [ln.split(" (sha256:")[0] if ln.startswith("values") else ln for ln in got] == [
        "values       205 measured values",
        "             day16-matmul/4096x4096/h200-1 provenance: NVIDIA H200, driver 580, CUDA 13.0, NVIDIA H200…",
        "             day16-matmul/4096x4096/h200-1 row0 time: 0.000\u00a0ms",
        "             day16-matmul/4096x4096/h200-1 row1 time: 0.001\u00a0ms",
        "             … and 202 more",
    ]
    assert got[0].endswith("…), the first:")
    assert max(len(ln) for ln in lines) <= 120
