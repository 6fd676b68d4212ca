"""Argument-parsing plumbing the ``gloss`` sub-commands written on argparse share.

A command builds its parser with :func:`parser` (``--root`` and ``--docs-dir`` included unless asked
not to), turns ``argv`` into options with :func:`parse`, and runs its body under :func:`run`, which
turns a :class:`UsageError` into a ``PROG: message`` line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


class UsageError(Exception):
    """A usage or environment error: printed as ``PROG: message``, exit 2."""


def common_options() -> argparse.ArgumentParser:
    """A parent parser holding the options every project command takes: ``--root`` and ``--docs-dir``."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--root", type=Path, default=Path("."), help="project root (holds mkdocs.yml and signoff.yaml)")
    p.add_argument("--docs-dir", default="content", help="content folder, relative to the root")
    return p


def parser(prog: str, description: str, common: bool = True) -> argparse.ArgumentParser:
    """A command's parser; with ``common``, it takes the :func:`common_options` too."""
    return argparse.ArgumentParser(prog=prog, description=description, parents=[common_options()] if common else [])


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    """The parsed options, or the exit code argparse chose (0 after ``--help``, 2 on a usage error)."""
    try:
        return parser.parse_args(list(argv))
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return int(exc.code or 0)


def run(prog: str, body: Callable[[], int]) -> int:
    """``body()``'s exit code; a :class:`UsageError` it raises is printed as ``PROG: message``, exit 2."""
    try:
        return body()
    except UsageError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
