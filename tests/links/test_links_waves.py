"""Pages start in waves of ``concurrency``: the first requests go out before thousands of pages queue, and
the order, the results and a cancellation are as with every page started at once."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import warnings
from dataclasses import replace

from links_servers import Server, SilentServer

from site_plugins.links.checker import Checker, Settings
from site_plugins.links.pool import Sender

FAST = Settings(timeout=2.0, deadline=4.0, retries=0, second_pass_delay=0.2, concurrency=4, per_host=4,
                min_interval=0.0)


class _Spy(Checker):
    """Records, at each request, how many pages (tasks) had been started and which page it was for."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.tasks_at_request: list[int] = []
        self.order: list[str] = []

    def sender(self) -> Sender:
        sender = super().sender()
        get = sender.get

        async def spying_get(url: str, *args: object, **kwargs: object) -> object:
            self.tasks_at_request.append(len(asyncio.all_tasks()))
            self.order.append(url)
            return await get(url, *args, **kwargs)  # type: ignore[arg-type]

        sender.get = spying_get  # type: ignore[method-assign]
        return sender


def test_the_first_requests_go_out_before_every_page_is_started(http: Server) -> None:
    urls = [http.url(f"/ok?wave={i}") for i in range(400)]
    spy = _Spy(FAST)
    results = asyncio.run(spy.check(urls))
    assert [r.verdict for r in results.values()] == ["ok"] * 400
    # The first request went out with one wave of 4 pages started (plus the check's own task and at most
    # the next wave), not 400; and pages were still sent in their order.
    assert spy.tasks_at_request[0] <= 1 + 2 * FAST.concurrency
    assert spy.order[: FAST.concurrency] == urls[: FAST.concurrency]
    assert sorted(spy.order, key=urls.index) == spy.order


def test_a_cancellation_between_waves_ends_every_started_page(silent: SilentServer) -> None:
    urls = [f"{silent.url()}?cancel={i}" for i in range(40)]

    async def main() -> tuple[int, int]:
        checker = Checker(replace(FAST, concurrency=2, per_host=2))
        task = asyncio.create_task(checker.check(urls))
        for _ in range(3):  # the check is still starting its waves
            await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        return len(left), checker.requests

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        left, sent = asyncio.run(main())
        gc.collect()  # a coroutine never started and never closed warns when it is collected
    assert left == 0
    assert sent <= 4  # two pages, plus the next wave at most, had been started
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
