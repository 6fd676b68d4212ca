"""README's sign-off walkthrough ("The whole flow, with a key"), run as typed: its command blocks and its
YAML block are read from README.md, and two fictional people, each in a fresh home folder (no git identity,
no key, no ssh-agent), run them one line at a time in a tiny project that uses this checkout's .venv: Rex
Reviewer as written, Ada Author with her own name, address and handle. The only thing done for them is
what README asks of a person rather than a shell: answering ssh-keygen's passphrase prompt (empty),
pasting the key into signoff.yaml, and writing the entry."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from sitekit import write_tree
from tinyproject import TERM_B

ROOT = Path(__file__).resolve().parents[2]
WARP = """---
title: What is a warp in CUDA?
definition: A warp is a group of 32 threads that a multiprocessor schedules together.
---

Threads of a warp issue the same instruction.
"""


def walkthrough() -> tuple[dict[int, list[list[str]]], str]:
    """README's numbered steps: each step's shell blocks (lists of command lines), and the YAML block."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("**The whole flow, with a key.**") : text.index("Many entries are signed in one call")]
    blocks: dict[int, list[list[str]]] = {}
    step, current, yaml_lines, in_yaml = 0, None, [], False
    for line in section.splitlines():
        if m := re.match(r"^(\d)\. ", line):
            step = int(m.group(1))
        if line.strip() == "```yaml":
            in_yaml = True
            continue
        if in_yaml:
            if line.strip() == "```":
                in_yaml = False
            else:
                yaml_lines.append(line[3:])
            continue
        if line.startswith("       ") and step:
            if current is None:
                current = []
                blocks.setdefault(step, []).append(current)
            current.append(line.strip())
        elif line.strip():
            current = None
    return blocks, "\n".join(yaml_lines) + "\n"


class Person:
    def __init__(self, tmp: Path, name: str, email: str, handle: str) -> None:
        self.name, self.email, self.handle = name, email, handle
        self.home = tmp / f"home-{handle}"
        self.home.mkdir()

    def say(self, text: str) -> str:
        """README's text as this person would type it (README is written for Rex)."""
        return text.replace("Rex Reviewer", self.name).replace("rex@example.org", self.email).replace(
            "handle: rex ", f"handle: {self.handle} ")

    def run(self, project: Path, block: list[str]) -> list[subprocess.CompletedProcess[str]]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GIT_", "SSH_", "GLOSS_", "VIRTUAL_ENV")) and k != "COLUMNS"}
        env.update(HOME=str(self.home), GIT_CONFIG_NOSYSTEM="1")
        out = []
        for line in block:
            # No terminal (a session of its own): ssh-keygen reads the passphrase, twice, from stdin.
            ran = subprocess.run(["bash", "-c", self.say(line)], cwd=project, env=env, input="\n\n", text=True,
                                 capture_output=True, start_new_session=True, timeout=300)
            out.append(ran)
        return out


def ok(results: list[subprocess.CompletedProcess[str]], *allowed_failures: str) -> None:
    for r in results:
        if any(a in r.args[-1] for a in allowed_failures):
            continue
        assert r.returncode == 0, f"{r.args[-1]!r} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "gloss").exists(), reason="needs `make test`'s .venv/bin/gloss")
def test_the_walkthrough_runs_as_typed_in_fresh_accounts(tmp_path: Path) -> None:
    blocks, yaml_block = walkthrough()
    assert sorted(blocks) == [1, 2, 3, 4] and all(len(blocks[s]) == 1 for s in (1, 2, 3, 4))
    assert yaml_block.startswith("people:\n  - name: Rex Reviewer")

    project = tmp_path / "project"
    header = [ln for ln in (ROOT / "signoff.yaml").read_text(encoding="utf-8").splitlines() if ln.startswith("#")]
    write_tree(project, {
        "mkdocs.yml": (ROOT / "mkdocs.yml").read_text(encoding="utf-8"),
        "content/index.md": "# Home\n",
        "content/terms/bank-conflict.md": TERM_B,
        "signoff.yaml": "\n".join(header) + "\npeople: []\n",
        ".gitignore": ".venv\n",
    })
    (project / ".venv").symlink_to(ROOT / ".venv")  # what `make` made (README, "Set up")
    keeper = ["-c", "user.name=Project Keeper", "-c", "user.email=keeper@example.invalid"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*keeper, "commit", "-q", "-m", "the project"]):
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)

    rex = Person(tmp_path, "Rex Reviewer", "rex@example.org", "rex")
    ada = Person(tmp_path, "Ada Author", "ada@example.org", "ada")
    for person in (rex, ada):
        ok(person.run(project, blocks[1][0]))
        assert (person.home / ".ssh" / "id_ed25519.pub").is_file()
    # Step 2: Rex replaces `people: []`; Ada, who comes second, adds herself as one more item.
    signoff = project / "signoff.yaml"
    for person in (rex, ada):
        key = (person.home / ".ssh" / "id_ed25519.pub").read_text(encoding="utf-8").strip()
        mine = re.sub(r"ssh-ed25519 AAAA\S*\.\.\. \S+", key, person.say(yaml_block))
        text = signoff.read_text(encoding="utf-8")
        text, replaced = re.subn(r"(?m)^people: \[\]\n", mine, text)
        if not replaced:
            text, replaced = re.subn(r"(?m)^people:\n", mine, text, count=1)
        assert replaced == 1
        signoff.write_text(text, encoding="utf-8")
        results = person.run(project, blocks[2][0])
        ok(results)
        assert results[0].stdout == "signoff.yaml reads well\n"
    # Step 3: Ada writes the entry, then does as README says.
    (project / "content" / "terms" / "warp.md").write_text(WARP, encoding="utf-8")
    results = ada.run(project, blocks[3][0])
    ok(results)
    assert results[0].stdout == "ok: 2 terms, 0 lessons\n"
    assert results[2].stdout.startswith("Signed content/terms/warp.md as author: Ada Author, ")
    # Step 4: Rex reviews. `gloss diff` of an entry never reviewed exits 1 and says why.
    results = rex.run(project, blocks[4][0])
    ok(results, "gloss diff")
    status_before, diff, signed, _, status_after = results
    assert re.search(r"^content/terms/warp\.md +awaiting review +Ada Author \d{4}-\d\d-\d\d +-$",
                     status_before.stdout, re.M), status_before.stdout
    assert "nothing signed yet to compare with (awaiting review)" in diff.stdout + diff.stderr
    assert signed.stdout.startswith("Signed content/terms/warp.md as reviewer: Rex Reviewer, ")
    assert re.search(r"^content/terms/warp\.md +signed +Ada Author \S+ +Rex Reviewer \S+$", status_after.stdout, re.M)
    # What git holds: the registrations and both sign-offs, each committed by the person who made it.
    log = subprocess.run(["git", "log", "--format=%an: %s"], cwd=project, capture_output=True, text=True).stdout
    assert log.splitlines() == [
        "Rex Reviewer: warp: reviewed",
        "Ada Author: warp: signed by its author",
        "Ada Author: warp: new term",
        "Ada Author: signoff: register Ada Author",
        "Rex Reviewer: signoff: register Rex Reviewer",
        "Project Keeper: the project",
    ]
    status = subprocess.run([str(ROOT / ".venv/bin/gloss"), "status", "--json"], cwd=project, capture_output=True,
                            text=True, env={**os.environ, "HOME": str(rex.home)})
    entries = {e["path"]: (e["state"], e["published"]) for e in json.loads(status.stdout)["entries"]}
    assert entries["content/terms/warp.md"] == ("signed", True)
