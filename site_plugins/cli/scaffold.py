"""``gloss new``: scaffold a term or lesson with the full entry anatomy."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from site_plugins.cli import common as cli_common
from site_plugins.cli.common import UsageError

# --- gloss new ---------------------------------------------------------------------------------------

TERM_TEMPLATE = """\
---
# Scaffolded by `gloss new term {slug}`. Fill in every key and write the body, then run `gloss check`.
# The page is built in this order: definition (the lede), body, Measured, Diagram, Code, Related terms,
# Where you meet this, Sources, byline. It stays an unpublished draft until a registered author and a
# different registered reviewer sign it (gloss sign {path} --as author|reviewer, with your SSH key).
title: {title}
definition: ""  # exactly one sentence, ending in a full stop; shown as the lede, in the A-Z and in previews
related: []  # slugs of related terms, e.g. [shared-memory, tiling]
lessons: []
#  - lesson: day13-shared-memory
#    why: one line on why the term matters in that lesson.
sources: []
#  - title: the source's title as a reader would search for it
#    url: https://...
# diagram:  # optional
#   name: tile-lifecycle
#   preset: default
#   alt: what the diagram shows, in words
#   caption: one line under the figure
code: []
#  - file: code/day13-shared-memory/transpose.cu
#    region: tiled  # marked in the file by // --8<-- [start:tiled] ... // --8<-- [end:tiled]
#    caption: one line on what the excerpt shows
---
"""

LESSON_TEMPLATE = """\
---
# Scaffolded by `gloss new lesson {day} {slug}`. Fill in every key and write the body, then run
# `gloss check`. The lesson stays an unpublished draft until a registered author and a different
# registered reviewer sign it (gloss sign {path} --as author|reviewer, with your SSH key).
day: {day}
title: {title}
summary: ""  # one or two sentences on what the lesson covers; shown in the lesson index
code: {code}  # the lesson's CUDA sources
introduces: []  # slugs of the terms it introduces, e.g. [shared-memory, tiling]
sources: []
#  - title: the source's title as a reader would search for it
#    url: https://...
---
"""


def new_main(argv: list[str]) -> int:
    parser = cli_common.parser("gloss new", "Scaffold a new term or lesson from the entry anatomy.", common=False)
    sub = parser.add_subparsers(dest="kind", required=True, metavar="{term,lesson}")
    term = sub.add_parser("term", help="gloss new term SLUG: content/terms/SLUG.md",
                          parents=[cli_common.common_options()])
    term.add_argument("slug", metavar="SLUG", help="lower case with hyphens, e.g. bank-conflict")
    term.add_argument("--title", help='the question form, e.g. "What is a bank conflict in CUDA?"')
    lesson = sub.add_parser("lesson", help="gloss new lesson DAY SLUG: content/lessons/dayNN-SLUG.md",
                            parents=[cli_common.common_options()])
    lesson.add_argument("day", metavar="DAY", type=int, help="the day number, e.g. 13")
    lesson.add_argument("slug", metavar="SLUG", help="lower case with hyphens, e.g. shared-memory")
    lesson.add_argument("--title", help="the lesson's title")
    args = cli_common.parse(parser, argv)
    if isinstance(args, int):
        return args
    return cli_common.run("gloss new", lambda: _new(args))


def _new(args: argparse.Namespace) -> int:
    from site_plugins.content import LESSON_FILE, TERM_FILE

    root: Path = args.root.resolve()
    if not (root / args.docs_dir).is_dir():
        raise UsageError(f"no content folder at {root / args.docs_dir}; run in the project root or pass --root")
    if not TERM_FILE.match(args.slug):
        raise UsageError(f"'{args.slug}' is not a slug; use lower case letters, digits and hyphens, e.g. bank-conflict")
    if args.kind == "term":
        path = f"{args.docs_dir}/terms/{args.slug}.md"
        title = args.title or f"What is {args.slug.replace('-', ' ')} in CUDA?"
        text = TERM_TEMPLATE.format(slug=args.slug, path=path, title=_yaml_str(title))
        code_dir = None
    else:
        if not 0 <= args.day <= 99:
            raise UsageError(f"day {args.day} is out of range; lesson days run from 0 to 99")
        stem = f"day{args.day:02d}-{args.slug}"
        assert LESSON_FILE.match(stem)
        path = f"{args.docs_dir}/lessons/{stem}.md"
        code_dir = f"code/{stem}"
        title = args.title or args.slug.replace("-", " ").capitalize()
        text = LESSON_TEMPLATE.format(day=args.day, slug=args.slug, path=path, title=_yaml_str(title), code=code_dir)
        clash = sorted((root / args.docs_dir / "lessons").glob(f"day{args.day:02d}-*.md"))
        if clash and not (root / path).exists():
            print(f"gloss new: day {args.day} already has {clash[0].relative_to(root).as_posix()}; "
                  "choose another day", file=sys.stderr)
            return 1
    target = root / path
    if target.exists():
        print(f"gloss new: {path} already exists; edit it, or choose another slug", file=sys.stderr)
        return 1
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    print(f"Created {path}")
    if code_dir is not None and not (root / code_dir).is_dir():
        (root / code_dir).mkdir(parents=True)
        print(f"Created {code_dir}/ (put the lesson's .cu files there)")
    print("Next: fill in the front matter and write the body; `gloss check` lists what is still missing. "
          f"It stays a draft until signed: gloss sign {path} --as author")
    return 0


def _yaml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar
