"""The online checker: async, streaming GET, redirects followed by hand, bounded in every dimension.

For each page (URLs that differ only in their ``#fragment`` share one fetch):

- one streaming GET (no HEAD: too many servers answer it wrongly); the body is read only when a fragment
  must be checked, and then at most ``max_body`` bytes, stopping as soon as every fragment is found;
- redirects followed by hand, at most ``max_redirects``, so the chain is recorded and loops are caught;
- one deadline per page for its whole life: from its first request to its verdict, every try, backoff
  wait, redirect, body byte, the pause before the second pass and the second pass itself must fit in
  ``deadline`` seconds. Time queueing before the first request is not counted (a host's politeness
  decides it); once started, a page comes back for a slot ahead of pages not yet started;
- the schedule of one page: the first pass may use half of what the deadline leaves after
  ``second_pass_delay``; whatever is still transient then waits ``second_pass_delay`` (giving its slot
  to others) and tries again until the deadline;
- retries with exponential backoff and jitter for transient failures and 429; a page gives its slot
  back while it waits; a ``Retry-After`` (up to ``retry_after_cap``) holds the whole host;
- a global limit on pages in flight, ``per_host`` slots per host and a minimum interval between
  requests to one host; a request still in flight after ``slow_after`` seconds moves to one of
  ``slow_per_host`` slow slots (:mod:`~site_plugins.links.schedule`), so slow pages do not hold a
  host's fast ones back;
- keep-alive connections per host over aiohttp (:mod:`~site_plugins.links.pool`), closed once a host's last
  page is done;
- TLS verification always on (extra CA certificates may be added, never verification removed), and a
  User-Agent that names the project.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import random
import ssl
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit, urlunsplit

from site_plugins.links.evidence import Hop
from site_plugins.links.schedule import Held, HostGate, Slots, SlowLane, host_key
from site_plugins.links.verdict import (
    REDIRECT_STATUSES,
    Classification,
    Kind,
    Verdict,
    backoff_delay,
    classify_exception,
    classify_status,
    reason_phrase,
    retry_after_seconds,
)

if TYPE_CHECKING:  # the HTTP stack is imported when a check runs: the offline check never needs it
    from site_plugins.links.htmlscan import FragmentState  # and the HTML scanner only for a #fragment
    from site_plugins.links.pool import Response, Sender


def default_user_agent() -> str:
    # The versions as the packages declare them: importlib.metadata would find the same, for 7 ms.
    from aiohttp import __version__ as aiohttp_version  # only when a check runs

    from site_plugins import __version__

    return (f"cuda-gloss-links/{__version__} (source-link checker of the cuda-gloss CUDA "
            f"performance glossary; aiohttp/{aiohttp_version})")

ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
# A body no larger than this is read to its end (briefly) so that the connection can be reused;
# a larger or open-ended one is not, and its connection is closed instead.
DRAIN_LIMIT = 64 * 1024
DRAIN_SECONDS = 1.0


@dataclass(frozen=True)
class Settings:
    """How hard and how politely to check. Defaults suit a scheduled CI run over real sites."""

    timeout: float = 10.0  # seconds per network operation (connect, each read, write)
    deadline: float = 40.0  # seconds per page from its first request to its verdict, everything included
    retries: int = 2  # extra tries per pass for transient failures and 429
    backoff: float = 1.0  # first retry waits about this long, then doubling (with jitter)
    backoff_max: float = 10.0
    retry_after_cap: float = 30.0  # a longer Retry-After is not waited for
    second_pass_delay: float = 10.0  # between a page's first pass and its second, if still transient
    concurrency: int = 64  # pages in flight (across hosts; per_host keeps each host polite)
    per_host: int = 2  # pages in flight per host
    slow_per_host: int = 2  # more slots per host for requests in flight longer than slow_after
    slow_after: float = 2.0
    min_interval: float = 0.25  # seconds between requests to one host
    max_redirects: int = 5
    max_body: int = 5 * 1024 * 1024  # bytes read at most, only to look for a fragment
    user_agent: str = ""  # "": cuda-gloss-links/VERSION (... aiohttp/VERSION), see default_user_agent()
    ca_bundle: str | None = None  # extra CA certificates to trust (PEM), on top of the default store

    @property
    def pass_budget(self) -> float:
        """Seconds the first pass may use: half of what the deadline leaves after the pause."""
        if self.second_pass_delay >= self.deadline:
            return self.deadline  # no room for a second pass
        return (self.deadline - self.second_pass_delay) / 2


@dataclass(frozen=True)
class Result:
    """The verdict on one URL as cited (fragment included)."""

    url: str
    verdict: Verdict
    reason: str
    kind: Kind = ""
    status: int | None = None
    final_url: str | None = None
    redirects: tuple[Hop, ...] = ()
    anchor: str = ""  # "", "found", "cannot verify: <why>"
    tries: int = 0
    passes: int = 1
    elapsed: float = 0.0
    checked_at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC).replace(microsecond=0))


@dataclass
class _Attempt:
    """What one pass over a page has learnt so far (kept when the deadline cuts it short)."""

    tries: int = 0
    status: int | None = None
    url: str = ""
    hops: list[Hop] = field(default_factory=list)
    reading_body: bool = False
    last: str | None = None  # why the last try failed, if it did


@dataclass
class _PageOutcome:
    cls: Classification
    status: int | None = None
    final_url: str | None = None
    hops: tuple[Hop, ...] = ()
    anchors: dict[str, tuple[FragmentState, str]] = field(default_factory=dict)
    retry_after: float | None = None
    tries: int = 0
    body_error: Classification | None = None  # the page answered ok, but reading it for anchors failed


def split_fragment(url: str) -> tuple[str, str | None]:
    if "#" not in url:
        return url, None
    parts = urlsplit(url)
    return urlunsplit(parts._replace(fragment="")), parts.fragment


class Checker:
    def __init__(self, settings: Settings = Settings(), *, verify: ssl.SSLContext | None = None,
                 rng: random.Random | None = None) -> None:
        self.settings = settings
        self._verify = verify
        self._rng = rng or random.Random()
        self._gates: dict[str, HostGate] = {}
        self._global = Slots(settings.concurrency)
        self._slow_lane = SlowLane(settings.slow_after)
        self.pool: Sender | None = None  # the last check's connections (tests count them: ``pool.opened``)
        self.requests = 0  # requests sent, redirects and retries included

    def _gate(self, key: str) -> HostGate:
        """The gate of the host whose :func:`host_key` is ``key``."""
        gate = self._gates.get(key)
        if gate is None:
            s = self.settings
            gate = self._gates[key] = HostGate(s.per_host, s.slow_per_host, s.min_interval)
        return gate

    def sender(self) -> Sender:
        from site_plugins.links.pool import Sender, ssl_context

        s = self.settings
        verify = self._verify
        sender = Sender((lambda: verify) if verify is not None else (lambda: ssl_context(s.ca_bundle)),
                        {"User-Agent": s.user_agent or default_user_agent(), "Accept": ACCEPT,
                         "Accept-Language": "en"}, s.timeout)
        self.pool = sender
        return sender

    async def check(self, urls: Sequence[str], on_result: Callable[[Result], None] | None = None,
                    ) -> dict[str, Result]:
        """Check every URL; ``on_result`` is called once per URL as soon as its verdict is final."""
        pages: dict[str, list[str]] = {}
        for url in dict.fromkeys(urls):
            page, _ = split_fragment(url)
            pages.setdefault(page, []).append(url)
        self._global = Slots(self.settings.concurrency)
        self._slow_lane = SlowLane(self.settings.slow_after)
        keys = {page: host_key(page) for page in pages}  # once per page: thousands of URLs, few hosts
        for key in keys.values():
            self._gate(key).pending += 1
        results: dict[str, Result] = {}
        async with self.sender() as client:

            async def one(page: str, cited: list[str]) -> None:
                key = keys[page]
                gate = self._gates[key]
                try:
                    found = await self._life(client, page, key, cited, gate)
                finally:
                    gate.pending -= 1
                    if gate.pending == 0:
                        await client.close_host(key)
                for r in found:
                    results[r.url] = r
                    if on_result:
                        on_result(r)

            try:
                await self._start_in_waves([one(p, c) for p, c in pages.items()])
            finally:
                self._slow_lane.close()
        return {u: results[u] for u in dict.fromkeys(urls)}

    async def _start_in_waves(self, lives: list[Coroutine[None, None, None]]) -> None:
        """``asyncio.gather(*lives)``, the tasks started ``concurrency`` at a time, one loop turn apart.

        Started all at once, every page runs its first step (up to waiting for a slot) before the loop
        gets back to the network: 1,000 pages held the first request back by about 15 ms, 10,000 by
        about 100 ms (bench/links/README.md). In waves, the first pages' connections are under way
        while the later ones queue. Pages still take slots in their order (each wave after the one
        before it), and a cancellation ends them all as it would end gather."""
        loop = asyncio.get_running_loop()
        wave = max(self.settings.concurrency, 1)
        tasks: list[asyncio.Task[None]] = []
        try:
            for first in range(0, len(lives), wave):
                if first:
                    await asyncio.sleep(0)
                tasks += [loop.create_task(life) for life in lives[first:first + wave]]
        except BaseException:  # cancelled between two waves: end what started, as gather would
            for life in lives[len(tasks):]:
                life.close()  # never started: no "never awaited" warning
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        await asyncio.gather(*tasks)

    async def _life(self, client: Sender, page: str, key: str, cited: list[str], gate: HostGate,
                    ) -> list[Result]:
        """One page from its first request to its verdict, inside its deadline (see the module docstring)."""
        s = self.settings
        loop = asyncio.get_running_loop()
        held = Held(gate, self._global)
        await held.acquire(urgent=False)  # queueing before the first request does not count
        started = loop.time()
        deadline_at = started + s.deadline
        attempt = _Attempt(url=page)
        try:
            try:
                first_ends = started + s.pass_budget
                async with asyncio.timeout_at(first_ends):
                    outcome = await self._pass(client, page, key, cited, attempt, held, first_ends)
            except TimeoutError:
                outcome = self._deadline_outcome(attempt, s.pass_budget, "first pass")
            first = self._results(page, cited, outcome, 1, loop.time() - started)
            again = [r.url for r in first if r.verdict == "transient"]
            if not again or s.second_pass_delay >= s.deadline:
                return first
            held.release()
            attempt = _Attempt(url=page)
            try:
                async with asyncio.timeout_at(deadline_at):
                    await asyncio.sleep(s.second_pass_delay)
                    await held.acquire(urgent=True)
                    outcome = await self._pass(client, page, key, again, attempt, held, deadline_at)
            except TimeoutError:
                outcome = self._deadline_outcome(attempt, s.deadline, "deadline")
            second = {r.url: r for r in self._results(page, again, outcome, 2, loop.time() - started)}
            return [second.get(r.url, r) for r in first]
        finally:
            held.release()

    def _results(self, page: str, cited: list[str], outcome: _PageOutcome, passes: int, elapsed: float,
                 ) -> list[Result]:
        now = dt.datetime.now(dt.UTC).replace(microsecond=0)
        out = []
        for url in cited:
            base = Result(url, outcome.cls.verdict, outcome.cls.reason, outcome.cls.kind, outcome.status,
                          outcome.final_url, outcome.hops, "", outcome.tries, passes, elapsed, now)
            _, frag = split_fragment(url)
            if frag and outcome.cls.verdict == "ok":
                state, why = outcome.anchors.get(frag, ("cannot verify", "the page body was not read"))
                if outcome.body_error is not None:
                    err = outcome.body_error
                    base = replace(base, verdict=err.verdict, kind=err.kind, reason=err.reason)
                elif state == "found":
                    base = replace(base, anchor="found")
                elif state == "missing":
                    base = replace(base, verdict="broken", kind="anchor",
                                   reason=f"anchor #{frag} not found on the page ({outcome.cls.reason})")
                else:
                    base = replace(base, verdict="cannot verify", kind="anchor", anchor=f"cannot verify: {why}",
                                   reason=f"anchor #{frag} cannot be verified: {why}")
            out.append(base)
        return out

    @staticmethod
    def _deadline_outcome(attempt: _Attempt, seconds: float, what: str) -> _PageOutcome:
        limit = f"the {seconds:g} s deadline" if what == "deadline" else f"the {seconds:g} s of the {what}"
        if attempt.reading_body and attempt.status is not None:
            # The page itself is fine; only the fragment check ran out of time.
            reason = (f"the page answered {reason_phrase(attempt.status)} but its body did not arrive within "
                      f"{limit}, so the anchor could not be checked")
            return _PageOutcome(Classification("ok", reason_phrase(attempt.status)), attempt.status,
                                attempt.url or None, tuple(attempt.hops), tries=attempt.tries,
                                body_error=Classification("transient", reason, "deadline"))
        reason = f"no complete answer within {limit}"
        if attempt.last is not None:
            reason = f"{attempt.last}; then {reason}"
        return _PageOutcome(Classification("transient", reason, "deadline"), attempt.status,
                            attempt.url or None, tuple(attempt.hops), tries=attempt.tries)

    async def _pass(self, client: Sender, page: str, key: str, cited: list[str], attempt: _Attempt,
                    held: Held, ends_at: float) -> _PageOutcome:
        """Tries until a definite answer, the retries are used up, or the next try would not fit."""
        s = self.settings
        loop = asyncio.get_running_loop()
        fragments = {f for u in cited if "#" in u and (f := split_fragment(u)[1])}
        while True:
            attempt.tries += 1
            attempt.hops = []
            attempt.status = None
            attempt.reading_body = False
            watch = self._slow_lane.watch(held)  # in flight slow_after seconds: to the host's slow lane
            try:
                outcome = await self._follow(client, page, key, fragments, attempt, held.gate)
            finally:
                SlowLane.done(watch)
            outcome.tries = attempt.tries
            cls = outcome.cls
            if not cls.retry:
                return outcome
            attempt.last = cls.reason
            if attempt.tries > s.retries:
                return self._gave_up(outcome)
            wait = backoff_delay(attempt.tries - 1, s.backoff, s.backoff_max, self._rng)
            if outcome.retry_after is not None:
                if outcome.retry_after > s.retry_after_cap:
                    outcome.cls = replace(cls, reason=f"{cls.reason}; the server asked to wait "
                                                      f"{outcome.retry_after:g} s, more than the "
                                                      f"{s.retry_after_cap:g} s cap")
                    return outcome
                wait = outcome.retry_after
                self._gate(host_key(outcome.final_url) if outcome.final_url else key).hold(wait)
            if loop.time() + wait >= ends_at:
                outcome.cls = replace(cls, reason=f"{cls.reason}; no time left for another try")
                return self._gave_up(outcome)
            held.release()  # others of this host go on while this page waits
            await asyncio.sleep(wait)
            await held.acquire(urgent=True)

    @staticmethod
    def _gave_up(outcome: _PageOutcome) -> _PageOutcome:
        if outcome.tries > 1:
            outcome.cls = replace(outcome.cls, reason=f"{outcome.cls.reason} (after {outcome.tries} tries)")
        return outcome

    async def _follow(self, client: Sender, page: str, key: str, fragments: set[str], attempt: _Attempt,
                      gate: HostGate) -> _PageOutcome:
        """One try: GET, redirects followed by hand."""
        from site_plugins.links.pool import HTTP_ERRORS, Cookies

        s = self.settings
        url = page
        seen: set[str] = {page}
        cookies: Cookies | None = None  # set by this page's own redirects, sent back on the next hop
        while True:
            attempt.url = url
            url_key = key if url == page else host_key(url)
            await (gate if url == page else self._gate(url_key)).pace()
            self.requests += 1
            try:
                response = await client.get(url, url_key, cookies)
            except HTTP_ERRORS as exc:
                return _PageOutcome(classify_exception(exc), final_url=url, hops=tuple(attempt.hops))
            try:
                status = response.status_code
                attempt.status = status
                location = response.headers.get("location")
                if "set-cookie" in response.headers:
                    cookies = cookies or Cookies()
                    cookies.extract(response)
                if status in REDIRECT_STATUSES and location:
                    nxt, _ = split_fragment(urljoin(response.url, location.strip()))
                    attempt.hops.append(Hop(url, status))
                    chain = " -> ".join([*(h.url for h in attempt.hops), nxt])
                    if len(attempt.hops) > s.max_redirects:
                        return _PageOutcome(Classification("broken", f"more than {s.max_redirects} redirects: "
                                                           f"{chain}", "too-many-redirects"),
                                            status, url, tuple(attempt.hops))
                    if nxt in seen and "set-cookie" not in response.headers:
                        return _PageOutcome(Classification("broken", f"redirect loop: {chain}", "redirect-loop"),
                                            status, url, tuple(attempt.hops))
                    if urlsplit(nxt).scheme not in ("http", "https"):
                        return _PageOutcome(Classification("broken", f"redirect to a non-web address: {nxt}",
                                                           "bad-redirect"), status, url, tuple(attempt.hops))
                    seen.add(nxt)
                    url = nxt
                    continue
                cls = classify_status(status, response.headers)
                retry_after = None
                if status in (429, 503):
                    retry_after = retry_after_seconds(response.headers.get("retry-after"), dt.datetime.now(dt.UTC))
                anchors: dict[str, tuple[FragmentState, str]] = {}
                body_error = None
                if cls.verdict == "ok" and fragments:
                    attempt.reading_body = True
                    try:
                        anchors = await self._anchors(response, fragments)
                    except HTTP_ERRORS as exc:
                        err = classify_exception(exc)
                        body_error = replace(err, reason=f"{err.reason} while reading the page for its anchor")
                return _PageOutcome(cls, status, response.url, tuple(attempt.hops), anchors, retry_after,
                                    body_error=body_error)
            finally:
                await self._release(response)

    @staticmethod
    async def _release(response: Response) -> None:
        """Close the response; read a small unread body first so its connection goes back to the pool."""
        from site_plugins.links.pool import HTTP_ERRORS

        task = asyncio.current_task()
        cancelled = task is not None and task.cancelling() > 0  # the deadline struck: close at once
        # A body that has all arrived (the usual small page) needs no reading: its connection is reusable.
        if not response.is_stream_consumed and not cancelled and not response.body_arrived:
            length = response.headers.get("content-length", "")
            if length.isdigit() and int(length) <= DRAIN_LIMIT:
                with contextlib.suppress(*HTTP_ERRORS):
                    async with asyncio.timeout(DRAIN_SECONDS):
                        await response.aread()
        await response.aclose()

    async def _anchors(self, response: Response, fragments: set[str],
                       ) -> dict[str, tuple[FragmentState, str]]:
        from site_plugins.links.htmlscan import read_anchors

        ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
        return await read_anchors(response.aiter_bytes(), ctype, response.charset_encoding, fragments,
                                  self.settings.max_body)
