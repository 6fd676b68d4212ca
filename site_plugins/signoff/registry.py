"""Reading ``signoff.yaml`` and checking it: the people, their keys, and every recorded signature.

Integrity problems are ``signoff.yaml:LINE: problem; remedy`` values (a strict build fails on them).
A signature that does not verify against a key registered to the person it names is dropped from the
registry that is returned (fail closed: it counts for nothing) and reported.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from site_plugins.files import schema, textfile
from site_plugins.files.messages import Problem
from site_plugins.signoff import keys
from site_plugins.signoff.model import (
    FILE,
    EntrySignoff,
    Pair,
    Person,
    Registry,
    Signature,
    ident,
    invisible,
    shown,
    skeletons,
)

FINGERPRINT = re.compile(r"^sha256:[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{7,64}$")
T = TypeVar("T")
#: signoff.yaml grows by about 1.5 KB per signed entry (two SSH signatures and their digests), so it may
#: be larger than a hand-written data file: this allows some twenty thousand signed entries.
MAX_BYTES = 32 * 1024 * 1024


def read(root: Path) -> tuple[Registry, list[Problem]]:
    """Read and check ``root/signoff.yaml``, each version as it stands (:func:`site_plugins.signoff.history.load`
    also drops the pairs git history shows superseded). A missing file is an empty registry."""
    path = root / FILE
    if not os.path.lexists(path):
        return Registry(), []
    # Anything else named signoff.yaml (a folder, a dangling link, a FIFO) is a problem, not an empty file.
    text, problems = textfile.read(path, FILE, max_bytes=MAX_BYTES)
    if text is None:
        return Registry(), problems
    return parse(text)


def parse(text: str) -> tuple[Registry, list[Problem]]:
    """Check the text of ``signoff.yaml``; on problems, whatever could be read is kept (fail closed:
    a signature that did not parse or verify does not count)."""
    node, problems = compose(text)
    if problems:
        return Registry(), problems
    if node is not None and node.tag.endswith(":null"):
        node = None
    reg, problems = schema.build(Registry, node, FILE)
    if reg is None:
        reg = _salvage(node)
    more = _people(reg) + _integrity(reg)
    reg, bad = verified(reg)
    # A person whose name or handle a reader cannot see correctly (or at all) is reported and counts for nobody.
    people = [p for p in reg.people
              if ident(p.name) and not invisible(p.name) and not invisible(p.handle or "")]
    if len(people) != len(reg.people):
        reg = keep_lines(reg, dataclasses.replace(reg, people=people))
    return reg, problems + more + bad


def compose(text: str) -> tuple[Any, list[Problem]]:
    """The YAML node tree of ``text``, read within the schema's bounds (no aliases, capped depth and size).

    signoff.yaml is read on every build and grows with the content (thousands of signatures), so a plain
    file (no anchor or alias, nesting within the schema's cap, no control character) is read with libyaml;
    anything else, or any error, goes through the schema's own bounded reader, which says what is wrong."""
    fast = _plain_compose(text)
    return (fast, []) if fast is not None else schema.parse_yaml(text, FILE, max_bytes=MAX_BYTES)


def _plain_compose(text: str) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None or len(text) > MAX_BYTES or textfile.control_problem(text, FILE) is not None:
        return None
    depth = 0
    try:
        # Events first (libyaml's parser does not recurse): refuse aliases, anchors and deep nesting before
        # anything is composed.
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                return None
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > schema.MAX_DEPTH:
                    return None
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        return yaml.compose(text, Loader=loader)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def _salvage(node: Any) -> Registry:
    # Keep the people and the entries that are well-formed, so one bad signature does not unpublish
    # (or hide the state of) every other entry.
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return Registry()
    people: list[Person] = []
    entries: dict[str, EntrySignoff] = {}
    for key, value in node.value:
        if key.value == "people" and isinstance(value, yaml.SequenceNode):
            for item in value.value:
                p, probs = schema.build(Person, item, FILE)
                if p is not None and not probs:
                    people.append(p)
        elif key.value == "entries" and isinstance(value, yaml.MappingNode):
            for k, v in value.value:
                e, probs = schema.build(EntrySignoff, v, FILE)
                if e is not None and not probs:
                    entries[str(k.value)] = e
    return Registry(people=people, entries=entries)


def signatures(e: EntrySignoff) -> Iterator[tuple[str, Signature]]:
    """(role, signature) for each signature in a record; roles of the kept pair read ``previous.ROLE``."""
    for role, sig in (("author", e.author), ("reviewer", e.reviewer)):
        if sig is not None:
            yield role, sig
    if e.previous is not None:
        for role, sig in (("author", e.previous.author), ("reviewer", e.previous.reviewer)):
            if sig is not None:
                yield f"previous.{role}", sig


def owners(reg: Registry) -> dict[str, Person | None]:
    """Registered public keys (OpenSSH form) -> their person; None for a key listed under two people
    (an error that makes the key count for nobody)."""
    out: dict[str, Person | None] = {}
    for p in reg.people:
        for line in p.keys:
            key = keys.parse_key(line)
            if key is not None:
                out[key.openssh] = p if out.get(key.openssh, p) is p else None
    return out


# --- people and keys --------------------------------------------------------------------------------


def _people(reg: Registry) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[str, str] = {}  # ident -> the name as first written
    looks: dict[str, str] = {}  # skeleton -> the name as first written
    key_owner: dict[str, str] = {}
    for i, p in enumerate(reg.people):
        ln = schema.line_of(reg, "people", i)
        for what, value in (("name", p.name), ("handle", p.handle)):
            if value is None:
                continue
            if (hidden := invisible(value)):
                problems.append(_invisible_problem(schema.line_of(p, what) or ln, f"the {what} '{shown(value)}'",
                                                   hidden))
                continue
            if not ident(value):
                problems.append(Problem(FILE, schema.line_of(p, what) or ln, f"the {what} of person {i + 1} is empty",
                                        "write the name as it appears in bylines, e.g. Ada Author"))
                continue
            if value is p.handle and ident(value) == ident(p.name):
                continue
            if ident(value) in seen:
                twin = seen[ident(value)]
                also = "" if twin == value else (f" (as '{twin}': names are compared after Unicode normalisation, "
                                                 "ignoring case and spaces)")
                problems.append(Problem(FILE, ln, f"'{value}' is registered twice{also}",
                                        "keep one entry per person, with a unique name and handle"))
                continue
            seen[ident(value)] = value
            forms = skeletons(value)
            alike = next((looks[f] for f in sorted(forms) if f in looks), None)
            if alike is not None:
                problems.append(Problem(FILE, ln, f"'{value}' looks like '{alike}' (confusable characters: "
                                        f"{_codepoints(value, alike)})",
                                        "register each person under a name that cannot be mistaken for another's"))
            for f in forms:
                looks.setdefault(f, value)
        for j, line in enumerate(p.keys):
            kln = schema.line_of(p, "keys", j) or ln
            key = keys.parse_key(line)
            if key is None:
                problems.append(Problem(FILE, kln, f"key {j + 1} of {p.name} is not an SSH public key",
                                        "paste the one line of the .pub file, e.g. ssh-ed25519 AAAA... name"))
            elif key.openssh in key_owner and key_owner[key.openssh] != p.name:
                problems.append(Problem(FILE, kln, f"key {key.sha256} is registered to both "
                                        f"{key_owner[key.openssh]} and {p.name}",
                                        "a key belongs to one person: remove it from the one it is not theirs"))
            else:
                key_owner[key.openssh] = p.name
    return problems


def _invisible_problem(line: int, what: str, hidden: list[tuple[int, str]]) -> Problem:
    chars = ", ".join(f"{name} at character {pos}" for pos, name in hidden[:3]) + (", ..." if len(hidden) > 3 else "")
    count = "an invisible character" if len(hidden) == 1 else "invisible characters"
    return Problem(FILE, line, f"{what} holds {count} ({chars}), so it does not read as what it is",
                   "retype the name with visible letters and plain spaces only")


def _codepoints(a: str, b: str) -> str:
    diff = [f"{x} U+{ord(x):04X} vs {y} U+{ord(y):04X}" for x, y in zip(a, b, strict=False) if x != y]
    return ", ".join(diff[:3]) or "same letters"


# --- recorded signatures ----------------------------------------------------------------------------


def _integrity(reg: Registry) -> list[Problem]:
    problems: list[Problem] = []
    names = reg.names()
    for path, e in reg.entries.items():
        for role, sig in signatures(e):
            ln = schema.line_of(sig)
            where = f"entries.{path}.{role}"
            if not FINGERPRINT.match(sig.fingerprint):
                problems.append(Problem(FILE, schema.line_of(sig, "fingerprint"),
                                        f"'{where}.fingerprint' is not a sha256 fingerprint",
                                        f"sign again: gloss sign {path} --as {role.split('.')[-1]}"))
            if sig.commit is not None and not _COMMIT.match(sig.commit):
                problems.append(Problem(FILE, schema.line_of(sig, "commit"),
                                        f"'{where}.commit' is not a git commit id",
                                        "remove the line or write the commit's hexadecimal id"))
            if (hidden := invisible(sig.name)):
                problems.append(_invisible_problem(schema.line_of(sig, "name") or ln,
                                                   f"the name '{shown(sig.name)}' in '{where}'", hidden))
            elif ident(sig.name) not in names:
                problems.append(Problem(FILE, ln,
                                        f"'{sig.name}' signed {path} as {role} but is not registered",
                                        "add them under 'people:' or remove the signature"))
        for label, pair in (("", Pair(e.author, e.reviewer)), (" (previous)", e.previous)):
            if pair is None or pair.author is None or pair.reviewer is None:
                continue
            ln = schema.line_of(pair.reviewer)
            if ident(pair.author.name) == ident(pair.reviewer.name):
                problems.append(Problem(FILE, ln, f"{pair.author.name} is both author and reviewer of {path}{label}",
                                        "a different registered person must review; remove the self-review"))
            elif pair.author.fingerprint != pair.reviewer.fingerprint:
                problems.append(Problem(FILE, ln,
                                        f"the reviewer of {path}{label} signed a different version than the author",
                                        f"the reviewer signs again: gloss sign {path} --as reviewer"))
        if e.reviewer is not None and e.author is None:
            problems.append(Problem(FILE, schema.line_of(e.reviewer),
                                    f"{path} has a review but no author sign-off",
                                    f"the author signs first: gloss sign {path} --as author"))
    return problems


def signed_message(path: str, role: str, sig: Signature, author: Signature | None) -> bytes:
    """The bytes ``sig`` must be a signature over, as ``role`` ("author", "reviewer", or either with a
    "previous." prefix) of ``path``; ``author``: the author signature of the same pair (for a review)."""
    plain = role.split(".")[-1]
    reviews = keys.digest(author.signature) if plain == "reviewer" and author is not None else None
    return keys.message(path=path, role=plain, name=sig.name, fingerprint=sig.fingerprint, on=sig.on,
                        commit=sig.commit, covers=dataclasses.asdict(sig.covers) if sig.covers else None,
                        reviews=reviews)


def check_signature(index: dict[str, Person | None], path: str, role: str, sig: Signature,
                    author: Signature | None = None) -> tuple[keys.Key | None, str | None]:
    """(the key that made ``sig``, None) when it verifies and the key is registered to the person it
    names; otherwise (key or None, what is wrong). ``author``: for a review, the pair's author signature."""
    key = keys.signer(signed_message(path, role, sig, author), sig.signature)
    if key is None:
        if keys.signer(keys.message_v1(path, role.split(".")[-1], sig.fingerprint, sig.on), sig.signature):
            return None, (f"the {role} signature of {path} is in the old v1 format, which does not bind the "
                          "signer's name, the commit or the pair, so it no longer counts")
        bound = ("entry, role, name, fingerprint, commit, date and author signature" if role.endswith("reviewer")
                 else "entry, role, name, fingerprint, commit and date")
        return None, (f"the {role} signature of {path} does not verify (gloss sign did not make it over this "
                      f"{bound} as written here: one of them was edited, or it was copied from elsewhere)")
    person = index.get(key.openssh)
    if person is None:
        what = "registered to more than one person" if key.openssh in index else "not registered"
        return key, f"the {role} signature of {path} was made with key {key.sha256}, which is {what}"
    if ident(person.name) != ident(sig.name):
        return key, (f"the {role} signature of {path} names {sig.name} but was made with {person.name}'s key "
                     f"{key.sha256}")
    return key, None


def pair_author(e: EntrySignoff, role: str) -> Signature | None:
    """The author signature a signature in ``role`` of ``e`` pairs with (its own, for an author)."""
    return e.previous.author if role.startswith("previous.") and e.previous is not None else e.author


def verified(reg: Registry) -> tuple[Registry, list[Problem]]:
    """The registry without the signatures that do not verify against a key registered to the person they
    name, and a problem for each one dropped.

    Signatures by names that are not registered are kept (they are reported already and never count)."""
    problems: list[Problem] = []
    entries: dict[str, EntrySignoff] = {}
    names = reg.names()
    index = owners(reg)
    for path, e in reg.entries.items():
        bad: set[str] = set()
        for role, sig in signatures(e):
            if invisible(sig.name):  # reported by _integrity; never a byline
                bad.add(role)
                continue
            if ident(sig.name) not in names:
                continue
            _, wrong = check_signature(index, path, role, sig, pair_author(e, role))
            if wrong is not None:
                bad.add(role)
                again = f"gloss sign {path} --as {role.split('.')[-1]}"
                problems.append(Problem(FILE, schema.line_of(sig, "signature") or schema.line_of(sig), wrong,
                                        f"it counts for nothing; the signer signs again with their own "
                                        f"registered key: {again}"))
        # Author and reviewer are different keys as well as different people: a key verifies only for the
        # one person it is registered to (a key listed under two people is an error and counts for nobody).
        entries[path] = _drop(e, bad) if bad else e
    return keep_lines(reg, dataclasses.replace(reg, entries=entries)), problems


def _drop(e: EntrySignoff, roles: Iterable[str]) -> EntrySignoff:
    gone = set(roles)
    prev = e.previous
    if prev is not None:
        prev = keep_lines(prev, Pair(author=None if "previous.author" in gone else prev.author,
                                      reviewer=None if "previous.reviewer" in gone else prev.reviewer))
    return keep_lines(e, EntrySignoff(author=None if "author" in gone else e.author,
                                       reviewer=None if "reviewer" in gone else e.reviewer, previous=prev))


def keep_lines(old: object, new: T) -> T:
    lines = getattr(old, "__gloss_lines__", None)
    if lines is not None:
        object.__setattr__(new, "__gloss_lines__", lines)
    return new
