"""The generated GPU comparison page: every experiment measured on two nodes, row by row, with the time ratio
and, for each difference above 10 %, the reason the recorded figures give (:mod:`gpudiff`)."""

from __future__ import annotations

from collections import Counter

from site_plugins.measured import fmt, notes
from site_plugins.measured.comparison import MIB, Pair, all_pairs, anchor, copy_ratio, fastest_copy_gbps, nodes
from site_plugins.measured.gpudiff import CLOCK_MATCH, REASON_WORDS, THRESHOLD, Reason, short
from site_plugins.measured.model import ResultsView

TITLE = "GPU comparison"


def comparison_page(view: ResultsView) -> str | None:
    """Markdown of the GPU comparison page; None while fewer than two nodes have fresh results (no page,
    and no table links to one)."""
    out = [f"# {TITLE}", ""]
    pair = nodes(view)
    if pair is None:
        return None
    a, b = pair
    ga, gb = view.gpu(a), view.gpu(b)
    sa, sb = short(ga), short(gb)
    pct = f"{100 * THRESHOLD:g}{fmt.NBSP}%"
    out += [
        f"The same kernels at the same sizes, measured on the {_md(ga)} ({a}) and the {_md(gb)} ({b}). "
        f"**Ratio** is the median time on the {sa} over the median time on the {sb}: above 1, the {sa} took "
        f"longer. A row within {pct} is not explained further. For every other row the reason is the first of "
        "these that the recorded figures support:",
        "",
        f"1. **{REASON_WORDS['host']}**: a host transfer, transfer pipeline or launch row; its time is spent on "
        "the host link or in launching, which the kernel counters do not measure.",
        f"2. **{REASON_WORDS['dram-bytes']}**: the slower GPU moved more than {pct} more DRAM bytes (Nsight "
        "Compute `dram__bytes_read.sum` + `dram__bytes_write.sum`) for the same work, so less of it was served "
        "from its L2 cache.",
        f"3. **{REASON_WORDS['clock']}**: the median SM clocks read with the timed samples differ by more than "
        f"{100 * CLOCK_MATCH:g}{fmt.NBSP}% and their ratio matches the time ratio within as much.",
        f"4. **{REASON_WORDS['bandwidth']}**: the same DRAM bytes, and a ratio within {pct} of the ratio of the "
        "two GPUs' fastest copy kernels in the same run (the driver's memcpy, which has no counters of its own, "
        "by that ratio alone).",
        f"5. **{REASON_WORDS['below-copy']}**: the same DRAM bytes, slower, but by less than the copies.",
        f"6. **{REASON_WORDS['unexplained']}**: none of the above; the page says so rather than guess.",
        "",
    ]
    out += _machines(view, a, b)
    pairs = all_pairs(view, a, b)
    counts: Counter[Reason] = Counter(p.verdict.reason for ps in pairs.values() for p in ps)
    total = sum(counts.values())
    summary = ", ".join(f"{REASON_WORDS[r]} {counts[r]}" for r in REASON_WORDS if counts[r])
    out += [f"{total} rows in {len(pairs)} experiments: {summary}.", ""]
    for experiment, ps in pairs.items():
        out += _experiment(experiment, ps, sa, sb)
    return "\n".join(out)


def _machines(view: ResultsView, a: str, b: str) -> list[str]:
    rows = ["| | " + " | ".join(_md(view.gpu(n)) for n in (b, a)) + " |", "| --- | ---: | ---: |"]
    l2 = [_l2(view, n) for n in (b, a)]
    copy = [fastest_copy_gbps(view, n) for n in (b, a)]
    rows.append(f"| node | {b} | {a} |")
    rows.append(f"| L2 (as recorded by the runner) | {l2[0]} | {l2[1]} |")
    shown = [fmt.quantity(c, "GB/s") if c else "—" for c in copy]
    rows.append(f"| fastest copy kernel (best run) | {shown[0]} | {shown[1]} |")
    ratio = copy_ratio(view, a, b)
    said = (f"The fastest copies differ by {fmt.ratio(ratio)}: a row limited by DRAM bandwidth alone takes about "
            f"that much longer on the {short(view.gpu(a))}. Each row below is compared with the copy kernels "
            "measured in its own run." if ratio else "")
    return [*rows, "", said, ""] if said else [*rows, ""]


def _l2(view: ResultsView, node: str) -> str:
    for r in view.results:
        if r.node == node and r.state == "fresh" and r.provenance is not None and r.provenance.l2_bytes:
            return f"{fmt.number(r.provenance.l2_bytes / MIB)}{fmt.NBSP}MiB"
    return "—"


def _experiment(experiment: str, pairs: list[Pair], sa: str, sb: str) -> list[str]:
    differ = sum(1 for p in pairs if p.differs)
    out = [f"## {experiment} {{ #{anchor(experiment)} }}", "",
           f"{differ} of {len(pairs)} rows differ by more than 10{fmt.NBSP}%.", ""]
    for size in dict.fromkeys(p.size for p in pairs):
        at = [p for p in pairs if p.size == size]
        cells, legend = notes.numbered({p.kernel: [p.verdict.why] if p.verdict.why else [] for p in at})
        out += [f"**At {_md(fmt.size_label(size))}**", "",
                # Ratio and reason first: on a phone the table scrolls, and they are what the page is for.
                f"| Kernel | {sa} / {sb} | Reason | {sb} (ms) | {sa} (ms) |", "| --- | ---: | --- | ---: | ---: |"]
        for p in at:
            reason = REASON_WORDS[p.verdict.reason] + (f" ({cells[p.kernel]})" if cells[p.kernel] else "")
            out.append(f"| {_md(p.kernel)} | {fmt.ratio(p.verdict.ratio)} | {reason} | {fmt.number(p.b_ms)} | "
                       f"{fmt.number(p.a_ms)} |")
        out.append("")
        out += [f"{i}. {_md(why)}" for i, why in enumerate(legend, start=1)]
        out.append("")
    return out


_MD_SPECIAL = {c: f"&#{ord(c)};" for c in "*_[]`\\<>&|"}


def _md(text: str) -> str:
    return "".join(_MD_SPECIAL.get(c, c) for c in text)
