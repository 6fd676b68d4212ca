"""``gloss measure``: run (on a verification node), verify and list (anywhere), compile (CI), show.

``main(argv) -> int``: 0 ok, 1 a check failed, 2 usage or environment error. PyCUDA and numpy are
imported only inside ``run``, so every other subcommand, and ``--help``, work without them.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from measure.experiment.compiled import compile_all
from measure.experiment.nodes import NODES_PATH, load_nodes
from measure.experiment.spec import CODE_DIR, load_specs
from measure.store import audit
from measure.store import results as R
from site_plugins.files.messages import Problem

PROG = "gloss measure"


def _root(args: argparse.Namespace) -> Path:
    return Path(args.root).resolve()


def _print_problems(problems: Sequence[Problem]) -> None:
    for p in problems:
        print(p)


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


def resolve_commit(root: Path, commit: str | None, dirty: bool | None) -> tuple[str, bool | None]:
    """The commit and dirty flag to record: from the options, else GLOSS_COMMIT/GLOSS_DIRTY, else git
    (where history exists), else 'unknown'. Dirty means code/ or measure/ differ from the commit."""
    commit = commit or os.environ.get("GLOSS_COMMIT") or None
    if dirty is None and os.environ.get("GLOSS_DIRTY") in ("0", "1"):
        dirty = os.environ["GLOSS_DIRTY"] == "1"
    if commit is None:
        head = _git(root, "rev-parse", "--verify", "-q", "HEAD")
        if head:
            commit = head
            if dirty is None:
                status = _git(root, "status", "--porcelain", "--", CODE_DIR, "measure")
                dirty = None if status is None else bool(status)
    return commit or "unknown", dirty


def cmd_run(args: argparse.Namespace) -> int:
    root = _root(args)
    nodes, node_problems = load_nodes(root)
    declared, spec_problems = load_specs(root)
    if node_problems or spec_problems:
        _print_problems(node_problems + spec_problems)
        return 2
    if args.node not in nodes:
        known = ", ".join(sorted(nodes)) or "none"
        print(f"{NODES_PATH}:0: node '{args.node}' is not registered; use one of: {known}, or register it there")
        return 2
    unknown = [i for i in args.ids if i not in declared]
    if unknown:
        print(
            f"{PROG} run: no experiment {', '.join(repr(u) for u in unknown)}; declared: {', '.join(sorted(declared))}"
        )
        return 2
    if not any(d.experiment.ceilings for d in declared.values()):
        print(
            f"{PROG} run: no experiment declares 'ceilings: true', so no row could be compared with a copy "
            "ceiling; declare one (see code/ceilings/experiment.yaml)"
        )
        return 2
    try:
        from measure.gpu.device import DeviceError
        from measure.run import runner
    except ImportError as exc:
        print(
            f"{PROG} run: {exc}; install the 'node' extra (PyCUDA, numpy, nvidia-ml-py) on a verification node "
            "(see measure/README.md)"
        )
        return 2
    # `timeout` and the node's deadline stop a run with SIGTERM: exit through the finally blocks, so
    # the counter pass's ncu process group is killed and the device context closed.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    commit, dirty = resolve_commit(root, args.commit, args.dirty)
    options = _options(args)
    out = Path(args.out).resolve() if args.out else root / R.RESULTS_DIR
    from measure.run.counterpass import Settings as CounterSettings

    counters = CounterSettings(
        enabled=not args.no_counters,
        ncu=args.ncu,
        time_limit_s=args.counter_time_limit,
        log_file=Path(args.ncu_log).resolve() if args.ncu_log else None,
    )
    try:
        return runner.run(
            root,
            args.node,
            nodes[args.node],
            declared,
            args.ids,
            options,
            runner.Provenance0(commit, dirty),
            out,
            counters,
        )
    except DeviceError as exc:
        print(f"{PROG} run: {exc}")
        return 2


def _options(args: argparse.Namespace) -> Any:
    from measure.run import runner

    return runner.Options(
        min_samples=args.min_samples,
        min_gpu_time_s=args.min_time,
        max_rel_stdev=args.max_noise / 100.0,
        row_time_limit_s=args.time_limit,
        warmup_launches=args.warmup,
    )


def cmd_mine(args: argparse.Namespace) -> int:
    """A reader's own GPU: no registered node, results in the git-ignored measure/local/ (never published)."""
    root = _root(args)
    declared, spec_problems = load_specs(root)
    if spec_problems:
        _print_problems(spec_problems)
        return 2
    unknown = [i for i in args.ids if i not in declared]
    if unknown:
        print(
            f"{PROG} mine: no experiment {', '.join(repr(u) for u in unknown)}; declared: {', '.join(sorted(declared))}"
        )
        return 2
    try:
        from measure.gpu.cudadrv import DeviceError
        from measure.run import local, runner

        device = _device()
    except ImportError as exc:
        print(
            f"{PROG} mine: {exc}; install the 'node' extra with `pip install -e '.[node]'` (PyCUDA, numpy, "
            "nvidia-ml-py) and put the CUDA toolkit's nvcc on PATH (see measure/README.md)"
        )
        return 2
    except DeviceError as exc:
        print(f"{PROG} mine: {exc}")
        return 2
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    commit, dirty = resolve_commit(root, None, None)
    ids = args.ids or sorted(declared)
    code, node = local.run_mine(root, declared, args.ids, _options(args), runner.Provenance0(commit, dirty), device)
    from measure.report import beside

    print()
    print(beside.comparison(root, node, ids))
    return code


def _device() -> Any:
    """The GPU (PyCUDA), or in tests the fake that GLOSS_FAKE_DEVICE names (measure/testing/fakedevice.py)."""
    from measure.testing.fakedevice import FAKE_DEVICE_ENV, from_env

    if fake := os.environ.get(FAKE_DEVICE_ENV):
        print(f"{PROG} mine: {FAKE_DEVICE_ENV} is set: a FAKE device for tests, not your GPU", flush=True)
        return from_env(fake)
    from measure.gpu.device import Device

    return Device()


def cmd_probe(args: argparse.Namespace) -> int:
    """Launch every kernel row of the named experiments once, in the order named (for ncu)."""
    root = _root(args)
    nodes, node_problems = load_nodes(root)
    declared, spec_problems = load_specs(root)
    unknown = [i for i in args.ids if i not in declared]
    if node_problems or spec_problems or args.node not in nodes or unknown:
        _print_problems(node_problems + spec_problems)
        print(f"{PROG} probe: unknown node '{args.node}' or experiment(s) {', '.join(unknown) or '-'}")
        return 2
    try:
        from measure.gpu import probe
    except ImportError as exc:
        print(f"{PROG} probe: {exc}; install the 'node' extra on a verification node")
        return 2
    return probe.probe(root, nodes[args.node], [declared[i] for i in args.ids], Path(args.manifest))


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def cmd_verify(args: argparse.Namespace) -> int:
    root = _root(args)
    rs = R.load_all(root, args.results_dir)
    if args.node is not None:  # one node's run (CI checks each node's artifact on its own)
        if args.node not in rs.nodes:
            known = ", ".join(rs.nodes) or "none"
            print(f"{PROG} verify: node '{args.node}' is not registered in {NODES_PATH}; registered: {known}")
            return 2
        rs.entries = [e for e in rs.entries if e.node == args.node]
    checked = audit.audit(rs, load_nodes(root)[0])  # the build's list: results plus cross-file checks
    problems = checked.problems
    _print_problems(problems)
    if checked.note:
        print(checked.note)
    fresh = sum(e.fresh for e in rs.entries)
    pending = len(rs.pending)
    waiting = f"; {pending} pending (declared, not yet run: {', '.join(sorted({e.experiment for e in rs.pending}))})"
    print(
        f"{fresh} of {len(rs.entries) - pending} results fresh"
        + (waiting if pending else "")
        + ("" if not problems else f"; {len(problems)} problem(s)")
    )
    return 1 if problems else 0


def cmd_list(args: argparse.Namespace) -> int:
    from rich.table import Table

    rs = R.load_all(_root(args))
    table = Table(title="measurements")
    for col in ("experiment", "node", "state", "measured (UTC)", "commit", "rows"):
        table.add_column(col)
    colour = {"fresh": "green", "stale": "yellow", "missing": "dim", "pending": "dim"}
    for e in rs.entries:
        p = e.provenance
        table.add_row(
            e.experiment,
            e.node,
            f"[{colour.get(e.state, 'red')}]{e.state}[/]",
            p.finished_utc[:19].replace("T", " ") if p else "",
            p.git_commit[:10] if p else "",
            _row_count(e),
        )
    _console().print(table)
    _print_problems(rs.setup_problems)
    return 1 if rs.setup_problems else 0


def _row_count(e: R.Entry) -> str:
    """Timed rows, and observed rows (launched once, never timed) beside them where there are any."""
    if e.result is None:
        return ""
    observed = sum(1 for r in e.result.rows if r.kind == "observe")
    timed = str(len(e.rows()))
    return f"{timed} + {observed} observed" if observed else timed


def cmd_show(args: argparse.Namespace) -> int:
    from rich.table import Table

    rs = R.load_all(_root(args))
    entry = rs.get(args.id, args.node)
    if entry.result is None:
        _print_problems(entry.problems)
        return 1
    from measure.nsight import counters as C

    table = Table(title=f"{entry.experiment} on {entry.node} ({entry.state})", caption=entry.provenance_sentence())
    views = entry.ceiling_rows() + entry.rows()
    # Counter columns (Nsight Compute) where the result has them: the kernel's own time and the causes.
    derived: tuple[str, ...] = ()
    if any(v.counters for v in views):
        derived = ("ktime", "conflict_ways_ld", "conflict_ways_st", "sectors_per_req_ld", "sectors_per_req_st")
        derived += ("dram_ratio",)
    heads = ("kernel", "size", "median µs", "IQR µs", "GB/s", "GFLOP/s", "% peak", "% copy")
    for col in (*heads, *(C.DERIVED[d].what for d in derived), "flags"):
        table.add_column(col, justify="left" if col in ("kernel", "size", "flags") else "right")
    for v in views:
        figs = C.figures(v.counters, v.bytes_moved)
        pct_copy = entry.pct_of_copy(v)
        flags = ", ".join(
            f
            for f, on in (
                ("ceiling", v.is_ceiling),
                ("fits L2", v.fits_in_l2),
                (">95% peak", v.above_95pct_of_peak),
                ("noisy", v.noisy),
            )
            if on
        )
        table.add_row(
            v.label,
            v.size,
            f"{v.median_us:.2f}",
            f"{v.iqr_us:.2f}",
            f"{v.gbps:.1f}",
            f"{v.gflops:.1f}" if v.gflops is not None else "",
            f"{v.pct_of_peak:.1f}",
            f"{pct_copy:.1f}" if pct_copy is not None else "",
            *(f"{x:.2f}" if (x := figs.get(d)) is not None else "" for d in derived),
            flags,
        )
    _console().print(table)
    _print_problems(entry.problems)
    return 0 if entry.fresh else 1


def _console() -> Any:
    """A terminal-wide console, or 160 columns in logs and pipes (rich would assume 80 and truncate)."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=160)


def cmd_compile(args: argparse.Namespace) -> int:
    problems = compile_all(_root(args), args.nvcc)
    _print_problems(problems)
    return 1 if problems else 0


def cmd_bench(args: argparse.Namespace) -> int:
    from measure.report import bench

    root = _root(args)
    try:
        block = bench.report(root)
    except ValueError as exc:
        print(f"{PROG} bench: {exc}")
        return 1
    if args.write:
        path = Path(args.write)
        path.write_text(bench.splice(path.read_text(encoding="utf-8"), block), encoding="utf-8")
    else:
        print(block, end="")
    return 0


def _timing_options(r: argparse.ArgumentParser) -> None:
    r.add_argument("--min-samples", type=int, default=10, help="samples at least (default 10)")
    r.add_argument("--min-time", type=float, default=0.5, help="GPU seconds per row at least (default 0.5)")
    r.add_argument("--max-noise", type=float, default=0.5, help="stop at this relative stdev, %% (default 0.5)")
    r.add_argument("--time-limit", type=float, default=3.0, help="seconds per row before it is noisy (default 3)")
    r.add_argument("--warmup", type=int, default=5, help="untimed launches before sampling (default 5)")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Run, verify and list measurements.")
    p.add_argument("--root", default=".", help="repository root (default: .)")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="check and time experiments on a verification node (needs PyCUDA)")
    r.add_argument("ids", nargs="*", help="experiment ids (default: all); the copy ceilings always run first")
    r.add_argument("--node", required=True, help="the registered node this machine is (measure/nodes.yaml)")
    r.add_argument("--commit", help="git commit to record (default: $GLOSS_COMMIT, else git, else 'unknown')")
    dirty = r.add_mutually_exclusive_group()
    dirty.add_argument(
        "--dirty",
        dest="dirty",
        action="store_const",
        const=True,
        default=None,
        help="record that code/ or measure/ had uncommitted changes",
    )
    dirty.add_argument("--clean", dest="dirty", action="store_const", const=False, help="record a clean tree")
    r.add_argument("--out", help="results folder (default: measure/results); files go to OUT/NODE/ID.json")
    _timing_options(r)
    r.add_argument(
        "--no-counters",
        action="store_true",
        help="skip the Nsight Compute counter pass (recorded: such results are not incomplete)",
    )
    r.add_argument("--ncu", help="the ncu executable (default: ncu on PATH, else /usr/local/cuda/bin/ncu)")
    r.add_argument(
        "--counter-time-limit", type=float, default=120.0, help="seconds for the whole counter pass (default 120)"
    )
    r.add_argument("--ncu-log", help="keep ncu's output (its CSV) in this file")
    r.set_defaults(func=cmd_run)
    m = sub.add_parser(
        "mine",
        help="run experiments on YOUR GPU (any CUDA GPU; needs PyCUDA and nvcc) and print them beside ours",
        description="Check and time experiments on this machine's GPU, whatever it is, as the local node "
        "'local-<model>' (no registration, no counters); results go to the git-ignored measure/local/ and are "
        "never published. Ends with your numbers beside each verification node's.",
    )
    m.add_argument("ids", nargs="*", help="experiment ids (default: all); the copy ceilings always run first")
    _timing_options(m)
    m.set_defaults(func=cmd_mine)
    pr = sub.add_parser("probe", help="launch every kernel row once, for ncu (the counter pass of 'run' uses it)")
    pr.add_argument("ids", nargs="+", help="experiment ids, launched in this order")
    pr.add_argument("--node", required=True)
    pr.add_argument("--manifest", required=True, help="JSON lines file: one line per launch, in order")
    pr.set_defaults(func=cmd_probe)
    v = sub.add_parser(
        "verify",
        help="check every result: format, recomputation, hashes, node, checks, commit",
        description="Judge every committed result (fresh, pending, or a problem: missing, stale, failed, "
        "tampered, incomplete, unregistered, invalid, orphaned), print each problem as "
        "'path:line: problem; remedy' and a count. Exit 0 when every result is fresh or pending, 1 otherwise. "
        "Runs anywhere: no GPU, no PyCUDA.",
    )
    v.add_argument(
        "--results-dir",
        default=R.RESULTS_DIR,
        help="folder of NODE/ID.json files to verify, in the project or outside it (default: measure/results; "
        "measure/repeat holds the repeat runs)",
    )
    v.add_argument("--node", help="verify only this registered node's results (e.g. one node's run in CI)")
    v.set_defaults(func=cmd_verify)
    ls = sub.add_parser(
        "list",
        help="each experiment's state per node",
        description="A table of every declared experiment on every registered node: its state (fresh, "
        "stale, missing, ...), when it was measured, the commit and its rows. Exit 1 when a spec or the node "
        "registry has a problem. `verify` says why a result is not fresh.",
    )
    ls.set_defaults(func=cmd_list)
    s = sub.add_parser("show", help="one experiment's rows as a table")
    s.add_argument("id")
    s.add_argument("--node")
    s.set_defaults(func=cmd_show)
    b = sub.add_parser("bench", help="the runner's figures for bench/README.md, from the committed results")
    b.add_argument("--write", metavar="README", help="replace the generated block in this file")
    b.set_defaults(func=cmd_bench)
    c = sub.add_parser("compile", help="compile every .cu under code/ for every registered node's arch (CI)")
    c.add_argument("--nvcc", default="nvcc")
    c.set_defaults(func=cmd_compile)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser().parse_args(args_list)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    code: int = args.func(args)
    return code
