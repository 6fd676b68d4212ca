"""Check already-parsed JSON data against a declared dataclass, fast enough for thousands of samples.

``site_plugins.files.schema`` checks YAML nodes (it keeps line numbers for hand-written files); result files
are machine-written JSON holding long lists of raw samples, for which a round trip through YAML nodes
costs seconds. This checker walks the same kind of declaration (the dataclasses in
:mod:`measure.store.results`) over plain Python data and words its problems as the YAML checker does
(``site_plugins.files.fields.describe``, which imports no YAML). JSON has no lines worth pointing at,
so problems carry line 0 and a dotted key path.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from typing import Any, TypeVar, Union, get_args, get_origin

from site_plugins.files.fields import describe
from site_plugins.files.messages import Problem

T = TypeVar("T")


class _Bad(Exception):
    pass


def from_json(cls: type[T], data: object, path: str, remedy: str) -> tuple[T | None, list[Problem]]:
    """Convert ``data`` into ``cls``; on mismatch return None and one problem per mismatch."""
    problems: list[Problem] = []
    try:
        value = _convert(cls, data, "", path, remedy, problems)
    except _Bad:
        return None, problems
    return (value, []) if not problems else (None, problems)


@functools.cache  # resolving annotations costs more than checking a record, and files hold thousands
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _where(where: str) -> str:
    return f"'{where}'" if where else "the document"


def _kind(data: object) -> str:
    if data is None:
        return "null"
    if isinstance(data, bool):
        return "a boolean"
    if isinstance(data, int):
        return "a whole number"
    if isinstance(data, float):
        return "NaN" if math.isnan(data) else "an infinite number" if math.isinf(data) else "a number"
    if isinstance(data, str):
        return "a string"
    if isinstance(data, list):
        return "a list"
    if isinstance(data, dict):
        return "a mapping"
    return type(data).__name__


def _bad(tp: Any, data: object, where: str, path: str, remedy: str, problems: list[Problem]) -> typing.NoReturn:
    problems.append(Problem(path, 0, f"{_where(where)} must be {describe(tp)}, got {_kind(data)}", remedy))
    raise _Bad


def _convert(tp: Any, data: object, where: str, path: str, remedy: str, problems: list[Problem]) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = get_args(tp)
        if data is None and type(None) in args:
            return None
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:  # 'T | None': T's own problem says more than "must be T or nothing"
            return _convert(rest[0], data, where, path, remedy, problems)
        for alt in rest:
            trial: list[Problem] = []
            try:
                return _convert(alt, data, where, path, remedy, trial)
            except _Bad:
                continue
        _bad(tp, data, where, path, remedy, problems)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(data, dict):
            _bad(tp, data, where, path, remedy, problems)
        hints = _hints(tp)
        fields = {f.name: f for f in dataclasses.fields(tp) if f.init}
        kwargs: dict[str, Any] = {}
        for key in data:
            if key not in fields:
                problems.append(Problem(path, 0, f"unknown key '{where + '.' if where else ''}{key}'", remedy))
                raise _Bad
        for name, f in fields.items():
            child = f"{where}.{name}" if where else name
            if name not in data:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    problems.append(Problem(path, 0, f"missing required key '{child}'", remedy))
                    raise _Bad
                continue
            kwargs[name] = _convert(hints[name], data[name], child, path, remedy, problems)
        return tp(**kwargs)
    if origin is list:
        (item_tp,) = get_args(tp)
        if not isinstance(data, list):
            _bad(tp, data, where, path, remedy, problems)
        if item_tp is float:  # the hot path: raw samples
            if not all(type(x) is float or type(x) is int for x in data):
                _bad(tp, next(x for x in data if type(x) not in (float, int)), where, path, remedy, problems)
            return [float(x) for x in data]
        if item_tp is int:
            if not all(type(x) is int for x in data):
                _bad(tp, next(x for x in data if type(x) is not int), where, path, remedy, problems)
            return list(data)
        return [_convert(item_tp, x, f"{where}[{i}]", path, remedy, problems) for i, x in enumerate(data)]
    if origin is dict:
        _, value_tp = get_args(tp)
        if not isinstance(data, dict):
            _bad(tp, data, where, path, remedy, problems)
        return {str(k): _convert(value_tp, v, f"{where}.{k}", path, remedy, problems) for k, v in data.items()}
    if origin is typing.Literal:
        if data not in get_args(tp):
            problems.append(Problem(path, 0, f"{_where(where)} is {data!r}, not one of the allowed values", remedy))
            raise _Bad
        return data
    if tp is bool:
        if type(data) is not bool:
            _bad(tp, data, where, path, remedy, problems)
        return data
    if tp is int:
        if type(data) is not int:
            _bad(tp, data, where, path, remedy, problems)
        return data
    if tp is float:
        if type(data) not in (int, float):
            _bad(tp, data, where, path, remedy, problems)
        value = float(typing.cast(float, data))
        if math.isnan(value):
            _bad(tp, data, where, path, remedy, problems)
        return value
    if tp is str:
        if type(data) is not str:
            _bad(tp, data, where, path, remedy, problems)
        return data
    raise TypeError(f"unsupported type {tp!r} in a result declaration")
