"""The benchmark's server: HTTP/1.1 with keep-alive on asyncio, in a thread of its own, on one or more
loopback addresses (127.0.0.x, one port each). Every request is answered after a seeded random delay
with a small HTML page and counted; every answer carries a ``LinkChecker`` header (linkchecker's
documented opt-out of its per-host rate limit, for servers one controls)."""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter

PAGE = (b"<!doctype html><html><head><meta charset=utf-8><title>Page</title></head>"
        b"<body><h1 id=top>A page</h1><p>Nothing to follow here.</p></body></html>")


class LatencyServer:
    """One cheap thread for any number of connections, so the server's CPU use stays small next to the tools'."""

    def __init__(self, addresses: list[str], low_ms: float, high_ms: float, seed: int) -> None:
        self.addresses = addresses
        self.low, self.high = low_ms / 1000, high_ms / 1000
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.loop = asyncio.new_event_loop()
        self._servers: list[asyncio.Server] = []
        self.ports: dict[str, int] = {}
        ready = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(ready,), daemon=True)
        self.thread.start()
        if not ready.wait(10) or len(self.ports) != len(addresses):
            raise RuntimeError(f"the benchmark server could not listen on {addresses}")

    def _serve(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        for address in self.addresses:
            server = self.loop.run_until_complete(
                asyncio.start_server(self._connection, address, 0, backlog=1024))
            self._servers.append(server)
            self.ports[address] = server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                method, target = head.split(b" ", 2)[:2]
                with self.lock:
                    self.counts[method.decode()] += 1
                    delay = self.rng.uniform(self.low, self.high)
                await asyncio.sleep(delay)
                robots = target == b"/robots.txt"
                body = b"User-agent: *\nAllow: /\n" if robots else PAGE
                ctype = b"text/plain" if robots else b"text/html; charset=utf-8"
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: " + ctype + b"\r\nContent-Length: "
                             + str(len(body)).encode() + b"\r\nLinkChecker: bench\r\n\r\n"
                             + (b"" if method == b"HEAD" else body))
                await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()

    def total(self) -> int:
        with self.lock:
            return sum(self.counts.values())

    def close(self) -> None:
        async def stop() -> None:
            for server in self._servers:
                server.close()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
