"""The declared schema of ``signoff.yaml`` and how people are told apart.

A person is known by their name and by the SSH public keys registered for them. Names are compared in
:func:`ident` form: Unicode NFKC, every default-ignorable code point removed (zero-width joiners and
spaces, soft hyphens, bidi controls, variation selectors...), case folded, whitespace collapsed; so
"Zoë", "zoë ", a decomposed "Zoë" and a full-width "Ｚｏë" are one person. Two names whose
:func:`skeleton` (each character replaced by a representative of its Unicode confusables class) agree
look alike and are refused, and a name holding a character a reader cannot see (:func:`invisible`) is
refused outright: a byline must read as what it is.
"""

from __future__ import annotations

import datetime as dt
import functools
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from site_plugins.files import schema

FILE = "signoff.yaml"
Role = Literal["author", "reviewer"]
State = Literal["draft", "awaiting-review", "signed", "changed"]

# What a byline may not hold: Unicode's Default_Ignorable_Code_Point (rendered as nothing), format and
# control characters, private-use, unassigned and surrogate code points, line and paragraph separators,
# and the few blanks that are none of these but draw nothing (Braille blank, Hangul fillers are DI).
# The ``regex`` module carries the Unicode property tables; the standard library has no DI property.
# (Compiled on first use: the module's import costs a few milliseconds every build, and only a project
# with people in signoff.yaml compares names.)
@functools.cache
def _patterns() -> tuple[Any, Any]:
    import regex

    invisible = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}"
                              r"\u2800\ufffc]")
    return invisible, regex.compile(r"\p{Default_Ignorable_Code_Point}")


def invisible(name: str) -> list[tuple[int, str]]:
    """(1-based character position, ``U+XXXX NAME``) for each character of ``name`` a reader cannot see."""
    out = []
    for m in _patterns()[0].finditer(name):
        ch = m.group()
        out.append((m.start() + 1, f"U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')}"))
    return out


def shown(name: str) -> str:
    """``name`` with every invisible character spelt out as <U+XXXX>, so that a message shows it."""
    invisible_ = _patterns()[0]
    return "".join(f"<U+{ord(ch):04X}>" if invisible_.fullmatch(ch) else ch for ch in name)


def _visible(name: str) -> str:
    # NFKC first (it can produce ignorables, e.g. from compatibility forms), then drop them, then NFKC
    # again because removing one may leave a sequence that composes.
    text = _patterns()[1].sub("", unicodedata.normalize("NFKC", name))
    return unicodedata.normalize("NFKC", text)


def ident(name: str) -> str:
    """The form in which two names are compared: NFKC, default-ignorables removed, case folded (and
    NFKC again, as case folding can denormalise), whitespace trimmed and collapsed."""
    folded = unicodedata.normalize("NFKC", _visible(name).casefold())
    return " ".join(folded.split())


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each character that has look-alikes -> one representative of its class (the smallest code point),
    from confusable-homoglyphs' copy of the Unicode confusables table. Classes are closed under the
    table's single-character pairs, so "a" (Latin), "а" (Cyrillic) and "ɑ" share one representative."""
    from confusable_homoglyphs import confusables

    parent: dict[str, str] = {}

    def find(ch: str) -> str:
        while parent.get(ch, ch) != ch:
            ch = parent[ch]
        return ch

    for char, found in confusables.confusables_data.items():
        a = _patterns()[1].sub("", char)  # the table wraps right-to-left glyphs in U+200E marks
        if len(a) != 1:
            continue
        for h in found:
            b = _patterns()[1].sub("", h["c"])
            if len(b) == 1:
                ra, rb = find(a), find(b)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
    return {root: root for root in parent.values()} | {ch: find(ch) for ch in parent}


def skeletons(name: str) -> frozenset[str]:
    """Forms shared by names that look alike: each character replaced by its confusables class's
    representative, as written (so "Ian" meets "lan") and case folded (so "аda author", Cyrillic а,
    meets "ADA AUTHOR"). Two names look alike when their skeletons meet. Case folding is not merged into
    the classes: that would chain unrelated letters ("f" with "s" through "S" and "5")."""
    table = _prototypes()
    text = " ".join(_visible(name).split())
    return frozenset(" ".join(unicodedata.normalize("NFKC", "".join(table.get(ch, ch) for ch in form)).split())
                     for form in (text, unicodedata.normalize("NFKC", text.casefold())))


def skeleton(name: str) -> str:
    """The case-folded one of :func:`skeletons`."""
    table = _prototypes()
    text = unicodedata.normalize("NFKC", " ".join(_visible(name).split()).casefold())
    return " ".join(unicodedata.normalize("NFKC", "".join(table.get(ch, ch) for ch in text)).split())


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
            if wanted and wanted in (ident(p.name), ident(p.handle or "")):  # "" (or only invisibles) is nobody
                return p
        return None

    def names(self) -> set[str]:
        """The registered names, in :func:`ident` form."""
        return {ident(p.name) for p in self.people}

    def registered(self, name: str) -> bool:
        return ident(name) in self.names()


def same_person(a: str, b: str) -> bool:
    return ident(a) == ident(b)
