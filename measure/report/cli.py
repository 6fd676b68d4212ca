"""``gloss compare OLD NEW`` and ``gloss export --format FMT [SOURCE]``: results read by people and tools.

``gloss compare`` compares two runs (rows matched by experiment, node, size and kernel) or, when each side
holds one node and they differ (``measure/results/h100-1 measure/results/h200-1``, or ``--old-node`` /
``--new-node`` to pick one node of each side), two GPUs: rows matched by experiment, size and kernel, with
the ratio of their times; a slower row is then a finding, not a failure.

A SOURCE is a result file (``measure/results/h200-1/day13-transpose.json``), a node's folder of them, a
results root holding node folders (``measure/results``, ``measure/repeat``), or a git commit (any
revision git knows: ``HEAD~3``, a sha, a tag), read as the ``measure/results`` tree of that commit.
Every file goes through the results module's reader and its digest is checked: a file that does not
parse or whose digest does not match is reported and makes the command exit 1.

Exit codes: 0 done (compare: no row slower); 1 compare found a slower row, or a file was invalid or
tampered; 2 usage or environment error (a source that is neither a path nor a commit).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from measure.report import compare as C
from measure.report import export as X
from measure.store import results as R
from measure.store.resultformat import RESULTS_DIR, Result, digest_of
from site_plugins.files.messages import Problem


class SourceError(Exception):
    """A source that names neither a results path nor a git commit."""


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    direct = sorted(path.glob("*.json"))
    return direct if direct else sorted(path.glob("*/*.json"))


def _read(files: list[Path], shown: dict[Path, str]) -> tuple[list[Result], list[Problem]]:
    results: list[Result] = []
    problems: list[Problem] = []
    for f in files:
        rel = shown.get(f, str(f))
        result, found = R.read_result(f, rel, f.stem, f.parent.name)
        problems += found
        if result is None:
            continue
        if result.schema_version >= 2 and digest_of(result) != result.digest:
            problems.append(Problem(rel, 1, "tampered: the file's digest does not match its content",
                                    "compare only results written by `gloss measure run`"))
            continue
        results.append(result)
    return results, problems


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)


def load_source(root: Path, source: str, scratch: Path) -> tuple[list[Result], list[Problem]]:
    """The results a source names (see the module docstring); files from git land in ``scratch``."""
    path = Path(source)
    if path.exists():
        found = _files(path)
        return _read(found, {f: str(f) for f in found})
    try:
        listing = _git(root, "ls-tree", "-r", "--name-only", source, "--", RESULTS_DIR)
    except OSError as exc:
        raise SourceError(f"'{source}' is no file or folder, and git cannot be run to read it as a commit") from exc
    if listing.returncode != 0:
        raise SourceError(f"'{source}' is neither a results file or folder nor a commit git knows")
    files: list[Path] = []
    shown: dict[Path, str] = {}
    for name in listing.stdout.decode("utf-8", "replace").splitlines():
        rel = Path(name).relative_to(RESULTS_DIR)
        if rel.suffix != ".json" or len(rel.parts) != 2:
            continue
        blob = _git(root, "show", f"{source}:{name}")
        if blob.returncode != 0:
            continue
        dest = scratch / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(blob.stdout)
        files.append(dest)
        shown[dest] = f"{source}:{name}"
    return _read(files, shown)


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:+.2f} %"


def _ms(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}"


def _ratio(c: C.Change) -> str:
    return "" if c.old_ms is None or c.new_ms is None or c.old_ms == 0 else f"{c.new_ms / c.old_ms:.3f}x"


def render(changes: list[C.Change], nodes: tuple[str, str] | None = None) -> str:
    """The table ``gloss compare`` prints; ``nodes``: (old, new) when two nodes' rows were matched, which adds
    the ratio of the times (new over old) and names the nodes in the time columns."""
    head: tuple[str, ...]
    rows: list[tuple[str, ...]]
    if nodes is None:
        head = ("experiment", "size", "kernel", "old ms", "new ms", "change", "noise", "verdict")
        rows = [head, *(
            (c.key.experiment + ("" if c.key.node == "h200-1" else f"@{c.key.node}"), c.key.size, c.label,
             _ms(c.old_ms), _ms(c.new_ms), _pct(c.change), "" if c.noise is None else f"{100 * c.noise:.2f} %",
             c.verdict)
            for c in changes
        )]
    else:
        head = ("experiment", "size", "kernel", f"{nodes[0]} ms", f"{nodes[1]} ms", "ratio", "change", "noise",
                "verdict")
        rows = [head, *(
            (c.key.experiment, c.key.size, c.label, _ms(c.old_ms), _ms(c.new_ms), _ratio(c), _pct(c.change),
             "" if c.noise is None else f"{100 * c.noise:.2f} %", c.verdict)
            for c in changes
        )]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def compare_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gloss compare", description=(
        "Compare two sets of results row by row: the change in median time and a verdict (faster, slower, "
        "same) that counts a change only past both runs' noise and --min-change."))
    parser.add_argument("old", help="a result file, a folder of them, or a git commit")
    parser.add_argument("new", help="the same kinds as OLD")
    parser.add_argument("--min-change", type=float, default=100 * C.MIN_CHANGE, metavar="PCT",
                        help="the smallest change, in percent, called faster or slower (default %(default)s)")
    parser.add_argument("--root", default=".", help="the project (for git commits; default: here)")
    parser.add_argument("--json", action="store_true", help="print the changes as JSON")
    parser.add_argument("--old-node", metavar="NODE", help="only OLD's rows measured on NODE")
    parser.add_argument("--new-node", metavar="NODE", help="only NEW's rows measured on NODE")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.min_change < 0:
        print("gloss compare: --min-change must be 0 or more", file=sys.stderr)
        return 2
    root = Path(args.root).resolve()
    with tempfile.TemporaryDirectory(prefix="gloss-compare-") as tmp:
        try:
            old, p_old = load_source(root, args.old, Path(tmp) / "old")
            new, p_new = load_source(root, args.new, Path(tmp) / "new")
        except SourceError as exc:
            print(f"gloss compare: {exc}", file=sys.stderr)
            return 2
    for p in p_old + p_new:
        print(p)
    rows_old, rows_new = C.timed_rows(old), C.timed_rows(new)
    for side, node, rows in (("OLD", args.old_node, rows_old), ("NEW", args.new_node, rows_new)):
        if node is not None and rows and node not in C.nodes_of(rows):
            print(f"gloss compare: {side} has no results on node '{node}'; nodes there: "
                  f"{', '.join(sorted(C.nodes_of(rows)))}", file=sys.stderr)
            return 2
    if args.old_node:
        rows_old = C.on_node(rows_old, args.old_node)
    if args.new_node:
        rows_new = C.on_node(rows_new, args.new_node)
    # One node on each side, two different ones: two GPUs, matched by experiment, size and kernel.
    nodes = C.across_nodes(rows_old, rows_new)
    if nodes is not None:
        rows_old = C.as_node(rows_old, f"{nodes[0]}/{nodes[1]}")
        rows_new = C.as_node(rows_new, f"{nodes[0]}/{nodes[1]}")
    changes = C.compare(rows_old, rows_new, args.min_change / 100)
    if args.json:
        print(json.dumps([{"experiment": c.key.experiment, "node": c.key.node, "size": c.key.size,
                           "kernel": c.key.kernel, "label": c.label, "verdict": c.verdict, "old_ms": c.old_ms,
                           "new_ms": c.new_ms, "change": c.change, "noise": c.noise} for c in changes], indent=2))
    else:
        if nodes is not None:
            print(f"node {nodes[1]} against node {nodes[0]}: rows matched by experiment, size and kernel; "
                  f"ratio = time on {nodes[1]} / time on {nodes[0]}")
        print(render(changes, nodes))
        tally = C.counts(changes)
        print(", ".join(f"{n} {v}" for v, n in sorted(tally.items())) or "no rows")
    # Two GPUs differ by design: a slower row there is a finding, not a regression (exit 0).
    slower = nodes is None and any(c.verdict == "slower" for c in changes)
    return 1 if p_old or p_new or slower else 0


def export_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gloss export", description=(
        "Write results as Google Benchmark JSON or Bencher Metric Format (BMF) JSON on standard output."))
    parser.add_argument("source", nargs="?", default=RESULTS_DIR,
                        help=f"a result file, a folder of them, or a git commit (default: {RESULTS_DIR})")
    parser.add_argument("--format", required=True, choices=X.FORMATS)
    parser.add_argument("--root", default=".", help="the project (for git commits; default: here)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    root = Path(args.root).resolve()
    with tempfile.TemporaryDirectory(prefix="gloss-export-") as tmp:
        try:
            results, problems = load_source(root, args.source, Path(tmp))
        except SourceError as exc:
            print(f"gloss export: {exc}", file=sys.stderr)
            return 2
    for p in problems:
        print(p, file=sys.stderr)
    print(json.dumps(X.export(results, args.format), indent=2))
    return 1 if problems else 0
