"""GPU test of launch rows spread over streams (``launch.streams``): code/concurrent-kernels, its step
count shrunk, through the real runner on the real device: every row checks and times. Skipped cleanly
without PyCUDA or a CUDA device (run on the node with ``bash measure/node/run.sh tests``)."""

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


def test_launches_spread_over_streams_check_and_time_on_the_gpu(tmp_path: Path) -> None:
    T.write_fixture_repo(tmp_path)
    cuda.init()
    nodes = T.FIXTURE_NODES.replace("NVIDIA H200", str(cuda.Device(0).name()))
    (tmp_path / "measure" / "nodes.yaml").write_text(nodes)
    (tmp_path / "measure" / "flush.cu").write_text((REPO / "measure/flush.cu").read_text())
    for folder in ("ceilings", "concurrent-kernels"):
        (tmp_path / "code" / folder).mkdir(parents=True, exist_ok=True)
        for f in (REPO / "code" / folder).iterdir():
            (tmp_path / "code" / folder / f.name).write_text(f.read_text())
    spec = tmp_path / "code" / "concurrent-kernels" / "experiment.yaml"
    spec.write_text(spec.read_text().replace("iters: 32768", "iters: 256"))
    assert main(["--root", str(tmp_path), "run", "concurrent-kernels", "--node", "test-node", *QUICK]) == 0
    e = R.load_all(tmp_path).get("concurrent-kernels", "test-node")
    assert e.result is not None and not e.result.error, [str(p) for p in e.problems]
    assert [r.kernel for r in e.result.rows] == ["one", "serial-4", "streams-4", "serial-16", "streams-16"]
    assert all(r.check.passed and r.samples is not None for r in e.result.rows)
