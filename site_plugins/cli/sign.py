"""``gloss sign``: sign entries with your SSH key.

Everything about ``signoff.yaml`` is asked of :mod:`site_plugins.signoff`; what an entry shows (its
measured values, quoted code and published code files) is asked of :mod:`site_plugins.publishing.pipeline`, so a
signature covers exactly what the build renders. Many entries (paths, folders, glob patterns) are signed in
one call: one pass over the project, one ``ssh-keygen`` call, one write of ``signoff.yaml``.
``gloss status`` and ``gloss diff`` live in :mod:`site_plugins.cli.status`; the project as
the three commands see it, in :mod:`site_plugins.cli.signoff_project`.
Exit codes: 0 ok, 1 refused or check failed, 2 usage or environment error.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path

from site_plugins import signoff
from site_plugins.cli import common as cli_common
from site_plugins.cli.common import UsageError
from site_plugins.cli.signoff_project import STATE_WORDS, Project, entry_paths, load_project, stamp
from site_plugins.files.messages import Problem
from site_plugins.signoff.signable import Signable, git


def _registry(root: Path) -> signoff.Registry:
    reg, problems = signoff.load(root)
    if problems:
        raise _Refusal("signoff.yaml has problems; fix them first:\n" + "\n".join(f"  {p}" for p in problems))
    return reg


class _Refusal(Exception):
    """Refused: printed, exit 1."""


# --- gloss sign --------------------------------------------------------------------------------------


def sign_main(argv: list[str]) -> int:
    parser = cli_common.parser("gloss sign", "Sign entries' current content (the text, the measured values and code it "
                     "shows, the code files it publishes) as their author or reviewer, with your SSH key.")
    parser.add_argument("paths", metavar="PATH", nargs="+",
                        help="entries, folders of entries or glob patterns, e.g. 'content/terms/*.md'")
    parser.add_argument("--as", dest="role", choices=("author", "reviewer"), required=True,
                        help="the role you sign in: 'author' (you wrote the entry) or 'reviewer' (you checked "
                        "someone else's entry; needs the author's signature first)")
    parser.add_argument("--key", help="your SSH key (public or private key file, or key::ssh-ed25519 ...); "
                        "default: git config user.signingkey")
    parser.add_argument("--name", help="your registered name or handle; checked against the key's owner")
    args = cli_common.parse(parser, argv)
    if isinstance(args, int):
        return args
    return cli_common.run("gloss sign", lambda: _sign(args))


def _signing_key(root: Path, given: str | None) -> str:
    if given:
        return given
    configured = git(root, "config", "--get", "user.signingkey")
    if configured and configured.strip():
        return configured.strip()
    raise UsageError("no signing key: pass --key ~/.ssh/id_ed25519.pub, or set it once as git does for signed "
                 "commits: git config user.signingkey ~/.ssh/id_ed25519.pub")


def _signer(reg: signoff.Registry, keyfile: str, name: str | None) -> signoff.Person:
    from site_plugins.signoff import keys, registry

    try:
        key = keys.public_key(keyfile)
    except keys.SigningError as exc:
        raise UsageError(str(exc)) from exc
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
    project = load_project(args.root, args.docs_dir, check=True)
    paths = entry_paths(project, args.paths)
    try:
        found = _checked(project)
        reg = _registry(project.root)
        keyfile = _signing_key(project.root, args.key)
        person = _signer(reg, keyfile, args.name)
        todo: list[Signable] = []
        refused: list[str] = []
        for path in paths:
            if path in project.unreadable:
                refused.append(f"{path} cannot be read and cannot be signed; fix it first:\n"
                               f"  {project.unreadable[path]}")
                continue
            s = project.signables.get(path) or Signable(path, project.unparsed[path])
            try:
                signoff.check(reg, s, args.role, person)
            except signoff.NothingToDo as exc:
                print(f"gloss sign: {exc}")
                continue
            except signoff.Refused as exc:
                refused.append(str(exc))
                continue
            if (why := _unsignable(project, path, found.get(path, []))) is not None:
                refused.append(why)
                continue
            todo.append(s)
        if refused:
            raise _Refusal("\n".join(refused) + ("" if len(paths) == 1 else
                                                  f"\nnothing was signed ({len(refused)} of {len(paths)} refused)"))
        made = _make_signatures(project.root, reg, todo, args.role, person, keyfile)
        try:
            signoff.write_entries(project.root, {path: rec for path, (rec, _) in made.items()})
        except OSError as exc:  # a read-only checkout, a full disk: the environment, not the sign-off
            raise UsageError(f"cannot write {signoff.FILE} ({exc.strerror or exc}); nothing was signed: check "
                             "that the project folder is writable and try again") from exc
    except (_Refusal, signoff.Refused, signoff.NotWritten) as exc:
        print(f"gloss sign: {exc}", file=sys.stderr)
        return 1
    reg = dataclasses.replace(reg, entries={**reg.entries, **{p: rec for p, (rec, _) in made.items()}})
    for s in todo:
        _report(reg, s, args.role, made[s.path][1], detail=len(todo) == 1)
    if len(todo) > 1:
        print(f"Signed {len(todo)} entries as {args.role}: {person.name}")
    return 0


def _checked(project: Project) -> dict[str, list[Problem]]:
    """Per entry path, the problems ``gloss check`` prints for its working copy: one function
    (:func:`site_plugins.publishing.checks.run`) decides them for the check, the build and this command."""
    from site_plugins.publishing import entrycheck

    out: dict[str, list[Problem]] = {}
    for p in project.checked or []:
        if not entrycheck.of_signed_version(p):  # (what is signed now is the working copy)
            out.setdefault(p.path, []).append(p)
    return out


def _unsignable(project: Project, path: str, problems: list[Problem]) -> str | None:
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
    drafts = [signoff.draft_signature(s, role, person, on=on, commit=commits[s.path],
                                      reviews=reg.entries[s.path].author if role == "reviewer" else None)
              for s in todo]
    try:
        armored = keys.sign_many(keyfile, [msg for _, msg in drafts])
    except keys.SigningError as exc:
        raise UsageError(str(exc)) from exc
    index = registry.owners(reg)
    out: dict[str, tuple[signoff.EntrySignoff, signoff.Signature]] = {}
    for s, (draft, _), sig_text in zip(todo, drafts, armored, strict=True):
        sig = dataclasses.replace(draft, signature=sig_text)
        author = reg.entries[s.path].author if role == "reviewer" else None
        _, wrong = registry.check_signature(index, s.path, role, sig, author)
        if wrong is not None:  # e.g. a .pub beside a private key that is not its pair
            raise _Refusal(f"{wrong}; check that --key (or user.signingkey) names your registered key")
        out[s.path] = (signoff.record(reg, s.path, role, sig), sig)
    return out


def _report(reg: signoff.Registry, s: Signable, role: str, sig: signoff.Signature, *, detail: bool) -> None:
    a = signoff.assess(reg, s)
    state = STATE_WORDS[a.state] + (f"; still missing: {'; '.join(a.missing)}" if a.state != "signed" else "")
    if not detail:
        print(f"Signed {s.path} as {role}: {sig.name}, {stamp(sig.on)}; state: {state}")
        return
    print(f"Signed {s.path} as {role}: {sig.name}, {stamp(sig.on)}")
    for line in _summary(s, sig.fingerprint):
        print(f"  {line}")
    if sig.commit:
        print(f"  commit       {sig.commit[:12]} (the signed text is committed)")
    else:
        print("  commit       none: the signed text is not committed; commit it so that this version can be "
              "recovered if the entry changes later")
    print(f"State: {state}")


def _summary(s: Signable, fp: str) -> list[str]:
    c = signoff.covers(s)
    lines = s.text.count("\n") + (0 if s.text.endswith("\n") or not s.text else 1)
    code_lines = sum(x.count("\n") + 1 for x in s.quoted_code)
    files = ", ".join(p for p, _ in s.files[:4]) + (", …" if len(s.files) > 4 else "")
    return [
        f"fingerprint  {fp}",
        f"text         {lines} lines, {len(s.text)} characters ({c.text[:19]}…)",
        f"values       {len(s.shown_values)} measured value{'' if len(s.shown_values) == 1 else 's'}"
        f" ({c.values[:19]}…)" + (", the first:" if s.shown_values else ""),
        *_values(s.shown_values),
        f"code         {len(s.quoted_code)} excerpt{'' if len(s.quoted_code) == 1 else 's'}, {code_lines} lines"
        f" ({c.code[:19]}…)",
        f"files        {len(s.files)} code file{'' if len(s.files) == 1 else 's'} published"
        + (f": {files}" if s.files else "") + f" ({c.files[:19]}…)",
    ] + ([f"statics      {len(s.statics)} static file{'' if len(s.statics) == 1 else 's'} by their bytes: "
          + ", ".join(f"{p} ({d[:19]}…)" for p, d in s.statics[:4]) + (", …" if len(s.statics) > 4 else "")]
         if s.statics else [])


#: Measured values listed after `gloss sign` (a lesson shows hundreds), each cut to one short line.
SHOWN_VALUES, VALUE_WIDTH = 3, 90


def _values(values: Sequence[str]) -> list[str]:
    def cut(v: str) -> str:
        v = v.replace("\n", " ")
        return v if len(v) <= VALUE_WIDTH else v[: VALUE_WIDTH - 1] + "…"

    out = [f"             {cut(v)}" for v in values[:SHOWN_VALUES]]
    if len(values) > SHOWN_VALUES:
        out.append(f"             … and {len(values) - SHOWN_VALUES} more")
    return out
