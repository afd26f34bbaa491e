"""Scene 7, QKVProjection: one word, three filters.

The focus token's embedding x (a row over named traits) is multiplied by
W_Q, W_K and W_V (heat-maps, one row per trait) into q, k and v, each drawn
as labelled bars in its own colour.  All numbers from ``qkv_math.project``.

    manim -ql scenes/qkv_projection.py QKVProjection
"""
from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    FadeIn,
    FadeOut,
    Indicate,
    MathTex,
    SurroundingRectangle,
    VGroup,
    Write,
)

import qkv_math as qm
from scenes.kit import palette
from scenes.kit.charts import HeatMap, TraitBars
from scenes.kit.displays import text, title
from scenes.kit.scene import LessonScene

ROLES = tuple((role.lower(), f"W_{role}", color) for role, color in palette.QKV.items())  # ("q", "W_Q", gold), ...


class QKVProjection(LessonScene):
    def construct(self):
        p, lang = self.params, self.lang
        X, *Ws = p.arrays()
        mats = dict(zip(("W_Q", "W_K", "W_V"), Ws))
        Q, K, V = qm.project(X, *Ws)
        x = X[p.focus]
        results = {"q": Q[p.focus], "k": K[p.focus], "v": V[p.focus]}
        word = p.tokens[p.focus].name(lang)
        traits = [t.name(lang) for t in p.traits]
        dims = {"q": [d.name(lang) for d in p.qk_dims], "k": [d.name(lang) for d in p.qk_dims],
                "v": [d.name(lang) for d in p.v_dims]}

        heading = title(self.tr("title"), lang)
        word_label = VGroup(text(word, lang, size=40, color=palette.EMBED),
                            MathTex(r"x", font_size=44, color=palette.EMBED)).arrange(RIGHT, buff=0.3)
        row = 0.46 if len(traits) <= 8 else 3.7 / len(traits)
        x_bars = TraitBars(traits, x, lang, palette.EMBED, unit=1.1, row=row)
        left = VGroup(word_label, x_bars).arrange(DOWN, aligned_edge=LEFT, buff=0.35)
        left.next_to(heading, DOWN, aligned_edge=LEFT, buff=0.45)
        x_bars.align_to(heading, LEFT).shift(RIGHT * (x_bars.labels.width + 0.2))

        with self.narration("intro_say", word=word):
            self.play(Write(heading), run_time=0.8)
            self.play(FadeIn(word_label), FadeIn(x_bars.labels), FadeIn(x_bars.axis), run_time=0.8)
            self.play(*x_bars.grow(), run_time=1.2)
        self.key_moment("embedding", x=x_bars.shown_values())

        # The q, k, v column on the right, laid out whole before anything shows.
        right = {}
        for name, _, color in ROLES:
            bars = TraitBars(dims[name], results[name], lang, color, unit=0.7, row=0.4)
            head = VGroup(MathTex(rf"{name} = x\,W_{{{name.upper()}}}", font_size=34, color=color),
                          text(self.tr(f"{name}_role"), lang, size=22, color=color)).arrange(RIGHT, buff=0.3)
            bars.next_to(head, DOWN, buff=0.2).align_to(head, LEFT).shift(RIGHT * (bars.labels.width + 0.15))
            right[name] = (head, bars)
        column = VGroup(*[VGroup(*hb) for hb in right.values()]).arrange(DOWN, aligned_edge=LEFT, buff=0.4)
        column.to_edge(RIGHT, buff=0.35).align_to(word_label, UP)

        right_groups = VGroup()
        shown = {}
        heat = None
        for name, wname, color in ROLES:
            new_heat = HeatMap(mats[wname], traits, dims[name], lang, color,
                               cell=min(0.62, row), cell_width=0.8, size=20, name=rf"W_{{{name.upper()}}}")
            # centred in the gap between the x bars and the q/k/v column
            gap_left, gap_right = x_bars.get_right()[0] + 0.35, column.get_left()[0] - 0.35
            if new_heat.width > gap_right - gap_left:
                new_heat.scale_to_fit_width(gap_right - gap_left)
            new_heat.move_to([(gap_left + gap_right) / 2, 0, 0]).align_to(x_bars, UP)
            head, bars = right[name]
            group = VGroup(head, bars)
            with self.narration(f"{name}_say", word=word):
                if heat is None:
                    self.play(FadeIn(new_heat), run_time=0.8)
                else:
                    self.play(FadeOut(heat), FadeIn(new_heat), run_time=0.8)
                heat = new_heat
                box = SurroundingRectangle(VGroup(x_bars.bars, x_bars.numbers), color=color, buff=0.08)
                self.play(FadeIn(box), Indicate(new_heat.title, color=color), run_time=0.7)
                self.play(FadeIn(head), FadeIn(bars.labels), FadeIn(bars.axis), run_time=0.6)
                self.play(*bars.grow(), run_time=1.2)
                self.play(FadeOut(box), run_time=0.3)
            right_groups.add(group)
            shown[name] = bars
            self.key_moment(name, x=x_bars.shown_values(), heat=new_heat.values.copy(),
                            heat_numbers=[n.get_tex_string() for n in new_heat.numbers],
                            **{f"{k}_bars": b.shown_values() for k, b in shown.items()})
        with self.narration("outro_say", word=word):
            self.play(FadeOut(heat), run_time=0.6)
            outro = text(self.tr("outro"), lang, size=30, color=palette.AREA)
            outro.next_to(x_bars, DOWN, buff=0.45).align_to(word_label, LEFT)
            self.play(FadeIn(outro), *[Indicate(g[0], color=c) for g, (_, _, c) in zip(right_groups, ROLES)],
                      run_time=1.5)
        self.key_moment("end", **{f"{k}_bars": b.shown_values() for k, b in shown.items()})
