"""The package layout holds: no import circle; each package imports only what its __init__ declares.

Written with the relayout of issue 25 (tools/relayout.py, removed once it had run: see git log). A
package's ``May import:`` line names the other packages of the project its modules may import;
importing anything else means the layering changed, so the line (and the README's "Where each part
lives" table) must change with it, in review.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOPS = ("site_plugins", "measure")


def modules() -> dict[str, Path]:
    out = {}
    for top in TOPS:
        for p in sorted((ROOT / top).rglob("*.py")):
            rel = p.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[".".join(parts)] = p
    return out


def imports(path: Path, name: str, known: dict[str, Path], top_level_only: bool) -> set[str]:
    """The project modules ``path`` imports (``from pkg import mod`` counts as ``pkg.mod``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] in TOPS}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            if base.split(".")[0] not in TOPS:
                continue
            for a in node.names:
                found.add(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base)
    return {m for m in found if m in known and m != name}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m):], m]
            if m not in state and (found := visit(m)):
                return found
        state[n] = 2
        stack.pop()
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_no_import_circle_at_import_time() -> None:
    known = modules()
    graph = {name: imports(path, name, known, top_level_only=True) for name, path in known.items()}
    assert cycle(graph) is None, " -> ".join(cycle(graph) or [])


def test_each_package_imports_only_what_its_init_declares() -> None:
    known = modules()
    wrong = []
    for name, path in known.items():
        if path.name != "__init__.py":
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        line = re.search(r"^May import: (.*(?:\n    .*)*)$", doc, re.M)
        if not line:
            continue
        allowed = {name} | set(re.findall(r"\b(?:site_plugins|measure)(?:\.\w+)?", line.group(1)))
        for mod, mpath in known.items():
            if not mod.startswith(name + "."):
                continue
            for dep in imports(mpath, mod, known, top_level_only=False):
                if not any(dep == a or dep.startswith(a + ".") for a in allowed):
                    wrong.append(f"{mpath.relative_to(ROOT)} imports {dep}; {name}/__init__.py allows: {line.group(1)}")
    assert wrong == []
