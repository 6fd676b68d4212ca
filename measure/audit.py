"""Every spec, result and node file checked, whether or not a page embeds it.

:mod:`measure.results` judges each result file (missing, invalid, orphaned, unregistered, tampered,
failed, stale). This module asks it for that judgement and adds the cross-check between files that no
single result can make: a result measured on a GPU other than the one its node is registered with. It
reads no result file itself. (A raw time that is zero, negative or not finite is already "tampered":
its samples do not summarize.)

Used by the site build (through :mod:`site_plugins.measured.load`) so that ``make site`` and
``gloss check`` fail on any of them.
"""

from __future__ import annotations

from measure import results as rs
from measure.nodes import NODES_PATH, Node
from site_plugins.messages import Problem


def problems(result_set: rs.ResultSet, nodes: dict[str, Node]) -> list[Problem]:
    """Every problem of every spec, result and the node registry, sorted and without repeats."""
    out = list(result_set.problems())
    unregistered = [p for p in out if p.path == NODES_PATH and p.problem == "the node registry is missing"]
    if not result_set.entries and out == unregistered:
        # Nothing declared, nothing measured, no broken spec: a project without measurements needs no registry.
        out = []
    for entry in result_set.entries:
        result = entry.result
        if result is None:
            continue
        remedy = rs.rerun(entry.experiment, entry.node)
        node = nodes.get(entry.node)
        if node is not None and node.gpu != result.provenance.gpu_name:
            out.append(Problem(entry.path, 1, f"measured on '{result.provenance.gpu_name}', but node '{entry.node}' "
                                              f"is registered in {NODES_PATH} as '{node.gpu}'",
                               f"correct the registry, or {remedy} on the registered GPU"))
    return sorted(set(out))
