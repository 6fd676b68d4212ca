"""Finished HTML blocks bypass Markdown and charts bypass the search indexer; the page is unchanged."""

from __future__ import annotations

import markdown

from site_plugins.publishing import stash

BLOCK = ('<div class="gloss-measured" data-experiment="x"><p>ok</p><table><tr><td>1</td></tr></table>'
         '<svg class="gloss-chart"><title>t</title><rect/></svg></div>')
LEDE = '<p class="gloss-lede">A definition.</p>'
EXTS = ["md_in_html", "attr_list", "pymdownx.superfences"]


def convert(text: str) -> str:
    return markdown.markdown(text, extensions=EXTS)


def test_the_page_is_what_markdown_alone_makes_of_it() -> None:
    text = f"# T\n\n{LEDE}\n\nSome *prose*.\n\n{BLOCK}\n\nMore.\n\n{BLOCK}\n"
    md, st = stash.stash(text)
    assert BLOCK not in md and LEDE not in md and len(st.blocks) == 3 and len(st.late) == 2
    early = stash.restore(convert(md), st, late=False)
    assert "<svg" not in early and "gloss-stash" in early  # the charts wait for the search indexer
    assert stash.restore(early, st, late=True) == convert(text)


def test_blocks_inside_fenced_code_and_unfinished_lines_stay() -> None:
    text = f"```html\n{BLOCK}\n```\n\n~~~~\n```\n{BLOCK}\n~~~~\n\n{BLOCK[:-6]}\n\n<div class=\"other\">x</div>\n"
    md, st = stash.stash(text)
    assert md == text and st.blocks == []


def test_a_block_sharing_a_paragraph_comes_back_in_place() -> None:
    for text in (f"Before\n{LEDE}\nafter.\n", f"{LEDE}\n", f"- item\n\n{BLOCK}\n"):
        md, st = stash.stash(text)
        assert st.blocks
        html = stash.restore(stash.restore(convert(md), st, late=False), st, late=True)
        assert html == convert(text)


def test_nothing_to_restore_leaves_the_html_alone() -> None:
    md, st = stash.stash("plain\n")
    assert md == "plain\n" and stash.restore("<p>plain</p>", st, late=False) == "<p>plain</p>"
    assert stash.restore("<p>plain</p>", st, late=True) == "<p>plain</p>"
