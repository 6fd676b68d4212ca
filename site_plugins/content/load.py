"""Loading the content: entry files found, named and parsed from their front matter, then checked.

Layout: terms are ``content/terms/<slug>.md`` (sub-folders allowed for grouping, the slug is the
file name), lessons ``content/lessons/dayNN-<slug>.md``. Each file starts with YAML front matter
between ``---`` lines, checked against :class:`~site_plugins.content.model.TermMeta` or
:class:`~site_plugins.content.model.LessonMeta`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from site_plugins.content.excerpts import check_code_files
from site_plugins.content.model import Content, Entry, Kind, LessonMeta, TermMeta
from site_plugins.content.references import check_references
from site_plugins.files import textfile
from site_plugins.files.mdnesting import nesting_problem, yaml_strings_problem
from site_plugins.files.messages import Problem
from site_plugins.files.schema import build, line_of, parse_yaml

_FRONT = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.S)
TERM_FILE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LESSON_FILE = re.compile(r"^day(\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)$")


@dataclass(frozen=True)
class FrontMatter:
    yaml_text: str
    yaml_line: int  # file line of the first YAML line
    body_start: int  # where the body starts in the text
    body_line: int

    def body(self, text: str) -> str:
        return text[self.body_start:]


def split_front_matter(text: str) -> FrontMatter | None:
    m = _FRONT.match(text)
    if not m:
        return None
    yaml_text = m.group(1) or ""
    body_line = text[: m.end()].count("\n") + 1
    return FrontMatter(yaml_text, 2, m.end(), body_line)


def parse_entry(kind: Kind, path: str, src_uri: str, text: str) -> tuple[Entry | None, list[Problem]]:
    """Parse one file; the slug comes from the file name."""
    entry, problems = _parse_entry(kind, path, src_uri, text)
    return entry, list(problems)


@functools.lru_cache(maxsize=16384)  # pure: `mkdocs serve` re-reads every entry on each rebuild, most unchanged
def _parse_entry(kind: Kind, path: str, src_uri: str, text: str) -> tuple[Entry | None, tuple[Problem, ...]]:
    entry, problems = _parse(kind, path, src_uri, text)
    return entry, tuple(problems)


def _parse(kind: Kind, path: str, src_uri: str, text: str) -> tuple[Entry | None, list[Problem]]:
    stem = PurePosixPath(path).stem
    fm = split_front_matter(text)
    if fm is None:
        what = "title and definition" if kind == "term" else "day, title, summary and code"
        return None, [Problem(path, 1, "no front matter", f"start the file with a '---' block holding {what}")]
    node, problems = parse_yaml(fm.yaml_text, path, fm.yaml_line)
    if problems:
        return None, problems
    deep = yaml_strings_problem(node, path) or nesting_problem(fm.body(text), path, fm.body_line)
    if deep:  # Python-Markdown would recurse past its stack on it: the entry is never handed to MkDocs
        return None, [deep]
    typed = _typed_title(node, path)
    if typed:
        return None, [typed]
    schema: type[TermMeta] | type[LessonMeta] = TermMeta if kind == "term" else LessonMeta
    value, problems = build(schema, node, path)
    if value is None:
        return None, problems
    return Entry(kind, stem, path, src_uri, text, value, fm.body_start, fm.body_line), problems


def _typed_title(node: object, path: str) -> Problem | None:
    """MkDocs reads ``title`` from the front matter itself (the page's title, its navigation label), with a
    YAML loader of its own: a title YAML reads as a date, a number or a boolean would be shown as MkDocs
    formats that value (``1e3`` as 1000.0), not as written, so every page would disagree with the signed
    text. Only text is a title."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and key.value == "title" and isinstance(value, yaml.ScalarNode):
            tag = value.tag.rsplit(":", 1)[-1]
            kind = {"timestamp": "a date", "int": "a number", "float": "a number", "bool": "true or false",
                    "null": "nothing (null)"}.get(tag)  # (an explicit tag: the schema's message)
            if kind is not None and not value.style:
                shown = value.value.replace('"', '\\"')
                return Problem(path, value.start_mark.line + 1, f"the title '{value.value}' is read by YAML as {kind}, "
                                                                 "not as text",
                               f'quote it: title: "{shown}"')
    return None


def _markdown_files(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        yield from sorted(p for p in folder.rglob("*.md") if p.name != "index.md")


def _entry_files(docs: Path, sub: str) -> list[Path]:
    """Entry files, shallowest first, then by path: on a duplicate slug the top-level file keeps it,
    whatever the sub-folders are called."""
    return sorted(_markdown_files(docs / sub), key=lambda p: (len(p.relative_to(docs).parts), p.as_posix()))


def load_content(root: Path, docs_dir: str = "content") -> tuple[Content, list[Problem]]:
    """Read and check every term and lesson under ``root/docs_dir``."""
    content = Content()
    problems: list[Problem] = []
    docs = root / docs_dir
    seen: dict[tuple[str, str], str] = {}
    lesson_days: dict[int, str] = {}
    for kind, sub in (("term", "terms"), ("lesson", "lessons")):
        for file in _entry_files(docs, sub):
            path = file.relative_to(root).as_posix()
            src_uri = file.relative_to(docs).as_posix()
            stem = file.stem
            name_problem = _check_file_name(kind, path, stem)  # type: ignore[arg-type]
            if name_problem:
                problems.append(name_problem)
                content.unloaded.add(src_uri)
                continue
            key = (kind, stem.lower())
            if key in seen:
                problems.append(Problem(path, 1, f"duplicate {kind} slug '{stem}' (also {seen[key]}, which keeps it)",
                                        "rename one of the files; a slug must be unique across sub-folders"))
                content.unloaded.add(src_uri)
                continue
            seen[key] = path
            text, read_problems = textfile.read(file, path)
            entry, entry_problems = (parse_entry(kind, path, src_uri, text)  # type: ignore[arg-type]
                                     if text is not None else (None, read_problems))
            problems += entry_problems
            if entry is None:
                content.broken.add((kind, stem))
                content.unloaded.add(src_uri)
                continue
            if isinstance(entry.meta, LessonMeta):
                problems += _check_lesson_day(entry, lesson_days)
                content.lessons[entry.slug] = entry
            else:
                content.terms[entry.slug] = entry
    problems += check_references(content, root)
    problems += check_code_files(content, root)
    return content, sorted(set(problems))


def _check_file_name(kind: Kind, path: str, stem: str) -> Problem | None:
    if kind == "term" and not TERM_FILE.match(stem):
        return Problem(path, 1, f"term file name '{stem}.md' is not a slug",
                       "name term files in lower case with hyphens, e.g. content/terms/bank-conflict.md")
    if kind == "lesson" and not LESSON_FILE.match(stem):
        return Problem(path, 1, f"lesson file name '{stem}.md' does not read dayNN-slug",
                       "name lesson files like content/lessons/day13-shared-memory.md")
    return None


def _check_lesson_day(entry: Entry, lesson_days: dict[int, str]) -> list[Problem]:
    assert isinstance(entry.meta, LessonMeta)
    problems = []
    m = LESSON_FILE.match(entry.slug)
    day = entry.meta.day
    if m and int(m.group(1)) != day:
        problems.append(Problem(entry.path, line_of(entry.meta, "day"),
                                f"day {day} does not match the file name '{entry.slug}.md'",
                                f"set 'day: {int(m.group(1))}' or rename the file"))
    if day in lesson_days:
        problems.append(Problem(entry.path, line_of(entry.meta, "day"),
                                f"duplicate lesson day {day} (also {lesson_days[day]})",
                                "give each lesson its own day number"))
    else:
        lesson_days[day] = entry.path
    return problems
