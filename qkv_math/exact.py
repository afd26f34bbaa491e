"""Exact worked arithmetic of a vector-matrix product, ``y = x @ W``."""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

Number = Fraction | float
Entry = int | float | Fraction | str
"""An input entry: exact when an int, Fraction or rational string."""


def to_exact(value: object) -> Fraction:
    """A rational input as a Fraction: int, Fraction, or a string such as
    "3", "-0.5", "1/2".  Raises ValueError for anything else (floats included:
    pass their decimal text to keep them exact)."""
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"not a rational number: {value!r}") from None
    raise ValueError(f"not an exact rational input: {value!r}")


def _is_exact(value: object) -> bool:
    try:
        to_exact(value)
        return True
    except ValueError:
        return False


def _to_float(value: object) -> float:
    if isinstance(value, str):
        value = to_exact(value)
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Fraction)):
        raise ValueError(f"not a number: {value!r}")
    f = float(value)
    if not math.isfinite(f):
        raise ValueError(f"not a finite number: {value!r}")
    return f


@dataclass(frozen=True)
class Term:
    """One product ``x_i * W_ij`` of an output column."""
    x: Number
    w: Number
    product: Number


@dataclass(frozen=True)
class WorkedColumn:
    """Output entry j: its terms (one per input entry i) and their sum."""
    terms: tuple[Term, ...]
    total: Number


@dataclass(frozen=True)
class WorkedProduct:
    """The whole product: one WorkedColumn per column of W; ``result[j] ==
    columns[j].total``; ``exact`` tells whether numbers are Fractions."""
    columns: tuple[WorkedColumn, ...]
    result: tuple[Number, ...]
    exact: bool


def worked_product(x: Sequence[Entry], W: Sequence[Sequence[Entry]]) -> WorkedProduct:
    """Write ``x @ W`` out term by term.

    x: length n; W: n rows of m entries.  For each output column j the terms
    are ``(x_i, W_ij, x_i * W_ij)`` for i = 0..n-1, summed in order.  Exact
    Fractions when every input is rational (int, Fraction, "0.5", "1/2"),
    floats otherwise.  Raises ValueError on ragged or mismatched shapes.
    """
    x = list(x)
    rows = [list(r) for r in W]
    n = len(x)
    if n == 0:
        raise ValueError("x must have at least one entry")
    if len(rows) != n:
        raise ValueError(f"W must have {n} rows (one per entry of x), found {len(rows)}")
    m = len(rows[0])
    if m == 0 or any(len(r) != m for r in rows):
        raise ValueError("W must be a non-empty rectangular matrix")
    exact = all(_is_exact(v) for v in x) and all(_is_exact(v) for r in rows for v in r)
    conv: Callable[[object], Number] = to_exact if exact else _to_float
    xs = [conv(v) for v in x]
    ws = [[conv(v) for v in r] for r in rows]
    columns: list[WorkedColumn] = []
    for j in range(m):
        terms = tuple(Term(xs[i], ws[i][j], xs[i] * ws[i][j]) for i in range(n))
        total = sum((t.product for t in terms), Fraction(0) if exact else 0.0)
        columns.append(WorkedColumn(terms, total))
    return WorkedProduct(tuple(columns), tuple(c.total for c in columns), exact)
