"""Pure rendering functions, table-driven, no build."""

from __future__ import annotations

import re

import pytest

from site_plugins.diagrams.figure import check_diagram, render_diagram
from site_plugins.publishing.publish import Byline, EntryState
from site_plugins.publishing.render import (
    PENDING_SENTENCE,
    add_term_tips,
    code_raw_uri,
    rel,
    render_byline,
    render_code_page,
    unlink_hidden,
)


@pytest.mark.parametrize(("src", "dst", "expected"), [
    ("terms/tiling.md", "terms/bank-conflict.md", "bank-conflict.md"),
    ("terms/tiling.md", "lessons/day13-shared-memory.md", "../lessons/day13-shared-memory.md"),
    ("terms/index.md", "terms/memory/tiling.md", "memory/tiling.md"),
    ("terms/memory/tiling.md", "code/day13/t.cu.md", "../../code/day13/t.cu.md"),
    ("index.md", "terms/index.md", "terms/index.md"),
])
def test_rel(src: str, dst: str, expected: str) -> None:
    assert rel(src, dst) == expected


def test_unlink_hidden_keeps_text_and_reports_targets() -> None:
    md = "See [tiles](tiling.md#why), [banks](bank-conflict.md) and [web](https://x.org/a.md)."
    out, hits = unlink_hidden(md, "terms/shared-memory.md", {"terms/tiling.md": "What is tiling?"})
    assert out == "See tiles, [banks](bank-conflict.md) and [web](https://x.org/a.md)."
    assert hits == ["terms/tiling.md"]


def test_add_term_tips_adds_definitions_as_titles() -> None:
    md = 'A [tile](../terms/tiling.md#x) and a [titled](../terms/tiling.md "kept") one.'
    out = add_term_tips(md, "lessons/day13.md", {"terms/tiling.md": 'Tiling "stages" data.'})
    assert out == ('A [tile](../terms/tiling.md#x "Tiling &quot;stages&quot; data.") and a '
                   '[titled](../terms/tiling.md "kept") one.')


@pytest.mark.parametrize(("state", "last", "expected"), [
    (EntryState("p", "draft", False), None,
     '<p class="gloss-byline" data-search-exclude>'
     'Written by: pending. Reviewed by: pending. Sources not yet checked.</p>\n'
     f'<p class="gloss-byline-note" data-search-exclude>{PENDING_SENTENCE}</p>\n'),
    (EntryState("p", "awaiting-review", False, byline=Byline(author="Ada Author", written_on="2026-01-02")),
     None,
     '<p class="gloss-byline" data-search-exclude>'
     'Written by: Ada Author. Reviewed by: pending. Sources not yet checked.</p>\n'
     f'<p class="gloss-byline-note" data-search-exclude>{PENDING_SENTENCE}</p>\n'),
    (EntryState("p", "signed", True, byline=Byline("Ada Author", "Rex Reviewer", "2026-01-02", "2026-01-05")),
     "2026-03-04",
     '<p class="gloss-byline" data-search-exclude>'
     'Written by Ada Author. Reviewed by Rex Reviewer. Written on 2026-01-02. '
     'Last checked on 2026-03-04.</p>\n'),
])
def test_byline(state: EntryState, last: str | None, expected: str) -> None:
    assert render_byline(state, last, any_sources=True) == "\n---\n\n" + expected


def test_code_page_lists_regions_and_links_the_raw_file() -> None:
    page = render_code_page("code/d/t.cu", "int x;\n", {"b": (5, 9), "a": (1, 3)}, "cuda")
    assert page.splitlines()[:5] == [
        "# code/d/t.cu", "", "The whole file, as measured. [Download t.cu](raw/t.cu).", "",
        "Named regions quoted by the glossary: `a` (lines 1–3), `b` (lines 5–9)."]
    assert code_raw_uri("code/d/t.cu") == "code/d/raw/t.cu"


@pytest.mark.parametrize(("name", "preset", "params", "expected"), [
    ("tile-lifecycle", "default", {}, []),
    ("tile-lifecycle", "padded", {"tile": 16}, []),
    ("tile-cycle", "default", {}, [("unknown diagram 'tile-cycle'", "use one of: tile-lifecycle")]),
    ("tile-lifecycle", "wide", {}, [("unknown preset 'wide' for diagram 'tile-lifecycle'",
                                     "use one of: tile-correct, default, bank-conflict, padded, ragged-edge, "
                                     "guard-encloses-barrier")]),
    ("tile-lifecycle", "default", {"pad": 2}, [("parameter 'pad' is 2, outside 0..1",
                                                "pad: 1 adds the padding column that avoids bank conflicts")]),
    ("tile-lifecycle", "default", {"size": 2}, [("unknown parameter 'size' for diagram 'tile-lifecycle'",
                                                 "use one of: tile, pad, step, block_y, cut_x, cut_y, guard_barrier")]),
    ("tile-lifecycle", "default", {"block_y": 3}, [("parameter 'block_y' is 3, not one of 1, 2, 4, 8, 16, 32",
                                                    "block_y: threads per block in y (blockDim.y, the code's "
                                                    "ROWS_PER_PASS); the block is tile × block_y threads, each "
                                                    "handling tile / block_y rows")]),
    ("tile-lifecycle", "padded", {"tile": 12}, [("parameter 'tile' is 12, not one of 8, 16, 32",
                                                 "tile: tile side in elements, one of 8, 16, 32")]),
])
def test_check_diagram(name: str, preset: str, params: dict[str, int], expected: list[tuple[str, str]]) -> None:
    assert check_diagram(name, preset, params) == expected


def test_diagram_svg_is_accessible_and_follows_the_palette() -> None:
    html = render_diagram("tile-lifecycle", "padded", {"tile": 16}, "Rows in & out.")
    assert html.startswith('<div class="gloss-tl" data-tl="') and html.endswith("</p></div>")
    svg = html[html.index("<svg "):html.index("</svg>") + 6]
    assert 'role="img"' in svg and "<title id=\"gloss-tl-title\">Tile lifecycle, tile[16][17]</title>" in svg
    assert "<desc id=\"gloss-tl-desc\">Rows in &amp; out.</desc>" in svg
    # Colours come from classes styled by the site's CSS (palette variables, bank hues); none inline.
    assert re.findall(r"#[0-9a-fA-F]{6}\b|(?:fill|stroke)=\"(?!currentColor)", svg) == []
    # Without JavaScript the controls stay hidden and the step's sentence is shown.
    assert '<div class="tl-controls" hidden>' in html
    assert '<p class="tl-readout" aria-live="polite">Step 3 of 3, store: ' in html
