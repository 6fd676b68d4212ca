"""The content model: terms and lessons parsed from Markdown front matter and validated.

Pure over files on disk: no MkDocs. The plugin, ``gloss check`` and the sign-off and link modules
all ask this package, so a content problem reads the same everywhere. Its parts:
:mod:`~site_plugins.content.model` (the front-matter schemas, entries, the loaded content),
:mod:`~site_plugins.content.load` (finding, naming and parsing entry files),
:mod:`~site_plugins.content.references` (checks of what entries refer to; their links and sources) and
:mod:`~site_plugins.content.excerpts` (quoted code regions). Callers import from here.
"""

from __future__ import annotations

from site_plugins.content.excerpts import (
    Excerpt,
    check_code_files,
    code_files,
    excerpt,
    inside_code,
    lesson_sources,
    region_problems,
    regions,
)
from site_plugins.content.load import (
    LESSON_FILE,
    TERM_FILE,
    FrontMatter,
    load_content,
    parse_entry,
    split_front_matter,
)
from site_plugins.content.model import (
    CodeRef,
    Content,
    DiagramRef,
    Entry,
    Kind,
    LessonMeta,
    LessonRef,
    SourceRef,
    TermMeta,
)
from site_plugins.content.references import (
    check_references,
    linked_src_uris,
    md_links,
    normalise,
    source_urls,
)

__all__ = [
    "LESSON_FILE", "TERM_FILE", "CodeRef", "Content", "DiagramRef", "Entry", "Excerpt", "FrontMatter", "Kind",
    "LessonMeta", "LessonRef", "SourceRef", "TermMeta", "check_code_files", "check_references", "code_files",
    "excerpt", "inside_code", "lesson_sources", "linked_src_uris", "load_content", "md_links", "normalise",
    "parse_entry", "region_problems", "regions", "source_urls", "split_front_matter",
]
