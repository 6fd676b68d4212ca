"""Who may send a request now: per-host slots in two lanes, pacing, and a global limit, all asyncio.

- :class:`Slots` is a semaphore whose waiters are served by priority: a URL whose deadline is already
  running (coming back from a backoff wait or for its second pass) goes before a URL not yet started,
  so a started URL waits for a slot at most as long as one request takes.
- :class:`HostGate` holds a host's slots. ``per_host`` normal slots take new requests; a request still in
  flight after ``slow_after`` seconds (a silent server, a slow body) moves to one of ``slow_per_host``
  slow slots when one is free, and its normal slot goes to the next URL of that host. So slow URLs hold
  a host's fast ones back by at most ``slow_after``, and the host never sees more than
  ``per_host + slow_per_host`` requests from us at once. A slow request gives back its global slot
  too (slow ones are bounded per host). Request starts are paced ``min_interval``
  apart, and a ``Retry-After`` holds the whole host.
- :class:`SlowLane` is the clock behind that move: one timer for all requests in flight, not one each.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import re
from collections import deque
from urllib.parse import urlsplit

_SCHEME_AUTHORITY = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)")


def host_key(url: str) -> str:
    """A URL's host as slots, pacing and connection pools see it: scheme and authority, lower case.

    The checker asks once per page and once per redirect. Same answer as ``urlsplit`` (a test holds them
    equal), which takes four times as long: it is used only for what the pattern does not cover, such as
    addresses with spaces or control characters that ``urlsplit`` strips or removes first.
    """
    m = _SCHEME_AUTHORITY.match(url)
    if m is not None and url.isprintable() and " " not in url:
        return m.group().lower()
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.lower()}"


class Slots:
    """A counting semaphore with two priorities (``urgent`` first, then first come, first served)."""

    def __init__(self, n: int) -> None:
        self.free = n
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    async def acquire(self, urgent: bool = False) -> None:
        if self.free > 0 and not self._waiters:
            self.free -= 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (0 if urgent else 1, next(self._seq), fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()  # handed a slot just as the wait was cancelled: pass it on
            raise

    def release(self) -> None:
        while self._waiters:
            _, _, fut = heapq.heappop(self._waiters)
            if not fut.done():
                fut.set_result(None)
                return
        self.free += 1


class HostGate:
    def __init__(self, per_host: int, slow_per_host: int, min_interval: float) -> None:
        self.normal = Slots(per_host)
        self.slow_free = slow_per_host
        self.min_interval = min_interval
        self._lock = asyncio.Lock()
        self._next = 0.0
        self.pending = 0  # pages of this host not yet finished (the checker closes idle connections at 0)

    async def pace(self) -> None:
        if self.min_interval <= 0 and self._next == 0.0:
            return
        loop = asyncio.get_running_loop()
        async with self._lock:
            wait = self._next - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self._next = loop.time() + self.min_interval

    def hold(self, seconds: float) -> None:
        """Make the next request to this host wait at least ``seconds`` from now (Retry-After)."""
        self._next = max(self._next, asyncio.get_running_loop().time() + seconds)


class Held:
    """What one page holds while it works: a host slot (normal or slow) and a global slot."""

    def __init__(self, gate: HostGate, global_slots: Slots) -> None:
        self.gate = gate
        self.global_slots = global_slots
        self.lane: str = ""  # "", "normal" or "slow"

    async def acquire(self, urgent: bool) -> None:
        await self.gate.normal.acquire(urgent)
        try:
            await self.global_slots.acquire(urgent)
        except BaseException:
            self.gate.normal.release()
            raise
        self.lane = "normal"

    def demote(self) -> bool:
        """Move to the slow lane if a slow slot is free; the normal slot goes to the next page."""
        if self.lane != "normal" or self.gate.slow_free <= 0:
            return False
        self.gate.slow_free -= 1
        self.gate.normal.release()
        self.global_slots.release()
        self.lane = "slow"
        return True

    def release(self) -> None:
        if not self.lane:
            return
        if self.lane == "slow":
            self.gate.slow_free += 1
        else:
            self.gate.normal.release()
            self.global_slots.release()
        self.lane = ""


class Watch:
    """One request's clock in :class:`SlowLane`."""

    __slots__ = ("due", "held", "live")

    def __init__(self, due: float, held: Held) -> None:
        self.due = due
        self.held = held
        self.live = True  # still in flight


class SlowLane:
    """Moves each request still in flight ``after`` seconds after it started to its host's slow lane.

    One timer for every request in flight (a timer per request costs a heap push and a cancel for each
    URL): since ``after`` is the same for all, requests fall due in the order they started, so a queue
    in start order, with finished requests skipped when they reach its head, says when the next one is
    due. A request that finds no free slow slot is looked at again ``after`` seconds later.
    """

    def __init__(self, after: float) -> None:
        self.after = after
        self._queue: deque[Watch] = deque()  # in order of due time
        self._timer: asyncio.TimerHandle | None = None

    def watch(self, held: Held) -> Watch:
        """Start the clock of one request; pass what it returns to :meth:`done` when the request ends."""
        loop = asyncio.get_running_loop()
        entry = Watch(loop.time() + self.after, held)
        self._queue.append(entry)
        if self._timer is None:
            self._timer = loop.call_at(entry.due, self._fire)
        return entry

    @staticmethod
    def done(entry: Watch) -> None:
        entry.live = False

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._queue.clear()

    def _fire(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        queue = self._queue
        while queue and (not queue[0].live or queue[0].due <= now):
            entry = queue.popleft()
            if entry.live and entry.held.lane == "normal" and not entry.held.demote():
                entry.due = now + self.after  # no slow slot free yet: look again later (still in due order)
                queue.append(entry)
        while queue and not queue[0].live:
            queue.popleft()
        self._timer = loop.call_at(queue[0].due, self._fire) if queue else None
