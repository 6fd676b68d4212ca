"""The evidence file: format, atomic deterministic writes, and the renderer's helpers."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest

from site_plugins.links import evidence as ev

ROOT = Path(__file__).resolve().parents[2]
T1 = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
T2 = dt.datetime(2026, 3, 1, 12, 0, 0, tzinfo=dt.UTC)


def rec(url: str, when: dt.datetime = T1, *, final_url: str | None = None, status: int = 200,
        redirects: tuple[ev.Hop, ...] = (), anchor: str = "") -> ev.Record:
    return ev.Record(url, when, final_url or url, status, redirects, anchor)


def test_committed_evidence_file_is_empty_and_canonical() -> None:
    # Our machines have no internet: nothing may be recorded until the scheduled online check runs.
    path = ROOT / "links-evidence.json"
    evidence = ev.load(path)
    assert len(evidence) == 0
    assert path.read_text(encoding="utf-8") == ev.dumps(evidence)


def test_missing_file_is_empty_evidence(tmp_path: Path) -> None:
    assert len(ev.load(tmp_path / "nope.json")) == 0


def test_round_trip_is_deterministic_and_sorted(tmp_path: Path) -> None:
    a = rec("https://b.example/x", T1, redirects=(ev.Hop("https://b.example/y", 301),), final_url="https://b.example/x/")
    b = rec("https://a.example/#part", T2, anchor="found")
    path = tmp_path / "links-evidence.json"
    assert ev.save(path, ev.Evidence().updated([a, b])) is True
    text = path.read_text(encoding="utf-8")
    assert ev.save(path, ev.Evidence().updated([b, a])) is False  # same content: file untouched
    assert path.read_text(encoding="utf-8") == text
    data = json.loads(text)
    assert list(data["urls"]) == ["https://a.example/#part", "https://b.example/x"]
    assert data["urls"]["https://b.example/x"] == {
        "checked_at": "2026-01-02T03:04:05Z", "final_url": "https://b.example/x/",
        "redirects": [{"status": 301, "url": "https://b.example/y"}], "status": 200}
    loaded = ev.load(path)
    assert loaded.last_ok("https://b.example/x") == a
    assert loaded.last_ok("https://a.example/#part") == b
    assert [p.name for p in tmp_path.iterdir()] == ["links-evidence.json"]  # no temp file left


def test_atomic_write_keeps_old_file_when_writing_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "links-evidence.json"
    ev.save(path, ev.Evidence().updated([rec("https://a.example/")]))
    before = path.read_text(encoding="utf-8")

    def boom(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        ev.save(path, ev.Evidence().updated([rec("https://b.example/")]))
    assert path.read_text(encoding="utf-8") == before
    assert [p.name for p in tmp_path.iterdir()] == ["links-evidence.json"]


@pytest.mark.parametrize(("text", "message"), [
    ("{", "links-evidence.json:1: not valid JSON: Expecting property name enclosed in double quotes (column 2); "
          "restore links-evidence.json from git (it is written only by 'gloss links check')"),
    ("[]", "links-evidence.json:1: the evidence file must hold a JSON object; "
           "restore links-evidence.json from git (it is written only by 'gloss links check')"),
    ('{"format": 1, "urls": {"https://a/": {"checked_at": "yesterday", "final_url": "https://a/", "status": 200}}}',
     "links-evidence.json:1: 'urls.https://a/.checked_at' is 'yesterday', not YYYY-MM-DDTHH:MM:SSZ; "
     "restore links-evidence.json from git (it is written only by 'gloss links check')"),
    ('{"format": 1, "urls": {\n  "https://a/": {"checked_at": "2026-01-01T00:00:00Z", "status": 200}}}',
     "links-evidence.json:2: missing required key 'urls.https://a/.final_url'; "
     "restore links-evidence.json from git (it is written only by 'gloss links check')"),
    ('{"urls": {},\n "format": 2}',
     "links-evidence.json:2: unknown evidence format 2 (this version reads 1); "
     "restore links-evidence.json from git (it is written only by 'gloss links check')"),
    ('{"format": 1, "urls": {"https://a/": {"checked_at": "2026-01-01T00:00:00Z", "final_url": "https://a/",\n'
     ' "status": 200},\n "https://b/": {"checked_at": "2026-01-01T00:00:00Z", "final_url": "https://b/",\n'
     ' "status": "200"}}}',
     "links-evidence.json:3: 'urls.https://b/.status' must be a whole number, got a string; "
     "restore links-evidence.json from git (it is written only by 'gloss links check')"),
    ('{"format": 1, "urls": {"https://a/": {"checked_at": "2026-01-01T00:00:00Z", "final_url": "https://a/",\n'
     ' "status": 200, "redirects": [{"url": "https://a/x"}]}}}',
     "links-evidence.json:1: missing required key 'urls.https://a/.redirects[0].status'; "
     "restore links-evidence.json from git (it is written only by 'gloss links check')"),
    ('{"format": 1, "urls": {"https://a/": {"checked_at": "2026-01-01T00:00:00Z", "final_url": "https://a/",\n'
     ' "status": 200, "stauts": 200}}}',
     "links-evidence.json:1: unknown key 'urls.https://a/.stauts'; "
     "restore links-evidence.json from git (it is written only by 'gloss links check')"),
    ('{"format": 1, "urls": {"https://a/": true}}',
     "links-evidence.json:1: 'urls.https://a/' must be a mapping, got a boolean; "
     "restore links-evidence.json from git (it is written only by 'gloss links check')"),
])
def test_bad_files_are_reported_with_path_line_and_remedy(text: str, message: str) -> None:
    with pytest.raises(ev.EvidenceError) as info:
        ev.parse(text, "links-evidence.json")
    assert [str(p) for p in info.value.problems] == [message]


def test_notes_and_byline() -> None:
    e = ev.Evidence().updated([rec("https://a/", T1), rec("https://b/", T2)])
    assert ev.checked_note(e.last_ok("https://a/")) == "(checked 2026-01-02)"
    assert ev.checked_note(e.last_ok("https://c/")) == "(not yet checked)"
    assert ev.last_checked(e, ["https://b/", "https://a/"]) == dt.date(2026, 1, 2)  # the oldest
    assert ev.last_checked(e, ["https://a/", "https://c/"]) is None  # one unchecked: no date
    assert ev.last_checked(e, []) is None
    assert ev.byline_note(e, ["https://a/", "https://b/"]) == "Last checked on 2026-01-02"
    assert ev.byline_note(e, ["https://c/"]) == "Sources not yet checked"
    assert ev.byline_note(e, []) == ""
    assert ev.unverified_since(e.last_ok("https://b/")) == "unverified since 2026-03-01"
    assert ev.unverified_since(None) == "unverified since never (no ok check recorded)"


def test_checked_on_function_is_what_the_pipeline_takes(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    ev.save(path, ev.Evidence().updated([rec("https://a/", T2)]))
    checked_on = ev.checked_on_function(path)
    assert checked_on("https://a/") == "2026-03-01"
    assert checked_on("https://b/") is None


def test_freshness() -> None:
    e = ev.Evidence().updated([rec("https://a/", T1)])
    assert e.is_fresh("https://a/", T1 + dt.timedelta(hours=19), dt.timedelta(hours=20))
    assert not e.is_fresh("https://a/", T1 + dt.timedelta(hours=21), dt.timedelta(hours=20))
    assert not e.is_fresh("https://b/", T1, dt.timedelta(hours=20))


def test_age_problems_old_and_unchecked() -> None:
    e = ev.Evidence().updated([rec("https://old/", T1), rec("https://new/", T2)])
    cites = [("https://old/", "content/terms/a.md", 9), ("https://new/", "content/terms/a.md", 11),
             ("https://none/", "content/terms/b.md", 7)]
    today = dt.date(2026, 3, 10)
    got = [str(p) for p in ev.evidence_problems(e, cites, max_age_days=30, today=today)]
    refresh = ("run 'gloss links check' with network access (the scheduled links workflow does) "
               "and commit links-evidence.json")
    assert got == [f"content/terms/a.md:9: source https://old/ was last checked on 2026-01-02, 67 days ago "
                   f"(more than 30); {refresh}"]
    got = [str(p) for p in ev.evidence_problems(e, cites, max_age_days=30, today=today, unchecked=True)]
    assert got[1] == f"content/terms/b.md:7: source https://none/ has not been checked yet; {refresh}"
    assert ev.evidence_problems(e, cites, max_age_days=67, today=today) == []


def test_dumps_lays_records_out_exactly_as_the_json_module_does() -> None:
    # dumps() writes the file's layout by hand (the json module indents in pure Python); it must stay the
    # same text, byte for byte, for awkward strings and every optional part.
    records = [
        rec("https://a.example/x", T1),
        rec('https://é.example/"q"\\ \u2028', T2, final_url="https://é.example/ä\n", status=203,
            redirects=(ev.Hop("https://a.example/1", 301), ev.Hop("https://a.example/\t2", 308)),
            anchor='cannot verify: "app shell"'),
        rec("https://b.example/#part", T1, anchor="found", redirects=(ev.Hop("http://b.example/", 302),)),
    ]
    for evidence in (ev.Evidence(), ev.Evidence().updated(records[:1]), ev.Evidence().updated(records)):
        urls = {}
        for url in sorted(evidence.records):
            r = evidence.records[url]
            item = {"checked_at": ev.format_time(r.checked_at), "final_url": r.final_url,
                    "redirects": [{"status": h.status, "url": h.url} for h in r.redirects], "status": r.status}
            if r.anchor:
                item["anchor"] = r.anchor
            urls[url] = item
        expected = json.dumps({"about": ev.ABOUT, "format": ev.FORMAT, "urls": urls}, indent=2, sort_keys=True,
                              ensure_ascii=False) + "\n"
        assert ev.dumps(evidence) == expected
        assert ev.parse(expected).records == evidence.records


def test_a_journal_left_by_a_dead_run_is_read_back_and_folded_in_by_the_next_save(tmp_path: Path) -> None:
    path = tmp_path / "links-evidence.json"
    old = rec("https://a.example/", T1)
    newer_in_file = rec("https://c.example/", T2)
    ev.save(path, ev.Evidence().updated([old, newer_in_file]))
    with ev.Journal(path) as journal:
        journal.add(rec("https://a.example/", T2, final_url="https://a.example/moved"))  # newer: wins
        journal.add(rec("https://b.example/#x", T2, anchor="found"))
        journal.add(rec("https://c.example/", T1, final_url="https://c.example/old"))  # older: loses
    jpath = ev.journal_path(path)
    assert jpath.name == "links-evidence.json.journal"
    assert [json.loads(line) for line in jpath.read_text(encoding="utf-8").splitlines()] == [
        {"url": "https://a.example/", "checked_at": "2026-03-01T12:00:00Z", "final_url": "https://a.example/moved",
         "redirects": [], "status": 200},
        {"url": "https://b.example/#x", "checked_at": "2026-03-01T12:00:00Z", "final_url": "https://b.example/#x",
         "redirects": [], "status": 200, "anchor": "found"},
        {"url": "https://c.example/", "checked_at": "2026-01-02T03:04:05Z", "final_url": "https://c.example/old",
         "redirects": [], "status": 200}]
    with ev.Journal(path) as journal:  # a redirect chain and awkward characters survive the line format
        tricky = rec('https://e.example/"é"\\', T2, redirects=(ev.Hop("https://e.example/\n1", 301),),
                     anchor='cannot verify: "x"')
        journal.add(tricky)
    assert ev.load(path).last_ok(tricky.url) == tricky
    with jpath.open("a", encoding="utf-8") as fh:
        fh.write('{"url": "https://d.example/", "checked_at": "2026-')  # the process died mid-line
    loaded = ev.load(path)
    assert loaded.records == {
        "https://a.example/": rec("https://a.example/", T2, final_url="https://a.example/moved"),
        "https://b.example/#x": rec("https://b.example/#x", T2, anchor="found"),
        "https://c.example/": newer_in_file,
        tricky.url: tricky,
    }
    assert ev.save(path, loaded) is True
    assert not jpath.exists()
    assert ev.load(path).records == loaded.records


@pytest.mark.parametrize(("lines", "message"), [
    ('{"url": "https://a/", "checked_at": "2026-01-01T00:00:00Z", "final_url": "https://a/", "status": 200}\n'
     "not json\n",
     "links-evidence.json.journal:2: not a journal record (a JSON object with a 'url')"),
    ('{"url": "https://a/", "checked_at": "2026-01-01T00:00:00Z", "final_url": "https://a/", "status": 200}\n'
     '{"url": "https://b/", "checked_at": "2026-01-01T00:00:00Z", "final_url": "https://b/", "status": "ok"}\n',
     "links-evidence.json.journal:2: 'urls.https://b/.status' must be a whole number, got a string"),
])
def test_a_damaged_journal_is_reported_at_its_line(tmp_path: Path, lines: str, message: str) -> None:
    path = tmp_path / "links-evidence.json"
    ev.journal_path(path).write_text(lines, encoding="utf-8")
    with pytest.raises(ev.EvidenceError) as info:
        ev.load(path)
    assert [str(p) for p in info.value.problems] == [
        f"{message}; delete links-evidence.json.journal: it holds only answers of an interrupted "
        "'gloss links check' (the next run checks those URLs again)"]
