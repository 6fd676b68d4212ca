"""What a ``mkdocs serve --dirty`` rebuild must redo, so that an edit shows in about a second.

MkDocs' dirty build rebuilds a page only when its source file is newer than its built HTML. That
misses two things here: the plugin's generated pages (the A–Z, letter pages, lesson index,
Measurements, code pages) have no file and would be rebuilt every time, and an entry's page can change
without its file changing (a result file, a code region, ``signoff.yaml``). So, between rebuilds:

- generated pages are written to a folder of ours and rewritten only when their text changed, so
  MkDocs' own date comparison skips the unchanged ones;
- an entry whose rendered Markdown differs from the last build has its built HTML dated back, so MkDocs
  rebuilds it even though its source file did not change;
- the theme's compiled templates are kept (MkDocs makes a new Jinja environment for every build, which
  would compile them all again);
- a page's navigation changes when another page's title does (a renamed term, in its letter's pages
  and its neighbours' previous/next links) or the grouping moves: each page's navigation, as far as it
  shows other pages (:func:`nav_view`), is compared with the previous build's, and a page whose view
  changed is dated back too;
- a page a dirty build does not read has no title in MkDocs (another page's navigation would show
  "None"): it gets its entry's title, or the one it had in the previous build.

Not refreshed by such a rebuild: the measured embeds of a hand-written page such as the home page
(refreshed when that page is saved). Restarting ``make serve`` or ``make site`` (the strict full
build, the source of truth) shows everything.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import jinja2
import jinja2.bccache
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page


class Incremental:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="gloss-serve-"))
        self.previous: dict[str, int] = {}
        self.templates = CompiledTemplates()
        self.titles: dict[str, str] = {}  # docs path -> page title at the end of the previous build
        self.views: dict[str, int] = {}  # docs path -> hash of its navigation view in the previous build
        self.nav: Navigation | None = None

    def generated(self, uri: str, text: str) -> str:
        """The path of a file holding ``text``, rewritten (and so dated now) only when ``text`` changed."""
        path = self.folder / uri
        try:
            if path.read_text(encoding="utf-8") == text:
                return str(path)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return str(path)

    def changed(self, pages: Mapping[str, str]) -> set[str]:
        """Docs paths whose Markdown differs from the previous build's (all of them the first time)."""
        now = {uri: hash(text) for uri, text in pages.items()}  # (not the texts: every page's, kept for the session)
        out = {uri for uri, h in now.items() if self.previous.get(uri) != h}
        self.previous = now
        return out

    def refresh_nav(self, nav: Navigation, titles: Mapping[str, str]) -> list[Page]:
        """Title the pages this build will not read (``titles``: each entry's title by docs path, else the
        previous build's), and return the pages whose navigation view differs from the previous build's."""
        def label(page: Page) -> str:
            uri = page.file.src_uri
            return str(page.title or titles.get(uri) or self.titles.get(uri) or "")

        for page in nav.pages:
            if page.title is None and not page.file.is_modified():
                page.title = label(page) or None
        views = nav_view(nav, label)
        self.nav = nav
        return [p for p in nav.pages if self.views.get(p.file.src_uri) != views[p.file.src_uri]]

    def remember(self) -> None:
        """After a build: every page's title (for the pages the next dirty build will not read) and
        navigation view, as the pages were rendered."""
        if self.nav is not None:
            self.titles.update({p.file.src_uri: str(p.title) for p in self.nav.pages if p.title})
            self.views = nav_view(self.nav, lambda p: self.titles.get(p.file.src_uri, ""))
            self.nav = None

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class CompiledTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates, in memory; a template is looked up by its name and source checksum."""

    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.store.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.store[bucket.key] = bucket.bytecode_to_string()


def template_cache() -> jinja2.BytecodeCache | None:
    """Jinja's own cache of compiled templates on disk, for builds outside ``mkdocs serve``: MkDocs compiles
    the theme's templates afresh in every build (about 0.13 s of a 1 s build at 100 terms; material's
    templates are the same from one build to the next). Jinja keys each template by its name and the
    checksum of its source, and its bytecode by Python's and Jinja's versions, so a changed template or
    interpreter is compiled again; it writes atomically, in a folder of the user's own that it checks
    (``$TMPDIR/_jinja2-cache-UID``). None where Jinja finds no such folder: the build compiles as before."""
    try:
        return _QuietCache()
    except (RuntimeError, OSError):
        return None


class _QuietCache(jinja2.FileSystemBytecodeCache):
    """A cache never fails a build: a folder that cannot be read or written (a full disk, a read-only
    temporary folder) means compiling as if there were no cache."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def date_back(path: str) -> None:
    """Make a built page older than any source so that a dirty build rebuilds it (if it exists)."""
    with contextlib.suppress(FileNotFoundError):
        os.utime(path, (0, 0))


def nav_view(nav: Navigation, label: Callable[[Page], str]) -> dict[str, int]:
    """Per docs path, a hash of what that page's navigation shows of the others: every top-level item
    and, below it, each section's label and first page (what a pruned section links to); the children
    of every section on the page's own path; its previous and next pages. A superset of what
    mkdocs-material renders, so that no change to it goes unnoticed."""
    def first(item: object) -> tuple[str, str]:
        while isinstance(item, Section) and item.children:
            item = item.children[0]
        return (label(item), item.url) if isinstance(item, Page) else ("", "")

    def shown(item: object) -> object:
        if isinstance(item, Page):
            return (label(item), item.url)
        if isinstance(item, Section):
            return (item.title, first(item))
        return repr(item)  # a link

    opened: dict[int, int] = {}  # each section's full view, once: every page below it shares it

    def whole(section: Section) -> int:
        key = id(section)
        if key not in opened:
            opened[key] = hash((section.title, tuple(shown(c) for c in section.children)))
        return opened[key]

    common = hash(tuple(whole(i) if isinstance(i, Section) else shown(i) for i in nav.items))

    def around(page: Page | None) -> tuple[str, str]:
        return (label(page), page.url) if page is not None else ("", "")

    return {p.file.src_uri: hash((common, tuple(whole(a) for a in p.ancestors if isinstance(a, Section)),
                                  around(p.previous_page),
                                  around(p.next_page))) for p in nav.pages}
