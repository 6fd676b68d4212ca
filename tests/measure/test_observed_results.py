"""Observed launches, occupancy and limits in result files: written by the runner only, read back,
judged. Editing a recorded error string is tampering. Messages are asserted verbatim."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from measure.store import results as R
from measure.testing import synthetic as T

REL = "measure/results/test-node/toy-copy.json"
RERUN = "re-run `gloss measure run toy-copy --node test-node`"
TAMPER = f"{RERUN}; result files are written only by the runner"

OBSERVED = """\
  - id: no-optin
    label: 64 KiB, no opt-in
    kind: observe
    function: toy_copy
    block: [1024]
    grid: ["cdiv(n, 1024)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: optin
    label: 64 KiB, opt-in
    kind: observe
    function: toy_copy
    block: [1024]
    grid: ["cdiv(n, 1024)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    max_dynamic_shared: 65536
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    T.write_fixture_repo(tmp_path)
    spec = tmp_path / "code" / "toy" / "experiment.yaml"
    spec.write_text(spec.read_text() + OBSERVED)
    return tmp_path


def refused_result(root: Path) -> R.Result:
    outcomes = {("no-optin", size): T.REFUSED for size in ("1M", "64M")}
    return T.make_result(root, outcomes=outcomes)


def entry(root: Path) -> R.Entry:
    return R.load_all(root).get("toy-copy", "test-node")


def messages(e: R.Entry) -> list[str]:
    return [str(p) for p in e.problems]


def edit(root: Path, change: Any) -> None:
    path = root / REL
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def observed_row(data: dict[str, Any], kernel: str) -> dict[str, Any]:
    return next(r for r in data["rows"] if r["kernel"] == kernel)


def test_a_refused_observation_is_a_fresh_result(repo: Path) -> None:
    T.write(repo, refused_result(repo))
    e = entry(repo)
    assert e.state == "fresh", messages(e)
    assert e.result is not None and e.result.status == "ok"
    refused = next(r for r in e.result.rows if r.kernel == "no-optin")
    assert refused.outcome == T.REFUSED and refused.refused and not refused.failed
    assert e.result.provenance.limits == T.SYNTHETIC_LIMITS
    # Observed rows are never timed, so they are not among the rows tables show.
    assert {v.kernel for v in e.rows()} == {"copy", "slow"}
    assert e.failed_rows() == []


def test_editing_a_recorded_error_string_is_tampering(repo: Path) -> None:
    result = refused_result(repo)
    T.write(repo, result)
    stored = R.digest_of(result)

    def change(d: dict[str, Any]) -> None:
        observed_row(d, "no-optin")["outcome"]["error_string"] = "too much shared memory"

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
        lambda d: observed_row(d, "no-optin")["outcome"].update(error_name="CUDA_ERROR_OUT_OF_MEMORY"),
        lambda d: observed_row(d, "optin")["occupancy"].update(blocks_per_sm=3),
        lambda d: d["provenance"]["limits"].update(shared_per_block_optin=262144),
    ],
)
def test_editing_an_outcome_occupancy_or_limit_is_tampering(repo: Path, change: Any) -> None:
    T.write(repo, refused_result(repo))
    edit(repo, change)
    e = entry(repo)
    assert e.state == "tampered" and "do not match the digest" in messages(e)[0]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda d: observed_row(d, "optin").update(samples={"times_ms": [0.1], "sm_clock_mhz": [1980]}),
            "row 'optin' at 1M is an observed launch but carries timings",
        ),
        (
            lambda d: observed_row(d, "optin").update(outcome=None),
            "row 'optin' at 1M is an observed launch but records no outcome",
        ),
        (
            lambda d: observed_row(d, "no-optin")["check"].update(passed=True, message=""),
            "row 'no-optin' at 1M was refused by the driver but passed its check",
        ),
        (
            lambda d: d["rows"][0].update(outcome={"launched": True, "error_name": "", "error_string": ""}),
            "row 'copy' at 1M records a launch outcome but is not an observed launch",
        ),
        (
            lambda d: d["rows"][0].update(setup={"expect": "mismatch"}),
            "row 'copy' at 1M records expect: mismatch but is not an observed launch",
        ),
    ],
)
def test_a_row_that_contradicts_its_kind_is_tampering(repo: Path, change: Any, problem: str) -> None:
    T.write(repo, refused_result(repo))
    edit(repo, change)
    assert f"{REL}:1: tampered: {problem}; {TAMPER}" in messages(entry(repo))


def test_an_observed_launch_with_a_wrong_output_fails_the_result(repo: Path) -> None:
    T.write(repo, T.make_result(repo, failed={("optin", "1M")}))
    e = entry(repo)
    assert e.state == "failed"
    assert messages(e) == [
        f"{REL}:1: failed: kernel 'optin' at 1M did not match its reference (12 elements were never written); fix it "
        f"in code/toy/toy.cu, then {RERUN}"
    ]


def test_a_version_1_file_keeps_none_of_the_new_fields(repo: Path) -> None:
    T.write_fixture_repo(repo)  # the plain spec: a version-1 file holds no observed rows
    path = T.write(repo, T.make_result(repo, schema_version=1))
    text = path.read_text()
    assert '"limits"' not in text and '"occupancy"' not in text and '"outcome"' not in text
    assert entry(repo).state == "fresh"
    edit(repo, lambda d: d["provenance"].update(limits=None))
    assert messages(entry(repo)) == [f"{REL}:1: invalid: schema version 1 has no 'limits' (a version-2 field); {RERUN}"]
