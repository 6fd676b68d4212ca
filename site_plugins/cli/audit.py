"""``gloss audit SITE_DIR``: check a built site against the publish decision, whatever engine built it.

The decision is made again from the project (content, ``signoff.yaml``, results, the ``chrome:`` list
in ``mkdocs.yml``) exactly as a normal build makes it, never in preview, then
:func:`site_plugins.publishing.audit.audit` walks the folder. Exit codes: 0 clean, 1 findings (each
printed as ``path:line: problem; remedy``), 2 usage or environment error (no such folder, no usable ``mkdocs.yml``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from site_plugins.cli.common import parse
from site_plugins.links import evidence
from site_plugins.publishing import audit, checks, pipeline, signedtext, staging, trusted


def manifest(config_file: Path) -> audit.Manifest:
    return expectation(config_file)[0]


def expectation(config_file: Path, reuse: pipeline.Reuse | None = None) -> tuple[audit.Manifest, pipeline.Build]:
    """What a published site of this project may hold, decided from the project alone (content,
    signoff.yaml, results, the trusted parts of mkdocs.yml; no plugin event runs). Raises MkDocsException
    on an unusable or untrusted config and EvidenceError on an unusable link evidence file. ``reuse``: the
    results as the build just judged them (:class:`pipeline.Reuse`; checked again against the files' times)."""
    from mkdocs.config import load_config
    from mkdocs.exceptions import ConfigurationError

    refused = trusted.problems(config_file)
    if refused:
        raise ConfigurationError("mkdocs.yml holds what a published build does not trust:\n"
                                 + "\n".join(f"  {p}" for p in refused))
    cfg = load_config(str(config_file))
    plugin = cfg.plugins.get("gloss")
    if plugin is None:
        raise ConfigurationError(f"{config_file} does not use the gloss plugin")
    root = config_file.resolve().parent
    opts = plugin.options
    opts = dataclasses.replace(opts, docs_dir=Path(cfg.docs_dir).resolve().relative_to(root).as_posix(),
                               preview=False)  # a published site never shows drafts
    checked = checks.run(root, opts, reuse=reuse)
    text = signedtext.expect(checked.build, checked.handwritten, opts.chrome, opts.docs_dir,
                             signedtext.renderer(cfg), staging.page_reader(root, opts.docs_dir),
                             signedtext.theme_words(staging.theme_folders(cfg.theme.dirs, cfg.theme.custom_dir)))
    return staging.manifest(checked.staged, checked.build, opts.docs_dir, site_url=cfg.site_url or "",
                            asset_dirs=staging.asset_dirs(cfg.theme.dirs, cfg.theme.custom_dir),
                            text=text), checked.build


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="gloss audit", description="Check that a built site holds only chrome and signed entries, and "
                                        "links to no draft; works on a site built by any engine.")
    parser.add_argument("site_dir", type=Path, help="the built site, e.g. site")
    parser.add_argument("--config-file", "-f", type=Path, default=Path("mkdocs.yml"),
                        help="the project's MkDocs config")
    args = parse(parser, argv)
    if isinstance(args, int):
        return args
    if not args.site_dir.is_dir():
        print(f"gloss audit: no site folder at {args.site_dir}", file=sys.stderr)
        return 2
    if not args.config_file.is_file():
        print(f"gloss audit: no MkDocs config at {args.config_file}", file=sys.stderr)
        return 2
    from mkdocs.exceptions import MkDocsException

    try:
        expected = manifest(args.config_file)
    except (MkDocsException, evidence.EvidenceError, ValueError) as exc:
        print(f"gloss audit: {exc}", file=sys.stderr)
        return 2
    findings = audit.audit(args.site_dir, expected, label=args.site_dir.as_posix())
    for finding in findings:
        print(finding)
    if findings:
        print(f"gloss audit: {len(findings)} finding{'s' if len(findings) > 1 else ''} in {args.site_dir}",
              file=sys.stderr)
        return 1
    print(f"gloss audit: {args.site_dir} holds only site chrome and published entries")
    return 0
