"""Scene 2, ThreeLenses: one word cloud through three matrices.

Each word is a row vector over named traits; each lens is a (n_traits, 2)
matrix, so a word lands at ``traits @ M`` on that lens's plane.  Each panel
is titled by what the lens keeps and what it throws away.

    manim -ql scenes/three_lenses.py ThreeLenses
"""
from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Axes,
    FadeIn,
    Indicate,
    TransformFromCopy,
    VGroup,
    Write,
)

import qkv_math as qm
from scenes.kit import palette
from scenes.kit.displays import WordPoint, note, place_labels, text, title
from scenes.kit.scene import LessonScene
from scenes.kit.wrap import wrapped_text

PANEL_W, PANEL_H = 3.7, 3.6
LENS_COLOURS = tuple(palette.QKV.values())


def _range(values) -> tuple[float, float, float]:
    lo, hi = min(0.0, float(np.min(values))), max(1.0, float(np.max(values)))
    pad = 0.15 * (hi - lo)
    return (math.floor((lo - pad) * 2) / 2, math.ceil((hi + pad) * 2) / 2, 0.5)


class ThreeLenses(LessonScene):
    def construct(self):
        p, lang = self.params, self.lang
        X = np.array([t for _, t in p.words], dtype=float)
        names = [n.name(lang) for n, _ in p.words]
        heading = title(self.tr("title"), lang)
        cloud = VGroup(*[text(nm, lang, size=28, color=palette.EMBED) for nm in names])
        cloud.arrange(RIGHT, buff=0.45).next_to(heading, DOWN, buff=0.35)
        cloud.set_x(0)
        traits = " · ".join(t.name(lang) for t in p.traits)
        trait_line = note(self.tr("traits", traits=traits), lang)
        trait_line.next_to(cloud, DOWN, buff=0.15)

        with self.beat("intro_say", n=len(p.traits)):
            self.play(Write(heading), FadeIn(cloud), FadeIn(trait_line), run_time=1.2)

        panels = VGroup()
        for lens, colour in zip(p.lenses, LENS_COLOURS):
            M = np.array(lens.matrix, dtype=float)
            Y = qm.apply(X, M)
            axes = Axes(x_range=_range(Y[:, 0]), y_range=_range(Y[:, 1]), x_length=PANEL_W, y_length=PANEL_H,
                        tips=False, axis_config={"stroke_color": palette.MUTED, "include_ticks": False})
            heading = VGroup(
                wrapped_text(self.tr("keep", what=lens.keep.name(lang)), lang, size=22, width=PANEL_W + 0.3,
                             color=colour),
                wrapped_text(self.tr("drop", what=lens.drop.name(lang)), lang, size=20, width=PANEL_W + 0.3,
                             color=palette.MUTED),
            ).arrange(DOWN, aligned_edge=LEFT, buff=0.08)
            x_name = text(lens.axes[0].name(lang), lang, size=20, color=colour)
            y_name = text(lens.axes[1].name(lang), lang, size=20, color=colour)
            panel = VGroup(heading, axes, x_name, y_name)
            panels.add(panel)
            panel.words = [WordPoint(nm, y, lang, color=palette.EMBED, size=20) for nm, y in zip(names, Y)]
            panel.axes, panel.heading, panel.M, panel.Y = axes, heading, M, Y
        for panel in panels:
            panel.heading.next_to(panel.axes, UP, buff=0.3).align_to(panel.axes, LEFT)
        panels.arrange(RIGHT, buff=0.75, aligned_edge=UP).next_to(trait_line, DOWN, buff=0.35).set_x(0)
        for panel in panels:
            panel[2].next_to(panel.axes.x_axis.get_right(), DOWN, buff=0.1).align_to(panel.axes, RIGHT)
            panel[3].next_to(panel.axes.y_axis.get_top(), RIGHT, buff=0.1)
            for w in panel.words:
                w.dot.move_to(panel.axes.c2p(*w.coords))
            place_labels(panel.words, avoid=[panel[2], panel[3], panel.heading])

        for k, panel in enumerate(panels):
            with self.beat(f"lens{k + 1}_say", keep=p.lenses[k].keep.name(lang),
                                drop=p.lenses[k].drop.name(lang)):
                self.play(FadeIn(panel.axes), FadeIn(panel[2]), FadeIn(panel[3]),
                          FadeIn(panel.heading), run_time=0.7)
                self.play(*[TransformFromCopy(cloud[i], w) for i, w in enumerate(panel.words)], run_time=1.4)
                groups = qm.collisions(X, panel.M, tol=1e-9)
                if groups:
                    self.play(*[Indicate(panel.words[i].label, color=palette.ALERT) for g in groups for i in g],
                              run_time=0.8)
            self.key_moment(f"lens{k + 1}", words=np.array([panel.axes.p2c(w.dot.get_center())
                                                            for w in panel.words]),
                            collisions=qm.collisions(X, panel.M))
        with self.beat("outro_say"):
            self.play(*[Indicate(pn.heading[0], color=c) for pn, c in zip(panels, LENS_COLOURS)], run_time=1.2)
            self.wait(0.5)
        self.key_moment("end")
