"""Array's operators, one row each: the dunder's stem, the namespace function it computes, its
Python symbol, and which forms it has. What the rows make:

- the operators themselves (`_elementwise` builds the arithmetic, bitwise, comparison and unary
  ones from `function`; `_matmul` builds `@`);
- their docstrings (`doc`), the one text `help(Array.__add__)` and the API reference show;
- the wording of an operand error (`foreign_operand` below: `x + other: other must be ...`).

It imports only `arguments` (for the conversion hint), in `_base` beside it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .arguments import convert_hint

__all__ = ["Operator", "OPERATORS", "SYMBOL", "doc"]


class Operator(NamedTuple):
    stem: str  # "add": `__add__`, and `__radd__` and `__iadd__` where `form` is "binary"
    function: str  # "add": the namespace function of the same rules (`x + y` is `add(x, y)`)
    symbol: str  # "+": how Python spells it
    form: str  # "binary" (with reflected and in-place forms), "comparison" or "unary"


OPERATORS: tuple[Operator, ...] = (
    Operator("add", "add", "+", "binary"),
    Operator("sub", "subtract", "-", "binary"),
    Operator("mul", "multiply", "*", "binary"),
    Operator("truediv", "divide", "/", "binary"),
    Operator("floordiv", "floor_divide", "//", "binary"),
    Operator("mod", "remainder", "%", "binary"),
    Operator("pow", "pow", "**", "binary"),
    Operator("and", "bitwise_and", "&", "binary"),
    Operator("or", "bitwise_or", "|", "binary"),
    Operator("xor", "bitwise_xor", "^", "binary"),
    Operator("lshift", "bitwise_left_shift", "<<", "binary"),
    Operator("rshift", "bitwise_right_shift", ">>", "binary"),
    Operator("matmul", "matmul", "@", "binary"),
    # comparisons are element-wise, as the standard says: an Array of bool, not a bool
    Operator("lt", "less", "<", "comparison"),
    Operator("le", "less_equal", "<=", "comparison"),
    Operator("gt", "greater", ">", "comparison"),
    Operator("ge", "greater_equal", ">=", "comparison"),
    Operator("eq", "equal", "==", "comparison"),
    Operator("ne", "not_equal", "!=", "comparison"),
    Operator("neg", "negative", "-", "unary"),
    Operator("pos", "positive", "+", "unary"),
    Operator("abs", "abs", "abs", "unary"),
    Operator("invert", "bitwise_invert", "~", "unary"),
)

# The symbol of each binary operator, by the name of its function ("subtract" -> "-").
SYMBOL: dict[str, str] = {op.function: op.symbol for op in OPERATORS if op.form != "unary"}

# dunder name -> (its row, its prefix: "" forward, "r" reflected, "i" in place)
_DUNDERS: dict[str, tuple[Operator, str]] = {
    f"__{prefix}{op.stem}__": (op, prefix)
    for op in OPERATORS
    for prefix in (("", "r", "i") if op.form == "binary" else ("",))
}


def doc(dunder: str) -> str:
    """The docstring of Array's operator `dunder`: the expression it computes and the function
    whose rules it follows (``x + y`` for an array ``x``: the element-wise `add`)."""
    op, prefix = _DUNDERS[dunder]
    s, f = op.symbol, op.function
    what = "the planned matrix product, `matmul`" if f == "matmul" else f"the element-wise `{f}`"
    if op.form == "unary":
        expr = "abs(x)" if s == "abs" else f"{s}x"
        return f"``{expr}`` for an array ``x``: {what}."
    if prefix == "r":
        return f"``y {s} x`` for an array ``x`` when ``y`` does not compute it: {what}."
    if prefix == "i":
        return f"``x {s}= y``: {what}, written into ``x``."
    return f"``x {s} y`` for an array ``x``: {what}."


_EQUALITY = {"equal": "__eq__", "not_equal": "__ne__"}


def foreign_operand(func: str, array: Any, other: Any, reflected: bool) -> Any:
    """What an operator of `array` does with an `other` that is neither an Array nor a Python
    scalar (the operands the standard gives operators; NumPy's arrays and scalars arrive here
    too and are NumPy's to compute, through its operators and `__array_ufunc__`).

    A list or tuple is a TypeError saying how to convert it, for every operator alike (NumPy
    would convert it; the standard and this library's functions do not). Any other object
    gets NotImplemented, so Python asks it for the reflected operation, except for == and !=:
    there Python's last resort is identity, a silent `False`/`True` where an element-wise
    result was meant, so the reflected method is called here and, if it declines too, the
    answer is the same TypeError."""
    sequence = isinstance(other, (list, tuple))
    if not sequence:
        dunder = _EQUALITY.get(func)
        if dunder is None:
            return NotImplemented
        r = getattr(type(other), dunder)(other, array)
        if r is not NotImplemented:
            return r
    sym = SYMBOL.get(func, func)
    expr = f"other {sym} x" if reflected else f"x {sym} other"
    hint = f"; {convert_hint('other')}" if sequence else " (arrays compare element-wise)"
    raise TypeError(
        f"{expr}: other must be a stridedarray.Array or a Python bool, int, float or "
        f"complex, got {type(other).__name__}{hint}"
    )
