"""Which entries may be published, decided once before rendering (the seam between sign-off and render).

The renderer only ever asks :func:`decide`; it never reads ``signoff.yaml`` itself. In a normal build an
entry whose ``published`` is False is left out of every page, index, search and sitemap; in preview
(``make serve`` / ``make preview``) every entry renders, with ``banner`` shown on drafts.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from site_plugins import signoff
from site_plugins.files.messages import Problem
from site_plugins.signoff.model import State
from site_plugins.signoff.signable import Signable

__all__ = ["Byline", "EntryState", "Signable", "decide"]


@dataclass(frozen=True)
class Byline:
    """What the byline says. ``None`` means the role is still pending."""

    author: str | None = None
    reviewer: str | None = None
    written_on: str | None = None  # YYYY-MM-DD, from the author's sign-off
    reviewed_on: str | None = None  # YYYY-MM-DD, from the reviewer's sign-off


@dataclass(frozen=True)
class EntryState:
    """The publication decision for one entry (term or lesson), keyed by its repo-relative path."""

    path: str
    state: State
    published: bool
    # The Markdown file text to render when published; differs from the working copy when the entry
    # changed after sign-off and the last signed version is served instead. None: use the working copy.
    text: str | None = None
    byline: Byline = field(default_factory=Byline)
    banner: str | None = None  # shown in preview on entries that are not (or not as-is) published
    missing: tuple[str, ...] = ()  # what is missing before the entry can be published
    fingerprint: str | None = None  # of the current content (see site_plugins.signoff.fingerprint)
    signed_fingerprint: str | None = None  # of the version being published, when one is
    signed_commit: str | None = None  # the git commit holding the published version, when known
    changed: tuple[str, ...] = ()  # for "changed": which parts ("text", "measured values", "quoted code", ...)
    # The code files (path -> text) as signed, when the published version is not the working copy.
    files: tuple[tuple[str, str], ...] | None = None


def decide(root: Path, entries: Sequence[Signable], *, preview: bool,
           signable_at: signoff.SignableAt | None = None,
           ) -> tuple[dict[str, EntryState], list[Problem]]:
    """Decide publication for each entry from ``root/signoff.yaml`` (read by the sign-off module only).

    ``entries``: what each term and lesson would sign now (its current text, shown values, quoted code).
    ``signable_at(path, tree)``: rebuilds the same for the entry as it was in a git commit (its text and
    the code files it published then), so that the version the author and reviewer signed can be found
    and served while a change awaits sign-off. Without it, an old text is taken to show no values and
    quote no code, which only recovers entries that have neither.

    Returns one :class:`EntryState` per entry, keyed by path, and the problems to log as warnings
    (a malformed ``signoff.yaml``, a signature by someone not registered, a changed entry whose signed
    version git no longer has, ...).

    ``published`` is the normal build's decision in both modes; with ``preview`` the caller renders
    every entry anyway and shows ``banner`` where it is set, and ``text`` stays None (the working copy
    is what an author previews).
    """
    statuses, problems = signoff.evaluate(root, entries, signable_at)
    return {s.path: _entry_state(s, preview=preview) for s in statuses}, problems


def _day(value: dt.datetime | None) -> str | None:
    return value.astimezone(dt.UTC).date().isoformat() if value is not None else None


def _entry_state(status: signoff.Status, *, preview: bool) -> EntryState:
    a = status.assessment
    served = a.served
    if status.published and served is not None and served.author is not None and served.reviewer is not None:
        byline = Byline(author=served.author.name, reviewer=served.reviewer.name,
                        written_on=_day(served.author.on), reviewed_on=_day(served.reviewer.on))
    elif a.state == "awaiting-review" and a.author is not None:
        byline = Byline(author=a.author.name, written_on=_day(a.author.on))
    else:
        byline = Byline()
    missing = a.missing if a.state != "signed" else ()
    need = f" Missing: {'; '.join(missing)}." if missing else ""
    banner: str | None
    signed_commit: str | None = None
    if a.state == "signed":
        banner = None
    elif a.state == "changed" and status.recovered is not None:
        signed_commit = status.recovered.commit
        when = byline.reviewed_on or "an earlier date"
        what = ", ".join(a.changed) or "content"
        banner = (f"Changed since sign-off ({what}): the published site shows the version signed on {when} "
                  f"(commit {signed_commit[:10]}) until this change is signed.{need}")
    elif a.state == "changed":
        banner = ("Changed since sign-off, and the signed version cannot be recovered from git: "
                  f"not published until the change is signed.{need}")
    elif a.state == "awaiting-review":
        banner = f"Awaiting review: signed by its author but not yet reviewed, so not published.{need}"
    else:
        banner = f"Draft: not published until a named author and a different named reviewer sign it.{need}"
    served_now = status.recovered is not None and not preview
    text = status.recovered.text if served_now and status.recovered else None
    files = status.recovered.signable.files if served_now and status.recovered else None
    return EntryState(path=a.path, state=a.state, published=status.published, text=text, byline=byline,
                      banner=banner, missing=missing, fingerprint=a.fingerprint,
                      signed_fingerprint=served.author.fingerprint if served and served.author else None,
                      signed_commit=signed_commit if signed_commit else (
                          served.author.commit if a.state == "signed" and served and served.author else None),
                      changed=a.changed, files=files)
