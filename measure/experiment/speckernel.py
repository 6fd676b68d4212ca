"""The cross-checks of one kernel entry in an experiment spec (called by :func:`measure.experiment.spec.parse_spec`).

Kept apart from the experiment-level checks so each module stays one readable concern: what a kernel
row may declare for its kind (``kernel``, ``memcpy``, ``observe``; the other kinds' own sections are
checked in :mod:`measure.experiment.speckinds`), its launch, arguments, expressions,
dynamic shared memory and its opt-in, ``__constant__`` uploads and extra counters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from measure.experiment import references, speckinds
from measure.experiment.expr import ExprError, check_expr, evaluate
from measure.experiment.specformat import Buffer, Kernel, Size

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_METRIC = re.compile(r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$")
#: A name grids may use besides dims and params: the device's multiprocessor count (grid-stride loops).
DEVICE_SM_COUNT = "sm_count"

Add = Callable[..., None]


@dataclass(frozen=True)
class Context:
    """What a kernel entry is checked against: the experiment's buffers, sizes and source."""

    buffers: Mapping[str, Buffer]
    dim_names: set[str]
    sizes: list[Size]
    source_text: str | None  # None when the .cu file does not exist
    source_rel: str  # e.g. code/day13-shared-memory/transpose.cu


def function_defined(source: str, name: str) -> bool:
    # Launch attributes may stand before or after ``void``: __launch_bounds__(...), __maxnreg__(N).
    bounds = r"(?:(?:__launch_bounds__|__maxnreg__)\s*\([^)]*\)\s*)*"
    pattern = rf"__global__\s+{bounds}void\s+{bounds}{re.escape(name)}\s*\("
    return re.search(pattern, source) is not None and 'extern "C"' in source


def constant_defined(source: str, name: str) -> bool:
    """A ``__constant__`` variable named ``name`` at file scope (PyCUDA finds it by that name)."""
    return re.search(rf"__constant__\b[^;{{}}]*\b{re.escape(name)}\s*[\[;=]", source) is not None


def check_kernel(k: Kernel, ctx: Context, add: Add) -> None:
    """Report every problem of kernel entry ``k`` through ``add(obj, key, problem, remedy, index=None)``."""
    where = f"kernel '{k.id}'"
    buffer_names = set(ctx.buffers)
    if not _ID.match(k.id):
        add(
            k,
            "id",
            f"kernel id '{k.id}' is not a plain lowercase id",
            "use lowercase letters, digits and '-' (e.g. 'tile32-padded')",
        )
    clash = set(k.params) & (ctx.dim_names | buffer_names)
    if clash:
        add(k, "params", f"{where} param(s) {', '.join(sorted(clash))} shadow a dim or buffer", "rename the param")
    names = ctx.dim_names | set(k.params)
    if k.reference not in references.NAMES:
        add(
            k,
            "reference",
            f"{where} names reference '{k.reference}', which does not exist",
            f"use one of {', '.join(sorted(references.NAMES))} (measure/experiment/references.py)",
        )
    if k.tolerance < 0:
        add(k, "tolerance", f"{where} has a negative tolerance", "use 0 for exact or a small positive number")
    if k.expect != "reference" and k.kind != "observe":
        add(
            k,
            "expect",
            f"{where} is kind '{k.kind}' but declares expect: {k.expect}",
            "drop 'expect' (only an observed launch, kind 'observe', may show a wrong result)",
        )
    for key in ("bytes_read", "bytes_written", "flops", "shared_bytes"):
        value = getattr(k, key)
        if value is not None:
            check_expr(value, names, k, key, None, f"{where} {key}", add)
    if not speckinds.check_sections(k, where, add):
        return
    if k.l2 == "warm" and k.kind != "kernel":
        add(
            k,
            "l2",
            f"{where} of kind '{k.kind}' asks for a warm L2",
            "leave 'l2' out: only kind 'kernel' rows can be timed without the flush",
        )
    if k.kind == "memcpy":
        _check_memcpy(k, where, buffer_names, add)
        return
    if k.kind in ("cublas", "transfer"):
        speckinds.check_no_launch(k, where, add)
        if k.kind == "cublas":
            speckinds.check_cublas(k, where, ctx.buffers, names, ctx.sizes, add)
        else:
            speckinds.check_transfer(k, where, ctx.buffers, ctx.sizes, add)
        return
    if k.kind == "pipeline":
        names = names | {speckinds.CHUNK}
        speckinds.check_pipeline(k, where, ctx.buffers, ctx.sizes, add)
    elif k.kind == "launch":
        speckinds.check_launch_run(k, where, add)
    if k.counters and k.kind in ("pipeline", "launch"):
        add(
            k,
            "counters",
            f"{where} is kind '{k.kind}', whose launches the counter pass does not profile",
            "drop 'counters' (only kind 'kernel' rows get counters)",
        )
    _check_launch(k, where, names, ctx, add)
    _check_shared(k, where, names, ctx, add)
    _check_constants(k, where, ctx, add)
    _check_counters(k, where, add)


def _check_memcpy(k: Kernel, where: str, buffer_names: set[str], add: Add) -> None:
    if k.function is not None or k.block or k.grid:
        add(
            k,
            "kind",
            f"{where} is a driver memcpy but declares a function, block or grid",
            "drop 'function', 'block' and 'grid' for kind 'memcpy'",
        )
    launch_keys = [key for key in ("dynamic_shared", "max_dynamic_shared") if getattr(k, key) is not None]
    launch_keys += [key for key in ("constants", "counters") if getattr(k, key)]
    if launch_keys:
        add(
            k,
            launch_keys[0],
            f"{where} is a driver memcpy but declares {', '.join(launch_keys)}",
            f"drop {', '.join(repr(key) for key in launch_keys)} for kind 'memcpy' (they apply to kernel launches)",
        )
    if len(k.args) != 2 or not all(a in buffer_names for a in k.args):
        add(
            k,
            "args",
            f"{where} is a driver memcpy; its args must be [destination, source] buffers",
            "name the output buffer, then the input buffer",
        )


def _check_launch(k: Kernel, where: str, names: set[str], ctx: Context, add: Add) -> None:
    if k.function is None:
        if k.kind == "observe":
            add(
                k,
                "kind",
                f"{where} is kind 'observe' but has no 'function' to launch",
                "add 'function:' (the extern \"C\" __global__ name whose launch is observed)",
            )
        else:
            add(k, None, f"{where} has no 'function'", "add 'function:' (the extern \"C\" __global__ name)")
    elif ctx.source_text is not None and not function_defined(ctx.source_text, k.function):
        add(
            k,
            "function",
            f"{where} names function '{k.function}', which {ctx.source_rel} does not "
            'define as an extern "C" __global__ function',
            'fix the name, or define it inside an extern "C" block',
        )
    if not 1 <= len(k.block) <= 3 or any(b <= 0 for b in k.block):
        add(k, "block", f"{where} block is {k.block}", "give 1 to 3 positive thread counts, e.g. [32, 8]")
    else:
        threads = 1
        for b in k.block:
            threads *= b
        if threads > 1024 and k.kind != "observe":  # an observed launch may ask for what CUDA refuses
            add(
                k,
                "block",
                f"{where} asks for {threads} threads per block; CUDA allows at most 1024",
                "use a smaller block, or make it kind 'observe' to record the driver's refusal",
            )
    if not 1 <= len(k.grid) <= 3:
        add(k, "grid", f"{where} grid has {len(k.grid)} dimensions", "give 1 to 3 expressions")
    for text in k.grid:  # one problem per list: a split expression would report each piece
        if not check_expr(text, names | {DEVICE_SM_COUNT}, k, "grid", None, f"{where} grid", add):
            break
    for j, arg in enumerate(k.args):
        if arg not in ctx.buffers:
            check_expr(arg, names, k, "args", j, f"{where} argument", add)


def _check_shared(k: Kernel, where: str, names: set[str], ctx: Context, add: Add) -> None:
    for key in ("dynamic_shared", "max_dynamic_shared"):
        text = getattr(k, key)
        if text is None or not check_expr(text, names, k, key, None, f"{where} {key}", add):
            continue
        for size in ctx.sizes:
            try:
                value = evaluate(text, {**size.dims, **k.params})
            except (ExprError, ZeroDivisionError) as exc:
                add(k, key, f"{where} {key} '{text}' at size '{size.label}': {exc}", "fix the expression")
                break
            if value < 0:
                add(
                    k,
                    key,
                    f"{where} {key} '{text}' is {value} bytes at size '{size.label}'",
                    "give a whole number of bytes, 0 or more",
                )
                break


def _check_constants(k: Kernel, where: str, ctx: Context, add: Add) -> None:
    for symbol, buffer in k.constants.items():
        if not _IDENT.match(symbol):
            add(
                k,
                "constants",
                f"{where} constants: '{symbol}' is not a C identifier",
                "name the __constant__ variable as the .cu file declares it",
            )
        elif ctx.source_text is not None and not constant_defined(ctx.source_text, symbol):
            add(
                k,
                "constants",
                f"{where} constants: {ctx.source_rel} declares no __constant__ variable '{symbol}'",
                f"declare it at file scope (e.g. __constant__ float {symbol}[49];) or fix the name",
            )
        buf = ctx.buffers.get(buffer)
        if buf is None:
            known = ", ".join(sorted(n for n, b in ctx.buffers.items() if b.role == "input")) or "none"
            add(
                k,
                "constants",
                f"{where} constants: '{symbol}' names buffer '{buffer}', which is not declared",
                f"name an input buffer (inputs: {known})",
            )
        elif buf.role != "input":
            add(
                k,
                "constants",
                f"{where} constants: '{symbol}' names buffer '{buffer}', which is an output",
                "name an input buffer: only inputs hold data when constants are uploaded",
            )


def _check_counters(k: Kernel, where: str, add: Add) -> None:
    seen: set[str] = set()
    for j, metric in enumerate(k.counters):
        if not _METRIC.match(metric):
            add(
                k,
                "counters",
                f"{where} counter '{metric}' is not an Nsight Compute metric name",
                "write it as ncu spells it, e.g. l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                j,
            )
        elif metric in seen:
            add(k, "counters", f"{where} counter '{metric}' is listed twice", "list each metric once", j)
        seen.add(metric)
