"""The cross-checks of the row kinds beyond a plain kernel: ``cublas``, ``transfer``, ``pipeline`` and
``launch`` (called by :func:`measure.experiment.speckernel.check_kernel`).

Each of these kinds needs its own section (``gemm``, ``transfer``, ``pipeline``, ``launch``) and no other
kind may carry one, so a section is never silently ignored. Shapes are checked by evaluating them at
every declared size: a GEMM whose buffers do not hold m x k, k x n and m x n elements, a copy between
buffers of different lengths or a pipeline cut into more chunks than it has elements is refused here,
not on the node.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from measure.experiment.expr import ExprError, check_expr, evaluate
from measure.experiment.specformat import KIND_SECTIONS, Buffer, Kernel, Size

Add = Callable[..., None]
#: The name a pipeline's grid and args may use for the chunk's element count (``n`` also means it there).
CHUNK = "chunk"


def check_sections(k: Kernel, where: str, add: Add) -> bool:
    """Each kind with a section has it, and no row carries another kind's section. True when fine."""
    ok = True
    for kind, section in KIND_SECTIONS.items():
        present = getattr(k, section) is not None
        if k.kind == kind and not present:
            add(k, "kind", f"{where} is kind '{kind}' but has no '{section}' section", _section_remedy(section))
            ok = False
        elif k.kind != kind and present:
            add(
                k,
                section,
                f"{where} declares '{section}' but is kind '{k.kind}'",
                f"set 'kind: {kind}', or drop '{section}'",
            )
            ok = False
    return ok


def _section_remedy(section: str) -> str:
    return {
        "gemm": "add 'gemm: {math: fp32, m: m, n: n, k: k}'",
        "transfer": "add 'transfer: {direction: h2d, host: pinned}'",
        "pipeline": "add 'pipeline: {streams: 4, chunks: 4, host: pinned}'",
        "launch": "add 'launch: {mode: stream, count: 1000}'",
    }[section]


def check_no_launch(k: Kernel, where: str, add: Add) -> None:
    """A row the runner does not launch a function of (memcpy, cublas, transfer)."""
    if k.function is not None or k.block or k.grid:
        add(
            k,
            "kind",
            f"{where} is kind '{k.kind}' but declares a function, block or grid",
            f"drop 'function', 'block' and 'grid' for kind '{k.kind}'",
        )
    launch_keys = [key for key in ("dynamic_shared", "max_dynamic_shared") if getattr(k, key) is not None]
    launch_keys += [key for key in ("constants", "counters") if getattr(k, key)]
    if launch_keys:
        add(
            k,
            launch_keys[0],
            f"{where} is kind '{k.kind}' but declares {', '.join(launch_keys)}",
            f"drop {', '.join(repr(key) for key in launch_keys)} for kind '{k.kind}' (they apply to kernel launches)",
        )


def _elements(buf: Buffer, dims: Mapping[str, int]) -> int:
    return math.prod(evaluate(s, dims) for s in buf.shape)


def _roles(
    k: Kernel, where: str, buffers: Mapping[str, Buffer], want: list[str], names: str, add: Add
) -> list[Buffer] | None:
    """``args`` must be exactly these buffers with these roles; the buffers, or None after a problem."""
    if len(k.args) != len(want) or not all(a in buffers for a in k.args):
        add(k, "args", f"{where} args must be {names}", f"name {len(want)} declared buffers: {names}")
        return None
    bufs = [buffers[a] for a in k.args]
    for buf, role in zip(bufs, want, strict=True):
        if buf.role != role:
            add(
                k,
                "args",
                f"{where} argument '{buf.name}' is an {buf.role} buffer; {names} needs an {role} there",
                f"give buffer '{buf.name}' role '{role}', or name another buffer",
            )
            return None
    return bufs


def _each_size(
    k: Kernel, key: str, where: str, sizes: list[Size], test: Callable[[dict[str, int]], str], add: Add
) -> None:
    """Run ``test`` at every size (it returns "" or the problem); report the first problem."""
    for size in sizes:
        env = {**size.dims, **k.params}
        try:
            problem = test(env)
        except (ExprError, ZeroDivisionError) as exc:
            problem = str(exc)
        if problem:
            add(k, key, f"{where} at size '{size.label}': {problem}", "fix the shapes or the expressions")
            return


def check_cublas(
    k: Kernel, where: str, buffers: Mapping[str, Buffer], names: set[str], sizes: list[Size], add: Add
) -> None:
    gemm = k.gemm
    assert gemm is not None
    exprs_ok = all(check_expr(getattr(gemm, d), names, gemm, d, None, f"{where} gemm.{d}", add) for d in "mnk")
    bufs = _roles(k, where, buffers, ["output", "input", "input"], "[c, a, b] (C = A @ B)", add)
    if bufs is None or not exprs_ok:
        return
    c, a, b = bufs

    def shapes(env: dict[str, int]) -> str:
        m, n, kk = (evaluate(getattr(gemm, d), env) for d in "mnk")
        if min(m, n, kk) <= 0:
            return f"gemm m, n, k are {m}, {n}, {kk}; they must be positive"
        for buf, rows, cols in ((c, m, n), (a, m, kk), (b, kk, n)):
            if _elements(buf, env) != rows * cols:
                return f"buffer '{buf.name}' holds {_elements(buf, env)} elements, not {rows} x {cols}"
        return ""

    _each_size(k, "gemm", where, sizes, shapes, add)


def check_transfer(k: Kernel, where: str, buffers: Mapping[str, Buffer], sizes: list[Size], add: Add) -> None:
    bufs = _roles(k, where, buffers, ["output", "input"], "[dst, src]", add)
    if bufs is not None:
        dst, src = bufs
        _each_size(k, "args", where, sizes, lambda env: _same_length(dst, src, env), add)
    _each_size(k, "bytes_written", where, sizes, lambda env: _one_copy(k, env), add)


def _same_length(dst: Buffer, src: Buffer, env: dict[str, int]) -> str:
    nd, ns = _elements(dst, env), _elements(src, env)
    return f"'{dst.name}' holds {nd} elements, '{src.name}' {ns}; a copy needs equal lengths" if nd != ns else ""


def _one_copy(k: Kernel, env: dict[str, int]) -> str:
    """A transfer's GB/s counts bytes_read once (the bytes that cross the link); bytes_written must
    say the same bytes land, so the figure cannot be read two ways."""
    r, w = evaluate(k.bytes_read, env), evaluate(k.bytes_written, env)
    return f"bytes_written is {w}, bytes_read {r}; a transfer writes the bytes it reads" if r != w else ""


def check_pipeline(k: Kernel, where: str, buffers: Mapping[str, Buffer], sizes: list[Size], add: Add) -> None:
    p = k.pipeline
    assert p is not None
    if p.streams < 1:
        add(p, "streams", f"{where} pipeline.streams is {p.streams}", "use 1 (the serial baseline) or more")
    if p.chunks < 1:
        add(p, "chunks", f"{where} pipeline.chunks is {p.chunks}", "cut the buffers into 1 or more chunks")
    elif p.streams > p.chunks:
        add(
            p,
            "streams",
            f"{where} has {p.streams} streams for {p.chunks} chunks, so some streams stay idle",
            "use at most as many streams as chunks",
        )
    used = [buffers[a] for a in k.args if a in buffers]
    if not any(b.role == "input" for b in used) or not any(b.role == "output" for b in used):
        add(
            k,
            "args",
            f"{where} is a pipeline; its args must name an input buffer (copied in) and an output buffer (copied out)",
            "pass e.g. [dst, src, chunk]",
        )
        return

    def chunkable(env: dict[str, int]) -> str:
        lengths = {b.name: _elements(b, env) for b in used}
        if len(set(lengths.values())) != 1:
            return f"the buffers it is passed hold {lengths} elements; a pipeline cuts equal lengths"
        n = next(iter(lengths.values()))
        return f"{n} elements cannot be cut into {p.chunks} chunks" if p.chunks > n else ""

    _each_size(k, "args", where, sizes, chunkable, add)


def check_launch_run(k: Kernel, where: str, add: Add) -> None:
    run = k.launch
    assert run is not None
    if run.count < 1:
        add(run, "count", f"{where} launch.count is {run.count}", "launch 1 or more times per sample")
    if run.streams < 1:
        add(run, "streams", f"{where} launch.streams is {run.streams}", "use 1 stream or more")
    elif run.streams > 1 and run.mode != "stream":
        add(
            run,
            "streams",
            f"{where} launches on {run.streams} streams in mode '{run.mode}'",
            "spread launches over streams in mode 'stream' only, or set streams: 1",
        )
    elif run.streams > max(run.count, 1):
        add(
            run,
            "streams",
            f"{where} has {run.streams} streams for {run.count} launches",
            "use at most as many streams as launches",
        )
