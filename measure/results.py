"""Result files, ``measure/results/<node>/<experiment>.json``: the ONLY module that reads (or writes) them.

Everyone else (the pages, ``gloss measure verify`` and ``list``, bench scripts) asks this module. It
declares the file format once (the dataclasses below, schema version :data:`SCHEMA_VERSION`), writes
files atomically, and judges every (experiment, node) pair:

========== ================================================================================
state      meaning (checked in this order; the first that applies wins)
========== ================================================================================
missing    a declared experiment has no result file for a registered node
invalid    the file is not valid JSON or does not match the declared format
orphaned   the file is for an experiment that no spec under ``code/`` declares any more
unregistered the file comes from a node that ``measure/nodes.yaml`` does not list
tampered   a summary or a figure does not recompute exactly from the raw samples beside it
failed     a kernel did not match its reference (that row was never timed) or the run broke
stale      the ``.cu`` source or the spec changed since the run (sha256 differs)
fresh      none of the above: the only state whose numbers may be published
========== ================================================================================

Every state but ``fresh`` comes with :class:`~site_plugins.messages.Problem` values whose remedy names
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
- :func:`read_result(path, rel)`: parse one file; :func:`write_result(path, result)`: atomic write;
  :func:`recompute_row(row, provenance, ceilings)`: the summary and figures a row must carry.

Example::

    from pathlib import Path
    from measure import results

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

Format notes: times are milliseconds (CUDA events), bandwidths decimal GB/s (1e9 bytes/s) counting
bytes read plus bytes written as declared in the spec, clocks MHz, sizes bytes. Every raw sample is
kept (``samples.times_ms`` with the SM clock read for it in ``samples.sm_clock_mhz``, -1 when NVML
was unavailable); a sample whose clock is under ``settings.min_sm_clock_mhz`` counts as throttled and
is left out of the summary. Floats are written with Python's shortest round-tripping repr, so
``verify`` recomputes summaries bit for bit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from measure import stats
from measure.nodes import NODES_PATH, load_nodes
from measure.spec import Declared, load_specs, peek_ids, sha256_file
from measure.stats import Rule, Summary
from measure.typed import from_json
from site_plugins import atomic
from site_plugins.messages import Problem

SCHEMA_VERSION = 1
RESULTS_DIR = "measure/results"

State = Literal["fresh", "stale", "failed", "tampered", "unregistered", "missing", "invalid", "orphaned"]
STATES: tuple[State, ...] = (
    "fresh",
    "stale",
    "failed",
    "tampered",
    "unregistered",
    "missing",
    "invalid",
    "orphaned",
)


# --- the file format ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Provenance:
    """Where, when, with what and from which code a result was measured."""

    node: str
    gpu_name: str
    gpu_uuid: str
    pci_bus_id: str
    compute_capability: str
    sm_count: int
    l2_bytes: int
    memory_clock_mhz: int
    bus_width_bits: int
    theoretical_peak_gbps: float
    max_sm_clock_mhz: int  # NVML's maximum SM clock; -1 without NVML
    nvml: str  # "available" or why not
    driver_release: str  # NVIDIA driver, e.g. "580.159.04" (NVML), "unknown" without it
    cuda_driver_version: str  # e.g. "13.0" (cuDriverGetVersion)
    nvcc_version: str
    nvcc_flags: list[str]
    pycuda_version: str
    numpy_version: str
    python_version: str
    hostname: str
    git_commit: str  # "unknown" where the caller gave none
    git_dirty: bool | None  # None: unknown
    source_path: str
    source_sha256: str
    spec_path: str
    spec_sha256: str
    run_id: str
    run_started_utc: str
    started_utc: str
    finished_utc: str


@dataclass(frozen=True)
class Settings:
    """The runner's settings for this result; summaries are recomputed with these."""

    min_samples: int
    min_gpu_time_s: float
    max_rel_stdev: float
    row_time_limit_s: float
    warmup_launches: int
    batch_size: int
    l2_flush_bytes: int
    throttle_fraction: float
    min_sm_clock_mhz: int  # throttle_fraction x max SM clock; 0 = not checked (no NVML)
    seed: int

    def rule(self) -> Rule:
        return Rule(self.min_samples, self.min_gpu_time_s, self.max_rel_stdev)


@dataclass(frozen=True)
class KernelBuild:
    """What the compiler made of one function (from the loaded module's attributes)."""

    function: str
    registers: int
    static_shared_bytes: int
    local_bytes: int
    max_threads_per_block: int


@dataclass(frozen=True)
class Launch:
    grid: list[int]
    block: list[int]


@dataclass(frozen=True)
class Check:
    """The correctness check before any timing: fresh random input, poisoned output."""

    passed: bool
    tolerance: float
    rel_error: float | None  # ||out - ref|| / ||ref|| over the written elements; None if not computable
    max_abs_error: float | None
    unwritten: int  # elements still holding the poison after the launch
    message: str  # why it failed, "" when it passed


@dataclass(frozen=True)
class Samples:
    times_ms: list[float]
    sm_clock_mhz: list[int]


@dataclass(frozen=True)
class Figures:
    """Derived from the summary, the declared work and the provenance; ``verify`` recomputes them."""

    gbps: float
    gflops: float | None
    shared_gbps: float | None
    pct_of_peak: float
    pct_of_copy_ceiling: float
    fits_in_l2: bool
    above_95pct_of_peak: bool


@dataclass(frozen=True)
class Row:
    kernel: str
    label: str
    kind: Literal["kernel", "memcpy"]
    function: str
    size: str
    dims: dict[str, int]
    launch: Launch | None
    bytes_read: int
    bytes_written: int
    flops: int | None
    shared_bytes: int | None
    working_set_bytes: int
    check: Check
    samples: Samples | None = None  # None when the check failed: such a row is never timed
    summary: Summary | None = None
    figures: Figures | None = None


@dataclass(frozen=True)
class Result:
    schema_version: int
    experiment: str
    title: str
    node: str
    status: Literal["ok", "failed"]
    error: str  # "" or what broke the run of this experiment
    provenance: Provenance
    settings: Settings
    builds: list[KernelBuild]
    ceilings: list[Row]  # the node's copy ceilings, measured in the same run (raw samples included)
    rows: list[Row]


# --- derived figures ---------------------------------------------------------------------------------


def copy_ceiling_gbps(ceilings: Iterable[Row]) -> float:
    """The best copy bandwidth (driver memcpy or copy kernel) measured in the run; nan if none."""
    values = [r.figures.gbps for r in ceilings if r.figures is not None]
    return max(values) if values else math.nan


def _summary(row: Row, settings: Settings) -> Summary | None:
    if row.samples is None or not row.samples.times_ms:
        return None
    return stats.summarize(row.samples.times_ms, row.samples.sm_clock_mhz, settings.min_sm_clock_mhz, settings.rule())


def figures_for(row: Row, summary: Summary, provenance: Provenance, ceiling_gbps: float) -> Figures:
    moved = row.bytes_read + row.bytes_written
    bw = stats.gbps(moved, summary.median_ms)
    return Figures(
        gbps=bw,
        gflops=stats.gflops(row.flops, summary.median_ms) if row.flops is not None else None,
        shared_gbps=stats.gbps(row.shared_bytes, summary.median_ms) if row.shared_bytes is not None else None,
        pct_of_peak=stats.percent(bw, provenance.theoretical_peak_gbps),
        pct_of_copy_ceiling=stats.percent(bw, ceiling_gbps),
        fits_in_l2=stats.fits_in_l2(row.working_set_bytes, provenance.l2_bytes),
        above_95pct_of_peak=stats.above_peak_fraction(bw, provenance.theoretical_peak_gbps),
    )


def recompute_row(row: Row, provenance: Provenance, settings: Settings, ceiling_gbps: float) -> Row:
    """The row with its summary and figures computed from its raw samples (what it must carry)."""
    summary = _summary(row, settings)
    if summary is None:
        return replace(row, summary=None, figures=None)
    return replace(row, summary=summary, figures=figures_for(row, summary, provenance, ceiling_gbps))


def recompute_ceilings(rows: list[Row], provenance: Provenance, settings: Settings) -> list[Row]:
    """Ceiling rows' summaries, then their figures against their own best (copy-ceiling % of itself)."""
    summarized = [recompute_row(r, provenance, settings, math.nan) for r in rows]
    best = copy_ceiling_gbps(summarized)
    return [recompute_row(r, provenance, settings, best) for r in summarized]


# --- writing -----------------------------------------------------------------------------------------


def result_path(root: Path, node: str, experiment: str) -> Path:
    return root / RESULTS_DIR / node / f"{experiment}.json"


def dumps(result: Result) -> str:
    """Stable, diff-friendly JSON: indented, but each list of numbers on one line."""
    return _dump(asdict(result), 0) + "\n"


def _dump(value: Any, indent: int) -> str:
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}{json.dumps(k)}: {_dump(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list):
        if all(not isinstance(v, dict | list) for v in value):
            return "[" + ", ".join(json.dumps(v) for v in value) + "]"
        return "[\n" + ",\n".join(pad + _dump(v, indent + 1) for v in value) + "\n" + "  " * indent + "]"
    return json.dumps(value)


def write_result(path: Path, result: Result) -> None:
    """Write atomically: a temporary file in the same folder, flushed, then renamed over ``path``."""
    atomic.write_text(path, dumps(result))


# --- reading -----------------------------------------------------------------------------------------


def rerun(experiment: str, node: str) -> str:
    return f"re-run `gloss measure run {experiment} --node {node}`"


def read_result(path: Path, rel: str, experiment: str, node: str) -> tuple[Result | None, list[Problem]]:
    """Parse one result file against the declared format."""
    remedy = rerun(experiment, node)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return None, [Problem(rel, 1, f"invalid: not readable JSON ({exc})", remedy)]
    if isinstance(data, dict) and data.get("schema_version") != SCHEMA_VERSION:
        got = data.get("schema_version")
        return None, [Problem(rel, 1, f"invalid: schema version {got!r}, this runner reads {SCHEMA_VERSION}", remedy)]
    result, problems = from_json(Result, data, rel, remedy)
    if result is None:
        return None, [Problem(p.path, 1, f"invalid: {p.problem}", p.remedy) for p in problems]
    wrong = [
        (what, got)
        for what, got, want in (
            ("experiment", result.experiment, experiment),
            ("node", result.node, node),
            ("provenance.node", result.provenance.node, node),
        )
        if got != want
    ]
    if wrong:
        what, got = wrong[0]
        return None, [
            Problem(
                rel,
                1,
                f"invalid: '{what}' is '{got}' but the file is named for '{experiment}' on '{node}'",
                remedy,
            )
        ]
    return result, []


def tamper_problems(result: Result, rel: str) -> list[Problem]:
    """Every summary and figure must equal what its raw samples give, exactly."""
    remedy = rerun(result.experiment, result.node) + "; result files are written only by the runner"
    problems: list[Problem] = []
    for row in [*result.ceilings, *result.rows]:
        if row.samples is not None and len(row.samples.times_ms) != len(row.samples.sm_clock_mhz):
            problems.append(
                Problem(
                    rel,
                    1,
                    f"tampered: row '{row.kernel}' at {row.size} has "
                    f"{len(row.samples.times_ms)} samples but {len(row.samples.sm_clock_mhz)} clock "
                    "readings",
                    remedy,
                )
            )
    if problems:
        return problems
    try:
        ceilings = recompute_ceilings(list(result.ceilings), result.provenance, result.settings)
    except ValueError as exc:
        return [Problem(rel, 1, f"tampered: the ceiling samples do not summarize ({exc})", remedy)]
    best = copy_ceiling_gbps(ceilings)
    pairs = [(r, c) for r, c in zip(result.ceilings, ceilings, strict=True)]
    try:
        pairs += [(r, recompute_row(r, result.provenance, result.settings, best)) for r in result.rows]
    except ValueError as exc:
        return [Problem(rel, 1, f"tampered: samples do not summarize ({exc})", remedy)]
    for stored, fresh in pairs:
        where = f"row '{stored.kernel}' at {stored.size}"
        if stored.summary != fresh.summary:
            problems.append(
                Problem(
                    rel,
                    1,
                    f"tampered: {where}: the summary does not recompute from its raw "
                    f"samples ({_first_difference(stored.summary, fresh.summary)})",
                    remedy,
                )
            )
        elif stored.figures != fresh.figures:
            problems.append(
                Problem(
                    rel,
                    1,
                    f"tampered: {where}: the figures do not recompute from the summary "
                    f"and declared work ({_first_difference(stored.figures, fresh.figures)})",
                    remedy,
                )
            )
        if stored.check.passed and stored.samples is None:
            problems.append(Problem(rel, 1, f"tampered: {where} passed its check but has no samples", remedy))
        if not stored.check.passed and stored.samples is not None:
            problems.append(Problem(rel, 1, f"tampered: {where} failed its check but carries timings", remedy))
    failed = any(not r.check.passed for r in [*result.ceilings, *result.rows]) or bool(result.error)
    if (result.status == "failed") != failed:
        problems.append(Problem(rel, 1, f"tampered: status is '{result.status}' but the rows say otherwise", remedy))
    return problems


def _first_difference(a: object, b: object) -> str:
    if a is None or b is None:
        return "summary present on one side only"
    da, db = asdict(a), asdict(b)  # type: ignore[call-overload]
    for key in da:
        if da[key] != db.get(key):
            return f"{key}: stored {da[key]!r}, recomputed {db.get(key)!r}"
    return "no field differs"


def failure_problems(result: Result, rel: str, declared: Declared | None) -> list[Problem]:
    remedy = rerun(result.experiment, result.node)
    source = declared.source_path if declared else result.provenance.source_path
    problems: list[Problem] = []
    if result.error:
        problems.append(Problem(rel, 1, f"failed: the run broke: {result.error}", f"fix it, then {remedy}"))
    for row in [*result.ceilings, *result.rows]:
        if not row.check.passed:
            problems.append(
                Problem(
                    rel,
                    1,
                    f"failed: kernel '{row.kernel}' at {row.size} did not match its reference ({row.check.message})",
                    f"fix it in {source}, then {remedy}",
                )
            )
    return problems


def stale_problems(result: Result, rel: str, declared: Declared, root: Path) -> list[Problem]:
    remedy = rerun(result.experiment, result.node)
    problems: list[Problem] = []
    for _what, path, recorded in (
        ("source", declared.source_path, result.provenance.source_sha256),
        ("spec", declared.spec_path, result.provenance.spec_sha256),
    ):
        file = root / path
        now = sha256_file(file) if file.is_file() else "missing"
        if now != recorded:
            problems.append(
                Problem(
                    rel,
                    1,
                    f"stale: {path} changed since it was measured (sha256 {recorded[:12]} recorded, {now[:12]} now)",
                    remedy,
                )
            )
    return problems


# --- the judged view ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowView:
    """One checked and timed row, as pages show it."""

    experiment: str
    node: str
    kernel: str
    label: str
    size: str
    median_ms: float
    q1_ms: float
    q3_ms: float
    iqr_ms: float
    gbps: float
    gflops: float | None
    shared_gbps: float | None
    pct_of_peak: float
    pct_of_copy_ceiling: float
    fits_in_l2: bool
    above_95pct_of_peak: bool
    noisy: bool
    n_samples: int
    n_throttled: int
    rel_stdev: float
    is_ceiling: bool

    @property
    def median_us(self) -> float:
        return self.median_ms * 1000.0

    @property
    def iqr_us(self) -> float:
        return self.iqr_ms * 1000.0

    @property
    def rel_iqr(self) -> float:
        """IQR over median: the spread pages can print as '± x %'."""
        return self.iqr_ms / self.median_ms

    @property
    def suspect(self) -> bool:
        """The working set fits in L2 (a cache may be measured) or the row beats 95 % of the DRAM peak."""
        return self.fits_in_l2 or self.above_95pct_of_peak


def _view(result: Result, row: Row, is_ceiling: bool) -> RowView | None:
    s, f = row.summary, row.figures
    if s is None or f is None or not row.check.passed:
        return None
    return RowView(
        result.experiment,
        result.node,
        row.kernel,
        row.label,
        row.size,
        s.median_ms,
        s.q1_ms,
        s.q3_ms,
        s.iqr_ms,
        f.gbps,
        f.gflops,
        f.shared_gbps,
        f.pct_of_peak,
        f.pct_of_copy_ceiling,
        f.fits_in_l2,
        f.above_95pct_of_peak,
        s.noisy,
        s.n_kept,
        s.n_throttled,
        s.rel_stdev,
        is_ceiling,
    )


@dataclass(frozen=True)
class Entry:
    """One (experiment, node) pair and its state."""

    experiment: str
    node: str
    state: State
    path: str  # repo-relative result file (it may not exist: state 'missing')
    problems: tuple[Problem, ...] = ()
    result: Result | None = None
    declared: Declared | None = field(default=None, compare=False)

    @property
    def fresh(self) -> bool:
        return self.state == "fresh"

    @property
    def provenance(self) -> Provenance | None:
        return self.result.provenance if self.result else None

    def rows(self) -> list[RowView]:
        """The experiment's checked, timed rows in spec order (sizes outer, kernels inner)."""
        if self.result is None:
            return []
        return [v for r in self.result.rows if (v := _view(self.result, r, False)) is not None]

    def ceiling_rows(self) -> list[RowView]:
        if self.result is None:
            return []
        return [v for r in self.result.ceilings if (v := _view(self.result, r, True)) is not None]

    def failed_rows(self) -> list[Row]:
        return [r for r in self.result.rows if not r.check.passed] if self.result else []

    def row(self, kernel: str, size: str) -> RowView | None:
        """The row for kernel id (or label) ``kernel`` at size label ``size``; None if absent."""
        for v in self.rows():
            if v.size == size and kernel in (v.kernel, v.label):
                return v
        return None

    def sizes(self) -> list[str]:
        return list(dict.fromkeys(r.size for r in self.result.rows)) if self.result else []

    def kernels(self) -> list[str]:
        return list(dict.fromkeys(r.kernel for r in self.result.rows)) if self.result else []

    @property
    def copy_ceiling_gbps(self) -> float:
        return copy_ceiling_gbps(self.result.ceilings) if self.result else math.nan

    @property
    def memcpy_gbps(self) -> float:
        if self.result is None:
            return math.nan
        values = [r.figures.gbps for r in self.result.ceilings if r.kind == "memcpy" and r.figures]
        return max(values) if values else math.nan

    def provenance_sentence(self) -> str:
        """One sentence naming node, GPU, driver, CUDA, date and commit, e.g. for a table caption."""
        p = self.provenance
        if p is None:
            return f"No result for {self.experiment} on {self.node}."
        commit = p.git_commit[:12] if p.git_commit != "unknown" else "an unknown commit"
        dirty = " (with uncommitted changes)" if p.git_dirty else ""
        return (
            f"Measured on {p.node} ({p.gpu_name}, {p.sm_count} SMs, driver {p.driver_release}, "
            f"CUDA {p.cuda_driver_version}, nvcc {p.nvcc_version}) on {p.finished_utc[:10]} "
            f"from {commit}{dirty}."
        )


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
        out = list(self.setup_problems)
        for e in self.entries:
            out += e.problems
        return out


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
    if node not in registered:
        hint = f" on a registered node ({', '.join(registered)})" if registered else ""
        return Entry(
            experiment,
            node,
            "unregistered",
            rel,
            (
                Problem(
                    rel,
                    1,
                    f"unregistered: node '{node}' is not in {NODES_PATH}",
                    f"register it there, or re-run `gloss measure run {experiment} --node NAME`{hint}",
                ),
            ),
            result,
            declared,
        )
    tampered = tamper_problems(result, rel)
    if tampered:
        return Entry(experiment, node, "tampered", rel, tuple(tampered), result, declared)
    failed = failure_problems(result, rel, declared)
    if failed:
        return Entry(experiment, node, "failed", rel, tuple(failed), result, declared)
    stale = stale_problems(result, rel, declared, root)
    if stale:
        return Entry(experiment, node, "stale", rel, tuple(stale), result, declared)
    return Entry(experiment, node, "fresh", rel, (), result, declared)


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
        rel = file.relative_to(root).as_posix()
        broken = loose.get(experiment) if experiment not in declared else None
        entries.append(judge(root, rel, experiment, node, declared.get(experiment), nodes, broken))
        seen.add((experiment, node))
    for exp_id, d in sorted(declared.items()):
        for node in nodes:
            if (exp_id, node) not in seen:
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
