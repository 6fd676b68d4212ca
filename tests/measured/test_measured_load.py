"""load_view: what the pages get from measure.store.results for real result files (written through its writer)."""

from __future__ import annotations

from pathlib import Path

import measuredkit as kit
import pytest

from site_plugins.measured import expand, load_view
from site_plugins.measured.load import per_step

NB = "\u00a0"


def test_fresh_result_becomes_tables_with_ceilings_and_reasons(tmp_path: Path) -> None:
    view = load_view(kit.make_project(tmp_path))
    assert view.nodes == ("h200-1",) and view.experiments == ("day13-transpose",)
    (result,) = view.results
    assert (result.state, result.metric, result.source) == ("fresh", "gbps", "code/day13/transpose.cu")
    assert result.provenance is not None and result.provenance.nvcc == "V13.0.88"
    assert [t.size for t in result.tables] == ["2003x3001", "8192x8192"]
    small, big = result.tables
    assert [(r.kernel, r.id) for r in big.rows] == [
        ("copy", "copy"),
        ("naive", "naive"),
        ("tile[32][32]", "tile32"),
        ("tile[32][33]", "tile32-padded"),
    ]
    assert small.rows[0].suspect == (f"working set (45.9{NB}MiB) fits in the 60.0{NB}MiB L2",)
    assert big.rows[0].suspect == ()
    (ceiling,) = big.ceilings
    assert (ceiling.kernel, ceiling.note) == ("cudaMemcpy D2D", "copy ceiling, measured at 16384x16384 in the same run")
    # "% of copy" divides by the fastest copy KERNEL moving the same bytes in the same run: here the
    # experiment's own copy row at that size; the driver memcpy is a separate, labelled ceiling.
    assert big.ceiling_gbps == big.rows[0].gbps and big.ceiling_label == "copy kernel (copy, same bytes)"
    assert big.memcpy_gbps == ceiling.gbps and big.memcpy_label == "driver memcpy (16384x16384)"
    assert big.rows[0].pct_copy == 100.0 and big.rows[3].pct_copy == 100.0 * big.rows[3].gbps / big.rows[0].gbps
    assert big.rows[3].copy_ref == f"copy at 8192{NB}\u00d7{NB}8192, 3,835{NB}GB/s" and ceiling.pct_copy is None
    md = expand(
        "{{ measured day13-transpose size=8192x8192 rows=memcpy,copy }}\n",
        path="p.md",
        first_line=1,
        view=view,
        preview=False,
    ).markdown
    assert (
        '<td class="gloss-kernel"><code>cudaMemcpy D2D</code></td> <td class="gloss-num" data-label="Time '
        '(ms)">0.540</td> '
        '<td class="gloss-num" data-label="GB/s">3,977</td> '
        '<td class="gloss-num" data-label="% of copy">\u2014</td> <td class="gloss-note" data-label="Note">1</td></tr>'
    ) in md
    assert '<li>copy ceiling, measured at 16384x16384 in the same run</li>' in md


def test_failed_rows_are_kept_with_their_reason(tmp_path: Path) -> None:
    view = load_view(kit.make_project(tmp_path, failed={"naive": "12 elements still hold the poison"}))
    (result,) = view.results
    assert result.state == "failed"
    naive = result.tables[1].row("naive")
    assert naive is not None and naive.failed == "12 elements still hold the poison" and naive.time_ms is None


@pytest.mark.parametrize(
    ("median_ms", "steps", "clocks", "floor", "expected"),
    [
        # 26.2 ms over 2^20 steps is 25 ns a step; at 1,980 MHz, 49.5 cycles.
        (26.2144, 1 << 20, [1980, 1980, 1980], 1485, (25.0, 49.5)),
        # Readings under the throttle floor are left out, as the summary leaves their samples out.
        (26.2144, 1 << 20, [1000, 1980, 1980], 1485, (25.0, 49.5)),
        # The median of the kept readings: (1,755 + 1,980) / 2.
        (1.0, 1000, [1755, 1980], 1485, (1000.0, 1867.5)),
        # No reading at all (NVML unavailable records -1): the time per step only.
        (1.0, 1000, [-1, -1], 1485, (1000.0, None)),
    ],
)
def test_time_and_cycles_per_step(
    median_ms: float, steps: int, clocks: list[int], floor: int, expected: tuple[float, float | None]
) -> None:
    ns, cycles = per_step(median_ms, steps, clocks, floor)
    assert ns == pytest.approx(expected[0])
    assert cycles == (None if expected[1] is None else pytest.approx(expected[1]))


def test_a_size_that_declares_steps_gives_its_rows_time_and_cycles_per_step(tmp_path: Path) -> None:
    from measure.testing import synthetic as T

    T.write_fixture_repo(tmp_path)
    spec = tmp_path / "code" / "toy" / "experiment.yaml"
    text = spec.read_text().replace("{n: 1048576}", "{n: 1048576, steps: 4000}")
    spec.write_text(text.replace("{n: 67108864}", "{n: 67108864, steps: 8000}"))
    T.write(tmp_path, T.make_result(tmp_path, times_ms={("copy", "1M"): 2.0}))
    result = load_view(tmp_path).for_experiment("toy-copy")[0]
    small, big = (result.table("1M"), result.table("64M"))
    assert small is not None and big is not None
    copy = small.row("copy")
    assert copy is not None and copy.time_ms is not None
    # Every synthetic sample ran at 1,980 MHz: the median time over 4,000 steps, and that in cycles.
    assert copy.ns_per_step == pytest.approx(copy.time_ms * 1e6 / 4000)
    assert copy.cycles_per_step == pytest.approx(copy.time_ms * 1e6 / 4000 * 1.98)
    # Each size over its own steps.
    assert all(r.time_ms is not None and r.ns_per_step == pytest.approx(r.time_ms * 1e6 / 8000) for r in big.rows)
