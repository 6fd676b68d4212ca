"""Reading a text file within bounds: size, encoding and control characters become problems, not tracebacks.

Every reader of a project text file (Markdown entries, YAML data, ``.cu`` sources) goes through
:func:`read`, so a file that is too large, not UTF-8, or holds a control character (other than tab,
newline and carriage return) is reported as ``path:line: problem; remedy`` with the line it is on.

Line endings: CRLF and a lone CR read as LF (:func:`lf`), as Python's own text mode reads them, and so
as MkDocs and PyCUDA see the same files; every line number counts LF after that. A file's text, and so
its sign-off fingerprint, does not change when an editor or ``git config core.autocrlf`` converts its
line endings; nor does its sha256 for measurement freshness (:func:`sha256_text`).

No MkDocs imports: the measurement runner uses this module on verification nodes.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path, PurePosixPath

from site_plugins.files.messages import Problem

#: Larger than any hand-written entry, spec, registry or source file is expected to be.
MAX_BYTES = 2 * 1024 * 1024

# C0 controls except tab, LF and CR; DEL; C1 controls except NEL (U+0085, which YAML allows); the
# byte-order mark anywhere but first; and the two non-characters YAML refuses.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x84\x86-\x9f\ufeff\ufffe\uffff]")


def size_problem(rel: str, size: int, max_bytes: int) -> Problem:
    return Problem(rel, 1, f"the file is {size:,} bytes, over the limit of {max_bytes:,}",
                   "split it up or remove what does not belong there")


def lf(raw: bytes) -> bytes:
    """``raw`` with each CRLF and each lone CR turned into LF."""
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in raw else raw


def lf_text(text: str) -> str:
    """:func:`lf` for text already decoded (e.g. a file read from git)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def sha256_text(raw: bytes) -> str:
    """sha256 of a text file's bytes with its line endings as :func:`lf` reads them: the same for an LF
    file as over its raw bytes, and unchanged by a conversion to CRLF."""
    return hashlib.sha256(lf(raw)).hexdigest()


def decode(raw: bytes, rel: str, first_line: int = 1) -> tuple[str | None, list[Problem]]:
    """``raw`` as UTF-8 text (a leading byte-order mark dropped), or the problem with its line."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    raw = lf(raw)  # before anything counts lines (a CR or LF byte is never inside a UTF-8 sequence)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + raw.count(b"\n", 0, exc.start)
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = raw[exc.start]
        return None, [Problem(rel, line, f"not UTF-8 text (byte 0x{byte:02x} at column {column})",
                              "save the file as UTF-8")]
    problem = control_problem(text, rel, first_line)
    return (None, [problem]) if problem else (text, [])


def control_problem(text: str, rel: str, first_line: int = 1) -> Problem | None:
    """The first control character in ``text`` (tab, newline and carriage return are fine)."""
    m = _CONTROL.search(text)
    if m is None:
        return None
    line = first_line + text.count("\n", 0, m.start())
    column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return Problem(rel, line, f"control character U+{ord(m.group()):04X} at column {column}",
                   "delete it (only tab and newline may appear in text)")


def symlink_problem(rel: str) -> Problem:
    return Problem(rel, 1, "a symbolic link, which is never followed, read or published",
                   "replace it with the file itself (a regular file in the repository), or delete it")


def linked_part(path: Path, rel: str) -> str | None:
    """The first of ``rel``'s folders or file (``rel`` names the end of ``path``) that is a symbolic link.

    A link could stand for any file on the machine (signoff.yaml, a key, another entry): no project file
    is ever read through one, so what is read is what is committed."""
    parts = PurePosixPath(rel).parts
    if not parts or ".." in parts or PurePosixPath(rel).is_absolute():
        parts = (path.name,)
    n = len(parts)
    chain = [path, *path.parents][:n][::-1]  # the top folder first, the file last
    for k, p in enumerate(chain):
        if p.is_symlink():
            return "/".join(parts[: k + 1]) if len(chain) == n else rel
    return None


def read(path: Path, rel: str, max_bytes: int = MAX_BYTES) -> tuple[str | None, list[Problem]]:
    """The text of ``path`` (reported as ``rel``), or None and the problem that stopped it."""
    link = linked_part(path, rel)
    if link is not None:
        return None, [symlink_problem(link)]
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO would block the reader forever; a folder cannot be read
            what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            return None, [Problem(rel, 1, f"cannot be read ({what})", "make it a regular text file, or remove it")]
        size = info.st_size
        if size > max_bytes:
            return None, [size_problem(rel, size, max_bytes)]
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))  # (a link made since the look above)
        with os.fdopen(fd, "rb") as fh:
            # Asked for the file's size (plus one byte, to see it grew), not the limit: read(n) allocates
            # n bytes up front, 64 MiB for a result file of a few KB. A file that grew is read on, to the limit.
            raw = fh.read(min(size, max_bytes) + 1)
            if len(raw) > size:
                raw += fh.read(max_bytes + 1 - len(raw))
    except OSError as exc:
        return None, [Problem(rel, 1, f"cannot be read ({exc.strerror or exc})", "check that it is a readable file")]
    if len(raw) > max_bytes:  # grew while we looked
        return None, [size_problem(rel, len(raw), max_bytes)]
    return decode(raw, rel)
