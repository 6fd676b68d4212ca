"""Text held compressed: a build's generated pages wait in memory from the start of the build until
MkDocs reads each one, and every page's Markdown (its measured tables and charts included) waiting at
once was the largest part of a build's memory (about 12 KB a term; compressed, about a quarter)."""

from __future__ import annotations

import zlib
from collections.abc import Iterator, MutableMapping


class PackedTexts(MutableMapping[str, str]):
    """A ``dict[str, str]`` that keeps each value zlib-compressed (level 1: fast, most of the gain)."""

    def __init__(self, items: dict[str, str] | None = None) -> None:
        self._data: dict[str, bytes] = {}
        if items:
            self.update(items)

    def __getitem__(self, key: str) -> str:
        return zlib.decompress(self._data[key]).decode("utf-8")

    def __setitem__(self, key: str, value: str) -> None:
        self._data[key] = zlib.compress(value.encode("utf-8"), 1)

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
