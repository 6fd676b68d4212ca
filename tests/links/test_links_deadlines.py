"""Hostile servers on 127.0.0.1 all at once: every verdict inside its own deadline, fast URLs of a host
not held back by its slow ones, and keep-alive connections really reused at high concurrency.

Every time bound here is an upper bound derived from the configured settings, with room for a busy
2-core machine; nothing asserts that anything is fast in absolute terms."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from links_servers import ResetServer, Server, SilentServer

from site_plugins.links.checker import Checker, Result, Settings
from site_plugins.links.schedule import Held, HostGate, Slots, SlowLane

# First pass: (6 - 1) / 2 = 2.5 s; second pass from 1 s after the first ends, until 6 s.
HOSTILE = Settings(timeout=0.8, deadline=6.0, retries=2, backoff=0.1, backoff_max=0.4, retry_after_cap=2.0,
                   second_pass_delay=1.0, concurrency=64, per_host=2, slow_per_host=2, slow_after=0.2,
                   min_interval=0.02)
NOISE = 2.0  # event-loop and start-up lag on a loaded machine, on top of the configured bounds


def run(urls: list[str], settings: Settings) -> tuple[dict[str, Result], dict[str, float], float, Checker]:
    """Results, seconds from the start until each URL's verdict was reported, total seconds."""
    at: dict[str, float] = {}
    checker = Checker(settings)
    started = time.monotonic()
    results = asyncio.run(checker.check(urls, lambda r: at.setdefault(r.url, time.monotonic() - started)))
    return results, at, time.monotonic() - started, checker


def test_hostile_servers_each_verdict_within_its_deadline(http: Server, silent: SilentServer,
                                                          reset: ResetServer) -> None:
    s = HOSTILE
    expected = {
        # 3 tries of 0.8 s do not fit in a pass: the pass's share of the deadline cuts the last one.
        **{silent.url(f"/silent/{i}"): ("transient", {"deadline"}) for i in range(3)},
        **{http.url(f"/status/500?hostile={i}"): ("transient", {"http"}) for i in range(3)},
        # The reset may come while connecting or while reading, depending on timing.
        **{reset.url(f"/reset/{i}"): ("transient", {"connect", "network"}) for i in range(3)},
        # A 429 storm with Retry-After on every answer, on a host of its own (the hold covers the host).
        **{http.url(f"/ratelimit/storm{i}?n=100000&after=1", host="localhost"): ("blocked", {"rate-limit"})
           for i in range(3)},
    }
    results, at, total, _ = run(list(expected), s)
    for url, (verdict, kinds) in expected.items():
        r = results[url]
        assert r.verdict == verdict and r.kind in kinds, (url, r.verdict, r.kind, r.reason)
    for url, r in results.items():
        assert r.elapsed <= s.deadline + 0.5, f"{url}: {r.elapsed:.2f} s, deadline {s.deadline} s"
    # Transient ones had their second pass inside the same deadline.
    assert {r.passes for r in results.values() if r.verdict == "transient"} == {2}
    # Nothing queues long here (each host has at most 3 URLs), so the whole run is bounded by one deadline
    # plus politeness: 3 starts per host, min_interval apart, and each storm answer holding its host 1 s.
    politeness = 3 * s.min_interval + 3 * 1.0
    assert total < s.deadline + politeness + NOISE, f"{total:.2f} s"
    assert max(at.values()) < s.deadline + politeness + NOISE


def test_fast_urls_of_a_host_are_not_held_back_by_its_slow_ones(http: Server) -> None:
    # The two silent pages come first and take both normal slots; after slow_after they move to the slow
    # lane and the fast pages go on. Without the slow lane the fast ones would wait for the first timeout.
    # A pass has (8 - 1) / 2 = 3.5 s: each pass of a silent page ends with one 3 s timeout.
    s = replace(HOSTILE, timeout=3.0, deadline=8.0, retries=0, second_pass_delay=1.0)
    slow = [http.url(f"/hang?s=30&n={i}") for i in range(2)]
    fast = [http.url(f"/ok?fast={i}") for i in range(10)]
    results, at, _, _ = run(slow + fast, s)
    assert all(results[u].verdict == "ok" for u in fast)
    assert all((results[u].verdict, results[u].kind) == ("transient", "timeout") for u in slow)
    latest_fast = max(at[u] for u in fast)
    assert latest_fast < s.timeout, f"fast pages done after {latest_fast:.2f} s, behind the slow ones"
    for u in slow:
        assert results[u].elapsed <= s.deadline + 0.5


def test_a_thousand_urls_on_one_host_reuse_at_most_the_pool_size_at_concurrency_64(http: Server) -> None:
    s = replace(HOSTILE, concurrency=64, per_host=64, min_interval=0.0, slow_after=5.0)
    before = http.httpd.connections
    results, _, _, checker = run([http.url(f"/ok?many={i}") for i in range(1000)], s)
    assert all(r.verdict == "ok" for r in results.values())
    opened = http.httpd.connections - before
    pool_size = s.per_host + s.slow_per_host
    assert opened <= pool_size, f"{opened} TCP connections for 1,000 URLs; the pool keeps {pool_size}"
    assert checker.pool is not None and sum(checker.pool.opened.values()) == opened


def test_the_slow_lane_clock_moves_requests_in_start_order_and_retries_when_no_slow_slot_is_free() -> None:
    # One timer for every request in flight: a request is moved once it has been in flight `after`
    # seconds; one that finds no free slow slot is looked at again later; a finished one is left alone.
    async def scenario() -> list[tuple[str, str, str]]:
        gate, everyone = HostGate(per_host=3, slow_per_host=1, min_interval=0.0), Slots(3)
        held = [Held(gate, everyone) for _ in range(3)]
        for h in held:
            await h.acquire(urgent=False)
        lane = SlowLane(0.05)
        first, second = lane.watch(held[0]), lane.watch(held[1])
        third = lane.watch(held[2])
        SlowLane.done(third)  # answered before it fell due
        seen = []
        await asyncio.sleep(0.12)  # all three are due by now
        seen.append((held[0].lane, held[1].lane, held[2].lane))
        SlowLane.done(first)
        held[0].release()  # its slow slot is free again: the second moves on the next look
        await asyncio.sleep(0.12)
        seen.append((held[0].lane, held[1].lane, held[2].lane))
        SlowLane.done(second)
        lane.close()
        return seen

    assert asyncio.run(scenario()) == [("slow", "normal", "normal"), ("", "slow", "normal")]
