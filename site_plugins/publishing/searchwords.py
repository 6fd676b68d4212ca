"""Words a reader types that a term's page does not spell the same way: what the plugin adds to material's
search index once every page is indexed, before the index is written (both fields are declared, with
their boosts, in ``mkdocs.yml``).

Material's search matches the start of each indexed word (a query ``coalesced`` is ``coalesced*``) and, for
English, stems nothing: ``bank conflicts`` missed the ``bank conflict`` page and ``tiles`` missed
``tiling``. A stemmer in lunr's pipeline does not help, because a query with a wildcard is not stemmed
(``coalescing*`` then misses the indexed ``coalesc``). So the index itself carries the other forms: each
term page's own record gets

- ``also``: the other forms, found on the published pages, of the words of the term's name (its slug)
  and of the aliases its title and definition give in parentheses ("page-locked (pinned) host
  memory"), plus each one's plural; words are grouped by :func:`family`, a light suffix stripper. An
  alias that is another term's name word ("(tile)" on the halo page) stays that term's;
- ``api``: the API function names (``cudaMemcpyAsync``, ``atomicAdd``, ``__syncthreads``) that its pages
  quote in code more often than any other term page does, or that its title or definition names. It
  weighs more than a title: a query split at its case changes and underscores (``cuda memcpy async``)
  must find the page that owns the whole name, not a page whose title holds one of its parts. Other
  code names it owns the same way (``cp.async``, ``nvcuda::wmma``, ``__shared__``) go with its words in
  ``also``.

Everything is computed from the index's own records, that is from published text only. A code file's page
keeps its title and its list of regions: its whole source is left out of the index (it filled the result
list) and its records weigh little, so that a term or lesson that explains the code ranks above it.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, MutableSequence
from typing import Any

FIELD = "also"  # other forms of a term's name and its aliases
API_FIELD = "api"  # the API names a term owns
CODE_BOOST = 0.05  # a code file's records: found, never first
# Generated reference pages (every experiment's rows, by GPU) name every kernel many times over: found,
# but below the term or lesson that explains what they list.
REFERENCE_PAGES = ("gpu-comparison/", "measurements/")
REFERENCE_BOOST = 0.2
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_CODE = re.compile(r"<code>(.*?)</code>", re.S)
_PRE = re.compile(r"<pre[^>]*>.*?</pre>", re.S)
_TAG = re.compile(r"<[^>]+>")
# An API name: a CUDA runtime or driver call (cudaMemcpyAsync, cuGraphLaunch), an intrinsic or keyword
# with leading underscores (__syncthreads), an atomic (atomicAdd), a PTX instruction (cp.async), or a
# namespace path (nvcuda::wmma), a vector type (float4). Counter names (lts__t_bytes) are not: their
# underscores are inside.
_API = re.compile(r"^(?:cu(?:da)?[A-Z]\w*|__\w+|atomic[A-Z]\w*|[a-z]+(?:\.[a-z_]+)+|\w+::\w+(?:::\w+)*"
                  r"|(?:u?int|float|double|half|u?char|u?short|u?long)[1-4]\b)")
# A function's name: camel case (cudaMemcpyAsync) or an intrinsic's leading underscores (__shfl_down_sync,
# not a keyword such as __shared__).
_CALL = re.compile(r"[a-z][A-Z]|^__\w*[a-z0-9]$")
_PAREN = re.compile(r"\(([^()]{1,40})\)")
_STOP = frozenset({"a", "an", "and", "the", "of", "in", "on", "to", "is", "are", "what", "how", "do", "does",
                   "cuda", "it", "its", "for", "with", "by", "or", "them", "they", "e", "g"})


def family(word: str) -> str:
    """A word's family, for grouping its forms: lower case, a plural or verb ending stripped, a doubled
    last consonant undone and a final e dropped. "tiling", "tiles", "tile" and "tiled" share "til";
    "coalescing", "coalesced" and "coalesce" share "coalesc"; "pinned" and "pin" share "pin"."""
    w = word.lower()
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", "e"), ("s", "")):
        if w.endswith(suffix) and not (suffix == "s" and w.endswith(("ss", "us", "is"))) \
                and len(w) - len(suffix) + len(keep) >= 3:
            w = w[: len(w) - len(suffix)] + keep
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def plain(text: str) -> str:
    return html.unescape(_TAG.sub(" ", text))


def api_names(text: str) -> list[str]:
    """The API names quoted in code in a record's text (HTML), in order, with repeats."""
    out = []
    for code in _CODE.findall(text):
        m = _API.match(html.unescape(code).strip())
        if m:
            out.append(m.group(0).rstrip("."))
    return out


def aliases(title: str, definition: str) -> tuple[list[str], list[str]]:
    """What the title and the definition give in parentheses: (words, API names)."""
    words: list[str] = []
    apis: list[str] = []
    for inside in _PAREN.findall(f"{title} {definition}"):
        parts = [p.strip() for p in inside.split(",")]
        for part in parts:
            m = _API.match(part)
            if m:
                apis.append(m.group(0))
        # A word of its own in parentheses is another name for what precedes it ("(pinned)"); a longer
        # aside ("see the guide, chapter 3") is not.
        if len(parts) == 1 and re.fullmatch(r"[A-Za-z][a-z-]+", parts[0]) and parts[0].lower() not in _STOP:
            words.append(parts[0].lower())
    return words, apis


def _own(location: str) -> str | None:
    """The term slug of a term page's own record (``terms/x/``), else None."""
    m = re.fullmatch(r"terms/([^/#]+)/", location)
    return m.group(1) if m else None


def add_words(entries: MutableSequence[dict[str, Any]]) -> None:
    """Give each term page's own record its :data:`FIELD` words, and trim code files' records (see the
    module's docstring); the generated reference pages weigh little too. ``entries``: material's search
    records, every page indexed."""
    vocabulary: dict[str, set[str]] = {}
    counts: dict[str, Counter[str]] = {}  # API name -> term slug -> mentions in code
    for e in entries:
        text = str(e.get("text", ""))
        location = str(e.get("location", ""))
        if location.startswith("code/"):
            continue
        for w in _WORD.findall(plain(f"{e.get('title', '')} {text}")):
            vocabulary.setdefault(family(w), set()).add(w.lower())
        slug = location.split("/")[1] if location.startswith("terms/") and location.count("/") >= 2 else None
        if slug:
            for name in api_names(text):
                counts.setdefault(name, Counter())[slug] += 1
    names = {str(slug): [w for w in str(slug).split("-") if w not in _STOP]
             for slug in (_own(str(e.get("location", ""))) for e in entries) if slug}
    owned: dict[str, set[str]] = {}
    for name, by_term in counts.items():
        most = max(by_term.values())
        for slug, n in by_term.items():
            if n == most:
                owned.setdefault(slug, set()).add(name)
    for e in entries:
        location = str(e.get("location", ""))
        if location.startswith("code/"):
            e["text"] = _PRE.sub("", str(e.get("text", ""))).strip()
            e["boost"] = CODE_BOOST
            continue
        if location.startswith(REFERENCE_PAGES):
            e["boost"] = REFERENCE_BOOST
            continue
        slug = _own(location)
        if slug is None:
            continue
        title = str(e.get("title", ""))
        definition = plain(str(e.get("text", "")).split("</p>", 1)[0])
        alias_words, alias_apis = aliases(title, definition)
        others = {family(w) for other, fams in names.items() if other != slug for w in fams}
        words: dict[str, None] = {}
        for w in [*names[slug], *(a for a in alias_words if family(a) not in others)]:
            for form in sorted(vocabulary.get(family(w), set()) | {w, plural(w)}):
                words.setdefault(form, None)
        apis = sorted(owned.get(slug, set()) | set(alias_apis) | set(_definition_apis(definition)))
        # A function's name is one identifier; a PTX instruction, a namespaced name or a keyword
        # (cp.async.wait_group, cuda::memcpy_async, __shared__) shares its parts with many others
        # ("async", "cuda"), so it weighs as much as a name word, not more.
        for name in apis:
            if not _CALL.search(name):
                words.setdefault(name, None)
        if words:
            e[FIELD] = " ".join(words)
        calls = [name for name in apis if _CALL.search(name)]
        if calls:
            e[API_FIELD] = " ".join(calls)


def plural(word: str) -> str:
    """A noun's regular plural (a word ending in s, or in -ed or -ing, which is no noun's, is left as it is)."""
    if word.endswith(("s", "ed", "ing")):
        return word
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _definition_apis(definition: str) -> Iterable[str]:
    """API names a definition writes in plain words ("atomicAdd, atomicMax and the like")."""
    for token in re.findall(r"[\w.:]+", definition):
        m = _API.fullmatch(token)
        if m and not token.islower():
            yield token
