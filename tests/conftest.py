"""Shared test fixtures. The autouse guard fails any test that logs a warning it did not expect.

Tests that expect warnings declare them, verbatim, with the ``expect_warnings`` fixture:

    def test_x(expect_warnings):
        expect_warnings.add("content/terms/x.md:4: unknown related term 'y'; ...")

Every declared warning must then be logged, and nothing else may be.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


class ExpectedWarnings:
    def __init__(self) -> None:
        self.messages: list[str] = []

    def add(self, *messages: str) -> None:
        self.messages.extend(messages)


@pytest.fixture
def expect_warnings() -> ExpectedWarnings:
    return _current


_current = ExpectedWarnings()


@pytest.fixture(autouse=True)
def warning_guard(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    global _current
    _current = ExpectedWarnings()
    caplog.set_level(logging.WARNING)
    yield
    records = caplog.get_records("setup") + caplog.get_records("call")
    logged = [r.getMessage() for r in records
              if r.levelno >= logging.WARNING and r.name.startswith(("mkdocs", "gloss", "site_plugins", "measure"))]
    unexpected = [m for m in logged if m not in _current.messages]
    missing = [m for m in _current.messages if m not in logged]
    problems = []
    if unexpected:
        problems.append("unexpected warnings:\n  " + "\n  ".join(unexpected))
    if missing:
        problems.append("expected warnings not logged:\n  " + "\n  ".join(missing))
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)
