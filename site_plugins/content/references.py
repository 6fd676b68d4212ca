"""References in entries: their checks (related terms, lessons, sources, diagrams, quoted code) and
the links and source URLs other modules ask for.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from site_plugins.content.excerpts import excerpt, inside_code
from site_plugins.content.model import Content, Entry, LessonMeta, SourceRef, TermMeta
from site_plugins.diagrams.figure import check_diagram
from site_plugins.files.messages import Problem
from site_plugins.files.schema import line_of

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
