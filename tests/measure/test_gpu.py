"""GPU tests: the real runner on the real device. Skipped cleanly without PyCUDA or a CUDA device.

Run on the verification node with ``bash measure/node/run.sh tests`` (or ``full``), which calls
``python3 -m pytest tests/measure -m gpu``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

cuda = pytest.importorskip("pycuda.driver", reason="PyCUDA is not installed (only on a verification node)")


def _has_gpu() -> bool:
    try:
        cuda.init()
        return bool(cuda.Device.count() > 0)
    except Exception:
        return False


if not _has_gpu():
    pytest.skip("no CUDA device", allow_module_level=True)

from measure.cli import main  # noqa: E402
from measure.store import results as R  # noqa: E402
from measure.testing import synthetic as T  # noqa: E402

CEILINGS_SPEC = """\
id: copy-ceilings
title: small ceilings for tests
source: copy.cu
element: float32
ceilings: true
buffers:
  - {name: src, role: input, shape: [n]}
  - {name: dst, role: output, shape: [n]}
sizes:
  - {label: 64 MiB, dims: {n: 16777216}}
kernels:
  - id: memcpy
    label: driver memcpy
    kind: memcpy
    args: [dst, src]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: vector4
    label: copy float4
    function: copy_vector4
    block: [256]
    grid: ["sm_count * 8"]
    args: [dst, src, n]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
"""

REPO = Path(__file__).resolve().parents[2]
QUICK = ["--time-limit", "0.2", "--min-time", "0.01", "--commit", "0123456789abcdef", "--clean"]


def device_name() -> str:
    cuda.init()
    return str(cuda.Device(0).name())


def make_repo(tmp_path: Path, toy_source: str | None = None, gpu: str | None = None) -> Path:
    T.write_fixture_repo(tmp_path)
    (tmp_path / "code" / "ceilings").mkdir()
    (tmp_path / "code" / "ceilings" / "experiment.yaml").write_text(CEILINGS_SPEC)
    (tmp_path / "code" / "ceilings" / "copy.cu").write_text((REPO / "code/ceilings/copy.cu").read_text())
    (tmp_path / "measure" / "flush.cu").write_text((REPO / "measure/flush.cu").read_text())
    if toy_source is not None:
        (tmp_path / "code" / "toy" / "toy.cu").write_text(toy_source)
    nodes = T.FIXTURE_NODES.replace("NVIDIA H200", gpu or device_name())
    (tmp_path / "measure" / "nodes.yaml").write_text(nodes)
    return tmp_path


def test_a_real_run_writes_fresh_results_with_provenance(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    assert main(["--root", str(root), "run", "--node", "test-node", *QUICK]) == 0
    rs = R.load_all(root)
    entry = rs.get("toy-copy", "test-node")
    assert entry.state == "fresh", [str(p) for p in entry.problems]
    assert [(v.kernel, v.size) for v in entry.rows()] == [
        ("copy", "1M"),
        ("slow", "1M"),
        ("copy", "64M"),
        ("slow", "64M"),
    ]
    p = entry.provenance
    assert p is not None and p.gpu_name == device_name() and p.git_commit == "0123456789abcdef"
    assert p.git_dirty is False and p.nvcc_flags[:4] == ["--cubin", "-O3", "-arch", "sm_90"]
    assert p.theoretical_peak_gbps > 0 and p.l2_bytes > 0 and p.sm_count > 0
    big = entry.row("copy", "64M")
    assert big is not None and 100 < big.gbps < p.theoretical_peak_gbps
    assert not big.fits_in_l2 and entry.row("copy", "1M").fits_in_l2  # type: ignore[union-attr]
    assert entry.memcpy_gbps > 0 and entry.copy_ceiling_gbps >= entry.memcpy_gbps
    assert rs.get("copy-ceilings", "test-node").state == "fresh"
    assert {b.function for b in entry.result.builds} == {"toy_copy", "toy_slow"}  # type: ignore[union-attr]


def test_an_element_never_written_fails_the_check_and_the_row_is_not_timed(tmp_path: Path) -> None:
    skips_last = T.FIXTURE_SOURCE.replace("if (i < n) dst[i] = src[i];\n}\n}", "if (i < n - 1) dst[i] = src[i];\n}\n}")
    assert skips_last != T.FIXTURE_SOURCE
    root = make_repo(tmp_path, skips_last)
    assert main(["--root", str(root), "run", "toy-copy", "--node", "test-node", *QUICK]) == 1
    entry = R.load_all(root).get("toy-copy", "test-node")
    assert entry.state == "failed"
    failed = entry.failed_rows()
    assert [(r.kernel, r.size) for r in failed] == [("slow", "1M"), ("slow", "64M")]
    assert failed[0].check.message == "dst: 1 of 1048576 elements were never written (they still hold the poison)"
    assert failed[0].samples is None and failed[0].summary is None
    assert str(entry.problems[0]) == (
        "measure/results/test-node/toy-copy.json:1: failed: kernel 'slow' at 1M did not match its reference "
        "(dst: 1 of 1048576 elements were never written (they still hold the poison)); fix it in code/toy/toy.cu, "
        "then re-run `gloss measure run toy-copy --node test-node`"
    )
    assert [v.kernel for v in entry.rows()] == ["copy", "copy"]  # failed rows are never published


def test_a_wrong_result_is_caught_even_when_every_element_is_written(tmp_path: Path) -> None:
    off_by_one = T.FIXTURE_SOURCE.replace(
        "if (i < n) dst[i] = src[i];\n}\n}", "if (i < n) dst[i] = src[(i + 1) % n];\n}\n}"
    )
    root = make_repo(tmp_path, off_by_one)
    assert main(["--root", str(root), "run", "toy-copy", "--node", "test-node", *QUICK]) == 1
    row = R.load_all(root).get("toy-copy", "test-node").failed_rows()[0]
    # Random floats: a shifted copy matches almost nowhere (a chance coincidence or two is possible).
    assert (
        row.check.message.startswith("dst: 10")
        and " of 1048576 elements differ from the reference" in row.check.message
    )


def test_the_runner_refuses_a_device_that_is_not_the_nodes_gpu(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_repo(tmp_path, gpu="NVIDIA GeForce 256")
    assert main(["--root", str(root), "run", "--node", "test-node", *QUICK]) == 2
    assert capsys.readouterr().out.strip().splitlines()[-1] == (
        f"gloss measure run: the device is '{device_name()}', but node 'test-node' must be 'NVIDIA GeForce 256'; "
        "run on that node, or name the node this device belongs to"
    )
    assert not (root / "measure" / "results").exists()


def test_day13_kernels_pass_their_checks_at_the_ragged_size(tmp_path: Path) -> None:
    """The committed transpose ladder, on fresh random input, at 2003 x 3001 only (quick)."""
    root = make_repo(tmp_path)
    lesson = tmp_path / "code" / "day13-shared-memory"
    lesson.mkdir()
    (lesson / "transpose.cu").write_text((REPO / "code/day13-shared-memory/transpose.cu").read_text())
    spec = (REPO / "code/day13-shared-memory/experiment.yaml").read_text()
    spec = spec.replace("  - {label: 8192x8192, dims: {rows: 8192, cols: 8192}}\n", "")
    (lesson / "experiment.yaml").write_text(spec)
    assert main(["--root", str(root), "run", "day13-transpose", "--node", "test-node", *QUICK]) == 0
    entry = R.load_all(root).get("day13-transpose", "test-node")
    assert entry.state == "fresh"
    assert [v.label for v in entry.rows()] == [
        "copy",
        "naive",
        "tile[32][32]",
        "tile[32][33]",
        "tile[32][33], panel order",
    ]
