"""Finding and parsing ``{{ ... }}`` directives in a page body, outside code.

A directive sits on one line: ``{{ NAME ARG... }}``. Arguments are a positional value or
``key=value``; a value is bare (no spaces, commas or quotes: ``copy``, ``tile[32][33]``,
``8192x8192``) or double-quoted (``"a, b"``, with ``\\"`` for a quote), and a list is values joined by
commas (``rows=copy,naive,"tile[32][33]"``).

Code is never touched: fenced blocks (``` and ~~~), code spans and HTML comments are skipped, so
a page can show the syntax itself in backticks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_DIRECTIVE = re.compile(r"\{\{(.*?)\}\}")
_KEY = re.compile(r"([A-Za-z_][\w-]*)=")
_BARE = re.compile(r'[^\s,"]+')
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_SPACE = re.compile(r"\s*")
_BACKTICKS = re.compile(r"`+")
_UNESCAPE = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Directive:
    """One ``{{ ... }}`` as written: ``line`` is the body line index (0-based), ``start``/``end`` columns."""

    name: str
    positional: tuple[str, ...]
    options: dict[str, tuple[str, ...]] = field(hash=False)
    line: int
    start: int
    end: int
    raw: str


class SyntaxProblem(Exception):
    """A directive that cannot be parsed; the message is the problem, ``remedy`` the fix."""

    def __init__(self, problem: str, remedy: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.remedy = remedy


@dataclass(frozen=True)
class Segment:
    """A stretch of one line that is prose (not code, not a comment)."""

    line: int
    start: int
    end: int


def prose_segments(lines: list[str]) -> Iterator[Segment]:
    """The parts of ``lines`` outside fenced code, code spans and HTML comments."""
    fence: str | None = None
    in_comment = False
    for i, text in enumerate(lines):
        if fence is not None:
            stripped = text.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
            continue
        if not in_comment:
            m = _FENCE.match(text)
            if m:
                fence = m.group(1)
                continue
        pos = 0
        n = len(text)
        while pos < n:
            if in_comment:
                close = text.find("-->", pos)
                if close < 0:
                    pos = n
                    break
                in_comment = False
                pos = close + 3
                continue
            stops = [s for s in (text.find("<!--", pos), text.find("`", pos)) if s >= 0]
            stop = min(stops) if stops else n
            if stop > pos:
                yield Segment(i, pos, stop)
            if stop >= n:
                break
            if text.startswith("<!--", stop):
                in_comment = True
                pos = stop + 4
                continue
            run = _BACKTICKS.match(text, stop)
            assert run is not None
            ticks = run.group(0)
            close_at = _closing_run(text, run.end(), ticks)
            if close_at < 0:  # an unmatched backtick run is literal text
                yield Segment(i, stop, run.end())
                pos = run.end()
            else:
                pos = close_at + len(ticks)


def _closing_run(text: str, pos: int, ticks: str) -> int:
    for m in _BACKTICKS.finditer(text, pos):
        if m.group(0) == ticks:
            return m.start()
    return -1


def find_directives(text: str, segment: Segment) -> Iterator[tuple[int, int, str]]:
    """``(start, end, inside)`` for each ``{{ ... }}`` within a prose segment of line ``text``."""
    for m in _DIRECTIVE.finditer(text, segment.start, segment.end):
        yield m.start(), m.end(), m.group(1)


def parse(inside: str, line: int, start: int, end: int) -> Directive:
    """Parse the text between ``{{`` and ``}}``; raises :class:`SyntaxProblem`."""
    raw = "{{" + inside + "}}"
    tokens = _tokens(inside, raw)
    if not tokens or tokens[0][0] is not None or len(tokens[0][1]) != 1:
        raise SyntaxProblem(
            f"empty or malformed directive '{raw}'",
            "write {{ NAME ARGS }} with NAME one of measured, value, ratio, counter, cited, cited-table, example, "
            "observed, sweep",
        )
    name = tokens[0][1][0]
    positional: list[str] = []
    options: dict[str, tuple[str, ...]] = {}
    for key, values in tokens[1:]:
        if key is None:
            positional.extend(values)
        elif key in options:
            raise SyntaxProblem(f"option '{key}' given twice in '{raw}'", "keep only one of them")
        else:
            options[key] = values
    return Directive(name, tuple(positional), options, line, start, end, raw)


def _tokens(inside: str, raw: str) -> list[tuple[str | None, tuple[str, ...]]]:
    out: list[tuple[str | None, tuple[str, ...]]] = []
    pos = _SPACE.match(inside, 0).end()  # type: ignore[union-attr]
    n = len(inside)
    while pos < n:
        key: str | None = None
        km = _KEY.match(inside, pos)
        if km:
            key = km.group(1)
            pos = km.end()
        values: list[str] = []
        while True:
            if pos < n and inside[pos] == '"':
                qm = _QUOTED.match(inside, pos)
                if qm is None:
                    raise SyntaxProblem(f"unterminated quote in '{raw}'", 'close the value with a double quote (")')
                values.append(_UNESCAPE.sub(r"\1", qm.group(1)))
                pos = qm.end()
            else:
                bm = _BARE.match(inside, pos)
                if bm is None:
                    what = f"option '{key}'" if key else "an argument"
                    raise SyntaxProblem(
                        f"{what} has an empty value in '{raw}'",
                        'write a value after "=" (quote it if it has spaces or commas)',
                    )
                values.append(bm.group(0))
                pos = bm.end()
            if pos < n and inside[pos] == ",":
                pos += 1
                continue
            break
        if pos < n and not inside[pos].isspace():
            raise SyntaxProblem(
                f"unexpected '{inside[pos]}' in '{raw}'",
                "separate arguments with spaces and quote values that contain spaces or quotes",
            )
        out.append((key, tuple(values)))
        pos = _SPACE.match(inside, pos).end()  # type: ignore[union-attr]
    return out
