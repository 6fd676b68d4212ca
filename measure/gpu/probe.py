"""``python -m measure probe``: launch every kernel row once, for the counter pass (run under ncu).

For each experiment in the order given (the runner passes the ceilings first, then its own order), each
size, each kernel row (kind ``kernel`` only: memcpy and observed rows are skipped): fresh random inputs,
one launch, a synchronize, then one manifest line (:mod:`measure.nsight.ncu`), flushed, so a probe killed
half-way leaves a manifest of exactly the launches that returned. No L2 flush kernel, no events, no
check, no timing: ncu sees only the rows' own kernels. An experiment that fails is reported and skipped
(its rows get no counters, so its result says incomplete); the others still run.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from measure.experiment.nodes import Node
from measure.experiment.spec import DEVICE_SM_COUNT, Declared, evaluate
from measure.nsight import ncu

if TYPE_CHECKING:  # PyCUDA: only on a verification node; tests pass measure.testing.fakedevice.FakeDevice
    from measure.gpu.device import Device


def probe_experiment(dev: Device, node: Node, root: Path, d: Declared, manifest: Any, seed: int) -> int:
    exp = d.experiment
    module = dev.compile((root / d.source_path).read_text(encoding="utf-8"), node.arch, (root / d.source_path).parent)
    buffers = {b.name for b in exp.buffers}
    rng = np.random.default_rng([seed, 7])
    launched = 0
    for size in exp.sizes:
        dims = dict(size.dims)
        shapes = {b.name: tuple(evaluate(s, dims) for s in b.shape) for b in exp.buffers}
        bufs = {name: dev.alloc(int(np.prod(shape)) * 4) for name, shape in shapes.items()}
        try:
            inputs: dict[str, Any] = {}
            for b in exp.buffers:
                if b.role == "input":
                    data = (rng.random(shapes[b.name], dtype=np.float32) * 2.0 - 1.0).astype(np.float32)
                    dev.upload(bufs[b.name], data)
                    inputs[b.name] = data
            for k in exp.kernels:
                if k.kind != "kernel" or k.function is None:
                    continue
                env = {**dims, **k.params}
                arg_types = "".join("P" if a in buffers else "i" for a in k.args)
                kernel = dev.kernel(module, k.function, arg_types)
                grid = [evaluate(g, {**env, DEVICE_SM_COUNT: dev.info.sm_count}) for g in k.grid]
                args = [("P", int(bufs[a])) if a in buffers else ("i", evaluate(a, env)) for a in k.args]
                # Launched as the runner launches it: the row's opt-in, constants and dynamic shared memory.
                dynamic = evaluate(k.dynamic_shared, env) if k.dynamic_shared else 0
                opt_in = evaluate(k.max_dynamic_shared, env) if k.max_dynamic_shared is not None else None
                refused = dev.set_max_dynamic_shared(kernel, opt_in)
                if refused:  # its timed row fails the same way; this row gets no counters
                    print(f"probe: {exp.id} {k.id}: the opt-in was refused: {refused}", file=sys.stderr)
                    continue
                for symbol, buffer in k.constants.items():
                    dev.upload_constant(kernel, symbol, inputs[buffer])
                dev.launcher(kernel, grid, list(k.block), args, dynamic)()
                dev.synchronize()
                manifest.write(ncu.manifest_line(ncu.ManifestEntry(exp.id, k.id, size.label, k.function)))
                manifest.flush()
                launched += 1
        finally:
            for buf in bufs.values():
                buf.free()
    return launched


def probe(
    root: Path,
    node: Node,
    chosen: Sequence[Declared],
    manifest_path: Path,
    seed: int = 20261202,
    device: Device | None = None,
) -> int:
    """0 when every experiment was probed, 1 when one failed (the others still were)."""
    if device is None:
        from measure.gpu.device import Device

        device = Device()
    dev = device
    rc = 0
    try:
        with manifest_path.open("w", encoding="utf-8") as manifest:
            for d in chosen:
                try:
                    n = probe_experiment(dev, node, root, d, manifest, seed)
                    print(f"probe: {d.id}: {n} launch(es)", flush=True)
                except Exception as exc:  # the others still run; this one's rows get no counters
                    print(f"probe: {d.id}: {type(exc).__name__}: {exc}".splitlines()[0][:500], file=sys.stderr)
                    rc = 1
    finally:
        dev.close()
    return rc
