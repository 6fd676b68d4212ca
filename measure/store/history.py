"""What git's history holds: which commits exist and the sha256 of files at them, asked of ONE
``git cat-file --batch`` process however many results and files there are.

Used by :mod:`measure.store.audit` to check that the commit a result records holds the files it measured.
Nothing here judges; a git that cannot answer (not installed, not a repository, an unreadable one)
comes back as :attr:`Lookup.unavailable`, never as an exception. Git is never asked to fetch: a
partial clone's missing objects read as missing.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from site_plugins.files import textfile

#: A commit id as git prints it (sha1 or sha256 object names, abbreviated to 4 digits at least).
COMMIT_ID = re.compile(r"[0-9a-fA-F]{4,64}")
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Lookup:
    """Git's answers for a set of (commit, path) questions."""

    unavailable: str = ""  # "" when git answered; else why it could not
    commits: frozenset[str] = frozenset()  # the asked commits that exist in this repository's history
    # (commit, path) -> sha256 of the file's text at that commit (textfile.sha256_text); None: no such file.
    files: dict[tuple[str, str], str | None] = field(default_factory=dict)


def lookup(root: Path, wanted: Iterable[tuple[str, str]]) -> Lookup:
    """For each (commit, repo-relative path) in ``wanted``: does the commit exist, and what is the
    sha256 of the path's text there (line endings as read). Paths are relative to ``root`` (which may be
    a folder inside the work tree). Asks nothing of git when ``wanted`` is empty."""
    pairs = sorted(set(wanted))
    commits = sorted({c for c, _ in pairs})
    if not pairs:
        return Lookup()
    if any(not COMMIT_ID.fullmatch(c) for c in commits):
        raise ValueError(f"not a commit id: {next(c for c in commits if not COMMIT_ID.fullmatch(c))!r}")
    askable = [(c, p) for c, p in pairs if p and "\n" not in p and "\r" not in p]
    names = [f"{c}^{{commit}}" for c in commits] + [f"{c}:./{p}" for c, p in askable]
    env = {**os.environ, "GIT_NO_LAZY_FETCH": "1", "GIT_TERMINAL_PROMPT": "0"}
    try:
        proc = subprocess.run(
            ["git", "cat-file", "--batch"],
            cwd=root,
            input="".join(n + "\n" for n in names).encode("utf-8"),
            capture_output=True,
            env=env,
            timeout=TIMEOUT_S,
        )
    except FileNotFoundError:
        return Lookup(unavailable="git is not installed" if root.is_dir() else f"no folder {root}")
    except OSError as exc:
        return Lookup(unavailable=f"git could not be started ({exc.strerror or exc})")
    except subprocess.TimeoutExpired:
        return Lookup(unavailable=f"git did not answer within {TIMEOUT_S:g} s")
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return Lookup(unavailable=f"git cannot read the history here ({why[0] if why else f'exit {proc.returncode}'})")
    answers = _parse(proc.stdout, len(names))
    if answers is None:
        return Lookup(unavailable="git's answer could not be read")
    existing = frozenset(c for c, (kind, _) in zip(commits, answers, strict=False) if kind == "commit")
    files: dict[tuple[str, str], str | None] = {pair: None for pair in pairs}
    for pair, (kind, body) in zip(askable, answers[len(commits) :], strict=True):
        files[pair] = textfile.sha256_text(body) if kind == "blob" else None
    return Lookup(commits=existing, files={k: v for k, v in files.items() if k[0] in existing})


def _parse(out: bytes, count: int) -> list[tuple[str, bytes]] | None:
    """``count`` answers of ``git cat-file --batch``: (object type, contents), or ("missing", b"") for a
    name git could not resolve (missing, ambiguous). None when the output does not parse."""
    answers: list[tuple[str, bytes]] = []
    pos = 0
    for _ in range(count):
        end = out.find(b"\n", pos)
        if end < 0:
            return None
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            answers.append((header[1].decode("ascii", "replace"), out[pos : pos + size]))
            pos += size + 1  # the contents are followed by a newline
        else:
            answers.append(("missing", b""))
    return answers
