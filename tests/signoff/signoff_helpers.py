"""Shared helpers for the sign-off tests: fictional people only (Ada Author, Rex Reviewer, Sam Self)."""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

PEOPLE = """\
people:
  - name: Ada Author
    handle: ada
  - name: Rex Reviewer
    handle: rex
  - name: Sam Self
"""

T1 = dt.datetime(2026, 12, 1, 10, 0, 0, tzinfo=dt.UTC)
T2 = dt.datetime(2026, 12, 2, 9, 30, 0, tzinfo=dt.UTC)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    return done.stdout


def init_repo(root: Path) -> Path:
    """An empty git repository with a fictional committer."""
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test Committer")
    git(root, "config", "user.email", "committer@example.invalid")
    git(root, "config", "commit.gpgsign", "false")
    return root


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()
