"""Browser fixtures: the project's real content built once per session (published and preview) into a
temporary folder, served on 127.0.0.1, and Debian's Chromium driven by Playwright for Python.

Chromium is launched by executable path (``/usr/bin/chromium`` or whatever ``chromium`` is on PATH);
Playwright's own browser download is never used. Without Chromium or Playwright the tests skip.
Screenshots go to ``tests/browser/artifacts/`` (git-ignored), or to ``$GLOSS_ARTIFACTS``.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browserkit import PRESETS, QUIET, Served
from mkdocs.commands.build import build
from mkdocs.config import load_config

ROOT = Path(__file__).parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

try:
    from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    why = ("Chromium is not installed (apt-get install chromium)" if CHROMIUM is None
           else "Playwright for Python is not installed (pip install -e '.[test]')" if sync_playwright is None
           else None)
    for item in items:
        if "browser" in item.keywords and why:
            item.add_marker(pytest.mark.skip(reason=why))


def _handler(served: Served) -> type[http.server.SimpleHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def send_response(self, code: int, message: str | None = None) -> None:
            self._code = code
            super().send_response(code, message)

        def send_header(self, keyword: str, value: str) -> None:
            if keyword.lower() == "content-length":
                served.log.append((self.path, getattr(self, "_code", 0), int(value)))
            super().send_header(keyword, value)

    return Handler


def _serve(root: Path) -> Iterator[Served]:
    served = Served(root)
    handler = functools.partial(_handler(served), directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    served.base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()


def _build(dest: Path, *, preview: bool) -> Path:
    old = os.environ.get("GLOSS_PREVIEW")
    os.environ["GLOSS_PREVIEW"] = "1" if preview else "0"
    try:
        build(load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=str(dest)))
    finally:
        if old is None:
            del os.environ["GLOSS_PREVIEW"]
        else:
            os.environ["GLOSS_PREVIEW"] = old
    return dest


@pytest.fixture(scope="session")
def preview_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The real content with drafts shown (today every entry is a draft)."""
    yield from _serve(_build(tmp_path_factory.mktemp("preview") / "site-preview", preview=True))


@pytest.fixture(scope="session")
def published_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from _serve(_build(tmp_path_factory.mktemp("published") / "site", preview=False))


#: The entries the signed site publishes: signed by two fictional people. The rest stay drafts.
SIGNED = ("memory-coalescing", "host-device-transfers", "bank-conflict", "tiling", "tensor-cores", "atomics",
          "barrier", "warp", "warp-divergence", "reduction", "swizzling", "double-buffering", "vectorized-loads",
          "halo", "latency-hiding", "launch-overhead", "l2-cache", "memory-transaction", "register-tiling",
          "async-copy", "invalid-argument")
SIGNED_LESSONS = ("day16-matmul",)


@pytest.fixture(scope="session")
def signed_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The real content in a fresh repository whose registry holds two fictional people (SSH keys made
    here with ssh-keygen): they sign :data:`SIGNED` terms and :data:`SIGNED_LESSONS` as author and reviewer,
    and the site is built as ``make site`` builds it (strict, audited). Every other entry is a draft."""
    import subprocess

    from site_plugins import cli
    from site_plugins.cli import build as sitebuild

    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed (apt-get install openssh-client)")
    tmp = tmp_path_factory.mktemp("signed")
    root = tmp / "project"
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True, capture_output=True).stdout
    for rel in tracked.decode().split("\0"):
        if rel and not rel.startswith(("tests/", "site_plugins/", "bench/", "reviews/")) and (ROOT / rel).is_file():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, root / rel)
    people = []
    for name, handle in (("Ada Author", "ada"), ("Rex Reviewer", "rex")):
        key = tmp / "keys" / handle
        key.parent.mkdir(exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", handle, "-f", str(key)], check=True)
        people.append(f"  - name: {name}\n    keys:\n      - {key.with_suffix('.pub').read_text().strip()}\n")
    (root / "signoff.yaml").write_text("people:\n" + "".join(people), encoding="utf-8")
    git = ["git", "-C", str(root), "-c", "user.name=T", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixture"], check=True)
    paths = [f"content/terms/{s}.md" for s in SIGNED] + [f"content/lessons/{s}.md" for s in SIGNED_LESSONS]
    for role, handle in (("author", "ada"), ("reviewer", "rex")):  # one call signs them all
        assert cli.main(["sign", *paths, "--as", role, "--key", str(tmp / "keys" / handle), "--root", str(root)]) == 0
    subprocess.run([*git, "commit", "-q", "-am", "signed"], check=True)
    old = os.environ.get("GLOSS_PREVIEW")
    os.environ["GLOSS_PREVIEW"] = "0"
    try:
        assert sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / "site")]) == 0  # strict, audited
    finally:
        if old is None:
            del os.environ["GLOSS_PREVIEW"]
        else:
            os.environ["GLOSS_PREVIEW"] = old
    yield from _serve(root / "site")


@pytest.fixture(scope="session")
def presets_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A tiny site with one term per preset of the tile-lifecycle diagram (preview: all drafts)."""
    from sitekit import build_site, make_site
    from tinyproject import TERM_B, project

    files = project()
    for name in PRESETS:
        files[f"content/terms/{name}.md"] = TERM_B.replace(
            "title: What is a bank conflict in CUDA?",
            f"title: What is {name}?\ndiagram:\n  name: tile-lifecycle\n  preset: {name}\n  alt: The {name} state.")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    files["mkdocs.yml"] = config.replace("  - gloss:\n", "  - gloss:\n      preview: true\n")
    root = tmp_path_factory.mktemp("presets")
    yield from _serve(build_site(make_site(root / "p", files), strict=False))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Per module: Playwright's sync API runs an event loop in this thread while it is open, and later
    tests (the link checker's) start their own with asyncio.run."""
    assert sync_playwright is not None and CHROMIUM is not None
    with sync_playwright() as pw:
        # Chromium's own traffic off (browserkit.QUIET); Playwright's launch gives it a fresh
        # temporary profile, and each tab a fresh context whose route sees only the page's requests.
        b = pw.chromium.launch(executable_path=CHROMIUM, args=QUIET)
        yield b
        b.close()


@dataclass
class Tab:
    """A page in a fresh context that records every URL it requests and refuses any not on 127.0.0.1."""

    page: Page
    context: BrowserContext
    requests: list[str]

    def outside(self) -> list[str]:
        return [u for u in self.requests if not u.startswith(("http://127.0.0.1:", "data:", "blob:"))]


@pytest.fixture
def open_tab(browser: Browser) -> Iterator[Any]:
    contexts: list[BrowserContext] = []

    def make(width: int = 1280, height: int = 900, *, dark: bool = False, javascript: bool = True) -> Tab:
        context = browser.new_context(viewport={"width": width, "height": height},
                                      color_scheme="dark" if dark else "light", java_script_enabled=javascript,
                                      service_workers="block")
        contexts.append(context)
        requests: list[str] = []

        def route(r: Any) -> None:
            requests.append(r.request.url)
            if r.request.url.startswith("http://127.0.0.1:"):
                r.continue_()
            else:
                r.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.set_default_timeout(10_000)
        return Tab(page, context, requests)

    yield make
    for c in contexts:
        c.close()
