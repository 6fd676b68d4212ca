"""``gloss check``: every check the build runs (:func:`site_plugins.publishing.checks.run`), same lines, no build.

Reads the ``gloss`` plugin's options and ``docs_dir`` from ``mkdocs.yml`` without loading MkDocs'
configuration machinery (themes, other plugins), so that it stays fast enough to run on every save.
Exit codes: 0 no problem, 1 problems (each printed as ``path:line: problem; remedy``), 2 usage or
environment error.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from site_plugins.files.messages import Problem
from site_plugins.links import evidence
from site_plugins.publishing import checks, trusted


class _ConfigLoader(yaml.SafeLoader):
    """mkdocs.yml as data: tags such as ``!ENV`` or ``!!python/name:`` read as nothing."""


_ConfigLoader.add_multi_constructor("!", lambda loader, suffix, node: None)
_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def config_problem(root: Path, config_file: str = "mkdocs.yml") -> Problem | None:
    """The ``path:line:`` problem of a config file YAML cannot read (None when it reads, or is absent), for
    ``gloss check`` and ``gloss build`` alike (MkDocs' own message names no line in that form)."""
    path = root / config_file
    if not path.is_file():
        return None
    try:
        yaml.load(path.read_text(encoding="utf-8"), Loader=_ConfigLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if exc.context_mark and "end of stream" in (exc.problem or ""):  # an unclosed quote: where it opens
            mark = exc.context_mark
        opened = (f" ({exc.context} that starts on line {exc.context_mark.line + 1})"
                  if exc.context and exc.context_mark else "")
        return Problem(config_file, mark.line + 1 if mark else 1, f"not valid YAML: {exc.problem or exc}{opened}",
                       "fix the YAML there (MkDocs and gloss read this file alike)")
    except yaml.YAMLError as exc:
        return Problem(config_file, 1, f"not valid YAML: {exc}", "fix the YAML there")
    except (OSError, UnicodeDecodeError) as exc:
        return Problem(config_file, 1, f"cannot be read ({exc})", "save it as UTF-8 text")
    return None


def options(root: Path, config_file: str = "mkdocs.yml", *, preview: bool = False) -> checks.Options:
    """The options the build would check with, from ``root/config_file`` (defaults when it is absent)."""
    data: Any = {}
    path = root / config_file
    if path.is_file():
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_ConfigLoader) or {}
    mine: dict[str, Any] = {}
    for plugin in data.get("plugins") or []:
        if isinstance(plugin, dict) and "gloss" in plugin:
            mine = plugin["gloss"] or {}
    defaults = checks.Options()
    preview = preview or bool(mine.get("preview")) or os.environ.get("GLOSS_PREVIEW", "") not in ("", "0")
    return checks.Options(
        docs_dir=str(data.get("docs_dir") or "docs").strip("/"),
        preview=preview,
        evidence_file=str(mine.get("evidence_file", defaults.evidence_file)),
        evidence_max_age_days=int(mine.get("evidence_max_age_days", defaults.evidence_max_age_days)),
        chrome=tuple(str(p) for p in mine.get("chrome", defaults.chrome)),
        default_node=str(mine["default_node"]) if mine.get("default_node") is not None else None,
        config_file=config_file,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gloss check",
                                     description="Run every check the build runs, without building.")
    parser.add_argument("--root", type=Path, default=Path("."), help="project root (holds mkdocs.yml)")
    parser.add_argument("--config-file", default="mkdocs.yml", help="the MkDocs config, relative to the root")
    parser.add_argument("--preview", action="store_true", help="check as `make serve` and `make preview` build")
    args = parser.parse_args(argv)
    root: Path = args.root
    if not (root / args.config_file).is_file():
        print(f"gloss check: no {args.config_file} at {root / args.config_file}; run in the project root or "
              "pass --root", file=sys.stderr)
        return 2
    if (bad := config_problem(root, args.config_file)) is not None:
        print(bad)
        print("1 problem(s): the config cannot be read, so nothing else was checked", file=sys.stderr)
        return 1
    try:
        opts = options(root, args.config_file, preview=args.preview)
    except (yaml.YAMLError, OSError, UnicodeDecodeError, ValueError, TypeError, AttributeError) as exc:
        print(f"gloss check: cannot read {args.config_file}: {exc}", file=sys.stderr)
        return 2
    if not (root / opts.docs_dir).is_dir():
        print(f"gloss check: no content folder at {root / opts.docs_dir}", file=sys.stderr)
        return 2
    try:
        checked = checks.run(root, opts)
    except evidence.EvidenceError as exc:
        print(exc, file=sys.stderr)
        return 1
    if not args.preview and (root / args.config_file).is_file():  # what a published build refuses to read
        checked.problems = sorted(set(checked.problems) | set(trusted.problems(root / args.config_file,
                                                                               opts.chrome)))
    for problem in checked.problems:
        print(problem)
    content = checked.build.content
    if checked.problems:
        n = len(content.terms) + len(content.lessons)
        print(f"{len(checked.problems)} problem(s) in {n} entries", file=sys.stderr)
        return 1
    print(f"ok: {len(content.terms)} terms, {len(content.lessons)} lessons")
    return 0
