"""Text held compressed: a build's generated pages wait in memory from the start of the build until
MkDocs reads each one, and every page's Markdown (its measured tables and charts included) waiting at
once was the largest part of a build's memory (about 12 KB a term; compressed, about a quarter)."""

from __future__ import annotations

import zlib
from collections.abc import Iterator, MutableMapping

#: Entries from which a build packs the text it holds. Below it everything held at once is a few MB, and
#: packing and unpacking each page's texts cost more (about 35 ms of a 1 s build at 100 terms) than the room
#: is worth.
PACK_FROM = 300

Packed = str | bytes  # a text as held: zlib-compressed bytes, or the text itself in a small build


def pack(text: str, on: bool = True) -> Packed:
    return zlib.compress(text.encode("utf-8"), 1) if on else text  # level 1: fast, most of the gain


def unpack(value: Packed) -> str:
    return value if isinstance(value, str) else zlib.decompress(value).decode("utf-8")


def packing(entries: int) -> bool:
    """Whether a build of ``entries`` entries packs what it holds."""
    return entries >= PACK_FROM


class PackedTexts(MutableMapping[str, str]):
    """A ``dict[str, str]`` that keeps each value zlib-compressed (``on``; else as it is)."""

    def __init__(self, items: dict[str, str] | None = None, *, on: bool = True) -> None:
        self._data: dict[str, Packed] = {}
        self.on = on
        if items:
            self.update(items)

    def __getitem__(self, key: str) -> str:
        return unpack(self._data[key])

    def __setitem__(self, key: str, value: str) -> None:
        self._data[key] = pack(value, self.on)

    def __delitem__(self, key: str) -> None:
        del self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __repr__(self) -> str:
        return f"PackedTexts({dict(self)!r})"
