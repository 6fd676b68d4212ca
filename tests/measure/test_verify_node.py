"""`gloss measure verify --node NAME`: one node's results checked on their own (each CI job checks its
node's run), with the other nodes' missing results left out; an unregistered name is a usage error."""

from __future__ import annotations

from pathlib import Path

import pytest

from measure.cli import main
from measure.testing import synthetic as T

OTHER = "  other-node:\n    gpu: NVIDIA H100 80GB HBM3\n    arch: sm_90\n    description: another test node\n"


def test_verify_one_node(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    T.write_fixture_repo(tmp_path)
    (tmp_path / "measure" / "nodes.yaml").write_text(T.FIXTURE_NODES + OTHER)
    T.write(tmp_path, T.make_result(tmp_path))
    assert main(["--root", str(tmp_path), "verify"]) == 1
    assert capsys.readouterr().out == (
        "code/toy/experiment.yaml:1: missing: experiment 'toy-copy' has no result on node 'other-node'; "
        "run `gloss measure run toy-copy --node other-node` on that node\n"
        "1 of 2 results fresh; 1 problem(s)\n"
    )
    assert main(["--root", str(tmp_path), "verify", "--node", "test-node"]) == 0
    assert capsys.readouterr().out == "1 of 1 results fresh\n"
    assert main(["--root", str(tmp_path), "verify", "--node", "h999-1"]) == 2
    assert capsys.readouterr().out == (
        "gloss measure verify: node 'h999-1' is not registered in measure/nodes.yaml; "
        "registered: other-node, test-node\n"
    )
