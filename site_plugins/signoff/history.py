"""Refusing a superseded sign-off: an older, genuine pair copied back into ``signoff.yaml``.

A signature binds its entry, role, signer, content, commit, date and (for a review) the author signature
it completes, so no field of it can be edited or moved; but it stays a valid signature forever. Whoever
can edit ``signoff.yaml`` could therefore paste back the pair of an older version and publish what it
signed. git remembers what the file held: a pair whose review was first committed before another review
of the same entry that verifies (in the version of the file that held it) has been superseded, and it
counts for nothing. Order is git's: the commits that changed ``signoff.yaml``, oldest first in topological
order, as HEAD reaches them; the dates written in signatures are not trusted for it.

A pair that git never held (signed and not yet committed) is the newest there is. Without git (no
repository, or no commit yet) there is no history and nothing is refused.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_plugins.files import schema
from site_plugins.files.messages import Problem
from site_plugins.signoff import keys
from site_plugins.signoff.model import FILE, EntrySignoff, Pair, Registry, Signature

#: How many versions of signoff.yaml back a copied pair is looked for (each is read once per build).
MAX_VERSIONS = 2000


@dataclass(frozen=True)
class Seen:
    """Where a review (by its signature's digest) first appears in the file's history."""

    order: int  # position of the commit, oldest first
    commit: str
    blob: str


def drop_superseded(root: Path, reg: Registry) -> tuple[Registry, list[Problem]]:
    """``reg`` without the pairs whose review git saw superseded by a later, valid review of the same
    entry; a problem for each one dropped."""
    from site_plugins.signoff.registry import keep_lines

    if not any(_pairs(e) for e in reg.entries.values()):
        return reg, []
    log = _history(root)
    problems: list[Problem] = []
    entries = dict(reg.entries)
    for path, e in reg.entries.items():
        for label, pair in _pairs(e):
            assert pair.reviewer is not None
            newer = log.newer_review(path, keys.digest(pair.reviewer.signature))
            if newer is None:
                continue
            sig, seen = newer
            where = "the published pair" if label == "" else "the kept 'previous' pair"
            problems.append(Problem(
                FILE, schema.line_of(pair.reviewer) or schema.line_of(e),
                f"{where} of {path} (reviewed by {pair.reviewer.name}, {day(pair.reviewer.on)}) was superseded by "
                f"a later review ({sig.name}, {day(sig.on)}, committed in {seen.commit[:10]}); an older sign-off "
                "copied back does not count",
                f"restore the entry's newest sign-off from git (git show {seen.commit[:10]}:{FILE}) or remove "
                "the old pair and sign again"))
            cur = entries[path]
            if label == "":
                cur = keep_lines(cur, EntrySignoff(author=None, reviewer=None, previous=cur.previous))
            else:
                cur = keep_lines(cur, dataclasses.replace(cur, previous=None))
            entries[path] = cur
    if not problems:
        return reg, []
    return keep_lines(reg, dataclasses.replace(reg, entries=entries)), problems


def _pairs(e: EntrySignoff) -> list[tuple[str, Pair]]:
    out = []
    if e.author is not None and e.reviewer is not None:
        out.append(("", Pair(e.author, e.reviewer)))
    if e.previous is not None and e.previous.author is not None and e.previous.reviewer is not None:
        out.append(("previous", e.previous))
    return out


_SEEN: dict[tuple[str, str], _History] = {}


def _history(root: Path) -> _History:
    # What git holds changes only with HEAD: mkdocs serve rebuilds, and gloss commands within one
    # process, read the history once per HEAD.
    head = (_git(root, "rev-parse", "--verify", "-q", "HEAD") or "").strip()
    key = (str(root.resolve()), head)
    if not head:
        return _History(root)
    if key not in _SEEN:
        _SEEN.clear()  # one project, one HEAD at a time
        _SEEN[key] = _History(root)
    return _SEEN[key]


class _History:
    """The reviews each version of signoff.yaml held, read from git: one ``rev-list``, one
    ``cat-file --batch-check`` and one ``cat-file --batch`` that streams each distinct version once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.first: dict[str, dict[str, Seen]] = {}  # path -> review digest -> first appearance
        self.parsed: dict[str, Registry] = {}
        commits = _git(root, "rev-list", "--topo-order", f"--max-count={MAX_VERSIONS}", "HEAD", "--", FILE)
        if not commits:
            return
        order = commits.split()[::-1]
        listing = _git(root, "cat-file", "--batch-check", stdin="".join(f"{c}:{FILE}\n" for c in order))
        rows = [line.split() for line in (listing or "").splitlines()]
        blobs = [row[0] if len(row) == 3 and row[1] == "blob" else None for row in rows]
        if len(blobs) != len(order):
            return
        where: dict[str, Seen] = {}  # each distinct version, where it first appears
        for i, (commit, blob) in enumerate(zip(order, blobs, strict=True)):
            if blob is not None and blob not in where:
                where[blob] = Seen(i, commit, blob)
        for blob, text in _blobs(root, list(where)):
            for path, digest in _reviews(text):
                self.first.setdefault(path, {}).setdefault(digest, where[blob])

    def newer_review(self, path: str, digest: str) -> tuple[Signature, Seen] | None:
        """The latest review of ``path`` first committed after the review ``digest`` that verifies in the
        version of the file that held it; None when there is none (or git never held ``digest``)."""
        seen = self.first.get(path, {})
        mine = seen.get(digest)
        if mine is None:
            return None
        for other, at in sorted(seen.items(), key=lambda kv: -kv[1].order):
            if at.order <= mine.order:
                break
            sig = self._valid_review(at.blob, path, other)
            if sig is not None:
                return sig, at
        return None

    def _valid_review(self, blob: str, path: str, digest: str) -> Signature | None:
        from site_plugins.signoff.registry import parse

        if blob not in self.parsed:
            text = next((t for _, t in _blobs(self.root, [blob])), "")
            self.parsed[blob] = parse(text)[0]  # signatures that do not verify are dropped
        e = self.parsed[blob].entries.get(path)
        for sig in (e.reviewer, e.previous.reviewer if e.previous else None) if e else ():
            if sig is not None and keys.digest(sig.signature) == digest:
                return sig
        return None


# The layout gloss sign writes: an entry's path as a key indented two spaces, a role key, and the
# armored signature as a literal block under 'signature: |'. One regex pass over a version finds them.
_LAYOUT = re.compile(r"^  (?P<path>[^\s#'\"-][^\n]*?):[ \t]*$"
                     r"|^[ \t]*(?P<role>author|reviewer|previous):"
                     r"|^[ \t]*signature:[ \t]*\|[-+]?[ \t]*\n(?P<sig>[ \t]*-----BEGIN SSH SIGNATURE-----"
                     r".*?-----END SSH SIGNATURE-----)"
                     r"|(?P<other>-----BEGIN SSH SIGNATURE-----)", re.M | re.S)


def _reviews(text: str) -> list[tuple[str, str]]:
    """(entry path, review digest) for each review in one version of the file. Read with one regex
    pass when the version has the layout gloss sign writes; else from its YAML nodes."""
    out: list[tuple[str, str]] = []
    path = role = None
    for m in _LAYOUT.finditer(text):
        if m["path"] is not None:
            path, role = m["path"], None
        elif m["role"] is not None:
            role = m["role"]
        elif m["sig"] is not None and path is not None and role is not None:
            if role == "reviewer":
                out.append((path, keys.digest(m["sig"])))
        else:  # a signature written another way (flow style, quoted): read the nodes
            return list(_reviews_from_nodes(text))
    return out


def _reviews_from_nodes(text: str) -> Iterator[tuple[str, str]]:
    """(entry path, review digest) for each review in one version of the file; nothing if it does not parse.
    Read from the YAML nodes, within the same bounds as the file itself, without building the schema."""
    import yaml

    from site_plugins.signoff.registry import compose

    node, problems = compose(text)
    if problems or not isinstance(node, yaml.MappingNode):
        return
    entries = _get(node, "entries")
    if not isinstance(entries, yaml.MappingNode):
        return
    for key, rec in entries.value:
        for holder in (rec, _get(rec, "previous")):
            sig = _get(_get(holder, "reviewer"), "signature")
            if isinstance(sig, yaml.ScalarNode) and isinstance(key, yaml.ScalarNode):
                yield str(key.value), keys.digest(str(sig.value))


def _get(node: Any, name: str) -> Any:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    return next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == name), None)


def _git(root: Path, *args: str, stdin: str | None = None) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], input=stdin.encode() if stdin is not None else None,
                              capture_output=True, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def _blobs(root: Path, ids: list[str]) -> Iterator[tuple[str, str]]:
    """(id, text) of each blob, streamed from one ``git cat-file --batch`` (one blob in memory at a time;
    blobs that are not UTF-8 left out)."""
    if not ids:
        return
    try:
        proc = subprocess.Popen(["git", "-C", str(root), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for blob in ids:  # one at a time: git flushes each object, and neither pipe can fill up
            proc.stdin.write(f"{blob}\n".encode())
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) != 3 or header[1] != b"blob":
                continue
            raw = proc.stdout.read(int(header[2]) + 1)[:-1]
            try:
                yield blob, raw.decode("utf-8")
            except UnicodeDecodeError:
                continue
    except (OSError, ValueError):
        return
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.wait()


def day(on: dt.datetime) -> str:
    return keys.stamp(on)[:10]
