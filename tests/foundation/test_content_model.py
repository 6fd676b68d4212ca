"""The content model's checks, each with its exact message (the messages are the interface)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitekit import write_tree
from tinyproject import TERM_A, project

from site_plugins.content import LessonMeta, TermMeta, excerpt, load_content, regions, source_urls


def load(tmp_path: Path, files: dict[str, str]) -> tuple[object, list[str]]:
    write_tree(tmp_path, files)
    content, problems = load_content(tmp_path)
    return content, [str(p) for p in problems]


def test_valid_project_has_no_problems(tmp_path: Path) -> None:
    content, problems = load(tmp_path, project())
    assert problems == []
    term = content.terms["tiling"]  # type: ignore[attr-defined]
    assert isinstance(term.meta, TermMeta)
    assert term.path == "content/terms/tiling.md"
    assert term.src_uri == "terms/tiling.md"
    assert term.body_line == 18
    assert term.body.startswith("\nTiles pay")
    lesson = content.lessons["day01-intro"]  # type: ignore[attr-defined]
    assert isinstance(lesson.meta, LessonMeta) and lesson.meta.day == 1


CASES = [
    ("unknown related slug",
     TERM_A.replace("related: [bank-conflict]", "related: [bank-conflicts]"),
     "content/terms/tiling.md:4: unknown related term 'bank-conflicts'; did you mean 'bank-conflict'? "
     "use the slug of a file in content/terms/ or create content/terms/bank-conflicts.md"),
    ("unknown lesson",
     TERM_A.replace("lesson: day01-intro", "lesson: day02-intro"),
     "content/terms/tiling.md:6: unknown lesson 'day02-intro'; did you mean 'day01-intro'? "
     "use the slug of a file in content/lessons/, e.g. day13-shared-memory"),
    ("missing alt text",
     TERM_A.replace("  alt: Rows go in, a barrier, rows come out.\n", ""),
     "content/terms/tiling.md:12: missing required key 'diagram.alt'; "
     "add 'alt:' (text alternative describing what the diagram shows)"),
    ("empty alt text",
     TERM_A.replace("alt: Rows go in, a barrier, rows come out.", "alt: ''"),
     "content/terms/tiling.md:13: diagram alt text is empty; describe in words what the diagram shows"),
    ("code file gone",
     TERM_A.replace("code/day01-intro/k.cu", "code/day01-intro/gone.cu"),
     "content/terms/tiling.md:15: code file 'code/day01-intro/gone.cu' does not exist; "
     "point 'file' at a source under code/ (paths start with code/)"),
    ("code region gone",
     TERM_A.replace("region: tiled", "region: padded"),
     "content/terms/tiling.md:15: region 'padded' not found in code/day01-intro/k.cu; "
     "mark it with // --8<-- [start:padded] and [end:padded] (regions there: tiled)"),
    ("unknown front-matter key",
     TERM_A.replace("related:", "relatd:"),
     "content/terms/tiling.md:4: unknown key 'relatd'; did you mean 'related'? "
     "allowed keys: title, definition, related, lessons, sources, diagram, code, node"),
    ("malformed front matter",
     TERM_A.replace("related: [bank-conflict]", "related: [bank-conflict"),
     "content/terms/tiling.md:5: malformed YAML: expected ',' or ']', but got ':'; fix the YAML syntax at this line"),
    ("term without a definition",
     TERM_A.replace("definition: Tiling stages a piece of an array in shared memory.\n", ""),
     "content/terms/tiling.md:2: missing required key 'definition'; add 'definition:' (one sentence that "
     "defines the term)"),
    ("empty definition",
     TERM_A.replace("definition: Tiling stages a piece of an array in shared memory.", "definition: ''"),
     "content/terms/tiling.md:3: the definition is empty; write one sentence that defines the term"),
    ("two-sentence definition",
     TERM_A.replace("in shared memory.", "in shared memory. It is fast."),
     "content/terms/tiling.md:3: the definition must be exactly one sentence; keep one sentence ending in a "
     "full stop; move the rest into the body"),
    ("wrong type",
     TERM_A.replace("related: [bank-conflict]", "related: bank-conflict"),
     "content/terms/tiling.md:4: 'related' must be a list of strings, got a string; "
     "write related as a list of strings"),
    ("unknown diagram",
     TERM_A.replace("name: tile-lifecycle", "name: tile-life"),
     "content/terms/tiling.md:11: unknown diagram 'tile-life'; use one of: tile-lifecycle"),
    ("source not http",
     TERM_A.replace("https://example.org/guide", "example.org/guide"),
     "content/terms/tiling.md:9: source URL 'example.org/guide' is not an http(s) address; "
     "give the full address, starting with https://"),
    ("no front matter",
     "Just text.\n",
     "content/terms/tiling.md:1: no front matter; start the file with a '---' block holding title and "
     "definition"),
]


@pytest.mark.parametrize(("name", "text", "message"), CASES, ids=[c[0] for c in CASES])
def test_bad_term_is_reported_verbatim(tmp_path: Path, name: str, text: str, message: str) -> None:
    files = project() | {"content/terms/tiling.md": text}
    _, problems = load(tmp_path, files)
    assert problems == [message]


def test_duplicate_slug(tmp_path: Path) -> None:
    files = project() | {"content/terms/memory/tiling.md": TERM_A}
    _, problems = load(tmp_path, files)
    assert problems == [
        "content/terms/memory/tiling.md:1: duplicate term slug 'tiling' "
        "(also content/terms/tiling.md, which keeps it); rename one of the files; "
        "a slug must be unique across sub-folders"]


def test_lesson_checks(tmp_path: Path) -> None:
    lesson = project()["content/lessons/day01-intro.md"]
    files = project() | {
        "content/lessons/day01-intro.md": lesson.replace("day: 1", "day: 2").replace("[tiling]", "[tilling]"),
        "content/lessons/Day3.md": lesson,
    }
    _, problems = load(tmp_path, files)
    assert problems == [
        "content/lessons/Day3.md:1: lesson file name 'Day3.md' does not read dayNN-slug; "
        "name lesson files like content/lessons/day13-shared-memory.md",
        "content/lessons/day01-intro.md:2: day 2 does not match the file name 'day01-intro.md'; "
        "set 'day: 1' or rename the file",
        "content/lessons/day01-intro.md:6: unknown term 'tilling'; did you mean 'tiling'? "
        "use the slug of a file in content/terms/ or create content/terms/tilling.md",
    ]


def test_regions_and_excerpt(tmp_path: Path) -> None:
    write_tree(tmp_path, project())
    source = (tmp_path / "code/day01-intro/k.cu").read_text()
    assert regions(source) == {"tiled": (3, 5)}
    content, _ = load_content(tmp_path)
    ref = content.terms["tiling"].meta.code[0]  # type: ignore[union-attr]
    ex, problem = excerpt(tmp_path, ref, "content/terms/tiling.md", 16)
    assert problem is None and ex is not None
    assert ex.text == "__global__ void tiled(float* out) {\n    out[threadIdx.x] = 1.0f;\n}"
    assert (ex.first_line, ex.language) == (3, "cuda")


def test_source_urls_name_where_cited(tmp_path: Path) -> None:
    content, _ = load(tmp_path, project())
    assert source_urls(content) == [("https://example.org/guide", "content/terms/tiling.md", 9)]  # type: ignore[arg-type]
