"""The constant truth of a Python condition: what a `skipif`, an `assert` or an `if` decides whatever the code does.

A condition is read as Python would evaluate it, on literals only: `1`, `not False`, `1 == 1`,
`x or True`, `(3,) > (2,)`; a tuple, list, set or dict written with an element is true whatever
it holds (`assert (x, 1)`). The running interpreter's version is the one fact of the world it may
name (`sys.version_info > (0,)`, `sys.version_info[0] >= 3`): it is evaluated on the oldest
and the newest Python a project may run, and a condition is constant only when both agree. A
string condition (`skipif("sys.platform == 'win32'")`) is pytest's to evaluate: it is parsed and
read the same way, and a bare word of assent (`"yes"`, `"true"`, `"always"`) is taken as true.
Anything that names other code is not constant (None).
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from judge.code import pyast

__all__ = ["condition_truth", "truth"]

_WORLDS = ((3, 6, 0, "final", 0), (3, 14, 0, "final", 0))  # the oldest and newest Python a project may run
_VERSION_FIELDS = {"major": 0, "minor": 1, "micro": 2}
_ASSENT = frozenset({"yes", "y", "true", "always", "on", "1", "skip"})
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_UNARY = {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos}
_MAX_NODES = 200  # a condition bigger than this is not a constant anyone writes


class _Unknown(Exception):
    """The expression names code: its value is not known without running it."""


def truth(node: ast.expr) -> bool | None:
    """True or False when the expression's truth is the same on every Python; None when it depends on code."""
    if _filled_display(node):
        return True  # `assert (x, "y")`: a tuple, list, set or dict with an element is true, whatever the element
    if sum(1 for _ in ast.walk(node)) > _MAX_NODES:
        return None
    try:
        values = {bool(_value(node, world)) for world in _WORLDS}
    except (_Unknown, TypeError, ValueError, ArithmeticError, RecursionError):
        return None
    return values.pop() if len(values) == 1 else None


def _filled_display(node: ast.expr) -> bool:
    """A display written with at least one element none of which unpacks (`*rest`, `**extra` may be empty)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and not any(isinstance(element, ast.Starred) for element in node.elts)
    return isinstance(node, ast.Dict) and bool(node.keys) and all(key is not None for key in node.keys)


def condition_truth(node: ast.expr) -> bool | None:
    """The truth of a `skipif`/`xfail` condition; a string is the expression pytest would evaluate."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value.strip()
        if text.lower() in _ASSENT:
            return True
        try:
            parsed = pyast.parse(text, mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return None
        return truth(parsed)
    return truth(node)


def _value(node: ast.AST, world: tuple[Any, ...]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_value(element, world) for element in node.elts)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand, world))
    if isinstance(node, ast.BoolOp):
        return _boolean(node, world)
    if isinstance(node, ast.Compare):
        left = _value(node.left, world)
        for op, right_node in zip(node.ops, node.comparators):
            compare, right = _COMPARE[type(op)], _value(right_node, world)
            if not compare(left, right):
                return False
            left = right
        return True
    return _version(node, world)


def _boolean(node: ast.BoolOp, world: tuple[Any, ...]) -> Any:
    """`and`/`or` as Python short-circuits them: `x or True` is true whatever `x` is, `x and False` false."""
    deciding = isinstance(node.op, ast.Or)
    unknown = False
    value: Any = None
    for operand in node.values:
        try:
            value = _value(operand, world)
        except _Unknown:
            unknown = True
            continue
        if bool(value) is deciding:
            return value
    if unknown:
        raise _Unknown
    return value


def _version(node: ast.AST, world: tuple[Any, ...]) -> Any:
    """`sys.version_info` (or `version_info`), its fields and its slices, on one Python of ``world``."""
    if _is_version_info(node):
        return world
    if isinstance(node, ast.Attribute) and node.attr in _VERSION_FIELDS and _is_version_info(node.value):
        return world[_VERSION_FIELDS[node.attr]]
    if isinstance(node, ast.Subscript) and _is_version_info(node.value):
        index = node.slice
        if isinstance(index, ast.Slice):
            bounds = [_value(b, world) if b is not None else None for b in (index.lower, index.upper, index.step)]
            return world[slice(*bounds)]
        return world[_value(index, world)]
    raise _Unknown


def _is_version_info(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "version_info"
    return isinstance(node, ast.Attribute) and node.attr == "version_info" and \
        isinstance(node.value, ast.Name) and node.value.id == "sys"
