"""The references of warp-divergence, reduction, vector-loads, histogram and latency-hiding, against
thread-by-thread models of their kernels (tests/measure/kernelmodels.py), under the tolerance each
spec declares, through the runner's own comparison (measure.gpu.check.compare). Each test also shows
that the check would catch the kind of bug it is there for."""

from __future__ import annotations

from pathlib import Path

import kernelmodels as K
import numpy as np
import pytest

from measure.experiment import references as R
from measure.experiment.spec import load_specs
from measure.gpu.check import compare

ROOT = Path(__file__).resolve().parents[2]


def _tolerance(experiment: str, kernel: str) -> float:
    declared, problems = load_specs(ROOT)
    assert problems == []
    return next(k.tolerance for k in declared[experiment].experiment.kernels if k.id == kernel)


def _inputs(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random(n, dtype=np.float32) * 2 - 1).astype(np.float32)


# --- warp-divergence ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("rule", "kernel"), [(0, "warp-uniform"), (1, "lane-alternating"), (2, "data-sign")])
def test_divergent_chains_matches_the_stepped_kernel(rule: int, kernel: str) -> None:
    src = _inputs(1000, rule)
    ref = R.divergent_chains({"src": src}, {"n": 1000, "rule": rule, "iters": 256})["dst"]
    check = compare(K.divergence(src, rule), ref, _tolerance("warp-divergence", kernel))
    assert check.passed, check.message
    assert check.max_abs_error is not None and check.max_abs_error < 2.0**-16


def test_divergent_chains_rules_and_step_counts_are_told_apart() -> None:
    """An element on the wrong side, or one step too few, fails the spec's tolerance."""
    src = _inputs(1000, 7)
    tol = _tolerance("warp-divergence", "data-sign")
    ref = R.divergent_chains({"src": src}, {"n": 1000, "rule": 2, "iters": 256})["dst"]
    for wrong in (K.divergence(src, 0), K.divergence(src, 1), K.divergence(src, 2, iters=255)):
        check = compare(wrong, ref, tol)
        assert not check.passed
    one_flipped = K.divergence(src, 2)
    one_flipped[17] = K.divergence(-src, 2)[17]  # element 17 took the other side
    assert compare(one_flipped, ref, tol).message.startswith("1 of 1000 elements are off by more than")


def test_warp_rule_follows_the_warp_not_the_element() -> None:
    ref = R.divergent_chains({"src": np.zeros(128, np.float32)}, {"n": 128, "rule": 0, "iters": 256})["dst"]
    assert np.all(ref[:32] == ref[0]) and np.all(ref[64:96] == ref[0]) and np.all(ref[32:64] == ref[32])
    assert ref[0] != ref[32]


# --- reduction ---------------------------------------------------------------------------------------


def test_block_partials_matches_the_tree_kernel_at_the_real_work_per_thread() -> None:
    """64 blocks with the spec's ~248 elements per thread, and a ragged last round."""
    blocks = 64
    n = blocks * 256 * 248 + 12345
    src = _inputs(n, 1)
    ref = R.block_partials({"src": src}, {"n": n, "blocks": blocks})["out"]
    got = K.reduce_tree(src, blocks)
    tol = _tolerance("reduction", "tree")
    check = compare(got, ref, tol)
    assert check.passed, check.message
    assert check.max_abs_error is not None and check.max_abs_error < tol * np.abs(ref).max() / 10
    # Thread 0 of block 0 losing its last element fails.
    last = (n - 1) // (blocks * 256) * (blocks * 256)
    assert not compare(got - np.float32(src[last]) * (abs(src[last]) > 0.01), ref, tol).passed


def test_block_partials_matches_atomics_in_any_order_at_the_real_work_per_block() -> None:
    """63550 adds per block into one float32, in random order, as reduce_atomic_each does."""
    blocks = 4
    n = blocks * 63550 + 100
    src = _inputs(n, 2)
    ref = R.block_partials({"src": src}, {"n": n, "blocks": blocks})["out"]
    tol = _tolerance("reduction", "atomic-each")
    for seed in range(3):
        check = compare(K.reduce_atomic_each(src, blocks, seed), ref, tol)
        assert check.passed, check.message


def test_block_partials_groups_by_block_not_by_contiguous_chunks() -> None:
    blocks = 2
    src = np.arange(blocks * 256 * 2, dtype=np.float32)
    out = R.block_partials({"src": src}, {"n": src.size, "blocks": blocks})["out"]
    # Block 0 owns elements 0-255 and 512-767.
    assert out[0] == sum(range(256)) + sum(range(512, 768))


# --- vector-loads ------------------------------------------------------------------------------------


def test_scale2_is_exact_and_keeps_the_shape() -> None:
    src = _inputs(67, 3)
    out = R.scale2({"src": src}, {"n": 67})["dst"]
    assert out.dtype == np.float32 and out.shape == (67,)
    assert compare(src + src, out, 0.0).passed
    assert not compare(src, out, 0.0).passed


# --- histogram ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("bins", [4, 256, 16384])
def test_block_histograms_matches_the_kernel_walk(bins: int) -> None:
    blocks = 3
    src = _inputs(3001, bins)
    # The edges: -1 (bin 0), the float just below 1 (x + 1 rounds to 2: clamped), and -0.0.
    src[:3] = [-1.0, np.nextafter(np.float32(1), np.float32(0)), -0.0]
    ref = R.block_histograms({"src": src}, {"n": src.size, "bins": bins, "blocks": blocks})["hist"]
    assert ref.shape == (blocks, bins) and ref.sum() == src.size
    assert compare(K.histogram(src, blocks, bins), ref, 0.0).passed
    assert ref[0, bins - 1] >= 1 and ref[0, 0] >= 1


def test_histogram_bins_round_in_float32_like_the_kernel() -> None:
    """Inputs whose bin differs between float32 and float64 arithmetic get the float32 one."""
    x = np.array([-(2.0**-25), 0.5 - 2.0**-26, np.nextafter(np.float32(1), np.float32(0))], dtype=np.float32)
    # -2^-25 + 1 rounds to 1.0 in float32: bin bins/2, where float64 says bins/2 - 1.
    assert list(R.histogram_bins(x, 4)) == [2, 3, 3]


# --- latency-hiding ----------------------------------------------------------------------------------


@pytest.mark.parametrize("accumulators", [1, 2, 4, 8])
def test_thread_sums_matches_the_stream_kernels(accumulators: int) -> None:
    blocks = 8
    n = blocks * 64 * 497 + 333  # the spec's work per thread, ragged
    src = _inputs(n, accumulators)
    ref = R.thread_sums({"src": src}, {"n": n, "blocks": blocks})["dst"]
    check = compare(
        K.thread_register_sums(src, blocks * 64, accumulators), ref, _tolerance("latency-hiding", "warps-8")
    )
    assert check.passed, check.message


def test_chase_sums_matches_the_chase_kernel_step_by_step() -> None:
    n, blocks = 2**14, 3
    src = _inputs(n, 4)
    for chasers in (1, 3):
        ref = R.chase_sums({"src": src}, {"n": n, "blocks": blocks, "steps": 500, "chasers": chasers})["dst"]
        got = K.chase(src, blocks, 500, chasers)
        check = compare(got, ref, _tolerance("latency-hiding", "chase-1"))
        assert check.passed, check.message
        assert np.count_nonzero(ref) == chasers
    # One step fewer is caught.
    short = K.chase(src, blocks, 499, 1)
    ref = R.chase_sums({"src": src}, {"n": n, "blocks": blocks, "steps": 500, "chasers": 1})["dst"]
    assert not compare(short, ref, _tolerance("latency-hiding", "chase-1")).passed


def test_the_chase_visits_every_element_once_per_period() -> None:
    """The LCG has full period modulo a power of two: 2^10 steps visit 2^10 different indices."""
    n = 2**10
    a, c, start = R.CHASE_LCG
    idx, seen = (5 * start) % 2**32 & (n - 1), set()
    for _ in range(n):
        seen.add(idx)
        idx = (idx * a + c) % 2**32 & (n - 1)
    assert len(seen) == n


def test_chase_sums_refuses_a_size_that_is_not_a_power_of_two() -> None:
    with pytest.raises(ValueError, match="n = 1000 is not a power of two"):
        R.chase_sums({"src": np.zeros(1000, np.float32)}, {"n": 1000, "blocks": 1, "steps": 1, "chasers": 1})


def test_chasers_beyond_the_grid_do_not_exist() -> None:
    src = _inputs(2**10, 5)
    ref = R.chase_sums({"src": src}, {"n": 2**10, "blocks": 2, "steps": 10, "chasers": 5})["dst"]
    assert ref.shape == (128,) and np.count_nonzero(ref) == 2
    assert compare(K.chase(src, 2, 10, 5), ref, 1.0e-4).passed


def test_the_divergence_constants_are_the_sources() -> None:
    """The references' constants are read from nowhere: compare them with the .cu file's PTX
    immediates (the branch bodies) and its #defines (the select kernel)."""
    import re

    source = (ROOT / "code" / "warp-divergence" / "divergence.cu").read_text()
    for step, (m, c) in zip(("STEP_A", "STEP_B"), R.DIVERGENCE_SIDES, strict=True):
        found = re.search(rf'#define {step} "fma\.rn\.f32 %0, %0, 0f([0-9A-F]{{8}}), 0f([0-9A-F]{{8}});"', source)
        assert found is not None, step
        bits = np.array([int(found.group(1), 16), int(found.group(2), 16)], dtype=np.uint32)
        assert list(bits.view(np.float32)) == [m, c]
    for name, value in zip(("A_MUL", "A_ADD", "B_MUL", "B_ADD"), np.ravel(R.DIVERGENCE_SIDES), strict=True):
        found = re.search(rf"#define {name} (-?[0-9.]+)f", source)
        assert found is not None and float(found.group(1)) == value, name


def test_the_chase_constants_are_the_sources() -> None:
    import re

    source = (ROOT / "code" / "latency-hiding" / "latency.cu").read_text()
    values = [re.search(rf"#define {name} ([0-9]+)u", source) for name in ("LCG_A", "LCG_C", "START_MUL")]
    assert tuple(int(v.group(1)) for v in values if v is not None) == R.CHASE_LCG
