"""Integer expressions in experiment specs: ``cdiv(cols, 32)``, ``4 * rows * cols``, ``sm_count * 8``.

A spec's sizes, grids, byte counts and shared-memory sizes are small expressions over the size's dims and
the kernel's params: whole numbers, ``+ - * //``, parentheses and ``cdiv``, ``min``, ``max``. Nothing
else parses, so evaluating one runs no arbitrary code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

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


def check_expr(
    text: str,
    names: set[str],
    obj: object,
    key: str,
    index: int | None,
    what: str,
    add: Callable[..., None],
) -> bool:
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
        add(obj, key, problem, remedy, index)
    return problem is None
