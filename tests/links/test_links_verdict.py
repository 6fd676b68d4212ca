"""Pure classification: statuses, headers, errors, Retry-After and backoff (table cases, no network)."""

from __future__ import annotations

import datetime as dt
import random
import socket
import ssl
from types import SimpleNamespace
from urllib.parse import urlsplit

import aiohttp
import pytest
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from site_plugins.links.schedule import host_key
from site_plugins.links.verdict import (
    Classification,
    backoff_delay,
    classify_exception,
    classify_status,
    retry_after_seconds,
)


@pytest.mark.parametrize(("status", "headers", "expected"), [
    (200, {}, Classification("ok", "200 OK")),
    (204, {}, Classification("ok", "204 No Content")),
    (404, {}, Classification("broken", "404 Not Found")),
    (410, {}, Classification("broken", "410 Gone")),
    (400, {}, Classification("broken", "400 Bad Request")),
    (301, {}, Classification("broken", "301 Moved Permanently without a Location header", "bad-redirect")),
    (401, {}, Classification("blocked", "401 Unauthorized (the server refuses automated checks)")),
    (403, {}, Classification("blocked", "403 Forbidden (the server refuses automated checks)")),
    (451, {}, Classification("blocked", "451 Unavailable For Legal Reasons (the server refuses automated checks)")),
    (999, {}, Classification("blocked", "999 (the server refuses automated checks)")),
    (429, {}, Classification("blocked", "429 Too Many Requests (rate limited)", "rate-limit", retry=True)),
    (403, {"cf-mitigated": "challenge"}, Classification("blocked", "403 Forbidden: bot challenge page", "challenge")),
    (202, {"x-amzn-waf-action": "challenge"}, Classification("blocked", "202 Accepted: bot challenge page",
                                                             "challenge")),
    (503, {"Server": "cloudflare", "cf-chl-bypass": "1"},
     Classification("blocked", "503 Service Unavailable: bot challenge page", "challenge")),
    (503, {"Server": "cloudflare"}, Classification("transient", "503 Service Unavailable", retry=True)),
    # Header names in any case, values too (the headers are aiohttp's case-insensitive mapping).
    (403, {"CF-Mitigated": "Challenge"}, Classification("blocked", "403 Forbidden: bot challenge page", "challenge")),
    (429, {"server": "Cloudflare", "CF-CHL-Bypass": "1"},
     Classification("blocked", "429 Too Many Requests: bot challenge page", "challenge")),
    (200, {"X-Amzn-Waf-Action": "CAPTCHA"}, Classification("blocked", "200 OK: bot challenge page", "challenge")),
    (500, {}, Classification("transient", "500 Internal Server Error", retry=True)),
    (502, {}, Classification("transient", "502 Bad Gateway", retry=True)),
    (504, {}, Classification("transient", "504 Gateway Timeout", retry=True)),
    (408, {}, Classification("transient", "408 Request Timeout", retry=True)),
    (522, {}, Classification("transient", "522", retry=True)),
    (600, {}, Classification("broken", "unexpected status 600")),
])
def test_classify_status(status: int, headers: dict[str, str], expected: Classification) -> None:
    assert classify_status(status, CIMultiDictProxy(CIMultiDict(headers))) == expected


def _raised(outer: BaseException, inner: BaseException) -> BaseException:
    """``outer`` raised from ``inner``, as aiohttp wraps the OS error beneath it."""
    try:
        try:
            raise inner
        except BaseException as exc:
            raise outer from exc
    except BaseException as exc:
        return exc


def _cert_error() -> ssl.SSLCertVerificationError:
    err = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")
    err.verify_message = "certificate has expired"
    return err


def _request_info() -> aiohttp.RequestInfo:
    url = URL("http://example.org/")
    return aiohttp.RequestInfo(url, "GET", CIMultiDictProxy(CIMultiDict()), url)


def _connector_error(inner: OSError) -> BaseException:
    """What aiohttp raises when it cannot connect: ``ClientConnectorError`` raised from the OS error."""
    key = SimpleNamespace(host="example.org", port=443, ssl=True)
    return _raised(aiohttp.ClientConnectorError(key, inner), inner)  # type: ignore[arg-type]


@pytest.mark.parametrize(("exc", "verdict", "kind", "reason"), [
    (_connector_error(socket.gaierror(-2, "Name or service not known")),
     "broken", "dns", "DNS lookup failed: Name or service not known"),
    (aiohttp.ClientConnectionError("[Errno -3] Temporary failure in name resolution"),
     "broken", "dns", "DNS lookup failed: Temporary failure in name resolution"),
    (_raised(aiohttp.ClientConnectionError("x"), _cert_error()),
     "broken", "tls", "TLS certificate verification failed: certificate has expired"),
    (_raised(aiohttp.ClientConnectionError("x"), ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version")),
     "broken", "tls", "TLS handshake failed: [SSL: WRONG_VERSION_NUMBER] wrong version"),
    (aiohttp.ConnectionTimeoutError("t"), "transient", "timeout", "timed out connecting"),
    (aiohttp.SocketTimeoutError("t"), "transient", "timeout", "timed out waiting for the answer"),
    (TimeoutError(), "transient", "timeout", "timed out"),
    (_connector_error(ConnectionRefusedError(111, "Connection refused")),
     "transient", "connect", "connection refused"),
    (_connector_error(OSError(101, "Network is unreachable")),
     "transient", "network", "network unreachable (Network is unreachable)"),
    (_connector_error(OSError(22, "Invalid argument")),
     "transient", "connect", "could not connect: Invalid argument"),
    (aiohttp.ServerDisconnectedError(), "transient", "network", "connection dropped: Server disconnected"),
    (aiohttp.ClientOSError(104, "Connection reset by peer"),
     "transient", "network", "connection dropped: [Errno 104] Connection reset by peer"),
    (aiohttp.ClientPayloadError("Response payload is not completed"),
     "transient", "network", "connection dropped: Response payload is not completed"),
    (aiohttp.ClientResponseError(_request_info(), (), message="Invalid header value char"),
     "transient", "network", "malformed answer: Invalid header value char"),
    (aiohttp.ClientOSError(5, "Input/output error"), "transient", "network",
     "network error: [Errno 5] Input/output error"),
    (aiohttp.NonHttpUrlClientError("ftp://example.org/"),
     "broken", "invalid-url", "invalid URL: not a web address: ftp://example.org/"),
    (aiohttp.InvalidURL("http://exa mple/"), "broken", "invalid-url", "invalid URL: http://exa mple/"),
    (RuntimeError("boom"), "broken", "", "unexpected error: RuntimeError: boom"),
])
def test_classify_exception(exc: BaseException, verdict: str, kind: str, reason: str) -> None:
    c = classify_exception(exc)
    assert (c.verdict, c.kind, c.reason) == (verdict, kind, reason)
    assert c.retry == (verdict == "transient")


NOW = dt.datetime(2026, 3, 1, 12, 0, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(("value", "seconds"), [
    (None, None),
    ("5", 5.0),
    ("0", 0.0),
    ("Sun, 01 Mar 2026 12:00:30 GMT", 30.0),
    ("Sun, 01 Mar 2026 11:00:00 GMT", 0.0),  # in the past: no wait
    ("soon", None),
    ("-3", None),
])
def test_retry_after(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value, NOW) == seconds


def test_backoff_is_exponential_with_jitter_and_capped() -> None:
    rng = random.Random(7)
    for attempt, step in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (4, 10.0), (9, 10.0)]:
        delays = [backoff_delay(attempt, 1.0, 10.0, rng) for _ in range(200)]
        assert min(delays) >= step / 2
        assert max(delays) <= step
        assert max(delays) - min(delays) > step / 4  # jittered, not a fixed sleep


@pytest.mark.parametrize("url", [
    "https://Example.ORG/path?q#f", "http://127.0.0.1:8080", "HTTP://A.example:80/x", "https://user:pw@h.example/",
    "https://h.example?q=1", "https://h.example#frag", "https://[::1]:8443/x", "git+ssh://h.example/r",
    " https://h.example/ lead", "https://h.example/a b", "https://h.\texample/", "https://h.example\n/x",
    "mailto:someone@h.example", "//h.example/no-scheme", "https://", "h.example/relative", "1http://h.example/",
])
def test_host_key_is_what_urlsplit_says(url: str) -> None:
    parts = urlsplit(url)
    assert host_key(url) == f"{parts.scheme}://{parts.netloc.lower()}"
