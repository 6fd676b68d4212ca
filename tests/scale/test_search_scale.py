"""Search reaches every term of a 1,000-term site by its title and its definition, and holds little else.

Material's search (lunr, in the browser) indexes each entry of ``search/search_index.json`` by its
``title`` and ``text`` fields; so a term is found by its title when an entry of its page carries exactly
that title, and by its definition when the page's first entry's text holds it. The site is built
once, for the whole module, with the project's own mkdocs.yml: about 20 s of CPU time.
"""

from __future__ import annotations

import json

import pytest
from scalekit import make, term_name, term_slug
from sitekit import build_site

N = 1000


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, str]]:
    site = build_site(make(tmp_path_factory.mktemp("search"), N, preview=True))
    docs: list[dict[str, str]] = json.loads((site / "search/search_index.json").read_text(encoding="utf-8"))["docs"]
    return docs


def test_every_term_is_found_by_its_title_and_its_definition(index: list[dict[str, str]]) -> None:
    first = {d["location"]: d for d in index if "#" not in d["location"]}
    missing = []
    for i in range(N):
        doc = first.get(f"terms/{term_slug(i)}/")
        if doc is None or doc["title"] != f"What is {term_name(i)}?" or \
                f"Term {i} is defined by this sentence alone." not in doc["text"]:
            missing.append(term_slug(i))
    assert missing == []


def test_the_index_holds_no_listing_of_terms(index: list[dict[str, str]]) -> None:
    # The A–Z and the letter pages only repeat what each term's own entry holds.
    assert [d["location"] for d in index if d["location"].startswith("terms/letters/")] == []
    assert [d["location"] for d in index if d["location"].startswith("terms/#") or d["location"] == "terms/"] == []
    definition = "Term 7 is defined by this sentence alone."
    assert [d["location"] for d in index if definition in d["text"]] == [f"terms/{term_slug(7)}/"]
