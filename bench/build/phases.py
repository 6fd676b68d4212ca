"""Where one build's CPU time goes, by phase: a synthetic site (``synthetic.py``) built once, unprofiled.

Each phase's time is its own (exclusive): the CPU time (``time.process_time``) spent inside the
functions of that phase minus what nested phases took. Phases: each plugin's handler of each MkDocs
event (``files:site_plugins`` is the gloss plugin's ``prepare``; ``page_context:material`` is the
search indexer), Markdown (``Page.render``), reading sources, Jinja templates, writing files, static
files, anchors; ``other`` is what MkDocs does outside them. cProfile would inflate Jinja's and Markdown's
many small calls; this does not.

Usage: ``.venv/bin/python bench/build/phases.py [--terms 1000] [--kind gloss|plain] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import collections
import functools
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import synthetic  # noqa: E402


class Phases:
    def __init__(self) -> None:
        self.own: collections.Counter[str] = collections.Counter()
        self.stack: list[float] = []

    def timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            self.stack.append(0.0)
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.process_time() - start
                nested = self.stack.pop()
                self.own[name] += spent - nested
                if self.stack:
                    self.stack[-1] += spent

        return wrapper


def profile(root: Path) -> tuple[Phases, float, float]:
    """Build ``root`` once with every phase timed; the phases, the build's CPU and wall seconds."""
    import jinja2
    from mkdocs.commands import build as mk
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

    ph = Phases()
    cfg = load_config(str(root / "mkdocs.yml"), site_dir=str(root / "site"))
    for event, handlers in cfg.plugins.events.items():
        cfg.plugins.events[event] = [  # type: ignore[index]
            ph.timed(f"{event}:{type(getattr(h, '__self__', h)).__module__.split('.')[0]}", h) for h in handlers]
    patches: list[tuple[Any, str, str]] = [
        (Page, "read_source", "read sources"), (Page, "render", "markdown"), (Page, "validate_anchor_links", "anchors"),
        (jinja2.Template, "render", "templates"), (mk.utils, "write_file", "write files"),
        (Files, "copy_static_files", "static files"), (mk, "get_files", "find files"),
        (mk, "get_navigation", "navigation"),
    ]
    saved = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in patches]
    for owner, attr, name in patches:
        setattr(owner, attr, ph.timed(name, getattr(owner, attr)))
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        ph.timed("other", mk.build)(cfg)
        return ph, time.process_time() - cpu, time.perf_counter() - wall
    finally:
        for owner, attr, fn in saved:
            setattr(owner, attr, fn)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--terms", type=int, default=1000)
    parser.add_argument("--kind", choices=("gloss", "plain"), default="gloss")
    parser.add_argument("--keep", type=Path, help="write the site here and keep it")
    args = parser.parse_args(argv)
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    root = args.keep or Path(tempfile.mkdtemp(prefix="gloss-phases-"))
    try:
        shutil.rmtree(root, ignore_errors=True)
        synthetic.write_site(root, args.terms, embeds=args.kind == "gloss")
        import logging

        logging.getLogger("mkdocs").setLevel(logging.ERROR)
        ph, cpu, wall = profile(root)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.terms} terms, {args.kind}: {cpu:.2f} s CPU, {wall:.2f} s wall, peak {peak:.0f} MiB (this process)")
    print("  CPU s  share  phase")
    for name, own in ph.own.most_common():
        if own >= 0.05:
            print(f"{own:7.2f}  {100 * own / cpu:4.0f} %  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
