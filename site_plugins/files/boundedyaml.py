"""YAML read within bounds, with file lines: the one place the project turns YAML text into a node tree.

Nesting depth is capped and aliases are refused (or, where a file allows them, never cyclic and capped in
expanded size), so that a hostile file cannot exhaust the build. Documents are scanned and parsed by
libyaml where PyYAML has it and composed by the bounded Python composer; PyYAML's pure parser gives every
refusal and syntax error its message and line. :mod:`site_plugins.files.schema` checks the nodes against
declared dataclasses.

This module must not import MkDocs: the measurement runner uses it on verification nodes.
"""

from __future__ import annotations

from typing import Any

import yaml

from site_plugins.files import textfile
from site_plugins.files.messages import Problem

#: Nesting deeper than this is refused before the composer recurses (no schema nests past a handful).
MAX_DEPTH = 32
#: With aliases allowed, the document expanded must stay under this many nodes (an "alias bomb" is refused).
MAX_EXPANDED_NODES = 100_000


class _Refused(yaml.MarkedYAMLError):
    def __init__(self, mark: Any, problem: str, remedy: str) -> None:
        super().__init__(problem=problem, problem_mark=mark)
        self.line = int(mark.line) if mark is not None else 0
        self.remedy = remedy


def _too_deep(mark: Any) -> _Refused:
    return _Refused(mark, f"the YAML is nested more than {MAX_DEPTH} levels deep",
                    "flatten it; no key here needs that much nesting")


class _Bounds:
    """The composer's bounds, shared by both loaders: nesting depth capped; aliases refused, or (where
    allowed) never cyclic."""

    allow_aliases: bool
    depth: int
    open_anchors: set[str]

    def _bounds_init(self, allow_aliases: bool) -> None:
        self.allow_aliases = allow_aliases
        self.depth = 0
        self.open_anchors = set()

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[attr-defined]
        if isinstance(event, yaml.AliasEvent):
            if not self.allow_aliases:
                raise _Refused(event.start_mark, f"YAML alias '*{event.anchor}' is not allowed here",
                               "write the value out in full")
            if event.anchor in self.open_anchors:
                raise _Refused(event.start_mark, f"YAML alias '*{event.anchor}' refers to the value that holds it",
                               "remove the alias; a value cannot contain itself")
            return super().compose_node(parent, index)  # type: ignore[misc, no-any-return]
        anchor = getattr(event, "anchor", None)
        if anchor is not None and not self.allow_aliases:
            raise _Refused(event.start_mark, f"YAML anchor '&{anchor}' is not allowed here",
                           "remove it and write each value out in full")
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _too_deep(event.start_mark)
        if anchor is not None:
            self.open_anchors.add(anchor)
        try:
            return super().compose_node(parent, index)  # type: ignore[misc, no-any-return]
        finally:
            self.depth -= 1
            if anchor is not None:
                self.open_anchors.discard(anchor)


class _BoundedLoader(_Bounds, yaml.SafeLoader):
    """PyYAML's pure-Python scanner and parser, bounded: it gives every refusal and syntax error its
    message and line (the fast loader hands every document it cannot take to this one)."""

    def __init__(self, text: str, allow_aliases: bool) -> None:
        super().__init__(text)
        self._bounds_init(allow_aliases)

    # The scanner keeps per-level state, so depth is capped there too, before its work grows with it.
    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        if self.flow_level >= MAX_DEPTH:
            raise _too_deep(self.get_mark())
        super().fetch_flow_collection_start(TokenClass)

    def add_indent(self, column: int) -> bool:
        if len(self.indents) >= MAX_DEPTH:
            raise _too_deep(self.get_mark())
        return super().add_indent(column)


_CParser: Any
try:  # libyaml's scanner and parser, where PyYAML was built with it
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover (then every document takes the pure loader)
    _CParser = None

if _CParser is not None:
    class _FastBoundedLoader(_Bounds, yaml.composer.Composer, _CParser, yaml.resolver.Resolver):  # type: ignore[misc]
        """libyaml's scanner and parser (C: about ten times faster than PyYAML's own, whose scanning was most
        of the build's time spent reading front matter and specs) under the same Python composer, bounds and
        resolver, so the nodes are the ones the pure loader composes (but that a plain scalar's style is ""
        rather than None, and an indentless sequence's flow_style False rather than None: both falsy). Work
        stays linear in the text: libyaml keeps no per-level state that grows out of bounds, and the composer
        caps nesting as before."""

        def __init__(self, text: str, allow_aliases: bool) -> None:
            _CParser.__init__(self, text)
            yaml.composer.Composer.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            self._bounds_init(allow_aliases)


def _compose(text: str, allow_aliases: bool) -> yaml.Node | None:
    """The fast loader's node, or the pure loader's verdict (its exception) for anything the fast one does not
    take: the problems and their lines stay those of PyYAML's own messages."""
    if _CParser is not None:
        fast = _FastBoundedLoader(text, allow_aliases)
        try:
            return fast.get_single_node()
        except yaml.YAMLError:
            pass
        finally:
            fast.dispose()
    loader = _BoundedLoader(text, allow_aliases)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def expanded_size(node: yaml.Node, limit: int = MAX_EXPANDED_NODES) -> int:
    """Nodes in the document with every alias written out, counted in time linear in distinct nodes;
    stops counting once past ``limit``."""
    memo: dict[int, int] = {}

    def size(n: yaml.Node) -> int:
        if id(n) in memo:
            return memo[id(n)]
        total = 1
        children: list[yaml.Node] = []
        if isinstance(n, yaml.SequenceNode):
            children = list(n.value)
        elif isinstance(n, yaml.MappingNode):
            children = [part for pair in n.value for part in pair]
        for child in children:
            total = min(total + size(child), limit + 1)
        memo[id(n)] = total
        return total

    return size(node)


def parse_yaml(text: str, path: str, first_line: int = 1, *, allow_aliases: bool = False,
               max_bytes: int = textfile.MAX_BYTES) -> tuple[yaml.Node | None, list[Problem]]:
    """Compose ``text`` into a node tree within bounds; ``first_line`` is the file line of the text's
    first line. Size (``max_bytes``: a machine-written registry that grows with the content may allow
    more), control characters, nesting depth, aliases (refused unless ``allow_aliases``; then never
    cyclic and capped in expanded size) and syntax errors each become one problem."""
    if len(text) > max_bytes:
        return None, [textfile.size_problem(path, len(text), max_bytes)]
    control = textfile.control_problem(text, path, first_line)
    if control:
        return None, [control]
    try:
        node = _compose(text, allow_aliases)
    except _Refused as exc:
        return None, [Problem(path, first_line + exc.line, exc.problem or "", exc.remedy)]
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_problem(exc, path, first_line)]
    except yaml.YAMLError as exc:  # e.g. a reader error without a mark
        return None, [Problem(path, first_line, f"unreadable YAML ({exc})", "fix the YAML syntax")]
    if node is not None and allow_aliases and expanded_size(node) > MAX_EXPANDED_NODES:
        return None, [Problem(path, first_line + node.start_mark.line,
                              f"the YAML expands to more than {MAX_EXPANDED_NODES:,} values through its aliases",
                              "write the values out instead of nesting aliases")]
    if node is not None and first_line != 1:
        _shift(node, first_line - 1)
    return node, []


def _syntax_problem(exc: yaml.MarkedYAMLError, path: str, first_line: int) -> Problem:
    problem, context = exc.problem or "", exc.context or ""
    if "end of stream" in problem and exc.context_mark is not None and context.startswith("while scanning a quoted"):
        # Reported where the quote opens, not at the end of the text where the scanner gave up.
        return Problem(path, first_line + exc.context_mark.line, "malformed YAML: a quoted string is never closed",
                       "add the closing quote on this line")
    mark = exc.problem_mark or exc.context_mark
    line = first_line + (mark.line if mark else 0)
    what = problem or context or "unreadable YAML"
    return Problem(path, line, f"malformed YAML: {what}", "fix the YAML syntax at this line")


def _shift(node: yaml.Node, by: int) -> None:
    # libyaml's marks are read-only: each node gets moved copies (one per mark object, as marks are shared).
    moved: dict[int, yaml.Mark] = {}

    def move(mark: Any) -> yaml.Mark:
        if id(mark) not in moved:
            moved[id(mark)] = yaml.Mark(mark.name, mark.index, mark.line + by, mark.column, None, 0)
        return moved[id(mark)]

    done: set[int] = set()  # an aliased node is reached more than once; it moves once

    def visit(n: yaml.Node) -> None:
        if id(n) in done:
            return
        done.add(id(n))
        n.start_mark, n.end_mark = move(n.start_mark), move(n.end_mark)
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                visit(k)
                visit(v)
        elif isinstance(n, yaml.SequenceNode):
            for item in n.value:
                visit(item)

    visit(node)


def line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1
