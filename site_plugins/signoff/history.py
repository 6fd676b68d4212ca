"""Refusing a superseded sign-off: an older, genuine pair copied back into ``signoff.yaml``.

A signature binds its entry, role, signer, content, commit, date and (for a review) the author signature
it completes, so no field of it can be edited or moved; but it stays a valid signature forever. Whoever
can edit ``signoff.yaml`` could therefore paste back the pair of an older version and publish what it
signed. git remembers what the file held, so a pair whose review git saw superseded counts for nothing.

- A review is known by the message it signs (entry, role, name, fingerprint, part digests, commit, time
  and the author signature it completes), never by its armored text: an extra line after the armor, a
  re-wrapped or re-encoded armor, or another valid signature over the same message (ECDSA's are malleable)
  is the same review.
- Every commit that changed the file is read, on every branch merged into HEAD (``--full-history``: a
  branch that kept its own older copy, merged over a newer review, does not hide that review).
- A review is superseded by another valid review of the same entry whose first commit is not an ancestor
  of its own first commit: a later one, or one made on a branch beside it (fail closed: after two
  concurrent reviews of one entry, the entry is signed again). Within one version, the pair kept as
  ``previous`` is older than the entry's own. The dates written in signatures are not trusted for order.
- A shallow clone lacks the history this needs: there no pair counts, and the one problem says how to
  fetch the history (``git fetch --unshallow``; in CI, ``fetch-depth: 0``). So does a repository whose
  ``info/grafts`` file gives commits other parents (git honours it even with ``--no-replace-objects``).

A pair that git never held (signed and not yet committed) is the newest there is. Without git (no
repository, or no commit yet) there is no history and nothing is refused.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from site_plugins.files import schema
from site_plugins.files.messages import Problem
from site_plugins.signoff import keys, registry
from site_plugins.signoff.model import FILE, EntrySignoff, Pair, Registry, Signature
from site_plugins.signoff.signable import git_command, git_env

SHALLOW = ("this is a shallow git clone, so its history cannot tell an older sign-off copied back into "
           "signoff.yaml from the newest, and no sign-off counts ({pairs})")
GRAFTED = ("this repository's history is rewritten by its grafts file ({grafts}), so it cannot tell an older "
           "sign-off copied back into signoff.yaml from the newest, and no sign-off counts ({pairs})")
GRAFTED_REMEDY = "remove the grafts file (or build from a clone without one)"
SHALLOW_REMEDY = ("fetch the whole history: git fetch --unshallow (in CI, set 'fetch-depth: 0' under the "
                  "actions/checkout step in .github/workflows/*.yml)")


def load(root: Path) -> tuple[Registry, list[Problem]]:
    """Read and check ``root/signoff.yaml`` (:func:`registry.read`), then drop the pairs git history shows
    superseded. A missing file is an empty registry (every entry a draft)."""
    reg, problems = registry.read(root)
    reg, superseded = drop_superseded(root, reg)
    return reg, problems + superseded


def review_id(path: str, reviewer: Signature, author: Signature | None) -> str:
    """What a review is known by in history: the digest of the message it signs."""
    return "sha256:" + hashlib.sha256(registry.signed_message(path, "reviewer", reviewer, author)).hexdigest()


@dataclass(frozen=True)
class Seen:
    """Where a review first appears in the file's history."""

    order: int  # position of the commit, oldest first (parents before children)
    commit: str
    blob: str
    kept: bool = False  # held there as the entry's 'previous' pair


def drop_superseded(root: Path, reg: Registry) -> tuple[Registry, list[Problem]]:
    """``reg`` without the pairs whose review git saw superseded by another valid review of the same
    entry (or without every pair, in a shallow clone); a problem for each one dropped."""
    pairs = [(path, label, pair) for path, e in reg.entries.items() for label, pair in _pairs(e)]
    if not pairs:
        return reg, []
    log = _history(root)
    problems: list[Problem] = []
    drop: list[tuple[str, str]] = []
    if log.shallow or log.grafts:
        n = len(pairs)
        aside = f"{n} pair{'s' if n > 1 else ''} of author and reviewer set aside"
        problems.append(Problem(FILE, 1, SHALLOW.format(pairs=aside), SHALLOW_REMEDY) if log.shallow else
                        Problem(FILE, 1, GRAFTED.format(grafts=log.grafts, pairs=aside), GRAFTED_REMEDY))
        drop = [(path, label) for path, label, _ in pairs]
    for path, label, pair in pairs if not drop else ():
        assert pair.reviewer is not None
        newer = log.newer_review(path, review_id(path, pair.reviewer, pair.author), kept=label != "")
        if newer is None:
            continue
        sig, seen = newer
        where = "the published pair" if label == "" else "the kept 'previous' pair"
        problems.append(Problem(
            FILE, schema.line_of(pair.reviewer) or schema.line_of(reg.entries[path]),
            f"{where} of {path} (reviewed by {pair.reviewer.name}, {day(pair.reviewer.on)}) was superseded by "
            f"a later review ({sig.name}, {day(sig.on)}, committed in {seen.commit[:10]}); an older sign-off "
            "copied back does not count",
            f"restore the entry's newest sign-off from git (git show {seen.commit[:10]}:{FILE}) or remove "
            "the old pair and sign again"))
        drop.append((path, label))
    if not drop:
        return reg, problems
    entries = dict(reg.entries)
    for path, label in drop:
        cur = entries[path]
        if label == "":
            cur = registry.keep_lines(cur, EntrySignoff(author=None, reviewer=None, previous=cur.previous))
        else:
            cur = registry.keep_lines(cur, dataclasses.replace(cur, previous=None))
        entries[path] = cur
    return registry.keep_lines(reg, dataclasses.replace(reg, entries=entries)), problems


def _pairs(e: EntrySignoff) -> list[tuple[str, Pair]]:
    out = []
    if e.author is not None and e.reviewer is not None:
        out.append(("", Pair(e.author, e.reviewer)))
    if e.previous is not None and e.previous.author is not None and e.previous.reviewer is not None:
        out.append(("previous", e.previous))
    return out


_SEEN: dict[tuple[str, str, str], _History] = {}


def _history(root: Path) -> _History:
    # What git holds changes only with HEAD: mkdocs serve rebuilds, and gloss commands within one
    # process, read the history once per HEAD.
    # (A clone made whole by `git fetch --unshallow` keeps its HEAD: whether it is shallow is part of the key.)
    found = (_git(root, "rev-parse", "--is-shallow-repository", "--git-path", "info/grafts", "--verify", "-q",
                  "HEAD") or "").splitlines()
    if len(found) != 3:
        return _History(root, read=False)
    grafts = root / found[1]
    grafted = found[1] if grafts.is_file() and grafts.stat().st_size > 0 else ""
    key = (str(root.resolve()), " ".join(found), grafted)
    if key not in _SEEN:
        _SEEN.clear()  # one project, one HEAD at a time
        _SEEN[key] = _History(root, shallow=found[0] == "true", grafts=grafted)
    return _SEEN[key]


class _History:
    """The reviews each version of signoff.yaml held, read from git: one ``rev-list`` (every branch merged
    into HEAD, with the commits' ancestry), one ``cat-file --batch-check`` and one ``cat-file --batch``
    that streams each distinct version once."""

    def __init__(self, root: Path, *, read: bool = True, shallow: bool = False, grafts: str = "") -> None:
        self.root = root
        self.first: dict[str, dict[str, Seen]] = {}  # path -> review id -> first appearance
        self.parsed: dict[str, Registry] = {}
        self.ancestors: list[int] = []  # per commit order: a bit per order of each of its ancestors
        self.shallow = shallow
        self.grafts = grafts  # the grafts file, as git names it, when one rewrites the history
        listing = _git(root, "rev-list", "--full-history", "--topo-order", "--parents", "HEAD", "--", FILE) \
            if read else None
        if not listing:
            return
        rows = [line.split() for line in listing.splitlines() if line.strip()][::-1]  # parents first
        order = [row[0] for row in rows]
        at = {c: i for i, c in enumerate(order)}
        for row in rows:
            bits = 0
            for parent in row[1:]:
                if parent in at:
                    bits |= (1 << at[parent]) | self.ancestors[at[parent]]
            self.ancestors.append(bits)
        listing = _git(root, "cat-file", "--batch-check", stdin="".join(f"{c}:{FILE}\n" for c in order))
        found = [line.split() for line in (listing or "").splitlines()]
        blobs = [row[0] if len(row) == 3 and row[1] == "blob" else None for row in found]
        if len(blobs) != len(order):
            return
        where: dict[str, Seen] = {}  # each distinct version, where it first appears
        for i, (commit, blob) in enumerate(zip(order, blobs, strict=True)):
            if blob is not None and blob not in where:
                where[blob] = Seen(i, commit, blob)
        for blob, text in _blobs(root, list(where)):
            for path, rid, kept in _reviews(text):
                seen = self.first.setdefault(path, {})
                if rid not in seen or where[blob].order < seen[rid].order:
                    seen[rid] = dataclasses.replace(where[blob], kept=kept)

    def newer_review(self, path: str, rid: str, *, kept: bool = False) -> tuple[Signature, Seen] | None:
        """The latest valid review of ``path`` that supersedes the review ``rid`` (see the module's
        docstring); None when there is none, or git never held ``rid``."""
        seen = self.first.get(path, {})
        mine = seen.get(rid)
        if mine is None:
            return None
        for other, at in sorted(seen.items(), key=lambda kv: -kv[1].order):
            if other == rid or not self._supersedes(at, mine):
                continue
            sig = self._valid_review(at.blob, path, other)
            if sig is not None:
                return sig, at
        return None

    def _supersedes(self, other: Seen, mine: Seen) -> bool:
        if other.order == mine.order:  # one version held both: its 'previous' pair is the older
            return mine.kept and not other.kept
        return not (self.ancestors[mine.order] >> other.order) & 1

    def _valid_review(self, blob: str, path: str, rid: str) -> Signature | None:
        if blob not in self.parsed:
            text = next((t for _, t in _blobs(self.root, [blob])), "")
            self.parsed[blob] = registry.parse(text)[0]  # signatures that do not verify are dropped
        e = self.parsed[blob].entries.get(path)
        for _, pair in _pairs(e) if e else ():
            assert pair.reviewer is not None
            if review_id(path, pair.reviewer, pair.author) == rid:
                return pair.reviewer
        return None


def _reviews(text: str) -> Iterator[tuple[str, str, bool]]:
    """(entry path, review id, held as 'previous') for each complete pair in one version of the file;
    nothing if it does not parse. Read from the YAML nodes, within the same bounds as the file itself."""
    node, problems = registry.compose(text)
    if problems or not isinstance(node, yaml.MappingNode):
        return
    entries = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == "entries"), None)
    if not isinstance(entries, yaml.MappingNode):
        return
    for key, rec in entries.value:
        if not isinstance(key, yaml.ScalarNode):
            continue
        e, _ = schema.build(EntrySignoff, rec, FILE)
        for label, pair in _pairs(e) if isinstance(e, EntrySignoff) else ():
            assert pair.reviewer is not None
            yield str(key.value), review_id(str(key.value), pair.reviewer, pair.author), label != ""


def _git(root: Path, *args: str, stdin: str | None = None) -> str | None:
    try:
        done = subprocess.run([*git_command(root), *args], input=stdin.encode() if stdin is not None else None,
                              env=git_env(),
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
        proc = subprocess.Popen([*git_command(root), "cat-file", "--batch"], stdin=subprocess.PIPE, env=git_env(),
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
