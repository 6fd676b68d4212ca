"""Experiment specs, ``code/<lesson>/experiment.yaml``: the only reader of those files.

A spec declares what the runner measures and what a result means: the experiment id, the ``.cu`` file
beside it, the buffers (inputs filled with fresh random numbers, outputs poisoned before each check),
the problem sizes (ragged ones included), and per kernel its launch configuration, arguments, declared
bytes read and written (and FLOPs or shared-memory bytes where they matter) per launch, and the numpy
reference its output must match. Sizes, grids and byte counts are small integer expressions over the
size's dims and the kernel's params, e.g. ``cdiv(cols, 32)`` or ``4 * rows * cols``::

    id: day13-transpose
    title: Transposing a matrix through shared memory
    source: transpose.cu
    element: float32
    buffers:
      - {name: src, role: input, shape: [rows, cols]}
      - {name: dst, role: output, shape: [cols, rows]}
    sizes:
      - {label: 2003x3001, dims: {rows: 2003, cols: 3001}}
    kernels:
      - id: naive
        label: naive
        function: transpose_naive
        block: [32, 8]
        grid: ["cdiv(cols, 32)", "cdiv(rows, 32)"]
        args: [dst, src, rows, cols]
        reference: transpose
        bytes_read: 4 * rows * cols
        bytes_written: 4 * rows * cols

Optional keys of a kernel entry:

- ``kind``: ``kernel`` (the default: checked, then timed), ``cublas``, ``transfer``, ``pipeline``, ``launch``
  (below), ``memcpy`` (the driver's device-to-device copy;
  ``args: [destination, source]``, no function, block or grid) or ``observe``: launched exactly once and
  never timed; the result records what the driver returned for that launch (``launched``, the error's
  name and string, e.g. ``CUDA_ERROR_INVALID_VALUE`` / ``invalid argument``). A refused launch is a valid
  observation, not a failure; a launch that ran must still produce the reference's output, as a checked
  row must. An observed launch may ask for what CUDA refuses (e.g. more than 1024 threads per block).
- ``expect: mismatch`` (kind ``observe`` only): the launch demonstrates a wrong result, e.g. a race with
  a barrier left out. Its output is still compared with the reference, and the result records the
  check (passed, or what differed) with ``setup: {expect: mismatch}``; an output that differs is the
  observation, not a failure (an error while it ran still is one). Default ``reference``.
- ``dynamic_shared: EXPR``: bytes of dynamic shared memory per block (``extern __shared__``), passed with
  every launch of the row (check, timing, observation, occupancy). Default 0.
- ``max_dynamic_shared: EXPR``: the opt-in. Before launching, the runner sets the function's
  ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` to this many bytes (``cudaFuncSetAttribute`` with
  ``cudaFuncAttributeMaxDynamicSharedMemorySize``). Absent: no opt-in, the driver's default limit (48 KiB
  per block) applies: the runner restores the function's own value before each row without an opt-in,
  so rows do not depend on their order.
- ``constants: {SYMBOL: BUFFER}``: after the inputs are filled and before each launch, input buffer
  ``BUFFER``'s random data is copied into the module's file-scope ``__constant__`` variable ``SYMBOL``; the
  reference sees the same data as input ``BUFFER``. The run fails if the buffer is larger than the symbol.
- ``counters: [METRIC, ...]``: Nsight Compute metrics collected for this row beyond the default set.
- ``l2: warm`` (kind ``kernel`` only; default ``cold``): time the row without the L2 flush, before the
  warm-up launches and before every sample, so each sample finds what the previous launch left in the
  L2 (the L2 plateau of a bandwidth sweep, a chase through a set that fits). The row records
  ``setup: {l2: warm}``. Its counters are still those of a cold launch: Nsight Compute flushes the
  caches before every replay pass.

An observed launch without and with the opt-in, 64 KiB of dynamic shared memory per block::

      - id: no-optin
        label: 64 KiB, no opt-in
        kind: observe
        function: reverse_dynamic
        block: [1024]
        grid: ["cdiv(n, 16384)"]
        args: [dst, src, n]
        dynamic_shared: 65536
        reference: reverse_blocks
        bytes_read: 4 * n
        bytes_written: 4 * n
      - id: optin
        label: 64 KiB, opt-in
        kind: observe
        function: reverse_dynamic
        max_dynamic_shared: 65536
        ...                       # the rest as above

Four more kinds, each with its own section (a row of another kind may not carry it, and a row of the
kind must)::

      - id: cublas-sgemm                        # kind cublas: C (m x n) = A (m x k) @ B (k x n), row-major
        label: cuBLAS SGEMM
        kind: cublas
        gemm: {math: fp32, m: m, n: n, k: k}    # math: fp32 (cublasSgemm, FP32 math) | tf32 (cublasGemmEx,
                                                #   CUBLAS_COMPUTE_32F_FAST_TF32); m, n, k: expressions
        args: [c, a, b]                         # output C, inputs A and B; they must hold m*n, m*k, k*n elements
        reference: matmul
        tolerance: 1.0e-4
        flops: 2 * m * n * k
        bytes_read: 4 * (m * k + k * n)
        bytes_written: 4 * m * n
      - id: h2d-pinned                          # kind transfer: one host<->device copy
        label: host to device, pinned
        kind: transfer
        transfer: {direction: h2d, host: pinned}   # direction: h2d | d2h; host: pageable | pinned
        args: [dst, src]                        # an output and an input buffer of equal length. h2d: the host
                                                #   copy of src is copied into dst; d2h: src into a host array,
                                                #   which is what is checked as dst
        reference: copy
        bytes_read: 4 * n                       # GB/s counts bytes_read once (the bytes crossing the link);
        bytes_written: 4 * n                    #   bytes_written must equal bytes_read
      - id: overlap-4                           # kind pipeline: chunks of H2D copy, kernel, D2H copy
        label: 8 chunks, 4 streams
        kind: pipeline
        function: scale_add
        block: [256]
        grid: ["cdiv(chunk, 256)"]              # per chunk: n and chunk are the chunk's element count
        args: [dst, src, chunk]                 # buffers are offset to the chunk; inputs copied in, outputs out
        pipeline: {streams: 4, chunks: 8, host: pinned}   # streams >= 1 (1 = serial), chunks >= streams,
                                                          #   host: pinned (default) | pageable
        reference: scale_add                    # checked on the host copy of the output
        bytes_read: 4 * n                       # GB/s counts both directions: bytes_read + bytes_written
        bytes_written: 4 * n
      - id: graph-1000                          # kind launch: count launches per timed sample
        label: 1,000 launches, one CUDA graph
        kind: launch
        function: tiny_copy
        block: [32]
        grid: [1]
        args: [dst, src]
        launch: {mode: graph, count: 1000}      # mode: stream (back to back) | graph (captured once, one
                                                #   cuGraphLaunch) | sync (launch + synchronize each time);
                                                #   count >= 1; results add us_per_launch = median / count;
                                                #   streams (mode stream only, default 1, <= count): launch
                                                #   i on stream i % streams, forked from and joined back to
                                                #   the runner's stream
        reference: copy
        bytes_read: 4 * n
        bytes_written: 4 * n

``cublas`` and ``transfer`` rows declare no function, block, grid, shared memory, constants or counters.
The counter pass profiles only ``kernel`` rows (ncu would see cuBLAS's own kernels, copies are not
kernels, and a pipeline or launch row repeats a function a kernel row can measure), so no other kind
declares ``counters`` and no other kind is judged incomplete for lacking them.

Experiments that set ``ceilings: true`` measure the node's ceilings: copies (reference ``copy``, no
``flops``: driver memcpy and copy kernels) and compute ceilings (``flops`` declared, e.g. FP32 FMA chains).
The runner runs every one of them first in every run and stores all their rows in every result of the
run, so every "% of" a page shows names a ceiling measured in the same run. A ceilings experiment holds
only ``kernel`` and ``memcpy`` rows.
"""

from __future__ import annotations

import re
from pathlib import Path

from measure.experiment.expr import ExprError, check_expr, evaluate, expr_names
from measure.experiment.includes import included_files
from measure.experiment.specformat import KINDS, Buffer, Declared, Experiment, Kernel, Size, sha256_file
from measure.experiment.speckernel import DEVICE_SM_COUNT, Context, check_kernel
from site_plugins.files import textfile
from site_plugins.files.messages import Problem
from site_plugins.files.schema import build, line_of, parse_yaml

CODE_DIR = "code"
SPEC_NAME = "experiment.yaml"

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ELEMENT_BYTES = {"float32": 4}

__all__ = [
    "CODE_DIR",
    "DEVICE_SM_COUNT",
    "KINDS",
    "SPEC_NAME",
    "Buffer",
    "Declared",
    "Experiment",
    "ExprError",
    "Kernel",
    "Size",
    "evaluate",
    "expr_names",
    "load_specs",
    "parse_spec",
    "peek_ids",
    "sha256_file",
]


# --- loading and cross-checks ------------------------------------------------------------------------


_EXPONENT = re.compile(r":\s*[-+]?[0-9]+[eE][-+]?[0-9]+\s*(#.*)?$")


def _exponent_hint(p: Problem, text: str) -> Problem:
    """YAML 1.1 reads 1e-5 (no decimal point) as text: say so instead of just 'got a string'."""
    lines = text.splitlines()
    numeric_text = p.problem.endswith("must be a number, got a string") and 0 < p.line <= len(lines)
    if numeric_text and _EXPONENT.search(lines[p.line - 1]):
        return Problem(p.path, p.line, p.problem, "YAML reads 1e-5 as text: write 1.0e-5")
    return p


def parse_spec(text: str, spec_path: str, source_text: str | None) -> tuple[Declared | None, list[Problem]]:
    """Check one spec; ``source_text`` is the .cu file's text (None when it does not exist)."""
    tree, problems = parse_yaml(text, spec_path)
    if problems:
        return None, problems
    exp, problems = build(Experiment, tree, spec_path)
    if exp is None or problems:  # cross-checks on a half-built spec would only add noise
        return None, [_exponent_hint(p, text) for p in problems]
    folder = spec_path.rsplit("/", 1)[0]
    p = problems

    def add(obj: object, key: str | None, problem: str, remedy: str, index: int | None = None) -> None:
        p.append(Problem(spec_path, line_of(obj, key, index), problem, remedy))

    if not _ID.match(exp.id):
        add(
            exp,
            "id",
            f"experiment id '{exp.id}' is not a plain lowercase id",
            "use lowercase letters, digits and '-' (e.g. 'day13-transpose')",
        )
    if "/" in exp.source or not exp.source.endswith(".cu"):
        add(
            exp,
            "source",
            f"'source' is '{exp.source}', not a .cu file in this folder",
            f"name a .cu file next to {SPEC_NAME}, e.g. 'transpose.cu'",
        )
    elif source_text is None:
        add(
            exp,
            "source",
            f"source file '{folder}/{exp.source}' does not exist",
            f"create it or fix 'source' in {spec_path}",
        )
    # Buffers.
    buffer_names: set[str] = set()
    for i, buf in enumerate(exp.buffers):
        if buf.name in buffer_names:
            add(exp, "buffers", f"buffer '{buf.name}' is declared twice", "give each buffer its own name", i)
        if not _IDENT.match(buf.name):
            add(
                exp,
                "buffers",
                f"buffer name '{buf.name}' is not an identifier",
                "use letters, digits and '_'",
                i,
            )
        buffer_names.add(buf.name)
    if not any(b.role == "output" for b in exp.buffers):
        add(
            exp,
            "buffers",
            "no buffer has role 'output', so nothing can be checked",
            "declare the buffer the kernels write with 'role: output'",
        )
    # Sizes: every size names the same dims, so expressions mean the same thing at every size.
    if not exp.sizes:
        add(exp, "sizes", "'sizes' is empty", "declare at least one problem size")
    dim_names = set(exp.sizes[0].dims) if exp.sizes else set()
    labels: set[str] = set()
    for i, size in enumerate(exp.sizes):
        if size.label in labels:
            add(exp, "sizes", f"size label '{size.label}' is used twice", "give each size its own label", i)
        labels.add(size.label)
        if set(size.dims) != dim_names:
            add(
                exp,
                "sizes",
                f"size '{size.label}' has dims {sorted(size.dims)}, the first size {sorted(dim_names)}",
                "give every size the same dim names",
                i,
            )
        for name, value in size.dims.items():
            if value <= 0:
                add(exp, "sizes", f"size '{size.label}' has {name} = {value}", "use positive sizes", i)
    for i, buf in enumerate(exp.buffers):
        for text_ in buf.shape:
            if not check_expr(text_, dim_names, exp, "buffers", i, f"buffer '{buf.name}' shape", add):
                break
    # Kernels.
    if not exp.kernels:
        add(exp, "kernels", "'kernels' is empty", "declare at least one kernel")
    ids: set[str] = set()
    ctx = Context({b.name: b for b in exp.buffers}, dim_names, list(exp.sizes), source_text, f"{folder}/{exp.source}")
    for i, k in enumerate(exp.kernels):
        if k.id in ids:
            add(exp, "kernels", f"kernel id '{k.id}' is used twice", "give each kernel its own id", i)
        ids.add(k.id)
        check_kernel(k, ctx, add)
    if exp.ceilings:
        for i, k in enumerate(exp.kernels):
            if k.kind not in ("kernel", "memcpy"):
                add(
                    exp,
                    "kernels",
                    f"ceiling experiment kernel '{k.id}' is kind '{k.kind}', not a timed kernel or memcpy",
                    "a ceilings experiment holds only timed copies and compute ceilings: move the row to another "
                    "experiment",
                    i,
                )
            elif (k.reference == "copy") == (k.flops is not None):
                add(
                    exp,
                    "kernels",
                    f"ceiling experiment kernel '{k.id}' is neither a copy (reference 'copy', no flops) nor a "
                    "compute ceiling (flops declared, another reference)",
                    "a copy ceiling checks against 'copy' and declares no flops; a compute ceiling declares flops",
                    i,
                )
    if problems:
        return None, problems
    return Declared(exp, spec_path, f"{folder}/{exp.source}", line_of(exp, "id")), []


def load_specs(root: Path) -> tuple[dict[str, Declared], list[Problem]]:
    """Every experiment under ``code/*/experiment.yaml``, by id; problems for the malformed ones."""
    specs: dict[str, Declared] = {}
    problems: list[Problem] = []
    for spec_file in sorted((root / CODE_DIR).glob(f"*/{SPEC_NAME}")):
        rel = spec_file.relative_to(root).as_posix()
        text, probs = textfile.read(spec_file, rel)
        if text is None:
            problems += probs
            continue
        source_name = _peek_source(text)
        source_file = spec_file.parent / source_name if source_name and "/" not in source_name else None
        source_text, source_problems = (
            textfile.read(source_file, source_file.relative_to(root).as_posix())
            if source_file is not None and source_file.is_file()
            else (None, [])
        )
        if source_file is not None and source_text is not None:  # headers it includes are measured too
            source_problems += included_files(root, source_file.relative_to(root).as_posix())[1]
        if source_problems:
            problems += source_problems
            continue
        declared, probs = parse_spec(text, rel, source_text)
        problems += probs
        if declared is None:
            continue
        if declared.id in specs:
            other = specs[declared.id].spec_path
            problems.append(
                Problem(
                    rel,
                    declared.id_line,
                    f"experiment id '{declared.id}' is also declared in {other}",
                    "give each experiment its own id",
                )
            )
            continue
        specs[declared.id] = declared
    return specs, problems


def peek_ids(root: Path) -> dict[str, str]:
    """Experiment id -> spec path, read loosely (also from specs that do not load)."""
    ids: dict[str, str] = {}
    for spec_file in sorted((root / CODE_DIR).glob(f"*/{SPEC_NAME}")):
        text = spec_file.read_text(encoding="utf-8", errors="replace")  # loose on purpose: ids of broken specs
        match = re.search(r"^id:\s*['\"]?([^'\"\s#]+)", text, re.MULTILINE)
        if match:
            ids.setdefault(match.group(1), spec_file.relative_to(root).as_posix())
    return ids


def _peek_source(text: str) -> str | None:
    match = re.search(r"^source:\s*['\"]?([^'\"\s#]+)", text, re.MULTILINE)
    return match.group(1) if match else None
