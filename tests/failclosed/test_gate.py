"""The publishing gate: whatever lies under content/ or code/, only chrome and signed entries (with their
files) reach site/. Each hostile fixture below is built for real; it fails a strict build with its exact
line, and a non-strict build publishes none of it. Links to a draft, spelled any way, fail the build at
the final audit and leave the last good site as it was."""

from __future__ import annotations

import os
import re
from pathlib import Path

import gatekit
import pytest
from gatekit import signed, site_files, site_text, tiny
from sitekit import build_site

from site_plugins.cli import build as sitebuild
from site_plugins.files import textfile
from site_plugins.files.messages import Problem
from site_plugins.publishing.pipeline import GENERATED, GENERATED_REMEDY, UNLISTED, UNLISTED_REMEDY
from site_plugins.publishing.staging import STRAY, STRAY_REMEDY, UNSIGNED, UNSIGNED_REMEDY

LINK = ("a symbolic link, which is never followed, read or published; replace it with the file itself (a regular "
        "file in the repository), or delete it")
MARK = "Zebraplanted"  # in every planted file: it must appear nowhere in the site


def gloss_build(root: Path, *, strict: bool) -> tuple[bool, str]:
    ok, _, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=strict)
    return ok, why


def test_stray_static_files_are_left_out_and_reported(tmp_path: Path, expect_warnings: object) -> None:
    root = signed(tmp_path, {"content/stray.html": f"<p>{MARK}</p><script>alert(1)</script>\n",
                             "content/images/evil.svg": gatekit.SCRIPT_SVG.replace("zebra", MARK),
                             "content/notes/readme.txt": f"{MARK}\n"})
    expected = [f"content/{p}:1: {STRAY}; {STRAY_REMEDY}" for p in ("images/evil.svg", "notes/readme.txt",
                                                                   "stray.html")]
    expect_warnings.add(*expected)  # type: ignore[attr-defined]
    assert gloss_build(root, strict=True) == (False, "Aborted with 3 warnings in strict mode!")
    assert gloss_build(root, strict=False) == (True, "")
    files = site_files(root / "site")
    assert "stray.html" not in files and "images/evil.svg" not in files and "notes/readme.txt" not in files
    assert files["images/fig.svg"] == gatekit.FIGURE.encode()  # the signed entry's own figure is published
    assert "terms/warp/index.html" in files and MARK not in site_text(root / "site")


def test_an_entry_s_figure_is_published_as_signed(tmp_path: Path, expect_warnings: object) -> None:
    root = signed(tmp_path, {"content/terms/warp.md": gatekit.SIGNED + "\n![Later](../images/later.svg)\n"})
    # After sign-off: the figure is replaced by a script-carrying one, and a figure the entry names appears.
    (root / "content/images/fig.svg").write_text(gatekit.SCRIPT_SVG.replace("zebra", MARK))
    (root / "content/images/later.svg").write_text(gatekit.SCRIPT_SVG.replace("zebra", MARK))
    gatekit.commit_all(root, "edits after sign-off")
    expect_warnings.add(f"content/images/later.svg:1: {UNSIGNED}; {UNSIGNED_REMEDY}")  # type: ignore[attr-defined]
    assert gloss_build(root, strict=False) == (True, "")
    files = site_files(root / "site")
    assert files["images/fig.svg"] == gatekit.FIGURE.encode()  # the version signed, not the edit
    assert "images/later.svg" not in files and MARK not in site_text(root / "site")


def test_a_file_only_a_draft_uses_waits_unreported(tmp_path: Path) -> None:
    root = tiny(tmp_path, {"content/terms/tiling.md": gatekit.SIGNED.replace("warp", "tiling")
                           .replace("fig.svg", "draft-fig.svg"), "content/images/draft-fig.svg": gatekit.FIGURE})
    assert gloss_build(root, strict=True) == (True, "")
    assert "images/draft-fig.svg" not in site_files(root / "site")


@pytest.mark.parametrize("uri", ["terms/index.md", "lessons/index.md", "terms/letters/w/index.md"])
def test_a_page_the_build_generates_is_never_replaced(tmp_path: Path, expect_warnings: object, uri: str) -> None:
    root = signed(tmp_path, {f"content/{uri}": f"---\ntitle: {MARK}\n---\n\n# {MARK} page\n"})
    expect_warnings.add(f"content/{uri}:1: {GENERATED}; {GENERATED_REMEDY}")  # type: ignore[attr-defined]
    assert gloss_build(root, strict=True) == (False, "Aborted with 1 warnings in strict mode!")
    assert gloss_build(root, strict=False) == (True, "")
    assert MARK not in site_text(root / "site")
    assert uri.replace(".md", ".html") in site_files(root / "site")  # the generated one


@pytest.mark.parametrize("uri", ["lessons/extra/index.md", "terms/sub/index.md", "about/index.md", "about.md"])
def test_an_undeclared_page_is_never_published(tmp_path: Path, expect_warnings: object, uri: str) -> None:
    root = signed(tmp_path, {f"content/{uri}": f"# {MARK} page\n"})
    expect_warnings.add(f"content/{uri}:1: {UNLISTED}; {UNLISTED_REMEDY}")  # type: ignore[attr-defined]
    assert gloss_build(root, strict=True) == (False, "Aborted with 1 warnings in strict mode!")
    assert gloss_build(root, strict=False) == (True, "")
    assert MARK not in site_text(root / "site")


def symlinked(root: Path, outside: Path) -> list[str]:
    """Plant links: to a file outside the repository, to signoff.yaml, dangling, a linked folder; in
    content/ and in a lesson's code folder. Returns the link paths."""
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.md").write_text(f"---\ntitle: {MARK}\ndefinition: A {MARK} one.\n---\n\n{MARK}\n")
    (outside / "dir/page.md").write_text(f"# {MARK}\n")
    links = {"content/terms/outside.md": outside / "secret.md", "content/signoff.svg": Path("../signoff.yaml"),
             "content/images/dangling.png": Path("nowhere.png"), "content/linked": outside / "dir",
             "content/index-link.md": Path("index.md"),
             "code/day01-intro/outside.cu": outside / "secret.md", "code/linked": outside / "dir",
             "code/day01-intro/signoff.cu": Path("../../signoff.yaml"), "code/day01-intro/dangling.cu": Path("gone.cu")}
    for rel, target in links.items():
        os.symlink(target, root / rel)
    return sorted(links)


def test_symlinks_are_never_followed_or_published(tmp_path: Path, expect_warnings: object) -> None:
    root = signed(tmp_path / "repo")
    links = symlinked(root, tmp_path / "outside")
    expect_warnings.add(*[f"{p}:1: {LINK}" for p in links])  # type: ignore[attr-defined]
    ok, why = gloss_build(root, strict=True)
    assert not ok and re.fullmatch(r"Aborted with \d+ warnings in strict mode!", why)
    assert gloss_build(root, strict=False) == (True, "")
    text = site_text(root / "site")
    assert MARK not in text and "\nentries:" not in text and "BEGIN SSH SIGNATURE" not in text
    assert not any(p.is_symlink() for p in (root / "site").rglob("*"))
    assert "signoff.svg" not in site_files(root / "site")


def test_no_file_is_read_through_a_linked_folder(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere/k.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "code").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "code/day01")
    assert textfile.read(tmp_path / "code/day01/k.cu", "code/day01/k.cu") == (
        None, [Problem("code/day01", 1, *LINK.split("; "))])
    os.symlink(tmp_path / "elsewhere/k.cu", tmp_path / "code/k.cu")
    assert textfile.read(tmp_path / "code/k.cu", "code/k.cu")[1] == [Problem("code/k.cu", 1, *LINK.split("; "))]


def test_a_linked_home_page_is_refused(tmp_path: Path, expect_warnings: object) -> None:
    root = signed(tmp_path / "repo")
    (root / "signoff.md").write_text(f"# {MARK}\n")
    (root / "content/index.md").unlink()
    os.symlink("../signoff.md", root / "content/index.md")
    expect_warnings.add(f"content/index.md:1: {LINK}")  # type: ignore[attr-defined]
    assert gloss_build(root, strict=False) == (True, "")
    assert MARK not in site_text(root / "site") and "index.html" not in site_files(root / "site")



HOME = "# Home\n\nSee the [glossary](terms/index.md).\n\n{link}\n"
# Each spelling of a link to the draft content/terms/tiling.md (site page terms/tiling/), in the hand-written
# home page (chrome: published without sign-off), as the value the built HTML carries.
SPELLINGS = {
    "[t](Terms/Tiling.md)": "Terms/Tiling.md",
    '<a href="../terms/TILING/">t</a>': "../terms/TILING/",
    '<a href="https://gloss.example.org/terms/tiling/">t</a>': "https://gloss.example.org/terms/tiling/",
    "<https://gloss.example.org/terms/tiling/>": "https://gloss.example.org/terms/tiling/",
    '<iframe src="terms/tiling/"></iframe>': "terms/tiling/",
    '<object data="terms/tiling/index.html"></object>': "terms/tiling/index.html",
    '<embed src="./terms/tiling/">': "./terms/tiling/",
    '<a href="terms/%74iling/">t</a>': "terms/%74iling/",
    '<a href="terms/%2e/tiling/">t</a>': "terms/%2e/tiling/",
    '<a href="terms/%252e/tiling/">t</a>': "terms/%252e/tiling/",
    '<a href="//GLOSS.example.org/terms/tiling/#top">t</a>': "//GLOSS.example.org/terms/tiling/#top",
    '<a href="TERMS/TILING/INDEX.HTML?x=1">t</a>': "TERMS/TILING/INDEX.HTML?x=1",
    '<a href="terms\\tiling/">t</a>': "terms\\tiling/",
    '<img srcset="a.png 1x, terms/tiling/ 2x" alt="t">': "terms/tiling/",
    '<form action="terms/tiling/"></form>': "terms/tiling/",
    '<iframe srcdoc="&lt;a href=&quot;terms/tiling/&quot;&gt;t&lt;/a&gt;"></iframe>': "terms/tiling/",
    '<div style="background: url(\'terms/tiling/\')"></div>': "terms/tiling/",
}
WHAT = {"iframe srcdoc": "<iframe srcdoc>", "div": "<div style>",
        "iframe": "<iframe src>", "object": "<object data>", "embed": "<embed src>", "img": "<img srcset>",
        "form": "<form action>"}


def what_of(link: str) -> str:
    """How the audit names the element and attribute that carry a spelling's URL."""
    tag = re.match(r"<(\w+(?: srcdoc)?)", link)
    return WHAT.get(tag.group(1), "<a href>") if tag else "<a href>"


DEAD = "point the link at a page or file the site has, or remove it"


def expect_audit_failure(root: Path, caplog: pytest.LogCaptureFixture, expect_warnings: object, page: str,
                         what: str, value: str, draft: str) -> str:
    """Build with MkDocs itself: the plugin's audit refuses the build and leaves nothing of it in the target
    folder. Declares the audit's message (its line read from the log) and returns gloss build's, which
    names the folder the site would have become."""
    with pytest.raises(Exception, match="Aborted with a BuildError!"):
        build_site(root, strict=False, site_dir="mk")
    assert not (root / "mk").exists() and not list(root.glob(".mk.*"))  # no refused page is left behind
    logged = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("gloss audit:"))
    line = re.search(rf"mk/{re.escape(page)}:(\d+):", logged)
    assert line is not None, logged
    finding = (f"site/{page}:{line[1]}: {what} points to '{value}', which is {draft}, "
               "not published; remove the link, or sign that entry so that it is published")
    message = f"gloss audit: the built site holds what is not published:\n  {finding}"
    expect_warnings.add(message.replace("site/", "mk/", 1))  # type: ignore[attr-defined]
    return message


# An <a href> on the site's own pages becomes its plain text, as a draft link always does; any other element
# (or an absolute URL) fails the build at the final audit.
UNLINKED = [link for link in SPELLINGS if link.startswith(("[t]", "<a href")) and "//" not in link]


@pytest.mark.parametrize("link", UNLINKED)
def test_a_draft_link_by_any_spelling_is_shown_as_text(tmp_path: Path, expect_warnings: object, link: str) -> None:
    root = tiny(tmp_path, {"content/index.md": HOME.format(link=link)})
    if link.startswith("[t]"):
        expect_warnings.add("content/index.md:5: links to 'Terms/Tiling.md', which is not a page of the site; "  # type: ignore[attr-defined]
                            "point the link at an existing .md file, relative to this one")
    assert gloss_build(root, strict=False) == (True, "")
    home = (root / "site/index.html").read_text()
    assert "<p>t</p>" in home and SPELLINGS[link] not in home and "tiling" not in home.lower()


@pytest.mark.parametrize("link", [link for link in SPELLINGS if link not in UNLINKED])
def test_a_draft_link_by_any_other_spelling_fails_the_build_and_keeps_the_site(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, expect_warnings: object, link: str) -> None:
    value = SPELLINGS[link]
    root = tiny(tmp_path)
    assert gloss_build(root, strict=True) == (True, "")
    before = site_files(root / "site")
    (root / "content/index.md").write_text(HOME.format(link=link))
    message = expect_audit_failure(root, caplog, expect_warnings, "index.html", what_of(link), value,
                                   "content/terms/tiling.md")
    if "a.png" in link:  # (a file the site does not have either: a content warning, logged by both builds)
        dead = next(r.getMessage() for r in caplog.records if "'a.png', which the site does not have" in r.getMessage())
        line = re.match(r"mk/index\.html:(\d+):", dead)
        assert line is not None, dead
        expect_warnings.add(*(f"{top}/index.html:{line[1]}: <img srcset> points to 'a.png', which the site does not "  # type: ignore[attr-defined]
                              f"have; {DEAD}" for top in ("mk", "site")))
    assert gloss_build(root, strict=False) == (False, message)
    assert site_files(root / "site") == before  # the last good site, byte for byte


def test_a_draft_link_from_a_signed_entry_fails_the_build(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                           expect_warnings: object) -> None:
    root = signed(tmp_path, {"content/terms/warp.md": gatekit.SIGNED + '\n<object data="../Tiling.MD"></object>\n'})
    message = expect_audit_failure(root, caplog, expect_warnings, "terms/warp/index.html", "<object data>",
                                   "../Tiling.MD", "content/terms/tiling.md")
    assert gloss_build(root, strict=False) == (False, message)
    assert not (root / "site").exists()
