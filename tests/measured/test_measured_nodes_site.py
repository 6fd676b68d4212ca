"""Two registered nodes in a real tiny site: tabs per node, the prose node and its checks, built by mkdocs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import measuredkit as kit
import pytest
from mkdocs.exceptions import Abort
from sitekit import build_site, make_site

from site_plugins.cli import check as cli_check

# A second node with the same GPU model (the kit's results are an H200's): the tabs then name the node too.
NODES = kit.NODES_YAML + "  h200-2:\n    gpu: NVIDIA H200\n    arch: sm_90\n    description: Another test node.\n"

TERM = """---
title: What is tiling in CUDA?
definition: Tiling stages a piece of an array in shared memory.
{node}---

The padded tile moves {{{{ value day13-transpose size=8192x8192 row="tile[32][33]" col=gbps }}}}.

## Measured

{{{{ measured day13-transpose size=8192x8192 }}}}
"""


def site(tmp_path: Path, *, default: str | None = "h200-1", node: str = "") -> Path:
    kit.make_project(tmp_path, extra={"measure/nodes.yaml": NODES})
    kit.write(tmp_path, kit.make_result(tmp_path, node="h200-2"))
    opts = "preview: true" + (f"\n      default_node: {default}" if default else "")
    term = TERM.format(node=f"node: {node}\n" if node else "")
    return make_site(tmp_path, {"content/index.md": "# Home\n", "content/terms/tiling.md": term}, plugin_options=opts)


def test_both_nodes_in_tabs_and_the_prose_node_stated(tmp_path: Path) -> None:
    html = (build_site(site(tmp_path)) / "terms/tiling/index.html").read_text(encoding="utf-8")
    assert html.count('<div class="tabbed-block">') == 2
    assert ('<label for="gloss-measured-1-tab-1" data-node="h200-1">NVIDIA H200 (h200-1)</label>'
            '<label for="gloss-measured-1-tab-2" data-node="h200-2">NVIDIA H200 (h200-2)</label>') in html
    assert "on verification node h200-1." in html and "on verification node h200-2." in html
    assert '<p class="gloss-figures-node" data-search-exclude>Figures in the text: NVIDIA H200 (h200-1).</p>' in html


def test_the_entrys_node_wins_over_the_default(tmp_path: Path) -> None:
    html = (build_site(site(tmp_path, node="h200-2")) / "terms/tiling/index.html").read_text(encoding="utf-8")
    assert "Figures in the text: NVIDIA H200 (h200-2)." in html
    assert '<label for="gloss-measured-1-tab-1" data-node="h200-2">' in html


def test_an_unknown_front_matter_node_fails_the_strict_build(tmp_path: Path, expect_warnings: Any) -> None:
    root = site(tmp_path, node="h200-3")
    expect_warnings.add(
        "content/terms/tiling.md:4: front matter 'node: h200-3' is not a registered verification node; "
        "did you mean 'h200-2'? registered nodes: h200-1, h200-2 (measure/nodes.yaml); or leave 'node:' out "
        "to quote h200-1")
    with pytest.raises(Abort):
        build_site(root)


def test_an_unknown_default_node_is_a_problem_of_mkdocs_yml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = site(tmp_path, default="h300-1")
    assert cli_check.main(["--root", str(root)]) == 1
    out = capsys.readouterr().out
    assert ("mkdocs.yml:10: the gloss plugin's default_node 'h300-1' is not a registered verification node; "
            "did you mean 'h200-1'? registered nodes: h200-1, h200-2 (measure/nodes.yaml)") in out
    # Left aside, the prose cannot choose between the two nodes: each figure says so too.
    assert "has results on several nodes" in out


def test_without_a_default_several_nodes_leave_prose_ambiguous(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_check.main(["--root", str(site(tmp_path, default=None))]) == 1
    assert ("content/terms/tiling.md:6: experiment 'day13-transpose' has results on several nodes: h200-1 (fresh), "
            "h200-2 (fresh); choose one with node=h200-1") in capsys.readouterr().out
