"""The generated A–Z page and letter pages carry front matter (``search: exclude: true``) that MkDocs
reads as meta data; it must stay out of the page itself and still keep the page out of search."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sitekit import build_site, make_site
from tinyproject import project

from site_plugins.nav import sections as nav
from site_plugins.publishing import render

PREVIEW = "preview: true"  # unsigned entries: the preview lists them on the A–Z and letter pages


def article_text(page: str) -> str:
    """The visible text of a built page's article (material theme), tags dropped."""
    article = page[page.index("<article") : page.index("</article>")]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", article))


def test_front_matter_is_not_shown_on_the_a_to_z_and_letter_pages(tmp_path: Path) -> None:
    site = build_site(make_site(tmp_path, project(), theme="material", plugin_options=PREVIEW))
    generated = ["terms/index.html", "terms/letters/b/index.html", "terms/letters/t/index.html"]
    texts = {uri: article_text((site / uri).read_text(encoding="utf-8")) for uri in generated}
    assert texts["terms/index.html"].startswith(
        " Glossary The terms A to Z; each letter's page lists its terms with their one-line definitions.")
    assert texts["terms/letters/t/index.html"].startswith(" Terms: T Part of the A–Z glossary")
    assert "tiling : Tiling stages a piece of an array in shared memory." in texts["terms/letters/t/index.html"]
    for uri, text in texts.items():
        assert "search:" not in text and "exclude" not in text, (uri, text)
        assert "<hr" not in (site / uri).read_text(encoding="utf-8").split("<article")[1].split("<h1")[0]
    # ...and the front matter still does its job: search leaves these pages out, the term pages in
    indexed = {d["location"].split("#")[0] for d in json.loads((site / "search/search_index.json").read_text())["docs"]}
    assert {"terms/tiling/", "terms/bank-conflict/"} <= indexed
    assert not indexed & {"terms/", "terms/letters/b/", "terms/letters/t/"}


def test_body_of_drops_exactly_the_front_matter_mkdocs_reads() -> None:
    from mkdocs.utils.meta import get_data

    letter = nav.Letter("T", "terms/letters/t/index.md", (nav.Run("T", ("terms/tiling.md",)),))
    page = nav.letter_page(letter, titles={"terms/tiling.md": "tiling"}, ledes={"terms/tiling.md": "Tiles."},
                           index_uri="terms/index.md")
    assert page.startswith(render.UNSEARCHED)
    body, meta = get_data(page)
    assert meta == {"search": {"exclude": True}}
    assert render.body_of(page) == body and body.startswith("# Terms: T\n")
    assert render.body_of("# No front matter\n\n---\n\nx: y\n---\n") == "# No front matter\n\n---\n\nx: y\n---\n"
