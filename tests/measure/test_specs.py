"""Malformed experiment specs and node registries, each with its exact message (the interface)."""

from __future__ import annotations

from pathlib import Path

import pytest

from measure.experiment import references
from measure.experiment.nodes import load_nodes, parse_nodes
from measure.experiment.spec import evaluate, expr_names, load_specs, parse_spec
from measure.testing import synthetic as T

SPEC = "code/toy/experiment.yaml"
GOOD = T.FIXTURE_SPEC
REPO = Path(__file__).resolve().parents[2]


def spec_problems(text: str, source: str | None = T.FIXTURE_SOURCE) -> list[str]:
    declared, problems = parse_spec(text, SPEC, source)
    assert (declared is None) == bool(problems)
    return [str(p) for p in problems]


def test_the_fixture_spec_is_valid() -> None:
    declared, problems = parse_spec(GOOD, SPEC, T.FIXTURE_SOURCE)
    assert problems == [] and declared is not None
    assert (declared.id, declared.source_path, declared.id_line) == ("toy-copy", "code/toy/toy.cu", 1)
    assert [k.id for k in declared.experiment.kernels] == ["copy", "slow"]


MALFORMED_SPECS = [
    pytest.param(
        GOOD.replace("element: float32", "element: float32\nelemnt: float32"),
        "code/toy/experiment.yaml:5: unknown key 'elemnt'; did you mean 'element'? allowed keys: id, title, source, "
        "element, buffers, sizes, kernels, ceilings, pending",
        id="unknown-key",
    ),
    pytest.param(
        GOOD.split("kernels:")[0],
        "code/toy/experiment.yaml:1: missing required key 'kernels'; add 'kernels:' (the kernels to check and time)",
        id="missing-key",
    ),
    pytest.param(
        GOOD.replace("element: float32", "element: float16"),
        "code/toy/experiment.yaml:4: 'element' is 'float16', not one of the allowed values; use one of 'float32'",
        id="bad-element",
    ),
    pytest.param(
        GOOD.replace(
            "    bytes_written: 4 * n\n  - id: slow", "    bytes_written: 4 * n\n    tolerance: 1e-5\n  - id: slow"
        ),
        "code/toy/experiment.yaml:21: 'kernels[0].tolerance' must be a number, got a string; YAML reads 1e-5 as "
        "text: write 1.0e-5",
        id="yaml-1.1-exponent",
    ),
    pytest.param(
        GOOD.replace('grid: ["cdiv(n, 256)"]', "grid: [cdiv(n, 256)]", 1),
        "code/toy/experiment.yaml:16: kernel 'copy' grid: 'cdiv(n' has unbalanced parentheses; quote expressions "
        'that contain commas inside [...] lists, e.g. ["cdiv(n, 256)"]',
        id="unquoted-comma-in-flow-list",
    ),
    pytest.param(
        GOOD.replace("bytes_read: 4 * n", "bytes_read: 4 * m", 1),
        "code/toy/experiment.yaml:19: kernel 'copy' bytes_read '4 * m' uses unknown name(s) m; use whole numbers, "
        "+ - * // ( ), cdiv, min, max and the names: n",
        id="unknown-name",
    ),
    pytest.param(
        GOOD.replace("bytes_read: 4 * n", "bytes_read: 4.0 * n", 1),
        "code/toy/experiment.yaml:19: kernel 'copy' bytes_read: '4.0 * n' uses 4.0, which is not a whole number; "
        "use whole numbers, + - * // ( ), cdiv, min, max and the names: n",
        id="float-in-expression",
    ),
    pytest.param(
        GOOD.replace("bytes_read: 4 * n", "bytes_read: n / 2", 1),
        "code/toy/experiment.yaml:19: kernel 'copy' bytes_read: 'n / 2' uses an operation other than + - * // ( ) "
        "and cdiv, min, max; use whole numbers, + - * // ( ), cdiv, min, max and the names: n",
        id="true-division",
    ),
    pytest.param(
        GOOD.replace("reference: copy", "reference: transposed", 1),
        # Every registered reference, sorted (other branches add references: the list is not spelled out here).
        "code/toy/experiment.yaml:18: kernel 'copy' names reference 'transposed', which does not exist; use one of "
        f"{', '.join(sorted(references.NAMES))} (measure/experiment/references.py)",
        id="unknown-reference",
    ),
    pytest.param(
        GOOD.replace("function: toy_copy", "function: toy_copyy", 1),
        "code/toy/experiment.yaml:14: kernel 'copy' names function 'toy_copyy', which code/toy/toy.cu does not "
        'define as an extern "C" __global__ function; fix the name, or define it inside an extern "C" block',
        id="function-not-in-source",
    ),
    pytest.param(
        GOOD.replace("id: slow", "id: copy"),
        "code/toy/experiment.yaml:21: kernel id 'copy' is used twice; give each kernel its own id",
        id="duplicate-kernel",
    ),
    pytest.param(
        GOOD.replace("block: [256]", "block: [1024, 2]", 1),
        "code/toy/experiment.yaml:15: kernel 'copy' asks for 2048 threads per block; CUDA allows at most 1024; use "
        "a smaller block, or make it kind 'observe' to record the driver's refusal",
        id="too-many-threads",
    ),
    pytest.param(
        GOOD.replace("{label: 64M, dims: {n: 67108864}}", "{label: 64M, dims: {count: 67108864}}"),
        "code/toy/experiment.yaml:10: size '64M' has dims ['count'], the first size ['n']; give every size the same "
        "dim names",
        id="inconsistent-dims",
    ),
    pytest.param(
        GOOD.replace("id: toy-copy", "id: Toy_Copy"),
        "code/toy/experiment.yaml:1: experiment id 'Toy_Copy' is not a plain lowercase id; use lowercase letters, "
        "digits and '-' (e.g. 'day13-transpose')",
        id="bad-id",
    ),
    pytest.param(
        GOOD.replace("sizes:", "sizes: [", 1),
        "code/toy/experiment.yaml:9: malformed YAML: expected the node content, but found '-'; fix the YAML syntax "
        "at this line",
        id="malformed-yaml",
    ),
    pytest.param(
        GOOD.replace("source: toy.cu", "source: toy.cpp"),
        "code/toy/experiment.yaml:3: 'source' is 'toy.cpp', not a .cu file in this folder; name a .cu file next to "
        "experiment.yaml, e.g. 'transpose.cu'",
        id="not-a-cu-file",
    ),
    pytest.param(
        GOOD.replace("{label: 1M, dims: {n: 1048576}}", "{label: 1M, dims: {n: 0}}"),
        "code/toy/experiment.yaml:9: size '1M' has n = 0; use positive sizes",
        id="empty-size",
    ),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED_SPECS)
def test_malformed_spec(text: str, message: str) -> None:
    assert spec_problems(text) == [message]


def test_a_driver_memcpy_row_cannot_carry_a_launch() -> None:
    assert spec_problems(GOOD.replace("  - id: copy\n", "  - id: copy\n    kind: memcpy\n", 1)) == [
        "code/toy/experiment.yaml:13: kernel 'copy' is a driver memcpy but declares a function, block or grid; drop "
        "'function', 'block' and 'grid' for kind 'memcpy'",
        "code/toy/experiment.yaml:18: kernel 'copy' is a driver memcpy; its args must be [destination, source] "
        "buffers; name the output buffer, then the input buffer",
    ]


def test_only_a_kernel_row_can_be_timed_with_a_warm_l2() -> None:
    warm_kernel = GOOD.replace("  - id: copy\n", "  - id: copy\n    l2: warm\n", 1)
    assert spec_problems(warm_kernel) == []
    assert spec_problems(warm_kernel.replace("  - id: copy\n", "  - id: copy\n    kind: observe\n", 1)) == [
        "code/toy/experiment.yaml:14: kernel 'copy' of kind 'observe' asks for a warm L2; leave 'l2' out: only "
        "kind 'kernel' rows can be timed without the flush"
    ]
    assert spec_problems(GOOD.replace("  - id: copy\n", "  - id: copy\n    l2: hot\n", 1)) == [
        "code/toy/experiment.yaml:13: 'kernels[0].l2' is 'hot', not one of the allowed values; use one of 'cold', "
        "'warm'"
    ]


def test_a_missing_source_file() -> None:
    assert spec_problems(GOOD, source=None) == [
        "code/toy/experiment.yaml:3: source file 'code/toy/toy.cu' does not exist; create it or fix 'source' in "
        "code/toy/experiment.yaml"
    ]


def test_duplicate_experiment_ids_across_folders(tmp_path: Path) -> None:
    T.write_fixture_repo(tmp_path)
    other = tmp_path / "code" / "toy2"
    other.mkdir()
    (other / "experiment.yaml").write_text(GOOD)
    (other / "toy.cu").write_text(T.FIXTURE_SOURCE)
    specs, problems = load_specs(tmp_path)
    assert list(specs) == ["toy-copy"]
    assert [str(p) for p in problems] == [
        "code/toy2/experiment.yaml:1: experiment id 'toy-copy' is also declared in code/toy/experiment.yaml; give "
        "each experiment its own id"
    ]


MALFORMED_NODES = [
    pytest.param(
        "arch: sm_90",
        "arch: hopper",
        [
            "measure/nodes.yaml:7: 'nodes.h200-1.arch' is 'hopper', not a CUDA architecture; write it as nvcc's -arch "
            "value, e.g. 'sm_90'"
        ],
        id="bad-arch",
    ),
    pytest.param(
        "h200-1:",
        "H200_1:",
        [
            "measure/nodes.yaml:6: node name 'H200_1' is not a plain lowercase name; use lowercase letters, digits and "
            "'-' (e.g. 'h200-1')"
        ],
        id="bad-name",
    ),
    pytest.param(
        "    gpu: NVIDIA H200\n",
        "",
        [
            "measure/nodes.yaml:6: missing required key 'nodes.h200-1.gpu'; add 'gpu:' (the GPU model the device must "
            "report, e.g. 'NVIDIA H200')"
        ],
        id="missing-gpu",
    ),
    pytest.param(
        "description:",
        "descripton:",
        [
            "measure/nodes.yaml:8: unknown key 'nodes.h200-1.descripton'; did you mean 'description'? allowed keys: "
            "gpu, arch, description",
            "measure/nodes.yaml:6: missing required key 'nodes.h200-1.description'; add 'description:' (where the "
            "machine is and what it is, in a sentence)",
        ],
        id="misspelt-key",
    ),
    pytest.param(
        "gpu: NVIDIA H200",
        "gpu: ' '",
        [
            "measure/nodes.yaml:6: 'nodes.h200-1.gpu' is empty; write the model name the device reports, e.g. "
            "'NVIDIA H200'"
        ],
        id="empty-gpu",
    ),
]


@pytest.mark.parametrize(("old", "new", "messages"), MALFORMED_NODES)
def test_malformed_node_registry(old: str, new: str, messages: list[str]) -> None:
    text = (REPO / "measure" / "nodes.yaml").read_text()
    assert old in text
    # Only the first node (h200-1) is broken, and it is never read as a node.
    nodes, problems = parse_nodes(text.replace(old, new, 1))
    assert "h200-1" not in nodes and [str(p) for p in problems] == messages


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        (
            "nodes: {}\n",
            ["measure/nodes.yaml:1: no node is registered; register the verification node you run on under 'nodes:'"],
        ),
        (
            "nodes:\n  - h200-1\n",
            [
                "measure/nodes.yaml:2: 'nodes' must be a mapping of names to mappings, got a list; "
                "write nodes as a mapping of names to mappings"
            ],
        ),
        (
            "nodes:\n  h200-1: {gpu: NVIDIA H200, arch: sm_90\n",
            [
                "measure/nodes.yaml:3: malformed YAML: expected ',' or '}', but got '<stream end>'; "
                "fix the YAML syntax at this line"
            ],
        ),
    ],
)
def test_node_registry_shapes(text: str, messages: list[str]) -> None:
    assert [str(p) for p in parse_nodes(text)[1]] == messages


def test_a_missing_node_registry(tmp_path: Path) -> None:
    assert [str(p) for p in load_nodes(tmp_path)[1]] == [
        "measure/nodes.yaml:0: the node registry is missing; create measure/nodes.yaml with a 'nodes:' mapping"
    ]


def test_the_committed_registry_and_specs_load_cleanly() -> None:
    nodes, problems = load_nodes(REPO)
    assert problems == [] and nodes["h200-1"].gpu == "NVIDIA H200" and nodes["h200-1"].arch == "sm_90"
    specs, problems = load_specs(REPO)
    assert problems == []
    assert {"copy-ceilings", "day13-transpose", "day15-bank-conflicts", "day16-matmul"} <= set(specs)
    assert [s.label for s in specs["day13-transpose"].experiment.sizes] == ["2003x3001", "8192x8192"]


@pytest.mark.parametrize(
    ("text", "env", "value"),
    [
        ("cdiv(cols, 32)", {"cols": 3001}, 94),
        ("4 * rows * cols", {"rows": 2, "cols": 3}, 24),
        ("min(a, b) + max(a, b)", {"a": 2, "b": 5}, 7),
        ("n // 8192", {"n": 67108864}, 8192),
        ("-(-7 // 2)", {}, 4),
    ],
)
def test_integer_expressions(text: str, env: dict[str, int], value: int) -> None:
    assert evaluate(text, env) == value


def test_expressions_cannot_reach_python() -> None:
    for text in ("__import__('os')", "n.bit_length()", "[n]", "n if n else 1", "n ** 2"):
        with pytest.raises(ValueError):
            expr_names(text)
