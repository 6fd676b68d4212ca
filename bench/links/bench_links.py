"""Benchmark: ``gloss links check`` against linkchecker and two minimal clients, on the same URLs, in one run.

A local HTTP/1.1 server (keep-alive, asyncio) answers every request after 20-50 ms (uniform, seeded) and
counts what it receives. Two layouts, each timed in ``--repeat`` interleaved rounds:

- ``1 host``: every URL on 127.0.0.1;
- ``20 hosts``: the URLs spread evenly over 127.0.0.1 ... 127.0.0.20 (per-host limits and pacing matter).

Each round runs, as subprocesses (start-up included) over the same URL list:

1. linkchecker (``--stdin -r0``) for every ``--lc-threads`` value, in two modes: ``documented``, its
   fastest documented setting (the server sends the ``LinkChecker`` header and the config file sets
   ``maxrequestspersecond=100000``), and ``no-wait``, its per-host wait removed altogether (its
   ``wait_for_host`` replaced by a no-op), since before the first answer from a host its documented
   setting still waits 0.1-0.6 s per request;
2. ``gloss links check --urls-from`` with an empty evidence file, politeness lifted
   (``--per-host`` = ``--concurrency``, ``--min-interval 0``);
3. the minimal httpx and aiohttp clients of ``refclients.py`` (same concurrency and per-host limit).

Then gloss runs once more per layout: all evidence is fresh, so it must send 0 requests (the server
counts). Prints medians of wall time and CPU time per tool and the ratios; exits 1 if the re-run sent
any request.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python bench/links/bench_links.py --repeat 3

Only 127.0.0.x is contacted; the servers stop when the benchmark ends.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from latency_server import LatencyServer

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
NO_WAIT = ("import sys; import linkcheck.director.aggregator as a; "
           "a.Aggregate.wait_for_host = lambda self, host: None; "
           "from linkcheck.command.linkchecker import linkchecker; sys.argv[0] = 'linkchecker'; "
           "sys.exit(linkchecker())")


def timed(cmd: list[str], stdin: str | None = None, timeout: float = 900,
          ) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds, CPU seconds of the child (user + system) and the finished process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


class Layout:
    def __init__(self, name: str, server: LatencyServer, n_urls: int, work: Path) -> None:
        self.name = name
        self.server = server
        hosts = server.addresses
        self.urls = [f"http://{hosts[i % len(hosts)]}:{server.ports[hosts[i % len(hosts)]]}/page/{i}"
                     for i in range(n_urls)]
        self.work = work / name.replace(" ", "-")
        self.work.mkdir()
        self.url_file = self.work / "urls.txt"
        self.url_file.write_text("\n".join(self.urls) + "\n", encoding="utf-8")
        self.evidence = self.work / "links-evidence.json"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--urls", type=int, default=1000)
    p.add_argument("--hosts", type=int, nargs="+", default=[1, 20], help="layouts: hosts per layout (1 20)")
    p.add_argument("--concurrency", type=int, default=64, help="requests in flight for every tool (default 64)")
    p.add_argument("--lc-threads", type=int, nargs="+", default=[10, 32, 100], metavar="N",
                   help="linkchecker --threads values, each timed; the fastest setting is compared")
    p.add_argument("--latency", type=float, nargs=2, default=(20.0, 50.0), metavar=("LOW_MS", "HIGH_MS"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3, help="interleaved rounds; medians are compared (default 3)")
    p.add_argument("--json", type=Path, help="also write the figures here")
    args = p.parse_args(argv)

    linkchecker = shutil.which("linkchecker", path=str(Path(sys.executable).parent)) or shutil.which("linkchecker")
    if linkchecker is None:
        print("linkchecker is not installed: .venv/bin/pip install -e '.[bench]'", file=sys.stderr)
        return 2
    lc_version = subprocess.run([linkchecker, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    n = args.concurrency
    figures: dict[str, Any] = {"urls": args.urls, "concurrency": n, "latency_ms": list(args.latency),
                               "linkchecker": lc_version, "repeat": args.repeat, "layouts": {}}
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench-links-") as tmp:
        work = Path(tmp)
        rc = work / "linkcheckerrc"
        rc.write_text("[checking]\nmaxrequestspersecond=100000\n", encoding="utf-8")
        for hosts in args.hosts:
            server = LatencyServer([f"127.0.0.{i + 1}" for i in range(hosts)], *args.latency, seed=args.seed)
            try:
                layout = Layout(f"{hosts} host{'s' if hosts > 1 else ''}", server, args.urls, work)
                result = bench_layout(layout, args, linkchecker, rc)
            finally:
                server.close()
            figures["layouts"][layout.name] = result
            failed |= bool(result.get("failed")) or result["second_run_requests"] != 0
            report(layout, result, args)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 1 if failed else 0


def bench_layout(layout: Layout, args: argparse.Namespace, linkchecker: str, rc: Path) -> dict[str, Any]:
    n = args.concurrency
    stdin = "\n".join(layout.urls) + "\n"
    lc_args = ["--config", str(rc), "--stdin", "-r0", "--no-status", "--no-warnings", "-o", "none",
               "--timeout", "30"]
    tools: dict[str, list[str]] = {}
    for threads in args.lc_threads:
        tools[f"linkchecker -t {threads} (documented)"] = [linkchecker, *lc_args, "--threads", str(threads)]
        tools[f"linkchecker -t {threads} (no wait)"] = [sys.executable, "-c", NO_WAIT, *lc_args,
                                                        "--threads", str(threads)]
    gloss = [sys.executable, "-m", "site_plugins.cli", "links", "check", "--root", str(layout.work),
             "--urls-from", str(layout.url_file), "--evidence", str(layout.evidence), "--no-progress",
             "--format", "json", "--concurrency", str(n), "--per-host", str(n), "--min-interval", "0"]
    tools["gloss links check"] = gloss
    for client in ("httpx", "aiohttp"):
        tools[f"minimal {client} client"] = [sys.executable, str(HERE / "refclients.py"), client,
                                             str(layout.url_file), "--concurrency", str(n), "--per-host", str(n)]
    walls: dict[str, list[float]] = {t: [] for t in tools}
    cpus: dict[str, list[float]] = {t: [] for t in tools}
    requests: dict[str, int] = {}
    server = layout.server
    # Rounds interleave the tools, so that a busy moment on the machine hits all of them alike.
    for _ in range(args.repeat):
        for name, cmd in tools.items():
            if name == "gloss links check":
                layout.evidence.unlink(missing_ok=True)  # every timed gloss run starts with no evidence
            before = server.total()
            wall, cpu, proc = timed(cmd, stdin=stdin if name.startswith("linkchecker") else None)
            requests[name] = server.total() - before
            ok = proc.returncode == 0
            if name == "gloss links check":
                summary = json.loads(proc.stdout)["summary"] if proc.stdout.startswith("{") else {}
                ok = ok and summary.get("URLs ok") == len(layout.urls)
            if not ok:
                print(f"{name} failed ({proc.returncode}):\n{proc.stdout[-1500:]}{proc.stderr[-1500:]}",
                      file=sys.stderr)
                return {"failed": name, "second_run_requests": -1}
            walls[name].append(wall)
            cpus[name].append(cpu)

    # Every URL now has fresh evidence: the next gloss run must not send a single request.
    before = server.total()
    again_s, again_cpu, again = timed(gloss)
    again_requests = server.total() - before
    skipped = json.loads(again.stdout)["summary"]["URLs skipped (fresh evidence)"]

    med = {t: statistics.median(xs) for t, xs in walls.items()}
    cpu = {t: statistics.median(xs) for t, xs in cpus.items()}
    lc = {t: s for t, s in med.items() if t.startswith("linkchecker")}
    best_lc = min(lc, key=lambda t: lc[t])
    g = med["gloss links check"]
    return {
        "tools": {t: {"wall_s": [round(x, 2) for x in walls[t]], "median_wall_s": round(med[t], 2),
                      "median_cpu_s": round(statistics.median(cpus[t]), 2), "requests": requests[t]}
                  for t in tools},
        "fastest_linkchecker": best_lc,
        "ratio_fastest_linkchecker_over_gloss": round(lc[best_lc] / g, 2),
        "ratio_gloss_over_httpx": round(g / med["minimal httpx client"], 2),
        "ratio_gloss_over_aiohttp": round(g / med["minimal aiohttp client"], 2),
        # CPU time: what the tool itself needs, less sensitive to other load on the machine than wall time.
        "cpu_ratio_fastest_linkchecker_over_gloss": round(cpu[best_lc] / cpu["gloss links check"], 2),
        "cpu_ratio_gloss_over_aiohttp": round(cpu["gloss links check"] / cpu["minimal aiohttp client"], 2),
        "cpu_ratio_gloss_over_httpx": round(cpu["gloss links check"] / cpu["minimal httpx client"], 2),
        "second_run_s": round(again_s, 2), "second_run_cpu_s": round(again_cpu, 2),
        "second_run_requests": again_requests, "second_run_skipped": skipped,
    }


def report(layout: Layout, r: dict[str, Any], args: argparse.Namespace) -> None:
    if "tools" not in r:
        print(f"{layout.name}: {r.get('failed')} failed")
        return
    runs = "one round" if args.repeat == 1 else f"median of {args.repeat} interleaved rounds"
    print(f"\n{len(layout.urls)} URLs on {layout.name}, {args.latency[0]:g}-{args.latency[1]:g} ms per request, "
          f"{args.concurrency} in flight, {runs}")
    print(f"  {'tool':<38} {'wall s':>7} {'cpu s':>7} {'requests':>9}")
    for name, t in r["tools"].items():
        print(f"  {name:<38} {t['median_wall_s']:7.2f} {t['median_cpu_s']:7.2f} {t['requests']:9d}")
    print(f"  fastest linkchecker ({r['fastest_linkchecker']}) / gloss: "
          f"{r['ratio_fastest_linkchecker_over_gloss']:.2f}  (above 1: gloss is faster)")
    print(f"  gloss / minimal httpx client:   {r['ratio_gloss_over_httpx']:.2f}")
    print(f"  gloss / minimal aiohttp client: {r['ratio_gloss_over_aiohttp']:.2f}  (target: at most 1.5)")
    print(f"  CPU time: fastest linkchecker / gloss {r['cpu_ratio_fastest_linkchecker_over_gloss']:.2f}, "
          f"gloss / httpx client {r['cpu_ratio_gloss_over_httpx']:.2f}, "
          f"gloss / aiohttp client {r['cpu_ratio_gloss_over_aiohttp']:.2f}")
    print(f"  second gloss run (fresh evidence): {r['second_run_s']:.2f} s ({r['second_run_cpu_s']:.2f} s CPU), "
          f"{r['second_run_requests']} requests "
          f"sent, {r['second_run_skipped']} URLs skipped")


if __name__ == "__main__":
    sys.exit(main())
