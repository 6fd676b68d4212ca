"""Reading a JSON file within bounds: size, encoding, nesting depth and duplicate keys become problems.

Python's ``json`` recurses once per nesting level, so ``[`` repeated a hundred thousand times is a
``RecursionError`` deep inside the parser; here the depth is measured first, in one linear pass, and
refused past :data:`MAX_DEPTH`. A key written twice in one object (JSON keeps the last silently) is a
problem too. Every problem carries the line it is on.

Pure: :func:`loads` works on text, :func:`read` on a file. No MkDocs imports (the runner uses it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from site_plugins.files import textfile
from site_plugins.files.messages import Problem

#: Result files hold every raw sample (a few MB today); anything past this is not one of ours.
MAX_BYTES = 64 * 1024 * 1024
#: No file format of ours nests past a handful of levels.
MAX_DEPTH = 64

REMEDY = "fix the JSON at this line"
_NEXT = re.compile(r'[^\[\]{}"]*([\[\]{}"])')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_COLON = re.compile(r"\s*:")


class _Duplicate(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def scan(text: str, limit: int = MAX_DEPTH) -> tuple[int, str] | None:
    """One linear pass over brackets and strings: (offset, what) of the first bracket opening level
    ``limit + 1`` (what: "deep") or of the first key written twice in one object (what: the key as
    written); None when neither."""
    keys: list[set[str] | None] = []  # per open bracket: the keys seen so far (None for a list)
    pos = 0
    while (m := _NEXT.match(text, pos)) is not None:
        at = m.start(1)
        token = m.group(1)
        pos = m.end()
        if token == '"':
            string = _STRING.match(text, at)
            if string is None:
                return None  # unterminated: the parser says where
            pos = string.end()
            key = string.group()
            if keys and keys[-1] is not None and _COLON.match(text, pos):
                if key in keys[-1]:
                    return at, key
                keys[-1].add(key)
        elif token in "[{":
            if len(keys) >= limit:
                return at, "deep"
            keys.append(set() if token == "{" else None)
        elif keys:
            keys.pop()
    return None


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def loads(text: str, rel: str) -> tuple[Any, list[Problem]]:
    """The data in ``text`` (reported as ``rel``), or None and the one problem that stopped it."""
    found = scan(text)
    if found is not None and found[1] == "deep":
        return None, [Problem(rel, _line(text, found[0]), f"JSON nested more than {MAX_DEPTH} levels deep",
                              "this is not a file the project writes; restore it from git or re-create it")]
    if found is not None:
        return None, [Problem(rel, _line(text, found[0]), f"key {found[1]} appears twice in one JSON object",
                              "keep only one")]
    try:
        return json.loads(text, object_pairs_hook=_pairs), []
    except json.JSONDecodeError as exc:
        return None, [Problem(rel, exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})", REMEDY)]
    except _Duplicate as exc:  # spelled differently (escapes), so the scan did not see it
        return None, [Problem(rel, 1, f"key {json.dumps(exc.key)} appears twice in one JSON object", "keep only one")]
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4,300 digits
        return None, [Problem(rel, 1, f"not valid JSON: {exc}", REMEDY)]


def read(path: Path, rel: str, max_bytes: int = MAX_BYTES) -> tuple[Any, list[Problem]]:
    """The data in the JSON file ``path`` (reported as ``rel``), or None and the problem."""
    text, problems = textfile.read(path, rel, max_bytes)
    if text is None:
        return None, problems
    return loads(text, rel)
