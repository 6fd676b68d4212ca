"""The theme's compiled templates are kept between builds (Jinja's own bytecode cache), and a page built
from the cache is the page built without it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import jinja2
import pytest
from scalekit import make
from sitekit import build_site


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The templates Jinja compiles from source (not loaded from a cache), in a private temporary folder."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # Jinja's cache folder lives there
    names: list[str] = []
    real = jinja2.Environment._compile

    def spy(self: jinja2.Environment, source: str, filename: str) -> Any:
        names.append(filename)
        return real(self, source, filename)

    monkeypatch.setattr(jinja2.Environment, "_compile", spy)
    return names


def cache_files(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("_jinja2-cache-*/*.cache"))


def test_a_second_build_loads_the_themes_templates_compiled(tmp_path: Path, compiled: list[str]) -> None:
    root = make(tmp_path / "p", 3, preview=True)
    one = build_site(root, site_dir="one")
    first = list(compiled)
    assert any(n.endswith("main.html") for n in first) and cache_files(tmp_path / "tmp")
    compiled.clear()
    two = build_site(root, site_dir="two")
    assert not [n for n in compiled if n.endswith(("main.html", "base.html"))]  # from the cache
    page = "terms/t0001/index.html"
    assert (one / page).read_text(encoding="utf-8") == (two / page).read_text(encoding="utf-8")


@pytest.mark.parametrize("off", ["env", "option"])
def test_the_cache_can_be_turned_off(tmp_path: Path, compiled: list[str], monkeypatch: pytest.MonkeyPatch,
                                     off: str) -> None:
    if off == "env":
        monkeypatch.setenv("GLOSS_TEMPLATE_CACHE", "0")
        root = make(tmp_path / "p", 3)
    else:
        root = make(tmp_path / "p", 3, template_cache=False)
    build_site(root, site_dir="one")
    build_site(root, site_dir="two")
    assert cache_files(tmp_path / "tmp") == []
    assert sum(n.endswith("main.html") for n in compiled) == 2
    assert os.environ.get("GLOSS_TEMPLATE_CACHE") == ("0" if off == "env" else None)


def test_a_corrupt_cache_entry_is_compiled_again(tmp_path: Path, compiled: list[str]) -> None:
    root = make(tmp_path / "p", 3, preview=True)
    one = build_site(root, site_dir="one")
    for f in cache_files(tmp_path / "tmp"):
        f.write_bytes(b"j2\x00garbage")
    compiled.clear()
    two = build_site(root, site_dir="two")
    assert any(n.endswith("main.html") for n in compiled)
    page = "terms/t0001/index.html"
    assert (one / page).read_text(encoding="utf-8") == (two / page).read_text(encoding="utf-8")


def test_a_cache_folder_that_fails_never_fails_a_build(tmp_path: Path, compiled: list[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # A full disk or a read-only folder (not reproducible here as root, who may write anywhere): every read
    # and write of Jinja's cache raises, and the build compiles as if there were no cache.
    def fail(self: object, bucket: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jinja2.FileSystemBytecodeCache, "load_bytecode", fail)
    monkeypatch.setattr(jinja2.FileSystemBytecodeCache, "dump_bytecode", fail)
    root = make(tmp_path / "p", 3, preview=True)
    build_site(root, site_dir="one")
    build_site(root, site_dir="two")
    assert sum(n.endswith("main.html") for n in compiled) == 2
