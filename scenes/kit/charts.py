"""Named bar charts, heat-maps of matrices and grids of numbers.

Every chart keeps the values it shows (``.values``) and draws them from
those values only, so a test can read back exactly what is on screen.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    LEFT,
    RIGHT,
    UP,
    Animation,
    BarChart,
    FadeIn,
    GrowFromEdge,
    Line,
    MathTex,
    Mobject,
    ParsableManimColor,
    Rectangle,
    VGroup,
)

from qkv_lens.numbers import tex_number

from . import palette
from .glyphs import NumberTex, number_tex
from .legible import least_scale, legible
from .text import text


def baseline(label: Mobject) -> float:
    """The y of a Text's baseline: the median bottom of its glyphs (descenders
    such as p, g and y reach below it; most glyphs sit on it)."""
    glyphs = [g for g in label.submobjects if g.has_points()] or [label]
    return float(np.median([g.get_bottom()[1] for g in glyphs]))


def _level(label: Mobject, y: float, lang: str, size: float) -> Mobject:
    """Shift ``label`` (a Text of font size ``size``, unscaled) up or down so
    that it sits like a number centred at ``y``: its baseline half a digit's
    height below ``y``, whatever ascenders or descenders its letters have."""
    digit = text("0", lang, size=size).height
    return label.shift(UP * (y - digit / 2 - baseline(label)))


def _column_labels(names: Sequence[str], lang: str, size: float, color: ParsableManimColor, width: float,
                   cells: VGroup) -> VGroup:
    """Names over the first ``len(names)`` cells, on one baseline, all
    shrunk by one common factor if any is wider than its column (never
    under the legibility floor); names still wider than their column
    stand on two levels, every other one higher."""
    labels = [legible(text(n, lang, size=size, color=color)) for n in names]
    factor = min([1.0] + [0.92 * width / label.width for label in labels])
    factor = min(1.0, max([factor] + [least_scale(label) for label in labels]))
    top = cells.get_top()[1]
    placed = VGroup(*[label.scale(factor).move_to(cells[j].get_top() * RIGHT)
                      .shift(UP * (top + 0.14 - baseline(label))) for j, label in enumerate(labels)])
    if any(label.width > 0.92 * width + 1e-6 for label in labels):
        high = max(label.height for label in labels) + 0.08
        for label in labels[1::2]:
            label.shift(UP * high)
    return placed


class TraitBars(VGroup):
    """Horizontal bars, one per named trait, from a zero line; the value is
    written at the end of each bar.  ``unit`` is scene units per 1.0."""

    def __init__(self, names: Sequence[str], values: Sequence[float] | np.ndarray, lang: str,
                 color: ParsableManimColor, unit: float = 0.9,
                 row: float = 0.42, size: float = 22, places: int = 2):
        super().__init__()
        self.values = np.asarray(values, dtype=float)
        self.unit = unit
        self.labels = VGroup(*[text(n, lang, size=size, color=palette.INK) for n in names])
        self.bars = VGroup()
        self.numbers = VGroup()
        low = min(0.0, float(self.values.min()))
        zero_x = -low * unit
        for i, (label, v) in enumerate(zip(self.labels, self.values)):
            y = -i * row
            _level(label.move_to([-0.15, y, 0], aligned_edge=RIGHT), y, lang, size)
            width = max(abs(v) * unit, 1e-3)
            bar = Rectangle(width=width, height=row * 0.62, stroke_width=0, fill_color=color,
                            fill_opacity=0.85 if v >= 0 else 0.45)
            bar.move_to([zero_x + (width / 2 if v >= 0 else -width / 2), y, 0])
            num = number_tex(tex_number(v, places, pad=True), font_size=size + 4, color=color)
            num.next_to(bar, RIGHT if v >= 0 else LEFT, buff=0.08)
            if v < 0:
                num.next_to(bar, RIGHT, buff=0.08).shift(RIGHT * width)
            self.bars.add(bar)
            self.numbers.add(num)
        self.axis = Line([zero_x, row * 0.45, 0], [zero_x, -(len(self.values) - 1) * row - row * 0.45, 0],
                         stroke_width=2, color=palette.MUTED)
        self.add(self.axis, self.labels, self.bars, self.numbers)

    def grow(self) -> list[Animation]:
        """Animations that grow each bar out of the zero line and show its value."""
        x0 = self.axis.get_center()[0]
        return [GrowFromEdge(bar, LEFT if bar.get_center()[0] >= x0 else RIGHT) for bar in self.bars] + [
            FadeIn(self.numbers)]

    def shown_values(self) -> np.ndarray:
        """The values as drawn: bar width over ``unit``, signed by side of the axis."""
        x0 = self.axis.get_center()[0]
        out = []
        for bar in self.bars:
            w = bar.width / self.unit
            out.append(w if bar.get_center()[0] >= x0 else -w)
        return np.where(np.abs(out) < 2e-3 / self.unit, 0.0, out)


class HeatMap(VGroup):
    """A matrix as coloured cells (opacity grows with |value|, negatives in
    ``negative``), each non-zero value written in its cell (light, outlined:
    readable on faint and strong cells alike), rows and columns named.
    ``show_rows=False`` leaves the row names out (rows named by something
    drawn level with them)."""

    def __init__(self, M: np.ndarray | Sequence[Sequence[float]], row_names: Sequence[str],
                 col_names: Sequence[str], lang: str, color: ParsableManimColor,
                 negative: ParsableManimColor = palette.ALERT, cell: float = 0.52, size: float = 20, name: str = "",
                 cell_width: float | None = None, show_rows: bool = True):
        super().__init__()
        self.values = np.asarray(M, dtype=float)
        top = float(np.abs(self.values).max()) or 1.0
        rows, cols = self.values.shape
        self.cells = VGroup()
        self.numbers = VGroup()
        for i in range(rows):
            for j in range(cols):
                v = self.values[i, j]
                sq = Rectangle(width=cell_width or cell, height=cell, stroke_width=1,
                               stroke_color=palette.MUTED, fill_color=color if v >= 0 else negative,
                               fill_opacity=0.08 + 0.8 * abs(v) / top)
                sq.move_to([j * (cell_width or cell), -i * cell, 0])
                self.cells.add(sq)
                if v != 0:
                    self.numbers.add(number_tex(tex_number(v, 1, pad=True), font_size=size + 4, color=palette.INK)
                                     .set_stroke(palette.BACKGROUND, width=4, background=True).move_to(sq))
        self.row_labels = VGroup(*[text(n, lang, size=size, color=palette.MUTED)
                                   .next_to(self.cells[i * cols], LEFT, buff=0.12)
                                   for i, n in enumerate(row_names) if show_rows])
        self.col_labels = _column_labels(col_names, lang, size, color, cell_width or cell, self.cells)
        self.add(self.cells, self.numbers, self.row_labels, self.col_labels)
        if name:
            self.title = MathTex(name, font_size=36, color=color).next_to(self.col_labels, UP, buff=0.2)
            self.add(self.title)


class NumberGrid(VGroup):
    """An n x m grid of numbered cells with row names on the left and column
    names on top.  ``make_numbers(M)`` builds the numbers for M, placed in
    the cells, and makes them the grid's current ``numbers``; the scene adds
    and animates them itself (they are not part of this VGroup, so swapping
    them never breaks the grid apart).  Cells are ``cell`` high and
    ``cell_width`` (default ``cell``) wide; names are typeset at ``size``,
    numbers at ``number_size`` (default ``size``)."""

    def __init__(self, row_names: Sequence[str], col_names: Sequence[str], lang: str,
                 cell: float = 0.82, size: float = 24, row_color: ParsableManimColor = palette.Q_GOLD,
                 col_color: ParsableManimColor = palette.K_TEAL, cell_width: float | None = None,
                 number_size: float | None = None):
        super().__init__()
        self.n, self.m = len(row_names), len(col_names)
        self.cell, self.size = cell, size
        self.cell_width = cell_width or cell
        self.number_size = number_size or size
        self.cells = VGroup(*[Rectangle(width=self.cell_width, height=cell, stroke_width=1.5,
                                        stroke_color=palette.MUTED, fill_opacity=0)
                              .move_to([j * self.cell_width, -i * cell, 0])
                              for i in range(self.n) for j in range(self.m)])
        self.row_labels = VGroup(*[_level(legible(text(nm, lang, size=size, color=row_color))
                                          .next_to(self.cells[i * self.m], LEFT, buff=0.15),
                                          self.cells[i * self.m].get_y(), lang, size)
                                   for i, nm in enumerate(row_names)])
        self.col_labels = _column_labels(col_names, lang, size, col_color, self.cell_width, self.cells)
        self.numbers = VGroup()
        self.values = np.zeros((self.n, self.m))
        self._made: dict[str, MathTex] = {}
        self.add(self.cells, self.row_labels, self.col_labels)

    def cell_at(self, i: int, j: int) -> Rectangle:
        return self.cells[i * self.m + j]

    def make_numbers(self, M: np.ndarray | Sequence[Sequence[float]], places: int = 2) -> VGroup:
        """Numbers for M placed in the cells (not yet added); records M."""
        M = np.asarray(M, dtype=float)
        self.values = M
        nums = VGroup()
        for i in range(self.n):
            for j in range(self.m):
                nums.add(self.number(M[i, j], i, j, places))
        self.numbers = nums
        return nums

    def number(self, v: float, i: int, j: int, places: int = 2) -> NumberTex | MathTex:
        """The number v typeset for cell (i, j) (each distinct text built once, then copied)."""
        tex = tex_number(v, places, pad=True)
        if tex not in self._made:
            t = number_tex(tex, font_size=self.number_size)
            if t.width > self.cell_width * 0.9:
                t.scale_to_fit_width(self.cell_width * 0.9)
            self._made[tex] = t
        return self._made[tex].copy().move_to(self.cell_at(i, j))

    def shown(self) -> list[list[str]]:
        """The TeX of every number on screen, row by row."""
        texts = [n.get_tex_string() for n in self.numbers]
        return [texts[i * self.m:(i + 1) * self.m] for i in range(self.n)]


def bar_values(chart: BarChart) -> np.ndarray:
    """The values a manim BarChart draws: bar heights over the y unit, signed
    by which side of the zero line the bar stands."""
    zero = chart.c2p(0, 0)[1]
    unit = chart.y_axis.unit_size
    return np.array([(1 if bar.get_center()[1] >= zero else -1) * bar.height / unit for bar in chart.bars])
