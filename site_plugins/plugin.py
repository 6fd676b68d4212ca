"""The MkDocs plugin: thin event adapters over :mod:`site_plugins.pipeline`.

Content problems are warnings on ``mkdocs.plugins.gloss`` (``mkdocs build --strict`` fails on them,
``mkdocs serve`` shows them and keeps serving); structural problems raise ``PluginError``.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from site_plugins import images, measured, navorder, pipeline, render
from site_plugins.content import source_urls
from site_plugins.links import evidence

log = logging.getLogger("mkdocs.plugins.gloss")

ASSETS = Path(__file__).parent / "assets"
TERM_SEARCH_BOOST = 5  # material search boost: a term outranks the code page whose file name repeats its words


class GlossConfig(base.Config):
    preview = c.Type(bool, default=False)
    """Show drafts (with a banner) instead of leaving them out; GLOSS_PREVIEW=1 also turns it on."""
    evidence_file = c.Type(str, default="links-evidence.json")
    """The link evidence file, relative to mkdocs.yml."""
    evidence_max_age_days = c.Type(int, default=365)
    """Evidence older than this is reported as a warning."""


class GlossPlugin(BasePlugin[GlossConfig]):
    def __init__(self) -> None:
        self.build: pipeline.Build | None = None
        self.root = Path.cwd()
        self.docs_dir = "content"

    @property
    def preview(self) -> bool:
        return bool(self.config.preview) or os.environ.get("GLOSS_PREVIEW", "") not in ("", "0")

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.root = Path(config.config_file_path or ".").resolve().parent
        docs = Path(config.docs_dir).resolve()
        try:
            self.docs_dir = docs.relative_to(self.root).as_posix()
        except ValueError as exc:
            raise PluginError(f"gloss: docs_dir {docs} must lie inside the project at {self.root}") from exc
        # Every stylesheet of ours (the anatomy's, the measurement tables' and charts') is served
        # from the site itself: no external requests.
        for css in sorted(ASSETS.rglob("*.css")):
            config.extra_css.append(f"assets/gloss/{css.relative_to(ASSETS).as_posix()}")
        for js in sorted(ASSETS.rglob("*.js")):  # small, dependency-free page scripts (the diagram's)
            config.extra_javascript.append(f"assets/gloss/{js.relative_to(ASSETS).as_posix()}")
        return config

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        path = self.root / self.config.evidence_file
        try:
            ev = evidence.load(path, self.config.evidence_file)
        except evidence.EvidenceError as exc:
            raise PluginError(str(exc)) from exc
        self.build = build = pipeline.prepare(self.root, self.docs_dir, preview=self.preview,
                                              checked=_checked_on(ev))
        stale = evidence.evidence_problems(ev, source_urls(build.content),
                                           max_age_days=self.config.evidence_max_age_days,
                                           today=dt.datetime.now(dt.UTC).date(),
                                           evidence_path=self.config.evidence_file)
        for problem in sorted(set(build.problems) | set(stale)):
            log.warning(str(problem))
        for uri in [*build.hidden, *sorted(build.content.unloaded)]:  # drafts; files that are not entries
            f = files.get_file_from_path(uri)
            if f is not None:
                files.remove(f)
        for uri, markdown in build.pages.items():
            if files.get_file_from_path(uri) is None:
                files.append(File.generated(config, uri, content=markdown))
        for file, text in build.code_files.items():
            raw = render.code_raw_uri(file)
            if files.get_file_from_path(raw) is None:
                files.append(File.generated(config, raw, content=text))
        for asset in sorted(ASSETS.rglob("*")):
            if asset.is_file():
                uri = f"assets/gloss/{asset.relative_to(ASSETS).as_posix()}"
                if files.get_file_from_path(uri) is None:
                    files.append(File.generated(config, uri, abs_src_path=str(asset)))
        return files

    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Files) -> Navigation:
        if self.build is None:
            raise PluginError("gloss: on_nav before on_files")
        return navorder.arrange(nav, navorder.labels(self.build.content, self.build.hidden))

    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        build = self.build
        if build is None:
            raise PluginError("gloss: on_page_markdown before on_files")
        uri = page.file.src_uri
        markdown = build.pages.get(uri, markdown)
        if uri in build.term_tips:  # a search for a term's name finds its own entry before pages using it
            page.meta.setdefault("search", {}).setdefault("boost", TERM_SEARCH_BOOST)
        if uri not in build.pages and build.view is not None:  # hand-written pages such as the home page
            # Same rules as entries: measurement directives work, hand-typed figures are flagged.
            first_line = _body_line(page.file.abs_src_path, markdown)
            expansion = measured.expand(markdown, path=f"{self.docs_dir}/{uri}", first_line=first_line,
                                        view=build.view, preview=self.preview)
            for problem in [*expansion.problems, *images.external_images(markdown, path=f"{self.docs_dir}/{uri}",
                                                                         first_line=first_line)]:
                log.warning(str(problem))
            markdown, hits = render.unlink_hidden(expansion.markdown, uri, build.hidden)
            for target in hits:
                log.warning(f"{self.docs_dir}/{uri}:0: links to draft '{self.docs_dir}/{target}', which is not "
                            "published; the link is shown as plain text until that entry is signed off")
        return render.add_term_tips(markdown, uri, build.term_tips)

    def on_serve(self, server: Any, /, *, config: MkDocsConfig, builder: Any) -> Any:
        for extra in ("code", "measure/results", "signoff.yaml", self.config.evidence_file):
            path = self.root / extra
            if path.exists():
                server.watch(str(path))
        return server



def _body_line(abs_src_path: str | None, markdown: str) -> int:
    """File line of the first line of ``markdown`` (MkDocs drops the front matter and leading blank lines)."""
    if not abs_src_path:
        return 1
    text = Path(abs_src_path).read_text(encoding="utf-8")
    at = text.find(markdown[:200]) if markdown else -1
    return text[:at].count("\n") + 1 if at >= 0 else 1


def _checked_on(ev: evidence.Evidence) -> Callable[[str], str | None]:
    def checked_on(url: str) -> str | None:
        rec = ev.last_ok(url)
        return rec.checked_on.isoformat() if rec else None

    return checked_on
