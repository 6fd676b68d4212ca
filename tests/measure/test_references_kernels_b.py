"""References and index arithmetic of async-copy, swizzle and day 16's TF32 rung, against direct
numpy emulations at tiny sizes."""

from __future__ import annotations

import numpy as np
import pytest

from measure.experiment import references as R


def _random(shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random(shape, dtype=np.float32) * 2 - 1).astype(np.float32)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 23, 24])
def test_reverse_tiles_matches_a_loop_that_stages_each_tile_and_reads_it_backwards(n: int) -> None:
    tile = 8
    src = _random((n,), n)
    expected = np.empty_like(src)
    for base in range(0, n, tile):  # what every async-copy kernel does, one tile at a time
        v = min(tile, n - base)
        staged = src[base : base + v].copy()
        for j in range(v):
            expected[base + j] = staged[v - 1 - j]
    out = R.REFERENCES["reverse_tiles"]({"src": src}, {"n": n, "tile": tile, "per_block": 2})["dst"]
    assert out.shape == (n,)
    np.testing.assert_array_equal(out, expected)


def test_reverse_tiles_is_registered_by_name() -> None:
    assert "reverse_tiles" in R.NAMES


def test_xor_swizzled_tile_transposes_and_is_conflict_free() -> None:
    """transpose_swizzled: logical [r][c] stored at tile[r][c ^ r]; a warp stores one row (lanes c)
    and loads one logical column (lanes r). Every access must hit 32 different banks, and the
    tile read back must be the transpose."""
    src = _random((32, 32), 3)
    tile = np.full((32, 32), np.nan, dtype=np.float32)
    lanes = np.arange(32)
    for r in range(32):  # stores: warp writes row r
        cols = lanes ^ r
        assert sorted((r * 32 + cols) % 32) == list(range(32))
        tile[r, cols] = src[r, lanes]
    out = np.empty_like(src)
    for c in range(32):  # loads: warp reads logical column c, lane = row
        cols = c ^ lanes
        assert sorted((lanes * 32 + cols) % 32) == list(range(32))
        out[c, lanes] = tile[lanes, cols]
    np.testing.assert_array_equal(out, R.transpose({"src": src}, {})["dst"])


def _tf32(x: np.ndarray) -> np.ndarray:
    """Round float32 to TF32 as cvt.rna.tf32.f32 does: 10 mantissa bits, nearest, ties away."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)


def test_tf32_rounding_keeps_ten_mantissa_bits() -> None:
    assert _tf32(np.array([1.0 + 2.0**-10], np.float32))[0] == np.float32(1.0 + 2.0**-10)
    assert _tf32(np.array([1.0 + 2.0**-11], np.float32))[0] == np.float32(1.0 + 2.0**-10)  # tie: away
    assert _tf32(np.array([1.0 + 2.0**-12], np.float32))[0] == np.float32(1.0)


@pytest.mark.parametrize("k", [1999, 4096])
def test_tf32_matmul_error_is_within_the_day16_tolerance_and_a_lost_k_tile_is_not(k: int) -> None:
    """The wmma-tf32 row's tolerance (2e-3 of max|C|) against an emulation: inputs rounded to TF32,
    products summed exactly. A kernel that skipped one 16-wide k tile must fail it."""
    tolerance = 2.0e-3
    a, b = _random((64, k), k), _random((k, 48), k + 1)
    ref = R.matmul({"a": a, "b": b}, {})["c"]
    scale = np.abs(ref).max()
    emulated = _tf32(a).astype(np.float64) @ _tf32(b).astype(np.float64)
    assert np.abs(emulated - ref).max() <= tolerance * scale / 4  # the margin the spec claims
    lost = emulated - a[:, 16:32].astype(np.float64) @ b[16:32].astype(np.float64)
    assert np.abs(lost - ref).max() > tolerance * scale
