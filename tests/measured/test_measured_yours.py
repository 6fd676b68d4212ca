""""Run this on your GPU": the block every measured page carries, as a pure function and on a built page."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import measuredkit as kit
from sitekit import build_site, make_site

from site_plugins.measured.yours import commands, run_yours

TERM = """---
title: What is tiling in CUDA?
definition: Tiling stages a piece of an array in shared memory.
---

The padded tile moves {{ value day13-transpose size=8192x8192 row="tile[32][33]" col=gbps }}.

## Measured

{{ measured day13-transpose size=8192x8192 }}
"""

PLAIN = """---
title: What is a bank conflict in CUDA?
definition: A bank conflict serialises shared-memory accesses.
---

Padding by one column removes the conflict.
"""


def test_the_block_names_each_embedded_experiment_once_in_page_order() -> None:
    assert commands(["day16-matmul", "copy-ceilings", "day16-matmul"]) == (
        "python3 -m venv .venv\n.venv/bin/pip install -e '.[node]'\n"
        ".venv/bin/gloss measure mine day16-matmul copy-ceilings"
    )
    assert run_yours([]) == ""
    assert run_yours(["day13-transpose"]) == (
        "\n## Run this on your GPU { #run-this-on-your-gpu data-search-exclude }\n\n"
        "The figures on this page come from our verification nodes. To measure the same experiments on your own "
        "NVIDIA GPU, install the CUDA toolkit (with `nvcc` on your `PATH`), clone this site's repository and run, "
        "in the clone:\n\n"
        "```sh\npython3 -m venv .venv\n.venv/bin/pip install -e '.[node]'\n"
        ".venv/bin/gloss measure mine day13-transpose\n```\n\n"
        "It checks each kernel's output, times it as we do, and prints your times beside ours. Your results stay "
        "on your machine, in `measure/local/`.\n"
    )


def test_a_measured_page_says_how_and_a_page_without_measurements_does_not(tmp_path: Path) -> None:
    kit.make_project(tmp_path)
    files = {
        "content/index.md": "# Home\n",
        "content/terms/tiling.md": TERM,
        "content/terms/bank-conflict.md": PLAIN,
    }
    site = build_site(make_site(tmp_path, files, plugin_options="preview: true"))
    html = (site / "terms/tiling/index.html").read_text(encoding="utf-8")
    section = html[html.index('<h2 data-search-exclude id="run-this-on-your-gpu">Run this on your GPU</h2>') :]
    text = unescape(re.sub(r"<[^>]+>", "", section[: section.index("measure/local/")]))
    assert ".venv/bin/gloss measure mine day13-transpose" in text
    assert html.index('id="measured"') < html.index('id="run-this-on-your-gpu"')
    other = (site / "terms/bank-conflict/index.html").read_text(encoding="utf-8")
    assert "run-this-on-your-gpu" not in other and "gloss measure mine" not in other
