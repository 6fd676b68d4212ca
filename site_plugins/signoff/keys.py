"""SSH signatures over sign-offs, in the format git uses for signed commits (``gpg.format=ssh``).

Signing shells out to OpenSSH's ``ssh-keygen -Y sign`` (the tool that holds or reaches the private key,
through ssh-agent when given a public key); verifying uses the ``sshsig`` library, so the build needs
no OpenSSH. What is signed is a short text naming the entry, the role, the content fingerprint and the
time, under the namespace :data:`NAMESPACE`, so a signature cannot be moved to another entry, role,
version or date.
"""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
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


def message(path: str, role: str, fingerprint: str, on: dt.datetime) -> bytes:
    """The exact bytes a sign-off signature covers."""
    return (f"cuda-gloss sign-off v1\npath: {path}\nrole: {role}\nfingerprint: {fingerprint}\n"
            f"on: {stamp(on)}\n").encode()


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
