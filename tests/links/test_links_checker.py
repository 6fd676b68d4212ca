"""The online checker against real HTTP(S) servers on 127.0.0.1. Every case asserts the verdict and that
the check ended inside its deadline (small timeouts keep the suite fast)."""

from __future__ import annotations

import asyncio
import itertools
import ssl
import time
from dataclasses import replace
from pathlib import Path

import pytest
import trustme
from links_servers import Server, SilentServer

from site_plugins.links.checker import Checker, HostGate, Result, Settings
from site_plugins.links.evidence import Hop

# The first pass gets (4 - 0.2) / 2 = 1.9 s, the second pass runs until 4 s after the first request.
FAST = Settings(timeout=0.5, deadline=4.0, retries=1, backoff=0.05, backoff_max=0.2, retry_after_cap=2.0,
                second_pass_delay=0.2, concurrency=16, per_host=8, slow_after=0.3, min_interval=0.0,
                max_body=256 * 1024)
SLACK = 2.0  # start-up and scheduling noise on a loaded 2-core machine (upper bounds only)


def check(urls: list[str], settings: Settings = FAST, verify: ssl.SSLContext | None = None,
          ) -> tuple[dict[str, Result], float]:
    started = time.monotonic()
    results = asyncio.run(Checker(settings, verify=verify).check(urls))
    return results, time.monotonic() - started


def one(url: str, settings: Settings = FAST, verify: ssl.SSLContext | None = None) -> tuple[Result, float]:
    results, elapsed = check([url], settings, verify)
    return results[url], elapsed


def within_deadline(elapsed: float, s: Settings = FAST) -> None:
    """The whole check, second pass included, ends inside the per-URL deadline (plus start-up noise)."""
    assert elapsed < s.deadline + SLACK, f"took {elapsed:.2f} s, deadline {s.deadline} s"


# --- ok, redirects -------------------------------------------------------------------------------


def test_200_ok(http: Server) -> None:
    r, elapsed = one(http.url("/ok"))
    assert (r.verdict, r.reason, r.status, r.redirects, r.tries) == ("ok", "200 OK", 200, (), 1)
    within_deadline(elapsed)


def test_200_ok_over_https_with_the_test_ca(https: Server, client_tls: ssl.SSLContext) -> None:
    r, elapsed = one(https.url("/ok"), verify=client_tls)
    assert (r.verdict, r.status) == ("ok", 200)
    within_deadline(elapsed)


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_redirect_chain_is_followed_and_recorded(http: Server, code: int) -> None:
    r, elapsed = one(http.url(f"/redirect/3?code={code}"))
    assert r.verdict == "ok"
    assert r.redirects == (Hop(http.url(f"/redirect/3?code={code}"), code), Hop(http.url("/redirect/2"), 301),
                           Hop(http.url("/redirect/1"), 301))
    assert r.final_url == http.url("/redirect/0")
    within_deadline(elapsed)


def test_a_cookie_set_by_a_redirect_is_sent_back_on_that_page_only(http: Server) -> None:
    # /cookie redirects to itself with a cookie: without sending it back that would be a loop.
    results, elapsed = check([http.url("/cookie"), http.url("/cookie-check")])
    r = results[http.url("/cookie")]
    assert (r.verdict, r.redirects) == ("ok", (Hop(http.url("/cookie"), 302),))
    assert results[http.url("/cookie-check")].verdict == "ok"  # the other page got no cookie
    within_deadline(elapsed)


def test_extra_ca_certificates_are_trusted_on_top_of_the_default_store(
        https: Server, ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No context from the test: the checker builds its own (certifi's bundle), adding --ca-bundle.
    assert one(https.url("/ok"))[0].kind == "tls"
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    r, _ = one(https.url("/ok"), replace(FAST, ca_bundle=str(pem)))
    assert (r.verdict, r.status) == ("ok", 200)
    # SSL_CERT_FILE replaces the default store, as OpenSSL's tools and httpx read it.
    monkeypatch.setenv("SSL_CERT_FILE", str(pem))
    assert one(https.url("/ok"))[0].verdict == "ok"


def test_a_host_done_with_its_own_pages_still_serves_redirects_in_flight_to_it(http: Server) -> None:
    # 127.0.0.1's only page ends after 0.3 s, so its connections are closed then; a page on "localhost"
    # (another host to the checker) redirected to 127.0.0.1 is still waiting for its answer at that moment.
    own = http.url("/track/own?ms=300")
    slow = http.url("/track/redirected?ms=1000")
    via = http.url(f"/goto?to={slow}").replace("127.0.0.1", "localhost", 1)
    results, elapsed = check([own, via], replace(FAST, timeout=2.0))
    assert results[own].verdict == "ok"
    r = results[via]
    assert (r.verdict, r.final_url, r.redirects, r.tries) == ("ok", slow, (Hop(via, 302),), 1), r.reason
    assert len(http.httpd.arrivals["redirected"]) == 1  # answered the first time, not retried
    within_deadline(elapsed)


def test_long_header_lines_are_read_up_to_a_bound(http: Server) -> None:
    results, elapsed = check([http.url("/bigheader/20000"), http.url("/bigheader/70000")])
    assert results[http.url("/bigheader/20000")].verdict == "ok"  # real CSP headers pass 8 KiB
    r = results[http.url("/bigheader/70000")]
    assert (r.verdict, r.kind) == ("transient", "network")
    assert r.reason == "malformed answer: Got more than 65536 bytes when reading: b'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" \
                       "xxxxxxxxxxxxxxxxxxxxxxx... (after 2 tries)"
    within_deadline(elapsed)


def test_five_redirects_pass_six_are_too_many(http: Server) -> None:
    results, elapsed = check([http.url("/redirect/5"), http.url("/redirect/6")])
    assert results[http.url("/redirect/5")].verdict == "ok"
    r = results[http.url("/redirect/6")]
    assert (r.verdict, r.kind) == ("broken", "too-many-redirects")
    assert r.reason.startswith("more than 5 redirects: " + http.url("/redirect/6") + " -> ")
    assert len(r.redirects) == 6
    within_deadline(elapsed)


def test_redirect_loop(http: Server) -> None:
    r, elapsed = one(http.url("/loop/a"))
    a, b = http.url("/loop/a"), http.url("/loop/b")
    assert (r.verdict, r.kind, r.reason) == ("broken", "redirect-loop", f"redirect loop: {a} -> {b} -> {a}")
    assert r.redirects == (Hop(a, 301), Hop(b, 301))
    within_deadline(elapsed)


# --- definite answers ----------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "verdict", "reason"), [
    ("/status/404", "broken", "404 Not Found"),
    ("/status/410", "broken", "410 Gone"),
    ("/status/403", "blocked", "403 Forbidden (the server refuses automated checks)"),
    ("/status/401", "blocked", "401 Unauthorized (the server refuses automated checks)"),
    ("/challenge", "blocked", "403 Forbidden: bot challenge page"),
])
def test_definite_statuses_are_not_retried(http: Server, path: str, verdict: str, reason: str) -> None:
    r, elapsed = one(http.url(path))
    assert (r.verdict, r.reason, r.tries, r.passes) == (verdict, reason, 1, 1)
    within_deadline(elapsed)


def test_head_answered_405_does_not_matter_we_get(http: Server) -> None:
    r, elapsed = one(http.url("/head405"))
    assert r.verdict == "ok"
    assert http.counts[("HEAD", "/head405")] == 0
    assert http.counts[("GET", "/head405")] >= 1
    within_deadline(elapsed)


# --- rate limits and transient failures -----------------------------------------------------------


def test_429_with_retry_after_is_honoured_then_ok(http: Server) -> None:
    r, elapsed = one(http.url("/ratelimit/once?n=1&after=1"))
    assert (r.verdict, r.tries) == ("ok", 2)
    assert elapsed >= 1.0  # waited as asked
    within_deadline(elapsed)


def test_429_that_persists_is_blocked_after_retries(http: Server) -> None:
    r, elapsed = one(http.url("/ratelimit/always?n=99&after=0"))
    assert (r.verdict, r.kind, r.tries) == ("blocked", "rate-limit", 2)
    assert r.reason == "429 Too Many Requests (rate limited) (after 2 tries)"
    within_deadline(elapsed)


def test_retry_after_beyond_the_cap_is_not_waited_for(http: Server) -> None:
    r, elapsed = one(http.url("/ratelimit/long?n=1&after=3600"))
    assert r.verdict == "blocked"
    assert r.reason == ("429 Too Many Requests (rate limited); the server asked to wait 3600 s, "
                        "more than the 2 s cap")
    assert elapsed < 0.5 + SLACK


def test_503_then_200_is_retried_in_the_same_pass(http: Server) -> None:
    r, elapsed = one(http.url("/flaky/once?n=1"))
    assert (r.verdict, r.tries, r.passes) == ("ok", 2, 1)
    within_deadline(elapsed)


def test_503_twice_recovers_in_the_deferred_second_pass(http: Server) -> None:
    r, elapsed = one(http.url("/flaky/twice?n=2"))
    assert (r.verdict, r.passes) == ("ok", 2)
    within_deadline(elapsed)


def test_503_that_persists_stays_transient(http: Server) -> None:
    r, elapsed = one(http.url("/status/503"))
    assert (r.verdict, r.reason, r.passes) == ("transient", "503 Service Unavailable (after 2 tries)", 2)
    within_deadline(elapsed)


def test_server_that_accepts_and_never_answers(silent: SilentServer) -> None:
    r, elapsed = one(silent.url("/"))
    assert (r.verdict, r.kind, r.passes) == ("transient", "timeout", 2)
    assert r.reason == "timed out waiting for the answer (after 2 tries)"
    within_deadline(elapsed)


def test_deadline_bounds_a_server_slower_than_the_timeouts_allow(silent: SilentServer) -> None:
    s = replace(FAST, timeout=5.0, deadline=1.0, retries=0)
    r, elapsed = one(silent.url("/slow"), s)
    # The first pass is cut after (1 - 0.2) / 2 = 0.4 s, the second at the 1 s deadline.
    assert (r.verdict, r.kind, r.reason, r.passes) == ("transient", "deadline",
                                                       "no complete answer within the 1 s deadline", 2)
    assert r.elapsed < s.deadline + 0.5
    within_deadline(elapsed, s)


def test_connection_refused_is_transient(http: Server) -> None:
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    r, elapsed = one(f"http://127.0.0.1:{port}/")
    assert (r.verdict, r.kind) == ("transient", "connect")
    assert r.reason == "connection refused (after 2 tries)"
    within_deadline(elapsed)


# --- bodies -----------------------------------------------------------------------------------------


def test_slow_drip_body_is_not_read_without_a_fragment(http: Server) -> None:
    r, elapsed = one(http.url("/drip?every=0.2"))
    assert (r.verdict, r.status) == ("ok", 200)
    assert elapsed < 0.5 + SLACK  # the status was enough; the dripping body was never waited for


def test_slow_drip_body_with_a_fragment_hits_the_deadline(http: Server) -> None:
    s = replace(FAST, deadline=1.0)
    r, elapsed = one(http.url("/drip?every=0.2#intro"), s)
    assert (r.verdict, r.kind) == ("transient", "deadline")
    assert r.reason == ("the page answered 200 OK but its body did not arrive within the 1 s deadline, "
                        "so the anchor could not be checked")
    within_deadline(elapsed, s)


def test_huge_body_without_a_fragment_is_not_downloaded(http: Server) -> None:
    r, elapsed = one(http.url("/huge"))
    assert r.verdict == "ok"
    assert elapsed < 0.5 + SLACK


def test_huge_body_anchor_near_the_start_is_found_early(http: Server) -> None:
    r, elapsed = one(http.url("/huge?anchor=start#start"))
    assert (r.verdict, r.anchor) == ("ok", "found")
    within_deadline(elapsed)


def test_huge_body_is_read_only_up_to_the_cap(http: Server) -> None:
    r, elapsed = one(http.url("/huge?anchor=end#end"))
    assert r.verdict == "cannot verify"
    assert r.reason == ("anchor #end cannot be verified: not in the first 262,144 bytes (the body cap); "
                        "the rest was not read")
    within_deadline(elapsed)


# --- anchors -----------------------------------------------------------------------------------------


def test_anchors(http: Server) -> None:
    cases = {
        "/page#intro": ("ok", "found"),  # id
        "/page#legacy": ("ok", "found"),  # <a name>
        "/page#install": ("ok", "found"),  # GitHub's user-content- prefix
        "/page#Install": ("ok", "found"),  # GitHub lower-cases its slugs
        "/page#missing": ("broken", ""),
        "/page#from-script": ("cannot verify", "cannot verify: the anchor appears only in the page's script data "
                                               "(rendered by JavaScript)"),
        "/page#/route/inside": ("cannot verify", "cannot verify: the fragment is a client-side route handled "
                                                 "by JavaScript"),
        "/page#:~:text=Install": ("cannot verify", "cannot verify: text fragments are resolved by the browser, "
                                                   "not by ids"),
        "/js#section": ("cannot verify", "cannot verify: the page is rendered by JavaScript (its HTML has "
                                         "almost no text)"),
        "/pdf#page=2": ("cannot verify", "cannot verify: fragments are only checked on HTML pages, and this is "
                                         "application/pdf"),
    }
    before = http.counts[("GET", "/page")]
    results, elapsed = check([http.url(p) for p in cases])
    got = {p: (results[http.url(p)].verdict, results[http.url(p)].anchor) for p in cases}
    assert got == cases
    assert results[http.url("/page#missing")].reason == "anchor #missing not found on the page (200 OK)"
    assert http.counts[("GET", "/page")] - before == 1  # one fetch for all fragments of one page
    within_deadline(elapsed)


# --- TLS and DNS ------------------------------------------------------------------------------------


def test_certificate_from_an_untrusted_ca_is_broken(untrusted_https: Server, client_tls: ssl.SSLContext) -> None:
    r, elapsed = one(untrusted_https.url("/ok"), verify=client_tls)
    assert (r.verdict, r.kind, r.tries) == ("broken", "tls", 1)
    assert r.reason.startswith("TLS certificate verification failed: ")
    assert "self-signed certificate" in r.reason or "unable to get local issuer" in r.reason
    within_deadline(elapsed)


def test_certificate_for_another_host_is_broken(wrong_host_https: Server, client_tls: ssl.SSLContext) -> None:
    r, elapsed = one(wrong_host_https.url("/ok"), verify=client_tls)
    assert (r.verdict, r.kind) == ("broken", "tls")
    assert "Hostname mismatch" in r.reason or "IP address mismatch" in r.reason
    within_deadline(elapsed)


def test_dns_failure_is_broken_and_fast() -> None:
    r, elapsed = one("http://no-such-host.invalid/page")
    assert (r.verdict, r.kind, r.tries, r.passes) == ("broken", "dns", 1, 1)
    assert r.reason.startswith("DNS lookup failed: ")
    within_deadline(elapsed)


# --- politeness ---------------------------------------------------------------------------------------


def test_per_host_concurrency_and_min_interval(http: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    # Pacing is measured where it is decided: the loop time at which the gate let each request go (it
    # sets the next slot to that time plus the interval). A busy machine can only delay a release, and the
    # next one is paced from the actual release, so these gaps never shrink below the interval, however
    # slow the machine (server arrival times can: a request may wait in a socket buffer). The only
    # tolerance is the event loop's clock resolution, by which asyncio may fire a timer early.
    released: list[float] = []
    pace = HostGate.pace

    async def recording_pace(self: HostGate) -> None:
        await pace(self)
        released.append(self._next - self.min_interval)

    monkeypatch.setattr(HostGate, "pace", recording_pace)
    s = replace(FAST, per_host=2, min_interval=0.1, deadline=5.0)
    urls = [http.url(f"/track/polite?ms=150&n={i}") for i in range(6)]
    results, _ = check(urls, s)
    assert {r.verdict for r in results.values()} == {"ok"}
    assert http.httpd.most_in_flight["polite"] <= 2
    assert len(released) == len(http.httpd.arrivals["polite"]) == 6
    gaps = [b - a for a, b in itertools.pairwise(released)]
    resolution = time.get_clock_info("monotonic").resolution
    assert min(gaps) >= s.min_interval - resolution - 1e-12, gaps


def test_global_concurrency_spans_hosts(http: Server) -> None:
    s = replace(FAST, concurrency=1, per_host=4)
    urls = [http.url(f"/track/global?ms=100&n={i}", host=h) for i in range(2) for h in ("127.0.0.1", "localhost")]
    check(urls, s)
    assert http.httpd.most_in_flight["global"] == 1


def test_user_agent_names_the_project(http: Server) -> None:
    http.httpd.agents.clear()
    one(http.url("/ok?ua"))
    assert http.httpd.agents and http.httpd.agents[0].startswith("cuda-gloss-links/")
    assert "cuda-gloss CUDA performance glossary" in http.httpd.agents[0]
    # The versions are the installed ones (read from the packages, not looked up through importlib.metadata).
    from importlib import metadata

    assert http.httpd.agents[0].startswith(f"cuda-gloss-links/{metadata.version('cuda-gloss')} ")
    assert http.httpd.agents[0].endswith(f"; aiohttp/{metadata.version('aiohttp')})")


def test_second_pass_rechecks_only_what_was_transient(http: Server) -> None:
    s = replace(FAST, deadline=1.0)
    plain, anchored = http.url("/drip?every=0.2"), http.url("/drip?every=0.2#intro")
    results, elapsed = check([plain, anchored], s)
    assert (results[plain].verdict, results[plain].passes) == ("ok", 1)
    assert (results[anchored].verdict, results[anchored].passes) == ("transient", 2)
    within_deadline(elapsed, s)


def test_progress_callback_reports_each_url_once_with_its_final_verdict(http: Server) -> None:
    seen: list[tuple[str, str]] = []
    urls = [http.url("/ok?cb"), http.url("/flaky/cb?n=2"), http.url("/status/404?cb")]
    asyncio.run(Checker(FAST).check(urls, lambda r: seen.append((r.url, r.verdict))))
    assert sorted(seen) == sorted([(urls[0], "ok"), (urls[1], "ok"), (urls[2], "broken")])


def test_connections_are_reused_for_small_bodies(http: Server) -> None:
    s = replace(FAST, concurrency=1, per_host=1)
    before = http.httpd.connections
    check([http.url(f"/ok?reuse={i}") for i in range(10)], s)
    assert http.httpd.connections - before == 1  # keep-alive: one connection for all ten


def test_every_request_on_the_wire_is_counted_a_dropped_connection_is_not_resent_silently(http: Server) -> None:
    # The server reads the first request and closes the connection unanswered. aiohttp on its own would
    # resend it at once, unseen by the checker; here the checker's own retry sends the second request.
    checker = Checker(FAST)
    url = http.url("/drop-once/wire")
    result = asyncio.run(checker.check([url]))[url]
    seen = http.counts[("GET", "/drop-once/wire")]
    assert (result.verdict, result.tries) == ("ok", 2)
    assert checker.requests == seen == 2
