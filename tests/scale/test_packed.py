"""PackedTexts: a build's generated Markdown held compressed, read back unchanged."""

from __future__ import annotations

from site_plugins.build.packed import PackedTexts


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
