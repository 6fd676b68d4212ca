"""The result store: the result file format, the only reader of measure/results/, judging and statistics.

Owns: measure/results/<node>/<experiment>.json, the states fresh/stale/failed/tampered, figures.
May import: measure.experiment, measure.nsight, site_plugins.files.
"""
