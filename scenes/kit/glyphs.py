"""Numbers drawn fast: typeset glyphs shared by every number (one LaTeX run
for the digits, point and minus), ``FastDecimal`` readouts that change each
frame, ``number_tex`` for a lone number, ``set_shown`` for a readout."""
from __future__ import annotations

import re
from typing import Any

import numpy as np
from manim import ORIGIN, SCALE_FACTOR_PER_FONT_POINT, DecimalNumber, MathTex, VGroup, VMobject
from manim.mobject.text import numbers as manim_numbers


def _light_copy(mob: VMobject) -> VMobject:
    """A copy of a glyph with its own points, colour arrays and submobject
    list and every other attribute shared (none is changed in place on a
    glyph): manim's deep copy, or even a fresh VMobject, costs a millisecond
    per glyph, and live readouts rebuild glyphs every frame."""
    new = VMobject.__new__(VMobject)
    new.__dict__.update(mob.__dict__)
    new.points = mob.points.copy()
    for name in ("fill_rgbas", "stroke_rgbas", "background_stroke_rgbas"):
        if name in mob.__dict__:
            setattr(new, name, getattr(mob, name).copy())
    new.submobjects = [_light_copy(s) for s in mob.submobjects]
    new.updaters = []
    return new


NUMBER_GLYPHS = "0123456789.-"


def _number_glyphs() -> dict[str, MathTex]:
    """``MathTex(c)`` for each character of a plain number, all from one LaTeX
    run (each alone is a run of a quarter second): the same points (to 1e-14,
    tested), each centred at the origin with MathTex's ``font_size``."""
    batch = MathTex(*NUMBER_GLYPHS)
    size = batch.font_size
    parts, batch.submobjects = batch.submobjects, []
    glyphs = {}
    for char, part in zip(NUMBER_GLYPHS, parts):
        glyph = batch.copy()
        glyph.submobjects = [part]
        glyph.tex_string, glyph.tex_strings = char, [char]
        # its own part only: copies (manim's DecimalNumber copies a glyph per
        # character) must not drag the other eleven along
        glyph.matched_strings_and_ids = [(char, "unique000")]
        glyph.id_to_vgroup_dict = {"root": part, "unique000": part}
        glyph.move_to(ORIGIN)
        # as MathTex(char) sets it: its height at font size 1 / SCALE_FACTOR
        glyph.initial_height = glyph.height / (size * SCALE_FACTOR_PER_FONT_POINT)
        glyphs[char] = glyph
    return glyphs


def share_number_glyphs() -> None:
    """Typeset the number glyphs once (one LaTeX run) for every number drawn
    from glyphs: ``FastDecimal``'s and manim's own ``DecimalNumber`` (axis
    and bar-chart numbers), whose glyph cache, ``string_to_mob_map``, would
    otherwise hold ``MathTex(c)`` typeset one run per character.  Entries
    already there are kept."""
    if FastDecimal.glyph_key(MathTex, NUMBER_GLYPHS[0]) in FastDecimal._glyphs:
        return
    for char, glyph in _number_glyphs().items():
        FastDecimal._glyphs.setdefault(FastDecimal.glyph_key(MathTex, char), glyph)
        manim_numbers.string_to_mob_map.setdefault(char, glyph)


class FastDecimal(DecimalNumber):
    """DecimalNumber whose glyphs are light copies: same look, far cheaper
    ``set_value`` (used by every readout that changes each frame)."""

    _glyphs: dict = {}

    @staticmethod
    def glyph_key(mob_class: type, string: str, **kwargs: Any) -> tuple:
        return mob_class, string, tuple(sorted((k, str(v)) for k, v in kwargs.items()))

    def _string_to_mob(self, string, mob_class=None, **kwargs):
        mob_class = mob_class or self.mob_class
        key = self.glyph_key(mob_class, string, **kwargs)
        if key not in self._glyphs:
            share_number_glyphs()      # once a process: the digits, point and minus
        if key not in self._glyphs:
            self._glyphs[key] = mob_class(string, **kwargs)
        template = self._glyphs[key]
        mob = _light_copy(template)
        mob.scale(self._font_size / template.font_size)
        return mob

    _layouts: dict = {}

    def set_value(self, number: float) -> FastDecimal:
        """``DecimalNumber.set_value`` with the same result (points and
        colours; tested against it), far cheaper: each shown text is laid
        out once (manim arranges the glyphs anew every time), then copied
        with one scale and shift, keeping the number's height and its
        ``edge_to_fix`` as manim does; the glyphs take the number's own fill,
        stroke, outline and sheen, where manim's ``init_colors`` leaves them."""
        if self.unit is not None or self.show_ellipsis or self.include_background_rectangle or not self.submobjects:
            return super().set_value(number)
        edge = np.asarray(self.edge_to_fix, dtype=float)
        key = (self._get_num_string(number), self._font_size, self.digit_buff_per_font_unit, self.mob_class,
               tuple(edge))
        old_family = self.get_family()
        height, anchor = self.height, self.get_critical_point(edge)
        if key not in self._layouts:
            old = self.submobjects
            self._set_submobjects_from_number(number)          # manim's layout, at the base font size
            laid = VGroup(*self.submobjects)
            self._layouts[key] = (self.submobjects, laid.height, laid.get_critical_point(edge))
            self.submobjects = old
        glyphs, laid_height, laid_anchor = self._layouts[key]
        if laid_height <= 0:
            return super().set_value(number)
        k = height / laid_height
        self.number = number
        self.submobjects = [_light_copy(g) for g in glyphs]
        for mob in self.family_members_with_points():
            mob.points = (mob.points - laid_anchor) * k + anchor
        for mob in old_family:   # as manim does: the old glyphs, still in a running
            mob.points[:] = 0    # animation's list, draw nothing
        self.set_fill(self.fill_color, self.fill_opacity, family=False)
        self.set_stroke(self.stroke_color, self.stroke_width, self.stroke_opacity, family=False)
        self.set_background_stroke(color=self.background_stroke_color, width=self.background_stroke_width,
                                   opacity=self.background_stroke_opacity, family=False)
        style = {"fill_opacity": self.fill_opacity, "stroke_width": self.stroke_width,
                 "background_stroke_width": self.background_stroke_width, "sheen_factor": self.sheen_factor,
                 "sheen_direction": self.sheen_direction}
        for mob in self.get_family()[1:]:
            mob.fill_rgbas = self.fill_rgbas.copy()
            mob.stroke_rgbas = self.stroke_rgbas.copy()
            mob.background_stroke_rgbas = self.background_stroke_rgbas.copy()
            mob.__dict__.update(style)
        return self


_PLAIN_DECIMAL = re.compile(r"-?\d+(?:\.\d+)?")


class NumberTex(FastDecimal):
    """A plain decimal written in TeX ("0.87", "-1.25", "100") drawn as
    manim's DecimalNumber draws numbers: from one typeset glyph per
    character, shared by every number, so a grid of numbers costs no LaTeX
    run per number (each took a quarter second).  ``get_tex_string()``
    returns ``tex``, as MathTex's does.  Build one with ``number_tex``."""

    def __init__(self, tex: str, font_size: float = 48, **kw: Any):
        self.tex_string = tex
        super().__init__(float(tex), num_decimal_places=len(tex.partition(".")[2]), group_with_commas=False,
                         font_size=font_size, **kw)

    def get_tex_string(self) -> str:
        return self.tex_string


def number_tex(tex: str, **kw: Any) -> NumberTex | MathTex:
    """A lone number's TeX (from ``tex_number``) as a mobject: a NumberTex
    for a plain decimal, a MathTex for anything else (a fraction, -\\infty, a
    parenthesised negative, a number float cannot hold digit for digit).
    Takes MathTex's keywords (``font_size``, ``color``)."""
    if _PLAIN_DECIMAL.fullmatch(tex) and len(tex) <= 15 and f"{float(tex):.{len(tex.partition('.')[2])}f}" == tex:
        return NumberTex(tex, **kw)
    return MathTex(tex, **kw)


def set_shown(num: DecimalNumber, value: float) -> None:
    """Set a readout's value, rebuilding its glyphs only when the shown text
    changes (its ``edge_to_fix`` stays in place)."""
    if num._get_num_string(value) != num._get_num_string(num.get_value()):
        num.set_value(value)
    num.number = value  # what get_value() reads back
