"""The two reference clients of the link benchmark: the least code that GETs every URL, concurrently.

    python bench/links/refclients.py httpx URLFILE --concurrency 64 --per-host 64
    python bench/links/refclients.py aiohttp URLFILE --concurrency 64 --per-host 64

Each reads the URLs (one per line), GETs every one with at most ``--concurrency`` in flight and at most
``--per-host`` per host, reads each body, and prints how many answered 2xx. No retries, no deadline, no
redirect bookkeeping, no evidence: a floor for what any checker on the same HTTP stack can do.

httpx: one ``AsyncClient`` with ``max_connections`` and ``max_keepalive_connections`` both set to the
concurrency (with fewer kept alive, httpcore 1.0.x closes a connection after each request once more
are in flight than it keeps). aiohttp: one ``ClientSession`` with ``TCPConnector(limit, limit_per_host)``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import defaultdict
from pathlib import Path
from urllib.parse import urlsplit


async def with_httpx(urls: list[str], concurrency: int, per_host: int) -> int:
    import httpx

    total = asyncio.Semaphore(concurrency)
    hosts: defaultdict[str, asyncio.Semaphore] = defaultdict(lambda: asyncio.Semaphore(per_host))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:

        async def one(url: str) -> bool:
            async with hosts[urlsplit(url).netloc], total:
                response = await client.get(url)
                return response.is_success

        return sum(await asyncio.gather(*(one(u) for u in urls)))


async def with_aiohttp(urls: list[str], concurrency: int, per_host: int) -> int:
    import aiohttp

    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=per_host)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as session:

        async def one(url: str) -> bool:
            async with session.get(url) as response:
                await response.read()
                return 200 <= response.status < 300

        return sum(await asyncio.gather(*(one(u) for u in urls)))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("client", choices=("httpx", "aiohttp"))
    p.add_argument("url_file", type=Path)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--per-host", type=int, default=64)
    args = p.parse_args(argv)
    urls = [ln.strip() for ln in args.url_file.read_text(encoding="utf-8").splitlines() if ln.strip()]
    run = with_httpx if args.client == "httpx" else with_aiohttp
    ok = asyncio.run(run(urls, args.concurrency, args.per_host))
    print(ok)
    return 0 if ok == len(urls) else 1


if __name__ == "__main__":
    sys.exit(main())
