"""``gloss build``: a whole-or-nothing MkDocs build (``make site`` and ``make preview`` call it).

MkDocs writes into its site folder as it goes and leaves whatever it wrote when a strict build aborts.
Here the site is built into a fresh sibling folder and moved into place only when the build succeeded,
so a failed build leaves the last good site exactly as it was. The last line says what was published::

    published 3 of 17 entries; 14 await sign-off: gloss status

(a preview: ``preview of all 17 entries; 14 of them unsigned drafts: gloss status``), after a line per
published entry changed since sign-off, whose signed version the site keeps showing.

Exit codes: 0 built and in place; 1 the build failed (content problems in a strict build, or a
structural problem), the old site kept; 2 usage or environment error (no mkdocs.yml).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from site_plugins.publishing import pipeline, render


def summary(built: pipeline.Build | None) -> str:
    """One line: how many entries were published and how many wait for sign-off; for a preview (which
    shows every entry, drafts included), how many it shows and how many of them are drafts."""
    if built is None:
        return "published 0 entries"
    t = render.tally(built.states)  # the same count the home page states
    if built.preview:
        drafts = f"; {t.waiting} of them unsigned drafts: gloss status" if t.waiting else ", all of them signed"
        return f"preview of all {t.total} entries{drafts}"
    changed = f" ({render.as_last_signed(t.changed)})" if t.changed else ""
    tail = f"; {t.waiting} await sign-off" if t.waiting else ""
    see = ": gloss status" if t.waiting or t.changed else ""
    return f"published {t.published} of {t.total} entries{changed}{tail}{see}"


def _umask() -> int:
    mask = os.umask(0o022)  # (reading the umask means setting it: set it back at once)
    os.umask(mask)
    return mask


def changed_lines(built: pipeline.Build | None) -> list[str]:
    """A line per published entry whose working copy changed since it was signed: the site shows the
    version signed earlier until the change is signed again."""
    if built is None or built.preview:  # a preview shows the working copy
        return []
    return [f"{path}: changed since sign-off; the site shows the version signed earlier until the change is "
            f"signed again: gloss diff {path}"
            for path, st in sorted(built.states.items()) if st.state == "changed" and st.published]


def _swap_into_place(fresh: Path, site: Path) -> None:
    """Replace ``site`` with ``fresh``: two renames on one file system, the old copy removed after."""
    old = site.with_name(f".{site.name}.old-{os.getpid()}")
    if site.exists():
        site.rename(old)
    fresh.rename(site)
    shutil.rmtree(old, ignore_errors=True)


def build_site(config_file: Path, site_dir: Path, *, strict: bool) -> tuple[bool, pipeline.Build | None, str]:
    """Build into a temporary folder next to ``site_dir`` and move it into place only on success.
    Returns (ok, the gloss build's data or None, why it failed)."""
    site_dir = site_dir.resolve()
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}.building-", dir=site_dir.parent))
    try:
        cfg = load_config(str(config_file), strict=strict, site_dir=str(fresh))
        build(cfg)
    except (MkDocsException, OSError) as exc:  # Abort, PluginError, ConfigurationError, ...
        shutil.rmtree(fresh, ignore_errors=True)
        return False, None, str(exc) or type(exc).__name__
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    plugin = cfg.plugins.get("gloss")
    built = getattr(plugin, "build", None)
    fresh.chmod(0o777 & ~_umask())  # (mkdtemp makes it 0700: a web server running as another user could not read it)
    _swap_into_place(fresh, site_dir)
    return True, built if isinstance(built, pipeline.Build) else None, ""


def _kept(site_dir: Path, existed: bool) -> str:
    if existed:
        return f"{site_dir} is unchanged (the last good build stays)"
    return f"no site was written ({site_dir} does not exist: there is no earlier good build to keep)"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gloss build", description="Build the site; keep the old one on failure.")
    parser.add_argument("--config-file", "-f", type=Path, default=Path("mkdocs.yml"), help="the MkDocs config")
    parser.add_argument("--site-dir", "-d", type=Path, default=Path("site"), help="where the site goes")
    parser.add_argument("--no-strict", dest="strict", action="store_false",
                        help="publish despite content problems (as `make preview` does); structural ones still fail")
    args = parser.parse_args(argv)
    if not args.config_file.is_file():
        print(f"gloss build: no MkDocs config at {args.config_file}", file=sys.stderr)
        return 2
    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    existed = args.site_dir.exists()
    from site_plugins.cli.check import config_problem

    bad = config_problem(args.config_file.resolve().parent, args.config_file.name)
    if bad is not None:
        print(bad, file=sys.stderr)
        print(f"gloss build: failed; {_kept(args.site_dir, existed)}", file=sys.stderr)
        return 1
    try:
        ok, built, why = build_site(args.config_file, args.site_dir, strict=args.strict)
    finally:
        logger.removeHandler(handler)
    if not ok:
        print(f"gloss build: {why}", file=sys.stderr)
        print(f"gloss build: failed; {_kept(args.site_dir, existed)}", file=sys.stderr)
        return 1
    for line in changed_lines(built):
        print(line)
    print(summary(built))
    return 0
