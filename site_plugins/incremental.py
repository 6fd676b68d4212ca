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
  would compile them all again).

Not refreshed by such a rebuild: other pages' navigation (a new term appears in its letter's page at
once, in its neighbours' side navigation at the next full build) and the measured embeds of a
hand-written page such as the home page (refreshed when that page is saved). Restarting ``make serve``
or ``make site`` (the strict full build, the source of truth) shows everything.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

import jinja2
import jinja2.bccache


class Incremental:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="gloss-serve-"))
        self.previous: dict[str, str] = {}
        self.templates = CompiledTemplates()

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
        out = {uri for uri, text in pages.items() if self.previous.get(uri) != text}
        self.previous = dict(pages)
        return out

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


def date_back(path: str) -> None:
    """Make a built page older than any source so that a dirty build rebuilds it (if it exists)."""
    with contextlib.suppress(FileNotFoundError):
        os.utime(path, (0, 0))
