"""The audit's pages, read on every core: an embarrassingly parallel job run in forked workers.

Each page of a built site is read and checked on its own (:func:`site_plugins.publishing.audit.audit`), so a
site of thousands of pages is split into chunks that forked worker processes check while the parent waits:
the manifest and everything else the check reads are the parent's memory, inherited by the fork, never
pickled; only the findings come back. Used only where it is safe and worth it: on a platform that forks,
from a process running no other thread, with more than :data:`MIN_ITEMS` pages and more than one core
(``GLOSS_AUDIT_WORKERS`` sets the number of workers; 1 turns it off). Otherwise, and if a worker fails for
any reason, the same function runs here, in this process: the findings are the same either way.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 200  # below this, starting workers costs more than it saves
_TASK: Callable[[Sequence[Any]], list[Any]] | None = None


def workers() -> int:
    given = os.environ.get("GLOSS_AUDIT_WORKERS", "").strip()
    if given.isdigit():
        return max(1, int(given))
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8))


def _run(chunk: Sequence[Any]) -> list[Any]:
    assert _TASK is not None
    return _TASK(chunk)


def run(task: Callable[[Sequence[T]], list[R]], items: Sequence[T], n: int | None = None) -> list[R]:
    """``task(items)``, the items split among ``n`` forked workers (default :func:`workers`) when that is
    safe and worth it; the results concatenated (in no particular order)."""
    global _TASK
    n = workers() if n is None else n
    if (n <= 1 or len(items) < MIN_ITEMS or threading.active_count() > 1
            or "fork" not in multiprocessing.get_all_start_methods()):
        return task(items)
    chunks = [items[i::n * 4] for i in range(n * 4)]
    _TASK = task  # (inherited by the fork; never pickled)
    try:
        with multiprocessing.get_context("fork").Pool(n) as pool:
            out: list[R] = []
            for part in pool.imap_unordered(_run, chunks):
                out += part
            return out
    except (OSError, multiprocessing.ProcessError):  # no fork here, after all: the same work in this process
        return task(items)
    finally:
        _TASK = None
