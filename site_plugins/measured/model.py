"""Plain data the pages may show about measurements: what :func:`load_view` builds from ``measure.store.results``.

Nothing here reads a file. The renderer, the value references and the Measurements page work on these
dataclasses only, so they are tested without result files and without MkDocs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from site_plugins.files.messages import Problem

# fresh: may be shown. Every other state fails the strict build where a page embeds the result.
State = Literal[
    "fresh", "incomplete", "stale", "failed", "tampered", "unregistered", "missing", "pending", "invalid", "orphaned"
]
#: States in which an experiment has no result file at all (pending: declared with 'pending: true').
NOT_MEASURED: frozenset[str] = frozenset({"missing", "pending"})
Metric = Literal["gbps", "shared_gbps", "gflops"]


@dataclass(frozen=True)
class RowNote:
    """One note a table may show for a row, with the parts that only make sense beside some columns."""

    text: str
    # Appended ("; " + gbps) only where the table shows a figure computed from the declared bytes (GB/s,
    # % of copy, % of peak): under a GFLOP/s-only table a sentence about GB/s explains nothing.
    gbps: str = ""
    # Shown only where the table shows a Nsight Compute column (e.g. the counter pass's SM clock).
    counters_only: bool = False


@dataclass(frozen=True)
class Row:
    """One kernel's figures at one size, as the results module computed them."""

    kernel: str  # the label tables show, e.g. tile[32][33]
    time_ms: float | None  # median
    iqr_ms: float | None
    gbps: float | None  # decimal GB/s from declared bytes
    gflops: float | None
    pct_copy: float | None  # % of the copy ceiling measured in the same run
    pct_peak: float | None  # % of theoretical DRAM peak
    suspect: tuple[str, ...] = ()  # reasons, in words ("working set fits in L2")
    failed: str | None = None  # why the correctness check failed (the row was never timed)
    noisy: bool = False  # stopped at the time limit before the stdev target
    id: str = ""  # the kernel's short id in the spec, e.g. tile32-padded (embeds may use either)
    shared_gbps: float | None = None  # shared-memory GB/s, where the spec declares shared bytes
    note: str = ""  # shown in the table's Note column, e.g. where a ceiling row was measured
    # Nsight Compute: every raw metric and derived figure (measure/nsight/counters.py) the result holds for
    # this row; empty where none were collected. None: undefined (e.g. no shared instructions).
    counters: dict[str, float | None] = field(default_factory=dict)
    copy_ref: str = ""  # what "% of copy" divides by, e.g. "copy at 8192x8192, 3,835 GB/s"
    pct_shared_peak: float | None = None  # shared GB/s over all SMs' banks at the recorded SM clock
    registers: int | None = None  # per thread, the compiler's count for the row's function
    us_per_launch: float | None = None  # kind 'launch': median sample / launches per sample
    pct_fp32: float | None = None  # % of the FP32 ceiling (best compute ceiling row) of the same run
    fp32_ref: str = ""  # what "% of FP32" divides by, e.g. "FMA chains (8 per thread), 62,981 GFLOP/s"
    # What the row's findings say (DRAM bytes against the declared ones, an L2 fit, a clock below the
    # node's maximum), each a note of its own so that rows sharing one share its number.
    findings: tuple[RowNote, ...] = ()
    # The arithmetic the row's FLOPs are done in: "fp32", or "tf32" (tensor cores: a cuBLAS row with TF32
    # math, or a kernel whose function name says tf32). Shares of an FP32 figure are not given for TF32.
    math: str = "fp32"
    kind: str = "kernel"  # the spec's row kind: kernel, memcpy, cublas, transfer, pipeline, launch
    sm_clock_mhz: float | None = None  # median SM clock NVML read with the kept samples

    @property
    def device_memory(self) -> bool:
        """Its bytes move between the GPU and its own memory (not across the host link, not launches)."""
        return self.kind in ("kernel", "memcpy", "cublas")


@dataclass(frozen=True)
class Table:
    """Every row of one experiment at one problem size."""

    size: str  # "8192x8192": how embeds name it
    rows: tuple[Row, ...]
    ceiling_gbps: float | None = None  # the copy ceiling the % of copy column is relative to
    ceiling_label: str = "copy ceiling"
    memcpy_gbps: float | None = None  # the driver's memcpy in the same run: a separate, labelled ceiling
    memcpy_label: str = "driver memcpy"

    # The node's copy ceilings measured in the same run (at their own size): shown only when an embed
    # names them, e.g. rows=memcpy,naive.
    ceilings: tuple[Row, ...] = ()

    def row(self, kernel: str) -> Row | None:
        for r in (*self.rows, *self.ceilings):
            if kernel in (r.kernel, r.id):
                return r
        return None


@dataclass(frozen=True)
class Provenance:
    node: str
    gpu: str
    driver: str  # NVIDIA driver release, e.g. 580.159.04
    cuda: str  # CUDA driver version, e.g. 13.0
    nvcc: str  # nvcc release, e.g. V13.0.88
    flags: str  # exact nvcc flags, e.g. -O3 -arch=sm_90
    captured: str  # UTC date, YYYY-MM-DD
    commit: str = "unknown"
    l2_bytes: int = 0  # the device's L2 size as the runner recorded it


@dataclass(frozen=True)
class Launched:
    """What the runner recorded about one launched row besides times: its occupancy and, for an observed
    launch (``kind: observe``), what the driver returned. ``{{ observed }}`` shows these."""

    kernel: str  # the label, e.g. "64 KiB, no opt-in"
    id: str  # the spec id, e.g. no-optin
    size: str
    observed: bool  # an observed launch (then ``launched`` and the error fields mean something)
    launched: bool = True
    error_name: str = ""  # e.g. CUDA_ERROR_INVALID_VALUE
    error_string: str = ""  # e.g. invalid argument
    blocks_per_sm: int | None = None  # None where no occupancy was recorded
    warps_per_sm: int | None = None
    occupancy_pct: float | None = None
    # An observed launch that ran: did its output match the reference (None: not compared, e.g. refused),
    # and, where it did not, (elements wrong, elements in all), as its check counted them.
    matched: bool | None = None
    wrong: tuple[int, int] | None = None


@dataclass(frozen=True)
class Result:
    """One experiment on one node, with the verdict of the results module."""

    experiment: str
    node: str
    state: State
    metric: Metric = "gbps"
    provenance: Provenance | None = None
    tables: tuple[Table, ...] = ()
    # For a state other than fresh: the results module's own words and the command that fixes it.
    problem: str = ""
    remedy: str = ""
    source: str = ""  # repo-relative path of the .cu file measured
    path: str = ""  # repo-relative result file (may not exist: state missing)
    launched: tuple[Launched, ...] = ()  # every kernel and observed row, in result order
    limits: tuple[tuple[str, int], ...] = ()  # the device's launch limits (name, value), if recorded

    def table(self, size: str) -> Table | None:
        for t in self.tables:
            if t.size == size:
                return t
        return None


@dataclass
class ResultsView:
    """Everything the pages may show about measurements, loaded once per build.

    ``results`` holds one entry per (experiment, node) the results module knows of, including the
    missing ones (declared experiments without a result file on a registered node).
    """

    root: Path
    results: tuple[Result, ...] = ()
    nodes: tuple[str, ...] = ()  # registered verification nodes
    experiments: tuple[str, ...] = ()  # declared experiment ids (specs under code/)
    setup_problems: tuple[Problem, ...] = ()  # malformed specs or node registry, as the results module said
    problems: tuple[Problem, ...] = ()  # every spec, result and node problem, embedded or not (measure.store.audit)
    gpus: dict[str, str] = field(default_factory=dict)  # registered node -> the GPU it reports (measure/nodes.yaml)
    # The node whose figures prose quotes where an entry names none (the gloss plugin's ``default_node``);
    # None: the one node with a fresh result, as a table embed names it.
    default_node: str | None = None
    # Renderings are pure in (view, embed arguments); built once per build, reused on every page.
    cache: dict[object, object] = field(default_factory=dict, compare=False, repr=False)

    def for_experiment(self, experiment: str) -> list[Result]:
        return [r for r in self.results if r.experiment == experiment]

    def gpu(self, node: str) -> str:
        """The GPU a node reports, as its fresh results record it (else as the registry names it)."""
        for r in self.results:
            if r.node == node and r.state == "fresh" and r.provenance is not None:
                return r.provenance.gpu
        return self.gpus.get(node, node)
