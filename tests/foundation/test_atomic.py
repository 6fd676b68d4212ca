"""Whole-or-nothing writes, shared by results, link evidence and sign-offs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from site_plugins.files import atomic


def test_new_file_is_world_readable_and_old_mode_is_kept(tmp_path: Path) -> None:
    new = tmp_path / "sub" / "a.json"
    atomic.write_text(new, "one\n")
    assert new.read_text() == "one\n" and new.stat().st_mode & 0o777 == 0o644
    new.chmod(0o600)
    atomic.write_text(new, "two\n")
    assert new.read_text() == "two\n" and new.stat().st_mode & 0o777 == 0o600


def test_a_failed_rename_leaves_the_old_file_and_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.json"
    atomic.write_text(path, "old\n")

    def boom(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic.write_text(path, "new\n")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]
