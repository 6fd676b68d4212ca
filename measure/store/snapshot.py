"""The files results are judged by (specs, sources, the node registry and the result files), as one git
commit held them, copied into a temporary folder for :func:`measure.store.results.load_at`.

A signature covers the values an entry showed when it was signed; after a re-measurement the last signed
version is rendered with the results of the commit it was signed at, judged against that commit's own
specs and sources (a result was fresh then), never with today's numbers.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from measure.experiment.nodes import NODES_PATH
from measure.experiment.spec import CODE_DIR
from measure.store.resultformat import RESULTS_DIR

#: What judging results reads: every spec and source under code/, the registry, the result files.
PATHS = (CODE_DIR, NODES_PATH, RESULTS_DIR)
MAX_BYTES = 1024 * 1024 * 1024  # an archive past this is not unpacked (fail closed: no view at that commit)


def _git(root: Path, *args: str) -> bytes | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def key(root: Path, commit: str) -> str | None:
    """Which versions of :data:`PATHS` a commit holds (their git object ids), or None if git cannot say.
    Two commits with the same key judge results the same way."""
    out = _git(root, "rev-parse", "--verify", "-q", *(f"{commit}^{{commit}}:{p}" for p in PATHS))
    if out is None:  # a path the commit lacks: name the ones it has
        ids = [(_git(root, "rev-parse", "--verify", "-q", f"{commit}^{{commit}}:{p}") or b"-").strip() for p in PATHS]
        if _git(root, "rev-parse", "--verify", "-q", f"{commit}^{{commit}}") is None:
            return None
        return b" ".join(ids).decode()
    return " ".join(out.decode().split())


def clean(root: Path, commit: str) -> bool:
    """Whether the working copy's :data:`PATHS` are exactly ``commit``'s (no change, nothing untracked)."""
    diff = _git(root, "diff", "--quiet", commit, "--", *PATHS)  # (exit 1 when they differ: None)
    untracked = _git(root, "ls-files", "--others", "--exclude-standard", "--", *PATHS)
    return diff is not None and untracked is not None and not untracked.strip()


@contextmanager
def checkout(root: Path, commit: str) -> Iterator[Path | None]:
    """A temporary folder holding :data:`PATHS` as ``commit`` held them (None when git cannot give them);
    removed on exit. Only regular files and folders are unpacked (no links, nothing outside the folder)."""
    present = _git(root, "ls-tree", "--name-only", commit, "--", *PATHS)
    if present is None:
        yield None
        return
    names = present.decode().split()
    tmp = Path(tempfile.mkdtemp(prefix="gloss-results-at-"))
    try:
        data = _git(root, "archive", "--format=tar", commit, "--", *names) if names else b""
        if data is None or len(data) > MAX_BYTES:
            yield None
            return
        if data:
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
                tar.extractall(tmp, members=members, filter="data")
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
