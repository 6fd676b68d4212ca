"""How long ``gloss check`` takes: on this repository's content and on 1,000 synthetic terms.

The synthetic project is bench/build's (``synthetic.write_site``): each term embeds a measured table
and two values, expanded from result files written through ``measure.store.results`` (made-up samples, in a
temporary folder only); its mkdocs.yml turns preview on, and a preview check checks the same things.
``gloss check`` runs in this process, once untimed, then ``--repeat`` times; the median is printed,
next to the median of a preview ``gloss build`` of the same project (every page rendered) for scale.

Usage: ``.venv/bin/python bench/check/run.py [--terms 1000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench" / "build"))

import synthetic  # noqa: E402 (bench/build/synthetic.py: the synthetic project)

from site_plugins.cli import build as sitebuild  # noqa: E402
from site_plugins.cli import check as content_cli  # noqa: E402


def timed(action: Callable[[], int], repeat: int) -> tuple[float, list[float], int]:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = action()  # untimed: imports, disk cache
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            action()
            times.append(time.perf_counter() - start)
    return statistics.median(times), times, code


def report(label: str, median: float, times: list[float], code: int) -> None:
    each = ", ".join(f"{t:.2f}" for t in times)
    print(f"{label:<44} median {median:6.2f} s  ({each})  exit {code}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--terms", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    report("gloss check, this repository", *timed(lambda: content_cli.main(["--root", str(REPO)]), args.repeat))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        synthetic.write_site(root, args.terms, embeds=True)
        report(f"gloss check, {args.terms:,} synthetic terms",
               *timed(lambda: content_cli.main(["--root", str(root)]), args.repeat))
        site = root / "site-preview"
        # The synthetic terms are unsigned: only a preview build renders their pages.
        report(f"gloss build --no-strict, preview, {args.terms:,} terms",
               *timed(lambda: sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(site), "--no-strict",
                                              "--preview"]), args.repeat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
