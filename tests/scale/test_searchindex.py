"""Material's search records after the plugin has moved a term page's boost onto the page's own record."""

from __future__ import annotations

from typing import Any

import pytest

from site_plugins.publishing.searchindex import boost_title_only

OTHER = {"location": "lessons/day13/#tiles", "title": "Tiles", "text": "", "boost": 5}


@pytest.mark.parametrize(("records", "expected", "dropped"), [
    # the page's own record keeps it, its sections lose it
    ([{"location": "terms/tiling/", "boost": 5}, {"location": "terms/tiling/#why", "boost": 5}],
     [{"location": "terms/tiling/", "boost": 5}, {"location": "terms/tiling/#why"}], 1),
    # an earlier page's records are left alone, even with the same prefix
    ([OTHER, {"location": "terms/tiling-2/#a", "boost": 5}, {"location": "terms/tiling/"},
      {"location": "terms/tiling/#a", "boost": 5}],
     [OTHER, {"location": "terms/tiling-2/#a", "boost": 5}, {"location": "terms/tiling/"},
      {"location": "terms/tiling/#a"}], 1),
    # nothing of the page indexed (search: exclude): nothing changes
    ([OTHER], [OTHER], 0),
    ([], [], 0),
])
def test_boost_title_only(records: list[dict[str, Any]], expected: list[dict[str, Any]], dropped: int) -> None:
    records = [dict(r) for r in records]
    assert boost_title_only(records, "terms/tiling/") == dropped
    assert records == expected
