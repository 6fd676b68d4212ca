"""Tiny real sites built with mkdocs in tmp_path: anatomy, generated indexes, fail-closed messages."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from mkdocs.exceptions import Abort
from sitekit import build_site, make_site
from tinyproject import LESSON, TERM_A, project

from site_plugins.cli import main as gloss

# Every entry here is unsigned, so these anatomy checks run on the preview build (drafts shown).
PREVIEW = "preview: true"


def html(site: Path, uri: str) -> str:
    return (site / uri).read_text(encoding="utf-8")


def sections(page: str) -> list[str]:
    return re.findall(r'<h2\b[^>]*\bid="([^"]+)"', page)


def test_term_page_has_the_full_anatomy_in_order(tmp_path: Path) -> None:
    site = build_site(make_site(tmp_path, project(), plugin_options=PREVIEW))
    page = html(site, "terms/tiling/index.html")
    assert sections(page) == ["details", "diagram", "code", "related-terms", "where-you-meet-this", "sources"]
    lede = page.index('class="gloss-lede">Tiling stages a piece of an array in shared memory.</p>')
    assert page.index("<h1") < lede < page.index("Tiles pay in two ways.")
    assert "<figcaption>Rows go in, a barrier, rows come out.</figcaption>" in page
    assert '<desc id="gloss-tl-desc">Rows go in, a barrier, rows come out.</desc>' in page
    assert ('From <a href="../../code/day01-intro/k.cu/">code/day01-intro/k.cu</a>, region <code>tiled</code>'
            in page)
    assert "threadIdx</span><span class=\"p\">.</span><span class=\"n\">x</span>" in page
    assert '<a href="../bank-conflict/" title="A bank conflict serialises shared-memory accesses.">' in page
    assert '<a href="../../lessons/day01-intro/">Day 1: Introduction</a>: it is introduced there.' in page
    source = '<a href="https://example.org/guide">A guide</a> <span class="gloss-checked">(not yet checked)</span>'
    assert source in page
    assert "Written by: pending. Reviewed by: pending. Sources not yet checked." in page
    assert "This entry stays a draft until a named author and a different named reviewer sign it." in page
    whole = html(site, "code/day01-intro/k.cu/index.html")
    assert "__global__" in whole and (site / "code/day01-intro/raw/k.cu").is_file()


def test_generated_indexes_and_backlinks(tmp_path: Path) -> None:
    site = build_site(make_site(tmp_path, project(), plugin_options=PREVIEW))
    glossary = html(site, "terms/index.html")  # the letters with their counts; each letter's page its terms
    assert '<a href="letters/b/">B</a>, 1 term' in glossary and '<a href="letters/t/">T</a>, 1 term' in glossary
    assert "bank conflict</a>: A bank conflict serialises" in html(site, "terms/letters/b/index.html")
    assert "tiling</a>: Tiling" in html(site, "terms/letters/t/index.html")
    lessons = html(site, "lessons/index.html")
    assert "Day 1: Introduction</a>: The first lesson." in lessons
    # The bank-conflict term does not list the lesson, but the lesson links to it: backlink.
    backlinked = html(site, "terms/bank-conflict/index.html")
    assert '<a href="../../lessons/day01-intro/">Day 1: Introduction</a>: links here (The first lesson.)' in backlinked


def test_no_external_requests_at_page_load(tmp_path: Path) -> None:
    # The project's own mkdocs.yml (material theme, its features and palette) over the tiny content.
    config = (Path(__file__).parents[2] / "mkdocs.yml").read_text(encoding="utf-8")
    config = config.replace("  - gloss:\n", "  - gloss:\n      preview: true\n")
    site = build_site(make_site(tmp_path, project() | {"mkdocs.yml": config}))
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        # A canonical link names the page's address; it is not fetched.
        tags = [t for t in re.findall(r"<(?:script|link|img|iframe)[^>]*>", text) if 'rel="canonical"' not in t]
        external = [t for t in tags if re.search(r'(?:src|href)="(?:https?:)?//', t)]
        assert external == [], (page, external)


BAD = [
    ("unknown related slug", {"content/terms/tiling.md": TERM_A.replace("[bank-conflict]", "[nope]")},
     "content/terms/tiling.md:4: unknown related term 'nope'; use the slug of a file in content/terms/ "
     "or create content/terms/nope.md"),
    ("unknown lesson", {"content/terms/tiling.md": TERM_A.replace("lesson: day01-intro", "lesson: day09-x")},
     "content/terms/tiling.md:6: unknown lesson 'day09-x'; use the slug of a file in content/lessons/, "
     "e.g. day13-shared-memory"),
    ("missing alt text",
     {"content/terms/tiling.md": TERM_A.replace("  alt: Rows go in, a barrier, rows come out.\n", "")},
     "content/terms/tiling.md:12: missing required key 'diagram.alt'; "
     "add 'alt:' (text alternative describing what the diagram shows)"),
    ("code region gone", {"code/day01-intro/k.cu": "// nothing here\n"},
     "content/terms/tiling.md:15: region 'tiled' not found in code/day01-intro/k.cu; "
     "mark it with // --8<-- [start:tiled] and [end:tiled] (regions there: none)"),
    ("duplicate slug", {"content/terms/more/tiling.md": TERM_A},
     "content/terms/more/tiling.md:1: duplicate term slug 'tiling' (also content/terms/tiling.md, which keeps it); "
     "rename one of the files; a slug must be unique across sub-folders"),
    ("unknown key", {"content/terms/tiling.md": TERM_A.replace("sources:", "source:")},
     "content/terms/tiling.md:8: unknown key 'source'; did you mean 'sources'? "
     "allowed keys: title, definition, related, lessons, sources, diagram, code, node"),
    ("term without a definition",
     {"content/terms/bank-conflict.md": "---\ntitle: What is a bank conflict in CUDA?\n---\n\nBanks.\n"},
     "content/terms/bank-conflict.md:2: missing required key 'definition'; "
     "add 'definition:' (one sentence that defines the term)"),
]


@pytest.mark.parametrize(("name", "change", "message"), BAD, ids=[b[0] for b in BAD])
def test_strict_build_fails_with_the_message(tmp_path: Path, expect_warnings: object, name: str,
                                             change: dict[str, str], message: str) -> None:
    expect_warnings.add(message)  # type: ignore[attr-defined]
    root = make_site(tmp_path, project() | change, plugin_options=PREVIEW)
    with pytest.raises(Abort):
        build_site(root)


def test_non_strict_build_keeps_going(tmp_path: Path, expect_warnings: object) -> None:
    message = ("content/terms/tiling.md:4: unknown related term 'nope'; use the slug of a file in "
               "content/terms/ or create content/terms/nope.md")
    expect_warnings.add(message)  # type: ignore[attr-defined]
    root = make_site(tmp_path, project() | {"content/terms/tiling.md": TERM_A.replace("[bank-conflict]", "[nope]")},
                     plugin_options=PREVIEW)
    site = build_site(root, strict=False)
    assert "Tiles pay in two ways." in html(site, "terms/tiling/index.html")


def test_gloss_check_prints_the_same_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_site(tmp_path, project() | {"content/lessons/day01-intro.md": LESSON.replace("[tiling]", "[x]")})
    assert gloss(["check", "--root", str(root)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "content/lessons/day01-intro.md:6: unknown term 'x'; use the slug of a file in content/terms/ "
        "or create content/terms/x.md"]
    assert gloss(["check", "--root", str(tmp_path / "nowhere")]) == 2


def _evidence(root: Path, when: dt.datetime) -> None:
    from site_plugins.links import evidence

    rec = evidence.Record(url="https://example.org/guide", checked_at=when,
                          final_url="https://example.org/guide", status=200)
    evidence.save(root / "links-evidence.json", evidence.Evidence().updated([rec]))


def test_checked_dates_come_from_link_evidence(tmp_path: Path) -> None:
    root = make_site(tmp_path, project(), plugin_options=PREVIEW)
    recent = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(days=3)
    _evidence(root, recent)
    page = html(build_site(root), "terms/tiling/index.html")
    day = recent.date().isoformat()
    assert f'<span class="gloss-checked">(checked {day})</span>' in page
    assert f"Written by: pending. Reviewed by: pending. Last checked on {day}." in page


def test_old_evidence_is_a_warning(tmp_path: Path, expect_warnings: object) -> None:
    root = make_site(tmp_path, project(), plugin_options="preview: true\n      evidence_max_age_days: 30")
    old = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(days=40)
    _evidence(root, old)
    expect_warnings.add(  # type: ignore[attr-defined]
        f"content/terms/tiling.md:9: source https://example.org/guide was last checked on {old.date().isoformat()}, "
        "40 days ago (more than 30); run 'gloss links check' with network access (the scheduled links workflow "
        "does) and commit links-evidence.json")
    with pytest.raises(Abort):
        build_site(root)


def test_published_build_of_unsigned_content_has_only_index_pages(tmp_path: Path) -> None:
    site = build_site(make_site(tmp_path, project()))
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    assert pages == ["404.html", "index.html", "lessons/index.html", "measurements/index.html",
                     "roofline/index.html", "terms/index.html"]
    assert ('<p class="gloss-pending">2 terms await sign-off and are not shown here yet.</p>'
            in html(site, "terms/index.html"))
    assert ('<p class="gloss-pending">1 lesson awaits sign-off and is not shown here yet.</p>'
            in html(site, "lessons/index.html"))


def test_hand_typed_figures_in_ledes_and_hand_written_pages_fail(tmp_path: Path, expect_warnings: object) -> None:
    term = TERM_A.replace("in shared memory.", "in shared memory at 3 TB/s.")
    files = project() | {"content/terms/tiling.md": term,
                         "content/index.md": "---\ntitle: Home\n---\n\n# Home\n\nA copy runs in 2 ms here.\n"}
    root = make_site(tmp_path, files, plugin_options=PREVIEW)
    expect_warnings.add(  # type: ignore[attr-defined]
        "content/index.md:7: hand-typed figure '2 ms'; take it from a result with {{ value EXPERIMENT row=KERNEL "
        'col=COLUMN }} (or {{ ratio ... }}), or quote a cited source with {{ cited "2 ms" source="SOURCE TITLE" }}',
        # (a definition is never expanded: the figure goes to the body, which the remedy says)
        "content/terms/tiling.md:3: hand-typed figure '3 TB/s' in the definition; a definition is shown as written "
        "(tooltips, the A–Z, search), so keep it free of figures: say it in words and give the figure in the body, "
        "from a result with {{ value ... }} or a source with {{ cited ... }}")
    with pytest.raises(Abort):
        build_site(root)
