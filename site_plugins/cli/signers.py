"""``gloss signers``: the registered keys and signatures in OpenSSH's own formats, so that anyone can
check a sign-off with stock ``ssh-keygen -Y verify``, without gloss.

- ``gloss signers --allowed-signers FILE`` writes an allowed_signers file (ssh-keygen(1), "ALLOWED
  SIGNERS"): one line per registered key, ``PRINCIPAL namespaces="cuda-gloss-signoff" KEY``. The
  principal is the person's handle, or their name in lower case with spaces as hyphens.
- ``gloss signers --signature PATH --role author|reviewer --out DIR`` writes the exact bytes a sign-off
  signed (``DIR/<entry>.<role>.msg``) and its signature (``.sig``), with ``DIR/allowed_signers`` unless
  ``--allowed-signers`` names one, and prints the command that verifies them (run where gloss ran).

Everything comes from the sign-off module (the only reader of ``signoff.yaml``). Exit codes: 0 written,
1 nothing to export (no such signature, no registered key), 2 usage or environment error.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
import unicodedata
from pathlib import Path, PurePosixPath

from site_plugins import signoff
from site_plugins.files import atomic, schema
from site_plugins.signoff.registry import signed_message


def principal(person: signoff.Person) -> str:
    """A principal without spaces, quotes or commas (allowed_signers splits on them)."""
    raw = person.handle or person.name
    text = unicodedata.normalize("NFKC", raw).strip().lower()
    return re.sub(r"[\s,\"'*?!]+", "-", text).strip("-") or "signer"


def allowed_signers(registry: signoff.Registry) -> str:
    lines = [
        "# Written by `gloss signers --allowed-signers` from signoff.yaml; verify a sign-off with",
        f"#   ssh-keygen -Y verify -f THIS_FILE -I PRINCIPAL -n {signoff.NAMESPACE} -s ENTRY.sig < ENTRY.msg",
    ]
    for person in registry.people:
        for key in person.keys:
            lines.append(f'{principal(person)} namespaces="{signoff.NAMESPACE}" {key.strip()}')
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gloss signers", description=(
        "Export the registered keys as an OpenSSH allowed_signers file, or one sign-off's message and "
        "signature, so that `ssh-keygen -Y verify` can check it without gloss."))
    parser.add_argument("--allowed-signers", metavar="FILE", type=Path, help="write the allowed_signers file here")
    parser.add_argument("--signature", metavar="PATH", help="the entry whose sign-off to export, e.g. "
                        "content/terms/warp.md")
    parser.add_argument("--role", choices=("author", "reviewer"), help="which signature (with --signature)")
    parser.add_argument("--out", type=Path, default=Path("."), help="where --signature writes (default: here)")
    parser.add_argument("--root", type=Path, default=Path("."), help="the project (default: here)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.allowed_signers is None and args.signature is None:
        print("gloss signers: give --allowed-signers FILE, or --signature PATH --role ROLE", file=sys.stderr)
        return 2
    if args.signature is not None and args.role is None:
        print("gloss signers: --signature needs --role author or --role reviewer", file=sys.stderr)
        return 2
    registry, problems = signoff.load(args.root.resolve())
    for p in problems:
        print(p, file=sys.stderr)
    code = 0
    if args.allowed_signers is not None:
        keys = sum(len(p.keys) for p in registry.people)
        atomic.write_text(args.allowed_signers, allowed_signers(registry))
        print(f"wrote {args.allowed_signers}: {keys} key{'s' if keys != 1 else ''} of "
              f"{len(registry.people)} {'person' if len(registry.people) == 1 else 'people'}")
        code = 0 if keys else 1
    if args.signature is not None:
        code = max(code, _export(registry, args.signature, args.role, args.out, args.allowed_signers))
    return code


def _export(registry: signoff.Registry, path: str, role: str, out: Path, allowed: Path | None) -> int:
    """Write the message and signature of ``path``'s ``role`` sign-off into ``out``, with an allowed_signers
    file beside them (unless ``allowed`` was just written), and print the command that verifies them: every
    file it names exists."""
    entry = registry.entries.get(path)
    sig = getattr(entry, role, None) if entry is not None else None
    if entry is None or sig is None:
        line = schema.line_of(entry) if entry is not None else schema.line_of(registry, "entries")
        print(f"{signoff.FILE}:{line or 1}: no {role} signature of {path}; gloss status lists what is signed",
              file=sys.stderr)
        return 1
    message = signed_message(path, role, sig, entry.author if role == "reviewer" else None)
    stem = out / f"{PurePosixPath(path).stem}.{role}"
    out.mkdir(parents=True, exist_ok=True)
    Path(f"{stem}.msg").write_bytes(message)  # exports, not project data: no atomic write needed
    Path(f"{stem}.sig").write_text(sig.signature.strip() + "\n", encoding="ascii")
    if allowed is None:
        allowed = out / "allowed_signers"
        atomic.write_text(allowed, allowed_signers(registry))
    person = registry.person(sig.name)
    who = principal(person) if person is not None else "PRINCIPAL"
    print(f"wrote {stem}.msg, {stem}.sig and {allowed}; verify with:\n"
          f"  ssh-keygen -Y verify -f {_sh(allowed)} -I {who} -n {signoff.NAMESPACE} -s {_sh(stem)}.sig "
          f"< {_sh(stem)}.msg")
    return 0


def _sh(path: Path) -> str:
    return shlex.quote(str(path))
