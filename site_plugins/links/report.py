"""Output of a run: text (findings, summary table; a progress bar lives in the CLI), JSON, JUnit XML and
GitHub Actions annotations. Pure: a :class:`~site_plugins.links.run.Report` in, a string out."""

from __future__ import annotations

import datetime as dt
import io
import json
from typing import Any, Literal

from site_plugins.links.evidence import format_time
from site_plugins.links.run import Finding, Report

Format = Literal["text", "json", "junit", "github"]
FORMATS: tuple[Format, ...] = ("text", "json", "junit", "github")
_ORDER = {"error": 0, "warning": 1, "note": 2}


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (_ORDER[f.level], f.problem))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def tally(report: Report) -> str:
    n = {lvl: sum(1 for f in report.findings if f.level == lvl) for lvl in _ORDER}
    return (f"gloss links check ({report.mode}): {_plural(n['error'], 'error')}, {_plural(n['warning'], 'warning')}, "
            f"{_plural(n['note'], 'note')} in {report.elapsed:.1f} s")


def render(report: Report, fmt: Format, *, color: bool = False, width: int = 100) -> str:
    if fmt == "json":
        return render_json(report)
    if fmt == "junit":
        return render_junit(report)
    if fmt == "github":
        return render_github(report)
    return render_text(report, color=color, width=width)


def render_text(report: Report, *, color: bool = False, width: int = 100) -> str:
    from rich.console import Console  # only the text report needs rich (a tenth of a second to import)
    from rich.table import Table

    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=color, no_color=not color, highlight=False,
                      soft_wrap=True)
    style = {"error": "bold red", "warning": "yellow", "note": "cyan"}
    if report.headline:
        console.print(f"[bold red]{report.headline}[/]", markup=True)
        console.print()
    for f in _sorted(report.findings):
        console.print(f"[{style[f.level]}]{f.level}[/]: {f.problem}", markup=True, emoji=False)
    if report.findings:
        console.print()
    table = Table(title=f"gloss links check ({report.mode})", show_header=True, header_style="bold")
    table.add_column("what")
    table.add_column("count", justify="right")
    for what, count in report.summary.items():
        table.add_row(what, str(count))
    console.print(table)
    if report.mode == "online":
        if report.evidence_written:
            console.print(f"{report.evidence_display}: {_plural(report.evidence_written, 'record')} refreshed "
                          f"({len(report.evidence)} in all)")
        else:
            console.print(f"{report.evidence_display}: unchanged ({_plural(len(report.evidence), 'record')})")
        console.print(f"requests sent: {report.requests}")
    console.print(tally(report))
    return out.getvalue()


def _finding_json(f: Finding) -> dict[str, Any]:
    p = f.problem
    return {"level": f.level, "path": p.path, "line": p.line, "problem": p.problem, "remedy": p.remedy,
            "message": str(p), "url": f.url, "verdict": f.verdict}


_ENCODER = json.JSONEncoder(ensure_ascii=False)  # made once: json.dumps with options makes one per call


def _json_lines(doc: dict[str, Any]) -> str:
    """``doc`` as JSON with one top-level key, and one item of each top-level list, per line: as easy to
    read and diff as indented JSON, and written by the json module's C encoder (indenting is done in
    Python, several times slower on a report of thousands of URLs)."""
    encode = _ENCODER.encode
    parts = []
    for key, value in doc.items():
        name = encode(key)
        if isinstance(value, list) and value:
            items = ",\n".join(f"    {encode(v)}" for v in value)
            parts.append(f"  {name}: [\n{items}\n  ]")
        else:
            parts.append(f"  {name}: {encode(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def render_json(report: Report) -> str:
    fresh = set(report.fresh)
    not_checked = set(report.not_checked)
    last_ok, result_of = report.evidence.last_ok, report.results.get
    stamps: dict[dt.datetime, str] = {}  # a run's records share a few seconds: each formatted once
    urls = []
    for url, cites in report.citations.items():
        last = last_ok(url)
        if last is None:
            stamp = None
        elif (stamp := stamps.get(last.checked_at)) is None:
            stamp = stamps[last.checked_at] = format_time(last.checked_at)
        cited = [{"path": c.path, "line": c.line, "origin": c.origin} for c in cites]
        r = result_of(url)
        if r is not None:
            urls.append({"url": url, "cited": cited, "last_ok": stamp, "verdict": r.verdict, "reason": r.reason,
                         "kind": r.kind, "status": r.status, "final_url": r.final_url,
                         "redirects": [{"url": h.url, "status": h.status} for h in r.redirects],
                         "anchor": r.anchor, "tries": r.tries, "passes": r.passes,
                         "elapsed_s": round(r.elapsed, 3)})
            continue
        item: dict[str, Any] = {"url": url, "cited": cited, "last_ok": stamp}
        if url in fresh:
            item["verdict"] = "skipped (fresh evidence)"
        elif url in not_checked:
            item["verdict"] = "not checked (no network)"
        urls.append(item)
    doc = {
        "tool": "gloss links check",
        "mode": report.mode,
        "exit_code": report.exit_code,
        "headline": report.headline or None,
        "elapsed_s": round(report.elapsed, 3),
        "requests": report.requests,
        "summary": report.summary,
        "evidence": {"path": report.evidence_display, "records": len(report.evidence),
                     "refreshed": report.evidence_written},
        "findings": [_finding_json(f) for f in _sorted(report.findings)],
        "urls": urls,
        "excluded": report.excluded,
    }
    return _json_lines(doc)


def render_junit(report: Report) -> str:
    """One test case per URL, with every page that cites it; one per site problem without a URL."""
    import xml.etree.ElementTree as ET  # only this format needs it
    suite = ET.Element("testsuite", name=f"gloss links check ({report.mode})")
    by_url: dict[str | None, list[Finding]] = {}
    for f in report.findings:
        by_url.setdefault(f.url, []).append(f)
    tests = failures = skipped = 0

    def case(name: str, path: str, line: int, findings: list[Finding], cited: list[str],
             seconds: float = 0.0) -> None:
        nonlocal tests, failures, skipped
        tests += 1
        tc = ET.SubElement(suite, "testcase", classname=path, name=name, file=path, line=str(line),
                           time=f"{seconds:.3f}")
        errs = [f for f in findings if f.level == "error"]
        rest = [f for f in findings if f.level != "error"]
        # One message per distinct problem (the same URL cited on five pages is one problem), then the
        # places that cite it.
        where = "\n".join(f"cited at {c}" for c in cited)
        if errs:
            failures += 1
            first = errs[0].problem
            el = ET.SubElement(tc, "failure", type=errs[0].verdict or "error", message=first.problem)
            el.text = "\n".join([*dict.fromkeys(f"{f.problem.problem}; {f.problem.remedy}" for f in errs), where])
        elif rest:
            skipped += 1
            msgs = dict.fromkeys(f"{f.level}: {f.problem.problem}" for f in rest)
            ET.SubElement(tc, "skipped", message="; ".join(msgs))
        if cited:
            ET.SubElement(tc, "system-out").text = where

    for url, cites in report.citations.items():
        r = report.results.get(url)
        first = cites[0]
        case(url, first.path, first.line, by_url.get(url, []), [f"{c.path}:{c.line}" for c in cites],
             r.elapsed if r else 0.0)
    for f in by_url.get(None, []):
        case(f.problem.problem, f.problem.path, f.problem.line, [f], [])
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))
    suite.set("time", f"{report.elapsed:.3f}")
    root = ET.Element("testsuites", name="gloss links", tests=str(tests), failures=str(failures), errors="0",
                      skipped=str(skipped), time=f"{report.elapsed:.3f}")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _esc(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def render_github(report: Report) -> str:
    """GitHub Actions workflow commands: each finding becomes an annotation on its Markdown file and line
    (a finding on a built page, which is not in the repository, becomes an annotation without a file)."""
    kind = {"error": "error", "warning": "warning", "note": "notice"}
    lines = []
    if report.headline:
        lines.append(f"::error title=gloss links::{_esc(report.headline)}")
    for f in _sorted(report.findings):
        p = f.problem
        if f.in_repo:
            where = f"file={_esc(p.path, True)}" + (f",line={p.line}" if p.line else "") + ","
            text = f"{p.problem}; {p.remedy}"
        else:
            where, text = "", str(p)
        lines.append(f"::{kind[f.level]} {where}title=gloss links::{_esc(text)}")
    lines.append(tally(report))
    return "\n".join(lines) + "\n"

