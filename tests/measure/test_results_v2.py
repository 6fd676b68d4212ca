"""Schema version 2: the digest over the whole file, counters per row, the counter pass, the state
'incomplete'; version-1 files stay valid as they are. Messages are asserted verbatim."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from measure.nsight import counters as C
from measure.store import results as R
from measure.testing import synthetic as T

REL = "measure/results/test-node/toy-copy.json"
RERUN = "re-run `gloss measure run toy-copy --node test-node`"
TAMPER = f"{RERUN}; result files are written only by the runner"


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


def test_a_result_with_counters_is_fresh_and_carries_them(repo: Path) -> None:
    T.write(repo, T.make_result(repo, with_counters=True))
    e = entry(repo)
    assert e.state == "fresh", messages(e)
    assert e.result is not None and e.result.schema_version == R.SCHEMA_VERSION == 3 and len(e.result.digest) == 64
    row = e.result.rows[0]
    assert row.counters is not None and set(row.counters) == set(C.DEFAULT_METRICS["sm_90"])
    assert e.result.counter_pass is not None and e.result.counter_pass.error == ""


def test_editing_a_counter_is_tampering(repo: Path) -> None:
    result = T.make_result(repo, with_counters=True)
    T.write(repo, result)
    stored = R.digest_of(result)

    def change(d: dict[str, Any]) -> None:
        d["rows"][0]["counters"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] = 1.0

    edit(repo, change)
    e = entry(repo)
    now = R.digest_of(e.result)  # type: ignore[arg-type]
    assert e.state == "tampered"
    assert messages(e) == [
        f"{REL}:1: tampered: the contents do not match the digest (sha256 {stored[:12]} recorded, {now[:12]} now): "
        f"a value was edited after the run (counters, checks or provenance); {TAMPER}"
    ]


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["provenance"].update(hostname="elsewhere"),
        lambda d: d["counter_pass"].update(ncu_version="2099.1"),
        lambda d: d["rows"][1]["check"].update(tolerance=0.5),
    ],
)
def test_editing_anything_else_is_tampering_too(repo: Path, change: Any) -> None:
    T.write(repo, T.make_result(repo, with_counters=True))
    edit(repo, change)
    e = entry(repo)
    assert e.state == "tampered" and "do not match the digest" in messages(e)[0]


def test_a_version_2_result_without_its_digest_is_tampered(repo: Path) -> None:
    T.write(repo, T.make_result(repo))
    edit(repo, lambda d: d.pop("digest"))
    assert messages(entry(repo)) == [f"{REL}:1: tampered: the result carries no digest; {TAMPER}"]


def test_a_recomputation_finding_is_reported_instead_of_the_digest(repo: Path) -> None:
    T.write(repo, T.make_result(repo))
    edit(repo, lambda d: d["rows"][0]["summary"].update(median_ms=0.5))
    got = messages(entry(repo))
    assert len(got) == 1 and "the summary does not recompute from its raw samples" in got[0]


def test_a_version_1_file_stays_valid_without_digest_or_counters(repo: Path) -> None:
    path = T.write(repo, T.make_result(repo, schema_version=1))
    text = path.read_text()
    assert '"digest"' not in text and '"counters"' not in text and '"counter_pass"' not in text
    e = entry(repo)
    assert e.state == "fresh", messages(e)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(digest="0" * 64), "digest"),
        (lambda d: d["rows"][0].update(counters={"dram__bytes_read.sum": 1.0}), "counters"),
    ],
)
def test_a_version_1_file_with_version_2_fields_is_invalid(repo: Path, change: Any, field: str) -> None:
    T.write(repo, T.make_result(repo, schema_version=1))
    edit(repo, change)
    want = f"{REL}:1: invalid: schema version 1 has no '{field}' (a version-2 field); {RERUN}"
    assert messages(entry(repo)) == [want]


def test_counters_asked_for_but_missing_make_the_result_incomplete(repo: Path) -> None:
    result = T.make_result(repo, with_counters=True)
    rows = list(result.rows)
    assert rows[1].counters is not None
    partial = {k: v for k, v in rows[1].counters.items() if k != C.DRAM_WR and k != C.DURATION}
    rows[1] = T.replace(rows[1], counters=partial)
    rows[2] = T.replace(rows[2], counters=None)
    T.write(repo, T.replace(result, rows=rows))
    e = entry(repo)
    assert e.state == "incomplete" and not e.fresh
    assert messages(e) == [
        f"{REL}:1: incomplete: row 'slow' at 1M lacks the counter gpu__time_duration.sum and 1 more; {RERUN}",
        f"{REL}:1: incomplete: row 'copy' at 64M lacks the counter gpu__time_duration.sum and 17 more; {RERUN}",
    ]


def test_a_failed_counter_pass_makes_the_result_incomplete(repo: Path) -> None:
    result = T.make_result(repo)
    cp = R.CounterPass("unknown", ["ncu"], ["gpu__time_duration.sum"], "ncu is not on PATH")
    T.write(repo, T.replace(result, counter_pass=cp))
    assert messages(entry(repo)) == [
        f"{REL}:1: incomplete: the counter pass failed (ncu is not on PATH); fix it, then {RERUN}"
    ]


def test_a_run_without_counters_is_not_incomplete(repo: Path) -> None:
    T.write(repo, T.make_result(repo))  # counter_pass null: --no-counters
    assert entry(repo).state == "fresh"


def test_a_spec_extra_counter_is_required_too(repo: Path) -> None:
    T.write(repo, T.make_result(repo, with_counters=True))
    e = R.judge(repo, REL, "toy-copy", "test-node", None, ["test-node"])
    assert e.state == "orphaned"  # (no spec given: judged only up to orphaned)
    result = T.make_result(repo, with_counters=True)
    problems = R.incomplete_problems(result, REL, {"slow": ["lts__t_sectors_srcunit_tex_op_read.sum"]})
    assert [str(p) for p in problems] == [
        f"{REL}:1: incomplete: row 'slow' at 1M lacks the counter lts__t_sectors_srcunit_tex_op_read.sum; {RERUN}",
        f"{REL}:1: incomplete: row 'slow' at 64M lacks the counter lts__t_sectors_srcunit_tex_op_read.sum; {RERUN}",
    ]
