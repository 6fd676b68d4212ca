"""The results each signed version is rendered with: those of the commit it was signed at.

A signature covers the values an entry showed. After a re-measurement an embedding entry is "changed"
(its values moved) and its last signed version stays published, with the values it was signed with:
the results, specs and node registry of the commit recorded with the signature, read from git by the
results module (:func:`measure.store.results.load_at`, asked through :mod:`site_plugins.measured`),
never today's numbers under yesterday's text.
One view per distinct version of those files, so a history of many commits costs a few loads.
"""

from __future__ import annotations

from pathlib import Path

from site_plugins import measured


class Views:
    """``at(commit)``: the results view as ``commit`` held it (today's when it holds the same files)."""

    def __init__(self, root: Path, current: measured.ResultsView) -> None:
        self.root = root
        self.current = current
        self._by_version: dict[str, measured.ResultsView] = {}
        self._working: str | None = None
        self._working_known = False

    def at(self, commit: str | None) -> measured.ResultsView:
        if commit is None:
            return self.current
        version = measured.results_version(self.root, commit)
        if version is None or version == self._working_version():
            return self.current
        if version not in self._by_version:
            # (None: git cannot give it; today's view then, and the signed fingerprint will not match)
            self._by_version[version] = (measured.load_view_at(self.root, commit, self.current.default_node)
                                         or self.current)
        return self._by_version[version]

    def _working_version(self) -> str | None:
        if not self._working_known:
            self._working_known = True
            if measured.results_unchanged(self.root, "HEAD"):
                self._working = measured.results_version(self.root, "HEAD")
        return self._working
