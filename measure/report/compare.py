"""Comparing two sets of results row by row, with a verdict that knows each row's noise (pure).

In the style of nvbench's compare script: a row's change is the relative change of its median time,
and the change counts only when it is larger than the row's noise in either run (the relative standard
deviation of its kept samples, which the stopping rule bounds) and than a floor, ``min_change``. The
floor exists because two runs of the same commit on the same node differ by more than either run's own
spread (clocks, placement in memory): on the H200, 136 and 131 of the 141 rows of the two runs of
2026-12-04 agreed with their repeats within 1 %, so the default floor is 1 %. The others (contended
atomics, host transfers from pageable memory, launches timed from the host, one pointer chase) moved by
1.4 to 27 % between runs while their within-run noise stayed lower: run-to-run variation that no single
run can show, which compare reports rather than hides. Rows compared are each result's own rows (the
copy of the ceilings every result carries is compared once, in the ceilings experiment's file); a row
present in only one run, or failed in either, is listed with that state, never with a ratio.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from measure.store.resultformat import Result, Row

Verdict = Literal["faster", "slower", "same", "added", "removed", "failed"]

#: The smallest relative change called faster or slower (see the module docstring).
MIN_CHANGE = 0.01


@dataclass(frozen=True)
class Key:
    experiment: str
    node: str
    size: str
    kernel: str


@dataclass(frozen=True)
class Timed:
    """What the comparison needs of one timed row."""

    label: str
    median_ms: float
    rel_stdev: float


@dataclass(frozen=True)
class Change:
    key: Key
    label: str
    verdict: Verdict
    old_ms: float | None = None
    new_ms: float | None = None
    change: float | None = None  # new / old - 1 (negative: faster)
    noise: float | None = None  # the threshold the change had to pass: max(noises, min_change)


def timed_rows(results: Iterable[Result]) -> dict[Key, Timed | None]:
    """Every row of every result, keyed; None for a row that failed its check or was never timed. Only a
    result's own rows: the ceiling rows each result carries are the ceilings experiment's own rows."""
    out: dict[Key, Timed | None] = {}
    for result in results:
        rows: list[Row] = result.rows
        for row in rows:
            key = Key(result.experiment, result.node, row.size, row.kernel)
            if row.kind == "observe":
                continue  # an observed launch has no time
            s = row.summary
            out[key] = Timed(row.label, s.median_ms, s.rel_stdev) if s is not None and not row.failed else None
    return out


def compare(old: dict[Key, Timed | None], new: dict[Key, Timed | None],
            min_change: float = MIN_CHANGE) -> list[Change]:
    """One :class:`Change` per row in either set, sorted by experiment, node, size and kernel."""
    out: list[Change] = []
    for key in sorted(old.keys() | new.keys(), key=lambda k: (k.experiment, k.node, k.size, k.kernel)):
        a, b = old.get(key), new.get(key)
        if key not in old:
            out.append(Change(key, b.label if b else key.kernel, "added", new_ms=b.median_ms if b else None))
        elif key not in new:
            out.append(Change(key, a.label if a else key.kernel, "removed", old_ms=a.median_ms if a else None))
        elif a is None or b is None:
            label = (a or b).label if (a or b) else key.kernel  # type: ignore[union-attr]
            out.append(Change(key, label, "failed", a.median_ms if a else None, b.median_ms if b else None))
        else:
            change = b.median_ms / a.median_ms - 1.0
            noise = max(a.rel_stdev, b.rel_stdev, min_change)
            verdict: Verdict = "same" if abs(change) <= noise else ("slower" if change > 0 else "faster")
            out.append(Change(key, b.label, verdict, a.median_ms, b.median_ms, change, noise))
    return out


V = TypeVar("V")


def nodes_of(rows: Mapping[Key, object]) -> set[str]:
    return {k.node for k in rows}


def on_node(rows: Mapping[Key, V], node: str) -> dict[Key, V]:
    """The rows measured on ``node``."""
    return {k: v for k, v in rows.items() if k.node == node}


def across_nodes(old: Mapping[Key, V], new: Mapping[Key, V]) -> tuple[str, str] | None:
    """(old node, new node) when each side holds one node and they differ: then rows are matched by
    experiment, size and kernel alone (two GPUs, not two runs); None otherwise."""
    a, b = nodes_of(old), nodes_of(new)
    if len(a) == 1 and len(b) == 1 and a != b:
        return next(iter(a)), next(iter(b))
    return None


def as_node(rows: Mapping[Key, V], node: str) -> dict[Key, V]:
    """``rows`` keyed as if measured on ``node`` (to match them with another node's rows)."""
    return {replace(k, node=node): v for k, v in rows.items()}


def counts(changes: Iterable[Change]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in changes:
        out[c.verdict] = out.get(c.verdict, 0) + 1
    return out
