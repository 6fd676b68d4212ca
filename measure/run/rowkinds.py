"""What the row kinds beyond a plain kernel launch per timed sample (used by :mod:`measure.run.rowrun`).

Each builder turns a spec row into a :class:`Plan`: the callable one timed sample runs, plus, where
the data checked is not in a device buffer, the hooks the correctness check needs: ``on_inputs`` sees
the fresh random inputs once they are on the device (a transfer or pipeline copies them into its host
memory, and poisons its host outputs), and ``outputs`` names the host arrays the check compares
instead of downloading device buffers (a device-to-host copy or a pipeline is checked on the host copy).

- ``cublas``: one GEMM on the runner's stream. Row-major C (m x n) = A (m x k) @ B (k x n) is, read
  column-major, C^T = B^T A^T, so cuBLAS is called with (n, m, k), B first (leading dimension n), then
  A (leading dimension k), C with leading dimension n: no transposes, no copies.
- ``transfer``: one copy between a host array (pageable numpy memory or page-locked memory) and a
  device buffer.
- ``pipeline``: the buffers cut into ``chunks`` pieces (the last one shorter when the length does not
  divide); chunk c's H2D copy, kernel and D2H copy are queued on stream ``c % streams``. The grid and
  integer args are evaluated per chunk with ``n`` and ``chunk`` both the chunk's element count.
- ``launch``: ``count`` launches of the function per sample (back to back, one CUDA graph, or each
  followed by a synchronize).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from measure.experiment.spec import DEVICE_SM_COUNT, Experiment, evaluate
from measure.experiment.spec import Kernel as KernelSpec
from measure.experiment.speckinds import CHUNK
from measure.gpu.check import POISON_BITS

if TYPE_CHECKING:
    from measure.gpu.device import Device, Kernel


@dataclass
class Plan:
    launch: Callable[[], None]
    on_inputs: Callable[[dict[str, Any]], None] = lambda inputs: None
    outputs: dict[str, Any] = field(default_factory=dict)  # output buffer name -> host array checked
    grid: list[int] = field(default_factory=list)  # a pipeline's first chunk's grid (what the row records)


@dataclass(frozen=True)
class Chunk:
    """One piece of a pipeline: copies in, a launch, copies out, on one stream."""

    stream: int
    h2d: list[tuple[int, Any]]  # (device address, host view)
    grid: list[int]
    args: list[tuple[str, int]]
    d2h: list[tuple[Any, int]]  # (host view, device address)


def setup_of(k: KernelSpec) -> dict[str, str] | None:
    """The kind's settings as text, recorded on each row (None for kinds without a section and cold
    kernel rows); a warm row says so (``{"l2": "warm"}``): its samples ran without the L2 flush; an observed
    launch that shows a wrong result records ``{"expect": "mismatch"}``."""
    if k.kind == "observe" and k.expect == "mismatch":
        return {"expect": "mismatch"}
    if k.l2 == "warm":
        return {"l2": "warm"}
    section = k.gemm or k.transfer or k.pipeline or k.launch
    if section is None:
        return None
    return {name: str(value) for name, value in vars(section).items() if not name.startswith("_")}


def poison(host: Any) -> None:
    host.reshape(-1).view(np.uint32)[:] = POISON_BITS


def cublas(dev: Device, k: KernelSpec, env: dict[str, int], bufs: dict[str, Any]) -> Plan:
    g = k.gemm
    assert g is not None
    c, a, b = (bufs[name] for name in k.args)
    m, n, kk = (evaluate(getattr(g, d), env) for d in "mnk")
    return Plan(dev.gemm_launcher(g.math, m, n, kk, c, a, b))


def transfer(dev: Device, k: KernelSpec, shapes: dict[str, tuple[int, ...]], bufs: dict[str, Any]) -> Plan:
    t = k.transfer
    assert t is not None
    dst, src = k.args
    pinned = t.host == "pinned"
    host = dev.host_array(shapes[dst], pinned)
    if t.direction == "h2d":

        def fill(inputs: dict[str, Any]) -> None:
            host[...] = inputs[src]

        return Plan(dev.copy_launcher("h2d", bufs[dst], host, pinned), fill)
    return Plan(dev.copy_launcher("d2h", bufs[src], host, pinned), lambda inputs: poison(host), {dst: host})


def pipeline(
    dev: Device,
    exp: Experiment,
    k: KernelSpec,
    kernel: Kernel,
    env: dict[str, int],
    shapes: dict[str, tuple[int, ...]],
    bufs: dict[str, Any],
    block: list[int],
    dynamic: int,
) -> Plan:
    p = k.pipeline
    assert p is not None
    roles = {b.name: b.role for b in exp.buffers}
    used = list(dict.fromkeys(a for a in k.args if a in bufs))
    hosts = {name: dev.host_array(shapes[name], p.host == "pinned") for name in used}
    n = int(np.prod(shapes[used[0]]))
    size = -(-n // p.chunks)
    chunks: list[Chunk] = []
    for c in range(p.chunks):
        lo, hi = c * size, min(n, (c + 1) * size)
        if lo >= hi:
            break
        cenv = {**env, "n": hi - lo, CHUNK: hi - lo}
        grid = [evaluate(g, {**cenv, DEVICE_SM_COUNT: dev.info.sm_count}) for g in k.grid]
        args = [("P", int(bufs[a]) + 4 * lo) if a in bufs else ("i", evaluate(a, cenv)) for a in k.args]
        views = {name: hosts[name].reshape(-1)[lo:hi] for name in used}
        h2d = [(int(bufs[b]) + 4 * lo, views[b]) for b in used if roles[b] == "input"]
        d2h = [(views[b], int(bufs[b]) + 4 * lo) for b in used if roles[b] == "output"]
        chunks.append(Chunk(c % p.streams, h2d, grid, args, d2h))

    def fill(inputs: dict[str, Any]) -> None:
        for name, host in hosts.items():
            if roles[name] == "input":
                host[...] = inputs[name]
            else:
                poison(host)

    outputs = {name: host for name, host in hosts.items() if roles[name] == "output"}
    launch = dev.pipeline_launcher(kernel, block, dynamic, p.streams, chunks)
    return Plan(launch, fill, outputs, chunks[0].grid)


def launches(
    dev: Device,
    k: KernelSpec,
    kernel: Kernel,
    grid: list[int],
    block: list[int],
    args: list[tuple[str, int]],
    dynamic: int,
) -> Plan:
    run = k.launch
    assert run is not None
    return Plan(dev.repeat_launcher(kernel, grid, block, args, dynamic, run.mode, run.count, run.streams))
