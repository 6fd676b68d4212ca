"""Built navigation: a page carries the sections, the letters and its own letter, and every term stays
within two clicks of any page."""

from __future__ import annotations

import re
from pathlib import Path

from scalekit import links, make, primary_nav, term_name, term_slug
from sitekit import build_site

N = 60


def test_a_term_page_carries_its_letter_not_every_term(tmp_path: Path) -> None:
    site = build_site(make(tmp_path, N, preview=True, nav_max_terms=4))
    # "shared case 14" and "shuffle case 15": S is large, so its terms are cut into runs of at most 4.
    html = (site / f"terms/{term_slug(14)}/index.html").read_text(encoding="utf-8")
    nav = links(site, f"terms/{term_slug(14)}/", primary_nav(html))
    terms_in_nav = {u for u in nav if re.fullmatch(r"terms/t\d{4}/", u)}
    s_terms = sorted((term_name(i), i) for i in range(N) if term_name(i).startswith("s"))
    runs = [s_terms[k:k + 4] for k in range(0, len(s_terms), 4)]  # 10 terms: runs of 4, 4 and 2
    own = next(r for r in runs if (term_name(14), 14) in r)
    # Its own run's terms, and each other run of S as one link (to that run's first term).
    expected = {f"terms/{term_slug(i)}/" for _, i in own} | {f"terms/{term_slug(r[0][1])}/" for r in runs}
    assert terms_in_nav == expected
    letters = {u for u in nav if u.startswith("terms/letters/")}
    assert "terms/letters/other/" in letters and "terms/letters/a/" in letters and len(letters) >= 15
    assert {"", "terms/", "lessons/"} <= nav
    # A run of another letter is one link in the navigation, not its terms.
    other = (site / "terms/letters/w/index.html").read_text(encoding="utf-8")
    assert term_name(20) in other and "What is warp case 20?" not in primary_nav(html)


def test_every_term_is_within_two_clicks_of_every_page(tmp_path: Path) -> None:
    site = build_site(make(tmp_path, N, preview=True, nav_max_terms=4))
    pages = {p.parent.relative_to(site).as_posix() + "/" for p in site.rglob("index.html")}
    pages = {"" if p == "./" else p for p in pages}
    terms = {f"terms/{term_slug(i)}/" for i in range(N)} | {"terms/tiling/", "terms/bank-conflict/"}
    assert terms <= pages
    out = {p: links(site, p) for p in pages}
    for page in pages:
        reach = set(out[page])
        for one in out[page] & pages:
            reach |= out[one]
        assert not terms - reach, f"{page}: {sorted(terms - reach)[:3]} more than two clicks away"


def test_letter_pages_list_each_term_once_under_its_letter(tmp_path: Path) -> None:
    site = build_site(make(tmp_path, N, preview=True))
    listed = []
    for page in sorted((site / "terms/letters").glob("*/index.html")):
        html = page.read_text(encoding="utf-8")
        listed += re.findall(r'href="\.\./\.\./(t\d{4}|tiling|bank-conflict)/"', html.split('<article', 1)[1])
    assert sorted(listed) == sorted([term_slug(i) for i in range(N)] + ["tiling", "bank-conflict"])


def test_a_large_letter_lists_its_runs_and_each_run_has_a_page(tmp_path: Path) -> None:
    # One term per run: S (shared, shuffle, stream, stride: 10 terms) has more runs than a page lists.
    site = build_site(make(tmp_path, N, preview=True, nav_max_terms=1))
    s_terms = sorted((term_name(i), i) for i in range(N) if term_name(i).startswith("s"))
    s_page = site / "terms/letters/s/index.html"
    body = s_page.read_text(encoding="utf-8").split("<article", 1)[1]
    runs = re.findall(r'href="(\d+)/"', body)
    assert runs == [str(k) for k in range(1, len(s_terms) + 1)]
    listed = []
    for k, (_name, i) in enumerate(s_terms, start=1):
        run = (site / f"terms/letters/s/{k}/index.html").read_text(encoding="utf-8")
        listed += re.findall(r'href="\.\./\.\./\.\./(t\d{4})/"', run.split("<article", 1)[1])
        # A term's own run section opens with the run's page.
        html = (site / f"terms/{term_slug(i)}/index.html").read_text(encoding="utf-8")
        assert f"terms/letters/s/{k}/" in links(site, f"terms/{term_slug(i)}/", primary_nav(html))
    assert listed == [term_slug(i) for _, i in s_terms]
    az = (site / "terms/index.html").read_text(encoding="utf-8").split("<article", 1)[1]
    assert f'<a href="letters/s/">S</a>, {len(s_terms)} terms' in az
    assert az.count('href="t0') <= 12 * 26  # the A-Z page names up to 12 terms a letter, not every term


def test_every_term_is_within_three_clicks_when_letters_are_split(tmp_path: Path) -> None:
    site = build_site(make(tmp_path, N, preview=True, nav_max_terms=1))
    pages = {p.parent.relative_to(site).as_posix() + "/" for p in site.rglob("index.html")}
    pages = {"" if p == "./" else p for p in pages}
    terms = {f"terms/{term_slug(i)}/" for i in range(N)} | {"terms/tiling/", "terms/bank-conflict/"}
    out = {p: links(site, p) for p in pages}
    for page in ("", "terms/", f"terms/{term_slug(0)}/", "lessons/"):
        reach = set(out[page])
        for _ in range(2):
            reach |= {u for one in reach & pages for u in out[one]}
        assert not terms - reach, f"{page}: {sorted(terms - reach)[:3]} more than three clicks away"
