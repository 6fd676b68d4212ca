"""The cost of publishing: a strict ``gloss build`` of N signed entries, its final audit, and the replay
check's read of ``signoff.yaml``'s history (issue 34, item 8).

The project is bench/build's synthetic glossary (``synthetic.write_site``: N terms, each embedding a measured
table and two values from result files written through ``measure.store.results``, made-up samples in a
temporary folder only), put in a fresh git repository and signed the way an operator signs: two
fictional people (Ada Author, Rex Reviewer) with real ed25519 keys made by ``ssh-keygen`` for this run,
registered in ``signoff.yaml``; ``gloss sign content/terms --as author`` then ``--as reviewer``, each
committed, and ``--history`` more rounds of a one-line change to every 100th entry, re-signed and
committed (so the history has more versions to read). Then, in this process:

- ``build``: ``gloss build`` (strict) of the published site, whole process time of the call;
- ``audit``: the part of it spent in the final audit (``site_plugins.publishing.audit.audit``, timed by
  wrapping it), and its share of the build; ``expect``: the part spent rendering what each page must say
  (``signedtext.expect``, which the audit needs; reported apart, and added to the audit's share);
- ``replay``: the part of it spent reading the history of ``signoff.yaml`` (``history._History``), and the
  same read alone, cold;
- ``load``: ``signoff.load`` alone (parsing the file and verifying every signature, history included).

Usage: ``.venv/bin/python bench/publish/run.py --terms 1000,10000 [--history 3] [--repeat 1]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench" / "build"))

import synthetic  # noqa: E402 (bench/build/synthetic.py: the synthetic project)

from site_plugins import cli, signoff  # noqa: E402
from site_plugins.cli import build as sitebuild  # noqa: E402
from site_plugins.publishing import audit, signedtext  # noqa: E402
from site_plugins.signoff import history  # noqa: E402

PEOPLE = (("Ada Author", "ada"), ("Rex Reviewer", "rex"))  # fictional


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", message)


def keys(folder: Path) -> dict[str, Path]:
    out = {}
    for name, handle in PEOPLE:
        path = folder / handle
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{handle}@example.invalid", "-f",
                        str(path)], check=True, capture_output=True)
        out[name] = path
    return out


def sign_all(root: Path, role: str, key: Path, paths: list[str]) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(["sign", *paths, "--as", role, "--key", str(key), "--root", str(root)])
    if code != 0:
        raise SystemExit(f"gloss sign --as {role} failed ({code})")


def project(root: Path, terms: int, rounds: int, keyfiles: dict[str, Path]) -> None:
    synthetic.write_site(root, terms, embeds=True)
    config = synthetic.gloss_options((REPO / "mkdocs.yml").read_text(encoding="utf-8"), {})
    (root / "mkdocs.yml").write_text(config, encoding="utf-8")
    people = "people:\n" + "".join(
        f"  - name: {name}\n    handle: {handle}\n    keys: [\"{Path(f'{keyfiles[name]}.pub').read_text().strip()}\"]\n"
        for name, handle in PEOPLE)
    (root / "signoff.yaml").write_text(people + "entries: {}\n", encoding="utf-8")
    git(root, "init", "-q")
    commit(root, "synthetic glossary")
    for role, name in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
        sign_all(root, role, keyfiles[name], ["content/terms"])
        commit(root, f"signed as {role}")
    for n in range(rounds):  # more versions of signoff.yaml: a change to every 100th entry, re-signed
        changed = [f"content/terms/term-{i:04d}.md" for i in range(0, terms, 100)]
        for rel in changed:
            with (root / rel).open("a", encoding="utf-8") as f:
                f.write(f"\nA note added in round {n + 1}.\n")
        commit(root, f"round {n + 1}: notes")
        for role, name in (("author", "Ada Author"), ("reviewer", "Rex Reviewer")):
            sign_all(root, role, keyfiles[name], changed)
            commit(root, f"round {n + 1}: signed as {role}")


@contextlib.contextmanager
def timing(owner: Any, attr: str, spent: list[float]) -> Iterator[None]:
    real: Callable[..., Any] = getattr(owner, attr)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - start)

    setattr(owner, attr, timed)
    try:
        yield
    finally:
        setattr(owner, attr, real)


def measure(root: Path) -> dict[str, float]:
    audits: list[float] = []
    expects: list[float] = []
    replays: list[float] = []
    history._SEEN.clear()  # (a cold read, as a fresh `make site` process does)
    with timing(audit, "audit", audits), timing(signedtext, "expect", expects), \
            timing(history._History, "__init__", replays), contextlib.redirect_stdout(io.StringIO()):
        start = time.perf_counter()
        ok, built, why = sitebuild.build_site(root / "mkdocs.yml", root / "site", strict=True)
        total = time.perf_counter() - start
    if not ok or built is None:
        raise SystemExit(f"the published build failed: {why}")
    published = sum(1 for s in built.states.values() if s.published)
    history._SEEN.clear()
    start = time.perf_counter()
    history._History(root)
    alone = time.perf_counter() - start
    start = time.perf_counter()
    _, problems = signoff.load(root)
    load = time.perf_counter() - start
    if problems:
        raise SystemExit(f"signoff.yaml has problems: {problems[:3]}")
    versions = subprocess.run(["git", "-C", str(root), "rev-list", "--count", "HEAD", "--", "signoff.yaml"],
                              check=True, capture_output=True, text=True).stdout.strip()
    return {"build": total, "audit": sum(audits), "expect": sum(expects), "replay": sum(replays),
            "replay_alone": alone, "load": load, "published": published, "versions": int(versions),
            "signoff_bytes": (root / "signoff.yaml").stat().st_size}


def main(argv: list[str] | None = None) -> int:
    from site_plugins.publishing import forkmap

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--terms", default="1000,10000", help="comma-separated sizes")
    parser.add_argument("--history", type=int, default=3, help="extra rounds of re-signed changes (versions)")
    parser.add_argument("--repeat", type=int, default=1, help="published builds per size (each reported)")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    print(f"# {platform.node()} ({os.cpu_count()} CPUs, load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}); "
          f"python {platform.python_version()}; audit workers {forkmap.workers()}")
    print(f"# .venv/bin/python bench/publish/run.py --terms {args.terms} --history {args.history} "
          f"--repeat {args.repeat}")
    with tempfile.TemporaryDirectory(prefix="gloss-bench-keys-") as keydir:
        keyfiles = keys(Path(keydir))
        for n in (int(x) for x in args.terms.split(",")):
            with tempfile.TemporaryDirectory(prefix=f"gloss-bench-publish-{n}-") as tmp:
                root = Path(tmp)
                start = time.perf_counter()
                project(root, n, args.history, keyfiles)
                made = time.perf_counter() - start
                for _ in range(args.repeat):
                    f = measure(root)
                    print(f"{n:>6,} entries ({f['published']:,} published; "
                          f"signoff.yaml {f['signoff_bytes'] / 1e6:.1f} MB, "
                          f"{f['versions']} versions): build {f['build']:.1f} s, audit {f['audit']:.1f} s "
                          f"({100 * f['audit'] / f['build']:.0f} % of the build; with its expectations "
                          f"{f['expect']:.1f} s, {100 * (f['audit'] + f['expect']) / f['build']:.0f} %), "
                          f"replay read {f['replay']:.2f} s in the build ({f['replay_alone']:.2f} s alone, cold), "
                          f"signoff.load {f['load']:.1f} s; "
                          f"project made and signed in {made:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
