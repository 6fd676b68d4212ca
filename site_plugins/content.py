"""The content model: terms and lessons parsed from Markdown front matter and validated.

Pure over files on disk: no MkDocs. The plugin, ``gloss check`` and the sign-off and link modules
all ask this module, so a content problem reads the same everywhere.

Layout: terms are ``content/terms/<slug>.md`` (sub-folders allowed for grouping, the slug is the
file name), lessons ``content/lessons/dayNN-<slug>.md``. Each file starts with YAML front matter
between ``---`` lines, checked against :class:`TermMeta` or :class:`LessonMeta`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from site_plugins import textfile
from site_plugins.diagrams import check_diagram
from site_plugins.messages import Problem
from site_plugins.schema import build, line_of, meta, parse_yaml

# --- schemas (declared once) -------------------------------------------------------------------


@dataclass(frozen=True)
class SourceRef:
    title: str = field(metadata=meta("the source's title as a reader would search for it"))
    url: str = field(metadata=meta("the full https:// address of the source"))


@dataclass(frozen=True)
class LessonRef:
    lesson: str = field(metadata=meta("a lesson slug such as day13-shared-memory"))
    why: str = field(metadata=meta("one line on why the term matters in that lesson"))


@dataclass(frozen=True)
class DiagramRef:
    name: str = field(metadata=meta("a named diagram such as tile-lifecycle"))
    alt: str = field(metadata=meta("text alternative describing what the diagram shows"))
    preset: str = field(default="default", metadata=meta("one of the diagram's presets"))
    params: dict[str, int] = field(default_factory=dict, metadata=meta("diagram parameters such as tile: 32"))
    caption: str = field(default="", metadata=meta("caption shown under the figure"))


@dataclass(frozen=True)
class CodeRef:
    file: str = field(metadata=meta("a path under code/, e.g. code/day13-shared-memory/transpose.cu"))
    region: str = field(metadata=meta("a region marked // --8<-- [start:NAME] ... [end:NAME] in that file"))
    caption: str = field(default="", metadata=meta("one line saying what the excerpt shows"))


@dataclass(frozen=True)
class TermMeta:
    title: str = field(metadata=meta('the question form, e.g. "What is tiling in CUDA?"'))
    definition: str = field(metadata=meta("one sentence that defines the term"))
    related: list[str] = field(default_factory=list, metadata=meta("slugs of related terms"))
    lessons: list[LessonRef] = field(default_factory=list, metadata=meta("lessons where you meet it"))
    sources: list[SourceRef] = field(default_factory=list, metadata=meta("sources, each with title and url"))
    diagram: DiagramRef | None = field(default=None, metadata=meta("an optional named diagram"))
    code: list[CodeRef] = field(default_factory=list, metadata=meta("code excerpts by file and region"))


@dataclass(frozen=True)
class LessonMeta:
    day: int = field(metadata=meta("the lesson's day number, matching the file name"))
    title: str = field(metadata=meta("the lesson's title"))
    summary: str = field(metadata=meta("one or two sentences on what the lesson covers"))
    code: str = field(metadata=meta("the lesson's code folder, e.g. code/day13-shared-memory"))
    introduces: list[str] = field(default_factory=list, metadata=meta("slugs of the terms it introduces"))
    sources: list[SourceRef] = field(default_factory=list, metadata=meta("sources, each with title and url"))


Kind = Literal["term", "lesson"]


@dataclass(frozen=True)
class Entry:
    kind: Kind
    slug: str
    path: str  # repo-relative: content/terms/tiling.md
    src_uri: str  # docs-relative: terms/tiling.md
    text: str
    meta: TermMeta | LessonMeta
    body: str
    body_line: int

    @property
    def title(self) -> str:
        return self.meta.title

    @property
    def lede(self) -> str:
        """The one line shown in indexes and link previews."""
        return self.meta.definition if isinstance(self.meta, TermMeta) else self.meta.summary


@dataclass
class Content:
    terms: dict[str, Entry] = field(default_factory=dict)
    lessons: dict[str, Entry] = field(default_factory=dict)
    # Slugs whose files exist but could not be parsed: already reported, so references to them
    # are not reported again as unknown.
    broken: set[tuple[str, str]] = field(default_factory=set)
    # Docs-relative paths of Markdown files under terms/ and lessons/ that are not entries (bad name,
    # duplicate slug, unreadable or malformed): already reported, and never published as raw pages.
    unloaded: set[str] = field(default_factory=set)

    def entries(self) -> list[Entry]:
        return [*sorted(self.terms.values(), key=lambda e: e.slug),
                *sorted(self.lessons.values(), key=lambda e: e.slug)]

    def by_src_uri(self) -> dict[str, Entry]:
        return {e.src_uri: e for e in self.entries()}


# --- parsing -----------------------------------------------------------------------------------

_FRONT = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.S)
TERM_FILE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LESSON_FILE = re.compile(r"^day(\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)$")


@dataclass(frozen=True)
class FrontMatter:
    yaml_text: str
    yaml_line: int  # file line of the first YAML line
    body: str
    body_line: int


def split_front_matter(text: str) -> FrontMatter | None:
    m = _FRONT.match(text)
    if not m:
        return None
    yaml_text = m.group(1) or ""
    body_line = text[: m.end()].count("\n") + 1
    return FrontMatter(yaml_text, 2, text[m.end():], body_line)


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
    schema: type[TermMeta] | type[LessonMeta] = TermMeta if kind == "term" else LessonMeta
    value, problems = build(schema, node, path)
    if value is None:
        return None, problems
    return Entry(kind, stem, path, src_uri, text, value, fm.body, fm.body_line), problems


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


# --- cross-references --------------------------------------------------------------------------

_SENTENCE_BREAK = re.compile(r"[.!?]\s+(?=[A-Z])")


def check_references(content: Content, root: Path) -> list[Problem]:
    problems: list[Problem] = []
    for term in content.terms.values():
        m = term.meta
        assert isinstance(m, TermMeta)
        problems += _check_definition(term, m)
        for i, slug in enumerate(m.related):
            if slug == term.slug:
                problems.append(Problem(term.path, line_of(m, "related", i), f"term '{slug}' lists itself as related",
                                        "remove it from 'related'"))
            elif slug not in content.terms and ("term", slug) not in content.broken:
                problems.append(Problem(term.path, line_of(m, "related", i), f"unknown related term '{slug}'",
                                        _term_remedy(content, slug)))
        for i, ref in enumerate(m.lessons):
            if ref.lesson not in content.lessons and ("lesson", ref.lesson) not in content.broken:
                problems.append(Problem(term.path, line_of(m, "lessons", i), f"unknown lesson '{ref.lesson}'",
                                        _lesson_remedy(content, ref.lesson)))
        problems += _check_sources(term, m.sources)
        if m.diagram is not None:
            problems += [Problem(term.path, line_of(m, "diagram"), what, fix)
                         for what, fix in check_diagram(m.diagram.name, m.diagram.preset, m.diagram.params)]
            if not m.diagram.alt.strip():
                problems.append(Problem(term.path, line_of(m.diagram, "alt"), "diagram alt text is empty",
                                        "describe in words what the diagram shows"))
        for i, code_ref in enumerate(m.code):
            _, problem = excerpt(root, code_ref, term.path, line_of(m, "code", i))
            if problem:
                problems.append(problem)
    for lesson in content.lessons.values():
        lm = lesson.meta
        assert isinstance(lm, LessonMeta)
        for i, slug in enumerate(lm.introduces):
            if slug not in content.terms and ("term", slug) not in content.broken:
                problems.append(Problem(lesson.path, line_of(lm, "introduces", i), f"unknown term '{slug}'",
                                        _term_remedy(content, slug)))
        if not inside_code(root, lm.code):
            problems.append(Problem(lesson.path, line_of(lm, "code"), f"code folder '{lm.code}' lies outside code/",
                                    "point 'code' at the lesson's folder under code/, without '..'"))
        elif not (root / lm.code).is_dir():
            problems.append(Problem(lesson.path, line_of(lm, "code"), f"code folder '{lm.code}' does not exist",
                                    "point 'code' at the lesson's folder under code/"))
        problems += _check_sources(lesson, lm.sources)
    return problems


def _check_definition(term: Entry, m: TermMeta) -> list[Problem]:
    line = line_of(m, "definition")
    text = m.definition.strip()
    if not text:
        return [Problem(term.path, line, "the definition is empty", "write one sentence that defines the term")]
    if _SENTENCE_BREAK.search(text) or not text.endswith((".", "?", "!")):
        return [Problem(term.path, line, "the definition must be exactly one sentence",
                        "keep one sentence ending in a full stop; move the rest into the body")]
    return []


def _check_sources(entry: Entry, sources: list[SourceRef]) -> list[Problem]:
    m = entry.meta
    problems = []
    seen: set[str] = set()
    for i, src in enumerate(sources):
        line = line_of(m, "sources", i)
        if not re.match(r"^https?://[^\s/]+", src.url):
            problems.append(Problem(entry.path, line, f"source URL '{src.url}' is not an http(s) address",
                                    "give the full address, starting with https://"))
        if src.url in seen:
            problems.append(Problem(entry.path, line, f"source '{src.url}' is listed twice", "keep one of them"))
        seen.add(src.url)
    return problems


def _term_remedy(content: Content, slug: str) -> str:
    import difflib

    close = difflib.get_close_matches(slug, list(content.terms), n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return f"{hint}use the slug of a file in content/terms/ or create content/terms/{slug}.md"


def _lesson_remedy(content: Content, slug: str) -> str:
    import difflib

    close = difflib.get_close_matches(slug, list(content.lessons), n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return f"{hint}use the slug of a file in content/lessons/, e.g. day13-shared-memory"


# --- code excerpts -----------------------------------------------------------------------------

_REGION = re.compile(r"--8<--\s*\[(start|end):([A-Za-z0-9_.-]+)\]")


@dataclass(frozen=True)
class Excerpt:
    file: str
    region: str
    text: str
    first_line: int  # line in the file of the excerpt's first line
    language: str


def regions(source: str) -> dict[str, tuple[int, int]]:
    """Named regions of a source file: name -> (first, last) line numbers of the content, 1-based.
    Where a name is marked twice the first region keeps it (:func:`region_problems` reports the rest)."""
    open_: dict[str, int] = {}
    found: dict[str, tuple[int, int]] = {}
    for n, line in enumerate(source.splitlines(), start=1):
        for kind, name in _REGION.findall(line):
            if kind == "start":
                open_.setdefault(name, n + 1)
            elif name in open_:
                found.setdefault(name, (open_.pop(name), n - 1))
    return found


def region_problems(source: str, rel: str) -> list[Problem]:
    """Region markers that do not pair up: a name started twice, an end without a start, a start
    never ended."""
    problems: list[Problem] = []
    open_: dict[str, int] = {}
    done: dict[str, int] = {}
    for n, line in enumerate(source.splitlines(), start=1):
        for kind, name in _REGION.findall(line):
            if kind == "start" and (name in open_ or name in done):
                first = open_.get(name) or done[name]
                problems.append(Problem(rel, n, f"region '{name}' is marked again (first at line {first})",
                                        "give each region in a file its own name"))
            elif kind == "start":
                open_[name] = n
            elif name in open_:
                done[name] = open_.pop(name)
            elif name not in done:
                problems.append(Problem(rel, n, f"region '{name}' ends but never starts",
                                        f"add // --8<-- [start:{name}] above it, or remove this line"))
    for name, n in open_.items():
        problems.append(Problem(rel, n, f"region '{name}' starts but never ends",
                                f"add // --8<-- [end:{name}] where it ends"))
    return problems


def inside_code(root: Path, rel: str) -> bool:
    """Whether repo-relative ``rel`` names something under ``code/`` (no '..', no absolute path, no
    link leading out)."""
    parts = PurePosixPath(rel).parts
    if not rel.startswith("code/") or ".." in parts or "\\" in rel:
        return False
    try:
        return (root / rel).resolve().is_relative_to((root / "code").resolve())
    except (OSError, ValueError):
        return False


def code_files(content: Content, root: Path) -> list[str]:
    """Every code file the site shows: the files terms quote and the sources in lessons' folders."""
    files: set[str] = set()
    for entry in content.entries():
        m = entry.meta
        if isinstance(m, TermMeta):
            files |= {ref.file for ref in m.code if inside_code(root, ref.file) and (root / ref.file).is_file()}
        else:
            files |= set(lesson_sources(root, m.code))
    return sorted(files)


def lesson_sources(root: Path, folder: str) -> list[str]:
    """The CUDA sources in a lesson's code folder (none when the folder is missing or outside code/)."""
    if not inside_code(root, folder) or not (root / folder).is_dir():
        return []
    return sorted(f.relative_to(root).as_posix() for f in (root / folder).iterdir()
                  if f.suffix in (".cu", ".cuh") and f.is_file())


def check_code_files(content: Content, root: Path) -> list[Problem]:
    """Each shown code file reads as text and its region markers pair up."""
    problems: list[Problem] = []
    for rel in code_files(content, root):
        text, read_problems = textfile.read(root / rel, rel)
        problems += read_problems if text is None else region_problems(text, rel)
    return problems


def excerpt(root: Path, ref: CodeRef, path: str, line: int,
            read: Callable[[str], str | None] | None = None) -> tuple[Excerpt | None, Problem | None]:
    """The lines of ``ref.region`` in ``ref.file``, marker lines excluded and indentation kept.
    ``read(file)``: the text of a repo-relative file somewhere else (a git commit, the signed version)."""
    file = root / ref.file
    if not inside_code(root, ref.file):
        return None, Problem(path, line, f"code file '{ref.file}' lies outside code/",
                             "point 'file' at a source under code/, without '..'")
    source = read(ref.file) if read is not None else None
    if (read is not None and source is None) or (read is None and not file.is_file()):
        return None, Problem(path, line, f"code file '{ref.file}' does not exist",
                             "point 'file' at a source under code/ (paths start with code/)")
    if source is None:
        source, unreadable = textfile.read(file, ref.file)
        if source is None:  # the file's own problem is reported by check_code_files
            return None, Problem(path, line, f"code file '{ref.file}' cannot be quoted",
                                 f"fix {unreadable[0].path}:{unreadable[0].line} first")
    found = regions(source)
    if ref.region not in found:
        names = ", ".join(sorted(found)) or "none"
        return None, Problem(path, line, f"region '{ref.region}' not found in {ref.file}",
                             f"mark it with // --8<-- [start:{ref.region}] and [end:{ref.region}]"
                             f" (regions there: {names})")
    first, last = found[ref.region]
    lines = [ln for ln in source.splitlines()[first - 1:last] if not _REGION.search(ln)]
    suffix = PurePosixPath(ref.file).suffix
    language = {".cu": "cuda", ".cuh": "cuda", ".py": "python", ".c": "c", ".h": "c"}.get(suffix, "text")
    return Excerpt(ref.file, ref.region, _dedent("\n".join(lines)), first, language), None


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip("\n")


# --- links inside bodies -----------------------------------------------------------------------

_MD_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]+)\]\((?P<target>[^)\s]+\.md)(?P<anchor>#[^)\s]*)?(?:\s+\"[^\"]*\")?\)")


def linked_src_uris(entry: Entry) -> list[str]:
    """Docs-relative targets of the Markdown links in the entry's body, in order."""
    base = PurePosixPath(entry.src_uri).parent
    out = []
    for m in _MD_LINK.finditer(entry.body):
        target = m.group("target")
        if "://" in target:
            continue
        out.append(normalise(base / target))
    return out


def normalise(p: PurePosixPath) -> str:
    parts: list[str] = []
    for part in p.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def md_links() -> re.Pattern[str]:
    return _MD_LINK


def source_urls(content: Content) -> list[tuple[str, str, int]]:
    """Every cited source URL with the file and line that cites it."""
    out = []
    for entry in content.entries():
        m = entry.meta
        for i, src in enumerate(m.sources):
            out.append((src.url, entry.path, line_of(m, "sources", i)))
    return out
