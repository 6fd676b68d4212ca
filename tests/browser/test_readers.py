"""The real content as a reader meets it: headless Chromium (Playwright) on the site built from this
repository, served on 127.0.0.1. Desktop (1280 px) and phone (390 px), light and dark."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browserkit import PRESETS, Served, screenshot

from site_plugins.diagrams import tilemodel as tm
from site_plugins.diagrams.figure import BANK_H

pytestmark = pytest.mark.browser

TILING = "/terms/tiling/"
PAGES = ["/terms/tiling/", "/terms/bank-conflict/", "/terms/shared-memory/", "/terms/memory-coalescing/",
         "/lessons/day13-shared-memory/", "/lessons/day16-matmul/", "/lessons/day20-convolution/",
         "/terms/double-buffering/", "/terms/invalid-argument/", "/terms/", "/measurements/", "/"]


def _search_first(tab: Any, site: Served, query: str) -> str:
    page = tab.page
    page.goto(site.base + "/")
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially(query, delay=20)  # typed, as a reader does: the search runs on key events
    first = page.locator(".md-search-result__item a").first
    first.wait_for()
    return str(first.get_attribute("href"))


# A term's own page first, for each term's name as a reader types it (the search boost sits on a term
# page's own record only: site_plugins/publishing/searchindex.py).
@pytest.mark.parametrize(("query", "slug"), [
    ("tiling", "tiling"), ("bank conflict", "bank-conflict"), ("shared memory", "shared-memory"),
    ("swizzling", "swizzling"), ("warp divergence", "warp-divergence"), ("occupancy", "occupancy"),
    ("reduction", "reduction"), ("double buffering", "double-buffering"), ("memory coalescing", "memory-coalescing"),
    ("arithmetic intensity", "arithmetic-intensity"), ("latency hiding", "latency-hiding"), ("warp", "warp"),
    ("register tiling", "register-tiling"), ("memory transaction", "memory-transaction"), ("halo", "halo"),
    ("tensor cores", "tensor-cores"), ("vectorized loads", "vectorized-loads"), ("data reuse", "data-reuse"),
    ("atomic operations", "atomics"), ("L2 cache", "l2-cache"), ("barrier", "barrier"),
])
def test_search_returns_the_term_first(open_tab: Any, preview_site: Served, query: str, slug: str) -> None:
    href = _search_first(open_tab(), preview_site, query)
    assert re.search(rf"/terms/{slug}/(\?[^#]*)?$", href), href


def _tooltip_shows(page: Any, words: str) -> None:
    """Material turns a link's title into a tooltip element; wait until one showing ``words`` is visible."""
    tip = page.locator(".md-tooltip--active, .md-tooltip2--active, [role=tooltip]").filter(has_text=words)
    tip.first.wait_for(state="visible", timeout=5_000)


def test_term_links_show_the_definition_on_hover_and_on_keyboard_focus(open_tab: Any, preview_site: Served) -> None:
    page = open_tab().page
    page.goto(preview_site.base + "/lessons/day13-shared-memory/")
    tiling = "Tiling stages a piece of a larger array in on-chip shared memory, one piece per thread block"
    bank = "A bank conflict"
    page.locator("article a[href$='terms/tiling/']").first.hover()
    _tooltip_shows(page, tiling)
    page.mouse.move(0, 0)
    link = page.locator("article a[href$='terms/bank-conflict/']").first
    assert bank in str(link.get_attribute("title"))
    link.focus()  # keyboard focus, no pointer over it
    _tooltip_shows(page, bank)


# --- the tile-lifecycle diagram ------------------------------------------------------------------------

def _diagram(page: Any) -> Any:
    return page.locator(".gloss-tl").first


def _bank_fills(page: Any) -> list[str]:
    """The computed fill of each bank path of the tile, in drawing order."""
    return list(page.eval_on_selector_all(
        ".gloss-tl .tl-tile .tl-bank", "els => els.map(e => getComputedStyle(e).fill)"))


def test_diagram_steps_by_mouse_and_keyboard(open_tab: Any, preview_site: Served) -> None:
    page = open_tab().page
    page.goto(preview_site.base + TILING)
    fig = _diagram(page)
    readout = fig.locator(".tl-readout")
    start = int(str(fig.get_attribute("data-state")).split("/")[1])
    assert fig.locator(".tl-controls").is_visible()
    fig.locator(".tl-next").click()
    step = (start + 1) % len(tm.STEPS)
    assert readout.inner_text().startswith(f"Step {step + 1} of 3, {tm.STEPS[step]}:")
    assert fig.locator(f".tl-step[data-step='{step}']").get_attribute("aria-pressed") == "true"
    fig.locator(".tl-step[data-step='0']").click()
    assert readout.inner_text().startswith("Step 1 of 3, load:")
    assert fig.locator(".tl-arrow").count() == 1  # rows arriving from the input
    # Keyboard only: Tab reaches the controls, Enter presses a step button, arrows step through phases.
    fig.locator(".tl-next").focus()
    page.keyboard.press("Enter")
    assert readout.inner_text().startswith("Step 2 of 3, barrier:")
    assert fig.locator(".tl-barrier").count() == 1
    page.keyboard.press("ArrowRight")
    assert readout.inner_text().startswith("Step 3 of 3, store:")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert readout.inner_text().startswith("Step 1 of 3, load:")
    # On a step button the arrows move the focus with the pressed step.
    fig.locator(".tl-step[data-step='0']").focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("() => document.activeElement.dataset.step") == "1"
    assert readout.get_attribute("aria-live") == "polite"


def test_slider_changes_the_tile_and_the_bank_colours(open_tab: Any, preview_site: Served) -> None:
    page = open_tab().page
    page.goto(preview_site.base + TILING)
    fig = _diagram(page)
    fig.locator(".tl-step[data-step='2']").click()  # store: warp 0 reads a column of the tile
    assert fig.get_attribute("data-state") == "32/2"
    before = _bank_fills(page)
    slider = fig.locator("input[type=range]")
    slider.focus()
    page.keyboard.press("ArrowLeft")  # 32 -> 16
    assert fig.get_attribute("data-state") == "16/2"
    pad = int(fig.evaluate("f => JSON.parse(f.dataset.tl).pad"))
    assert fig.locator("svg title").text_content() == f"Tile lifecycle, tile[16][{16 + pad}]"
    assert slider.get_attribute("aria-valuetext") == "16 by 16"
    assert fig.locator("output").inner_text() == "16 × 16"
    acc = tm.warp_access(tm.TileState(tile=16, pad=pad, step=2))
    assert acc is not None
    words = "no conflict" if acc.ways == 1 else f"{tm.article(acc.ways)} {acc.ways}-way conflict"
    assert words == "an 8-way conflict"  # tile[16][16] with the code's 16 x 8 block
    assert words in fig.locator(".tl-readout").inner_text()
    # Bank colours: the tile's cells are redrawn per bank, in 32 different hues, at the new size.
    after = _bank_fills(page)
    assert len(set(after)) == 32 and len(set(before)) == 32
    cells = page.eval_on_selector_all(".gloss-tl .tl-tile .tl-bank", "els => els.map(e => e.getAttribute('d'))")
    assert sum(d.count("M") for d in cells) == 16 * 16
    # The strip under the tile: warp 0's lanes stacked on the banks the model computes.
    strip = page.eval_on_selector_all(".gloss-tl .tl-scene > rect.tl-bank",
                                      "els => els.map(e => [e.style.getPropertyValue('--b'), e.getAttribute('height')])"
                                      )
    stacked = {int(b): round(float(h) / BANK_H) for b, h in strip}
    assert stacked == {b: acc.banks.count(b) for b in set(acc.banks)}
    page.keyboard.press("End")  # back to 32
    assert fig.get_attribute("data-state") == "32/2"


def test_js_redraw_matches_the_static_drawing(open_tab: Any, preview_site: Served, presets_site: Served) -> None:
    """The script's drawing of every preset's first state is the server's, element for element."""
    static = open_tab(javascript=False).page
    live = open_tab().page
    urls = [TILING] + [f"/terms/{p}/" for p in PRESETS]
    for url in urls:
        site = preview_site if url == TILING else presets_site
        static.goto(site.base + url)
        live.goto(site.base + url)
        a = static.locator(".gloss-tl .tl-scene").first.inner_html()
        b = live.locator(".gloss-tl .tl-scene").first.inner_html()
        assert a == b, url


def test_without_javascript_the_static_figure_and_its_text_show(open_tab: Any, preview_site: Served) -> None:
    page = open_tab(javascript=False).page
    page.goto(preview_site.base + TILING)
    fig = _diagram(page)
    assert not fig.locator(".tl-controls").is_visible()
    svg = fig.locator("svg")
    assert svg.is_visible() and svg.get_attribute("role") == "img"
    assert "tile" in (fig.locator("svg desc").text_content() or "")
    assert fig.locator(".tl-readout").inner_text().startswith("Step ")
    assert fig.locator(".tl-tile .tl-bank").count() > 0
    fig.scroll_into_view_if_needed()
    screenshot(page, "tiling-no-js-diagram", full_page=False)


# --- light, dark, phone --------------------------------------------------------------------------------

def _luminance(css: str) -> float:
    nums = [float(x) for x in re.findall(r"[\d.]+", css)[:3]]
    return sum(nums) / 3


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_tables_and_charts_are_legible_in_both_schemes(open_tab: Any, preview_site: Served, dark: bool) -> None:
    page = open_tab(dark=dark).page
    page.goto(preview_site.base + TILING)
    scheme = page.eval_on_selector("body", "b => b.getAttribute('data-md-color-scheme')")
    assert scheme == ("slate" if dark else "default")
    bg = page.eval_on_selector("body", "b => getComputedStyle(b).backgroundColor")
    text = page.eval_on_selector(".gloss-chart text", "t => getComputedStyle(t).fill")
    cell = page.eval_on_selector(".gloss-measured td", "t => getComputedStyle(t).color")
    for fg in (text, cell):
        assert abs(_luminance(fg) - _luminance(bg)) > 100, (fg, bg)
    bar = page.eval_on_selector(".gloss-chart .gloss-chart-bar", "r => getComputedStyle(r).fill")
    assert bar != bg and _luminance(bar) != _luminance(bg)
    page.locator(".gloss-measured").first.scroll_into_view_if_needed()
    screenshot(page, f"tiling-{'dark' if dark else 'light'}-table", full_page=False)
    page.locator(".gloss-tl").first.scroll_into_view_if_needed()
    screenshot(page, f"tiling-{'dark' if dark else 'light'}-diagram", full_page=False)


def test_phone_no_horizontal_scroll_and_readable_charts(open_tab: Any, preview_site: Served) -> None:
    page = open_tab(390, 844).page
    for url in PAGES:
        page.goto(preview_site.base + url)
        over = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert over <= 0, (url, over)
        wide = page.evaluate("""() => [...document.querySelectorAll('article *')]
            .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1
                     && !e.closest('.gloss-measured table, pre, .highlighttable, .md-typeset__table, .tabbed-set'))
            .map(e => e.tagName + '.' + e.className).slice(0, 5)""")
        assert wide == [], (url, wide)
    page.goto(preview_site.base + TILING)
    sizes = page.evaluate("""() => [...document.querySelectorAll('svg.gloss-chart text, .gloss-tl svg text')]
        .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)""")
    assert sizes and min(sizes) >= 11, sizes
    # Value labels never cross a ceiling line (every page, every label: test_layout.py).
    crossings = page.evaluate("""() => [...document.querySelectorAll('svg.gloss-chart')].flatMap(svg =>
        [...svg.querySelectorAll('line.gloss-chart-ceiling')].map(l => l.getBoundingClientRect())
          .filter(l => l.width < 1).flatMap(l =>
            [...svg.querySelectorAll('.gloss-chart-value')].map(t => t.getBoundingClientRect())
              .filter(r => r.left < l.left && r.right > l.left && r.top < l.bottom && l.top < r.bottom)
              .map(r => [r.left, r.right, l.left])))""")
    assert crossings == []
    # A wide table scrolls inside its own box, and its rows stay one line high (no cell squeezed into a
    # column of one word per line).
    table = page.locator(".gloss-measured table").first
    assert table.evaluate("t => getComputedStyle(t).overflowX") in ("auto", "scroll")
    heights = page.eval_on_selector_all(".gloss-measured tbody tr",
                                        "rs => rs.map(r => r.getBoundingClientRect().height)")
    assert heights and max(heights) < 80, heights  # two lines at most (209 px without the rules)
    # Code blocks scroll inside themselves.
    code = page.locator("pre > code").first
    assert code.evaluate("c => getComputedStyle(c).overflowX") in ("auto", "scroll")
    screenshot(page, "tiling-phone", full_page=False)
    page.locator(".gloss-measured").first.scroll_into_view_if_needed()
    screenshot(page, "tiling-phone-table", full_page=False)
    page.locator(".gloss-tl").first.scroll_into_view_if_needed()
    screenshot(page, "tiling-phone-diagram", full_page=False)


def test_no_request_leaves_127_0_0_1(open_tab: Any, preview_site: Served) -> None:
    tab = open_tab()
    for url in PAGES:
        tab.page.goto(preview_site.base + url, wait_until="networkidle")
    assert tab.outside() == []
    assert any(u.endswith(".js") for u in tab.requests)
    # The probe sees an outside request when a page makes one.
    tab.page.evaluate("() => { const i = new Image(); i.src = 'https://example.org/x.png'; }")
    tab.page.wait_for_timeout(300)
    assert tab.outside() == ["https://example.org/x.png"]


def test_draft_is_404_when_published_and_bannered_in_preview(
        open_tab: Any, published_site: Served, preview_site: Served) -> None:
    page = open_tab().page
    response = page.goto(published_site.base + TILING)
    assert response is not None and response.status == 404
    response = page.goto(preview_site.base + TILING)
    assert response is not None and response.status == 200
    banner = page.locator(".admonition.warning").first
    assert banner.locator(".admonition-title").inner_text() == "Preview"
    assert "Draft: not published" in banner.inner_text()


def test_tiling_page_weight_budget(open_tab: Any, preview_site: Served) -> None:
    """HTML + CSS + JS + images of the tiling page, as served (uncompressed)."""
    preview_site.log.clear()
    page = open_tab().page
    page.goto(preview_site.base + TILING, wait_until="networkidle")
    kinds = (".html", ".css", ".js", ".svg", ".png", ".jpg", ".webp", "/")
    sent = {p: n for p, code, n in preview_site.log if code == 200 and p.split("?")[0].endswith(kinds)}
    total = sum(sent.values())
    print(f"tiling page weight: {total} bytes in {len(sent)} files")
    assert total <= BUDGET, sorted(sent.items(), key=lambda i: -i[1])[:5]


BUDGET = 600_000


@pytest.mark.parametrize("javascript", [True, False])
def test_a_table_on_two_gpus_switches_tabs_on_a_phone(open_tab: Any, preview_site: Served, javascript: bool) -> None:
    """The H200's tab is open first (the prose quotes it); a tap on the H100's label shows that GPU's own
    provenance and table instead, with or without material's script, and the page never scrolls sideways."""
    page = open_tab(390, 844, javascript=javascript).page
    page.goto(preview_site.base + "/terms/tiling/")
    tabs = page.locator(".gloss-measured-nodes").first
    labels = tabs.locator(".tabbed-labels > label")
    assert labels.all_inner_texts() == ["NVIDIA H200", "NVIDIA H100 80GB HBM3"]
    shown = tabs.locator(".tabbed-block:visible .gloss-measured-provenance")
    assert "on verification node h200-1." in shown.inner_text()
    labels.nth(1).click()
    assert "on verification node h100-1." in shown.inner_text()
    assert tabs.locator(".tabbed-block:visible table").count() == 1
    assert page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth") <= 0
    assert page.locator(".gloss-figures-node").inner_text() == "Figures in the text: NVIDIA H200 (h200-1)."
    screenshot(page, f"tiling-two-gpus-390{'' if javascript else '-nojs'}", full_page=False)
