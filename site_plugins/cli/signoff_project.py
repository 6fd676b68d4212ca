"""The project as the sign-off commands (``gloss sign``, ``gloss status``, ``gloss diff``) see it.

One pass over the content, as the build reads it: each entry's problems, what a sign-off of it covers
now (:func:`site_plugins.publishing.pipeline.signable`), the text of entry files the content model could not
parse, which still have a sign-off state, and the entry files that cannot be read at all (not UTF-8, a
dangling symlink, a folder or FIFO named like an entry), each with its ``path:line: problem; remedy``.
Also the words and time stamps those commands print.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import glob
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from site_plugins import signoff
from site_plugins.cli.common import UsageError
from site_plugins.files import textfile
from site_plugins.files.messages import Problem
from site_plugins.signoff.signable import Signable

if TYPE_CHECKING:
    from site_plugins.content import Content
    from site_plugins.publishing import pipeline

STATE_WORDS = {"draft": "draft", "awaiting-review": "awaiting review", "signed": "signed",
               "changed": "changed since sign-off"}
"""Each sign-off state as the commands print it."""


def stamp(on: dt.datetime) -> str:
    """A signature's time as the commands print it: UTC, to the second, e.g. 2026-12-03T13:14:22Z."""
    return on.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Project:
    """The project root, its content and problems, and what each entry's sign-off covers now."""

    root: Path
    docs_dir: str
    content: Content
    problems: list[Problem]  # content problems (the build's checks)
    signables: dict[str, Signable]  # path -> what a sign-off of it covers now
    signable_at: signoff.SignableAt
    unparsed: dict[str, str]  # path -> text, for entry files the content model could not parse
    empty: set[str]  # entries with no body text
    unreadable: dict[str, Problem]  # path -> why, for entry files with no text to show, sign or compare
    checked: list[Problem] | None = None  # what gloss check prints (load_project(check=True))

    def known(self, path: str) -> bool:
        """Whether ``path`` is a term or lesson file (readable or not)."""
        return path in self.signables or path in self.unparsed or path in self.unreadable


def load_project(root: Path, docs_dir: str, *, check: bool = False) -> Project:
    """Read the project under ``root`` once; :class:`UsageError` when ``root/docs_dir`` is not a folder.
    ``check``: through every check the build runs (:func:`site_plugins.publishing.checks.run`, as
    ``gloss check``), their problems in :attr:`Project.checked`, in the same one pass."""
    from site_plugins import measured
    from site_plugins.cli.check import options as check_options
    from site_plugins.content import load_content
    from site_plugins.publishing import pipeline

    root = root.resolve()
    if not (root / docs_dir).is_dir():
        raise UsageError(f"no content folder at {root / docs_dir}; run in the project root or pass --root")
    checked: list[Problem] | None = None
    if check:
        build, checked = _checks(root, docs_dir)
        content, problems, view, signables = build.content, build.problems, build.view, build.signables
        assert view is not None
    else:
        content, problems = load_content(root, docs_dir)
        # Prose figures come from the node mkdocs.yml names, as in the build: the same values, the same fingerprint.
        view = measured.load_view(root, check_options(root).default_node)
        # One pass: each entry is expanded and its code read once, for its fingerprint.
        signables = {e.path: pipeline.signable(root, e, view) for e in content.entries()}
    unparsed: dict[str, str] = {}
    unreadable: dict[str, Problem] = {}
    for sub in ("terms", "lessons"):
        folder = root / docs_dir / sub
        for file in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            path = file.relative_to(root).as_posix()
            if _undecodable(path):  # a name no terminal can print as it is: say so, spelt out
                shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                unreadable[shown] = Problem(shown, 1, "the file name is not UTF-8",
                                            "rename it; entry files are named by slugs, e.g. bank-conflict.md")
            elif file.name != "index.md" and path not in signables:
                text, why = textfile.read(file, path)
                if text is not None:
                    unparsed[path] = text
                else:
                    unreadable[path] = why[0]
    empty = {e.path for e in content.entries() if not e.body.strip()}
    return Project(root, docs_dir, content, problems, signables, pipeline.signable_at(root, view, content),
                   unparsed, empty, unreadable, checked)


def _checks(root: Path, docs_dir: str) -> tuple[pipeline.Build, list[Problem]]:
    import yaml

    from site_plugins.cli import check as cli_check
    from site_plugins.links import evidence
    from site_plugins.publishing import checks

    try:
        opts = dataclasses.replace(cli_check.options(root), docs_dir=docs_dir)
    except (yaml.YAMLError, OSError, UnicodeDecodeError, ValueError, TypeError, AttributeError) as exc:
        raise UsageError(f"cannot read mkdocs.yml: {exc}") from exc
    try:
        done = checks.run(root, opts, keep_signables=True)
    except evidence.EvidenceError as exc:
        raise UsageError(f"{exc}\n(gloss check stops there too)") from exc
    return done.build, done.problems


def all_signables(project: Project) -> list[Signable]:
    """Every readable entry's signable, by path, those that do not parse included (as their text alone);
    the entries in :attr:`Project.unreadable` have none."""
    # An entry that no longer parses still has a sign-off state: its text is all it can show.
    extra = [Signable(path, text) for path, text in project.unparsed.items()]
    return sorted([*project.signables.values(), *extra], key=lambda s: s.path)


def entry_path(project: Project, given: str) -> str:
    """The repo-relative path of the entry named by ``given`` (a path from here or from the root)."""
    candidates = [Path(given)] if Path(given).is_absolute() else [Path.cwd() / given, project.root / given]
    for candidate in candidates:
        rel = _inside(project.root, candidate)
        if rel is None:
            continue
        if project.known(rel):
            return rel
    raise UsageError(f"{given} is not a term or lesson; give the path of a file under "
                 f"{project.docs_dir}/terms/ or {project.docs_dir}/lessons/")


def entry_paths(project: Project, given: Sequence[str]) -> list[str]:
    """Entries named by paths, folders (every entry under them) or glob patterns, in order, once each."""
    known = sorted([*project.signables, *project.unparsed, *project.unreadable])
    out: list[str] = []
    for item in given:
        found: list[str] = []
        if glob.has_magic(item):
            for base in (Path.cwd(), project.root):
                pattern = item if Path(item).is_absolute() else str(base / item)
                found += [entry_path(project, m) for m in sorted(glob.glob(pattern, recursive=True))
                          if m.endswith(".md") and Path(m).name != "index.md"
                          and _inside(project.root, Path(m)) is not None]
                if found:
                    break
            if not found:
                raise UsageError(f"{item} matches no term or lesson")
        else:
            # A folder of entries (not a folder named like an entry, which is an unreadable entry).
            folder = next((c for c in (Path.cwd() / item, project.root / item)
                           if c.is_dir() and c.resolve().is_relative_to(project.root)
                           and not project.known(_inside(project.root, c) or "")), None)
            if folder is not None:
                prefix = folder.resolve().relative_to(project.root).as_posix().rstrip("/") + "/"
                found = [p for p in known if p.startswith(prefix) or prefix == "./"]
                if not found:
                    raise UsageError(f"{item} holds no term or lesson")
            else:
                found = [entry_path(project, item)]
        out += [p for p in found if p not in out]
    return out


def _inside(root: Path, file: Path) -> str | None:
    """``file``'s path relative to ``root`` (its folder resolved, not the file itself: an entry may be a
    dangling symlink or a symlink loop, and is still named by its own path), or None when outside."""
    try:
        return (file.absolute().parent.resolve() / file.name).relative_to(root).as_posix()
    except (ValueError, OSError, RuntimeError):  # outside root; an unreadable folder; a loop in the folders
        return None


def _undecodable(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # a byte that is not UTF-8, kept by the file system as a lone surrogate
        return True
    return False
