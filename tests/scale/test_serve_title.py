"""A real `make serve` (``mkdocs serve --dirty`` on 127.0.0.1): a renamed term shows in other pages' navigation.

The project has ``GLOSS_SERVE_TERMS`` terms (default 60; ``bench/build/run.py`` measures the same round
trip at 1,000). A term's title is edited on disk and another term of its navigation section (whose
navigation names it) is fetched until it shows the new title. The time is printed, never asserted:
the timeout only bounds a hung server.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from scalekit import make, term_name, term_slug

TERMS = int(os.environ.get("GLOSS_SERVE_TERMS", "60"))
TIMEOUT = 120.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return str(r.read().decode("utf-8"))
    except OSError:
        return ""


def _wait_for(url: str, proc: subprocess.Popen[bytes], want: str = "</html>") -> str:
    deadline = time.monotonic() + TIMEOUT
    while want not in (html := _get(url)):
        assert proc.poll() is None, "mkdocs serve exited"
        assert time.monotonic() < deadline, f"{url} did not show {want!r} within {TIMEOUT:.0f} s"
        time.sleep(0.1)
    return html


def test_a_renamed_term_shows_in_the_next_pages_navigation(tmp_path: Path) -> None:
    root = make(tmp_path / "project", TERMS, preview=True)
    port = _free_port()
    base = f"http://127.0.0.1:{port}/"
    mkdocs = str(Path(sys.executable).parent / "mkdocs")  # as `make serve` runs it
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.Popen([mkdocs, "serve", "--dirty", "--dev-addr", f"127.0.0.1:{port}"], cwd=root, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        edited = _wait_for(f"{base}terms/{term_slug(3)}/", proc)
        # Another term its navigation lists (its own letter or run): that page's navigation lists it too.
        nav = edited[edited.index("md-nav--primary"):]
        other = next(h for h in re.findall(r'href="\.\./(t\d{4})/"', nav) if h != term_slug(3))
        neighbour = f"{base}terms/{other}/"
        old, new = f"What is {term_name(3)}?", f"What is {term_name(3)} renamed?"
        assert old in _wait_for(neighbour, proc)
        time.sleep(1.0)  # let the watcher settle after the first build
        src = root / f"content/terms/{term_slug(3)}.md"
        start = time.perf_counter()
        src.write_text(src.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        html = _wait_for(neighbour, proc, want=new)
        print(f"\n{TERMS} terms: the new title showed on terms/{other}/ after {time.perf_counter() - start:.2f} s")
        assert old not in html and new in html[html.index("md-nav--primary"):]
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        if proc.poll() is None:
            proc.kill()
