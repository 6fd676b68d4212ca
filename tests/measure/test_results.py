"""The results module: format, states (fresh/stale/failed/tampered/unregistered/missing/invalid/orphaned),
tamper and stale detection with their exact messages, atomic writes, the figures pages read."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from measure.experiment.spec import sha256_file
from measure.store import results as R
from measure.testing import synthetic as T

REL = "measure/results/test-node/toy-copy.json"
RERUN = "re-run `gloss measure run toy-copy --node test-node`"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    T.write_fixture_repo(tmp_path)
    return tmp_path


def entry(root: Path) -> R.Entry:
    return R.load_all(root).get("toy-copy", "test-node")


def messages(e: R.Entry) -> list[str]:
    return [str(p) for p in e.problems]


def edit(root: Path, change: Any) -> None:
    path = root / REL
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_missing_before_any_run(repo: Path) -> None:
    e = entry(repo)
    assert e.state == "missing" and e.result is None and e.rows() == []
    assert messages(e) == [
        "code/toy/experiment.yaml:1: missing: experiment 'toy-copy' has no result on node 'test-node'; run "
        "`gloss measure run toy-copy --node test-node` on that node"
    ]


def test_a_consistent_result_is_fresh_and_its_figures_follow_from_the_samples(repo: Path) -> None:
    T.write(repo, T.make_result(repo, times_ms={("copy", "64M"): 0.125}))
    e = entry(repo)
    assert e.state == "fresh" and e.fresh and e.problems == ()
    assert [(v.kernel, v.size) for v in e.rows()] == [("copy", "1M"), ("slow", "1M"), ("copy", "64M"), ("slow", "64M")]
    row = e.row("copy", "64M")
    assert row is not None and e.row("slow copy", "64M") == e.row("slow", "64M")  # by id or by label
    assert row.median_ms == pytest.approx(0.125)
    assert row.gbps == pytest.approx(2 * 4 * 67108864 / 0.125e-3 / 1e9, rel=1e-3)  # 4295 GB/s
    assert row.pct_of_peak == pytest.approx(100 * row.gbps / 4814.304)
    assert row.pct_of_copy_ceiling == pytest.approx(100 * row.gbps / e.copy_ceiling_gbps)
    assert row.gflops is None and row.shared_gbps is None
    assert not row.fits_in_l2 and e.row("copy", "1M").fits_in_l2  # type: ignore[union-attr]
    assert row.suspect is False and row.noisy is False and row.n_samples == 40
    assert row.median_us == pytest.approx(125.0) and row.rel_iqr == pytest.approx(row.iqr_ms / row.median_ms)
    assert [v.kernel for v in e.ceiling_rows()] == ["memcpy"] and e.memcpy_gbps == e.copy_ceiling_gbps
    assert e.sizes() == ["1M", "64M"] and e.kernels() == ["copy", "slow"]
    assert e.provenance_sentence() == (
        "Measured on test-node (NVIDIA H200, 132 SMs, driver synthetic, CUDA 13.0, nvcc 13.0) on 2026-01-01 "
        "from an unknown commit."
    )


def test_a_row_beyond_95_percent_of_peak_is_suspect(repo: Path) -> None:
    T.write(repo, T.make_result(repo, times_ms={("copy", "64M"): 0.1}))  # 5.4 TB/s on a 4.8 TB/s part
    row = entry(repo).row("copy", "64M")
    assert row is not None and row.above_95pct_of_peak and row.suspect and row.pct_of_peak > 100


def test_editing_one_raw_sample_is_tampering(repo: Path) -> None:
    T.write(repo, T.make_result(repo))

    def change(d: dict[str, Any]) -> None:
        d["rows"][2]["samples"]["times_ms"][5] = 0.5

    edit(repo, change)
    e = entry(repo)
    assert e.state == "tampered"
    assert messages(e) == [
        f"{REL}:1: tampered: row 'copy' at 64M: the summary does not recompute from its raw samples (median_ms: "
        f"stored 1.1, recomputed 1.0999083333333335); {RERUN}; result files are written only by the runner"
    ]
    assert e.rows()  # the numbers are still there for a preview, but the state forbids publishing


def test_editing_the_summary_is_tampering(repo: Path) -> None:
    T.write(repo, T.make_result(repo))

    def change(d: dict[str, Any]) -> None:
        d["rows"][0]["summary"]["median_ms"] = 0.09

    edit(repo, change)
    assert messages(entry(repo)) == [
        f"{REL}:1: tampered: row 'copy' at 1M: the summary does not recompute from its raw samples (median_ms: stored "
        f"0.09, recomputed 0.1); {RERUN}; result files are written only by the runner"
    ]


def test_editing_a_figure_or_the_declared_bytes_is_tampering(repo: Path) -> None:
    T.write(repo, T.make_result(repo))

    def change(d: dict[str, Any]) -> None:
        d["rows"][1]["bytes_read"] *= 2

    edit(repo, change)
    [message] = messages(entry(repo))
    assert message.startswith(
        f"{REL}:1: tampered: row 'slow' at 1M: the figures do not recompute from the summary "
        "and declared work (gbps: stored "
    )


def test_editing_a_ceiling_sample_is_tampering(repo: Path) -> None:
    T.write(repo, T.make_result(repo))

    def change(d: dict[str, Any]) -> None:
        d["ceilings"][0]["samples"]["times_ms"][0] = 0.4

    edit(repo, change)
    assert entry(repo).state == "tampered"


def test_dropping_the_clock_of_a_sample_is_tampering(repo: Path) -> None:
    T.write(repo, T.make_result(repo))

    def change(d: dict[str, Any]) -> None:
        d["rows"][0]["samples"]["sm_clock_mhz"].pop()

    edit(repo, change)
    assert messages(entry(repo)) == [
        f"{REL}:1: tampered: row 'copy' at 1M has 40 samples but 39 clock readings; {RERUN}; result files are written "
        "only by the runner"
    ]


def test_declaring_a_failed_result_ok_is_tampering(repo: Path) -> None:
    T.write(repo, T.make_result(repo, failed={("slow", "64M")}))

    def change(d: dict[str, Any]) -> None:
        d["status"] = "ok"

    edit(repo, change)
    assert messages(entry(repo)) == [
        f"{REL}:1: tampered: status is 'ok' but the rows say otherwise; {RERUN}; result files are written only by the "
        "runner"
    ]


def test_a_failed_check_makes_the_result_failed_and_the_row_unpublishable(repo: Path) -> None:
    T.write(repo, T.make_result(repo, failed={("slow", "64M")}))
    e = entry(repo)
    assert e.state == "failed"
    assert messages(e) == [
        f"{REL}:1: failed: kernel 'slow' at 64M did not match its reference (12 elements were never written); "
        f"fix it in code/toy/toy.cu, then {RERUN}"
    ]
    assert [(v.kernel, v.size) for v in e.rows()] == [("copy", "1M"), ("slow", "1M"), ("copy", "64M")]
    assert [r.kernel for r in e.failed_rows()] == ["slow"]


def test_a_changed_source_makes_the_result_stale(repo: Path) -> None:
    T.write(repo, T.make_result(repo))
    before = R.load_all(repo).get("toy-copy").result
    assert before is not None
    recorded = before.provenance.source_sha256
    cu = repo / "code" / "toy" / "toy.cu"
    cu.write_text(cu.read_text() + "// a comment is a change too\n")
    now = sha256_file(cu)
    assert messages(entry(repo)) == [
        f"{REL}:1: stale: code/toy/toy.cu changed since it was measured (sha256 {recorded[:12]} recorded, {now[:12]} "
        f"now); {RERUN}"
    ]


def test_a_changed_spec_makes_the_result_stale(repo: Path) -> None:
    T.write(repo, T.make_result(repo))
    spec = repo / "code" / "toy" / "experiment.yaml"
    spec.write_text(spec.read_text().replace("title: A toy copy for tests", "title: A toy copy"))
    [message] = messages(entry(repo))
    assert message.startswith(f"{REL}:1: stale: code/toy/experiment.yaml changed since it was measured (sha256 ")
    assert entry(repo).state == "stale"


def test_a_spec_that_no_longer_loads_leaves_the_result_stale(repo: Path) -> None:
    T.write(repo, T.make_result(repo))
    spec = repo / "code" / "toy" / "experiment.yaml"
    spec.write_text(spec.read_text().replace("reference: copy", "reference: nope", 1))
    rs = R.load_all(repo)
    assert rs.get("toy-copy").state == "stale"
    assert [str(p) for p in rs.get("toy-copy").problems] == [
        f"{REL}:1: stale: code/toy/experiment.yaml does not load, so this result cannot be checked against it; fix "
        f"the spec (its problems are listed separately), then {RERUN}"
    ]
    assert len(rs.setup_problems) == 1 and len(rs.problems()) == 2


def test_a_result_from_an_unregistered_node(repo: Path) -> None:
    result = T.make_result(repo, node="lab-a100")
    T.write(repo, result)
    e = R.load_all(repo).get("toy-copy", "lab-a100")
    assert e.state == "unregistered"
    assert messages(e) == [
        "measure/results/lab-a100/toy-copy.json:1: unregistered: node 'lab-a100' is not in measure/nodes.yaml; "
        "register it there, or re-run `gloss measure run toy-copy --node NAME` on a registered node (test-node)"
    ]


def test_a_result_for_an_experiment_nobody_declares(repo: Path) -> None:
    T.write(repo, T.make_result(repo))
    (repo / REL).rename(repo / "measure/results/test-node/old-copy.json")
    edit_path = repo / "measure/results/test-node/old-copy.json"
    data = json.loads(edit_path.read_text())
    data["experiment"] = "old-copy"
    edit_path.write_text(json.dumps(data))
    e = R.load_all(repo).get("old-copy", "test-node")
    assert e.state == "orphaned"
    assert messages(e) == [
        "measure/results/test-node/old-copy.json:1: orphaned: no spec under code/ declares experiment 'old-copy' any "
        "more; delete measure/results/test-node/old-copy.json, or restore the experiment's spec"
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "{not json",
            f"{REL}:1: invalid: not valid JSON: Expecting property name enclosed in double quotes (column 2); "
            f"{RERUN}",
        ),
        ('{"schema_version": 0}', f"{REL}:1: invalid: schema version 0, this runner reads 1, 2 and 3; {RERUN}"),
    ],
)
def test_unreadable_files_are_invalid(repo: Path, text: str, message: str) -> None:
    (repo / REL).parent.mkdir(parents=True)
    (repo / REL).write_text(text)
    e = entry(repo)
    assert e.state == "invalid" and messages(e) == [message]


def test_a_file_that_breaks_the_format_is_invalid(repo: Path) -> None:
    T.write(repo, T.make_result(repo))

    def drop(d: dict[str, Any]) -> None:
        del d["provenance"]["gpu_uuid"]

    edit(repo, drop)
    assert messages(entry(repo)) == [f"{REL}:1: invalid: missing required key 'provenance.gpu_uuid'; {RERUN}"]

    def wrong_type(d: dict[str, Any]) -> None:
        d["provenance"]["gpu_uuid"] = "x"
        d["rows"][0]["samples"]["times_ms"][0] = "fast"

    edit(repo, wrong_type)
    assert messages(entry(repo)) == [
        f"{REL}:1: invalid: 'rows[0].samples.times_ms' must be a list of numbers, got a string; {RERUN}"
    ]


def test_a_file_named_for_another_node_is_invalid(repo: Path) -> None:
    T.write(repo, T.make_result(repo))
    target = repo / "measure/results/other/toy-copy.json"
    target.parent.mkdir()
    (repo / REL).rename(target)
    (repo / "measure/nodes.yaml").write_text(T.FIXTURE_NODES.replace("test-node", "other"))
    e = R.load_all(repo).get("toy-copy", "other")
    assert messages(e) == [
        "measure/results/other/toy-copy.json:1: invalid: 'node' is 'test-node' but the file is named for 'toy-copy' "
        "on 'other'; re-run `gloss measure run toy-copy --node other`"
    ]


def test_files_round_trip_exactly(repo: Path) -> None:
    result = T.make_result(repo)
    path = T.write(repo, result)
    again, problems = R.read_result(path, REL, "toy-copy", "test-node")
    assert problems == [] and again == R.with_digest(result) and again.digest == R.digest_of(result)
    text = path.read_text()
    assert text == R.dumps(R.with_digest(result)) and text.endswith("}\n")
    assert '"times_ms": [0.09' in text  # one line per list of numbers keeps diffs readable


def test_writes_are_atomic_and_leave_nothing_partial(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = T.make_result(repo)
    path = T.write(repo, first)
    before = path.read_bytes()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        R.write_result(path, T.make_result(repo, times_ms={("copy", "1M"): 0.2}))
    assert path.read_bytes() == before  # the old result is untouched...
    assert sorted(p.name for p in path.parent.iterdir()) == ["toy-copy.json"]  # ...and no temp file is left


def test_get_prefers_a_fresh_result_then_the_newest(repo: Path) -> None:
    T.write(repo, T.make_result(repo))
    other = T.make_result(repo, node="test-node-2")
    T.write(repo, other)
    (repo / "measure/nodes.yaml").write_text(
        T.FIXTURE_NODES + "  test-node-2:\n    gpu: NVIDIA H200\n    arch: sm_90\n    description: second\n"
    )
    cu = repo / "code" / "toy" / "toy.cu"
    rs = R.load_all(repo)
    assert {e.node for e in rs.for_experiment("toy-copy")} == {"test-node", "test-node-2"}
    cu.write_text(cu.read_text() + "\n")
    T.write(repo, T.make_result(repo, node="test-node-2"))  # re-measured after the change: fresh
    assert R.load_all(repo).get("toy-copy").node == "test-node-2"
    assert R.load_all(repo).get("toy-copy", "test-node").state == "stale"


def test_an_undeclared_unmeasured_experiment(repo: Path) -> None:
    e = R.load_all(repo).get("day99-nothing")
    assert e.state == "missing" and messages(e) == [
        "measure/results/test-node/day99-nothing.json:0: missing: no experiment 'day99-nothing' is declared or "
        "measured; declare it in code/<lesson>/experiment.yaml, then run `gloss measure run day99-nothing --node "
        "test-node`"
    ]


REPO = Path(__file__).resolve().parents[2]


def test_the_committed_h200_results_are_fresh() -> None:
    """CI: the committed results still match today's sources and specs, and recompute from their samples."""
    rs = R.load_all(REPO)
    assert [str(p) for p in rs.problems()] == []
    for exp in ("copy-ceilings", "day13-transpose", "day15-bank-conflicts", "day16-matmul"):
        e = rs.get(exp, "h200-1")
        assert e.fresh and e.provenance is not None and e.provenance.gpu_name == "NVIDIA H200"
        assert e.provenance.git_commit != "unknown" and e.provenance.git_dirty is False
    day13 = rs.get("day13-transpose", "h200-1")
    assert [v.label for v in day13.rows()][:4] == ["copy", "naive", "tile[32][32]", "tile[32][33]"]
    assert day13.row("padded", "2003x3001").fits_in_l2  # type: ignore[union-attr]
    assert not day13.row("padded", "8192x8192").fits_in_l2  # type: ignore[union-attr]


def _pend(root: Path) -> None:
    spec = root / "code/toy/experiment.yaml"
    spec.write_text(spec.read_text().replace("\ntitle:", "\npending: true\ntitle:", 1))


def test_a_pending_experiment_is_listed_but_is_no_problem(repo: Path) -> None:
    _pend(repo)
    rs = R.load_all(repo)
    e = rs.get("toy-copy", "test-node")
    assert e.state == "pending" and not e.fresh and rs.problems() == [] and rs.pending == [e]
    assert messages(e) == [
        "code/toy/experiment.yaml:1: pending: experiment 'toy-copy' has not been run on node 'test-node' yet; run "
        "`gloss measure run toy-copy --node test-node` on that node, commit the result and remove 'pending: true'"
    ]


def test_a_pending_flag_left_on_a_measured_experiment_is_a_problem(repo: Path) -> None:
    _pend(repo)
    T.write(repo, T.make_result(repo))
    rs = R.load_all(repo)
    assert rs.get("toy-copy", "test-node").state == "fresh"
    assert [str(p) for p in rs.problems()] == [
        "code/toy/experiment.yaml:1: experiment 'toy-copy' has a result on node 'test-node' but its spec still "
        "says 'pending: true'; remove 'pending: true' from code/toy/experiment.yaml"
    ]


def test_registers_and_percent_of_the_banks_come_from_the_committed_day15_result() -> None:
    """Registers are the compiler's count recorded at load; % of the banks divides the shared-memory
    GB/s by 132 SMs x 128 bytes per clock at the median recorded SM clock."""
    repo = Path(__file__).resolve().parents[2]
    e = R.load_all(repo).get("day15-bank-conflicts", "h200-1")
    one, worst = e.row("stride-1", "16384 blocks x 256 loads"), e.row("stride-32", "16384 blocks x 256 loads")
    assert one is not None and worst is not None
    assert one.registers == 19 and e.provenance is not None and e.provenance.sm_count == 132
    peak = 132 * 128 * 1980 * 1e6 / 1e9  # every sample of that run was read at 1980 MHz
    assert one.pct_of_shared_peak == pytest.approx(100 * one.shared_gbps / peak)  # type: ignore[operator]
    assert 60 < one.pct_of_shared_peak < 80 and 2.5 < worst.pct_of_shared_peak < 3.5  # type: ignore[operator]
    copy = R.load_all(repo).get("day13-transpose", "h200-1").row("copy", "8192x8192")
    assert copy is not None and copy.pct_of_shared_peak is None  # no shared bytes declared
