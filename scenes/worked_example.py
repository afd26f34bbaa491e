"""Scene 6, WorkedExample: y = x W written out term by term, exactly.

For each output column j of W the products x_i * W_ij and their sum come from
``qkv_math.worked_product`` (Fractions when the lesson's numbers are
rational); then each output is shown as a glass mixing the inputs in the
proportions of W's column.  Row vectors: x has shape (n,), W (n, m).

    manim -ql scenes/worked_example.py WorkedExample
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    DashedVMobject,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Line,
    MathTex,
    Rectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    Write,
)

import qkv_math as qm
from qkv_lens.lesson import written_as_fraction
from qkv_lens.lesson.keys import MAX_ENTRIES, Matrix, Params, Vector
from scenes.kit import palette
from scenes.kit.displays import matrix_mob, text, title
from scenes.kit.numbers import column_tex, plain_vector, tex_number
from scenes.kit.scene import LessonScene

LINES_BOTTOM = -2.95   # lowest the block of arithmetic lines may reach (above the subtitles)
BASELINE = -2.4        # bottom of the glasses: their recipes go below, above the subtitles
GLASS_HEIGHT = 2.8     # tallest stack of a glass, in scene units


class WorkedExampleParams(Params):
    """[worked_example]: y = x W written out term by term (row vectors)."""
    section = "worked_example"
    x: tuple[Fraction, ...] = Vector("entry", most=MAX_ENTRIES, doc="the input row vector")
    W: tuple[tuple[Fraction, ...], ...] = Matrix("entry", rows="x", doc="one row per entry of x, one column "
                                                 "per output")


class WorkedExample(LessonScene):
    params: WorkedExampleParams
    chapter = 1
    number = 6
    def construct(self):
        lang = self.lang
        x, W = self.params.x, self.params.W
        work = qm.worked_product(x, W)
        # numbers written as fractions in the lesson ("1/2") stay fractions on screen
        frac = written_as_fraction((x, W))
        n, m = len(x), len(W[0])
        ing = [palette.INGREDIENTS[i % len(palette.INGREDIENTS)] for i in range(n)]
        cols = [palette.COLUMNS[j % len(palette.COLUMNS)] for j in range(m)]

        heading = title(self.tr("title"), lang)
        x_mat = matrix_mob([x], col_colors=ing, font_size=52, fractions=frac)
        w_mat = matrix_mob(W, font_size=52, fractions=frac)
        y_mat = matrix_mob([work.result], col_colors=cols, font_size=52, fractions=frac)
        for entry in y_mat.get_entries():
            entry.set_opacity(0)
        eq = MathTex("=", font_size=56)
        product = VGroup(x_mat, w_mat, eq, y_mat).arrange(RIGHT, buff=0.3)
        names = VGroup(*[MathTex(s, font_size=40, color=palette.MUTED).next_to(mob, DOWN, buff=0.15)
                         for s, mob in (("x", x_mat), ("W", w_mat), ("y", y_mat))])
        top = VGroup(product, names)
        top.next_to(heading, DOWN, buff=0.35).set_x(0)
        if top.width > 13:
            top.scale_to_fit_width(13)

        with self.beat("intro_say", n=n, m=m):
            self.play(Write(heading), run_time=0.8)
            self.play(FadeIn(x_mat), FadeIn(w_mat), FadeIn(eq), FadeIn(y_mat), FadeIn(names),
                      run_time=1.2)
        self.key_moment("start", x=[e.get_tex_string() for e in x_mat.get_entries()],
                        W=[[e.get_tex_string() for e in row] for row in w_mat.get_rows()])

        # --- one output column at a time -----------------------------------
        lines = VGroup()
        for j, col in enumerate(work.columns):
            label = text(self.tr("column", j=j + 1), lang, size=32, color=cols[j])
            line = MathTex(column_tex(col, frac), font_size=52, color=cols[j])
            lines.add(VGroup(label, line).arrange(RIGHT, buff=0.4))
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        lines.next_to(top, DOWN, buff=0.6)
        room = lines.get_top()[1] - LINES_BOTTOM
        if lines.height > room or lines.width > 13:
            lines.scale(min(room / lines.height, 13 / lines.width), about_edge=UP)
        lines.set_x(0)

        y_entries = y_mat.get_entries()
        w_cols = w_mat.get_columns()
        for j in range(len(work.columns)):
            box_w = SurroundingRectangle(w_cols[j], color=cols[j], buff=0.1)
            box_x = SurroundingRectangle(x_mat.get_entries(), color=cols[j], buff=0.1)
            with self.beat("column_say", focus=lines[j], j=j + 1):
                self.play(FadeIn(box_w), FadeIn(box_x),
                          *[e.animate.set_color(cols[j]) for e in w_cols[j]], run_time=0.6)
                self.play(Write(lines[j]), run_time=1.6)
                shown = y_entries[j].copy().set_opacity(1)
                self.play(TransformFromCopy(lines[j][1][0][-len(shown[0]):], shown), run_time=0.8)
                y_entries[j].set_opacity(1)
                self.remove(shown)
                self.play(FadeOut(box_w), FadeOut(box_x), run_time=0.4)
        result_text = plain_vector(work.result, fractions=frac)
        with self.beat("result_say", result=result_text):
            self.play(*[e.animate.scale(1.15) for e in y_entries], run_time=0.5)
            self.play(*[e.animate.scale(1 / 1.15) for e in y_entries], run_time=0.5)
        self.key_moment("columns", lines=[l[1].get_tex_string() for l in lines],
                        result=[e.get_tex_string() for e in y_entries if e.get_fill_opacity() > 0])

        # --- each output is a glass mixed by W's column --------------------
        self.play(FadeOut(lines), run_time=0.6)
        glasses, levels, unit = self._glasses(work, ing, cols, ceiling=top.get_bottom()[1] - 0.6, fractions=frac)
        heading = text(self.tr("cocktail"), lang, size=32, color=palette.AREA)
        heading.to_corner(UP + RIGHT, buff=0.35)
        # "a negative amount pours some out": the poured-out blocks, if any
        poured = next((g["remove"] for g in glasses if len(g["remove"])), None)
        with self.beat("cocktail_say", focus=poured):
            self.play(FadeIn(heading), run_time=0.6)
            for g in glasses:
                self.play(FadeIn(g["glass"]), FadeIn(g["recipe"]), run_time=0.4)
                if len(g["add"]):     # a column whose products are all zero or negative pours nothing in
                    self.play(*[GrowFromEdge(layer, DOWN) for layer in g["add"]],
                              *[FadeIn(a) for a in g["amounts"] if not a.poured], run_time=0.8)
                if len(g["remove"]):
                    self.play(FadeIn(g["remove"]), *[FadeIn(a) for a in g["amounts"] if a.poured], run_time=0.6)
                self.play(FadeIn(g["level"]), FadeIn(g["value"]), run_time=0.4)
        self.key_moment("cocktail", levels=levels,
                        values=[g["value"].get_tex_string() for g in glasses],
                        amounts=[[(a.get_tex_string(), a.get_color().to_hex()) for a in g["amounts"]]
                                 for g in glasses],
                        layers=[[(r.height / unit, r.get_fill_color().to_hex()) for r in g["add"]]
                                for g in glasses],
                        recipes=[g["recipe"].get_tex_string() for g in glasses])
        outro = text(self.tr("outro"), lang, size=30, color=palette.AREA).move_to(heading)
        with self.beat("outro_say", focus=w_mat):
            self.play(FadeOut(heading), FadeIn(outro), run_time=0.8)
            self.wait(1.0)
        self.key_moment("end")

    def _glasses(self, work: qm.WorkedProduct, ing, cols, ceiling: float, fractions: bool = False):
        """One glass per output: positive products stacked up from the
        baseline, negative ones drawn as dashed 'poured out' blocks from the
        top down; a level line at the sum; beside each layer, its amount.
        Returns the glasses, the level of each (in value units, read back
        from the drawing) and the scene units per value unit.  Glass tops
        stay below ``ceiling``."""
        m = len(work.columns)
        pos = [sum(float(t.product) for t in c.terms if t.product > 0) for c in work.columns]
        low = [min(0.0, float(c.total)) for c in work.columns]
        span = max(max(pos), 1e-9) - min(low)
        unit = min(GLASS_HEIGHT, ceiling - 0.15 - BASELINE) / span
        base = BASELINE - min(low) * unit
        spacing = min(3.2, 12.0 / m)
        width = min(1.3, spacing - 0.6)
        xs = np.linspace(-(m - 1) / 2, (m - 1) / 2, m) * spacing
        glasses, levels = [], []
        for j, col in enumerate(work.columns):
            cx = xs[j]
            add, remove, amounts = VGroup(), VGroup(), VGroup()
            top = 0.0
            for i, t in enumerate(col.terms):
                p = float(t.product)
                if p > 0:
                    layer = Rectangle(width=width, height=p * unit, stroke_width=0,
                                      fill_color=ing[i], fill_opacity=0.85)
                    add.add(layer.move_to([cx, base + (top + p / 2) * unit, 0]))
                    # how much of ingredient i goes in, on the glass's left
                    amounts.add(self._amount(t.product, ing[i], fractions, layer, LEFT))
                    amounts[-1].poured = False
                    top += p
            cur = top
            for i, t in enumerate(col.terms):
                p = float(t.product)
                if p < 0:
                    block = Rectangle(width=width, height=-p * unit, stroke_width=0,
                                      fill_color=palette.PANEL, fill_opacity=0.75)
                    block.move_to([cx, base + (cur + p / 2) * unit, 0])
                    edge = DashedVMobject(Rectangle(width=width, height=-p * unit,
                                                    color=ing[i], stroke_width=3).move_to(block))
                    remove.add(VGroup(block, edge))
                    # how much is poured out, on the glass's right
                    amounts.add(self._amount(t.product, ing[i], fractions, block, RIGHT))
                    amounts[-1].poured = True
                    cur += p
            # amounts too close to fit one above the other are left out (the recipe still names them)
            kept = VGroup()
            for a in amounts:
                if all(abs(a.get_y() - b.get_y()) > (a.height + b.height) / 2 + 0.05
                       or np.sign(a.get_x() - cx) != np.sign(b.get_x() - cx) for b in kept):
                    kept.add(a)
            amounts = kept
            level_y = base + float(col.total) * unit
            glass = VGroup(Line([cx - width / 2 - 0.08, base + max(pos) * unit + 0.15, 0],
                                [cx - width / 2 - 0.08, base, 0]),
                           Line([cx - width / 2 - 0.08, base, 0], [cx + width / 2 + 0.08, base, 0]),
                           Line([cx + width / 2 + 0.08, base, 0],
                                [cx + width / 2 + 0.08, base + max(pos) * unit + 0.15, 0]))
            glass.set_stroke(palette.INK, 3)
            level = Line([cx - width / 2 - 0.2, level_y, 0], [cx + width / 2 + 0.2, level_y, 0],
                         color=cols[j], stroke_width=5)
            value = MathTex(f"y_{{{j + 1}}} = {tex_number(col.total, fractions=fractions)}", font_size=40,
                            color=cols[j])
            value.next_to(glass, UP, buff=0.12)
            # the recipe: W's column, each weight before its ingredient in the ingredient's colour
            parts: list[str] = []
            for i, t in enumerate(col.terms):
                parts += [("+ " if i else "") + tex_number(t.w, paren_negative=i > 0, fractions=fractions) + r"\,",
                          f"x_{{{i + 1}}}"]
            recipe = MathTex(*parts, font_size=36, color=cols[j])
            for i in range(len(col.terms)):
                recipe[2 * i + 1].set_color(ing[i])
            recipe.next_to([cx, BASELINE, 0], DOWN, buff=0.15)
            if recipe.width > spacing - 0.25:
                recipe.scale_to_fit_width(spacing - 0.25)
            glasses.append(dict(glass=glass, add=add, remove=remove, level=level,
                                value=value, recipe=recipe, amounts=amounts))
            levels.append((level.get_center()[1] - base) / unit)
        return glasses, levels, unit

    @staticmethod
    def _amount(product, colour, fractions: bool, block, side) -> MathTex:
        """The amount ``product`` written beside ``block`` (on ``side``) in the ingredient's colour."""
        tex = tex_number(product, fractions=fractions)
        size = 40 if r"\tfrac" in tex else 32     # a fraction's digits are smaller
        return MathTex(tex, font_size=size, color=colour).next_to(block, side, buff=0.3)
