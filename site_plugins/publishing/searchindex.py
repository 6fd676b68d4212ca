"""What the plugin changes in material's search index after material has indexed a page.

A term's page is boosted so that a search for its name ranks its entry above a page that only mentions
it (or a code page whose file name repeats its words). Material copies a page's boost onto every section
record of the page; only the page's own record (its title and lede) needs it, and the copies cost ten
bytes a section in the index every reader downloads.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any


def boost_title_only(entries: MutableSequence[dict[str, Any]], location: str) -> int:
    """Drop ``boost`` from the section records of the page at ``location`` (``terms/x/#section``), which
    material has just appended to ``entries``; the page's own record keeps it. Returns how many were dropped."""
    dropped = 0
    for entry in reversed(entries):
        at = entry.get("location")
        if not isinstance(at, str) or not (at == location or at.startswith(location + "#")):
            break  # the page's records are the last ones appended
        if at != location and entry.pop("boost", None) is not None:
            dropped += 1
    return dropped
