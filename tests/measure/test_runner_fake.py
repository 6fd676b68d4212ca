"""The runner's whole path on the CPU, through measure/testing/fakedevice.py: observed launches (refused and
launched), the dynamic-shared opt-in, __constant__ uploads, occupancy on every kernel row, the device's
limits in the provenance, and one broken row never losing the others."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from measure.experiment.nodes import load_nodes
from measure.experiment.spec import load_specs
from measure.run import runner
from measure.store import results as R
from measure.testing import synthetic as T
from measure.testing.fakedevice import FakeDevice

SPEC = """\
id: toy-observe
title: Observed launches for tests
source: stage.cu
element: float32
buffers:
  - {name: src, role: input, shape: [n]}
  - {name: w, role: input, shape: [4]}
  - {name: dst, role: output, shape: [n]}
sizes:
  - {label: 64K, dims: {n: 65536}}
kernels:
  - id: no-optin
    label: 64 KiB, no opt-in
    kind: observe
    function: stage
    block: [1024]
    grid: ["cdiv(n, 16384)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: optin
    label: 64 KiB, opt-in
    kind: observe
    function: stage
    block: [1024]
    grid: ["cdiv(n, 16384)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    max_dynamic_shared: 65536
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: again-no-optin
    label: 64 KiB, no opt-in again
    kind: observe
    function: stage
    block: [1024]
    grid: ["cdiv(n, 16384)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: const
    label: weights in constant memory
    function: shifted
    block: [256]
    grid: ["cdiv(n, 256)"]
    args: [dst, src, w, n]
    constants: {weights: w}
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: timed-optin
    label: timed, 64 KiB with the opt-in
    function: stage
    block: [1024]
    grid: ["cdiv(n, 16384)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    max_dynamic_shared: 65536
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
"""


SOURCE = """\
__constant__ float weights[4];
extern "C" {
__global__ void stage(float* dst, const float* src, int n) { }
__global__ void shifted(float* dst, const float* src, const float* w, int n) { }
}
"""

QUICK = runner.Options(min_samples=3, min_gpu_time_s=0.0, row_time_limit_s=0.5, warmup_launches=1, max_batch=4)


def stage(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n]


def shifted(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    # Correct only when the __constant__ copy holds what buffer w holds.
    dst, src, w, n = args
    dev.array(dst)[:n] = dev.array(src)[:n] + (dev.constant("weights")[0] - dev.array(w)[0])


def wrong(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = -dev.array(src)[:n]


def make_repo(tmp_path: Path, spec: str = SPEC) -> Path:
    T.write_fixture_repo(tmp_path)
    (tmp_path / "code" / "observe").mkdir()
    (tmp_path / "code" / "observe" / "experiment.yaml").write_text(spec)
    (tmp_path / "code" / "observe" / "stage.cu").write_text(SOURCE)
    T.write_small_ceilings(tmp_path, "256 KiB", 65536)
    return tmp_path


def run(root: Path, device: FakeDevice, ids: list[str]) -> int:
    declared, problems = load_specs(root)
    assert problems == []
    nodes, node_problems = load_nodes(root)
    assert node_problems == []
    return runner.run(
        root, "test-node", nodes["test-node"], declared, ids, QUICK, runner.Provenance0(), root / R.RESULTS_DIR,
        device=device,
    )


def result(root: Path, experiment: str) -> R.Result:
    entry = R.load_all(root).get(experiment, "test-node")
    assert entry.result is not None, entry.problems
    return entry.result


def fake(**bodies: object) -> FakeDevice:
    kernels = {"stage": stage, "shifted": shifted, "copy_kernel": stage}
    kernels.update(bodies)  # type: ignore[arg-type]
    return FakeDevice(kernels, constant_sizes={"weights": 16})


def test_observed_launches_record_what_the_driver_returned(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    device = fake()
    assert run(root, device, ["toy-observe"]) == 0
    res = result(root, "toy-observe")
    rows = {r.kernel: r for r in res.rows}
    refused, optin, again = rows["no-optin"], rows["optin"], rows["again-no-optin"]
    assert refused.outcome is not None and optin.outcome is not None and again.outcome is not None
    assert (refused.outcome.launched, refused.outcome.error_name, refused.outcome.error_string) == (
        False,
        "CUDA_ERROR_INVALID_VALUE",
        "invalid argument",
    )
    assert refused.check.message == "not run: the driver refused the launch" and not refused.failed
    assert (optin.outcome.launched, optin.outcome.error_name, optin.outcome.error_string) == (True, "", "")
    assert optin.outcome.max_dynamic_shared_set == 65536 and optin.check.passed
    # The opt-in belongs to the row that asked for it: the next row without it is refused again.
    assert not again.outcome.launched
    assert all(r.samples is None and r.summary is None for r in (refused, optin, again))
    # Only the launches that ran touched the buffers; the timed opt-in row ran (check, warm-up, samples).
    assert device.launches.count(("stage", 65536)) > 2
    assert rows["timed-optin"].samples is not None and rows["timed-optin"].outcome is None
    entry = R.load_all(root).get("toy-observe", "test-node")
    assert entry.state == "fresh", entry.problems


def test_every_kernel_row_records_its_occupancy_and_the_provenance_the_limits(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert run(root, fake(), ["toy-observe"]) == 0
    res = result(root, "toy-observe")
    assert res.provenance.limits is not None
    assert res.provenance.limits.shared_per_block_optin == 232448
    occ = {r.kernel: r.occupancy for r in res.rows}
    assert occ["no-optin"] is not None and occ["no-optin"].blocks_per_sm == 0  # 64 KiB without the opt-in
    assert occ["optin"] is not None
    assert (occ["optin"].blocks_per_sm, occ["optin"].warps_per_sm, occ["optin"].max_warps_per_sm) == (2, 64, 64)
    assert occ["optin"].pct == 100.0
    assert occ["const"] is not None and (occ["const"].block_threads, occ["const"].blocks_per_sm) == (256, 8)


def test_constants_are_uploaded_before_the_launch(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert run(root, fake(), ["toy-observe"]) == 0
    const = next(r for r in result(root, "toy-observe").rows if r.kernel == "const")
    assert const.check.passed and const.samples is not None


def test_a_constant_larger_than_its_symbol_fails_that_row_only(tmp_path: Path) -> None:
    root = make_repo(tmp_path, SPEC.replace("shape: [4]", "shape: [8]"))
    assert run(root, fake(), ["toy-observe"]) == 1
    res = result(root, "toy-observe")
    const = next(r for r in res.rows if r.kernel == "const")
    assert const.check.message == (
        "DeviceError: __constant__ 'weights' holds 16 bytes, the buffer copied into it has 32"
    )
    assert const.samples is None and res.status == "failed"
    assert [r.kernel for r in res.rows] == ["no-optin", "optin", "again-no-optin", "const", "timed-optin"]
    assert next(r for r in res.rows if r.kernel == "timed-optin").samples is not None
    entry = R.load_all(root).get("toy-observe", "test-node")
    assert entry.state == "failed"
    assert [p.problem for p in entry.problems] == [
        "failed: kernel 'const' at 64K did not match its reference (DeviceError: __constant__ 'weights' holds 16 "
        "bytes, the buffer copied into it has 32)"
    ]


def test_a_launched_observation_with_a_wrong_output_fails(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert run(root, fake(stage=wrong), ["toy-observe"]) == 1
    optin = next(r for r in result(root, "toy-observe").rows if r.kernel == "optin")
    assert optin.outcome is not None and optin.outcome.launched and optin.failed
    assert optin.check.message.startswith("dst: ")


def test_a_refused_opt_in_is_recorded_with_the_outcome(tmp_path: Path) -> None:
    root = make_repo(tmp_path, SPEC.replace("max_dynamic_shared: 65536", "max_dynamic_shared: 300000", 1))
    assert run(root, fake(), ["toy-observe"]) == 0
    optin = next(r for r in result(root, "toy-observe").rows if r.kernel == "optin")
    assert optin.outcome is not None
    assert optin.outcome.opt_in_error == "cuFuncSetAttribute failed: CUDA_ERROR_INVALID_VALUE: invalid argument"
    assert not optin.outcome.launched


def test_a_timed_row_whose_launch_is_refused_fails_without_losing_the_others(tmp_path: Path) -> None:
    root = make_repo(tmp_path, "".join(SPEC.rsplit("    max_dynamic_shared: 65536\n", 1)))  # no opt-in: refused
    assert run(root, fake(), ["toy-observe"]) == 1
    res = result(root, "toy-observe")
    timed = next(r for r in res.rows if r.kernel == "timed-optin")
    assert timed.check.message == "DeviceError: cuLaunchKernel failed: invalid argument"
    assert timed.samples is None and timed.failed
    assert next(r for r in res.rows if r.kernel == "const").samples is not None


def test_timed_rows_run_as_before_with_their_occupancy(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert run(root, fake(), ["toy-observe"]) == 0
    res = result(root, "copy-ceilings")
    assert all(r.check.passed and r.samples is not None and r.outcome is None for r in res.rows)
    occupancy = {r.kernel: r.occupancy for r in res.rows}
    assert occupancy["memcpy"] is None
    assert occupancy["copy"] is not None and occupancy["copy"].blocks_per_sm == 8
    assert R.load_all(root).get("copy-ceilings", "test-node").state == "fresh"


def test_the_opt_in_of_one_row_does_not_carry_over_to_the_next_size(tmp_path: Path) -> None:
    one = "  - {label: 64K, dims: {n: 65536}}\n"
    two_sizes = SPEC.replace(one, one + "  - {label: 32K, dims: {n: 32768}}\n")
    root = make_repo(tmp_path, two_sizes)
    assert run(root, fake(), ["toy-observe"]) == 0
    outcomes = {(r.kernel, r.size): r.outcome for r in result(root, "toy-observe").rows if r.outcome is not None}
    assert {key: o.launched for key, o in outcomes.items()} == {
        ("no-optin", "64K"): False,
        ("optin", "64K"): True,
        ("again-no-optin", "64K"): False,
        ("no-optin", "32K"): False,
        ("optin", "32K"): True,
        ("again-no-optin", "32K"): False,
    }


def test_the_source_folder_is_the_include_path_and_is_recorded(tmp_path: Path) -> None:
    # PyCUDA compiles the text in a temporary folder: without the source's own folder on the include
    # path a quoted #include would not be found on the node (CI compiles the file in place).
    root = make_repo(tmp_path)
    device = fake()
    assert run(root, device, ["toy-observe"]) == 0
    assert root / "code" / "observe" in device.include_dirs
    assert "-Icode/observe" in result(root, "toy-observe").provenance.nvcc_flags
