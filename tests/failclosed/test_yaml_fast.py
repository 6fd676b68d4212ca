"""libyaml's parser under our composer (the fast path) gives exactly what PyYAML's own parser gives: the
same node trees, lines and columns for every document it takes, and the pure loader's own problem for any
it does not. Checked on every YAML file and front matter of the project and on cases made to differ."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from site_plugins.files import boundedyaml, schema

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(boundedyaml._CParser is None, reason="PyYAML built without libyaml")


def project_documents() -> list[tuple[str, str, int]]:
    """(name, text, first line) of every YAML document of the project: front matter and YAML files."""
    docs = []
    for md in sorted((REPO / "content").rglob("*.md")):
        m = re.match(r"---\n(.*?\n)---\n", md.read_text(encoding="utf-8"), re.S)
        if m:
            docs.append((md.relative_to(REPO).as_posix(), m.group(1), 2))
    for y in sorted([*REPO.glob("code/**/*.yaml"), *REPO.glob("measure/**/*.yaml"), REPO / "signoff.yaml",
                     REPO / "mkdocs.yml"]):
        docs.append((y.relative_to(REPO).as_posix(), y.read_text(encoding="utf-8"), 1))
    return docs


BOMB = "a0: &a0 [x, x, x]\n" + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 3)}]\n" for i in range(1, 6))
CASES = [
    "a: 1\nb: [x, {c: d}]\n", "title: What is it?\ndefinition: It is: a thing, defined.\n",
    "a: 'single ''quoted'''\nb: \"double \\u00e9 \\t\"\n", "a: |\n  literal\n   kept\nb: >-\n  folded\n  text\n",
    "a: yes\nb: No\nc: ~\nd: 0x1F\ne: 1_000\nf: 2026-12-04\ng: 1e3\nh: .inf\ni: 012\n",
    "- a\n- - b\n  - c\n- {d: [e, f]}\n", "a:\n- x\n- y\nb:\n  c: d\n", "? complex key\n: value\n",
    "a: 1 # comment\n# whole line\nb: 2\n", "a: &x 1\nb: *x\n", BOMB, "x: &a [*a]\n", "a: 1\na: 2\n",
    "a: b: c\n", "a: [1, 2\n", "a: {b\n", "\ta: 1\n", "a:\n\t- 1\n", "a: 'open\n", 'a: "open\n',
    "- a\nb: 1\n", "a: 1\n  b: 2\n", "%YAML 1.1\n---\na: 1\n", "--- a\n--- b\n", "", "\n\n", "# only\n",
    "a: !!str 1\nb: !!int '2'\nc: !custom x\n", "a: \u00e9t\u00e9 \u2014 \U0001F600\n", "a: [" * 40 + "]" * 40 + "\n",
    "".join(" " * i + f"k{i}:\n" for i in range(40)), "[" * 5000, "a: 1\r\nb: 2\r\n", "a: 1\rb: 2\r",
    "{a: 1, b: [2, 3], c: {d: e}}\n", "a: >\n\n  x\n\n  y\n", "a: |+\n  x\n\n", "key with spaces: v\n",
    "a: 'x'y\n", "a: @x\n", "a: `x\n", "*x\n", "&a a: 1\n", "a: 1\n...\n", "a:\n  - b: 1\n    c: 2\n  - d\n",
]


def tree(node: Any) -> Any:
    # libyaml says "" where PyYAML says None for a plain scalar's style, and False where PyYAML says None for
    # an indentless sequence's flow style: both mean "plain" and "block" to every reader (both falsy).
    if node is None:
        return None
    marks = (node.start_mark.line, node.start_mark.column, node.end_mark.line, node.end_mark.column)
    if isinstance(node, yaml.MappingNode):
        return ("map", node.tag, bool(node.flow_style), marks, [(tree(k), tree(v)) for k, v in node.value])
    if isinstance(node, yaml.SequenceNode):
        return ("seq", node.tag, bool(node.flow_style), marks, [tree(v) for v in node.value])
    return ("scalar", node.tag, node.value, node.style or None, marks)


def pure(text: str, first_line: int, allow_aliases: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[str]]:
    with monkeypatch.context() as m:
        m.setattr(boundedyaml, "_CParser", None)
        node, problems = schema.parse_yaml(text, "f.yaml", first_line, allow_aliases=allow_aliases)
    return tree(node), [str(p) for p in problems]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("allow_aliases", [False, True])
def test_the_fast_path_gives_what_the_pure_loader_gives(monkeypatch: pytest.MonkeyPatch, allow_aliases: bool) -> None:
    docs = [*project_documents(), *((f"case {i}", t, 1) for i, t in enumerate(CASES)),
            *((f"case {i} at line 7", t, 7) for i, t in enumerate(CASES))]
    assert len(docs) > 100
    for name, text, first in docs:
        node, problems = schema.parse_yaml(text, "f.yaml", first, allow_aliases=allow_aliases)
        assert (tree(node), [str(p) for p in problems]) == pure(text, first, allow_aliases, monkeypatch), name


def test_the_fast_path_is_the_one_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    # (Else the test above compares the pure loader with itself.)
    taken: list[str] = []
    real = boundedyaml._FastBoundedLoader.get_single_node

    def spy(self: Any) -> Any:
        taken.append("fast")
        return real(self)

    monkeypatch.setattr(boundedyaml._FastBoundedLoader, "get_single_node", spy)
    node, problems = schema.parse_yaml("title: x\n", "f.yaml")
    assert taken == ["fast"] and problems == [] and node is not None
