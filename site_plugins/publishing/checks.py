"""Every check the build runs, as one function: the plugin logs its problems, ``gloss check`` prints them.

:func:`run` reads the link evidence, runs the build pipeline (:func:`site_plugins.publishing.pipeline.prepare`:
front matter, bodies, directives, figures, regions, specs, results, nodes, sign-off, links to drafts),
adds the evidence's age, checks the hand-written pages (``content/index.md`` and the like) with the same
rules as entries, and checks every relative Markdown link in every page, drafts included, against the
pages the site will have. Links from published pages to drafts are not problems: they are shown as plain
text and listed (``draft_links``) in the build's summary. Nothing is rendered to HTML, so ``gloss check``
is fast; the build and the check share this function, so they say the same lines.

Drafts: their problems are reported like any other (they fail ``make site`` and ``gloss check``), so a
draft is kept publishable while it waits for sign-off; the preview shows them and goes on serving.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from site_plugins import measured
from site_plugins.content import source_urls
from site_plugins.files import mdnesting, schema, textfile
from site_plugins.files.messages import Problem
from site_plugins.links import evidence
from site_plugins.measured.resolve import hint
from site_plugins.publishing import entrycheck, images, pipeline, render, staging


@dataclass(frozen=True)
class Options:
    """The plugin's options that change what is checked (mkdocs.yml's ``gloss`` plugin entry)."""

    docs_dir: str = "content"
    preview: bool = False
    evidence_file: str = "links-evidence.json"
    evidence_max_age_days: int = 365
    chrome: tuple[str, ...] = ("index.md",)  # hand-written pages published without sign-off
    nav_max_terms: int = 60  # the most terms one navigation section lists (site_plugins/nav/sections.py)
    default_node: str | None = None  # the node prose figures come from where an entry names none
    config_file: str = "mkdocs.yml"  # where those options are written (repo-relative), for problems about them


@dataclass
class Checked:
    build: pipeline.Build
    evidence: evidence.Evidence
    problems: list[Problem]
    handwritten: dict[str, str] = field(default_factory=dict)  # docs src_uri -> page Markdown, ready
    draft_links: list[Problem] = field(default_factory=list)  # links shown as plain text: information only
    dropped: set[str] = field(default_factory=set)  # docs src_uris never to be read by MkDocs (reported)
    staged: staging.Plan = field(default_factory=staging.Plan)  # all the engine may read (site_plugins/staging)


_FRONT = re.compile(r"\A-{3}[ \t]*\n(?P<yaml>.*?\n)?(?:-{3}|\.{3})[ \t]*(?:\n|\Z)", re.S)


def _handwritten_files(docs: Path, build: pipeline.Build) -> list[Path]:
    entries = {e.src_uri for e in build.content.entries()} | build.content.unloaded | set(build.pages) | set(
        build.unlisted)
    return sorted(f for f in docs.rglob("*.md")
                  if not any(part.startswith(".") for part in f.relative_to(docs).parts)
                  and f.relative_to(docs).as_posix() not in entries)


def _handwritten(root: Path, opts: Options, build: pipeline.Build, checked: Checked) -> list[tuple[str, str, str, int]]:
    """(src_uri, path, body, body line) of each readable hand-written page; the others are dropped."""
    docs = root / opts.docs_dir
    out = []
    for file in _handwritten_files(docs, build):
        uri = file.relative_to(docs).as_posix()
        path = f"{opts.docs_dir}/{uri}"
        text, problems = textfile.read(file, path)
        m = _FRONT.match(text or "")
        node = None
        if text is not None and m and m.group("yaml"):
            node, problems = schema.parse_yaml(m.group("yaml"), path, 2)  # bounded, before MkDocs reads it
        if text is None or problems:
            checked.problems += problems
            checked.dropped.add(uri)
            continue
        body = text[m.end():] if m else text
        skipped = len(body) - len(body.lstrip("\n"))  # MkDocs drops leading blank lines too
        first_line = (text[: m.end()].count("\n") if m else 0) + 1 + body[:skipped].count("\n")
        # Nesting Python-Markdown would recurse past its stack on: the page never reaches MkDocs.
        deep = mdnesting.yaml_strings_problem(node, path) or mdnesting.nesting_problem(body.lstrip("\n"), path,
                                                                                          first_line)
        if deep:
            checked.problems.append(deep)
            checked.dropped.add(uri)
            continue
        out.append((uri, path, body.lstrip("\n"), first_line))
    return out


def run(root: Path, opts: Options, today: dt.date | None = None, reuse: pipeline.Reuse | None = None, *,
        keep_signables: bool = False) -> Checked:
    """Every problem the build reports. Raises :class:`evidence.EvidenceError` when the evidence file is
    unusable (a structural failure: the build stops). ``reuse``: work kept from the previous build of a
    ``mkdocs serve``; ``keep_signables``: see :func:`pipeline.prepare`."""
    ev = evidence.load(root / opts.evidence_file, opts.evidence_file)
    chrome_refused = chrome_problems(root, opts)
    chrome = tuple(uri for uri in opts.chrome if uri not in {uri for uri, _ in chrome_refused})
    build = pipeline.prepare(root, opts.docs_dir, preview=opts.preview, checked=_checked_on(ev), chrome=chrome,
                             nav_max_terms=opts.nav_max_terms, reuse=reuse, default_node=opts.default_node,
                             keep_signables=keep_signables)
    checked = Checked(build, ev, list(build.problems) + [p for _, p in chrome_refused],
                      draft_links=list(build.draft_links), dropped={uri for uri, _ in chrome_refused})
    if opts.default_node is not None and build.view is not None:
        checked.problems += _default_node(root, opts, build.view)
    checked.problems += evidence.evidence_problems(
        ev, source_urls(build.content), max_age_days=opts.evidence_max_age_days,
        today=today or dt.datetime.now(dt.UTC).date(), evidence_path=opts.evidence_file)
    pages = _handwritten(root, opts, build, checked)
    known = {e.src_uri for e in build.content.entries()} | set(build.pages) | {uri for uri, *_ in pages}

    def exists(uri: str) -> bool:  # a broken entry and an unlisted page are reported on their own
        return uri in known or uri in build.content.unloaded or uri in build.unlisted

    for e in build.content.entries():  # every working copy: drafts, pending changes, signed entries
        checked.problems += entrycheck.link_problems(e.path, e.src_uri, e.body, e.body_line, exists)
    for e in build.published.entries():  # and the signed version published while a change awaits sign-off
        if e.src_uri in build.sources:
            found = entrycheck.link_problems(e.path, e.src_uri, e.body, e.body_line, exists)
            checked.problems += entrycheck.in_signed_version(found, build.states[e.path].signed_commit)
    for uri, path, body, first_line in pages:
        checked.problems += entrycheck.link_problems(path, uri, body, first_line, exists)
        if build.view is None:
            continue
        # Same rules as entries: measurement directives work, hand-typed figures are flagged.
        expansion = measured.expand(body, path=path, first_line=first_line, view=build.view, preview=opts.preview)
        checked.problems += expansion.problems
        checked.problems += images.external_images(body, path=path, first_line=first_line)
        markdown, hits = render.unlink_hidden(expansion.markdown, uri, build.hidden)
        for target in hits:
            line = first_line + _line_in(body, PurePosixPath(target).name)
            checked.draft_links.append(pipeline.draft_link(path, line, f"{opts.docs_dir}/{target}"))
        checked.handwritten[uri] = markdown
    checked.staged = staging.plan(root, opts.docs_dir, build, chrome=chrome, preview=opts.preview,
                                  exclude=checked.dropped)
    checked.problems = sorted(set(checked.problems) | set(checked.staged.problems))
    checked.draft_links = sorted(set(checked.draft_links))
    return checked


CHROME_REMEDY = ("list under 'chrome:' only hand-written pages and files inside the docs folder, by their path "
                 "relative to it (e.g. index.md)")


def chrome_problems(root: Path, opts: Options) -> list[tuple[str, Problem]]:
    """(declared path, problem) for each ``chrome:`` entry that cannot be site chrome: a path that leaves
    the docs folder (absolute, ``..``, a backslash) or a term or lesson (published only when signed, never
    as chrome). Each is refused (never read), at its line in the config file."""
    out = []
    docs = opts.docs_dir
    for uri in opts.chrome:
        parts = uri.split("/")
        if (not uri or uri.startswith("/") or "\\" in uri or re.match(r"^[A-Za-z]:", uri)
                or any(part in ("", ".", "..") for part in parts)):
            why = f"the chrome entry '{uri}' is not a path inside {docs}/, so it is not published"
        elif parts[0] in ("terms", "lessons") and parts[-1] != "index.md" and uri.endswith(".md"):
            why = (f"the chrome entry '{uri}' is a {'term' if parts[0] == 'terms' else 'lesson'}, which is published "
                   "only once signed, never as chrome")
        else:  # (inside the docs folder: published when it is there, a link reported by the staging plan)
            continue
        out.append((uri, Problem(opts.config_file, _config_line(root / opts.config_file, uri), why, CHROME_REMEDY)))
    return out


def _config_line(config: Path, value: str) -> int:
    """The line of the config file that declares ``value`` under ``chrome:`` (1 when it cannot be told)."""
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return 1
    start = next((n for n, line in enumerate(lines) if re.match(r"^\s*chrome\s*:", line)), None)
    if start is None:
        return 1
    for n in range(start, len(lines)):
        if value in lines[n]:
            return n + 1
    return start + 1


def _default_node(root: Path, opts: Options, view: measured.ResultsView) -> list[Problem]:
    node = opts.default_node or ""
    if node in view.nodes or not view.nodes:  # (no node registered yet: no figure to quote from any)
        return []
    path = root / opts.config_file
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    line = next((n for n, t in enumerate(text.splitlines(), start=1) if "default_node" in t), 0)
    return [Problem(opts.config_file, line, f"the gloss plugin's default_node '{node}' is not a registered "
                    "verification node", f"{hint(node, view.nodes)}registered nodes: {', '.join(view.nodes)} "
                    "(measure/nodes.yaml)")]


def _line_in(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) if at >= 0 else 0


def _checked_on(ev: evidence.Evidence) -> Callable[[str], str | None]:
    def checked_on(url: str) -> str | None:
        rec = ev.last_ok(url)
        return rec.checked_on.isoformat() if rec else None

    return checked_on
