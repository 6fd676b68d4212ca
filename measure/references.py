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


REFERENCES: dict[str, Reference] = {
    "copy": copy,
    "transpose": transpose,
    "strided_shared_sum": strided_shared_sum,
    "matmul": matmul,
}
NAMES = frozenset(REFERENCES)
