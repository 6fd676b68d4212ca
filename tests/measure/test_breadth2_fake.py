"""The breadth2 experiments (sm-schedulers, ilp, block-size, wave-quantization, ...) as committed, only
their sizes and step counts shrunk, run through the runner's whole path on the fake device with the
kernels modelled in numpy (breadth2_models.py): every row's arguments, opt-in, dynamic shared memory,
reference and output buffer fit together and every row passes its check; and each reference's
tolerance holds for the modelled kernel at the committed step counts."""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path

import breadth2_models as M
import kernelmodels as K
import numpy as np
import pytest

from measure.experiment.nodes import load_nodes
from measure.experiment.references import REFERENCES
from measure.experiment.spec import load_specs
from measure.gpu.check import compare
from measure.run import runner
from measure.store import results as R
from measure.testing import synthetic as T
from measure.testing.fakedevice import FakeDevice

ROOT = Path(__file__).resolve().parents[2]
QUICK = runner.Options(min_samples=3, min_gpu_time_s=0.0, row_time_limit_s=0.5, warmup_launches=1, max_batch=4)


def _repo(tmp_path: Path, folder: str, sizes: str, *replacements: tuple[str, str]) -> Path:
    T.write_fixture_repo(tmp_path)
    T.write_small_ceilings(tmp_path, "256 KiB", 65536)
    shutil.copytree(ROOT / "code" / folder, tmp_path / "code" / folder)
    spec_path = tmp_path / "code" / folder / "experiment.yaml"
    text = spec_path.read_text()
    text, count = re.subn(r"(?m)^  - \{label: .*dims: .*\}\}\n", "", text)
    assert count >= 1
    text = text.replace("sizes:\n", "sizes:\n" + sizes, 1)
    for old, new in replacements:
        assert old in text, old
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
    assert all(r.check.passed for r in entry.result.rows)
    return entry.result


def _copy(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n]


def _chains(chains: int):  # type: ignore[no-untyped-def]
    def body(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
        dst, src, n, iters, a_bits, b_bits = args
        assert grid[0] * block[0] >= n
        dev.array(dst)[:n] = M.fma_chains(dev.array(src)[:n], chains, iters, a_bits, b_bits)

    return body


def _spec(folder: str) -> str:
    return (ROOT / "code" / folder / "experiment.yaml").read_text()


def _tolerance(folder: str, kernel: str) -> float:
    declared, problems = load_specs(ROOT)
    assert problems == []
    exp = next(d.experiment for d in declared.values() if d.source_path.startswith(f"code/{folder}/"))
    return next(k.tolerance for k in exp.kernels if k.id == kernel)


# --- sm-schedulers -----------------------------------------------------------------------------------


def _chains_seq(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n, iters, a_bits, b_bits = args
    assert grid[0] * block[0] <= n  # a grid-stride loop: every element is reached
    dev.array(dst)[:n] = M.fma_chains(dev.array(src)[:n], 1, iters, a_bits, b_bits)


def test_sm_schedulers_runs_whole(tmp_path: Path) -> None:
    root = _repo(tmp_path, "sm-schedulers", '  - {label: "tiny", dims: {n: 270336, iters: 16}}\n')
    res = _run(root, FakeDevice({"fma_chains_seq": _chains_seq, "copy_kernel": _copy}), "sm-schedulers")
    assert [r.launch.grid[0] for r in res.rows if r.launch is not None] == [132, 264, 528, 1056, 2112]
    assert {r.launch.block[0] for r in res.rows if r.launch is not None} == {128}


def test_sm_schedulers_rows_are_132_w_blocks_of_4_warps_and_cover_n_evenly() -> None:
    text = _spec("sm-schedulers")
    rows = re.findall(r'label: "(\d+) warps?/scheduler \((\d+) per SM\)"\n.*\n.*\n.*\n    grid: \[(\d+)\]', text)
    assert [int(w) for w, _, _ in rows] == [1, 2, 4, 8, 16]
    n = int(re.search(r"dims: \{n: (\d+)", text).group(1))
    for w, per_sm, grid in rows:
        assert int(per_sm) == 4 * int(w) and int(grid) == 132 * int(w)
        assert n % (int(grid) * 128) == 0  # every thread runs the same number of chains


# --- ilp ---------------------------------------------------------------------------------------------


def test_ilp_runs_whole(tmp_path: Path) -> None:
    root = _repo(
        tmp_path,
        "ilp",
        '  - {label: "1 warp/scheduler", dims: {n: 16896}}\n',
        *((f"iters: {32768 // c},", f"iters: {64 // c},") for c in (1, 2, 4, 8)),
    )
    kernels = {f"fma_ilp{c}": _chains(c) for c in (1, 2, 4, 8)}
    res = _run(root, FakeDevice({**kernels, "copy_kernel": _copy}), "ilp")
    assert [r.kernel for r in res.rows] == ["chains-1", "chains-2", "chains-4", "chains-8"]


@pytest.mark.parametrize("chains", [1, 2, 4, 8])
def test_chain_tolerances_hold_at_the_committed_step_counts(chains: int) -> None:
    """32768 FMAs per thread in float32 against the float64 closed form: within the declared tolerance,
    and a thread that read its neighbour's element fails."""
    rng = np.random.default_rng(chains)
    src = rng.uniform(-1, 1, 256).astype(np.float32)
    dims = {"chains": chains, "iters": 32768 // chains, "a_bits": 1065352960, "b_bits": 922746880}
    ref = REFERENCES["fma_chains_n"]({"src": src}, dims)["dst"]
    got = M.fma_chains(src, **dims)
    tol = _tolerance("ilp", f"chains-{chains}")
    assert compare(got, ref, tol).passed
    wrong = got.copy()
    wrong[7] = got[8]
    assert not compare(wrong, ref, tol).passed


def test_wave_quantization_tolerance_holds() -> None:
    rng = np.random.default_rng(7)
    src = rng.uniform(-1, 1, 256).astype(np.float32)
    dims = {"chains": 8, "iters": 1024, "a_bits": 1065349120, "b_bits": 956301312}
    ref = REFERENCES["fma_chains_n"]({"src": src}, dims)["dst"]
    got = M.fma_chains(src, **dims)
    tol = _tolerance("wave-quantization", "fixed")
    assert compare(got, ref, tol).passed
    wrong = got.copy()
    wrong[3] = got[4]
    assert not compare(wrong, ref, tol).passed


# --- wave-quantization -------------------------------------------------------------------------------


def test_wave_quantization_runs_whole_at_one_block_per_sm(tmp_path: Path) -> None:
    sizes = "".join(f'  - {{label: "{g} blocks", dims: {{blocks: {g}}}}}\n' for g in (1, 133))
    root = _repo(tmp_path, "wave-quantization", sizes, ("iters: 1024,", "iters: 16,"))
    res = _run(root, FakeDevice({"fixed_work": _chains(8), "copy_kernel": _copy}), "wave-quantization")
    assert [r.launch.grid[0] for r in res.rows if r.launch is not None] == [1, 133]
    assert {r.occupancy.blocks_per_sm for r in res.rows if r.occupancy is not None} == {1}


def test_wave_quantization_grids_straddle_each_wave_boundary() -> None:
    grids = [int(g) for g in re.findall(r"dims: \{blocks: (\d+)\}", _spec("wave-quantization"))]
    for wave in (132, 264, 396):
        assert {wave - 1, wave, wave + 1} <= set(grids), wave
    assert min(grids) == 1 and max(grids) == 4 * 132


# --- block-size --------------------------------------------------------------------------------------


def _center(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, threads = args
    assert grid[0] * block[0] >= threads
    dev.array(dst)[: 64 * threads] = M.center64(dev.array(src)[: 64 * threads], threads)


def test_block_size_runs_whole(tmp_path: Path) -> None:
    root = _repo(tmp_path, "block-size", '  - {label: "tiny", dims: {n: 65536, threads: 1024}}\n')
    res = _run(root, FakeDevice({"copy_1": _copy, "center_64": _center, "copy_kernel": _copy}), "block-size")
    blocks = {r.kernel: r.launch.block[0] for r in res.rows if r.launch is not None}
    assert blocks["copy-32"] == 32 and blocks["center-512"] == 512
    assert [r.kernel for r in res.rows][-1] == "center-1024"


def test_center64_reference_against_the_model() -> None:
    rng = np.random.default_rng(3)
    threads = 512
    src = rng.uniform(-1, 1, 64 * threads).astype(np.float32)
    ref = REFERENCES["center64"]({"src": src}, {"threads": threads})["dst"]
    got = M.center64(src, threads)
    tol = _tolerance("block-size", "center-32")
    assert compare(got, ref, tol).passed
    swapped = src.copy()
    swapped[0] = src[threads * 4]  # thread 0 reads another thread's value
    assert not compare(M.center64(swapped, threads), ref, tol).passed


# --- spilling ----------------------------------------------------------------------------------------


def _matmul(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    c, a, b, m, n, k = args
    assert grid[0] * 128 >= n and grid[1] * 128 >= m
    product = dev.array(a)[: m * k].reshape(m, k) @ dev.array(b)[: k * n].reshape(k, n)
    dev.array(c)[: m * n] = product.reshape(-1)


def test_spilling_runs_whole_at_a_ragged_size(tmp_path: Path) -> None:
    root = _repo(tmp_path, "spilling", "  - {label: ragged, dims: {m: 130, n: 67, k: 45}}\n")
    functions = ["regtile_free", "regtile_max96", "regtile_max80", "regtile_max64"]
    res = _run(root, FakeDevice({**dict.fromkeys(functions, _matmul), "copy_kernel": _copy}), "spilling")
    assert [r.kernel for r in res.rows] == ["free", "max96", "max80", "max64"]


def test_spilling_caps_are_the_functions_maxnreg() -> None:
    source = (ROOT / "code" / "spilling" / "regtile.cu").read_text()
    caps = dict(re.findall(r"__maxnreg__\((\d+)\) (regtile_max\d+)\(", source))
    assert caps == {"96": "regtile_max96", "80": "regtile_max80", "64": "regtile_max64"}


def test_a_function_with_a_register_cap_is_found_and_a_misspelt_one_is_not() -> None:
    from measure.experiment.speckernel import function_defined

    source = 'extern "C" {\n__global__ void __maxnreg__(64) capped(float* c) { }\n}\n'
    assert function_defined(source, "capped")
    assert function_defined(source.replace("__maxnreg__(64) ", "__launch_bounds__(256) __maxnreg__(64) "), "capped")
    assert not function_defined(source.replace("__maxnreg__", "__maxreg__"), "capped")


# --- warp-shuffle ------------------------------------------------------------------------------------


def _fixed_tree(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    out, src, n = args
    assert block[0] == 256
    dev.array(out)[: grid[0]] = M.fixed_point_tree(dev.array(src)[:n], grid[0])


def test_warp_shuffle_runs_whole_at_a_ragged_size(tmp_path: Path) -> None:
    root = _repo(tmp_path, "warp-shuffle", '  - {label: "ragged", dims: {n: 1029}}\n')
    functions = ["reduce_shared_tree", "reduce_shared_syncwarp", "reduce_shuffle", "reduce_redux"]
    res = _run(root, FakeDevice({**dict.fromkeys(functions, _fixed_tree), "copy_kernel": _copy}), "warp-shuffle")
    assert [r.kernel for r in res.rows] == ["tree", "syncwarp", "shuffle", "redux"]
    assert {r.launch.grid[0] for r in res.rows if r.launch is not None} == {5}


def test_fixed_point_sums_are_exact_and_a_lost_element_fails() -> None:
    rng = np.random.default_rng(5)
    src = rng.uniform(-1, 1, 256 * 7 - 3).astype(np.float32)
    src[:4] = np.float32(0.5 / 4096), np.float32(1.5 / 4096), np.float32(-0.5 / 4096), np.float32(-1.0)  # ties
    ref = REFERENCES["fixed_point_block_sums"]({"src": src}, {"n": src.size})["out"]
    assert compare(M.fixed_point_tree(src, 7), ref, 0.0).passed
    lost = src.copy()
    lost[300] = 0.0
    assert not compare(M.fixed_point_tree(lost, 7), ref, 0.0).passed


# --- stall-chase, stall-transpose, stall-matmul ------------------------------------------------------


def _chase(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, mask, steps, chasers = args
    dev.array(dst)[: grid[0] * 64] = K.chase(dev.array(src)[: mask + 1], grid[0], steps, chasers)


def _transpose(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, rows, cols = args
    dev.array(dst)[: rows * cols] = dev.array(src)[: rows * cols].reshape(rows, cols).T.reshape(-1)


def test_stall_experiments_run_whole_and_ask_for_the_same_stall_counters(tmp_path: Path) -> None:
    root = _repo(
        tmp_path, "stall-chase", '  - {label: "tiny", dims: {n: 65536, blocks: 132}}\n', ("steps: 4096", "steps: 64")
    )
    shutil.copytree(ROOT / "code" / "stall-transpose", tmp_path / "code" / "stall-transpose")
    shutil.copytree(ROOT / "code" / "stall-matmul", tmp_path / "code" / "stall-matmul")
    for folder, size in (("stall-transpose", "{rows: 67, cols: 45}"), ("stall-matmul", "{m: 130, n: 67, k: 45}")):
        spec = tmp_path / "code" / folder / "experiment.yaml"
        spec.write_text(re.sub(r"dims: \{[^}]*\}", f"dims: {size}", spec.read_text()))
    device = FakeDevice(
        {
            "chase": _chase,
            "transpose_tiled": _transpose,
            "transpose_padded": _transpose,
            "matmul_naive": _matmul,
            "matmul_wmma_tf32": _matmul,
            "copy_kernel": _copy,
        }
    )
    extras = set()
    for exp in ("stall-chase", "stall-transpose", "stall-matmul"):
        _run(root, device, exp)
    declared, _ = load_specs(root)
    for exp in ("stall-chase", "stall-transpose", "stall-matmul"):
        for k in declared[exp].experiment.kernels:
            extras.add(tuple(k.counters))
    assert len(extras) == 1
    (counters,) = extras
    assert "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio" in counters


def test_stall_kernels_are_the_originals_copied_unchanged() -> None:
    def region(path: str, name: str) -> str:
        text = (ROOT / path).read_text()
        return text[text.index(f"// --8<-- [start:{name}]") : text.index(f"// --8<-- [end:{name}]")]

    pairs = [
        ("code/latency-hiding/latency.cu", "code/stall-chase/chase.cu", "chase"),
        ("code/day13-shared-memory/transpose.cu", "code/stall-transpose/transpose.cu", "tiled"),
        ("code/day13-shared-memory/transpose.cu", "code/stall-transpose/transpose.cu", "padded"),
        ("code/day16-matmul/matmul.cu", "code/stall-matmul/matmul.cu", "naive"),
        ("code/day16-matmul/matmul.cu", "code/stall-matmul/matmul.cu", "tensor"),
    ]
    for original, copy, name in pairs:
        assert region(original, name) == region(copy, name), (copy, name)


# --- concurrent-kernels and launch.streams -----------------------------------------------------------


def test_concurrent_kernels_runs_whole_with_each_row_on_its_streams(tmp_path: Path) -> None:
    root = _repo(tmp_path, "concurrent-kernels", '  - {label: "tiny", dims: {n: 512, iters: 32}}\n')
    device = FakeDevice({"small_chain": _chains(1), "copy_kernel": _copy})
    res = _run(root, device, "concurrent-kernels")
    assert [r.kernel for r in res.rows] == ["one", "serial-4", "streams-4", "serial-16", "streams-16"]
    assert set(device.repeat_streams) == {1, 4, 16}
    assert [r.launches for r in res.rows] == [None, 4, 4, 16, 16]


LAUNCH_SPEC = """\
id: toy-streams
title: launches over streams
source: toy.cu
element: float32
buffers:
  - {name: src, role: input, shape: [n]}
  - {name: dst, role: output, shape: [n]}
sizes:
  - {label: 1K, dims: {n: 1024}}
kernels:
  - id: spread
    label: spread
    kind: launch
    function: toy_copy
    block: [256]
    grid: ["cdiv(n, 256)"]
    args: [dst, src, n]
    launch: {mode: MODE, count: COUNT, streams: STREAMS}
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
"""
TOY_SOURCE = 'extern "C" {\n__global__ void toy_copy(float* dst, const float* src, int n) { }\n}\n'


@pytest.mark.parametrize(
    ("mode", "count", "streams", "message"),
    [
        ("stream", 8, 8, None),
        ("stream", 8, 0, "code/toy/experiment.yaml:18: kernel 'spread' launch.streams is 0; use 1 stream or more"),
        (
            "graph",
            8,
            4,
            "code/toy/experiment.yaml:18: kernel 'spread' launches on 4 streams in mode 'graph'; "
            "spread launches over streams in mode 'stream' only, or set streams: 1",
        ),
        (
            "stream",
            2,
            4,
            "code/toy/experiment.yaml:18: kernel 'spread' has 4 streams for 2 launches; "
            "use at most as many streams as launches",
        ),
    ],
)
def test_launch_streams_are_checked(mode: str, count: int, streams: int, message: str | None) -> None:
    from measure.experiment.spec import parse_spec

    text = LAUNCH_SPEC.replace("MODE", mode).replace("COUNT", str(count)).replace("STREAMS", str(streams))
    declared, found = parse_spec(text, "code/toy/experiment.yaml", TOY_SOURCE)
    assert (declared is None) == bool(found)
    assert [str(p) for p in found] == ([] if message is None else [message])


def test_sm_schedulers_tolerance_holds_at_16384_steps() -> None:
    rng = np.random.default_rng(11)
    src = rng.uniform(-1, 1, 256).astype(np.float32)
    dims = {"chains": 1, "iters": 16384, "a_bits": 1065352960, "b_bits": 922746880}
    ref = REFERENCES["fma_chains_n"]({"src": src}, dims)["dst"]
    got = M.fma_chains(src, **dims)
    tol = _tolerance("sm-schedulers", "warps-1")
    assert compare(got, ref, tol).passed
    wrong = got.copy()
    wrong[7] = got[8]
    assert not compare(wrong, ref, tol).passed
