"""Keep-alive connections for the checker: one small pool per host, constant work per request.

httpx's default transport keeps one httpcore ``AsyncConnectionPool`` for every host. In httpcore 1.0.x
that pool (a) counts *all* its connections, busy ones included, when deciding whether an idle one is
surplus, so with more connections in flight than ``max_keepalive_connections`` every connection is
closed after one request (at 64 pages in flight, 1,000 URLs on one host opened 1,000 TCP connections),
and (b) looks at every connection, polling each idle socket, on every request: with many connections
its cost grows with their number. Here instead each host keeps a stack of idle connections, at most
``keep_per_host`` of them; a request takes the most recently used one that is still usable (only that
one is looked at) or opens a new connection; a response, once closed with its body read, puts its
connection back. How many connections a host gets at once is the scheduler's business (its per-host
slots), so the pool needs no limit of its own beyond what it keeps idle.

:class:`PooledTransport` is httpx's own transport (request and response mapping, exception mapping,
TLS settings) with this pool in place of httpcore's. :class:`Sender` sends one GET through it: straight
to the transport (httpx's client adds URL merging, auth and redirect hooks and a cookie jar that parses
every response: a third of the CPU per request, and none of it needed here), or through an httpx client
when the environment names a proxy. Cookies set by a page are kept for that page's own redirects only.
"""

from __future__ import annotations

import ssl
import urllib.request
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpcore
import httpx

from site_plugins.links.aionet import AsyncioBackend

HostKey = tuple[bytes, bytes, int]


def _key(origin: httpcore.Origin) -> HostKey:
    return origin.scheme, origin.host, origin.port


class _Stream:
    """The response body; closing it returns its connection to the pool (or closes it)."""

    def __init__(self, inner: Any, conn: httpcore.AsyncHTTPConnection, pool: HostPool) -> None:
        self._inner = inner
        self._conn = conn
        self._pool = pool

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            await self._pool.put(self._conn)


class HostPool:
    """Idle HTTP/1.1 connections per host (scheme, host, port), at most ``keep_per_host`` each."""

    def __init__(self, ssl_context: ssl.SSLContext | None, keep_per_host: int, keepalive_expiry: float = 5.0,
                 ) -> None:
        self._ssl = ssl_context
        self.keep_per_host = keep_per_host
        self._expiry = keepalive_expiry
        self._backend = AsyncioBackend()
        self._idle: dict[HostKey, list[httpcore.AsyncHTTPConnection]] = {}
        self.opened: dict[HostKey, int] = {}  # TCP connections opened per host, for tests and the benchmark

    def _take(self, key: HostKey) -> tuple[httpcore.AsyncHTTPConnection | None, list[httpcore.AsyncHTTPConnection]]:
        stale: list[httpcore.AsyncHTTPConnection] = []
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.is_available() and not conn.has_expired():
                return conn, stale
            stale.append(conn)
        return None, stale

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        key = _key(request.url.origin)
        conn, stale = self._take(key)
        for old in stale:
            await old.aclose()
        if conn is None:
            self.opened[key] = self.opened.get(key, 0) + 1
            conn = httpcore.AsyncHTTPConnection(origin=request.url.origin, ssl_context=self._ssl,
                                                keepalive_expiry=self._expiry, network_backend=self._backend)
        try:
            response = await conn.handle_async_request(request)
        except BaseException:
            await conn.aclose()
            raise
        return httpcore.Response(status=response.status, headers=response.headers,
                                 content=_Stream(response.stream, conn, self), extensions=response.extensions)

    async def put(self, conn: httpcore.AsyncHTTPConnection) -> None:
        if conn.is_idle():
            idle = self._idle.setdefault(_key(conn._origin), [])
            if len(idle) < self.keep_per_host:
                idle.append(conn)
                return
        if not conn.is_closed():
            await conn.aclose()

    async def close_host(self, key: HostKey) -> None:
        """Close a host's idle connections (its last page is done), so that idle sockets stay few."""
        for conn in self._idle.pop(key, []):
            await conn.aclose()

    async def aclose(self) -> None:
        for key in list(self._idle):
            await self.close_host(key)

    async def __aenter__(self) -> HostPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def host_key(url: httpx.URL) -> HostKey:
    return url.raw_scheme, url.raw_host, url.port or (443 if url.raw_scheme == b"https" else 80)


class PooledTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with :class:`HostPool` instead of httpcore's pool (see the module docstring)."""

    def __init__(self, ssl_context: ssl.SSLContext, keep_per_host: int) -> None:
        super().__init__(verify=ssl_context, trust_env=False)
        self.pool = HostPool(ssl_context, keep_per_host)
        # httpx 0.27-0.29 keep their httpcore pool here and use only its request, enter and close methods.
        self._pool = self.pool  # type: ignore[assignment]


class Sender:
    """Sends GET requests (streamed, no redirects followed) with fixed headers and timeouts."""

    def __init__(self, ssl_context: ssl.SSLContext, keep_per_host: int, headers: Mapping[str, str],
                 timeout: float) -> None:
        self.transport = PooledTransport(ssl_context, keep_per_host)
        self.pool = self.transport.pool
        self._headers = httpx.Headers(headers)
        self._timeout = httpx.Timeout(timeout)
        self._extensions = {"timeout": self._timeout.as_dict()}
        # A proxy from the environment: let httpx's client route each request (its mounts do that).
        self._client: httpx.AsyncClient | None = None
        if urllib.request.getproxies():
            self._client = httpx.AsyncClient(transport=self.transport, verify=ssl_context, timeout=self._timeout,
                                             headers=headers, follow_redirects=False, trust_env=True)

    async def get(self, url: str, cookies: httpx.Cookies | None = None) -> httpx.Response:
        request = httpx.Request("GET", url, headers=self._headers, extensions=self._extensions)
        if cookies:
            cookies.set_cookie_header(request)
        if self._client is not None:
            return await self._client.send(request, stream=True)
        response = await self.transport.handle_async_request(request)
        response.request = request
        return response

    async def __aenter__(self) -> Sender:
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._client is not None:
            await self._client.aclose()
        await self.transport.aclose()
