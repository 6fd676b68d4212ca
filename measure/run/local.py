"""``gloss measure mine``: a reader's own GPU, measured into ``measure/local/`` (never published).

Any CUDA GPU will do: no entry in ``measure/nodes.yaml`` and no sign-off. The node is the device
itself (:func:`measure.experiment.nodes.local_node`: its reported model, built for its own compute
capability), the results go to the git-ignored ``measure/local/local-<model>/<id>.json``, never under
``measure/results/``, and the ``local-`` prefix is refused in the registry, so the results module calls
such a file unregistered wherever it lies: no page, ``verify`` or comparison page publishes it. The run
is the runner's own (same checks, flush, events and stopping rule), without the Nsight Compute counter
pass (ncu needs profiling permissions a reader's machine rarely grants). The command then prints the
reader's rows beside ours (:mod:`measure.report.beside`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from measure.experiment.nodes import LOCAL_DIR, local_node
from measure.experiment.spec import Declared
from measure.run import runner

if TYPE_CHECKING:
    from measure.gpu.device import Device

PROG = "gloss measure mine"


def run_mine(
    root: Path,
    declared: dict[str, Declared],
    ids: Sequence[str],
    options: runner.Options,
    prov0: runner.Provenance0,
    device: Device,
) -> tuple[int, str]:
    """Measure ``ids`` (all when empty) on ``device`` as its local node: the exit code and the node's name."""
    info = device.info
    name, node = local_node(info.name, info.compute_capability)
    print(f"{PROG}: {info.name} (compute capability {info.compute_capability}) as local node '{name}'; "
          f"results go to {LOCAL_DIR}/{name}/ (git-ignored, never published)", flush=True)
    return runner.run(root, name, node, declared, ids, options, prov0, root / LOCAL_DIR, None, device), name
