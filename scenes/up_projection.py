"""Scene 5, UpProjection: a 2x3 matrix lifts the plane into 3-D.

The plane's grid and the point x are carried by W (row vectors: [u, v] @ W)
onto the tilted plane spanned by W's rows; x lands on x @ W.  The path is
the straight line of maps (1 - t) [I | 0] + t W.  Then a 2x2 rotation and
stretch for contrast: the same dimension, a different form.

    manim -ql scenes/up_projection.py UpProjection
"""
from __future__ import annotations

import numpy as np
from manim import (
    DEGREES,
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    Create,
    Dot3D,
    FadeIn,
    FadeOut,
    Line,
    MathTex,
    Polygon,
    ThreeDAxes,
    ThreeDScene,
    ValueTracker,
    VGroup,
    Write,
    smooth,
)

import qkv_math as qm
from scenes.kit import palette
from scenes.kit.displays import fix_in_frame, matrix_mob, note, text, title
from scenes.kit.numbers import tex_number
from scenes.kit.scene import LessonScene

SPAN = 4          # the grid covers [-SPAN, SPAN]^2 in plane coordinates
EMBED = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])   # the plane as z = 0


class UpProjection(LessonScene, ThreeDScene):

    def construct(self):
        p, lang = self.params, self.lang
        x = np.array(p.point, dtype=float)
        W = np.array(p.W, dtype=float)
        work = qm.worked_product(p.point, p.W)
        lim = max(5.0, float(np.abs(qm.apply(np.array([[SPAN, SPAN], [SPAN, -SPAN]]), W)).max()) + 0.5)
        axes = ThreeDAxes(x_range=(-lim, lim, 1), y_range=(-lim, lim, 1), z_range=(-lim, lim, 1),
                          x_length=7, y_length=7, z_length=7,
                          axis_config={"stroke_color": palette.MUTED, "include_ticks": False})
        # seen from above the plane fills the view; the camera backs off as it lifts
        self.set_camera_orientation(phi=0, theta=-90 * DEGREES, zoom=lim / (SPAN + 1))

        t = ValueTracker(0.0)
        state = {"map": lambda s: (1 - s) * EMBED + s * W}

        def M():
            return state["map"](t.get_value())

        segments = [((u, -SPAN), (u, SPAN)) for u in range(-SPAN, SPAN + 1)] + \
                   [((-SPAN, v), (SPAN, v)) for v in range(-SPAN, SPAN + 1)]
        grid = VGroup(*[Line(ORIGIN, RIGHT, stroke_width=1.5, color=palette.EMBED, stroke_opacity=0.7)
                        for _ in segments])
        dot = Dot3D(radius=0.06, color=palette.Q_GOLD)

        def follow(_mob):
            m = M()
            for line, (a, b) in zip(grid, segments):
                line.put_start_and_end_on(axes.c2p(*(np.array(a) @ m)), axes.c2p(*(np.array(b) @ m)))
            dot.move_to(axes.c2p(*(x @ m)))

        follow(None)
        heading = title(self.tr("title"), lang)
        w_mob = VGroup(MathTex("W =", font_size=36), matrix_mob(p.W, font_size=34)).arrange(RIGHT, buff=0.15)
        w_mob.to_corner(UP + RIGHT, buff=0.3)
        x_text = MathTex(rf"x = [{tex_number(p.point[0])},\ {tex_number(p.point[1])}]", font_size=36,
                         color=palette.Q_GOLD).next_to(heading, DOWN, aligned_edge=LEFT, buff=0.3)
        fix_in_frame(self, heading, w_mob, x_text)
        driver = VGroup()
        self.add(driver)
        with self.narration("intro_say"):
            self.play(Write(heading), Create(grid), FadeIn(dot), FadeIn(x_text), run_time=1.5)
        self.key_moment("flat", dot=axes.p2c(dot.get_center()))

        result = MathTex(r"x\,W = [" + ",\\ ".join(tex_number(v) for v in work.result) + "]",
                         font_size=38, color=palette.Q_GOLD)
        result.next_to(x_text, DOWN, aligned_edge=LEFT, buff=0.25)
        span_note = note(self.tr("span"), lang, width=4.0)
        span_note.next_to(result, DOWN, aligned_edge=LEFT, buff=0.25)
        fix_in_frame(self, result, span_note)
        driver.add_updater(follow)
        with self.narration("lift_say", n=2, m=3):
            self.play(FadeIn(w_mob), run_time=0.6)
            self.move_camera(phi=65 * DEGREES, theta=-55 * DEGREES, zoom=1.0, added_anims=[FadeIn(axes)],
                             run_time=1.6)
            self.play(t.animate.set_value(1.0), run_time=3.0, rate_func=smooth)
            self.play(FadeIn(result), run_time=0.6)
        corners = [np.array(c, dtype=float) @ W for c in ((-SPAN, -SPAN), (SPAN, -SPAN), (SPAN, SPAN), (-SPAN, SPAN))]
        sheet = Polygon(*[axes.c2p(*c) for c in corners], stroke_width=0, fill_color=palette.K_TEAL,
                        fill_opacity=0.18)
        self.key_moment("lifted", dot=axes.p2c(dot.get_center()),
                        grid_ends=np.array([axes.p2c(grid[0].get_start()), axes.p2c(grid[0].get_end())]),
                        result=result.get_tex_string())
        with self.narration("turn_say"):
            self.play(FadeIn(sheet), FadeIn(span_note), run_time=0.8)
            self.move_camera(theta=40 * DEGREES, run_time=4.0)
            self.move_camera(phi=80 * DEGREES, theta=-20 * DEGREES, run_time=2.0)
        self.key_moment("turned", dot=axes.p2c(dot.get_center()))

        # contrast: a same-dimension map keeps the plane flat
        S = qm.stretch(*(float(v) for v in p.contrast_stretch))
        R = qm.rotation(np.deg2rad(float(p.contrast_rotation_degrees)))
        C = S @ R
        C3 = np.zeros((2, 3))
        C3[:, :2] = C
        contrast = text(self.tr("contrast"), lang, size=26, color=palette.AREA)
        contrast.next_to(x_text, DOWN, aligned_edge=LEFT, buff=0.25)
        c_mob = VGroup(MathTex("M =", font_size=34), matrix_mob(C, font_size=32, digits=2)
                       ).arrange(RIGHT, buff=0.15)
        c_mob.to_corner(UP + RIGHT, buff=0.3)
        fix_in_frame(self, contrast, c_mob)
        with self.narration("contrast_say"):
            self.play(FadeOut(sheet), FadeOut(result), FadeOut(span_note), FadeOut(w_mob), run_time=0.6)
            state["map"] = lambda s: (1 - s) * W + s * EMBED
            t.set_value(0.0)
            self.play(t.animate.set_value(1.0), run_time=1.2)
            self.move_camera(phi=0, theta=-90 * DEGREES, zoom=0.7 * lim / (SPAN + 1), run_time=1.2)
            self.play(FadeIn(contrast), FadeIn(c_mob), run_time=0.6)
            state["map"] = lambda s: (1 - s) * EMBED + s * C3
            t.set_value(0.0)
            self.play(t.animate.set_value(1.0), run_time=2.5)
        self.key_moment("contrast", dot=axes.p2c(dot.get_center()), matrix=C)
        with self.narration("outro_say"):
            self.wait(0.5)
        driver.clear_updaters()
        self.key_moment("end")
