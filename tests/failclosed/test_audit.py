"""The build checks every spec, result and node file, embedded or not (measure.store.audit)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import measuredkit as kit

from measure.experiment.nodes import load_nodes
from measure.store import audit
from measure.store import results as rs

RERUN = "re-run `gloss measure run day13-transpose --node h200-1`"
REL = "measure/results/h200-1/day13-transpose.json"


def problems(root: Path) -> list[str]:
    return [str(p) for p in audit.problems(rs.load_all(root), load_nodes(root)[0])]


def test_a_fresh_project_has_none(tmp_path: Path) -> None:
    assert problems(kit.make_project(tmp_path)) == []


def test_no_measurements_need_no_registry(tmp_path: Path) -> None:
    assert problems(tmp_path) == []
    (tmp_path / "code/x").mkdir(parents=True)
    (tmp_path / "code/x/experiment.yaml").write_text("id: [\n")
    assert problems(tmp_path) == [
        "code/x/experiment.yaml:2: malformed YAML: expected the node content, but found '<stream end>'; "
        "fix the YAML syntax at this line",
        "measure/nodes.yaml:0: the node registry is missing; create measure/nodes.yaml with a 'nodes:' mapping",
    ]


def test_registry_gpu_must_match_the_results(tmp_path: Path) -> None:
    root = kit.make_project(tmp_path)
    (root / "measure/nodes.yaml").write_text(kit.NODES_YAML.replace("NVIDIA H200", "NVIDIA A100"))
    assert problems(root) == [
        f"{REL}:1: measured on 'NVIDIA H200', but node 'h200-1' is registered in measure/nodes.yaml as "
        f"'NVIDIA A100'; correct the registry, or {RERUN} on the registered GPU"]


def test_raw_times_must_be_positive(tmp_path: Path) -> None:
    root = kit.make_project(tmp_path)
    result = kit.make_result(root)
    first = result.rows[0]
    assert first.samples is not None
    times = [-t for t in first.samples.times_ms]
    bad = dataclasses.replace(first, samples=dataclasses.replace(first.samples, times_ms=times))
    kit.write(root, dataclasses.replace(result, rows=[bad, *result.rows[1:]]))
    assert problems(root) == [
        f"{REL}:1: tampered: row '{first.kernel}' at {first.size} has sample 1 of {times[0]!r} ms; a CUDA event "
        f"time is a positive, finite number; {RERUN}; result files are written only by the runner"]


def test_duplicate_experiment_ids_and_unregistered_nodes_are_reported(tmp_path: Path) -> None:
    root = kit.make_project(tmp_path)
    (root / "code/other").mkdir()
    (root / "code/other/experiment.yaml").write_text((root / kit.SPEC).read_text())
    (root / "code/other/transpose.cu").write_text(kit.SOURCE)
    (root / REL).rename(root / "x.json")
    kit.write(root, kit.make_result(root, node="a100-x"))
    found = problems(root)
    assert ("code/other/experiment.yaml:1: experiment id 'day13-transpose' is also declared in "
            "code/day13/experiment.yaml; give each experiment its own id") in found
    assert ("measure/results/a100-x/day13-transpose.json:1: unregistered: node 'a100-x' is not in "
            "measure/nodes.yaml; register it there, or re-run `gloss measure run day13-transpose --node NAME` "
            "on a registered node (h200-1)") in found
