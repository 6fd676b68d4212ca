"""The audit's faster reading of plain tags (site_plugins/publishing/fasttags.py) reads every page exactly as
HTMLParser's own code does: the same handler calls, in the same order, with the same values and lines, and
the same text segments. Compared on whole built sites (mkdocs and Material themes) and on odd markup."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import gatekit
import pytest

from site_plugins.cli import build as sitebuild
from site_plugins.publishing import pagetext


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def start(self, tag: str, attrs: list[tuple[str, str | None]], line: int) -> None:
        self.calls.append(("start", tag, tuple(attrs), line))

    def data(self, data: str, line: int) -> None:
        self.calls.append(("data", data, line))

    def end(self, tag: str) -> None:
        self.calls.append(("end", tag))


class Plain(pagetext._Reader):  # HTMLParser's own reading of every tag
    parse_starttag = HTMLParser.parse_starttag
    parse_endtag = HTMLParser.parse_endtag


def readings(markup: str) -> tuple[object, object]:
    out = []
    for reader in (pagetext._Reader, Plain):
        seen = Recorder()
        r = reader(seen)
        r.feed(markup)
        r.close()
        out.append((seen.calls, r.segments, r.has_main))
    return out[0], out[1]


ODD = [
    '<a href=/x/>t</a><a href="/y/" />u<br/><br /><img src=a.png alt="x &amp; y" data-x>',
    "<p CLASS='Q' title=\"a>b\" aria-label='it&#39;s'>x</p><P>y</P>",
    '<a  href = "spaced">s</a><a href=="two">t</a><a href="x"title="y">glued</a>',
    "<script>var s = '<a href=\"/drafts/\">'; if (a < b) {}</script><style>p{background:url(x.png)}</style>",
    '<div\nclass="multi\nline"\nrole="main">body</div><article class="md-content__inner">text</article>',
    "<!-- <a href=/c/> --><![CDATA[x]]><!doctype html><?pi?><a href='x'\r\n>cr</a>",
    '<svg><use xlink:href="#i"/><image href="//evil.example/i.png"/></svg><input value="&lt;b&gt;" disabled>',
    "<a href=\"x\" onclick='alert(1)' data-é='v'>é</a><td colspan=2>c</td></tr></table>",
    '<a href="unfinished', '</a >', "</ a>", "<a/b>", "<a href='x' / >", "<textarea><b>raw</b></textarea>",
]


@pytest.mark.parametrize("markup", ODD)
def test_odd_markup_is_read_as_htmlparser_reads_it(markup: str) -> None:
    fast, plain = readings(markup)
    assert fast == plain


@pytest.mark.parametrize("theme", ["mkdocs", "material"])
def test_every_page_of_a_built_site_is_read_as_htmlparser_reads_it(tmp_path: Path, theme: str) -> None:
    root = gatekit.changed(tmp_path)
    if theme == "material":
        (root / "mkdocs.yml").write_text((root / "mkdocs.yml").read_text().replace("name: mkdocs", "name: material"))
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=False)
    assert ok, why
    pages = sorted((root / "site").rglob("*.html"))
    assert len(pages) > 5
    for page in pages:
        fast, plain = readings(page.read_text(encoding="utf-8"))
        assert fast == plain, page
