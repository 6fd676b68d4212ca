"""Build real tiny MkDocs sites in a temporary folder (used by the build tests of every plugin part)."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config

BASE_CONFIG = """\
site_name: Tiny glossary
docs_dir: content
site_dir: site
theme:
  name: {theme}
plugins:
  - search
  - gloss{plugin_options}
markdown_extensions:
  - admonition
  - attr_list
  - md_in_html
  - pymdownx.highlight
  - pymdownx.superfences
"""


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n") if not text.startswith("---") else text,
                        encoding="utf-8")


def make_site(root: Path, files: Mapping[str, str], *, theme: str = "mkdocs",
              plugin_options: str = "") -> Path:
    """Write ``files`` (repo-relative path -> text) and a mkdocs.yml under ``root``."""
    (root / "content").mkdir(parents=True, exist_ok=True)
    opts = f":\n      {plugin_options}" if plugin_options else ""
    if "mkdocs.yml" not in files:
        (root / "mkdocs.yml").write_text(BASE_CONFIG.format(theme=theme, plugin_options=opts), encoding="utf-8")
    write_tree(root, files)
    return root


def build_site(root: Path, *, strict: bool = True, site_dir: str | None = None) -> Path:
    """Run a real ``mkdocs build`` (raises mkdocs.exceptions.Abort when strict and warned). A preview (the
    gloss plugin's ``preview: true`` or GLOSS_PREVIEW) goes to ``site-preview`` unless told otherwise: the
    plugin never writes drafts into the published folder (so ``site_dir`` gets "-preview" appended)."""
    text = (root / "mkdocs.yml").read_text(encoding="utf-8")
    shown = "preview: true" in text or os.environ.get("GLOSS_PREVIEW", "") not in ("", "0")
    site_dir = site_dir or "site"
    if shown and "preview" not in site_dir:
        site_dir += "-preview"
    cfg = load_config(str(root / "mkdocs.yml"), strict=strict, site_dir=str(root / site_dir))
    build(cfg)
    return root / site_dir
