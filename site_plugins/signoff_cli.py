"""``gloss new``, ``gloss sign``, ``gloss status``, ``gloss diff``: scaffolding and sign-off from the shell.

Everything about ``signoff.yaml`` is asked of :mod:`site_plugins.signoff`; what an entry shows (its
measured values and quoted code) is asked of :mod:`site_plugins.pipeline`, so a signature covers exactly
what the build renders. Exit codes: 0 ok, 1 refused or check failed, 2 usage or environment error.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import difflib
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from site_plugins import signoff
from site_plugins.messages import Problem
from site_plugins.publish import Signable

if TYPE_CHECKING:
    from site_plugins.content import Content, Entry

STATE_WORDS = {"draft": "draft", "awaiting-review": "awaiting review", "signed": "signed",
               "changed": "changed since sign-off"}


class _Usage(Exception):
    """A usage or environment error: printed, exit 2."""


def _common() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--root", type=Path, default=Path("."), help="project root (holds mkdocs.yml and signoff.yaml)")
    p.add_argument("--docs-dir", default="content", help="content folder, relative to the root")
    return p


def _parser(prog: str, description: str, common: bool = True) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=prog, description=description, parents=[_common()] if common else [])


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    try:
        return parser.parse_args(list(argv))
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return int(exc.code or 0)


def _run(prog: str, body: Callable[[], int]) -> int:
    try:
        return body()
    except _Usage as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2


# --- the project as the build sees it ----------------------------------------------------------------


@dataclass
class Project:
    root: Path
    docs_dir: str
    content: Content
    problems: list[Problem]  # content problems (the build's checks)
    signables: dict[str, Signable]  # path -> what a sign-off of it covers now
    signable_at: Callable[[str, str], Signable]
    entry_problems: Callable[[str], list[Problem]]
    unparsed: dict[str, str]  # path -> text, for entry files the content model could not read


def _project(root: Path, docs_dir: str) -> Project:
    from site_plugins import measured, pipeline
    from site_plugins.content import load_content

    root = root.resolve()
    if not (root / docs_dir).is_dir():
        raise _Usage(f"no content folder at {root / docs_dir}; run in the project root or pass --root")
    content, problems = load_content(root, docs_dir)
    view = measured.load_view(root)
    signables = {e.path: pipeline.signable(root, e, view) for e in content.entries()}
    unparsed: dict[str, str] = {}
    for sub in ("terms", "lessons"):
        folder = root / docs_dir / sub
        for file in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            path = file.relative_to(root).as_posix()
            if file.name != "index.md" and path not in signables:
                unparsed[path] = file.read_text(encoding="utf-8")
    by_path = {e.path: e for e in content.entries()}

    def entry_problems(path: str) -> list[Problem]:
        found = [p for p in problems if p.path == path]
        entry = by_path.get(path)
        if entry is not None:
            found += pipeline.expand_body(entry, view, False).problems
            found += pipeline.entry_excerpts(root, entry)[1]
        return sorted(set(found))

    return Project(root, docs_dir, content, problems, signables, pipeline.signable_at(root, view, content),
                   entry_problems, unparsed)


def _all_signables(project: Project) -> list[Signable]:
    # An entry that no longer parses still has a sign-off state: its text is all it can show.
    extra = [Signable(path, text) for path, text in project.unparsed.items()]
    return sorted([*project.signables.values(), *extra], key=lambda s: s.path)


def _entry_path(project: Project, given: str) -> str:
    """The repo-relative path of the entry named by ``given`` (a path from here or from the root)."""
    candidates = [Path(given)] if Path(given).is_absolute() else [Path.cwd() / given, project.root / given]
    for candidate in candidates:
        try:
            rel = candidate.resolve().relative_to(project.root).as_posix()
        except ValueError:
            continue
        if rel in project.signables or rel in project.unparsed:
            return rel
    raise _Usage(f"{given} is not a term or lesson; give the path of a file under "
                 f"{project.docs_dir}/terms/ or {project.docs_dir}/lessons/")


def _registry(root: Path) -> signoff.Registry:
    reg, problems = signoff.load(root)
    if problems:
        raise _Refusal("signoff.yaml has problems; fix them first:\n" + "\n".join(f"  {p}" for p in problems))
    return reg


class _Refusal(Exception):
    """Refused: printed, exit 1."""


# --- gloss sign --------------------------------------------------------------------------------------


def sign_main(argv: list[str]) -> int:
    parser = _parser("gloss sign", "Sign an entry's current content (its text, the measured values it shows "
                     "and the code it quotes) as its author or its reviewer.")
    parser.add_argument("path", metavar="PATH", help="the entry, e.g. content/terms/tiling.md")
    parser.add_argument("--as", dest="role", choices=("author", "reviewer"), required=True)
    parser.add_argument("--name", required=True, help="your registered name (or handle) in signoff.yaml")
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    return _run("gloss sign", lambda: _sign(args))


def _sign(args: argparse.Namespace) -> int:
    project = _project(args.root, args.docs_dir)
    path = _entry_path(project, args.path)
    try:
        reg = _registry(project.root)
        s = project.signables.get(path) or Signable(path, project.unparsed[path])
        commit = signoff.head_commit_of(project.root, path, s.text)
        try:
            record, sig = signoff.plan_signature(reg, s, args.role, args.name, on=signoff.now_utc(), commit=commit)
        except signoff.NothingToDo as exc:
            print(f"gloss sign: {exc}")
            return 0
        problems = project.entry_problems(path)
        if path in project.unparsed and not problems:
            problems = [Problem(path, 1, "the entry could not be read", "run gloss check")]
        if problems:
            raise _Refusal(f"{path} has {len(problems)} problem{'s' if len(problems) > 1 else ''} and cannot be "
                           "signed; fix them first (gloss check lists them):\n"
                           + "\n".join(f"  {p}" for p in problems))
        entry = _entry(project.content, path)
        if entry is not None and not entry.body.strip():
            raise _Refusal(f"{path} has no body text and cannot be signed; write the entry first")
        signoff.write_entry(project.root, path, record)
    except (_Refusal, signoff.Refused) as exc:
        print(f"gloss sign: {exc}", file=sys.stderr)
        return 1
    reg = dataclasses.replace(reg, entries={**reg.entries, path: record})
    a = signoff.assess(reg, s)
    print(f"Signed {path} as {args.role}: {sig.name}, {_stamp(sig.on)}")
    for line in _summary(s, sig.fingerprint):
        print(f"  {line}")
    if commit:
        print(f"  commit       {commit[:12]} (the signed text is committed)")
    else:
        print("  commit       none: the signed text is not committed; commit it so that this version can be "
              "recovered if the entry changes later")
    state = STATE_WORDS[a.state]
    print(f"State: {state}" + (f"; still missing: {'; '.join(a.missing)}" if a.state != "signed" else ""))
    return 0


def _entry(content: Content, path: str) -> Entry | None:
    return next((e for e in content.entries() if e.path == path), None)


def _stamp(on: dt.datetime) -> str:
    return on.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _summary(s: Signable, fp: str) -> list[str]:
    c = signoff.covers(s)
    lines = s.text.count("\n") + (0 if s.text.endswith("\n") or not s.text else 1)
    values = ", ".join(s.shown_values[:6]) + (", …" if len(s.shown_values) > 6 else "")
    code_lines = sum(x.count("\n") + 1 for x in s.quoted_code)
    return [
        f"fingerprint  {fp}",
        f"text         {lines} lines, {len(s.text)} characters ({c.text[:19]}…)",
        f"values       {len(s.shown_values)} measured value{'' if len(s.shown_values) == 1 else 's'}"
        + (f": {values}" if s.shown_values else "") + f" ({c.values[:19]}…)",
        f"code         {len(s.quoted_code)} excerpt{'' if len(s.quoted_code) == 1 else 's'}, {code_lines} lines"
        f" ({c.code[:19]}…)",
    ]


# --- gloss status ------------------------------------------------------------------------------------


def status_main(argv: list[str]) -> int:
    parser = _parser("gloss status", "Show each entry's sign-off state: draft, awaiting review, signed, or "
                     "changed since sign-off; who signed and when. Exit 1 if signoff.yaml has problems.")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    return _run("gloss status", lambda: _status(args))


def _sig_json(sig: signoff.Signature | None, reg: signoff.Registry, fp: str) -> dict[str, Any] | None:
    if sig is None:
        return None
    return {"name": sig.name, "on": _stamp(sig.on), "fingerprint": sig.fingerprint, "commit": sig.commit,
            "registered": sig.name in reg.names(), "covers_current": sig.fingerprint == fp}


def _status(args: argparse.Namespace) -> int:
    project = _project(args.root, args.docs_dir)
    reg, reg_problems = signoff.load(project.root)
    statuses, problems = signoff.evaluate(project.root, _all_signables(project), project.signable_at,
                                          registry=(reg, reg_problems))
    rows = []
    for st in statuses:
        a = st.assessment
        served = a.served
        published_version = None
        if st.published and served is not None and served.author is not None:
            published_version = {
                "fingerprint": served.author.fingerprint,
                "commit": st.recovered.commit if st.recovered else served.author.commit,
                "author": served.author.name, "reviewer": served.reviewer.name if served.reviewer else None,
                "written_on": _stamp(served.author.on),
                "reviewed_on": _stamp(served.reviewer.on) if served.reviewer else None}
        rows.append({"path": a.path, "state": a.state, "published": st.published,
                     "readable": a.path not in project.unparsed, "fingerprint": a.fingerprint,
                     "author": _sig_json(a.author, reg, a.fingerprint),
                     "reviewer": _sig_json(a.reviewer, reg, a.fingerprint),
                     "missing": list(a.missing) if a.state != "signed" else [],
                     "changed": list(a.changed), "published_version": published_version})
    if args.json:
        print(json.dumps({"entries": rows, "problems": [str(p) for p in problems]}, indent=2))
    else:
        _print_table(rows)
        for p in problems:
            print(p, file=sys.stderr)
    return 1 if problems else 0


def _who(sig: dict[str, Any] | None) -> str:
    if sig is None:
        return "-"
    flags = [] if sig["registered"] else ["not registered"]
    if sig["registered"] and not sig["covers_current"]:
        flags.append("earlier version")
    return f"{sig['name']} {sig['on'][:10]}" + (f" ({', '.join(flags)})" if flags else "")


def _note(row: dict[str, Any]) -> str:
    parts = []
    if not row["readable"]:
        parts.append("does not parse (gloss check)")
    if row["state"] == "changed":
        pv = row["published_version"]
        what = f" ({', '.join(row['changed'])})" if row["changed"] else ""
        if pv is not None:
            commit = f", commit {pv['commit'][:10]}" if pv["commit"] else ""
            parts.append(f"changed{what}; published: the version signed {pv['reviewed_on'][:10]}{commit}")
        else:
            parts.append(f"changed{what}; signed version not in git: unpublished")
    if row["missing"]:
        parts.append("missing: " + "; ".join(row["missing"]))
    return " | ".join(parts) or "published"


def _print_table(rows: list[dict[str, Any]]) -> None:
    header = ("ENTRY", "STATE", "AUTHOR", "REVIEWER", "NOTES")
    table = [(r["path"], STATE_WORDS[r["state"]], _who(r["author"]), _who(r["reviewer"]), _note(r)) for r in rows]
    widths = [max(len(row[i]) for row in [header, *table]) for i in range(4)]
    for row in [header, *table]:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4])
    counts = {s: sum(1 for r in rows if r["state"] == s) for s in STATE_WORDS}
    published = sum(1 for r in rows if r["published"])
    print(f"\n{len(rows)} entries: {counts['signed']} signed, {counts['changed']} changed since sign-off, "
          f"{counts['awaiting-review']} awaiting review, {counts['draft']} draft; {published} published")


# --- gloss diff --------------------------------------------------------------------------------------


def diff_main(argv: list[str]) -> int:
    parser = _parser("gloss diff", "Show what changed in an entry since it was signed: its text (recovered "
                     "from git), the measured values it shows and the code it quotes.")
    parser.add_argument("path", metavar="PATH", help="the entry, e.g. content/terms/tiling.md")
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    return _run("gloss diff", lambda: _diff(args))


def _diff(args: argparse.Namespace) -> int:
    project = _project(args.root, args.docs_dir)
    path = _entry_path(project, args.path)
    reg, problems = signoff.load(project.root)
    for p in problems:
        print(p, file=sys.stderr)
    now = project.signables.get(path) or Signable(path, project.unparsed[path])
    a = signoff.assess(reg, now)
    base = a.served.author if a.served is not None else None
    who = "sign-off"
    if base is None and a.author is not None and a.author.fingerprint != a.fingerprint:
        base, who = a.author, "the author's sign-off"  # never reviewed: compare with what the author signed
    if a.state == "signed":
        print(f"{path}: unchanged since sign-off ({a.fingerprint})")
        return 0
    if base is None:
        print(f"{path}: nothing signed yet to compare with ({STATE_WORDS[a.state]})")
        return 1
    parts = signoff.changed_parts(base.covers, now)
    print(f"{path}: changed since {who} by {base.name} on {_stamp(base.on)[:10]}"
          + (f" ({', '.join(parts)})" if parts else ""))
    rec = signoff.recover(project.root, path, base.fingerprint, base.commit, project.signable_at)
    if rec is None:
        print(f"The signed version ({base.fingerprint[:19]}…) cannot be recovered from git.")
        if base.commit is None or (old_text := signoff.git(project.root, "show", f"{base.commit}:./{path}")) is None:
            return 1
        print(f"Text at the commit recorded with the signature ({base.commit[:10]}); the values or code it showed "
              "then may differ from what it shows now:")
        _print_diff(old_text.splitlines(), now.text.splitlines(), f"a/{path} ({base.commit[:10]})",
                    f"b/{path} (working copy)")
        return 1
    old = project.signable_at(path, rec.text)
    print(f"Signed version: commit {rec.commit[:10]}\n")
    print("Text:")
    _print_diff(rec.text.splitlines(), now.text.splitlines(), f"a/{path} (signed, {rec.commit[:10]})",
                f"b/{path} (working copy)")
    print("\nMeasured values shown:")
    _print_diff(list(old.shown_values), list(now.shown_values), "signed", "now")
    print("\nCode quoted:")
    _print_diff(_code_lines(old.quoted_code), _code_lines(now.quoted_code), "signed", "now")
    return 0


def _code_lines(excerpts: Sequence[str]) -> list[str]:
    out: list[str] = []
    for i, ex in enumerate(excerpts, start=1):
        out += [f"# excerpt {i}", *ex.splitlines()]
    return out


def _print_diff(old: list[str], new: list[str], a: str, b: str) -> None:
    lines = list(difflib.unified_diff(old, new, a, b, lineterm=""))
    print("\n".join(lines) if lines else "  (no change)")


# --- gloss new ---------------------------------------------------------------------------------------

TERM_TEMPLATE = """\
---
# Scaffolded by `gloss new term {slug}`. Fill in every key and write the body, then run `gloss check`.
# The page is built in this order: definition (the lede), body, Measured, Diagram, Code, Related terms,
# Where you meet this, Sources, byline. It stays an unpublished draft until a registered author and a
# different registered reviewer sign it (gloss sign {path} --as author|reviewer --name NAME).
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
# registered reviewer sign it (gloss sign {path} --as author|reviewer --name NAME).
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
    parser = _parser("gloss new", "Scaffold a new term or lesson from the entry anatomy.", common=False)
    sub = parser.add_subparsers(dest="kind", required=True, metavar="{term,lesson}")
    term = sub.add_parser("term", help="gloss new term SLUG: content/terms/SLUG.md", parents=[_common()])
    term.add_argument("slug", metavar="SLUG", help="lower case with hyphens, e.g. bank-conflict")
    term.add_argument("--title", help='the question form, e.g. "What is a bank conflict in CUDA?"')
    lesson = sub.add_parser("lesson", help="gloss new lesson DAY SLUG: content/lessons/dayNN-SLUG.md",
                            parents=[_common()])
    lesson.add_argument("day", metavar="DAY", type=int, help="the day number, e.g. 13")
    lesson.add_argument("slug", metavar="SLUG", help="lower case with hyphens, e.g. shared-memory")
    lesson.add_argument("--title", help="the lesson's title")
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    return _run("gloss new", lambda: _new(args))


def _new(args: argparse.Namespace) -> int:
    from site_plugins.content import LESSON_FILE, TERM_FILE

    root: Path = args.root.resolve()
    if not (root / args.docs_dir).is_dir():
        raise _Usage(f"no content folder at {root / args.docs_dir}; run in the project root or pass --root")
    if not TERM_FILE.match(args.slug):
        raise _Usage(f"'{args.slug}' is not a slug; use lower case letters, digits and hyphens, e.g. bank-conflict")
    if args.kind == "term":
        path = f"{args.docs_dir}/terms/{args.slug}.md"
        title = args.title or f"What is {args.slug.replace('-', ' ')} in CUDA?"
        text = TERM_TEMPLATE.format(slug=args.slug, path=path, title=_yaml_str(title))
        code_dir = None
    else:
        if not 0 <= args.day <= 99:
            raise _Usage(f"day {args.day} is out of range; lesson days run from 0 to 99")
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
          f"It stays a draft until signed: gloss sign {path} --as author --name NAME")
    return 0


def _yaml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar
