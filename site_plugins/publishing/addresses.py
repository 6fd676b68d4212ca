"""Addresses the build keeps for the pages it generates: an entry whose file would be served there is refused.

An entry is served at its docs path (``terms/x.md`` at ``terms/x/``). The build generates pages of its own
(the A–Z and its letter pages, the lesson index, the Measurements page, the code pages), and an entry at one
of their addresses, or above one (``terms/letters.md`` holds ``terms/letters/a/``), would replace or shadow
them. What is generated is asked of the generators, never listed by hand: the letter pages' namespace is
:data:`site_plugins.nav.sections.LETTER_PAGES` (any address under it is theirs, present or not yet), and the
build's own generated pages (``Build.pages``) are compared once they exist.
"""

from __future__ import annotations

from collections.abc import Collection

from site_plugins.files.messages import Problem
from site_plugins.nav import sections as nav

CLASH = "its address "


def _address(uri: str) -> str:
    """Where a docs path is served, as one spelling (directory URLs; letter case folded)."""
    stem = uri.casefold().removesuffix(".md")
    return stem.removesuffix("/index") if stem != "index" else ""


def clash(src_uri: str, generated: Collection[str]) -> str | None:
    """What the build generates at or under the address of the entry ``src_uri``, or None. The letter pages
    are a namespace of their generator (site_plugins.nav.sections): any address under it is theirs, present
    or not yet."""
    mine = _address(src_uri)
    letters = _address(f"{nav.LETTER_PAGES}/index.md")
    if mine == letters or mine.startswith(letters + "/"):
        return f"the A–Z letter pages, which the build generates under {nav.LETTER_PAGES}/"
    for uri in sorted(generated):
        theirs = _address(uri)
        if theirs == mine or theirs.startswith(mine + "/"):
            return f"the page the build generates for {uri}"
    return None


def problem(path: str, src_uri: str, clash: str) -> Problem:
    shown = src_uri.removesuffix(".md").removesuffix("/index")
    return Problem(path, 1, f"{CLASH}{shown}/ is taken by {clash}, so the entry is not published",
                   "rename the file (its name is the entry's slug and address)")
