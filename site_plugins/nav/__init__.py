"""Navigation: A-Z letter sections, the reader's order and labels, and material's nav rendered in Python.

Owns: what the navigation shows and in which order; the MkDocs plugin applies it.
May import: site_plugins.publishing (render's URL helpers), site_plugins.content.
"""
