"""The references of day 20, the shared-memory limits and the FP32 ceiling, against direct loops."""

from __future__ import annotations

import numpy as np
import pytest

from measure import references as R


def _direct_conv(src: np.ndarray, w: np.ndarray, r: int) -> np.ndarray:
    rows, cols = src.shape
    width = 2 * r + 1
    weights = w[: width * width].reshape(width, width).astype(np.float64)
    out = np.zeros((rows, cols))
    for y in range(rows):
        for x in range(cols):
            for dy in range(-r, r + 1):
                for dx in range(-r, r + 1):
                    yy, xx = y + dy, x + dx
                    if 0 <= yy < rows and 0 <= xx < cols:
                        out[y, x] += float(src[yy, xx]) * weights[dy + r, dx + r]
    return out


@pytest.mark.parametrize("r", [1, 2])
@pytest.mark.parametrize("shape", [(7, 9), (70, 5), (130, 3)])
def test_conv2d_matches_a_direct_loop_with_zero_padding(r: int, shape: tuple[int, int]) -> None:
    rng = np.random.default_rng([r, *shape])
    src = (rng.random(shape, dtype=np.float32) * 2 - 1).astype(np.float32)
    w = (rng.random(25, dtype=np.float32) * 2 - 1).astype(np.float32)
    got = R.conv2d({"src": src, "w": w}, {"r": r, "rows": shape[0], "cols": shape[1]})["dst"]
    np.testing.assert_allclose(got, _direct_conv(src, w, r), rtol=0, atol=1e-12)


def test_reverse_blocks_reverses_each_block_of_16384() -> None:
    src = np.arange(2 * 16384, dtype=np.float32)
    got = R.reverse_blocks({"src": src}, {"blocks": 2})["dst"]
    assert got[0] == 16383 and got[16383] == 0 and got[16384] == 32767 and got[-1] == 16384


def test_fma_chains_is_36_times_the_input_and_refuses_other_parameters() -> None:
    src = np.array([0.5, -0.25], dtype=np.float32)
    dims = {"n": 2, "iters": 4096, "a_bits": -1082130432, "b_bits": 0}
    np.testing.assert_array_equal(R.fma_chains({"src": src}, dims)["dst"], [18.0, -9.0])
    with pytest.raises(ValueError, match="even step count"):
        R.fma_chains({"src": src}, {**dims, "iters": 3})
