"""The one message type: every content problem is a value the MkDocs adapter logs and the CLI prints.

Kept free of MkDocs imports so that the measurement runner (which runs on a verification node without
MkDocs) can use it too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """``path:line: problem; remedy`` with a repo-relative path."""

    path: str
    line: int
    problem: str
    remedy: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.problem}; {self.remedy}"


class ProblemsError(Exception):
    """Raised where a caller cannot go on; carries every problem found, not just the first."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
