"""SSH signatures over sign-offs, in the format git uses for signed commits (``gpg.format=ssh``).

Signing shells out to OpenSSH's ``ssh-keygen -Y sign`` (the tool that holds or reaches the private key,
through ssh-agent when given a public key); verifying uses the ``sshsig`` library, so the build needs
no OpenSSH. What is signed (:func:`message`) names the entry, the role, the signer's name as written,
the content fingerprint and part digests, the commit that held the content and the time, and, for a
review, the author signature it completes; under the namespace :data:`NAMESPACE`. So a signature cannot
be moved to another entry, role, name, version, commit, date or pair: any edit of those fields in
``signoff.yaml`` makes it fail to verify. (Copying an older, complete pair back is refused from git
history, by :mod:`.history`.)
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

NAMESPACE = "cuda-gloss-signoff"
PUBLIC_PREFIXES = ("ssh-", "ecdsa-", "sk-")


class SigningError(Exception):
    """ssh-keygen is missing or could not sign; the message says what to do."""


@dataclass(frozen=True)
class Key:
    """A public key: its OpenSSH form (type and base64, no comment) and its SHA256 fingerprint."""

    openssh: str
    sha256: str


def stamp(on: dt.datetime) -> str:
    return on.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def message(*, path: str, role: str, name: str, fingerprint: str, on: dt.datetime, commit: str | None,
            covers: Mapping[str, str] | None, reviews: str | None) -> bytes:
    """The exact bytes a sign-off signature covers (format v2).

    ``reviews``: for a reviewer, :func:`digest` of the author's signature it completes (None for an
    author). One canonical JSON object, so no field's value can pass for another field."""
    payload = {"path": path, "role": role, "name": name, "fingerprint": fingerprint, "on": stamp(on),
               "commit": commit, "covers": dict(covers) if covers is not None else None, "reviews": reviews}
    body = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return f"cuda-gloss sign-off v2\n{body}\n".encode()


def message_v1(path: str, role: str, fingerprint: str, on: dt.datetime) -> bytes:
    """What a signature covered before v2; only to tell the signer why an old signature no longer counts."""
    return (f"cuda-gloss sign-off v1\npath: {path}\nrole: {role}\nfingerprint: {fingerprint}\n"
            f"on: {stamp(on)}\n").encode()


def digest(armored: str) -> str:
    """A short, layout-independent name of one armored signature (whitespace ignored)."""
    return "sha256:" + hashlib.sha256("".join(armored.split()).encode()).hexdigest()


def parse_key(line: str) -> Key | None:
    """A public key from one line of a ``.pub`` file (a comment after the base64 is allowed)."""
    import sshsig

    try:
        key = sshsig.PublicKey.from_openssh_str(line.strip())
    except (ValueError, NotImplementedError, IndexError, TypeError):
        return None
    return Key(openssh=key.openssh_str(), sha256=key.sha256_str())


def signer(msg: bytes, armored: str) -> Key | None:
    """The key that made ``armored`` over ``msg`` in our namespace, or None when it does not verify."""
    import sshsig

    try:
        key = sshsig.check_signature(msg, armored, namespace=NAMESPACE)
    except (sshsig.InvalidSignature, ValueError, NotImplementedError, IndexError, TypeError):
        return None
    return Key(openssh=key.openssh_str(), sha256=key.sha256_str())


def _keygen() -> str:
    exe = shutil.which("ssh-keygen")
    if exe is None:
        raise SigningError("ssh-keygen is not installed; install OpenSSH's client tools "
                           "(Debian or Ubuntu: sudo apt-get install openssh-client)")
    return exe


def public_key(keyfile: str) -> Key:
    """The public key of a signing key given as git's ``user.signingkey`` is: a path to a public or
    private key file, or ``key::`` followed by a public key."""
    if keyfile.startswith("key::"):
        key = parse_key(keyfile[5:])
        if key is None:
            raise SigningError(f"'{keyfile[:40]}' is not an SSH public key")
        return key
    path = Path(keyfile).expanduser()
    if not path.is_file():
        raise SigningError(f"no key file at {path}; pass --key with your key's path, or set git config "
                           "user.signingkey")
    text = path.read_text(encoding="utf-8", errors="replace")
    if text.lstrip().startswith(PUBLIC_PREFIXES):
        key = parse_key(text)
    elif Path(f"{path}.pub").is_file():
        key = parse_key(Path(f"{path}.pub").read_text(encoding="utf-8", errors="replace"))
    else:
        done = subprocess.run([_keygen(), "-y", "-f", str(path)], capture_output=True, text=True, check=False)
        key = parse_key(done.stdout) if done.returncode == 0 else None
    if key is None:
        raise SigningError(f"{path} holds no SSH key that ssh-keygen can read")
    return key


def sign_many(keyfile: str, messages: Sequence[bytes]) -> list[str]:
    """Armored signatures of ``messages``, made by one ``ssh-keygen -Y sign`` call (one passphrase or
    agent prompt, however many entries)."""
    if not messages:
        return []
    exe = _keygen()
    with tempfile.TemporaryDirectory(prefix="gloss-sign-") as tmp:
        key = keyfile
        if keyfile.startswith("key::"):  # as git does: the agent holds the private half
            key = str(Path(tmp) / "key.pub")
            Path(key).write_text(keyfile[5:].strip() + "\n", encoding="utf-8")
        else:
            key = str(Path(keyfile).expanduser())
        files = []
        for i, msg in enumerate(messages):
            f = Path(tmp) / f"m{i}"
            f.write_bytes(msg)
            files.append(str(f))
        done = subprocess.run([exe, "-Y", "sign", "-n", NAMESPACE, "-f", key, *files],
                              capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            detail = " ".join(done.stderr.split())[-300:]
            raise SigningError(f"ssh-keygen could not sign with {keyfile}: {detail}")
        return [Path(f"{f}.sig").read_text(encoding="ascii") for f in files]
