"""What the committed results say in the Note column: the judgements that matter to readers, checked on
the real result files (they change only with a real run on the node); the H200's unless a test names
another node. Notes are computed per node, from that node's own counters and L2."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from site_plugins.measured import ResultsView, load_view
from site_plugins.measured.model import Row

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


def test_a_flop_rate_row_that_fits_in_l2_is_noted_not_suspect() -> None:
    (fma,) = _rows("ceilings-fp32", "1081344 threads x 4096 steps").values()
    assert fma.suspect == ()
    assert fma.note == "working set fits in L2: its GB/s may be the cache's; GFLOP/s is unaffected"


def test_re_reads_are_a_note_and_writes_left_in_the_l2_are_not_judged() -> None:
    mm = _rows("day16-matmul", "4096x4096x4096")
    assert mm["naive"].suspect == ()
    assert mm["naive"].note.startswith("DRAM read ") and "data moved more than once" in mm["naive"].note
    # the naive transpose reads each element once: its extra DRAM reads are not blamed on re-reads
    tr = _rows("day13-transpose", "8192x8192")
    assert "not the code's" in tr["naive"].note, tr["naive"].note
    conv = _rows("day20-convolution", "4096x4096")
    # the image is read exactly once; a sixth of the writes are still in the L2 when a kernel ends
    assert all(r.suspect == () and r.note == "" for r in conv.values())


def test_a_working_set_that_fits_in_l2_still_marks_a_bandwidth_row() -> None:
    ragged = _rows("day20-convolution", "2003x3001")
    assert any("fits in the 60.0\u00a0MiB L2" in s for s in ragged["copy"].suspect)
    # the same row on the H100 is judged against that node's own, smaller L2
    on_h100 = _rows("day20-convolution", "2003x3001", node="h100-1")
    assert any("fits in the 50.0\u00a0MiB L2" in s for s in on_h100["copy"].suspect), on_h100["copy"].suspect


def test_tiny_declared_writes_are_not_blamed_on_the_code() -> None:
    # A reduction writes one float per block; DRAM sees megabytes of writes during it, which its own
    # store sectors do not ask for: the note must not say the kernel writes data twice.
    rows = _rows("reduction", "64M floats, 1056 blocks")
    assert all("not the code's" in r.note and "more than once" not in r.note for r in rows.values()), [
        r.note for r in rows.values()]


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
