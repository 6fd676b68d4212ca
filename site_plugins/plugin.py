"""The MkDocs plugin: thin event adapters over :mod:`site_plugins.publishing.checks` and
:mod:`site_plugins.publishing.pipeline`.

Content problems are warnings on ``mkdocs.plugins.gloss`` (``mkdocs build --strict`` fails on them,
``mkdocs serve`` shows them and keeps serving); structural problems raise ``PluginError``.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import CountHandler

from site_plugins.files.messages import Problem
from site_plugins.links import evidence
from site_plugins.measured.render import with_author_ids
from site_plugins.nav import material as navhtml
from site_plugins.nav import order as navorder
from site_plugins.nav import sections as site_nav
from site_plugins.publishing import (
    audit,
    checks,
    pipeline,
    render,
    searchindex,
    searchwords,
    signedtext,
    sitedir,
    sitelinks,
    staging,
    stash,
    trusted,
)
from site_plugins.publishing.incremental import Incremental, date_back, template_cache
from site_plugins.publishing.packed import Packed

log = logging.getLogger("mkdocs.plugins.gloss")

ASSETS = staging.ASSETS
TEMPLATES = Path(__file__).parent / "templates"  # overrides of material's partials (see navhtml.py)
HOME = render.HOME
TERM_SEARCH_BOOST = 5  # material search boost: a term outranks the code page whose file name repeats its words


class GlossConfig(base.Config):
    preview = c.Type(bool, default=False)
    """Show drafts (with a banner) instead of leaving them out; GLOSS_PREVIEW=1 also turns it on."""
    evidence_file = c.Type(str, default="links-evidence.json")
    """The link evidence file, relative to mkdocs.yml."""
    evidence_max_age_days = c.Type(int, default=365)
    """Evidence older than this is reported as a warning."""
    chrome = c.ListOfItems(c.Type(str), default=["index.md"])
    """Hand-written site chrome published without sign-off (docs paths, e.g. the home page). Every other
    page must be a term or a lesson: an unlisted page is left out and fails a strict build."""
    nav_max_terms = c.Type(int, default=60)
    """The most terms one navigation section lists; a larger letter of the A–Z is cut into runs."""
    default_node = c.Optional(c.Type(str))
    """The verification node whose figures prose quotes (``{{ value }}``, ``{{ ratio }}``, ...) where an
    entry's front matter names no ``node:``; tables show every node. Unset: the experiment's one node."""
    template_cache = c.Type(bool, default=True)
    """Keep the theme's compiled templates between builds (Jinja's bytecode cache); GLOSS_TEMPLATE_CACHE=0
    also turns it off."""


class GlossPlugin(BasePlugin[GlossConfig]):
    def __init__(self) -> None:
        self.build: pipeline.Build | None = None
        self.checked: checks.Checked | None = None
        self.root = Path.cwd()
        self.docs_dir = "content"
        self.config_file = "mkdocs.yml"  # relative to the root, as problems about its options name it
        self.draft_links: list[Problem] = []
        self.stashes: dict[str, stash.Stash] = {}  # page src_uri -> finished HTML kept away from Markdown
        self.parked: dict[str, Packed] = {}  # page src_uri -> its HTML, packed until the page is written
        self.incremental: Incremental | None = None  # set under `mkdocs serve --dirty`
        self.focus = site_nav.Focus([])
        self.reuse: pipeline.Reuse | None = None  # set under `mkdocs serve`: work kept between rebuilds
        self.stage_dir: Path | None = None  # the staging tree MkDocs reads instead of the docs folder
        self.docs_path = ""  # the real docs folder, given back to the config after the build
        self.manifest: audit.Manifest | None = None
        self.markers: dict[str, str] = {}  # src_uri of a published entry -> its <meta name="gloss-entry">
        self.command = "build"  # as MkDocs starts it (on_startup): build, serve or gh-deploy
        # Set by `gloss build`, which decides preview from its own flag alone and swaps and audits the folder
        # itself; None under a plain `mkdocs build`, where the plugin does both.
        self.forced_preview: bool | None = None
        self.outer_swap = False
        self.shared: pipeline.Reuse | None = None  # gloss build's: the results judged once for build and audit
        self.target: Path | None = None  # the folder a plain `mkdocs build` swaps the finished site into
        self.fresh: Path | None = None  # the folder it builds into meanwhile
        self.warnings: CountHandler | None = None  # warnings of a strict build (MkDocs aborts after post_build)

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # (Defining this event also keeps the plugin object across the rebuilds of one `mkdocs serve`.)
        self.command = command
        self.reuse = pipeline.Reuse() if command == "serve" else None
        self.incremental = Incremental() if command == "serve" and dirty else None

    def on_shutdown(self) -> None:
        if self.incremental is not None:
            self.incremental.close()
        self._drop_stage()
        # MkDocs keeps this object for the rest of the process (it defines on_startup): a build that follows
        # the serve session in the same process must not inherit serve's reuse, which skips the audit.
        self.reuse, self.incremental, self.command = None, None, "build"

    @property
    def preview(self) -> bool:
        if self.forced_preview is not None:
            return self.forced_preview
        return bool(self.config.preview) or os.environ.get("GLOSS_PREVIEW", "") not in ("", "0")

    @property
    def options(self) -> checks.Options:
        return checks.Options(docs_dir=self.docs_dir, preview=self.preview, evidence_file=self.config.evidence_file,
                              evidence_max_age_days=self.config.evidence_max_age_days,
                              chrome=tuple(self.config.chrome), nav_max_terms=self.config.nav_max_terms,
                              default_node=self.config.default_node, config_file=self.config_file)

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.stashes, self.parked = {}, {}
        self.root = Path(config.config_file_path or ".").resolve().parent
        self.config_file = Path(config.config_file_path or "mkdocs.yml").name
        docs = Path(config.docs_dir).resolve()
        try:
            self.docs_dir = docs.relative_to(self.root).as_posix()
        except ValueError as exc:
            raise PluginError(f"gloss: docs_dir {docs} must lie inside the project at {self.root}") from exc
        self._guard(config)
        # Links to missing pages are reported by our own check, with their line, in drafts too (and by
        # `gloss check`); MkDocs' own line-less report of the same links is kept for the verbose log.
        config.validation.links.not_found = logging.INFO
        # Every stylesheet of ours (the anatomy's, the measurement tables' and charts') is served
        # from the site itself: no external requests.
        for css in sorted(ASSETS.rglob("*.css")):
            config.extra_css.append(f"assets/gloss/{css.relative_to(ASSETS).as_posix()}")
        for js in sorted(ASSETS.rglob("*.js")):  # small, dependency-free page scripts (the diagram's)
            config.extra_javascript.append(f"assets/gloss/{js.relative_to(ASSETS).as_posix()}")
        # Our partials come before the theme's own, after a custom_dir of the site's, which still wins.
        if str(TEMPLATES) not in config.theme.dirs:
            config.theme.dirs.insert(1 if config.theme.custom_dir else 0, str(TEMPLATES))
        return config

    def _guard(self, config: MkDocsConfig) -> None:
        """A published build trusts only what mkdocs.yml's allowlist lets through (trusted.py); a preview
        never writes into the published folder; and outside `mkdocs serve` the site is built beside its
        folder and swapped in only once the audit passed (on_post_build)."""
        if self.reuse is not None:
            return  # mkdocs serve: a preview served from a temporary folder of its own
        config_file = Path(config.config_file_path or "mkdocs.yml")
        if not self.preview:
            refused = trusted.problems(config_file, tuple(self.config.chrome))
            if refused:
                raise PluginError("gloss: mkdocs.yml holds what a published build does not trust:\n"
                                  + "\n".join(f"  {p}" for p in refused))
        if self.outer_swap:
            return
        self.target = Path(config.site_dir).resolve()
        if self.preview and (why := sitedir.preview_refusal(self.target, config_file)) is not None:
            raise PluginError(f"gloss: {why}")
        if self.preview and self.command == "gh-deploy":
            raise PluginError(f"gloss: {sitedir.DEPLOY_PREVIEW}")
        self.fresh = sitedir.fresh_beside(self.target)
        config.site_dir = str(self.fresh)
        if config.strict:
            self.warnings = CountHandler()
            self.warnings.setLevel(logging.WARNING)
            logging.getLogger("mkdocs").addHandler(self.warnings)

    def on_pre_build(self, /, *, config: MkDocsConfig) -> None:
        # Decide everything before MkDocs looks at a file, then point it at the staging tree: it never
        # walks the docs folder (whose links it would follow) and sees only what may be published.
        try:
            self.checked = checked = checks.run(self.root, self.options, reuse=self.reuse or self.shared)
        except evidence.EvidenceError as exc:
            raise PluginError(str(exc)) from exc
        self.build = checked.build
        self.draft_links = list(checked.draft_links)
        for problem in checked.problems:  # exactly what `gloss check` prints
            log.warning(str(problem))
        if self.stage_dir is None:
            self.stage_dir = Path(tempfile.mkdtemp(prefix="gloss-staging-"))
        staging.write(checked.staged, self.stage_dir)
        self.docs_path = config.docs_dir
        config.docs_dir = str(self.stage_dir)

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        build, checked = self.build, self.checked
        if build is None or checked is None or self.stage_dir is None:
            raise PluginError("gloss: on_files before on_pre_build")
        # A positive list: staged files and the theme's own; ours are added below.
        keep = {os.path.normpath(d) for d in (str(self.stage_dir), *config.theme.dirs)}
        for listed in list(files):
            if listed.src_dir is None or os.path.normpath(listed.src_dir) not in keep:
                files.remove(listed)
        # What each page must show is rendered here, before the pages' Markdown is handed over, and only
        # when the audit will run (preview and serve show drafts on purpose).
        audited = not self.preview and self.reuse is None and not self.outer_swap  # (gloss build audits itself)
        expected = signedtext.expect(
            build, checked.handwritten, self.config.chrome, self.docs_dir, signedtext.renderer(config),
            staging.page_reader(self.root, self.docs_dir),
            signedtext.theme_words(staging.theme_folders(config.theme.dirs, config.theme.custom_dir)),
        ) if audited else None
        self.manifest = staging.manifest(checked.staged, build, self.docs_dir, site_url=config.site_url or "",
                                         asset_dirs=staging.asset_dirs(config.theme.dirs, config.theme.custom_dir),
                                         text=expected)
        self.markers = {e.src_uri: signedtext.marker(e.path, fp) for e in build.published.entries()
                        if (fp := build.states[e.path].signed_fingerprint) and build.states[e.path].published}
        inc = self.incremental
        # The home page's notice counts the entries awaiting sign-off; under `serve --dirty` a new
        # signature changes it although index.md did not change, so the home page is rebuilt then.
        notice = {HOME: render.home_notice(render.tally(build.states), preview=self.preview)}
        changed = inc.changed({**build.pages, **build.code_files, **notice}) if inc else set()
        home = files.get_file_from_path(HOME)
        if HOME in changed and home is not None and HOME not in build.pages:
            date_back(home.abs_dest_path)
        for uri, markdown in build.pages.items():
            f = files.get_file_from_path(uri)
            if f is None:
                files.append(File.generated(config, uri, content=markdown) if inc is None
                             else File.generated(config, uri, abs_src_path=inc.generated(uri, markdown)))
            elif inc is not None and uri in changed:
                date_back(f.abs_dest_path)
        for file, text in build.code_files.items():
            raw = render.code_raw_uri(file)
            if files.get_file_from_path(raw) is None:
                files.append(File.generated(config, raw, content=text) if inc is None
                             else File.generated(config, raw, abs_src_path=inc.generated(raw, text)))
        for asset in sorted(ASSETS.rglob("*")):
            if asset.is_file():
                uri = f"assets/gloss/{asset.relative_to(ASSETS).as_posix()}"
                if files.get_file_from_path(uri) is None:
                    files.append(File.generated(config, uri, abs_src_path=str(asset)))
        return files

    def on_nav(self, nav: Navigation, /, *, config: MkDocsConfig, files: Files) -> Navigation:
        if self.build is None:
            raise PluginError("gloss: on_nav before on_files")
        arranged = navorder.arrange(nav, navorder.labels(self.build.published, self.build.hidden))
        regrouped, self.focus = site_nav.regroup(arranged, pipeline.GLOSSARY_INDEX, self.build.letters)
        if self.incremental is not None:  # a rename shows in the navigation of every page that lists it
            titles = {e.src_uri: e.title for e in self.build.published.entries() if e.src_uri not in self.build.hidden}
            for page in self.incremental.refresh_nav(regrouped, titles):
                date_back(page.file.abs_dest_path)
        return regrouped

    def on_page_read_source(self, /, *, page: Page, config: MkDocsConfig) -> str | None:
        # An entry whose published version is the signed one, not the working copy: MkDocs reads that
        # version, so the page title, <title>, navigation label and search title are the signed ones.
        return self.build.sources.get(page.file.src_uri) if self.build is not None else None

    def on_env(self, env: Any, /, *, config: MkDocsConfig, files: Files) -> Any:
        env.globals["gloss_nav_items"] = navhtml.render_items
        self.focus.show(None)  # the 404 page comes next: every letter as one link, without walking its terms
        if self.incremental is not None:
            env.bytecode_cache = self.incremental.templates
        elif self.config.template_cache and os.environ.get("GLOSS_TEMPLATE_CACHE", "") != "0":
            env.bytecode_cache = template_cache()
        return env

    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        build = self.build
        if build is None:
            raise PluginError("gloss: on_page_markdown before on_files")
        uri = page.file.src_uri
        # Each page's Markdown is handed over once and not held for the rest of the build (memory).
        ours = build.pages.pop(uri, None)
        if uri in build.term_tips:  # a search for a term's name finds its own entry before pages using it
            page.meta.setdefault("search", {}).setdefault("boost", TERM_SEARCH_BOOST)
        if ours is not None:  # a generated page's front matter is already page.meta (search: exclude)
            markdown = render.body_of(ours)
            if page.file.abs_src_path is None:  # (memory) held in memory, and read by now: not kept to the end
                page.file.content_string = ""
        elif self.checked is not None:  # hand-written pages: checked in on_files
            markdown = self.checked.handwritten.get(uri, markdown)
        # (The home page's notice and the tooltips, as the audit's own rendering adds them: signedtext.)
        markdown = render.handed(uri, markdown, build.states, build.term_tips, preview=self.preview)
        markdown, self.stashes[uri] = stash.stash(markdown, build.packing)
        return markdown

    @event_priority(100)  # before the search plugin reads the page
    def _unpark(self, context: Any, /, *, page: Page, config: MkDocsConfig, nav: Navigation) -> Any:
        packed = self.parked.pop(page.file.src_uri, None)
        if packed is not None:
            page.content = stash.unpark(packed)
        return context

    def _after_search(self, context: Any, /, *, page: Page, config: MkDocsConfig, nav: Navigation) -> Any:
        # After the search plugin (listed first) has indexed the page: the charts repeat the tables.
        self.focus.show(page)  # the template then walks only this page's own letter
        build = self.build
        if build is not None and page.file.src_uri in build.term_tips:
            searchindex.boost_title_only(_search_entries(config), page.url)
        st = self.stashes.pop(page.file.src_uri, None)
        if st and page.content is not None:
            page.content = stash.restore(page.content, st, late=True)
        return context

    on_page_context = CombinedEvent(_unpark, _after_search)

    def on_page_content(self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        # Links in raw HTML (and any other link form) to a draft, a file that is no entry or an unlisted
        # page are unlinked like Markdown links.
        build = self.build
        if build is None:
            raise PluginError("gloss: on_page_content before on_files")
        st = self.stashes.get(page.file.src_uri)
        if st:
            html = stash.restore(html, st, late=False)
            st.blocks.clear()  # now in the page; only the charts wait (for the search indexer to pass)
        if self.preview:  # authors get the experiments' ids; readers get their titles
            html = with_author_ids(html)
        gone = [*build.hidden, *build.content.unloaded, *build.unlisted]
        html, hits = render.unlink_hidden_html(html, page.file.src_uri, page.url, render.hidden_targets(gone))
        self._drafts_linked(page, [h for h in hits if h in build.hidden])
        # (Memory) packed until the page is written (see stash.park); its anchors and title are known by now.
        self.parked[page.file.src_uri] = stash.park(html, build.packing)
        # MkDocs keeps every page's Markdown to the end of the build, though nothing reads it once converted
        # ("", not None: MkDocs takes a page whose Markdown is None for one not read yet, without a title).
        page.markdown = ""
        return ""

    def _drafts_linked(self, page: Page, targets: list[str]) -> None:
        text = Path(page.file.abs_src_path).read_text(encoding="utf-8") if page.file.abs_src_path else ""
        for target in targets:
            line = _line_mentioning(text, PurePosixPath(target).stem)
            self.draft_links.append(pipeline.draft_link(f"{self.docs_dir}/{page.file.src_uri}", line,
                                                        f"{self.docs_dir}/{target}"))

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        # (Memory) the page is rendered: MkDocs would keep its HTML to the end of the build, every page's
        # at once. Its anchors, title and table of contents stay (links are checked against them later).
        page.content = None
        # Each published entry's page says which signed version it is (the audit requires it).
        mark = self.markers.get(page.file.src_uri)
        return output.replace("</head>", f"{mark}\n</head>", 1) if mark and not self.preview else output

    @event_priority(50)  # before the search plugin writes its index
    def _search_words(self, /, *, config: MkDocsConfig) -> None:
        searchwords.add_words(_search_entries(config))

    @event_priority(-100)  # last: after the search plugin has written its index, so the audit sees it
    def _finish(self, /, *, config: MkDocsConfig) -> None:
        # The build summary: signed pages that link to drafts are published with those links as plain
        # text; that never fails the build (a few drafts must not hold their signed neighbours hostage).
        self.focus.restore()
        if self.incremental is not None:
            self.incremental.remember()
        config.docs_dir = self.docs_path or config.docs_dir  # what `mkdocs serve` then watches
        if self.reuse is None:
            self._drop_stage()
        # The last word, whatever rendered the pages: the built site holds only what may be published.
        # (Skipped in preview and serve, which show drafts on purpose.)
        findings = [] if self.preview or self.reuse is not None or self.outer_swap or self.manifest is None \
            else audit.audit(Path(config.site_dir), self.manifest, label=_shown(Path(config.site_dir), self.root))
        # A dead link or a request to another site is a content problem like any other (a warning: a strict
        # build fails on it, --no-strict publishes with it); everything else is the gate's, and stops the build.
        # Once the checks found problems (the build fails on those), what follows from them in the built pages
        # (links to a refused page) is not said twice: the build then says what gloss check says.
        if self.checked is not None and not self.checked.problems:
            for p in (f for f in findings if sitelinks.content_finding(f)):
                log.warning(str(p))
        findings = [f for f in findings if not sitelinks.content_finding(f)]
        if findings:
            self._drop_fresh()
            raise PluginError("gloss audit: the built site holds what is not published:\n"
                              + "\n".join(f"  {p}" for p in findings))
        self._swap_in(config)
        links = sorted(set(self.draft_links))
        if links:
            log.info(f"gloss: {len(links)} link{'s' if len(links) > 1 else ''} to unpublished entries shown as "
                     "plain text:\n" + "\n".join(f"  {p}" for p in links))

    on_post_build = CombinedEvent(_search_words, _finish)

    def on_build_error(self, /, *, error: Exception) -> None:
        if self.reuse is None:
            self._drop_stage()
        self._drop_fresh()

    def _swap_in(self, config: MkDocsConfig) -> None:
        # A strict build with warnings is aborted by MkDocs after this event: it never replaces the site.
        warned = self.warnings is not None and bool(self.warnings.get_counts())
        if self.fresh is not None and self.target is not None and not warned:
            sitedir.swap(self.fresh, self.target)
            config.site_dir = str(self.target)  # (what `mkdocs gh-deploy` then pushes)
            self.fresh = None
        self._drop_fresh()

    def _drop_fresh(self) -> None:
        if self.warnings is not None:
            logging.getLogger("mkdocs").removeHandler(self.warnings)
            self.warnings = None
        if self.fresh is not None:
            shutil.rmtree(self.fresh, ignore_errors=True)
            self.fresh = None

    def _drop_stage(self) -> None:
        if self.stage_dir is not None:
            shutil.rmtree(self.stage_dir, ignore_errors=True)
            self.stage_dir = None

    def on_serve(self, server: Any, /, *, config: MkDocsConfig, builder: Any) -> Any:
        for extra in ("code", "measure/results", "signoff.yaml", self.config.evidence_file):
            path = self.root / extra
            if path.exists():
                server.watch(str(path))
        return server



def _shown(site: Path, root: Path) -> str:
    """The site folder as findings name it: repo-relative when it lies in the project, and by the name it
    will have when it is gloss build's temporary folder (``.site.building-xyz`` is ``site``)."""
    m = re.fullmatch(r"\.(?P<name>.+)\.building-[^/]*", site.name)
    site = site.resolve().with_name(m["name"]) if m else site.resolve()
    try:
        return site.relative_to(root).as_posix()
    except ValueError:
        return site.as_posix()


def _search_entries(config: MkDocsConfig) -> list[dict[str, Any]]:
    """Material's search index records so far ([] without material's search plugin)."""
    index = getattr(config.plugins.get("material/search"), "search_index", None)
    entries = getattr(index, "entries", None)
    return entries if isinstance(entries, list) else []


def _line_mentioning(text: str, needle: str) -> int:
    return next((n for n, line in enumerate(text.splitlines(), start=1) if needle in line), 0)

