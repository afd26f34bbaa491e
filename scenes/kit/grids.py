"""Grids of numbers: row vectors stacked in aligned columns, and the n x n
grid of attention scores.

Row-vector convention, as everywhere in the lesson: a matrix's row i is the
vector of token i (Q = X W_Q, one row per token), drawn as one bracketed
row.  ``VectorRows(M, ...)`` draws every row of M, row i below row i - 1;
``ScoreGrid(names, ...)`` is an n x n grid of empty cells whose column j is
named by key j, and ``make_numbers(M)`` builds M's numbers in its cells
(cell (i, j) is M[i, j]: query i's row, key j's column).  Numbers show at
most 2 decimals, as ``qkv_lens.numbers.tex_number`` writes them.

    from manim import DOWN, FadeIn, Scene
    import numpy as np
    from scenes.kit import palette
    from scenes.kit.grids import ScoreGrid, VectorRows

    class Example(Scene):
        def construct(self):
            Q = np.array([[1.0, 0.5], [0.0, 2.0]])
            rows = VectorRows(Q, palette.Q_GOLD, row=0.6).to_edge(DOWN)
            grid = ScoreGrid(["eat", "apple"], "en", w=1.0, h=0.8)
            self.add(rows, grid, grid.make_numbers(Q @ Q.T))
            self.play(FadeIn(rows.entry(1, 1)))
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import UP, ManimColor, MathTex, ParsableManimColor, Rectangle, VGroup

from qkv_lens.numbers import tex_number

from . import palette
from .glyphs import NumberTex, number_tex
from .legible import least_scale, shrink_to_fit
from .text import text

VEC_FONT = 30        # entries of a VectorRows
GRID_FONT = 28       # numbers in a ScoreGrid (>= 24 px glyphs at 1080p)
NAME_SIZE = 26       # the key names over a ScoreGrid's columns
MIN_NAME = 23.5      # smallest size a key name over a column may shrink to
# attention weights: lavender, never one of Q gold, K teal, V coral (nor the white of emphasis)
WEIGHT: ManimColor = ManimColor("#B39DDB")


class VectorRows(VGroup):
    """One bracketed row vector per row of ``M``, entries in aligned columns
    (each entry a MathTex, 2 decimals at most), rows ``row`` apart, the
    first row's centre line at y = 0.
    ``rows[i]`` is VGroup(left bracket, entries, right bracket)."""

    def __init__(self, M: np.ndarray, color: ParsableManimColor | Sequence[ParsableManimColor], row: float,
                 font: float = VEC_FONT, gap: float = 0.2):
        super().__init__()
        M = np.atleast_2d(M)
        self.values = M
        self.rows = VGroup()
        if not M.size:
            return
        colors = list(color) if isinstance(color, (list, tuple)) else [color] * len(M)
        entries = [[number_tex(tex_number(float(v), 2), font_size=font, color=colors[i]) for v in r]
                   for i, r in enumerate(M)]
        widths = [max(e[j].width for e in entries) for j in range(M.shape[1])]
        xs = np.cumsum([0.0] + [w + gap for w in widths[:-1]]) + np.array(widths) / 2
        for i, r in enumerate(entries):
            y = -i * row
            for j, e in enumerate(r):
                e.move_to([xs[j], y, 0])
            left = MathTex("[", font_size=font, color=colors[i]).move_to([-0.14, y, 0])
            right = MathTex("]", font_size=font, color=colors[i]).move_to([xs[-1] + widths[-1] / 2 + 0.14, y, 0])
            self.rows.add(VGroup(left, VGroup(*r), right))
        self.add(self.rows)

    def every(self, start: int, step: int) -> VectorRows:
        """Every ``step``-th row from ``start``, as VectorRows sharing these rows' mobjects."""
        view = VectorRows(np.zeros((0, 1)), palette.INK, 1.0)
        view.values = self.values[start::step]
        view.rows = VGroup(*self.rows[start::step])
        view.add(view.rows)
        return view

    def entry(self, i: int, j: int) -> MathTex:
        return self.rows[i][1][j]

    def shown(self) -> list[list[str]]:
        """The TeX of every entry on screen, row by row."""
        return [[e.get_tex_string() for e in r[1]] for r in self.rows]


class ScoreGrid(VGroup):
    """An n x n grid of cells ``w`` wide and ``h`` tall (its top-left corner
    at the origin), the key names over the columns (staggered on two levels
    when a name is wider than its column).
    ``make_numbers(M)`` builds the numbers of M in the cells (not added to
    the scene, nor to this group) and records M."""

    def __init__(self, names: Sequence[str], lang: str, w: float, h: float):
        super().__init__()
        self.n = len(names)
        self.w, self.h = w, h
        self.cells = VGroup(*[Rectangle(width=w, height=h, stroke_width=1.5, stroke_color=palette.MUTED,
                                        fill_opacity=0).move_to([(j + 0.5) * w, -(i + 0.5) * h, 0])
                              for i in range(self.n) for j in range(self.n)])
        labels = [text(nm, lang, size=NAME_SIZE, color=palette.K_TEAL) for nm in names]
        # names a little wider than a column shrink (down to the legible MIN_NAME);
        # wider ones stand on two levels, every other one higher
        fit = min([1.0] + [(w - 0.1) / lab.width for lab in labels])
        stagger = fit < MIN_NAME / NAME_SIZE
        room = (2 * w if stagger else w) - 0.1
        factor = min([1.0] + [room / lab.width for lab in labels])
        factor = min(1.0, max([factor] + [least_scale(lab) for lab in labels]))   # never under the floor
        high = max(lab.height for lab in labels) * factor + 0.08
        for j, lab in enumerate(labels):
            lab.scale(factor).next_to(self.cells[j], UP, buff=0.12)
            lab.set_y(self.cells[j].get_top()[1] + 0.12 + lab.height / 2 + (high if stagger and j % 2 else 0))
        self.col_labels = VGroup(*labels)
        self.numbers = VGroup()
        self.values = np.zeros((self.n, self.n))
        self.add(self.cells, self.col_labels)

    def cell_at(self, i: int, j: int) -> Rectangle:
        return self.cells[i * self.n + j]

    def make_numbers(self, M: np.ndarray) -> VGroup:
        """Numbers for M placed in the cells (not yet added); records M."""
        self.values = np.asarray(M, dtype=float)
        self.numbers = VGroup(*[self.number(float(self.values[i, j]), i, j)
                                for i in range(self.n) for j in range(self.n)])
        return self.numbers

    def number(self, v: float, i: int, j: int) -> NumberTex | MathTex:
        t = number_tex(tex_number(v, 2, pad=True), font_size=GRID_FONT)
        if t.width > self.w * 0.92:   # only for numbers far beyond the lesson's usual range
            shrink_to_fit(t, width=self.w * 0.92)
        return t.move_to(self.cell_at(i, j))

    def shown(self) -> list[list[str]]:
        """The TeX of every number on screen, row by row."""
        texts = [m.get_tex_string() for m in self.numbers]
        return [texts[i * self.n:(i + 1) * self.n] for i in range(self.n)]


def widest_number(*grids: np.ndarray) -> float:
    """Width of the widest number a ScoreGrid will show for any of ``grids``."""
    texts = {tex_number(float(v), 2, pad=True) for M in grids for v in np.ravel(M)}
    return max(number_tex(t, font_size=GRID_FONT).width for t in texts)
