"""Maths as a description says it aloud (``LessonScene.describe`` fills a
description's fields with it), in the words of each language's text table
(its ``describe.*`` keys).

``spoken(value, lang, digits=3, fractions=False)``:

- a number is written as ``qkv_lens.numbers.plain_number`` writes it, so
  the description says what the screen shows: digits (``0.5``, ``3``),
  the minus sign as a word (``minus 1``), an exact fraction in words
  (``one half``, ``two thirds``; past the table's words ``5 over 12``),
  infinity as a word;
- a row vector (a sequence of numbers): its entries, ``1, 0, 2``;
- a matrix (a sequence of rows of one length, at most MAX_ROWS): its shape,
  then its rows in order, ``two by three: first row 1, 0, 2; second row 0,
  1, minus 1``;
- a text: itself (a name, already in the lesson's language); a list of
  texts: each, as a list is said (``I, want, to eat``).

Anything else (a bool, a ragged matrix, an empty list, more than MAX_VALUES
numbers) is a SpokenError (one line).
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence

from qkv_lens.numbers import _parts, sci_parts
from qkv_lens.texts import tr

MAX_ROWS = 12        # a matrix read aloud row by row (the ordinals the tables give)
MAX_VALUES = 144     # numbers in one value: more is not a description anyone can follow


class SpokenError(ValueError):
    """A value a description cannot say (one line)."""


def _words(lang: str, key: str) -> list[str]:
    """The words of a list text (``describe.numbers``, ...), split at spaces."""
    return tr(lang, f"describe.{key}").split()


def _word(lang: str, key: str, n: int) -> str:
    """The ``n``-th word of the list ``key`` (from 0), or ``n`` in digits past its end."""
    found = _words(lang, key)
    return found[n] if 0 <= n < len(found) else str(n)


def number(v: numbers.Real, lang: str, digits: int = 3, fractions: bool = False) -> str:
    """One number, said (see the module)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise SpokenError(f"a number expected, found {type(v).__name__}")
    negative, body = _parts(v, digits, False, fractions)
    if isinstance(body, tuple):
        said = _fraction(*body, lang)
    elif body == "inf":
        said = tr(lang, "describe.infinity")
    else:
        said = body
    return tr(lang, "describe.minus", x=said) if negative else said


def sci_said(v: float, lang: str, digits: int = 2) -> str:
    """``qkv_lens.numbers.sci`` (a loss) said: ``0.42``, or ``4.4 times ten
    to the minus 5`` (``describe.power``)."""
    mantissa, power = sci_parts(v, digits)
    return mantissa if power is None else tr(lang, "describe.power", m=mantissa, p=spoken(power, lang))


def _fraction(num: int, den: int, lang: str) -> str:
    """``num/den`` in words: a named denominator (``two thirds``) where the
    tables name it, else ``num over den`` in digits."""
    named = _words(lang, "denominators")          # for 2, 3, ...: "singular/plural"
    numerals = _words(lang, "numbers")
    if 2 <= den < 2 + len(named) and num < len(numerals):
        one, _, many = named[den - 2].partition("/")
        said = tr(lang, "describe.one") if num == 1 else numerals[num]
        return tr(lang, "describe.fraction_named", num=said, den=one if num == 1 else (many or one))
    return tr(lang, "describe.fraction", num=num, den=den)


def spoken(value: object, lang: str, digits: int = 3, fractions: bool = False) -> str:
    """``value`` said in ``lang`` (see the module); SpokenError when it cannot be."""
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return number(value, lang, digits, fractions)
    items = _row(value)
    if items and all(isinstance(v, str) for v in items):
        return tr(lang, "describe.list_sep").join(items)
    rows = _table(value)
    if rows is None:
        raise SpokenError(f"a number, a text, a vector or a matrix expected, found {type(value).__name__}")
    count = sum(len(r) for r in rows)
    if count > MAX_VALUES:
        raise SpokenError(f"{count} numbers: at most {MAX_VALUES} are read aloud")
    sep = tr(lang, "describe.list_sep")
    said = [sep.join(number(v, lang, digits, fractions) for v in row) for row in rows]
    if not isinstance(rows, _Matrix):
        return said[0]
    if len(rows) > MAX_ROWS:
        raise SpokenError(f"a matrix of {len(rows)} rows: at most {MAX_ROWS} are read aloud row by row")
    shape = tr(lang, "describe.shape", rows=_word(lang, "counts", len(rows)), cols=_word(lang, "counts", len(rows[0])))
    lines = [tr(lang, "describe.row", nth=_word(lang, "ordinals", i), values=row) for i, row in enumerate(said)]
    return tr(lang, "describe.matrix", shape=shape, rows=tr(lang, "describe.row_sep").join(lines))


class _Matrix(list):
    """Rows read from a sequence of sequences (a matrix, even of one row)."""


def _row(value: object) -> list | None:
    """``value`` as a list, when it is a sequence (not a text) or an array; else None."""
    if hasattr(value, "tolist") and not isinstance(value, numbers.Real):   # a numpy array
        value = value.tolist()
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        return None
    return list(value)


def _real(v: object) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _table(value: object) -> list[list] | None:
    """``value`` as rows of numbers: a vector is one row (a plain list), a
    matrix a ``_Matrix``; None when it is neither a sequence nor an array."""
    items = _row(value)
    if items is None:
        return None
    if not items:
        raise SpokenError("an empty vector or matrix")
    if all(_real(v) for v in items):
        return [items]
    rows = [_row(r) for r in items]
    if any(r is None or not all(_real(v) for v in r) for r in rows):
        raise SpokenError("a vector of numbers, or a matrix whose rows are vectors of numbers, expected")
    if len({len(r) for r in rows}) != 1 or not rows[0]:
        raise SpokenError("a matrix's rows must have one length, at least 1")
    return _Matrix(rows)
