"""Shared helpers for the sign-off tests: fictional people only (Ada Author, Rex Reviewer, Sam Self...), each
with a real ed25519 key made by ssh-keygen in a temporary folder for the test session."""

from __future__ import annotations

import atexit
import dataclasses
import datetime as dt
import functools
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from site_plugins import signoff
from site_plugins.signoff import keys
from site_plugins.signoff.signable import Signable

T1 = dt.datetime(2026, 12, 1, 10, 0, 0, tzinfo=dt.UTC)
T2 = dt.datetime(2026, 12, 2, 9, 30, 0, tzinfo=dt.UTC)

_KEYDIR = Path(tempfile.mkdtemp(prefix="pytest-signoff-keys-"))
atexit.register(shutil.rmtree, _KEYDIR, True)

# name -> handle of every fictional person a test may use (registered or not)
HANDLES = {"Ada Author": "ada", "Rex Reviewer": "rex", "Sam Self": "sam", "Zed Nobody": "zed",
           "Lee Leaving": "lee", "Gus Ghost": "gus", "Zoe Stranger": "zoe"}


def key_file(who: str) -> Path:
    """The private key of a fictional person (by name or handle), made once per session."""
    return _key_file(HANDLES.get(who, who))


@functools.cache
def _key_file(handle: str) -> Path:
    path = _KEYDIR / handle
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{handle}@example.invalid",
                    "-f", str(path)], check=True, capture_output=True)
    return path


def public(who: str) -> str:
    return Path(f"{key_file(who)}.pub").read_text(encoding="ascii").strip()


def key_sha(who: str) -> str:
    key = keys.parse_key(public(who))
    assert key is not None
    return key.sha256


def person_yaml(name: str, handle: bool = True, *extra_keys: str) -> str:
    keys_ = ", ".join(json.dumps(k) for k in (public(name), *extra_keys))
    out = f"  - name: {name}\n"
    if handle:
        out += f"    handle: {HANDLES[name]}\n"
    return out + f"    keys: [{keys_}]\n"


PEOPLE = "people:\n" + person_yaml("Ada Author") + person_yaml("Rex Reviewer") + person_yaml("Sam Self", False)
PEOPLE_LINES = PEOPLE.count("\n")


@functools.cache
def armored(who: str, msg: bytes) -> str:
    return keys.sign_many(str(key_file(who)), [msg])[0]


def ssh_signature(who: str, path: str, role: str, fingerprint: str, on: dt.datetime, *, name: str | None = None,
                  commit: str | None = None, reviews: str | None = None, covers: signoff.Covers | None = None,
                  ) -> str:
    """A real SSH signature by ``who``'s key over a sign-off, as gloss sign makes it (``covers``: the part
    digests recorded with it, if any). ``reviews``: for a review, the author's armored signature it completes."""
    return armored(who, keys.message(path=path, role=role, name=name or who, fingerprint=fingerprint, on=on,
                                     commit=commit, covers=dataclasses.asdict(covers) if covers else None,
                                     reviews=keys.digest(reviews) if reviews is not None else None))


def plan_signature(reg: signoff.Registry, s: Signable, role: signoff.Role, name: str, *, on: dt.datetime,
                   commit: str | None, key_of: str | None = None) -> tuple[signoff.EntrySignoff, signoff.Signature]:
    """What gloss sign does for one entry, without the CLI: check, sign with the person's key, record."""
    person = reg.person(name) or signoff.Person(name=name, keys=[])
    signoff.check(reg, s, role, person)
    reviews = reg.entries[s.path].author if role == "reviewer" and s.path in reg.entries else None
    draft, msg = signoff.draft_signature(s, role, person, on=on, commit=commit, reviews=reviews)
    sig = signoff.signing.with_signature(draft, armored(key_of or person.name, msg))
    return signoff.record(reg, s.path, role, sig), sig


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    return done.stdout


def init_repo(root: Path) -> Path:
    """An empty git repository with a fictional committer."""
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test Committer")
    git(root, "config", "user.email", "committer@example.invalid")
    git(root, "config", "commit.gpgsign", "false")
    return root


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


REGISTRY = PEOPLE + "entries: {}\n"


def term(title: str, definition: str, body: str, extra: str = "") -> str:
    return f"---\ntitle: {title}\ndefinition: {definition}\n{extra}---\n\n{body}\n"


def make_site(root: Path, terms: dict[str, str], lessons: dict[str, str] | None = None,
              registry: str = REGISTRY) -> Path:
    """A tiny project: content/terms/SLUG.md for each term text, lessons likewise, one CUDA file with a
    named region, signoff.yaml with fictional people."""
    (root / "content" / "terms").mkdir(parents=True, exist_ok=True)
    (root / "content" / "lessons").mkdir(parents=True, exist_ok=True)
    code = root / "code" / "day01-basics"
    code.mkdir(parents=True, exist_ok=True)
    (code / "copy.cu").write_text(
        "// a copy kernel\n// --8<-- [start:copy]\n__global__ void copy(float* o, const float* i) {\n"
        "    o[threadIdx.x] = i[threadIdx.x];\n}\n// --8<-- [end:copy]\n", encoding="utf-8")
    for slug, text in terms.items():
        (root / "content" / "terms" / f"{slug}.md").write_text(text, encoding="utf-8")
    for stem, text in (lessons or {}).items():
        (root / "content" / "lessons" / f"{stem}.md").write_text(text, encoding="utf-8")
    (root / "signoff.yaml").write_text(registry, encoding="utf-8")
    return root
