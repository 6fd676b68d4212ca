"""What the browser tests share besides fixtures: the served-site record, the presets, screenshots."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ARTIFACTS = Path(os.environ.get("GLOSS_ARTIFACTS", Path(__file__).parent / "artifacts"))
#: Chromium's own traffic off: no background services, component updates, sync, first-run or default
#: apps, and none of the features that call home on their own.
QUIET = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-default-apps", "--disable-extensions",
         "--disable-features=OptimizationHints,MediaRouter,Translate"]
PRESETS = ("tile-correct", "bank-conflict", "padded", "ragged-edge", "guard-encloses-barrier")


@dataclass
class Served:
    """A built site on 127.0.0.1 and every request it answered (path, status, bytes sent)."""

    root: Path
    base: str = ""
    log: list[tuple[str, int, int]] = field(default_factory=list)


def screenshot(page: Any, name: str, **kw: Any) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), **kw)
    return path
