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

# (Re-exported: every reader of a data file calls parse_yaml, then build.)
from site_plugins.files.boundedyaml import MAX_DEPTH as MAX_DEPTH
from site_plugins.files.boundedyaml import MAX_EXPANDED_NODES as MAX_EXPANDED_NODES
from site_plugins.files.boundedyaml import expanded_size as expanded_size
from site_plugins.files.boundedyaml import line as line
from site_plugins.files.boundedyaml import parse_yaml as parse_yaml
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
