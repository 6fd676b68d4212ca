"""The audit reads every channel a browser shows or a crawler reads, and every fragment: a run of three or
more words of an unpublished block, wherever it lies and however it is split or spelled. Each form below is
planted into a site built by gloss and must be named, verbatim."""

from __future__ import annotations

import json
from pathlib import Path

import gatekit
import pytest

from site_plugins import cli
from site_plugins.cli import build as sitebuild
from site_plugins.publishing import audit, pagetext, signedtext

LEAK = signedtext.LEAK_REMEDY
TILING = "content/terms/tiling.md, which is not published"
BANK = "content/terms/bank-conflict.md, which is not published"
CHANGE = "the unsigned change to content/terms/warp.md"
# Each a fragment (not a whole block) of a draft's definition ("Tiling stages a piece of an array in shared
# memory."), of another draft's ("A bank conflict serialises shared-memory accesses.") or of the unsigned
# change to a signed entry ("An unsigned change to the body."), in a form a reader or a crawler still reads.
FRAGMENTS = [
    ("<svg><![CDATA[stages a piece of]]></svg>", "stages a piece of", TILING),  # CDATA
    ("<template>an array in<template>y</template></template>", "an array in", TILING),  # nested template
    ('<p>Tiling<span hidden>qq</span> stages<span style="display: none">qq</span> a</p>', "tiling stages a",
     TILING),  # split by hidden elements
    ("<div>serialises</div><div>shared</div><div>memory</div>", "serialises shared memory", BANK),  # a word a block
    ('<div data-x="piece of an array"></div>', "piece of an array", TILING),  # any attribute
    ("<p>sta\u034fges a pie\ufe0fce</p>", "stages a piece", TILING),  # combining grapheme joiner, variation selector
    ("<style>.h{display:none}</style><p>of<i class=h>zz</i> an<i class=h>zz</i> array</p>", "of an array",
     TILING),  # split by elements the page's own stylesheet hides
    ("<p>An <b>un</b>signed change</p>", "an unsigned change", CHANGE),  # a word split by inline markup
    ('<object data="data:text/html,a%20piece%20of%20an%20array"></object>', "a piece of an array",
     TILING),  # percent-encoded in a URL
]


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = gatekit.changed(tmp_path)
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=False)
    assert ok, why
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = cli.main(["audit", "site"])
    return code, capsys.readouterr().out.splitlines()


def test_every_fragment_form_in_a_page_is_found(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = built / "site/404.html"
    text = page.read_text()
    first = text.count("\n") + 1
    page.write_text(text + "\n<p>zzz</p>".join(f for f, _, _ in FRAGMENTS) + "\n")
    assert run(capsys) == (1, [f"site/404.html:{first + i}: shows '{phrase}', from {source}; {LEAK}"
                               for i, (_, phrase, source) in enumerate(FRAGMENTS)])


def test_every_field_of_the_search_index_and_every_part_of_the_sitemap(
        built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = built / "site/search/search_index.json"
    data = json.loads(index.read_text())
    data["docs"].append({"location": "", "title": "Home", "text": "", "tags": ["pay in two"]})
    data["config"]["separator"] = "tiles pay in"
    index.write_text(json.dumps(data))
    sitemap = built / "site/sitemap.xml"
    xml = sitemap.read_text()
    line = xml[:xml.index("</urlset>")].count("\n") + 1
    sitemap.write_text(xml.replace("</urlset>", "<!-- in two ways --><url><loc>https://gloss.example.org/</loc>"
                                                "<lastmod>stages a piece</lastmod></url></urlset>"))
    assert run(capsys) == (1, [
        f"site/search/search_index.json:1: shows 'tiles pay in', from {TILING}; {LEAK}",
        f"site/search/search_index.json:{len(data['docs'])}: shows 'pay in two', from {TILING}; {LEAK}",
        f"site/sitemap.xml:{line}: shows 'in two ways', from {TILING}; {LEAK}",
        f"site/sitemap.xml:{line}: shows 'stages a piece', from {TILING}; {LEAK}",
        f"site/sitemap.xml:{line}: sitemap lastmod 'stages a piece' is not a date; {audit.REMEDY}",
    ])


def test_every_default_ignorable_code_point_reads_as_nothing() -> None:
    for ch in "\u00ad\u034f\u061c\u115f\u17b4\u180b\u200b\u200d\u2060\u2064\u3164\ufe00\ufe0f\ufeff\uffa0" \
              "\U0001d173\U000e0001\U000e0100":
        assert pagetext.normalise(f"sta{ch}ges") == "stages", f"U+{ord(ch):04X}"


def test_three_words_of_a_paragraph_are_found_but_published_words_are_not(
        built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Three words of the draft's body and of its lede, inside a longer sentence of other words; and the
    # signed entry's own words, and the theme's labels ("On this page"), which a draft may share.
    home = built / "site/index.html"
    text = home.read_text()
    first = text.count("\n") + 1
    home.write_text(text + "<p>Nothing here but tiles pay in the sun.</p>\n"
                           "<p>A signed body. On this page, a group of threads.</p>\n")
    assert run(capsys) == (1, [f"site/index.html:{first}: shows 'tiles pay in', from {TILING}; {LEAK}"])


def test_the_theme_s_own_page_shows_only_the_theme_s_words(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Unsigned words that quote no entry: in the main content of the 404 page (Material marks it), only what
    # the installed theme writes there passes.
    cfg = built / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("name: mkdocs", "name: material"))
    ok, _, why = sitebuild.build_site(cfg, built / "site", strict=False)
    assert ok, why
    page = built / "site/404.html"
    text = page.read_text()
    at = text.index("404 - Not found</h1>") + len("404 - Not found</h1>")
    page.write_text(text[:at] + "<p>Send your password to us</p>" + text[at:])
    line = text[:at].count("\n") + 1
    assert run(capsys) == (1, [f"site/404.html:{line}: shows what the theme's own page does not: 1 block of its main "
                               f"content, the first 'send your password to us'; {signedtext.REMEDY}"])
