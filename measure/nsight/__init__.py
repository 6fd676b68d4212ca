"""Nsight Compute: the counters collected per architecture and the ncu command line and CSV (pure).

Owns: which metrics a result records and how ncu's output is read.
May import: measure.experiment, site_plugins.files.
"""
