"""numpy models of the kernels in code/sm-schedulers, ilp, block-size, wave-quantization, spilling,
warp-shuffle, stall-reasons and concurrent-kernels, written from the CUDA code (in float32 where the
kernel rounds), for tests that run those specs on the fake device and check the references'
tolerances. Not references: the references are in measure/experiment/references.py."""

from __future__ import annotations

from typing import Any

import numpy as np


def bits_float(bits: int) -> float:
    return float(np.array(bits, dtype=np.int32).view(np.float32))


def fma_chains(src: Any, chains: int, iters: int, a_bits: int, b_bits: int) -> Any:
    """Thread i: ``chains`` chains from ``src[i] * c`` (float32), each stepped ``iters`` times as one
    float32 FMA (the exact product plus b, rounded once: exact in float64 for these magnitudes), then
    summed in float32 in chain order."""
    a, b = bits_float(a_bits), bits_float(b_bits)
    total = np.zeros(src.shape, np.float32)
    for c in range(1, chains + 1):
        x = (src.astype(np.float32) * np.float32(c)).astype(np.float32)
        for _ in range(iters):
            x = (x.astype(np.float64) * a + b).astype(np.float32)
        total = (total + x).astype(np.float32)
    return total


def center64(src: Any, threads: int) -> Any:
    """Thread t: 16 float4 at src4[t + k * threads]; float32 sum in the kernel's order, mean, each value
    less the mean written back in place."""
    v = src[: 64 * threads].astype(np.float32).reshape(16, threads, 4)
    s = np.zeros(threads, np.float32)
    for k in range(16):
        s = s + ((v[k, :, 0] + v[k, :, 1]) + (v[k, :, 2] + v[k, :, 3]))
    mean = s * np.float32(1.0 / 64.0)
    return (v - mean[None, :, None]).reshape(-1)


def fixed_point_tree(src: Any, blocks: int) -> Any:
    """The shared tree of reduce_shared_tree, level by level, in int32 (np.rint is half to even, as
    __float2int_rn), the sums scaled by 1/4096 in float32."""
    q = np.zeros(blocks * 256, np.int32)
    q[: src.size] = np.rint(src.astype(np.float32) * np.float32(4096.0)).astype(np.int32)
    sh = q.reshape(blocks, 256).copy()
    s = 128
    while s > 0:
        sh[:, :s] += sh[:, s : 2 * s]
        s //= 2
    return sh[:, 0].astype(np.float32) * np.float32(1.0 / 4096.0)
