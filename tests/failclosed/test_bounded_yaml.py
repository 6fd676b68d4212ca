"""The YAML loader and text reader stay within bounds: every bad input is one problem with its line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from site_plugins.content import region_problems, regions
from site_plugins.files import schema, textfile

# A tenth of a kilobyte that would expand to 9**10 (3.4 billion) values.
BOMB = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 11))


def problems(text: str, **kw: bool) -> list[str]:
    return [str(p) for p in schema.parse_yaml(text, "f.yaml", **kw)[1]]


@pytest.mark.timeout(10)  # a hang guard only; the bound is the cap, asserted below
@pytest.mark.parametrize(("text", "message"), [
    ("x: &a [*a]\n", "f.yaml:1: YAML anchor '&a' is not allowed here; remove it and write each value out in full"),
    ("x: 1\ny: *a\n", "f.yaml:2: YAML alias '*a' is not allowed here; write the value out in full"),
    (BOMB, "f.yaml:1: YAML anchor '&a0' is not allowed here; remove it and write each value out in full"),
    ("[" * 100_000, "f.yaml:1: the YAML is nested more than 32 levels deep; "
                    "flatten it; no key here needs that much nesting"),
    ("".join(" " * i + f"k{i}:\n" for i in range(100)),
     "f.yaml:32: the YAML is nested more than 32 levels deep; flatten it; no key here needs that much nesting"),
    ("a: 1\nb: \x07\n", "f.yaml:2: control character U+0007 at column 4; "
                        "delete it (only tab and newline may appear in text)"),
    ('a: 1\nb: "open\nc: 2\nd: 3\n', "f.yaml:2: malformed YAML: a quoted string is never closed; "
                                     "add the closing quote on this line"),
    ("a: 1\nb: 'open\n\nc: 2\n", "f.yaml:2: malformed YAML: a quoted string is never closed; "
                                 "add the closing quote on this line"),
])
def test_refused(text: str, message: str) -> None:
    assert problems(text) == [message]


@pytest.mark.timeout(10)
def test_aliases_where_allowed_are_never_cyclic_and_capped_in_size() -> None:
    assert problems("x: &a [*a]\n", allow_aliases=True) == [
        "f.yaml:1: YAML alias '*a' refers to the value that holds it; remove the alias; a value cannot contain itself"]
    assert problems(BOMB, allow_aliases=True) == [
        "f.yaml:1: the YAML expands to more than 100,000 values through its aliases; "
        "write the values out instead of nesting aliases"]
    node, found = schema.parse_yaml("a: &a [1, 2]\nb: *a\n", "f.yaml", allow_aliases=True)
    assert found == [] and node is not None
    # The cap is counted, not the expansion walked: the bomb's count stops just past the limit.
    tree = yaml.compose(BOMB, Loader=yaml.SafeLoader)
    assert schema.expanded_size(tree) == schema.MAX_EXPANDED_NODES + 1


def test_front_matter_lines_are_file_lines() -> None:
    assert [str(p) for p in schema.parse_yaml('a: "x\n', "t.md", first_line=2)[1]] == [
        "t.md:2: malformed YAML: a quoted string is never closed; add the closing quote on this line"]


@pytest.mark.parametrize(("raw", "message"), [
    (b"ok\nbad \xe9t\xe9\n", "t.md:2: not UTF-8 text (byte 0xe9 at column 5); save the file as UTF-8"),
    (b"\x89PNG\r\n\x1a\n", "t.md:1: not UTF-8 text (byte 0x89 at column 1); save the file as UTF-8"),
    (b"a\nb\nc\x00d\n", "t.md:3: control character U+0000 at column 2; "
                        "delete it (only tab and newline may appear in text)"),
])
def test_text_decoding(raw: bytes, message: str) -> None:
    text, found = textfile.decode(raw, "t.md")
    assert text is None and [str(p) for p in found] == [message]


def test_bom_and_size(tmp_path: Path) -> None:
    assert textfile.decode(b"\xef\xbb\xbfhello\n", "t.md") == ("hello\n", [])
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * 100)
    assert [str(p) for p in textfile.read(big, "big.md", max_bytes=99)[1]] == [
        "big.md:1: the file is 100 bytes, over the limit of 99; split it up or remove what does not belong there"]


@pytest.mark.parametrize(("text", "message"), [
    ("day: !!int abc\n", "f.yaml:1: 'day' is not a valid whole number: 'abc'; write day as a whole number"),
    ("day: " + "9" * 5000 + "\n", "f.yaml:1: 'day' is not a valid whole number: '" + "9" * 39 + "... "
                                   "(5,002 characters); write day as a whole number"),
    ("day: !!python/name:os.system x\n", "f.yaml:1: 'day' must be a whole number, got a value tagged "
                                           "!!python/name:os.system; write day as a whole number"),
    ("day: !local 3\n", "f.yaml:1: 'day' must be a whole number, got a value tagged !local; "
                         "write day as a whole number"),
])
def test_scalars_that_do_not_construct_are_type_problems(text: str, message: str) -> None:
    from dataclasses import dataclass

    @dataclass
    class Day:
        day: int

    node, found = schema.parse_yaml(text, "f.yaml")
    assert found == []
    value, found = schema.build(Day, node, "f.yaml")
    assert value is None and [str(p) for p in found] == [message]


def test_region_markers_pair_up() -> None:
    source = ("// --8<-- [start:a]\nx\n// --8<-- [end:a]\n// --8<-- [start:a]\ny\n// --8<-- [end:a]\n"
              "// --8<-- [end:b]\n// --8<-- [start:c]\n")
    assert [str(p) for p in region_problems(source, "code/k.cu")] == [
        "code/k.cu:4: region 'a' is marked again (first at line 1); give each region in a file its own name",
        "code/k.cu:7: region 'b' ends but never starts; add // --8<-- [start:b] above it, or remove this line",
        "code/k.cu:8: region 'c' starts but never ends; add // --8<-- [end:c] where it ends",
    ]
    assert regions(source) == {"a": (2, 2)}  # the first keeps the name


def test_a_text_file_is_read_whole_up_to_the_limit_and_not_past_it(tmp_path: Path) -> None:
    small, big = tmp_path / "small.md", tmp_path / "big.md"
    small.write_text("é" * 10, encoding="utf-8")
    big.write_bytes(b"x" * 101)
    assert textfile.read(small, "small.md", max_bytes=100) == ("é" * 10, [])
    text, problems = textfile.read(big, "big.md", max_bytes=100)
    assert text is None and len(problems) == 1 and problems[0].path == "big.md"
