"""Results read by people and tools: compare two sets, export to other formats, the bench figures.

Owns: `gloss compare`, `gloss export` and bench/README's runner figures (pure over the store).
May import: measure.store, site_plugins.files.
"""
