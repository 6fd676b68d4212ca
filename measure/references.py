"""The numpy references kernels are checked against, by name.

A spec names its reference (``reference: transpose``); the runner calls it with the inputs it
uploaded (float32 arrays shaped as declared) and the size's dims plus the kernel's params, and
compares each returned array with the output buffer of the same name. References compute in float64
where rounding matters. numpy is imported inside each function so that loading specs (CI, ``verify``)
needs no numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Arrays = Mapping[str, Any]  # name -> numpy array
Reference = Callable[[Arrays, Mapping[str, int]], dict[str, Any]]


def copy(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """The output is the input, element for element (``dst`` <- ``src``)."""
    return {"dst": inputs["src"].copy()}


def transpose(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``dst`` (cols x rows) is ``src`` (rows x cols) transposed."""
    import numpy as np

    return {"dst": np.ascontiguousarray(inputs["src"].T)}


def strided_shared_sum(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """Day 15: each block of 256 threads stages 1024 floats of ``src`` in shared memory; thread
    ``t`` (lane ``t % 32``, warp ``t // 32``) then adds ``reps`` of them, starting at word
    ``lane * stride + warp`` and walking forward one word at a time, wrapping at 1024.

    Every such sum is a difference of two prefix sums over the tile laid twice end to end, computed
    in float64.
    """
    import numpy as np

    stride, reps = dims["stride"], dims["reps"]
    tiles = inputs["src"].reshape(-1, 1024).astype(np.float64)
    doubled = np.concatenate([tiles, tiles], axis=1)
    prefix = np.concatenate([np.zeros((tiles.shape[0], 1)), np.cumsum(doubled, axis=1)], axis=1)
    t = np.arange(256)
    start = (t % 32 * stride + t // 32) % 1024
    sums = prefix[:, start + reps] - prefix[:, start]
    return {"dst": sums.reshape(-1)}


def matmul(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``c`` (m x n) = ``a`` (m x k) @ ``b`` (k x n), in float64."""
    import numpy as np

    return {"c": inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)}


def conv2d(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """Day 20: ``dst`` is ``src`` convolved with the first (2r+1)^2 weights of ``w`` (row-major, the
    centre at [r][r]), "same" size, zero padding outside the image, in float64.

    A sum of shifted slices of the zero-padded image, one multiply-add pass per weight, done in bands
    of 64 rows so that the passes over a band stay in the CPU's caches, the bands spread over a
    thread pool (numpy releases the GIL inside each pass). The 4096 x 4096 check runs once per
    kernel row on the node, so its cost counts."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    r = dims["r"]
    width = 2 * r + 1
    w = inputs["w"].astype(np.float64)[: width * width].reshape(width, width)
    src = inputs["src"]
    rows, cols = src.shape
    padded = np.zeros((rows + 2 * r, cols + 2 * r))
    padded[r : r + rows, r : r + cols] = src
    out = np.zeros((rows, cols))
    band = 64

    def one_band(y0: int) -> None:
        h = min(band, rows - y0)
        acc, t = out[y0 : y0 + h], np.empty((h, cols))
        for dy in range(width):
            for dx in range(width):
                np.multiply(padded[y0 + dy : y0 + dy + h, dx : dx + cols], w[dy, dx], out=t)
                acc += t

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(one_band, range(0, rows, band)))
    return {"dst": out}


def reverse_blocks(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """Each block's 16384 floats of ``src``, written back in reverse order into ``dst``."""
    return {"dst": inputs["src"].reshape(-1, 16384)[:, ::-1].reshape(-1).copy()}


def fma_chains(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``ceilings-fp32``: thread ``i`` starts 8 chains at ``src[i] * c`` (c = 1..8, rounded to float32
    as the kernel does), steps each ``iters`` times as ``x <- x * a + b`` with ``a`` and ``b`` the
    floats whose bit patterns are ``a_bits`` and ``b_bits``, and stores the sum of the chains. In
    float64, in closed form: ``a**K x0 + b (1 - a**K) / (1 - a)`` per chain (``x0 + K b`` when a = 1).
    """
    import numpy as np

    a = float(np.array(dims["a_bits"], dtype=np.int32).view(np.float32))
    b = float(np.array(dims["b_bits"], dtype=np.int32).view(np.float32))
    k = dims["iters"]
    src = inputs["src"].astype(np.float32)
    out = np.zeros(src.shape)
    for c in range(1, 9):
        x0 = (src * np.float32(c)).astype(np.float64)  # float32 product, as the kernel's FMUL
        out += x0 + k * b if a == 1.0 else a**k * x0 + b * (1.0 - a**k) / (1.0 - a)
    return {"dst": out}


def scale_add(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``dst`` = 2 ``src`` + 1 in float32: 2 ``src`` is exact, so one rounding, as the kernel's fmaf."""
    import numpy as np

    return {"dst": inputs["src"] * np.float32(2.0) + np.float32(1.0)}


REFERENCES: dict[str, Reference] = {
    "copy": copy,
    "transpose": transpose,
    "strided_shared_sum": strided_shared_sum,
    "matmul": matmul,
    "conv2d": conv2d,
    "reverse_blocks": reverse_blocks,
    "fma_chains": fma_chains,
    "scale_add": scale_add,
}
NAMES = frozenset(REFERENCES)
