"""The measurement runner: experiment specs, verification nodes, statistics, the PyCUDA device adapter,
the runner and the result files (``measure.store.results`` is their only reader).

Importing this package (or any module but ``measure.gpu.device`` and ``measure.run.runner``) needs neither
PyCUDA nor numpy nor MkDocs, so ``gloss measure verify`` and ``list`` run anywhere.
"""
