"""mkdocs-material's primary navigation rendered in Python: the same elements, a fraction of the cost.

Material renders the side navigation of every page through a recursive Jinja macro
(``partials/nav-item.html``). Even pruned to a page's own letter of the A–Z, that navigation is about
sixty items, and each costs three macro calls and a dozen attribute look-ups (several failing with an
exception caught inside Jinja): at a thousand terms it was more than half of all template time.

:func:`render_items` writes the same elements, attributes and text, in the same order, as material's
``render`` macro over ``nav.items`` (for the features ``navigation.indexes``, ``.sections``, ``.tabs``,
``.prune`` and ``.expand``); only the whitespace between tags differs. The project's override of
``partials/nav.html`` (``site_plugins/templates``) calls it and falls back to material's own macro
whenever it returns ``None``: an item with what this renderer does not write (an icon, a subtitle or a
status in a page's meta, material's ``typeset`` or ``encrypted`` attributes) or a section without
children. ``tests/scale/test_navhtml.py`` compares both renderings page by page on real sites, so a
change in material's template shows as a failing test, never as a silently different page.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from mkdocs.utils import normalize_url

ICON = '<span class="md-nav__icon md-icon"></span>'


class Unsupported(Exception):
    """The navigation holds something only material's own macro renders."""


class _Render:
    def __init__(self, page: Any, features: Collection[str], base_url: str, toc: Callable[[], str]) -> None:
        self.page = page
        self.indexes = "navigation.indexes" in features
        self.tabs = "navigation.tabs" in features
        self.sections = "navigation.sections" in features
        self.prune = "navigation.prune" in features
        self.expand = "navigation.expand" in features
        self.base_url = base_url
        self.toc = toc
        self.out: list[str] = []
        self.urls: dict[str, str] = {}

    def url(self, path: Any) -> str:
        key = str(path)
        got = self.urls.get(key)
        if got is None:
            got = self.urls[key] = normalize_url(key, page=self.page, base=self.base_url)
        return got

    def title(self, item: Any) -> str:
        if getattr(item, "typeset", None):
            raise Unsupported("typeset title")
        return str(item.title)

    def content(self, item: Any, ref: Any = None) -> str:
        meta = getattr(item, "meta", None)
        if meta and (meta.get("icon") or meta.get("subtitle") or meta.get("status") or getattr(item, "encrypted", 0)):
            raise Unsupported("icon, subtitle or status")
        return f'<span class="md-ellipsis">{self.title(ref or item)}</span>'

    def pruned(self, item: Any, ref: Any = None) -> None:
        ref = ref or item
        first = item.children[0]
        if first.children:
            self.pruned(first, ref)
            return
        self.out.append(f'<a href="{self.url(getattr(first, "url", ""))}" class="md-nav__link">{self.content(ref)}'
                        f'{ICON}</a>')

    def item(self, item: Any, path: str, level: int, parent: Any) -> None:
        out = self.out
        page = self.page
        cls = "md-nav__item"
        if item.active:
            cls += " md-nav__item--active"
        pages = getattr(item, "pages", None)
        if pages and page in pages:
            item = page
        children: Sequence[Any] | None = item.children
        if children is not None and not children and not hasattr(item, "url"):
            raise Unsupported("a section without children")
        if children:
            index = next((c for c in children if getattr(c, "is_index", False)), None) if self.indexes else None
            is_section = False
            if self.tabs:
                if (level == 1 and item.active) or (self.sections and level == 2 and parent.active):
                    cls += " md-nav__item--section"
                    is_section = True
            elif self.sections and level == 1:
                cls += " md-nav__item--section"
                is_section = True
            is_pruned = self.prune and not is_section and not item.active
            if is_pruned:
                cls += " md-nav__item--pruned"
            out.append(f'<li class="{cls} md-nav__item--nested">')
            if is_pruned:
                self.pruned(item)
                out.append("</li>")
                return
            checked = "checked" if item.active else ""
            indeterminate = "md-toggle--indeterminate" if self.expand and not checked else ""
            tabindex = "" if is_section else "0"
            out.append(f'<input class="md-nav__toggle md-toggle {indeterminate}" type="checkbox" id="{path}" '
                       f'{checked}>')
            if index is None:
                out.append(f'<label class="md-nav__link" for="{path}" id="{path}_label" tabindex="{tabindex}">'
                           f'{self.content(item)}{ICON}</label>')
            else:
                active = "md-nav__link--active" if index == page else ""
                out.append(f'<div class="md-nav__link md-nav__container"><a href="{self.url(index.url)}" '
                           f'class="md-nav__link {active}">{self.content(index, item)}</a>')
                if len(children) > 1:
                    out.append(f'<label class="md-nav__link {active}" for="{path}" id="{path}_label" '
                               f'tabindex="{tabindex}">{ICON}</label>')
                out.append("</div>")
            expanded = "true" if item.active else "false"
            out.append(f'<nav class="md-nav" data-md-level="{level}" aria-labelledby="{path}_label" '
                       f'aria-expanded="{expanded}"><label class="md-nav__title" for="{path}">{ICON}'
                       f'{self.title(item)}</label><ul class="md-nav__list" data-md-scrollfix>')
            for n, child in enumerate(children, start=1):
                if index is None or child != index:
                    self.item(child, f"{path}_{n}", level + 1, item)
            out.append("</ul></nav></li>")
        elif item == page:
            toc = list(page.toc)
            if toc and toc[0].level == 1:
                toc = list(toc[0].children)
            out.append(f'<li class="{cls}"><input class="md-nav__toggle md-toggle" type="checkbox" id="__toc">')
            if toc:
                out.append(f'<label class="md-nav__link md-nav__link--active" for="__toc">{self.content(item)}'
                           f'{ICON}</label>')
            out.append(f'<a href="{self.url(item.url)}" class="md-nav__link md-nav__link--active">'
                       f'{self.content(item)}</a>')
            if toc:
                out.append(str(self.toc()))
            out.append("</li>")
        else:
            out.append(f'<li class="{cls}"><a href="{self.url(item.url)}" class="md-nav__link">{self.content(item)}'
                       "</a></li>")


def render_items(items: Sequence[Any], page: Any, features: Collection[str], base_url: str,
                 toc: Callable[[], str]) -> str | None:
    """The ``<li>`` elements of the primary navigation of ``page`` (what material's ``nav.html`` writes
    inside its ``<ul>``), or ``None`` where only material's own macro can render it. ``toc`` returns the
    page's table of contents (``partials/toc.html``), written inside the current page's item."""
    r = _Render(page, features, base_url, toc)
    try:
        for n, item in enumerate(items, start=1):
            r.item(item, f"__nav_{n}", 1, None)
    except Unsupported:
        return None
    return "".join(r.out)
