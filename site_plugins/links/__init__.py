"""Source-link checking with recorded evidence (``gloss links ...``).

Modules, one concern each:

- :mod:`~site_plugins.links.evidence`: the evidence file (the only reader and writer) and the helpers the
  site renderer uses: "(checked YYYY-MM-DD)", the byline's "Last checked on", the max-age warnings.
- :mod:`~site_plugins.links.verdict`: pure classification of statuses, headers and errors into verdicts.
- :mod:`~site_plugins.links.htmlscan`: anchors of remote pages, links and ids of built pages.
- :mod:`~site_plugins.links.checker`: the async checker (network): one deadline per URL.
- :mod:`~site_plugins.links.schedule`: per-host slots (a normal and a slow lane), pacing, priorities.
- :mod:`~site_plugins.links.pool`: HTTP over aiohttp: keep-alive connections per host, the answer's slice
  the checker reads, cookies along one page's redirects.
- :mod:`~site_plugins.links.site`: the offline check of the built site's internal links and anchors,
  reported at the Markdown line they came from.
- :mod:`~site_plugins.links.run`: one check run: what to check, verdicts to findings, evidence refresh.
- :mod:`~site_plugins.links.report`: text (progress bar, summary table), JSON and JUnit output.
- :mod:`~site_plugins.links.cli`: ``gloss links check`` and ``gloss links list``.

Importing this package imports nothing heavy; the renderer needs only ``evidence``.
"""
