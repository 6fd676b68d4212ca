"""Code excerpts: named regions of the sources under ``code/``, quoted by terms and checked.

A region is marked in a source by ``// --8<-- [start:NAME]`` and ``// --8<-- [end:NAME]`` lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from site_plugins.content.model import CodeRef, Content, TermMeta
from site_plugins.files import textfile
from site_plugins.files.messages import Problem

_REGION = re.compile(r"--8<--\s*\[(start|end):([A-Za-z0-9_.-]+)\]")


@dataclass(frozen=True)
class Excerpt:
    file: str
    region: str
    text: str
    first_line: int  # line in the file of the excerpt's first line
    language: str


def regions(source: str) -> dict[str, tuple[int, int]]:
    """Named regions of a source file: name -> (first, last) line numbers of the content, 1-based.
    Where a name is marked twice the first region keeps it (:func:`region_problems` reports the rest)."""
    open_: dict[str, int] = {}
    found: dict[str, tuple[int, int]] = {}
    for n, line in enumerate(source.splitlines(), start=1):
        for kind, name in _REGION.findall(line):
            if kind == "start":
                open_.setdefault(name, n + 1)
            elif name in open_:
                found.setdefault(name, (open_.pop(name), n - 1))
    return found


def region_problems(source: str, rel: str) -> list[Problem]:
    """Region markers that do not pair up: a name started twice, an end without a start, a start
    never ended."""
    problems: list[Problem] = []
    open_: dict[str, int] = {}
    done: dict[str, int] = {}
    for n, line in enumerate(source.splitlines(), start=1):
        for kind, name in _REGION.findall(line):
            if kind == "start" and (name in open_ or name in done):
                first = open_.get(name) or done[name]
                problems.append(Problem(rel, n, f"region '{name}' is marked again (first at line {first})",
                                        "give each region in a file its own name"))
            elif kind == "start":
                open_[name] = n
            elif name in open_:
                done[name] = open_.pop(name)
            elif name not in done:
                problems.append(Problem(rel, n, f"region '{name}' ends but never starts",
                                        f"add // --8<-- [start:{name}] above it, or remove this line"))
    for name, n in open_.items():
        problems.append(Problem(rel, n, f"region '{name}' starts but never ends",
                                f"add // --8<-- [end:{name}] where it ends"))
    return problems


def inside_code(root: Path, rel: str) -> bool:
    """Whether repo-relative ``rel`` names something under ``code/`` (no '..', no absolute path, no
    link leading out)."""
    parts = PurePosixPath(rel).parts
    if not rel.startswith("code/") or ".." in parts or "\\" in rel:
        return False
    try:
        return (root / rel).resolve().is_relative_to((root / "code").resolve())
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a symlink loop, on Python 3.11 and 3.12
        return False


def code_files(content: Content, root: Path) -> list[str]:
    """Every code file the site shows: the files terms quote and the sources in lessons' folders."""
    files: set[str] = set()
    for entry in content.entries():
        m = entry.meta
        if isinstance(m, TermMeta):
            files |= {ref.file for ref in m.code if inside_code(root, ref.file) and (root / ref.file).is_file()}
        else:
            files |= set(lesson_sources(root, m.code))
    return sorted(files)


def lesson_sources(root: Path, folder: str) -> list[str]:
    """The CUDA sources in a lesson's code folder (none when the folder is missing or outside code/)."""
    if not inside_code(root, folder) or not (root / folder).is_dir():
        return []
    return sorted(f.relative_to(root).as_posix() for f in (root / folder).iterdir()
                  if f.suffix in (".cu", ".cuh") and f.is_file())


def check_code_files(content: Content, root: Path) -> list[Problem]:
    """Each shown code file reads as text and its region markers pair up."""
    problems: list[Problem] = []
    for rel in code_files(content, root):
        text, read_problems = textfile.read(root / rel, rel)
        problems += read_problems if text is None else region_problems(text, rel)
    return problems


def excerpt(root: Path, ref: CodeRef, path: str, line: int,
            read: Callable[[str], str | None] | None = None) -> tuple[Excerpt | None, Problem | None]:
    """The lines of ``ref.region`` in ``ref.file``, marker lines excluded and indentation kept.
    ``read(file)``: the text of a repo-relative file somewhere else (a git commit, the signed version)."""
    file = root / ref.file
    if not inside_code(root, ref.file):
        return None, Problem(path, line, f"code file '{ref.file}' lies outside code/",
                             "point 'file' at a source under code/, without '..'")
    source = read(ref.file) if read is not None else None
    if (read is not None and source is None) or (read is None and not file.is_file()):
        return None, Problem(path, line, f"code file '{ref.file}' does not exist",
                             "point 'file' at a source under code/ (paths start with code/)")
    if source is None:
        source, unreadable = textfile.read(file, ref.file)
        if source is None:  # the file's own problem is reported by check_code_files
            return None, Problem(path, line, f"code file '{ref.file}' cannot be quoted",
                                 f"fix {unreadable[0].path}:{unreadable[0].line} first")
    found = regions(source)
    if ref.region not in found:
        names = ", ".join(sorted(found)) or "none"
        return None, Problem(path, line, f"region '{ref.region}' not found in {ref.file}",
                             f"mark it with // --8<-- [start:{ref.region}] and [end:{ref.region}]"
                             f" (regions there: {names})")
    first, last = found[ref.region]
    lines = [ln for ln in source.splitlines()[first - 1:last] if not _REGION.search(ln)]
    suffix = PurePosixPath(ref.file).suffix
    language = {".cu": "cuda", ".cuh": "cuda", ".py": "python", ".c": "c", ".h": "c"}.get(suffix, "text")
    return Excerpt(ref.file, ref.region, _dedent("\n".join(lines)), first, language), None


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip("\n")
