"""How wide a measurement table needs its column to be, so that the stylesheet can lay out a table that
does not fit as stacked rows instead of making the reader scroll sideways.

The page is static and the table's real width is known only to the browser; the stylesheet cannot compare
a table with its column either. So the build estimates the narrowest width at which the table still reads
well (kernel names wrapped to a few short lines, headers wrapped at their spaces, numbers whole) and files
the table under one of a few :data:`BREAKS`; ``measured.css`` stacks a table of break ``i`` in any column
narrower than ``BREAKS[i]`` (a CSS container query). The estimate errs wide: a table stacked a little early
reads fine, a table that overflows does not (the browser tests check every table of the site at 390 px and
1,400 px).

Widths are in ``rem`` (mkdocs-material's root size), measured against its table text (0.64 rem).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Column widths (rem) at which a table switches layout. 16.3 rem is a 390 px phone's column, 32.7 rem
#: the 1,400 px desktop column, with both sidebars.
BREAKS: tuple[float, ...] = (16.0, 20.0, 26.0, 32.0, 40.0, 48.0)
DIGIT_REM = 0.37  # a digit or letter of the table's 0.64 rem text (Roboto or a system sans), generously
HEAD_REM = 0.40  # of a bold header letter
CODE_REM = 0.36  # of the kernel names' monospace text (0.85 em of the table's)
PAD_REM = 0.8  # a cell's left and right padding together (0.6 em each side)
KERNEL_CHARS = 16  # a kernel name wraps to lines about this long (never shorter than its longest word)
SLACK = 1.08  # estimates err wide


def _longest_word(text: str) -> int:
    return max((len(w) for w in text.split()), default=0)


def need_rem(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> float:
    """The narrowest column (rem) the table reads well in. ``headers[0]`` and each row's first cell are
    the kernel column, whose names wrap at their spaces; headers wrap at theirs; other cells never wrap."""
    total = 0.0
    for i, head in enumerate(headers):
        cells = [r[i] for r in rows if i < len(r)]
        if i == 0:
            words = max([_longest_word(c) for c in cells] or [0])
            chars = max(words, min(KERNEL_CHARS, max((len(c) for c in cells), default=0)))
            width = max(chars * CODE_REM, _longest_word(head) * HEAD_REM)
        else:
            width = max([_longest_word(head) * HEAD_REM] + [len(c) * DIGIT_REM for c in cells])
        total += width + PAD_REM
    return total * SLACK


def fit_class(need: float) -> int:
    """The index of the first break at least ``need`` wide; ``len(BREAKS)`` when none is (always stacked)."""
    return next((i for i, b in enumerate(BREAKS) if need <= b), len(BREAKS))
