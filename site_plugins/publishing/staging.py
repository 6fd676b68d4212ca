"""The staging tree: the only folder the site engine reads, built from the publish decision.

MkDocs would otherwise walk the docs folder itself (following symbolic links) and copy every file it
finds there: a stray ``.html``, a script-carrying ``.svg``, a link to ``signoff.yaml``. Instead the
plugin points MkDocs' ``docs_dir`` at a fresh folder holding exactly what :func:`plan` allows, a
positive list decided from :class:`site_plugins.publishing.pipeline.Build` (itself decided by
:func:`site_plugins.publishing.publish.decide`):

- the hand-written pages declared under the gloss plugin's ``chrome:`` option, and the static files
  declared there;
- each published entry's Markdown, as published (the signed version where a change awaits sign-off);
- the static files (images) a published entry links to from its body, as committed when the entry was
  signed (a file edited since is served in its signed version, as the entry's text is; one git never had
  at signing is left out and reported).

Generated pages (the A–Z, letter pages, lesson index, code pages) are added by the plugin as generated
files, never read from disk. Everything else under the docs folder is left out; a static file that no
entry and no chrome uses is reported. No symbolic link under the docs folder or ``code/`` is followed or
copied: each is reported, so a strict build fails.
"""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from site_plugins.files import textfile
from site_plugins.files.messages import Problem
from site_plugins.publishing import audit, render, signedtext, sitelinks, urlkeys
from site_plugins.publishing.pipeline import Build
from site_plugins.signoff.entryfiles import targets
from site_plugins.signoff.signable import git_command, git_env

ASSETS = Path(__file__).parents[1] / "assets"  # our stylesheets and scripts, served under assets/gloss/
#: Larger than any image an entry should carry.
MAX_STATIC_BYTES = 16 * 1024 * 1024

UNSIGNED = "this file was not committed when the entry that shows it was signed, so it is not published"
UNSIGNED_REMEDY = "commit it, then have that entry signed again (gloss sign)"
STRAY = "this file is used by no entry and is not declared site chrome, so it is not published"
STRAY_REMEDY = ("link it from an entry (it is published with that entry once the entry is signed), or list it "
                "under the gloss plugin's 'chrome:' option in mkdocs.yml if it is site chrome; else delete it")

@dataclass
class Plan:
    """What the engine may see: docs path -> Markdown text for pages, docs paths of copied static files."""

    pages: dict[str, str] = field(default_factory=dict)
    statics: dict[str, bytes] = field(default_factory=dict)  # docs path -> the bytes to publish
    left_out: list[str] = field(default_factory=list)  # every other path under the docs folder
    problems: list[Problem] = field(default_factory=list)


def symlinks(root: Path, top: str) -> Iterator[str]:
    """Repo-relative paths of every symbolic link under ``root/top`` (files, folders, dangling), unfollowed."""
    base = root / top
    if base.is_symlink():
        yield top
        return
    for folder, dirs, files in os.walk(base, followlinks=False):
        here = Path(folder)
        for name in sorted(dirs + files):
            if (here / name).is_symlink():
                yield (here / name).relative_to(root).as_posix()


def docs_files(docs: Path) -> list[str]:
    """Docs paths of every regular file under ``docs``, links not followed (dot folders included)."""
    out = []
    for folder, _, files in os.walk(docs, followlinks=False):
        for name in files:
            p = Path(folder) / name
            if not p.is_symlink():
                out.append(p.relative_to(docs).as_posix())
    return sorted(out)


def plan(root: Path, docs_dir: str, build: Build, *, chrome: Collection[str], preview: bool,
         exclude: Collection[str] = ()) -> Plan:
    """Decide the staging tree. ``exclude``: chrome pages the checks refused (already reported);
    ``preview``: drafts are staged too (``make serve`` / ``make preview`` show them with a banner)."""
    docs = root / docs_dir
    out = Plan()
    out.problems += [textfile.symlink_problem(p) for top in (docs_dir, "code") for p in symlinks(root, top)]
    present = set(docs_files(docs)) if docs.is_dir() and not docs.is_symlink() else set()
    shown = [e for e in build.published.entries() if preview or build.states[e.path].published]
    for e in shown:
        out.pages[e.src_uri] = e.text
    for uri in sorted(set(chrome) - set(exclude) - set(build.pages)):
        if uri not in present or not uri.endswith(".md"):
            continue
        text, _ = textfile.read(docs / uri, f"{docs_dir}/{uri}")  # its problems come from the checks
        if text is not None:
            out.pages[uri] = text
    uses = {e.path: targets(e.src_uri, e.body) for e in shown}
    used = set().union(*uses.values())
    wanted: set[str] | None = None  # what any entry names, drafts included: needed only for a stray file
    for uri in sorted(present):
        if uri.endswith(".md") or any(part.startswith(".") for part in uri.split("/")):
            continue  # pages are decided above; dot files (.gitkeep, editor files) are never published
        rel = f"{docs_dir}/{uri}"
        if uri in used or uri in chrome:
            size = (docs / uri).stat().st_size
            data = read_regular(docs / uri) if size <= MAX_STATIC_BYTES else None
            if size > MAX_STATIC_BYTES:
                out.problems.append(textfile.size_problem(rel, size, MAX_STATIC_BYTES))
            elif data is None:
                continue  # (replaced by a link or removed since the walk: never published)
            elif uri in chrome or preview:
                out.statics[uri] = data
            else:  # an entry's file is published as it was when the entry was signed
                commits = sorted({c for path, found in uses.items() if uri in found
                                  if (c := build.states[path].signed_commit)})
                signed = as_signed(root, rel, data, commits)
                if signed is None:
                    out.problems.append(Problem(rel, 1, UNSIGNED, UNSIGNED_REMEDY))
                else:
                    out.statics[uri] = signed
        else:
            if wanted is None:
                wanted = set().union(*(targets(e.src_uri, e.body) for e in build.content.entries()), used)
            if uri in wanted:
                continue  # (a file only a draft uses waits with that draft, unreported)
            out.problems.append(Problem(f"{docs_dir}/{uri}", 1, STRAY, STRAY_REMEDY))
    staged = set(out.pages) | set(out.statics)
    out.left_out = sorted((present | set(_linked(root, docs_dir))) - staged)
    out.problems = sorted(set(out.problems))
    return out


def _linked(root: Path, docs_dir: str) -> Iterator[str]:
    prefix = f"{docs_dir}/"
    for p in symlinks(root, docs_dir):
        if p.startswith(prefix):
            yield p[len(prefix):]


def write(plan_: Plan, dest: Path) -> None:
    """Make ``dest`` hold exactly the plan: unchanged files are not rewritten (their times stay, so a
    ``mkdocs serve --dirty`` rebuild redoes only what changed) and anything else there is removed."""
    dest.mkdir(parents=True, exist_ok=True)
    wanted: dict[str, bytes] = {uri: text.encode("utf-8") for uri, text in plan_.pages.items()}
    wanted.update(plan_.statics)
    for folder, dirs, files in os.walk(dest, topdown=False):
        for name in files:
            p = Path(folder) / name
            if p.relative_to(dest).as_posix() not in wanted:
                p.unlink()
        for name in dirs:
            d = Path(folder) / name
            if not any(d.iterdir()):
                d.rmdir()
    for uri, data in wanted.items():
        target = dest / uri
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def as_signed(root: Path, rel: str, data: bytes, commits: Sequence[str]) -> bytes | None:
    """``data`` when a commit an entry was signed at holds ``rel`` as it is now; else the first such
    commit's version (an edit since sign-off waits, as the entry's own text does); None when none has it."""
    versions = [v for c in commits if (v := _show(root, c, rel)) is not None]
    return data if data in versions else versions[0] if versions else None


def _show(root: Path, commit: str, rel: str) -> bytes | None:
    try:
        done = subprocess.run([*git_command(root), "show", f"{commit}:./{rel}"], capture_output=True, env=git_env(),
                              check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 and len(done.stdout) <= MAX_STATIC_BYTES else None


def read_regular(path: Path) -> bytes | None:
    """The bytes of a regular file, never through a link (a link made since the plan is refused)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        return fh.read(MAX_STATIC_BYTES + 1)[:MAX_STATIC_BYTES]


def manifest(plan_: Plan, build: Build, docs_dir: str, *, site_url: str,
             asset_dirs: tuple[tuple[str, Path], ...], text: signedtext.Expected | None = None) -> audit.Manifest:
    """What the audit allows in a site built from this plan: the staged and generated pages, the staged
    static files (with the bytes to publish) and raw code downloads; withheld: everything else under the
    docs folder. ``text``: what each page must show (:func:`site_plugins.publishing.signedtext.expect`)."""
    pages = set(plan_.pages) | set(build.pages)
    files = set(plan_.statics) | {render.code_raw_uri(f) for f in build.code_files}
    allowed = {urlkeys.key(p) for p in pages | files}
    withheld: dict[str, str] = {}
    for uri in [*plan_.left_out, *build.hidden, *sorted(build.content.unloaded), *build.unlisted]:
        k = urlkeys.key(uri)
        if k and k not in allowed:  # (the site's root is the site itself, whatever its home page)
            withheld.setdefault(k, f"{docs_dir}/{uri}")
    digests = {uri: audit.digest(data) for uri, data in plan_.statics.items()}
    digests.update({render.code_raw_uri(f): audit.digest(t.encode("utf-8")) for f, t in build.code_files.items()})
    theme = sitelinks.theme_urls(tuple(folder for _, folder in asset_dirs))
    return audit.Manifest(frozenset(pages), frozenset(files), withheld, site_url, asset_dirs, digests, text, theme)


def page_reader(root: Path, docs_dir: str) -> Callable[[str], str | None]:
    """Reads a page under the docs folder by its docs path (never through a link; None if unreadable)."""
    def read(uri: str) -> str | None:
        return textfile.read(root / docs_dir / uri, f"{docs_dir}/{uri}")[0]

    return read


def theme_folders(theme_dirs: Sequence[str], custom_dir: str | None = None) -> list[Path]:
    """The installed theme's folders (and our template overrides), never a ``custom_dir``."""
    mine = {os.path.normpath(os.path.abspath(custom_dir))} if custom_dir else set()
    return [Path(d) for d in theme_dirs if os.path.normpath(os.path.abspath(d)) not in mine]


def asset_dirs(theme_dirs: Sequence[str], custom_dir: str | None = None) -> tuple[tuple[str, Path], ...]:
    """Where a theme's or a plugin's own files lie, by the site path they are served under: the installed
    theme's folders (never a ``custom_dir``: its files are the project's, not the theme's), MkDocs' search
    plugin, Zensical's theme when it is installed, and our assets."""
    out = [("", d) for d in theme_folders(theme_dirs, custom_dir)]
    for package, sub, prefix in (("mkdocs", "contrib/search/templates", ""), ("zensical", "templates", "")):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin:
            out.append((prefix, Path(spec.origin).parent / sub))
    out.append(("assets/gloss/", ASSETS))
    return tuple(out)
