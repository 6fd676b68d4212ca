"""HTTP for the checker: aiohttp underneath, one small keep-alive pool per host, and the slice of an
answer the checker reads.

Why aiohttp: the checker is CPU-bound on a fast network, and most of its CPU per URL went to the HTTP
stack. httpx over httpcore and h11 parses HTTP in Python and (httpcore 1.0.x) closed every connection
after one request once more were in flight than it kept alive; aiohttp parses in C (llhttp), keeps
connections alive at any concurrency, and needs no anyio. bench/links/README.md has the measurements.

- :class:`Sender` keeps one ``aiohttp.ClientSession`` per host (scheme and authority), made on first use
  and closed by :meth:`Sender.close_host` once that host's last page is done and no request (a
  redirect from another host's page) is in flight on it, so that idle sockets stay few on a run over
  thousands of hosts. A host never has more connections than requests in flight to
  it, which the scheduler bounds (:mod:`~site_plugins.links.schedule`); an idle one is closed after
  ``keepalive`` seconds. Redirects are not followed here (the checker follows them, to record them).
- :class:`Response` is what the checker reads: status, headers (case-insensitive), final URL, charset,
  the body in chunks. Closing it returns its connection to the host's pool when the body was read to
  its end, and closes the connection otherwise.
- :class:`Cookies` are the cookies one page's own redirects set, sent back on its next hops only (a
  site that sets a cookie and redirects to itself would otherwise loop); nothing is kept across pages.
- TLS is always verified: the default trust store (``SSL_CERT_FILE``/``SSL_CERT_DIR`` if set, else
  certifi's bundle, as httpx did), plus extra CA certificates if given, made on the first https request
  (or the first request at all when a proxy is set). aiohttp's own default contexts are never used, and
  are left empty when this module imports aiohttp (:func:`_importing_aiohttp`).
- A proxy named by the environment (``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``) is used.
- Every request on the wire is one the checker sent and counted: aiohttp's own silent resend of an
  idempotent request whose connection dropped (``ClientSession._request``, RFC 9112 section 9.3.1.1) is
  turned off, so a dropped connection comes back as an error and the checker's retry policy (backoff,
  deadline, try count) decides what happens next.
"""

from __future__ import annotations

import contextlib
import gc
import os
import ssl
import sys
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import Any

#: OpenSSL's variables for its default trust store (``ssl.get_default_verify_paths()`` names them).
_TRUST_STORE_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR")


@contextlib.contextmanager
def _importing_aiohttp() -> Iterator[None]:
    """Around the first ``import aiohttp`` of the process: its default TLS contexts left empty, and no
    garbage collection.

    aiohttp (3.14, as installed here) builds two TLS contexts when it is imported (``aiohttp.connector``:
    ``_SSL_CONTEXT_VERIFIED`` and ``_SSL_CONTEXT_UNVERIFIED``), each loading the system's CA store: about
    40 ms of CPU, a fifth of the checker's start-up (bench/links/README.md). The checker never uses them:
    every session that can open a TLS connection gets the context of :func:`ssl_context` (see
    :meth:`Sender._session`). So while aiohttp is imported, OpenSSL's default store points at an empty
    file, and the caller's values are put back right after. Were the default verifying context ever
    reached, it would trust no certificate and refuse every one: a mistake here fails closed.

    The import also makes some 22,000 objects the garbage collector tracks, all alive as long as the
    process: the collector is paused during the import and then freezes what is alive (``gc.freeze``, as
    :func:`site_plugins.links.run._few_collections` does for the check), so that it never traverses them.
    That saves about 5 ms; pausing alone saves nothing, as the first collection after the import then
    traverses everything the import made."""
    if "aiohttp" in sys.modules:  # already imported (by a test, say): nothing to save
        yield
        return
    saved = {name: os.environ.get(name) for name in _TRUST_STORE_ENV}
    collecting = gc.isenabled()
    os.environ.update({name: os.devnull for name in _TRUST_STORE_ENV})
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.freeze()
            gc.enable()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


with _importing_aiohttp():
    import aiohttp
    from yarl import URL

#: aiohttp refuses a header line past 8 KiB by default; real sites send longer Content-Security-Policy and
#: Link headers, so allow more, still bounded.
MAX_HEADER_LINE = 64 * 1024

# aiohttp (3.9 to at least 3.14) resends a GET once, unseen by its caller, when the connection drops
# before the answer; the only switch is this attribute, which its own test client turns off
# (aiohttp.test_utils.TestClient). It must still be one the session declares, or setting it does nothing.
_RETRY_SWITCH = "_retry_connection"
if _RETRY_SWITCH not in aiohttp.ClientSession.ATTRS:  # pragma: no cover - a newer aiohttp renamed it
    raise ImportError(f"aiohttp {aiohttp.__version__} has no ClientSession.{_RETRY_SWITCH}: the checker could "
                      "not turn off its silent resend of dropped requests, and would undercount requests")

HTTP_ERRORS: tuple[type[BaseException], ...] = (aiohttp.ClientError, OSError, ValueError, TimeoutError)
"""What sending a request or reading an answer may raise (besides cancellation): see
:func:`~site_plugins.links.verdict.classify_exception`."""


def ssl_context(ca_bundle: str | None = None) -> ssl.SSLContext:
    """The default trust store plus ``ca_bundle``; always verifying."""
    if os.environ.get("SSL_CERT_FILE"):
        ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    elif os.environ.get("SSL_CERT_DIR"):
        ctx = ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    else:
        import certifi

        ctx = ssl.create_default_context(cafile=certifi.where())
    if ca_bundle:
        ctx.load_verify_locations(cafile=ca_bundle)
    return ctx


class Response:
    """One answer: status and headers at once, the body on demand (see the module docstring)."""

    def __init__(self, response: aiohttp.ClientResponse, on_close: Callable[[], Awaitable[None]]) -> None:
        self._r = response
        self._on_close: Callable[[], Awaitable[None]] | None = on_close
        self.status_code = response.status
        self.headers = response.headers  # a case-insensitive multi-mapping
        self.url = str(response.url)
        self.is_stream_consumed = False

    @property
    def body_arrived(self) -> bool:
        """The whole body is already in memory: closing now returns the connection to the pool (aiohttp
        keeps a connection whose answer was received to its end, read or not)."""
        return self._r.content.is_eof()

    @property
    def charset_encoding(self) -> str | None:
        """The charset the Content-Type header names, if any."""
        return self._r.charset

    async def aread(self) -> bytes:
        self.is_stream_consumed = True
        return await self._r.read()

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        self.is_stream_consumed = True
        async for chunk in self._r.content.iter_any():
            yield chunk

    async def aclose(self) -> None:
        self._r.release()  # back to the pool if the body was read to its end, else the connection is closed
        done, self._on_close = self._on_close, None
        if done is not None:
            await done()


class Cookies:
    """Cookies set along one page's redirect chain (domain and path rules as browsers apply them)."""

    def __init__(self) -> None:
        self._jar = aiohttp.CookieJar(unsafe=True)  # unsafe: IP-address hosts may set cookies too

    def extract(self, response: Response) -> None:
        self._jar.update_cookies(response._r.cookies, response._r.url)

    def header(self, url: str) -> str:
        return "; ".join(f"{name}={morsel.value}" for name, morsel in self._jar.filter_cookies(URL(url)).items())


class _Connector(aiohttp.TCPConnector):
    """aiohttp's connector, counting the connections it opens in ``tally[key]`` (tests and the benchmark)."""

    def __init__(self, tally: dict[str, int], key: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._tally = tally
        self._key = key

    async def _create_connection(self, *args: Any, **kwargs: Any) -> Any:
        self._tally[self._key] = self._tally.get(self._key, 0) + 1
        return await super()._create_connection(*args, **kwargs)


class Sender:
    """Sends GET requests (redirects not followed) with fixed headers and timeouts, one pool per host."""

    def __init__(self, ssl_context: Callable[[], ssl.SSLContext], headers: Mapping[str, str], timeout: float,
                 keepalive: float = 5.0) -> None:
        self._make_ssl = ssl_context
        self._ssl: ssl.SSLContext | None = None
        self._headers = dict(headers)
        self._timeout = aiohttp.ClientTimeout(total=None, sock_connect=timeout, sock_read=timeout)
        self._keepalive = keepalive
        self._trust_env = bool(urllib.request.getproxies())
        self._sessions: dict[str, aiohttp.ClientSession] = {}
        # Requests in flight per session; a host's session closes once its last page is done *and* no
        # request is in flight on it (a page of another host may have been redirected there).
        self._busy: dict[aiohttp.ClientSession, int] = {}
        self._retired: set[aiohttp.ClientSession] = set()
        self.opened: dict[str, int] = {}  # TCP connections opened per host, closed pools included

    def _session(self, key: str) -> aiohttp.ClientSession:
        session = self._sessions.get(key)
        if session is None:
            # Every session that may speak TLS gets the checker's context, never aiohttp's default (see
            # _importing_aiohttp): an https host, and any host once a proxy is set (the proxy itself may
            # be reached over TLS, https://..., even for an http URL). Plain http without a proxy: no TLS.
            tls: ssl.SSLContext | bool = True
            if key.startswith("https:") or self._trust_env:
                if self._ssl is None:
                    self._ssl = self._make_ssl()
                tls = self._ssl
            connector = _Connector(self.opened, key, limit=0, ssl=tls, keepalive_timeout=self._keepalive)
            session = self._sessions[key] = aiohttp.ClientSession(
                connector=connector, timeout=self._timeout, headers=self._headers, trust_env=self._trust_env,
                cookie_jar=aiohttp.DummyCookieJar(), raise_for_status=False,
                max_line_size=MAX_HEADER_LINE, max_field_size=MAX_HEADER_LINE)
            setattr(session, _RETRY_SWITCH, False)  # every request on the wire is one the checker counted
        return session

    async def get(self, url: str, key: str, cookies: Cookies | None = None) -> Response:
        """GET ``url``, whose :func:`~site_plugins.links.schedule.host_key` is ``key``."""
        session = self._sessions.get(key) or self._session(key)
        headers = None
        if cookies is not None and (line := cookies.header(url)):
            headers = {"Cookie": line}
        self._busy[session] = self._busy.get(session, 0) + 1
        try:
            response = await session.get(url, allow_redirects=False, headers=headers)
        except BaseException:
            await self._done(session)
            raise
        return Response(response, lambda: self._done(session))

    async def _done(self, session: aiohttp.ClientSession) -> None:
        left = self._busy.pop(session) - 1
        if left:
            self._busy[session] = left
        elif session in self._retired:
            self._retired.discard(session)
            await session.close()

    async def close_host(self, key: str) -> None:
        """Close a host's connections (its last page is done) now, or once its requests in flight end."""
        session = self._sessions.pop(key, None)
        if session is None:
            return
        if session in self._busy:
            self._retired.add(session)
        else:
            await session.close()

    async def __aenter__(self) -> Sender:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for session in [*self._sessions.values(), *self._retired]:
            await session.close()
        self._sessions.clear()
        self._retired.clear()
