"""Benchmark: ``gloss links check`` against linkchecker 10.6 on the same 1,000 URLs, in the same run.

A local HTTP/1.1 server (keep-alive, asyncio) on 127.0.0.1 answers every request after 20-50 ms
(uniform, seeded) and counts what it receives. Both tools run as subprocesses (start-up included) over
the same URL list:

1. linkchecker 10.6 (``linkchecker --stdin``), once per ``--lc-threads`` value (its default is 10 threads);
2. ``gloss links check --urls-from`` with an empty evidence file;
3. ``gloss links check`` again: all evidence is fresh now, so it must send 0 requests (counted by the server).

Politeness is lifted the same way for both, since the server is ours: it answers with a ``LinkChecker``
header (linkchecker's documented opt-out of its 10 requests/s per host limit) and gloss runs with
``--per-host N --min-interval 0``. Prints the times, the ratio and the request counts.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python bench/links/bench_links.py                       # 1,000 URLs
    .venv/bin/python bench/links/bench_links.py --lc-threads 4 10 32   # linkchecker's best of three

Only 127.0.0.1 is contacted; the server stops when the benchmark ends.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PAGE = (b"<!doctype html><html><head><meta charset=utf-8><title>Page</title></head>"
        b"<body><h1 id=top>A page</h1><p>Nothing to follow here.</p></body></html>")


class LatencyServer:
    """HTTP/1.1 with keep-alive on asyncio, in a thread of its own: one cheap thread for any number of
    connections, so the server's own CPU use stays small next to either tool's."""

    def __init__(self, low_ms: float, high_ms: float, seed: int) -> None:
        self.low, self.high = low_ms / 1000, high_ms / 1000
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        ready = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(10)
        assert self._server is not None
        self.port: int = self._server.sockets[0].getsockname()[1]

    def _serve(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self._server = self.loop.run_until_complete(
            asyncio.start_server(self._connection, "127.0.0.1", 0, backlog=1024))
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
                # The LinkChecker header lifts linkchecker's per-host rate limit, for our own server only.
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
            assert self._server is not None
            self._server.close()

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def timed(cmd: list[str], stdin: str | None = None,
          timeout: float = 600) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return time.perf_counter() - started, proc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--urls", type=int, default=1000)
    p.add_argument("--parallel", type=int, default=64,
                   help="gloss --concurrency (its default) and --per-host (default 64)")
    p.add_argument("--lc-threads", type=int, nargs="+", default=[10], metavar="N",
                   help="linkchecker --threads, one timed run each; the ratio uses the fastest (default 10)")
    p.add_argument("--latency", type=float, nargs=2, default=(20.0, 50.0), metavar=("LOW_MS", "HIGH_MS"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=1, help="timed runs per tool; medians are compared (default 1)")
    p.add_argument("--json", type=Path, help="also write the figures here")
    args = p.parse_args(argv)

    linkchecker = shutil.which("linkchecker", path=str(Path(sys.executable).parent)) or shutil.which("linkchecker")
    if linkchecker is None:
        print("linkchecker is not installed: .venv/bin/pip install -e '.[bench]'", file=sys.stderr)
        return 2
    version = subprocess.run([linkchecker, "--version"], capture_output=True, text=True).stdout.split("\n")[0]

    server = LatencyServer(*args.latency, seed=args.seed)
    port = server.port
    urls = [f"http://127.0.0.1:{port}/page/{i}" for i in range(args.urls)]
    n = args.parallel
    figures: dict[str, Any] = {"urls": args.urls, "gloss_concurrency": n, "latency_ms": list(args.latency),
                               "linkchecker": version}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-links-") as tmp:
            work = Path(tmp)
            url_file = work / "urls.txt"
            url_file.write_text("\n".join(urls) + "\n", encoding="utf-8")
            evidence = work / "links-evidence.json"

            # linkchecker waits 1/rps to 6/rps between requests to one host; a server that sends the
            # LinkChecker header may be given a higher rate, so give it one that makes the wait negligible.
            rc = work / "linkcheckerrc"
            rc.write_text("[checking]\nmaxrequestspersecond=100000\n", encoding="utf-8")
            lc_cmd = [linkchecker, "--config", str(rc), "--stdin", "--no-status", "--no-warnings", "-o", "none",
                      "--timeout", "30"]
            gloss = [sys.executable, "-m", "site_plugins.cli", "links", "check", "--root", str(work),
                     "--urls-from", str(url_file), "--evidence", str(evidence), "--no-progress",
                     "--format", "json", "--concurrency", str(n), "--per-host", str(n), "--min-interval", "0"]
            lc_times: dict[int, list[float]] = {t: [] for t in args.lc_threads}
            lc_requests: dict[int, int] = {}
            g_times: list[float] = []
            g_requests = 0
            # Rounds interleave the tools, so that a busy moment on the machine hits both alike.
            for _ in range(args.repeat):
                for threads in args.lc_threads:
                    before = server.total()
                    lc_s, lc = timed([*lc_cmd, "--threads", str(threads)], stdin="\n".join(urls) + "\n")
                    if lc.returncode != 0:
                        print(f"linkchecker failed ({lc.returncode}):\n{lc.stderr[-2000:]}", file=sys.stderr)
                        return 2
                    lc_times[threads].append(lc_s)
                    lc_requests[threads] = server.total() - before
                evidence.unlink(missing_ok=True)  # every timed gloss run starts with no evidence
                before = server.total()
                g_s, g1 = timed(gloss)
                g_requests = server.total() - before
                ok = json.loads(g1.stdout)["summary"]["URLs ok"] if g1.stdout.startswith("{") else 0
                if g1.returncode != 0 or ok != args.urls:
                    print(f"gloss failed ({g1.returncode}, {ok} ok):\n{g1.stdout[-2000:]}{g1.stderr[-2000:]}",
                          file=sys.stderr)
                    return 2
                g_times.append(g_s)

            # Now every URL has fresh evidence: the next run must not send a single request.
            before = server.total()
            g2_s, g2 = timed(gloss)
            g2_requests = server.total() - before
            fresh = json.loads(g2.stdout)["summary"]["URLs skipped (fresh evidence)"]
    finally:
        server.close()

    lc_median = {t: statistics.median(xs) for t, xs in lc_times.items()}
    best_threads = min(lc_median, key=lambda t: lc_median[t])
    best_s = lc_median[best_threads]
    g1_s = statistics.median(g_times)
    ratio = best_s / g1_s
    figures.update({"repeat": args.repeat,
                    "linkchecker_runs": [{"threads": t, "seconds": [round(x, 2) for x in lc_times[t]],
                                          "median_s": round(lc_median[t], 2), "requests": lc_requests[t]}
                                         for t in args.lc_threads],
                    "linkchecker_best_median_s": round(best_s, 2),
                    "gloss_seconds": [round(x, 2) for x in g_times], "gloss_median_s": round(g1_s, 2),
                    "gloss_requests": g_requests, "ratio": round(ratio, 2), "second_run_s": round(g2_s, 2),
                    "second_run_requests": g2_requests, "second_run_skipped": fresh})
    runs = "one run each" if args.repeat == 1 else f"median of {args.repeat} interleaved runs each"
    print(f"{args.urls} URLs on 127.0.0.1, {args.latency[0]:g}-{args.latency[1]:g} ms added latency per request, "
          f"{runs}")
    for threads in args.lc_threads:
        print(f"  {version} --threads {threads:<3} {lc_median[threads]:7.2f} s  {lc_requests[threads]:5d} requests")
    print(f"  gloss links check --concurrency {n:<3}{' ' * 20}{g1_s:7.2f} s  {g_requests:5d} requests")
    print(f"  ratio: gloss is {ratio:.1f}x faster than linkchecker's best setting above (--threads {best_threads})")
    print(f"  second gloss run (fresh evidence): {g2_s:.2f} s, {g2_requests} requests sent, {fresh} URLs skipped")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0 if g2_requests == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
