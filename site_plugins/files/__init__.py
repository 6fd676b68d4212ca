"""The foundation: files read within bounds, declared YAML schemas, atomic writes, the one message type.

Owns: how any project file is read, checked or written; every package (and measure/) builds on it.
May import: nothing else of the project.
"""
