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
    threads' elements, in float64."""
    import numpy as np

    blocks = dims["blocks"]
    threads = blocks * 256
    quads = inputs["src"].reshape(-1, 4).sum(axis=1, dtype=np.float64)
    padded = np.zeros(-(-quads.size // threads) * threads)
    padded[: quads.size] = quads
    per_thread = padded.reshape(-1, threads).sum(axis=0)
    return {"dst": per_thread.reshape(blocks, 256).sum(axis=1)}


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
