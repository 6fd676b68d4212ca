"""The publishing pipeline: from files to pages, the publish decision, the staging tree and the final audit.

Owns: every check the build runs, rendering, publishing, staging, and what a dirty rebuild redoes.
May import: site_plugins.content, site_plugins.diagrams, site_plugins.files, site_plugins.links,
    site_plugins.measured, site_plugins.nav, site_plugins.signoff.
"""
