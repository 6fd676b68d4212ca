"""Correctness checks: poison, compare with the reference, say exactly what is wrong.

Pure numpy (imported lazily by the runner), tested on the CPU. Output buffers are filled with a
poison word before every checked launch; an element still holding it afterwards was never written,
which a comparison against a reference of random data then reports as such rather than as a
mismatch.
"""

from __future__ import annotations

import math
from typing import Any

from measure.store.results import Check

#: A quiet NaN with a recognisable payload: no float32 arithmetic produces this bit pattern.
POISON_BITS = 0x7FC0DEAD


def compare(out: Any, ref: Any, tolerance: float) -> Check:
    """Compare float32 ``out`` (as downloaded) with reference ``ref`` (any float dtype).

    Passes when every element was written, none is NaN or infinite, and every element is within
    ``tolerance x max|ref|`` of the reference (``tolerance`` 0: bit-for-bit equal values). The
    normwise relative error ||out - ref|| / ||ref|| is recorded as well, for the reader.
    """
    import numpy as np

    out = np.asarray(out)
    ref = np.asarray(ref)
    if out.size != ref.size:
        return Check(False, tolerance, None, None, 0, f"the output has {out.size} elements, the reference {ref.size}")
    out = out.reshape(-1)
    ref = ref.reshape(-1)
    unwritten = int(np.count_nonzero(out.view(np.uint32) == np.uint32(POISON_BITS)))
    if unwritten:
        return Check(
            False,
            tolerance,
            None,
            None,
            unwritten,
            f"{unwritten} of {out.size} elements were never written (they still hold the poison)",
        )
    finite = np.isfinite(out)
    if not finite.all():
        bad = int(out.size - np.count_nonzero(finite))
        return Check(False, tolerance, None, None, 0, f"{bad} of {out.size} elements are NaN or infinite")
    if tolerance == 0.0:
        if np.array_equal(out, ref.astype(np.float32, copy=False)):
            return Check(True, 0.0, 0.0, 0.0, 0, "")
        wrong = np.flatnonzero(out != ref)
        first = int(wrong[0])
        return Check(
            False,
            0.0,
            _rel(out, ref),
            float(np.max(np.abs(out.astype(np.float64) - ref))),
            0,
            f"{wrong.size} of {out.size} elements differ from the reference (first at flat index "
            f"{first}: {float(out[first])!r} instead of {float(ref[first])!r})",
        )
    diff = np.abs(out.astype(np.float64) - ref.astype(np.float64))
    scale = float(np.max(np.abs(ref))) if ref.size else 0.0
    max_abs = float(np.max(diff)) if diff.size else 0.0
    rel = _rel(out, ref)
    limit = tolerance * scale
    if max_abs > limit:
        bad = int(np.count_nonzero(diff > limit))
        first = int(np.argmax(diff > limit))
        return Check(
            False,
            tolerance,
            rel,
            max_abs,
            0,
            f"{bad} of {out.size} elements are off by more than {tolerance:g} x max|ref| = {limit:.3g} "
            f"(worst {max_abs:.3g}; first at flat index {first})",
        )
    return Check(True, tolerance, rel, max_abs, 0, "")


def _rel(out: Any, ref: Any) -> float | None:
    import numpy as np

    ref64 = ref.astype(np.float64, copy=False)
    norm = float(np.linalg.norm(ref64))
    if norm == 0.0:
        return None
    value = float(np.linalg.norm(out.astype(np.float64) - ref64)) / norm
    return value if math.isfinite(value) else None
