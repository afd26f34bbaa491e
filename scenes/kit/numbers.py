"""How numbers are written on screen (TeX), from exact or float values."""
from __future__ import annotations

from fractions import Fraction


def _finite_decimal(q: Fraction) -> bool:
    d = q.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def tex_number(v, paren_negative: bool = False, digits: int = 3) -> str:
    """TeX for one number.  Fractions: integers plainly, finite decimals as
    decimals (1/2 -> 0.5), others as \\frac; floats rounded to ``digits``
    significant decimals.  ``paren_negative`` wraps negatives in ( )."""
    if isinstance(v, Fraction):
        if v.denominator == 1:
            body = str(abs(v.numerator))
        elif _finite_decimal(v):
            body = _decimal_text(abs(v))
        else:
            body = rf"\tfrac{{{abs(v.numerator)}}}{{{v.denominator}}}"
        neg = v < 0
    else:
        f = float(v)
        neg = f < 0 and round(abs(f), digits) != 0
        body = f"{abs(f):.{digits}f}".rstrip("0").rstrip(".")
    if not neg:
        return body
    return f"(-{body})" if paren_negative else f"-{body}"


def _decimal_text(q: Fraction) -> str:
    """Exact decimal digits of a non-negative Fraction with a 2^a 5^b denominator."""
    places = 0
    while (q * 10 ** places).denominator != 1:
        places += 1
    scaled = int(q * 10 ** places)
    whole, frac = divmod(scaled, 10 ** places)
    return f"{whole}.{frac:0{places}d}"


def plain_number(v) -> str:
    """Plain text (no TeX) of a number for narration: 1/2 stays '1/2'."""
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return str(v.numerator)
        if _finite_decimal(v):
            return ("-" if v < 0 else "") + _decimal_text(abs(v))
        return str(v)
    return f"{float(v):.3f}".rstrip("0").rstrip(".")


def plain_vector(values) -> str:
    return "[" + ", ".join(plain_number(v) for v in values) + "]"
