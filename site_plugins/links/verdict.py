"""Verdicts: pure classification of what a server (or the network) said about a URL.

No I/O here; the async checker (:mod:`site_plugins.links.checker`) asks these functions what a status,
a set of headers or an exception means, whether to try again, and how long to wait.

Verdicts:

``ok``
    2xx after at most ``max_redirects`` redirects (and the fragment found, if there is one).
``broken``
    404, 410 and other definite client errors, DNS failure, certificate errors, redirect loops,
    too many redirects, a fragment missing from static HTML. Fails the check.
``blocked``
    401, 403, 407, 451, 999, bot challenge pages, 429 still after retries. The server answered but would
    not let a robot see the page: reported as "unverified since <last ok check>", neither passing nor
    failing silently.
``transient``
    5xx, 408, timeouts, refused or reset connections. Retried with backoff, then once more in a deferred
    second pass; if it persists it is reported like ``blocked`` ("unverified since ...").
``cannot verify``
    The page is ok but its fragment cannot be checked without running JavaScript (client-side routes,
    text fragments, anchors that exist only in script data, app shells) or lies beyond the body cap.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import errno
import functools
import random
import socket
import ssl
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Literal

Verdict = Literal["ok", "broken", "blocked", "transient", "cannot verify"]
VERDICTS: tuple[Verdict, ...] = ("ok", "broken", "blocked", "transient", "cannot verify")

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
BLOCKED_STATUSES = frozenset({401, 403, 407, 429, 451, 999})
BROKEN_STATUSES_4XX_TRANSIENT = frozenset({408, 425})

# Machine-readable kinds of failure, stable for --format json.
Kind = Literal["http", "dns", "tls", "timeout", "connect", "network", "redirect-loop", "too-many-redirects",
               "bad-redirect", "invalid-url", "anchor", "challenge", "rate-limit", "deadline", "offline", ""]


@dataclass(frozen=True)
class Classification:
    verdict: Verdict
    reason: str  # human words, e.g. "404 Not Found"
    kind: Kind = "http"
    retry: bool = False  # worth another try (within the deadline)


@functools.cache  # a run meets a handful of statuses, each once per URL: the enum lookup once each
def reason_phrase(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"{status}"


def is_challenge(status: int, headers: Mapping[str, str]) -> bool:
    """Bot-challenge and WAF interstitials (Cloudflare, AWS WAF, Akamai), whatever their status.

    ``headers`` is case-insensitive (aiohttp's ``CIMultiDictProxy``): looked up by name, not copied."""
    if headers.get("cf-mitigated", "").lower() == "challenge":
        return True
    if headers.get("x-amzn-waf-action", "").lower() in ("challenge", "captcha"):
        return True
    return (status in (403, 429, 503) and "cloudflare" in headers.get("server", "").lower()
            and "cf-chl-bypass" in headers)


def classify_status(status: int, headers: Mapping[str, str]) -> Classification:
    """Classify a final (non-redirect) response by status and (case-insensitive) headers."""
    phrase = reason_phrase(status)
    if is_challenge(status, headers):
        return Classification("blocked", f"{phrase}: bot challenge page", "challenge")
    if 200 <= status < 300:
        return Classification("ok", phrase)
    if status in REDIRECT_STATUSES:
        return Classification("broken", f"{phrase} without a Location header", "bad-redirect")
    if status == 429:
        return Classification("blocked", f"{phrase} (rate limited)", "rate-limit", retry=True)
    if status in BLOCKED_STATUSES:
        return Classification("blocked", f"{phrase} (the server refuses automated checks)")
    if status in BROKEN_STATUSES_4XX_TRANSIENT or 500 <= status < 600:
        return Classification("transient", phrase, retry=True)
    if 400 <= status < 500:
        return Classification("broken", phrase)
    return Classification("broken", f"unexpected status {phrase}")


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        for nxt in (e.__cause__, e.__context__):
            if nxt is not None:
                todo.append(nxt)


def classify_exception(exc: BaseException) -> Classification:
    """Classify a failure to get an answer (aiohttp's errors and the OS errors beneath them)."""
    import aiohttp  # here, not above: the offline check and the status rules need no HTTP stack

    chain = list(_chain(exc))
    # aiohttp's ClientConnectorCertificateError is an SSLCertVerificationError too, without the OS's words.
    certs = [e for e in chain if isinstance(e, ssl.SSLCertVerificationError)]
    if certs:
        detail = next((m for e in certs if (m := getattr(e, "verify_message", None))), str(certs[-1]))
        return Classification("broken", f"TLS certificate verification failed: {detail}", "tls")
    for e in chain:
        if isinstance(e, socket.gaierror):
            return Classification("broken", f"DNS lookup failed: {e.strerror or e}", "dns")
    text = " ".join(str(e) for e in chain)
    for needle in ("Name or service not known", "nodename nor servname", "No address associated",
                   "Temporary failure in name resolution", "getaddrinfo failed"):
        if needle in text:
            return Classification("broken", f"DNS lookup failed: {needle}", "dns")
    for e in chain:
        if isinstance(e, ssl.SSLError):
            return Classification("broken", f"TLS handshake failed: {getattr(e, 'reason', None) or e}", "tls")
    if any(isinstance(e, TimeoutError) for e in chain):
        phase = ("connecting" if isinstance(exc, aiohttp.ConnectionTimeoutError) else
                 "waiting for the answer" if isinstance(exc, aiohttp.SocketTimeoutError) else "")
        return Classification("transient", f"timed out {phase}".strip(), "timeout", retry=True)
    if isinstance(exc, aiohttp.NonHttpUrlClientError):
        return Classification("broken", f"invalid URL: not a web address: {exc}", "invalid-url")
    if isinstance(exc, ValueError):  # aiohttp.InvalidURL, and yarl's errors for addresses it cannot parse
        return Classification("broken", f"invalid URL: {exc}", "invalid-url")
    for e in chain:
        if isinstance(e, OSError) and e.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return Classification("transient", f"network unreachable ({e.strerror})", "network", retry=True)
        if isinstance(e, ConnectionRefusedError) or (isinstance(e, OSError) and e.errno == errno.ECONNREFUSED):
            return Classification("transient", "connection refused", "connect", retry=True)
    if isinstance(exc, aiohttp.ClientConnectorError):
        return Classification("transient", f"could not connect: {exc.os_error.strerror or exc.os_error}", "connect",
                              retry=True)
    if isinstance(exc, aiohttp.ClientResponseError):  # the answer's status line or headers would not parse
        what = str(exc.message)  # may quote what the server sent: keep the message short
        what = what if len(what) <= 100 else what[:97] + "..."
        return Classification("transient", f"malformed answer: {what}", "network", retry=True)
    dropped = (errno.ECONNRESET, errno.EPIPE, errno.ECONNABORTED)
    if isinstance(exc, aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError) or any(
            isinstance(e, ConnectionError) or (isinstance(e, OSError) and e.errno in dropped) for e in chain):
        return Classification("transient", f"connection dropped: {exc or type(exc).__name__}", "network",
                              retry=True)
    if isinstance(exc, aiohttp.ClientError | OSError):
        return Classification("transient", f"network error: {exc or type(exc).__name__}", "network", retry=True)
    return Classification("broken", f"unexpected error: {type(exc).__name__}: {exc}", "")


def retry_after_seconds(value: str | None, now: dt.datetime) -> float | None:
    """Seconds asked for by a ``Retry-After`` header (delta-seconds or HTTP-date); None if absent or bad."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - now).total_seconds())


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Exponential backoff with jitter: attempt 0 waits about ``base``, then doubling, at most ``cap``.

    "Equal jitter": half the step is fixed, half random, so retries of many URLs spread out but never
    come back immediately.
    """
    step = min(cap, base * 2.0 ** attempt)
    return step / 2 + rng.uniform(0, step / 2)
