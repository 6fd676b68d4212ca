"""Fixtures for the sign-off tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from signoff_helpers import init_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path)
