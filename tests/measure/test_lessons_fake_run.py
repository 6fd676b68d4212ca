"""The latency-hiding and reduction specs as committed (only their sizes shrunk), run through the
runner's whole path on the fake device, with the kernels modelled in numpy (kernelmodels.py): every
row's arguments, opt-in, dynamic shared memory, reference and output buffer fit together, every row
passes its check, and each occupancy row gets the resident blocks its label claims."""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path

import kernelmodels as K

from measure.experiment.nodes import load_nodes
from measure.experiment.spec import load_specs
from measure.run import runner
from measure.store import results as R
from measure.testing import synthetic as T
from measure.testing.fakedevice import FakeDevice

ROOT = Path(__file__).resolve().parents[2]
QUICK = runner.Options(min_samples=3, min_gpu_time_s=0.0, row_time_limit_s=0.5, warmup_launches=1, max_batch=4)


def _repo(tmp_path: Path, folder: str, size_line: str, *replacements: tuple[str, str]) -> Path:
    T.write_fixture_repo(tmp_path)
    T.write_small_ceilings(tmp_path, "256 KiB", 65536)
    shutil.copytree(ROOT / "code" / folder, tmp_path / "code" / folder)
    spec_path = tmp_path / "code" / folder / "experiment.yaml"
    text = spec_path.read_text()
    text, count = re.subn(r"(?m)^  - \{label: .*dims: .*\}\}\n", "", text)
    assert count >= 1
    text = text.replace("sizes:\n", "sizes:\n" + size_line, 1)
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new)
    spec_path.write_text(text)
    return tmp_path


def _run(root: Path, device: FakeDevice, experiment: str) -> R.Result:
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
    assert code == 0, [(r.kernel, r.check.message) for r in entry.result.rows]
    return entry.result


def _copy(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n]


def _stream(accumulators: int):  # type: ignore[no-untyped-def]
    def body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        dst, src, n = args
        threads = grid[0] * block[0]
        dev.array(dst)[:threads] = K.thread_register_sums(dev.array(src)[:n], threads, accumulators)

    return body


def _chase(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, mask, steps, chasers = args
    dev.array(dst)[: grid[0] * 64] = K.chase(dev.array(src)[: mask + 1], grid[0], steps, chasers)


def test_latency_hiding_runs_whole_with_the_occupancy_each_label_claims(tmp_path: Path) -> None:
    root = _repo(
        tmp_path,
        "latency-hiding",
        "  - {label: tiny, dims: {n: 65536, blocks: 132}}\n",
        ("steps: 8192", "steps: 64"),
    )
    kernels = {f"stream_ilp{k}": _stream(k) for k in (1, 2, 4, 8)}
    device = FakeDevice({**kernels, "chase": _chase, "copy_kernel": _copy})
    res = _run(root, device, "latency-hiding")
    blocks = {r.kernel: r.occupancy.blocks_per_sm for r in res.rows if r.occupancy is not None}
    assert blocks == {
        "warps-2": 1,
        "warps-4": 2,
        "warps-8": 4,
        "warps-16": 8,
        "warps-32": 16,
        "warps-64": 32,
        "warps-8-ilp2": 4,
        "warps-8-ilp4": 4,
        "warps-8-ilp8": 4,
        "warps-64-ilp4": 32,
        "warps-64-ilp8": 32,
        "chase-1": 32,
        "chase-132": 32,
    }
    for row in res.rows:  # the label's warps per SM are the driver's (here the fake's) blocks x 2
        match = re.match(r"(\d+) warps/SM", row.label)
        if match:
            assert row.occupancy is not None and row.occupancy.warps_per_sm == int(match.group(1)), row.label
    assert all(r.check.passed and r.samples is not None for r in res.rows)


def _tree(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    out, src, n = args
    dev.array(out)[: grid[0]] = K.reduce_tree(dev.array(src)[:n], grid[0])


def _atomic_each(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    out, src, n = args
    dev.array(out)[: grid[0]] = K.reduce_atomic_each(dev.array(src)[:n], grid[0])


def test_reduction_runs_whole(tmp_path: Path) -> None:
    root = _repo(tmp_path, "reduction", "  - {label: tiny, dims: {n: 100003, blocks: 6}}\n")
    device = FakeDevice(
        {
            "reduce_tree": _tree,
            "reduce_shuffle": _tree,  # the same sums to within the tolerance
            "reduce_atomic_each": _atomic_each,
            "reduce_atomic_warp": _atomic_each,
            "copy_kernel": _copy,
        }
    )
    res = _run(root, device, "reduction")
    assert [r.kernel for r in res.rows] == ["tree", "shuffle", "atomic-each", "atomic-warp"]
    assert all(r.check.passed for r in res.rows)


def test_a_reduction_kernel_that_drops_a_block_fails_its_row(tmp_path: Path) -> None:
    def dropped(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        _tree(dev, grid, block, args)
        dev.array(args[0])[grid[0] - 1] = 0.0

    root = _repo(tmp_path, "reduction", "  - {label: tiny, dims: {n: 100003, blocks: 6}}\n")
    kernels = {"reduce_tree": dropped, "reduce_shuffle": _tree, "reduce_atomic_each": _atomic_each}
    device = FakeDevice({**kernels, "reduce_atomic_warp": _atomic_each, "copy_kernel": _copy})
    declared, _ = load_specs(root)
    nodes, _ = load_nodes(root)
    code = runner.run(
        root,
        "test-node",
        nodes["test-node"],
        declared,
        ["reduction"],
        QUICK,
        runner.Provenance0(),
        root / R.RESULTS_DIR,
        device=device,
    )
    assert code == 1
    res = R.load_all(root).get("reduction", "test-node").result
    assert res is not None
    tree = next(r for r in res.rows if r.kernel == "tree")
    assert not tree.check.passed and tree.check.message.startswith("out: 1 of 6 elements are off by more than")


def _divergence(rule: int):  # type: ignore[no-untyped-def]
    def body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        dst, src, n = args
        dev.array(dst)[:n] = K.divergence(dev.array(src)[:n], rule)

    return body


def _scale(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n] * 2


def _histogram(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    hist, src, n, bins = args
    dev.array(hist)[: grid[0] * bins] = K.histogram(dev.array(src)[:n], grid[0], bins).reshape(-1)


def test_warp_divergence_runs_whole(tmp_path: Path) -> None:
    root = _repo(tmp_path, "warp-divergence", "  - {label: tiny, dims: {n: 1000}}\n")
    rules = {"branch_by_warp": 0, "branch_by_lane": 1, "branch_by_sign": 2, "select_by_sign": 2}
    device = FakeDevice({**{f: _divergence(r) for f, r in rules.items()}, "copy_kernel": _copy})
    res = _run(root, device, "warp-divergence")
    assert [r.kernel for r in res.rows] == ["warp-uniform", "lane-alternating", "data-sign", "select"]


def test_vector_loads_runs_whole_at_a_ragged_size(tmp_path: Path) -> None:
    root = _repo(tmp_path, "vector-loads", "  - {label: tiny, dims: {n: 4099}}\n")
    functions = ["scale_float", "scale_float2", "scale_float4", "scale_float4_once", "scale_float4_x4"]
    res = _run(root, FakeDevice({**dict.fromkeys(functions, _scale), "copy_kernel": _copy}), "vector-loads")
    assert {r.launch.grid[0] for r in res.rows if r.launch is not None} == {132 * 8, 5, 2}


def test_histogram_runs_whole_with_the_opt_in_where_the_bins_need_it(tmp_path: Path) -> None:
    sizes = "".join(f"  - {{label: '{b} bins', dims: {{n: 3001, bins: {b}, blocks: 2}}}}\n" for b in (4, 256, 16384))
    root = _repo(tmp_path, "histogram", sizes)
    functions = ["hist_global", "hist_shared", "hist_warp_agg"]
    device = FakeDevice({**dict.fromkeys(functions, _histogram), "copy_kernel": _copy})
    res = _run(root, device, "histogram")
    assert len(res.rows) == 9
    shared = {r.size: r.occupancy for r in res.rows if r.kernel == "shared"}
    # 64 KiB of counters at 16384 bins: past the 48 KiB default, launched with the opt-in; 3 per SM.
    assert shared["16384 bins"] is not None and shared["16384 bins"].blocks_per_sm == 3
    assert ("hist_shared", 65536) in device.launches
