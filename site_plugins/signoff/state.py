"""The sign-off state of each entry, and the recovery of the last signed version from git.

States: ``draft`` (no valid author sign-off of the current content), ``awaiting-review`` (the author
signed the current content, no valid review yet), ``signed`` (a registered author and a different
registered reviewer, each with their own key, signed the current content) and ``changed`` (changed since
the last complete sign-off: the signed version is served if git still has it, else the entry is
unpublished with a warning).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from site_plugins.files import schema
from site_plugins.files.messages import Problem
from site_plugins.signoff import history, registry
from site_plugins.signoff.fingerprints import changed_parts, fingerprint
from site_plugins.signoff.model import FILE, EntrySignoff, Pair, Registry, Signature, State, ident
from site_plugins.signoff.signable import GitTree, Signable, Tree, WorkTree, git

# ``signable_at(path, tree)``: what the entry at ``path`` covered in another tree (a git commit), or None
# when it was no readable entry there.
SignableAt = Callable[[str, Tree], "Signable | None"]

# Walking further back than this to find a signed version is almost certainly a lost cause, and each
# step may recompute the values a page shows.
MAX_HISTORY = 500


@dataclass(frozen=True)
class Assessment:
    """The sign-off state of one entry's current content, before anything is recovered from git."""

    path: str
    state: State
    fingerprint: str  # of the current content
    author: Signature | None  # the recorded signatures that verified (for status)
    reviewer: Signature | None
    missing: tuple[str, ...]  # what the current content still needs before it is signed
    served: Pair | None  # the complete pair whose version is published (signed or changed), if any
    changed: tuple[str, ...] = ()  # for "changed": which parts differ from the served version


def valid_pair(pair: Pair | None, names: set[str]) -> bool:
    return (pair is not None and pair.author is not None and pair.reviewer is not None
            and ident(pair.author.name) in names and ident(pair.reviewer.name) in names
            and ident(pair.author.name) != ident(pair.reviewer.name)
            and pair.author.fingerprint == pair.reviewer.fingerprint
            and registry.FINGERPRINT.match(pair.author.fingerprint) is not None)


def assess(reg: Registry, signable: Signable) -> Assessment:
    """``reg`` must come from :func:`registry.parse` (signatures that do not verify already dropped)."""
    fp = fingerprint(signable)
    rec = reg.entries.get(signable.path, EntrySignoff())
    names = reg.names()
    current = Pair(rec.author, rec.reviewer)
    missing = tuple(_missing(rec.author, rec.reviewer, fp, names))
    author_ok = rec.author is not None and ident(rec.author.name) in names and rec.author.fingerprint == fp
    base = Assessment(path=signable.path, state="draft", fingerprint=fp, author=rec.author,
                      reviewer=rec.reviewer, missing=missing, served=None)
    if valid_pair(current, names) and current.author is not None and current.author.fingerprint == fp:
        return dataclasses.replace(base, state="signed", served=current)
    served = current if valid_pair(current, names) else None
    if served is None and valid_pair(rec.previous, names):
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
    elif ident(author.name) not in names:
        out.append(f"author sign-off by a registered person ({author.name} is not registered)")
    elif author.fingerprint != fp:
        out.append(f"author sign-off of the current content ({author.name} signed an earlier version)")
    if reviewer is None or author is None or reviewer.fingerprint != author.fingerprint:
        out.append("review by a registered person other than the author")
    elif ident(reviewer.name) not in names:
        out.append(f"review by a registered person ({reviewer.name} is not registered)")
    elif ident(reviewer.name) == ident(author.name):
        out.append(f"review by someone other than the author ({author.name} reviewed their own entry)")
    elif reviewer.fingerprint != fp:
        out.append(f"review of the current content ({reviewer.name} reviewed an earlier version)")
    return out


# --- recovering the last signed version from git ----------------------------------------------------


@dataclass(frozen=True)
class Recovered:
    commit: str
    signable: Signable  # the entry's text and code files as they were signed

    @property
    def text(self) -> str:
        return self.signable.text


def _blob_id(text: str) -> str:
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def head_commits(root: Path, signables: Sequence[Signable]) -> dict[str, str | None]:
    """Per entry path: HEAD's commit id if HEAD holds exactly the entry's text, every code file and every
    static file it covers (so the signed version can be recovered later), else None. Two git calls in all."""
    head = git(root, "rev-parse", "--verify", "-q", "HEAD")
    listing = git(root, "ls-tree", "-r", "-z", "--full-tree", "HEAD") if head else None
    if head is None or listing is None:
        return {s.path: None for s in signables}
    blobs: dict[str, str] = {}
    for line in filter(None, listing.split("\0")):
        meta, _, name = line.partition("\t")
        blobs[name] = meta.split()[-1]
    out: dict[str, str | None] = {}
    for s in signables:
        parts = [(s.path, s.text), *s.files]
        ok = all(blobs.get(p) == _blob_id(t) for p, t in parts) and all(
            (blob := _blob_of(root, p, digest)) is not None and blobs.get(p) == blob for p, digest in s.statics)
        out[s.path] = head.strip() if ok else None
    return out


def _blob_of(root: Path, path: str, digest: str) -> str | None:
    """The blob id of a static file's bytes in the working copy when they are the signed ones (``digest``)."""
    data = WorkTree(root).read_bytes(path)
    if data is None or "sha256:" + hashlib.sha256(data).hexdigest() != digest:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def recover(root: Path, current: Signable, fp: str, hint: str | None, signable_at: SignableAt) -> Recovered | None:
    """The version of the entry in git whose fingerprint is ``fp``: the recorded commit first, then the
    history of the entry and of the code files it covers, newest first. None when no commit matches."""
    path = current.path
    commits: list[str] = [hint] if hint else []
    log = git(root, "log", "--format=%H", f"-n{MAX_HISTORY}", "--", path, *(f for f, _ in current.files),
              *(f for f, _ in current.statics))
    if log:
        commits += [c for c in log.split() if c != hint]
    for commit in commits[:MAX_HISTORY]:
        then = signable_at(path, GitTree(root, commit))
        if then is not None and fingerprint(then) == fp:
            return Recovered(commit=commit, signable=then)
    return None


def text_only(path: str, tree: Tree) -> Signable | None:
    """The default way to rebuild what was signed from an old commit: its text, no values, no code."""
    text = tree.read(path)
    return Signable(path=path, text=text) if text is not None else None


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
             loaded: tuple[Registry, list[Problem]] | None = None) -> tuple[list[Status], list[Problem]]:
    """Assess every entry, recover served versions of changed ones from git, and report problems."""
    reg, problems = loaded if loaded is not None else history.load(root)
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
            recovered = recover(root, s, sig.fingerprint, hint, signable_at or text_only)
            if recovered is None:
                what = ", ".join(a.changed) or "content"
                problems.append(Problem(
                    s.path, 1, f"changed since sign-off ({what}) and the signed version "
                    f"({sig.fingerprint[:19]}…) cannot be recovered from git, so the entry is unpublished",
                    f"review the change and sign it again: gloss sign {s.path} --as author"))
        out.append(Status(assessment=a, recovered=recovered))
    return out, sorted(problems)
