"""What a term's search entries hold: its title, definition, prose and measured tables, and none of the
text that repeats on every page (the preview banner, the byline and pending sign-off note, a run's
provenance).

Built on the build benchmark's synthetic glossary (``bench/build/synthetic.py``: measured tables and
values in prose from real result files), in preview, with the project's own mkdocs.yml.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from sitekit import build_site

from site_plugins.publishing import searchwords
from site_plugins.publishing.render import PENDING_SENTENCE

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench/build"))

import synthetic  # noqa: E402

N = 6


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, str]]:
    root = tmp_path_factory.mktemp("search-content")
    synthetic.write_site(root, N, embeds=True)
    site = build_site(root, strict=False)
    docs: list[dict[str, str]] = json.loads((site / "search/search_index.json").read_text(encoding="utf-8"))["docs"]
    return docs


def test_a_term_is_found_by_its_definition_and_its_measured_table(index: list[dict[str, str]]) -> None:
    for i in range(N):
        slug = f"terms/term-{i:04d}/"
        first = next(d for d in index if d["location"] == slug)
        assert first["title"] == f"What is {synthetic.name(i)}?"
        assert f"The {synthetic.name(i)} of a kernel, defined here in one sentence" in first["text"]
        measured = next(d for d in index if d["location"] == slug + "#measured")
        # The caption: the experiment's title (its spec's words, not its id) and the size.
        assert re.search(r"A synthetic experiment for the build benchmark at (2003\xa0×\xa03001|8192\xa0×\xa08192)",
                         measured["text"])
        assert "<code>copy</code>" in measured["text"] and "GB/s" in measured["text"]  # rows and columns
    # Each figure is a word of its own (cells run together would make "0.02002,4041001").
    banks = next(d["text"] for d in index if d["location"] == "terms/term-0001/#measured")
    assert " 0.0200 2,404 100 " in banks


def test_text_repeated_on_every_page_is_not_indexed(index: list[dict[str, str]]) -> None:
    texts = [d["text"] for d in index]
    assert not [t for t in texts if "Draft: not published until" in t]  # the preview banner
    assert not [t for t in texts if PENDING_SENTENCE in t]
    assert not [t for t in texts if "Written by" in t]  # the byline
    terms = [d["text"] for d in index if d["location"].startswith("terms/term-")]
    assert not [t for t in terms if "on verification node h200-1" in t]  # a run's provenance sentence
    # The Measurements page still says where each run was measured.
    assert [d for d in index if d["location"].startswith("measurements/") and "h200-1" in d["text"]]


def test_only_a_terms_own_record_carries_the_boost(index: list[dict[str, str]]) -> None:
    # Material copies a page's boost onto every section record; only the page's own record ranks it.
    for i in range(N):
        slug = f"terms/term-{i:04d}/"
        records = [d for d in index if d["location"].startswith(slug)]
        assert len(records) > 1
        assert [d["location"] for d in records if "boost" in d] == [slug]
    # Elsewhere only code files' records carry one, a small one: found, never first.
    assert not [d for d in index if "boost" in d and not d["location"].startswith("terms/")
                and not (d["location"].startswith("code/") and d["boost"] == searchwords.CODE_BOOST)
                and not (d["location"].startswith(searchwords.REFERENCE_PAGES)
                         and d["boost"] == searchwords.REFERENCE_BOOST)]


def test_marks_and_lists_of_titles_are_not_search_words(index: list[dict[str, str]]) -> None:
    texts = " ".join(d["text"] for d in index)
    assert "\u26a0" not in texts  # a suspect row's or value's mark (its reason is the mark's title)
    assert "<sup>" not in texts
    home = next(d for d in index if d["location"] == "")
    assert "This preview shows" not in home["text"]  # the preview's word on itself
    measurements = next(d for d in index if d["location"] == "measurements/")
    assert "bench-" in measurements["text"]  # found by experiment...
    assert "What is" not in measurements["text"]  # ...but the pages that embed it are indexed on their own
