"""Experiment specs, ``code/<lesson>/experiment.yaml``: the only reader of those files.

A spec declares what the runner measures and what a result means: the experiment id, the ``.cu`` file
beside it, the buffers (inputs filled with fresh random numbers, outputs poisoned before each check),
the problem sizes (ragged ones included), and per kernel its launch configuration, arguments, declared
bytes read and written (and FLOPs or shared-memory bytes where they matter) per launch, and the numpy
reference its output must match. Sizes, grids and byte counts are small integer expressions over the
size's dims and the kernel's params, e.g. ``cdiv(cols, 32)`` or ``4 * rows * cols``::

    id: day13-transpose
    title: Transposing a matrix through shared memory
    source: transpose.cu
    element: float32
    buffers:
      - {name: src, role: input, shape: [rows, cols]}
      - {name: dst, role: output, shape: [cols, rows]}
    sizes:
      - {label: 2003x3001, dims: {rows: 2003, cols: 3001}}
    kernels:
      - id: naive
        label: naive
        function: transpose_naive
        block: [32, 8]
        grid: ["cdiv(cols, 32)", "cdiv(rows, 32)"]
        args: [dst, src, rows, cols]
        reference: transpose
        bytes_read: 4 * rows * cols
        bytes_written: 4 * rows * cols

One experiment may set ``ceilings: true``: it measures the node's copy ceilings (driver memcpy and copy
kernels) and the runner runs it first in every run, so every other row is compared with a ceiling
measured in the same run.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from measure import references
from site_plugins.messages import Problem
from site_plugins.schema import build, line_of, meta, parse_yaml

CODE_DIR = "code"
SPEC_NAME = "experiment.yaml"

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ELEMENT_BYTES = {"float32": 4}
#: A name grids may use besides dims and params: the device's multiprocessor count (grid-stride loops).
DEVICE_SM_COUNT = "sm_count"


@dataclass(frozen=True)
class Buffer:
    name: str = field(metadata=meta("the buffer's name, used in kernel 'args'"))
    role: Literal["input", "output"] = field(metadata=meta("'input' (random data) or 'output' (checked)"))
    shape: list[str] = field(metadata=meta("one expression per dimension, e.g. [rows, cols]"))


@dataclass(frozen=True)
class Size:
    label: str = field(metadata=meta("how tables name the size, e.g. '2003x3001'"))
    dims: dict[str, int] = field(metadata=meta("the size's named integers, e.g. {rows: 2003, cols: 3001}"))


@dataclass(frozen=True)
class Kernel:
    id: str = field(metadata=meta("a short id, unique in the experiment, e.g. 'tile32-padded'"))
    label: str = field(metadata=meta("the row label tables show, e.g. 'tile[32][33]'"))
    reference: str = field(metadata=meta("the numpy reference the output must match, e.g. 'transpose'"))
    bytes_read: str = field(metadata=meta("bytes read from device memory per launch (an expression)"))
    bytes_written: str = field(metadata=meta("bytes written to device memory per launch (an expression)"))
    args: list[str] = field(metadata=meta("the kernel's arguments: buffer names or integer expressions"))
    kind: Literal["kernel", "memcpy"] = "kernel"
    function: str | None = field(default=None, metadata=meta('the extern "C" __global__ function'))
    block: list[int] = field(default_factory=list, metadata=meta("threads per block, e.g. [32, 8]"))
    grid: list[str] = field(default_factory=list, metadata=meta("blocks per grid, e.g. [cdiv(cols, 32)]"))
    params: dict[str, int] = field(default_factory=dict, metadata=meta("named integers for this kernel"))
    flops: str | None = field(default=None, metadata=meta("floating-point operations per launch"))
    shared_bytes: str | None = field(default=None, metadata=meta("shared-memory bytes accessed per launch"))
    tolerance: float = field(default=0.0, metadata=meta("largest allowed ||out - ref|| / ||ref||; 0 = exact"))


@dataclass(frozen=True)
class Experiment:
    id: str = field(metadata=meta("the experiment id pages embed, e.g. 'day13-transpose'"))
    title: str = field(metadata=meta("a one-line title"))
    source: str = field(metadata=meta("the .cu file in this folder"))
    element: Literal["float32"] = field(metadata=meta("the element type of every buffer"))
    buffers: list[Buffer] = field(metadata=meta("the device buffers, inputs and outputs"))
    sizes: list[Size] = field(metadata=meta("the problem sizes"))
    kernels: list[Kernel] = field(metadata=meta("the kernels to check and time"))
    ceilings: bool = False


@dataclass(frozen=True)
class Declared:
    """A loaded spec with where it came from (repo-relative paths)."""

    experiment: Experiment
    spec_path: str
    source_path: str
    id_line: int

    @property
    def id(self) -> str:
        return self.experiment.id


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- integer expressions -----------------------------------------------------------------------------

_FUNCS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}


class ExprError(ValueError):
    def __init__(self, problem: str, remedy: str | None = None) -> None:
        super().__init__(problem)
        self.remedy = remedy


# The usual cause of unbalanced parentheses: a YAML flow list [cdiv(n, 256)] splits at the comma.
_QUOTE_HINT = 'quote expressions that contain commas inside [...] lists, e.g. ["cdiv(n, 256)"]'


def expr_names(text: str) -> set[str]:
    """Names an expression uses; raises ExprError when it is not a plain integer expression."""
    if text.count("(") != text.count(")"):
        raise ExprError(f"'{text}' has unbalanced parentheses", _QUOTE_HINT)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"'{text}' is not an expression") from exc
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCS or node.keywords:
                raise ExprError(f"'{text}' calls something other than {', '.join(_FUNCS)}")
        elif isinstance(node, ast.Name):
            if node.id not in _FUNCS:
                names.add(node.id)
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, int) or isinstance(node.value, bool):
                raise ExprError(f"'{text}' uses {node.value!r}, which is not a whole number")
        elif not isinstance(
            node,
            ast.Expression
            | ast.BinOp
            | ast.Add
            | ast.Sub
            | ast.Mult
            | ast.FloorDiv
            | ast.Load
            | ast.UnaryOp
            | ast.USub,
        ):
            raise ExprError(f"'{text}' uses an operation other than + - * // ( ) and cdiv, min, max")
    return names


def evaluate(text: str, env: Mapping[str, int]) -> int:
    """Value of an integer expression over ``env`` (checked with :func:`expr_names` first)."""
    missing = expr_names(text) - set(env)
    if missing:
        raise ExprError(f"'{text}' uses unknown name(s) {', '.join(sorted(missing))}")
    value = eval(
        compile(ast.parse(text.strip(), mode="eval"), "<expr>", "eval"),
        {"__builtins__": {}},
        {**_FUNCS, **env},
    )
    if not isinstance(value, int):
        raise ExprError(f"'{text}' is not a whole number")
    return value


# --- loading and cross-checks ------------------------------------------------------------------------


def _function_defined(source: str, name: str) -> bool:
    bounds = r"(?:__launch_bounds__\s*\([^)]*\)\s*)?"
    pattern = rf"__global__\s+{bounds}void\s+{bounds}{re.escape(name)}\s*\("
    return re.search(pattern, source) is not None and 'extern "C"' in source


_EXPONENT = re.compile(r":\s*[-+]?[0-9]+[eE][-+]?[0-9]+\s*(#.*)?$")


def _exponent_hint(p: Problem, text: str) -> Problem:
    """YAML 1.1 reads 1e-5 (no decimal point) as text: say so instead of just 'got a string'."""
    lines = text.splitlines()
    numeric_text = p.problem.endswith("must be a number, got a string") and 0 < p.line <= len(lines)
    if numeric_text and _EXPONENT.search(lines[p.line - 1]):
        return Problem(p.path, p.line, p.problem, "YAML reads 1e-5 as text: write 1.0e-5")
    return p


def parse_spec(text: str, spec_path: str, source_text: str | None) -> tuple[Declared | None, list[Problem]]:
    """Check one spec; ``source_text`` is the .cu file's text (None when it does not exist)."""
    tree, problems = parse_yaml(text, spec_path)
    if problems:
        return None, problems
    exp, problems = build(Experiment, tree, spec_path)
    if exp is None or problems:  # cross-checks on a half-built spec would only add noise
        return None, [_exponent_hint(p, text) for p in problems]
    folder = spec_path.rsplit("/", 1)[0]
    p = problems

    def add(obj: object, key: str | None, problem: str, remedy: str, index: int | None = None) -> None:
        p.append(Problem(spec_path, line_of(obj, key, index), problem, remedy))

    if not _ID.match(exp.id):
        add(
            exp,
            "id",
            f"experiment id '{exp.id}' is not a plain lowercase id",
            "use lowercase letters, digits and '-' (e.g. 'day13-transpose')",
        )
    if "/" in exp.source or not exp.source.endswith(".cu"):
        add(
            exp,
            "source",
            f"'source' is '{exp.source}', not a .cu file in this folder",
            f"name a .cu file next to {SPEC_NAME}, e.g. 'transpose.cu'",
        )
    elif source_text is None:
        add(
            exp,
            "source",
            f"source file '{folder}/{exp.source}' does not exist",
            f"create it or fix 'source' in {spec_path}",
        )
    # Buffers.
    buffer_names: set[str] = set()
    for i, buf in enumerate(exp.buffers):
        if buf.name in buffer_names:
            add(exp, "buffers", f"buffer '{buf.name}' is declared twice", "give each buffer its own name", i)
        if not _IDENT.match(buf.name):
            add(
                exp,
                "buffers",
                f"buffer name '{buf.name}' is not an identifier",
                "use letters, digits and '_'",
                i,
            )
        buffer_names.add(buf.name)
    if not any(b.role == "output" for b in exp.buffers):
        add(
            exp,
            "buffers",
            "no buffer has role 'output', so nothing can be checked",
            "declare the buffer the kernels write with 'role: output'",
        )
    # Sizes: every size names the same dims, so expressions mean the same thing at every size.
    if not exp.sizes:
        add(exp, "sizes", "'sizes' is empty", "declare at least one problem size")
    dim_names = set(exp.sizes[0].dims) if exp.sizes else set()
    labels: set[str] = set()
    for i, size in enumerate(exp.sizes):
        if size.label in labels:
            add(exp, "sizes", f"size label '{size.label}' is used twice", "give each size its own label", i)
        labels.add(size.label)
        if set(size.dims) != dim_names:
            add(
                exp,
                "sizes",
                f"size '{size.label}' has dims {sorted(size.dims)}, the first size {sorted(dim_names)}",
                "give every size the same dim names",
                i,
            )
        for name, value in size.dims.items():
            if value <= 0:
                add(exp, "sizes", f"size '{size.label}' has {name} = {value}", "use positive sizes", i)
    for i, buf in enumerate(exp.buffers):
        for text_ in buf.shape:
            if not _check_expr(text_, dim_names, exp, "buffers", i, f"buffer '{buf.name}' shape", add):
                break
    # Kernels.
    if not exp.kernels:
        add(exp, "kernels", "'kernels' is empty", "declare at least one kernel")
    ids: set[str] = set()
    for i, k in enumerate(exp.kernels):
        where = f"kernel '{k.id}'"
        if k.id in ids:
            add(exp, "kernels", f"kernel id '{k.id}' is used twice", "give each kernel its own id", i)
        ids.add(k.id)
        if not _ID.match(k.id):
            add(
                exp,
                "kernels",
                f"kernel id '{k.id}' is not a plain lowercase id",
                "use lowercase letters, digits and '-' (e.g. 'tile32-padded')",
                i,
            )
        clash = set(k.params) & (dim_names | buffer_names)
        if clash:
            add(
                k,
                "params",
                f"{where} param(s) {', '.join(sorted(clash))} shadow a dim or buffer",
                "rename the param",
            )
        names = dim_names | set(k.params)
        if k.reference not in references.NAMES:
            add(
                k,
                "reference",
                f"{where} names reference '{k.reference}', which does not exist",
                f"use one of {', '.join(sorted(references.NAMES))} (measure/references.py)",
            )
        if k.tolerance < 0:
            add(
                k,
                "tolerance",
                f"{where} has a negative tolerance",
                "use 0 for exact or a small positive number",
            )
        for key in ("bytes_read", "bytes_written", "flops", "shared_bytes"):
            value = getattr(k, key)
            if value is not None:
                _check_expr(value, names, k, key, None, f"{where} {key}", add)
        if k.kind == "memcpy":
            if k.function is not None or k.block or k.grid:
                add(
                    k,
                    "kind",
                    f"{where} is a driver memcpy but declares a function, block or grid",
                    "drop 'function', 'block' and 'grid' for kind 'memcpy'",
                )
            if len(k.args) != 2 or not all(a in buffer_names for a in k.args):
                add(
                    k,
                    "args",
                    f"{where} is a driver memcpy; its args must be [destination, source] buffers",
                    "name the output buffer, then the input buffer",
                )
            continue
        if k.function is None:
            add(k, None, f"{where} has no 'function'", "add 'function:' (the extern \"C\" __global__ name)")
        elif source_text is not None and not _function_defined(source_text, k.function):
            add(
                k,
                "function",
                f"{where} names function '{k.function}', which {folder}/{exp.source} does not "
                'define as an extern "C" __global__ function',
                'fix the name, or define it inside an extern "C" block',
            )
        if not 1 <= len(k.block) <= 3 or any(b <= 0 for b in k.block):
            add(k, "block", f"{where} block is {k.block}", "give 1 to 3 positive thread counts, e.g. [32, 8]")
        else:
            threads = 1
            for b in k.block:
                threads *= b
            if threads > 1024:
                add(
                    k,
                    "block",
                    f"{where} asks for {threads} threads per block; CUDA allows at most 1024",
                    "use a smaller block",
                )
        if not 1 <= len(k.grid) <= 3:
            add(k, "grid", f"{where} grid has {len(k.grid)} dimensions", "give 1 to 3 expressions")
        for text_ in k.grid:  # one problem per list: a split expression would report each piece
            if not _check_expr(text_, names | {DEVICE_SM_COUNT}, k, "grid", None, f"{where} grid", add):
                break
        for j, arg in enumerate(k.args):
            if arg not in buffer_names:
                _check_expr(arg, names, k, "args", j, f"{where} argument", add)
    if exp.ceilings:
        for i, k in enumerate(exp.kernels):
            if k.reference != "copy":
                add(
                    exp,
                    "kernels",
                    f"ceiling experiment kernel '{k.id}' is not a copy",
                    "a ceilings experiment holds only copies (reference 'copy')",
                    i,
                )
    if problems:
        return None, problems
    return Declared(exp, spec_path, f"{folder}/{exp.source}", line_of(exp, "id")), []


def _check_expr(text: str, names: set[str], obj: object, key: str, index: int | None, what: str, add: object) -> bool:
    """Report a problem with one expression; True when it is fine."""
    known = ", ".join(sorted(names)) or "none"
    remedy = f"use whole numbers, + - * // ( ), cdiv, min, max and the names: {known}"
    try:
        unknown = expr_names(text) - names
        problem = f"{what} '{text}' uses unknown name(s) {', '.join(sorted(unknown))}" if unknown else None
    except ExprError as exc:
        problem = f"{what}: {exc}"
        remedy = exc.remedy or remedy
    if problem:
        add(obj, key, problem, remedy, index)  # type: ignore[operator]
    return problem is None


def load_specs(root: Path) -> tuple[dict[str, Declared], list[Problem]]:
    """Every experiment under ``code/*/experiment.yaml``, by id; problems for the malformed ones."""
    specs: dict[str, Declared] = {}
    problems: list[Problem] = []
    ceilings: list[Declared] = []
    for spec_file in sorted((root / CODE_DIR).glob(f"*/{SPEC_NAME}")):
        rel = spec_file.relative_to(root).as_posix()
        text = spec_file.read_text(encoding="utf-8")
        source_name = _peek_source(text)
        source_file = spec_file.parent / source_name if source_name else None
        source_text = (
            source_file.read_text(encoding="utf-8") if source_file is not None and source_file.is_file() else None
        )
        declared, probs = parse_spec(text, rel, source_text)
        problems += probs
        if declared is None:
            continue
        if declared.id in specs:
            other = specs[declared.id].spec_path
            problems.append(
                Problem(
                    rel,
                    declared.id_line,
                    f"experiment id '{declared.id}' is also declared in {other}",
                    "give each experiment its own id",
                )
            )
            continue
        specs[declared.id] = declared
        if declared.experiment.ceilings:
            ceilings.append(declared)
    if len(ceilings) > 1:
        for d in ceilings[1:]:
            problems.append(
                Problem(
                    d.spec_path,
                    d.id_line,
                    f"a second ceilings experiment ('{d.id}')",
                    f"keep only one experiment with 'ceilings: true' (first: {ceilings[0].id})",
                )
            )
    return specs, problems


def peek_ids(root: Path) -> dict[str, str]:
    """Experiment id -> spec path, read loosely (also from specs that do not load)."""
    ids: dict[str, str] = {}
    for spec_file in sorted((root / CODE_DIR).glob(f"*/{SPEC_NAME}")):
        match = re.search(r"^id:\s*['\"]?([^'\"\s#]+)", spec_file.read_text(encoding="utf-8"), re.MULTILINE)
        if match:
            ids.setdefault(match.group(1), spec_file.relative_to(root).as_posix())
    return ids


def _peek_source(text: str) -> str | None:
    match = re.search(r"^source:\s*['\"]?([^'\"\s#]+)", text, re.MULTILINE)
    return match.group(1) if match else None
