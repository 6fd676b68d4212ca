"""A faster reading of plain tags for :class:`html.parser.HTMLParser`, with the same result.

The audit parses every page of a built site, and most of its time went to ``HTMLParser.parse_starttag``
(a tolerant regex per attribute, for tags that are almost all plain: ``<a href="x" class="y">``). This
mixin reads a start or end tag that matches a strict grammar with one compiled expression and calls the
same handlers with the same values (tag and attribute names lower-cased, quotes removed, character
references resolved, ``None`` for an attribute without a value, ``/>`` as a start-end tag, script and
style bodies as raw text); any tag outside that grammar (unusual spacing, ``==``, odd characters, a tag
not yet complete) goes to HTMLParser's own code. So a hostile page is read exactly as before, and a plain
one in a fraction of the time. ``tests/failclosed/test_fasttags.py`` holds both readings equal, page by
page, on built sites and on hand-made odd markup.
"""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

_NAME = r"[a-zA-Z][a-zA-Z0-9-]*"
_ATTR = r"""[ \t\n]+[a-zA-Z_:@][-a-zA-Z0-9_:.@]*(?:="[^"<]*"|='[^'<]*'|=[a-zA-Z0-9_.:/#-]+)?"""
_START = re.compile(rf"<({_NAME})((?:{_ATTR})*)[ \t\n]*(/?)>")
_ONE_ATTR = re.compile(r"""[ \t\n]+([a-zA-Z_:@][-a-zA-Z0-9_:.@]*)(?:=("[^"<]*"|'[^'<]*'|[a-zA-Z0-9_.:/#-]+))?""")
_END = re.compile(r"</([a-zA-Z][-.a-zA-Z0-9:_]*)>")


class FastTags(HTMLParser):
    """Mix in before (or instead of) HTMLParser: plain tags read by one expression each."""

    def parse_starttag(self, i: int) -> int:
        rawdata = self.rawdata
        m = _START.match(rawdata, i)
        if m is None:
            return int(super().parse_starttag(i))
        tag = m.group(1).lower()
        attrs: list[tuple[str, str | None]] = []
        if m.group(2):
            for a in _ONE_ATTR.finditer(m.group(2)):
                value = a.group(2)
                if value is not None:
                    if value[:1] in ("'", '"'):
                        value = value[1:-1]
                    if value and "&" in value:
                        value = unescape(value)
                attrs.append((a.group(1).lower(), value))
        self._HTMLParser__starttag_text = m.group(0)  # (as HTMLParser keeps it, for get_starttag_text)
        self.lasttag = tag
        if m.group(3):
            self.handle_startendtag(tag, attrs)
        else:
            self.handle_starttag(tag, attrs)
            if tag in self.CDATA_CONTENT_ELEMENTS:
                self.set_cdata_mode(tag)
        return m.end()

    def parse_endtag(self, i: int) -> int:
        m = _END.match(self.rawdata, i)
        if m is None or self.cdata_elem is not None:
            return int(super().parse_endtag(i))
        self.handle_endtag(m.group(1).lower())
        self.clear_cdata_mode()
        return m.end()
