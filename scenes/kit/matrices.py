"""Matrices of exact numbers (``matrix_mob``) and a live 2x2 readout
(``LiveMatrix``); row i of a matrix is where basis vector i lands (row vectors)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import RIGHT, Matrix, MobjectMatrix, ParsableManimColor

from qkv_lens.numbers import Number, tex_number

from . import palette
from .glyphs import FastDecimal, number_tex, set_shown


def matrix_mob(rows: Sequence[Sequence[Number]], row_colors: Sequence[ParsableManimColor] | None = None,
               col_colors: Sequence[ParsableManimColor] | None = None, font_size: float = 36,
               digits: int = 3, fractions: bool = False, gap: float | None = None, pad: bool = False) -> Matrix:
    """A bracketed matrix of exact numbers (each entry a ``number_tex``;
    floats rounded to ``digits`` decimals, see ``numbers.tex_number``).
    Columns are spaced for their number of characters; with ``gap``, for
    the widest entry as typeset, ``gap`` apart (at font size 48): a compact
    matrix for a row that must fit the frame.  ``pad`` writes every float
    with exactly ``digits`` decimals (numbers that share a column)."""
    entries = [[tex_number(v, digits, pad=pad, fractions=fractions) for v in row] for row in rows]
    widest = max(len(re.sub(r"\\tfrac|[{}()]", "", e)) for row in entries for e in row)
    h_buff = max(1.1, 0.6 + 0.25 * widest)
    if gap is not None:
        h_buff = min(h_buff, max(number_tex(e).width for row in entries for e in row) + gap)
    m = Matrix(entries, element_to_mobject=number_tex, element_alignment_corner=np.zeros(3),
               h_buff=h_buff, v_buff=0.75, bracket_h_buff=0.15)
    m.scale(font_size / 48)
    for i, row in enumerate(m.get_rows()):
        for j, entry in enumerate(row):
            if row_colors is not None:
                entry.set_color(row_colors[i])
            if col_colors is not None:
                entry.set_color(col_colors[j])
    return m


class LiveMatrix(MobjectMatrix):
    """A 2x2 readout of DecimalNumbers, updated in place by ``set_matrix``;
    row i is drawn in ``row_colors[i]`` (row i = where basis vector i lands)."""

    def __init__(self, M: np.ndarray | Sequence[Sequence[float]],
                 row_colors: Sequence[ParsableManimColor] = (palette.BASIS_I, palette.BASIS_J),
                 places: int = 2, font_size: float = 40, **kw: Any):
        M = np.asarray(M, dtype=float)
        # Lay the matrix out for the widest entry it shows (|v| < 10), then
        # show M: entries keep their right edges inside the brackets.
        self.numbers = [[FastDecimal(-8.88, num_decimal_places=places, font_size=font_size,
                                     color=row_colors[i], edge_to_fix=RIGHT)
                         for j in range(M.shape[1])] for i in range(M.shape[0])]
        super().__init__(self.numbers, h_buff=1.35, v_buff=0.7,
                         element_alignment_corner=RIGHT, **kw)
        self.set_matrix(M)

    def set_matrix(self, M: np.ndarray | Sequence[Sequence[float]]) -> LiveMatrix:
        M = np.asarray(M, dtype=float)
        for i, row in enumerate(self.numbers):
            for j, num in enumerate(row):
                set_shown(num, float(M[i, j]))
        return self

    def values(self) -> np.ndarray:
        """The values shown, as a float array."""
        return np.array([[n.get_value() for n in row] for row in self.numbers])
