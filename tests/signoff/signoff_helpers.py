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


REGISTRY = PEOPLE + "entries: {}\n"


def term(title: str, definition: str, body: str, extra: str = "") -> str:
    return f"---\ntitle: {title}\ndefinition: {definition}\n{extra}---\n\n{body}\n"


def make_site(root: Path, terms: dict[str, str], lessons: dict[str, str] | None = None,
              registry: str = REGISTRY) -> Path:
    """A tiny project: content/terms/SLUG.md for each term text, lessons likewise, one CUDA file with a
    named region, signoff.yaml with fictional people."""
    (root / "content" / "terms").mkdir(parents=True, exist_ok=True)
    (root / "content" / "lessons").mkdir(parents=True, exist_ok=True)
    code = root / "code" / "day01-basics"
    code.mkdir(parents=True, exist_ok=True)
    (code / "copy.cu").write_text(
        "// a copy kernel\n// --8<-- [start:copy]\n__global__ void copy(float* o, const float* i) {\n"
        "    o[threadIdx.x] = i[threadIdx.x];\n}\n// --8<-- [end:copy]\n", encoding="utf-8")
    for slug, text in terms.items():
        (root / "content" / "terms" / f"{slug}.md").write_text(text, encoding="utf-8")
    for stem, text in (lessons or {}).items():
        (root / "content" / "lessons" / f"{stem}.md").write_text(text, encoding="utf-8")
    (root / "signoff.yaml").write_text(registry, encoding="utf-8")
    return root
