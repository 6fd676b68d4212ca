"""Ending ``gloss links check`` on Ctrl-C (SIGINT) or SIGTERM: one line, the answers kept, a shell's exit code.

While a :class:`StopOnSignal` is entered (the CLI holds one around a whole check):

- the first SIGINT or SIGTERM during the online check cancels the check (requests in flight are
  abandoned, their connections closed); the run then goes on as if the check had ended there: the ok
  answers that had arrived are written to the evidence file, and nothing else is reported;
- a signal at any other moment, or a second one, raises :class:`Interrupted` at once. The evidence
  file is only ever replaced whole (temp file + rename), and every ok answer was appended to the
  journal as it arrived (:class:`~site_plugins.links.evidence.Journal`), which the next run reads back;
- the CLI prints :meth:`StopOnSignal.line` and exits ``128 + signal`` (130 for SIGINT, 143 for
  SIGTERM), as a shell reports a process ended by that signal.

Handlers are installed only in the main thread (the only one Python delivers signals to).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """A stop signal outside the check (or a second one); a BaseException, like KeyboardInterrupt, so that
    no ``except Exception`` on the way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass
class Progress:
    """What the one line says: filled in by the run as it goes."""

    total: int = 0  # URLs the online check set out to fetch (fresh ones skipped)
    checked: int = 0  # URLs with a final verdict
    kept: int = 0  # ok answers appended to the journal
    saved: bool = False  # the evidence file holds them (else they are in the journal only)
    evidence: str = "links-evidence.json"  # as messages name it


class StopOnSignal:
    def __init__(self) -> None:
        self.signum: int | None = None
        self.progress = Progress()
        self._task: asyncio.Task[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._cancelling = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopOnSignal:
        if threading.current_thread() is threading.main_thread():
            for sig in SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum or signal.SIGINT)

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
        task, loop = self._task, self._loop
        if task is not None and loop is not None and not task.done() and not self._cancelling:
            self._cancelling = True
            # The handler runs between two bytecodes of the loop's own thread: hand the cancel to the loop
            # (and wake its selector) rather than touch the task from here.
            loop.call_soon_threadsafe(task.cancel)
            return
        raise Interrupted(signum)

    async def run(self, coro: Coroutine[Any, Any, T]) -> T | None:
        """``await coro``; None if a signal cancelled it."""
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        try:
            return await coro
        except asyncio.CancelledError:
            if not self._cancelling or self._task is None:
                raise
            self._task.uncancel()
            return None
        finally:
            self._task = None

    @property
    def stopped_check(self) -> bool:
        """Whether a signal cut the online check short."""
        return self._cancelling

    def line(self) -> str:
        """The one line the CLI prints."""
        p = self.progress
        name = signal.Signals(self.signum or signal.SIGINT).name
        if not p.total:
            return f"gloss links check: interrupted by {name} before any URL was checked; {p.evidence} unchanged"
        where = p.evidence if p.saved else f"{p.evidence}.journal (read back by the next run)"
        rest = p.total - p.kept
        then = f"; the next run checks the other {rest}" if rest else ""
        return (f"gloss links check: interrupted by {name} after {p.checked} of {p.total} URLs; "
                f"{p.kept} ok answer{'' if p.kept == 1 else 's'} kept in {where}{then}")
