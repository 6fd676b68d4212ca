"""Counters on pages: ``{{ counter }}`` in prose, counter columns in ``{{ measured }}`` tables, the
kernel's own duration beside short launches, what "% of copy" divides by, the driver memcpy as its own
ceiling, and the noisy mark on values in prose. Result files are real (written through measure.store.results,
with synthetic counters from measure.testing.synthetic)."""

from __future__ import annotations

from html import escape
from pathlib import Path

import measuredkit as kit
import plainview as pv

from site_plugins.measured import expand, load_view
from site_plugins.measured.model import ResultsView

NB = "\u00a0"
PATH = "content/terms/t.md"
RERUN = "re-run `gloss measure run day13-transpose --node h200-1`"


def run(view: ResultsView, body: str) -> tuple[str, list[str], tuple[str, ...]]:
    out = expand(body, path=PATH, first_line=1, view=view, preview=False)
    return out.markdown, [str(p) for p in out.problems], out.shown_values


def test_a_counter_in_prose_derived_or_raw(tmp_path: Path) -> None:
    view = load_view(kit.make_project(tmp_path, counters=True))
    md, problems, values = run(
        view,
        'Ways {{ counter day13-transpose size=8192x8192 row="tile[32][32]" metric=conflict_ways_ld }}, '
        "sectors {{ counter day13-transpose size=8192x8192 row=naive metric=sectors_per_req_st }}, "
        "DRAM {{ counter day13-transpose size=8192x8192 row=naive metric=dram_mb }}, "
        "raw {{ counter day13-transpose size=8192x8192 row=naive metric=dram__bytes_read.sum }}.\n",
    )
    assert problems == []
    assert ('<span class="gloss-value gloss-counter" title="tile[32][32] at 8192\u00a0\u00d7\u00a08192, '
        'measured on h200-1, '
            'Nsight Compute: ways per shared load"') in md
    key = "day13-transpose/8192x8192/h200-1"
    assert values == (
        f"{key} tile[32][32] counter conflict_ways_ld: 2.00",
        f"{key} naive counter sectors_per_req_st: 4.00",
        f"{key} naive counter dram_mb: 537{NB}MB",
        f"{key} naive counter dram__bytes_read.sum: 268,435,456",
    )


def test_a_missing_metric_fails_with_path_line_problem_and_remedy(tmp_path: Path) -> None:
    view = load_view(kit.make_project(tmp_path, counters=True))
    _, problems, _ = run(
        view,
        "Intro.\n\nHit {{ counter day13-transpose size=8192x8192 row=naive metric=lts__t_sector_hit_rate.pct }}.\n",
    )
    assert problems == [
        f"{PATH}:3: kernel 'naive' of experiment 'day13-transpose' at 8192x8192 has no counter "
        "'lts__t_sector_hit_rate.pct'; derived: conflict_ways_ld, conflict_ways_st, conflict_ways, "
        "sectors_per_req_ld, sectors_per_req_st, sectors_per_req, global_ld_mb, global_st_mb, l2_mb, dram_read_mb, "
        "dram_write_mb, dram_mb, dram_ratio, occupancy_pct, registers, ktime, sm_clock_mhz; or list the metric "
        "under 'counters:' for this kernel in the "
        f"spec, then {RERUN}"
    ]


def test_a_near_miss_gets_a_hint(tmp_path: Path) -> None:
    view = load_view(kit.make_project(tmp_path, counters=True))
    _, problems, _ = run(view, "{{ counter day13-transpose size=8192x8192 row=naive metric=conflict_way_ld }}\n")
    assert problems[0].startswith(
        f"{PATH}:1: kernel 'naive' of experiment 'day13-transpose' at 8192x8192 has no counter 'conflict_way_ld'; "
        "did you mean 'conflict_ways_ld'? derived: "
    )


def test_a_result_without_counters_says_how_to_get_them(tmp_path: Path) -> None:
    view = load_view(kit.make_project(tmp_path))
    _, problems, _ = run(view, "{{ counter day13-transpose size=8192x8192 row=naive metric=conflict_ways }}\n")
    assert problems == [
        f"{PATH}:1: kernel 'naive' of experiment 'day13-transpose' at 8192x8192 has no counters (the result was "
        f"measured without the counter pass); {RERUN} on the node with Nsight Compute (ncu) installed and without "
        "--no-counters"
    ]


def test_the_counter_directive_needs_row_and_metric() -> None:
    _, problems, _ = run(pv.view(), "{{ counter day13-transpose size=8192x8192 row=naive }}\n")
    assert problems == [
        f"{PATH}:1: '{{{{ counter }}}}' needs metric=; write it as "
        '{{ counter day13-transpose size=8192x8192 row="tile[32][32]" metric=conflict_ways_ld }}'
    ]


def test_counter_columns_in_a_table(tmp_path: Path) -> None:
    view = load_view(kit.make_project(tmp_path, counters=True))
    md, problems, _ = run(
        view,
        "{{ measured day13-transpose size=8192x8192 rows=naive "
        "cols=time,conflict_ways,sectors_per_req,dram_mb,ktime }}\n",
    )
    assert problems == []
    assert (
        '<th class="gloss-num">Time (ms)</th> <th class="gloss-num">ways per shared '
        'access</th> '
        '<th class="gloss-num">sectors per request</th> <th class="gloss-num">DRAM MB</th> '
        '<th class="gloss-num">kernel µs</th>'
    ) in md
    # naive at 8192x8192: 0.490 ms event time (not a short launch), 1.50 ways (2 on loads, 1 on stores),
    # 4 sectors per request, 537 MB, 441 µs of kernel time (the synthetic 90 %).
    assert (
        '<td class="gloss-kernel"><code>naive</code></td> <td class="gloss-num" data-label="Time '
        '(ms)">0.490</td> '
        '<td class="gloss-num" data-label="ways per shared access">1.50</td> '
        '<td class="gloss-num" data-label="sectors per request">4.00</td> '
        '<td class="gloss-num" data-label="DRAM MB">537</td> '
        '<td class="gloss-num" data-label="kernel µs">441</td></tr>'
    ) in md


def test_short_launches_show_the_kernel_duration_and_say_which_is_which(tmp_path: Path) -> None:
    view = load_view(kit.make_project(tmp_path, counters=True))
    md, problems, values = run(view, "{{ measured day13-transpose size=2003x3001 rows=copy,naive }}\n")
    assert problems == []
    # copy, 20 µs: short
    assert '</span></td> <td class="gloss-num" data-label="Time (ms)">0.0200 (kernel 0.0180)</td>' in md
    assert '</span></td> <td class="gloss-num" data-label="Time (ms)">0.0600</td>' in md  # naive, 60 µs: not short
    assert (
        f"Times are medians of CUDA-event timings around each launch; for launches under 50.0{NB}µs the time "
        "column also gives, as \u201ckernel\u201d, the kernel's own duration measured by Nsight Compute "
        "(gpu__time_duration), without the launch overhead and the events around it."
    ) in values[0]
    assert f"day13-transpose/2003x3001/h200-1 copy time: 0.0200{NB}ms (kernel 0.0180)" in values


def test_percent_of_copy_names_its_denominator_and_the_memcpy_is_a_separate_ceiling(tmp_path: Path) -> None:
    view = load_view(kit.make_project(tmp_path))
    md, problems, values = run(view, "{{ measured day13-transpose size=8192x8192 }}\n")
    assert problems == []
    said = (
        "% of copy divides each row's GB/s by the fastest copy kernel that moves the same bytes in the same run "
        f"(copy at 8192{NB}\u00d7{NB}8192, 3,835{NB}GB/s). The driver memcpy (16384x16384) reached 3,977{NB}GB/s in "
        "the same run, shown as a separate ceiling."
    )
    assert escape(said) in md and values[0].endswith(said)
    assert f"copy kernel (copy, same bytes) 3,835{NB}GB/s</text>" in md
    assert f"driver memcpy (16384x16384) 3,977{NB}GB/s</text>" in md
    assert 'class="gloss-chart-ceiling gloss-chart-ceiling--second"' in md


def test_values_from_noisy_rows_carry_the_tables_mark() -> None:
    md, problems, _ = run(
        pv.view(),
        "{{ value day13-transpose size=2003x3001 row=naive col=time }} and "
        "{{ ratio day13-transpose size=2003x3001 num=naive den=copy col=time }}.\n"
        "{{ measured day13-transpose size=2003x3001 }}\n",
    )
    assert problems == []
    mark = '<sup class="gloss-noisy-mark" title="naive: noisy: stopped at the time limit" data-search-exclude>~</sup>'
    assert md.count(mark) == 3  # the value, the ratio and the table's row
