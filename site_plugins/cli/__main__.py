"""``python -m site_plugins.cli``: the same as ``gloss`` (the package's ``entry``)."""

from site_plugins.cli import entry

entry()
