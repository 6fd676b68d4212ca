"""CPU per URL of the checker, and where it goes (cProfile, summed by package).

    .venv/bin/python bench/links/profile_links.py              # 1,000 URLs on one host, 3 runs
    .venv/bin/python bench/links/profile_links.py --urls 10000 --runs 1
    .venv/bin/python bench/links/profile_links.py --hosts 20 --top 25

The benchmark server runs in a child process (so its CPU is not counted); the checker runs here, in
process, with politeness lifted as in bench_links.py, interleaved with the minimal aiohttp client of
refclients.py. Prints the CPU milliseconds per URL of each (process time, so other load on the machine
changes it little) and their ratio, then one profiled run's own time summed by package (aiohttp, yarl,
the standard library, site_plugins/links/...). ``--dump FILE`` keeps the profile for
``python -m pstats FILE``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from refclients import with_aiohttp

from site_plugins.links import pool  # noqa: F401 - the HTTP stack loaded before any timing, for both
from site_plugins.links.checker import Checker, Settings, default_user_agent

SERVE = ("import sys, time; sys.path.insert(0, {here!r}); from latency_server import LatencyServer; "
         "s = LatencyServer([f'127.0.0.{{i + 1}}' for i in range({hosts})], 20, 50, 1); "
         "print(' '.join(f'{{a}}:{{p}}' for a, p in s.ports.items()), flush=True); time.sleep(3600)")


def bucket(filename: str, name: str) -> str:
    if "site-packages/" in filename:
        return filename.split("site-packages/")[1].split("/")[0]
    if "site_plugins/" in filename:
        return "site_plugins/" + filename.split("site_plugins/")[1]
    if filename.startswith("~"):
        return f"(built-in) {name}"[:60]
    return "stdlib " + filename.rsplit("/", 1)[-1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--urls", type=int, default=1000)
    p.add_argument("--hosts", type=int, default=1)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--dump", type=Path, metavar="FILE", help="also save the profile (pstats format) here")
    args = p.parse_args(argv)
    here = str(Path(__file__).resolve().parent)
    server = subprocess.Popen([sys.executable, "-c", SERVE.format(here=here, hosts=args.hosts)],
                              stdout=subprocess.PIPE, text=True)
    try:
        hosts = (server.stdout.readline() if server.stdout else "").split()
        urls = [f"http://{hosts[i % len(hosts)]}/page/{i}" for i in range(args.urls)]
        settings = Settings(concurrency=64, per_host=64, min_interval=0)
        default_user_agent()  # looked up once per process, not part of any run
        for run in range(args.runs):
            # Interleaved with the minimal aiohttp client (refclients.py) in the same process, same URLs.
            cpu, wall = time.process_time(), time.perf_counter()
            results = asyncio.run(Checker(settings).check(urls))
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            ok = sum(r.verdict == "ok" for r in results.values())
            ref_cpu, ref_wall = time.process_time(), time.perf_counter()
            ref_ok = asyncio.run(with_aiohttp(urls, 64, 64))
            ref_cpu, ref_wall = time.process_time() - ref_cpu, time.perf_counter() - ref_wall
            print(f"run {run + 1}: checker {cpu / len(urls) * 1000:.3f} ms CPU per URL ({wall:.2f} s wall, {ok} ok); "
                  f"minimal aiohttp client {ref_cpu / len(urls) * 1000:.3f} ms ({ref_wall:.2f} s wall, {ref_ok} ok); "
                  f"ratio {cpu / ref_cpu:.2f}")
        profile = cProfile.Profile()
        profile.enable()
        asyncio.run(Checker(settings).check(urls))
        profile.disable()
    finally:
        server.kill()
    if args.dump:
        profile.dump_stats(str(args.dump))
    totals: Counter[str] = Counter()
    for (filename, _, name), row in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        totals[bucket(filename, name)] += row[2]
    whole = sum(totals.values())
    print(f"\nprofiled run, own time by package ({whole:.2f} s with the profiler's overhead):")
    for key, seconds in totals.most_common(args.top):
        print(f"  {seconds / whole:6.1%}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
