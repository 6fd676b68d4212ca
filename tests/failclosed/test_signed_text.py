"""``gloss audit`` checks what pages say, not only which files exist: a page at a published address must
carry the marker of the signed version and show every block of text the build renders for it, and no page
or search record may show a phrase of a draft or of an unsigned change. Hostile sites are made two ways:
by planting HTML into a site built by gloss, and by building with Zensical (which runs no MkDocs plugin).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import gatekit
import pytest

from site_plugins import cli
from site_plugins.cli import build as sitebuild
from site_plugins.publishing import audit, pagetext, signedtext

REMEDY = signedtext.REMEDY
LEAK = signedtext.LEAK_REMEDY
TILING = "content/terms/tiling.md, which is not published"
CHANGE = "the unsigned change to content/terms/warp.md"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = cli.main(["audit", *args])
    out, _ = capsys.readouterr()
    return code, out.splitlines()


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = gatekit.changed(tmp_path)
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=False)
    assert ok, why
    monkeypatch.chdir(root)
    return root


def fingerprint(root: Path) -> str:
    (line,) = signedtext.markers((root / "site/terms/warp/index.html").read_text())
    return line[1].split()[1]


def test_the_signed_version_is_built_marked_and_audits_clean(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = (built / "site/terms/warp/index.html").read_text()
    assert "A signed body." in page and "unsigned change" not in page
    assert signedtext.markers(page)[0][1].startswith("content/terms/warp.md sha256:")
    assert "exclude" not in (built / "site/terms/index.html").read_text()  # its front matter is no text
    assert run(capsys, "site") == (0, ["gloss audit: site holds only site chrome and published entries"])


def test_the_unsigned_working_copy_at_a_published_address(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = built / "site/terms/warp/index.html"
    text = page.read_text().replace("A signed body.", "An unsigned change to the body.")
    page.write_text(text)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "unsigned change" in t)
    assert run(capsys, "site") == (1, [
        f"site/terms/warp/index.html:1: does not show the signed version of content/terms/warp.md: 1 of 4 blocks "
        f"of its text are missing, the first 'a signed body'; {REMEDY}",
        f"site/terms/warp/index.html:{line}: shows 'an unsigned change to the body', from {CHANGE}; {LEAK}",
        f"site/terms/warp/index.html:{line}: shows what is not in the signed version of content/terms/warp.md: 1 block "
        f"of its main content, the first 'an unsigned change to the body'; {REMEDY}",
    ])


def test_a_block_added_to_a_signed_page_or_to_the_a_to_z(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = built / "site/terms/warp/index.html"
    text = page.read_text().replace("<p>A signed body.", "<p>Buy our course today.</p>\n<p>A signed body.")
    page.write_text(text)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "Buy our course" in t)
    az = built / "site/terms/index.html"
    before, main = az.read_text().split('role="main"')
    listing = before + 'role="main"' + main.replace("</ul>", "<li>Introduction</li>\n</ul>", 1)
    az.write_text(listing)
    at = next(n for n, t in enumerate(listing.splitlines(), 1) if "<li>Introduction" in t)
    assert run(capsys, "site") == (1, [
        f"site/terms/index.html:{at}: shows 'introduction', the title of content/lessons/day01-intro.md, which is "
        f"not published; {LEAK}",
        f"site/terms/index.html:{at}: shows what is not in the page the build generates for content/terms/index.md: "
        f"1 block of its main content, the first 'introduction'; {REMEDY}",
        f"site/terms/warp/index.html:{line}: shows what is not in the signed version of content/terms/warp.md: 1 block "
        f"of its main content, the first 'buy our course today'; {REMEDY}",
    ])


def test_the_marker_must_name_the_signed_version(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = built / "site/terms/warp/index.html"
    fp = fingerprint(built)
    marked = page.read_text()
    line = next(n for n, t in enumerate(marked.splitlines(), 1) if signedtext.MARKER in t)
    page.write_text(marked.replace(fp, "sha256:" + "0" * 64))
    assert run(capsys, "site") == (1, [
        f"site/terms/warp/index.html:{line}: the gloss-entry marker says 'content/terms/warp.md sha256:{'0' * 64}', "
        f"but the published version of content/terms/warp.md is {fp}; {REMEDY}"])
    page.write_text(marked.replace(signedtext.marker("content/terms/warp.md", fp), ""))
    assert run(capsys, "site") == (1, [
        f"site/terms/warp/index.html:1: no gloss-entry marker: the page does not claim to be the signed version of "
        f"content/terms/warp.md ({fp}); {REMEDY}"])


def test_a_planted_a_to_z_and_changed_chrome(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = built / "site"
    (site / "terms/index.html").write_text(
        "<html><head><title>Glossary</title></head><body>\n<h1>Glossary</h1>\n<ul>\n"
        "<li>What is tiling in CUDA? Tiling stages a piece of an array in shared memory.</li>\n"
        '<li><a href="warp/" title="A warp is a group of threads that run in step.">Warp</a></li>\n</ul>\n'
        "</body></html>\n")
    home = site / "index.html"
    text = home.read_text().replace("See the", "Do not see the")
    home.write_text(text)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "Do not see" in t)
    code, out = run(capsys, "site")
    assert (code, out) == (1, [
        f"site/index.html:1: does not show content/index.md as it is: 1 of 4 blocks of its text are missing, the first "
        f"'see the glossary'; {REMEDY}",
        f"site/index.html:{line}: shows what is not in content/index.md as it is: 1 block of its main content, the "
        f"first 'do not see the glossary'; {REMEDY}",
        f"site/terms/index.html:1: does not show the page the build generates for content/terms/index.md: 3 of 4 "
        "blocks of its text are missing, the first "
        f"'the terms a to z each letter s page lists its terms with th\u2026'; {REMEDY}",
        f"site/terms/index.html:1: {signedtext.NO_MAIN}, so what it adds to the page the build generates for "
        f"content/terms/index.md cannot be told; {REMEDY}",
        f"site/terms/index.html:4: shows 'tiling stages a piece of an array in shared memory', from {TILING}; {LEAK}",
        f"site/terms/index.html:4: shows 'what is tiling in cuda', from {TILING}; {LEAK}",
    ])


def test_draft_text_anywhere_is_found(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = built / "site"
    missing = site / "404.html"
    text = missing.read_text()
    missing.write_text(text + '<p>Tiles <em>pay</em> in\ntwo ways.</p>\n<img alt="The first lesson" src="x.png">\n'
                       '<script>document.title = "A bank conflict serialises shared-memory accesses"</script>\n'
                       '<!-- Read about tiling and bank conflicts -->\n'
                       '<ul><li>An introduction to the site</li>\n<li><a href="#">Introduction</a></li></ul>\n')
    first = text.count("\n") + 1
    index = site / "search/search_index.json"
    data = json.loads(index.read_text())
    data["docs"].append({"location": "terms/warp/", "title": "What is TILING in CUDA?", "text": "words"})
    index.write_text(json.dumps(data))
    code, out = run(capsys, "site")
    assert (code, out) == (1, [
        f"site/404.html:{first}: shows 'tiles pay in two ways', from {TILING}; {LEAK}",
        f"site/404.html:{first + 2}: <img src> points to 'x.png', which the site does not have; point the link at "
        "a page or file the site has, or remove it",
        f"site/404.html:{first + 2}: shows 'the first lesson', from content/lessons/day01-intro.md, which is not "
        f"published; {LEAK}",
        f"site/404.html:{first + 3}: shows 'a bank conflict serialises shared memory accesses', from "
        f"content/terms/bank-conflict.md, which is not published; {LEAK}",
        f"site/404.html:{first + 4}: shows 'read about tiling and bank conflicts', from "
        f"content/lessons/day01-intro.md, which is not published; {LEAK}",
        f"site/404.html:{first + 6}: shows 'introduction', the title of content/lessons/day01-intro.md, which is "
        f"not published; {LEAK}",
        f"site/search/search_index.json:{len(data['docs'])}: shows 'what is tiling in cuda', from {TILING}; {LEAK}",
    ])


def test_invisible_characters_another_encoding_and_pages_that_are_no_entry(
        built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Added after the build: a page that is no entry nor chrome, and an entry that does not parse. Their
    # words are unpublished too, however a page spells them.
    (built / "content/notes.md").write_text("# Notes\n\nThe secret plan for next week.\n")
    (built / "content/terms/broken.md").write_text("---\ntitle: [unclosed\n---\n\nA broken entry body here.\n")
    site = built / "site"
    (site / "404.html").write_bytes("<p>The secret plan\nfor next week.</p>\n".encode("utf-16"))
    home = site / "index.html"
    text = home.read_text()
    home.write_text(text + "<p>Ti\u200bles pay in t\u00adwo ways.</p>\n<p>A broken entry body here.</p>\n")
    first = text.count("\n") + 1
    assert run(capsys, "site") == (1, [
        f"site/404.html:1: shows 'the secret plan for next week', from content/notes.md, which is not published; "
        f"{LEAK}",
        f"site/index.html:{first}: shows 'tiles pay in two ways', from {TILING}; {LEAK}",
        f"site/index.html:{first + 1}: shows 'a broken entry body here', from content/terms/broken.md, which is not "
        f"published; {LEAK}",
    ])


def test_an_entry_s_file_must_be_the_signed_bytes(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (built / "site/images/fig.svg").write_text(gatekit.SCRIPT_SVG)
    assert run(capsys, "site") == (1, [
        "site/images/fig.svg:1: a file whose bytes are not the version published (as signed with the entry that "
        f"uses it, or the code file as published); {audit.REMEDY}"])


def test_text_is_compared_as_words() -> None:
    assert pagetext.normalise("  Don’t  <b>stall</b>: the ＷARP-level “ops” ") == "don t b stall b the warp level ops"
    text = pagetext.read("<html><head><title>T</title><script>var secret = 'a b c';</script></head>\n<body>"
                         "<p>One <code>two</code>three<br>four</p>\n<pre><code>x = 1\n</code></pre>"
                         '<a title="Tip text">x</a></body></html>')
    assert [(s.line, s.text, s.kind) for s in text.segments] == [
        (1, "t", "text"), (1, "var secret a b c", "hidden"), (2, "one twothree four", "text"), (3, "x 1", "code"),
        (4, "tip text", "attr"), (4, "x", "text")]
    assert "twothree four" in text and "three four" not in text
    assert text.find("x 1") == 3 and text.find("secret a b c") == 1 and text.find("nothing") is None
    # Main content: every element a page marks so counts, nested tags of the same name included.
    marked = pagetext.read('<p>a</p><div role="main"><div>b</div><p>c</p></div><p>d</p>'
                           '<section role=main><p>e</p></section><p>f</p>')
    assert [(s.text, s.main) for s in marked.segments if s.kind == "text"] == [
        ("a", False), ("b", True), ("c", True), ("d", False), ("e", True), ("f", False)]
    assert marked.has_main and not text.has_main


ZENSICAL = importlib.util.find_spec("zensical") is not None


@pytest.mark.skipif(not ZENSICAL, reason="Zensical is not installed (pip install zensical)")
def test_zensical_serving_the_working_copy_and_a_planted_a_to_z(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # The signed entry is changed since sign-off and an A–Z is planted; Zensical serves both as they are,
    # at the addresses a gloss build uses for the signed version and the generated A–Z.
    root = gatekit.hostile(tmp_path)
    zensical = Path(sys.executable).parent / "zensical"
    done = subprocess.run([str(zensical) if zensical.exists() else "zensical", "build", "-f", "mkdocs.yml"],
                          cwd=root, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    monkeypatch.chdir(root)
    code, out = run(capsys, "site")
    assert code == 1
    fp = signedtext.markers(_gloss_page(tmp_path / "gloss"))[0][1].split()[1]
    warp = "site/terms/warp/index.html"
    assert (f"{warp}:1: no gloss-entry marker: the page does not claim to be the signed version of "
            f"content/terms/warp.md ({fp}); {REMEDY}") in out
    assert any(line.startswith(f"{warp}:1: does not show the signed version of content/terms/warp.md: ")
               for line in out)
    assert any(line.startswith(f"{warp}:") and f"shows 'an unsigned change to the body', from {CHANGE}; " in line
               for line in out)
    assert any(line.startswith("site/terms/index.html:1: does not show the page the build generates for "
                               "content/terms/index.md: ") for line in out)
    assert any(line.startswith("site/search.json:") and f"from {CHANGE}" in line for line in out)


def _gloss_page(root: Path) -> str:
    """The warp page of the same project built by gloss (for its signed fingerprint)."""
    gatekit.changed(root)
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=False)
    assert ok, why
    return (root / "site/terms/warp/index.html").read_text()


def test_a_title_the_theme_adds_is_no_added_block(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Material shows a page without a first-level heading under its title ("Home" for the home page).
    root = gatekit.signed(tmp_path, {"content/index.md": "See the [glossary](terms/index.md).\n",
                                     "mkdocs.yml": gatekit.CONFIG.replace("name: mkdocs", "name: material")})
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=True)
    assert ok, why
    assert "<h1>Home</h1>" in (root / "site/index.html").read_text()
    monkeypatch.chdir(root)
    capsys.readouterr()  # (what gloss sign printed)
    assert run(capsys, "site") == (0, ["gloss audit: site holds only site chrome and published entries"])


def test_a_code_download_and_a_code_page_must_be_the_published_code(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = gatekit.signed(tmp_path)
    lesson = "content/lessons/day01-intro.md"
    for role, who in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
        assert cli.main(["sign", lesson, "--as", role, "--key", str(gatekit.key_file(who)), "--root", str(root)]) == 0
    gatekit.commit_all(root, "the lesson signed")
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=False)
    assert ok, why
    raw = root / "site/code/day01-intro/raw/k.cu"
    raw.write_text(raw.read_text().replace("1.0f", "2.0f"))
    page = root / "site/code/day01-intro/k.cu/index.html"
    page.write_text(page.read_text().replace("1.0f", "2.0f"))
    monkeypatch.chdir(root)
    capsys.readouterr()
    code, out = run(capsys, "site")
    assert code == 1 and out[0] == (
        "site/code/day01-intro/k.cu/index.html:1: does not show the page the build generates for "
        "content/code/day01-intro/k.cu.md: 1 of 5 blocks of its text are missing, the first 'a kernel 8 start tiled "
        f"__global__ void tiled float out out…'; {REMEDY}")
    assert out[1].startswith("site/code/day01-intro/k.cu/index.html:") and "shows what is not in the page the build " \
        "generates for content/code/day01-intro/k.cu.md: 1 block of its main content" in out[1]
    assert out[2:] == [
        "site/code/day01-intro/raw/k.cu:1: a file whose bytes are not the version published (as signed with the "
        f"entry that uses it, or the code file as published); {audit.REMEDY}"]
