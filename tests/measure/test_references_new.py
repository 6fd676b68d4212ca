"""The references of day 20, the shared-memory limits and the FP32 ceiling, against direct loops."""

from __future__ import annotations

import numpy as np
import pytest

from measure.experiment import references as R


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


def test_fma_chains_closed_form_matches_stepping_the_chains_in_float64() -> None:
    """The closed form against the kernel's recurrence, stepped one FMA at a time, for the spec's
    a = 1 - 2^-12, b = 2^-13 and for a = -1, b = 0 (every step negates x)."""
    src = np.array([0.5, -0.25, 0.9999, -1.0], dtype=np.float32)
    for a_bits, b_bits, a, b in [(1065349120, 956301312, 1 - 2**-12, 2**-13), (-1082130432, 0, -1.0, 0.0)]:
        dims = {"n": 4, "iters": 300, "a_bits": a_bits, "b_bits": b_bits}
        want = np.zeros(4)
        for c in range(1, 9):
            x = (src * np.float32(c)).astype(np.float64)
            for _ in range(300):
                x = x * a + b
            want += x
        np.testing.assert_allclose(R.fma_chains({"src": src}, dims)["dst"], want, rtol=1e-12, atol=1e-12)


def test_fma_chains_depends_on_the_step_count() -> None:
    """Half the steps, or one per cent fewer, moves the output by more than the spec's tolerance."""
    src = np.linspace(-1, 1, 101, dtype=np.float32)
    dims = {"n": 101, "iters": 4096, "a_bits": 1065349120, "b_bits": 956301312}
    full = R.fma_chains({"src": src}, dims)["dst"]
    limit = 1.0e-3 * np.abs(full).max()
    for fewer in (2048, 4055):
        other = R.fma_chains({"src": src}, {**dims, "iters": fewer})["dst"]
        assert np.abs(other - full).max() > limit
