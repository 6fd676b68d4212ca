"""``gloss audit SITE_DIR``: a built site is checked against the publish decision alone, whatever built it.

A good build audits clean; then files are planted in it as another engine (or a hand) would leave them
and each is reported, verbatim. Last, when Zensical (which ignores MkDocs plugins) is installed, the
tiny project is built with it and the audit catches every draft it publishes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import gatekit
import pytest
from test_gate import SPELLINGS, what_of

from site_plugins import cli
from site_plugins.cli import build as sitebuild
from site_plugins.publishing import audit, urlkeys

REMEDY = audit.REMEDY
LINK_REMEDY = audit.LINK_REMEDY
DRAFT = "content/terms/tiling.md"


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = gatekit.signed(tmp_path)
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=True)
    assert ok, why
    monkeypatch.chdir(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = cli.main(["audit", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_a_good_build_audits_clean(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "site") == (0, ["gloss audit: site holds only site chrome and published entries"], "")


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "nosite") == (2, [], "gloss audit: no site folder at nosite\n")
    (tmp_path / "site").mkdir()
    assert run(capsys, "site") == (2, [], "gloss audit: no MkDocs config at mkdocs.yml\n")
    assert run(capsys, )[0] == 2


def test_planted_pages_files_and_links_are_found(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = built / "site"
    (site / "terms/tiling").mkdir()
    shutil.copy(site / "terms/warp/index.html", site / "terms/tiling/index.html")  # an unsigned page
    (site / "images/evil.svg").write_text(gatekit.SCRIPT_SVG)  # a script-carrying SVG
    (site / "stray.html").write_text("<p>stray</p>\n")
    (site / "TERMS/WARP").mkdir(parents=True)  # another page on a case-sensitive server
    (site / "TERMS/WARP/index.html").write_text("<p>unsigned</p>\n")
    (site / "search/worker.js").write_text("/* not the theme's */\n")  # a theme file, changed
    os.symlink("../signoff.yaml", site / "signoff.txt")
    os.symlink("/etc/hostname", site / "images/outside.png")
    home = (site / "index.html").read_text()
    first = home.count("\n") + 1
    links = [link if link.startswith("<") and not link.startswith("<https") else f'<a href="{value}">t</a>'
             for link, value in SPELLINGS.items()]
    (site / "index.html").write_text(home + "\n".join(links) + "\n")
    code, out, err = run(capsys, "site")
    assert code == 1 and err == f"gloss audit: {len(out)} findings in site\n"
    expected = [
        f"site/images/evil.svg:1: a file that is neither a theme asset, site chrome nor a published entry's file; "
        f"{REMEDY}",
        f"site/images/outside.png:1: a symbolic link; a published site holds regular files only; {REMEDY}",
        f"site/search/worker.js:1: a file that is neither a theme asset, site chrome nor a published entry's file; "
        f"{REMEDY}",
        f"site/signoff.txt:1: a symbolic link; a published site holds regular files only; {REMEDY}",
        f"site/TERMS/WARP/index.html:1: a page that is neither site chrome nor a published entry; {REMEDY}",
        f"site/stray.html:1: a page that is neither site chrome nor a published entry; {REMEDY}",
        f"site/terms/tiling/index.html:1: a page that is neither site chrome nor a published entry; {REMEDY}",
    ]
    for n, (link, value) in enumerate(SPELLINGS.items()):
        expected.append(f"site/index.html:{first + n}: {what_of(link)} points to '{value}', which is "
                        f"{DRAFT}, not published; {LINK_REMEDY}")
    srcset = next(n for n, link in enumerate(SPELLINGS) if "a.png" in link)  # (a file the site lacks, too)
    expected.append(f"site/index.html:{first + srcset}: <img srcset> points to 'a.png', which the site does not "
                    "have; point the link at a page or file the site has, or remove it")
    copied = (site / "terms/tiling/index.html").read_text().splitlines()
    expected += [f"site/terms/tiling/index.html:{n}: <a href> points to './', which is {DRAFT}, not published; "
                 f"{LINK_REMEDY}" for n, t in enumerate(copied, 1) if 'href="./"' in t]  # it names itself
    assert sorted(out) == sorted(expected)


def test_search_records_and_sitemap_urls_of_drafts_are_found(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = built / "site/search/search_index.json"
    data = json.loads(index.read_text())
    data["docs"].append({"location": "Terms/Tiling/#details", "title": "t", "text": "draft words"})
    data["docs"].append({"location": "terms/warp/", "title": "w", "text": '<a href="../tiling/">t</a>'})
    data["docs"].append({"location": "TERMS/WARP/", "title": "w", "text": "unsigned words"})
    index.write_text(json.dumps(data))
    n = len(data["docs"])
    sitemap = built / "site/sitemap.xml"
    sitemap.write_text(sitemap.read_text().replace(
        "</urlset>", "<url><loc>https://gloss.example.org/terms/tiling/</loc></url></urlset>"))
    (built / "site/sitemap.xml.gz").unlink()
    code, out, _ = run(capsys, "site")
    line = next(i for i, t in enumerate(sitemap.read_text().splitlines(), 1) if "terms/tiling/" in t)
    assert (code, out) == (1, [
        f"site/search/search_index.json:{n - 2}: search record 'Terms/Tiling/#details' is {DRAFT}, not published; "
        f"{REMEDY}",
        f"site/search/search_index.json:{n - 1}: <a href> points to '../tiling/', which is {DRAFT}, not published; "
        f"{LINK_REMEDY}",
        f"site/search/search_index.json:{n}: search record 'TERMS/WARP/' is not a published page; {REMEDY}",
        f"site/sitemap.xml:{line}: sitemap URL 'https://gloss.example.org/terms/tiling/' is {DRAFT}, not published; "
        f"{REMEDY}",
    ])


def test_spellings_name_one_path() -> None:
    k = urlkeys.key("terms/tiling.md")
    pages = {"../terms/TILING/": "x/index.html", "./Tiling.md": "terms/x.html", "tiling/index.html?x#y": "terms/x/",
             "%74iling": "terms/x.html", "..//terms/./tiling/": "x/index.html", " \tti\nling/ ": "terms/x.html",
             "https://gloss.example.org/terms/tiling/": "a/b/c.html", "//GLOSS.EXAMPLE.ORG/terms/tiling": "x.html",
             "/terms/tiling.html": "a/b/index.html", "terms/../terms/%252e/tiling": "index.html"}
    for value, page in pages.items():
        assert urlkeys.target_key(value, page, gatekit.SITE_URL) == k, value
    assert urlkeys.target_key("https://other.example.org/terms/tiling/", "index.html", gatekit.SITE_URL) is None
    assert urlkeys.target_key("mailto:a@b", "index.html", gatekit.SITE_URL) is None
    assert urlkeys.target_key("draft/", "x/index.html", "https://h.example/docs/",
                            base="https://h.example/docs/terms/") == k.replace("tiling", "draft")


ZENSICAL = importlib.util.find_spec("zensical") is not None


@pytest.mark.skipif(not ZENSICAL, reason="Zensical is not installed (pip install zensical) ")
def test_gloss_audit_catches_what_zensical_publishes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # Zensical reads mkdocs.yml but runs no MkDocs plugin: every draft, stray file and planted page is
    # published. The audit, made from the publish decision alone, names each.
    root = gatekit.signed(tmp_path, {"content/stray.html": "<p>stray</p>\n", "content/evil.svg": gatekit.SCRIPT_SVG,
                                     "content/terms/index.md": "# Planted A-Z\n",
                                     "mkdocs.yml": gatekit.CONFIG.replace("name: mkdocs", "name: material")})
    zensical = Path(sys.executable).parent / "zensical"
    done = subprocess.run([str(zensical) if zensical.exists() else "zensical", "build", "-f", "mkdocs.yml"],
                          cwd=root, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    monkeypatch.chdir(root)
    code, out, _ = run(capsys, "site")
    assert code == 1
    for page in ("site/terms/tiling/index.html", "site/terms/bank-conflict/index.html",
                 "site/lessons/day01-intro/index.html"):
        assert f"{page}:1: a page that is neither site chrome nor a published entry; {REMEDY}" in out
    assert f"site/stray.html:1: a page that is neither site chrome nor a published entry; {REMEDY}" in out
    assert (f"site/evil.svg:1: a file that is neither a theme asset, site chrome nor a published entry's file; "
            f"{REMEDY}") in out
    assert any(line.startswith("site/search.json:") and "terms/tiling/" in line for line in out)
    # Its navigation links every page to every draft: each link is a finding too.
    assert (f"site/terms/warp/index.html:{nav_line(root)}: <a href> points to '../tiling/', which is {DRAFT}, "
            f"not published; {LINK_REMEDY}") in out
    # The signed entry, its figure, the home page and Zensical's own theme files are not.
    pages = [line for line in out if "a page that is neither" in line or "a file that is neither" in line]
    assert not any(line.startswith(("site/terms/warp/", "site/assets/", "site/images/", "site/index.html"))
                   for line in pages)


def nav_line(root: Path) -> int:
    html = (root / "site/terms/warp/index.html").read_text().splitlines()
    return next(n for n, t in enumerate(html, 1) if '<a href="../tiling/"' in t)
