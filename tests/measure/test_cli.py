"""``gloss measure`` without a GPU: verify, list, show, compile (what CI runs), and run's refusals."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from measure.cli import compile_all, main, resolve_commit
from measure.experiment.nodes import load_nodes
from measure.experiment.spec import load_specs
from measure.testing import synthetic as T

REPO = Path(__file__).resolve().parents[2]


def _fresh_line(fresh: str) -> str:
    """verify's last line on the committed repository: the fresh results, then the specs still pending
    (read from the specs, since branches add pending experiments)."""
    specs, problems = load_specs(REPO)
    assert problems == []
    pending = sorted(i for i, d in specs.items() if d.experiment.pending)
    if not pending:
        return fresh
    # Counted per experiment and node (each node has yet to run each), named once.
    per_node = len(pending) * len(load_nodes(REPO)[0])
    return f"{fresh}; {per_node} pending (declared, not yet run: {', '.join(pending)})"


#: One committed result per declared experiment and registered node (every spec has run on every node).
N = sum(1 for d in load_specs(REPO)[0].values() if not d.experiment.pending) * len(load_nodes(REPO)[0])


def test_verify_passes_on_the_committed_results(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "verify"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == _fresh_line(f"{N} of {N} results fresh")


def test_verify_fails_and_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    T.write_fixture_repo(tmp_path)
    assert main(["--root", str(tmp_path), "verify"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "code/toy/experiment.yaml:1: missing: experiment 'toy-copy' has no result on node 'test-node'; run "
        "`gloss measure run toy-copy --node test-node` on that node",
        "0 of 1 results fresh; 1 problem(s)",
    ]
    T.write(tmp_path, T.make_result(tmp_path))
    assert main(["--root", str(tmp_path), "verify"]) == 0


def test_list_and_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    T.write_fixture_repo(tmp_path)
    T.write(tmp_path, T.make_result(tmp_path))
    assert main(["--root", str(tmp_path), "list"]) == 0
    out = capsys.readouterr().out
    assert "toy-copy" in out and "test-node" in out and "fresh" in out
    assert main(["--root", str(tmp_path), "show", "toy-copy"]) == 0
    out = capsys.readouterr().out
    assert "slow copy" in out and "64M" in out
    assert "kernel µs" not in out  # no counters, no counter columns
    T.write(tmp_path, T.make_result(tmp_path, with_counters=True))
    assert main(["--root", str(tmp_path), "show", "toy-copy"]) == 0
    out = capsys.readouterr().out
    assert "kernel µs" in out and "ld ways" in out and "declared" in out
    assert " 2.00 " in out and " 1.00 " in out  # the synthetic counters: 2-way loads, DRAM = declared


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["frobnicate"]) == 2
    assert main(["--help"]) == 0


def test_run_refuses_an_unregistered_node(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "run", "--node", "my-laptop"]) == 2
    assert capsys.readouterr().out.strip() == (
        "measure/nodes.yaml:0: node 'my-laptop' is not registered; use one of: h100-1, h200-1, or register it there"
    )


def test_run_refuses_an_unknown_experiment(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "run", "day99", "--node", "h200-1"]) == 2
    out = capsys.readouterr().out
    prefix = "gloss measure run: no experiment 'day99'; declared: "
    assert out.startswith(prefix)
    declared = out[len(prefix) :].strip().split(", ")  # every experiment of the repository, sorted
    assert {"copy-ceilings", "day13-transpose"} <= set(declared) and declared == sorted(declared)


@pytest.mark.skipif(importlib.util.find_spec("pycuda") is not None, reason="PyCUDA is installed here")
def test_run_without_pycuda_says_how_to_set_up_a_node(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "run", "--node", "h200-1"]) == 2
    assert capsys.readouterr().out.strip() == (
        "gloss measure run: No module named 'pycuda'; install the 'node' extra (PyCUDA, numpy, nvidia-ml-py) on a "
        "verification node (see measure/README.md)"
    )


def test_the_commit_comes_from_options_then_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GLOSS_COMMIT", raising=False)
    monkeypatch.delenv("GLOSS_DIRTY", raising=False)
    assert resolve_commit(tmp_path, "abc123", False) == ("abc123", False)
    assert resolve_commit(tmp_path, None, None) == ("unknown", None)  # no git history: unknown, not invented
    monkeypatch.setenv("GLOSS_COMMIT", "def456")
    monkeypatch.setenv("GLOSS_DIRTY", "1")
    assert resolve_commit(tmp_path, None, None) == ("def456", True)


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed (CI has it)")


@needs_nvcc
def test_every_cuda_source_compiles_for_every_registered_node() -> None:
    """What CI guarantees without a GPU: every .cu under code/ (and the runner's flush kernel) builds with
    nvcc -O3 -arch=<node arch> and no warnings."""
    assert [str(p) for p in compile_all(REPO)] == []


@needs_nvcc
def test_a_compile_error_is_reported_with_its_line(tmp_path: Path) -> None:
    T.write_fixture_repo(tmp_path)
    (tmp_path / "code" / "toy" / "toy.cu").write_text(
        T.FIXTURE_SOURCE.replace("int i =", "int i = undefined_name +", 1)
    )
    [problem] = compile_all(tmp_path)
    assert (problem.path, problem.line) == ("code/toy/toy.cu", 4)
    assert problem.problem.startswith("nvcc -arch=sm_90 failed: ") and "undefined_name" in problem.problem
    assert problem.remedy == "fix the CUDA source"


def test_progress_is_a_bar_on_a_terminal_and_plain_lines_in_logs(capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from rich.console import Console

    from measure.run.progress import Reporter

    screen = io.StringIO()
    with Reporter(2, Console(file=screen, force_terminal=True, width=100)) as report:
        report.start("day13-transpose naive @ 2003x3001")
        report.done("row one")
        report.done("row two")
    shown = screen.getvalue()
    assert "row one" in shown and "2/2" in shown and "━" in shown  # the finished bar
    with Reporter(1, Console(file=io.StringIO(), force_terminal=False)) as report:
        report.done("row one")
        report.note("wrote x.json (ok)")
    assert capsys.readouterr().out == "row one\nwrote x.json (ok)\n"


def test_verify_can_check_the_repeat_run_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "verify", "--results-dir", "measure/repeat"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == _fresh_line(f"{N} of {N} results fresh")


def test_verify_checks_a_results_folder_outside_the_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A node's results fetched elsewhere are checked before they are copied in (it used to end in a traceback).
    import shutil

    outside = tmp_path / "fetched"
    shutil.copytree(REPO / "measure/repeat", outside)
    assert main(["--root", str(REPO), "verify", "--results-dir", str(outside)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == _fresh_line(f"{N} of {N} results fresh")


def test_verify_reports_a_registry_gpu_that_disagrees_with_the_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify prints what the build prints: a result measured on another GPU than its node's is a problem."""
    T.write_fixture_repo(tmp_path)
    T.write(tmp_path, T.make_result(tmp_path))
    nodes = tmp_path / "measure/nodes.yaml"
    nodes.write_text(nodes.read_text().replace("gpu: NVIDIA H200", "gpu: NVIDIA H100 80GB HBM3"))
    assert main(["--root", str(tmp_path), "verify"]) == 1
    assert (
        "measure/results/test-node/toy-copy.json:1: measured on 'NVIDIA H200', but node 'test-node' is registered "
        "in measure/nodes.yaml as 'NVIDIA H100 80GB HBM3'; correct the registry, or re-run "
        "`gloss measure run toy-copy --node test-node` on the registered GPU"
    ) in capsys.readouterr().out


def test_list_counts_observed_rows_beside_timed_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "list"]) == 0
    lines = {line.split("│")[1].strip(): line for line in capsys.readouterr().out.splitlines() if "│" in line}
    assert "0 + 2 observed" in lines["shared-limits"]
    assert "observed" not in lines["day13-transpose"]
