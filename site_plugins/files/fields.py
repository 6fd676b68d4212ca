"""How a declared field is described: its metadata, its key, its type in words. No YAML here.

:mod:`~site_plugins.files.schema` checks YAML nodes against dataclasses and :mod:`measure.store.typed`
checks parsed JSON; both declare fields with :func:`meta` and word types with :func:`describe`. The JSON
readers (the link checker's evidence file, result files) import only this module, not PyYAML (about
8 ms of a ``gloss links check``'s start-up, bench/links/README.md).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
import typing
from typing import Any, Union, get_args, get_origin


def meta(doc: str = "", key: str | None = None, example: str | None = None) -> dict[str, Any]:
    """Field metadata: ``doc`` explains the key in remedies; ``key`` is its YAML spelling."""
    return {"doc": doc, "key": key, "example": example}


def yaml_key(f: dataclasses.Field[Any]) -> str:
    key = f.metadata.get("key")
    return key if isinstance(key, str) else f.name


def describe(tp: Any) -> str:
    """The type in words, for messages."""
    origin = get_origin(tp)
    if tp is str:
        return "a string"
    if tp is bool:
        return "true or false"
    if tp is int:
        return "a whole number"
    if tp is float:
        return "a number"
    if tp is dt.date:
        return "a date (YYYY-MM-DD)"
    if tp is dt.datetime:
        return "a date and time (YYYY-MM-DDTHH:MM:SSZ)"
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if origin is list:
        (item,) = get_args(tp)
        return f"a list of {_plural(item)}"
    if origin is dict:
        return f"a mapping of names to {_plural(get_args(tp)[1])}"
    if origin in (Union, types.UnionType):
        parts = [a for a in get_args(tp) if a is not type(None)]
        return " or ".join(describe(a) for a in parts)
    if dataclasses.is_dataclass(tp):
        return "a mapping"
    return str(tp)


def _plural(tp: Any) -> str:
    words = describe(tp)
    for single, plural in (("a string", "strings"), ("a whole number", "whole numbers"), ("a number", "numbers"),
                           ("a mapping", "mappings"), ("true or false", "booleans")):
        if words == single:
            return plural
    return words
