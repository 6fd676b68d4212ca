"""What a `make serve` (mkdocs serve --dirty) rebuild redoes: unit level."""

from __future__ import annotations

import os
from pathlib import Path

import jinja2

from site_plugins.publishing.incremental import CompiledTemplates, Incremental, date_back


def test_generated_pages_are_rewritten_only_when_their_text_changes() -> None:
    inc = Incremental()
    try:
        path = Path(inc.generated("terms/index.md", "# A\n"))
        assert path.read_text(encoding="utf-8") == "# A\n"
        os.utime(path, (1, 1))
        inc.generated("terms/index.md", "# A\n")
        assert path.stat().st_mtime == 1  # unchanged: MkDocs' date comparison skips it
        inc.generated("terms/index.md", "# B\n")
        assert path.read_text(encoding="utf-8") == "# B\n" and path.stat().st_mtime > 1
    finally:
        inc.close()
    assert not inc.folder.exists()


def test_changed_pages_are_those_whose_markdown_differs_from_the_last_build() -> None:
    inc = Incremental()
    try:
        assert inc.changed({"a.md": "1", "b.md": "2"}) == {"a.md", "b.md"}
        assert inc.changed({"a.md": "1", "b.md": "3", "c.md": "4"}) == {"b.md", "c.md"}
        assert inc.changed({"a.md": "1", "b.md": "3", "c.md": "4"}) == set()
    finally:
        inc.close()


def test_date_back_makes_a_built_page_older_and_ignores_a_missing_one(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text("x", encoding="utf-8")
    date_back(str(page))
    assert page.stat().st_mtime == 0
    date_back(str(tmp_path / "missing.html"))


def test_compiled_templates_are_reused_by_a_new_environment() -> None:
    cache = CompiledTemplates()
    loader = jinja2.DictLoader({"t.html": "{{ x }}!"})
    first = jinja2.Environment(loader=loader, bytecode_cache=cache)
    assert first.get_template("t.html").render(x=1) == "1!"
    assert len(cache.store) == 1
    second = jinja2.Environment(loader=loader, bytecode_cache=cache)
    assert second.get_template("t.html").render(x=2) == "2!"
    assert len(cache.store) == 1
