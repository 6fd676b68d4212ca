"""``{{ observed }}``: what the driver returned for an observed launch, a row's occupancy, or a device
limit, as the runner recorded them in a fresh result (never typed by hand).

Forms (one line, inline in prose)::

    {{ observed shared-limits row=no-optin field=error }}           -> invalid argument
    {{ observed shared-limits row=no-optin field=error_name }}      -> CUDA_ERROR_INVALID_VALUE
    {{ observed shared-limits row=optin field=launched }}           -> launched (or: refused)
    {{ observed barrier row=racy-1024 field=check }}                -> differed from the reference
    {{ observed barrier row=racy-1024 field=wrong }}                -> 1,234 of 16,777,216 elements
    {{ observed day16-matmul size=4096x4096 row=regtile field=blocks_per_sm }}   -> 2
    {{ observed shared-limits limit=shared_per_block_optin }}       -> 227 KiB

``field=`` is one of :data:`FIELDS`: ``launched``, ``error`` (the driver's string), ``error_name`` (the
``CUresult`` name), ``check`` (a launch that ran: "matched the reference" or "differed from the
reference") and ``wrong`` (how many elements differed, "1,234 of 16,777,216 elements") for rows of kind
``observe``; ``blocks_per_sm``, ``warps_per_sm`` and ``occupancy``
(% of the SM's warps, from cuOccupancyMaxActiveBlocksPerMultiprocessor) for every launched kernel row.
``limit=`` is one of :data:`LIMITS`, recorded with the result's provenance; shared-memory limits are shown
in KiB. A missing row, size, field or limit, a field the row does not record (an error of a launch that
succeeded) and a result that is not fresh are problems, as for every directive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from measure.store.observed import SHARED_LIMITS, Limits
from site_plugins.measured import fmt
from site_plugins.measured.model import Launched, ResultsView
from site_plugins.measured.render import _inline
from site_plugins.measured.resolve import Failure, Shown, find_result, hint, run_command

OUTCOME_FIELDS = ("launched", "error", "error_name", "check", "wrong")
OCCUPANCY_FIELDS = ("blocks_per_sm", "warps_per_sm", "occupancy")
FIELDS = OUTCOME_FIELDS + OCCUPANCY_FIELDS
LIMITS = tuple(Limits.names())
EXAMPLE = "{{ observed shared-limits row=no-optin field=error }}"


def check_form(options: Mapping[str, Sequence[str]]) -> Failure | None:
    """Problems of form, before any result is looked at (``expand.check`` has checked option names)."""
    field, limit = options.get("field"), options.get("limit")
    if limit is not None:
        extra = [k for k in ("row", "field", "size") if k in options]
        if extra:
            return Failure(
                f"'{{{{ observed }}}}' with limit= takes no {', '.join(extra)}= (a limit belongs to the device)",
                "write {{ observed EXPERIMENT limit=NAME }}",
            )
        if limit[0] not in LIMITS:
            return Failure(
                f"unknown limit '{limit[0]}' in '{{{{ observed }}}}'",
                f"{hint(limit[0], LIMITS)}limits: {', '.join(LIMITS)}",
            )
        return None
    if "row" not in options or field is None:
        return Failure("'{{ observed }}' needs row= and field=, or limit=", f"write it as {EXAMPLE}")
    if field[0] not in FIELDS:
        return Failure(
            f"unknown field '{field[0]}' in '{{{{ observed }}}}'",
            f"{hint(field[0], FIELDS)}fields: {', '.join(FIELDS)}",
        )
    return None


def kib(nbytes: int) -> str:
    value = nbytes / 1024
    text = f"{nbytes // 1024:,}" if nbytes % 1024 == 0 else fmt.number(value)
    return f"{text}{fmt.NBSP}KiB"


def _span(text: str, title: str, code: bool = False) -> str:
    tag = "code" if code else "span"
    return f'<{tag} class="gloss-observed" title="{escape(title)}">{_inline(text)}</{tag}>'


def limit_value(view: ResultsView, experiment: str, *, node: str | None, limit: str) -> Shown | Failure:
    result = find_result(view, experiment, node)
    if isinstance(result, Failure):
        return result
    values = dict(result.limits)
    if not values:
        return Failure(
            f"result of experiment '{experiment}' on node '{result.node}' records no device limits",
            f"re-run {run_command(experiment, result.node)} (the runner records them) and commit the result",
        )
    value = values.get(limit, -1)
    if value < 0:
        return Failure(
            f"the driver on node '{result.node}' did not report limit '{limit}'",
            f"show another limit: {', '.join(k for k, v in result.limits if v >= 0)}",
        )
    text = kib(value) if limit in SHARED_LIMITS else f"{value:,}"
    html = _span(text, f"{experiment}, device limit {limit}, {result.node}")
    return Shown(html, (f"{experiment} {result.node} limit {limit}: {text}",), result.node)


def row_value(
    view: ResultsView, experiment: str, *, node: str | None, size: str | None, row: str, field: str
) -> Shown | Failure:
    result = find_result(view, experiment, node)
    if isinstance(result, Failure):
        return result
    found = _pick(result.launched, experiment, row, size)
    if isinstance(found, Failure):
        return found
    where = f"row '{found.kernel}' of experiment '{experiment}' at {found.size}"
    text: str
    if field in OUTCOME_FIELDS:
        if not found.observed:
            return Failure(
                f"{where} is not an observed launch (kind 'observe'), so it records no {field}",
                f"its fields: {', '.join(OCCUPANCY_FIELDS)}; observed rows: "
                + (", ".join(sorted({x.id for x in result.launched if x.observed})) or "none"),
            )
        if field == "launched":
            text = "launched" if found.launched else "refused"
        elif field in ("check", "wrong"):
            if found.matched is None:
                return Failure(
                    f"{where} was not compared with its reference (the launch was refused or failed)",
                    "show field=launched or field=error",
                )
            if field == "check":
                text = "matched the reference" if found.matched else "differed from the reference"
            elif found.wrong is None:
                return Failure(f"{where} matched its reference, so no element was wrong", "show field=check")
            else:
                text = f"{found.wrong[0]:,} of {found.wrong[1]:,} elements"
        else:
            if not found.error_name:
                return Failure(
                    f"{where} launched without an error, so there is no {field} to show",
                    "show field=launched, or name the row whose launch the driver refused",
                )
            text = found.error_string if field == "error" else found.error_name
    else:
        figures = {"blocks_per_sm": found.blocks_per_sm, "warps_per_sm": found.warps_per_sm}
        if found.blocks_per_sm is None or found.occupancy_pct is None:
            return Failure(
                f"{where} records no occupancy",
                f"re-run {run_command(experiment, result.node)} (the runner records it for every kernel row)",
            )
        text = fmt.percent(found.occupancy_pct) if field == "occupancy" else f"{figures[field]:,}"
    title = f"{experiment}, {found.kernel}, {fmt.size_label(found.size)}, {result.node}"
    html = _span(text, title, code=field == "error_name")
    return Shown(html, (f"{experiment} {result.node} {found.size} {found.kernel} {field}: {text}",), result.node)


def _pick(rows: Sequence[Launched], experiment: str, row: str, size: str | None) -> Launched | Failure:
    named = [x for x in rows if row in (x.kernel, x.id)]
    if not named:
        names = list(dict.fromkeys(x.id for x in rows))
        return Failure(
            f"experiment '{experiment}' has no launched row '{row}'",
            f"{hint(row, names)}rows: {', '.join(names) or 'none'}",
        )
    sizes = list(dict.fromkeys(x.size for x in named))
    if size is None:
        if len(sizes) > 1:
            return Failure(
                f"row '{row}' of experiment '{experiment}' was launched at several sizes: {', '.join(sizes)}",
                f"choose one with size={sizes[-1]}",
            )
        return named[0]
    at = [x for x in named if x.size == size]
    if not at:
        return Failure(
            f"row '{row}' of experiment '{experiment}' has no size '{size}'",
            f"{hint(size, sizes)}sizes: {', '.join(sizes)}",
        )
    return at[0]
