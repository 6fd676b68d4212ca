"""Fingerprints: a sha256 over a canonical encoding of exactly what a sign-off covers."""

from __future__ import annotations

import hashlib
import json

from site_plugins.signoff.model import Covers
from site_plugins.signoff.signable import Signable


def normalise(text: str) -> str:
    # A checkout with CRLF line ends renders the same page; it must not void every signature.
    return text.replace("\r\n", "\n")


def _digest(payload: object) -> str:
    data = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _files(s: Signable) -> list[list[str]]:
    return [[path, normalise(text)] for path, text in sorted(s.files)]


def fingerprint(s: Signable) -> str:
    """sha256 over the entry's text, shown values, quoted code, published code files and the bytes of its
    static files (not its path)."""
    payload: dict[str, object] = {"v": 2, "text": normalise(s.text), "shown_values": list(s.shown_values),
                                  "quoted_code": [normalise(c) for c in s.quoted_code], "files": _files(s)}
    if s.statics:  # (absent for an entry without static files: their signatures stay as they were)
        payload["statics"] = [list(p) for p in sorted(s.statics)]
    return _digest(payload)


def _part(payload: object) -> str:
    # A part's digest only tells status and diff which part changed (the fingerprint is what is signed),
    # so 64 bits are plenty and keep signoff.yaml small.
    return _digest(payload)[:23]


def _files_part(s: Signable) -> object:
    # Static files are reported with the code files: Covers keeps its four parts.
    return [_files(s), [list(p) for p in sorted(s.statics)]] if s.statics else _files(s)


def covers(s: Signable) -> Covers:
    return Covers(text=_part(normalise(s.text)), values=_part(list(s.shown_values)),
                  code=_part([normalise(c) for c in s.quoted_code]), files=_part(_files_part(s)))


def changed_parts(signed: Covers | None, now: Signable) -> list[str]:
    """Which parts ("text", "measured values", "quoted code", "code files" or, for an entry with static
    files, "code or static files") differ from a signature's digests."""
    if signed is None:
        return []
    cur = covers(now)
    pairs = (("text", signed.text, cur.text), ("measured values", signed.values, cur.values),
             ("quoted code", signed.code, cur.code),
             ("code or static files" if now.statics else "code files", signed.files, cur.files))
    return [label for label, a, b in pairs if a != b]
