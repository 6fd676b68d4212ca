"""One embed measured on several GPUs: material's content tabs, one tab per node, as plain HTML.

The markup is the one ``pymdownx.tabbed`` writes with ``alternate_style`` (radio inputs, labels, blocks),
which mkdocs-material styles from its own stylesheet: the tabs switch without JavaScript and without any
asset from elsewhere. Tabs rather than one table with a GPU column: each GPU keeps its own provenance
sentence, numbered notes (they depend on that node's counters) and chart, and a table stays as narrow on a
390 px phone as with one node.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from site_plugins.measured import chart


def labels(gpus: Sequence[tuple[str, str]]) -> list[str]:
    """The tab label of each (node, GPU): the GPU, and the node too where two nodes have the same GPU."""
    names = [gpu for _, gpu in gpus]
    return [gpu if names.count(gpu) == 1 else f"{gpu} ({node})" for node, gpu in gpus]


def tabs(experiment: str, gpus: Sequence[tuple[str, str]], blocks: Sequence[str]) -> str:
    """``blocks[i]`` (one node's embed HTML) under a tab named for ``gpus[i]`` = (node, GPU); the first tab
    is open. Ids derive from :data:`chart.ID` (a page-unique prefix); each block's own chart ids get the
    tab's number so that two charts on one page never share an id."""
    inputs, heads, bodies = [], [], []
    for i, ((node, _), label, block) in enumerate(zip(gpus, labels(gpus), blocks, strict=True), start=1):
        tab = f"{chart.ID}-tab-{i}"
        checked = ' checked="checked"' if i == 1 else ""
        inputs.append(f'<input{checked} id="{tab}" name="{chart.ID}-tabs" type="radio">')
        heads.append(f'<label for="{tab}" data-node="{escape(node)}">{escape(label)}</label>')
        bodies.append(f'<div class="tabbed-block">{block.replace(chart.ID, f"{chart.ID}-{i}")}</div>')
    return (
        f'<div class="gloss-measured-nodes" data-experiment="{escape(experiment)}">'
        f'<div class="tabbed-set tabbed-alternate" data-tabs="1:{len(blocks)}">{"".join(inputs)}'
        f'<div class="tabbed-labels">{"".join(heads)}</div>'
        f'<div class="tabbed-content">{"".join(bodies)}</div></div></div>'
    )
