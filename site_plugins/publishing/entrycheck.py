"""The problems of one entry's text, decided by one function for every text the project has.

The same checks hold for a draft, for the working copy of a signed entry with a change awaiting sign-off,
for the signed version the build publishes meanwhile (recovered from git), and for what ``gloss sign``
is about to sign: hand-typed figures in the definition or summary, resources fetched from another site,
the problems of its measurement directives and code excerpts (``expansion_problems``), and, when the
caller knows the pages of the site (``exists``), relative links to pages the site will not have.

A problem of the signed version is worded as one (:func:`in_signed_version`): its line is a line of
that version, which the working copy may no longer have, and the fix is a change that must be signed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

from site_plugins import measured
from site_plugins.content import Entry, LessonMeta, md_links, normalise
from site_plugins.files.messages import Problem
from site_plugins.files.schema import line_of
from site_plugins.publishing.images import external_images

SIGNED_PREFIX = "in the version signed at commit "

_FENCE = re.compile(r"^(?P<f>`{3,}|~{3,}).*?^(?P=f)[ \t]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)


def blank_code(text: str) -> str:
    """``text`` with code blocks and spans blanked (line breaks kept), so links shown as code are not links."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group())

    return _CODE_SPAN.sub(blank, _FENCE.sub(blank, text))


def text_problems(entry: Entry, expansion_problems: Iterable[Problem],
                  exists: Callable[[str], bool] | None = None) -> list[Problem]:
    """Every problem of ``entry``'s text (see the module docstring); ``expansion_problems``: those of its
    body's expansion and code excerpts, computed once per build (pipeline.Staged)."""
    key = "summary" if isinstance(entry.meta, LessonMeta) else "definition"
    # The lede (definition or summary) is shown but never expanded: no hand-typed figures there either.
    out = measured.lint_figures(entry.lede, path=entry.path, first_line=line_of(entry.meta, key), lede=key)
    out += external_images(entry.body, path=entry.path, first_line=entry.body_line)
    out += expansion_problems
    if exists is not None:
        out += link_problems(entry.path, entry.src_uri, entry.body, entry.body_line, exists)
    return sorted(set(out))


def link_problems(path: str, src_uri: str, body: str, first_line: int, exists: Callable[[str], bool]) -> list[Problem]:
    """Relative links to Markdown pages that the site will not have."""
    out = []
    base = PurePosixPath(src_uri).parent
    text = blank_code(body)
    for m in md_links().finditer(text):
        target = m.group("target")
        if "://" in target or target.startswith(("/", "mailto:")):
            continue
        uri = normalise(base / target)
        if not exists(uri):
            line = first_line + text.count("\n", 0, m.start())
            out.append(Problem(path, line, f"links to '{target}', which is not a page of the site",
                               "point the link at an existing .md file, relative to this one"))
    return out


def in_signed_version(problems: Iterable[Problem], commit: str | None) -> list[Problem]:
    """``problems`` of the signed version that the build publishes while a change awaits sign-off."""
    at = commit[:10] if commit else "(unknown)"
    return [Problem(p.path, p.line, f"{SIGNED_PREFIX}{at}, which is published while the change awaits "
                                    f"sign-off, line {p.line}: {p.problem}",
                    f"{p.remedy}; then have the change signed (gloss sign {p.path}), so that the corrected "
                    "version is published") for p in problems]


def of_signed_version(problem: Problem) -> bool:
    """Whether ``problem`` is one of a signed version (not of the text a ``gloss sign`` would sign now)."""
    return problem.problem.startswith(SIGNED_PREFIX)
