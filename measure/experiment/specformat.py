"""The experiment spec's declared format: one dataclass per YAML mapping (read by measure/experiment/spec.py).

Each field's metadata says what the key means; :func:`site_plugins.files.schema.build` checks a spec against
these classes and words its remedies from them. The prose reference with an example is the docstring of
:mod:`measure.experiment.spec`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from site_plugins.files import textfile
from site_plugins.files.schema import meta

#: Row kinds: a timed kernel, a timed driver memcpy, a kernel launched once whose outcome is recorded, a
#: timed cuBLAS GEMM, a timed host<->device copy, a chunked copy-kernel-copy pipeline over streams, and
#: a run of back-to-back launches (launch overhead).
KINDS = ("kernel", "memcpy", "observe", "cublas", "transfer", "pipeline", "launch")
Kind = Literal["kernel", "memcpy", "observe", "cublas", "transfer", "pipeline", "launch"]
#: The section each kind needs (and no other kind may have).
KIND_SECTIONS = {"cublas": "gemm", "transfer": "transfer", "pipeline": "pipeline", "launch": "launch"}


@dataclass(frozen=True)
class Buffer:
    name: str = field(metadata=meta("the buffer's name, used in kernel 'args'"))
    role: Literal["input", "output"] = field(metadata=meta("'input' (random data) or 'output' (checked)"))
    shape: list[str] = field(metadata=meta("one expression per dimension, e.g. [rows, cols]"))


@dataclass(frozen=True)
class Size:
    label: str = field(metadata=meta("how tables name the size, e.g. '2003x3001'"))
    dims: dict[str, int] = field(metadata=meta("the size's named integers, e.g. {rows: 2003, cols: 3001}"))


@dataclass(frozen=True)
class Gemm:
    """``kind: cublas``: C (m x n) = A (m x k) @ B (k x n), row-major float32."""

    math: Literal["fp32", "tf32"] = field(
        metadata=meta("'fp32' (cublasSgemm, FP32 math) or 'tf32' (cublasGemmEx, COMPUTE_32F_FAST_TF32)")
    )
    m: str = field(metadata=meta("rows of A and C (an expression)"))
    n: str = field(metadata=meta("columns of B and C (an expression)"))
    k: str = field(metadata=meta("columns of A, rows of B (an expression)"))


@dataclass(frozen=True)
class Transfer:
    """``kind: transfer``: one copy between host memory and a device buffer."""

    direction: Literal["h2d", "d2h"] = field(metadata=meta("'h2d' (host to device) or 'd2h' (device to host)"))
    host: Literal["pageable", "pinned"] = field(
        metadata=meta("'pageable' (an ordinary numpy array) or 'pinned' (page-locked, cuMemHostAlloc)")
    )


@dataclass(frozen=True)
class Pipeline:
    """``kind: pipeline``: the buffers cut into chunks; each chunk's H2D copy, kernel and D2H copy on
    stream (chunk % streams)."""

    streams: int = field(metadata=meta("streams the chunks take turns on (1 = the serial baseline)"))
    chunks: int = field(metadata=meta("pieces the buffers are cut into"))
    host: Literal["pageable", "pinned"] = field(
        default="pinned", metadata=meta("host memory of the copies: 'pinned' (default) or 'pageable'")
    )


@dataclass(frozen=True)
class LaunchRun:
    """``kind: launch``: ``count`` launches of the function per timed sample."""

    mode: Literal["stream", "graph", "sync"] = field(
        metadata=meta(
            "'stream' (back-to-back launches), 'graph' (captured once, one cuGraphLaunch) or "
            "'sync' (launch, then synchronize, each time)"
        )
    )
    count: int = field(metadata=meta("launches per timed sample, 1 or more"))
    streams: int = field(
        default=1,
        metadata=meta(
            "mode 'stream' only: launch i goes on stream i % streams, all forked from and joined back to "
            "the runner's stream (default 1: the runner's stream itself)"
        ),
    )


@dataclass(frozen=True)
class Kernel:
    id: str = field(metadata=meta("a short id, unique in the experiment, e.g. 'tile32-padded'"))
    label: str = field(metadata=meta("the row label tables show, e.g. 'tile[32][33]'"))
    reference: str = field(metadata=meta("the numpy reference the output must match, e.g. 'transpose'"))
    bytes_read: str = field(metadata=meta("bytes read from device memory per launch (an expression)"))
    bytes_written: str = field(metadata=meta("bytes written to device memory per launch (an expression)"))
    args: list[str] = field(metadata=meta("the kernel's arguments: buffer names or integer expressions"))
    kind: Kind = field(
        default="kernel",
        metadata=meta(
            "'kernel' (checked, timed), 'memcpy' (driver copy), 'observe' (launched once), 'cublas', "
            "'transfer', 'pipeline' or 'launch'"
        ),
    )
    function: str | None = field(default=None, metadata=meta('the extern "C" __global__ function'))
    block: list[int] = field(default_factory=list, metadata=meta("threads per block, e.g. [32, 8]"))
    grid: list[str] = field(default_factory=list, metadata=meta("blocks per grid, e.g. [cdiv(cols, 32)]"))
    params: dict[str, int] = field(default_factory=dict, metadata=meta("named integers for this kernel"))
    flops: str | None = field(default=None, metadata=meta("floating-point operations per launch"))
    shared_bytes: str | None = field(default=None, metadata=meta("shared-memory bytes accessed per launch"))
    tolerance: float = field(default=0.0, metadata=meta("largest allowed ||out - ref|| / ||ref||; 0 = exact"))
    dynamic_shared: str | None = field(
        default=None, metadata=meta("dynamic shared memory per block in bytes (an expression; default 0)")
    )
    max_dynamic_shared: str | None = field(
        default=None,
        metadata=meta("the opt-in: the function's maximum dynamic shared memory, set before launching"),
    )
    constants: dict[str, str] = field(
        default_factory=dict, metadata=meta("__constant__ symbol -> the input buffer copied into it")
    )
    counters: list[str] = field(
        default_factory=list, metadata=meta("extra Nsight Compute metrics for this kernel")
    )
    expect: Literal["reference", "mismatch"] = field(
        default="reference",
        metadata=meta(
            "kind 'observe' only: 'mismatch' when the launch shows a wrong result (a race), so an output "
            "that differs from the reference is what the row records, not a failure; default 'reference'"
        ),
    )
    l2: Literal["cold", "warm"] = field(
        default="cold",
        metadata=meta(
            "'cold' (default: the L2 flushed before every timed sample) or 'warm' (kind 'kernel' only: "
            "no flush, so each sample finds what the previous launch left in the L2)"
        ),
    )
    gemm: Gemm | None = field(default=None, metadata=meta("kind 'cublas' only: {math, m, n, k}"))
    transfer: Transfer | None = field(default=None, metadata=meta("kind 'transfer' only: {direction, host}"))
    pipeline: Pipeline | None = field(default=None, metadata=meta("kind 'pipeline' only: {streams, chunks, host}"))
    launch: LaunchRun | None = field(default=None, metadata=meta("kind 'launch' only: {mode, count, streams}"))


@dataclass(frozen=True)
class Experiment:
    id: str = field(metadata=meta("the experiment id pages embed, e.g. 'day13-transpose'"))
    title: str = field(metadata=meta("a one-line title"))
    source: str = field(metadata=meta("the .cu file in this folder"))
    element: Literal["float32"] = field(metadata=meta("the element type of every buffer"))
    buffers: list[Buffer] = field(metadata=meta("the device buffers, inputs and outputs"))
    sizes: list[Size] = field(metadata=meta("the problem sizes"))
    kernels: list[Kernel] = field(metadata=meta("the kernels to check and time"))
    ceilings: bool = False
    pending: bool = field(
        default=False,
        metadata=meta(
            "written but not yet run on a node: compiled and checked like any spec, listed as 'pending' "
            "(not a problem) until its first results are committed, never embeddable; remove the line "
            "in the commit that adds those results"
        ),
    )


@dataclass(frozen=True)
class Declared:
    """A loaded spec with where it came from (repo-relative paths)."""

    experiment: Experiment
    spec_path: str
    source_path: str
    id_line: int

    @property
    def id(self) -> str:
        return self.experiment.id


def sha256_file(path: Path) -> str:
    # Line endings as text is read (an LF file's sha256 is that of its bytes): a CRLF checkout is not stale.
    return textfile.sha256_text(path.read_bytes())
