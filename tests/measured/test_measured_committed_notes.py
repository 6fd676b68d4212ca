"""What the committed results say in the Note column: the judgements that matter to readers, checked on
the real result files (they change only with a real run on the node); the H200's unless a test names
another node. Notes are computed per node, from that node's own counters and L2."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from site_plugins.measured import ResultsView, load_view
from site_plugins.measured.model import Row
from site_plugins.measured.notes import notes as row_notes

REPO = Path(__file__).resolve().parents[2]


@cache
def _view() -> ResultsView:
    return load_view(REPO)


def _rows(experiment: str, size: str, node: str = "h200-1") -> dict[str, Row]:
    view = _view()
    (result,) = [r for r in view.results if r.experiment == experiment and r.node == node]
    table = result.table(size)
    assert table is not None
    return {r.id: r for r in table.rows}


def notes(row: Row, columns: list[str]) -> list[str]:
    return row_notes(row, False, columns)


def test_a_flop_rate_row_that_fits_in_l2_is_noted_not_suspect() -> None:
    (fma,) = _rows("ceilings-fp32", "1081344 threads x 4096 steps").values()
    assert fma.suspect == ()
    assert notes(fma, ["time", "gflops"])[0] == "working set fits in L2"
    # the GB/s clause only beside a GB/s figure
    assert notes(fma, ["gbps"])[0] == "working set fits in L2; its GB/s may be the cache's"


def test_re_reads_are_a_note_and_writes_left_in_the_l2_are_not_judged() -> None:
    mm = _rows("day16-matmul", "4096x4096x4096")
    assert mm["naive"].suspect == ()
    assert notes(mm["naive"], ["gflops"]) == [
        "DRAM read over 10.0\u00a0% more than the declared bytes: the kernel's own global loads asked for at least "
        "that many bytes in 32-byte sectors: sectors used in part, or data loaded more than once"
    ]
    conv = _rows("day20-convolution", "4096x4096")
    # the image is read exactly once; a sixth of the writes are still in the L2 when a kernel ends
    assert all(r.suspect == () and r.findings == () for r in conv.values())


def test_the_naive_transposes_extra_reads_point_at_its_own_partial_stores() -> None:
    # Its loads are the copy's (4 sectors per request, exactly the declared bytes); its stores write 4
    # bytes of each of 32 sectors per request. The note must not call the extra reads "not the code's".
    (note,) = notes(_rows("day13-transpose", "8192x8192")["naive"], ["time", "gbps"])
    assert note == (
        "DRAM read over 10.0\u00a0% more than the declared bytes: more than every sector the kernel's global loads "
        "asked for; its global stores write sectors in part (they touch more sector bytes than they write), and "
        "a partly written sector may have to be read from DRAM to be completed: the likely source, which these "
        "counters do not separate; GB/s counts the declared bytes"
    )


def test_a_working_set_that_fits_in_l2_still_marks_a_bandwidth_row() -> None:
    ragged = _rows("day20-convolution", "2003x3001")
    assert any("fits in the 60.0\u00a0MiB L2" in s for s in ragged["copy"].suspect)
    # the same row on the H100 is judged against that node's own, smaller L2
    on_h100 = _rows("day20-convolution", "2003x3001", node="h100-1")
    assert any("fits in the 50.0\u00a0MiB L2" in s for s in on_h100["copy"].suspect), on_h100["copy"].suspect


def test_a_few_megabytes_of_writes_beside_hundreds_read_are_not_a_finding() -> None:
    # A reduction writes one float per block; DRAM sees about 2.4 MB of writes during it (as during every
    # 64M-element kernel), under 2 % of the 268 MB it reads: no note, so no table repeats one per row.
    for experiment, size in (("reduction", "64M floats, 1056 blocks"), ("latency-hiding", "512 MiB")):
        rows = [r for r in _rows(experiment, size).values() if not r.id.startswith("chase")]
        assert rows and all(r.findings == () for r in rows), experiment


def test_host_transfers_and_launches_are_not_flagged_for_fitting_in_the_l2() -> None:
    for experiment, size in (("transfers", "4 MiB"), ("launch-overhead", "1 warp")):
        rows = [r for r in _rows(experiment, size).values() if not r.device_memory]
        assert rows and all(not any("L2" in s for s in r.suspect) for r in rows), experiment
    # a kernel row of the same table (scale_add on 8 MiB of device memory) still is
    assert any("L2" in s for s in _rows("transfers", "4 MiB")["kernel-only"].suspect)


def test_the_chart_plots_what_the_rows_are_about() -> None:
    from site_plugins.measured.render import chart_metric

    view = _view()

    def pick(experiment: str, size: str, cols: list[str]) -> str:
        (result,) = [r for r in view.results if r.experiment == experiment and r.node == "h200-1"]
        table = result.table(size)
        assert table is not None
        return chart_metric(result, table.rows, cols)  # type: ignore[arg-type]

    assert pick("launch-overhead", "1 warp", ["time"]) == "us_per_launch"
    # latency-hiding declares one add per element (GFLOP/s is its own metric); an embed showing GB/s only
    assert pick("latency-hiding", "512 MiB", ["time", "gbps"]) == "gbps"
    assert pick("latency-hiding", "512 MiB", ["time", "gflops"]) == "gflops"
    assert pick("day16-matmul", "4096x4096x4096", ["time", "gflops"]) == "gflops"
