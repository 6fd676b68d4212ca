"""``gloss measure mine``: a reader's own GPU, measured into ``measure/local/`` and shown beside ours.

Any CUDA GPU will do: no entry in ``measure/nodes.yaml`` and no sign-off. The node is the device
itself (:func:`measure.experiment.nodes.local_node`: its reported model, built for its own compute
capability), the results go to the git-ignored ``measure/local/local-<model>/<id>.json``, never under
``measure/results/``, and the ``local-`` prefix is refused in the registry, so the results module calls
such a file unregistered wherever it lies: no page, ``verify`` or comparison page publishes it. The run
is the runner's own (same checks, flush, events and stopping rule), without the Nsight Compute counter
pass (ncu needs profiling permissions a reader's machine rarely grants). It ends with the reader's rows
beside each registered node's fresh result (:mod:`measure.report.beside`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from measure.experiment.nodes import LOCAL_DIR, local_node
from measure.experiment.spec import Declared
from measure.report import beside
from measure.run import runner
from measure.store import results as R

if TYPE_CHECKING:
    from measure.gpu.device import Device

PROG = "gloss measure mine"


def open_device() -> Device:
    """The GPU (PyCUDA), or in tests the fake that ``GLOSS_FAKE_DEVICE`` names (never on a node)."""
    from measure.testing.fakedevice import FAKE_DEVICE_ENV

    fake = os.environ.get(FAKE_DEVICE_ENV)
    if fake:
        from measure.testing.fakedevice import from_env

        print(f"{PROG}: {FAKE_DEVICE_ENV} is set: a FAKE device for tests, not your GPU", flush=True)
        return from_env(fake)  # type: ignore[return-value]
    from measure.gpu.device import Device

    return Device()


def run_mine(
    root: Path,
    declared: dict[str, Declared],
    ids: Sequence[str],
    options: runner.Options,
    prov0: runner.Provenance0,
    device: Device,
) -> int:
    """Measure ``ids`` (all when empty) on ``device`` as its local node, then print them beside ours."""
    info = device.info
    name, node = local_node(info.name, info.compute_capability)
    out = root / LOCAL_DIR
    print(f"{PROG}: {info.name} (compute capability {info.compute_capability}) as local node '{name}'; "
          f"results go to {LOCAL_DIR}/{name}/ (git-ignored, never published)", flush=True)
    code = runner.run(root, name, node, declared, ids, options, prov0, out, None, device)
    chosen = list(ids) or sorted(declared)
    print()
    print(comparison(root, name, chosen))
    return code


def comparison(root: Path, local: str, ids: Sequence[str]) -> str:
    """The local node's results for ``ids`` beside every registered node's committed ones."""
    ours = R.load_all(root)
    yours = R.load_all(root, LOCAL_DIR)
    blocks = []
    for exp in ids:
        mine = yours.get(exp, local)
        if mine.result is None:
            blocks.append(f"{exp}: no result on your GPU ({mine.state})")
            continue
        blocks.append(beside.render(mine, [e for e in ours.for_experiment(exp) if e.state != "pending"]))
    return "\n\n".join(blocks)
