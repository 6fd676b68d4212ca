"""Stopping a real ``gloss links check`` (a subprocess) with SIGINT, SIGTERM or SIGKILL while a local server
keeps some pages waiting: the answers that had arrived are kept, and the next run checks only the rest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from links_servers import Server

from site_plugins.links import evidence as ev

ROOT = Path(__file__).resolve().parents[2]
FAST, SLOW = 6, 4


def start(urls: list[str], tmp_path: Path) -> subprocess.Popen[str]:
    url_file = tmp_path / "urls.txt"
    url_file.write_text("\n".join(urls) + "\n", encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, "-m", "site_plugins.cli", "links", "check", "--root", str(tmp_path), "--urls-from",
         str(url_file), "--no-progress", "--format", "json", "--min-interval", "0", "--per-host", "16",
         "--timeout", "30", "--deadline", "60"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(condition: object, what: str, seconds: float = 30.0) -> None:
    until = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        if time.monotonic() > until:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def journal_lines(tmp_path: Path) -> int:
    path = ev.journal_path(tmp_path / "links-evidence.json")
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def urls_for(http: Server, tag: str) -> tuple[list[str], list[str]]:
    fast = [http.url(f"/ok?{tag}={i}") for i in range(FAST)]
    slow = [http.url(f"/slow-once/{tag}-{i}?s=20") for i in range(SLOW)]
    return fast, slow


def stop_after_the_fast_answers(http: Server, tmp_path: Path, tag: str, sig: int,
                                ) -> tuple[list[str], list[str], subprocess.CompletedProcess[str]]:
    fast, slow = urls_for(http, tag)
    proc = start(fast + slow, tmp_path)
    # Every fast page has answered (the journal has them) and every slow one is waiting on the server.
    wait_for(lambda: journal_lines(tmp_path) == FAST, "the fast answers")
    wait_for(lambda: all(http.httpd.keys[f"/slow-once/{tag}-{i}"] == 1 for i in range(SLOW)), "the slow requests")
    started = time.monotonic()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - started < 10  # it did not wait for the slow pages (they answer after 20 s)
    return fast, slow, subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_signal_keeps_the_answers_that_arrived_and_the_next_run_checks_only_the_rest(
        http: Server, tmp_path: Path, sig: int, code: int) -> None:
    tag = f"stop{sig}"
    fast, slow, done = stop_after_the_fast_answers(http, tmp_path, tag, sig)
    name = signal.Signals(sig).name
    assert done.returncode == code
    assert done.stdout == ""  # no partial report
    assert done.stderr == (f"gloss links check: interrupted by {name} after {FAST} of {FAST + SLOW} URLs; "
                           f"{FAST} ok answers kept in links-evidence.json; the next run checks the other {SLOW}\n")
    path = tmp_path / "links-evidence.json"
    data = json.loads(path.read_text(encoding="utf-8"))  # valid JSON, written whole
    assert sorted(data["urls"]) == sorted(fast)
    assert all(r["status"] == 200 for r in data["urls"].values())
    assert not ev.journal_path(path).exists()  # folded into the file

    # The next run skips what has fresh evidence and fetches only the slow pages (which now answer).
    fast_count = http.counts[("GET", "/ok")]
    again = start(fast + slow, tmp_path)
    out, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    report = json.loads(out)
    assert report["summary"]["URLs skipped (fresh evidence)"] == FAST
    assert report["summary"]["URLs ok"] == SLOW
    assert report["requests"] == SLOW
    assert http.counts[("GET", "/ok")] == fast_count  # not one fast page fetched again
    assert all(http.httpd.keys[f"/slow-once/{tag}-{i}"] == 2 for i in range(SLOW))
    assert sorted(json.loads(path.read_text(encoding="utf-8"))["urls"]) == sorted(fast + slow)


def test_a_run_killed_outright_leaves_its_answers_in_the_journal_and_the_next_run_reads_them(
        http: Server, tmp_path: Path) -> None:
    tag = "kill"
    fast, slow, done = stop_after_the_fast_answers(http, tmp_path, tag, signal.SIGKILL)
    assert done.returncode == -signal.SIGKILL
    path = tmp_path / "links-evidence.json"
    assert not path.exists()
    assert sorted(ev.load(path).records) == sorted(fast)  # replayed from the journal

    fast_count = http.counts[("GET", "/ok")]
    again = start(fast + slow, tmp_path)
    out, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    assert json.loads(out)["requests"] == SLOW
    assert http.counts[("GET", "/ok")] == fast_count
    assert sorted(json.loads(path.read_text(encoding="utf-8"))["urls"]) == sorted(fast + slow)
    assert not ev.journal_path(path).exists()


def test_interrupted_before_any_url_is_checked(tmp_path: Path) -> None:
    # SIGTERM while the command is still reading its URL list (a pipe that stays open and empty): the
    # handler is in place from the start, not only during the check.
    fifo = tmp_path / "urls.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-m", "site_plugins.cli", "links", "check", "--root", str(tmp_path), "--urls-from",
         str(fifo), "--no-progress"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    writer: list[int] = []

    def reader_is_there() -> bool:  # opening the write end without blocking works once a reader has it open
        try:
            writer.append(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            return proc.poll() is not None
        return True

    wait_for(reader_is_there, "the command to open its URL list")
    try:
        time.sleep(0.2)  # into its read
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        for fd in writer:
            os.close(fd)
    assert (proc.returncode, out) == (143, "")
    assert err == ("gloss links check: interrupted by SIGTERM before any URL was checked; "
                   "links-evidence.json unchanged\n")
