"""Bounded JSON reading: every bad file is one problem with its line, never a traceback or a hang."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_plugins.files import safejson

DEEP = "this is not a file the project writes; restore it from git or re-create it"


@pytest.mark.timeout(10)  # hang guard; the bound itself is the depth cap, asserted by the message
@pytest.mark.parametrize(("text", "message"), [
    ("[" * 100_000, f"r.json:1: JSON nested more than 64 levels deep; {DEEP}"),
    ('{"a":\n' + "[" * 63 + "]" * 63 + ',\n "b": ' + "{" * 70,
     f"r.json:3: JSON nested more than 64 levels deep; {DEEP}"),
    ('{"a": 1,\n "b": {"a": 2},\n "a": 3}', 'r.json:3: key "a" appears twice in one JSON object; keep only one'),
    ('{"a": 1, "\\u0061": 2}', 'r.json:1: key "a" appears twice in one JSON object; keep only one'),
    ('{\n"a": [1, 2,]}', "r.json:2: not valid JSON: Expecting value (column 12); fix the JSON at this line"),
    ('{"a": "open', "r.json:1: not valid JSON: Unterminated string starting at (column 7); "
                     "fix the JSON at this line"),
    ("[" + "9" * 5000 + "]", "r.json:1: not valid JSON: Exceeds the limit (4300 digits) for integer string "
                             "conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase "
                             "the limit; fix the JSON at this line"),
])
def test_refused(text: str, message: str) -> None:
    data, problems = safejson.loads(text, "r.json")
    assert data is None and [str(p) for p in problems] == [message]


def test_brackets_and_keys_inside_strings_are_text() -> None:
    text = '{"s": "[[[[{{{ \\"a\\": ", "a": [{"a": 1}, {"a": 2}]}'
    assert safejson.loads(text, "r.json") == ({"s": '[[[[{{{ "a": ', "a": [{"a": 1}, {"a": 2}]}, [])
    assert safejson.loads("[" * 64 + "]" * 64, "r.json")[1] == []


def test_files(tmp_path: Path) -> None:
    f = tmp_path / "r.json"
    f.write_bytes(b'{"a": "caf\xe9"}')
    assert [str(p) for p in safejson.read(f, "r.json")[1]] == [
        "r.json:1: not UTF-8 text (byte 0xe9 at column 11); save the file as UTF-8"]
    f.write_text('{"a": 1}')
    assert [str(p) for p in safejson.read(f, "r.json", max_bytes=4)[1]] == [
        "r.json:1: the file is 8 bytes, over the limit of 4; split it up or remove what does not belong there"]
    assert safejson.read(f, "r.json") == ({"a": 1}, [])
