"""``{{ counter EXPERIMENT size=S row=R metric=NAME }}``: one Nsight Compute figure in prose.

``NAME`` is a derived figure (``conflict_ways_ld``, ``sectors_per_req_st``, ``dram_ratio``, ``ktime``,
...: :mod:`measure.nsight.counters`) or a raw metric the result holds (``dram__bytes_read.sum``). The same
fail-closed rule as for timing values: the result must be fresh, the row must exist and have passed its
check, and the figure must be in the result; otherwise ``path:line: problem; remedy``.
"""

from __future__ import annotations

import difflib
from html import escape

from measure.nsight.counters import DERIVED, missing
from site_plugins.measured import fmt, render
from site_plugins.measured.model import ResultsView
from site_plugins.measured.resolve import Failure, Shown


def counter(
    view: ResultsView, experiment: str, *, node: str | None, size: str | None, kernel: str, metric: str
) -> Shown | Failure:
    found = render.resolve(view, experiment, node, size)
    if isinstance(found, Failure):
        return found
    result, table = found
    rows = render.select_rows(result, table, [kernel])
    if isinstance(rows, Failure):
        return rows
    row = rows[0]
    where = f"kernel '{row.kernel}' of experiment '{experiment}' at {table.size}"
    rerun = f"re-run {render.run_command(experiment, result.node)}"
    if not row.counters:
        return Failure(
            f"{where} has no counters (the result was measured without the counter pass)",
            f"{rerun} on the node with Nsight Compute (ncu) installed and without --no-counters",
        )
    if metric not in row.counters:
        if metric in DERIVED:
            needs = ", ".join(missing(metric, {k: v for k, v in row.counters.items() if v is not None}))
            remedy = f"it is computed from {needs}; list them under 'counters:' for this kernel in the spec, then "
            remedy += rerun
        else:
            names = [*DERIVED, *sorted(k for k in row.counters if k not in DERIVED)]
            close = difflib.get_close_matches(metric, names, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            remedy = (
                f"{hint}derived: {', '.join(DERIVED)}; or list the metric under 'counters:' for this kernel in "
                f"the spec, then {rerun}"
            )
        return Failure(f"{where} has no counter '{metric}'", remedy)
    x = row.counters[metric]
    if x is None:
        return Failure(
            f"{where}: '{metric}' is undefined (its denominator is zero, e.g. no such instructions ran)",
            "show another figure for this kernel",
        )
    unit = fmt.COLUMNS[metric][1] if metric in fmt.COLUMNS else ""
    text = fmt.quantity(x, unit)
    title = f"{experiment}, {row.kernel}, {fmt.size_label(table.size)}, {result.node}, Nsight Compute: {metric}"
    html = f'<span class="gloss-value gloss-counter" title="{escape(title)}">{render._inline(text)}</span>'
    key = f"{result.experiment}/{table.size}/{result.node}"
    return Shown(html, (f"{key} {row.kernel} counter {metric}: {text}",), result.node)
