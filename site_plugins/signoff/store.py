"""Writing ``signoff.yaml``: a round trip that keeps comments, key order and people's formatting."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from site_plugins import atomic, schema
from site_plugins.signoff.model import FILE, EntrySignoff, Registry
from site_plugins.signoff.registry import compose

HEADER = """\
# Sign-off registry. Only site_plugins/signoff/ reads this file; entries are written by `gloss sign`.
"""


class NotWritten(Exception):
    """The updated file would not read back as what was meant; nothing was written."""


def _yaml() -> Any:
    from ruamel.yaml import YAML

    y = YAML()
    y.preserve_quotes = True
    y.width = 4096
    y.indent(mapping=2, sequence=4, offset=2)

    def stamp(rep: Any, value: dt.datetime) -> Any:
        text = value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return rep.represent_scalar("tag:yaml.org,2002:timestamp", text)

    y.representer.add_representer(dt.datetime, stamp)
    y.representer.ignore_aliases = lambda data: True  # the reader refuses anchors: write repeats out in full
    return y


def _to_map(value: Any) -> Any:
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.scalarstring import LiteralScalarString

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        m = CommentedMap()
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if v is not None:
                m[schema.yaml_key(f)] = _to_map(v)
        return m
    if isinstance(value, str) and "\n" in value:
        return LiteralScalarString(value)  # an armored SSH signature, as a readable block
    return value


def write_entries(root: Path, records: Mapping[str, EntrySignoff]) -> None:
    """Store each record as the sign-off of its path in ``root/signoff.yaml``, in one atomic write.

    A new entry is placed in path order. The result is checked before it replaces the file.
    """
    from ruamel.yaml.comments import CommentedMap

    target = root / FILE
    y = _yaml()
    empty = HEADER + "people: []\nentries: {}\n"
    original = target.read_text(encoding="utf-8") if target.is_file() else empty
    doc = y.load(original)
    if doc is None:
        doc = CommentedMap()
    if doc.get("people") is None:
        doc["people"] = []
    if not doc.get("entries"):
        doc["entries"] = CommentedMap()
    entries = doc["entries"]
    for path in sorted(records):
        value = _to_map(records[path])
        if path in entries:
            entries[path] = value
        else:
            pos = sum(1 for k in entries if str(k) < path)
            entries.insert(pos, path, value)
    buf = io.StringIO()
    y.dump(doc, buf)
    text = buf.getvalue()
    # Never replace a good file with one that does not read back as what was meant.
    node, problems = compose(text)
    back, more = schema.build(Registry, node, FILE) if not problems else (None, [])
    problems += more
    if back is None or problems or any(back.entries.get(p) != r for p, r in records.items()):
        raise NotWritten("the updated signoff.yaml would not read back as written:\n"
                         + "\n".join(str(p) for p in problems))
    atomic.write_text(target, text)


def write_entry(root: Path, path: str, record: EntrySignoff) -> None:
    write_entries(root, {path: record})
