"""The result file format, declared once: the dataclasses of ``measure/results/<node>/<experiment>.json``,
their stable JSON text (:func:`dumps`), the atomic writer and the parser (:func:`read_result`).

Pages, the CLI and bench scripts import :mod:`measure.results` (the façade), never this module; the
format's notes (units, raw samples, float round-tripping) are in :mod:`measure.results`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from measure.stats import Rule, Summary
from measure.typed import from_json
from site_plugins import atomic, safejson
from site_plugins.messages import Problem

SCHEMA_VERSION = 1
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
    kind: Literal["kernel", "memcpy", "observe"]
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
    data, unreadable = safejson.read(path, rel)  # bounded: size, encoding, depth, duplicate keys
    if unreadable:
        return None, [Problem(p.path, p.line, f"invalid: {p.problem}", remedy) for p in unreadable]
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
