"""Named diagrams: the tile-lifecycle model and the figure's HTML with its inline SVG.

Owns: every diagram a term or lesson names in its front matter.
May import: nothing else of the project.
"""
