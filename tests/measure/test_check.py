"""Output checks (poison, exact and tolerant comparison) and the numpy references, on the CPU."""

from __future__ import annotations

import numpy as np
import pytest

from measure.experiment import references
from measure.gpu.check import POISON_BITS, compare

RNG = np.random.default_rng(13)


def poisoned(n: int) -> np.ndarray:
    return np.full(n, POISON_BITS, dtype=np.uint32).view(np.float32)


def test_the_poison_is_a_nan_no_arithmetic_makes() -> None:
    p = poisoned(1)
    assert np.isnan(p[0]) and p.view(np.uint32)[0] == 0x7FC0DEAD
    assert np.float32(np.nan).view(np.uint32) != POISON_BITS


def test_an_exact_match_passes() -> None:
    ref = RNG.random(1000, dtype=np.float32)
    check = compare(ref.copy(), ref, 0.0)
    assert check.passed and (check.rel_error, check.max_abs_error, check.unwritten, check.message) == (0.0, 0.0, 0, "")


def test_unwritten_elements_are_named_as_such() -> None:
    ref = RNG.random(1000, dtype=np.float32)
    out = ref.copy()
    out[-3:] = poisoned(3)
    check = compare(out, ref, 0.0)
    assert not check.passed and check.unwritten == 3
    assert check.message == "3 of 1000 elements were never written (they still hold the poison)"


def test_a_real_nan_or_inf_fails() -> None:
    ref = RNG.random(10, dtype=np.float32)
    out = ref.copy()
    out[4] = np.inf
    assert compare(out, ref, 1e-3).message == "1 of 10 elements are NaN or infinite"


def test_exact_mismatch_reports_the_first_wrong_element() -> None:
    ref = np.arange(8, dtype=np.float32)
    out = ref.copy()
    out[5] = 7.0
    check = compare(out.reshape(2, 4), ref.reshape(4, 2), 0.0)  # shapes may differ, element counts may not
    assert not check.passed and check.max_abs_error == 2.0
    assert check.message == "1 of 8 elements differ from the reference (first at flat index 5: 7.0 instead of 5.0)"


def test_size_mismatch() -> None:
    assert compare(np.zeros(3, np.float32), np.zeros(4), 0.0).message == "the output has 3 elements, the reference 4"


def test_tolerance_is_relative_to_the_largest_reference_element() -> None:
    ref = np.array([100.0, 1.0, -50.0])
    inside = np.array([100.0005, 1.0005, -50.0], dtype=np.float32)  # errors ~5e-4 <= 1e-5 x 100
    assert compare(inside, ref, 1e-5).passed
    outside = np.array([100.0, 1.01, -50.0], dtype=np.float32)
    check = compare(outside, ref, 1e-5)
    assert not check.passed
    assert check.message == (
        "1 of 3 elements are off by more than 1e-05 x max|ref| = 0.001 (worst 0.01; first at flat index 1)"
    )


def test_transpose_reference() -> None:
    src = RNG.random((3, 5), dtype=np.float32)
    dst = references.transpose({"src": src}, {"rows": 3, "cols": 5})["dst"]
    assert dst.shape == (5, 3) and dst.flags.c_contiguous and (dst == src.T).all()
    assert (references.copy({"src": src}, {})["dst"] == src).all()


def test_matmul_reference_is_float64() -> None:
    a, b = RNG.random((4, 3), dtype=np.float32), RNG.random((3, 2), dtype=np.float32)
    c = references.matmul({"a": a, "b": b}, {})["c"]
    assert c.dtype == np.float64 and np.allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=0, atol=0)


@pytest.mark.parametrize("stride", [1, 2, 32, 33])
def test_strided_shared_sum_reference_matches_the_kernels_loop(stride: int) -> None:
    """The kernel's loop, written out in plain Python for two blocks, against the vectorised reference."""
    reps = 70
    src = RNG.random(2 * 1024, dtype=np.float32)
    got = references.strided_shared_sum({"src": src}, {"stride": stride, "reps": reps, "blocks": 2})["dst"]
    want = np.zeros(2 * 256)
    for block in range(2):
        words = src[block * 1024 : (block + 1) * 1024].astype(np.float64)
        for t in range(256):
            start = (t % 32) * stride + t // 32
            want[block * 256 + t] = sum(words[(start + r) % 1024] for r in range(reps))
    assert np.allclose(got, want, rtol=1e-12, atol=0)


def test_every_reference_is_registered_by_name() -> None:
    assert {
        "copy",
        "transpose",
        "strided_shared_sum",
        "matmul",
        "conv2d",
        "reverse_blocks",
        "fma_chains",
        "scale_add",
        "divergent_chains",
        "block_partials",
        "scale2",
        "block_histograms",
        "thread_sums",
        "chase_sums",
        "reverse_tiles",
        "fma_steps",
        "strided_gather",
        # measure/experiment/refs_memory.py
        "fma_sweep",
        "block_sums4",
        "float4_index",
        "triad2",
        "chase_index",
        "table_walk",
        "window_sums",
        "relu",
        "scale_add_relu",
        "fma_chains_n",
        "center64",
        "fixed_point_block_sums",
    } == references.NAMES
