"""``gloss links`` end to end: real servers on 127.0.0.1, real tiny projects and real MkDocs builds."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import sitekit
import trustme
from links_servers import Server
from sitekit import make_site
from tinyproject import TERM_A, project

from site_plugins.cli import main as gloss
from site_plugins.links import evidence as ev

FAST = ["--timeout", "0.5", "--deadline", "2", "--retries", "1", "--second-pass-delay", "0.1",
        "--min-interval", "0", "--no-progress"]
REFRESH = ("run 'gloss links check' with network access (the scheduled links workflow does) "
           "and commit links-evidence.json")
ONLY_LOOPBACK = ["--exclude", r"^https?://(?!127\.0\.0\.1[:/])"]  # tests talk to no one else
TODAY = dt.datetime.now(dt.UTC).date().isoformat()


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = gloss(["links", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def tiny(root: Path, url: str = "https://example.org/guide") -> Path:
    files = project()
    files["content/terms/tiling.md"] = TERM_A.replace("https://example.org/guide", url)
    return make_site(root, files, plugin_options="preview: true")


def build_site(root: Path) -> Path:
    """The preview (drafts shown, in site-preview/), moved to site/ where the link check reads a site."""
    preview = sitekit.build_site(root)
    if preview != root / "site":
        shutil.rmtree(root / "site", ignore_errors=True)
        preview.rename(root / "site")
    return root / "site"


def lines(out: str, prefix: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith(prefix)]


# --- offline ---------------------------------------------------------------------------------------


def test_offline_on_a_fresh_clone_warns_about_unchecked_sources_and_passes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tiny(tmp_path)
    build_site(root)
    code, out, _ = run(capsys, "check", "--offline", "--root", root)
    assert code == 0
    assert lines(out, "warning:") == [
        f"warning: content/terms/tiling.md:9: source https://example.org/guide has not been checked yet; {REFRESH}"]
    assert lines(out, "error:") == []
    assert re.search(r"│ source URLs not yet checked +│ +1 │", out)
    assert "gloss links check (offline): 0 errors, 1 warning, 0 notes in" in out

    code, out, _ = run(capsys, "check", "--offline", "--require-evidence", "--root", root)
    assert code == 1
    assert lines(out, "error:") == [
        f"error: content/terms/tiling.md:9: source https://example.org/guide has not been checked yet; {REFRESH}"]


def test_offline_reports_old_evidence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tiny(tmp_path)
    old = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(days=40)
    ev.save(root / "links-evidence.json", ev.Evidence().updated([
        ev.Record("https://example.org/guide", old, "https://example.org/guide", 200)]))
    code, out, _ = run(capsys, "check", "--offline", "--no-site", "--root", root)
    assert (code, lines(out, "warning:")) == (0, [])  # the plugin's default maximum age is a year
    code, out, _ = run(capsys, "check", "--offline", "--no-site", "--max-age", "30", "--root", root)
    assert code == 0
    assert lines(out, "warning:") == [
        f"warning: content/terms/tiling.md:9: source https://example.org/guide was last checked on "
        f"{old.date().isoformat()}, 40 days ago (more than 30); {REFRESH}"]
    code, _, _ = run(capsys, "check", "--offline", "--no-site", "--max-age", "30", "--require-evidence",
                     "--root", root)
    assert code == 1


def test_offline_finds_broken_internal_links_in_a_real_build(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    files = project()
    files["content/index.md"] = ("# Home\n\nSee the [glossary](terms/index.md), the [details](terms/tiling.md#details),"
                                 " a [missing heading](terms/tiling.md#no-such-heading) and"
                                 ' <a href="gone/">a raw link</a>.\n')
    root = make_site(tmp_path, files, plugin_options="preview: true")
    build_site(root)
    code, out, _ = run(capsys, "check", "--offline", "--root", root)
    assert code == 1
    errors = lines(out, "error:")
    assert len(errors) == 2, out
    # Reported at the Markdown line the link was written on, with the built page named for reference.
    assert re.fullmatch(r"error: content/index\.md:3: link 'gone/' points to site/gone/index\.html, which does "
                        r"not exist \(built into site/index\.html:\d+\); fix the link, then rebuild the site",
                        errors[0]), errors[0]
    assert re.fullmatch(r"error: content/index\.md:3: link 'terms/tiling/#no-such-heading' points to "
                        r"#no-such-heading, which is not an id on site/terms/tiling/index\.html \(built into "
                        r"site/index\.html:\d+\); fix the link, then rebuild the site", errors[1]), errors[1]

    code, out, _ = run(capsys, "check", "--offline", "--root", root, "--format", "github")
    annotations = [ln for ln in out.splitlines() if ln.startswith("::error")]
    assert [a.split("title=")[0] for a in annotations] == ["::error file=content/index.md,line=3,"] * 2


def test_missing_site(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tiny(tmp_path)
    remedy = "build it first ('make site'), or pass --no-site to check only the sources"
    code, out, err = run(capsys, "check", "--offline", "--root", root)
    assert (code, out) == (2, "")
    assert err == ("error: site:0: there is no built site here, so internal links and the links in pages were "
                   f"not checked; {remedy}\n")
    code, _, err = run(capsys, "check", "--offline", "--root", root, "--site-dir", root / "nowhere")
    assert code == 2
    assert err == ("error: nowhere:0: there is no built site here, so internal links and the links in pages "
                   f"were not checked; {remedy}\n")
    code, out, _ = run(capsys, "check", "--offline", "--root", root, "--no-site")
    assert code == 0, out


def test_junit_lists_each_url_once_with_every_page_that_cites_it(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    files = project()
    files["content/terms/bank-conflict.md"] = files["content/terms/bank-conflict.md"].replace(
        "definition: A bank conflict serialises shared-memory accesses.\n",
        "definition: A bank conflict serialises shared-memory accesses.\n"
        "sources:\n  - title: The same guide\n    url: https://example.org/guide\n")
    root = make_site(tmp_path, files, plugin_options="preview: true")
    out_file = tmp_path / "links.xml"
    code, _, _ = run(capsys, "check", "--offline", "--no-site", "--root", root, "--format", "junit",
                     "--output", out_file)
    assert code == 0
    suites = ET.fromstring(out_file.read_text(encoding="utf-8"))
    cases = suites.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["https://example.org/guide"]
    skipped = cases[0].find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "warning: source https://example.org/guide has not been checked yet"
    assert cases[0].findtext("system-out") == ("cited at content/terms/bank-conflict.md:5\n"
                                               "cited at content/terms/tiling.md:9")


def test_unreadable_evidence_is_an_environment_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tiny(tmp_path)
    (root / "links-evidence.json").write_text("{\n  oops\n}\n", encoding="utf-8")
    code, _, err = run(capsys, "check", "--offline", "--no-site", "--root", root)
    assert code == 2
    assert err == ("error: links-evidence.json:2: not valid JSON: Expecting property name enclosed in double "
                   "quotes (column 3); restore links-evidence.json from git "
                   "(it is written only by 'gloss links check')\n")


@pytest.mark.parametrize(("args", "message"), [
    (["check", "--offline", "http://127.0.0.1:9/"],
     "gloss links: URLs given with --offline; the offline check uses recorded evidence only\n"),
    (["check", "--require-evidence"], "gloss links: --require-evidence goes with --offline\n"),
    (["check", "--deadline", "0", "http://127.0.0.1:9/"], "gloss links: --deadline must be positive\n"),
    (["check", "--exclude", "(", "http://127.0.0.1:9/"],
     "gloss links: --exclude '(' is not a regular expression: missing ), unterminated subpattern at position 0\n"),
])
def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, _, err = run(capsys, *args, "--root", tmp_path)
    assert (code, err) == (2, message)


# --- online ----------------------------------------------------------------------------------------


def test_online_records_evidence_the_site_shows_it_and_fresh_evidence_sends_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], http: Server) -> None:
    url = http.url("/page#intro")
    root = tiny(tmp_path, url)
    build_site(root)
    code, out, _ = run(capsys, "check", "--root", root, *FAST, *ONLY_LOOPBACK)
    assert code == 0, out
    record = ev.load(root / "links-evidence.json").last_ok(url)
    assert record is not None
    assert (record.status, record.final_url, record.anchor, record.checked_on.isoformat()) == (
        200, http.url("/page"), "found", TODAY)
    assert "links-evidence.json: 1 record refreshed (1 in all)" in out

    # The next build shows the date, from the evidence, in Sources and in the byline.
    site = build_site(root)
    page = (site / "terms/tiling/index.html").read_text(encoding="utf-8")
    assert f'<span class="gloss-checked">(checked {TODAY})</span>' in page
    assert f"Last checked on {TODAY}." in page

    code, out, _ = run(capsys, "check", "--offline", "--root", root)
    assert (code, lines(out, "warning:"), lines(out, "error:")) == (0, [], [])
    code, out, _ = run(capsys, "list", "--root", root)
    assert f"content/terms/tiling.md:9: {url} (checked {TODAY})" in out

    # A second online run with fresh evidence sends no request at all.
    before = sum(http.counts.values())
    code, out, _ = run(capsys, "check", "--root", root, *FAST, *ONLY_LOOPBACK, "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["requests"] == 0
    assert report["summary"]["URLs skipped (fresh evidence)"] == 1
    assert sum(http.counts.values()) == before


def test_the_requests_the_report_counts_are_the_requests_the_server_saw(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], http: Server) -> None:
    # The first request is dropped unanswered (aiohttp would resend it unseen), the other page redirects once.
    dropped, redirected = http.url("/drop-once/cli"), http.url("/redirect/1?cli")
    before = sum(http.counts.values())
    # A first pass long enough for the retry's backoff (about 0.5-1 s) whatever the jitter.
    code, out, _ = run(capsys, "check", "--root", tmp_path, dropped, redirected, *FAST, "--timeout", "5",
                       "--deadline", "10", "--format", "json")
    report = json.loads(out)
    assert (code, report["summary"]["URLs ok"]) == (0, 2)
    assert report["requests"] == sum(http.counts.values()) - before == 4  # 2 + 2
    assert {u["url"]: u["tries"] for u in report["urls"]} == {dropped: 2, redirected: 1}


def test_online_verdicts_and_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str], http: Server) -> None:
    ok, gone, forbidden, anchor = (http.url("/ok"), http.url("/status/404"), http.url("/status/403"),
                                   http.url("/js#app-section"))
    old = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    ev.save(tmp_path / "links-evidence.json", ev.Evidence().updated([ev.Record(forbidden, old, forbidden, 200)]))
    code, out, _ = run(capsys, "check", "--root", tmp_path, ok, gone, forbidden, anchor, *FAST)
    assert code == 1
    assert lines(out, "error:") == [
        f"error: <command line>:0: {gone} is broken: 404 Not Found; fix the address, or replace the source"]
    assert lines(out, "warning:") == [
        f"warning: <command line>:0: {forbidden} refused the check (403 Forbidden (the server refuses automated "
        "checks)), unverified since 2026-01-02; open it in a browser to confirm it works; its evidence ages out "
        "after 365 days"]
    assert lines(out, "note:") == [
        f"note: <command line>:0: {anchor}: anchor #app-section cannot be verified: the page is rendered by "
        "JavaScript (its HTML has almost no text); the page itself is fine; check the anchor in a browser"]
    evidence = ev.load(tmp_path / "links-evidence.json")
    assert sorted(evidence.records) == sorted([ok, forbidden, anchor])  # failures are never recorded
    assert evidence.last_ok(forbidden).checked_at == old  # type: ignore[union-attr]

    code, out, _ = run(capsys, "check", "--root", tmp_path, ok, gone, *FAST, "--force", "--format", "json")
    report = json.loads(out)
    assert (code, report["exit_code"], report["mode"]) == (1, 1, "online")
    by_url = {u["url"]: u for u in report["urls"]}
    # One URL per line, so that the report reads and diffs line by line.
    assert [json.loads(ln.strip().rstrip(","))["url"] for ln in out.splitlines() if ln.startswith('    {"url"')] \
        == [ok, gone]
    assert by_url[gone]["verdict"] == "broken" and by_url[gone]["status"] == 404
    assert by_url[ok]["verdict"] == "ok" and by_url[ok]["last_ok"] is not None
    assert report["findings"][0]["message"] == f"<command line>:0: {gone} is broken: 404 Not Found; " \
                                               "fix the address, or replace the source"

    out_file = tmp_path / "out" / "links.xml"
    code, out, _ = run(capsys, "check", "--root", tmp_path, ok, gone, forbidden, *FAST, "--force",
                       "--format", "junit", "--output", out_file)
    assert code == 1
    assert "gloss links check (online): 1 error, 1 warning, 0 notes" in out  # the text summary still shows
    suites = ET.fromstring(out_file.read_text(encoding="utf-8"))
    assert (suites.get("tests"), suites.get("failures"), suites.get("skipped")) == ("3", "1", "1")
    failure = suites.find("./testsuite/testcase[@name='" + gone + "']/failure")
    assert failure is not None and failure.get("message") == f"{gone} is broken: 404 Not Found"

    code, out, _ = run(capsys, "check", "--root", tmp_path, gone, *FAST, "--format", "github")
    assert out.splitlines()[0] == (f"::error file=<command line>,title=gloss links::{gone} is broken: "
                                   "404 Not Found; fix the address, or replace the source")


def test_https_needs_a_trusted_certificate(tmp_path: Path, capsys: pytest.CaptureFixture[str], https: Server,
                                           ca: trustme.CA) -> None:
    url = https.url("/ok")
    code, out, _ = run(capsys, "check", "--root", tmp_path, url, *FAST)
    assert code == 1
    assert lines(out, "error:")[0].startswith(
        f"error: <command line>:0: {url} is broken: TLS certificate verification failed: ")
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    code, out, _ = run(capsys, "check", "--root", tmp_path, url, *FAST, "--ca-bundle", pem)
    assert code == 0, out


def test_no_network_fails_fast_and_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    code, out, _ = run(capsys, "check", "--root", tmp_path, "https://docs.example.invalid/guide#part",
                       "https://blog.example.invalid/post", "--deadline", "5", "--no-progress")
    elapsed = time.monotonic() - started
    assert code == 2
    assert lines(out, "error:") == []  # one clear line, not every URL "broken"
    assert out.startswith("no network: all 2 URLs on 2 hosts failed before any server answered (e.g. DNS lookup "
                          "failed: ")  # said first
    assert re.search(r"│ URLs not checked \(no network\) +│ +2 │", out)
    assert "broken" not in out
    assert "the online check needs internet access. Without it, run 'gloss links check --offline'" in out
    assert elapsed < 5.0  # the deadline; in practice a DNS failure answers at once
    assert not (tmp_path / "links-evidence.json").exists()  # nothing to record, nothing written


def test_one_unknown_host_is_simply_broken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    code, out, _ = run(capsys, "check", "--root", tmp_path, "https://gone.example.invalid/", "--deadline", "5",
                       "--no-progress")
    assert code == 1
    assert lines(out, "error:")[0].startswith(
        "error: <command line>:0: https://gone.example.invalid/ is broken: DNS lookup failed: ")
    assert lines(out, "error:")[0].endswith("; check the host name, or replace the source")
    assert time.monotonic() - started < 5.0


def test_the_offline_check_does_not_load_the_http_stack(tmp_path: Path) -> None:
    # CI runs the offline check on every push: it must not pay for (or depend on) aiohttp.
    code = ("import sys; from site_plugins.cli import main; "
            "rc = main(['links', 'check', '--offline', '--no-site', '--root', sys.argv[1]]); "
            "print(rc, 'aiohttp' in sys.modules, 'rich' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.stdout.splitlines()[-1] == "0 False True"  # rich: the text report's table
