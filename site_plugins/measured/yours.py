""""Run this on your GPU": the short block that follows a page's measurements (pure).

Every page that embeds an experiment tells its reader how to measure the same experiments on their
own card, with the exact commands (``gloss measure mine``, :mod:`measure.run.local`): results that stay
on the reader's machine, printed beside ours. Written for readers, the same in preview and published;
kept out of the search index, since it repeats on every measured page.
"""

from __future__ import annotations

from collections.abc import Iterable

ANCHOR = "run-this-on-your-gpu"


def commands(experiments: Iterable[str]) -> str:
    """The commands a reader types in a clone of the repository, for ``experiments`` in page order."""
    ids = " ".join(dict.fromkeys(experiments))
    return f"python3 -m venv .venv\n.venv/bin/pip install -e '.[node]'\n.venv/bin/gloss measure mine {ids}"


def run_yours(experiments: Iterable[str]) -> str:
    """Markdown of the block for a page embedding ``experiments``; empty when it embeds none."""
    ids = list(dict.fromkeys(experiments))
    if not ids:
        return ""
    return (
        f"\n## Run this on your GPU {{ #{ANCHOR} data-search-exclude }}\n\n"
        "The figures on this page come from our verification nodes. To measure the same experiments on your "
        "own NVIDIA GPU, install the CUDA toolkit (with `nvcc` on your `PATH`), clone this site's repository "
        "and run, in the clone:\n\n"
        f"```sh\n{commands(ids)}\n```\n\n"
        "It checks each kernel's output, times it as we do, and prints your times beside ours. Your results "
        "stay on your machine, in `measure/local/`.\n"
    )
