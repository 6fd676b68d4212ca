"""Result files, ``measure/results/<node>/<experiment>.json``: the ONLY module others ask about them.

Everyone else (the pages, ``gloss measure verify`` and ``list``, bench scripts, the runner) imports this
façade; behind it, one concern per module: :mod:`measure.store.resultformat` declares the file format (the
dataclasses, schema version :data:`SCHEMA_VERSION`), writes files atomically and parses them (the only
code that opens a result file), :mod:`measure.store.recompute` derives summaries and figures from raw samples,
:mod:`measure.store.judge` holds the checks behind each state, and :mod:`measure.store.resultview` the judged view
(:class:`Entry`, :class:`RowView`). This module judges every (experiment, node) pair:

========== ================================================================================
state      meaning (checked in this order; the first that applies wins)
========== ================================================================================
missing    a declared experiment has no result file for a registered node
invalid    the file is not valid JSON or does not match the declared format
orphaned   the file is for an experiment that no spec under ``code/`` declares any more
unregistered the file comes from a node that ``measure/nodes.yaml`` does not list
tampered   a summary or a figure does not recompute exactly from the raw samples beside it, or
           (version 2) anything in the file differs from its ``digest``: counters included; or one
           list holds two rows for the same kernel (id or label) at the same size, or two builds
           of one function
failed     a kernel did not match its reference (that row was never timed) or the run broke
stale      the ``.cu`` source or the spec changed since the run (sha256 differs)
incomplete counters were asked for (a version-2 run without ``--no-counters``) and a kernel row lacks
           one of its architecture's default metrics or its spec's extras, or the counter pass failed
fresh      none of the above: the only state whose numbers may be published
========== ================================================================================

Every state but ``fresh`` comes with :class:`~site_plugins.files.messages.Problem` values whose remedy names
the command to run, e.g. ``re-run `gloss measure run day13-transpose --node h200-1```.

Public API (stable; new things are added, nothing is renamed):

- :func:`load_all(root, results_dir="measure/results") <load_all>` -> :class:`ResultSet`: every result
  and every missing one, judged (``results_dir`` reads another folder, e.g. the repeat run in
  ``measure/repeat``).
- :class:`ResultSet`: ``entries`` (list of :class:`Entry`), ``get(experiment, node=None)``,
  ``for_experiment(id)``, ``problems()`` (all non-fresh entries' problems), ``experiments``.
- :class:`Entry`: ``experiment``, ``node``, ``state``, ``path`` (repo-relative result file),
  ``problems``, ``fresh``, ``result`` (the parsed :class:`Result` or None), ``provenance``,
  ``rows()`` (-> :class:`RowView`, checked rows only, ceiling rows excluded), ``ceiling_rows()``,
  ``row(kernel, size)``, ``sizes()``, ``kernels()``, ``failed_rows()``, ``copy_ceiling_gbps``,
  ``memcpy_gbps``, ``provenance_sentence()``.
- :class:`RowView`: per-row figures: ``kernel`` (id), ``label`` (e.g. ``tile[32][33]``), ``size``
  (e.g. ``8192x8192``), ``median_ms``/``q1_ms``/``q3_ms``/``iqr_ms`` (and ``*_us`` properties),
  ``gbps`` (decimal, from declared bytes), ``gflops`` (None unless FLOPs declared), ``shared_gbps``
  (None unless shared-memory bytes declared), ``pct_of_peak`` (of 2 x memory clock x bus width / 8),
  ``pct_of_copy_ceiling`` (of the best copy measured in the same run: the fastest row of the
  ceilings experiment, driver memcpy or copy kernel, at any of its sizes), ``fits_in_l2`` and
  ``above_95pct_of_peak`` (both make ``suspect`` true), ``noisy`` (stopping rule not met within
  the time limit), ``n_samples``, ``rel_iqr``.
- :func:`load_at(root, commit)` -> :class:`ResultSet` or None: the same, as a git commit held the results,
  specs, sources and node registry (the values a signature made then covered); None when git cannot say.
- :func:`read_result(path, rel)`: parse one file; :func:`write_result(path, result)`: atomic write;
  :func:`recompute_row(row, provenance, ceilings)`: the summary and figures a row must carry.

Example::

    from pathlib import Path
    from measure.store import results

    rs = results.load_all(Path("."))
    entry = rs.get("day13-transpose", "h200-1")
    if not entry.fresh:
        for p in entry.problems:
            print(p)  # measure/results/h200-1/day13-transpose.json:1: stale: ...; re-run `gloss ...`
    else:
        padded = entry.row("tile32-padded", "8192x8192")
        print(f"{padded.label}: {padded.median_us:.1f} us, {padded.gbps:.0f} GB/s, "
              f"{padded.pct_of_copy_ceiling:.0f} % of copy")
        print(entry.provenance_sentence())

For the ceilings experiment itself (``copy-ceilings``), ``rows()`` and ``ceiling_rows()`` list the same
rows (the latter with ``is_ceiling`` set).

Format notes (schema version 3; versions 1 and 2 stay readable): times are milliseconds (CUDA events),
bandwidths decimal GB/s (1e9 bytes/s) counting bytes read plus bytes written as declared in the spec
(a ``transfer`` row counts bytes read only: the bytes crossing the link once; see :func:`bytes_moved`),
``launch`` rows add ``launches`` and ``figures.us_per_launch``, every row names its ``experiment``
(ceiling rows of several ceilings experiments share one list), ``provenance.libraries`` names the
cuBLAS file and version a result used, clocks MHz, sizes bytes. Every raw sample is
kept (``samples.times_ms`` with the SM clock read for it in ``samples.sm_clock_mhz``, -1 when NVML
was unavailable); a sample whose clock is under ``settings.min_sm_clock_mhz`` counts as throttled and
is left out of the summary. Floats are written with Python's shortest round-tripping repr, so
``verify`` recomputes summaries bit for bit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from measure.experiment.nodes import LOCAL_DIR, LOCAL_PREFIX, NODES_PATH, load_nodes
from measure.experiment.spec import Declared, load_specs, peek_ids
from measure.nsight import counters
from measure.store.judge import STATES, State, failure_problems, incomplete_problems, stale_problems, tamper_problems
from measure.store.recompute import (
    bytes_moved,
    copy_ceiling_gbps,
    figures_for,
    fp32_ceiling_gflops,
    recompute_ceilings,
    recompute_row,
)
from measure.store.resultformat import (
    READABLE_VERSIONS,
    RESULTS_DIR,
    SCHEMA_VERSION,
    Check,
    CounterPass,
    Figures,
    KernelBuild,
    Launch,
    Provenance,
    Result,
    Row,
    Samples,
    Settings,
    digest_of,
    dumps,
    read_result,
    rerun,
    result_path,
    with_digest,
    write_result,
)
from measure.store.resultview import Entry, RowView
from site_plugins.files.messages import Problem

__all__ = [
    "LOCAL_DIR",
    "READABLE_VERSIONS",
    "RESULTS_DIR",
    "SCHEMA_VERSION",
    "STATES",
    "Check",
    "CounterPass",
    "Entry",
    "Figures",
    "KernelBuild",
    "Launch",
    "Provenance",
    "Result",
    "ResultSet",
    "Row",
    "RowView",
    "Samples",
    "Settings",
    "State",
    "bytes_moved",
    "copy_ceiling_gbps",
    "digest_of",
    "dumps",
    "failure_problems",
    "figures_for",
    "fp32_ceiling_gflops",
    "incomplete_problems",
    "judge",
    "load_all",
    "read_result",
    "recompute_ceilings",
    "recompute_row",
    "rerun",
    "result_path",
    "stale_problems",
    "tamper_problems",
    "with_digest",
    "write_result",
]


@dataclass
class ResultSet:
    root: Path
    entries: list[Entry]
    nodes: list[str]  # registered node names
    declared: dict[str, Declared]
    setup_problems: list[Problem]  # malformed specs or node registry

    @property
    def experiments(self) -> list[str]:
        return sorted({e.experiment for e in self.entries})

    def get(self, experiment: str, node: str | None = None) -> Entry:
        """The entry for ``experiment`` on ``node``; with no node, the freshest one (fresh first, then
        by capture time). An experiment nobody declared and nobody measured comes back 'missing'."""
        matches = [e for e in self.entries if e.experiment == experiment and (node is None or e.node == node)]
        if not matches:
            where = node or (self.nodes[0] if self.nodes else "NAME")
            rel = f"{RESULTS_DIR}/{where}/{experiment}.json"
            return Entry(
                experiment,
                where,
                "missing",
                rel,
                (
                    Problem(
                        rel,
                        0,
                        f"missing: no experiment '{experiment}' is declared or measured",
                        "declare it in code/<lesson>/experiment.yaml,"
                        f" then run `gloss measure run {experiment} --node {where}`",
                    ),
                ),
            )

        newest_first = sorted(matches, key=lambda e: e.result.provenance.finished_utc if e.result else "", reverse=True)
        return sorted(newest_first, key=lambda e: not e.fresh)[0]  # stable: fresh first, then newest

    def for_experiment(self, experiment: str) -> list[Entry]:
        return [e for e in self.entries if e.experiment == experiment]

    def problems(self) -> list[Problem]:
        """Every problem of every entry, except the note a 'pending' entry carries (not yet run is not
        an error; embedding it is, and pages say so)."""
        out = list(self.setup_problems)
        for e in self.entries:
            if e.state != "pending":
                out += e.problems
        return out

    @property
    def pending(self) -> list[Entry]:
        return [e for e in self.entries if e.state == "pending"]


def judge(
    root: Path,
    rel: str,
    experiment: str,
    node: str,
    declared: Declared | None,
    registered: Iterable[str],
    broken_spec: str | None = None,
) -> Entry:
    """The state of one result file (see the table in the module docstring)."""
    registered = list(registered)
    result, problems = read_result(root / rel, rel, experiment, node)
    if result is None:
        return Entry(experiment, node, "invalid", rel, tuple(problems), None, declared)
    if declared is None and broken_spec is not None:
        problem = f"stale: {broken_spec} does not load, so this result cannot be checked against it"
        remedy = f"fix the spec (its problems are listed separately), then {rerun(experiment, node)}"
        return Entry(experiment, node, "stale", rel, (Problem(rel, 1, problem, remedy),), result, None)
    if declared is None:
        return Entry(
            experiment,
            node,
            "orphaned",
            rel,
            (
                Problem(
                    rel,
                    1,
                    f"orphaned: no spec under code/ declares experiment '{experiment}' any more",
                    f"delete {rel}, or restore the experiment's spec",
                ),
            ),
            result,
            None,
        )
    if node not in registered or node.startswith(LOCAL_PREFIX):
        hint = f" on a registered node ({', '.join(registered)})" if registered else ""
        why = Problem(
            rel,
            1,
            f"unregistered: node '{node}' is not in {NODES_PATH}",
            f"register it there, or re-run `gloss measure run {experiment} --node NAME`{hint}",
        )
        if node.startswith(LOCAL_PREFIX):  # a reader's own GPU (gloss measure mine): never ours to publish
            why = Problem(
                rel,
                1,
                f"unregistered: node '{node}' is a reader's own GPU (`gloss measure mine`), never published",
                f"keep it out of {RESULTS_DIR}; "
                f"`gloss measure run {experiment} --node NAME`{hint} measures for the site",
            )
        return Entry(experiment, node, "unregistered", rel, (why,), result, declared)
    tampered = tamper_problems(result, rel)
    if tampered:
        return Entry(experiment, node, "tampered", rel, tuple(tampered), result, declared)
    failed = failure_problems(result, rel, declared)
    if failed:
        return Entry(experiment, node, "failed", rel, tuple(failed), result, declared)
    stale = stale_problems(result, rel, declared, root)
    if stale:
        return Entry(experiment, node, "stale", rel, tuple(stale), result, declared)
    incomplete = incomplete_problems(result, rel, counters.extras_of(declared.experiment.kernels))
    if incomplete:
        return Entry(experiment, node, "incomplete", rel, tuple(incomplete), result, declared)
    return Entry(experiment, node, "fresh", rel, (), result, declared)


def _pending(exp_id: str, node: str, d: Declared, results_dir: str) -> Entry:
    """A declared experiment marked ``pending: true`` that no node has run yet: not a problem for
    ``verify`` (:meth:`ResultSet.problems` leaves it out), but never fresh, so pages cannot embed it."""
    why = Problem(
        d.spec_path,
        d.id_line,
        f"pending: experiment '{exp_id}' has not been run on node '{node}' yet",
        f"run `gloss measure run {exp_id} --node {node}` on that node, commit the result and remove 'pending: true'",
    )
    return Entry(exp_id, node, "pending", f"{results_dir}/{node}/{exp_id}.json", (why,), None, d)


def load_all(root: Path, results_dir: str = RESULTS_DIR) -> ResultSet:
    """Every result file under ``measure/results/`` (or ``results_dir``, e.g. a repeat run kept for
    comparison) judged, plus a 'missing' entry for each declared experiment that a registered node has
    no result for."""
    declared, spec_problems = load_specs(root)
    nodes, node_problems = load_nodes(root)
    entries: list[Entry] = []
    seen: set[tuple[str, str]] = set()
    loose = peek_ids(root)
    base = root / results_dir
    for file in sorted(base.glob("*/*.json")) if base.is_dir() else []:
        node, experiment = file.parent.name, file.stem
        # A folder outside the project (a node's results fetched elsewhere, to check before copying them
        # in) is named as given; inside it, paths are repo-relative as in every message.
        rel = file.relative_to(root).as_posix() if file.is_relative_to(root) else file.as_posix()
        broken = loose.get(experiment) if experiment not in declared else None
        entries.append(judge(root, rel, experiment, node, declared.get(experiment), nodes, broken))
        seen.add((experiment, node))
    for i, e in enumerate(entries):
        d = declared.get(e.experiment)
        if d is not None and d.experiment.pending:
            leftover = Problem(
                d.spec_path,
                d.id_line,
                f"experiment '{e.experiment}' has a result on node '{e.node}' but its spec still says 'pending: true'",
                f"remove 'pending: true' from {d.spec_path}",
            )
            entries[i] = replace(e, problems=(*e.problems, leftover))
    for exp_id, d in sorted(declared.items()):
        for node in nodes:
            if (exp_id, node) not in seen and d.experiment.pending:
                entries.append(_pending(exp_id, node, d, results_dir))
            elif (exp_id, node) not in seen:
                rel = f"{results_dir}/{node}/{exp_id}.json"
                entries.append(
                    Entry(
                        exp_id,
                        node,
                        "missing",
                        rel,
                        (
                            Problem(
                                d.spec_path,
                                d.id_line,
                                f"missing: experiment '{exp_id}' has no result on node '{node}'",
                                f"run `gloss measure run {exp_id} --node {node}` on that node",
                            ),
                        ),
                        None,
                        d,
                    )
                )
    entries.sort(key=lambda e: (e.experiment, e.node))
    return ResultSet(root, entries, sorted(nodes), declared, spec_problems + node_problems)


def load_at(root: Path, commit: str, results_dir: str = RESULTS_DIR) -> ResultSet | None:
    """:func:`load_all` as ``commit`` held everything it reads (:mod:`measure.store.snapshot`); None when git
    cannot give that commit. Paths in problems are repo-relative as in :func:`load_all`."""
    from measure.store import snapshot

    with snapshot.checkout(root, commit) as tmp:
        if tmp is None:
            return None
        found = load_all(tmp, results_dir)
    return replace(found, root=root)


def version_at(root: Path, commit: str) -> str | None:
    """Which versions of what results are judged by a commit holds (equal for two commits: the same
    results, judged the same way); None when git cannot say."""
    from measure.store import snapshot

    return snapshot.key(root, commit)


def unchanged_since(root: Path, commit: str = "HEAD") -> bool:
    """Whether the working copy holds what results are judged by exactly as ``commit`` does."""
    from measure.store import snapshot

    return snapshot.clean(root, commit)
