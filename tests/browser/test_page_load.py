"""Real headless Chromium loads built pages: nothing a page asks for comes from outside the site.

What is counted is what the page itself requests (its frames, and workers it starts), as Playwright
reports it for that page, to any origin but the site's own (``data:`` and ``blob:`` URLs are the page's
own bytes). Chromium's own background calls (component updates, network time, sign-in, safe browsing)
belong to no page, so they are never counted: on a machine without outside network they fail, and that
must not fail this test. They are also switched off at launch (``browserkit.QUIET``), with a fresh profile, so
the browser stays quiet. Every outside request is refused, so nothing leaves the machine either way.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browserkit import QUIET
from sitekit import build_site, make_site
from tinyproject import project

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")]

@contextlib.contextmanager
def serving(site: Path) -> Iterator[str]:
    """``site`` on 127.0.0.1; yields its origin, e.g. http://127.0.0.1:41234."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def outside(requests: list[str], site: str) -> list[str]:
    """The requests to any origin but the site's."""
    return [u for u in requests if not u.startswith(("data:", "blob:")) and origin(u) != site]


@contextlib.contextmanager
def recording_proxy() -> Iterator[tuple[str, list[str]]]:
    """An HTTP proxy on 127.0.0.1 that refuses everything and records what reached it (the browser's
    own calls as well as the page's): yields its address and the list."""
    seen: list[str] = []

    class Refuse(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_error(403)

        def do_CONNECT(self) -> None:  # https://
            seen.append(f"https://{self.path.rsplit(':', 1)[0]}/")
            self.send_error(403)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def load(site: str, path: str, profile: Path, *, args: list[str] = QUIET,
         proxy: str | None = None) -> tuple[list[str], str]:
    """Open ``site + path`` in a fresh profile: every URL the page requested, and its DOM once loaded.
    With ``proxy``, everything but 127.0.0.1 goes through it."""
    from playwright.sync_api import Request, Route, sync_playwright

    assert CHROMIUM is not None
    requested: list[str] = []
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=args,
            proxy={"server": proxy, "bypass": "127.0.0.1"} if proxy else None)
        try:
            page = context.pages[0] if context.pages else context.new_page()

            def record(request: Request) -> None:  # this page's frames and workers only
                requested.append(request.url)

            def refuse_outside(route: Route) -> None:
                if origin(route.request.url) == site or route.request.url.startswith(("data:", "blob:")):
                    route.continue_()
                else:
                    route.abort()

            page.on("request", record)
            page.route("**/*", refuse_outside)
            page.goto(site + path, wait_until="networkidle")
            page.wait_for_timeout(2000 if proxy else 0)  # time for the browser's own calls, if any
            dom = page.content()
        finally:
            context.close()
    return requested, dom


def _site(tmp_path: Path, *, fonts: bool = False, script: str = "") -> Path:
    config = (Path(__file__).parents[2] / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("  - gloss:\n", "  - gloss:\n      preview: true\n")
    if fonts:  # what material does by default: Google Fonts at page load
        config = config.replace("  font: false", "  font:\n    text: Roboto")
    if script:  # a script from a CDN on every page
        config += f"\nextra_javascript:\n  - {script}\n"
    return build_site(make_site(tmp_path / "proj", project() | {"mkdocs.yml": config}))


def test_term_page_loads_nothing_from_outside(tmp_path: Path) -> None:
    with serving(_site(tmp_path)) as site:
        requested, dom = load(site, "/terms/tiling/", tmp_path / "profile")
    assert "Tiling stages a piece of an array in shared memory." in dom
    assert outside(requested, site) == []
    assert any(u.endswith(".js") for u in requested), requested  # the bundle came from the site itself


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("fonts", "https://fonts.googleapis.com/"), ("script", "https://cdn.example.invalid/lib.js")],
)
def test_the_probe_sees_what_the_page_loads_from_outside(tmp_path: Path, kind: str, expected: str) -> None:
    """The same probe against a page that does load from outside (material's default web fonts, or a
    script from a CDN): proves the check above can fail."""
    site_dir = _site(tmp_path, fonts=kind == "fonts", script="https://cdn.example.invalid/lib.js" if
                     kind == "script" else "")
    with serving(site_dir) as site:
        requested, _ = load(site, "/terms/tiling/", tmp_path / "profile")
    assert any(u.startswith(expected) for u in outside(requested, site)), requested


def test_the_browsers_own_requests_are_not_counted(tmp_path: Path) -> None:
    """Chromium without the quiet flags, every request it sends outside through a recording proxy: what
    the proxy sees beyond the page's requests is the browser's own, and the page's list holds none of it."""
    with serving(_site(tmp_path)) as site, recording_proxy() as (proxy, seen):
        requested, dom = load(site, "/terms/tiling/", tmp_path / "profile", args=["--no-sandbox", "--disable-gpu"],
                              proxy=proxy)
    assert "Tiling stages a piece of an array in shared memory." in dom
    assert outside(requested, site) == []
    if not seen:  # (Chromium 156 on Debian calls network time, updates, sign-in and autofill here)
        pytest.skip("this Chromium made no request of its own while the page loaded: nothing to tell apart")
