"""Fixtures for TESTS ONLY of the row kinds cublas, transfer, pipeline and launch on the fake device
(:mod:`measure.testing.fakedevice`): specs of every kind, a compute ceiling beside the copy ceilings, the fake
kernels, and a run of the whole runner into a tiny repository."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from measure.experiment.nodes import load_nodes
from measure.experiment.spec import load_specs
from measure.run import runner
from measure.store import results as R
from measure.testing import synthetic as T
from measure.testing.fakedevice import Body, FakeDevice

SPEC = """\
id: toy-kinds
title: Every new row kind, for tests
source: kinds.cu
element: float32
buffers:
  - {name: a, role: input, shape: [m, k]}
  - {name: b, role: input, shape: [k, n]}
  - {name: c, role: output, shape: [m, n]}
sizes:
  - {label: small, dims: {m: 8, n: 12, k: 5}}
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
    tolerance: 1.0e-3
    flops: 2 * m * n * k
    bytes_read: 4 * (m * k + k * n)
    bytes_written: 4 * m * n
"""

COPY_SPEC = """\
id: toy-copies
title: Transfers, pipelines and launches for tests
source: kinds.cu
element: float32
buffers:
  - {name: src, role: input, shape: [n]}
  - {name: dst, role: output, shape: [n]}
sizes:
  - {label: ragged, dims: {n: 1003}}
kernels:
  - id: h2d-pageable
    label: host to device, pageable
    kind: transfer
    transfer: {direction: h2d, host: pageable}
    args: [dst, src]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: d2h-pinned
    label: device to host, pinned
    kind: transfer
    transfer: {direction: d2h, host: pinned}
    args: [dst, src]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: overlap-3
    label: 4 chunks, 3 streams
    kind: pipeline
    function: scale_add
    block: [256]
    grid: ["cdiv(chunk, 256)"]
    args: [dst, src, chunk]
    pipeline: {streams: 3, chunks: 4}
    reference: scale_add
    bytes_read: 4 * n
    bytes_written: 4 * n
  - id: graph-10
    label: 10 launches, one graph
    kind: launch
    function: copy_n
    block: [32]
    grid: [1]
    args: [dst, src, n]
    launch: {mode: graph, count: 10}
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
"""

SOURCE = (
    'extern "C" {\n__global__ void scale_add(float* d, const float* s, int n) { }\n'
    "__global__ void copy_n(float* d, const float* s, int n) { }\n}\n"
)
QUICK = runner.Options(min_samples=3, min_gpu_time_s=0.0, row_time_limit_s=0.5, warmup_launches=1, max_batch=4)


def scale_add(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n] * np.float32(2) + np.float32(1)


def scale_only(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n] * np.float32(2)


def copy_n(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n]


def fma(dev: FakeDevice, grid: Sequence[int], block: Sequence[int], args: Sequence[int]) -> None:
    dst, src, n = args
    dev.array(dst)[:n] = dev.array(src)[:n] * np.float32(2) + np.float32(1)


FMA_CEILING = """\
id: fp32-ceiling
title: a compute ceiling for tests
source: fma.cu
element: float32
ceilings: true
buffers:
  - {name: src, role: input, shape: [n]}
  - {name: dst, role: output, shape: [n]}
sizes:
  - {label: one, dims: {n: 4096}}
kernels:
  - id: fma
    label: FMA chains
    function: fma_chain
    block: [256]
    grid: ["cdiv(n, 256)"]
    args: [dst, src, n]
    reference: scale_add
    bytes_read: 4 * n
    bytes_written: 4 * n
    flops: 1000 * n
"""


def make_repo(root: Path) -> Path:
    T.write_fixture_repo(root)
    for folder, spec in (("kinds", SPEC), ("copies", COPY_SPEC)):
        (root / "code" / folder).mkdir()
        (root / "code" / folder / "experiment.yaml").write_text(spec)
        (root / "code" / folder / "kinds.cu").write_text(SOURCE)
    T.write_small_ceilings(root, "256 KiB", 65536)
    (root / "code" / "fp32").mkdir()
    (root / "code" / "fp32" / "experiment.yaml").write_text(FMA_CEILING)
    (root / "code" / "fp32" / "fma.cu").write_text(
        'extern "C" {\n__global__ void fma_chain(float* d, const float* s, int n) { }\n}\n'
    )
    return root


def fake(**bodies: Body) -> FakeDevice:
    kernels: dict[str, Body] = {"scale_add": scale_add, "copy_n": copy_n, "copy_kernel": copy_n, "fma_chain": fma}
    kernels.update(bodies)
    return FakeDevice(kernels)


def run(root: Path, device: FakeDevice, ids: list[str]) -> int:
    declared, problems = load_specs(root)
    assert problems == []
    nodes, _ = load_nodes(root)
    out = root / R.RESULTS_DIR
    fake_device: Any = device  # the fake implements what the runner asks of a Device (duck-typed)
    return runner.run(
        root, "test-node", nodes["test-node"], declared, ids, QUICK, runner.Provenance0(), out, device=fake_device
    )
