"""How numbers are written, on screen and in narration: the one place that
turns a value into text.

The API (TeX goes into ``scenes.kit.glyphs.number_tex`` for a number shown alone, into
``MathTex`` within a formula; plain text into Pango ``Text`` and the narration):

==============================================  =====================================
``tex_number(v, digits=3, pad=False)``          TeX of one number: ``0.5``, ``\\tfrac{1}{3}``
``plain_number(v, digits=3, pad=False)``        the same as plain text: ``0.5``, ``1/3``
``plain_vector(values, digits=3)``              ``[3, 4, 2]``
``sci(v, digits=2)`` / ``sci_text(v, ...)``     quantities that span decades (a loss):
                                                ``4.4 \\times 10^{-5}`` / ``4.4×10⁻⁵``
``percent(share)``                              a share in [0, 1] as whole percent: ``95``
``about(v, digits=2)``                          a large ratio to 2 significant digits: ``29,000``
==============================================  =====================================

The rules, the same for both targets:

* Exact values (``Fraction``, ``int``) stay exact and are never rounded
  through float: integers plainly, finite decimals (denominator 2^a 5^b)
  with all their digits (1/2 -> ``0.5``, 1/8 -> ``0.125``), any other
  fraction as a fraction (TeX ``\\tfrac{1}{3}``, plain ``1/3``).  With
  ``fractions=True`` (a lesson that writes its numbers as fractions, such as
  ``"1/2"``) every exact non-integer is a fraction: 1/2 -> ``\\tfrac{1}{2}``.
* Floats are rounded to ``digits`` decimals; trailing zeros are dropped
  (``0.5``) unless ``pad`` keeps exactly ``digits`` decimals (``0.50``, for
  numbers that share a column or a grid).  ``pad`` also pads a finite
  decimal or an integer given exactly (Fraction(1, 2) -> ``0.50``).
* A number that rounds to zero is never written ``-0``; minus infinity is
  TeX ``-\\infty``, plain ``-∞``.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

Number = Fraction | int | float   # also numpy scalars

if TYPE_CHECKING:
    from qkv_math import WorkedColumn


def _finite_decimal(q: Fraction) -> bool:
    d = q.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _decimal_text(q: Fraction, min_places: int = 0) -> str:
    """Exact decimal digits of a non-negative Fraction with a 2^a 5^b
    denominator, with at least ``min_places`` decimals."""
    places = 0
    while (q * 10 ** places).denominator != 1:
        places += 1
    places = max(places, min_places)
    whole, frac = divmod(int(q * 10 ** places), 10 ** places)
    return f"{whole}.{frac:0{places}d}" if places else str(whole)


def _parts(v: Number, digits: int, pad: bool, fractions: bool = False) -> tuple[bool, str | tuple[int, int]]:
    """(negative, body): body is the decimal digits of |v|, "inf", or a
    (numerator, denominator) pair for an exact fraction that is no decimal
    (or any exact non-integer, with ``fractions``)."""
    if isinstance(v, numbers.Rational):           # Fraction, int, numpy integers
        q = Fraction(v)
        if not _finite_decimal(q) or (fractions and q.denominator != 1):
            return q < 0, (abs(q.numerator), q.denominator)
        return q < 0, _decimal_text(abs(q), digits if pad else 0)
    f = float(v)
    if math.isinf(f):
        return f < 0, "inf"
    # half away from zero, as by hand (0.375 -> 0.38), once float noise is off:
    # 0.75 * sin(30 deg) is 0.37499999999999994, which is 0.375
    snapped = Decimal(f"{abs(f):.{max(10, digits + 2)}f}") if abs(f) < 1e15 else Decimal(repr(abs(f)))
    body = str(snapped.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))
    if not pad and "." in body:
        body = body.rstrip("0").rstrip(".")
    return f < 0 and body.strip("0.") != "", body


def tex_number(v: Number, digits: int = 3, pad: bool = False, paren_negative: bool = False,
               fractions: bool = False) -> str:
    """TeX for one number (see the module's rules); ``paren_negative`` wraps
    a negative number in ( ), for a factor inside a product."""
    neg, body = _parts(v, digits, pad, fractions)
    if isinstance(body, tuple):
        body = rf"\tfrac{{{body[0]}}}{{{body[1]}}}"
    elif body == "inf":
        body = r"\infty"
    if not neg:
        return body
    return f"(-{body})" if paren_negative else f"-{body}"


def plain_number(v: Number, digits: int = 3, pad: bool = False, fractions: bool = False) -> str:
    """Plain text (no TeX) of one number, for Pango labels and narration:
    Fraction(1, 3) stays ``1/3``."""
    neg, body = _parts(v, digits, pad, fractions)
    if isinstance(body, tuple):
        body = f"{body[0]}/{body[1]}"
    elif body == "inf":
        body = "∞"
    return f"-{body}" if neg else body


def plain_vector(values: Iterable[Number], digits: int = 3, fractions: bool = False) -> str:
    """Plain text of a row vector: ``[3, 4, 2]``."""
    return "[" + ", ".join(plain_number(v, digits, fractions=fractions) for v in values) + "]"


def percent(share: float) -> str:
    """A share in [0, 1] as a whole percentage, without the sign: 0.953 -> ``95``."""
    return plain_number(100 * float(share), 0)


def about(v: float, digits: int = 2, thousands: str = ",") -> str:
    """A large positive ratio rounded to ``digits`` significant digits, with
    its thousands grouped by ``thousands`` (the language's, ``Language.thousands``),
    for narration: 29113.4 -> ``29,000`` (``29 000`` with a narrow space), 35.4 -> ``35``."""
    v = float(v)
    rounded = float(f"{v:.{digits - 1}e}")
    if rounded < 10 ** (digits - 1):
        return plain_number(rounded, digits)
    return f"{rounded:,.0f}".replace(",", thousands)


def sci_parts(v: float, digits: int) -> tuple[str, int | None]:
    """(mantissa, power of ten) of a quantity that spans decades: from 0.01
    up to 1000 written as is with ``digits`` decimals (one more below 0.1),
    power None; others as a mantissa with ``digits`` significant digits."""
    v = float(v)
    if v == 0 or 0.01 <= abs(v) < 1000:
        return tex_number(v, digits if abs(v) >= 0.1 else digits + 1, pad=True), None
    mantissa, exponent = f"{v:.{digits - 1}e}".split("e")
    return mantissa, int(exponent)


def sci(v: float, digits: int = 2) -> str:
    """TeX of a positive quantity that spans decades (a loss): ``0.42``, or
    ``4.4 \\times 10^{-5}``."""
    mantissa, power = sci_parts(v, digits)
    return mantissa if power is None else rf"{mantissa} \times 10^{{{power}}}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci_text(v: float, digits: int = 2) -> str:
    """``sci`` as plain text (for Pango labels and narration): ``0.42``, or ``4.4×10⁻⁵``."""
    mantissa, power = sci_parts(v, digits)
    return mantissa if power is None else f"{mantissa}×10{str(power).translate(_SUPERSCRIPT)}"


def column_tex(col: WorkedColumn, fractions: bool = False) -> str:
    """TeX of one output: ``x1 \\times w1 + ... = p1 + p2 ... = total`` (the
    middle step only when two or more products are non-zero); ``fractions``
    writes every non-integer as a fraction (the lesson wrote one as ``"1/2"``)."""
    return " = ".join(column_parts(col, fractions))


def column_parts(col: WorkedColumn, fractions: bool = False) -> list[str]:
    """The parts of ``column_tex`` that ``=`` joins: the factors, the
    products (when two or more are non-zero) and the total."""
    def num(v, paren=False):
        return tex_number(v, paren_negative=paren, fractions=fractions)

    factors = " + ".join(f"{num(t.x, i > 0)} \\times {num(t.w, True)}" for i, t in enumerate(col.terms))
    parts = [factors]
    nonzero = [t.product for t in col.terms if t.product != 0]
    if len(nonzero) >= 2:
        step = num(nonzero[0])
        for p in nonzero[1:]:
            step += f" - {num(-p)}" if p < 0 else f" + {num(p)}"
        parts.append(step)
    parts.append(num(col.total))
    return parts
