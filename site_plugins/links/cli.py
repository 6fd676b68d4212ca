"""``gloss links``: check source links and the built site's links, and record evidence.

    gloss links check --offline          # CI default: no network; site links resolve, sources have evidence
    gloss links check                    # online: fetch sources and page links, refresh links-evidence.json
    gloss links check URL...             # online, just these URLs
    gloss links list                     # every source with its "(checked YYYY-MM-DD)" note

Project settings come from mkdocs.yml (docs_dir, site_dir, site_url, and the gloss plugin's
``evidence_file`` and ``evidence_max_age_days``); flags override them. Exit codes: 0 ok, 1 check failed,
2 usage or environment error (no network, unreadable evidence file, a missing site that was asked for),
130 / 143 stopped by SIGINT (Ctrl-C) / SIGTERM, with one line saying how many answers were kept.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_plugins.links import evidence as ev
from site_plugins.links.checker import Result, Settings
from site_plugins.links.interrupt import Interrupted, StopOnSignal
from site_plugins.links.run import Config, EnvironmentProblem, Report, run

DEFAULT_MAX_AGE_DAYS = 365  # used only without mkdocs.yml; the gloss plugin's option is the source of truth


@dataclass(frozen=True)
class Project:
    docs_dir: str = "content"
    site_dir: Path | None = None
    site_url: str = ""
    evidence_file: str = ev.DEFAULT_PATH
    max_age_days: int = DEFAULT_MAX_AGE_DAYS


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gloss links", description="Check source links and record evidence.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("check", help="check links (online, or --offline against recorded evidence)",
                       description="Check every source URL of the content and every link of the built site.")
    c.add_argument("urls", nargs="*", metavar="URL", help="check only these URLs (online)")
    c.add_argument("--offline", action="store_true",
                   help="no network: internal links and anchors of the built site must resolve and every source "
                        "must have evidence within the maximum age (the CI default)")
    c.add_argument("--require-evidence", action="store_true",
                   help="with --offline: unchecked or too old evidence fails instead of warning")
    c.add_argument("--strict", action="store_true", help="warnings (blocked, transient, old evidence) fail too")
    c.add_argument("--force", action="store_true", help="recheck URLs even when their evidence is fresh")
    c.add_argument("--recheck-after", type=float, default=20.0, metavar="HOURS",
                   help="skip URLs checked ok less than this long ago (default: 20)")
    c.add_argument("--urls-from", type=Path, metavar="FILE", help="check only the URLs in FILE, one per line")
    c.add_argument("--exclude", action="append", default=[], metavar="REGEX",
                   help="do not check URLs matching REGEX (repeatable)")
    _common(c)
    c.add_argument("--site-dir", type=Path, metavar="DIR", help="the built site (default: mkdocs.yml's site_dir)")
    c.add_argument("--no-site", action="store_true", help="do not look at the built site")
    c.add_argument("--site-url", metavar="URL", help="the site's public address (default: mkdocs.yml's site_url)")
    c.add_argument("--max-age", type=int, metavar="DAYS",
                   help="evidence older than this is reported (default: the gloss plugin's evidence_max_age_days)")
    c.add_argument("--format", choices=("text", "json", "junit", "github"), default="text")
    c.add_argument("--output", type=Path, metavar="FILE",
                   help="write the --format report to FILE (a short text report still goes to stdout)")
    c.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    s = Settings()
    n = c.add_argument_group("network (online check)")
    n.add_argument("--timeout", type=float, default=s.timeout, metavar="S",
                   help=f"per operation (default {s.timeout:g})")
    n.add_argument("--deadline", type=float, default=s.deadline, metavar="S",
                   help="per URL, from its first request to its verdict: all tries, waits and the second pass "
                        f"(default {s.deadline:g})")
    n.add_argument("--retries", type=int, default=s.retries, metavar="N", help=f"default {s.retries}")
    n.add_argument("--concurrency", type=int, default=s.concurrency, metavar="N",
                   help=f"pages in flight (default {s.concurrency})")
    n.add_argument("--per-host", type=int, default=s.per_host, metavar="N",
                   help=f"pages in flight per host (default {s.per_host})")
    n.add_argument("--slow-after", type=float, default=s.slow_after, metavar="S",
                   help="a request in flight this long moves to a slow slot, freeing its host's slot "
                        f"(default {s.slow_after:g})")
    n.add_argument("--slow-per-host", type=int, default=s.slow_per_host, metavar="N",
                   help=f"slow slots per host (default {s.slow_per_host})")
    n.add_argument("--min-interval", type=float, default=s.min_interval, metavar="S",
                   help=f"between requests to one host (default {s.min_interval:g})")
    n.add_argument("--second-pass-delay", type=float, default=s.second_pass_delay, metavar="S",
                   help="between a URL's first pass and its second, if still transient; the first pass gets half "
                        f"of what the deadline leaves after it (default {s.second_pass_delay:g})")
    n.add_argument("--retry-after-cap", type=float, default=s.retry_after_cap, metavar="S",
                   help=f"longest Retry-After honoured (default {s.retry_after_cap:g})")
    n.add_argument("--max-body", type=int, default=s.max_body, metavar="BYTES",
                   help=f"read at most this much of a page to find an anchor (default {s.max_body})")
    n.add_argument("--ca-bundle", metavar="PEM", help="extra CA certificates to trust (verification stays on)")

    lst = sub.add_parser("list", help="list every source with its last ok check")
    _common(lst)
    lst.add_argument("--format", choices=("text", "json"), default="text")
    return p


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", type=Path, default=Path("."), metavar="DIR", help="the project (default: .)")
    p.add_argument("-f", "--config-file", type=Path, metavar="FILE", help="mkdocs.yml (default: ROOT/mkdocs.yml)")
    p.add_argument("--evidence", type=Path, metavar="FILE",
                   help="the evidence file (default: the gloss plugin's evidence_file, links-evidence.json)")


@contextmanager
def _quiet_mkdocs() -> Iterator[None]:
    import logging  # here: only reading mkdocs.yml needs it

    log = logging.getLogger("mkdocs")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def project_settings(root: Path, config_file: Path | None) -> Project:
    """Settings the site already declares, read through MkDocs (the reader of mkdocs.yml)."""
    path = config_file or root / "mkdocs.yml"
    if not path.is_file():
        if config_file is not None:
            raise _UsageError(f"gloss links: {config_file}: no such file")
        return Project(site_dir=root / "site")
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    try:
        with _quiet_mkdocs():
            cfg = load_config(config_file=str(path))
    except (MkDocsException, OSError) as exc:
        raise _UsageError(f"gloss links: cannot read {path}: {exc}") from None
    base = path.resolve().parent
    docs = Path(cfg.docs_dir)
    try:
        docs_dir = docs.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        docs_dir = docs.as_posix()
    gloss: Any = cfg.plugins.get("gloss")
    opts = getattr(gloss, "config", None) or {}
    evidence_file = str(opts.get("evidence_file", ev.DEFAULT_PATH))
    evidence_rel = (base / evidence_file).resolve()
    try:
        evidence_file = evidence_rel.relative_to(root.resolve()).as_posix()
    except ValueError:
        evidence_file = str(evidence_rel)
    return Project(docs_dir=docs_dir, site_dir=Path(cfg.site_dir), site_url=cfg.site_url or "",
                   evidence_file=evidence_file,
                   max_age_days=int(opts.get("evidence_max_age_days", DEFAULT_MAX_AGE_DAYS)))


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _read_urls(file: Path) -> list[str]:
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise _UsageError(f"gloss links: cannot read {file}: {exc.strerror}") from None
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "list":
            return _list(args)
        # Ctrl-C or SIGTERM: one line and 128 + the signal, the answers that arrived kept (see interrupt.py).
        with StopOnSignal() as stop:
            try:
                return _check(args, stop)
            except Interrupted:
                print(stop.line(), file=sys.stderr)
                return stop.exit_code
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return 2


def _evidence_path(args: argparse.Namespace, root: Path, project: Project) -> Path:
    if args.evidence is not None:
        return Path(args.evidence)
    p = Path(project.evidence_file)
    return p if p.is_absolute() else root / p


def _list(args: argparse.Namespace) -> int:
    from site_plugins.links.run import source_citations

    root: Path = args.root
    project = project_settings(root, args.config_file)
    path = _evidence_path(args, root, project)
    try:
        evidence = ev.load(path, _display(path, root))
    except ev.EvidenceError as exc:
        print("\n".join(str(p) for p in exc.problems), file=sys.stderr)
        return 2
    cites, _ = source_citations(root, project.docs_dir)
    if args.format == "json":
        import json

        rows = []
        for c in cites:
            rec = evidence.last_ok(c.url)
            rows.append({"url": c.url, "path": c.path, "line": c.line,
                         "checked_at": ev.format_time(rec.checked_at) if rec else None,
                         "final_url": rec.final_url if rec else None, "status": rec.status if rec else None})
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        for c in cites:
            print(f"{c.path}:{c.line}: {c.url} {ev.checked_note(evidence.last_ok(c.url))}")
        unchecked = sum(1 for c in cites if evidence.last_ok(c.url) is None)
        print(f"{len(cites)} sources, {unchecked} not yet checked")
    return 0


def _check(args: argparse.Namespace, stop: StopOnSignal) -> int:
    from site_plugins.links import report as rep

    root: Path = args.root
    if not root.is_dir():
        raise _UsageError(f"gloss links: {root}: no such folder")
    project = project_settings(root, args.config_file)
    urls = list(args.urls)
    if args.urls_from is not None:
        urls += _read_urls(args.urls_from)
    if urls and args.offline:
        raise _UsageError("gloss links: URLs given with --offline; the offline check uses recorded evidence only")
    if args.require_evidence and not args.offline:
        raise _UsageError("gloss links: --require-evidence goes with --offline")
    for name in ("timeout", "deadline", "concurrency", "per_host", "max_body", "slow_after"):
        if getattr(args, name) <= 0:
            raise _UsageError(f"gloss links: --{name.replace('_', '-')} must be positive")
    for name in ("retries", "min_interval", "second_pass_delay", "retry_after_cap", "recheck_after",
                 "slow_per_host"):
        if getattr(args, name) < 0:
            raise _UsageError(f"gloss links: --{name.replace('_', '-')} must not be negative")
    import re

    for pattern in args.exclude:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise _UsageError(f"gloss links: --exclude {pattern!r} is not a regular expression: {exc}") from None

    site_dir = None if args.no_site or urls else (args.site_dir or project.site_dir or root / "site")
    evidence_path = _evidence_path(args, root, project)
    settings = Settings(timeout=args.timeout, deadline=args.deadline, retries=args.retries,
                        concurrency=args.concurrency, per_host=args.per_host, min_interval=args.min_interval,
                        slow_after=args.slow_after, slow_per_host=args.slow_per_host,
                        second_pass_delay=args.second_pass_delay, retry_after_cap=args.retry_after_cap,
                        max_body=args.max_body, ca_bundle=args.ca_bundle)
    cfg = Config(root=root, evidence_path=evidence_path, evidence_display=_display(evidence_path, root),
                 max_age_days=args.max_age if args.max_age is not None else project.max_age_days,
                 docs_dir=project.docs_dir, site_dir=site_dir,
                 site_display=_display(site_dir, root) if site_dir else "site",
                 site_required=args.site_dir is not None, site_url=args.site_url or project.site_url,
                 offline=args.offline, require_evidence=args.require_evidence, strict=args.strict,
                 force=args.force, recheck_after=dt.timedelta(hours=args.recheck_after), urls=tuple(urls),
                 exclude=tuple(args.exclude), settings=settings)

    show_progress = not args.offline and not args.no_progress and sys.stderr.isatty()
    try:
        report = _run_with_progress(cfg, stop) if show_progress else run(cfg, stop=stop)
    except EnvironmentProblem as exc:
        for p in exc.problems:
            print(f"error: {p}", file=sys.stderr)
        return 2
    if report.interrupted is not None:  # the answers that arrived are kept; a partial report is not written
        print(stop.line(), file=sys.stderr)
        return report.exit_code

    color = sys.stdout.isatty() and args.format == "text" and args.output is None
    text = rep.render(report, args.format, color=color)
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
        if args.format != "text":
            sys.stdout.write(rep.render_text(report, color=sys.stdout.isatty()))
    else:
        sys.stdout.write(text)
    return report.exit_code


def _run_with_progress(cfg: Config, stop: StopOnSignal) -> Report:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("checking links"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("", total=None)

        def on_total(n: int) -> None:
            progress.update(task, total=n)

        def on_result(r: Result) -> None:
            progress.update(task, advance=1, description=f"{r.verdict}: {r.url}"[:60])

        return run(cfg, on_total=on_total, on_result=on_result, stop=stop)

