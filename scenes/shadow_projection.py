"""Scene 4, ShadowProjection: a lamp, a cube and a wall; the shadow is a projection.

Parallel light along d casts each corner x of the cube onto the wall
n . x = 0 as x @ P, P = I - outer(n, d) / (n . d) (row vectors), recomputed
every frame while the wall turns and the light tilts.  Then a point lamp
(a perspective projection, linear only in homogeneous coordinates) and the
3x2 matrix of wall coordinates.  All numbers from ``qkv_math.projection``.

    manim -ql scenes/shadow_projection.py ShadowProjection
"""
from __future__ import annotations

import numpy as np
from manim import (
    DEGREES,
    DOWN,
    LEFT,
    RIGHT,
    UR,
    Arrow3D,
    Dot3D,
    FadeIn,
    FadeOut,
    Flash,
    Line,
    MathTex,
    Mobject,
    Polygon,
    ThreeDScene,
    ValueTracker,
    VGroup,
    Write,
    linear,
)

import qkv_math as qm
from scenes.kit import palette
from scenes.kit.displays import fix_in_frame, matrix_mob, note, title
from scenes.kit.numbers import tex_number
from scenes.kit.scene import LessonScene

THETA = 30 * DEGREES
# Everything is drawn shifted by OFF (towards the right of the screen at the
# starting camera angle) to leave room for the text on the left; the maths
# and the probes are in unshifted coordinates.
OFF = 0.4 * np.array([-np.sin(THETA), np.cos(THETA), 0.0])


def turned(normal_angle: float) -> np.ndarray:
    """The wall normal after turning [1, 0, 0] about z by ``normal_angle`` radians."""
    return np.array([np.cos(normal_angle), np.sin(normal_angle), 0.0])


class ShadowProjection(LessonScene, ThreeDScene):

    def construct(self):
        p, lang = self.params, self.lang
        V = qm.cube_vertices(np.array(p.cube_center, dtype=float), float(p.cube_size))
        d0, d1 = (np.array(v, dtype=float) for v in (p.light, p.light_end))
        turn = np.deg2rad(float(p.wall_turn_degrees))
        L = np.array(p.lamp, dtype=float)
        self.set_camera_orientation(phi=72 * DEGREES, theta=THETA, zoom=0.75)

        angle, tilt = ValueTracker(0.0), ValueTracker(0.0)
        mode = {"lamp": False}

        def light():
            d = (1 - tilt.get_value()) * d0 + tilt.get_value() * d1
            return d / np.linalg.norm(d)

        def shadows():
            n = turned(angle.get_value())
            if mode["lamp"]:
                return qm.lamp_shadows(L, n, 0.0, V)
            return V @ qm.shadow_matrix(light(), n)

        # wall, shadow, rays, cube: drawn back to front (cairo has no depth buffer)
        wall = Polygon(*[np.zeros(3)] * 4, stroke_color=palette.MUTED, stroke_width=2,
                       fill_color="#2A3340", fill_opacity=0.9)
        shadow = Polygon(*[np.zeros(3)] * 4, stroke_width=0, fill_color="#0B0F14", fill_opacity=0.92)
        rays = VGroup(*[Line(np.zeros(3), np.ones(3), stroke_width=1.5, color=palette.AREA,
                             stroke_opacity=0.7) for _ in V])
        edges = VGroup(*[Line(V[i] + OFF, V[j] + OFF, stroke_width=3, color=palette.EMBED)
                         for i, j in qm.CUBE_EDGES])
        corners = VGroup(*[Dot3D(v + OFF, radius=0.045, color=palette.EMBED) for v in V])
        for z, mob in enumerate((wall, shadow, rays, edges, corners)):
            mob.set_z_index(z - 10)

        # The wall is a rectangle in its own (u, v) axes, just big enough for
        # every shadow the scene will cast (sampled over its whole course).
        coords = [V @ qm.shadow_matrix(dd, turned(a)) @ qm.wall_basis(turned(a))
                  for a in np.linspace(0, turn, 5) for dd in (d0, d1, 0.5 * (d0 + d1))]
        coords.append(qm.lamp_shadows(L, turned(turn), 0.0, V) @ qm.wall_basis(turned(turn)))
        allc = np.concatenate(coords)
        (u0, v0), (u1, v1) = allc.min(axis=0) - 0.5, allc.max(axis=0) + 0.5
        wall_uv = [(u0, v0), (u1, v0), (u1, v1), (u0, v1), (u0, v0)]
        self.wall_centre = lambda n: np.array([(u0 + u1) / 2, (v0 + v1) / 2]) @ qm.wall_basis(n).T

        def follow(_mob):
            n = turned(angle.get_value())
            B = qm.wall_basis(n)
            wall.set_points_as_corners([np.array(c) @ B.T + OFF for c in wall_uv])
            S = shadows()
            hull = qm.convex_hull_2d(S @ B)
            shadow.set_points_as_corners([S[i] + OFF for i in hull] + [S[hull[0]] + OFF])
            src = np.repeat(L[None, :], len(V), axis=0) if mode["lamp"] else V
            for ray, a, b in zip(rays, src, S):
                ray.put_start_and_end_on(a + OFF, b + OFF)

        follow(None)
        heading = title(self.tr("title"), lang)
        formula = MathTex(r"P = I - \frac{n\,d^{\top}}{n^{\top} d}", font_size=36).next_to(
            heading, DOWN, aligned_edge=LEFT, buff=0.25)
        fix_in_frame(self, heading, formula)
        driver = VGroup()
        self.add(driver)
        driver.add_updater(follow)
        with self.beat("intro_say"):
            self.play(Write(heading), FadeIn(wall), FadeIn(edges), FadeIn(corners), run_time=1.2)
            self.play(FadeIn(rays), FadeIn(shadow), FadeIn(formula), run_time=1.2)
        self.key_moment("parallel", **self._probes(V, rays, shadow, angle, light()))

        P0 = qm.shadow_matrix(light(), turned(0.0))
        facts = VGroup(MathTex(rf"\mathrm{{rank}}\,P = {qm.rank(P0)}", font_size=34),
                       MathTex(rf"\|PP - P\| = {tex_number(float(np.abs(P0 @ P0 - P0).max()), 2, pad=True)}",
                               font_size=34)
                       ).arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        facts.next_to(formula, DOWN, aligned_edge=LEFT, buff=0.3)
        rank_note = note(self.tr("rank_note"), lang, width=4.2)
        rank_note.next_to(facts, DOWN, aligned_edge=LEFT, buff=0.2)
        fix_in_frame(self, facts, rank_note)
        with self.beat("rank_say"):
            self.play(FadeIn(facts), FadeIn(rank_note), run_time=1.0)
        self.key_moment("facts", rank=qm.rank(P0), idempotent=float(np.abs(P0 @ P0 - P0).max()),
                        shown=[f.get_tex_string() for f in facts])

        with self.beat("turn_say"):
            self.play(angle.animate.set_value(turn), run_time=3.0, rate_func=linear)
        self.key_moment("turned", **self._probes(V, rays, shadow, angle, light()))
        with self.beat("tilt_say"):
            self.play(tilt.animate.set_value(1.0), run_time=3.0, rate_func=linear)
        self.key_moment("tilted", **self._probes(V, rays, shadow, angle, light()))

        # two points on one light ray share one shadow
        top = int(np.argmax(V[:, 2] - V[:, 0]))
        upstream = V[top] - float(p.ray_step) * light()
        second = Dot3D(upstream + OFF, radius=0.07, color=palette.ALERT)
        link = Line(upstream + OFF, V[top] + OFF, color=palette.ALERT, stroke_width=3)
        pair_note = note(self.tr("same_shadow"), lang, color=palette.ALERT)
        pair_note.next_to(rank_note, DOWN, aligned_edge=LEFT, buff=0.3)
        fix_in_frame(self, pair_note)
        P = qm.shadow_matrix(light(), turned(angle.get_value()))
        with self.beat("pair_say"):
            self.play(FadeIn(second), FadeIn(link), FadeIn(pair_note), run_time=1.0)
            self.play(Flash(V[top] @ P + OFF, color=palette.ALERT), run_time=0.8)
        # what is drawn: the first point's ray (its far end is its shadow) and the second dot
        self.key_moment("pair", ray_start=rays[top].get_start() - OFF, ray_end=rays[top].get_end() - OFF,
                        second=second.get_center() - OFF, P=P)

        # a point lamp: perspective, linear only in homogeneous coordinates
        lamp = Dot3D(L + OFF, radius=0.12, color=palette.Q_GOLD)
        lamp_note = self._corner_panel(MathTex(r"[x,\ 1]\,H \propto [s,\ 1]", font_size=32), "lamp_note")
        with self.beat("lamp_say"):
            self.play(FadeOut(second), FadeOut(link), FadeOut(pair_note), run_time=0.5)
            mode["lamp"] = True
            self.play(FadeIn(lamp), FadeIn(lamp_note), run_time=1.2)
            self.wait(1.0)
        self.key_moment("lamp", lamp=L, normal=turned(angle.get_value()), vertices=V,
                        shadows=np.array([r.get_end() - OFF for r in rays]),
                        starts=np.array([r.get_start() - OFF for r in rays]))

        # wall coordinates: the 3x2 matrix that reads a shadow as two numbers
        n = turned(angle.get_value())
        B = qm.wall_basis(n)
        origin = self.wall_centre(n) + OFF
        axes = VGroup(Arrow3D(origin, origin + 1.5 * B[:, 0], color=palette.BASIS_I),
                      Arrow3D(origin, origin + 1.5 * B[:, 1], color=palette.BASIS_J))
        b_mob = VGroup(MathTex("B =", font_size=32), matrix_mob(B, font_size=30, digits=2)
                       ).arrange(RIGHT, buff=0.15)
        S = shadows()
        coords = S[top] @ B
        shown_coords = [tex_number(c, 2, pad=True) for c in coords]
        shown = ",\\ ".join(shown_coords)
        b_note = self._corner_panel(b_mob, MathTex(rf"s\,B = [{shown}]", font_size=32), "basis_note")
        with self.beat("basis_say"):
            self.play(FadeOut(lamp_note), FadeIn(axes), run_time=1.0)
            self.play(FadeIn(b_note), run_time=1.0)
            self.move_camera(theta=THETA + 12 * DEGREES, run_time=2.0)
        # what is drawn: the two wall axes (unit arrows scaled by 1.5), the shadow
        # being read (its ray's far end) and the two numbers written
        self.key_moment("basis", normal=n, axes=[(a.get_end() - a.get_start()) / 1.5 for a in axes],
                        shadow=rays[top].get_end() - OFF, coords=shown_coords)
        driver.clear_updaters()
        self.key_moment("end")

    def _corner_panel(self, *parts: Mobject | str) -> VGroup:
        """``parts`` (a text key is written as a note) stacked in the top-right
        corner, fixed in the frame, not yet shown."""
        panel = VGroup(*[note(self.tr(part), self.lang, width=4.4) if isinstance(part, str) else part
                         for part in parts]).arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        return fix_in_frame(self, panel.to_corner(UR, buff=0.3))

    @staticmethod
    def _probes(V, rays, shadow, angle, d):
        """What is drawn: the rays' far ends (the shadows) and the shadow outline."""
        return {"vertices": V, "shadows": np.array([r.get_end() - OFF for r in rays]),
                "outline": shadow.get_vertices() - OFF, "normal": turned(angle.get_value()), "light": d}
