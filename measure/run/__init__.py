"""`gloss measure run`: compile, check, time and write, one row at a time, with the counter pass first.

Owns: the runner's order of work and its progress output; results go through measure.store.
May import: measure.experiment, measure.gpu, measure.nsight, measure.store, site_plugins.files.
"""
