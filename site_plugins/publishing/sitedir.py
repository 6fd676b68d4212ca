"""The site folder: built beside the target and swapped in whole, previews kept out of the published one,
and the build's summary counted from what the folder holds.

MkDocs writes into its site folder as it goes and leaves what it wrote when a build fails. Both ``gloss
build`` and the plugin (under a plain ``mkdocs build``) build into a fresh sibling folder instead and swap
it in only once the build and its audit passed, so a refused build leaves the last good site as it was.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import yaml

from site_plugins.files import boundedyaml, textfile
from site_plugins.publishing import audit, pipeline, render

PREVIEW_WORD = "preview"
DEPLOY_PREVIEW = ("a preview shows drafts, so `mkdocs gh-deploy` never deploys one; deploy the published site "
                  "without GLOSS_PREVIEW and the plugin's 'preview: true'")


def fresh_beside(target: Path) -> Path:
    """A new empty folder next to ``target`` (same file system, so the swap is two renames)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{target.name}.building-", dir=target.parent))
    fresh.chmod(0o777 & ~_umask())  # (mkdtemp makes it 0700: a web server running as another user could not read it)
    return fresh


def _umask() -> int:
    mask = os.umask(0o022)  # (reading the umask means setting it: set it back at once)
    os.umask(mask)
    return mask


def swap(fresh: Path, target: Path) -> None:
    """Replace ``target`` with ``fresh``: two renames on one file system, the old copy removed after."""
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists() or target.is_symlink():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def declared(config_file: Path) -> Path:
    """The published folder: ``site_dir`` as mkdocs.yml writes it (``site`` when it does not), resolved."""
    root = config_file.resolve().parent
    text, _ = textfile.read(config_file, config_file.name)
    node, _ = boundedyaml.parse_yaml(text or "", config_file.name, allow_aliases=True)
    value = "site"
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if getattr(k, "value", None) == "site_dir" and isinstance(v, yaml.ScalarNode) and v.tag and \
                    not v.tag.startswith("!"):
                value = str(v.value)
    return (root / value).resolve()


def preview_refusal(target: Path, config_file: Path) -> str | None:
    """Why a preview (drafts shown) may not be written to ``target``, or None. A preview goes only to a
    folder named as one (``site-preview``), never to the published folder, whatever the options say."""
    target = target.resolve()
    published = declared(config_file)
    if target == published or PREVIEW_WORD not in target.name.casefold():
        return (f"a preview shows drafts, so it is never written to {target.name}/ (only to a folder whose name "
                f"says '{PREVIEW_WORD}', and never to the published folder {published.name}/); build the preview "
                "with `gloss build --preview -d site-preview` (make preview), or build the published site without "
                "GLOSS_PREVIEW and the plugin's 'preview: true'")
    return None


def counts(site: Path, built: pipeline.Build) -> tuple[int, int, int, int]:
    """(entries whose page the folder holds, how many of those are published, how many of the published
    ones are shown as last signed while a later change waits, entries in all)."""
    shown = published = changed = 0
    for e in built.content.entries():
        if any((site / f).is_file() for f in audit.page_files(e.src_uri)):
            st = built.states[e.path]
            shown += 1
            published += st.published
            changed += st.published and st.state == "changed"
    return shown, published, changed, render.tally(built.states).total


def summary(site: Path, built: pipeline.Build | None, *, preview: bool) -> str:
    """One line, counted from the folder: what was published (or, for a preview, what it shows)."""
    if built is None:
        return "published 0 entries"
    shown, published, changed, total = counts(site, built)
    if preview:  # it counts what it shows, as its home page does
        drafts = shown - published
        what = f"all {total}" if shown == total else f"{shown} of {total}"
        tail = f"; {drafts} of them unsigned drafts: gloss status" if drafts else ", all of them signed"
        return f"preview of {what} entries{tail}"
    waiting = total - published
    last_signed = f" ({render.as_last_signed(changed)})" if changed else ""
    tail = f"; {waiting} await sign-off" if waiting else ""
    see = ": gloss status" if waiting or changed else ""
    return f"published {published} of {total} entries{last_signed}{tail}{see}"
