"""The numpy references of the memory and roofline experiments (code/roofline-sweep, bandwidth-*,
chase-latency, constant-memory, l1-reuse, fusion), registered in :mod:`measure.experiment.references`.

Kept apart so that references.py stays one readable file; the conventions are its own: each function
gets the uploaded inputs (float32) and the size's dims plus the kernel's params, returns the expected
outputs by name, computes in float64 where rounding matters, and imports numpy inside.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Arrays = Mapping[str, Any]


def _float_of(bits: int) -> float:
    import numpy as np

    return float(np.array(bits, dtype=np.int32).view(np.float32))


def fma_sweep(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``roofline-sweep``: every element steps ``k`` times as ``x <- x a + b`` (a, b the floats whose
    bit patterns are ``a_bits``, ``b_bits``): ``a**k x + b (1 - a**k) / (1 - a)`` in float64."""
    import numpy as np

    a, b, k = _float_of(dims["a_bits"]), _float_of(dims["b_bits"]), dims["k"]
    x = inputs["src"].astype(np.float64)
    g = a**k
    x *= g
    x += b * (1.0 - g) / (1.0 - a)
    return {"dst": x}


MEMORY_REFERENCES = {
    "fma_sweep": fma_sweep,
}


def block_sums4(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``bandwidth-read``: ``blocks`` blocks of 256 threads walk ``src`` as float4s, grid-stride, so
    float4 ``q`` belongs to thread ``q % (blocks * 256)``; ``dst[b]`` is the sum of block b's
    threads' elements, in float64, times the passes (``warm_passes`` for a warm row, else one)."""
    import numpy as np

    blocks = dims["blocks"]
    threads = blocks * 256
    quads = inputs["src"].reshape(-1, 4).sum(axis=1, dtype=np.float64)
    padded = np.zeros(-(-quads.size // threads) * threads)
    padded[: quads.size] = quads
    per_thread = padded.reshape(-1, threads).sum(axis=0)
    passes = dims["warm_passes"] if dims["warm"] else 1
    return {"dst": per_thread.reshape(blocks, 256).sum(axis=1) * passes}


def float4_index(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``bandwidth-write``: float4 ``q`` of ``dst`` holds ``q mod 1024`` in all four lanes (exact)."""
    import numpy as np

    n = dims["n"]
    values = (np.arange(n // 4, dtype=np.int64) & 1023).astype(np.float32)
    return {"dst": np.repeat(values, 4)}


def triad2(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``bandwidth-triad``: ``a = b + scale c`` in float32 (``scale`` 2: the product is exact, so one
    rounding, as the kernel's fmaf)."""
    import numpy as np

    return {"a": inputs["b"] + np.float32(dims["scale"]) * inputs["c"]}


MEMORY_REFERENCES.update({"block_sums4": block_sums4, "float4_index": float4_index, "triad2": triad2})


#: code/chase-latency/chase.cuh's generator: idx <- (idx A + C) mod 2^32, masked to the set's sectors.
CHASE_SECTORS_LCG = (1664525, 1013904223)


def lcg_jump(x: int, steps: int, modulus: int, a: int, c: int) -> int:
    """``x`` after ``steps`` applications of ``x <- (a x + c) mod modulus``, by squaring the affine map
    (so a million steps cost twenty compositions, not a million iterations)."""
    mul, add = 1, 0  # the identity map
    sq_mul, sq_add = a % modulus, c % modulus  # f^(2^i)
    while steps:
        if steps & 1:
            mul, add = (sq_mul * mul) % modulus, (sq_mul * add + sq_add) % modulus
        sq_mul, sq_add = (sq_mul * sq_mul) % modulus, (sq_mul * sq_add + sq_add) % modulus
        steps >>= 1
    return (mul * x + add) % modulus


def chase_index(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``chase-latency``: the index after ``steps`` steps from 0 of the generator modulo ``sectors`` (a
    power of two, so the 32-bit wrap-around and the mask agree), as [low 12 bits, the rest]. The runner's
    inputs lie in [-1, 1), whose bits never have bit 30 set, so the value-dependent XOR is always 0."""
    import numpy as np

    sectors = dims["sectors"]
    if sectors & (sectors - 1):
        raise ValueError(f"chase_index: sectors = {sectors} is not a power of two")
    idx = lcg_jump(0, dims["steps"], sectors, *CHASE_SECTORS_LCG)
    return {"dst": np.array([idx & 4095, idx >> 12], dtype=np.float64)}


MEMORY_REFERENCES["chase_index"] = chase_index


def table_walk(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``constant-memory``: lane ``l`` of every warp adds ``|table[(base + 33 t) mod 4096]|`` for
    ``t < iters`` with ``base = (l mod spread) x 128``; ``dst`` holds each of the ``blocks x 256``
    threads' sum, in float64."""
    import numpy as np

    table = np.abs(inputs["table"].astype(np.float64))
    size, spread, iters = table.size, dims["spread"], dims["iters"]
    steps = np.arange(iters) * 33
    lane_sums = np.array([table[(lane % spread * 128 + steps) % size].sum() for lane in range(32)])
    return {"dst": np.tile(lane_sums, dims["blocks"] * 256 // 32)}


MEMORY_REFERENCES["table_walk"] = table_walk


def window_sums(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``l1-reuse``: thread ``t`` of block ``b`` adds ``|src[b window + t + 1024 k]|`` over its
    ``window / 1024`` elements, ``passes`` times; ``dst[b 1024 + t]``, in float64."""
    import numpy as np

    blocks, window = dims["blocks"], dims["window"]
    mags = np.abs(inputs["src"].reshape(blocks, window // 1024, 1024).astype(np.float64))
    return {"dst": (mags.sum(axis=1) * dims["passes"]).reshape(-1)}


MEMORY_REFERENCES["window_sums"] = window_sums


def relu(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``fusion``: ``dst = max(src, 0)`` (exact)."""
    import numpy as np

    return {"dst": np.maximum(inputs["src"], np.float32(0.0))}


def scale_add_relu(inputs: Arrays, dims: Mapping[str, int]) -> dict[str, Any]:
    """``fusion``: ``dst = max(2 src + 1, 0)`` in float32 (2 src is exact, so one rounding, as the
    kernel's fmaf; the max is exact)."""
    import numpy as np

    return {"dst": np.maximum(inputs["src"] * np.float32(2.0) + np.float32(1.0), np.float32(0.0))}


MEMORY_REFERENCES.update({"relu": relu, "scale_add_relu": scale_add_relu})
