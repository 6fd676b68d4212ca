"""Keep finished HTML blocks away from the parsers that only slow down on them.

A measured embed reaches the page's Markdown as one line of finished HTML (provenance sentence, table,
SVG chart). Python-Markdown's raw-HTML handling (``md_in_html``) parses such a block only to hand it
back unchanged, and the search indexer parses the chart again, whose title, description and labels
repeat the table. At a thousand pages that was about a third of the build's Markdown time.

So the plugin swaps each such line for an HTML comment before Markdown runs (:func:`stash`), puts the
block back into the rendered page (:func:`restore`, ``late=False``) with its ``<svg>`` charts still
swapped for comments, which the search indexer skips, and puts the charts back after indexing
(``late=True``). The page a reader gets is byte for byte what Markdown would have passed through.

The same holds for the other one-line blocks the plugin writes (the lede, the byline). Only whole lines
that open a ``<div>`` or ``<p>`` with a ``gloss-`` class and close it on the same line are moved, never
lines inside fenced code.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field

from site_plugins.publishing.packed import Packed, pack, unpack

BLOCK = re.compile(r'^<(div|p) class="gloss-[a-z-]+"[^\n]*</\1>$')
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass
class Stash:
    key: str = field(default_factory=lambda: secrets.token_hex(4))
    blocks: list[str] = field(default_factory=list)  # restored into the HTML Markdown made
    # restored after search indexing; compressed meanwhile (memory: every page's charts wait at once
    # between MkDocs' reading of all pages and the writing of each; an SVG chart packs to about a quarter)
    late: list[Packed] = field(default_factory=list)
    packing: bool = True

    def mark(self, kind: str, n: int) -> str:
        return f"<!--gloss-stash:{self.key}:{kind}{n}-->"


def stash(markdown: str, packing: bool = True) -> tuple[str, Stash]:
    """``markdown`` with every finished block of ours replaced by a comment, and what was taken (its charts
    packed if ``packing``)."""
    st = Stash(packing=packing)
    if 'class="gloss-' not in markdown:
        return markdown, st
    lines = markdown.split("\n")
    fence: str | None = None
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):].strip():
                fence = None
            continue
        if fence is None and BLOCK.match(line):
            lines[i] = st.mark("b", len(st.blocks))
            st.blocks.append(_cut_charts(line, st))
    return "\n".join(lines), st


def _cut_charts(html: str, st: Stash) -> str:
    def cut(m: re.Match[str]) -> str:
        st.late.append(pack(m.group(0), st.packing))
        return st.mark("s", len(st.late) - 1)

    return SVG.sub(cut, html)


def restore(html: str, st: Stash, *, late: bool) -> str:
    """Put back the blocks (``late=False``) or the charts (``late=True``) taken from this page."""
    kind, items = ("s", [unpack(c) for c in st.late]) if late else ("b", st.blocks)
    if not items:
        return html
    for n, block in enumerate(items):
        mark = st.mark(kind, n)
        wrapped = f"<p>{mark}</p>"  # Markdown may wrap a comment that shared a paragraph
        html = html.replace(wrapped, block) if wrapped in html else html.replace(mark, block)
    return html


def park(html: str, packing: bool = True) -> Packed:
    """A finished page's HTML, packed (if ``packing``) while it waits to be written. MkDocs converts every
    page before it writes the first, so every page's HTML is held at once; packed, about a third of the room."""
    return pack(html, packing)


def unpark(packed: Packed) -> str:
    return unpack(packed)
