"""How deeply a page's Markdown nests, measured before MkDocs sees it: past a bound it is a problem.

Python-Markdown recurses once (or more) per level of nesting: a list inside a list item, a quote in a
quote, indentation under a list or an admonition, emphasis inside emphasis, an element inside an
element opened with ``markdown="1"``. A thousand levels, a few kilobytes of text, end in a
``RecursionError`` in the middle of a build, and a few hundred already take seconds (some of its
processors are quadratic in the depth). No page of ours nests past a handful of levels, so
:func:`nesting_problem` refuses more than :data:`MAX_DEPTH`, on the line where it happens.

The measure is an upper bound, computed in one linear pass without parsing: per line, the leading
indentation (a level per 4 columns) and container markers (``>``, ``-``, ``*``, ``+``, ``1.``, ``1)``),
plus what is open at that point: emphasis runs (a run of n ``*`` or ``_`` counts n) and ``[`` until
the paragraph ends (a blank line), HTML elements (of any name: ``markdown="1"`` makes even a plain
``<div>`` inside one an element) until they close. Only a fence Python-Markdown is sure to treat as
code is skipped: at column 0, a bare language at most, closed by exactly the same fence; anything else
is measured as Markdown, so an odd fence can only make the measure larger, never hide nesting.

Pure; no MkDocs imports.
"""

from __future__ import annotations

import bisect
import re

import yaml

from site_plugins.files.messages import Problem

#: Far below where Python-Markdown runs out of stack (a few hundred levels) or slows down, far above
#: anything a page needs.
MAX_DEPTH = 32

PROBLEM = (
    f"the Markdown is nested more than {MAX_DEPTH} levels deep (lists, quotes, indentation, emphasis, links or HTML)"
)
REMEDY = "flatten it; no page needs that much nesting"

_HR = re.compile(r"[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SPACE = re.compile(r"[ \t]+")
_MARKER = re.compile(r">|[-*+](?=[ \t]|$)|\d+[.)](?=[ \t]|$)")
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})[ \t]*[\w+.#-]*[ \t]*$")
# One token of inline text: an escape, a backtick run, an HTML tag (open or close; its '>' may be on a
# later line, as an HTML parser allows), a bracket, or an emphasis run.
_INLINE = re.compile(
    r"\\.|(?P<ticks>`+)|<(?P<close>/)?(?P<tag>[A-Za-z][A-Za-z0-9-]*)(?=[\s/>]|$)(?P<attrs>[^<>]*)(?P<end>>?)"
    r"|(?P<bracket>[\[\]])|(?P<emph>\*+|_+)"
)
_TICKS = re.compile(r"`+")
_VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]
)
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _columns(prefix: str) -> int:
    return len(prefix.expandtabs(4))


def block_depth(line: str) -> int:
    """Levels a line opens by its start: a level per 4 columns of indentation, one per container marker."""
    if _HR.match(line):  # '- - -' is a rule, not three lists
        m = _SPACE.match(line)
        return _columns(m.group()) // 4 if m else 0
    columns = markers = 0
    at = 0
    while at < len(line):
        if space := _SPACE.match(line, at):
            columns += _columns(space.group())
            at = space.end()
        elif marker := _MARKER.match(line, at):
            markers += 1
            at = marker.end()
        else:
            break
        if markers + columns // 4 > MAX_DEPTH:  # enough: a line may be megabytes of markers
            break
    return markers + columns // 4


def _fenced(lines: list[str]) -> set[int]:
    """Indices of the lines inside (and of) fences that are code for certain."""
    closers: dict[str, list[int]] = {}  # a fence -> the lines that are exactly it, in order
    for i, line in enumerate(lines):
        if line[:1] in "`~" and _FENCE_OPEN.match(line):
            closers.setdefault(line.rstrip(" \t"), []).append(i)
    inside: set[int] = set()
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i]) if lines[i][:1] in "`~" else None
        if m:
            ends = closers.get(m.group(1), [])
            k = bisect.bisect_right(ends, i)
            if k < len(ends):
                inside.update(range(i, ends[k] + 1))
                i = ends[k] + 1
                continue
        i += 1
    return inside


def _flanking(text: str, start: int, end: int) -> tuple[bool, bool]:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    left = not after.isspace() and (after not in _PUNCT or before.isspace() or before in _PUNCT)
    right = not before.isspace() and (before not in _PUNCT or after.isspace() or after in _PUNCT)
    return left, right


class _Open:
    """What is open at a point: HTML elements (until closed) and, per paragraph, emphasis and brackets."""

    def __init__(self) -> None:
        self.tags: list[str] = []
        self.inline: list[tuple[str, int]] = []  # ('[', 1) or (emphasis char, run length)
        self.inline_depth = 0

    def paragraph_ends(self) -> None:
        self.inline.clear()
        self.inline_depth = 0

    @property
    def depth(self) -> int:
        return len(self.tags) + self.inline_depth

    def _push(self, kind: str, weight: int) -> None:
        self.inline.append((kind, weight))
        self.inline_depth += weight

    def _pop_to(self, index: int) -> None:
        for _, weight in self.inline[index:]:
            self.inline_depth -= weight
        del self.inline[index:]

    def scan(self, line: str, base: int) -> bool:
        """Scan one line; True as soon as ``base`` (the line's block depth) plus what is open passes the bound."""
        at = 0
        runs: dict[int, list[int]] | None = None  # backtick runs of this line by length: their ends
        while (m := _INLINE.search(line, at)) is not None:
            at = m.end()
            if ticks := m.group("ticks"):  # a code span, when a run of as many backticks closes it on this line
                if runs is None:
                    runs = {}
                    for found in _TICKS.finditer(line):
                        runs.setdefault(len(found.group()), []).append(found.end())
                ends = runs[len(ticks)]
                k = bisect.bisect_right(ends, at)
                if k < len(ends):
                    at = ends[k]
            elif tag := m.group("tag"):
                name = tag.lower()
                if m.group("close"):
                    if name in self.tags:
                        del self.tags[len(self.tags) - 1 - self.tags[::-1].index(name):]
                elif name not in _VOID and not (m.group("end") and m.group("attrs").rstrip().endswith("/")):
                    self.tags.append(name)
            elif bracket := m.group("bracket"):
                if bracket == "[":
                    self._push("[", 1)
                else:
                    last = next((i for i in range(len(self.inline) - 1, -1, -1) if self.inline[i][0] == "["), None)
                    if last is not None:
                        self._pop_to(last)
            elif run := m.group("emph"):
                left, right = _flanking(line, m.start(), m.end())
                top = self.inline[-1] if self.inline else None
                if right and top is not None and top[0] == run[0]:
                    self._pop_to(len(self.inline) - 1)
                    if top[1] > len(run):
                        self._push(top[0], top[1] - len(run))
                elif left and not (run[0] == "_" and right):
                    self._push(run[0], len(run))
            if base + self.depth > MAX_DEPTH:
                return True
        return base + self.depth > MAX_DEPTH


def nesting_problem(text: str, path: str, first_line: int = 1) -> Problem | None:
    """The first line of ``text`` (Markdown; its first line is file line ``first_line``) where nesting
    passes :data:`MAX_DEPTH`, as a problem; None when it never does."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    code = _fenced(lines)
    state = _Open()
    for i, line in enumerate(lines):
        if i in code:
            continue
        if not line.strip():
            state.paragraph_ends()
            continue
        if state.scan(line, block_depth(line)):
            return Problem(path, first_line + i, PROBLEM, REMEDY)
    return None


def yaml_strings_problem(node: yaml.Node | None, path: str) -> Problem | None:
    """The first string value of a front matter (an already bounded node tree, its marks shifted to
    file lines) that nests too deeply: titles, definitions and summaries are Markdown on some page."""
    todo = [node] if node is not None else []
    while todo:
        n = todo.pop(0)
        if isinstance(n, yaml.ScalarNode) and isinstance(n.value, str):
            block = n.style in ("|", ">")
            problem = nesting_problem(n.value, path, n.start_mark.line + 1 + block)
            if problem is not None:
                return problem if block else Problem(path, n.start_mark.line + 1, PROBLEM, REMEDY)
        elif isinstance(n, yaml.MappingNode):
            todo += [v for _, v in n.value]
        elif isinstance(n, yaml.SequenceNode):
            todo += n.value
    return None
