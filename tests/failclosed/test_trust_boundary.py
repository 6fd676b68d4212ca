"""The trust boundary beyond content/: what mkdocs.yml, the environment and the engine's own command decide.

Each route below published unsigned text into site/ before (issue 29): a preview switched on by the
environment or the plugin's option, the gloss plugin removed or disabled, an include extension, a theme
folder, hooks, templates, other plugins, a plain ``mkdocs build`` that failed its audit. Each is built for
real in tmp_path and must publish nothing unsigned, with its message verbatim, the last good site kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gatekit import site_files, site_text, tiny
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort

from site_plugins.cli import build as sitebuild
from site_plugins.publishing import sitedir, trusted

DRAFT_WORDS = "Tiles pay in two ways"  # the body of the tiny project's draft content/terms/tiling.md
PREVIEW_REFUSAL = (
    "a preview shows drafts, so it is never written to {name}/ (only to a folder whose name says 'preview', and "
    "never to the published folder site/); build the preview with `gloss build --preview -d site-preview` (make "
    "preview), or build the published site without GLOSS_PREVIEW and the plugin's 'preview: true'")
UNTRUSTED = "mkdocs.yml holds what a published build does not trust:"


def gloss_build(root: Path, capsys: pytest.CaptureFixture[str], *args: str, site: str = "site"
                ) -> tuple[int, str, str]:
    capsys.readouterr()
    code = sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / site), *args])
    out, err = capsys.readouterr()
    return code, out, err


def good_site(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    """A last good site/ in place (the tiny project, every entry a draft), as bytes."""
    assert gloss_build(root, capsys)[0] == 0
    return site_files(root / "site")


def failed(why: str, site: Path) -> str:
    return f"gloss build: {why}\ngloss build: failed; {site} is unchanged (the last good build stays)\n"


# --- 1. the environment and the plugin's options ---------------------------------------------------------


@pytest.mark.parametrize("how", ["GLOSS_PREVIEW=1", "preview: true"])
def test_a_preview_switch_never_puts_drafts_in_the_published_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, expect_warnings: object,
        how: str) -> None:
    root = tiny(tmp_path)
    if how == "GLOSS_PREVIEW=1":
        monkeypatch.setenv("GLOSS_PREVIEW", "1")
    else:
        cfg = root / "mkdocs.yml"
        cfg.write_text(cfg.read_text().replace("  - gloss\n", "  - gloss:\n      preview: true\n"))
    # gloss build -d site is a published build, whatever the switch says; its line counts the folder.
    code, out, _ = gloss_build(root, capsys)
    assert (code, out.splitlines()[-1]) == (0, "published 0 of 3 entries; 3 await sign-off: gloss status")
    assert DRAFT_WORDS not in site_text(root / "site") and not (root / "site/terms/tiling").exists()
    # Asked for, a preview goes to a preview folder only, and its line says what it is.
    before = site_files(root / "site")
    code, out, err = gloss_build(root, capsys, "--preview", "--no-strict")
    assert (code, out, err) == (2, "", f"gloss build: {PREVIEW_REFUSAL.format(name='site')}\n")
    assert site_files(root / "site") == before
    code, out, _ = gloss_build(root, capsys, "--preview", "--no-strict", site="site-preview")
    assert (code, out.splitlines()[-1]) == (
        0, "preview of all 3 entries; 3 of them unsigned drafts: gloss status")
    assert DRAFT_WORDS in site_text(root / "site-preview")
    # The engine's own command, with the same switch, refuses to write a preview into the published folder
    # (or into any folder not named as a preview), and leaves it as it was.
    for target in ("site", "public"):
        expect_warnings.add(f"gloss: {PREVIEW_REFUSAL.format(name=target)}")  # type: ignore[attr-defined]
        with pytest.raises(Abort, match=r"^Aborted with a BuildError!$"):
            build(load_config(str(root / "mkdocs.yml"), site_dir=str(root / target), strict=False))
    assert site_files(root / "site") == before and not (root / "public").exists()
    assert not [p for p in root.iterdir() if ".building-" in p.name]


def test_the_declared_site_dir_is_the_published_folder_whatever_its_name(tmp_path: Path) -> None:
    root = tiny(tmp_path)
    cfg = root / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("site_dir: site", "site_dir: site-preview"))
    why = sitedir.preview_refusal(root / "site-preview", cfg)
    assert why is not None and why.startswith("a preview shows drafts, so it is never written to site-preview/ ")
    assert sitedir.preview_refusal(root / "other-preview", cfg) is None


@pytest.mark.parametrize("plugins", ["  - search\n", "  - search\n  - gloss:\n      enabled: false\n"])
def test_without_the_gloss_plugin_nothing_is_published(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        plugins: str) -> None:
    root = tiny(tmp_path)
    before = good_site(root, capsys)
    cfg = root / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("  - search\n  - gloss\n", plugins))
    code, out, err = gloss_build(root, capsys)
    gloss = ("mkdocs.yml:7: the gloss plugin is not enabled, so nothing decides what may be published and a build "
             "would publish every draft; list '- gloss' under 'plugins:' (and never 'enabled: false' for it)")
    assert (code, out, err) == (1, "", failed(f"{UNTRUSTED}\n  {gloss}", root / "site"))
    assert site_files(root / "site") == before


# --- 2. mkdocs.yml: a fail-closed allowlist ------------------------------------------------------------------

TAIL = 16  # the first line after the tiny project's mkdocs.yml
ROUTES = {
    "snippets": ("  - pymdownx.snippets\n", {"content/index.md": "# Home\n\n--8<-- \"content/terms/tiling.md\"\n"},
                 [f"mkdocs.yml:{TAIL}: the Markdown extension 'pymdownx.snippets' includes other files' text "
                  "(--8<-- lines, auto_append) into pages, so a published build refuses it"]),
    "snippets auto_append": ("  - pymdownx.snippets:\n      auto_append: [content/terms/tiling.md]\n", {},
                             [f"mkdocs.yml:{TAIL}: the Markdown extension 'pymdownx.snippets' includes other files' "
                              "text (--8<-- lines, auto_append) into pages, so a published build refuses it"]),
    "b64": ("  - pymdownx.b64\n", {}, [f"mkdocs.yml:{TAIL}: the Markdown extension 'pymdownx.b64' embeds files from "
                                     "disk into pages, so a published build refuses it"]),
    "unknown extension": ("  - markdown.extensions.wikilinks\n", {},
                          [f"mkdocs.yml:{TAIL}: the Markdown extension 'wikilinks' is not on the list of Markdown "
                           "extensions a published build trusts, so a published build refuses it"]),
    "abbr glossary": ("  - abbr:\n      glossary: {GPU: Tiles pay in two ways}\n", {},
                      [f"mkdocs.yml:{TAIL + 1}: the option 'glossary' of 'abbr' puts text from outside the signed "
                       "entries on pages, so a published build refuses it"]),
    "emoji icon folders": ("  - pymdownx.emoji:\n      options: {custom_icons: [overrides/.icons]}\n", {},
                           [f"mkdocs.yml:{TAIL + 1}: the option 'options' of 'pymdownx.emoji' puts text from outside "
                            "the signed entries on pages, so a published build refuses it"]),
    "python object": ("  - toc:\n      slugify: !!python/name:os.getcwd\n", {},
                      [f"mkdocs.yml:{TAIL + 1}: 'toc.slugify' names the Python object 'os.getcwd', which a published "
                       "build does not run"]),
    "environment": ("  - !ENV [GLOSS_EXTENSION, admonition]\n", {},
                    [f"mkdocs.yml:{TAIL}: 'markdown_extensions' takes its value from the environment (!ENV), so what "
                     "is published would depend on it; write the value itself in mkdocs.yml"]),
    "hooks": ("hooks: [hooks.py]\n", {"hooks.py": "def on_page_content(html, **kw):\n    return html\n"},
              [f"mkdocs.yml:{TAIL}: 'hooks' runs Python code from the project on every build, so a published build "
               "refuses it"]),
    "extra_templates": ("extra_templates: [notes.html]\n", {},
                        [f"mkdocs.yml:{TAIL}: 'extra_templates' renders templates from the docs folder into pages, so "
                         "a published build refuses it"]),
    "nav": ("nav: [{Tiles pay in two ways: terms/tiling.md}]\n", {},
            [f"mkdocs.yml:{TAIL}: 'nav' names pages and labels that the plugin decides from published entries, so a "
             "published build refuses it"]),
    "INHERIT": ("INHERIT: base.yml\n", {"base.yml": "site_name: x\n"},
                [f"mkdocs.yml:{TAIL}: 'INHERIT' reads a second configuration file, so a published build refuses it"]),
    "extra_css outside": ("extra_css: [https://cdn.example.org/x.css, ../x.css]\n", {},
                          [f"mkdocs.yml:{TAIL}: 'extra_css' lists '{u}', which is not a file declared under the gloss "
                           "plugin's 'chrome:' option, so a published build refuses it; commit the file under the docs "
                           "folder and list it under 'chrome:', or remove it" for u in
                           ("../x.css", "https://cdn.example.org/x.css")]),
    "extra_javascript": ("extra_javascript:\n  - path: content/x.js\n    defer: true\n", {},
                         [f"mkdocs.yml:{TAIL + 1}: 'extra_javascript' lists 'content/x.js', which is not a file "
                          "declared under the gloss plugin's 'chrome:' option, so a published build refuses it; commit "
                          "the file under the docs folder and list it under 'chrome:', or remove it"]),
}
REMEDY = trusted.REMEDY


@pytest.mark.parametrize("route", ROUTES)
def test_what_mkdocs_yml_may_not_bring_in_is_refused_by_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            route: str) -> None:
    tail, files, lines = ROUTES[route]
    root = tiny(tmp_path)
    before = good_site(root, capsys)
    for rel, text in files.items():
        (root / rel).write_text(text)
    cfg = root / "mkdocs.yml"
    cfg.write_text(cfg.read_text() + tail)  # (an item starting "  -" goes under markdown_extensions, the last key)
    expected = [f"{line}; {REMEDY}" if not line.endswith(("mkdocs.yml", "remove it")) else line for line in lines]
    code, out, err = gloss_build(root, capsys)
    assert (code, out) == (1, "")
    assert err == failed(UNTRUSTED + "".join(f"\n  {line}" for line in expected), root / "site")
    assert site_files(root / "site") == before and DRAFT_WORDS not in site_text(root / "site")


def test_the_theme_folder_is_no_theme_and_other_plugins_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], expect_warnings: object) -> None:
    root = tiny(tmp_path, {"overrides/main.html": "{% extends 'base.html' %}<p>Tiles pay in two ways.</p>\n",
                           "overrides/404.html": "<p>Tiles pay in two ways.</p>\n"})
    before = good_site(root, capsys)
    cfg = root / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("  name: mkdocs\n", "  name: mkdocs\n  custom_dir: overrides\n"
                                           "  static_templates: [sitemap.xml]\n")
                   .replace("  - search\n", "  - search\n  - tags\n"))
    code, _, err = gloss_build(root, capsys)
    refusals = [
        "mkdocs.yml:7: 'theme.custom_dir' replaces the theme's templates (any page, 404.html and sitemap.xml "
        "included) with files that no signature covers, so a published build refuses it",
        "mkdocs.yml:8: 'theme.static_templates' renders extra templates into the site, so a published build "
        "refuses it",
        "mkdocs.yml:11: the plugin 'tags' is not on the list of plugins a published build trusts (search and gloss), "
        "so a published build refuses it"]
    assert code == 1 and err == failed(UNTRUSTED + "".join(f"\n  {line}; {REMEDY}" for line in refusals),
                                       root / "site")
    assert site_files(root / "site") == before
    # The engine's own command refuses the same, before it writes anything (MkDocs checks its plugins' own
    # configuration first: material's tags plugin needs material; without it, the refusal is ours).
    cfg.write_text(cfg.read_text().replace("  - tags\n", ""))
    expect_warnings.add(  # type: ignore[attr-defined]
        f"gloss: {UNTRUSTED}" + "".join(f"\n  {line}; {REMEDY}" for line in refusals[:2]))
    with pytest.raises(Abort, match=r"^Aborted with a BuildError!$"):
        build(load_config(str(cfg), site_dir=str(root / "site"), strict=False))
    assert site_files(root / "site") == before


def test_what_the_allowlist_lets_through(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tiny(tmp_path, {"content/extra.css": "p { color: black; }\n"})
    cfg = root / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("  - gloss\n", "  - gloss:\n      chrome: [index.md, extra.css]\n")
                   + "  - toc:\n      permalink: true\n"
                   "      slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}\n"
                   "  - abbr\nextra_css: [extra.css]\ncopyright: Written by the project\nextra:\n  generator: false\n")
    assert trusted.problems(cfg) == []
    code, out, _ = gloss_build(root, capsys)
    assert (code, out.splitlines()[-1]) == (0, "published 0 of 3 entries; 3 await sign-off: gloss status")


# --- 5. the engine's own command is whole or nothing -----------------------------------------------------


def test_a_plain_mkdocs_build_that_fails_keeps_the_last_good_site(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                                  expect_warnings: object) -> None:
    root = tiny(tmp_path)
    cfg = str(root / "mkdocs.yml")
    build(load_config(cfg, site_dir=str(root / "site"), strict=True))
    before = site_files(root / "site")
    assert "index.html" in before and not [p for p in root.iterdir() if ".building-" in p.name]
    # A strict build with a content problem: MkDocs aborts after every page is written, but not here.
    (root / "content/index.md").write_text("# Home\n\nSee [a page](nowhere.md).\n")
    problem = ("content/index.md:3: links to 'nowhere.md', which is not a page of the site; point the link at an "
               "existing .md file, relative to this one")
    expect_warnings.add(problem)  # type: ignore[attr-defined]
    with pytest.raises(Abort, match="Aborted with 1 warnings in strict mode!"):
        build(load_config(cfg, site_dir=str(root / "site"), strict=True))
    assert site_files(root / "site") == before
    assert not [p for p in root.iterdir() if ".building-" in p.name or ".old-" in p.name]
    # A build the final audit refuses (a raw link to a draft the unlinking does not rewrite): the same.
    (root / "content/index.md").write_text('# Home\n\n<iframe src="terms/tiling/"></iframe>\n')
    with pytest.raises(Abort, match=r"^Aborted with a BuildError!$"):
        build(load_config(cfg, site_dir=str(root / "site"), strict=False))
    assert site_files(root / "site") == before
    assert not [p for p in root.iterdir() if ".building-" in p.name or ".old-" in p.name]
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("gloss audit:")]
    assert len(logged) == 1 and "site/index.html:" in logged[0]
    assert "<iframe src> points to 'terms/tiling/'" in logged[0]
    expect_warnings.add(logged[0])  # type: ignore[attr-defined]
    # A good build replaces it whole.
    (root / "content/index.md").write_text("# Home\n\nWelcome back.\n")
    build(load_config(cfg, site_dir=str(root / "site"), strict=True))
    assert "Welcome back." in (root / "site/index.html").read_text()


def test_gh_deploy_never_deploys_a_preview(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           expect_warnings: object) -> None:
    root = tiny(tmp_path)
    monkeypatch.setenv("GLOSS_PREVIEW", "1")
    monkeypatch.chdir(root)
    cfg = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site-preview"), strict=False)
    cfg.plugins.on_startup(command="gh-deploy", dirty=False)
    expect_warnings.add(f"gloss: {sitedir.DEPLOY_PREVIEW}")  # type: ignore[attr-defined]
    try:
        with pytest.raises(Abort, match=r"^Aborted with a BuildError!$"):
            build(cfg)
    finally:
        cfg.plugins.on_shutdown()  # (as MkDocs ends the command: the plugin object outlives it)
    assert not (root / "site-preview").exists()  # (and nothing for gh-deploy to push)


def test_gloss_check_prints_what_a_published_build_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from site_plugins import cli

    root = tiny(tmp_path)
    (root / "mkdocs.yml").write_text((root / "mkdocs.yml").read_text() + "hooks: [hooks.py]\n")
    capsys.readouterr()
    assert cli.main(["check", "--root", str(root)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"mkdocs.yml:{TAIL}: 'hooks' runs Python code from the project on every build, so a published build refuses "
        f"it; {REMEDY}"]
    assert cli.main(["check", "--root", str(root), "--preview"]) == 0  # (a preview trusts the checkout it serves)


def test_gloss_audit_refuses_to_judge_by_an_untrusted_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # With pymdownx.snippets the audit's own rendering would include the draft into what it expects.
    from site_plugins import cli

    root = tiny(tmp_path)
    good_site(root, capsys)
    (root / "mkdocs.yml").write_text((root / "mkdocs.yml").read_text() + "  - pymdownx.snippets\n")
    monkeypatch.chdir(root)
    assert cli.main(["audit", "site"]) == 2
    assert capsys.readouterr().err == (
        f"gloss audit: {UNTRUSTED}\n  mkdocs.yml:{TAIL}: the Markdown extension 'pymdownx.snippets' includes other "
        f"files' text (--8<-- lines, auto_append) into pages, so a published build refuses it; {REMEDY}\n")


def test_files_in_custom_dir_are_not_theme_files(tmp_path: Path) -> None:
    # Even where a configuration names a custom_dir (a published build refuses it), the audit never takes
    # its files for the theme's: a byte-for-byte copy there proves nothing.
    from site_plugins.publishing import staging

    theme, custom = tmp_path / "theme", tmp_path / "overrides"
    dirs = staging.asset_dirs([str(custom), str(theme)], str(custom))
    assert ("", theme) in dirs and all(folder != custom for _, folder in dirs)
    assert staging.theme_folders([str(custom), str(theme)], str(custom) + "/") == [theme]
