"""PackedTexts: a build's generated Markdown held compressed, read back unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sitekit import build_site

from site_plugins.publishing import packed
from site_plugins.publishing.packed import PACK_FROM, PackedTexts, pack, packing, unpack

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench/build"))

import synthetic


def test_packed_texts_behave_as_a_dict_and_hold_less() -> None:
    texts = {"terms/a.md": "# A\n\n" + "A tile is a block of the array. " * 300, "terms/b.md": "é ✓ \x00"}
    packed = PackedTexts(texts)
    assert dict(packed) == texts and packed == texts and len(packed) == 2 and "terms/a.md" in packed
    assert {**packed} == texts and sorted(packed) == sorted(texts)
    assert sum(len(v) for v in packed._data.values()) < len(texts["terms/a.md"]) / 10
    packed["terms/c.md"] = "c"
    assert packed.pop("terms/c.md") == "c" and packed.pop("terms/c.md", None) is None
    packed.update({"terms/b.md": "new"})
    assert packed["terms/b.md"] == "new"


def test_unpacked_texts_behave_the_same_and_hold_the_text_itself() -> None:
    texts = {"terms/a.md": "# A\n\n" + "A tile. " * 300, "terms/b.md": "é ✓"}
    plain = PackedTexts(texts, on=False)
    assert dict(plain) == texts and all(isinstance(v, str) for v in plain._data.values())
    assert unpack(pack("é ✓", False)) == unpack(pack("é ✓")) == "é ✓" and isinstance(pack("x"), bytes)


def test_a_build_packs_from_a_size_on() -> None:
    assert not packing(PACK_FROM - 1) and packing(PACK_FROM) and PACK_FROM <= 1000


def test_packing_changes_no_byte_of_the_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same synthetic glossary (measured tables, charts, values in prose) built with and without packing.
    synthetic.write_site(tmp_path / "s", 12, embeds=True)
    monkeypatch.setattr(packed, "PACK_FROM", 10_000)
    small = build_site(tmp_path / "s", strict=False, site_dir="unpacked")
    monkeypatch.setattr(packed, "PACK_FROM", 1)
    big = build_site(tmp_path / "s", strict=False, site_dir="packed")
    pages = sorted(p.relative_to(small) for p in small.rglob("*.html"))
    assert len(pages) > 12 and pages == sorted(p.relative_to(big) for p in big.rglob("*.html"))
    for page in [*pages, Path("search/search_index.json")]:
        assert (small / page).read_bytes() == (big / page).read_bytes(), page
