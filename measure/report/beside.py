"""A reader's own results beside our verification nodes' (pure): what ``gloss measure mine`` prints last.

One table per experiment, a line per row the reader measured (same size, same kernel): the reader's
median time, each node's, and the reader's time over the node's (above 1: slower on the reader's
GPU). Only a node's fresh result is set beside it; a node whose result is not fresh is named with
its state. Rows are matched by spec id and size, so a row one side lacks is shown as a dash.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from measure.store import results as R
from measure.store.resultview import Entry


def _us(x: float | None) -> str:
    return "-" if x is None else f"{x:,.2f}"


def render(mine: Entry, ours: Sequence[Entry]) -> str:
    p = mine.provenance
    gpu = p.gpu_name if p else mine.node
    fresh = [e for e in ours if e.fresh]
    head = ["size", "kernel", "yours µs"]
    for e in fresh:
        head += [f"{e.node} µs", f"÷ {e.node}"]
    table = [head]
    for v in mine.rows():
        cells = [v.size, v.label, _us(v.median_us)]
        for e in fresh:
            theirs = e.row(v.kernel, v.size)
            cells += [_us(theirs.median_us if theirs else None),
                      f"{v.median_ms / theirs.median_ms:.2f}" if theirs else "-"]
        table.append(cells)
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines = [f"{mine.experiment} on your {gpu} ({mine.node}) beside our verification nodes:"]
    lines += ["  " + "  ".join(c.rjust(w) if i >= 2 else c.ljust(w) for i, (c, w) in
                               enumerate(zip(r, widths, strict=True))).rstrip() for r in table]
    for row in mine.failed_rows():
        lines.append(f"  {row.label} @ {row.size}: check failed on your GPU: {row.check.message}")
    if fresh:
        lines.append("  ÷ NODE: your median time over the node's (above 1: slower on your GPU)")
    else:
        lines.append("  no verification node has a fresh result for it to compare with")
    for e in ours:
        if not e.fresh:
            lines.append(f"  {e.node}: not compared, its result is {e.state}")
    return "\n".join(lines)


def comparison(root: Path, local: str, ids: Sequence[str]) -> str:
    """Local node ``local``'s results for ``ids`` (in ``measure/local/``) beside every registered node's."""
    ours = R.load_all(root)
    yours = R.load_all(root, R.LOCAL_DIR)
    blocks = []
    for exp in ids:
        mine = yours.get(exp, local)
        if mine.result is None:
            blocks.append(f"{exp}: no result on your GPU ({mine.state})")
            continue
        blocks.append(render(mine, [e for e in ours.for_experiment(exp) if e.state != "pending"]))
    return "\n\n".join(blocks)
