"""``gloss check``: the build's content checks without a build, with the same words."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from site_plugins.content import load_content


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gloss check", description="Validate every term and lesson.")
    parser.add_argument("--root", type=Path, default=Path("."), help="project root (holds mkdocs.yml)")
    parser.add_argument("--docs-dir", default="content", help="content folder, relative to the root")
    args = parser.parse_args(argv)
    root: Path = args.root
    if not (root / args.docs_dir).is_dir():
        print(f"gloss check: no content folder at {root / args.docs_dir}", file=sys.stderr)
        return 2
    content, problems = load_content(root, args.docs_dir)
    for problem in problems:
        print(problem)
    n = len(content.terms) + len(content.lessons)
    if problems:
        print(f"{len(problems)} problem(s) in {n} entries", file=sys.stderr)
        return 1
    print(f"ok: {len(content.terms)} terms, {len(content.lessons)} lessons")
    return 0
