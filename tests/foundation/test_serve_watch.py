"""`make serve` rebuilds when measured code, results, sign-offs or link evidence change."""

from __future__ import annotations

import time
from pathlib import Path

from mkdocs.config import load_config
from mkdocs.livereload import LiveReloadServer
from sitekit import make_site
from tinyproject import project

from site_plugins.plugin import GlossPlugin


def test_serve_watches_code_results_signoff_and_evidence(tmp_path: Path) -> None:
    root = make_site(tmp_path, project() | {"measure/results/n/x.json": "{}", "signoff.yaml": "",
                                            "links-evidence.json": "{}"})
    config = load_config(str(root / "mkdocs.yml"))
    plugin = config.plugins["gloss"]
    assert isinstance(plugin, GlossPlugin)
    config = plugin.on_config(config)
    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path / "site"),
                              polling_interval=0.05)
    plugin.on_serve(server, config=config, builder=lambda: None)
    watched = set(server._watched_paths)
    assert {str(root / p) for p in ("code", "measure/results", "signoff.yaml", "links-evidence.json")} <= watched

    # And a change under code/ really asks for a rebuild.
    server.observer.start()
    try:
        time.sleep(0.3)
        (root / "code/day01-intro/k.cu").write_text("// changed\n", encoding="utf-8")
        deadline = time.monotonic() + 5
        while not server._want_rebuild and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server._want_rebuild
    finally:
        server.observer.stop()
        server.observer.join()
