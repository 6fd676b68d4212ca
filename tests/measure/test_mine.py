"""``gloss measure mine``: a reader's own GPU end to end on the fake device (GLOSS_FAKE_DEVICE), its
results kept under measure/local/ and never published: not by verify, not on a page, not as a node."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from measure import cli
from measure.experiment.nodes import local_node, parse_nodes
from measure.store import results as R
from measure.testing import synthetic as T
from site_plugins import measured

SMALL = T.FIXTURE_SPEC.replace("{label: 1M, dims: {n: 1048576}}", "{label: 4K, dims: {n: 4096}}").replace(
    "{label: 64M, dims: {n: 67108864}}", "{label: 8K, dims: {n: 8192}}"
)
QUICK = ["--min-time", "0", "--min-samples", "3", "--time-limit", "0.5", "--warmup", "1"]
GPU = "NVIDIA GeForce RTX 4090@8.9"
LOCAL = "local-nvidia-geforce-rtx-4090"
ROOT = Path(__file__).resolve().parents[2]


def make_repo(tmp_path: Path) -> Path:
    T.write_fixture_repo(tmp_path)
    (tmp_path / "code" / "toy" / "experiment.yaml").write_text(SMALL)
    T.write_small_ceilings(tmp_path, "256 KiB", 65536)
    # Our committed result on the registered node: 0.1 ms a row at 4K (the fake device takes 0.05 ms).
    times = {("copy", "4K"): 0.1, ("slow", "4K"): 0.2, ("copy", "8K"): 0.1, ("slow", "8K"): 0.025}
    T.write(tmp_path, T.make_result(tmp_path, times_ms=times))
    return tmp_path


def test_local_node_is_the_device_itself() -> None:
    assert local_node("NVIDIA GeForce RTX 4090", "8.9") == (LOCAL, local_node("NVIDIA GeForce RTX 4090", "8.9")[1])
    name, node = local_node("NVIDIA RTX A6000", "8.6")
    assert (name, node.gpu, node.arch) == ("local-nvidia-rtx-a6000", "NVIDIA RTX A6000", "sm_86")
    assert local_node("NVIDIA B200", "10.0")[1].arch == "sm_100"


def test_mine_runs_on_the_fake_device_and_prints_beside_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path)
    monkeypatch.setenv("GLOSS_FAKE_DEVICE", GPU)
    assert cli.main(["--root", str(root), "mine", "toy-copy", *QUICK]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "gloss measure mine: GLOSS_FAKE_DEVICE is set: a FAKE device for tests, not your GPU\n"
        "gloss measure mine: NVIDIA GeForce RTX 4090 (compute capability 8.9) as local node "
        f"'{LOCAL}'; results go to measure/local/{LOCAL}/ (git-ignored, never published)\n"
    )
    assert "counter pass: not collected (timings only)\n" in out
    assert out.endswith(
        f"toy-copy on your NVIDIA GeForce RTX 4090 ({LOCAL}) beside our verification nodes:\n"
        "  size  kernel     yours µs  test-node µs  ÷ test-node\n"
        "  4K    copy          50.00        100.00         0.50\n"
        "  4K    slow copy     50.00        200.00         0.25\n"
        "  8K    copy          50.00        100.00         0.50\n"
        "  8K    slow copy     50.00         25.00         2.00\n"
        "  ÷ NODE: your median time over the node's (above 1: slower on your GPU)\n"
    )
    written = sorted(p.relative_to(root).as_posix() for p in (root / "measure" / "local").rglob("*.json"))
    assert written == [f"measure/local/{LOCAL}/copy-ceilings.json", f"measure/local/{LOCAL}/toy-copy.json"]
    assert sorted(p.name for p in (root / R.RESULTS_DIR).iterdir()) == ["test-node"]  # nothing of ours touched
    result = json.loads((root / "measure" / "local" / LOCAL / "toy-copy.json").read_text())
    prov = result["provenance"]
    assert (prov["node"], prov["gpu_name"], prov["compute_capability"]) == (LOCAL, "NVIDIA GeForce RTX 4090", "8.9")
    assert "sm_89" in prov["nvcc_flags"]


def test_a_local_result_is_never_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path)
    monkeypatch.setenv("GLOSS_FAKE_DEVICE", GPU)
    assert cli.main(["--root", str(root), "mine", "toy-copy", *QUICK]) == 0
    capsys.readouterr()
    # Where it was written: verify (asked to look there) calls every file unregistered.
    assert cli.main(["--root", str(root), "verify", "--results-dir", "measure/local"]) == 1
    out = capsys.readouterr().out
    assert (
        f"measure/local/{LOCAL}/toy-copy.json:1: unregistered: node '{LOCAL}' is a reader's own GPU "
        "(`gloss measure mine`), never published; keep it out of measure/results; "
        "`gloss measure run toy-copy --node NAME` on a registered node (test-node) measures for the site\n"
    ) in out
    # Copied among ours by hand: still unregistered, so verify fails and no page embeds it.
    shutil.copytree(root / "measure" / "local" / LOCAL, root / R.RESULTS_DIR / LOCAL)
    assert cli.main(["--root", str(root), "verify"]) == 1
    out = capsys.readouterr().out
    assert f"measure/results/{LOCAL}/toy-copy.json:1: unregistered: node '{LOCAL}'" in out
    entry = R.load_all(root).get("toy-copy", LOCAL)
    assert entry.state == "unregistered" and not entry.fresh
    view = measured.load_view(root)
    body = f"{{{{ measured toy-copy node={LOCAL} size=4K }}}}\n"
    shown = measured.expand(body, path="content/terms/t.md", first_line=5, view=view, preview=False)
    assert shown.problems and "<table" not in shown.markdown
    assert all(LOCAL not in r.node or r.state != "fresh" for r in view.results)
    # Nor can the registry name a node the way `mine` names a reader's GPU.
    nodes, problems = parse_nodes(
        f"nodes:\n  {LOCAL}:\n    gpu: NVIDIA GeForce RTX 4090\n    arch: sm_89\n    description: mine\n"
    )
    assert nodes == {}
    assert [str(p) for p in problems] == [
        f"measure/nodes.yaml:3: node name '{LOCAL}' starts with 'local-', which names a reader's own GPU; "
        "name a verification node without that prefix (e.g. 'h200-1')"
    ]


def test_mine_names_what_a_reader_must_install(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_repo(tmp_path)
    assert cli.main(["--root", str(root), "mine", "nope"]) == 2
    assert capsys.readouterr().out == "gloss measure mine: no experiment 'nope'; declared: copy-ceilings, toy-copy\n"


def test_the_local_folder_is_git_ignored() -> None:
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "measure/local/local-x/a.json"])
    assert ignored.returncode == 0


def test_mine_as_a_reader_types_it(tmp_path: Path) -> None:
    """The real entry point, in a process of its own, piped."""
    root = make_repo(tmp_path)
    env = {**os.environ, "GLOSS_FAKE_DEVICE": "NVIDIA RTX A6000@8.6"}
    proc = subprocess.run(
        [sys.executable, "-m", "site_plugins.cli", "measure", "--root", str(root), "mine", "toy-copy", *QUICK],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "toy-copy on your NVIDIA RTX A6000 (local-nvidia-rtx-a6000) beside our verification nodes:" in proc.stdout
    assert (root / "measure" / "local" / "local-nvidia-rtx-a6000" / "toy-copy.json").is_file()


def test_without_pycuda_mine_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path)
    monkeypatch.delenv("GLOSS_FAKE_DEVICE", raising=False)
    monkeypatch.setitem(sys.modules, "measure.gpu.device", None)  # as where PyCUDA is not installed
    assert cli.main(["--root", str(root), "mine", "toy-copy"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("gloss measure mine: ") and out.endswith(
        "; install the 'node' extra with `pip install -e '.[node]'` (PyCUDA, numpy, nvidia-ml-py) and put the CUDA "
        "toolkit's nvcc on PATH (see measure/README.md)\n"
    )
    assert not (root / "measure" / "local").exists()
