"""The declared schema of ``signoff.yaml`` and how people are told apart.

A person is known by their name (compared after Unicode NFC, trimming and case folding, so that
"Zoë", "zoë " and a decomposed "Zoë" are one person) and by the SSH public keys registered for them.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from site_plugins import schema

FILE = "signoff.yaml"
Role = Literal["author", "reviewer"]
State = Literal["draft", "awaiting-review", "signed", "changed"]


def ident(name: str) -> str:
    """The form in which two names are compared: NFC, whitespace trimmed and collapsed, case folded."""
    return unicodedata.normalize("NFC", " ".join(name.split())).casefold()


def skeleton(name: str) -> str:
    """A form shared by names that look alike: every character replaced by the smallest of its
    homoglyphs in the Unicode confusables table (confusable-homoglyphs' copy of it)."""
    from confusable_homoglyphs import confusables

    text = ident(name)
    found = confusables.is_confusable(text, greedy=True) or []
    swap = {f["character"]: min([f["character"], *(h["c"] for h in f["homoglyphs"])]) for f in found}
    return ident("".join(swap.get(ch, ch) for ch in text))


@dataclass(frozen=True)
class Person:
    name: str = field(metadata=schema.meta("the name as it appears in bylines, e.g. Ada Author"))
    keys: list[str] = field(metadata=schema.meta(
        "the person's SSH public keys, one line each as in ~/.ssh/id_ed25519.pub", example="ssh-ed25519 AAAA..."))
    handle: str | None = field(default=None,
                               metadata=schema.meta("a short name accepted by gloss sign --name"))
    email: str | None = None


@dataclass(frozen=True)
class Covers:
    """A digest per part of what was signed, so that status and diff can say which part changed."""

    text: str
    values: str
    code: str
    files: str


@dataclass(frozen=True)
class Signature:
    name: str = field(metadata=schema.meta("the registered name of the person who signed"))
    on: dt.datetime = field(metadata=schema.meta("when they signed, in UTC, e.g. 2026-12-01T10:00:00Z"))
    fingerprint: str = field(metadata=schema.meta("sha256:... of what was signed, written by gloss sign"))
    signature: str = field(metadata=schema.meta("the SSH signature made by gloss sign (-----BEGIN SSH SIGNATURE-----)"))
    commit: str | None = field(default=None, metadata=schema.meta("the git commit holding the signed text"))
    covers: Covers | None = None


@dataclass(frozen=True)
class Pair:
    author: Signature | None = None
    reviewer: Signature | None = None


@dataclass(frozen=True)
class EntrySignoff:
    author: Signature | None = None
    reviewer: Signature | None = None
    previous: Pair | None = field(
        default=None, metadata=schema.meta("the last version both signed, kept while a change is re-signed"))


@dataclass(frozen=True)
class Registry:
    people: list[Person] = field(default_factory=list)
    entries: dict[str, EntrySignoff] = field(default_factory=dict)

    def person(self, name_or_handle: str) -> Person | None:
        wanted = ident(name_or_handle)
        for p in self.people:
            if wanted in (ident(p.name), ident(p.handle or "")):
                return p
        return None

    def names(self) -> set[str]:
        """The registered names, in :func:`ident` form."""
        return {ident(p.name) for p in self.people}

    def registered(self, name: str) -> bool:
        return ident(name) in self.names()


def same_person(a: str, b: str) -> bool:
    return ident(a) == ident(b)
