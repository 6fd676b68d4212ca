"""Group the loose modules of ``site_plugins/`` and ``measure/`` into packages named for their job (issue 25).

Run once, from the repository root, on a clean tree::

    python3 tools/relayout.py            # moves, rewrites, writes the package __init__ files
    python3 tools/relayout.py --dry-run  # prints the move map and the files it would rewrite

What it does, in order (no behaviour change; every module keeps its code):

1. ``git mv`` every module in :data:`MOVES` (history follows the file).
2. Rewrites every reference to a moved module in the tracked text files of the tooling (``*.py``,
   ``pyproject.toml``, ``Makefile``, ``.github``, ``*.md`` outside content/, shell scripts):
   dotted paths (``site_plugins.render.X``, in imports, monkeypatch strings, ``-m`` arguments, the
   ``gloss`` COMMANDS table), ``from site_plugins import a, b`` lists (split per new package, each
   renamed module bound to its old local name so the code below needs no edit), and file paths in prose
   (``site_plugins/render.py``). Word-boundary safe: ``site_plugins.nav`` never touches
   ``site_plugins.navhtml``, ``measure/results.py`` never touches the data folder ``measure/results/``.
   One pass of one regex per file, so a rewritten name is never rewritten again.
3. The few edits a regex cannot see (:data:`LITERAL_EDITS`: files found next to a module by
   ``__file__``); each must match exactly once or the script stops before touching anything.
4. Writes each new package's ``__init__.py`` (what it owns, what it may import), the layering test
   ``tests/foundation/test_package_layout.py``, and the README's "Where each part lives" rows.
5. Sorts the rewritten imports with ruff (``ruff check --select I --fix``) when ruff is installed.

It refuses to run twice: when every module is already at its new place it says so and exits 0; a
half-moved tree (or a dirty one) is exit 2, touching nothing. Signed or measured files (content/, code/,
measure/results/, measure/repeat/, signoff.yaml, links-evidence.json) are never rewritten, since editing
them would change what was signed or measured: the files among them that name a moved module are listed
at the end, for a person to fix with a re-sign or a re-run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

# old dotted module -> new dotted module. A module that becomes its package's __init__ keeps its name.
MOVES: dict[str, str] = {
    # site_plugins/cli/: every `gloss COMMAND` except measure, links, compare and export (their own packages)
    "site_plugins.cli": "site_plugins.cli",  # cli.py -> cli/__init__.py: entry point site_plugins.cli:main
    "site_plugins.cli_common": "site_plugins.cli.common",
    "site_plugins.content_cli": "site_plugins.cli.check",
    "site_plugins.sitebuild": "site_plugins.cli.build",
    "site_plugins.audit_cli": "site_plugins.cli.audit",
    "site_plugins.scaffold_cli": "site_plugins.cli.scaffold",
    "site_plugins.signoff_cli": "site_plugins.cli.sign",
    "site_plugins.signoff_report_cli": "site_plugins.cli.status",
    "site_plugins.signers_cli": "site_plugins.cli.signers",
    "site_plugins.signoff_project": "site_plugins.cli.signoff_project",
    # site_plugins/build/: one build as pure functions, the publish decision and the gate after it
    "site_plugins.pipeline": "site_plugins.build.pipeline",
    "site_plugins.render": "site_plugins.build.render",
    "site_plugins.publish": "site_plugins.build.publish",
    "site_plugins.staging": "site_plugins.build.staging",
    "site_plugins.audit": "site_plugins.build.audit",
    "site_plugins.checks": "site_plugins.build.checks",
    "site_plugins.images": "site_plugins.build.images",
    "site_plugins.stash": "site_plugins.build.stash",
    "site_plugins.incremental": "site_plugins.build.incremental",
    "site_plugins.packed": "site_plugins.build.packed",
    "site_plugins.signedtext": "site_plugins.build.signedtext",
    "site_plugins.pagetext": "site_plugins.build.pagetext",
    # site_plugins/nav/
    "site_plugins.nav": "site_plugins.nav.sections",
    "site_plugins.navhtml": "site_plugins.nav.material",
    "site_plugins.navorder": "site_plugins.nav.order",
    # site_plugins/diagrams/
    "site_plugins.diagrams": "site_plugins.diagrams.figure",
    "site_plugins.tilemodel": "site_plugins.diagrams.tilemodel",
    # site_plugins/files/: the foundation every other package (and measure/) reads and writes files with
    "site_plugins.messages": "site_plugins.files.messages",
    "site_plugins.textfile": "site_plugins.files.textfile",
    "site_plugins.safejson": "site_plugins.files.safejson",
    "site_plugins.schema": "site_plugins.files.schema",
    "site_plugins.atomic": "site_plugins.files.atomic",
    "site_plugins.mdnesting": "site_plugins.files.mdnesting",
    # site_plugins/signoff/ (exists): what a sign-off covers joins it
    "site_plugins.signable": "site_plugins.signoff.signable",
    "site_plugins.entryfiles": "site_plugins.signoff.entryfiles",
    # measure/experiment/: what is measured and where
    "measure.spec": "measure.experiment.spec",
    "measure.specformat": "measure.experiment.specformat",
    "measure.speckernel": "measure.experiment.speckernel",
    "measure.speckinds": "measure.experiment.speckinds",
    "measure.expr": "measure.experiment.expr",
    "measure.includes": "measure.experiment.includes",
    "measure.references": "measure.experiment.references",
    "measure.nodes": "measure.experiment.nodes",
    # measure/nsight/
    "measure.counters": "measure.nsight.counters",
    "measure.ncu": "measure.nsight.ncu",
    # measure/store/: the result files (NOT measure/results/, the folder of result files)
    "measure.results": "measure.store.results",
    "measure.resultformat": "measure.store.resultformat",
    "measure.resultview": "measure.store.resultview",
    "measure.recompute": "measure.store.recompute",
    "measure.judge": "measure.store.judge",
    "measure.history": "measure.store.history",
    "measure.audit": "measure.store.audit",
    "measure.typed": "measure.store.typed",
    "measure.stats": "measure.store.stats",
    "measure.observed": "measure.store.observed",
    # measure/gpu/: what runs on (or talks to) the device
    "measure.device": "measure.gpu.device",
    "measure.devicekinds": "measure.gpu.devicekinds",
    "measure.cudadrv": "measure.gpu.cudadrv",
    "measure.cublas": "measure.gpu.cublas",
    "measure.check": "measure.gpu.check",
    "measure.probe": "measure.gpu.probe",
    # measure/run/: `gloss measure run`
    "measure.runner": "measure.run.runner",
    "measure.rowrun": "measure.run.rowrun",
    "measure.rowkinds": "measure.run.rowkinds",
    "measure.counterpass": "measure.run.counterpass",
    "measure.progress": "measure.run.progress",
    # measure/report/: results read by people and tools
    "measure.compare": "measure.report.compare",
    "measure.export": "measure.report.export",
    "measure.exchange_cli": "measure.report.cli",
    "measure.bench": "measure.report.bench",
    # measure/testing/: fixtures for tests only
    "measure.testing": "measure.testing.synthetic",
    "measure.testingkinds": "measure.testing.kinds",
    "measure.fakedevice": "measure.testing.fakedevice",
}

# package -> (what it is, what it owns, what it may import). The last line is checked by
# tests/foundation/test_package_layout.py: a module of the package importing outside it fails the suite.
PACKAGES: dict[str, tuple[str, str, str]] = {
    "site_plugins.cli": (
        "`gloss` (entry point `site_plugins.cli:main`) and its commands, one module each; argparse plumbing "
        "in `common.py`",
        "Owns: the `gloss` commands (argv in, exit code out) but measure, links, compare and export.",
        "May import: site_plugins.build, site_plugins.content, site_plugins.files, site_plugins.links, "
        "site_plugins.measured, site_plugins.signoff, measure.store",
    ),
    "site_plugins.build": (
        "The build: the pipeline from files to pages, the publish decision, the staging tree and the final audit.",
        "Owns: every check the build runs, rendering, publishing, staging, and what a dirty rebuild redoes.",
        "May import: site_plugins.content, site_plugins.diagrams, site_plugins.files, site_plugins.links, "
        "site_plugins.measured, site_plugins.nav, site_plugins.signoff",
    ),
    "site_plugins.nav": (
        "Navigation: A-Z letter sections, the reader's order and labels, and material's nav rendered in Python.",
        "Owns: what the navigation shows and in which order; the MkDocs plugin applies it.",
        "May import: site_plugins.build (render's URL helpers), site_plugins.content",
    ),
    "site_plugins.diagrams": (
        "Named diagrams: the tile-lifecycle model and the figure's HTML with its inline SVG.",
        "Owns: every diagram a term or lesson names in its front matter.",
        "May import: nothing else of the project",
    ),
    "site_plugins.files": (
        "The foundation: files read within bounds, declared YAML schemas, atomic writes, the one message type.",
        "Owns: how any project file is read, checked or written; every package (and measure/) builds on it.",
        "May import: nothing else of the project",
    ),
    "measure.experiment": (
        "What is measured and where: experiment specs, their kernels, references and includes, the node registry.",
        "Owns: code/<lesson>/experiment.yaml and measure/nodes.yaml (their only readers).",
        "May import: site_plugins.files",
    ),
    "measure.nsight": (
        "Nsight Compute: the counters collected per architecture and the ncu command line and CSV (pure).",
        "Owns: which metrics a result records and how ncu's output is read.",
        "May import: measure.experiment, site_plugins.files",
    ),
    "measure.store": (
        "The result store: the result file format, the only reader of measure/results/, judging and statistics.",
        "Owns: measure/results/<node>/<experiment>.json, the states fresh/stale/failed/tampered, figures.",
        "May import: measure.experiment, measure.nsight, site_plugins.files",
    ),
    "measure.gpu": (
        "The device: the PyCUDA adapter, driver and cuBLAS calls, the output checks, the probe ncu runs.",
        "Owns: everything that touches the GPU (needs PyCUDA and numpy; nothing else here does).",
        "May import: measure.experiment, measure.nsight, measure.store",
    ),
    "measure.run": (
        "`gloss measure run`: compile, check, time and write, one row at a time, with the counter pass first.",
        "Owns: the runner's order of work and its progress output; results go through measure.store.",
        "May import: measure.experiment, measure.gpu, measure.nsight, measure.store, site_plugins.files",
    ),
    "measure.report": (
        "Results read by people and tools: compare two sets, export to other formats, the bench figures.",
        "Owns: `gloss compare`, `gloss export` and bench/README's runner figures (pure over the store).",
        "May import: measure.store, site_plugins.files",
    ),
    "measure.testing": (
        "Fixtures for TESTS ONLY: synthetic results, a fake device, the row-kind fixtures. Never commit output.",
        "Owns: nothing the site or the runner uses.",
        "May import: measure.experiment, measure.gpu, measure.nsight, measure.run, measure.store, "
        "site_plugins.files",
    ),
}

# Edits a regex over module names cannot see: files found next to a module through __file__.
# (path after the move, exact old text, new text). Each must match exactly once.
LITERAL_EDITS: list[tuple[str, str, str]] = [
    ("site_plugins/build/staging.py",
     'ASSETS = Path(__file__).parent / "assets"',
     'ASSETS = Path(__file__).parents[1] / "assets"'),
    ("measure/gpu/device.py",
     'FLUSH_SOURCE = Path(__file__).with_name("flush.cu")',
     'FLUSH_SOURCE = Path(__file__).parents[1] / "flush.cu"'),
]

# Tracked files never rewritten: signed or measured data (a changed byte changes a fingerprint).
FROZEN = ("content/", "code/", "measure/results/", "measure/repeat/", "signoff.yaml", "links-evidence.json")
# The modules that stay at the top on purpose: the MkDocs entry point, `gloss measure` and the packages.
STAYS = ("site_plugins/__init__.py", "site_plugins/plugin.py", "measure/__init__.py", "measure/__main__.py",
         "measure/cli.py")
SELF = "tools/relayout.py"  # its move map names every old module on purpose
TEXT_SUFFIXES = (".py", ".md", ".toml", ".yml", ".yaml", ".sh", ".cfg", ".ini", ".txt", ".html", ".js", ".css",
                 ".c", ".h", ".cu", ".cuh", ".json")  # .json: only outside FROZEN (bench figures, fixtures)
TEXT_NAMES = ("Makefile",)
README_ROWS = ("| `measure/`", "| `site_plugins/`")


def module_file(dotted: str, new: bool) -> str:
    """``site_plugins.cli`` (a package after the move) -> its __init__; others -> ``a/b.py``."""
    if new and dotted in PACKAGE_INITS:
        return dotted.replace(".", "/") + "/__init__.py"
    return dotted.replace(".", "/") + ".py"


PACKAGE_INITS = {new for old, new in MOVES.items() if old == new}


def moved_paths() -> dict[str, str]:
    return {module_file(old, False): module_file(new, True) for old, new in MOVES.items()}


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def dotted_regex() -> re.Pattern[str]:
    # Longest first, so that site_plugins.signoff_report_cli wins over site_plugins.signoff_cli's prefix
    # (the word boundary already forbids that; the order keeps the alternation obviously right).
    names = sorted((old for old, new in MOVES.items() if old != new), key=len, reverse=True)
    return re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in names) + r")(?![\w])")


def path_regex() -> re.Pattern[str]:
    paths = sorted(moved_paths(), key=len, reverse=True)
    return re.compile(r"(?<![\w.-])(" + "|".join(re.escape(p) for p in paths) + r")(?![\w])")


FROM_IMPORT = re.compile(
    r"^(?P<indent>[ \t]*)from (?P<pkg>site_plugins|measure) import (?P<names>\([^)]*\)|[^\n]*)$", re.M)


def rewrite_from_import(m: re.Match[str]) -> str:
    """``from site_plugins import audit, checks as c, measured`` -> one line per package it now comes from."""
    indent, pkg, raw = m["indent"], m["pkg"], m["names"]
    comment = ""
    body = raw
    if not raw.startswith("(") and "#" in raw:
        body, comment = raw.split("#", 1)
        comment = "  #" + comment
    body = re.sub(r"#[^\n]*", "", body).strip("()")
    items = [i.strip() for i in body.split(",") if i.strip()]
    groups: dict[str, list[str]] = {}
    changed = False
    for item in items:
        name, _, alias = (p.strip() for p in item.partition(" as "))
        new = MOVES.get(f"{pkg}.{name}")
        if new is None or new == f"{pkg}.{name}":
            groups.setdefault(pkg, []).append(item)
            continue
        changed = True
        parent, _, base = new.rpartition(".")
        local = alias or name
        groups.setdefault(parent, []).append(base if base == local else f"{base} as {local}")
    if not changed:
        return m.group(0)
    # The new package names are written with NUL for their dots, so that the dotted rewrite run after this
    # one cannot take `site_plugins.nav` (now a package) for the old module; rewrite_text restores them.
    # An aliased name gets a line of its own, as ruff's isort writes it (so a noqa survives the sort).
    lines = []
    for parent, names in groups.items():
        head = f"{indent}from {parent.replace('.', chr(0))} import "
        plain = [n for n in names if " as " not in n]
        lines += ([head + ", ".join(plain)] if plain else []) + [head + n for n in names if " as " in n]
    if "noqa" in comment:  # a suppression holds for every line the import became
        return "\n".join(line + comment for line in lines)
    lines[0] += comment
    return "\n".join(lines)


def rewrite_text(text: str, dotted: re.Pattern[str], paths: re.Pattern[str], python: bool) -> str:
    if python:
        text = FROM_IMPORT.sub(rewrite_from_import, text)
    text = dotted.sub(lambda m: MOVES[m.group(1)], text).replace("\0", ".")
    new_paths = moved_paths()
    return paths.sub(lambda m: new_paths[m.group(1)], text)


def init_text(package: str) -> str:
    title, owns, may = PACKAGES[package]
    return f'"""{title}\n\n{owns}\n{wrap(may)}.\n"""\n'


def wrap(line: str) -> str:
    return "\n".join(textwrap.wrap(line, 110, subsequent_indent="    ", break_on_hyphens=False))


def readme_rows() -> list[str]:
    rows = ["| `site_plugins/plugin.py` | the MkDocs plugin: thin event adapters over the packages below |"]
    for package, (title, _, _) in PACKAGES.items():
        rows.append(f"| `{package.replace('.', '/')}/` | {title.rstrip('.')} |")
        if package == "site_plugins.files":
            rows += [
                "| `site_plugins/content/` | the content model: terms and lessons parsed from front matter, checked |",
                "| `site_plugins/measured/` | measurements in pages: tables, charts, values in prose, Measurements |",
                "| `site_plugins/signoff/` | who may sign, who signed what with which key, what a sign-off covers |",
                "| `site_plugins/links/` | the source-link checker and its evidence file |",
                "| `measure/cli.py`, `__main__.py` | `gloss measure` = `python -m measure`: run, verify, list |",
                "| `measure/nodes.yaml`, `measure/results/<node>/<id>.json` | the node registry; the result files |",
            ]
    return rows


def rewrite_readme(text: str) -> str:
    lines = text.split("\n")
    start = lines.index("## Where each part lives")
    out, inserted = lines[:start], False
    for line in lines[start:]:
        if line.startswith(README_ROWS):
            if not inserted:
                out += readme_rows()
                inserted = True
            continue
        out.append(line)
    if not inserted:
        raise SystemExit("relayout: README's 'Where each part lives' table has no `site_plugins/` row; edit it by hand")
    return "\n".join(out)


def tracked_text_files() -> list[str]:
    files = git("ls-files", "-z").split("\0")
    return [f for f in files if f and f != SELF and (f.endswith(TEXT_SUFFIXES) or Path(f).name in TEXT_NAMES)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    ap.add_argument("--dry-run", action="store_true", help="print the move map and what would change")
    args = ap.parse_args(argv)
    root = Path(git("rev-parse", "--show-toplevel").strip())
    os.chdir(root)
    moves = moved_paths()
    if all(Path(new).exists() and not Path(old).exists() for old, new in moves.items()):
        print("relayout: already done (every module is at its new place); nothing to do")
        return 0
    half = [old for old, new in moves.items() if not Path(old).exists() or Path(new).exists()]
    if half:
        print(f"relayout: half-moved tree ({', '.join(half)} moved or in the way); restore with git, run again",
              file=sys.stderr)
        return 2
    if git("status", "--porcelain", "--untracked-files=no").strip() and not args.dry_run:
        print("relayout: the tree has uncommitted changes; commit or stash them first", file=sys.stderr)
        return 2

    dotted, paths = dotted_regex(), path_regex()
    files = tracked_text_files()
    frozen_hits = []
    for f in files:
        if f.startswith(FROZEN):
            text = Path(f).read_text(encoding="utf-8", errors="replace")
            if rewrite_text(text, dotted, paths, f.endswith(".py")) != text:
                frozen_hits.append(f)
    # A signed or measured file is left as it is: rewriting a comment in it would unsign an entry or make
    # a result stale. Its old name stays wrong until someone changes it with a re-sign or a re-run.
    frozen_note = ("relayout: NOT rewritten (signed or measured; a change needs a re-sign or a re-run), "
                   "these still name old module paths: " + ", ".join(frozen_hits)) if frozen_hits else ""
    for path, old, _ in LITERAL_EDITS:
        src = {v: k for k, v in moves.items()}[path]
        if Path(src).read_text(encoding="utf-8").count(old) != 1:
            print(f"relayout: {src}: expected exactly one `{old}`; update LITERAL_EDITS", file=sys.stderr)
            return 2
    for src in moves:
        text = Path(src).read_text(encoding="utf-8")
        unhandled = [ln for ln in text.splitlines() if "__file__" in ln
                     and not any(old in ln for p, old, _ in LITERAL_EDITS if p == moves[src])
                     and "pycuda.__file__" not in ln]
        if unhandled:
            print(f"relayout: {src} finds files through __file__ ({unhandled[0].strip()}); "
                  "add a LITERAL_EDITS entry", file=sys.stderr)
            return 2

    width = max(len(o) for o in moves)
    for old, new in moves.items():
        print(f"{old:<{width}}  ->  {new}")
    if args.dry_run:
        changed = [f for f in files if not f.startswith(FROZEN)
                   and rewrite_text(Path(f).read_text(encoding="utf-8"), dotted, paths, f.endswith(".py"))
                   != Path(f).read_text(encoding="utf-8")]
        print(f"\nwould rewrite {len(changed)} files:\n  " + "\n  ".join(changed))
        if frozen_note:
            print(frozen_note)
        return 0

    # 1. Move (cli.py -> cli/__init__.py: a file and a folder of different names, no temporary needed).
    for old, new in moves.items():
        Path(new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new)
    # 2. Rewrite references, in every tracked text file (the moved ones at their new paths).
    rewritten = []
    for f in tracked_text_files():
        if f.startswith(FROZEN):
            continue
        text = Path(f).read_text(encoding="utf-8")
        new_text = rewrite_text(text, dotted, paths, f.endswith(".py"))
        if f == "README.md":
            new_text = rewrite_readme(new_text)
        if new_text != text:
            Path(f).write_text(new_text, encoding="utf-8")
            rewritten.append(f)
    # 3. What the regexes cannot see.
    for path, old, new in LITERAL_EDITS:
        p = Path(path)
        p.write_text(p.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    # 4. Package __init__ files; an __init__ that was a module gets the owns/may-import lines in its docstring.
    for package, (_, owns, may) in PACKAGES.items():
        init = Path(package.replace(".", "/")) / "__init__.py"
        if init.exists():
            text = init.read_text(encoding="utf-8")
            first_end = text.index("\n")
            init.write_text(text[:first_end] + f"\n\n{owns}\n{wrap(may)}." + text[first_end:], encoding="utf-8")
        else:
            init.write_text(init_text(package), encoding="utf-8")
        git("add", str(init))
    test = Path("tests/foundation/test_package_layout.py")
    test.write_text(LAYOUT_TEST, encoding="utf-8")
    git("add", str(test))
    # 5. Import order, as ruff's isort wants it after the package names changed.
    ruff = shutil.which("ruff") or (str(root / ".venv/bin/ruff") if (root / ".venv/bin/ruff").exists() else None)
    py = [f for f in rewritten if f.endswith(".py")]
    if ruff and py:
        subprocess.run([ruff, "check", "--quiet", "--select", "I", "--fix", *py], check=False)
    elif py:
        print("relayout: ruff not found; run `ruff check --select I --fix site_plugins measure tests bench`")
    print(f"\nrelayout: moved {len(moves)} modules, rewrote {len(rewritten)} files, "
          f"wrote {len(PACKAGES)} package __init__ files and {test}")
    loose = sorted(p.as_posix() for top in ("site_plugins", "measure") for p in Path(top).glob("*.py")
                   if p.as_posix() not in STAYS)
    if loose:  # written after this map was: place them (add to MOVES, or to STAYS) and run again from main
        print("relayout: modules not in the move map, left where they are: " + ", ".join(loose))
    if frozen_note:
        print(frozen_note)
    return 0


LAYOUT_TEST = '''"""The package layout holds: no import circle; each package imports only what its __init__ declares.

Written by tools/relayout.py (issue 25). A package's ``May import:`` line names the other packages of
the project its modules may import; importing anything else means the layering changed, so the line
(and the README's "Where each part lives" table) must change with it, in review.
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
        line = re.search(r"^May import: (.*(?:\\n    .*)*)$", doc, re.M)
        if not line:
            continue
        allowed = {name} | set(re.findall(r"\\b(?:site_plugins|measure)(?:\\.\\w+)?", line.group(1)))
        for mod, mpath in known.items():
            if not mod.startswith(name + "."):
                continue
            for dep in imports(mpath, mod, known, top_level_only=False):
                if not any(dep == a or dep.startswith(a + ".") for a in allowed):
                    wrong.append(f"{mpath.relative_to(ROOT)} imports {dep}; {name}/__init__.py allows: {line.group(1)}")
    assert wrong == []
'''


if __name__ == "__main__":
    sys.exit(main())
