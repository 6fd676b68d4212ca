"""The counter pass's probe on the CPU (measure/testing/fakedevice.py): every kernel row launched once in the
given order, as the runner launches it (opt-in, constants, dynamic shared memory), memcpy and observed
rows skipped, one manifest line per launch that returned; an experiment that breaks is reported and
the others still run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from measure.experiment.nodes import load_nodes
from measure.experiment.spec import load_specs
from measure.gpu import probe
from measure.nsight import ncu
from measure.testing import synthetic as T
from measure.testing.fakedevice import FakeDevice

SPEC = """\
id: toy-probe
title: Rows the probe launches and skips
source: stage.cu
element: float32
buffers:
  - {name: src, role: input, shape: [n]}
  - {name: w, role: input, shape: [4]}
  - {name: dst, role: output, shape: [n]}
sizes:
  - {label: 16K, dims: {n: 16384}}
  - {label: 32K, dims: {n: 32768}}
kernels:
  - id: refused
    label: observed, no opt-in
    kind: observe
    function: stage
    block: [1024]
    grid: ["cdiv(n, 16384)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: big-shared
    label: 64 KiB with the opt-in
    function: stage
    block: [1024]
    grid: ["cdiv(n, 16384)"]
    args: [dst, src, n]
    dynamic_shared: 65536
    max_dynamic_shared: 65536
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
"""

SOURCE = """\
__constant__ float weights[4];
extern "C" {
__global__ void stage(float* dst, const float* src, int n) { }
__global__ void shifted(float* dst, const float* src, const float* w, int n) { }
}
"""

# toy_slow is in the source but the fake device cannot load it: the experiment breaks at its second row.
BROKEN = T.FIXTURE_SPEC.replace("id: toy-copy", "id: toy-broken")


def stage(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n]


def shifted(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, w, n = args
    assert (dev.constant("weights") == dev.array(w)[:4]).all(), "constants not uploaded before the launch"
    dev.array(dst)[:n] = dev.array(src)[:n]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    T.write_fixture_repo(tmp_path)
    for folder, spec, source in (("probe", SPEC, SOURCE), ("broken", BROKEN, T.FIXTURE_SOURCE)):
        (tmp_path / "code" / folder).mkdir()
        (tmp_path / "code" / folder / "experiment.yaml").write_text(spec)
        (tmp_path / "code" / folder / ("stage.cu" if folder == "probe" else "toy.cu")).write_text(source)
    return tmp_path


def test_every_kernel_row_once_in_order_as_the_runner_launches_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    declared, problems = load_specs(repo)
    assert problems == []
    nodes, _ = load_nodes(repo)
    device = FakeDevice({"stage": stage, "shifted": shifted, "toy_copy": stage}, constant_sizes={"weights": 16})
    manifest = repo / "manifest.jsonl"
    chosen = [declared["toy-probe"], declared["toy-broken"]]
    assert probe.probe(repo, nodes["test-node"], chosen, manifest, device=device) == 1
    entries = ncu.read_manifest(manifest.read_text())
    assert [(e.experiment, e.kernel, e.size, e.function) for e in entries] == [
        ("toy-probe", "big-shared", "16K", "stage"),
        ("toy-probe", "const", "16K", "shifted"),
        ("toy-probe", "big-shared", "32K", "stage"),
        ("toy-probe", "const", "32K", "shifted"),
        ("toy-broken", "copy", "1M", "toy_copy"),
    ]
    # the opt-in row got its 64 KiB; the observed row never launched; each row exactly once
    assert device.launches == [("stage", 65536), ("shifted", 0), ("stage", 65536), ("shifted", 0), ("toy_copy", 0)]
    out = capsys.readouterr()
    assert "probe: toy-probe: 4 launch(es)" in out.out
    assert out.err.startswith(
        "probe: toy-broken: DeviceError: cuModuleGetFunction failed: named symbol not found (toy_slow)"
    )
    assert device.closed
