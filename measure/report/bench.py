"""The runner's benchmark figures for ``bench/README.md``, computed from committed results only.

``gloss measure bench`` prints the Markdown; ``gloss measure bench --write bench/README.md`` replaces
the block between the two markers in that file. A test checks that the committed README block equals
what this module computes, so no figure in it is typed by hand. Everything is read through
:mod:`measure.store.results` (the main run from ``measure/results/``, the repeat run from
``measure/repeat/``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from measure.store import results as R

BEGIN = "<!-- gloss measure bench: begin (generated from the committed results; do not edit) -->"
END = "<!-- gloss measure bench: end -->"
REPEAT_DIR = "measure/repeat"
NODE = "h200-1"
AGREEMENT_FLOOR_US = 50.0
AGREEMENT_LIMIT = 0.01


def _utc(stamp: str) -> dt.datetime:
    return dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)


def suite_wall_time_s(entries: Iterable[R.Entry]) -> float:
    """From the runner's start (device open, flush buffer ready) to the last result written, for the run
    that wrote most of the committed results (an experiment re-run later, alone, comes from a run of
    its own, which is not the suite's)."""
    provs = [e.provenance for e in max(runs_of(entries).values(), key=len) if e.provenance is not None]
    start = min(_utc(p.run_started_utc) for p in provs)
    end = max(_utc(p.finished_utc) for p in provs)
    return (end - start).total_seconds()


def runs_of(entries: Iterable[R.Entry]) -> dict[str, list[R.Entry]]:
    """The committed results grouped by the run that wrote them, in the order the runs started."""
    runs: dict[str, list[R.Entry]] = {}
    for e in entries:
        if e.provenance is not None:
            runs.setdefault(e.provenance.run_id, []).append(e)
    return dict(sorted(runs.items(), key=lambda kv: min(e.provenance.run_started_utc for e in kv[1])))  # type: ignore[union-attr]


def _runs_sentence(what: str, entries: list[R.Entry]) -> str:
    """'main run `X` (commit `c`)' or, where experiments were re-run alone, each run with its experiments."""
    runs = runs_of(entries)

    def commit(run: list[R.Entry]) -> str:
        return run[0].provenance.git_commit[:12]  # type: ignore[union-attr]

    if len(runs) == 1:
        ((rid, run),) = runs.items()
        return f"{what} run `{rid}` (commit `{commit(run)}`)"
    parts = [
        f"`{rid}` (commit `{commit(run)}`: {', '.join(sorted(e.experiment for e in run))})" for rid, run in runs.items()
    ]
    return f"{what} runs " + "; ".join(parts)


def _pct(x: float) -> str:
    return f"{x:.1f} %"


def report(root: Path, node: str = NODE) -> str:
    main = R.load_all(root)
    repeat = R.load_all(root, REPEAT_DIR)
    bad = [str(p) for p in main.problems() + repeat.problems()]
    if bad:
        raise ValueError("results are not all fresh:\n" + "\n".join(bad))
    out: list[str] = []
    ceil = main.get("copy-ceilings", node)
    prov = ceil.provenance
    assert prov is not None
    mine = [e for e in main.entries if e.node == node]
    again = [e for e in repeat.entries if e.node == node]
    out.append(
        f"{_runs_sentence('Main', mine)}; {_runs_sentence('repeat', again)}. {ceil.provenance_sentence()}"
    )
    out.append("")

    # 1. Copy ceilings.
    out.append("### Copy ceilings: best copy kernel against the driver's device-to-device memcpy")
    out.append("")
    out.append(
        "| size | driver memcpy | best copy kernel | its GB/s | kernel / memcpy | best 1-D float4 kernel / memcpy |"
    )
    out.append("| --- | ---: | --- | ---: | ---: | ---: |")
    rows = ceil.rows()  # its own rows: the run's ceilings also hold the other ceilings experiments' rows
    copy_ratio: dict[str, tuple[str, float]] = {}
    for size in dict.fromkeys(r.size for r in rows):
        at = [r for r in rows if r.size == size]
        memcpy = next(r for r in at if r.kernel == "memcpy")
        kernels = [r for r in at if r.kernel != "memcpy"]
        best = max(kernels, key=lambda r: r.gbps)
        best1d = max((r for r in kernels if r.kernel in ("vector4", "blocked4", "blocked8")), key=lambda r: r.gbps)
        copy_ratio[size] = (best.label, best.gbps / memcpy.gbps)
        out.append(
            f"| {size} | {memcpy.gbps:.0f} GB/s | {best.label} | {best.gbps:.0f} | "
            f"{_pct(100 * best.gbps / memcpy.gbps)} | {_pct(100 * best1d.gbps / memcpy.gbps)} |"
        )
    out.append("")

    # 2. The transpose ladder against its copy.
    day13 = main.get("day13-transpose", node)
    out.append("### Day 13: the transpose ladder against its own copy (same tiles, threads and guards)")
    out.append("")
    out.append("| size | kernel | median µs | GB/s | % of the day-13 copy | % of memcpy (same run) | flags |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    memcpy_at = {r.size: r.gbps for r in rows if r.kernel == "memcpy"}
    for size in day13.sizes():
        copy = day13.row("copy", size)
        assert copy is not None
        for r in (v for v in day13.rows() if v.size == size):
            same = memcpy_at.get("256 MiB") if size == "8192x8192" else None
            flags = ", ".join(f for f, on in (("fits in L2", r.fits_in_l2), ("noisy", r.noisy)) if on)
            out.append(
                f"| {size} | {r.label} | {r.median_us:.1f} | {r.gbps:.0f} | {_pct(100 * r.gbps / copy.gbps)} | "
                f"{_pct(100 * r.gbps / same) if same else 'n/a'} | {flags} |"
            )
    out.append("")
    out.append("(The 8192x8192 rows move 512 MiB per launch, the same bytes as the 256 MiB memcpy row.)")
    out.append("")

    # 3. Run-to-run agreement.
    out.append(f"### Run to run: every row above {AGREEMENT_FLOOR_US:.0f} µs, main run against repeat run")
    out.append("")
    diffs: list[tuple[float, str]] = []
    small: list[str] = []
    for e in mine:  # the ceilings experiment's own rows are the ceilings: each row counted once
        others = {(v.kernel, v.size): v for v in repeat.get(e.experiment, node).rows()}
        for v in e.rows():
            w = others[(v.kernel, v.size)]
            if min(v.median_us, w.median_us) <= AGREEMENT_FLOOR_US:
                small.append(f"{v.label} @ {v.size}")
                continue
            diffs.append((abs(w.median_ms - v.median_ms) / v.median_ms, f"{e.experiment} {v.label} @ {v.size}"))
    diffs.sort(reverse=True)
    within = sum(d <= AGREEMENT_LIMIT for d, _ in diffs)
    worst = "; ".join(f"{name} {100 * d:.2f} %" for d, name in diffs[:3])
    out.append(
        f"{within} of {len(diffs)} rows agree within {AGREEMENT_LIMIT:.0%} (median time); the largest differences: "
        f"{worst}. Rows at or under {AGREEMENT_FLOOR_US:.0f} µs, outside the target: {', '.join(small)}."
    )
    out.append("")

    # 4. Suite wall time and sample hygiene.
    t_main = suite_wall_time_s(e for e in main.entries if e.node == node)
    t_rep = suite_wall_time_s(e for e in repeat.entries if e.node == node)
    out.append("### Suite wall time, noise and throttling")
    out.append("")
    views = [v for e in mine for v in e.rows()]
    noisy = [v for v in views if v.noisy]
    throttled = sum(v.n_throttled for v in views)
    settings = ceil.result.settings  # type: ignore[union-attr]
    out.append(
        f"Whole suite (every experiment, every check and every sample, in the run that wrote most of the "
        f"committed results) after set-up: {t_main:.0f} s (repeat run {t_rep:.0f} s). "
        f"{len(noisy)} of {len(views)} rows stopped at the "
        f"{settings.row_time_limit_s:g} s row limit with the relative stdev still above "
        f"{100 * settings.max_rel_stdev:g} % (flagged noisy); {throttled} samples were dropped as throttled "
        f"(SM clock under {settings.min_sm_clock_mhz} MHz)."
    )
    out.append("")

    # 5. Days 15 and 16 at a glance.
    day15 = main.get("day15-bank-conflicts", node)
    base = day15.rows()[0]
    out.append("### Day 15 and day 16 at a glance")
    out.append("")
    out.append("| day 15 kernel | median µs | x stride 1 | shared-memory GB/s |")
    out.append("| --- | ---: | ---: | ---: |")
    for r in day15.rows():
        out.append(f"| {r.label} | {r.median_us:.1f} | {r.median_ms / base.median_ms:.2f} | {r.shared_gbps:.0f} |")
    out.append("")
    day16 = main.get("day16-matmul", node)
    out.append("| day 16 kernel | size | median ms | GFLOP/s |")
    out.append("| --- | --- | ---: | ---: |")
    for r in day16.rows():
        out.append(f"| {r.label} | {r.size} | {r.median_ms:.3f} | {r.gflops:.0f} |")
    padded = day13.row("padded", "8192x8192")
    copy8k = day13.row("copy", "8192x8192")
    assert padded is not None and copy8k is not None
    targets = ["### Targets (issue 3)", "", "| target | measured | verdict |", "| --- | --- | --- |"]
    for size, (label, ratio) in copy_ratio.items():
        targets.append(
            f"| best copy kernel >= 95 % of driver memcpy ({size}) | {_pct(100 * ratio)} ({label}) | "
            f"{_verdict(ratio, 0.95)} |"
        )
    ratio = padded.gbps / copy8k.gbps
    targets.append(f"| tile[32][33] >= 90 % of copy at 8192x8192 | {_pct(100 * ratio)} | {_verdict(ratio, 0.90)} |")
    targets.append(
        f"| two runs agree within 1 % on every row above {AGREEMENT_FLOOR_US:.0f} µs | {within} of "
        f"{len(diffs)} rows; largest {100 * diffs[0][0]:.2f} % | "
        f"{'met' if within == len(diffs) else 'missed'} |"
    )
    worst_t = max(t_main, t_rep)
    targets.append(
        f"| whole suite <= 3 minutes after set-up | {t_main:.0f} s and {t_rep:.0f} s | "
        f"{'met' if worst_t <= 180 else 'missed'} |"
    )
    targets.append("")
    out[2:2] = targets
    return "\n".join(out) + "\n"


def _verdict(ratio: float, target: float) -> str:
    if ratio >= target:
        return "met"
    return f"missed by {100 * (target - ratio):.1f} points"


def splice(readme: str, block: str) -> str:
    """``readme`` with the text between the markers replaced by ``block``."""
    if BEGIN not in readme or END not in readme:
        raise ValueError(f"the README has no '{BEGIN}' ... '{END}' block")
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{block}{END}{tail}"


def committed_block(readme: str) -> str:
    return readme.split(BEGIN, 1)[1].split(END, 1)[0].removeprefix("\n")
