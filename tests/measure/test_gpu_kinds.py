"""GPU tests of the row kinds cublas, transfer, pipeline and launch: the real runner on the real device,
small sizes, no counter pass. Skipped cleanly without PyCUDA or a CUDA device (run on the node with
``bash measure/node/run.sh tests``)."""

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

REPO = Path(__file__).resolve().parents[2]
QUICK = ["--time-limit", "0.3", "--min-time", "0.01", "--commit", "0123456789abcdef", "--clean", "--no-counters"]

GEMM_SPEC = """\
id: gpu-gemm
title: cuBLAS rows on the GPU
source: scale_add.cu
element: float32
buffers:
  - {name: a, role: input, shape: [m, k]}
  - {name: b, role: input, shape: [k, n]}
  - {name: c, role: output, shape: [m, n]}
sizes:
  - {label: ragged, dims: {m: 257, n: 130, k: 67}}
kernels:
  - id: sgemm
    label: cuBLAS SGEMM
    kind: cublas
    gemm: {math: fp32, m: m, n: n, k: k}
    args: [c, a, b]
    reference: matmul
    tolerance: 1.0e-5
    flops: 2 * m * n * k
    bytes_read: 4 * (m * k + k * n)
    bytes_written: 4 * m * n
  - id: tf32
    label: cuBLAS TF32
    kind: cublas
    gemm: {math: tf32, m: m, n: n, k: k}
    args: [c, a, b]
    reference: matmul
    tolerance: 5.0e-3
    flops: 2 * m * n * k
    bytes_read: 4 * (m * k + k * n)
    bytes_written: 4 * m * n
"""


def make_repo(tmp_path: Path) -> Path:
    T.write_fixture_repo(tmp_path)
    cuda.init()
    nodes = T.FIXTURE_NODES.replace("NVIDIA H200", str(cuda.Device(0).name()))
    (tmp_path / "measure" / "nodes.yaml").write_text(nodes)
    (tmp_path / "measure" / "flush.cu").write_text((REPO / "measure/flush.cu").read_text())
    for folder in ("ceilings", "transfers", "launch-overhead"):
        (tmp_path / "code" / folder).mkdir(parents=True, exist_ok=True)
        for f in (REPO / "code" / folder).iterdir():
            (tmp_path / "code" / folder / f.name).write_text(f.read_text())
    # Small sizes: the transfers at 1 MiB and a ragged 1003 elements, the launches 100 per sample.
    spec = tmp_path / "code" / "transfers" / "experiment.yaml"
    text = spec.read_text().replace("{label: 256 MiB, dims: {n: 67108864}}", "{label: ragged, dims: {n: 1003}}")
    spec.write_text(text.replace("{label: 4 MiB, dims: {n: 1048576}}", "{label: 1 MiB, dims: {n: 262144}}"))
    spec = tmp_path / "code" / "launch-overhead" / "experiment.yaml"
    spec.write_text(spec.read_text().replace("count: 1000", "count: 100"))
    (tmp_path / "code" / "gemm").mkdir()
    (tmp_path / "code" / "gemm" / "experiment.yaml").write_text(GEMM_SPEC)
    (tmp_path / "code" / "gemm" / "scale_add.cu").write_text((REPO / "code/transfers/scale_add.cu").read_text())
    return tmp_path


def test_every_new_kind_checks_and_times_on_the_gpu(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    ids = ["gpu-gemm", "transfers", "launch-overhead"]
    assert main(["--root", str(root), "run", *ids, "--node", "test-node", *QUICK]) == 0
    rs = R.load_all(root)
    for exp in ids:
        e = rs.get(exp, "test-node")
        assert e.state in ("fresh", "pending"), [str(p) for p in e.problems]
        assert e.result is not None and not e.result.error and all(r.check.passed for r in e.result.rows)
    gemm = rs.get("gpu-gemm", "test-node").result
    assert gemm is not None and gemm.provenance.libraries is not None
    assert (
        "libcublas.so" in gemm.provenance.libraries["cublas"] and int(gemm.provenance.libraries["cublas_version"]) > 0
    )
    launches = rs.get("launch-overhead", "test-node").result
    assert launches is not None
    per = {r.kernel: r.figures.us_per_launch for r in launches.rows if r.figures is not None}
    assert set(per) == {"sync-1000", "stream-1000", "graph-1000"}  # the ids; 100 launches each here
    assert all(v is not None and v > 0 for v in per.values())
