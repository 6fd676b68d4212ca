"""numpy models of the kernels in code/warp-divergence, reduction, vector-loads, histogram and
latency-hiding, written from the CUDA code (thread by thread, in float32 where the kernel rounds), for
tests only: the references in measure/experiment/references.py are checked against them, and the fake device
runs them as kernels. A reference that groups or rounds differently from its kernel fails there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

F32 = np.float32


def fma32(y: Any, m: float, c: float) -> Any:
    """float32 fused multiply-add: the float32 product is exact in float64, so one rounding remains
    (double rounding of the sum is possible but changes the result by at most one float32 ulp)."""
    return (y.astype(np.float64) * float(F32(m)) + float(F32(c))).astype(F32)


def divergence(src: Any, rule: int, iters: int = 256) -> Any:
    """branch_by_warp / branch_by_lane / branch_by_sign / select_by_sign: thread i of the grid
    (blockIdx.x * 256 + threadIdx.x) runs side A or B for ``iters`` FMA steps."""
    i = np.arange(src.size)
    warp, lane = i // 32, i % 32
    side_a = {0: warp % 2 == 0, 1: lane % 2 == 0, 2: src < 0}[rule]
    y = src.astype(F32)
    m = np.where(side_a, F32(0.99609375), F32(0.998046875))
    c = np.where(side_a, F32(0.001953125), F32(-0.001953125))
    for _ in range(iters):
        y = (y.astype(np.float64) * m + c).astype(F32)
    return y


def thread_register_sums(src: Any, threads: int, accumulators: int = 1) -> Any:
    """Each of ``threads`` grid threads adds src[t], src[t + threads], ... in float32, spread over
    ``accumulators`` running sums (element m of the thread into sum m % accumulators), which are
    then added in order: acc[0] + acc[1] + ..."""
    n = src.size
    acc = np.zeros((accumulators, threads), dtype=F32)
    t = np.arange(threads)
    for m, start in enumerate(range(0, n, threads)):
        idx = start + t
        v = np.where(idx < n, src[np.minimum(idx, n - 1)], F32(0))
        acc[m % accumulators] = acc[m % accumulators] + v.astype(F32)
    total = acc[0]
    for j in range(1, accumulators):
        total = total + acc[j]
    return total


def reduce_tree(src: Any, blocks: int) -> Any:
    """reduce_tree: register sums, then the shared-memory tree, halving in float32."""
    part = thread_register_sums(src, blocks * 256).reshape(blocks, 256)
    half = 128
    while half:
        part = part[:, :half] + part[:, half : 2 * half]
        half //= 2
    return part[:, 0]


def reduce_atomic_each(src: Any, blocks: int, seed: int = 0) -> Any:
    """reduce_atomic_each: each block's elements added one by one into a float32 word, in an
    arbitrary (here random) order."""
    rng = np.random.default_rng(seed)
    owner = (np.arange(src.size) % (blocks * 256)) // 256
    out = np.zeros(blocks, dtype=F32)
    for b in range(blocks):
        mine = rng.permutation(src[owner == b])
        out[b] = np.cumsum(mine, dtype=F32)[-1] if mine.size else F32(0)
    return out


def histogram(src: Any, blocks: int, bins: int) -> Any:
    """hist_global / hist_shared / hist_warp_agg: the grid-stride walk of each thread of each block,
    one element at a time, with the bin computed in float32 scalars."""
    n, stride = src.size, blocks * 256
    out = np.zeros((blocks, bins), dtype=F32)
    for b in range(blocks):
        for t in range(256):
            for i in range(b * 256 + t, n, stride):
                k = int(np.float32(np.float32(src[i]) + F32(1.0)) * F32(0.5 * bins))
                out[b, min(max(k, 0), bins - 1)] += F32(1)
    return out


def chase(src: Any, blocks: int, steps: int, chasers: int) -> Any:
    """chase: Python integers for the 32-bit arithmetic, float32 for the running sum of |v|."""
    mask = src.size - 1
    out = np.zeros(blocks * 64, dtype=F32)
    for c in range(min(chasers, blocks)):  # only blocks that exist chase
        idx = (c * 2654435761) % 2**32 & mask
        s = F32(0)
        for _ in range(steps):
            v = src[idx]
            s = F32(s + abs(v))
            idx = (idx * 1664525 + 1013904223 + int(v > 2.0)) % 2**32 & mask
        out[c * 64] = s
    return out
