"""``gloss status`` and ``gloss diff``: each entry's sign-off state, and what changed since sign-off.

Exit codes: 0 ok, 1 problems found (status) or nothing to compare with (diff), 2 usage or environment error.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import re
import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from site_plugins import signoff
from site_plugins.cli import common as cli_common
from site_plugins.cli.signoff_project import STATE_WORDS, all_signables, entry_path, load_project, stamp
from site_plugins.signoff.signable import Signable, git

# --- gloss status ------------------------------------------------------------------------------------


def status_main(argv: list[str]) -> int:
    parser = cli_common.parser("gloss status", "Show each entry's sign-off state: draft, awaiting review, signed, or "
                     "changed since sign-off; who signed and when. Exit 1 if signoff.yaml has problems.")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = cli_common.parse(parser, argv)
    if isinstance(args, int):
        return args
    return cli_common.run("gloss status", lambda: _status(args))


def _sig_json(sig: signoff.Signature | None, reg: signoff.Registry, fp: str) -> dict[str, Any] | None:
    if sig is None:
        return None
    return {"name": sig.name, "on": stamp(sig.on), "fingerprint": sig.fingerprint, "commit": sig.commit,
            "registered": reg.registered(sig.name), "covers_current": sig.fingerprint == fp}


def _status(args: argparse.Namespace) -> int:
    project = load_project(args.root, args.docs_dir)
    reg, reg_problems = signoff.load(project.root)
    statuses, problems = signoff.evaluate(project.root, all_signables(project), project.signable_at,
                                          loaded=(reg, reg_problems))
    rows: list[dict[str, Any]] = []
    for st in statuses:
        a = st.assessment
        served = a.served
        published_version = None
        if st.published and served is not None and served.author is not None:
            published_version = {
                "fingerprint": served.author.fingerprint,
                "commit": st.recovered.commit if st.recovered else served.author.commit,
                "author": served.author.name, "reviewer": served.reviewer.name if served.reviewer else None,
                "written_on": stamp(served.author.on),
                "reviewed_on": stamp(served.reviewer.on) if served.reviewer else None}
        moved = None
        if st.recovered is not None and "measured values" in a.changed and a.path in project.signables:
            moved = numbers_moved(st.recovered.signable.shown_values, project.signables[a.path].shown_values)
        rows.append({"path": a.path, "state": a.state, "published": st.published, "numbers_moved": moved,
                     "readable": a.path not in project.unparsed, "fingerprint": a.fingerprint,
                     "author": _sig_json(a.author, reg, a.fingerprint),
                     "reviewer": _sig_json(a.reviewer, reg, a.fingerprint),
                     "missing": list(a.missing) if a.state != "signed" else [],
                     "changed": list(a.changed), "published_version": published_version})
    # An entry file that cannot be read has no content to sign or publish: a draft, with its problem.
    for path, why in project.unreadable.items():
        rows.append({"path": path, "state": "draft", "published": False, "readable": False, "fingerprint": None,
                     "numbers_moved": None, "author": None, "reviewer": None, "missing": ["a readable entry file"],
                     "changed": [], "published_version": None})
        problems.append(why)
    rows.sort(key=lambda r: r["path"])
    problems = sorted(set(problems))
    if args.json:
        print(json.dumps({"entries": rows, "problems": [str(p) for p in problems]}, indent=2))
    else:
        _print_table(rows)
        for p in problems:
            print(p, file=sys.stderr)
    return 1 if problems else 0


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def numbers_moved(signed: Sequence[str], now: Sequence[str]) -> dict[str, Any] | None:
    """The largest relative change between the values an entry showed when signed and those it shows now,
    value by value in page order: ``largest_change`` (-0.2 is 20 % lower), the value as ``signed`` and
    ``now``; None when no value moved. Values that do not pair up (the text changed their number) count
    as moved without a size (``largest_change`` None)."""
    best: tuple[float, str, str] | None = None
    for old, new in zip(signed, now, strict=False):
        # (each value is recorded as "experiment/size/node row column: figure")
        a, b = _NUMBER.search(old.rsplit(": ", 1)[-1]), _NUMBER.search(new.rsplit(": ", 1)[-1])
        if old == new or a is None or b is None:
            continue
        x, y = float(a.group().replace(",", "")), float(b.group().replace(",", ""))
        change = (y - x) / abs(x) if x else float("inf")
        if best is None or abs(change) > abs(best[0]):
            best = (change, old, new)
    if best is None:
        if len(signed) == len(now):
            return None
        return {"largest_change": None, "signed": f"{len(signed)} values", "now": f"{len(now)} values"}
    size = round(best[0], 6) if math.isfinite(best[0]) else None
    return {"largest_change": size, "signed": best[1], "now": best[2]}


def _moved_words(moved: dict[str, Any]) -> str:
    change = moved["largest_change"]
    size = f"the largest by {change * 100:+.1f} % " if change is not None else ""
    return f"re-sign: its numbers moved, {size}({moved['signed']} signed, {moved['now']} now)"


def _who(sig: dict[str, Any] | None) -> str:
    # Whether the signature is registered and covers the current content is said in the notes ("missing").
    return "-" if sig is None else f"{sig['name']} {sig['on'][:10]}"


def _notes(row: dict[str, Any]) -> list[str]:
    parts = []
    if row["fingerprint"] is None:
        parts.append("cannot be read (below)")
    elif not row["readable"]:
        parts.append("does not parse (gloss check)")
    if row["state"] == "changed":
        pv = row["published_version"]
        what = f" ({', '.join(row['changed'])})" if row["changed"] else ""
        if pv is not None:
            commit = f", commit {pv['commit'][:10]}" if pv["commit"] else ""
            parts.append(f"changed{what}; published: the version signed {pv['reviewed_on'][:10]}{commit}")
        else:
            parts.append(f"changed{what}; signed version not in git: unpublished")
    if row.get("numbers_moved"):
        parts.append(_moved_words(row["numbers_moved"]))
    # A draft's usual two missing sign-offs are what "draft" means (the footer says so); anything else is news.
    # (Numbers that moved say what a re-sign needs.)
    if row["missing"] and not (row["state"] == "draft" and tuple(row["missing"]) == DRAFT_MISSING) \
            and not row.get("numbers_moved"):
        parts.append("missing: " + "; ".join(row["missing"]))
    return parts


#: What a draft nobody has signed misses (the sign-off module's words): not repeated on every draft's line.
DRAFT_MISSING = ("author sign-off", "review by a registered person other than the author")

#: The width notes wrap at when the output is not a terminal (a pipe, a file, CI logs).
PIPE_WIDTH = 100


def _print_table(rows: list[dict[str, Any]]) -> None:
    """One line per entry (entry, state, author, reviewer), then its notes indented and wrapped to the
    terminal's width (PIPE_WIDTH elsewhere, or $COLUMNS), so no line runs to hundreds of characters."""
    width = max(60, shutil.get_terminal_size((PIPE_WIDTH, 24)).columns)
    header = ("ENTRY", "STATE", "AUTHOR", "REVIEWER")
    table = [(r["path"], STATE_WORDS[r["state"]], _who(r["author"]), _who(r["reviewer"])) for r in rows]
    widths = [max(len(row[i]) for row in [header, *table]) for i in range(3)]
    for i, row in enumerate([header, *table]):
        print("  ".join([*(cell.ljust(widths[j]) for j, cell in enumerate(row[:3])), row[3]]).rstrip())
        for note in _notes(rows[i - 1]) if i else []:
            print(textwrap.fill(note, width, initial_indent="    ", subsequent_indent="      ",
                                break_on_hyphens=False))
    counts = {s: sum(1 for r in rows if r["state"] == s) for s in STATE_WORDS}
    published = sum(1 for r in rows if r["published"])
    print(f"\n{len(rows)} entries: {counts['signed']} signed, {counts['changed']} changed since sign-off, "
          f"{counts['awaiting-review']} awaiting review, {counts['draft']} draft; {published} published")
    moved = sum(1 for r in rows if r.get("numbers_moved"))
    if moved:
        print(f"{moved} {'entry waits' if moved == 1 else 'entries wait'} for re-sign because "
              f"{'its' if moved == 1 else 'their'} numbers moved: gloss diff PATH shows them")
    if counts["draft"]:
        print("A draft needs its author's sign-off, then a review by someone else: gloss sign PATH --as author")


# --- gloss diff --------------------------------------------------------------------------------------


def diff_main(argv: list[str]) -> int:
    parser = cli_common.parser("gloss diff", "Show what changed in an entry since it was signed: its text (recovered "
                     "from git), the measured values it shows and the code it quotes.")
    parser.add_argument("path", metavar="PATH", help="the entry, e.g. content/terms/tiling.md")
    args = cli_common.parse(parser, argv)
    if isinstance(args, int):
        return args
    return cli_common.run("gloss diff", lambda: _diff(args))


def _diff(args: argparse.Namespace) -> int:
    project = load_project(args.root, args.docs_dir)
    path = entry_path(project, args.path)
    if path in project.unreadable:
        print(f"{project.unreadable[path]}\ngloss diff: {path} cannot be read, so there is nothing to compare",
              file=sys.stderr)
        return 1
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
    print(f"{path}: changed since {who} by {base.name} on {stamp(base.on)[:10]}"
          + (f" ({', '.join(parts)})" if parts else ""))
    rec = signoff.recover(project.root, now, base.fingerprint, base.commit, project.signable_at)
    if rec is None:
        print(f"The signed version ({base.fingerprint[:19]}…) cannot be recovered from git.")
        if base.commit is None or (old_text := git(project.root, "show", f"{base.commit}:./{path}")) is None:
            return 1
        print(f"Text at the commit recorded with the signature ({base.commit[:10]}); the values or code it showed "
              "then may differ from what it shows now:")
        _print_diff(old_text.splitlines(), now.text.splitlines(), f"a/{path} ({base.commit[:10]})",
                    f"b/{path} (working copy)")
        return 1
    old = rec.signable
    print(f"Signed version: commit {rec.commit[:10]}\n")
    print("Text:")
    _print_diff(rec.text.splitlines(), now.text.splitlines(), f"a/{path} (signed, {rec.commit[:10]})",
                f"b/{path} (working copy)")
    print("\nMeasured values shown:")
    _print_diff(list(old.shown_values), list(now.shown_values), "signed", "now")
    print("\nCode quoted:")
    _print_diff(_code_lines(old.quoted_code), _code_lines(now.quoted_code), "signed", "now")
    print("\nCode files published:")
    old_files, new_files = dict(old.files), dict(now.files)
    for file in sorted(old_files.keys() | new_files.keys()):
        if old_files.get(file) != new_files.get(file):
            _print_diff((old_files.get(file) or "").splitlines(), (new_files.get(file) or "").splitlines(),
                        f"a/{file} (signed)" if file in old_files else "/dev/null",
                        f"b/{file} (working copy)" if file in new_files else "/dev/null")
    if old_files == new_files:
        print("  (no change)")
    old_st, new_st = dict(old.statics), dict(now.statics)
    if old_st or new_st:  # (bytes are not diffed: their digests say which file changed)
        print("\nStatic files (by the sha256 of their bytes):")
        moved = [f for f in sorted(old_st.keys() | new_st.keys()) if old_st.get(f) != new_st.get(f)]
        for file in moved:
            print(f"  {file}: {old_st.get(file, 'absent')[:19]} signed, {new_st.get(file, 'absent')[:19]} now")
        if not moved:
            print("  (no change)")
    return 0


def _code_lines(excerpts: Sequence[str]) -> list[str]:
    out: list[str] = []
    for i, ex in enumerate(excerpts, start=1):
        out += [f"# excerpt {i}", *ex.splitlines()]
    return out


def _print_diff(old: list[str], new: list[str], a: str, b: str) -> None:
    lines = list(difflib.unified_diff(old, new, a, b, lineterm=""))
    print("\n".join(lines) if lines else "  (no change)")


