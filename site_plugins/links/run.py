"""One run of ``gloss links check``: what to check, verdicts turned into findings, evidence refreshed.

Offline (the CI default): no network. The built site's internal links and anchors must resolve, and
every source URL must have evidence within the maximum age (unchecked or old evidence is a warning, a
failure with ``require_evidence``).

Online: the same site check, then every source URL and every external link of the built pages (or just
the URLs given) is fetched, except those with evidence younger than ``recheck_after``. Ok results are
written to the evidence file; failures never are. Broken links fail; blocked and still-transient ones
are warnings that say since when the URL is unverified (failures with ``strict``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import re
import ssl
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from site_plugins.files.messages import Problem
from site_plugins.links import evidence as ev
from site_plugins.links.checker import Checker, Result, Settings
from site_plugins.links.interrupt import StopOnSignal

Level = Literal["error", "warning", "note"]
Origin = Literal["source", "page", "argument"]


@dataclass(frozen=True)
class Citation:
    url: str
    path: str  # the Markdown source and line where the URL was written, when known
    line: int
    origin: Origin
    in_repo: bool = True  # False: path is a built page (a link from a template or a generated page)


@dataclass(frozen=True)
class Finding:
    level: Level
    problem: Problem
    url: str | None = None
    verdict: str | None = None
    in_repo: bool = True  # the problem's path is a repository file (GitHub can annotate it)

    def __str__(self) -> str:
        return f"{self.level}: {self.problem}"


@dataclass(frozen=True)
class Config:
    root: Path
    evidence_path: Path
    evidence_display: str = ev.DEFAULT_PATH
    max_age_days: int = 365
    docs_dir: str = "content"
    site_dir: Path | None = None  # None: no site check, no page links
    site_display: str = "site"
    site_required: bool = False  # the site dir was asked for explicitly: missing is an error
    site_url: str = ""
    offline: bool = True
    require_evidence: bool = False
    strict: bool = False
    force: bool = False
    recheck_after: dt.timedelta = dt.timedelta(hours=20)
    urls: tuple[str, ...] = ()  # explicit URLs: check only these
    exclude: tuple[str, ...] = ()  # regular expressions; matching URLs are not checked
    settings: Settings = field(default_factory=Settings)
    verify: ssl.SSLContext | None = None  # tests pass a context trusting their own CA


@dataclass
class Report:
    mode: Literal["online", "offline"]
    findings: list[Finding] = field(default_factory=list)
    citations: dict[str, list[Citation]] = field(default_factory=dict)
    results: dict[str, Result] = field(default_factory=dict)
    fresh: list[str] = field(default_factory=list)  # skipped: evidence younger than recheck_after
    excluded: list[str] = field(default_factory=list)
    summary: dict[str, int] = field(default_factory=dict)
    evidence: ev.Evidence = field(default_factory=ev.Evidence)
    evidence_display: str = ev.DEFAULT_PATH
    evidence_written: int = 0  # records added or refreshed
    headline: str = ""  # one line that matters more than the rest (e.g. no network), shown first
    not_checked: list[str] = field(default_factory=list)  # URLs that no server was reached for (no network)
    elapsed: float = 0.0
    exit_code: int = 0
    requests: int = 0
    interrupted: int | None = None  # the signal that cut the online check short (its answers are kept)


class EnvironmentProblem(Exception):
    """The run cannot start (exit 2): unreadable evidence, a missing site that was asked for, ..."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def source_citations(root: Path, docs_dir: str) -> tuple[list[Citation], list[Problem]]:
    """Every cited source URL, from the content model (the only reader of the Markdown front matter)."""
    from site_plugins.content import load_content, source_urls

    content, problems = load_content(root, docs_dir)
    return [Citation(url, path, line, "source") for url, path, line in source_urls(content)], problems


def run(cfg: Config, *, on_total: Callable[[int], None] | None = None,
        on_result: Callable[[Result], None] | None = None, now: dt.datetime | None = None,
        stop: StopOnSignal | None = None) -> Report:
    """One check. With ``stop`` (entered by the caller), a SIGINT or SIGTERM during the online check ends
    it early: the answers that arrived are judged and kept, and ``report.interrupted`` is set."""
    started = time.monotonic()
    now = now or dt.datetime.now(dt.UTC)
    report = Report("offline" if cfg.offline else "online", evidence_display=cfg.evidence_display)
    try:
        evidence = ev.load(cfg.evidence_path, cfg.evidence_display)
    except ev.EvidenceError as exc:
        raise EnvironmentProblem(exc.problems) from None
    report.evidence = evidence

    citations: list[Citation] = []
    if cfg.urls:
        citations += [Citation(u, "<command line>", 0, "argument") for u in cfg.urls]
    else:
        sources, content_problems = source_citations(cfg.root, cfg.docs_dir)
        citations += sources
        if content_problems:
            report.findings.append(Finding("note", Problem(
                cfg.docs_dir, 0, f"the content has {len(content_problems)} problem(s); sources of entries that "
                                 "do not parse are not checked", "run 'gloss check' to see them")))
        citations += _site_check(cfg, report)

    patterns = [re.compile(p) for p in cfg.exclude]
    for c in citations:
        if any(p.search(c.url) for p in patterns):
            if c.url not in report.excluded:
                report.excluded.append(c.url)
            continue
        report.citations.setdefault(c.url, []).append(c)

    if cfg.offline:
        _offline(cfg, report, now)
    else:
        _online(cfg, report, now, on_total, on_result, stop or StopOnSignal())
    report.elapsed = time.monotonic() - started
    if not report.exit_code:
        errors = any(f.level == "error" for f in report.findings)
        warnings = any(f.level == "warning" for f in report.findings)
        report.exit_code = 1 if errors or (cfg.strict and warnings) else 0
    return report


def _site_check(cfg: Config, report: Report) -> list[Citation]:
    if cfg.site_dir is None:
        return []
    if not cfg.site_dir.is_dir():
        problem = Problem(cfg.site_display, 0, "there is no built site here, so internal links and the links in "
                                               "pages were not checked",
                          "build it first ('make site'), or pass --no-site to check only the sources")
        if cfg.site_required or cfg.offline:
            raise EnvironmentProblem([problem])
        report.findings.append(Finding("warning", problem))
        return []
    from site_plugins.links.site import check_site

    result = check_site(cfg.site_dir, display=cfg.site_display, site_url=cfg.site_url, root=cfg.root,
                        docs_dir=cfg.docs_dir)
    report.summary["pages scanned"] = result.pages
    report.summary["internal links checked"] = result.internal
    report.summary["internal links broken"] = len(result.problems)
    built = f"{cfg.site_display}/"
    report.findings += [Finding("error", p, in_repo=not p.path.startswith(built)) for p in result.problems]
    return [Citation(url, at.path, at.line, "page", at.in_repo) for url, at in result.external]


def _offline(cfg: Config, report: Report, now: dt.datetime) -> None:
    evidence = report.evidence
    sources = [(c.url, c.path, c.line) for cs in report.citations.values() for c in cs if c.origin != "page"]
    level: Level = "error" if cfg.require_evidence else "warning"
    problems = ev.evidence_problems(evidence, sources, max_age_days=cfg.max_age_days, today=now.date(),
                                    evidence_path=cfg.evidence_display, unchecked=True)
    urls_of = {(path, line): url for url, path, line in sources}
    report.findings += [Finding(level, p, urls_of.get((p.path, p.line))) for p in problems]
    source_urls = {u for u, _, _ in sources}
    unchecked = sum(1 for u in source_urls if evidence.last_ok(u) is None)
    old = sum(1 for u in source_urls
              if (r := evidence.last_ok(u)) is not None and r.age_days(now.date()) > cfg.max_age_days)
    report.summary = {
        f"source URLs checked within {cfg.max_age_days} days": len(source_urls) - unchecked - old,
        f"source URLs last checked over {cfg.max_age_days} days ago": old,
        "source URLs not yet checked": unchecked,
        **report.summary,
    }


def _online(cfg: Config, report: Report, now: dt.datetime, on_total: Callable[[int], None] | None,
            on_result: Callable[[Result], None] | None, stop: StopOnSignal) -> None:
    evidence = report.evidence
    todo = []
    for url in report.citations:
        if not cfg.force and evidence.is_fresh(url, now, cfg.recheck_after):
            report.fresh.append(url)
        else:
            todo.append(url)
    if on_total:
        on_total(len(todo))
    checker = Checker(cfg.settings, verify=cfg.verify)
    progress = stop.progress
    progress.total, progress.evidence = len(todo), cfg.evidence_display
    arrived: dict[str, Result] = {}
    good: list[ev.Record] = []
    with ev.Journal(cfg.evidence_path) as journal:

        def keep(r: Result) -> None:  # as each verdict arrives: an ok answer goes to the journal at once
            arrived[r.url] = r
            progress.checked += 1
            if r.verdict in ("ok", "cannot verify") and r.status is not None:
                record = ev.Record(r.url, r.checked_at, r.final_url or r.url, r.status, r.redirects, r.anchor)
                good.append(record)
                journal.add(record)
                progress.kept += 1
            if on_result:
                on_result(r)

        if todo:
            with _few_collections():
                asyncio.run(stop.run(checker.check(todo, keep)))
    if stop.stopped_check:
        report.interrupted = stop.signum
        report.exit_code = stop.exit_code
    results = report.results = {u: arrived[u] for u in todo if u in arrived}
    report.requests = checker.requests

    if good:
        report.evidence = evidence.updated(good)
        if ev.save(cfg.evidence_path, report.evidence):
            report.evidence_written = len(good)
    elif journal.written == 0 and ev.journal_path(cfg.evidence_path).exists():
        ev.save(cfg.evidence_path, evidence)  # a journal replayed by load(): into the file with it
    progress.saved = True

    offline = _no_network(results)
    if offline:
        # One clear line, first, instead of every URL "broken" by the same missing network.
        report.headline = offline
        report.exit_code = 2
        report.not_checked, report.results = list(results), {}
        report.summary = {"URLs not checked (no network)": len(results),
                          "URLs skipped (fresh evidence)": len(report.fresh),
                          "URLs excluded": len(report.excluded), **report.summary}
        return
    for url, r in results.items():
        report.findings += _findings(r, report.citations[url], evidence.last_ok(url), cfg)
    counts = {v: 0 for v in ("ok", "broken", "blocked", "transient", "cannot verify")}
    for r in results.values():
        counts[r.verdict] += 1
    report.summary = {**{f"URLs {k}": n for k, n in counts.items()},
                      "URLs skipped (fresh evidence)": len(report.fresh),
                      "URLs excluded": len(report.excluded), **report.summary}


@contextmanager
def _few_collections() -> Iterator[None]:
    """The garbage collector, tuned for the check and put back after it.

    With thousands of URLs, thousands of tasks and coroutines are alive at once, and the collector's
    default rhythm (a young collection every 700 allocations) traverses them over and over: 0.15-0.23 s
    of CPU on 10,000 URLs, 6-9 % of the whole run. Every 5,000 allocations, and with what start-up made
    frozen out of its reach, 0.04-0.06 s (bench/links/README.md)."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(5000, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def _no_network(results: dict[str, Result]) -> str:
    """A headline when every URL failed before any server answered, across several hosts: no network."""
    if not results or not all(r.kind in ("dns", "network") and r.status is None for r in results.values()):
        return ""
    hosts = {urlsplit(u).hostname for u in results}
    if len(hosts) < 2:
        return ""
    example = next(iter(results.values())).reason
    return (f"no network: all {len(results)} URLs on {len(hosts)} hosts failed before any server answered "
            f"(e.g. {example}); the online check needs internet access. Without it, run "
            "'gloss links check --offline'")


def _findings(r: Result, cites: list[Citation], last: ev.Record | None, cfg: Config) -> list[Finding]:
    out = []
    since = ev.unverified_since(last)
    for c in cites:
        if r.verdict == "broken":
            fix = ("check the host name, or replace the source" if r.kind == "dns" else
                   "fix the anchor, or cite the page without it" if r.kind == "anchor" else
                   "fix the address, or replace the source")
            if c.origin == "page":
                fix = ("fix the link, then rebuild the site" if c.in_repo else
                       "fix the link in the template or plugin that writes it, then rebuild the site")
            out.append(Finding("error", Problem(c.path, c.line, f"{r.url} is broken: {r.reason}", fix),
                               r.url, r.verdict, c.in_repo))
        elif r.verdict in ("blocked", "transient"):
            what = "refused the check" if r.verdict == "blocked" else "did not answer reliably"
            fix = (f"open it in a browser to confirm it works; its evidence ages out after {cfg.max_age_days} days"
                   if r.verdict == "blocked" else "nothing to do if it passes on the next scheduled run")
            out.append(Finding("warning", Problem(c.path, c.line, f"{r.url} {what} ({r.reason}), {since}", fix),
                               r.url, r.verdict, c.in_repo))
        elif r.verdict == "cannot verify":
            out.append(Finding("note", Problem(c.path, c.line, f"{r.url}: {r.reason}",
                                               "the page itself is fine; check the anchor in a browser"),
                               r.url, r.verdict, c.in_repo))
    return out
