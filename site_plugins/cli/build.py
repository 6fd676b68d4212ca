"""``gloss build``: a whole-or-nothing MkDocs build (``make site`` and ``make preview`` call it).

MkDocs writes into its site folder as it goes and leaves whatever it wrote when a strict build aborts.
Here the site is built into a fresh sibling folder and moved into place only when the build succeeded
and, for a published build, the final audit (its expectation computed from the project, after every
plugin ran) found nothing, so a failed build leaves the last good site exactly as it was. What kind of
build it is comes from ``--preview`` alone, never from ``GLOSS_PREVIEW`` or the plugin's ``preview:``
option: ``gloss build -d site`` is always a published build, and a preview goes only to a folder named as
one. The last line says what the folder holds::

    published 3 of 17 entries; 14 await sign-off: gloss status

(a preview: ``preview of all 17 entries; 14 of them unsigned drafts: gloss status``), after a line per
published entry changed since sign-off, whose signed version the site keeps showing.

Exit codes: 0 built and in place; 1 the build failed or was refused (content problems in a strict build,
an untrusted mkdocs.yml, audit findings, a structural problem), the old site kept; 2 usage or environment
error (no mkdocs.yml, a preview aimed at the published folder).
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from site_plugins.cli.audit import expectation
from site_plugins.files.messages import Problem
from site_plugins.publishing import audit, pipeline, sitedir, sitelinks, trusted

NOT_RUN = "the gloss plugin did not run, so nothing decided what may be published"
log = logging.getLogger("mkdocs.plugins.gloss")


def build_site(config_file: Path, site_dir: Path, *, strict: bool, preview: bool = False,
               ) -> tuple[bool, pipeline.Build | None, str]:
    """Build into a temporary folder next to ``site_dir`` and move it into place only on success (a
    published build: only once the audit of the finished folder found nothing).
    Returns (ok, the gloss build's data or None, why it failed)."""
    site_dir = site_dir.resolve()
    if not preview and (refused := trusted.problems(config_file)):
        return False, None, "mkdocs.yml holds what a published build does not trust:\n" + "\n".join(
            f"  {p}" for p in refused)
    fresh = sitedir.fresh_beside(site_dir)
    try:
        cfg = load_config(str(config_file), strict=strict, site_dir=str(fresh))
        plugin = cfg.plugins.get("gloss")
        if plugin is None or not hasattr(plugin, "forced_preview"):
            shutil.rmtree(fresh, ignore_errors=True)
            return False, None, str(trusted.gloss_problem(config_file.name, 1))
        # (MkDocs keeps a plugin object that defines on_startup for the rest of the process: reset after.)
        # The result files are read and judged once, for the build and for the audit's expectation alike (the
        # allowlist above leaves no other plugin that could reach them in between).
        shared = pipeline.Reuse()
        plugin.forced_preview, plugin.outer_swap, plugin.shared = preview, True, shared
        try:
            build(cfg)
        finally:
            plugin.forced_preview, plugin.outer_swap, plugin.shared = None, False, None
        built = getattr(plugin, "build", None)
        if not isinstance(built, pipeline.Build):
            raise MkDocsException(NOT_RUN)
        if not preview:  # after every plugin and hook: the folder as it would be published
            manifest, _ = expectation(config_file, shared)
            findings = audit.audit(fresh, manifest, label=_shown(site_dir, config_file))
            _content_findings(plugin, [f for f in findings if sitelinks.content_finding(f)], strict=strict)
            if gate := [f for f in findings if not sitelinks.content_finding(f)]:
                raise MkDocsException("gloss audit: the built site holds what is not published:\n"
                                      + "\n".join(f"  {p}" for p in gate))
    except (MkDocsException, OSError) as exc:  # Abort, PluginError, ConfigurationError, ...
        shutil.rmtree(fresh, ignore_errors=True)
        return False, None, str(exc) or type(exc).__name__
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    sitedir.swap(fresh, site_dir)
    return True, built, ""


def changed_lines(built: pipeline.Build | None) -> list[str]:
    """A line per published entry whose working copy changed since it was signed: the site shows the
    version signed earlier until the change is signed again."""
    if built is None or built.preview:  # a preview shows the working copy
        return []
    return [f"{path}: changed since sign-off; the site shows the version signed earlier until the change is "
            f"signed again: gloss diff {path}"
            for path, st in sorted(built.states.items()) if st.state == "changed" and st.published]


def _content_findings(plugin: object, found: list[Problem], *, strict: bool) -> None:
    """Dead links and requests to other sites are content problems, as under a plain ``mkdocs build``: logged
    as warnings, so a strict build fails on them and ``--no-strict`` publishes. (The audit runs here after
    MkDocs counted its warnings, so the strict abort is said here.) Once the checks found problems, what
    follows from them in the built pages is not said twice."""
    checked = getattr(plugin, "checked", None)
    if not found or checked is None or checked.problems:
        return
    for p in found:
        log.warning(str(p))
    if strict:
        raise MkDocsException(f"Aborted with {len(found)} warnings in strict mode!")


def _shown(site: Path, config_file: Path) -> str:
    try:
        return site.relative_to(config_file.resolve().parent).as_posix()
    except ValueError:
        return site.as_posix()


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
    parser.add_argument("--preview", action="store_true",
                        help="show drafts with a banner (make preview); only into a folder named as a preview")
    args = parser.parse_args(argv)
    if not args.config_file.is_file():
        print(f"gloss build: no MkDocs config at {args.config_file}", file=sys.stderr)
        return 2
    if args.preview and (why := sitedir.preview_refusal(args.site_dir, args.config_file)) is not None:
        print(f"gloss build: {why}", file=sys.stderr)
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
        ok, built, why = build_site(args.config_file, args.site_dir, strict=args.strict, preview=args.preview)
    finally:
        logger.removeHandler(handler)
    if not ok:
        print(f"gloss build: {why}", file=sys.stderr)
        print(f"gloss build: failed; {_kept(args.site_dir, existed)}", file=sys.stderr)
        return 1
    for line in changed_lines(built):
        print(line)
    print(sitedir.summary(args.site_dir, built, preview=args.preview))
    return 0
