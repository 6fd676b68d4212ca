"""The site's MkDocs plugins, the ``gloss`` command line and the checks they share (README.md)."""

#: The project's version, declared here only (pyproject.toml reads it): the link checker's User-Agent
#: names it without importlib.metadata, whose import is 5 ms of a check's start-up (bench/links/README.md).
__version__ = "0.1.0"
