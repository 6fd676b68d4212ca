"""Which result and rows an embed or a value reference names, or why none can be shown.

Each function returns what was found or a :class:`Failure` (problem and remedy words without a place;
:mod:`site_plugins.measured.expand` adds ``path:line``). Only a fresh, verified result is ever found.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from site_plugins.measured.model import NOT_MEASURED, Result, ResultsView, Row, State, Table


@dataclass(frozen=True)
class Failure:
    problem: str
    remedy: str


@dataclass(frozen=True)
class Shown:
    """What a directive puts on the page: HTML (``chart.ID`` marks where a page-unique id goes) and the
    measured values it shows, in order, as the sign-off fingerprint records them."""

    html: str
    values: tuple[str, ...]
    node: str = ""  # the node an inline figure was read from (a table may show several)


# How a problem sentence states each non-fresh verdict of the results module.
STATE_PHRASE: dict[State, str] = {
    "fresh": "is fresh",
    "incomplete": "is incomplete",
    "stale": "is stale",
    "failed": "failed",
    "tampered": "was tampered with",
    "unregistered": "comes from an unregistered node",
    "missing": "is missing",
    "pending": "has not been run yet (pending)",
    "invalid": "is invalid",
    "orphaned": "is orphaned",
}


def run_command(experiment: str, node: str) -> str:
    return f"`gloss measure run {experiment} --node {node}`"


def hint(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"did you mean '{close[0]}'? " if close else ""


def resolve(view: ResultsView, experiment: str, node: str | None, size: str | None) -> tuple[Result, Table] | Failure:
    """The fresh result and the table at one size that an embed or reference names, or why not."""
    key = ("resolve", experiment, node, size)
    hit = view.cache.get(key)
    if hit is None:
        hit = _resolve(view, experiment, node, size)
        view.cache[key] = hit
    return hit  # type: ignore[return-value]


def _resolve(view: ResultsView, experiment: str, node: str | None, size: str | None) -> tuple[Result, Table] | Failure:
    result = find_result(view, experiment, node)
    if isinstance(result, Failure):
        return result
    sizes = [t.size for t in result.tables]
    if size is None:
        if len(sizes) != 1:
            return Failure(
                f"experiment '{experiment}' has several sizes: {', '.join(sizes)}",
                f"choose one with size={sizes[-1] if sizes else 'SIZE'}",
            )
        return result, result.tables[0]
    table = result.table(size)
    if table is None:
        return Failure(
            f"experiment '{experiment}' has no size '{size}'",
            f"{hint(size, sizes)}sizes measured: {', '.join(sizes)}",
        )
    return result, table


def find_result(view: ResultsView, experiment: str, node: str | None) -> Result | Failure:
    """The one fresh result an embed or reference names (on ``node``, or the only one), or why not."""
    results = view.for_experiment(experiment)
    if not results and experiment not in view.experiments:
        known = sorted({*view.experiments, *(r.experiment for r in view.results)})
        listing = f"declared experiments: {', '.join(known)}" if known else "no experiment is declared yet"
        return Failure(
            f"unknown experiment '{experiment}'",
            f"{hint(experiment, known)}{listing} (specs live next to the code under code/)",
        )
    if node is not None:
        on_node = [r for r in results if r.node == node]
        if not on_node and node not in view.nodes:
            registered = ", ".join(view.nodes) or "none yet"
            return Failure(
                f"node '{node}' is not a registered verification node",
                f"{hint(node, view.nodes)}registered nodes: {registered} (measure/nodes.yaml)",
            )
        if not on_node:
            return Failure(
                f"experiment '{experiment}' has no result on node '{node}'",
                f"run {run_command(experiment, node)} on that node and commit measure/results/{node}/{experiment}.json",
            )
        results = on_node
    present = [r for r in results if r.state not in NOT_MEASURED]
    if not present:
        target = results[0].node if len(results) == 1 else (view.nodes[0] if len(view.nodes) == 1 else "NAME")
        return Failure(
            f"experiment '{experiment}' has no result" + (f" on node '{target}'" if target != "NAME" else ""),
            f"run {run_command(experiment, target)} on the verification node and commit "
            f"measure/results/{target}/{experiment}.json",
        )
    fresh = [r for r in present if r.state == "fresh"]
    if len(present) > 1 and len(fresh) == 1:
        # The one showable result wins; its node is named in the provenance sentence and the shown values.
        present = fresh
    elif len(present) > 1 and not fresh:
        # None can be shown: say why for the first (each result's own problem is reported on its own too).
        present = sorted(present, key=lambda r: r.node)[:1]
    if len(present) > 1:
        listed = sorted(present, key=lambda r: r.node)
        return Failure(
            f"experiment '{experiment}' has results on several nodes: "
            + ", ".join(f"{r.node} ({r.state})" for r in listed),
            f"choose one with node={listed[0].node}, or name the node the page's figures come from with "
            f"'node: {listed[0].node}' in its front matter (or the gloss plugin's default_node in mkdocs.yml)",
        )
    result = present[0]
    if result.state != "fresh":
        detail = f": {result.problem}" if result.problem else ""
        return Failure(
            f"result of experiment '{experiment}' on node '{result.node}' {STATE_PHRASE[result.state]}{detail}",
            result.remedy or f"re-run {run_command(experiment, result.node)} and commit the result",
        )
    return result


def showable_nodes(view: ResultsView, experiment: str) -> list[str]:
    """The nodes on which ``experiment`` has a fresh result: what a table embed without ``node=`` shows.
    (A result in any other state is reported on its own and shown nowhere.)"""
    return sorted({r.node for r in view.for_experiment(experiment) if r.state == "fresh"})


def select_rows(result: Result, table: Table, kernels: Sequence[str] | None) -> list[Row] | Failure:
    if kernels is None:
        rows = list(table.rows)
    else:
        rows = []
        for k in kernels:
            row = table.row(k)
            if row is None:
                return _no_kernel(result.experiment, k, table)
            rows.append(row)
    for row in rows:
        if row.failed is not None:
            return Failure(
                f"kernel '{row.kernel}' of experiment '{result.experiment}' failed its correctness check: {row.failed}",
                f"fix the kernel{' in ' + result.source if result.source else ''}, then re-run "
                f"{run_command(result.experiment, result.node)}",
            )
    return rows


def _no_kernel(experiment: str, kernel: str, table: Table) -> Failure:
    def named(rows: Sequence[Row]) -> str:
        return ", ".join(f"{r.kernel} ({r.id})" if r.id and r.id != r.kernel else r.kernel for r in rows)

    names = [n for r in (*table.rows, *table.ceilings) for n in (r.kernel, r.id) if n]
    ceilings = f"; ceilings: {named(table.ceilings)}" if table.ceilings else ""
    return Failure(
        f"experiment '{experiment}' has no kernel '{kernel}'",
        f"{hint(kernel, names)}kernels: {named(table.rows)}{ceilings}",
    )
