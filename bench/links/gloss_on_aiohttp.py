"""A measurement, not a product: ``gloss links check`` with aiohttp in place of httpx underneath.

    python bench/links/gloss_on_aiohttp.py links check --urls-from FILE ...   # same arguments as gloss

The checker sends every GET through one small object (:class:`site_plugins.links.pool.Sender`) and reads
a small slice of ``httpx.Response``. This script swaps that object for one backed by an aiohttp
``ClientSession`` and an adapter exposing the same slice, then runs the real command line: scheduling,
deadlines, verdicts, evidence and output are all gloss's own. It answers "what would the checker cost
per URL on aiohttp?" before anyone decides to change the HTTP stack. Only what the benchmark exercises
is adapted (aiohttp's errors, for one, are not mapped to verdicts), so it is no replacement.
"""

from __future__ import annotations

import ssl
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from site_plugins.links import checker


class _Response:
    """The part of ``httpx.Response`` the checker reads."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._r = response
        self.status_code = response.status
        self.headers = httpx.Headers(response.raw_headers)
        self.url = str(response.url)
        self.charset_encoding = response.charset
        self.is_stream_consumed = False

    async def aread(self) -> bytes:
        self.is_stream_consumed = True
        return await self._r.read()

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        self.is_stream_consumed = True
        async for chunk in self._r.content.iter_any():
            yield chunk

    async def aclose(self) -> None:
        if self.is_stream_consumed:
            self._r.release()
        else:
            self._r.close()


class _NoPool:
    opened: dict[Any, int] = {}  # noqa: RUF012

    async def close_host(self, key: Any) -> None:
        pass


class AiohttpSender:
    def __init__(self, ssl_context: ssl.SSLContext, keep_per_host: int, headers: Mapping[str, str],
                 timeout: float) -> None:
        self.pool = _NoPool()
        self._ssl = ssl_context
        self._headers = dict(headers)
        self._timeout = aiohttp.ClientTimeout(sock_connect=timeout, sock_read=timeout)
        self._session: aiohttp.ClientSession | None = None

    async def get(self, url: str, cookies: httpx.Cookies | None = None) -> Any:
        assert self._session is not None
        response = await self._session.get(url, allow_redirects=False, headers=self._headers)
        return _Response(response)

    async def __aenter__(self) -> AiohttpSender:
        connector = aiohttp.TCPConnector(limit=0, ssl=self._ssl)
        self._session = aiohttp.ClientSession(connector=connector, timeout=self._timeout, auto_decompress=True)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()


def _sender(self: checker.Checker) -> Any:
    s = self.settings
    return AiohttpSender(self._verify or checker.ssl_context(s.ca_bundle), s.per_host + s.slow_per_host,
                         {"User-Agent": s.user_agent, "Accept": checker.ACCEPT, "Accept-Language": "en"}, s.timeout)


if __name__ == "__main__":
    checker.Checker.sender = _sender  # type: ignore[method-assign]
    from site_plugins.cli import main

    sys.exit(main(sys.argv[1:]))
