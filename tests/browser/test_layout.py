"""Every page of the real site (preview: drafts shown) as a reader meets it at 390 px and at 1,400 px:
no sideways scrolling of the page, tables that scroll inside their own box with no column out of reach,
chart labels that no line or other label crosses (real bounding boxes), no front-matter text on the page;
search that finds identifiers by their parts; a keyboard focus ring that shows on every diagram control;
an empty published site that says why."""

from __future__ import annotations

import functools
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browserkit import Served, screenshot

pytestmark = pytest.mark.browser

ROOT = Path(__file__).parents[2]
WIDTHS = (390, 1400)

# The keys an entry's or a generated page's front matter may carry; a line of page text that starts
# with one of them and a colon is front matter that leaked into the page.
FRONT_MATTER_KEYS = ("title", "definition", "related", "lessons", "sources", "diagram", "code", "search",
                     "exclude", "hide", "boost", "day", "summary", "introduces", "template", "status")

PAGE_JS = """([keys, tab]) => {
  // A table embed on several GPUs shows one tab at a time: open tab number `tab` of every such set (the
  // others are not laid out, so their boxes say nothing); the caller goes through every tab number.
  for (const set of document.querySelectorAll('.tabbed-set')) {
    const inputs = set.querySelectorAll(':scope > input');
    if (inputs[tab]) inputs[tab].checked = true;
  }
  const out = {overflow: document.scrollingElement.scrollWidth - window.innerWidth, tables: [], charts: [],
               leaks: [], small: []};
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const grow = (r, d) => ({left: r.left - d, right: r.right + d, top: r.top - d, bottom: r.bottom + d});
  const article = document.querySelector('article');
  if (!article) return out;
  // Tables (not code line-number tables, which scroll inside their <pre>): the nearest box that scrolls
  // sideways, and no box on the way that clips; scrolled to its end, the last column lies inside it.
  for (const t of article.querySelectorAll('table:not(.highlighttable)')) {
    if (!t.getClientRects().length) continue;  // in a closed tab
    let box = null;
    for (let e = t; e && e !== article; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX;
      if (o === 'auto' || o === 'scroll') { box = e; break; }
      if (o === 'hidden' || o === 'clip') {
        if (e.scrollWidth > e.clientWidth + 1) out.tables.push(['clipped by', e.tagName + '.' + e.className]);
      }
    }
    // (The body's cells: a table that stacks its rows keeps its header row for screen readers only.)
    const cells = t.querySelectorAll('tbody tr > :last-child');
    if (!cells.length) continue;
    const frame = (box || article).getBoundingClientRect();
    if (box) box.scrollLeft = box.scrollWidth;
    const r = cells[0].getBoundingClientRect();
    if (r.right > frame.right + 1) out.tables.push(['last column out of reach', t.caption ? t.caption.textContent : '',
                                                    Math.round(r.right), Math.round(frame.right)]);
    if (box) box.scrollLeft = 0;
  }
  // Charts: every text against every line and every other text, and inside the chart.
  for (const svg of article.querySelectorAll('svg.gloss-chart')) {
    if (!svg.getClientRects().length) continue;  // in a closed tab
    const s = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()]);
    const lines = [...svg.querySelectorAll('line')]
      .map(l => [l.getAttribute('class'), grow(l.getBoundingClientRect(), 0.5)]);
    texts.forEach(([text, r], i) => {
      if (r.left < s.left - 0.5 || r.right > s.right + 0.5) out.charts.push([text, 'the chart edge']);
      for (const [cls, l] of lines) if (meets(r, l)) out.charts.push([text, cls]);
      for (const [other, q] of texts.slice(i + 1)) if (meets(r, q)) out.charts.push([text, other]);
    });
    for (const t of svg.querySelectorAll('text')) {  // the font size in user units, as drawn on screen
      const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
      if (px < 11) out.small.push([t.textContent, px]);
    }
  }
  for (const t of article.querySelectorAll('.gloss-tl svg text')) {  // the diagram's text too
    const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
    if (px < 11) out.small.push([t.textContent, px]);
  }
  // Front matter shown as text (e.g. "search: exclude: true" rendered as a heading or a paragraph).
  const key = new RegExp('^\\\\s*(' + keys.join('|') + ')\\\\s*:(\\\\s|$)');
  for (const e of article.querySelectorAll('p, li, h1, h2, h3, h4, h5, h6, td, th, dt, dd')) {
    if (e.closest('pre, code, .highlight')) continue;
    for (const line of e.innerText.split('\\n')) if (key.test(line)) out.leaks.push(line.trim());
  }
  return out;
}"""


def _pages(site: Served) -> list[str]:
    found = sorted(p.relative_to(site.root).parent.as_posix() for p in site.root.rglob("index.html"))
    return ["/" if p == "." else f"/{p}/" for p in found]


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_its_tables_scroll_and_chart_labels_are_clear(
        open_tab: Any, preview_site: Served, width: int) -> None:
    page = open_tab(width, 900).page
    pages = _pages(preview_site)
    assert len(pages) >= 30 and "/terms/tiling/" in pages  # the whole real site, not a sample
    problems: dict[str, dict[str, Any]] = {}
    charts = 0
    for url in pages:
        page.goto(preview_site.base + url)
        charts += page.locator("article svg.gloss-chart").count()
        tabs = page.evaluate("Math.max(1, ...[...document.querySelectorAll('.tabbed-set')]"
                             ".map(s => s.querySelectorAll(':scope > input').length))")
        for tab in range(tabs):  # every GPU's tab of every table embed, in turn
            found = page.evaluate(PAGE_JS, [list(FRONT_MATTER_KEYS), tab])
            bad = {k: v for k, v in found.items() if (v > 0 if k == "overflow" else v) and k != "leaks"}
            if width > 400:
                bad.pop("small", None)  # the text-size floor is for the phone
            if bad:
                problems[url if tab == 0 else f"{url} (tab {tab + 1})"] = bad
    assert charts >= 10
    assert problems == {}


def test_no_front_matter_shows_as_text_on_any_page(open_tab: Any, preview_site: Served) -> None:
    page = open_tab(1400, 900).page
    leaks = {}
    for url in _pages(preview_site):
        page.goto(preview_site.base + url)
        found = page.evaluate(PAGE_JS, [list(FRONT_MATTER_KEYS), 0])["leaks"]
        if found:
            leaks[url] = found
    assert leaks == {}


OPEN_TAB_JS = """(tab) => { for (const set of document.querySelectorAll('.tabbed-set')) {
  const inputs = set.querySelectorAll(':scope > input'); if (inputs[tab]) inputs[tab].checked = true; } }"""
TABLES_JS = """() => {
  // Every measurement table on the page (every GPU's tab opened in turn by the caller): does it fit its
  // column with nothing to scroll, and does every cell a reader needs (the kernel's name, each figure,
  // each note number) show inside the column with a box of its own?
  const out = [];
  const article = document.querySelector('article');
  const frame = article.getBoundingClientRect();
  for (const t of article.querySelectorAll('.gloss-measured table')) {
    if (!t.getClientRects().length) continue;  // in a closed tab
    const name = t.caption ? t.caption.textContent : '';
    for (let e = t; e && e !== article; e = e.parentElement)
      if (e.scrollWidth > e.clientWidth + 1) out.push([name, 'scrolls sideways', e.tagName + '.' + e.className]);
    for (const td of t.querySelectorAll('tbody td')) {
      const r = td.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) out.push([name, 'hidden cell', td.textContent]);
      else if (r.left < frame.left - 1 || r.right > frame.right + 1)
        out.push([name, 'cell outside the column', td.textContent, Math.round(r.right), Math.round(frame.right)]);
    }
    // A stacked row names each figure: its label is the column's header, word for word.
    const heads = [...t.querySelectorAll('thead th')].map(th => th.textContent);
    for (const tr of t.querySelectorAll('tbody tr')) {
      const labels = [...tr.querySelectorAll('td')].slice(1).map(td => td.dataset.label);
      if (JSON.stringify(labels) !== JSON.stringify(heads.slice(1))) out.push([name, 'labels', labels, heads]);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_every_table_fits_its_column_and_shows_every_cell(open_tab: Any, preview_site: Served, width: int) -> None:
    """At 1,400 px and at 390 px, on every page and every GPU's tab: no measurement table scrolls sideways,
    and the kernel names, figures and note numbers all show inside the column (a table too wide for its
    column stacks its rows, each figure under its column's name)."""
    page = open_tab(width, 900).page
    problems: dict[str, list[Any]] = {}
    tables = stacked = 0
    for url in _pages(preview_site):
        page.goto(preview_site.base + url)
        tabs = page.evaluate("Math.max(1, ...[...document.querySelectorAll('.tabbed-set')]"
                             ".map(s => s.querySelectorAll(':scope > input').length))")
        for tab in range(tabs):
            page.evaluate(OPEN_TAB_JS, tab)
            found = page.evaluate(TABLES_JS)
            if found:
                problems[f"{url} (tab {tab + 1})"] = found
            shown = page.eval_on_selector_all(
                ".gloss-measured table", "ts => ts.filter(t => t.getClientRects().length)"
                ".map(t => getComputedStyle(t.querySelector('thead')).position)")
            tables += len(shown)
            stacked += shown.count("absolute")
    assert problems == {}
    assert tables >= 60  # the whole real site
    # The narrow layout is exercised at both widths (the widest tables stack even on a desktop), and
    # most tables are plain tables on a desktop.
    assert stacked > 0
    if width > 400:
        assert stacked < tables / 4, (stacked, tables)
    else:
        assert stacked > tables / 2, (stacked, tables)


def test_a_stacked_row_names_each_figure_on_a_phone(open_tab: Any, preview_site: Served) -> None:
    """At 390 px the day-16 ladder's rows stack: the kernel's name on its own line, then each figure under
    its column's name, the note number included; at 1,400 px it is a plain table with its headers."""
    page = open_tab(390, 844).page
    page.goto(preview_site.base + "/lessons/day16-matmul/")
    table = page.locator(".tabbed-block:visible .gloss-measured table").filter(
        has=page.locator("th", has_text="% of cuBLAS SGEMM")).first
    row = table.locator("tbody tr").first
    cells = row.locator("td")
    assert cells.first.inner_text() == "naive"
    labels = cells.evaluate_all("ts => ts.map(t => getComputedStyle(t, '::before').content)")
    assert labels[:4] == ['none', '"Time (ms)"', '"GFLOP/s"', '"% of cuBLAS SGEMM"'] and labels[-1] == '"Note"'
    name, time = cells.nth(0).bounding_box(), cells.nth(1).bounding_box()
    assert name and time and time["y"] >= name["y"] + name["height"] - 1  # the figures under the name
    assert table.locator("thead").evaluate("h => getComputedStyle(h).position") == "absolute"
    table.scroll_into_view_if_needed()
    screenshot(page, "day16-phone-stacked-table", full_page=False)
    page.set_viewport_size({"width": 1400, "height": 900})
    assert table.locator("thead").evaluate("h => getComputedStyle(h).position") == "static"
    assert table.locator("thead th").first.is_visible()
    assert cells.nth(1).evaluate("t => getComputedStyle(t, '::before').content") == "none"
    screenshot(page, "day16-desktop-table", full_page=False)


# --- search --------------------------------------------------------------------------------------------

def _search(page: Any, site: Served, query: str) -> list[str]:
    page.goto(site.base + "/")
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially(query, delay=20)  # typed, as a reader does: the search runs on key events
    page.locator(".md-search-result__item a").first.wait_for()
    hrefs = page.eval_on_selector_all(".md-search-result__item a", "as => as.map(a => a.getAttribute('href'))")
    return [h.split("?")[0].split("#")[0].removeprefix(site.base) for h in hrefs]


@pytest.mark.parametrize(("query", "shown"), [("syncthreads", "__syncthreads"), ("memcpy", "memcpy")])
def test_search_finds_identifiers_by_their_parts_on_the_real_site(
        open_tab: Any, preview_site: Served, query: str, shown: str) -> None:
    found = _search(open_tab().page, preview_site, query)
    first = preview_site.root / found[0].strip("/") / "index.html"
    # the page that owns the name shows it in some casing (cudaMemcpy, cudaMemcpyAsync for "memcpy")
    assert shown.lower() in first.read_text(encoding="utf-8").lower(), found[:3]
    if query == "syncthreads":
        assert found[0] == "/terms/barrier/"


IDENTIFIERS = """---
title: What is an asynchronous copy?
definition: An asynchronous copy lets the host queue a transfer and go on.
---

The host calls `cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, stream)`, and inside a kernel the
threads wait at `__syncthreads()`.
"""


@pytest.fixture(scope="module")
def identifiers_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A tiny site with the real mkdocs.yml (its search settings) and one page of identifiers."""
    from sitekit import build_site, make_site
    from tinyproject import project

    files = project()
    files["content/terms/async-copy.md"] = IDENTIFIERS
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    files["mkdocs.yml"] = config.replace("  - gloss:\n", "  - gloss:\n      preview: true\n")
    root = build_site(make_site(tmp_path_factory.mktemp("identifiers") / "p", files), strict=False)
    served = Served(root)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    served.base = f"http://127.0.0.1:{server.server_address[1]}"
    yield served
    server.shutdown()
    server.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("query", ["memcpy", "Memcpy", "MemcpyAsync", "cudaMemcpyAsync", "syncthreads",
                                   "__syncthreads", "__syncthreads()"])
def test_search_splits_camel_case_and_underscores(open_tab: Any, identifiers_site: Served, query: str) -> None:
    assert _search(open_tab().page, identifiers_site, query)[0] == "/terms/async-copy/"


# --- the diagram's keyboard focus and fit --------------------------------------------------------------

def _rgb(css: str, over: tuple[float, ...] = (255.0, 255.0, 255.0)) -> tuple[float, ...]:
    """A computed CSS colour as drawn over the colour ``over`` (alpha composited)."""
    nums = [float(x) for x in re.findall(r"[\d.]+", css)[:4]]
    alpha = nums[3] if len(nums) == 4 else 1.0
    return tuple(c * alpha + o * (1 - alpha) for c, o in zip(nums[:3], over, strict=True))


def _contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG contrast ratio of two sRGB colours."""
    def lum(c: tuple[float, ...]) -> float:
        lin = [(v / 255 / 12.92) if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_diagram_focus_is_visible_and_controls_fit(open_tab: Any, preview_site: Served, width: int,
                                                   dark: bool) -> None:
    page = open_tab(width, 900, dark=dark).page
    page.goto(preview_site.base + "/terms/tiling/")
    fig = page.locator(".gloss-tl").first
    controls = fig.locator("input, button")
    n = controls.count()
    assert n == 6  # slider, previous, three steps, next
    fig_box = fig.bounding_box()
    assert fig_box is not None
    tops = set()
    for i in range(n):
        box = controls.nth(i).bounding_box()
        assert box is not None
        assert fig_box["x"] - 1 <= box["x"] and box["x"] + box["width"] <= fig_box["x"] + fig_box["width"] + 1, i
        if i:
            tops.add(round(box["y"]))
    assert len(tops) == 1, tops  # previous, the steps and next stay on one row, also at 390 px
    page_bg = _rgb(page.eval_on_selector("body", "b => getComputedStyle(b).backgroundColor"))
    controls.nth(0).focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # reached by the keyboard, so :focus-visible applies
    for i in range(n):
        style = controls.nth(i).evaluate(
            "e => { const s = getComputedStyle(e); return [document.activeElement === e, s.outlineStyle, "
            "parseFloat(s.outlineWidth), s.outlineColor, s.backgroundColor]; }")
        focused, line, w, ring, own_bg = style
        assert focused and line != "none" and w >= 2, (i, style)
        # The ring differs from the page around it and from the control it surrounds (the pressed step
        # is accent-filled: a ring in the accent colour vanished against it).
        # The ring (outside the control, on the page) stands out from the page by WCAG's 3:1 for focus
        # indicators, and is not the control's own fill: an accent ring round the accent-filled pressed
        # step read as part of the button.
        seen = _rgb(ring, page_bg)
        assert _contrast(seen, page_bg) >= 3, (i, ring, page_bg)
        fill = _rgb(own_bg, page_bg)
        assert sum(abs(x - y) for x, y in zip(seen, fill, strict=True)) > 90, (i, ring, own_bg)
        page.keyboard.press("Tab")
    fig.scroll_into_view_if_needed()
    screenshot(page, f"tiling-diagram-{width}-{'dark' if dark else 'light'}", full_page=False)


# --- an empty published site says why -----------------------------------------------------------------

def test_an_empty_published_site_says_why_on_its_home_page(open_tab: Any, published_site: Served) -> None:
    page = open_tab(390, 844).page
    page.goto(published_site.base + "/")
    entries = len(list((ROOT / "content/terms").glob("*.md"))) + len(list((ROOT / "content/lessons").glob("*.md")))
    notice = page.locator(".gloss-unpublished")
    assert notice.is_visible()
    assert notice.locator(".admonition-title").inner_text() == "Nothing is published yet"
    text = notice.inner_text()
    assert f"None of the {entries} entries (terms and lessons) has been signed" in text
    assert text.endswith("Each entry appears here once its author and a reviewer have both signed it.")
    assert "make preview" not in text
