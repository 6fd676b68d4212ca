"""Writing ``signoff.yaml``: a round trip that keeps comments, key order and people's formatting."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from site_plugins.files import atomic, schema
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

    A new entry is placed in path order; everything else in the file is kept as it was. The result is
    checked before it replaces the file: it must read back as exactly the old registry with these records.
    """
    target = root / FILE
    original = target.read_text(encoding="utf-8") if target.is_file() else HEADER + "people: []\nentries: {}\n"
    before = _read(original)
    text = _splice(original, records)
    if text is None or before is None or not _as_meant(text, before, records):
        text = _round_trip(original, records)
    # Never replace a good file with one that does not read back as what was meant.
    node, problems = compose(text)
    back, more = schema.build(Registry, node, FILE) if not problems else (None, [])
    problems += more
    if back is None or problems or any(back.entries.get(p) != r for p, r in records.items()):
        raise NotWritten("the updated signoff.yaml would not read back as written:\n"
                         + "\n".join(str(p) for p in problems))
    atomic.write_text(target, text)


def _read(text: str) -> Registry | None:
    node, problems = compose(text)
    reg, more = schema.build(Registry, node, FILE) if not problems else (None, [])
    return reg if reg is not None and not more else None


def _as_meant(text: str, before: Registry, records: Mapping[str, EntrySignoff]) -> bool:
    after = _read(text)
    return after is not None and after.people == before.people and after.entries == {**before.entries, **records}


def _block(path: str, record: EntrySignoff) -> list[str]:
    """The lines of one entry under ``entries:``, as the round trip writes them."""
    from ruamel.yaml.comments import CommentedMap

    buf = io.StringIO()
    doc = CommentedMap()
    doc[path] = _to_map(record)
    _yaml().dump(doc, buf)
    return ["  " + line if line else line for line in buf.getvalue().splitlines()]


def _splice(text: str, records: Mapping[str, EntrySignoff]) -> str | None:
    """``text`` with each record's block replaced or inserted in path order, the rest untouched; None when
    the file's layout is not the one gloss sign writes (a block mapping under ``entries:``)."""
    import yaml

    node, problems = compose(text)
    if problems or not isinstance(node, yaml.MappingNode):
        return None
    entries = next((v for k, v in node.value if k.value == "entries"), None)
    if not isinstance(entries, yaml.MappingNode) or entries.flow_style or not entries.value:
        return None
    lines = text.splitlines()
    if entries.end_mark.line > len(lines):
        return None
    # Each entry's lines: from its key to the next key (the last one: to the end of the mapping).
    keys = [(str(k.value), k.start_mark.line) for k, _ in entries.value]
    if any(k.start_mark.column != 2 for k, _ in entries.value) or [k for k, _ in keys] != sorted(k for k, _ in keys):
        return None
    ends = [line for _, line in keys[1:]] + [entries.end_mark.line]
    spans = {k: (start, end) for (k, start), end in zip(keys, ends, strict=True)}
    out = list(lines)
    for path in sorted(records, reverse=True):  # bottom up, so earlier line numbers stay valid
        block = _block(path, records[path])
        if path in spans:
            start, end = spans[path]
            while end > start + 1 and not out[end - 1].startswith("    "):  # keep comments that follow
                end -= 1
            out[start:end] = block
        else:
            at = next((start for k, (start, _) in spans.items() if k > path), ends[-1])
            out[at:at] = block
    return "\n".join(out) + "\n"


def _round_trip(original: str, records: Mapping[str, EntrySignoff]) -> str:
    from ruamel.yaml.comments import CommentedMap

    y = _yaml()
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
    return buf.getvalue()


def write_entry(root: Path, path: str, record: EntrySignoff) -> None:
    write_entries(root, {path: record})
