"""Ninety single-fault inputs across every file kind, each with the exact lines it must produce.

A case is (id, changes, lines): ``changes`` maps a repo-relative path to its new text (str), bytes, None
(delete), or a function from the file's current text to its new text; ``lines`` are the
``path:line: problem; remedy`` lines that the build and ``gloss check`` must both report, and nothing
else. A structural failure (an unusable evidence file) stops the build with its message instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tinyproject import LESSON, TERM_A

from measure.store.resultformat import READABLE_VERSIONS

TERM = "content/terms/tiling.md"
LESSON_MD = "content/lessons/day01-intro.md"
HOME = "content/index.md"
CU = "code/day01-intro/k.cu"
SPEC = "code/day13/experiment.yaml"
NODES = "measure/nodes.yaml"
RESULT = "measure/results/h200-1/day13-transpose.json"
SIGNOFF = "signoff.yaml"
EVIDENCE = "links-evidence.json"
CONFIG = "mkdocs.yml"

SIGNOFF_YAML = "# Sign-offs of the tiny project: none yet.\npeople: []\nentries: {}\n"
EVIDENCE_JSON = '{\n  "format": 1,\n  "urls": {}\n}\n'
# About 400 bytes that would expand to 9**9 (387 million) values.
BOMB = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9))
DEEP_JSON = "[" * 100_000



@dataclass(frozen=True)
class Copy:
    """The file at ``source`` (as the project has it), copied."""

    source: str


Change = str | bytes | None | Copy | Callable[[str], str]


@dataclass(frozen=True)
class Case:
    id: str
    changes: dict[str, Change]
    lines: tuple[str, ...]
    structural: bool = False


def term(old: str, new: str) -> dict[str, Change]:
    assert old in TERM_A, old
    return {TERM: TERM_A.replace(old, new, 1)}


def lesson(old: str, new: str) -> dict[str, Change]:
    assert old in LESSON, old
    return {LESSON_MD: LESSON.replace(old, new, 1)}


def edit(path: str, old: str, new: str) -> dict[str, Change]:
    def change(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return {path: change}


def front(path: str, text: str, yaml: str) -> dict[str, Change]:
    """``text`` with ``yaml`` inserted as the last front-matter lines."""
    head, sep, rest = text.partition("\n---\n")
    return {path: head + "\n" + yaml + sep + rest}


def case(id_: str, changes: dict[str, Change], *, structural: bool = False) -> Case:
    return Case(id_, changes, (), structural)  # the lines are filled in from EXPECTED below


RAW_TERM = TERM_A.encode()
T = TERM
CASES = [
    # --- a term: bytes and encoding ---
    case("term latin-1 body", {T: RAW_TERM.replace(b"Tiles pay", b"Tiles p\xe9y")}),
    case("term is binary", {T: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"}),
    case("term control byte in front matter", term("definition: Tiling", "definition: \x07Tiling")),
    case("term control byte in body", term("More words.", "More \x1bwords.")),
    case("term NUL byte", term("Tiles pay", "Tiles\x00 pay")),
    case("term over the size limit", {T: TERM_A + ("x" * 100 + "\n") * 22_000}),
    # --- a term: YAML ---
    case("term recursive alias", term("related: [bank-conflict]", "related: &r [*r]")),
    case("term alias bomb", front(T, TERM_A, BOMB)),
    case("term anchor and alias", term("related: [bank-conflict]", "related: &r [bank-conflict]\nx: *r")),
    case("term deep flow nesting", term("related: [bank-conflict]", "related: " + "[" * 50_000)),
    case("term deep block nesting", front(T, TERM_A, "".join(" " * i + f"k{i}:\n" for i in range(40)))),
    case("term unclosed quote on line 2", term("title: What is tiling in CUDA?", 'title: "What is tiling')),
    case("term unclosed single quote", term("definition: Tiling", "definition: 'Tiling")),
    case("term unclosed flow list", term("related: [bank-conflict]", "related: [bank-conflict")),
    case("term tab indentation", term("  - lesson: day01-intro", "\t- lesson: day01-intro")),
    case("term python tag", term("title: What is tiling in CUDA?", "title: !!python/object:os.system x")),
    case("term bad int tag", term("  alt: Rows", "  params: {tile: !!int abc}\n  alt: Rows")),
    case("term 5000-digit int", term("  alt: Rows", "  params: {tile: " + "9" * 5000 + "}\n  alt: Rows")),
    case("term no front matter", {T: "# Tiling\n\nNo front matter here.\n"}),
    case("term front matter never closed", {T: TERM_A.replace("\n---\n\nTiles", "\n\nTiles", 1)}),
    case("term empty front matter", {T: "---\n---\n\nBody.\n"}),
    case("term front matter is a list", {T: "---\n- a\n- b\n---\n\nBody.\n"}),
    # --- a term: schema ---
    case("term unknown key", term("sources:", "source:")),
    case("term duplicate key", term("related: [bank-conflict]", "related: [bank-conflict]\nrelated: []")),
    case("term missing title", term("title: What is tiling in CUDA?\n", "")),
    case("term title is a mapping", term("title: What is tiling in CUDA?", "title: {a: b}")),
    case("term related is a string", term("related: [bank-conflict]", "related: bank-conflict")),
    case("term two-sentence definition", term("shared memory.", "shared memory. It is fast.")),
    case("term empty definition", term("definition: Tiling stages a piece of an array in shared memory.",
                                        'definition: ""')),
    case("term unknown related", term("related: [bank-conflict]", "related: [bank-conflicts]")),
    case("term related to itself", term("related: [bank-conflict]", "related: [tiling]")),
    case("term unknown lesson", term("  - lesson: day01-intro", "  - lesson: day02-intro")),
    case("term source not http", term("url: https://example.org/guide", "url: ftp://example.org/guide")),
    case("term source twice", term("    url: https://example.org/guide",
                                   "    url: https://example.org/guide\n  - title: Again\n"
                                   "    url: https://example.org/guide")),
    case("term unknown diagram", term("name: tile-lifecycle", "name: tile-lifecycles")),
    case("term diagram without alt", term("  alt: Rows go in, a barrier, rows come out.\n", "")),
    case("term diagram params not numbers", term("  alt: Rows", "  params: {tile: big}\n  alt: Rows")),
    case("term code file missing", term("file: code/day01-intro/k.cu", "file: code/day01-intro/gone.cu")),
    case("term code path escapes code/", term("file: code/day01-intro/k.cu", "file: code/../README.md")),
    case("term absolute code path", term("file: code/day01-intro/k.cu", "file: /etc/hostname")),
    case("term code region missing", term("region: tiled", "region: tiles")),
    # --- a term: body ---
    case("term hand-typed figure", term("More words.", "A load takes 0.15 ms here.")),
    case("term unknown experiment", term("More words.", "{{ measured day13-transpos }}")),
    case("term malformed directive", term("More words.", "{{ value day13-transpose row= }}")),
    case("term link to a missing page", term("More words.", "See [gone](gone.md).")),
    case("term link up and out of the docs", term("More words.", "See [readme](../../README.md).")),
    # --- file names and slugs ---
    case("term file name not a slug", {"content/terms/Tiling_X.md": TERM_A}),
    case("duplicate slug in a sub-folder", {"content/terms/imported/tiling.md": TERM_A}),
    case("lesson file name", {"content/lessons/intro.md": LESSON}),
    # --- a lesson ---
    case("lesson day mismatch", lesson("day: 1", "day: 2")),
    case("lesson duplicate day", {"content/lessons/day01-more.md": LESSON.replace("introduces: [tiling]\n", "")}),
    case("lesson code folder escapes", lesson("code: code/day01-intro", "code: code/../measure")),
    case("lesson code folder missing", lesson("code: code/day01-intro", "code: code/day02-intro")),
    case("lesson unknown term", lesson("introduces: [tiling]", "introduces: [tilling]")),
    case("lesson missing summary", lesson("summary: The first lesson.\n", "")),
    case("lesson day is text", lesson("day: 1", "day: one")),
    case("lesson latin-1", {LESSON_MD: LESSON.encode().replace(b"Read about", b"R\xe9ad about")}),
    case("lesson link to a missing term", lesson("(../terms/tiling.md)", "(../terms/tilling.md)")),
    # --- deep Markdown: Python-Markdown recurses once or more per level (site_plugins/files/mdnesting.py) ---
    case("term body 1000-deep list", term("More words.", "- " * 1000 + "x")),
    case("term body 1000-deep ordered list", term("More words.", "1. " * 1000 + "x")),
    case("term body 1000-deep indented list", term("More words.", "".join("    " * i + "- x\n" for i in range(1000)))),
    case("term body 1000-deep blockquote", term("More words.", "> " * 1000 + "x")),
    case("term body 1000-deep emphasis", term("More words.", "*a " * 1000 + "x" + " b*" * 1000)),
    case("term body 1000-deep links", term("More words.", "[" * 1000 + "x" + "](u)" * 1000)),
    case("term body 1000 markdown divs", term("More words.", '<div markdown="1">\n\n' * 1000 + "x")),
    case("term body 1000-deep admonitions", term("More words.", "".join("    " * i + "!!! note\n" for i in range(1000))
                                                 + "    " * 1000 + "x")),
    case("term definition 1000-deep emphasis", term("definition: Tiling", "definition: " + "_a " * 1000 + "Tiling")),
    case("term 1000-deep list in front matter", front(T, TERM_A, "extra:\n  " + "- " * 1000 + "x\n")),
    case("lesson body 1000-deep list", lesson("Read about", "- " * 1000 + "x\n\nRead about")),
    case("home page 1000-deep blockquote", {HOME: "# Home\n\n" + "> " * 1000 + "x\n"}),
    case("home page 1000-deep list in a front matter string",
         {HOME: '---\ntitle: "\\n' + "- " * 1000 + 'x"\n---\n# Home\n'}),
    # --- the hand-written home page ---
    case("home page latin-1", {HOME: b"# Home\n\nCaf\xe9.\n"}),
    case("home page alias bomb in front matter", {HOME: "---\n" + BOMB + "---\n\n# Home\n"}),
    case("home page hand-typed figure", {HOME: "# Home\n\nCopies run at 3.5 TB/s.\n"}),
    case("home page link to a missing page", {HOME: "# Home\n\nSee [gone](terms/gone.md).\n"}),
    # --- a CUDA source ---
    case("cu latin-1", {CU: b"// caf\xe9\n// --8<-- [start:tiled]\nx\n// --8<-- [end:tiled]\n"}),
    case("cu region marked twice", edit(CU, "// a kernel\n", "// --8<-- [start:tiled]\n// --8<-- [end:tiled]\n")),
    case("cu region never ends", edit(CU, "// --8<-- [end:tiled]\n", "")),
    case("cu region ends without start", edit(CU, "// a kernel\n", "// --8<-- [end:other]\n")),
    case("cu control byte", edit(CU, "// a kernel", "// a\x00kernel")),
    # --- an experiment spec ---
    case("spec unparseable", edit(SPEC, "element: float32", "element: [float32")),
    case("spec alias", edit(SPEC, "element: float32", "element: &e float32")),
    case("spec duplicate key", edit(SPEC, "element: float32", "element: float32\nelement: float32")),
    case("spec control byte", edit(SPEC, "element: float32", "element: float\x0732")),
    case("spec latin-1", {SPEC: b"id: day13-transpose\ntitle: Caf\xe9\n"}),
    case("spec duplicate experiment id", {"code/day14/experiment.yaml": Copy(SPEC),
                                          "code/day14/transpose.cu": Copy("code/day13/transpose.cu")}),
    # --- the node registry ---
    case("nodes unparseable", {NODES: "nodes:\n  h200-1: [\n"}),
    case("nodes GPU disagrees with results", edit(NODES, "gpu: NVIDIA H200", "gpu: NVIDIA A100")),
    case("nodes bad arch", edit(NODES, "arch: sm_90", "arch: ampere")),
    case("nodes alias bomb", {NODES: BOMB}),
    case("nodes missing", {NODES: None}),
    # --- a result file ---
    case("result deep JSON", {RESULT: DEEP_JSON}),
    case("result not JSON", {RESULT: "{not json\n"}),
    case("result latin-1", {RESULT: b'{"a": "caf\xe9"}'}),
    case("result duplicate key", edit(RESULT, '"status": ', '"status": "ok",\n  "status": ')),
    case("result schema version", {RESULT: lambda text: re.sub(r'"schema_version": \d+', '"schema_version": 7', text)}),
    case("result negative raw time", edit(RESULT, '"times_ms": [', '"times_ms": [-')),
    case("result copied under an unregistered node", {"measure/results/a100-x/day13-transpose.json": Copy(RESULT)}),
    case("result copied under another experiment", {"measure/results/h200-1/old-copy.json": Copy(RESULT)}),
    # --- signoff.yaml ---
    case("signoff control byte", {SIGNOFF: SIGNOFF_YAML.replace("none yet", "none\x07 yet")}),
    case("signoff recursive alias", {SIGNOFF: "people: &p [*p]\nentries: {}\n"}),
    case("signoff duplicate key", {SIGNOFF: SIGNOFF_YAML + "entries: {}\n"}),
    case("signoff latin-1", {SIGNOFF: SIGNOFF_YAML.replace("none yet", "n\xe9").encode("latin-1")}),
    # --- the link evidence (structural: the build stops) ---
    # issue 34: refusals the corpus missed
    case("term at a letter page's address", {"content/terms/letters/a.md": Copy(TERM)}),
    case("term above the letter pages", {"content/terms/letters.md": Copy(TERM)}),
    case("term at a letter page's address, other case", {"content/terms/Letters/q.md": Copy(TERM)}),
    case("term title a YAML date", term("title: What is tiling in CUDA?", "title: 2024-01-01")),
    case("term title a YAML number", term("title: What is tiling in CUDA?", "title: 12.5")),
    case("chrome outside content", edit(CONFIG, "  - gloss", "  - gloss:\n      chrome: [index.md, ../README.md]")),
    case("chrome absolute path", edit(CONFIG, "  - gloss", "  - gloss:\n      chrome: [index.md, /etc/hostname]")),
    case("chrome a draft term", edit(CONFIG, "  - gloss", "  - gloss:\n      chrome: [index.md, terms/tiling.md]")),
    case("evidence deep JSON", {EVIDENCE: DEEP_JSON}, structural=True),
    case("evidence not JSON", {EVIDENCE: "{\n  oops\n}\n"}, structural=True),
]
EXPECTED: dict[str, tuple[str, ...]] = {
    'term latin-1 body': (
        'content/terms/tiling.md:19: not UTF-8 text (byte 0xe9 at column 8); save the file as UTF-8',
    ),
    'term is binary': (
        'content/terms/tiling.md:1: not UTF-8 text (byte 0x89 at column 1); save the file as UTF-8',
    ),
    'term control byte in front matter': (
        'content/terms/tiling.md:3: control character U+0007 at column 13; delete it (only tab and '
        'newline may appear in text)',
    ),
    'term control byte in body': (
        'content/terms/tiling.md:23: control character U+001B at column 6; delete it (only tab and '
        'newline may appear in text)',
    ),
    'term NUL byte': (
        'content/terms/tiling.md:19: control character U+0000 at column 6; delete it (only tab and '
        'newline may appear in text)',
    ),
    'term over the size limit': (
        'content/terms/tiling.md:1: the file is 2,222,439 bytes, over the limit of 2,097,152; split it '
        'up or remove what does not belong there',
    ),
    'term recursive alias': (
        "content/terms/tiling.md:4: YAML anchor '&r' is not allowed here; remove it and write each value "
        'out in full',
    ),
    'term alias bomb': (
        "content/terms/tiling.md:17: YAML anchor '&a0' is not allowed here; remove it and write each "
        'value out in full',
    ),
    'term anchor and alias': (
        "content/terms/tiling.md:4: YAML anchor '&r' is not allowed here; remove it and write each value "
        'out in full',
    ),
    'term deep flow nesting': (
        'content/terms/tiling.md:4: the YAML is nested more than 32 levels deep; flatten it; no key here '
        'needs that much nesting',
    ),
    'term deep block nesting': (
        'content/terms/tiling.md:48: the YAML is nested more than 32 levels deep; flatten it; no key '
        'here needs that much nesting',
    ),
    'term unclosed quote on line 2': (
        'content/terms/tiling.md:2: malformed YAML: a quoted string is never closed; add the closing '
        'quote on this line',
    ),
    'term unclosed single quote': (
        'content/terms/tiling.md:3: malformed YAML: a quoted string is never closed; add the closing '
        'quote on this line',
    ),
    'term unclosed flow list': (
        "content/terms/tiling.md:5: malformed YAML: expected ',' or ']', but got ':'; fix the YAML "
        'syntax at this line',
    ),
    'term tab indentation': (
        "content/terms/tiling.md:6: malformed YAML: found character '\\t' that cannot start any token; "
        'fix the YAML syntax at this line',
    ),
    'term python tag': (
        "content/terms/tiling.md:2: 'title' must be a string, got a value tagged "
        '!!python/object:os.system; write title as a string',
    ),
    'term bad int tag': (
        "content/terms/tiling.md:13: 'diagram.params.tile' is not a valid whole number: 'abc'; write "
        'diagram.params.tile as a whole number',
    ),
    'term 5000-digit int': (
        "content/terms/tiling.md:13: 'diagram.params.tile' is not a valid whole number: "
        "'999999999999999999999999999999999999999... (5,002 characters); write diagram.params.tile as a "
        'whole number',
    ),
    'term no front matter': (
        "content/terms/tiling.md:1: no front matter; start the file with a '---' block holding title and "
        'definition',
    ),
    'term front matter never closed': (
        "content/terms/tiling.md:1: no front matter; start the file with a '---' block holding title and "
        'definition',
    ),
    'term empty front matter': (
        "content/terms/tiling.md:1: missing required key 'definition'; add 'definition:' (one sentence "
        'that defines the term)',
        "content/terms/tiling.md:1: missing required key 'title'; add 'title:' (the question form, e.g. "
        '"What is tiling in CUDA?")',
    ),
    'term front matter is a list': (
        'content/terms/tiling.md:2: the document must be a mapping, got a list; write it as a mapping',
    ),
    'term unknown key': (
        "content/terms/tiling.md:8: unknown key 'source'; did you mean 'sources'? allowed keys: title, "
        'definition, related, lessons, sources, diagram, code, node',
    ),
    'term duplicate key': (
        "content/terms/tiling.md:5: duplicate key 'related'; keep only one of them",
    ),
    'term missing title': (
        "content/terms/tiling.md:2: missing required key 'title'; add 'title:' (the question form, e.g. "
        '"What is tiling in CUDA?")',
    ),
    'term title is a mapping': (
        "content/terms/tiling.md:2: 'title' must be a string, got a mapping; write title as a string",
    ),
    'term related is a string': (
        "content/terms/tiling.md:4: 'related' must be a list of strings, got a string; write related as "
        'a list of strings',
    ),
    'term two-sentence definition': (
        'content/terms/tiling.md:3: the definition must be exactly one sentence; keep one sentence '
        'ending in a full stop; move the rest into the body',
    ),
    'term empty definition': (
        'content/terms/tiling.md:3: the definition is empty; write one sentence that defines the term',
    ),
    'term unknown related': (
        "content/terms/tiling.md:4: unknown related term 'bank-conflicts'; did you mean 'bank-conflict'? "
        'use the slug of a file in content/terms/ or create content/terms/bank-conflicts.md',
    ),
    'term related to itself': (
        "content/terms/tiling.md:4: term 'tiling' lists itself as related; remove it from 'related'",
    ),
    'term unknown lesson': (
        "content/terms/tiling.md:6: unknown lesson 'day02-intro'; did you mean 'day01-intro'? use the "
        'slug of a file in content/lessons/, e.g. day13-shared-memory',
    ),
    'term source not http': (
        "content/terms/tiling.md:9: source URL 'ftp://example.org/guide' is not an http(s) address; give "
        'the full address, starting with https://',
    ),
    'term source twice': (
        "content/terms/tiling.md:11: source 'https://example.org/guide' is listed twice; keep one of them",
    ),
    'term unknown diagram': (
        "content/terms/tiling.md:11: unknown diagram 'tile-lifecycles'; use one of: tile-lifecycle",
    ),
    'term diagram without alt': (
        "content/terms/tiling.md:12: missing required key 'diagram.alt'; add 'alt:' (text alternative "
        'describing what the diagram shows)',
    ),
    'term diagram params not numbers': (
        "content/terms/tiling.md:13: 'diagram.params.tile' must be a whole number, got a string; write "
        'diagram.params.tile as a whole number',
    ),
    'term code file missing': (
        "content/terms/tiling.md:15: code file 'code/day01-intro/gone.cu' does not exist; point 'file' "
        'at a source under code/ (paths start with code/)',
    ),
    'term code path escapes code/': (
        "content/terms/tiling.md:15: code file 'code/../README.md' lies outside code/; point 'file' at a "
        "source under code/, without '..'",
    ),
    'term absolute code path': (
        "content/terms/tiling.md:15: code file '/etc/hostname' lies outside code/; point 'file' at a "
        "source under code/, without '..'",
    ),
    'term code region missing': (
        "content/terms/tiling.md:15: region 'tiles' not found in code/day01-intro/k.cu; mark it with // "
        '--8<-- [start:tiles] and [end:tiles] (regions there: tiled)',
    ),
    'term hand-typed figure': (
        "content/terms/tiling.md:23: hand-typed figure '0.15 ms'; take it from a result with {{ value "
        'EXPERIMENT row=KERNEL col=COLUMN }} (or {{ ratio ... }}), or quote a cited source with {{ cited '
        '"0.15 ms" source="SOURCE TITLE" }}',
    ),
    'term unknown experiment': (
        "content/terms/tiling.md:23: unknown experiment 'day13-transpos'; did you mean "
        "'day13-transpose'? declared experiments: day13-transpose (specs live next to the code under "
        'code/)',
    ),
    'term malformed directive': (
        "content/terms/tiling.md:23: option 'row' has an empty value in '{{ value day13-transpose row= "
        '}}\'; write a value after "=" (quote it if it has spaces or commas)',
    ),
    'term link to a missing page': (
        "content/terms/tiling.md:23: links to 'gone.md', which is not a page of the site; point the link "
        'at an existing .md file, relative to this one',
    ),
    'term link up and out of the docs': (
        "content/terms/tiling.md:23: links to '../../README.md', which is not a page of the site; point "
        'the link at an existing .md file, relative to this one',
    ),
    'term file name not a slug': (
        "content/terms/Tiling_X.md:1: term file name 'Tiling_X.md' is not a slug; name term files in "
        'lower case with hyphens, e.g. content/terms/bank-conflict.md',
    ),
    'duplicate slug in a sub-folder': (
        "content/terms/imported/tiling.md:1: duplicate term slug 'tiling' (also content/terms/tiling.md, "
        'which keeps it); rename one of the files; a slug must be unique across sub-folders',
    ),
    'lesson file name': (
        "content/lessons/intro.md:1: lesson file name 'intro.md' does not read dayNN-slug; name lesson "
        'files like content/lessons/day13-shared-memory.md',
    ),
    'lesson day mismatch': (
        "content/lessons/day01-intro.md:2: day 2 does not match the file name 'day01-intro.md'; set "
        "'day: 1' or rename the file",
    ),
    'lesson duplicate day': (
        'content/lessons/day01-more.md:2: duplicate lesson day 1 (also content/lessons/day01-intro.md); '
        'give each lesson its own day number',
    ),
    'lesson code folder escapes': (
        "content/lessons/day01-intro.md:5: code folder 'code/../measure' lies outside code/; point "
        "'code' at the lesson's folder under code/, without '..'",
    ),
    'lesson code folder missing': (
        "content/lessons/day01-intro.md:5: code folder 'code/day02-intro' does not exist; point 'code' "
        "at the lesson's folder under code/",
    ),
    'lesson unknown term': (
        "content/lessons/day01-intro.md:6: unknown term 'tilling'; did you mean 'tiling'? use the slug "
        'of a file in content/terms/ or create content/terms/tilling.md',
    ),
    'lesson missing summary': (
        "content/lessons/day01-intro.md:2: missing required key 'summary'; add 'summary:' (one or two "
        'sentences on what the lesson covers)',
    ),
    'lesson day is text': (
        "content/lessons/day01-intro.md:2: 'day' must be a whole number, got a string; write day as a "
        'whole number',
    ),
    'lesson latin-1': (
        'content/lessons/day01-intro.md:9: not UTF-8 text (byte 0xe9 at column 2); save the file as UTF-8',
    ),
    'lesson link to a missing term': (
        "content/lessons/day01-intro.md:9: links to '../terms/tilling.md', which is not a page of the "
        'site; point the link at an existing .md file, relative to this one',
    ),
    'home page latin-1': (
        'content/index.md:3: not UTF-8 text (byte 0xe9 at column 4); save the file as UTF-8',
    ),
    'home page alias bomb in front matter': (
        "content/index.md:2: YAML anchor '&a0' is not allowed here; remove it and write each value out "
        'in full',
    ),
    'home page hand-typed figure': (
        "content/index.md:3: hand-typed figure '3.5 TB/s'; take it from a result with {{ value "
        'EXPERIMENT row=KERNEL col=COLUMN }} (or {{ ratio ... }}), or quote a cited source with {{ cited '
        '"3.5 TB/s" source="SOURCE TITLE" }}',
    ),
    'home page link to a missing page': (
        "content/index.md:3: links to 'terms/gone.md', which is not a page of the site; point the link "
        'at an existing .md file, relative to this one',
    ),
    'cu latin-1': (
        'code/day01-intro/k.cu:1: not UTF-8 text (byte 0xe9 at column 7); save the file as UTF-8',
        "content/terms/tiling.md:15: code file 'code/day01-intro/k.cu' cannot be quoted; fix "
        'code/day01-intro/k.cu:1 first',
    ),
    'cu region marked twice': (
        "code/day01-intro/k.cu:3: region 'tiled' is marked again (first at line 1); give each region in "
        'a file its own name',
    ),
    'cu region never ends': (
        "code/day01-intro/k.cu:2: region 'tiled' starts but never ends; add // --8<-- [end:tiled] where "
        'it ends',
        "content/terms/tiling.md:15: region 'tiled' not found in code/day01-intro/k.cu; mark it with // "
        '--8<-- [start:tiled] and [end:tiled] (regions there: none)',
    ),
    'cu region ends without start': (
        "code/day01-intro/k.cu:1: region 'other' ends but never starts; add // --8<-- [start:other] "
        'above it, or remove this line',
    ),
    'cu control byte': (
        'code/day01-intro/k.cu:1: control character U+0000 at column 5; delete it (only tab and newline '
        'may appear in text)',
        "content/terms/tiling.md:15: code file 'code/day01-intro/k.cu' cannot be quoted; fix "
        'code/day01-intro/k.cu:1 first',
    ),
    'spec unparseable': (
        "code/day13/experiment.yaml:5: malformed YAML: expected ',' or ']', but got ':'; fix the YAML "
        'syntax at this line',
        'measure/results/h200-1/day13-transpose.json:1: stale: code/day13/experiment.yaml does not load, '
        'so this result cannot be checked against it; fix the spec (its problems are listed separately), '
        'then re-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'spec alias': (
        "code/day13/experiment.yaml:4: YAML anchor '&e' is not allowed here; remove it and write each "
        'value out in full',
        'measure/results/h200-1/day13-transpose.json:1: stale: code/day13/experiment.yaml does not load, '
        'so this result cannot be checked against it; fix the spec (its problems are listed separately), '
        'then re-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'spec duplicate key': (
        "code/day13/experiment.yaml:5: duplicate key 'element'; keep only one of them",
        'measure/results/h200-1/day13-transpose.json:1: stale: code/day13/experiment.yaml does not load, '
        'so this result cannot be checked against it; fix the spec (its problems are listed separately), '
        'then re-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'spec control byte': (
        'code/day13/experiment.yaml:4: control character U+0007 at column 15; delete it (only tab and '
        'newline may appear in text)',
        'measure/results/h200-1/day13-transpose.json:1: stale: code/day13/experiment.yaml does not load, '
        'so this result cannot be checked against it; fix the spec (its problems are listed separately), '
        'then re-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'spec latin-1': (
        'code/day13/experiment.yaml:2: not UTF-8 text (byte 0xe9 at column 11); save the file as UTF-8',
        'measure/results/h200-1/day13-transpose.json:1: stale: code/day13/experiment.yaml does not load, '
        'so this result cannot be checked against it; fix the spec (its problems are listed separately), '
        'then re-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'spec duplicate experiment id': (
        "code/day14/experiment.yaml:1: experiment id 'day13-transpose' is also declared in "
        'code/day13/experiment.yaml; give each experiment its own id',
    ),
    'nodes unparseable': (
        "measure/nodes.yaml:3: malformed YAML: expected the node content, but found '<stream end>'; fix "
        'the YAML syntax at this line',
        "measure/results/h200-1/day13-transpose.json:1: unregistered: node 'h200-1' is not in "
        'measure/nodes.yaml; register it there, or re-run `gloss measure run day13-transpose --node NAME`',
    ),
    'nodes GPU disagrees with results': (
        "measure/results/h200-1/day13-transpose.json:1: measured on 'NVIDIA H200', but node 'h200-1' is "
        "registered in measure/nodes.yaml as 'NVIDIA A100'; correct the registry, or re-run `gloss "
        'measure run day13-transpose --node h200-1` on the registered GPU',
    ),
    'nodes bad arch': (
        "measure/nodes.yaml:4: 'nodes.h200-1.arch' is 'ampere', not a CUDA architecture; write it as "
        "nvcc's -arch value, e.g. 'sm_90'",
        "measure/results/h200-1/day13-transpose.json:1: unregistered: node 'h200-1' is not in "
        'measure/nodes.yaml; register it there, or re-run `gloss measure run day13-transpose --node NAME`',
    ),
    'nodes alias bomb': (
        "measure/nodes.yaml:1: YAML anchor '&a0' is not allowed here; remove it and write each value out "
        'in full',
        "measure/results/h200-1/day13-transpose.json:1: unregistered: node 'h200-1' is not in "
        'measure/nodes.yaml; register it there, or re-run `gloss measure run day13-transpose --node NAME`',
    ),
    'nodes missing': (
        "measure/nodes.yaml:0: the node registry is missing; create measure/nodes.yaml with a 'nodes:' "
        'mapping',
        "measure/results/h200-1/day13-transpose.json:1: unregistered: node 'h200-1' is not in "
        'measure/nodes.yaml; register it there, or re-run `gloss measure run day13-transpose --node NAME`',
    ),
    'result deep JSON': (
        'measure/results/h200-1/day13-transpose.json:1: invalid: JSON nested more than 64 levels deep; '
        're-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'result not JSON': (
        'measure/results/h200-1/day13-transpose.json:1: invalid: not valid JSON: Expecting property name '
        'enclosed in double quotes (column 2); re-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'result latin-1': (
        'measure/results/h200-1/day13-transpose.json:1: invalid: not UTF-8 text (byte 0xe9 at column '
        '11); re-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'result duplicate key': (
        'measure/results/h200-1/day13-transpose.json:7: invalid: key "status" appears twice in one JSON '
        'object; re-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'result schema version': (
        'measure/results/h200-1/day13-transpose.json:1: invalid: schema version 7, this runner reads '
        f'{", ".join(str(v) for v in READABLE_VERSIONS[:-1])} and {READABLE_VERSIONS[-1]}; '
        're-run `gloss measure run day13-transpose --node h200-1`',
    ),
    'result negative raw time': (
        "measure/results/h200-1/day13-transpose.json:1: tampered: row 'memcpy' at 16384x16384 has sample 1 of "
        "-0.5389200000000001 ms; a CUDA event time is a positive, finite number; re-run `gloss measure run "
        "day13-transpose --node h200-1`; result files are written only by the runner",
    ),
    'result copied under an unregistered node': (
        "measure/results/a100-x/day13-transpose.json:1: invalid: 'node' is 'h200-1' but the file is "
        "named for 'day13-transpose' on 'a100-x'; re-run `gloss measure run day13-transpose --node "
        'a100-x`',
    ),
    'result copied under another experiment': (
        "measure/results/h200-1/old-copy.json:1: invalid: 'experiment' is 'day13-transpose' but the file "
        "is named for 'old-copy' on 'h200-1'; re-run `gloss measure run old-copy --node h200-1`",
    ),
    'signoff control byte': (
        'signoff.yaml:1: control character U+0007 at column 38; delete it (only tab and newline may '
        'appear in text)',
    ),
    'signoff recursive alias': (
        "signoff.yaml:1: YAML anchor '&p' is not allowed here; remove it and write each value out in full",
    ),
    'signoff duplicate key': (
        "signoff.yaml:4: duplicate key 'entries'; keep only one of them",
    ),
    'signoff latin-1': (
        'signoff.yaml:1: not UTF-8 text (byte 0xe9 at column 35); save the file as UTF-8',
    ),
    'evidence deep JSON': (
        'links-evidence.json:1: JSON nested more than 64 levels deep; restore links-evidence.json from '
        "git (it is written only by 'gloss links check')",
    ),
    'evidence not JSON': (
        'links-evidence.json:2: not valid JSON: Expecting property name enclosed in double quotes '
        "(column 3); restore links-evidence.json from git (it is written only by 'gloss links check')",
    ),
}
DEEP = ("the Markdown is nested more than 32 levels deep (lists, quotes, indentation, emphasis, links or HTML); "
        "flatten it; no page needs that much nesting")
EXPECTED |= {
    "term body 1000-deep list": (f"content/terms/tiling.md:23: {DEEP}",),
    "term body 1000-deep ordered list": (f"content/terms/tiling.md:23: {DEEP}",),
    "term body 1000-deep indented list": (f"content/terms/tiling.md:55: {DEEP}",),  # 32 x 4 spaces, '- '
    "term body 1000-deep blockquote": (f"content/terms/tiling.md:23: {DEEP}",),
    "term body 1000-deep emphasis": (f"content/terms/tiling.md:23: {DEEP}",),
    "term body 1000-deep links": (f"content/terms/tiling.md:23: {DEEP}",),
    "term body 1000 markdown divs": (f"content/terms/tiling.md:87: {DEEP}",),  # the 33rd div, 2 lines each
    "term body 1000-deep admonitions": (f"content/terms/tiling.md:56: {DEEP}",),
    "term definition 1000-deep emphasis": (f"content/terms/tiling.md:3: {DEEP}",),
    "term 1000-deep list in front matter": (
        "content/terms/tiling.md:18: the YAML is nested more than 32 levels deep; flatten it; no key here "
        "needs that much nesting",
    ),
    "lesson body 1000-deep list": (f"content/lessons/day01-intro.md:9: {DEEP}",),
    "home page 1000-deep blockquote": (f"content/index.md:3: {DEEP}",),
    "home page 1000-deep list in a front matter string": (f"content/index.md:2: {DEEP}",),
}

CLASH = ("is taken by the A–Z letter pages, which the build generates under terms/letters/, so the entry is not "
         "published; rename the file (its name is the entry's slug and address)")
CHROME = ("list under 'chrome:' only hand-written pages and files inside the docs folder, by their path relative to "
          "it (e.g. index.md)")
EXPECTED |= {
    "term at a letter page's address": (f"content/terms/letters/a.md:1: its address terms/letters/a/ {CLASH}",),
    "term above the letter pages": (f"content/terms/letters.md:1: its address terms/letters/ {CLASH}",),
    "term at a letter page's address, other case": (f"content/terms/Letters/q.md:1: its address terms/Letters/q/ "
                                                    f"{CLASH}",),
    "term title a YAML date": ("content/terms/tiling.md:2: the title '2024-01-01' is read by YAML as a date, not as "
                               'text; quote it: title: "2024-01-01"',),
    "term title a YAML number": ("content/terms/tiling.md:2: the title '12.5' is read by YAML as a number, not as "
                                 'text; quote it: title: "12.5"',),
    "chrome outside content": ("mkdocs.yml:9: the chrome entry '../README.md' is not a path inside content/, so it "
                               f"is not published; {CHROME}",),
    "chrome absolute path": ("mkdocs.yml:9: the chrome entry '/etc/hostname' is not a path inside content/, so it "
                             f"is not published; {CHROME}",),
    "chrome a draft term": ("mkdocs.yml:9: the chrome entry 'terms/tiling.md' is a term, which is published only "
                            f"once signed, never as chrome; {CHROME}",),
}

CASES = [Case(c.id, c.changes, EXPECTED[c.id], c.structural) for c in CASES]
