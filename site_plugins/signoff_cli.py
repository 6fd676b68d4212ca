"""``gloss sign``: sign entries with your SSH key, and the project as the sign-off commands see it.

Everything about ``signoff.yaml`` is asked of :mod:`site_plugins.signoff`; what an entry shows (its
measured values, quoted code and published code files) is asked of :mod:`site_plugins.pipeline`, so a
signature covers exactly what the build renders. Many entries (paths, folders, glob patterns) are signed in
one call: one pass over the project, one ``ssh-keygen`` call, one write of ``signoff.yaml``.
``gloss status`` and ``gloss diff`` live in :mod:`site_plugins.signoff_report_cli`.
Exit codes: 0 ok, 1 refused or check failed, 2 usage or environment error.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import glob
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from site_plugins import signoff
from site_plugins.messages import Problem
from site_plugins.signable import Signable, git

if TYPE_CHECKING:
    from site_plugins.content import Content

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
    signable_at: signoff.SignableAt
    entry_problems: Callable[[str], list[Problem]]
    unparsed: dict[str, str]  # path -> text, for entry files the content model could not read
    empty: set[str]  # entries with no body text


def _project(root: Path, docs_dir: str) -> Project:
    from site_plugins import measured, pipeline
    from site_plugins.content import load_content

    root = root.resolve()
    if not (root / docs_dir).is_dir():
        raise _Usage(f"no content folder at {root / docs_dir}; run in the project root or pass --root")
    content, problems = load_content(root, docs_dir)
    view = measured.load_view(root)
    # One pass: each entry is expanded and its code read once, for its fingerprint and its checks.
    staged = {e.path: pipeline.stage(root, e, view) for e in content.entries()}
    signables = {e.path: pipeline.signable(root, e, view, staged[e.path]) for e in content.entries()}
    unparsed: dict[str, str] = {}
    for sub in ("terms", "lessons"):
        folder = root / docs_dir / sub
        for file in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            path = file.relative_to(root).as_posix()
            if file.name != "index.md" and path not in signables:
                unparsed[path] = file.read_text(encoding="utf-8")
    by_path: dict[str, list[Problem]] = {}
    for p in problems:
        by_path.setdefault(p.path, []).append(p)

    def entry_problems(path: str) -> list[Problem]:
        found = list(by_path.get(path, []))
        if path in staged:
            found += staged[path].expansion.problems + staged[path].excerpt_problems
        return sorted(set(found))

    empty = {e.path for e in content.entries() if not e.body.strip()}
    return Project(root, docs_dir, content, problems, signables, pipeline.signable_at(root, view, content),
                   entry_problems, unparsed, empty)


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


def _entry_paths(project: Project, given: Sequence[str]) -> list[str]:
    """Entries named by paths, folders (every entry under them) or glob patterns, in order, once each."""
    known = sorted([*project.signables, *project.unparsed])
    out: list[str] = []
    for item in given:
        found: list[str] = []
        if glob.has_magic(item):
            for base in (Path.cwd(), project.root):
                pattern = item if Path(item).is_absolute() else str(base / item)
                found += [_entry_path(project, m) for m in sorted(glob.glob(pattern, recursive=True))
                          if m.endswith(".md") and Path(m).name != "index.md"
                          and Path(m).resolve().is_relative_to(project.root)]
                if found:
                    break
            if not found:
                raise _Usage(f"{item} matches no term or lesson")
        else:
            folder = next((c for c in (Path.cwd() / item, project.root / item)
                           if c.is_dir() and c.resolve().is_relative_to(project.root)), None)
            if folder is not None:
                prefix = folder.resolve().relative_to(project.root).as_posix().rstrip("/") + "/"
                found = [p for p in known if p.startswith(prefix) or prefix == "./"]
                if not found:
                    raise _Usage(f"{item} holds no term or lesson")
            else:
                found = [_entry_path(project, item)]
        out += [p for p in found if p not in out]
    return out


def _registry(root: Path) -> signoff.Registry:
    reg, problems = signoff.load(root)
    if problems:
        raise _Refusal("signoff.yaml has problems; fix them first:\n" + "\n".join(f"  {p}" for p in problems))
    return reg


class _Refusal(Exception):
    """Refused: printed, exit 1."""


# --- gloss sign --------------------------------------------------------------------------------------


def sign_main(argv: list[str]) -> int:
    parser = _parser("gloss sign", "Sign entries' current content (the text, the measured values and code it "
                     "shows, the code files it publishes) as their author or reviewer, with your SSH key.")
    parser.add_argument("paths", metavar="PATH", nargs="+",
                        help="entries, folders of entries or glob patterns, e.g. 'content/terms/*.md'")
    parser.add_argument("--as", dest="role", choices=("author", "reviewer"), required=True)
    parser.add_argument("--key", help="your SSH key (public or private key file, or key::ssh-ed25519 ...); "
                        "default: git config user.signingkey")
    parser.add_argument("--name", help="your registered name or handle; checked against the key's owner")
    args = _parse(parser, argv)
    if isinstance(args, int):
        return args
    return _run("gloss sign", lambda: _sign(args))


def _signing_key(root: Path, given: str | None) -> str:
    if given:
        return given
    configured = git(root, "config", "--get", "user.signingkey")
    if configured and configured.strip():
        return configured.strip()
    raise _Usage("no signing key: pass --key ~/.ssh/id_ed25519.pub, or set it once as git does for signed "
                 "commits: git config user.signingkey ~/.ssh/id_ed25519.pub")


def _signer(reg: signoff.Registry, keyfile: str, name: str | None) -> signoff.Person:
    from site_plugins.signoff import keys, registry

    try:
        key = keys.public_key(keyfile)
    except keys.SigningError as exc:
        raise _Usage(str(exc)) from exc
    person = registry.owners(reg).get(key.openssh)
    if person is None:  # (a key under two people is a signoff.yaml problem, refused before this)
        raise _Refusal(f"the key {key.sha256} is not registered to anyone in signoff.yaml; add its public "
                       "line under your entry's 'keys:' first")
    if name is not None and reg.person(name) is not person:
        claimed = reg.person(name)
        who = f"{claimed.name}" if claimed else f"'{name}', who is not registered"
        raise _Refusal(f"the key {key.sha256} is registered to {person.name}, not {who}; "
                       "each person signs with their own key")
    return person


def _sign(args: argparse.Namespace) -> int:
    project = _project(args.root, args.docs_dir)
    paths = _entry_paths(project, args.paths)
    try:
        reg = _registry(project.root)
        keyfile = _signing_key(project.root, args.key)
        person = _signer(reg, keyfile, args.name)
        todo: list[Signable] = []
        refused: list[str] = []
        for path in paths:
            s = project.signables.get(path) or Signable(path, project.unparsed[path])
            try:
                signoff.check(reg, s, args.role, person)
            except signoff.NothingToDo as exc:
                print(f"gloss sign: {exc}")
                continue
            except signoff.Refused as exc:
                refused.append(str(exc))
                continue
            if (why := _unsignable(project, path)) is not None:
                refused.append(why)
                continue
            todo.append(s)
        if refused:
            raise _Refusal("\n".join(refused) + ("" if len(paths) == 1 else
                                                  f"\nnothing was signed ({len(refused)} of {len(paths)} refused)"))
        made = _make_signatures(project.root, reg, todo, args.role, person, keyfile)
        signoff.write_entries(project.root, {path: rec for path, (rec, _) in made.items()})
    except (_Refusal, signoff.Refused, signoff.NotWritten) as exc:
        print(f"gloss sign: {exc}", file=sys.stderr)
        return 1
    reg = dataclasses.replace(reg, entries={**reg.entries, **{p: rec for p, (rec, _) in made.items()}})
    for s in todo:
        _report(reg, s, args.role, made[s.path][1], detail=len(todo) == 1)
    if len(todo) > 1:
        print(f"Signed {len(todo)} entries as {args.role}: {person.name}")
    return 0


def _unsignable(project: Project, path: str) -> str | None:
    problems = project.entry_problems(path)
    if path in project.unparsed and not problems:
        problems = [Problem(path, 1, "the entry could not be read", "run gloss check")]
    if problems:
        return (f"{path} has {len(problems)} problem{'s' if len(problems) > 1 else ''} and cannot be "
                "signed; fix them first (gloss check lists them):\n" + "\n".join(f"  {p}" for p in problems))
    if path in project.empty:
        return f"{path} has no body text and cannot be signed; write the entry first"
    return None


def _make_signatures(root: Path, reg: signoff.Registry, todo: list[Signable], role: signoff.Role,
                     person: signoff.Person, keyfile: str,
                     ) -> dict[str, tuple[signoff.EntrySignoff, signoff.Signature]]:
    """Sign every entry in one ssh-keygen call, check each signature as the build will, return the records."""
    from site_plugins.signoff import keys, registry

    on = signoff.now_utc()
    commits = signoff.head_commits(root, todo)
    drafts = [signoff.draft_signature(s, role, person, on=on, commit=commits[s.path]) for s in todo]
    try:
        armored = keys.sign_many(keyfile, [msg for _, msg in drafts])
    except keys.SigningError as exc:
        raise _Usage(str(exc)) from exc
    index = registry.owners(reg)
    out: dict[str, tuple[signoff.EntrySignoff, signoff.Signature]] = {}
    for s, (draft, _), sig_text in zip(todo, drafts, armored, strict=True):
        sig = dataclasses.replace(draft, signature=sig_text)
        _, wrong = registry.check_signature(index, s.path, role, sig)
        if wrong is not None:  # e.g. a .pub beside a private key that is not its pair
            raise _Refusal(f"{wrong}; check that --key (or user.signingkey) names your registered key")
        out[s.path] = (signoff.record(reg, s.path, role, sig), sig)
    return out


def _report(reg: signoff.Registry, s: Signable, role: str, sig: signoff.Signature, *, detail: bool) -> None:
    a = signoff.assess(reg, s)
    state = STATE_WORDS[a.state] + (f"; still missing: {'; '.join(a.missing)}" if a.state != "signed" else "")
    if not detail:
        print(f"Signed {s.path} as {role}: {sig.name}, {_stamp(sig.on)}; state: {state}")
        return
    print(f"Signed {s.path} as {role}: {sig.name}, {_stamp(sig.on)}")
    for line in _summary(s, sig.fingerprint):
        print(f"  {line}")
    if sig.commit:
        print(f"  commit       {sig.commit[:12]} (the signed text is committed)")
    else:
        print("  commit       none: the signed text is not committed; commit it so that this version can be "
              "recovered if the entry changes later")
    print(f"State: {state}")


def _stamp(on: dt.datetime) -> str:
    return on.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _summary(s: Signable, fp: str) -> list[str]:
    c = signoff.covers(s)
    lines = s.text.count("\n") + (0 if s.text.endswith("\n") or not s.text else 1)
    values = ", ".join(s.shown_values[:6]) + (", …" if len(s.shown_values) > 6 else "")
    code_lines = sum(x.count("\n") + 1 for x in s.quoted_code)
    files = ", ".join(p for p, _ in s.files[:4]) + (", …" if len(s.files) > 4 else "")
    return [
        f"fingerprint  {fp}",
        f"text         {lines} lines, {len(s.text)} characters ({c.text[:19]}…)",
        f"values       {len(s.shown_values)} measured value{'' if len(s.shown_values) == 1 else 's'}"
        + (f": {values}" if s.shown_values else "") + f" ({c.values[:19]}…)",
        f"code         {len(s.quoted_code)} excerpt{'' if len(s.quoted_code) == 1 else 's'}, {code_lines} lines"
        f" ({c.code[:19]}…)",
        f"files        {len(s.files)} code file{'' if len(s.files) == 1 else 's'} published"
        + (f": {files}" if s.files else "") + f" ({c.files[:19]}…)",
    ]
