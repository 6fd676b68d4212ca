"""The generated Roofline page: every measured row of each node under that node's measured roofs."""

from __future__ import annotations

from site_plugins.measured import fmt, rooflinechart
from site_plugins.measured.chart import ID
from site_plugins.measured.model import ResultsView
from site_plugins.measured.roofline import NodeRoofline, Point, attainable, rooflines

TITLE = "Roofline of every measured row"

INTRO = (
    "Each point is one measured row of a fresh result: a kernel at one problem size. Its height is the "
    "GFLOP/s of the timed launches (the FLOPs its experiment declares over the median time); its position "
    "along the axis is its arithmetic intensity, those FLOPs over the bytes Nsight Compute counted moving "
    "between the GPU and its DRAM (read and written) in one launch of the same kernel. The roofs are this "
    "node's own measurements: the slope is the fastest copy kernel of the copy ceilings (a copy's bytes per "
    "second are DRAM traffic), the flat roofs are the FP32 FMA ceiling and, where it was measured, cuBLAS's "
    "TF32 GEMM. A roof's ridge point, where the slope meets it, is its GFLOP/s over the copy's GB/s: a kernel "
    "of lower intensity cannot reach that roof however fast it computes."
)


def _point_rows(line: NodeRoofline) -> tuple[list[str], int]:
    """The points' table, each point against the roofline of its own math (an FP32 kernel under the FP32
    roof, a TF32 tensor-core kernel under the TF32 roof: a share of the other would compare two units'
    peaks), and how many points sit above their roofline."""
    head = ["| Experiment | Size | Row | FLOP/B | GFLOP/s | Roof | % of that roofline at its intensity |",
            "|---|---|---|--:|--:|---|--:|"]
    rows = []
    above = 0
    for p in sorted(line.points, key=lambda q: (q.intensity, q.experiment, q.size)):
        roof = line.roof_of(p)
        pct = (100 * p.gflops / attainable(p.intensity, line.bandwidth.value, roof.value)
               if roof is not None and line.bandwidth is not None else None)
        above += pct is not None and pct > 100
        rows.append(f"| `{p.experiment}` | {_cell(p.size)} | {_cell(p.label)} | {fmt.number(p.intensity)} | "
                    f"{fmt.number(p.gflops)} | {roof.short if roof else fmt.DASH} | {fmt.percent(pct)} |")
    return head + rows, above


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _roofs(line: NodeRoofline) -> list[str]:
    out = []
    if line.bandwidth is None:
        out.append("- No copy ceiling was measured on this node, so there is no slope and no ridge point.")
    else:
        out.append(f"- Slope: {fmt.quantity(line.bandwidth.value, 'GB/s')}, the {line.bandwidth.label}.")
    for roof in line.compute:
        ridge = line.ridge(roof)
        where = f"; ridge point {fmt.quantity(ridge, 'FLOP/B')}" if ridge is not None else ""
        out.append(f"- Roof: {fmt.quantity(roof.value, 'GFLOP/s')}, {roof.label}{where}.")
    if not line.compute:
        out.append("- No compute ceiling was measured on this node.")
    return out


def node_section(line: NodeRoofline) -> list[str]:
    out = [f"## {line.node} ({line.gpu})" if line.gpu else f"## {line.node}", "", *_roofs(line), ""]
    out += ['<div class="gloss-roofline-chart">', rooflinechart.render(line).replace(ID, f"gloss-roofline-{line.node}"),
            "</div>", ""]
    if line.points:
        table, above = _point_rows(line)
        if above:
            out += [f"{above:,} {'row sits' if above == 1 else 'rows sit'} above its roofline (more than 100 % in "
                    "the table): the slope is the fastest copy kernel measured, which reads and writes equal bytes, "
                    "not a limit no kernel can pass.", ""]
        out += table
    else:
        out.append("No row of this node declares FLOPs and has DRAM counters yet.")
    out.append("")
    if line.skipped:
        total = sum(n for _, n in line.skipped)
        out.append(f"Not on the chart ({total:,} {'row' if total == 1 else 'rows'}):")
        out.append("")
        out += [f"- {reason}: {n:,}" for reason, n in line.skipped]
        out.append("")
    return out


def roofline_page(view: ResultsView) -> str:
    """Markdown of the Roofline page, one section per node with fresh results."""
    lines = rooflines(view)
    out = [f"# {TITLE}", "", INTRO, ""]
    if not lines:
        out += ["No node has a fresh result yet.", ""]
        return "\n".join(out)
    for line in lines:
        out += node_section(line)
    return "\n".join(out)


__all__ = ["TITLE", "Point", "node_section", "roofline_page"]
