"""``gloss measure compile`` (CI): nvcc over every .cu under code/ (and the runner's own) for every
registered node's architecture, each failure a ``path:line: problem; remedy``."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from measure.experiment.nodes import NODES_PATH, load_nodes
from measure.experiment.spec import CODE_DIR
from site_plugins.files.messages import Problem


def compile_all(root: Path, nvcc: str = "nvcc") -> list[Problem]:
    """Compile every .cu under code/ (and the runner's own) for every registered node's arch."""
    nodes, problems = load_nodes(root)
    if problems:
        return problems
    exe = shutil.which(nvcc)
    if exe is None:
        return [Problem(NODES_PATH, 0, "nvcc is not on PATH", "install the CUDA toolkit or add its bin/ to PATH")]
    sources = sorted((root / CODE_DIR).rglob("*.cu")) + sorted((root / "measure").glob("*.cu"))
    archs = sorted({n.arch for n in nodes.values()})
    out: list[Problem] = []
    with tempfile.TemporaryDirectory() as tmp:
        for src in sources:
            rel = src.relative_to(root).as_posix()
            for arch in archs:
                cmd = [
                    exe,
                    "--cubin",
                    "-O3",
                    f"-arch={arch}",
                    "-Werror",
                    "all-warnings",
                    "-o",
                    str(Path(tmp) / "out.cubin"),
                    str(src),
                ]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    first = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
                    out.append(
                        Problem(
                            rel,
                            _line(first, src.name),
                            f"nvcc -arch={arch} failed: {first[0] if first else 'no output'}",
                            "fix the CUDA source",
                        )
                    )
    return out


def _line(lines: list[str], name: str) -> int:
    for text in lines:
        m = re.search(re.escape(name) + r"\((\d+)\)", text)
        if m:
            return int(m.group(1))
    return 0
