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

from measure.experiment.refs_memory import MEMORY_REFERENCES

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


# --- warp-divergence, reduction, vector-loads, histogram, latency-hiding ---------------------------
# (one block, kept at the end of the file so that other additions merge without conflicts)

#: warp-divergence: the two sides' (multiplier, addend), the float32 values code/warp-divergence uses.
DIVERGENCE_SIDES = ((0.99609375, 0.001953125), (0.998046875, -0.001953125))


def divergent_chains(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``warp-divergence``: element ``i`` steps ``iters`` times as ``y <- y * m + c`` from
    ``y = src[i]``, with side A's (m, c) where the row's ``rule`` picks A and side B's elsewhere:
    rule 0 when ``(i // 32)`` is even (warp-uniform), rule 1 when ``i`` is even, rule 2 when
    ``src[i] < 0``. In float64, in closed form: ``m**K y + c (1 - m**K) / (1 - m)``."""
    import numpy as np

    src = inputs["src"]
    k, rule = dims["iters"], dims["rule"]
    if rule == 0:
        side_a = (np.arange(src.size) >> 5) & 1 == 0
    elif rule == 1:
        side_a = np.arange(src.size) & 1 == 0
    elif rule == 2:
        side_a = src < 0
    else:
        raise ValueError(f"divergent_chains: rule {rule} is not 0, 1 or 2")
    # Per side, y_K = g * y_0 + h with g = m**K and h = c (1 - m**K) / (1 - m).
    (ga, ha), (gb, hb) = ((m**k, c * (1.0 - m**k) / (1.0 - m)) for m, c in DIVERGENCE_SIDES)
    out = src.astype(np.float64)
    out *= np.where(side_a, ga, gb)
    out += np.where(side_a, ha, hb)
    return {"dst": out}


def _grid_stride_sums(values: Any, threads: int) -> Any:
    """The float64 sum of ``values[t], values[t + threads], ...`` for each ``t < threads``."""
    import numpy as np

    padded = np.zeros(-(-values.size // threads) * threads)
    padded[: values.size] = values
    return padded.reshape(-1, threads).sum(axis=0)


def block_partials(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``reduction``: ``blocks`` blocks of 256 threads walk ``src`` grid-stride, so element ``i``
    belongs to block ``(i % (blocks * 256)) // 256``; ``out[b]`` is the sum of block b's elements,
    in float64."""
    blocks = dims["blocks"]
    per_thread = _grid_stride_sums(inputs["src"], blocks * 256)
    return {"out": per_thread.reshape(blocks, 256).sum(axis=1)}


def scale2(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``vector-loads``: ``dst = 2 * src``, exact in float32."""
    import numpy as np

    return {"dst": inputs["src"] * np.float32(2.0)}


def histogram_bins(x: Any, bins: int) -> Any:
    """The bin of each float32 ``x`` as ``code/histogram`` computes it: ``(x + 1) * (bins / 2)`` in
    float32 (two roundings, no FMA), truncated, clamped to ``[0, bins)``."""
    import numpy as np

    scaled = (x.astype(np.float32) + np.float32(1.0)) * np.float32(0.5 * bins)
    return np.clip(scaled.astype(np.int32), 0, bins - 1)


def block_histograms(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``histogram``: row ``b`` of ``hist`` (blocks x bins) counts the elements of block ``b``, the
    same grid-stride grouping as :func:`block_partials`. Element ``i``'s key is ``block * bins + bin``,
    with the elements laid out in rounds of ``blocks * 256`` (the last round padded with a key past the
    end, dropped after counting): no 64-bit index array over 64M elements on the node."""
    import numpy as np

    src = inputs["src"]
    blocks, bins = dims["blocks"], dims["bins"]
    per_round = blocks * 256
    keys = np.full(-(-src.size // per_round) * per_round, blocks * bins, dtype=np.int32)
    keys[: src.size] = histogram_bins(src, bins)
    rounds = keys.reshape(-1, per_round)
    rounds[:, :] += (np.arange(per_round, dtype=np.int32) // 256 * bins)[None, :]
    keys[src.size :] = blocks * bins
    counts = np.bincount(keys, minlength=blocks * bins + 1)[: blocks * bins]
    return {"hist": counts.reshape(blocks, bins).astype(np.float64)}


def thread_sums(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``latency-hiding`` streams: ``blocks`` blocks of 64 threads walk ``src`` grid-stride; ``dst[t]``
    is thread t's sum, in float64 (whatever the number of accumulators a thread splits it into)."""
    return {"dst": _grid_stride_sums(inputs["src"], dims["blocks"] * 64)}


#: latency-hiding's chase: the LCG and the starting-point multiplier of code/latency-hiding/latency.cu.
CHASE_LCG = (1664525, 1013904223, 2654435761)


def chase_sums(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``latency-hiding`` chase: thread 0 of block ``c < chasers`` starts at ``(c * S) mod 2^32 & mask``
    (mask = n - 1, n a power of two), adds ``|src[idx]|`` and moves to ``(idx * A + C) mod 2^32 & mask``,
    ``steps`` times; every other thread of the ``blocks`` x 64 grid writes 0 (so do blocks past the
    grid when ``chasers`` exceeds ``blocks``)."""
    import numpy as np

    src = inputs["src"]
    n, steps, chasers = src.size, dims["steps"], min(dims["chasers"], dims["blocks"])
    if n & (n - 1):
        raise ValueError(f"chase_sums: n = {n} is not a power of two")
    a, c, start = CHASE_LCG
    wrap = np.uint64(0xFFFFFFFF)
    idx = (np.arange(chasers, dtype=np.uint64) * np.uint64(start)) & wrap & np.uint64(n - 1)
    sums = np.zeros(chasers)
    for _ in range(steps):
        sums += np.abs(src[idx].astype(np.float64))
        idx = (idx * np.uint64(a) + np.uint64(c)) & wrap & np.uint64(n - 1)
    out = np.zeros(dims["blocks"] * 64)
    out[np.arange(chasers) * 64] = sums
    return {"dst": out}


REFERENCES.update(
    {
        "divergent_chains": divergent_chains,
        "block_partials": block_partials,
        "scale2": scale2,
        "block_histograms": block_histograms,
        "thread_sums": thread_sums,
        "chase_sums": chase_sums,
    }
)


# --- added for code/async-copy (kernels-b) ---------------------------------------------------------


def reverse_tiles(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``async-copy``: ``src`` cut into runs of ``tile`` floats (the last one may be shorter), each run
    written back reversed into ``dst`` at the same place."""
    import numpy as np

    src, tile = inputs["src"], dims["tile"]
    full = src.size // tile * tile
    head = src[:full].reshape(-1, tile)[:, ::-1].reshape(-1)
    return {"dst": np.concatenate([head, src[full:][::-1]])}


REFERENCES["reverse_tiles"] = reverse_tiles

# --- the memory and roofline experiments (breadth1): their own module --------------------------------

REFERENCES.update(MEMORY_REFERENCES)


# --- added for the control experiments code/barrier and code/coalescing (content) ------------------

#: code/barrier's chain: x <- x * M + C (code/warp-divergence's side A), 4 steps per loop trip.
BARRIER_CHAIN = DIVERGENCE_SIDES[0]


def fma_steps(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``barrier``: element ``i`` steps ``4 * iters`` times as ``x <- x * m + c`` from ``x = src[i]``.
    In float64, in closed form: ``m**K x + c (1 - m**K) / (1 - m)``."""
    import numpy as np

    m, c = BARRIER_CHAIN
    k = 4 * dims["iters"]
    g = m**k
    return {"dst": inputs["src"].astype(np.float64) * g + c * (1.0 - g) / (1.0 - m)}


def strided_gather(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``coalescing``: ``dst[i] = src[i * stride + offset]`` for ``i < n``."""
    n, stride, offset = dims["n"], dims["stride"], dims["offset"]
    return {"dst": inputs["src"][offset : offset + n * stride : stride].copy()}


REFERENCES.update({"fma_steps": fma_steps, "strided_gather": strided_gather})

# --- added for the breadth2 experiments (sm-schedulers, ilp, block-size, wave-quantization, ...) ------


def fma_chains_n(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``sm-schedulers``, ``ilp``, ``wave-quantization``: thread ``i`` starts ``chains`` chains (default
    1) at ``src[i] * c`` (c = 1..chains, rounded to float32 as the kernel does), steps each ``iters``
    times as ``x <- x * a + b`` (``a``, ``b`` the floats whose bit patterns are ``a_bits``, ``b_bits``)
    and stores their sum; in float64, in closed form ``a**K x0 + b (1 - a**K) / (1 - a)``."""
    import numpy as np

    a = float(np.array(dims["a_bits"], dtype=np.int32).view(np.float32))
    b = float(np.array(dims["b_bits"], dtype=np.int32).view(np.float32))
    k = dims["iters"]
    src = inputs["src"].astype(np.float32)
    out = np.zeros(src.shape)
    for c in range(1, dims.get("chains", 1) + 1):
        x0 = (src * np.float32(c)).astype(np.float64)
        out += x0 + k * b if a == 1.0 else a**k * x0 + b * (1.0 - a**k) / (1.0 - a)
    return {"dst": out}


REFERENCES["fma_chains_n"] = fma_chains_n


def center64(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``block-size``: thread ``t`` of ``threads`` holds the 64 floats ``src4[t + k * threads]`` (k < 16,
    each a float4) and writes each back to its place less the 64 values' mean, in float64."""
    import numpy as np

    t = dims["threads"]
    src = inputs["src"].astype(np.float64)
    values = src[: 64 * t].reshape(16, t, 4)
    out = src.copy()
    out[: 64 * t] = (values - values.mean(axis=(0, 2), keepdims=True)).reshape(-1)
    return {"dst": out}


REFERENCES["center64"] = center64


def fixed_point_block_sums(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``warp-shuffle``: each element becomes the integer ``round(x * 4096)`` (half to even, as
    ``__float2int_rn``); ``out[b]`` is the sum of block b's 256 integers, divided by 4096 (exact)."""
    import numpy as np

    src = inputs["src"].astype(np.float64)
    q = np.zeros(-(-src.size // 256) * 256)
    q[: src.size] = np.rint(src * 4096.0)
    return {"out": q.reshape(-1, 256).sum(axis=1) / 4096.0}


REFERENCES["fixed_point_block_sums"] = fixed_point_block_sums

NAMES = frozenset(REFERENCES)
