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


def test_a_published_page_carries_the_block_and_passes_the_audit(tmp_path: Path) -> None:
    """Signed by two fictional people (keys made here), built strictly by `gloss build`, whose final audit
    renders every page from the publish decision: the block is part of what the published page shows."""
    import subprocess

    from site_plugins import cli
    from site_plugins.cli import build as sitebuild

    kit.make_project(tmp_path)
    people = []
    for name, handle in (("Ada Author", "ada"), ("Rex Reviewer", "rex")):
        key = tmp_path / "keys" / handle
        key.parent.mkdir(exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", handle, "-f", str(key)], check=True)
        people.append(f"  - name: {name}\n    keys:\n      - {key.with_suffix('.pub').read_text().strip()}\n")
    files = {
        "content/index.md": "# Home\n",
        "content/terms/tiling.md": TERM,
        "content/terms/bank-conflict.md": PLAIN,
        "signoff.yaml": "people:\n" + "".join(people),
        ".gitignore": "keys/\nsite/\n",
    }
    root = make_site(tmp_path, files)
    git = ["git", "-C", str(root), "-c", "user.name=T", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixture"], check=True)
    for role, handle in (("author", "ada"), ("reviewer", "rex")):
        assert cli.main(["sign", "content/terms/tiling.md", "--as", role, "--key", str(root / "keys" / handle),
                         "--root", str(root)]) == 0
    subprocess.run([*git, "commit", "-q", "-am", "signed"], check=True)
    assert sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / "site")]) == 0  # strict, audited
    html = (root / "site/terms/tiling/index.html").read_text(encoding="utf-8")
    assert '<h2 data-search-exclude id="run-this-on-your-gpu">Run this on your GPU</h2>' in html
    assert ".venv/bin/gloss" in unescape(re.sub(r"<[^>]+>", "", html))
    assert not (root / "site/terms/bank-conflict").exists()  # a draft: not published
