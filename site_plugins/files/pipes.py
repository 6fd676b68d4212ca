"""A command's exit when its reader stops reading: ``gloss status | head`` ends quietly, as ``yes | head`` does.

Python ignores SIGPIPE, so a write to a pipe whose reader has gone raises ``BrokenPipeError`` wherever the
command happens to print, and the interpreter then reports a second one while flushing at exit. Both
entry points (``gloss`` and ``python -m measure``) run their command through :func:`exit_with`, once, so
no command needs to know: the rest of the output is dropped and the process exits 141 (128 + SIGPIPE), the
status a shell reports for a tool stopped by that signal.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import NoReturn

BROKEN_PIPE_EXIT = 128 + signal.SIGPIPE


def exit_with(command: Callable[[], int]) -> NoReturn:
    """``sys.exit(command())``, ending quietly with :data:`BROKEN_PIPE_EXIT` when stdout or stderr is a
    pipe that was closed."""
    try:
        code = command()
        sys.stdout.flush()  # inside the try: what is still buffered may meet the closed pipe now
        sys.stderr.flush()
    except BrokenPipeError:
        # Nothing more can be said: point both streams at /dev/null so the flush at exit finds no pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            # A stream that is not a file (tests capture them): nothing to redirect.
            with contextlib.suppress(OSError, ValueError):
                os.dup2(devnull, stream.fileno())
        code = BROKEN_PIPE_EXIT
    sys.exit(code)
