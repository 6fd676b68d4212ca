"""The link evidence file: the last successful check of each URL. The only reader and writer of it.

Every "checked on" date on the site comes from this file, and only ``gloss links check`` (online)
adds to it. It keeps, per URL, the *last ok check only*: when (UTC), where the URL ended up, with
which status, through which redirects. Failures are never persisted: a URL that breaks keeps its old
record, so the site goes on saying when it was last known good, and the age check (see
:func:`evidence_problems`) turns old records into warnings.

File format (``links-evidence.json`` at the repository root by default), written atomically (temp
file + rename) with sorted keys so that a refresh diffs cleanly::

    {
      "about": "...",
      "format": 1,
      "urls": {
        "https://example.org/page#part": {
          "anchor": "found",
          "checked_at": "2026-01-02T03:04:05Z",
          "final_url": "https://example.org/page/",
          "redirects": [{"status": 301, "url": "https://example.org/page"}],
          "status": 200
        }
      }
    }

Public API for the site renderer (pure, cheap, no network; import nothing else from this package)::

    from site_plugins.links import evidence
    ev = evidence.load(root / "links-evidence.json")    # missing file -> empty; bad file -> EvidenceError
    rec = ev.last_ok(url)                                # Record | None
    evidence.checked_note(rec)                           # "(checked 2026-01-02)" | "(not yet checked)"
    evidence.last_checked(ev, urls)                      # oldest date of all sources; None if any unchecked
    evidence.byline_note(ev, urls)                       # "Last checked on 2026-01-02" | "Sources not yet checked" | ""
    evidence.evidence_problems(ev, citations, max_age_days=365, today=date)  # warnings for old evidence
    evidence.checked_on_function(path)                   # url -> "YYYY-MM-DD" | None (what pipeline.prepare takes)

``citations`` are ``(url, path, line)`` triples as given by ``site_plugins.content.source_urls``.

While a check runs, each ok answer is also appended, as it arrives, to a journal beside the file
(``links-evidence.json.journal``, one JSON record per line, see :class:`Journal`). The run ends by
rewriting the file with everything (atomically) and deleting the journal; a run that is interrupted
(Ctrl-C, SIGTERM) does the same with the answers it has. If the process dies before that (SIGKILL, a
crash, power loss), the journal stays, and :func:`load` replays it over the file: answers that had
arrived are never lost, and the next run skips their URLs as fresh.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import Path
from typing import IO, Any

from measure.store.typed import from_json
from site_plugins.files import atomic, safejson, textfile
from site_plugins.files.fields import meta
from site_plugins.files.messages import Problem, ProblemsError

FORMAT = 1
DEFAULT_PATH = "links-evidence.json"
ABOUT = ("Last successful check of each source and page link, written by 'gloss links check'. "
         "Do not edit by hand: every 'checked on' date on the site comes from here.")
REFRESH = "run 'gloss links check' with network access (the scheduled links workflow does) and commit {path}"


# --- declared schema of the file (checked by site_plugins.files.schema) -------------------------------


@dataclass(frozen=True)
class _HopData:
    url: str = field(metadata=meta("the address that answered with a redirect"))
    status: int = field(metadata=meta("the redirect's HTTP status, e.g. 301"))


@dataclass(frozen=True)
class _RecordData:
    checked_at: str = field(metadata=meta("UTC time of the check, YYYY-MM-DDTHH:MM:SSZ"))
    final_url: str = field(metadata=meta("the address that answered after redirects"))
    status: int = field(metadata=meta("the final HTTP status, e.g. 200"))
    redirects: list[_HopData] = field(default_factory=list, metadata=meta("the redirect chain, in order"))
    anchor: str = field(default="", metadata=meta("what became of the URL's #fragment, if it has one"))


@dataclass(frozen=True)
class _FileData:
    format: int = field(metadata=meta(f"the file format version, {FORMAT}"))
    urls: dict[str, _RecordData] = field(metadata=meta("one record per URL"))
    about: str = field(default="", metadata=meta("a note for readers of the file"))


# --- values ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hop:
    """One redirect: ``url`` answered ``status`` and pointed onwards."""

    url: str
    status: int


@dataclass(frozen=True)
class Record:
    """The last ok check of one URL."""

    url: str
    checked_at: dt.datetime  # timezone-aware, UTC, whole seconds
    final_url: str
    status: int
    redirects: tuple[Hop, ...] = ()
    anchor: str = ""  # "" (no fragment), "found", or "cannot verify: <why>"

    @property
    def checked_on(self) -> dt.date:
        return self.checked_at.date()

    def age_days(self, today: dt.date) -> int:
        return (today - self.checked_on).days


class EvidenceError(ProblemsError):
    """The evidence file exists but cannot be used (a structural error: the build stops)."""


@dataclass(frozen=True)
class Evidence:
    """All records, keyed by URL exactly as cited. Immutable: :meth:`updated` returns a new one."""

    records: Mapping[str, Record] = field(default_factory=dict)

    def last_ok(self, url: str) -> Record | None:
        return self.records.get(url)

    def __len__(self) -> int:
        return len(self.records)

    def updated(self, records: Iterable[Record]) -> Evidence:
        merged = dict(self.records)
        for rec in records:
            merged[rec.url] = rec
        return Evidence(merged)

    def without(self, urls: Iterable[str]) -> Evidence:
        drop = set(urls)
        return Evidence({u: r for u, r in self.records.items() if u not in drop})

    def is_fresh(self, url: str, now: dt.datetime, within: dt.timedelta) -> bool:
        """Whether ``url`` was checked ok less than ``within`` before ``now`` (so need not be rechecked)."""
        rec = self.records.get(url)
        return rec is not None and now - rec.checked_at < within


# --- reading and writing ---------------------------------------------------------------------------


def journal_path(path: Path) -> Path:
    """Where the answers of a run in progress are appended: beside the evidence file."""
    return path.with_name(path.name + ".journal")


def load(path: Path, display: str | None = None) -> Evidence:
    """Read the evidence file, and replay a journal left by a run that died (see the module docstring).
    A missing file is empty evidence (nothing checked yet).

    ``display`` is the repo-relative name used in messages (default: the file name).
    Raises :class:`EvidenceError` with ``path:line: problem; remedy`` problems if the file is unusable.
    """
    name = display or path.name
    evidence = Evidence()
    if path.exists():
        text, problems = textfile.read(path, name, safejson.MAX_BYTES)  # bounded: size, encoding
        if text is None:
            raise EvidenceError(problems)
        evidence = parse(text, name)
    journal = journal_path(path)
    if journal.exists():
        evidence = _replay(evidence, journal, name + ".journal")
    return evidence


def _replay(evidence: Evidence, journal: Path, name: str) -> Evidence:
    """``evidence`` with the journal's records that are newer than its own."""
    text, problems = textfile.read(journal, name, safejson.MAX_BYTES)
    if text is None:
        raise EvidenceError(problems)
    if text and not text.endswith("\n"):  # the process died in the middle of its last line: drop that line
        text = text[: text.rfind("\n") + 1]
    remedy = (f"delete {name}: it holds only answers of an interrupted 'gloss links check' (the next run "
              "checks those URLs again)")
    urls: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        data, problems = safejson.loads(line, name)
        if problems or not isinstance(data, dict) or not isinstance(data.get("url"), str):
            raise EvidenceError([Problem(name, number, "not a journal record (a JSON object with a 'url')", remedy)])
        url = data.pop("url")
        urls[url], lines[url] = data, number
    try:
        records = parse(json.dumps({"format": FORMAT, "urls": urls}), name).records
    except EvidenceError as exc:  # name the journal's line of the record, not a line of the JSON made here
        raise EvidenceError([Problem(name, next((n for u, n in lines.items() if f"'urls.{u}." in p.problem
                                                 or f"'urls.{u}'" in p.problem), 0), p.problem, remedy)
                             for p in exc.problems]) from None
    newer = [r for u, r in records.items() if (old := evidence.last_ok(u)) is None or r.checked_at >= old.checked_at]
    return evidence.updated(newer)


class Journal:
    """The ok answers of the run in progress, appended to :func:`journal_path` as they arrive.

    One JSON object per line (a record of the file, plus its ``url``), each handed to the OS as it is
    written (line buffered: a process killed outright loses none). :func:`save` deletes the journal once
    the file holds what it held.
    """

    def __init__(self, evidence_path: Path) -> None:
        self.path = journal_path(evidence_path)
        self._fh: IO[str] | None = None
        self.written = 0

    def add(self, record: Record) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", encoding="utf-8", newline="\n", buffering=1)  # noqa: SIM115
        self._fh.write(_journal_line(record))
        self.written += 1

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse(text: str, name: str = DEFAULT_PATH) -> Evidence:
    """The evidence in ``text``; problems name the line of the URL's record when there is one."""
    remedy = f"restore {name} from git (it is written only by 'gloss links check')"
    data, problems = safejson.loads(text, name)  # bounded: nesting depth, duplicate keys
    if problems:
        raise EvidenceError([Problem(p.path, p.line, p.problem, remedy) for p in problems])
    if not isinstance(data, dict):
        raise EvidenceError([Problem(name, 1, "the evidence file must hold a JSON object", remedy)])
    # Checked against the declaration above straight from the JSON data (no YAML round trip: thousands
    # of records are read on every run).
    value, problems = from_json(_FileData, data, name, remedy)
    if value is not None and value.format != FORMAT:
        problems.append(Problem(name, _line_of_key(text, "format"),
                                f"unknown evidence format {value.format} (this version reads {FORMAT})", remedy))
    if value is None or problems:
        raise EvidenceError([_at_record(p, text, data) for p in problems])
    records: dict[str, Record] = {}
    bad: list[Problem] = []
    for url, r in value.urls.items():
        when = _parse_time(r.checked_at)
        if when is None:
            bad.append(Problem(name, _line_of_key(text, url),
                               f"'urls.{url}.checked_at' is {r.checked_at!r}, not YYYY-MM-DDTHH:MM:SSZ", remedy))
            continue
        records[url] = Record(url, when, r.final_url, r.status, tuple(Hop(h.url, h.status) for h in r.redirects),
                              r.anchor)
    if bad:
        raise EvidenceError(bad)
    return Evidence(records)


def _line_of_key(text: str, key: str) -> int:
    """The line where ``key`` is written as an object key (0 if not found as written by :func:`dumps`)."""
    for spelling in (json.dumps(key, ensure_ascii=False), json.dumps(key)):
        at = text.find(spelling + ":")
        if at >= 0:
            return text.count("\n", 0, at) + 1
    return 0


def _at_record(problem: Problem, text: str, data: dict[str, Any]) -> Problem:
    """``problem`` at the line of the URL record it is about (the checker reports a key path, line 0)."""
    urls = data.get("urls")
    if problem.line == 0 and isinstance(urls, dict):
        for url in urls:
            if f"'urls.{url}." in problem.problem or f"'urls.{url}'" in problem.problem:
                return Problem(problem.path, _line_of_key(text, url), problem.problem, problem.remedy)
    return problem


def _parse_time(text: str) -> dt.datetime | None:
    """``YYYY-MM-DDTHH:MM:SSZ`` as an aware UTC time; None for anything else (fromisoformat is ten times
    faster than strptime, and the separators checked here keep it to this one layout)."""
    if len(text) != 20 or text[4] + text[7] + text[10] + text[13] + text[16] + text[19] != "--T::Z":
        return None
    try:
        when = dt.datetime.fromisoformat(text[:19])
    except ValueError:
        return None
    return when.replace(tzinfo=dt.UTC)


def format_time(when: dt.datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` (isoformat is C, and a tenth of what strftime costs per record)."""
    utc = when if when.tzinfo is dt.UTC else when.astimezone(dt.UTC)
    return utc.isoformat(timespec="seconds")[:-6] + "Z"  # "+00:00" -> "Z"


def _record_text(url: str, r: Record) -> str:
    """One record as ``json.dumps(..., indent=2, sort_keys=True, ensure_ascii=False)`` lays it out inside
    the file, written directly: with an indent the json module encodes in pure Python, four times slower
    (a test holds the two equal)."""
    s = encode_basestring
    if r.redirects:
        hops = ",\n".join(f'        {{\n          "status": {h.status},\n          "url": {s(h.url)}\n        }}'
                          for h in r.redirects)
        redirects = f"[\n{hops}\n      ]"
    else:
        redirects = "[]"
    anchor = f'      "anchor": {s(r.anchor)},\n' if r.anchor else ""
    return (f'    {s(url)}: {{\n{anchor}      "checked_at": "{format_time(r.checked_at)}",\n'
            f'      "final_url": {s(r.final_url)},\n      "redirects": {redirects},\n'
            f'      "status": {r.status}\n    }}')


def _journal_line(r: Record) -> str:
    """One record and its URL as a line of JSON, written directly (a test reads them back with json)."""
    s = encode_basestring
    hops = ", ".join(f'{{"status": {h.status}, "url": {s(h.url)}}}' for h in r.redirects)
    anchor = f', "anchor": {s(r.anchor)}' if r.anchor else ""
    return (f'{{"url": {s(r.url)}, "checked_at": "{format_time(r.checked_at)}", "final_url": {s(r.final_url)}, '
            f'"redirects": [{hops}], "status": {r.status}{anchor}}}\n')


def dumps(evidence: Evidence) -> str:
    """The file's text: deterministic (sorted URLs and keys, fixed layout) so refreshes diff cleanly."""
    records = evidence.records
    urls = ",\n".join(_record_text(url, records[url]) for url in sorted(records))
    body = f"{{\n{urls}\n  }}" if urls else "{}"
    return f'{{\n  "about": {encode_basestring(ABOUT)},\n  "format": {FORMAT},\n  "urls": {body}\n}}\n'


def save(path: Path, evidence: Evidence) -> bool:
    """Write atomically (temp file in the same folder, then rename), then delete the run's journal (the
    file now holds its records). Returns False if the file's text did not change."""
    text = dumps(evidence)
    try:
        changed = path.read_text(encoding="utf-8") != text
    except FileNotFoundError:
        changed = True
    if changed:
        atomic.write_text(path, text)
    journal_path(path).unlink(missing_ok=True)
    return changed


# --- what pages and checks say ---------------------------------------------------------------------


def checked_note(record: Record | None) -> str:
    """The note after a source in an entry's Sources section."""
    return f"(checked {record.checked_on.isoformat()})" if record else "(not yet checked)"


def last_checked(evidence: Evidence, urls: Iterable[str]) -> dt.date | None:
    """The byline's "Last checked on": the oldest check among ``urls``; None if any is unchecked or none given."""
    dates = []
    for url in urls:
        rec = evidence.last_ok(url)
        if rec is None:
            return None
        dates.append(rec.checked_on)
    return min(dates) if dates else None


def byline_note(evidence: Evidence, urls: Iterable[str]) -> str:
    urls = list(urls)
    if not urls:
        return ""
    day = last_checked(evidence, urls)
    return f"Last checked on {day.isoformat()}" if day else "Sources not yet checked"


def checked_on_function(path: Path) -> Callable[[str], str | None]:
    """``url -> "YYYY-MM-DD" | None`` over the evidence at ``path``, read once (the plugin's hook)."""
    evidence = load(path)

    def checked_on(url: str) -> str | None:
        rec = evidence.last_ok(url)
        return rec.checked_on.isoformat() if rec else None

    return checked_on


def unverified_since(record: Record | None) -> str:
    """How a URL that could not be verified now is reported: since when it is unverified."""
    if record is None:
        return "unverified since never (no ok check recorded)"
    return f"unverified since {record.checked_on.isoformat()}"


def evidence_problems(evidence: Evidence, citations: Iterable[tuple[str, str, int]], *, max_age_days: int,
                      today: dt.date, evidence_path: str = DEFAULT_PATH,
                      unchecked: bool = False) -> list[Problem]:
    """Problems for cited sources whose evidence is older than ``max_age_days`` and, with ``unchecked``,
    for sources with no evidence at all. Same words in the build and in ``gloss links check --offline``."""
    refresh = REFRESH.format(path=evidence_path)
    out: list[Problem] = []
    for url, path, line in citations:
        rec = evidence.last_ok(url)
        if rec is None:
            if unchecked:
                out.append(Problem(path, line, f"source {url} has not been checked yet", refresh))
            continue
        age = rec.age_days(today)
        if age > max_age_days:
            out.append(Problem(path, line, f"source {url} was last checked on {rec.checked_on.isoformat()}, "
                                           f"{age} days ago (more than {max_age_days})", refresh))
    return sorted(set(out))
