"""Fixtures for TESTS ONLY: synthetic results, a fake device, the row-kind fixtures. Never commit output.

Owns: nothing the site or the runner uses.
May import: measure.experiment, measure.gpu, measure.nsight, measure.run, measure.store, site_plugins.files.
"""
