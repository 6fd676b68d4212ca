"""The same rows on two GPUs: the time ratio of each and its reason (:mod:`gpudiff`), for the generated GPU
comparison page and the "On the two GPUs" line under a table embed. Pure over a :class:`ResultsView`.

The reference node is the one prose quotes (the view's default node); every other node with fresh results
is compared with it, row by row, matched by experiment, size and kernel id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from site_plugins.measured import fmt
from site_plugins.measured.gpudiff import REASON_WORDS, Side, Verdict, classify, short
from site_plugins.measured.model import Result, ResultsView, Row, Table
from site_plugins.measured.resolve import showable_nodes

PAGE = "gpu-comparison.md"
MIB = 1024 * 1024


@dataclass(frozen=True)
class Pair:
    """One row measured on both nodes."""

    experiment: str
    size: str
    kernel: str  # the label
    id: str
    a_ms: float  # on the compared node
    b_ms: float  # on the reference node
    verdict: Verdict

    @property
    def differs(self) -> bool:
        return self.verdict.reason != "same"


def nodes(view: ResultsView) -> tuple[str, str] | None:
    """(compared node, reference node): the reference is the default node where it has fresh results, the
    other the registered node with the most fresh results besides it; None with fewer than two nodes."""
    fresh: dict[str, int] = {}
    for r in view.results:
        if r.state == "fresh":
            fresh[r.node] = fresh.get(r.node, 0) + 1
    if len(fresh) < 2:
        return None
    ref = view.default_node if view.default_node in fresh else max(sorted(fresh), key=lambda n: fresh[n])
    other = max(sorted(n for n in fresh if n != ref), key=lambda n: fresh[n])
    return other, ref


def fastest_copy_gbps(view: ResultsView, node: str) -> float | None:
    """The node's fastest copy kernel in any of its runs (every fresh result carries its run's copy ceilings)."""
    best = [g for res in view.results if res.node == node and res.state == "fresh"
            for t in res.tables if (g := _run_copy(t)) is not None]
    return max(best) if best else None


def _run_copy(table: Table) -> float | None:
    """The fastest copy kernel among the copy ceilings measured in the same run as ``table``."""
    best = [r.gbps for r in table.ceilings if r.kind == "kernel" and r.gflops is None and r.gbps is not None]
    return max(best) if best else None


def copy_ratio(view: ResultsView, a: str, b: str) -> float | None:
    ca, cb = fastest_copy_gbps(view, a), fastest_copy_gbps(view, b)
    return cb / ca if ca and cb else None


def _fresh(view: ResultsView, experiment: str, node: str) -> Result | None:
    return next((r for r in view.for_experiment(experiment) if r.node == node and r.state == "fresh"), None)


def _side(result: Result, row: Row) -> Side:
    assert result.provenance is not None
    l2 = result.provenance.l2_bytes / MIB if result.provenance.l2_bytes else None
    return Side(result.provenance.gpu, row.time_ms or 0.0, kind=row.kind, dram_mb=row.counters.get("dram_mb"),
                sm_clock_mhz=row.sm_clock_mhz, l2_mib=l2)


def table_pairs(view: ResultsView, experiment: str, size: str, a: str, b: str,
                kernels: Sequence[str] | None = None) -> list[Pair]:
    """Each row of ``experiment`` at ``size`` timed on both nodes (``kernels``: those, by label or id)."""
    ra, rb = _fresh(view, experiment, a), _fresh(view, experiment, b)
    ta, tb = (ra.table(size) if ra else None), (rb.table(size) if rb else None)
    if ra is None or rb is None or ta is None or tb is None:
        return []
    # Each row against the copies of its own run on each node (a result re-run alone has its own ceilings).
    ca, cb = _run_copy(ta), _run_copy(tb)
    ratio = cb / ca if ca and cb else None
    rows = [tb.row(k) for k in kernels] if kernels else list(tb.rows)
    out = []
    for row_b in rows:
        row_a = ta.row(row_b.id or row_b.kernel) if row_b is not None else None
        if row_b is None or row_a is None or not row_a.time_ms or not row_b.time_ms:
            continue
        verdict = classify(_side(ra, row_a), _side(rb, row_b), ratio)
        out.append(Pair(experiment, size, row_b.kernel, row_b.id, row_a.time_ms, row_b.time_ms, verdict))
    return out


def all_pairs(view: ResultsView, a: str, b: str) -> dict[str, list[Pair]]:
    """Every experiment with fresh results on both nodes -> its pairs, size by size in result order."""
    out: dict[str, list[Pair]] = {}
    for experiment in sorted({r.experiment for r in view.results}):
        rb = _fresh(view, experiment, b)
        if rb is None or _fresh(view, experiment, a) is None:
            continue
        pairs = [p for t in rb.tables for p in table_pairs(view, experiment, t.size, a, b)]
        if pairs:
            out[experiment] = pairs
    return out


def anchor(experiment: str) -> str:
    return experiment


def embed_line(view: ResultsView, experiment: str, size: str | None, kernels: Sequence[str] | None,
               link: str) -> str:
    """The "On the two GPUs" paragraph under a table embed shown on both nodes, where a row's time differs
    by more than 10 %; empty otherwise. ``link``: the comparison page, relative to the page (Markdown)."""
    pair = nodes(view)
    if pair is None:
        return ""
    a, b = pair
    if not {a, b} <= set(showable_nodes(view, experiment)):
        return ""
    table = _table(view, experiment, b, size)
    if table is None:
        return ""
    pairs = table_pairs(view, experiment, table.size, a, b, kernels)
    differ = [p for p in pairs if p.differs]
    if not differ:
        return ""
    ga, gb = short(view.gpu(a)), short(view.gpu(b))
    by_reason: dict[str, list[str]] = {}
    for p in differ:
        by_reason.setdefault(REASON_WORDS[p.verdict.reason], []).append(f"{p.kernel} {fmt.ratio(p.verdict.ratio)}")
    said = "; ".join(f"{reason}: {', '.join(rows)}" for reason, rows in by_reason.items())
    said = said[:1].upper() + said[1:]
    return (f"**On the two GPUs:** {len(differ)} of {len(pairs)} rows differ by more than 10{fmt.NBSP}% "
            f"(time on the {ga} over time on the {gb}). {_md(said)}. The counters behind each reason: "
            f"[GPU comparison]({link}#{anchor(experiment)}).")


def _table(view: ResultsView, experiment: str, node: str, size: str | None) -> Table | None:
    result = _fresh(view, experiment, node)
    if result is None:
        return None
    if size is None:
        return result.tables[0] if len(result.tables) == 1 else None
    return result.table(size)


_MD_SPECIAL = {c: f"&#{ord(c)};" for c in "*_[]`\\<>&|"}


def _md(text: str) -> str:
    return "".join(_MD_SPECIAL.get(c, c) for c in text)
