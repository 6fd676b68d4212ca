"""Fingerprints: a sha256 over a canonical encoding of exactly what a sign-off covers."""

from __future__ import annotations

import hashlib
import json

from site_plugins.signable import Signable
from site_plugins.signoff.model import Covers


def normalise(text: str) -> str:
    # A checkout with CRLF line ends renders the same page; it must not void every signature.
    return text.replace("\r\n", "\n")


def _digest(payload: object) -> str:
    data = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _files(s: Signable) -> list[list[str]]:
    return [[path, normalise(text)] for path, text in sorted(s.files)]


def fingerprint(s: Signable) -> str:
    """sha256 over the entry's text, shown values, quoted code and published code files (not its path)."""
    return _digest({"v": 2, "text": normalise(s.text), "shown_values": list(s.shown_values),
                    "quoted_code": [normalise(c) for c in s.quoted_code], "files": _files(s)})


def _part(payload: object) -> str:
    # A part's digest only tells status and diff which part changed (the fingerprint is what is signed),
    # so 64 bits are plenty and keep signoff.yaml small.
    return _digest(payload)[:23]


def covers(s: Signable) -> Covers:
    return Covers(text=_part(normalise(s.text)), values=_part(list(s.shown_values)),
                  code=_part([normalise(c) for c in s.quoted_code]), files=_part(_files(s)))


def changed_parts(signed: Covers | None, now: Signable) -> list[str]:
    """Which parts ("text", "measured values", "quoted code", "code files") differ from a signature's digests."""
    if signed is None:
        return []
    cur = covers(now)
    pairs = (("text", signed.text, cur.text), ("measured values", signed.values, cur.values),
             ("quoted code", signed.code, cur.code), ("code files", signed.files, cur.files))
    return [label for label, a, b in pairs if a != b]
