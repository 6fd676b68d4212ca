"""Build benchmark: the gloss site against plain mkdocs-material on the same Markdown, at several sizes.

For each size (default 100, 1,000 and 3,000 terms; see ``synthetic.py``) two sites are written and
each is built once (``--repeat N``: N times, the fastest reported), in a fresh process, under the project's own
mkdocs.yml:

- **gloss**: the ``gloss`` plugin on (preview mode: the synthetic entries are unsigned), every term
  embedding a measured table and two values in prose;
- **plain**: the same Markdown with the embeds removed, the gloss plugin off: mkdocs-material with
  the same theme features and search, and its own automatic navigation.

Reported per build: wall time of the build call, built-site bytes, term-page bytes (median and
largest), search-index bytes, and the process's peak resident memory. Then, at ``--serve-terms``,
the preview round trip: ``mkdocs serve --dirty`` as ``make serve`` runs it, a one-word edit written
to one term, and the time until the served page shows the new word (median of ``--edits``).

Usage: ``.venv/bin/python bench/build/run.py [--terms 100,1000,3000] [--kinds gloss,plain] [--repeat N]
[--serve-terms 1000] [--keep DIR]`` (``--repeat``: each site built N times, the fastest build reported)

Exit status 0 when every target of issue 16 that the run covers is met, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

KB = 1000

# The synthetic entries are unsigned and render only in preview, which goes only to a folder named as one.
SITE = "site-preview"


@dataclass(frozen=True)
class Figures:
    terms: int
    kind: str  # gloss | plain | cold (gloss with the template cache off: a machine's first build)
    seconds: float
    cpu: float  # the build's CPU time: on a shared machine it moves less than the wall time
    site_bytes: int
    page_median: int
    page_max: int
    search_bytes: int
    peak_rss: int  # bytes
    proc_seconds: float = 0.0  # the whole `mkdocs build` process, as measured from outside: start-up included
    proc_cpu: float = 0.0
    largest: int = 0  # the largest HTML page of the site, bytes
    largest_url: str = ""


def _build_here(root: Path) -> None:
    """Child mode: build ``root`` once and print the time and peak memory as JSON."""
    import logging

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    class Warnings(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.WARNING)
            self.messages: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.messages.append(record.getMessage())

    warned = Warnings()
    logging.getLogger("mkdocs").addHandler(warned)
    logging.getLogger("mkdocs").setLevel(logging.WARNING)
    cfg = load_config(str(root / "mkdocs.yml"), site_dir=str(root / SITE))
    t, c = time.perf_counter(), time.process_time()
    build(cfg)
    seconds, cpu = time.perf_counter() - t, time.process_time() - c
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_rss": peak, "warnings": warned.messages}))


def build(root: Path, terms: int, kind: str) -> Figures:
    shutil.rmtree(root / SITE, ignore_errors=True)
    before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", **({"GLOSS_TEMPLATE_CACHE": "0"} if kind == "cold" else {})}
    out = subprocess.run([sys.executable, __file__, "--build-one", str(root)], check=True, capture_output=True,
                         text=True, env=env)
    proc_seconds, after = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    proc_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    child = json.loads(out.stdout.strip().splitlines()[-1])
    if child["warnings"]:  # e.g. an embed that did not resolve: the figures would not be comparable
        raise SystemExit(f"{kind} build at {terms} terms warned:\n  " + "\n  ".join(child["warnings"][:5]))
    site = root / SITE
    sizes = [p.stat().st_size for p in sorted((site / "terms").glob("term-*/index.html"))]
    if len(sizes) != terms:
        raise SystemExit(f"{kind} build at {terms} terms produced {len(sizes)} term pages")
    site_bytes = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    search = (site / "search/search_index.json").stat().st_size
    largest = max((p.stat().st_size, p.relative_to(site).as_posix()) for p in site.rglob("*.html"))
    return Figures(terms, kind, child["seconds"], child["cpu"], site_bytes, int(statistics.median(sizes)), max(sizes),
                   search, child["peak_rss"], proc_seconds, proc_cpu, *largest)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return str(r.read().decode("utf-8"))
    except OSError:
        return None


def serve_round_trips(root: Path, edits: int, dirty: bool = True, timeout: float = 120.0,
                      titles: list[float] | None = None) -> list[float]:
    """Start ``mkdocs serve`` on ``root`` as ``make serve`` does; time ``edits`` one-word edits until shown.
    With ``titles`` (a list to fill), then time ``edits`` title edits until another page's navigation
    (a term its navigation lists) shows the new title."""
    port = _free_port()
    # The venv's mkdocs script, as `make serve` runs it (`python -m` would put the site's measure/ on sys.path).
    mkdocs = str(Path(sys.executable).parent / "mkdocs")
    args = [mkdocs, "serve", "--dev-addr", f"127.0.0.1:{port}", *(["--dirty"] if dirty else [])]
    env = {**os.environ, "GLOSS_PREVIEW": "1", "NO_MKDOCS_2_WARNING": "1"}
    term = root / "content/terms/term-0001.md"
    original = term.read_text(encoding="utf-8")
    url = f"http://127.0.0.1:{port}/terms/term-0001/"
    proc = subprocess.Popen(args, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = []

    def until(page: str, text: str, what: str) -> None:
        t = time.perf_counter()
        while text not in (_fetch(page) or ""):
            if time.perf_counter() - t > timeout:
                raise SystemExit(f"{what} did not show within {timeout:.0f} s")
            time.sleep(0.02)

    try:
        deadline = time.monotonic() + 600
        while (_fetch(url) or "") == "":
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("mkdocs serve did not come up")
            time.sleep(0.2)
        time.sleep(1.0)  # let the watcher settle after the first build
        for k in range(1, edits + 1):
            word = f"tile{k}x"
            assert "A tile is" in original
            t = time.perf_counter()
            term.write_text(original.replace("A tile is", f"A {word} is", 1), encoding="utf-8")
            until(url, word, f"edit {k}")
            times.append(time.perf_counter() - t)
            time.sleep(0.5)
        if titles is not None:
            page = _fetch(url) or ""
            nav = page[page.index("md-nav--primary"):]
            other = next(h for h in re.findall(r'href="\.\./(term-\d{4})/"', nav) if h != "term-0001")
            title = re.search(r"^title: (.*)$", original, re.M)
            assert title is not None
            for k in range(1, edits + 1):
                new = title.group(1).replace("?", f" renamed {k}?")
                t = time.perf_counter()
                term.write_text(original.replace(title.group(0), f"title: {new}", 1), encoding="utf-8")
                until(f"http://127.0.0.1:{port}/terms/{other}/", new, f"title edit {k}")
                titles.append(time.perf_counter() - t)
                time.sleep(0.5)
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        if proc.poll() is None:
            proc.kill()
        term.write_text(original, encoding="utf-8")
    return times


def _plain_key(n: int) -> dict[str, str]:
    """What decides the plain site of ``n`` terms and its build: its Markdown and mkdocs.yml as written, and the
    versions. A plain figure from another run counts only where all of these are the same (our plugin's code
    does not enter a plain build)."""
    import hashlib
    from importlib.metadata import version

    import synthetic

    h = hashlib.sha256(synthetic.gloss_options((HERE.parent.parent / "mkdocs.yml").read_text(encoding="utf-8"),
                                               None).encode())
    for i in range(n):
        h.update(synthetic.term(i, False).encode())
    return {"plain inputs": h.hexdigest()[:16], "python": sys.version.split()[0], "mkdocs": version("mkdocs"),
            "mkdocs-material": version("mkdocs-material")}


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True)
    return out.stdout.strip()


def _write_json(path: Path, figs: list[Figures], commit: str) -> None:
    """Atomically: a 100-minute plain build's figure survives whatever fails after it. ``commit``: the code's
    when the run started (the date is when the file was written)."""
    import dataclasses
    import datetime

    doc = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "commit": commit, "cores": os.cpu_count(),
           "figures": [{**dataclasses.asdict(f), "key": _plain_key(f.terms) if f.kind == "plain" else None}
                       for f in figs]}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _read_peer(path: Path, sizes: list[int]) -> tuple[list[Figures], str]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    figs = []
    for f in doc["figures"]:
        if f["kind"] != "plain" or f["terms"] not in sizes:
            continue
        key = f.pop("key")
        if key != _plain_key(f["terms"]):
            raise SystemExit(f"{path}: plain at {f['terms']:,} terms was built from other inputs ({key}; now "
                             f"{_plain_key(f['terms'])}); build plain again")
        figs.append(Figures(**f))
    return figs, (f"plain at {', '.join(f'{f.terms:,}' for f in figs)} terms from {path} ({doc['date']}, commit "
                  f"{doc['commit']}): not built in this run")


def _mib(n: int) -> str:
    return f"{n / 2**20:8.1f}"


def report(figs: list[Figures], serve: list[float], serve_full: list[float], serve_terms: int,
           titles: list[float] | None = None) -> tuple[str, bool]:
    lines = ["terms  kind   build s    cpu s  process s  process cpu s  site MiB  term page KB (median / max)  "
             "largest page KB  search KB  peak MiB"]
    for f in figs:
        lines.append(f"{f.terms:5d}  {f.kind:5s} {f.seconds:8.2f} {f.cpu:8.2f} {f.proc_seconds:10.2f} "
                     f"{f.proc_cpu:14.2f} "
                     f"{_mib(f.site_bytes)}  {f.page_median / KB:12.1f} / {f.page_max / KB:6.1f}  "
                     f"{f.largest / KB:15.1f}  {f.search_bytes / KB:9.0f} {f.peak_rss / 2**20:8.0f}")
    by = {(f.terms, f.kind): f for f in figs}
    pairs = [(n, by[(n, "gloss")], by[(n, "plain")]) for n in sorted({f.terms for f in figs})
             if (n, "gloss") in by and (n, "plain") in by]
    colds = [(n, by[(n, "cold")], by[(n, "plain")]) for n in sorted({f.terms for f in figs})
             if (n, "cold") in by and (n, "plain") in by]
    if pairs:
        lines.append("gloss / plain, same run: build wall, build CPU, process wall, process CPU, search index, "
                     "peak memory")
        for n, g, p in pairs + [(n, g, p) for n, g, p in colds]:
            lines.append(f"{n:5d}  {g.seconds / p.seconds:6.3f} {g.cpu / p.cpu:6.3f} "
                         f"{g.proc_seconds / p.proc_seconds:6.3f} "
                         f"{g.proc_cpu / p.proc_cpu:6.3f} {g.search_bytes / p.search_bytes:6.3f} "
                         f"{g.peak_rss / p.peak_rss:6.3f}"
                         + ("  (cold: template cache off)" if g.kind == "cold" else ""))
    for f in figs:
        if f.kind == "gloss":
            lines.append(f"largest page at {f.terms:,} terms (gloss): {f.largest_url}, {f.largest / KB:.1f} KB")
    checks: list[tuple[str, str, bool]] = []
    g1, p1, g3 = by.get((1000, "gloss")), by.get((1000, "plain")), by.get((3000, "gloss"))
    if g1 and p1:
        checks.append(("1,000 terms: build time <= 1/3 of plain", f"{g1.seconds / p1.seconds:.3f} of plain "
                       f"(CPU time: {g1.cpu / p1.cpu:.3f})", g1.seconds <= p1.seconds / 3))
        checks.append(("1,000 terms: site bytes <= 1/5 of plain", f"{g1.site_bytes / p1.site_bytes:.3f} of plain",
                       g1.site_bytes <= p1.site_bytes / 5))
    if g1 and g3:
        checks.append(("3,000 terms: build time <= 3.5x our 1,000", f"{g3.seconds / g1.seconds:.2f}x "
                       f"(CPU time: {g3.cpu / g1.cpu:.2f}x)", g3.seconds <= 3.5 * g1.seconds))
    if g3:
        checks.append(("3,000 terms: largest term page < 100 KB", f"{g3.page_max / KB:.1f} KB", g3.page_max < 100 * KB))
    # Issue 24.
    for n, g, p in pairs:
        if n == 100:
            cold = by.get((n, "cold"))
            first = (f"; a machine's first build, template cache cold: {cold.proc_cpu / p.proc_cpu:.3f}x"
                     if cold else "")
            checks.append(("100 terms: whole mkdocs build process <= 1.1x plain (CPU time)",
                           f"{g.proc_cpu / p.proc_cpu:.3f}x (wall: {g.proc_seconds / p.proc_seconds:.3f}x){first}",
                           g.proc_cpu <= 1.1 * p.proc_cpu))
        if n >= 1000:
            checks.append((f"{n:,} terms: peak memory <= 1.2x plain", f"{g.peak_rss / p.peak_rss:.3f}x",
                           g.peak_rss <= 1.2 * p.peak_rss))
        checks.append((f"{n:,} terms: search index <= plain's (same text)", f"{g.search_bytes / p.search_bytes:.3f}x",
                       g.search_bytes <= p.search_bytes))
    for f in figs:
        if f.kind == "gloss" and f.terms >= 10000:
            checks.append((f"{f.terms:,} terms: no page over 300 KB", f"{f.largest / KB:.1f} KB",
                           f.largest <= 300 * KB))
    if serve:
        med = statistics.median(serve)
        lines.append(f"serve round trip at {serve_terms} terms (make serve, --dirty): median {med:.2f} s "
                     f"({', '.join(f'{t:.2f}' for t in serve)})")
        checks.append((f"{serve_terms:,} terms: one-word edit shown in make serve within 2 s (median)",
                       f"{med:.2f} s", med <= 2.0))
    if titles:
        lines.append(f"title edit at {serve_terms} terms, until another page's navigation shows it: slowest "
                     f"{max(titles):.2f} s ({', '.join(f'{t:.2f}' for t in titles)})")
        checks.append((f"{serve_terms:,} terms: a new title shown in another page's navigation within 3 s (every edit)",
                       f"{max(titles):.2f} s", max(titles) <= 3.0))
    if serve_full:
        lines.append(f"serve round trip at {serve_terms} terms, full rebuilds (no --dirty): median "
                     f"{statistics.median(serve_full):.2f} s ({', '.join(f'{t:.2f}' for t in serve_full)})")
    for what, got, ok in checks:
        lines.append(f"{'met   ' if ok else 'MISSED'} {what}: {got}")
    return "\n".join(lines), all(ok for _, _, ok in checks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--terms", default="100,1000,3000", help="comma-separated sizes (default 100,1000,3000)")
    parser.add_argument("--serve-terms", type=int, default=1000, help="size for the serve round trip; 0: skip")
    parser.add_argument("--edits", type=int, default=5, help="one-word edits timed in serve (median reported)")
    parser.add_argument("--serve-full", action="store_true", help="also time serve without --dirty (full rebuilds)")
    parser.add_argument("--kinds", default="gloss,plain", help="which builds per size: gloss, plain or both")
    parser.add_argument("--no-plain", action="store_true", help="build only the gloss sites (--kinds gloss)")
    parser.add_argument("--repeat", type=int, default=1, help="build each site this many times and report the "
                        "fastest build (default 1)")
    parser.add_argument("--keep", type=Path, help="write the sites here and keep them")
    parser.add_argument("--json", type=Path, help="also write every build's figures here, with the date, "
                        "commit and versions (for --peer)")
    parser.add_argument("--peer", type=Path, help="plain material's figures from an earlier --json run, for the "
                        "sizes this run does not build plain (plain at 10,000 terms takes about 100 minutes); "
                        "the report names the file and its date")
    parser.add_argument("--no-cold", action="store_true", help="skip the gloss builds with the template cache off "
                        "(built by default at up to 1,000 terms: a machine's first build)")
    parser.add_argument("--build-one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build_one:
        _build_here(args.build_one)
        return 0
    import synthetic  # (not in the child that builds: its start-up is measured)

    sizes = [int(s) for s in args.terms.split(",") if s.strip()]
    kinds = [k for k in ("gloss", "plain") if k in args.kinds.split(",") and not (args.no_plain and k == "plain")]
    if not kinds or set(args.kinds.split(",")) - {"gloss", "plain"}:
        parser.error("--kinds takes gloss, plain or gloss,plain")
    if args.repeat < 1:
        parser.error("--repeat takes a whole number of at least 1")
    base = args.keep or Path(tempfile.mkdtemp(prefix="gloss-bench-"))
    figs: list[Figures] = []
    started = _commit()
    peer_note = ""
    if args.peer:
        plain_now = set(sizes) if "plain" in kinds else set()
        peer, peer_note = _read_peer(args.peer, [n for n in sizes if n not in plain_now])
        figs.extend(peer)
    serve: list[float] = []
    serve_full: list[float] = []
    titles: list[float] = []
    try:
        for n in sizes:
            for kind in kinds:
                root = base / f"{n}-{kind}"
                shutil.rmtree(root, ignore_errors=True)
                synthetic.write_site(root, n, embeds=kind == "gloss")
                measured = [kind]
                if kind == "gloss" and n <= 1000:
                    # gloss keeps the theme's compiled templates between builds (Jinja's bytecode cache),
                    # which plain MkDocs cannot: one untimed build first, so that "gloss" is every build
                    # after a machine's first; "cold" is that first build (the cache off), shown beside it.
                    build(root, n, kind)
                    measured += [] if args.no_cold else ["cold"]
                for what in measured:
                    # On a shared machine other processes only ever add to a build's wall time: the fastest
                    # of several builds of the same site is the least disturbed one.
                    figs.append(min((build(root, n, what) for _ in range(args.repeat)), key=lambda f: f.seconds))
                    print(f"built {n} terms, {what}: {figs[-1].seconds:.2f} s", file=sys.stderr, flush=True)
                if args.json:
                    _write_json(args.json, figs, started)
        if args.serve_terms:
            root = base / f"{args.serve_terms}-serve"
            shutil.rmtree(root, ignore_errors=True)
            synthetic.write_site(root, args.serve_terms, embeds=True)
            serve = serve_round_trips(root, args.edits, titles=titles)
            if args.serve_full:
                serve_full = serve_round_trips(root, args.edits, dirty=False)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    text, ok = report(figs, serve, serve_full, args.serve_terms, titles)
    if peer_note:
        text = text.replace("gloss / plain, same run:", "gloss / plain (plain from the file above if not built now):")
    builds = "one build" if args.repeat == 1 else f"the fastest of {args.repeat} builds"
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; {builds} of each kind per size, each in a "
          "fresh process; KB = 1,000 bytes")
    if peer_note:
        print(peer_note)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
