"""Whole-or-nothing file writes: every data file of the project (results, link evidence, sign-offs) is
written to a temporary file in the same folder, flushed to disk, then renamed over the old one, so a
crash or a full disk leaves the old file or the new one, never half of either.

Free of MkDocs imports: the measurement runner uses it on verification nodes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8, ``\\n`` line ends) atomically, keeping its permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp creates 0600; a data file others read keeps its old mode, or gets the usual 0644.
        os.chmod(tmp, path.stat().st_mode & 0o7777 if path.exists() else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
