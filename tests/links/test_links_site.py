"""The offline check of a built site (hand-written pages for the edge cases) and HTML scanning."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_plugins.links.htmlscan import AnchorScanner, find_fragment, scan_page
from site_plugins.links.site import Located, check_site


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


NAV = '<nav><a href="{up}terms/tiling/">Tiling</a> <a href="{up}gone/">Gone</a></nav>\n'


def site_files(up: str = "") -> dict[str, str]:
    return {
        "index.html": (
            "<html><head><link rel=\"stylesheet\" href=\"assets/site.css\">"
            "<link rel=\"canonical\" href=\"https://elsewhere.example/\"></head><body>\n"
            + NAV.format(up="")
            + '<a href="terms/tiling/#two-ways">ok anchor</a>\n'
            '<a href="terms/tiling/#no-such">bad anchor</a>\n'
            '<a href="terms/tiling/index.html#legacy">a name</a>\n'
            '<a href="#top">top</a> <a href="#">empty</a> <a href="#here">self</a><h2 id="here">Here</h2>\n'
            '<a href="mailto:someone@example.org">mail</a> <a href="javascript:void(0)">js</a>\n'
            '<a href="https://example.org/guide#part">external</a>\n'
            '<a href="/terms/tiling">root-relative, no slash</a>\n'
            '<img src="assets/missing.png" alt="">\n'
            '<a href="terms/caf%C3%A9/">escaped</a>\n'
            "</body></html>\n"),
        "assets/site.css": "body {}\n",
        "terms/tiling/index.html": (
            "<html><body>\n" + NAV.format(up="../../")
            + '<h2 id="two-ways">Two ways</h2><a name="legacy"></a>\n'
            '<a href="../../">home</a> <a href="../bank-conflict/">sibling</a>\n'
            "</body></html>\n"),
        "terms/café/index.html": "<html><body>café</body></html>\n",
    }


def test_internal_links_and_anchors(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write(site, site_files())
    write(tmp_path, {"content/terms/tiling.md": "x", "content/index.md": (
        "# Home\n\nSee [tiling](terms/tiling.md#no-such) and\n![a figure](assets/missing.png).\n"
        "[The guide](https://example.org/guide#part)\n")})
    result = check_site(site, display="site", root=tmp_path)
    assert result.pages == 3
    got = [str(p) for p in result.problems]
    fix_index = "fix the link in content/index.md (or the template that renders it), then rebuild the site"
    fix_tiling = "fix the link in content/terms/tiling.md (or the template that renders it), then rebuild the site"
    fix = "fix the link, then rebuild the site"
    assert got == [
        # Found in the Markdown: reported at its line there (by its fragment, by the link as written).
        "content/index.md:3: link 'terms/tiling/#no-such' points to #no-such, which is not an id on "
        "site/terms/tiling/index.html (built into site/index.html:4); " + fix,
        "content/index.md:4: link 'assets/missing.png' points to site/assets/missing.png, which does not exist "
        "(built into site/index.html:10); " + fix,
        # Not in the Markdown (the navigation comes from a template): reported at the built page.
        "site/index.html:2: link 'gone/' points to site/gone/index.html, which does not exist; " + fix_index,
        "site/terms/tiling/index.html:2: link '../../gone/' points to site/gone/index.html, which does not exist; "
        + fix_tiling,
        "site/terms/tiling/index.html:4: link '../bank-conflict/' points to site/terms/bank-conflict/index.html, "
        "which does not exist; " + fix_tiling,
    ]
    assert result.external == [("https://example.org/guide#part", Located("content/index.md", 5, True))]


def test_the_same_broken_template_link_is_reported_once(tmp_path: Path) -> None:
    site = tmp_path / "site"
    nav = '<a href="/missing/">x</a>'
    write(site, {f"p{i}/index.html": f"<html><body>{nav}</body></html>" for i in range(4)})
    got = [str(p) for p in check_site(site, display="site").problems]
    assert got == ["site/p0/index.html:1: link '/missing/' points to site/missing/index.html, which does not exist "
                   "(and 3 more links like it); fix the link in the template or plugin that generates this page, "
                   "then rebuild the site"]


def test_site_url_with_a_base_path(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write(site, {
        "index.html": ('<a href="https://user.example.io/gloss/terms/">abs ok</a>\n'
                       '<a href="/gloss/terms/#t">root ok</a>\n'
                       '<a href="/other/">outside</a>\n'
                       '<a href="https://user.example.io/gloss/nope/">abs missing</a>\n'
                       '<a href="https://user.example.io/elsewhere">same host, outside the base path</a>\n'),
        "terms/index.html": '<h2 id="t">T</h2>',
    })
    result = check_site(site, display="site", site_url="https://user.example.io/gloss/")
    assert [p.problem for p in result.problems] == [
        "link '/other/' points outside the site's base path /gloss/",
        "link 'https://user.example.io/gloss/nope/' points to site/nope/index.html, which does not exist",
        "link 'https://user.example.io/elsewhere' points outside the site's base path /gloss/",
    ]
    assert result.external == []
    assert result.internal == 5


def test_base_element_is_honoured(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write(site, {"a/b/index.html": '<base href="/a/"><a href="c/">c</a>', "a/c/index.html": "c"})
    assert check_site(site, display="site").problems == []


def test_scan_page_collects_links_with_lines_and_ids() -> None:
    scan = scan_page('<html>\n<body id="b">\n<a href="x">x</a><a name="n"></a>\n'
                     '<link rel="preconnect" href="https://fonts.example">\n<img src="i.png">\n<script src="s.js">'
                     "</script>\n")
    assert scan.ids == {"b", "n"}
    assert [(link.tag, link.url, link.line) for link in scan.links] == [("a", "x", 3), ("img", "i.png", 5),
                                                                         ("script", "s.js", 6)]


@pytest.mark.parametrize(("html", "fragment", "state"), [
    ('<h2 id="x">x</h2>' + "text " * 200, "x", "found"),
    ('<h2 id="caf\u00e9">x</h2>' + "text " * 200, "caf%C3%A9", "found"),
    ('<h2 id="user-content-usage">x</h2>' + "text " * 200, "usage", "found"),
    ('<h2 id="user-content-usage">x</h2>' + "text " * 200, "Usage", "found"),
    ("<p>" + "text " * 200 + "</p>", "nope", "missing"),
    ("<p>" + "text " * 200 + "</p><script>var s = 'nope';</script>", "nope", "cannot verify"),
    ("<p>" + "text " * 200 + "</p><script>var word = nope_x;</script>", "nope", "missing"),
    ('<div id="root"></div><script src="a.js"></script>', "nope", "cannot verify"),
    ("<p>" + "text " * 200 + "</p>", "", "found"),
    ("<p>" + "text " * 200 + "</p>", "top", "found"),
])
def test_find_fragment(html: str, fragment: str, state: str) -> None:
    scan = AnchorScanner()
    scan.feed(html)
    scan.close()
    assert find_fragment(scan, fragment)[0] == state
