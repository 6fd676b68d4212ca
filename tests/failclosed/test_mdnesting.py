"""Deep Markdown is refused before Python-Markdown recurses on it (site_plugins/files/mdnesting.py).

The class, not one example: every construct Python-Markdown nests on (lists by marker and by indentation,
quotes, admonitions, emphasis, links, elements under ``markdown="1"``) is refused at 1,000 levels, on
the line where the bound is passed; what the bound lets through renders on a small stack; ordinary
pages (this repository's own, code fences, rules, tables) pass. The whole path, a real preview build
that would otherwise die in a ``RecursionError``, is at the end; tests/failclosed/malformed_cases.py
holds the same inputs in the strict build.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import markdown
import pytest
from sitekit import make_site
from tinyproject import TERM_A, project

from site_plugins.cli import build as sitebuild
from site_plugins.cli import check as content_cli
from site_plugins.files.mdnesting import MAX_DEPTH, PROBLEM, REMEDY, nesting_problem
from site_plugins.files.schema import parse_yaml

REPO = Path(__file__).resolve().parents[2]
EXTENSIONS = ["admonition", "attr_list", "md_in_html", "toc", "pymdownx.highlight", "pymdownx.superfences",
              "pymdownx.inlinehilite", "pymdownx.details"]  # the site's (mkdocs.yml)

Make = Callable[[int], str]
CONSTRUCTS: dict[str, Make] = {
    "list": lambda d: "- " * d + "x\n",
    "star list": lambda d: "* " * d + "x\n",
    "ordered list": lambda d: "1. " * d + "x\n",
    "ordered list )": lambda d: "1) " * d + "x\n",
    "quote": lambda d: "> " * d + "x\n",
    "quote without spaces": lambda d: ">" * d + "x\n",
    "quote on growing lines": lambda d: "".join("> " * i + "x\n" for i in range(1, d + 1)),
    "indented list": lambda d: "".join("    " * i + "- x\n" for i in range(d)),
    "tab-indented list": lambda d: "".join("\t" * i + "- x\n" for i in range(d)),
    "indented ordered list": lambda d: "".join("    " * i + "1. x\n" for i in range(d)),
    "quote then list": lambda d: "> - " * d + "x\n",
    "admonitions": lambda d: "".join("    " * i + "!!! note\n" for i in range(d)) + "    " * d + "x\n",
    "details": lambda d: "".join("    " * i + "??? note\n" for i in range(d)) + "    " * d + "x\n",
    "emphasis": lambda d: "*a " * d + "x" + " b*" * d + "\n",
    "underscores": lambda d: "_a " * d + "x" + " b_" * d + "\n",
    "strong": lambda d: "**a " * d + "x" + " b**" * d + "\n",
    "one run of stars": lambda d: "*" * d + "x" + "*" * d + "\n",
    "emphasis across lines": lambda d: "*a\n" * d + "x" + "\nb*" * d + "\n",
    "emphasis in a table": lambda d: "|a|\n|-|\n|" + "*a " * d + "x" + " b*" * d + "|\n",
    "links": lambda d: "[" * d + "x" + "](u)" * d + "\n",
    "brackets never closed": lambda d: "[" * d + "x\n",
    "emphasised link text": lambda d: "[*" * d + "x" + "*](u)" * d + "\n",
    "markdown divs": lambda d: '<div markdown="1">' * d + "x" + "</div>" * d + "\n",
    "divs inside a markdown div": lambda d: "<div markdown>\n" + "<div>" * d + "x" + "</div>" * (d + 1) + "\n",
    "markdown divs on lines": lambda d: "<div markdown>\n\n" * d + "x\n\n" + "</div>\n\n" * d,
    "markdown divs, tags over two lines": lambda d: '<div\nmarkdown="1">\n' * d + "x\n" + "</div>\n" * d,
    "ordered list, long numbers": lambda d: "1234567890. " * d + "x\n",
    "heading emphasis": lambda d: "# " + "*a " * d + "x" + " b*" * d + "\n",
    "after an indented fence": lambda d: "    ```\n" + "- " * d + "x\n    ```\n",  # not code: parsed
    "after a fence never closed": lambda d: "```\n" + "*a " * d + "x" + " b*" * d + "\n",
    "after a fence closed by a longer one": lambda d: "```\n" + "*a " * d + "x" + " b*" * d + "\n````\n",
}


@pytest.mark.parametrize("name", CONSTRUCTS)
def test_a_thousand_levels_are_refused_where_the_bound_is_passed(name: str) -> None:
    text = "Intro.\n\n" + CONSTRUCTS[name](1000)
    problem = nesting_problem(text, "content/x.md", 10)
    assert problem is not None
    assert (problem.problem, problem.remedy) == (PROBLEM, REMEDY)
    # the line is the first one past the bound: it is fine without it and what follows
    lines = text.split("\n")
    upto = problem.line - 10 + 1
    assert nesting_problem("\n".join(lines[: upto - 1]), "content/x.md") is None
    assert str(problem) == (
        f"content/x.md:{problem.line}: the Markdown is nested more than 32 levels deep (lists, quotes, indentation, "
        "emphasis, links or HTML); flatten it; no page needs that much nesting"
    )


def _deepest_allowed(make: Make) -> int:
    return max(d for d in range(1, 4 * MAX_DEPTH) if nesting_problem(make(d), "x.md") is None)


@pytest.mark.parametrize("name", CONSTRUCTS)
def test_what_the_bound_lets_through_renders_on_a_small_stack(name: str) -> None:
    """Python-Markdown runs out of its default stack (1,000 frames) at a few hundred levels; what the
    bound allows renders within 300 frames of the caller's."""
    text = CONSTRUCTS[name](_deepest_allowed(CONSTRUCTS[name]))
    md = markdown.Markdown(extensions=EXTENSIONS)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 300)
    try:
        md.convert(text)
    finally:
        sys.setrecursionlimit(old)


@pytest.mark.parametrize(
    "text",
    [
        "- - -\n" + "* * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * * *\n",  # rules
        "```c\n" + "".join(" " * (4 * i) + "*p = *q; <float>\n" for i in range(60)) + "```\n",  # code, fenced
        "~~~\n" + "> " * 100 + "\n~~~\n",
        "`" + "[" * 100 + "` and ``" + "*a " * 100 + "``\n",  # code spans
        "\\[" * 100 + "\\*" * 100 + "\n",  # escapes
        "|a|b|\n|-|-|\n" + "|*x*|[y](u)|\n" * 200,
        "2 * 3 * 4 " * 100 + "\nsnake_case_name_with_many_parts " * 50 + "\n",
        "<br>" * 100 + "<img src=x>" * 100 + "<hr/>" * 100 + "\n",
        "<span>a</span> " * 200 + "\n",
        "".join(f"{i}. item *{i}*\n" for i in range(200)),
        "- a\n    - b\n        - c\n            - d\n\n> quote\n> > quote\n",
    ],
    ids=["rules", "fenced-code", "tilde-fence", "code-spans", "escapes", "table", "arithmetic", "void-tags",
         "closed-spans", "long-list", "ordinary-nesting"],
)
def test_ordinary_markdown_is_not_refused(text: str) -> None:
    assert nesting_problem(text, "x.md") is None


def test_every_page_of_this_repository_passes() -> None:
    pages = sorted((REPO / "content").rglob("*.md"))
    assert len(pages) > 10
    assert [p for p in pages if nesting_problem(p.read_text(encoding="utf-8"), str(p))] == []


def test_a_block_scalar_in_front_matter_is_reported_on_its_line() -> None:
    from site_plugins.files.mdnesting import yaml_strings_problem

    node, problems = parse_yaml("title: T\nsummary: |\n  fine\n  " + "> " * 40 + "x\n", "x.md", 2)
    assert problems == []
    problem = yaml_strings_problem(node, "x.md")
    assert problem is not None and problem.line == 5  # file line 2 is 'title', the quote is the 4th line


# --- the whole path: a preview build renders drafts, so it would hit Python-Markdown -------------------


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ("More words.", "- " * 1000 + "x", 23),
        ("More words.", "> " * 1000 + "x", 23),
        ("More words.", "*a " * 1000 + "x" + " b*" * 1000, 23),
        ("definition: Tiling", "definition: " + "_a " * 1000 + "Tiling", 3),
    ],
    ids=["list", "quote", "emphasis", "definition"],
)
def test_a_preview_build_refuses_deep_markdown_instead_of_crashing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], expect_warnings: Any, old: str, new: str, line: int
) -> None:
    files = project() | {"content/terms/tiling.md": TERM_A.replace(old, new, 1),
                         "links-evidence.json": '{\n  "format": 1,\n  "urls": {}\n}\n',
                         "signoff.yaml": "people: []\nentries: {}\n"}
    root = make_site(tmp_path, files, plugin_options="preview: true")
    want = (f"content/terms/tiling.md:{line}: the Markdown is nested more than 32 levels deep (lists, quotes, "
            "indentation, emphasis, links or HTML); flatten it; no page needs that much nesting")
    expect_warnings.add(want)
    assert content_cli.main(["--root", str(root)]) == 1
    assert want in capsys.readouterr().out.splitlines()
    assert sitebuild.main(["-f", str(root / "mkdocs.yml"), "-d", str(root / "site")]) == 1
    out, err = capsys.readouterr()
    assert f"WARNING -  {want}" in err.splitlines()
    assert "RecursionError" not in out + err and "Traceback" not in out + err
