"""The fail-closed tests reuse the measured kit (a tiny measured project) from tests/measured."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "measured"))
