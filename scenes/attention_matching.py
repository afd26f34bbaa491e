"""Scene 8, AttentionMatching: softmax(Q K^T / sqrt(d_k)) V, one piece at a time.

Every cell of the grid is a value of ``qkv_math.attention_steps`` (scores,
scaled scores, the optional causal mask, weights); the output row of the
lesson's query token is the weighted sum of the value vectors.  Row vectors:
Q = X W_Q, K = X W_K, V = X W_V, one row per token.

    manim -ql scenes/attention_matching.py AttentionMatching
"""
from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Circumscribe,
    FadeIn,
    FadeOut,
    Indicate,
    Line,
    MathTex,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
    Write,
    config,
)

import qkv_math as qm
from scenes.kit import palette
from scenes.kit.charts import NumberGrid, TraitBars
from scenes.kit.displays import text, title
from scenes.kit.numbers import plain_number, tex_number
from scenes.kit.scene import LessonScene
from scenes.kit.wrap import wrapped_text

FORMULA = (r"\mathrm{softmax}", r"\Big(", r"Q", r"K^{\top}", r"/\sqrt{d_k}", r"\Big)", r"V")
MAX_LINE = 14.0  # stroke width of a line of weight 1


class AttentionMatching(LessonScene):
    def construct(self):
        p, lang = self.params, self.lang
        Q, K, V = qm.project(*p.arrays())
        n = len(p.tokens)
        mask = qm.causal_mask(n) if p.causal_mask else None
        T = float(p.temperature)
        steps = qm.attention_steps(Q, K, V, mask=mask, temperature=T)
        names = [t.name(lang) for t in p.tokens]
        qi = p.query

        heading = title(self.tr("title"), lang)
        formula = MathTex(*FORMULA, font_size=44).to_corner(UR, buff=0.4)
        for part, role in ((2, "Q"), (3, "K"), (6, "V")):
            formula[part].set_color(palette.QKV[role])
        cell = min(1.05, 4.6 / n)   # the grid and its axis label stay above the subtitles
        grid = NumberGrid(names, names, lang, cell=cell, size=30 if n <= 4 else 24)
        grid.next_to(heading, DOWN, buff=0.9).align_to(heading, LEFT).shift(RIGHT * (grid.row_labels.width + 0.2))
        axis_q = text(self.tr("rows"), lang, size=20, color=palette.Q_GOLD)
        axis_q.next_to(grid.row_labels, DOWN, buff=0.25).align_to(grid.row_labels, RIGHT)
        axis_k = text(self.tr("cols"), lang, size=20, color=palette.K_TEAL)
        axis_k.next_to(grid.col_labels, UP, buff=0.15).align_to(grid.cells, LEFT)
        step_label = text(" ", lang, size=28)

        # steps are written right of the grid and its row sums
        step_width = config.frame_width / 2 - 0.4 - (grid.get_right()[0] + 0.9)

        def set_step(key, **fields):
            new = wrapped_text(self.tr(key, **fields), lang, size=28, width=step_width,
                               color=palette.AREA)
            new.next_to(formula, DOWN, buff=0.35).align_to(formula, RIGHT)
            self.play(FadeOut(self.step_label), FadeIn(new), run_time=0.4)
            self.step_label = new

        def highlight(*parts):
            box = SurroundingRectangle(VGroup(*[formula[i] for i in parts]), color=palette.AREA, buff=0.06)
            self.play(FadeIn(box), run_time=0.3)
            return box

        def show(M, places=2):
            old = grid.numbers
            new = grid.make_numbers(M, places)
            if len(old):
                self.play(ReplacementTransform(old, new), run_time=0.9)
            else:
                self.play(FadeIn(new, lag_ratio=0.05), run_time=1.0)

        self.step_label = step_label
        with self.beat("intro_say"):
            self.play(Write(heading), FadeIn(formula), run_time=1.0)
            self.play(FadeIn(grid), FadeIn(axis_q), FadeIn(axis_k), run_time=1.0)

        box = None
        with self.beat("scores_say", d=Q.shape[1]):
            set_step("scores")
            box = highlight(2, 3)
            show(steps.scores)
            self.play(Circumscribe(grid.cell_at(qi, int(np.argmax(steps.scores[qi]))), color=palette.AREA),
                      run_time=1.0)
        self.key_moment("scores", shown=grid.shown(), values=grid.values.copy())

        root = plain_number(math.sqrt(Q.shape[1]), 2, pad=True)
        with self.beat("scale_say", d=Q.shape[1], root=root):
            self.play(FadeOut(box), run_time=0.2)
            set_step("scale", root=root)
            box = highlight(4)
            show(steps.scaled)
        self.key_moment("scaled", shown=grid.shown(), values=grid.values.copy())

        if mask is not None:
            with self.beat("mask_say"):
                self.play(FadeOut(box), run_time=0.2)
                set_step("mask")
                box = highlight(4)
                show(steps.masked)
            self.key_moment("masked", shown=grid.shown(), values=grid.values.copy())

        sums = VGroup()
        with self.beat("softmax_say", focus=sums):
            self.play(FadeOut(box), run_time=0.2)
            set_step("softmax" if T == 1 else "softmax_t", t=plain_number(T, 2, pad=True))
            box = highlight(0, 1, 5)
            show(steps.weights)
            shades = [grid.cell_at(i, j).animate.set_fill(palette.Q_GOLD, opacity=0.75 * steps.weights[i, j])
                      for i in range(n) for j in range(n)]
            sum_head = MathTex(r"\Sigma", font_size=28, color=palette.MUTED)
            sum_head.next_to(grid.cells[n - 1], RIGHT, buff=0.25).match_y(grid.col_labels[0])
            for i in range(n):
                s = MathTex(tex_number(float(steps.weights[i].sum()), 2, pad=True), font_size=24,
                            color=palette.MUTED)
                sums.add(s.next_to(grid.cell_at(i, n - 1), RIGHT, buff=0.2))
            self.play(*shades, FadeIn(sums), FadeIn(sum_head), run_time=1.2)
        self.key_moment("weights", shown=grid.shown(), values=grid.values.copy(),
                        sums=[s.get_tex_string() for s in sums])

        # --- the query's row: lines by weight, and the weighted sum of values -
        with self.beat("output_say", word=names[qi]):
            self.play(FadeOut(box), run_time=0.2)
            set_step("output", word=names[qi])
            box = highlight(6)
            row_box = SurroundingRectangle(VGroup(*[grid.cell_at(qi, j) for j in range(n)]),
                                           color=palette.Q_GOLD, buff=0.04)
            self.play(FadeIn(row_box), run_time=0.4)
            left_x = grid.get_right()[0] + 1.4
            top_y = self.step_label.get_bottom()[1] - 0.4
            gap = min(0.56, 2.4 / max(n - 1, 1))
            src = text(names[qi], lang, size=32, color=palette.Q_GOLD)
            src.move_to([left_x + 0.3, top_y - gap * (n - 1) / 2, 0])
            targets = VGroup(*[text(nm, lang, size=28, color=palette.K_TEAL).move_to(
                [left_x + 3.2, top_y - gap * j, 0], aligned_edge=LEFT) for j, nm in enumerate(names)])
            lines = VGroup(*[Line(src.get_right() + RIGHT * 0.1, targets[j].get_left() + LEFT * 0.1,
                                  color=palette.V_CORAL,
                                  stroke_width=max(0.5, MAX_LINE * float(steps.weights[qi, j])))
                             for j in range(n)])
            self.play(FadeIn(src), FadeIn(targets), run_time=0.5)
            self.play(*[FadeIn(l) for l in lines], run_time=1.0)
            out = steps.output[qi]
            v_dims = [d.name(lang) for d in p.v_dims]
            out_head = MathTex(r"\textstyle\sum_j w_j\, v_j", font_size=34, color=palette.V_CORAL)
            bars = TraitBars(v_dims, out, lang, palette.V_CORAL, unit=1.2, row=0.42, size=24)
            out_group = VGroup(out_head, bars).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
            bars.shift(RIGHT * (bars.labels.width + 0.15))
            out_group.next_to(VGroup(src, targets), DOWN, buff=0.3).align_to(src, LEFT)
            self.play(FadeIn(out_head), FadeIn(bars.labels), FadeIn(bars.axis), run_time=0.5)
            self.play(*bars.grow(), run_time=1.0)
            best = int(np.argmax(steps.weights[qi]))
            self.play(Indicate(targets[best], color=palette.AREA), run_time=0.8)
        self.key_moment("output", shown=grid.shown(),
                        line_weights=[l.get_stroke_width() / MAX_LINE for l in lines],
                        output=bars.shown_values(), best=names[best])
        # the dimension on which the query and the winning key agree most
        dim = p.qk_dims[int(np.argmax(Q[qi] * K[best]))].name(lang)
        with self.beat("outro_say", focus=targets[best], word=names[qi], best=names[best], dim=dim):
            self.play(FadeOut(box), run_time=0.3)
            self.wait(0.5)
        self.key_moment("end")
