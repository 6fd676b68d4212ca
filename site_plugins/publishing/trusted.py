"""What a published build trusts in ``mkdocs.yml`` without a signature: a fail-closed allowlist.

A signature covers an entry's own files. Everything else that can put text on a published page is named in
``mkdocs.yml``, so the gate reads that file's node tree (with its lines) and refuses, as
``mkdocs.yml:LINE: problem; remedy``, every key, theme option, plugin, Markdown extension or option that is
not on the lists below. What passes is:

- the file's own words (site name, description, copyright, ``extra:`` values, option values): site chrome,
  written in the file itself and reviewed with it like code; the audit still refuses any of them that
  quotes an unpublished entry;
- installed packages, by name: the theme (its own folder's bytes, never a ``custom_dir``), MkDocs' search
  plugin, the gloss plugin, and the Markdown extensions listed in :data:`EXTENSIONS`, none of which reads a
  file or runs code named in the configuration;
- Python objects named in an option only from :data:`CALLABLES` (slug and emoji functions, fence
  formatters), and the environment only for ``site_url`` (``!ENV``).

Refused, because each brings in text or code from outside both the signatures and this file: include
extensions (``pymdownx.snippets`` and its ``auto_append``, ``pymdownx.b64``, any extension not listed),
``abbr``'s ``glossary``, ``theme.custom_dir`` and ``static_templates`` (template overrides of any page,
``404.html`` and ``sitemap.xml`` included), ``hooks``, ``extra_templates``, ``INHERIT`` (a second file), other
plugins, ``nav`` (the plugin builds the navigation from published entries), ``extra_css``/``extra_javascript``
that are not files declared under the gloss plugin's ``chrome:`` option, any other ``!ENV`` or Python tag,
and any key not listed. The lists are the one place to widen the boundary, each addition reviewed as such.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from site_plugins.files import boundedyaml, textfile
from site_plugins.files.messages import Problem

FILE = "mkdocs.yml"
REMEDY = ("remove it for a published build; if it only changes how trusted text looks, widen the allowlist in "
          "site_plugins/publishing/trusted.py in a reviewed change")

#: Top-level keys whose values put no text on a page from anywhere but this file.
KEYS = frozenset({
    "site_name", "site_url", "site_description", "site_author", "copyright", "repo_url", "repo_name", "edit_uri",
    "edit_uri_template", "docs_dir", "site_dir", "theme", "plugins", "markdown_extensions", "validation",
    "strict", "dev_addr", "use_directory_urls", "extra_css", "extra_javascript", "exclude_docs", "not_in_nav",
    "draft_docs", "watch", "remote_branch", "remote_name", "extra",
})
WHY_KEY = {
    "hooks": "runs Python code from the project on every build",
    "extra_templates": "renders templates from the docs folder into pages",
    "INHERIT": "reads a second configuration file",
    "nav": "names pages and labels that the plugin decides from published entries",
    "google_analytics": "adds a third-party script",
}
#: Theme options that choose among the installed theme's own looks.
THEME = frozenset({
    "name", "language", "locale", "features", "palette", "font", "icon", "logo", "favicon", "direction",
    "highlightjs", "hljs_languages", "hljs_style", "navigation_depth", "nav_style", "shortcuts",
    "sticky_navigation", "collapse_navigation", "titles_only", "include_homepage_in_sidebar",
    "prev_next_buttons_location", "color_mode", "user_color_mode_toggle",
})
WHY_THEME = {
    "custom_dir": "replaces the theme's templates (any page, 404.html and sitemap.xml included) with files that "
                  "no signature covers",
    "static_templates": "renders extra templates into the site",
}
#: Plugins by name; the gloss plugin is required (see :func:`gloss_problem`).
PLUGINS = frozenset({"search", "material/search", "gloss"})
#: Markdown extensions that read no file and run no code named in the configuration -> options refused
#: (``abbr``'s glossary puts its own text on pages; ``pymdownx.emoji``'s options name icon folders to read).
EXTENSIONS: dict[str, frozenset[str]] = {name: frozenset(refused) for name, refused in {
    "abbr": {"glossary"}, "admonition": (), "attr_list": (), "def_list": (), "footnotes": (), "md_in_html": (),
    "tables": (), "toc": (), "sane_lists": (), "smarty": (), "fenced_code": (), "codehilite": (), "nl2br": (),
    "pymdownx.highlight": (), "pymdownx.superfences": (), "pymdownx.inlinehilite": (), "pymdownx.details": (),
    "pymdownx.tabbed": (), "pymdownx.tasklist": (), "pymdownx.emoji": {"options"}, "pymdownx.mark": (),
    "pymdownx.tilde": (), "pymdownx.caret": (), "pymdownx.keys": (), "pymdownx.betterem": (),
    "pymdownx.smartsymbols": (), "pymdownx.saneheaders": (),
}.items()}
WHY_EXTENSION = {
    "pymdownx.snippets": "includes other files' text (--8<-- lines, auto_append) into pages",
    "pymdownx.b64": "embeds files from disk into pages",
    "markdown_include.include": "includes other files' text into pages",
    "mdx_include": "includes other files' text into pages",
}
#: Python objects an option may name (``!!python/name:``), each a pure function of the signed text.
CALLABLES = frozenset({
    "pymdownx.slugs.slugify",
    "pymdownx.superfences.fence_code_format", "pymdownx.superfences.fence_div_format",
    "material.extensions.emoji.twemoji", "material.extensions.emoji.to_svg", "pymdownx.emoji.twemoji",
    "pymdownx.emoji.emojione", "pymdownx.emoji.gemoji", "pymdownx.emoji.to_svg", "pymdownx.emoji.to_png",
    "pymdownx.emoji.to_alt", "pymdownx.emoji.to_png_sprite", "pymdownx.emoji.to_svg_sprite",
})
_PYTHON_TAG = re.compile(r"^tag:yaml\.org,2002:python/(?:name|object/apply):(?P<name>.+)$")
_PLAIN_TAG = re.compile(r"^tag:yaml\.org,2002:(str|int|float|bool|null|seq|map|timestamp)$")


def problems(config_file: Path, chrome: tuple[str, ...] | None = None) -> list[Problem]:
    """Every reason ``config_file`` is not trusted for a published build (none: trusted). ``chrome``: the
    gloss plugin's chrome list when already known (else read from the file)."""
    label = config_file.name if config_file.name == FILE else config_file.as_posix()
    text, found = textfile.read(config_file, label)
    if text is None:
        return found
    node, found = boundedyaml.parse_yaml(text, label, allow_aliases=True)
    if found or node is None:
        return found
    if not isinstance(node, yaml.MappingNode):
        return [Problem(label, 1, "the configuration is not a mapping of keys", "write mkdocs.yml as MkDocs expects")]
    return sorted(set(_Check(label, chrome).top(node)))


class _Check:
    def __init__(self, label: str, chrome: tuple[str, ...] | None) -> None:
        self.label = label
        self.chrome = chrome

    def at(self, node: yaml.Node, problem: str, remedy: str = REMEDY) -> Problem:
        return Problem(self.label, boundedyaml.line(node), problem, remedy)

    def top(self, root: yaml.MappingNode) -> Iterator[Problem]:
        plugins = next((v for k, v in root.value if _key(k) == "plugins"), None)
        if self.chrome is None:
            self.chrome = _chrome(plugins)
        for k, v in root.value:  # (every pair: a key written twice is checked twice)
            name = _key(k)
            if name not in KEYS:
                why = WHY_KEY.get(name, "is not on the list of keys a published build trusts")
                yield self.at(k, f"'{name}' {why}, so a published build refuses it")
                continue
            if name == "site_url":
                yield from self.values(v, f"'{name}'", env=True)
            elif name == "theme":
                yield from self.theme(v)
            elif name == "plugins":
                yield from self.plugins(v)
            elif name == "markdown_extensions":
                yield from self.extensions(v)
            elif name in ("extra_css", "extra_javascript"):
                yield from self.assets(name, v)
            else:
                yield from self.values(v, f"'{name}'")
        if plugins is None or "gloss" not in {n for n, _, _ in _items(plugins)}:
            key = next((k for k, _ in root.value if _key(k) == "plugins"), None)
            yield gloss_problem(self.label, boundedyaml.line(key) if key is not None else 1)

    def values(self, node: yaml.Node, where: str, *, env: bool = False) -> Iterator[Problem]:
        """Plain values only: no environment but where allowed, no Python object but from CALLABLES."""
        tag = node.tag or ""
        python = _PYTHON_TAG.match(tag)
        if tag == "!ENV":
            if not env:
                yield self.at(node, f"{where} takes its value from the environment (!ENV), so what is published "
                                    "would depend on it", "write the value itself in mkdocs.yml")
            return
        if python is not None:
            if python["name"] not in CALLABLES:
                yield self.at(node, f"{where} names the Python object '{python['name']}', which a published build "
                                    "does not run")
            return
        if tag.startswith("!") or (tag.startswith("tag:yaml.org,2002:") and not _PLAIN_TAG.match(tag)):
            yield self.at(node, f"{where} is tagged '{tag}', which a published build does not read")
            return
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                yield from self.values(v, f"{where[:-1]}.{_key(k)}'", env=env)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                yield from self.values(item, where, env=env)

    def theme(self, node: yaml.Node) -> Iterator[Problem]:
        if not isinstance(node, yaml.MappingNode):
            yield from self.values(node, "'theme'")
            return
        for k, v in node.value:
            name = _key(k)
            if name not in THEME:
                why = WHY_THEME.get(name, "is not on the list of theme options a published build trusts")
                yield self.at(k, f"'theme.{name}' {why}, so a published build refuses it")
            else:
                yield from self.values(v, f"'theme.{name}'")

    def plugins(self, node: yaml.Node) -> Iterator[Problem]:
        for name, k, v in _items(node):
            if _tagged(k):
                yield from self.values(k, "'plugins'")
            elif name not in PLUGINS:
                yield self.at(k, f"the plugin '{name}' is not on the list of plugins a published build trusts "
                                 "(search and gloss), so a published build refuses it")
            elif v is not None:
                for ok, ov in v.value if isinstance(v, yaml.MappingNode) else ():
                    yield from self.values(ov, f"'plugins.{name}.{_key(ok)}'")

    def extensions(self, node: yaml.Node) -> Iterator[Problem]:
        for name, k, v in _items(node):
            if _tagged(k):
                yield from self.values(k, "'markdown_extensions'")
                continue
            if name not in EXTENSIONS:
                why = WHY_EXTENSION.get(name, "is not on the list of Markdown extensions a published build trusts")
                yield self.at(k, f"the Markdown extension '{name}' {why}, so a published build refuses it")
                continue
            for ok, ov in v.value if isinstance(v, yaml.MappingNode) else ():
                option = _key(ok)
                if option in EXTENSIONS[name]:
                    yield self.at(ok, f"the option '{option}' of '{name}' puts text from outside the signed entries "
                                      "on pages, so a published build refuses it")
                else:
                    yield from self.values(ov, f"'{name}.{option}'")

    def assets(self, name: str, node: yaml.Node) -> Iterator[Problem]:
        items = node.value if isinstance(node, yaml.SequenceNode) else [node]
        for item in items:
            path = item
            if isinstance(item, yaml.MappingNode):
                path = next((v for k, v in item.value if _key(k) == "path"), item)
            value = path.value if isinstance(path, yaml.ScalarNode) and not (path.tag or "").startswith("!") else None
            if value is None or value not in (self.chrome or ()):
                shown = value if value is not None else "(not a plain path)"
                yield self.at(item, f"'{name}' lists '{shown}', which is not a file declared under the gloss "
                                    "plugin's 'chrome:' option, so a published build refuses it",
                              "commit the file under the docs folder and list it under 'chrome:', or remove it")


def gloss_problem(label: str, line: int) -> Problem:
    return Problem(label, line, "the gloss plugin is not enabled, so nothing decides what may be published and a "
                                "build would publish every draft", "list '- gloss' under 'plugins:' (and never "
                                "'enabled: false' for it)")


def _tagged(node: yaml.Node) -> bool:
    """Written with a tag of its own (``!ENV``, a Python object): not a plain name."""
    tag = node.tag or ""
    return tag.startswith("!") or (tag.startswith("tag:yaml.org,2002:") and not _PLAIN_TAG.match(tag))


def _key(node: yaml.Node) -> str:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else "?"


def _items(node: yaml.Node | None) -> Iterator[tuple[str, yaml.Node, yaml.Node | None]]:
    """(name, name node, options node) of a plugin or extension list (a list of names or one-key mappings,
    or a mapping of names); an entry whose ``enabled`` is false is left out (MkDocs drops it)."""
    if isinstance(node, yaml.SequenceNode):
        pairs: list[tuple[yaml.Node, yaml.Node | None]] = []
        for item in node.value:
            if isinstance(item, yaml.MappingNode):
                pairs += [(k, v) for k, v in item.value]
            else:
                pairs.append((item, None))
    elif isinstance(node, yaml.MappingNode):
        pairs = [(k, v) for k, v in node.value]
    else:
        return
    for k, v in pairs:
        name = _key(k)
        name = name[len("markdown.extensions."):] if name.startswith("markdown.extensions.") else name
        if isinstance(v, yaml.MappingNode) and any(_key(a) == "enabled" and _false(b) for a, b in v.value):
            continue
        yield name, k, v


def _false(node: Any) -> bool:
    return isinstance(node, yaml.ScalarNode) and str(node.value).lower() in ("false", "no", "off")


def _chrome(plugins: yaml.Node | None) -> tuple[str, ...]:
    for name, _, v in _items(plugins):
        if name == "gloss" and isinstance(v, yaml.MappingNode):
            for k, c in v.value:
                if _key(k) == "chrome" and isinstance(c, yaml.SequenceNode):
                    return tuple(str(i.value) for i in c.value if isinstance(i, yaml.ScalarNode))
        if name == "gloss":
            return ("index.md",)
    return ()
