"""The final audit of a built site: every file, page, search record and link accounted for.

Whatever built ``site/`` (MkDocs with our plugin, or an engine that ignores MkDocs plugins), the audit
walks it and checks, against a :class:`Manifest` made from the publish decision alone:

- each HTML page is site chrome, a generated page or a published entry's page (``404.html`` is the
  theme's); each other file is a page's static file or raw code download, a file of a theme (the same
  path and the same bytes as in the theme's folder) or of our own assets, a search index or a sitemap;
- each search record's location and each sitemap URL is such a page;
- no ``href``, ``src``, ``data``, ``srcset``, ``action``, ``poster``, CSS ``url()`` or refresh target in
  any page or search record names a withheld file (a draft, an unlisted page, a stray file) however it
  is spelled: letter case, percent-encoding, ``./`` and ``..``, ``index.html`` or a trailing slash,
  ``.md``, a query or fragment, an absolute URL on the site's own address or a ``<base href>``;
- each entry's static file and raw code download has exactly the bytes published (``Manifest.digests``);
- what each page says (``Manifest.text``, :mod:`site_plugins.publishing.signedtext`): the marker and the text of the
  signed version, the text of each generated and chrome page, and no words of anything unpublished.

Pure over the folder and the manifest; ``gloss audit`` (:mod:`site_plugins.cli.audit`) and the plugin's
last step call :func:`audit`. No symbolic link is followed.
"""

from __future__ import annotations

import codecs
import gzip
import hashlib
import html
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from site_plugins.files.messages import Problem
from site_plugins.publishing import forkmap, pagetext, signedtext, sitelinks
from site_plugins.publishing.fasttags import FastTags
from site_plugins.publishing.urlkeys import key, target_key

REMEDY = ("publish only what `gloss build` stages: sign the entry, or declare the file under the gloss plugin's "
          "'chrome:' option in mkdocs.yml")
LINK_REMEDY = "remove the link, or sign that entry so that it is published"
SEARCH_INDEXES = ("search/search_index.json", "search.json")  # MkDocs' search plugin; Zensical
WORD_FIELDS = ("also", "api")  # site_plugins.publishing.searchwords: word lists
SITEMAPS = ("sitemap.xml", "sitemap.xml.gz")
THEME_PAGES = ("404.html",)
MAX_INDEX_BYTES = 256 * 1024 * 1024
_URL_ATTRS = frozenset({"href", "src", "data", "srcset", "action", "formaction", "poster", "cite", "background",
                        "xlink:href", "longdesc", "manifest", "codebase", "archive", "usemap", "lowsrc", "dynsrc"})
_CSS_URL = re.compile(r"url\(\s*([\"']?)(.*?)\1\s*\)", re.IGNORECASE | re.DOTALL)
_REFRESH = re.compile(r"url\s*=\s*['\"]?([^'\"]+)", re.IGNORECASE)
_LOC = re.compile(r"<loc>\s*(.*?)\s*</loc>", re.IGNORECASE | re.DOTALL)
_LASTMOD = re.compile(r"<lastmod>(.*?)</lastmod>", re.IGNORECASE | re.DOTALL)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?")


@dataclass(frozen=True)
class Manifest:
    """What a published site may hold, from the publish decision (never from the built site)."""

    pages: frozenset[str]  # docs paths of every page: chrome, published entries, generated pages
    files: frozenset[str]  # site paths of every other file of ours: entries' static files, raw code
    withheld: Mapping[str, str]  # url key -> repo-relative path of what must not be published or linked
    site_url: str = ""
    # (site path prefix, folder) of theme and plugin assets: a file is one when the same bytes lie there
    asset_dirs: tuple[tuple[str, Path], ...] = ()
    digests: Mapping[str, str] = field(default_factory=dict)  # site path -> sha256 of the bytes to publish
    text: signedtext.Expected | None = None  # what each page must show and no page may (signedtext)
    theme_urls: tuple[str, ...] = ()  # URL prefixes the theme's templates request themselves (sitelinks)
    page_keys: frozenset[str] = field(init=False)  # for links: any spelling of a page
    page_files: frozenset[str] = field(init=False)  # for the site's own files: the exact paths
    page_uris: Mapping[str, str] = field(init=False)  # site path of a page's HTML -> its docs path

    def __post_init__(self) -> None:
        object.__setattr__(self, "page_keys", frozenset(key(p) for p in self.pages))
        object.__setattr__(self, "page_uris", {f: p for p in sorted(self.pages) for f in page_files(p)})
        object.__setattr__(self, "page_files", frozenset(self.page_uris))


def page_files(uri: str) -> tuple[str, ...]:
    """Where a page's HTML may lie: ``terms/x.md`` at ``terms/x/index.html`` (directory URLs) or
    ``terms/x.html``; an ``index.md`` at ``index.html`` beside it."""
    stem = uri[:-3] if uri.endswith(".md") else uri
    if stem == "index" or stem.endswith("/index"):
        return (f"{stem}.html",)
    return (f"{stem}/index.html", f"{stem}.html")


class Collector:
    """Every URL a page names: (line, tag, attribute, value) in ``found``; ``base`` from ``<base href>``;
    ``markers``: (line, content) of each ``<meta name="gloss-entry">`` (signedtext). A
    :class:`site_plugins.publishing.pagetext.Observer`, so the page is parsed once for its text and these."""

    def __init__(self) -> None:
        self.found: list[tuple[int, str, str, str]] = []
        self.base: str | None = None
        self.markers: list[tuple[int, str]] = []
        self._style = False

    def start(self, tag: str, attrs: list[tuple[str, str | None]], line: int) -> None:
        values = {k.lower(): v or "" for k, v in attrs}
        if tag == "base" and "href" in values and self.base is None:
            self.base = values["href"]
        if tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
            m = _REFRESH.search(values.get("content", ""))
            if m:
                self.found.append((line, tag, "content", m.group(1)))
        if tag == "meta" and values.get("name", "").lower() == signedtext.MARKER:
            self.markers.append((line, " ".join(values.get("content", "").split())))
        for name, value in values.items():
            if name in _URL_ATTRS:
                parts = [p.strip().split()[0] for p in value.split(",") if p.strip()] if name.endswith("srcset") \
                    else [value]
                self.found += [(line, tag, name, p) for p in parts]
            elif name == "style":
                self.found += [(line, tag, "style", m.group(2)) for m in _CSS_URL.finditer(value)]
            elif name == "srcdoc":  # a whole document inside the attribute: its links count too
                self.found += [(line, tag, "srcdoc", v) for _, _, _, v in links(value)[0]]
        self._style = tag == "style"

    def data(self, data: str, line: int) -> None:
        if self._style:
            self.found += [(line, "style", "url", m.group(2)) for m in _CSS_URL.finditer(data)]

    def end(self, tag: str) -> None:
        self._style = False


class _Links(FastTags):
    """A :class:`Collector` fed by a parser of its own (search records, ``srcdoc``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.collector = Collector()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.collector.start(tag, attrs, self.getpos()[0])

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        self.collector.data(data, self.getpos()[0])

    def handle_endtag(self, tag: str) -> None:
        self.collector.end(tag)


def links(markup: str) -> tuple[list[tuple[int, str, str, str]], str | None]:
    parser = _Links()
    parser.feed(markup)
    parser.close()
    return parser.collector.found, parser.collector.base


def link_problems(label: str, page: str, markup: str, manifest: Manifest,
                  present: frozenset[str] | None = None, collected: Collector | None = None) -> list[Problem]:
    """A problem per URL in ``markup`` (from the site path ``page``) that names a withheld file; with
    ``present`` (the keys of every file of the site), also per link to a file the site does not have and per
    request to another site (:mod:`site_plugins.publishing.sitelinks`). ``collected``: the page's URLs, when
    its one pass already found them."""
    out = []
    found, base = (collected.found, collected.base) if collected is not None else links(markup)
    keys = [target_key(value, page, manifest.site_url, base) for _, _, _, value in found]
    if present is not None:
        alive = [None if k in manifest.withheld else k for k in keys]  # (a withheld target: its own finding)
        out += sitelinks.problems(label, found, alive, present, manifest.site_url, manifest.theme_urls)
    for (line, tag, attr, value), k in zip(found, keys, strict=True):
        if k is not None and k in manifest.withheld and k not in manifest.page_keys:
            out.append(Problem(label, line, f"<{tag} {attr}> points to '{value.strip()}', which is "
                                            f"{manifest.withheld[k]}, not published", LINK_REMEDY))
    return out


def walk(site: Path) -> Iterator[tuple[str, bool]]:
    """(site path, is a symbolic link) of every file and link under ``site``, links not followed."""
    for folder, dirs, files in os.walk(site, followlinks=False):
        here = Path(folder)
        for name in sorted(files + [d for d in dirs if (here / d).is_symlink()]):
            p = here / name
            yield p.relative_to(site).as_posix(), p.is_symlink()


def audit(site: Path, manifest: Manifest, label: str | None = None) -> list[Problem]:
    """Every finding in ``site`` (each reported as ``label/site-path``), sorted; none means clean."""
    prefix = (label if label is not None else site.as_posix()).rstrip("/")
    out: list[Problem] = []
    listing = list(walk(site))
    # (A dead link's target is none of these; the site's own address counts, home page or not: a theme
    # links it from every page, and a site without a home page is no reason to fail every page.)
    present = frozenset({"", *(key(rel) for rel, linked in listing if not linked)})
    pages: list[str] = []
    for rel, linked in listing:
        where = f"{prefix}/{rel}"
        path = site / rel
        if linked:
            out.append(Problem(where, 1, "a symbolic link; a published site holds regular files only", REMEDY))
            continue
        lower = rel.casefold()
        if lower.endswith((".html", ".htm", ".xhtml")):
            pages.append(rel)
        elif rel in SEARCH_INDEXES:
            out += _search_problems(where, path, manifest)
        elif rel in SITEMAPS:
            out += _sitemap_problems(where, path, manifest)
        elif rel in manifest.files:
            want = manifest.digests.get(rel)
            if want is not None and digest(path.read_bytes()) != want:
                out.append(Problem(where, 1, "a file whose bytes are not the version published (as signed with "
                                             "the entry that uses it, or the code file as published)", REMEDY))
        elif not _is_asset(rel, path, manifest.asset_dirs):
            out.append(Problem(where, 1, "a file that is neither a theme asset, site chrome nor a published "
                                         "entry's file", REMEDY))

    def check(rels: Sequence[str]) -> list[Problem]:
        return [p for rel in rels for p in _page_problems(site, rel, f"{prefix}/{rel}", manifest, present)]

    out += forkmap.run(check, pages)  # (each page on its own: on every core, for a large site)
    return sorted(set(out))


def _page_problems(site: Path, rel: str, where: str, manifest: Manifest, present: frozenset[str]) -> list[Problem]:
    out = []
    if rel not in manifest.page_files and rel not in THEME_PAGES:  # (TERMS/X/ is another page)
        out.append(Problem(where, 1, "a page that is neither site chrome nor a published entry", REMEDY))
    markup = decode((site / rel).read_bytes())
    collected = Collector()
    text = pagetext.read(markup, collected)  # one pass: the page's text, its URLs and markers
    out += link_problems(where, rel, markup, manifest, present, collected)
    if manifest.text is not None:
        out += signedtext.page_problems(where, manifest.page_uris.get(rel), markup, manifest.text,
                                        text=text, markers=collected.markers, theme_page=rel in THEME_PAGES)
    return out


def decode(data: bytes) -> str:
    """A page's text as a browser decodes it: by its byte-order mark, else UTF-8 (what every engine writes)."""
    for bom, encoding in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                          (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                          (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    return data.decode("utf-8", errors="replace")


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _is_asset(rel: str, path: Path, dirs: tuple[tuple[str, Path], ...]) -> bool:
    size = path.stat().st_size
    for prefix, folder in dirs:
        if not rel.startswith(prefix):
            continue
        theirs = folder / rel[len(prefix):]
        if theirs.is_file() and theirs.stat().st_size == size and theirs.read_bytes() == path.read_bytes():
            return True
    return False


def _search_problems(where: str, path: Path, manifest: Manifest) -> list[Problem]:
    raw = path.read_bytes()[:MAX_INDEX_BYTES + 1]
    try:
        data = json.loads(raw) if len(raw) <= MAX_INDEX_BYTES else None
    except ValueError:
        data = None
    docs = data.get("docs", data.get("items")) if isinstance(data, dict) else None
    if not isinstance(docs, list):
        return [Problem(where, 1, "a search index that cannot be read as one", REMEDY)]
    out = []
    for i, record in enumerate(docs, start=1):
        loc = record.get("location") if isinstance(record, dict) else None
        if not isinstance(loc, str):
            out.append(Problem(where, i, "a search record without a location", REMEDY))
            continue
        if _page_of(loc) not in manifest.page_files:  # (a location is a site path, "" the home page)
            out.append(Problem(where, i, f"search record '{loc}' {_what(key(loc.split('#', 1)[0]), manifest)}",
                               REMEDY))
        text = record.get("text")
        if isinstance(text, str):
            out += [Problem(where, i, p.problem, p.remedy) for p in
                    link_problems(where, _page_of(loc), text, manifest)]
        if manifest.text is not None:
            title = record.get("title")
            out += signedtext.record_problems(where, i, title if isinstance(title, str) else "",
                                              text if isinstance(text, str) else "", manifest.text)
            # every other field, at any depth (tags, boosts, a field another engine or a plugin adds); our own
            # word lists (searchwords' ``also`` and ``api``) are lists, not sentences: each word is read alone,
            # so no run is read across two of them (a known gap: README, "The publishing gate")
            lists = [v for k, v in record.items() if k in WORD_FIELDS] if isinstance(record, dict) else []
            out += [p for value in _strings(lists) for w in value.split()
                    for p in signedtext.record_problems(where, i, "", w, manifest.text)]
            others = ([v for k, v in record.items() if k not in ("title", "text", *WORD_FIELDS)]
                      if isinstance(record, dict) else [])
            out += [p for value in _strings(others) for p in signedtext.record_problems(where, i, "", value,
                                                                                          manifest.text)]
    if manifest.text is not None and isinstance(data, dict):  # the index's own fields (its configuration)
        rest = [v for k, v in data.items() if k not in ("docs", "items")]
        out += [p for value in _strings(rest) for p in signedtext.record_problems(where, 1, "", value,
                                                                                    manifest.text)]
    return out


def _strings(value: object) -> Iterator[str]:
    """Every string in a JSON value, keys included, at any depth (iteratively: a deep index is no recursion)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            stack += [*v.keys(), *v.values()]
        elif isinstance(v, list):
            stack += v


def _what(k: str, manifest: Manifest) -> str:
    withheld = manifest.withheld.get(k)
    return f"is {withheld}, not published" if withheld else "is not a published page"


def _page_of(location: str) -> str:
    page = location.split("#", 1)[0]
    return f"{page}index.html" if page.endswith("/") or not page else page


def _sitemap_problems(where: str, path: Path, manifest: Manifest) -> list[Problem]:
    raw = path.read_bytes()
    try:
        text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8", errors="replace")
    except (OSError, EOFError):
        return [Problem(where, 1, "a sitemap that cannot be read as one", REMEDY)]
    out = []
    for m in _LOC.finditer(text):
        url = html.unescape(m.group(1))
        k = target_key(url, "index.html", manifest.site_url)
        if k is not None and k not in manifest.page_keys:
            line = text.count("\n", 0, m.start()) + 1
            out.append(Problem(where, line, f"sitemap URL '{url}' {_what(k, manifest)}", REMEDY))
    for m in _LASTMOD.finditer(text):
        if not _DATE.fullmatch(html.unescape(m.group(1)).strip()):
            out.append(Problem(where, text.count("\n", 0, m.start()) + 1,
                               f"sitemap lastmod '{signedtext.snippet(m.group(1).strip())}' is not a date", REMEDY))
    if manifest.text is not None:  # every part: comments, lastmod, any element or attribute a tool reads
        out += signedtext.page_problems(where, None, text, manifest.text)
    return out
