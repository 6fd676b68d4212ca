"""The registry of verification nodes, ``measure/nodes.yaml``: the only reader of that file.

A node is a named machine that may produce results: the GPU model its device must report, the
architecture the runner compiles for, and a description. ``gloss measure run --node NAME`` refuses to
run when the device present is not the named node's GPU, and ``verify`` calls a result from a node not
registered here "unregistered".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from site_plugins.files import textfile
from site_plugins.files.messages import Problem
from site_plugins.files.schema import build, line_of, meta, parse_yaml

NODES_PATH = "measure/nodes.yaml"
#: ``gloss measure mine`` names a reader's own GPU ``local-<its model>`` and writes its results here
#: (git-ignored). The prefix is refused in the registry, so such a result is never a registered node's:
#: no page, no ``verify`` and no comparison page can take it for ours.
LOCAL_PREFIX = "local-"
LOCAL_DIR = "measure/local"

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_ARCH = re.compile(r"^sm_[0-9]{2,3}a?$")


@dataclass(frozen=True)
class Node:
    gpu: str = field(metadata=meta("the GPU model the device must report, e.g. 'NVIDIA H200'"))
    arch: str = field(metadata=meta("the architecture to compile for, e.g. 'sm_90'"))
    description: str = field(metadata=meta("where the machine is and what it is, in a sentence"))


@dataclass(frozen=True)
class NodesFile:
    nodes: dict[str, Node] = field(metadata=meta("a mapping of node names to their GPU, arch and description"))


def parse_nodes(text: str, path: str = NODES_PATH) -> tuple[dict[str, Node], list[Problem]]:
    """Nodes declared in ``text``; problems for every malformed entry (which is then left out)."""
    tree, problems = parse_yaml(text, path)
    if problems:
        return {}, problems
    doc, problems = build(NodesFile, tree, path)
    if doc is None or problems:
        return {}, problems
    nodes: dict[str, Node] = {}
    for name, node in doc.nodes.items():
        bad = False
        if not _NAME.match(name):
            problems.append(
                Problem(
                    path,
                    line_of(node),
                    f"node name '{name}' is not a plain lowercase name",
                    "use lowercase letters, digits and '-' (e.g. 'h200-1')",
                )
            )
            bad = True
        elif name.startswith(LOCAL_PREFIX):
            problems.append(
                Problem(
                    path,
                    line_of(node),
                    f"node name '{name}' starts with '{LOCAL_PREFIX}', which names a reader's own GPU",
                    "name a verification node without that prefix (e.g. 'h200-1')",
                )
            )
            bad = True
        if not _ARCH.match(node.arch):
            problems.append(
                Problem(
                    path,
                    line_of(node, "arch"),
                    f"'nodes.{name}.arch' is '{node.arch}', not a CUDA architecture",
                    "write it as nvcc's -arch value, e.g. 'sm_90'",
                )
            )
            bad = True
        if not node.gpu.strip():
            problems.append(
                Problem(
                    path,
                    line_of(node, "gpu"),
                    f"'nodes.{name}.gpu' is empty",
                    "write the model name the device reports, e.g. 'NVIDIA H200'",
                )
            )
            bad = True
        if not bad:
            nodes[name] = node
    if not doc.nodes:
        problems.append(
            Problem(
                path,
                line_of(doc, "nodes"),
                "no node is registered",
                "register the verification node you run on under 'nodes:'",
            )
        )
    return nodes, problems


def load_nodes(root: Path) -> tuple[dict[str, Node], list[Problem]]:
    path = root / NODES_PATH
    if not path.is_file():
        return {}, [
            Problem(NODES_PATH, 0, "the node registry is missing", f"create {NODES_PATH} with a 'nodes:' mapping")
        ]
    text, problems = textfile.read(path, NODES_PATH)
    return parse_nodes(text) if text is not None else ({}, problems)


def local_node(gpu: str, compute_capability: str) -> tuple[str, Node]:
    """The node ``gloss measure mine`` records for a reader's GPU: named after the model the device
    reports (``NVIDIA GeForce RTX 4090`` -> ``local-nvidia-geforce-rtx-4090``), built for its own
    compute capability (``8.9`` -> ``sm_89``). Never registered: see :data:`LOCAL_PREFIX`."""
    slug = re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-") or "gpu"
    arch = "sm_" + compute_capability.replace(".", "")
    return LOCAL_PREFIX + slug, Node(gpu=gpu, arch=arch, description="a reader's own GPU (gloss measure mine)")
