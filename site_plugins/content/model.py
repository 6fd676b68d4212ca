"""The content model: the front-matter schemas (declared once), an entry, and the loaded content.

Terms are checked against :class:`TermMeta`, lessons against :class:`LessonMeta`; the schemas are
plain dataclasses read by :func:`site_plugins.files.schema.build`, whose field metadata gives each key's help.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from site_plugins.files.schema import meta


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


NODE_HELP = ("the verification node whose figures the text quotes, e.g. h100-1 (default: the gloss plugin's "
             "default_node); tables show every node")


def _node() -> str:
    # One declaration for terms and lessons alike: the node prose figures ({{ value }}, ...) come from.
    return field(default="", metadata=meta(NODE_HELP))


@dataclass(frozen=True)
class TermMeta:
    title: str = field(metadata=meta('the question form, e.g. "What is tiling in CUDA?"'))
    definition: str = field(metadata=meta("one sentence that defines the term"))
    related: list[str] = field(default_factory=list, metadata=meta("slugs of related terms"))
    lessons: list[LessonRef] = field(default_factory=list, metadata=meta("lessons where you meet it"))
    sources: list[SourceRef] = field(default_factory=list, metadata=meta("sources, each with title and url"))
    diagram: DiagramRef | None = field(default=None, metadata=meta("an optional named diagram"))
    code: list[CodeRef] = field(default_factory=list, metadata=meta("code excerpts by file and region"))
    node: str = _node()


@dataclass(frozen=True)
class LessonMeta:
    day: int = field(metadata=meta("the lesson's day number, matching the file name"))
    title: str = field(metadata=meta("the lesson's title"))
    summary: str = field(metadata=meta("one or two sentences on what the lesson covers"))
    code: str = field(metadata=meta("the lesson's code folder, e.g. code/day13-shared-memory"))
    introduces: list[str] = field(default_factory=list, metadata=meta("slugs of the terms it introduces"))
    sources: list[SourceRef] = field(default_factory=list, metadata=meta("sources, each with title and url"))
    node: str = _node()


Kind = Literal["term", "lesson"]


@dataclass(frozen=True)
class Entry:
    kind: Kind
    slug: str
    path: str  # repo-relative: content/terms/tiling.md
    src_uri: str  # docs-relative: terms/tiling.md
    text: str
    meta: TermMeta | LessonMeta
    body_start: int  # where the body (after the front matter) starts in ``text``
    body_line: int

    @property
    def body(self) -> str:
        # (Memory) sliced when asked rather than held: a copy of every entry's body for the whole build
        # was about 2 KB an entry.
        return self.text[self.body_start:]

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
