"""The primary navigation written in Python (site_plugins/nav/material.py) is material's, element for element.

Each site is built twice, in-process: once as the plugin builds it, once with the Python renderer
declining every page so that material's own ``partials/nav-item.html`` macro writes the navigation.
Every page must come out the same up to the whitespace between tags.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from scalekit import config, many_terms
from sitekit import build_site, make_site

from site_plugins.nav import material as navhtml

FEATURES = """\
    - navigation.instant
    - navigation.instant.progress
    - navigation.indexes
    - navigation.sections
    - navigation.prune     # a page carries the sections, the A–Z letters and its own letter, not every term
    - navigation.top
"""
GAPS = re.compile(r"\s*(<[^>]*>)\s*")


def _pages(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): GAPS.sub(r"\1", p.read_text(encoding="utf-8"))
            for p in sorted(site.rglob("*.html"))}


def _both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, features: list[str]) -> tuple[dict[str, str],
                                                                                         dict[str, str], list[bool]]:
    text = config(preview=True, nav_max_terms=3)
    assert FEATURES in text, "the project's mkdocs.yml no longer lists the navigation features this test swaps"
    text = text.replace(FEATURES, "".join(f"    - {f}\n" for f in features))
    root = make_site(tmp_path, many_terms(24) | {"mkdocs.yml": text})
    written: list[bool] = []
    real = navhtml.render_items

    def spy(*args: Any) -> str | None:
        out = real(*args)
        written.append(out is not None)
        return out

    monkeypatch.setattr(navhtml, "render_items", spy)
    ours = _pages(build_site(root, site_dir="ours"))
    monkeypatch.setattr(navhtml, "render_items", lambda *args: None)
    theirs = _pages(build_site(root, site_dir="theirs"))
    return ours, theirs, written


@pytest.mark.parametrize("features", [
    ["navigation.indexes", "navigation.sections", "navigation.prune"],  # the project's own
    ["navigation.indexes", "navigation.sections", "navigation.prune", "navigation.tabs"],
    ["navigation.indexes", "navigation.expand"],
    ["navigation.sections"],
    [],
], ids=["project", "tabs", "expand", "sections", "none"])
def test_every_page_is_as_material_writes_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              features: list[str]) -> None:
    ours, theirs, written = _both(tmp_path, monkeypatch, features)
    assert written and all(written)  # the Python renderer wrote every page's navigation
    assert ours.keys() == theirs.keys() and len(ours) > 30
    differ = [name for name in ours if ours[name] != theirs[name]]
    assert differ == []
    page = ours["terms/t0005/index.html"]
    assert 'class="md-nav__link md-nav__link--active"' in page and 'id="__toc"' in page


def _page(title: str, url: str, meta: dict[str, object]) -> SimpleNamespace:
    return SimpleNamespace(title=title, url=url, meta=meta, children=None, active=False, is_index=False,
                           toc=[])


def test_what_only_material_writes_is_left_to_it() -> None:
    plain = _page("Plain", "plain/", {})
    assert navhtml.render_items([plain], None, [], "", lambda: "") == (
        '<li class="md-nav__item"><a href="plain/" class="md-nav__link"><span class="md-ellipsis">Plain</span>'
        "</a></li>")
    for meta in ({"icon": "material/star"}, {"subtitle": "more"}, {"status": "new"}):
        assert navhtml.render_items([plain, _page("Odd", "odd/", meta)], None, [], "", lambda: "") is None
    empty = SimpleNamespace(title="Empty", children=[], active=False)
    assert navhtml.render_items([empty], None, [], "", lambda: "") is None
