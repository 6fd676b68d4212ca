"""Real headless Chromium loads built pages through a recording proxy: nothing leaves the site.

Chromium is pointed at a proxy on 127.0.0.1 that serves the built site for the host ``site.test`` and
records (and refuses) every other URL the browser asks for, so any web font, CDN script or tracker
a page pulls in at load time shows up in the list.
"""

from __future__ import annotations

import contextlib
import http.server
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sitekit import build_site, make_site
from tinyproject import project

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")]


# Chromium's own background services (network time, sign-in, autofill, updates) call these even with
# background networking off; they are the browser's requests, not the page's, so they are not counted.
BROWSER_HOSTS = {"clients2.google.com", "accounts.google.com", "content-autofill.googleapis.com",
                 "update.googleapis.com", "optimizationguide-pa.googleapis.com"}


def host(request: str) -> str | None:
    if request.startswith("CONNECT "):
        return request.split()[1].rsplit(":", 1)[0]
    return urlsplit(request).hostname


def from_page(requests: list[str]) -> list[str]:
    """Requests to anywhere but the site, leaving out the browser's own background calls."""
    return [r for r in requests if host(r) not in {"site.test", *BROWSER_HOSTS}]


class Recorder:
    def __init__(self, site: Path) -> None:
        self.site = site
        self.requests: list[str] = []


def _handler(rec: Recorder) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            rec.requests.append(self.path)
            parts = urlsplit(self.path)
            if parts.hostname != "site.test":
                self.send_error(403)
                return
            target = rec.site / parts.path.lstrip("/")
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                self.send_error(404)
                return
            body = target.read_bytes()
            self.send_response(200)
            kind = {".html": "text/html", ".css": "text/css", ".js": "text/javascript",
                    ".svg": "image/svg+xml", ".json": "application/json"}.get(target.suffix, "application/octet-stream")
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_CONNECT(self) -> None:  # https:// through the proxy
            rec.requests.append(f"CONNECT {self.path}")
            self.send_error(403)

    return Handler


def _site(tmp_path: Path, fonts: bool = False) -> Path:
    config = (Path(__file__).parents[2] / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("  - gloss:\n", "  - gloss:\n      preview: true\n")
    if fonts:  # what material does by default: Google Fonts at page load
        config = config.replace("  font: false", "  font:\n    text: Roboto")
    return build_site(make_site(tmp_path / "proj", project() | {"mkdocs.yml": config}))


@contextlib.contextmanager
def serving(site: Path) -> Iterator[tuple[Recorder, int]]:
    rec = Recorder(site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(rec))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield rec, server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _load(port: int, url: str, profile: Path) -> str:
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-default-apps", "--disable-extensions", f"--user-data-dir={profile}",
           f"--proxy-server=http://127.0.0.1:{port}", "--proxy-bypass-list=<-loopback>",
           "--virtual-time-budget=5000", "--dump-dom", url]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    return out.stdout


def test_term_page_loads_nothing_from_outside(tmp_path: Path) -> None:
    with serving(_site(tmp_path)) as (rec, port):
        dom = _load(port, "http://site.test/terms/tiling/", tmp_path / "profile")
    assert "Tiling stages a piece of an array in shared memory." in dom
    assert from_page(rec.requests) == []
    assert any(r.endswith(".js") for r in rec.requests), rec.requests  # the bundle came from the site itself


def test_the_probe_sees_web_fonts_when_they_are_on(tmp_path: Path) -> None:
    # The same probe against material's default fonts: proves the check above can fail.
    with serving(_site(tmp_path, fonts=True)) as (rec, port):
        _load(port, "http://site.test/terms/tiling/", tmp_path / "profile")
    assert any("fonts.googleapis.com" in r for r in from_page(rec.requests)), rec.requests
