"""The files a kernel source pulls in with ``#include "..."``, so that a result goes stale when one changes.

nvcc looks for a quoted include first in the folder of the file that names it; every such file is part
of what was measured, as much as the ``.cu`` itself. :func:`included_files` follows quoted includes
recursively from a source and returns each file's sha256, which the runner records beside the source's
own (``Provenance.source_includes``) and :mod:`measure.store.judge` compares with the tree.

Angle-bracket includes are followed too when the file lies in the source's folder (the ``-I`` folder the
runner compiles with, so nvcc takes it before the toolkit's header of the same name); others are the
toolkit's, recorded as ``nvcc_version``. Refused, with the line of the ``#include``: a quoted file that is
not there, a path that
leaves ``code/`` (the commit would not hold what was compiled), and an include written as a macro (its
file cannot be known without the preprocessor). Comments are skipped, so a commented-out include is not
followed.

Pure over the files under ``root``; no MkDocs imports (the runner uses it on verification nodes).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from site_plugins.files import textfile
from site_plugins.files.messages import Problem

CODE_DIR = "code"
#: More headers than any lesson needs; past this the walk stops with a problem instead of running long.
MAX_FILES = 256

# String and character literals are matched so that a '//' or '/*' inside one is not a comment.
_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)
# '%:' is the digraph of '#'; GCC's host preprocessor also takes '#import' and '#embed' (which pull in a
# file just the same), so all are followed.
_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(?P<kind>include|import|embed)\b[ \t]*(.*)$", re.MULTILINE)
_QUOTED = re.compile(r'"([^"\n]*)"')


def _without_comments(text: str) -> str:
    """``text`` with every comment blanked out, line breaks kept (so line numbers stay right)."""

    def blank(m: re.Match[str]) -> str:
        token = m.group()
        return token if token[0] in "\"'" else "\n" * token.count("\n") or " "

    return _TOKENS.sub(blank, text)


def directives(text: str) -> list[tuple[int, str | None, str]]:
    """Each ``#include`` (or ``#import``, ``#embed``) outside comments: (line, quoted file name or None,
    what follows the directive). Angle-bracket includes come back with None as the name and ``<...>``."""
    out: list[tuple[int, str | None, str]] = []
    plain = _without_comments(text)
    for m in _DIRECTIVE.finditer(plain):
        rest = m.group(2).strip()
        quoted = _QUOTED.match(rest)
        out.append((plain.count("\n", 0, m.start()) + 1, quoted.group(1) if quoted else None, rest))
    return out


def included_files(root: Path, source_rel: str) -> tuple[dict[str, str], list[Problem]]:
    """Every file ``source_rel`` includes, directly or through another, that lies under ``code/``:
    repo-relative path -> sha256 of its bytes, in the order first met. Problems name the including file
    and line. Files are found as nvcc finds them when the runner compiles (``-I`` the source's own folder,
    :meth:`measure.gpu.device.Device.nvcc_flags`): a quoted name in the including file's folder, then in
    the source's folder; a name in angle brackets in the source's folder (a header there shadows the
    toolkit's), else it is the toolkit's, recorded as ``nvcc_version`` and not followed."""
    code = (root / CODE_DIR).resolve()
    base = root.resolve()
    include_dir = root / Path(source_rel).parent  # (the -I folder the runner passes)
    found: dict[str, str] = {}
    problems: list[Problem] = []
    todo = [source_rel]
    seen = {source_rel}
    while todo:
        rel = todo.pop(0)
        text, unreadable = textfile.read(root / rel, rel)
        if text is None:
            problems += unreadable
            continue
        for line, name, written in directives(text):
            angled = name is None and written.startswith("<") and ">" in written
            if angled:
                name = written[1:written.index(">")].strip()
            if name is None:
                problems.append(
                    Problem(rel, line, f"'#include {written}' names no file this check can follow",
                            'write the file name in quotes ("tile.cuh") or angle brackets (<cuda_fp16.h>)')
                )
                continue
            folders = [include_dir] if angled else [root / Path(rel).parent, include_dir]
            candidates = [Path(os.path.normpath(folder / name)) for folder in folders]
            hit = next((c for c in candidates if c.is_file()), None)
            if angled and hit is None:
                continue  # the toolkit's header
            target = (hit or candidates[0]).resolve()
            if not target.is_relative_to(code):
                if angled:
                    continue  # (a system header found through a path that leaves code/ is the toolkit's)
                problems.append(
                    Problem(rel, line, f'#include "{name}" leaves {CODE_DIR}/',
                            f"keep headers under {CODE_DIR}/ (they are measured with the source)")
                )
                continue
            if hit is None:
                problems.append(
                    Problem(rel, line, f'#include "{name}": no such file next to {rel}',
                            "add the file, fix the name, or write a toolkit header in angle brackets (<cuda_fp16.h>)")
                )
                continue
            target_rel = target.relative_to(base).as_posix()
            if target_rel in seen:
                continue
            if len(seen) > MAX_FILES:
                problems.append(Problem(rel, line, f"more than {MAX_FILES} files are included",
                                        "include fewer headers"))
                return found, problems
            seen.add(target_rel)
            found[target_rel] = textfile.sha256_text(target.read_bytes())
            todo.append(target_rel)
    return found, problems
