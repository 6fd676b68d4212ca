"""The memory and roofline experiments (code/roofline-sweep, bandwidth-*) as committed, only their
sizes shrunk, run through the runner's whole path on the fake device with their kernels modelled in
numpy: every row's arguments, buffers and reference fit together and pass their check; a kernel that
drops one element fails; and a warm row (``l2: warm``) is timed without the L2 flush and says so."""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from measure.experiment.nodes import load_nodes
from measure.experiment.spec import load_specs
from measure.run import runner
from measure.store import results as R
from measure.testing import synthetic as T
from measure.testing.fakedevice import FakeDevice

ROOT = Path(__file__).resolve().parents[2]
QUICK = runner.Options(min_samples=3, min_gpu_time_s=0.0, row_time_limit_s=0.5, warmup_launches=1, max_batch=4)
F32 = np.float32


def _repo(tmp_path: Path, folder: str, size_lines: str) -> Path:
    T.write_fixture_repo(tmp_path)
    T.write_small_ceilings(tmp_path, "256 KiB", 65536)
    shutil.copytree(ROOT / "code" / folder, tmp_path / "code" / folder)
    if folder == "chase-latency-dram":  # its source includes ../chase-latency/chase.cuh
        shutil.copytree(ROOT / "code" / "chase-latency", tmp_path / "code" / "chase-latency")
    spec_path = tmp_path / "code" / folder / "experiment.yaml"
    text, count = re.subn(r"(?m)^  - \{label: .*dims: .*\}\}\n", "", spec_path.read_text())
    assert count >= 1
    spec_path.write_text(text.replace("sizes:\n", "sizes:\n" + size_lines, 1))
    return tmp_path


def _run(root: Path, device: FakeDevice, experiment: str) -> tuple[int, R.Result]:
    declared, problems = load_specs(root)
    assert problems == []
    nodes, node_problems = load_nodes(root)
    assert node_problems == []
    code = runner.run(
        root,
        "test-node",
        nodes["test-node"],
        declared,
        [experiment],
        QUICK,
        runner.Provenance0(),
        root / R.RESULTS_DIR,
        device=device,
    )
    entry = R.load_all(root).get(experiment, "test-node")
    assert entry.result is not None, entry.problems
    return code, entry.result


def _copy(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n]


def _fma(k: int):  # type: ignore[no-untyped-def]
    """fma_k<K>: K float32 FMA steps per element (one rounding each)."""

    def body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        dst, src, n4, a_bits, b_bits = args
        a = float(np.array(a_bits, dtype=np.int32).view(F32))
        b = float(np.array(b_bits, dtype=np.int32).view(F32))
        x = dev.array(src)[: 4 * n4].copy()
        for _ in range(k):
            x = (x.astype(np.float64) * a + b).astype(F32)
        dev.array(dst)[: 4 * n4] = x

    return body


SWEEP = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def test_roofline_sweep_runs_whole_with_its_flops_per_byte(tmp_path: Path) -> None:
    root = _repo(tmp_path, "roofline-sweep", "  - {label: tiny, dims: {n: 4096}}\n")
    device = FakeDevice({**{f"fma_k{k}": _fma(k) for k in SWEEP}, "copy_kernel": _copy})
    code, res = _run(root, device, "roofline-sweep")
    assert code == 0, [(r.kernel, r.check.message) for r in res.rows]
    assert [r.kernel for r in res.rows] == [f"k{k}" for k in SWEEP]
    # The label's FLOP per byte is the declared FLOPs over the declared bytes.
    for row in res.rows:
        assert row.flops is not None
        said = float(row.label.split(": ")[1].split(" FLOP/B")[0])
        assert row.flops / (row.bytes_read + row.bytes_written) == said


def test_a_sweep_kernel_one_step_short_fails_its_row(tmp_path: Path) -> None:
    root = _repo(tmp_path, "roofline-sweep", "  - {label: tiny, dims: {n: 4096}}\n")
    kernels = {f"fma_k{k}": _fma(k) for k in SWEEP}
    kernels["fma_k512"] = _fma(511)
    code, res = _run(root, FakeDevice({**kernels, "copy_kernel": _copy}), "roofline-sweep")
    assert code == 1
    failed = [r.kernel for r in res.rows if not r.check.passed]
    assert failed == ["k512"]


def _read_sum(drop_last: bool = False):  # type: ignore[no-untyped-def]
    def body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        dst, src, n, passes = args
        threads = grid[0] * 256
        quads = dev.array(src)[:n].reshape(-1, 4).astype(np.float64).sum(axis=1)
        if drop_last:
            quads[-1] = 0.0
        padded = np.zeros(-(-quads.size // threads) * threads)
        padded[: quads.size] = quads
        sums = padded.reshape(-1, threads).sum(axis=0).reshape(grid[0], 256).sum(axis=1)
        dev.array(dst)[: grid[0]] = sums * passes

    return body


def _write_index(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, n, _ = args
    dev.array(dst)[:n] = np.repeat((np.arange(n // 4) & 1023).astype(F32), 4)


def _copy_passes(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n, _ = args
    dev.array(dst)[:n] = dev.array(src)[:n]


def _triad(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    a, b, c, n, scale, _ = args
    dev.array(a)[:n] = dev.array(b)[:n] + F32(scale) * dev.array(c)[:n]


BANDWIDTH = {
    "bandwidth-read": ("read_sum", _read_sum(), "  - {label: tiny, dims: {n: 8192, blocks: 3, warm_passes: 3}}\n"),
    "bandwidth-write": ("write_index", _write_index, "  - {label: tiny, dims: {n: 8192, warm_passes: 3}}\n"),
    "bandwidth-copy": ("copy4", _copy_passes, "  - {label: tiny, dims: {n: 8192, warm_passes: 3}}\n"),
    "bandwidth-triad": ("triad", _triad, "  - {label: tiny, dims: {n: 8192, warm_passes: 3}}\n"),
}


@pytest.mark.parametrize("experiment", sorted(BANDWIDTH))
def test_bandwidth_runs_whole_cold_then_warm(tmp_path: Path, experiment: str) -> None:
    function, body, size = BANDWIDTH[experiment]
    root = _repo(tmp_path, experiment, size)
    device = FakeDevice({function: body, "copy_kernel": _copy})
    code, res = _run(root, device, experiment)
    assert code == 0, [(r.kernel, r.check.message) for r in res.rows]
    assert [(r.kernel, r.setup) for r in res.rows] == [("cold", None), ("warm", {"l2": "warm"})]
    assert all(r.samples is not None and len(r.samples.times_ms) >= 3 for r in res.rows)


def test_a_warm_row_is_timed_without_the_flush_and_a_cold_one_with_it(tmp_path: Path) -> None:
    root = _repo(tmp_path, "bandwidth-copy", "  - {label: tiny, dims: {n: 8192, warm_passes: 3}}\n")
    spec = root / "code" / "bandwidth-copy" / "experiment.yaml"
    text = spec.read_text()
    cold_only = text[: text.index("  - id: warm")]
    spec.write_text(cold_only)
    device = FakeDevice({"copy4": _copy_passes, "copy_kernel": _copy})
    _run(root, device, "bandwidth-copy")
    # The ceilings' two rows and the cold row: every timed sample followed a flush.
    assert device.flushed and all(device.flushed)
    spec.write_text(text)
    warm = FakeDevice({"copy4": _copy_passes, "copy_kernel": _copy})
    _, res = _run(root, warm, "bandwidth-copy")
    warm_samples = len(next(r for r in res.rows if r.kernel == "warm").samples.times_ms)  # type: ignore[union-attr]
    unflushed = warm_samples + 1  # and the one sample that sizes the batches
    assert warm.flushed[-unflushed:] == [False] * unflushed
    assert all(warm.flushed[:-unflushed])


def test_a_read_kernel_that_skips_a_float4_fails_its_rows(tmp_path: Path) -> None:
    function, _, size = BANDWIDTH["bandwidth-read"]
    root = _repo(tmp_path, "bandwidth-read", size)
    code, res = _run(root, FakeDevice({function: _read_sum(drop_last=True), "copy_kernel": _copy}), "bandwidth-read")
    assert code == 1
    assert [r.check.passed for r in res.rows] == [False, False]
    assert res.rows[0].check.message.startswith("dst: 1 of 3 elements are off by more than")


def _chase_sectors(off_by_one: bool = False):  # type: ignore[no-untyped-def]
    """chase_sectors, step by step: the LCG, the sector's first float, bit 30 of its bits XORed in."""

    def body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        dst, src, mask, steps = args
        data = dev.array(src).view(np.uint32)
        idx = 0
        for _ in range(steps + (1 if off_by_one else 0)):
            nxt = ((idx * 1664525 + 1013904223) & 0xFFFFFFFF) & mask
            idx = nxt ^ (int(data[idx * 8]) & 0x40000000)
        dev.array(dst)[:2] = [idx & 4095, idx >> 12]

    return body


CHASE_SIZES = (
    "  - {label: 4 KiB, dims: {sectors: 128, steps: 1000}}\n"
    "  - {label: 64 KiB, dims: {sectors: 2048, steps: 3000}}\n"
)


@pytest.mark.parametrize("experiment", ["chase-latency", "chase-latency-dram"])
def test_the_chase_runs_whole_warm_or_flushed(tmp_path: Path, experiment: str) -> None:
    root = _repo(tmp_path, experiment, CHASE_SIZES)
    device = FakeDevice({"chase_sectors": _chase_sectors(), "copy_kernel": _copy})
    code, res = _run(root, device, experiment)
    assert code == 0, [(r.kernel, r.check.message) for r in res.rows]
    assert [r.setup for r in res.rows] == ([{"l2": "warm"}] * 2 if experiment == "chase-latency" else [None] * 2)


def test_a_chase_one_step_long_fails(tmp_path: Path) -> None:
    root = _repo(tmp_path, "chase-latency", CHASE_SIZES)
    code, res = _run(root, FakeDevice({"chase_sectors": _chase_sectors(True), "copy_kernel": _copy}), "chase-latency")
    assert code == 1
    assert all(r.check.message.startswith("dst: ") and "differ from the reference" in r.check.message for r in res.rows)


def test_the_chase_reference_jumps_exactly_as_the_generator_steps() -> None:
    from measure.experiment.refs_memory import lcg_jump

    for modulus in (128, 4096, 1 << 27):
        x = 0
        for steps in range(1, 3000):
            x = ((x * 1664525 + 1013904223) & 0xFFFFFFFF) & (modulus - 1)
            if steps in (1, 2, 127, 128, 129, 2999):
                assert lcg_jump(0, steps, modulus, 1664525, 1013904223) == x


def _reads(from_constant: bool):  # type: ignore[no-untyped-def]
    """const_reads / global_reads: lane l adds |table[(base + 33 t) mod 4096]|, base = (l mod spread) 128."""

    def body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        if from_constant:
            dst, spread, iters = args
            table = dev.constant("c_table")
        else:
            dst, src, spread, iters = args
            table = dev.array(src)[:4096]
        steps = np.arange(iters) * 33
        words = [table[(lane % spread * 128 + steps) % 4096] for lane in range(32)]
        lanes = np.array([np.abs(w).astype(F32).sum(dtype=F32) for w in words])
        dev.array(dst)[: grid[0] * 256] = np.tile(lanes, grid[0] * 8)

    return body


def test_constant_memory_runs_whole_with_the_table_in_constant_memory(tmp_path: Path) -> None:
    root = _repo(tmp_path, "constant-memory", "  - {label: tiny, dims: {blocks: 2}}\n")
    kernels = {"const_reads": _reads(True), "global_reads": _reads(False), "copy_kernel": _copy}
    code, res = _run(root, FakeDevice(kernels, constant_sizes={"c_table": 16384}), "constant-memory")
    assert code == 0, [(r.kernel, r.check.message) for r in res.rows]
    spreads = [1, 2, 4, 8, 16, 32]
    assert [r.kernel for r in res.rows] == [f"const-{d}" for d in spreads] + [f"global-{d}" for d in spreads]


def test_constant_reads_from_the_wrong_lane_group_fail(tmp_path: Path) -> None:
    def every_lane_alone(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        dst, _, iters = args
        _reads(True)(dev, grid, block, [dst, 32, iters])

    root = _repo(tmp_path, "constant-memory", "  - {label: tiny, dims: {blocks: 2}}\n")
    kernels = {"const_reads": every_lane_alone, "global_reads": _reads(False), "copy_kernel": _copy}
    code, res = _run(root, FakeDevice(kernels, constant_sizes={"c_table": 16384}), "constant-memory")
    assert code == 1
    wrong = [r.kernel for r in res.rows if not r.check.passed]
    assert wrong == ["const-1", "const-2", "const-4", "const-8", "const-16"]


def _window(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    """reuse_*: four float32 sums of |x| per thread (element k into sum k mod 4), passes times."""
    dst, src, window, passes = args
    blocks = grid[0]
    mags = np.abs(dev.array(src)[: blocks * window].reshape(blocks, window // 1024, 1024))
    acc = np.zeros((4, blocks, 1024), dtype=F32)
    for _ in range(passes):
        for k in range(window // 1024):
            acc[k % 4] += mags[:, k, :]
    dev.array(dst)[: blocks * 1024] = ((acc[0] + acc[1]) + (acc[2] + acc[3])).reshape(-1)


def test_l1_reuse_runs_whole_with_its_extra_counters_declared(tmp_path: Path) -> None:
    sizes = "  - {label: 16 KiB, dims: {blocks: 3, window: 4096, passes: 5}}\n"
    root = _repo(tmp_path, "l1-reuse", sizes)
    kernels = {"reuse_plain": _window, "reuse_nc": _window, "reuse_cg": _window, "copy_kernel": _copy}
    code, res = _run(root, FakeDevice(kernels), "l1-reuse")
    assert code == 0, [(r.kernel, r.check.message) for r in res.rows]
    declared, _ = load_specs(ROOT)
    extras = {k.id: k.counters for k in declared["l1-reuse"].experiment.kernels}
    assert all("l1tex__t_sector_hit_rate.pct" in c and "sm__ctas_launched.max" in c for c in extras.values())


def _map(op):  # type: ignore[no-untyped-def]
    def body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        dst, src, n = args
        dev.array(dst)[:n] = op(dev.array(src)[:n])

    return body


def test_fusion_runs_whole_and_the_fused_kernel_is_both_steps(tmp_path: Path) -> None:
    root = _repo(tmp_path, "fusion", "  - {label: tiny, dims: {n: 8192}}\n")
    step1 = _map(lambda x: (x.astype(np.float64) * 2 + 1).astype(F32))
    step2 = _map(lambda t: np.maximum(t, F32(0)))
    fused = _map(lambda x: np.maximum((x.astype(np.float64) * 2 + 1).astype(F32), F32(0)))
    kernels = {"scale_shift": step1, "relu": step2, "scale_shift_relu": fused, "copy_kernel": _copy}
    code, res = _run(root, FakeDevice(kernels), "fusion")
    assert code == 0, [(r.kernel, r.check.message) for r in res.rows]
    unfused_fused = FakeDevice({**kernels, "scale_shift_relu": step1})  # forgot the ReLU
    root2 = _repo(tmp_path / "again", "fusion", "  - {label: tiny, dims: {n: 8192}}\n")
    code, res = _run(root2, unfused_fused, "fusion")
    assert code == 1 and [r.kernel for r in res.rows if not r.check.passed] == ["fused"]
