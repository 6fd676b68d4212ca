"""The result file format, declared once: the dataclasses of ``measure/results/<node>/<experiment>.json``,
their stable JSON text (:func:`dumps`), the atomic writer and the parser (:func:`read_result`).

Pages, the CLI and bench scripts import :mod:`measure.store.results` (the façade), never this module; the
format's notes (units, raw samples, float round-tripping) are in :mod:`measure.store.results`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from measure.store.observed import Limits, Occupancy, Outcome
from measure.store.stats import Rule, Summary
from measure.store.typed import from_json
from site_plugins.files import atomic, safejson
from site_plugins.files.messages import Problem

SCHEMA_VERSION = 3  # what the runner writes
#: Versions this code reads. Version 1 predates the digest and the counters; version 2 predates the row
#: kinds cublas/transfer/pipeline/launch and several ceilings experiments. Older files stay valid as they
#: are (their summaries and figures are still recomputed from their raw samples, their digests computed
#: over exactly the fields their version has).
READABLE_VERSIONS = (1, 2, 3)
#: Fields version 1 does not have: a version-1 file carrying one is invalid, and a version-1 result is
#: written without them (fields added later go here too).
V2_RESULT_FIELDS = ("counter_pass", "digest")
V2_ROW_FIELDS = ("counters", "occupancy", "outcome")
V2_PROVENANCE_FIELDS = ("limits", "source_includes")
#: Written only when not None, so a result of a source without includes keeps its text and its digest.
OPTIONAL_PROVENANCE_FIELDS = ("source_includes",)
#: Fields version 2 does not have (a version-2 file carrying one is invalid; a version-2 result is
#: written and digested without them, so committed version-2 files keep their digests).
V3_ROW_FIELDS = ("experiment", "launches", "setup")
V3_FIGURES_FIELDS = ("us_per_launch",)
V3_PROVENANCE_FIELDS = ("libraries",)
#: Row kinds version 3 added.
NEW_KINDS = ("cublas", "transfer", "pipeline", "launch")
RESULTS_DIR = "measure/results"


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
    limits: Limits | None = None  # the device's launch limits (None in results written before they were kept)
    # Files the source includes with quotes (measure.experiment.includes), repo-relative path -> sha256; None when it
    # includes none (and in results written before includes were followed).
    source_includes: dict[str, str] | None = None
    # Libraries the experiment called besides the driver (version 3), e.g. {"cublas": "/usr/.../libcublas.so.13",
    # "cublas_version": "130100"}; empty when it called none.
    libraries: dict[str, str] | None = None


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
    us_per_launch: float | None = None  # version 3, kind 'launch': median sample / launches per sample


@dataclass(frozen=True)
class Row:
    kernel: str
    label: str
    kind: Literal["kernel", "memcpy", "observe", "cublas", "transfer", "pipeline", "launch"]
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
    # Nsight Compute metrics for this row's launch, {name: value} exactly as ncu reported them in base
    # units; None when none were collected (memcpy rows, runs without counters, version-1 files).
    counters: dict[str, float] | None = None
    occupancy: Occupancy | None = None  # kernel and observe rows (None for memcpy and older results)
    outcome: Outcome | None = None  # observe rows only: what the driver returned for the launch
    # Version 3: the experiment the row belongs to (ceiling rows of several ceilings experiments share
    # one list), launches per timed sample (kind 'launch'; None: one), and the kind's settings as text
    # (e.g. {"math": "tf32"}, {"direction": "h2d", "host": "pinned"}, {"streams": "4", "chunks": "8"}).
    experiment: str | None = None
    launches: int | None = None
    setup: dict[str, str] | None = None

    @property
    def refused(self) -> bool:
        """An observed launch the driver refused: a valid observation (nothing ran, nothing to check)."""
        return self.outcome is not None and not self.outcome.launched

    @property
    def expects_mismatch(self) -> bool:
        """The spec declared this observed launch a demonstration of a wrong result (``expect: mismatch``)."""
        return self.kind == "observe" and (self.setup or {}).get("expect") == "mismatch"

    @property
    def mismatch_observed(self) -> bool:
        """An ``expect: mismatch`` launch that ran without an error and whose output differed from the
        reference: the observation the row exists for, not a failure."""
        ran_clean = self.outcome is not None and self.outcome.launched and not self.outcome.error_name
        return self.expects_mismatch and ran_clean and not self.check.passed

    @property
    def failed(self) -> bool:
        """The row's check failed (an observed launch that was refused, or one declared to show a wrong
        result whose output differed, is not a failure)."""
        return not self.check.passed and not self.refused and not self.mismatch_observed


@dataclass(frozen=True)
class CounterPass:
    """How the counters were collected: one ncu process over a probe that launched every kernel row once."""

    ncu_version: str  # e.g. "2025.3.1.0", or "unknown" where ncu could not say
    command: list[str]  # the exact argv
    metrics: list[str]  # every metric asked for (the architecture's default set and the spec's extras)
    error: str  # "" when every launch was mapped to its row; else why no row got counters


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
    counter_pass: CounterPass | None = None  # None: no counters were asked for (--no-counters, version 1)
    digest: str = ""  # version 2: sha256 of the canonical JSON of everything else (see digest_of)


# --- writing -----------------------------------------------------------------------------------------


def result_path(root: Path, node: str, experiment: str) -> Path:
    return root / RESULTS_DIR / node / f"{experiment}.json"


def dumps(result: Result) -> str:
    """Stable, diff-friendly JSON: indented, but each list of numbers on one line."""
    data = _versioned(result)
    return _dump(data, 0) + "\n"


def _versioned(result: Result) -> dict[str, Any]:
    """The result as its schema version writes it: fields added by later versions left out."""
    data = _without_unset(asdict(result))
    if result.schema_version <= 2:
        for key in V3_PROVENANCE_FIELDS:
            del data["provenance"][key]
        for row in [*data["ceilings"], *data["rows"]]:
            for key in V3_ROW_FIELDS:
                del row[key]
            if row["figures"] is not None:
                for key in V3_FIGURES_FIELDS:
                    del row["figures"][key]
    if result.schema_version == 1:
        for key in V2_RESULT_FIELDS:
            del data[key]
        for key in V2_PROVENANCE_FIELDS:
            data["provenance"].pop(key, None)
        for row in [*data["ceilings"], *data["rows"]]:
            for key in V2_ROW_FIELDS:
                del row[key]
    return data


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


def _without_unset(data: dict[str, Any]) -> dict[str, Any]:
    for key in OPTIONAL_PROVENANCE_FIELDS:
        if data["provenance"].get(key) is None:
            data["provenance"].pop(key, None)
    return data


def digest_of(result: Result) -> str:
    """sha256 over the canonical JSON (sorted keys, no spaces) of the whole result but its digest."""
    data = _versioned(result)
    data.pop("digest", None)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def with_digest(result: Result) -> Result:
    return replace(result, digest=digest_of(result))


def write_result(path: Path, result: Result) -> None:
    """Write atomically: a temporary file in the same folder, flushed, then renamed over ``path``.
    A version-2 result is written with its digest (computed here, never by hand)."""
    atomic.write_text(path, dumps(with_digest(result) if result.schema_version >= 2 else result))


# --- reading -----------------------------------------------------------------------------------------


def rerun(experiment: str, node: str) -> str:
    return f"re-run `gloss measure run {experiment} --node {node}`"


def read_result(path: Path, rel: str, experiment: str, node: str) -> tuple[Result | None, list[Problem]]:
    """Parse one result file against the declared format."""
    remedy = rerun(experiment, node)
    data, unreadable = safejson.read(path, rel)  # bounded: size, encoding, depth, duplicate keys
    if unreadable:
        return None, [Problem(p.path, p.line, f"invalid: {p.problem}", remedy) for p in unreadable]
    if isinstance(data, dict) and data.get("schema_version") not in READABLE_VERSIONS:
        got = data.get("schema_version")
        *first, last = (str(v) for v in READABLE_VERSIONS)
        readable = f"{', '.join(first)} and {last}" if first else last
        return None, [Problem(rel, 1, f"invalid: schema version {got!r}, this runner reads {readable}", remedy)]
    result, problems = from_json(Result, data, rel, remedy)
    if result is None:
        return None, [Problem(p.path, 1, f"invalid: {p.problem}", p.remedy) for p in problems]
    if result.schema_version == 1:
        rows = [*data["ceilings"], *data["rows"]]
        newer = [k for k in V2_RESULT_FIELDS if k in data] + [k for k in V2_ROW_FIELDS if any(k in r for r in rows)]
        newer += [k for k in V2_PROVENANCE_FIELDS if k in data["provenance"]]
        if newer:
            return None, [
                Problem(rel, 1, f"invalid: schema version 1 has no '{newer[0]}' (a version-2 field)", remedy)
            ]
    if result.schema_version <= 2:
        rows = [*data["ceilings"], *data["rows"]]
        newer = [k for k in V3_ROW_FIELDS if any(k in r for r in rows)]
        newer += [k for k in V3_FIGURES_FIELDS if any(k in (r.get("figures") or {}) for r in rows)]
        newer += [k for k in V3_PROVENANCE_FIELDS if k in data["provenance"]]
        newer += [r["kind"] for r in rows if r["kind"] in NEW_KINDS]
        if newer:
            return None, [
                Problem(
                    rel,
                    1,
                    f"invalid: schema version {result.schema_version} has no '{newer[0]}' (a version-3 field)",
                    remedy,
                )
            ]
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
