"""A product y = x M worked out one output at a time.

Row vectors: x has shape (n,), M (n, m); output j is x times column j of M.
``qkv_math.worked_product`` gives each column's terms, ``column_line`` sets
one column's arithmetic as TeX (``qkv_lens.numbers.column_parts``: the
factors x_i times M_ij, the products, the total) and ``write_column``
writes that line, then flies its total into y's entry, which was hidden
until then (opacity 0).

    import qkv_math as qm
    from manim import Scene, VGroup, DOWN
    from scenes.kit.matrices import matrix_mob
    from scenes.kit.worked import column_line, write_column

    class Worked(Scene):
        def construct(self):
            x, M = [1, 2], [[3, 0], [1, 1]]
            work = qm.worked_product(x, M)
            y = matrix_mob([work.result])
            lines = VGroup(*[column_line(c, 36, "#FFFFFF") for c in work.columns])
            lines.arrange(DOWN).next_to(y, DOWN)
            y.get_entries().set_opacity(0)
            self.add(y)
            for line, entry in zip(lines, y.get_entries()):
                write_column(self, line, entry, 1.4, 0.7)
"""
from __future__ import annotations

from typing import Literal

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    FadeIn,
    MathTex,
    Mobject,
    ParsableManimColor,
    ReplacementTransform,
    Scene,
    TransformFromCopy,
    VGroup,
    Write,
)

from qkv_lens.numbers import column_parts, column_tex, tex_number
from qkv_math import WorkedColumn


def column_line(col: WorkedColumn, font_size: float, color: ParsableManimColor, fractions: bool = False,
                form: Literal["whole", "ends", "split"] = "whole") -> MathTex:
    """One output's arithmetic in ``color``: ``whole`` all of it on one row
    (factors = products = total), ``ends`` the factors = the total, ``split``
    the factors on one row and ``= products = total`` under them (two parts
    of the MathTex).  ``fractions`` writes non-integers as fractions."""
    if form == "split":
        parts = column_parts(col, fractions)
        line = MathTex(parts[0], "= " + " = ".join(parts[1:]), font_size=font_size, color=color)
        line[1].next_to(line[0], DOWN, aligned_edge=LEFT, buff=0.25).shift(0.5 * RIGHT)
        return line
    if form == "ends":
        parts = column_parts(col, fractions)
        return MathTex(" = ".join(parts[::len(parts) - 1]), font_size=font_size, color=color)
    return MathTex(column_tex(col, fractions), font_size=font_size, color=color)


def write_column(scene: Scene, line: Mobject, entry: Mobject, write_time: float, land_time: float,
                 *also: Animation, tex: MathTex | None = None) -> None:
    """Write ``line`` (one output's arithmetic, or a group that holds it as
    ``tex``), then fly the total at its end into ``entry`` (a copy lands
    and the entry shows), with the animations ``also`` alongside."""
    tex = line if tex is None else tex
    scene.play(Write(line), run_time=write_time)
    shown = entry.copy().set_opacity(1)
    scene.play(TransformFromCopy(tex[-1][-len(shown[0]):], shown), *also, run_time=land_time)
    entry.set_opacity(1)
    scene.remove(shown)


def term_line(col: WorkedColumn, font_size: float, color: ParsableManimColor, fractions: bool = False,
              split: bool = False) -> MathTex:
    """``column_line(form="whole")`` with each factor its own part, so each can
    be flown in from where it stands (``slide_column``): per term
    ``[+] x_i \\times w_ij``, then ``= products`` (when written) and ``= total``.
    Its TeX is ``column_tex``'s.  ``split``: the factors on one row, the
    sums under them (as ``column_line(form="split")`` lays them out)."""
    parts: list[str] = []
    for i, t in enumerate(col.terms):
        if i:
            parts.append("+")
        parts += [tex_number(t.x, paren_negative=i > 0, fractions=fractions), r"\times",
                  tex_number(t.w, paren_negative=True, fractions=fractions)]
    rest = column_parts(col, fractions)[1:]
    for part in rest:
        parts += ["=", part]
    line = MathTex(*parts, font_size=font_size, color=color)
    n = line.terms = len(col.terms)
    if split:
        VGroup(*line[4 * n - 1:]).next_to(VGroup(*line[:4 * n - 1]), DOWN, aligned_edge=LEFT,
                                          buff=0.25).shift(0.5 * RIGHT)
    return line


def _beside(mob: Mobject, target: Mobject, avoid: list[Mobject]) -> np.ndarray:
    """Where ``mob`` stands next to ``target`` (left of it, else right, above,
    below) clear of ``target`` and of every one of ``avoid``: its centre."""
    def clear(c: np.ndarray) -> bool:
        half = np.array([mob.width, mob.height]) / 2 + 0.03
        return all(abs(c[0] - o.get_x()) >= half[0] + o.width / 2 or abs(c[1] - o.get_y()) >= half[1] + o.height / 2
                   for o in [target, *avoid])

    for side in (LEFT, RIGHT, UP, DOWN):
        size = mob.width if side[0] else mob.height
        c = target.get_center() + side * ((target.width if side[0] else target.height) / 2 + size / 2 + 0.08)
        if clear(c):
            return c
    return target.get_center() + LEFT * (target.width / 2 + mob.width / 2 + 0.08)


def slide_column(scene: Scene, line: MathTex, xs: list[Mobject], ws: list[Mobject], entry: Mobject,
                 slide_time: float = 0.7, sum_time: float = 1.0, land_time: float = 0.8,
                 avoid: list[Mobject] | None = None) -> list[tuple]:
    """A ``term_line`` worked out where it is read: a copy of each x_i slides
    up beside w_ij (its column's entry in W; clear of it and of ``avoid``,
    the other entries), then the pair drops into the line as
    ``x_i \\times w_ij``; the sums are written (row by row when the line is
    split) and the total flies into ``entry`` (hidden until then).  Returns
    each x_i's copy's box where it landed and the box of its w_ij."""
    n = line.terms
    landed = []
    for i in range(n):
        x_copy = xs[i].copy()
        scene.add(x_copy)
        scene.play(x_copy.animate.move_to(_beside(x_copy, ws[i], avoid or [])), run_time=slide_time)
        landed.append((_box(x_copy), _box(ws[i])))
        k = 4 * i                          # term i's parts: [+] x \times w
        parts = ([line[k - 1]] if i else []) + [line[k], line[k + 1], line[k + 2]]
        x_part, times, w_part = parts[-3:]
        scene.play(ReplacementTransform(x_copy, x_part), TransformFromCopy(ws[i], w_part),
                   FadeIn(times), *[FadeIn(p) for p in parts[:-3]], run_time=slide_time)
    scene.play(Write(VGroup(*line[4 * n - 1:])), run_time=sum_time)   # the sums, after every term
    shown = entry.copy().set_opacity(1)
    scene.play(TransformFromCopy(line[-1], shown), run_time=land_time)
    entry.set_opacity(1)
    scene.remove(shown)
    return landed


def _box(mob: Mobject) -> tuple[float, float, float, float]:
    return (mob.get_left()[0], mob.get_bottom()[1], mob.get_right()[0], mob.get_top()[1])
