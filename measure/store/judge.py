"""Judging one parsed result: the checks behind the states ``tampered``, ``failed``, ``stale`` and
``incomplete`` (what each state means, and the order they are checked in, is in :mod:`measure.store.results`),
and the ``provenance`` check that :mod:`measure.store.audit` runs against git history (a problem, not a state:
see :func:`provenance_problems`). Pure functions that return :class:`~site_plugins.files.messages.Problem`
lists; an empty list means the check passed."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Literal

from measure.experiment.includes import included_files
from measure.experiment.spec import Declared, sha256_file
from measure.nsight import counters
from measure.store.recompute import copy_ceiling_gbps, recompute_ceilings, recompute_row
from measure.store.resultformat import Provenance, Result, Row, digest_of, rerun
from site_plugins.files.messages import Problem

State = Literal[
    "fresh", "incomplete", "stale", "failed", "tampered", "unregistered", "missing", "pending", "invalid", "orphaned"
]
STATES: tuple[State, ...] = (
    "fresh",
    "incomplete",
    "stale",
    "failed",
    "tampered",
    "unregistered",
    "missing",
    "pending",
    "invalid",
    "orphaned",
)


def _impossible_time(times: Sequence[float]) -> tuple[int, float] | None:
    """(index, value) of the first sample no run can have measured: zero, negative, NaN or infinite.
    Summaries recomputed to match such samples still describe no real run."""
    for i, t in enumerate(times):
        if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t) or t <= 0:
            return i, t
    return None


def tamper_problems(result: Result, rel: str) -> list[Problem]:
    """Every summary and figure must equal what its raw samples give, exactly; no row is there twice."""
    remedy = rerun(result.experiment, result.node) + "; result files are written only by the runner"
    problems = [Problem(rel, 1, f"tampered: {p}", remedy) for p in duplicate_rows(result)]
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
        bad = _impossible_time(row.samples.times_ms) if row.samples is not None else None
        if bad is not None:
            problems.append(Problem(rel, 1, f"tampered: row '{row.kernel}' at {row.size} has sample {bad[0] + 1} of "
                                            f"{bad[1]!r} ms; a CUDA event time is a positive, finite number", remedy))
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
        problems += [Problem(rel, 1, f"tampered: {where} {p}", remedy) for p in _shape_problems(stored)]
    failed = any(r.failed for r in [*result.ceilings, *result.rows]) or bool(result.error)
    if (result.status == "failed") != failed:
        problems.append(Problem(rel, 1, f"tampered: status is '{result.status}' but the rows say otherwise", remedy))
    if not problems and result.schema_version >= 2:  # the specific findings above say more when there are any
        now = digest_of(result)
        if not result.digest:
            problems.append(Problem(rel, 1, "tampered: the result carries no digest", remedy))
        elif now != result.digest:
            problems.append(
                Problem(
                    rel,
                    1,
                    f"tampered: the contents do not match the digest (sha256 {result.digest[:12]} recorded, "
                    f"{now[:12]} now): a value was edited after the run (counters, checks or provenance)",
                    remedy,
                )
            )
    return problems


def _name_key(text: str) -> str:
    """What a name reads as: compatibility forms, case and white space do not make two rows different."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def duplicate_rows(result: Result) -> list[str]:
    """A run writes each kernel once per size, so two rows of one list that a page cannot tell apart
    (``Entry.row`` finds a row by kernel id or label at a size label) mean the file was edited: a page
    would silently show the first. A size is the same by its label or by its dims (a relabelled copy is
    still a copy). Each list is checked alone (the ceilings experiment lists its rows in both). Builds
    likewise: one per compiled function."""
    found: list[str] = []
    for part, rows in (("ceilings", result.ceilings), ("rows", result.rows)):
        seen: dict[tuple[str, str], int] = {}
        for i, row in enumerate(rows):
            sizes = ("label " + _name_key(row.size), "dims " + repr(sorted(row.dims.items())))
            keys = dict.fromkeys((size, _name_key(name)) for size in sizes for name in (row.kernel, row.label))
            first = next((j for key in keys if (j := seen.setdefault(key, i)) != i), None)
            if first is not None:
                found.append(
                    f"{part}[{first}] and {part}[{i}] are both kernel '{row.kernel}' at {row.size} "
                    "(by id, label, size label or dims; a run writes each kernel once per size)"
                )
    functions: dict[str, int] = {}
    for i, build in enumerate(result.builds):  # a page reads a row's registers from the first match
        if (first_build := functions.setdefault(build.function, i)) != i:
            found.append(f"builds[{first_build}] and builds[{i}] are both function '{build.function}' "
                         "(a run records each compiled function once)")
    return found


def _shape_problems(row: Row) -> list[str]:
    """What a row of its kind must (not) carry: timings only on checked timed rows, an outcome exactly
    on observed launches, a check only after a launch that ran."""
    if row.kind == "observe":
        found = ["is an observed launch but carries timings"] if row.samples is not None else []
        if row.outcome is None and row.check.passed:  # no outcome: the row broke before its launch
            found.append("is an observed launch but records no outcome")
        elif row.refused and row.check.passed:
            found.append("was refused by the driver but passed its check")
        return found
    found = ["records a launch outcome but is not an observed launch"] if row.outcome is not None else []
    if (row.setup or {}).get("expect") == "mismatch":
        found.append("records expect: mismatch but is not an observed launch")
    if row.check.passed and row.samples is None:
        found.append("passed its check but has no samples")
    if not row.check.passed and row.samples is not None:
        found.append("failed its check but carries timings")
    return found


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
        if row.failed:
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
    """The source, the files it includes and the spec must be the bytes that were measured."""
    remedy = rerun(result.experiment, result.node)
    problems: list[Problem] = []
    for path, recorded in (
        (declared.source_path, result.provenance.source_sha256),
        (declared.spec_path, result.provenance.spec_sha256),
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
    if problems:  # a changed source explains changed includes
        return problems
    then = result.provenance.source_includes or {}
    now_included = included_files(root, declared.source_path)[0]  # its problems are the spec's (load_specs)
    for path in dict.fromkeys([*then, *now_included]):
        if path not in now_included:
            what = f"{path}, included by {declared.source_path} when it was measured, no longer is"
        elif path not in then:
            what = f"{path} is included by {declared.source_path} but was not when it was measured"
        elif then[path] != now_included[path]:
            what = (
                f"{path} (included by {declared.source_path}) changed since it was measured "
                f"(sha256 {then[path][:12]} recorded, {now_included[path][:12]} now)"
            )
        else:
            continue
        problems.append(Problem(rel, 1, f"stale: {what}", remedy))
    return problems


def incomplete_problems(result: Result, rel: str, extras: dict[str, list[str]]) -> list[Problem]:
    """Counters asked for but absent. A run asks for counters unless it said ``--no-counters`` (then
    ``counter_pass`` is null); every kernel row must then carry the architecture's default set plus its
    spec's extras (``extras``: kernel id -> metrics). Version-1 files predate counters."""
    if result.schema_version < 2 or result.counter_pass is None:
        return []
    remedy = rerun(result.experiment, result.node)
    cp = result.counter_pass
    if cp.error:
        return [Problem(rel, 1, f"incomplete: the counter pass failed ({cp.error})", f"fix it, then {remedy}")]
    arch = counters.arch_of(result.provenance.compute_capability)
    problems: list[Problem] = []
    for row in result.rows:
        if row.kind != "kernel":
            continue
        wanted = counters.metrics_for(arch, [extras.get(row.kernel, [])])
        lacking = [m for m in wanted if m not in (row.counters or {})]
        if lacking:
            more = f" and {len(lacking) - 1} more" if len(lacking) > 1 else ""
            problems.append(
                Problem(
                    rel,
                    1,
                    f"incomplete: row '{row.kernel}' at {row.size} lacks the counter {lacking[0]}{more}",
                    remedy,
                )
            )
    return problems


def recorded_files(provenance: Provenance) -> tuple[tuple[str, str], ...]:
    """Every input file whose sha256 a result records: (repo-relative path, sha256)."""
    return (
        (provenance.source_path, provenance.source_sha256),
        *(provenance.source_includes or {}).items(),
        (provenance.spec_path, provenance.spec_sha256),
    )


def claimed_commit(provenance: Provenance) -> str | None:
    """The commit a result claims holds the files it measured, or None where it claims none: the commit
    is 'unknown', or the tree was recorded as dirty (uncommitted changes were measured)."""
    if provenance.git_dirty or provenance.git_commit == "unknown":
        return None
    return provenance.git_commit


def provenance_problems(result: Result, rel: str, at_commit: Mapping[str, str | None]) -> list[Problem]:
    """The commit a result records must hold the bytes it measured. ``at_commit`` maps each recorded
    path to the sha256 of that file at :func:`claimed_commit` (None: no such file there); the caller has
    checked that the commit exists. Not a state: the numbers are still those of the recorded sources
    (``stale`` compares them with the tree); only the record of where those sources live is wrong."""
    commit = claimed_commit(result.provenance)
    if commit is None:
        return []
    remedy = (
        f"{rerun(result.experiment, result.node)} with GLOSS_COMMIT set to the commit that holds the measured "
        "sources (`git rev-parse HEAD` on your machine, not on the node)"
    )
    problems: list[Problem] = []
    for path, recorded in recorded_files(result.provenance):
        there = at_commit.get(path)
        if there != recorded:
            found = f"{there[:12]} at that commit" if there is not None else "no such file at that commit"
            problems.append(
                Problem(
                    rel,
                    1,
                    f"provenance: commit {commit[:12]} does not hold the measured {path} "
                    f"(sha256 {recorded[:12]} recorded, {found})",
                    remedy,
                )
            )
    return problems
