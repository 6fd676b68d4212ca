"""Every spec, result and node file checked, whether or not a page embeds it.

:mod:`measure.store.results` judges each result file (missing, invalid, orphaned, unregistered, tampered,
failed, stale). This module asks it for that judgement and adds the checks that no single result file
can make alone:

- a result measured on a GPU other than the one its node is registered with;
- provenance: the commit a result records must hold the bytes it measured (each recorded file's sha256
  at that commit, read from git history by :mod:`measure.store.history` in one git process). A result that
  claims no commit (``unknown``, or recorded as dirty) is not checked. Where git cannot answer, or the
  commit is not in this clone's history (a shallow clone), the check is skipped: not a problem, but
  :attr:`Audit.note` says how many results went unchecked and why.

It reads no result file itself. (A raw time that is zero, negative or not finite is already
"tampered": its samples do not summarize.)

Used by the site build (through :mod:`site_plugins.measured.load`) so that ``make site`` and
``gloss check`` fail on any of them, and by ``gloss measure verify``, which also prints the note.
"""

from __future__ import annotations

from dataclasses import dataclass

from measure.experiment.nodes import NODES_PATH, Node
from measure.store import history
from measure.store import results as rs
from measure.store.judge import claimed_commit, provenance_problems, recorded_files
from site_plugins.files.messages import Problem

SHOWN_COMMITS = 3  # commits the note names; more are counted


@dataclass(frozen=True)
class Audit:
    problems: list[Problem]  # sorted, without repeats
    note: str = ""  # "" or one line: results whose commit could not be checked against git, and why


def problems(result_set: rs.ResultSet, nodes: dict[str, Node]) -> list[Problem]:
    """Every problem of every spec, result and the node registry, sorted and without repeats."""
    return audit(result_set, nodes).problems


def audit(result_set: rs.ResultSet, nodes: dict[str, Node]) -> Audit:
    """:func:`problems`, plus the note on provenance that could not be checked."""
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
    found, note = _provenance(result_set)
    return Audit(sorted(set(out + found)), note)


def _provenance(result_set: rs.ResultSet) -> tuple[list[Problem], str]:
    """Provenance problems of every result that claims a commit, and the note on those not checked."""
    claims = [
        (entry, entry.result, commit)
        for entry in result_set.entries
        if entry.result is not None and (commit := claimed_commit(entry.result.provenance)) is not None
    ]
    not_ids = [c for _, _, c in claims if not history.COMMIT_ID.fullmatch(c)]
    checkable = [(e, r, c) for e, r, c in claims if history.COMMIT_ID.fullmatch(c)]
    wanted = [(c, path) for _, r, c in checkable for path, _ in recorded_files(r.provenance)]
    found = history.lookup(result_set.root, wanted)
    problems: list[Problem] = []
    absent: list[str] = []
    for entry, result, commit in [] if found.unavailable else checkable:
        if commit not in found.commits:
            absent.append(commit)
            continue
        held = {path: found.files.get((commit, path)) for path, _ in recorded_files(result.provenance)}
        problems += provenance_problems(result, entry.path, held)
    reasons = [found.unavailable] if found.unavailable and checkable else []
    if absent:
        n = len(absent)
        what = "1 names a commit that is" if n == 1 else f"{n} name commits that are"
        reasons.append(
            f"{what} not in this repository's history ({_names([c[:12] for c in absent])}; "
            "a shallow clone? `git fetch --unshallow` lets verify check them)"
        )
    if not_ids:
        n = len(not_ids)
        what = "the commit recorded by 1 is not" if n == 1 else f"the commits recorded by {n} are not"
        what += " a commit id" if n == 1 else " commit ids"
        reasons.append(f"{what} ({_names([repr(c) for c in not_ids])})")
    unchecked = (len(checkable) if found.unavailable else len(absent)) + len(not_ids)
    if not unchecked:
        return problems, ""
    results = "result" if unchecked == 1 else "results"
    note = f"note: the provenance of {unchecked} {results} was not checked against git history: {'; '.join(reasons)}"
    return problems, note


def _names(values: list[str]) -> str:
    unique = sorted(set(values))
    shown = ", ".join(unique[:SHOWN_COMMITS])
    more = len(unique) - SHOWN_COMMITS
    return shown + (f" and {more} more" if more > 0 else "")
