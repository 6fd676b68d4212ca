"""The measurement runner: experiment specs, verification nodes, statistics, the PyCUDA device adapter,
the runner and the result files (``measure.results`` is their only reader).

Importing this package (or any module but ``measure.device`` and ``measure.runner``) needs neither
PyCUDA nor numpy nor MkDocs, so ``gloss measure verify`` and ``list`` run anywhere.
"""
