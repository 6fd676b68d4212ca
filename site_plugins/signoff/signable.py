"""What a sign-off covers, and where the files it covers are read from.

The type shared by :mod:`site_plugins.signoff` (which fingerprints and verifies) and
:mod:`site_plugins.publishing.publish` (which decides publication) lives here, below both, so neither imports the
other for it.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

MAX_BYTES = 16 * 1024 * 1024  # a static file larger than this is not published (site_plugins.publishing.staging)


@dataclass(frozen=True)
class Signable:
    """Exactly what a sign-off covers: the entry's text, the measured values it shows, the code it quotes,
    every code file it publishes (whole-file pages and raw downloads) and the bytes of its static files."""

    path: str  # repo-relative, e.g. content/terms/tiling.md
    text: str  # the whole Markdown file, front matter included
    shown_values: tuple[str, ...] = ()  # every measured value as rendered on the page, in page order
    quoted_code: tuple[str, ...] = ()  # every code excerpt as quoted on the page, in page order
    files: tuple[tuple[str, str], ...] = ()  # (repo-relative path, whole text) of each published code file
    # (repo-relative path, "sha256:..." of the bytes) of each static file (image...) the body names
    # (site_plugins.signoff.entryfiles.statics): a changed image changes the entry, like a changed word.
    statics: tuple[tuple[str, str], ...] = ()


class Tree(Protocol):
    """A read-only view of the repository's files: the working copy or one git commit."""

    def read(self, path: str) -> str | None:
        """The text of a repo-relative file, or None when there is no such file."""

    def listdir(self, folder: str) -> list[str]:
        """Repo-relative paths of the files directly inside ``folder``, sorted."""


@dataclass(frozen=True)
class WorkTree:
    root: Path

    def read(self, path: str) -> str | None:
        from site_plugins.files import textfile

        file = self.root / path
        return textfile.read(file, path)[0] if file.is_file() else None

    def read_bytes(self, path: str) -> bytes | None:
        """The bytes of a regular file, never through a symbolic link (file or folder); None past MAX_BYTES."""
        from site_plugins.files import textfile

        if textfile.linked_part(self.root / path, path) is not None:
            return None
        try:
            fd = os.open(self.root / path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # (a folder opens too, and is no file)
                return None
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read(MAX_BYTES + 1)
        finally:
            os.close(fd)
        return data if len(data) <= MAX_BYTES else None

    def listdir(self, folder: str) -> list[str]:
        base = self.root / folder
        if not base.is_dir():
            return []
        return sorted(f.relative_to(self.root).as_posix() for f in base.iterdir() if f.is_file())


def git_command(root: Path) -> list[str]:
    """git in ``root``, reading the history as committed: never through replacement objects (``git replace``
    can give a commit other parents or another tree without changing its id)."""
    return ["git", "--no-replace-objects", "-C", str(root)]


def git_env() -> dict[str, str]:
    """The environment for git without its GIT_* variables: history is read from the project's own
    repository (GIT_DIR, GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES... could point elsewhere)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def git(root: Path, *args: str) -> str | None:
    """Output of a git command run in ``root``, or None when git fails (no repo, unknown object...)."""
    try:
        done = subprocess.run([*git_command(root), *args], capture_output=True, check=False, timeout=60,
                              env=git_env())
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class GitTree:
    root: Path
    commit: str

    def read(self, path: str) -> str | None:
        from site_plugins.files import textfile

        text = git(self.root, "show", f"{self.commit}:./{path}")
        return textfile.lf_text(text) if text is not None else None  # as the working copy reads

    def read_bytes(self, path: str) -> bytes | None:
        try:  # (cat-file blob: a folder is no file, where `git show` would list it)
            done = subprocess.run([*git_command(self.root), "cat-file", "blob", f"{self.commit}:./{path}"],
                                  env=git_env(),
                                  capture_output=True, check=False, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 and len(done.stdout) <= MAX_BYTES else None

    def listdir(self, folder: str) -> list[str]:
        out = git(self.root, "ls-tree", "--name-only", self.commit, f"./{folder.rstrip('/')}/")
        if out is None:
            return []
        return sorted(str(PurePosixPath(line)) for line in out.splitlines() if line)
