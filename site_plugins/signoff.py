"""Sign-off: who may sign, who signed what, and which version of each entry may be published.

This is the only module that reads or writes ``signoff.yaml``. Everyone else asks it (the build goes
through :func:`site_plugins.publish.decide`, the CLI through :mod:`site_plugins.signoff_cli`).

The file holds a registry of people and, per entry (keyed by its repo-relative path), the author's and
the reviewer's signatures. A signature records who, when (UTC), and the *fingerprint* of exactly what
was signed: the entry's whole Markdown text, every measured value it shows and every code excerpt it
quotes (:class:`site_plugins.publish.Signable`). An entry is *signed* when a registered author and a
different registered reviewer signed the same fingerprint and that fingerprint is the entry's current
one.

When a signed entry changes (its text, a value it shows or code it quotes), the version both people
signed stays published until the change is signed: that version is recovered from git by walking the
file's history for the text whose fingerprint matches. While the change is being re-signed, the pair
that signed the published version is kept under ``previous``.

States, as ``gloss status`` reports them and :mod:`site_plugins.publish` maps them:

- ``draft``: no valid author sign-off of the current content;
- ``awaiting-review``: the author signed the current content, no valid review yet;
- ``signed``: a registered author and a different registered reviewer signed the current content;
- ``changed``: changed since the last complete sign-off; the signed version is served if git still has
  it, otherwise the entry is unpublished with a warning.

Integrity problems in the file (malformed YAML, unknown keys, a signature by someone not registered, a
self-review, a reviewer who signed something other than what the author signed, a sign-off for a path
that is no entry) are ``signoff.yaml:LINE: problem; remedy`` warnings, so that a strict build fails.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import io
import json
import re
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from site_plugins import atomic, schema, textfile
from site_plugins.messages import Problem
from site_plugins.publish import Signable

FILE = "signoff.yaml"
Role = Literal["author", "reviewer"]
State = Literal["draft", "awaiting-review", "signed", "changed"]
SignableAt = Callable[[str, str], Signable]

_FINGERPRINT = re.compile(r"^sha256:[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{7,64}$")
# Walking further back than this to find a signed version is almost certainly a lost cause, and each
# step may recompute the values a page shows.
MAX_HISTORY = 500


# --- the declared schema of signoff.yaml -----------------------------------------------------------


@dataclass(frozen=True)
class Person:
    name: str = field(metadata=schema.meta("the name as it appears in bylines, e.g. Ada Author"))
    handle: str | None = field(default=None,
                               metadata=schema.meta("a short name accepted by gloss sign --name"))
    email: str | None = None


@dataclass(frozen=True)
class Covers:
    """A digest per part of what was signed, so that status and diff can say which part changed."""

    text: str
    values: str
    code: str


@dataclass(frozen=True)
class Signature:
    name: str = field(metadata=schema.meta("the registered name of the person who signed"))
    on: dt.datetime = field(metadata=schema.meta("when they signed, in UTC, e.g. 2026-12-01T10:00:00Z"))
    fingerprint: str = field(metadata=schema.meta("sha256:... of what was signed, written by gloss sign"))
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
        for p in self.people:
            if name_or_handle in (p.name, p.handle):
                return p
        return None

    def names(self) -> set[str]:
        return {p.name for p in self.people}


# --- fingerprints -----------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    # A checkout with CRLF line ends renders the same page; it must not void every signature.
    return text.replace("\r\n", "\n")


def _digest(payload: object) -> str:
    data = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return "sha256:" + hashlib.sha256(data).hexdigest()


def fingerprint(s: Signable) -> str:
    """sha256 over a canonical JSON encoding of exactly what a sign-off covers (the path is not part)."""
    return _digest({"v": 1, "text": _normalise(s.text), "shown_values": list(s.shown_values),
                    "quoted_code": [_normalise(c) for c in s.quoted_code]})


def covers(s: Signable) -> Covers:
    return Covers(text=_digest(_normalise(s.text)), values=_digest(list(s.shown_values)),
                  code=_digest([_normalise(c) for c in s.quoted_code]))


def changed_parts(signed: Covers | None, now: Signable) -> list[str]:
    """Which parts ("text", "measured values", "quoted code") differ from a signature's digests."""
    if signed is None:
        return []
    cur = covers(now)
    pairs = (("text", signed.text, cur.text), ("measured values", signed.values, cur.values),
             ("quoted code", signed.code, cur.code))
    return [label for label, a, b in pairs if a != b]


def text_only(path: str, text: str) -> Signable:
    """The default way to rebuild what was signed from an old text: no values, no code."""
    return Signable(path=path, text=text)


# --- reading signoff.yaml ---------------------------------------------------------------------------


def load(root: Path) -> tuple[Registry, list[Problem]]:
    """Read and check ``root/signoff.yaml``. A missing file is an empty registry (every entry a draft)."""
    path = root / FILE
    if not path.is_file():
        return Registry(), []
    text, problems = textfile.read(path, FILE)
    return parse(text) if text is not None else (Registry(), problems)


def parse(text: str) -> tuple[Registry, list[Problem]]:
    """Check the text of ``signoff.yaml``; on problems, whatever could be read is kept (fail closed:
    a signature that did not parse does not count)."""
    node, problems = schema.parse_yaml(text, FILE)
    if problems:
        return Registry(), problems
    if node is not None and node.tag.endswith(":null"):
        node = None
    reg, problems = schema.build(Registry, node, FILE)
    if reg is None:
        return _salvage(node), problems
    return reg, problems + _integrity(reg)


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


def _signatures(e: EntrySignoff) -> Iterable[tuple[str, Signature]]:
    for role, sig in (("author", e.author), ("reviewer", e.reviewer)):
        if sig is not None:
            yield role, sig
    if e.previous is not None:
        for role, sig in (("author", e.previous.author), ("reviewer", e.previous.reviewer)):
            if sig is not None:
                yield f"previous.{role}", sig


def _integrity(reg: Registry) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()
    for i, p in enumerate(reg.people):
        ln = schema.line_of(reg, "people", i)
        for value in (p.name, p.handle):
            if value is None:
                continue
            if value in seen:
                problems.append(Problem(FILE, ln, f"'{value}' is registered twice",
                                        "keep one entry per person, with a unique name and handle"))
            seen.add(value)
    names = reg.names()
    for path, e in reg.entries.items():
        for role, sig in _signatures(e):
            ln = schema.line_of(sig)
            where = f"entries.{path}.{role}"
            if not _FINGERPRINT.match(sig.fingerprint):
                again = f"gloss sign {path} --as {role.split('.')[-1]} --name NAME"
                problems.append(Problem(FILE, schema.line_of(sig, "fingerprint"),
                                        f"'{where}.fingerprint' is not a sha256 fingerprint",
                                        f"sign again: {again}"))
            if sig.commit is not None and not _COMMIT.match(sig.commit):
                problems.append(Problem(FILE, schema.line_of(sig, "commit"),
                                        f"'{where}.commit' is not a git commit id",
                                        "remove the line or write the commit's hexadecimal id"))
            if sig.name not in names:
                problems.append(Problem(FILE, ln,
                                        f"'{sig.name}' signed {path} as {role} but is not registered",
                                        "add them under 'people:' or remove the signature"))
        for label, pair in (("", Pair(e.author, e.reviewer)), ("previous.", e.previous)):
            if pair is None or pair.author is None or pair.reviewer is None:
                continue
            ln = schema.line_of(pair.reviewer)
            if pair.author.name == pair.reviewer.name:
                problems.append(Problem(FILE, ln, f"{pair.author.name} is both author and reviewer of {path}"
                                        f"{' (previous)' if label else ''}",
                                        "a different registered person must review; remove the self-review"))
            elif pair.author.fingerprint != pair.reviewer.fingerprint:
                problems.append(Problem(FILE, ln,
                                        f"the reviewer of {path}{' (previous)' if label else ''} signed "
                                        "a different version than the author",
                                        f"the reviewer signs again: gloss sign {path} --as reviewer "
                                        "--name NAME"))
        if e.reviewer is not None and e.author is None:
            problems.append(Problem(FILE, schema.line_of(e.reviewer),
                                    f"{path} has a review but no author sign-off",
                                    f"the author signs first: gloss sign {path} --as author --name NAME"))
    return problems


# --- deciding the state of one entry (pure) ---------------------------------------------------------


@dataclass(frozen=True)
class Assessment:
    """The sign-off state of one entry's current content, before anything is recovered from git."""

    path: str
    state: State
    fingerprint: str  # of the current content
    author: Signature | None  # the recorded signatures, valid or not (for status)
    reviewer: Signature | None
    missing: tuple[str, ...]  # what the current content still needs before it is signed
    served: Pair | None  # the complete pair whose version is published (signed or changed), if any
    changed: tuple[str, ...] = ()  # for "changed": which parts differ from the served version


def _valid_pair(pair: Pair | None, names: set[str]) -> bool:
    return (pair is not None and pair.author is not None and pair.reviewer is not None
            and pair.author.name in names and pair.reviewer.name in names
            and pair.author.name != pair.reviewer.name
            and pair.author.fingerprint == pair.reviewer.fingerprint
            and _FINGERPRINT.match(pair.author.fingerprint) is not None)


def assess(reg: Registry, signable: Signable) -> Assessment:
    fp = fingerprint(signable)
    rec = reg.entries.get(signable.path, EntrySignoff())
    names = reg.names()
    current = Pair(rec.author, rec.reviewer)
    missing = tuple(_missing(rec.author, rec.reviewer, fp, names))
    author_ok = rec.author is not None and rec.author.name in names and rec.author.fingerprint == fp
    base = Assessment(path=signable.path, state="draft", fingerprint=fp, author=rec.author,
                      reviewer=rec.reviewer, missing=missing, served=None)
    if _valid_pair(current, names) and current.author is not None and current.author.fingerprint == fp:
        return dataclasses.replace(base, state="signed", served=current)
    served = current if _valid_pair(current, names) else None
    if served is None and _valid_pair(rec.previous, names):
        served = rec.previous
    if served is not None and served.author is not None:
        if served.author.fingerprint == fp:  # content went back to the signed version mid re-sign
            return dataclasses.replace(base, state="signed", served=served)
        what = tuple(changed_parts(served.author.covers, signable))
        return dataclasses.replace(base, state="changed", served=served, changed=what)
    return dataclasses.replace(base, state="awaiting-review" if author_ok else "draft")


def _missing(author: Signature | None, reviewer: Signature | None, fp: str, names: set[str]) -> list[str]:
    out: list[str] = []
    if author is None:
        out.append("author sign-off")
    elif author.name not in names:
        out.append(f"author sign-off by a registered person ({author.name} is not registered)")
    elif author.fingerprint != fp:
        out.append(f"author sign-off of the current content ({author.name} signed an earlier version)")
    if reviewer is None or author is None or reviewer.fingerprint != author.fingerprint:
        out.append("review by a registered person other than the author")
    elif reviewer.name not in names:
        out.append(f"review by a registered person ({reviewer.name} is not registered)")
    elif reviewer.name == author.name:
        out.append(f"review by someone other than the author ({author.name} reviewed their own entry)")
    elif reviewer.fingerprint != fp:
        out.append(f"review of the current content ({reviewer.name} reviewed an earlier version)")
    return out


# --- recovering the last signed version from git ----------------------------------------------------


@dataclass(frozen=True)
class Recovered:
    commit: str
    text: str


def git(root: Path, *args: str) -> str | None:
    """Output of a git command run in ``root``, or None when git fails (no repo, unknown object...)."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", errors="replace")


def head_commit_of(root: Path, path: str, text: str) -> str | None:
    """HEAD's commit id if HEAD holds exactly ``text`` at ``path`` (the signed text is committed)."""
    head = git(root, "rev-parse", "--verify", "-q", "HEAD")
    if head is None:
        return None
    committed = git(root, "show", f"HEAD:./{path}")
    if committed is None or _normalise(committed) != _normalise(text):
        return None
    return head.strip()


def recover(root: Path, path: str, fp: str, hint: str | None, signable_at: SignableAt) -> Recovered | None:
    """The text of ``path`` in git whose fingerprint is ``fp``: the recorded commit first, then the
    file's history newest first. None when no version in git matches."""
    commits: list[str] = [hint] if hint else []
    log = git(root, "log", "--format=%H", f"-n{MAX_HISTORY}", "--", path)
    if log:
        commits += [c for c in log.split() if c != hint]
    tried: set[str] = set()
    for commit in commits:
        text = git(root, "show", f"{commit}:./{path}")
        if text is None or text in tried:
            continue
        tried.add(text)
        if fingerprint(signable_at(path, text)) == fp:
            return Recovered(commit=commit, text=text)
    return None


# --- everything the build and the CLI need, per entry -----------------------------------------------


@dataclass(frozen=True)
class Status:
    assessment: Assessment
    recovered: Recovered | None = None  # the served version, for "changed" entries whose text git still has

    @property
    def path(self) -> str:
        return self.assessment.path

    @property
    def published(self) -> bool:
        a = self.assessment
        return a.state == "signed" or (a.state == "changed" and self.recovered is not None)


def evaluate(root: Path, entries: Sequence[Signable], signable_at: SignableAt | None = None,
             registry: tuple[Registry, list[Problem]] | None = None) -> tuple[list[Status], list[Problem]]:
    """Assess every entry, recover served versions of changed ones from git, and report problems."""
    reg, problems = registry if registry is not None else load(root)
    problems = list(problems)
    known = {e.path for e in entries}
    for path, rec in reg.entries.items():
        if path not in known:
            problems.append(Problem(FILE, schema.line_of(rec),
                                    f"sign-off recorded for {path}, which is not a term or lesson",
                                    "remove it, or move it to the entry's new path if it was renamed"))
    out: list[Status] = []
    for s in entries:
        a = assess(reg, s)
        recovered = None
        if a.state == "changed" and a.served is not None and a.served.author is not None:
            sig = a.served.author
            hint = sig.commit or (a.served.reviewer.commit if a.served.reviewer else None)
            recovered = recover(root, s.path, sig.fingerprint, hint, signable_at or text_only)
            if recovered is None:
                what = ", ".join(a.changed) or "content"
                problems.append(Problem(
                    s.path, 1, f"changed since sign-off ({what}) and the signed version "
                    f"({sig.fingerprint[:19]}…) cannot be recovered from git, so the entry is unpublished",
                    f"review the change and sign it again: gloss sign {s.path} --as author --name NAME"))
        out.append(Status(assessment=a, recovered=recovered))
    return out, sorted(problems)


# --- signing ----------------------------------------------------------------------------------------


class Refused(Exception):
    """A sign-off that must not be recorded; the message is the whole user-facing explanation."""


class NothingToDo(Refused):
    """The same person already signed the same content in the same role."""


def now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def plan_signature(reg: Registry, signable: Signable, role: Role, name: str, *, on: dt.datetime,
                   commit: str | None) -> tuple[EntrySignoff, Signature]:
    """The entry's new sign-off record after ``name`` signs ``signable`` as ``role``.

    Raises :class:`Refused` (unregistered name, self-review, review before the author signed this
    content). Content validation is the caller's job: it knows the content model.
    """
    path = signable.path
    person = reg.person(name)
    if person is None:
        registered = ", ".join(sorted(reg.names())) or "nobody yet"
        raise Refused(f"'{name}' is not registered in {FILE}; add them under 'people:' first "
                      f"(registered: {registered})")
    fp = fingerprint(signable)
    sig = Signature(name=person.name, on=on, fingerprint=fp, commit=commit, covers=covers(signable))
    rec = reg.entries.get(path, EntrySignoff())
    names = reg.names()
    if role == "author":
        if rec.author is not None and rec.author.name == person.name and rec.author.fingerprint == fp:
            raise NothingToDo(f"{person.name} already signed the current content of {path} as author; "
                          "nothing to do")
        if rec.reviewer is not None and rec.reviewer.name == person.name and rec.reviewer.fingerprint == fp:
            raise Refused(f"{person.name} reviewed {path} and cannot also sign it as author; "
                          "an author and a different reviewer must sign")
        # A new author signature starts a new round: the complete pair (if any) stays as 'previous' so
        # the version it signed keeps being published until this round completes.
        current = Pair(rec.author, rec.reviewer)
        previous = current if _valid_pair(current, names) else rec.previous
        return EntrySignoff(author=sig, reviewer=None, previous=previous), sig
    author = rec.author
    if author is None or author.fingerprint != fp or author.name not in names:
        raise Refused(f"{path} has no author sign-off of its current content; the author signs first "
                      f"(gloss sign {path} --as author --name NAME)")
    if author.name == person.name:
        raise Refused(f"{person.name} signed {path} as author and cannot also review it; "
                      "ask another registered person to review")
    if rec.reviewer is not None and rec.reviewer.name == person.name and rec.reviewer.fingerprint == fp:
        raise NothingToDo(f"{person.name} already reviewed the current content of {path}; nothing to do")
    # The round is complete: the previous pair is no longer what gets published.
    return EntrySignoff(author=author, reviewer=sig, previous=None), sig


# --- writing signoff.yaml (round trip: comments, order and people's formatting are kept) -------------


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

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        m = CommentedMap()
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if v is not None:
                m[schema.yaml_key(f)] = _to_map(v)
        return m
    return value


HEADER = """\
# Sign-off registry. Only site_plugins/signoff.py reads this file; entries are written by `gloss sign`.
"""


def write_entry(root: Path, path: str, record: EntrySignoff) -> None:
    """Store ``record`` as the sign-off of ``path`` in ``root/signoff.yaml``, atomically.

    Comments, the order of keys and the formatting of everything else are kept; a new entry is placed
    in path order. The result is checked with :func:`parse` before it replaces the file.
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
    value = _to_map(record)
    if path in entries:
        entries[path] = value
    else:
        pos = sum(1 for k in entries if str(k) < path)
        entries.insert(pos, path, value)
    buf = io.StringIO()
    y.dump(doc, buf)
    text = buf.getvalue()
    # Never replace a good file with one that does not read back as what was meant.
    node, problems = schema.parse_yaml(text, FILE)
    back, more = schema.build(Registry, node, FILE) if not problems else (None, [])
    problems += more
    if back is None or problems or back.entries.get(path) != record:
        raise Refused("the updated signoff.yaml would not read back as written:\n"
                      + "\n".join(str(p) for p in problems))
    _atomic_write(target, text)


def _atomic_write(target: Path, text: str) -> None:
    atomic.write_text(target, text)
