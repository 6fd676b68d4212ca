"""Signing: whether a person may sign an entry in a role now, and the entry's record after they do.

Two steps, so that many entries can be signed with one ``ssh-keygen`` call: :func:`check` refuses
(unregistered person, self-review, review before the author signed this content, nothing to do), then
:func:`draft_signature` gives each signature's fields and the bytes to sign, and :func:`record` the
entry's new record once the signature is made. Content validation is the caller's job.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from site_plugins.signoff.fingerprints import covers, fingerprint
from site_plugins.signoff.model import EntrySignoff, Pair, Person, Registry, Role, Signature, ident
from site_plugins.signoff.signable import Signable
from site_plugins.signoff.state import valid_pair


class Refused(Exception):
    """A sign-off that must not be recorded; the message is the whole user-facing explanation."""


class NothingToDo(Refused):
    """The same person already signed the same content in the same role."""


def now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def check(reg: Registry, signable: Signable, role: Role, person: Person) -> None:
    """Raise :class:`Refused` or :class:`NothingToDo` if ``person`` may not sign ``signable`` as ``role``."""
    path = signable.path
    fp = fingerprint(signable)
    rec = reg.entries.get(path, EntrySignoff())
    me = ident(person.name)
    if role == "author":
        if rec.author is not None and ident(rec.author.name) == me and rec.author.fingerprint == fp:
            raise NothingToDo(f"{person.name} already signed the current content of {path} as author; nothing to do")
        if rec.reviewer is not None and ident(rec.reviewer.name) == me and rec.reviewer.fingerprint == fp:
            raise Refused(f"{person.name} reviewed {path} and cannot also sign it as author; "
                          "an author and a different reviewer must sign")
        return
    author = rec.author
    if author is None or author.fingerprint != fp or ident(author.name) not in reg.names():
        raise Refused(f"{path} has no author sign-off of its current content; the author signs first "
                      f"(gloss sign {path} --as author)")
    if ident(author.name) == me:
        raise Refused(f"{person.name} signed {path} as author and cannot also review it; "
                      "ask another registered person to review")
    if rec.reviewer is not None and ident(rec.reviewer.name) == me and rec.reviewer.fingerprint == fp:
        raise NothingToDo(f"{person.name} already reviewed the current content of {path}; nothing to do")


def draft_signature(signable: Signable, role: Role, person: Person, *, on: dt.datetime,
                    commit: str | None, reviews: Signature | None = None) -> tuple[Signature, bytes]:
    """The signature's fields (its ``signature`` still empty) and the exact bytes to sign.

    ``reviews``: for a reviewer, the author signature the review completes (bound into it, so that a
    review cannot be paired with another author signature)."""
    from site_plugins.signoff.registry import signed_message

    fp = fingerprint(signable)
    sig = Signature(name=person.name, on=on, fingerprint=fp, signature="", commit=commit, covers=covers(signable))
    return sig, signed_message(signable.path, role, sig, reviews)


def record(reg: Registry, path: str, role: Role, sig: Signature) -> EntrySignoff:
    """The entry's record once ``sig`` (checked with :func:`check`, now carrying its SSH signature) is added."""
    rec = reg.entries.get(path, EntrySignoff())
    if role == "author":
        # A new author signature starts a new round: the complete pair (if any) stays as 'previous' so
        # the version it signed keeps being published until this round completes.
        current = Pair(rec.author, rec.reviewer)
        previous = current if valid_pair(current, reg.names()) else rec.previous
        return EntrySignoff(author=sig, reviewer=None, previous=previous)
    # The round is complete: the previous pair is no longer what gets published.
    return EntrySignoff(author=rec.author, reviewer=sig, previous=None)


def with_signature(sig: Signature, armored: str) -> Signature:
    return dataclasses.replace(sig, signature=armored)
