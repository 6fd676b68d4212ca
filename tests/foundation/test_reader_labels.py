"""Reader-facing labels: navigation order and names, A–Z names as written, the preview's A–Z note,
the sitemap. Real tiny builds with mkdocs-material (its navigation is what readers see)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sitekit import build_site, make_site
from tinyproject import TERM_B, project

from site_plugins.nav.order import folder_label
from site_plugins.publishing.render import render_glossary_index

ROOT = Path(__file__).parents[2]


def _nav_labels(page_html: str) -> list[str]:
    nav = page_html[page_html.index("md-nav--primary"):]
    found = re.findall(r'class="md-nav__link[^"]*"[^>]*>\s*(?:<span[^>]*>)?\s*([^<]+?)\s*<', nav)
    return [x for x in found if x.strip()]


def _material_site(tmp_path: Path, files: dict[str, str] | None = None, preview: bool = True) -> Path:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    if preview:
        config = config.replace("  - gloss:\n", "  - gloss:\n      preview: true\n")
    return build_site(make_site(tmp_path / "p", project() | {"mkdocs.yml": config} | (files or {})),
                      strict=False)


def test_nav_lists_lessons_then_terms_then_code_with_day_labels(tmp_path: Path) -> None:
    site = _material_site(tmp_path)
    labels = _nav_labels((site / "lessons/index.html").read_text(encoding="utf-8"))
    assert labels.index("Lessons") < labels.index("Terms") < labels.index("Code")
    assert "Day 1: Introduction" in labels  # the lesson page, and its code folder under Code
    assert labels.count("Day 1: Introduction") == 2
    assert not any(re.match(r"Day\d", x) for x in labels), labels
    # The page order (previous/next) follows the navigation.
    lesson = (site / "lessons/day01-intro/index.html").read_text(encoding="utf-8")
    assert re.search(r'md-footer__link--prev[^>]*href="\.\./"', lesson) or "Lessons" in lesson


@pytest.mark.parametrize(("folder", "label"), [
    ("code/day13-shared-memory", "Day 13: Shared memory"),
    ("code/day07", "Day 7"),
    ("code/extras_misc", "Extras misc"),
])
def test_folder_labels(folder: str, label: str) -> None:
    assert folder_label(folder) == label


def test_a_to_z_names_keep_their_own_capitalisation() -> None:
    from site_plugins.content import parse_entry

    names = ["cuBLAS", "cuDNN", "libcuda.so", "nvidia-smi", "tiling", "Tensor Core"]
    terms = []
    for i, name in enumerate(names):
        text = TERM_B.replace("What is a bank conflict in CUDA?", f"What is {name}?")
        entry, problems = parse_entry("term", f"content/terms/t{i}.md", f"terms/t{i}.md", text)
        assert entry is not None, problems
        terms.append(entry)
    from site_plugins.nav import sections as nav
    from site_plugins.publishing.render import az_order

    named = az_order(terms)
    letters = nav.group([(t.src_uri, name) for t, name in named], 60)
    pages = nav.pages(letters, titles={t.src_uri: name for t, name in named}, ledes={t.src_uri: "" for t in terms},
                      index_uri="terms/index.md")
    listed = re.findall(r"^- \[([^\]]+)\]", "".join(pages.values()), re.M)
    assert listed == ["cuBLAS", "cuDNN", "libcuda.so", "nvidia-smi", "Tensor Core", "tiling"]
    titles = {t.src_uri: name for t, name in named}
    md = render_glossary_index("terms/index.md", [(x.label, x.uri, [(titles[u], u) for u in x.uris])
                                                  for x in letters], 0)
    assert re.findall(r"^- \[(\w)\]\(letters/\w/index.md\), (\d) terms?: (.*)$", md, re.M) == [
        ("C", "2", "[cuBLAS](t0.md), [cuDNN](t1.md)"), ("L", "1", "[libcuda.so](t2.md)"),
        ("N", "1", "[nvidia-smi](t3.md)"), ("T", "2", "[Tensor Core](t5.md), [tiling](t4.md)")]


def test_preview_a_to_z_note_says_the_drafts_are_listed(tmp_path: Path) -> None:
    preview = (_material_site(tmp_path / "a") / "terms/index.html").read_text(encoding="utf-8")
    assert ('<p class="gloss-pending">Preview: 2 terms await sign-off; they are listed on the letter pages with '
            "the published ones and left out of the published site until signed.</p>") in preview
    assert "not shown here yet" not in preview
    published = (_material_site(tmp_path / "b", preview=False) / "terms/index.html").read_text(encoding="utf-8")
    assert '<p class="gloss-pending">2 terms await sign-off and are not shown here yet.</p>' in published


def test_site_url_makes_the_sitemap_list_pages(tmp_path: Path) -> None:
    sitemap = (_material_site(tmp_path) / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>([^<]+)</loc>", sitemap)
    assert any(loc.endswith("/terms/tiling/") for loc in locs), sitemap
    assert all(loc.startswith("http") for loc in locs)
