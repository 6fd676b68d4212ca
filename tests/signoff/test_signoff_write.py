"""Writing signoff.yaml: atomic, round trip (comments and order kept), always readable back."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from signoff_helpers import T1, T2, person_yaml, plan_signature

from site_plugins import signoff
from site_plugins.publishing.publish import Signable

A = Signable("content/terms/a.md", "---\ntitle: A\n---\nA.\n")
B = Signable("content/terms/b.md", "---\ntitle: B\n---\nB.\n", ("3 ms",))
C = Signable("content/lessons/day01-c.md", "---\ntitle: C\n---\nC.\n")

ROOT = Path(__file__).resolve().parents[2]


def sign(root: Path, s: Signable, role: signoff.Role, name: str, on: object = T1) -> None:
    reg, problems = signoff.load(root)
    assert problems == []
    record, _ = plan_signature(reg, s, role, name, on=on, commit=None)  # type: ignore[arg-type]
    signoff.write_entry(root, s.path, record)


def test_signing_into_the_shipped_file_keeps_its_comments(tmp_path: Path) -> None:
    shutil.copy(ROOT / "signoff.yaml", tmp_path / "signoff.yaml")
    original = (tmp_path / "signoff.yaml").read_text(encoding="utf-8")
    people = "people:\n" + person_yaml("Ada Author").replace("Ada Author\n", "Ada Author  # fictional\n", 1) + \
        person_yaml("Rex Reviewer", False)
    (tmp_path / "signoff.yaml").write_text(original.replace("people: []\n", people), encoding="utf-8")
    sign(tmp_path, B, "author", "ada")
    sign(tmp_path, A, "author", "Ada Author")
    sign(tmp_path, B, "reviewer", "Rex Reviewer", T2)
    text = (tmp_path / "signoff.yaml").read_text(encoding="utf-8")
    comments = [line for line in original.splitlines() if line.startswith("#")]
    assert [line for line in text.splitlines() if line.startswith("#")] == comments
    assert "  - name: Ada Author  # fictional\n" in text
    assert text.index("content/terms/a.md:") < text.index("content/terms/b.md:")  # path order
    assert "      on: 2026-12-02T09:30:00Z\n" in text
    assert "      signature: |\n        -----BEGIN SSH SIGNATURE-----\n" in text  # a readable block
    reg, problems = signoff.load(tmp_path)
    assert problems == []
    assert signoff.assess(reg, A).state == "awaiting-review"
    assert signoff.assess(reg, B).state == "signed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["signoff.yaml"]  # no temp file left behind


def test_the_written_record_is_exactly_what_was_planned(tmp_path: Path) -> None:
    (tmp_path / "signoff.yaml").write_text("people:\n" + person_yaml("Ada Author"), encoding="utf-8")
    reg, _ = signoff.load(tmp_path)
    record, _ = plan_signature(reg, B, "author", "Ada Author", on=T1, commit="0123456789abcdef" * 2)
    signoff.write_entry(tmp_path, B.path, record)
    reg, problems = signoff.load(tmp_path)
    assert problems == []
    assert reg.entries == {B.path: record}


def test_a_file_without_entries_or_people_is_created_sensibly(tmp_path: Path) -> None:
    record, _ = plan_signature(signoff.Registry(people=[signoff.Person("Ada Author", keys=[])]), C, "author",
                               "Ada Author", on=T1, commit=None)
    signoff.write_entry(tmp_path, C.path, record)
    text = (tmp_path / "signoff.yaml").read_text(encoding="utf-8")
    assert text.startswith("# Sign-off registry.")
    reg, problems = signoff.parse(text)
    assert reg.entries == {C.path: record}
    # Ada is not registered in the new file: it reads back, but says so.
    assert [p.problem for p in problems] == [
        "'Ada Author' signed content/lessons/day01-c.md as author but is not registered"]


def test_a_failed_write_leaves_the_old_file_untouched(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "signoff.yaml").write_text("people:\n" + person_yaml("Ada Author"), encoding="utf-8")
    before = (tmp_path / "signoff.yaml").read_bytes()

    def boom(src: str, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        sign(tmp_path, A, "author", "Ada Author")
    assert (tmp_path / "signoff.yaml").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["signoff.yaml"]


def test_later_writes_splice_the_entry_blocks_and_match_the_round_trip(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from site_plugins.signoff import store

    shutil.copy(ROOT / "signoff.yaml", tmp_path / "signoff.yaml")
    original = (tmp_path / "signoff.yaml").read_text(encoding="utf-8")
    people = "people:\n" + person_yaml("Ada Author") + person_yaml("Rex Reviewer", False)
    (tmp_path / "signoff.yaml").write_text(original.replace("people: []\n", people), encoding="utf-8")
    sign(tmp_path, B, "author", "ada")  # the first entry goes through the round trip (entries: {})
    round_trip = store._round_trip
    expected: list[str] = []

    def no_round_trip(text: str, records: object) -> str:
        raise AssertionError("the splice should have been used")

    def checked_write(target: Path, text: str) -> None:
        assert text == expected[-1]
        target.write_text(text, encoding="utf-8")

    monkeypatch.setattr(store, "_round_trip", no_round_trip)
    monkeypatch.setattr(store.atomic, "write_text", checked_write)
    for s, role, name in ((A, "author", "Ada Author"), (C, "author", "Ada Author"), (B, "reviewer", "Rex Reviewer"),
                          (A, "reviewer", "Rex Reviewer")):
        reg, _ = signoff.load(tmp_path)
        record, _ = plan_signature(reg, s, role, name, on=T2, commit=None)  # type: ignore[arg-type]
        expected.append(round_trip((tmp_path / "signoff.yaml").read_text(encoding="utf-8"), {s.path: record}))
        signoff.write_entry(tmp_path, s.path, record)
    reg, problems = signoff.load(tmp_path)
    assert problems == []
    assert [signoff.assess(reg, s).state for s in (A, B, C)] == ["signed", "signed", "awaiting-review"]
    assert list(reg.entries) == [C.path, A.path, B.path]  # path order
