"""Declared schemas for YAML data: dataclasses in, values with line numbers out.

Every data file of the project (front matter, experiment specs, the node registry, ``signoff.yaml``)
declares its shape once as a dataclass; :func:`build` checks a YAML node against it and reports
``path:line: problem; remedy`` for each mismatch, so no module sprinkles its own ``isinstance`` checks.

Supported field types: ``str``, ``int``, ``float``, ``bool``, ``Literal[...]``, ``list[T]``,
``dict[str, T]``, ``T | None`` and nested dataclasses. Field metadata (see
:func:`~site_plugins.files.fields.meta`, re-exported here) gives the YAML key when it differs from the
attribute name and a short description used in remedies.

This module must not import MkDocs: the measurement runner uses it on verification nodes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar, Union, get_args, get_origin

import yaml

from site_plugins.files import textfile
from site_plugins.files.fields import describe as describe
from site_plugins.files.fields import meta as meta
from site_plugins.files.fields import yaml_key as yaml_key
from site_plugins.files.messages import Problem

T = TypeVar("T")

_LINES_ATTR = "__gloss_lines__"


def line_of(obj: object, key: str | None = None, index: int | None = None) -> int:
    """Line (1-based) where ``obj`` (or its ``key``, or item ``index`` of that key) was written."""
    lines: dict[object, int] = getattr(obj, _LINES_ATTR, {})
    if key is not None and index is not None and (key, index) in lines:
        return lines[(key, index)]
    if key is not None and key in lines:
        return lines[key]
    return lines.get(None, 0)


#: Nesting deeper than this is refused before the composer recurses (no schema nests past a handful).
MAX_DEPTH = 32
#: With aliases allowed, the document expanded must stay under this many nodes (an "alias bomb" is refused).
MAX_EXPANDED_NODES = 100_000


class _Refused(yaml.MarkedYAMLError):
    def __init__(self, mark: Any, problem: str, remedy: str) -> None:
        super().__init__(problem=problem, problem_mark=mark)
        self.line = int(mark.line) if mark is not None else 0
        self.remedy = remedy


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
            raise _Refused(event.start_mark, f"the YAML is nested more than {MAX_DEPTH} levels deep",
                           "flatten it; no key here needs that much nesting")
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

    def _too_deep(self) -> _Refused:
        return _Refused(self.get_mark(), f"the YAML is nested more than {MAX_DEPTH} levels deep",
                        "flatten it; no key here needs that much nesting")

    # The scanner keeps per-level state, so depth is capped there too, before its work grows with it.
    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        if self.flow_level >= MAX_DEPTH:
            raise self._too_deep()
        super().fetch_flow_collection_start(TokenClass)

    def add_indent(self, column: int) -> bool:
        if len(self.indents) >= MAX_DEPTH:
            raise self._too_deep()
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


def build(cls: type[T], node: yaml.Node | None, path: str, where: str = "") -> tuple[T | None, list[Problem]]:
    """Check ``node`` against dataclass ``cls``; returns the value (None if unusable) and the problems."""
    problems: list[Problem] = []
    if node is None:
        node = yaml.MappingNode("tag:yaml.org,2002:map", [], yaml.Mark(path, 0, 0, 0, "", 0))
    value = _convert(cls, node, path, where, problems)
    return (value if not _failed(value) else None), problems


class _Failed:
    pass


_FAILED = _Failed()


def _failed(value: object) -> bool:
    return value is _FAILED


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    tag = node.tag.rsplit(":", 1)[-1]
    words = {"str": "a string", "int": "a whole number", "float": "a number", "bool": "a boolean",
             "null": "nothing", "timestamp": "a date"}
    if node.tag.startswith("tag:yaml.org,2002:") and tag in words:
        return words[tag]
    return f"a value tagged {_short(node.tag.replace('tag:yaml.org,2002:', '!!'))}"


def _short(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters for a message."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def _name(where: str) -> str:
    return f"'{where}'" if where else "the document"


def _type_problem(path: str, node: yaml.Node, where: str, tp: Any) -> Problem:
    return Problem(path, line(node), f"{_name(where)} must be {describe(tp)}, got {_kind(node)}",
                   f"write {where or 'it'} as {describe(tp)}")


@functools.cache  # resolving a dataclass's annotations is costly, and files hold thousands of records
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _convert(tp: Any, node: yaml.Node, path: str, where: str, problems: list[Problem]) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = get_args(tp)
        if type(None) in args and isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
            return None
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return _convert(rest[0], node, path, where, problems)
        for alt in rest:  # first alternative that converts cleanly wins
            trial: list[Problem] = []
            value = _convert(alt, node, path, where, trial)
            if not trial and not _failed(value):
                return value
        problems.append(_type_problem(path, node, where, tp))
        return _FAILED
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _convert_dataclass(tp, node, path, where, problems)
    if origin is list:
        (item_tp,) = get_args(tp)
        if not isinstance(node, yaml.SequenceNode):
            problems.append(_type_problem(path, node, where, tp))
            return _FAILED
        out = []
        for i, item in enumerate(node.value):
            value = _convert(item_tp, item, path, f"{where}[{i}]", problems)
            if not _failed(value):
                out.append(value)
        return out
    if origin is dict:
        _, value_tp = get_args(tp)
        if not isinstance(node, yaml.MappingNode):
            problems.append(_type_problem(path, node, where, tp))
            return _FAILED
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = _scalar_key(key_node)
            if key in mapping:
                problems.append(Problem(path, line(key_node), f"duplicate key '{where}.{key}'" if where
                                        else f"duplicate key '{key}'", "keep only one of them"))
                continue
            value = _convert(value_tp, value_node, path, f"{where}.{key}" if where else key, problems)
            if not _failed(value):
                mapping[key] = value
        return mapping
    if origin is typing.Literal:
        allowed = get_args(tp)
        value = _scalar(node)
        if _failed(value) or value not in allowed:
            got = _kind(node) if _failed(value) else repr(value)
            problems.append(Problem(path, line(node), f"{_name(where)} is {got}, not one of the allowed values",
                                    "use one of " + ", ".join(repr(a) for a in allowed)))
            return _FAILED
        return value
    return _convert_scalar(tp, node, path, where, problems)


def _scalar_key(node: yaml.Node) -> str:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else "?"


def _scalar(node: yaml.Node) -> Any:
    if not isinstance(node, yaml.ScalarNode):
        return _FAILED
    try:
        return yaml.SafeLoader("").construct_document(node)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError):  # e.g. !!int abc, 2026-13-45, 5,000 digits
        return _FAILED


def _convert_scalar(tp: Any, node: yaml.Node, path: str, where: str, problems: list[Problem]) -> Any:
    if not isinstance(node, yaml.ScalarNode):
        problems.append(_type_problem(path, node, where, tp))
        return _FAILED
    tag = node.tag.rsplit(":", 1)[-1]
    if tp is str:
        # Plain scalars that YAML would read as numbers or dates stay text for string fields.
        if tag in ("str", "int", "float", "timestamp") and node.value != "":
            return str(node.value)
        if tag == "str":
            return str(node.value)
    elif (tp is bool and tag == "bool") or (tp is int and tag == "int") or (tp is float and tag in ("int", "float")):
        value = _scalar(node)
        if not _failed(value):
            return float(value) if tp is float else value
        what = f"{_name(where)} is not a valid {describe(tp)[2:]}: {_short(repr(node.value))}"
        problems.append(Problem(path, line(node), what, f"write {where or 'it'} as {describe(tp)}"))
        return _FAILED
    elif tp in (dt.date, dt.datetime) and tag == "timestamp":
        value = _scalar(node)
        if _failed(value):
            problems.append(Problem(path, line(node), f"{_name(where)} is not a valid date: {_short(repr(node.value))}",
                                    f"write {where or 'it'} as {describe(tp)}"))
            return _FAILED
        if tp is dt.datetime and isinstance(value, dt.datetime):
            return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        if tp is dt.date and isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            return value
    problems.append(_type_problem(path, node, where, tp))
    return _FAILED


def _convert_dataclass(cls: type, node: yaml.Node, path: str, where: str, problems: list[Problem]) -> Any:
    if not isinstance(node, yaml.MappingNode):
        problems.append(_type_problem(path, node, where, cls))
        return _FAILED
    fields = {yaml_key(f): f for f in dataclasses.fields(cls) if f.init}
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    lines: dict[object, int] = {None: line(node)}
    failed = False
    seen: set[str] = set()
    for key_node, value_node in node.value:
        key = _scalar_key(key_node)
        child = f"{where}.{key}" if where else key
        if key in seen:
            problems.append(Problem(path, line(key_node), f"duplicate key '{child}'", "keep only one of them"))
            continue
        seen.add(key)
        f = fields.get(key)
        if f is None:
            close = difflib.get_close_matches(key, list(fields), n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            problems.append(Problem(path, line(key_node), f"unknown key '{child}'",
                                    f"{hint}allowed keys: {', '.join(fields)}"))
            continue
        lines[f.name] = line(key_node)
        if isinstance(value_node, yaml.SequenceNode):
            for i, item in enumerate(value_node.value):
                lines[(f.name, i)] = line(item)
        value = _convert(hints[f.name], value_node, path, child, problems)
        if _failed(value):
            failed = True
        else:
            kwargs[f.name] = value
    for key, f in fields.items():
        if key not in seen and _required(f):
            child = f"{where}.{key}" if where else key
            doc = f.metadata.get("doc") or describe(hints[f.name])
            problems.append(Problem(path, line(node), f"missing required key '{child}'", f"add '{key}:' ({doc})"))
            failed = True
    if failed:
        return _FAILED
    obj = cls(**kwargs)
    object.__setattr__(obj, _LINES_ATTR, lines)
    return obj


def _required(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def from_mapping(cls: type[T], data: Mapping[str, Any], path: str) -> tuple[T | None, list[Problem]]:
    """Check already-loaded data (e.g. JSON) against ``cls``; lines are unknown there, so 0."""
    node = yaml.compose(yaml.safe_dump(dict(data), sort_keys=False), Loader=yaml.SafeLoader)
    value, problems = build(cls, node, path)
    return value, [Problem(p.path, 0, p.problem, p.remedy) for p in problems]
