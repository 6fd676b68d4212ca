"""Spec keys for launches: kind 'observe', dynamic shared memory and its opt-in, __constant__ uploads,
extra counters. Each malformed case with its exact message."""

from __future__ import annotations

import pytest

from measure.experiment.spec import parse_spec

SPEC = "code/toy/experiment.yaml"

SOURCE = """\
__constant__ float weights[16];
extern "C" {
__global__ void stage(float* dst, const float* src, int n)
{
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tile[threadIdx.x] = src[i] * weights[0];
    __syncthreads();
    if (i < n) dst[i] = tile[threadIdx.x];
}
}
"""

GOOD = """\
id: toy-launch
title: Launch features for tests
source: toy.cu
element: float32
buffers:
  - {name: src, role: input, shape: [n]}
  - {name: w, role: input, shape: [16]}
  - {name: dst, role: output, shape: [n]}
sizes:
  - {label: 1M, dims: {n: 1048576}}
kernels:
  - id: optin
    label: 64 KiB, opt-in
    kind: observe
    function: stage
    block: [256]
    grid: ["cdiv(n, 256)"]
    args: [dst, src, n]
    reference: copy
    bytes_read: 4 * n
    bytes_written: 4 * n
    params: {kib: 64}
    dynamic_shared: 1024 * kib
    max_dynamic_shared: 1024 * kib
    constants: {weights: w}
    counters: [dram__bytes_read.sum]
"""


def problems(text: str, source: str | None = SOURCE) -> list[str]:
    declared, found = parse_spec(text, SPEC, source)
    assert (declared is None) == bool(found)
    return [str(p) for p in found]


def test_the_launch_keys_are_read() -> None:
    declared, found = parse_spec(GOOD, SPEC, SOURCE)
    assert found == [] and declared is not None
    k = declared.experiment.kernels[0]
    assert (k.kind, k.dynamic_shared, k.max_dynamic_shared) == ("observe", "1024 * kib", "1024 * kib")
    assert k.expect == "reference"
    assert k.constants == {"weights": "w"} and k.counters == ["dram__bytes_read.sum"]


def test_the_launch_keys_default_to_nothing() -> None:
    text = "\n".join(
        line for line in GOOD.splitlines() if not line.strip().startswith(("dynamic", "max_", "constants", "counters"))
    )
    declared, found = parse_spec(text.replace("kind: observe", "kind: kernel") + "\n", SPEC, SOURCE)
    assert found == [] and declared is not None
    k = declared.experiment.kernels[0]
    assert (k.kind, k.dynamic_shared, k.max_dynamic_shared, k.constants, k.counters) == ("kernel", None, None, {}, [])


MALFORMED = [
    pytest.param(
        GOOD.replace("kind: observe", "kind: kernel").replace(
            "    function: stage\n", "    function: stage\n    expect: mismatch\n"
        ),
        "code/toy/experiment.yaml:16: kernel 'optin' is kind 'kernel' but declares expect: mismatch; drop 'expect' "
        "(only an observed launch, kind 'observe', may show a wrong result)",
        id="expect-on-a-timed-row",
    ),
    pytest.param(
        GOOD.replace("    function: stage\n", "    function: stage\n    expect: wrong\n"),
        "code/toy/experiment.yaml:16: 'kernels[0].expect' is 'wrong', not one of the allowed values; use one of "
        "'reference', 'mismatch'",
        id="expect-unknown",
    ),
    pytest.param(
        GOOD.replace("    function: stage\n", ""),
        "code/toy/experiment.yaml:14: kernel 'optin' is kind 'observe' but has no 'function' to launch; add "
        "'function:' (the extern \"C\" __global__ name whose launch is observed)",
        id="observe-without-function",
    ),
    pytest.param(
        GOOD.replace("kind: observe", "kind: watch"),
        "code/toy/experiment.yaml:14: 'kernels[0].kind' is 'watch', not one of the allowed values; use one of "
        "'kernel', 'memcpy', 'observe', 'cublas', 'transfer', 'pipeline', 'launch'",
        id="unknown-kind",
    ),
    pytest.param(
        GOOD.replace("constants: {weights: w}", "constants: {weights: filter}"),
        "code/toy/experiment.yaml:25: kernel 'optin' constants: 'weights' names buffer 'filter', which is not "
        "declared; name an input buffer (inputs: src, w)",
        id="constants-unknown-buffer",
    ),
    pytest.param(
        GOOD.replace("constants: {weights: w}", "constants: {weights: dst}"),
        "code/toy/experiment.yaml:25: kernel 'optin' constants: 'weights' names buffer 'dst', which is an output; "
        "name an input buffer: only inputs hold data when constants are uploaded",
        id="constants-output-buffer",
    ),
    pytest.param(
        GOOD.replace("constants: {weights: w}", "constants: {filter: w}"),
        "code/toy/experiment.yaml:25: kernel 'optin' constants: code/toy/toy.cu declares no __constant__ variable "
        "'filter'; declare it at file scope (e.g. __constant__ float filter[49];) or fix the name",
        id="constants-unknown-symbol",
    ),
    pytest.param(
        GOOD.replace("constants: {weights: w}", "constants: {2w: w}"),
        "code/toy/experiment.yaml:25: kernel 'optin' constants: '2w' is not a C identifier; name the __constant__ "
        "variable as the .cu file declares it",
        id="constants-not-an-identifier",
    ),
    pytest.param(
        GOOD.replace("dynamic_shared: 1024 * kib\n    max", "dynamic_shared: 1024 * kb\n    max"),
        "code/toy/experiment.yaml:23: kernel 'optin' dynamic_shared '1024 * kb' uses unknown name(s) kb; use whole "
        "numbers, + - * // ( ), cdiv, min, max and the names: kib, n",
        id="dynamic-shared-unknown-name",
    ),
    pytest.param(
        GOOD.replace("max_dynamic_shared: 1024 * kib", "max_dynamic_shared: 1024 - n"),
        "code/toy/experiment.yaml:24: kernel 'optin' max_dynamic_shared '1024 - n' is -1047552 bytes at size '1M'; "
        "give a whole number of bytes, 0 or more",
        id="negative-opt-in",
    ),
    pytest.param(
        GOOD.replace("counters: [dram__bytes_read.sum]", "counters: [dram__bytes_read.sum, dram__bytes_read.sum]"),
        "code/toy/experiment.yaml:26: kernel 'optin' counter 'dram__bytes_read.sum' is listed twice; list each "
        "metric once",
        id="counter-twice",
    ),
    pytest.param(
        GOOD.replace("counters: [dram__bytes_read.sum]", "counters: ['dram bytes']"),
        "code/toy/experiment.yaml:26: kernel 'optin' counter 'dram bytes' is not an Nsight Compute metric name; "
        "write it as ncu spells it, e.g. l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        id="counter-not-a-metric",
    ),
    pytest.param(
        GOOD.replace("kind: observe\n    function: stage\n", "kind: memcpy\n")
        .replace('    block: [256]\n    grid: ["cdiv(n, 256)"]\n', "")
        .replace("args: [dst, src, n]", "args: [dst, src]"),
        "code/toy/experiment.yaml:20: kernel 'optin' is a driver memcpy but declares dynamic_shared, "
        "max_dynamic_shared, constants, counters; drop 'dynamic_shared', 'max_dynamic_shared', 'constants', "
        "'counters' for kind 'memcpy' (they apply to kernel launches)",
        id="memcpy-with-launch-keys",
    ),
    pytest.param(
        GOOD.replace("element: float32", "element: float32\nceilings: true"),
        "code/toy/experiment.yaml:13: ceiling experiment kernel 'optin' is kind 'observe', not a timed kernel or "
        "memcpy; a ceilings experiment holds only timed copies and compute ceilings: move the row to another "
        "experiment",
        id="observe-in-ceilings",
    ),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_malformed_launch_keys(text: str, message: str) -> None:
    assert problems(text) == [message]


def test_an_observed_launch_may_ask_for_more_than_cuda_allows() -> None:
    assert problems(GOOD.replace("block: [256]", "block: [2048]")) == []
    timed = GOOD.replace("block: [256]", "block: [2048]").replace("kind: observe", "kind: kernel")
    assert problems(timed) == [
        "code/toy/experiment.yaml:16: kernel 'optin' asks for 2048 threads per block; CUDA allows at most 1024; use "
        "a smaller block, or make it kind 'observe' to record the driver's refusal"
    ]


def test_constants_need_no_source_to_be_checked_when_it_is_missing() -> None:
    # A missing .cu file is its own problem; the constants check does not pile on.
    assert problems(GOOD, source=None) == [
        "code/toy/experiment.yaml:3: source file 'code/toy/toy.cu' does not exist; create it or fix 'source' in "
        "code/toy/experiment.yaml"
    ]
