"""The control experiments (histogram-controls, reduction-controls, barrier, coalescing) as committed,
only their sizes shrunk, run through the runner's whole path on the fake device with their kernels
modelled in numpy from the CUDA code: arguments, params, references and output buffers fit together,
every checked row passes, and the barrier's racy rows are recorded as observations (a wrong output
there is what the row shows, not a failure)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import kernelmodels as K
import numpy as np
from test_lessons_fake_run import QUICK, _copy, _histogram, _repo, _run

from measure.experiment.nodes import load_nodes
from measure.experiment.spec import load_specs
from measure.run import runner
from measure.store import results as R
from measure.testing.fakedevice import FakeDevice

F32 = np.float32
HIST = ["ctl_global_float", "ctl_global_uint", "ctl_shared_inc", "ctl_shared_add3", "ctl_shared_float"]


def test_histogram_controls_run_whole(tmp_path: Path) -> None:
    sizes = "".join(f"  - {{label: '{b} bins', dims: {{n: 3001, bins: {b}, blocks: 2}}}}\n" for b in (4, 256))
    root = _repo(tmp_path, "histogram-controls", sizes, ("pending: true\n", ""))
    res = _run(root, FakeDevice({**dict.fromkeys(HIST, _histogram), "copy_kernel": _copy}), "histogram-controls")
    assert [r.kernel for r in res.rows if r.size == "4 bins"] == [
        "global-float",
        "global-uint",
        "shared-inc",
        "shared-add3",
        "shared-float",
    ]
    assert all(r.check.passed and r.samples is not None for r in res.rows)


def _warp_steps(src: np.ndarray, blocks: int) -> np.ndarray:
    """ctl_atomic_warp_each: per grid-stride step, each warp's 32 elements summed by the shuffle tree
    (lane 0 ends with ((v0 + v16) + (v8 + v24)) ...), then added into the block's word one by one."""
    n, threads = src.size, blocks * 256
    out = np.zeros(blocks, dtype=F32)
    for start in range(0, n, threads):
        chunk = np.zeros(threads, dtype=F32)
        piece = src[start : start + threads]
        chunk[: piece.size] = piece
        v = chunk.reshape(-1, 32)
        for offset in (16, 8, 4, 2, 1):  # lane l adds lane l + offset (lanes past 31 read their own value)
            shifted = np.concatenate([v[:, offset:], v[:, 32 - offset :]], axis=1)
            v = v + shifted
        out += v[:, 0].reshape(blocks, 8).sum(axis=1, dtype=F32)
    return out


def _thread_atomics(src: np.ndarray, blocks: int) -> np.ndarray:
    """ctl_atomic_thread: the register sums, then 256 adds per block in thread order."""
    sums = K.thread_register_sums(src, blocks * 256).reshape(blocks, 256)
    return np.cumsum(sums, axis=1, dtype=F32)[:, -1]


def _reduction(model):  # type: ignore[no-untyped-def]
    def body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        out, src, n = args
        dev.array(out)[: grid[0]] = model(dev.array(src)[:n], grid[0])

    return body


def test_reduction_controls_run_whole(tmp_path: Path) -> None:
    root = _repo(
        tmp_path, "reduction-controls", "  - {label: tiny, dims: {n: 100003, blocks: 6}}\n", ("pending: true\n", "")
    )
    device = FakeDevice(
        {
            "ctl_atomic_each": _reduction(K.reduce_atomic_each),
            "ctl_atomic_warp_each": _reduction(_warp_steps),
            "ctl_atomic_thread": _reduction(_thread_atomics),
            "ctl_atomic_warp": _reduction(K.reduce_tree),  # the same sums to within the tolerance
            "copy_kernel": _copy,
        }
    )
    res = _run(root, device, "reduction-controls")
    assert [r.kernel for r in res.rows] == ["atomic-each", "atomic-warp-each", "atomic-thread", "atomic-warp"]
    assert all(r.check.passed for r in res.rows)


def _reverse(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    tile = block[0]
    dev.array(dst)[:n] = dev.array(src)[:n].reshape(-1, tile)[:, ::-1].reshape(-1)


def _racy(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    """reverse_racy as a race might play out: with one warp per block the stores land before the loads;
    with more, warp 0 reads three slots of the last warp before they are stored (a value left behind)."""
    _reverse(dev, grid, block, args)
    if block[0] > 32:
        dst = dev.array(args[0])
        dst[0 : args[2] : block[0]] = F32(0.25)
        dst[1 : args[2] : block[0]] = F32(0.25)


def _steps(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, iters = args
    n = grid[0] * block[0]
    x = dev.array(src)[:n].astype(F32)
    for _ in range(4 * iters):
        x = K.fma32(x, 0.99609375, 0.001953125)
    dev.array(dst)[:n] = x


def _barrier_device() -> FakeDevice:
    steps = dict.fromkeys(["steps_b0", "steps_b1", "steps_b4"], _steps)
    return FakeDevice({"reverse_barrier": _reverse, "reverse_racy": _racy, **steps, "copy_kernel": _copy})


def test_barrier_runs_whole_and_records_the_race_as_an_observation(tmp_path: Path) -> None:
    root = _repo(
        tmp_path, "barrier", "  - {label: tiny, dims: {n: 4096}}\n", ("pending: true\n", ""), ("iters: 128", "iters: 8")
    )
    res = _run(root, _barrier_device(), "barrier")
    rows = {r.kernel: r for r in res.rows}
    assert list(rows) == ["reverse-barrier", "racy-1024", "racy-32", "steps-b0", "steps-b1", "steps-b4"]
    racy = rows["racy-1024"]
    assert racy.outcome is not None and racy.outcome.launched and racy.samples is None
    assert racy.setup == {"expect": "mismatch"} and racy.mismatch_observed and not racy.failed
    assert racy.check.message.startswith("dst: 8 of 4096 elements differ from the reference (first at flat index 0")
    one_warp = rows["racy-32"]
    assert one_warp.check.passed and not one_warp.mismatch_observed and not one_warp.failed
    assert res.status == "ok"
    assert all(
        rows[k].check.passed and rows[k].samples is not None for k in ("reverse-barrier", "steps-b0", "steps-b4")
    )


def test_a_mismatch_in_a_checked_row_still_fails_beside_the_observed_race(tmp_path: Path) -> None:
    """expect: mismatch excuses only the observed row that declares it: the same wrong output from the
    timed barrier row is a failed check, and the run reports it."""
    root = _repo(
        tmp_path, "barrier", "  - {label: tiny, dims: {n: 4096}}\n", ("pending: true\n", ""), ("iters: 128", "iters: 8")
    )
    device = _barrier_device()
    device.bodies["reverse_barrier"] = _racy
    declared, _ = load_specs(root)
    nodes, _ = load_nodes(root)
    code = runner.run(
        root,
        "test-node",
        nodes["test-node"],
        declared,
        ["barrier"],
        QUICK,
        runner.Provenance0(),
        root / R.RESULTS_DIR,
        device=device,
    )
    assert code == 1
    res = R.load_all(root).get("barrier", "test-node").result
    assert res is not None and res.status == "failed"
    assert [r.kernel for r in res.rows if r.failed] == ["reverse-barrier"]


def _gather(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n, stride, offset = args
    dev.array(dst)[:n] = dev.array(src)[offset : offset + n * stride : stride]


def test_coalescing_runs_whole(tmp_path: Path) -> None:
    root = _repo(tmp_path, "coalescing", "  - {label: tiny, dims: {n: 1000}}\n", ("pending: true\n", ""))
    res = _run(root, FakeDevice({"gather_strided": _gather, "copy_kernel": _copy}), "coalescing")
    assert [r.kernel for r in res.rows] == [
        "stride-1",
        "stride-2",
        "stride-4",
        "stride-8",
        "stride-16",
        "stride-32",
        "offset-1",
        "offset-8",
    ]
    assert all(r.check.passed and r.samples is not None for r in res.rows)
    assert {r.launch.grid[0] for r in res.rows if r.launch is not None} == {4}
