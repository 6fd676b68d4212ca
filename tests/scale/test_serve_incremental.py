"""`make serve` (mkdocs serve --dirty) rebuilds what an edit changed, and only that.

The rebuilds run in this process exactly as `mkdocs serve` runs them: one plugin object for the whole
session, a fresh config per rebuild, MkDocs' dirty build into the same site folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from scalekit import make, term_name, term_slug

SERVE_URL = "http://127.0.0.1:8000/"


class Session:
    def __init__(self, root: Path, site: Path) -> None:
        self.root, self.site = root, site
        first = self.config()
        first.plugins.on_startup(command="serve", dirty=True)
        self.plugins = first.plugins
        build(first, serve_url=SERVE_URL, dirty=True)

    def config(self):  # type: ignore[no-untyped-def]
        cfg = load_config(str(self.root / "mkdocs.yml"), site_dir=str(self.site))
        cfg.site_url = SERVE_URL
        return cfg

    def rebuild(self) -> None:
        build(self.config(), serve_url=SERVE_URL, dirty=True)

    def page(self, url: str) -> Path:
        return self.site / url / "index.html"

    def close(self) -> None:
        self.plugins.on_shutdown()


DIRTY = ("A 'dirty' build is being performed, this will likely lead to inaccurate navigation and other links "
         "within your site. This option is designed for site development purposes only.")


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, expect_warnings: Any) -> Session:
    expect_warnings.add(DIRTY, DIRTY)  # MkDocs says so on every dirty build: the first and one rebuild
    monkeypatch.setenv("GLOSS_PREVIEW", "1")
    root = make(tmp_path / "project", 30)
    monkeypatch.chdir(root)
    s = Session(root, tmp_path / "site")
    yield s  # type: ignore[misc]
    s.close()


def stamps(*paths: Path) -> list[int]:
    return [p.stat().st_mtime_ns for p in paths]


def test_an_edit_rebuilds_its_page_and_leaves_the_others(session: Session) -> None:
    edited, other = session.page(f"terms/{term_slug(3)}"), session.page(f"terms/{term_slug(4)}")
    letter = session.page("terms/letters/" + term_name(3)[0])
    az = session.page("terms")
    before = stamps(other, letter, az)
    src = session.root / f"content/terms/{term_slug(3)}.md"
    src.write_text(src.read_text(encoding="utf-8").replace("Body of term 3.", "Body of term 3, edited."),
                   encoding="utf-8")
    session.rebuild()
    assert "Body of term 3, edited." in edited.read_text(encoding="utf-8")
    assert stamps(other, letter, az) == before


def test_a_changed_definition_rebuilds_the_listings_that_show_it(session: Session) -> None:
    letter = session.page("terms/letters/" + term_name(3)[0])
    other, az = session.page(f"terms/{term_slug(4)}"), session.page("terms")
    before = stamps(other, az)
    src = session.root / f"content/terms/{term_slug(3)}.md"
    src.write_text(src.read_text(encoding="utf-8").replace("Term 3 is defined", "Term three is defined"),
                   encoding="utf-8")
    session.rebuild()
    assert "Term three is defined" in letter.read_text(encoding="utf-8")
    assert stamps(other, az) == before  # the A–Z lists letters and counts, not definitions


def test_a_code_change_rebuilds_the_page_that_quotes_it(session: Session) -> None:
    tiling, other = session.page("terms/tiling"), session.page(f"terms/{term_slug(4)}")
    before = stamps(other)
    code = session.root / "code/day01-intro/k.cu"
    code.write_text(code.read_text(encoding="utf-8").replace("1.0f", "2.0f"), encoding="utf-8")
    session.rebuild()
    assert "2.0f" in tiling.read_text(encoding="utf-8")  # its own file did not change
    assert stamps(other) == before


def test_a_changed_title_shows_in_every_page_that_lists_it(session: Session) -> None:
    # Term 3 and its letter's other terms: their navigation lists term 3 by its title; so do the
    # neighbours' previous/next links.
    same_letter = [i for i in range(30) if i != 3 and term_name(i)[0] == term_name(3)[0]]
    far = next(i for i in range(30) if term_name(i)[0] != term_name(3)[0])
    far_before = stamps(session.page(f"terms/{term_slug(far)}"))
    src = session.root / f"content/terms/{term_slug(3)}.md"
    new = f"What is {term_name(3)} renamed?"  # same letter
    src.write_text(src.read_text(encoding="utf-8").replace(f"What is {term_name(3)}?", new),
                   encoding="utf-8")
    session.rebuild()
    for i in [3, *same_letter]:
        html = session.page(f"terms/{term_slug(i)}").read_text(encoding="utf-8")
        assert new in html, term_slug(i)
        assert f"What is {term_name(3)}?" not in html, term_slug(i)
    # Every other page keeps its file, and no page names a neighbour "None" (a page not read again).
    assert stamps(session.page(f"terms/{term_slug(far)}")) == far_before
    for page in session.site.rglob("*.html"):
        assert '<span class="md-ellipsis">None</span>' not in page.read_text(encoding="utf-8"), page


def test_a_rename_to_another_letter_moves_it_in_every_navigation(session: Session) -> None:
    old_letter = [i for i in range(30) if i != 3 and term_name(i)[0] == term_name(3)[0]]
    new_letter = [i for i in range(30) if term_name(i)[0] == "z"]
    assert old_letter and new_letter
    src = session.root / f"content/terms/{term_slug(3)}.md"
    src.write_text(src.read_text(encoding="utf-8").replace(f"What is {term_name(3)}?", "What is zz moved?"),
                   encoding="utf-8")
    session.rebuild()
    for i in old_letter:
        assert "What is zz moved?" not in session.page(f"terms/{term_slug(i)}").read_text(encoding="utf-8")
    for i in new_letter:
        assert "What is zz moved?" in session.page(f"terms/{term_slug(i)}").read_text(encoding="utf-8")
    assert "zz moved" in session.page("terms/letters/z").read_text(encoding="utf-8")


def test_a_build_after_the_serve_session_in_the_same_process_is_audited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                         expect_warnings: Any) -> None:
    # MkDocs keeps a plugin object that defines on_startup for the rest of the process; serve's reuse (which
    # skips the final audit) must end with the session, or a published build after it goes unaudited.
    expect_warnings.add(DIRTY, DIRTY)
    monkeypatch.setenv("GLOSS_PREVIEW", "1")
    root = make(tmp_path / "project", 3)
    monkeypatch.chdir(root)
    s = Session(root, tmp_path / "site")
    plugin = s.plugins["gloss"]
    assert plugin.reuse is not None  # type: ignore[attr-defined]
    s.close()
    again = load_config(str(root / "mkdocs.yml"), site_dir=str(tmp_path / "site2"))
    assert again.plugins["gloss"] is plugin  # (what MkDocs does; the reason for this test)
    assert plugin.reuse is None and plugin.incremental is None  # type: ignore[attr-defined]
