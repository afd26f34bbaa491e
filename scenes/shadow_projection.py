"""Scene 4, ShadowProjection: a lamp, a cube and a wall; the shadow is a projection.

Parallel light along d casts each corner x of the cube onto the wall
n . x = 0 as x @ P, P = I - outer(n, d) / (n . d) (row vectors), recomputed
every frame while the wall turns and the light tilts; d and n are drawn as
arrows.  The cube collapses onto the wall (rank 2) and its shadow, cast
again, stays put (P P = P); a point slides along a light ray while its
shadow stays put.  Then a point lamp (a perspective projection, linear only
in homogeneous coordinates) and the 3x2 matrix B of wall coordinates reading
one shadow s.  All numbers from ``qkv_math.projection``.

Seen in a three-quarter view; cairo has no depth buffer, so nothing here is
a shaded 3-D surface (those are drawn before every flat mobject): dots and
arrows are flat, drawn in the z order set below.

    manim -ql scenes/shadow_projection.py ShadowProjection
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from manim import (
    BLACK,
    DEGREES,
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UL,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    Flash,
    Indicate,
    Line,
    MathTex,
    Mobject,
    Polygon,
    ThreeDScene,
    ValueTracker,
    VGroup,
    Write,
    config,
    linear,
    smooth,
)

import qkv_math as qm
from qkv_lens.cues import cue_seconds, split_cues
from qkv_lens.lesson.keys import Number, Params, Vector
from qkv_lens.numbers import tex_number
from scenes.kit import palette
from scenes.kit.layout import bounds, fix_in_frame, overlaps
from scenes.kit.live import Unchanged, put_segment
from scenes.kit.matrices import LiveMatrix, matrix_mob
from scenes.kit.scene import LessonScene
from scenes.kit.text import note, title

PHI, THETA = 64 * DEGREES, 64 * DEGREES   # a three-quarter view: the wall seen at a slant
# Where the 3-D picture goes on screen (left, bottom, right, top): left of the
# text column, under the title, above the subtitle band (y >= -3.04).
PICTURE = (-6.75, -2.85, 2.45, 2.95)
COLUMN_X = 2.85          # the text column's left edge ...
COLUMN_W = 4.05          # ... and width
LABEL_SIZE = 40          # the letters beside the drawn points and arrows
DEPTH_SHARE = 0.3        # the picture reaches at most this share of the camera's distance towards it
LIGHT = palette.AREA     # light: rays, the lamp and the arrow d
NORMAL = palette.INK     # the wall's normal n
WALL_FILL = "#2A3340"
SHADOW_FILL = "#0B0F14"


def turned(normal_angle: float) -> np.ndarray:
    """The wall normal after turning [1, 0, 0] about z by ``normal_angle`` radians."""
    return np.array([np.cos(normal_angle), np.sin(normal_angle), 0.0])


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def outline(*labels: Mobject) -> None:
    """A dark outline behind each label, so lines drawn under it do not cut it."""
    for label in labels:
        label.set_stroke(color=BLACK, width=6, background=True)
        label.set_z_index(5)


class FlatArrow(VGroup):
    """An arrow between two 3-D points drawn flat: a line and a triangular tip
    turned towards the viewer (``toward``: the unit vector from the scene to
    the camera), so it keeps its place in the z order."""

    def __init__(self, color, stroke_width: float = 5, tip: float = 0.28):
        self.shaft = Line(ORIGIN, RIGHT, color=color, stroke_width=stroke_width)
        self.tip = Polygon(ORIGIN, RIGHT, UL, stroke_width=0, fill_color=color, fill_opacity=1)
        self.tip_length = tip
        self.ends = (np.zeros(3), np.array([1.0, 0, 0]))
        super().__init__(self.shaft, self.tip)

    def put(self, start: np.ndarray, end: np.ndarray, toward: np.ndarray) -> FlatArrow:
        start, end = np.asarray(start, float), np.asarray(end, float)
        self.ends = (start, end)
        along = end - start
        length = np.linalg.norm(along)
        u = along / length
        side = np.cross(u, toward)
        side = side / max(np.linalg.norm(side), 1e-9)
        t = min(self.tip_length, 0.45 * length)
        base = end - t * u
        self.shaft.put_start_and_end_on(start, base + 0.2 * t * u)
        self.tip.set_points_as_corners([end, base + 0.42 * t * side, base - 0.42 * t * side, end])
        return self


class ShadowParams(Params):
    """[shadow_projection]: a cube (centre, edge) in front of the wall n . x = 0
    (n starts as [1, 0, 0] and turns about z); parallel light along ``light``
    tilting to ``light_end``; a point lamp; ``ray_step``: how far up a light
    ray the second point sits."""
    section = "shadow_projection"
    cube_center: tuple[Fraction, Fraction, Fraction] = Vector("space", 3, doc="the cube, in front of the wall")
    cube_size: Fraction = Number("cube_size", doc="its edge")
    light: tuple[Fraction, Fraction, Fraction] = Vector("direction", 3, nonzero=True,
                                                        doc="parallel light: its direction, towards the wall")
    light_end: tuple[Fraction, Fraction, Fraction] = Vector("direction", 3, nonzero=True,
                                                            doc="the direction the light tilts to")
    wall_turn_degrees: Fraction = Number("angle", doc="how far the wall turns about the vertical axis")
    lamp: tuple[Fraction, Fraction, Fraction] = Vector("space", 3, doc="the point lamp, further from the wall")
    ray_step: Fraction = Number("ray_step", doc="how far up a light ray the second point sits")


class ShadowProjection(LessonScene, ThreeDScene):
    params: ShadowParams
    chapter = 1
    number = 4

    def construct(self):
        p, lang = self.params, self.lang
        V = qm.cube_vertices(np.array(p.cube_center, dtype=float), float(p.cube_size))
        centre = V.mean(axis=0)
        size = float(p.cube_size)
        d0, d1 = (np.array(v, dtype=float) for v in (p.light, p.light_end))
        turn = np.deg2rad(float(p.wall_turn_degrees))
        L = np.array(p.lamp, dtype=float)
        self.set_camera_orientation(phi=PHI, theta=THETA, zoom=1.0, frame_center=ORIGIN)

        angle, tilt, lampness = ValueTracker(0.0), ValueTracker(0.0), ValueTracker(0.0)
        cast, flat, again, slide = (ValueTracker(0.0) for _ in range(4))

        def light(t: float | None = None) -> np.ndarray:
            t = tilt.get_value() if t is None else t
            return unit((1 - t) * d0 + t * d1)

        def normal() -> np.ndarray:
            return turned(angle.get_value())

        def proj() -> np.ndarray:
            return qm.shadow_matrix(light(), normal())

        def shadows() -> np.ndarray:
            """Where the corners fall now: parallel light blended into the lamp's."""
            S = V @ proj()
            lam = lampness.get_value()
            if lam > 0:
                S = (1 - lam) * S + lam * qm.lamp_shadows(L, normal(), 0.0, V)
            return S

        # Light arrives at the cube from far enough up-light; d is drawn there.
        reach = 1.4 * size + 1.2

        def d_ends(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            tail = centre - reach * d
            return tail, tail + 1.25 * d

        # the corner whose ray the sliding point follows and whose shadow B reads
        top = int(np.argmax(V[:, 2] - V[:, 0]))

        def slide_point(t: float | None = None) -> np.ndarray:
            t = slide.get_value() if t is None else t
            return V[top] - t * float(p.ray_step) * light()

        # The wall: a rectangle in its own axes B (wall_basis), holding every
        # shadow the scene casts and the origin (where B's axes start).
        uv = [np.zeros((1, 2))]
        for a in np.linspace(0, turn, 7):
            B = qm.wall_basis(turned(a))
            for t in (0.0, 0.5, 1.0):
                uv.append(V @ qm.shadow_matrix(light(t), turned(a)) @ B)
        uv.append(qm.lamp_shadows(L, turned(turn), 0.0, V) @ qm.wall_basis(turned(turn)))
        allc = np.concatenate(uv)
        (u0, v0), (u1, v1) = allc.min(axis=0) - 0.55, allc.max(axis=0) + 0.55
        wall_uv = np.array([(u0, v0), (u1, v0), (u1, v1), (u0, v1)])
        # n stands on the wall at the corner of it that the cube's shadow leaves clearest
        inset = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * 0.45
        S0 = V @ qm.shadow_matrix(d0, turned(0.0)) @ qm.wall_basis(turned(0.0))
        foot_uv = max(wall_uv + inset, key=lambda c: float(np.min(np.linalg.norm(S0 - c, axis=1))))
        n_len = 0.9 + 0.3 * size

        def n_ends(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            foot = foot_uv @ qm.wall_basis(n).T
            return foot, foot + n_len * n

        # --- the view: fit everything the scene will draw into PICTURE ---
        extent = [V, L[None, :], slide_point(1.0)[None, :]]
        for a in np.linspace(0, turn, 7):
            extent.append(wall_uv @ qm.wall_basis(turned(a)).T)
            extent.append(np.array(n_ends(turned(a))))
        for t in np.linspace(0, 1, 5):
            extent.append(np.array(d_ends(light(t))))
        off = self.off = self._fit_view(np.concatenate(extent))   # drawn at x + off: x in view
        cam = self.renderer.camera
        toward = cam.get_rotation_matrix()[2]   # unit vector from the scene towards the camera

        def screen(x: np.ndarray) -> np.ndarray:
            return cam.project_point(np.asarray(x, dtype=float) + off)

        # --- the 3-D picture, drawn back to front (its z order) ---
        wall = Polygon(*[np.zeros(3)] * 4, stroke_color=palette.MUTED, stroke_width=2,
                       fill_color=WALL_FILL, fill_opacity=0.9)
        shadow = Polygon(*[np.zeros(3)] * 4, stroke_width=0, fill_color=SHADOW_FILL, fill_opacity=0.92)
        marks = VGroup(*[Dot(radius=0.05, color=palette.EMBED) for _ in V])     # the shadows of the corners
        n_arrow = FlatArrow(NORMAL)
        rays = VGroup(*[Line(np.zeros(3), np.ones(3), stroke_width=1.8, color=LIGHT, stroke_opacity=0.75)
                        for _ in V])
        d_arrow = FlatArrow(LIGHT, stroke_width=6, tip=0.32)
        edges = VGroup(*[Line(V[i] + off, V[j] + off, stroke_width=3, color=palette.EMBED)
                         for i, j in qm.CUBE_EDGES])
        corners = VGroup(*[Dot(v + off, radius=0.06, color=palette.EMBED) for v in V])
        sliders = VGroup(*[Dot(v + off, radius=0.06, color=palette.EMBED) for v in V])
        flat_edges = VGroup(*[Line(V[i], V[j], stroke_width=3.5, color=palette.INK) for i, j in qm.CUBE_EDGES])
        flat_dots = VGroup(*[Dot(V[i], radius=0.055, color=palette.INK) for i in range(len(V))])
        layers = (wall, shadow, marks, n_arrow, rays, d_arrow, edges, corners, sliders, flat_edges, flat_dots)
        for z, mob in enumerate(layers):
            mob.set_z_index(z - 30)
        for dot in (*marks, *corners, *sliders, *flat_dots):
            self.add_fixed_orientation_mobjects(dot)   # round, whatever the view

        def flattened() -> np.ndarray:
            """The cube as it collapses onto the wall (flat), then cast again (again)."""
            P = proj()
            Y = V + flat.get_value() * (V @ P - V)
            return Y + again.get_value() * (Y @ P - Y)

        unchanged = Unchanged()

        def follow(_mob):
            if unchanged(*(t.get_value() for t in (angle, tilt, lampness, cast, flat, again))):
                return          # nothing it draws has moved since the last frame
            n, P, S = normal(), proj(), shadows()
            B = qm.wall_basis(n)
            wall.set_points_as_corners([c @ B.T + off for c in (*wall_uv, wall_uv[0])])
            hull = qm.convex_hull_2d(S @ B)
            shadow.set_points_as_corners([S[i] + off for i in (*hull, hull[0])])
            lam, c = lampness.get_value(), cast.get_value()
            for i, (ray, dot, slider) in enumerate(zip(rays, marks, sliders)):
                src = (1 - lam) * V[i] + lam * L + off
                put_segment(ray, src, src + max(c, 1e-3) * (S[i] + off - src))
                dot.move_to(S[i] + off)
                slider.move_to(V[i] + c * (S[i] - V[i]) + off)
            d_arrow.put(*(e + off for e in d_ends(light())), toward)
            n_arrow.put(*(e + off for e in n_ends(n)), toward)
            Y = flattened()
            for (i, j), line in zip(qm.CUBE_EDGES, flat_edges):
                put_segment(line, Y[i] + off, Y[j] + off)
            for dot, y in zip(flat_dots, Y):
                dot.move_to(y + off)
            readout.set_matrix(P)
            cam.add_fixed_in_frame_mobjects(readout)   # digits it rebuilt stay flat in the frame

        # --- labels beside the drawn things (fixed in the frame, placed by projection) ---
        d_label = MathTex("d", font_size=LABEL_SIZE, color=LIGHT)
        n_label = MathTex("n", font_size=LABEL_SIZE + 6, color=NORMAL)

        def beside(label: Mobject, a: np.ndarray, b: np.ndarray, at: float = 0.5, gap: float = 0.2):
            """Put ``label`` beside the drawn segment a-b (3-D), on its upper side."""
            sa, sb = screen(a), screen(b)
            u = unit(sb - sa)
            side = np.array([-u[1], u[0], 0.0])
            if side[1] < 0:
                side = -side
            half = 0.5 * (abs(side[0]) * label.width + abs(side[1]) * label.height)
            return label.move_to(sa + at * (sb - sa) + (gap + half) * side)

        def past(label: Mobject, a: np.ndarray, b: np.ndarray, gap: float = 0.15):
            """Put ``label`` just past the end b of the drawn segment a-b."""
            sa, sb = screen(a), screen(b)
            u = unit(sb - sa)
            half = 0.5 * (abs(u[0]) * label.width + abs(u[1]) * label.height)
            return label.move_to(sb + (gap + half) * u)

        letters: list[Mobject] = []     # the letters on the picture, kept clear of each other

        def settle(label: Mobject, anchor: np.ndarray, also: tuple = ()) -> Mobject:
            """Leave ``label`` where it was put if that is inside the free picture
            and clear of the other letters shown (and of ``also``); else move it
            round its ``anchor`` (a point on screen) to the nearest spot that is."""
            others = [bounds(o) for o in (*[o for o in letters if o in self.mobjects], *also) if o is not label]
            left, bottom = -config.frame_width / 2 + 0.1, -config.frame_height / 2 + 0.12 * config.frame_height + 0.06

            def free(box) -> bool:
                return (left <= box[0] and box[2] <= COLUMN_X - 0.1 and bottom <= box[1]
                        and box[3] <= heading.get_bottom()[1] - 0.05
                        and not any(overlaps(box, o, pad=0.02) for o in others))

            if free(bounds(label)):
                return label
            w, h = label.width, label.height
            for gap in (0.12, 0.35, 0.6, 0.9, 1.3):
                for k in range(16):
                    a = np.pi / 2 + k * np.pi / 8
                    u = np.array([np.cos(a), np.sin(a), 0.0])
                    c = np.asarray(anchor, dtype=float) + (gap + 0.5 * (abs(u[0]) * w + abs(u[1]) * h)) * u
                    if free((c[0] - w / 2, c[1] - h / 2, c[0] + w / 2, c[1] + h / 2)):
                        return label.move_to(c)
            return label

        def midpoint(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            return (screen(a) + screen(b)) / 2

        d_label.add_updater(lambda m: settle(beside(m, *d_ends(light())), midpoint(*d_ends(light()))))
        n_label.add_updater(lambda m: settle(past(m, *n_ends(normal())), screen(n_ends(normal())[1])))
        letters += [n_label, d_label]
        fix_in_frame(self, d_label, n_label)
        outline(d_label, n_label)

        # --- the text column ---
        heading = title(self.tr("title"), lang)
        formula = MathTex(r"P = I - \frac{n\,d^{\top}}{n^{\top} d}", font_size=38)
        formula.move_to([COLUMN_X, 0, 0], aligned_edge=LEFT).set_y(config.frame_height / 2 - 0.75)
        readout = LiveMatrix(np.eye(3), row_colors=(palette.INK,) * 3, font_size=40).scale(0.72)
        P_row = VGroup(MathTex("P =", font_size=34), readout).arrange(RIGHT, buff=0.15)
        P_row.scale(min(1.0, (COLUMN_W - 0.2) / P_row.width))
        fix_in_frame(self, heading, formula, P_row)

        driver = VGroup().set_z_index(-40)   # below everything: every layer is redrawn each frame
        self.add(driver)
        follow(None)
        driver.add_updater(follow)

        with self.beat("intro_say") as said:
            starts = self._cue_starts(said)
            self.play(Write(heading), FadeIn(wall), FadeIn(edges), FadeIn(corners), FadeIn(n_arrow),
                      FadeIn(n_label), run_time=1.2)
            self.play(FadeIn(d_arrow), FadeIn(d_label), FadeIn(sliders), run_time=0.8)
            self._wait_until(starts[-2] if len(starts) > 1 else 0.0, d_arrow)   # as the sliding is named
            self.add(rays)
            self.play(cast.animate.set_value(1.0), run_time=2.0, rate_func=smooth)
            self.play(FadeIn(shadow), FadeIn(marks), FadeOut(sliders), run_time=0.6)
            self._wait_until(starts[-1], marks)
            self.play(FadeIn(formula), run_time=0.8)
        self.key_moment("parallel", **self._probes(corners, marks, shadow, d_arrow, n_arrow, wall))

        # rank 2: the cube collapses onto the wall; P P = P: its shadow, cast again, stays put
        P0 = proj()
        rank_tex = MathTex(rf"\mathrm{{rank}}\,P = {qm.rank(P0)}", font_size=34)
        again_tex = MathTex(r"P\,P = P", font_size=34)
        facts = VGroup(rank_tex, again_tex).arrange(RIGHT, buff=0.6)
        facts.next_to(formula, DOWN, aligned_edge=LEFT, buff=0.35)
        rank_note = note(self.tr("rank_note"), lang, width=COLUMN_W - 0.1)
        rank_note.next_to(facts, DOWN, aligned_edge=LEFT, buff=0.2)
        fix_in_frame(self, rank_tex, again_tex, rank_note)
        with self.beat("rank_say"):
            self.play(FadeIn(rank_tex), FadeIn(flat_edges), FadeIn(flat_dots), run_time=0.8)
            self.play(flat.animate.set_value(1.0), run_time=2.2, rate_func=smooth)
        self.key_moment("collapsed", flat=np.array([d.get_center() - off for d in flat_dots]), vertices=V,
                        **self._arrows(d_arrow, n_arrow), rank=rank_tex.get_tex_string())
        with self.beat("again_say"):
            self.play(FadeIn(again_tex), FadeIn(rank_note), run_time=0.8)
            self.play(again.animate.set_value(1.0),
                      *[Flash(d, color=LIGHT, flash_radius=0.22, line_length=0.14) for d in flat_dots],
                      run_time=1.6)
            self.play(Indicate(again_tex, color=LIGHT), run_time=1.0)
        self.key_moment("again", flat=np.array([d.get_center() - off for d in flat_dots]), vertices=V,
                        **self._arrows(d_arrow, n_arrow))

        P_row.next_to(facts, DOWN, aligned_edge=LEFT, buff=0.35)
        with self.beat("turn_say", focus=n_arrow):
            self.play(FadeOut(flat_edges), FadeOut(flat_dots), FadeOut(rank_note), FadeIn(P_row), run_time=0.8)
            self.play(angle.animate.set_value(turn), run_time=3.5, rate_func=linear)
        self.key_moment("turned", **self._probes(corners, marks, shadow, d_arrow, n_arrow, wall),
                        readout=readout.values())
        with self.beat("tilt_say", focus=d_arrow):
            self.play(tilt.animate.set_value(1.0), run_time=3.5, rate_func=linear)
        self.key_moment("tilted", **self._probes(corners, marks, shadow, d_arrow, n_arrow, wall),
                        readout=readout.values())

        # a point slides along one light ray; its shadow stays put
        runner = Dot(V[top] + off, radius=0.085, color=palette.ALERT).set_z_index(-10)
        its_shadow = Dot(V[top] @ proj() + off, radius=0.085, color=palette.ALERT).set_z_index(-10)
        self.add_fixed_orientation_mobjects(runner, its_shadow)
        track = Line(slide_point(1.0) + off, V[top] @ proj() + off, color=palette.ALERT, stroke_width=3,
                     stroke_opacity=0.8).set_z_index(-11)
        runner.add_updater(lambda m: m.move_to(slide_point() + off))
        its_shadow.add_updater(lambda m: m.move_to(slide_point() @ proj() + off))
        x_label = MathTex("x", font_size=LABEL_SIZE + 6, color=palette.ALERT)
        s_label = MathTex("x P", font_size=LABEL_SIZE, color=palette.ALERT)
        x_label.add_updater(lambda m: settle(m.next_to(screen(slide_point()), UL, buff=0.12), screen(slide_point())))
        s_label.add_updater(lambda m: settle(m.next_to(screen(slide_point() @ proj()), DOWN + LEFT, buff=0.12),
                                             screen(slide_point() @ proj())))
        letters += [x_label, s_label]
        fix_in_frame(self, x_label, s_label)
        outline(x_label, s_label)
        pair_note = note(self.tr("same_shadow"), lang, color=palette.ALERT, width=COLUMN_W - 0.1)
        pair_note.next_to(P_row, DOWN, aligned_edge=LEFT, buff=0.35)
        fix_in_frame(self, pair_note)
        slid: dict[str, dict] = {}
        with self.beat("pair_say", focus=runner):
            self.play(FadeIn(track), FadeIn(runner), FadeIn(its_shadow), FadeIn(x_label), FadeIn(s_label),
                      FadeIn(pair_note), run_time=0.8)
            for t, name in ((1.0, "far"), (0.35, "near"), (0.75, "mid")):
                self.play(slide.animate.set_value(t), run_time=1.6, rate_func=smooth)
                slid[name] = {"point": runner.get_center() - off, "shadow": its_shadow.get_center() - off}
        self.key_moment("pair", slid=slid, corner=V[top], **self._arrows(d_arrow, n_arrow))

        # a point lamp: perspective, linear only in homogeneous coordinates
        lamp = Dot(L + off, radius=0.14, color=LIGHT).set_z_index(-12)
        self.add_fixed_orientation_mobjects(lamp)
        lamp_panel = VGroup(note(self.tr("lamp_note"), lang, width=COLUMN_W - 0.1),
                            MathTex(r"[x,\ 1]\,H \propto [s,\ 1]", font_size=34)
                            ).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        lamp_panel.next_to(facts, DOWN, aligned_edge=LEFT, buff=0.35)
        fix_in_frame(self, lamp_panel)
        with self.beat("lamp_say", focus=lamp):
            self.play(FadeOut(track), FadeOut(runner), FadeOut(its_shadow), FadeOut(x_label), FadeOut(s_label),
                      FadeOut(pair_note), FadeOut(P_row), FadeOut(d_arrow), FadeOut(d_label), run_time=0.6)
            self.play(FadeIn(lamp), FadeIn(lamp_panel), run_time=0.8)
            self.play(lampness.animate.set_value(1.0), run_time=2.4, rate_func=smooth)
        self.key_moment("lamp", lamp=lamp.get_center() - off, lamp_screen=screen(lamp.get_center() - off),
                        lamp_radius=lamp.radius,
                        **self._probes(corners, marks, shadow, None, n_arrow, wall),
                        starts=np.array([r.get_start() - off for r in rays]))

        # wall coordinates: the 3x2 matrix B reads the shadow s as two numbers
        n = normal()
        B = qm.wall_basis(n)
        s = shadows()[top]
        c = s @ B
        axes = (FlatArrow(palette.BASIS_I, stroke_width=5).put(off, B[:, 0] + off, toward),
                FlatArrow(palette.BASIS_J, stroke_width=5).put(off, B[:, 1] + off, toward))
        feet = (c[0] * B[:, 0], c[1] * B[:, 1])
        axis_lines = VGroup(*[Line(a @ B.T + off, b @ B.T + off, color=col, stroke_width=2, stroke_opacity=0.6)
                              for a, b, col in (((u0, 0), (u1, 0), palette.BASIS_I),
                                                ((0, v0), (0, v1), palette.BASIS_J))])
        guides = VGroup(*[DashedLine(s + off, f + off, color=col, stroke_width=3, dash_length=0.1)
                          for f, col in zip(feet, (palette.BASIS_I, palette.BASIS_J))])
        s_dot = Dot(s + off, radius=0.085, color=palette.ALERT)
        self.add_fixed_orientation_mobjects(s_dot)
        for z, mob in enumerate((axis_lines, guides, *axes, s_dot)):
            mob.set_z_index(-24 + 0.1 * z)   # on the wall, over the shadow, under the rays
        axis_labels = VGroup(MathTex(r"b_1", font_size=LABEL_SIZE - 4, color=palette.BASIS_I),
                             MathTex(r"b_2", font_size=LABEL_SIZE - 4, color=palette.BASIS_J))
        s_mark = MathTex("s", font_size=LABEL_SIZE + 6, color=palette.ALERT)
        settle(past(axis_labels[0], ORIGIN, B[:, 0]), screen(B[:, 0]))
        settle(past(axis_labels[1], ORIGIN, B[:, 1]), screen(B[:, 1]), also=(axis_labels[0],))
        settle(s_mark.next_to(screen(s), UL, buff=0.12), screen(s), also=tuple(axis_labels))
        letters += [*axis_labels, s_mark]
        fix_in_frame(self, *axis_labels, s_mark)
        outline(*axis_labels, s_mark)
        shown_coords = [tex_number(v, 2, pad=True) for v in c]
        b_panel = VGroup(
            VGroup(MathTex("B =", font_size=34), matrix_mob(B, font_size=32, digits=2)).arrange(RIGHT, buff=0.15),
            MathTex(rf"s\,B = [{shown_coords[0]},\ {shown_coords[1]}]", font_size=34),
            note(self.tr("basis_note"), lang, width=COLUMN_W - 0.1),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.25)
        b_panel.next_to(facts, DOWN, aligned_edge=LEFT, buff=0.35)
        fix_in_frame(self, b_panel)
        driver.clear_updaters()
        with self.beat("basis_say", focus=guides) as said:
            starts = self._cue_starts(said)
            self.play(FadeOut(lamp_panel), FadeIn(axis_lines), FadeIn(VGroup(*axes)), FadeIn(axis_labels),
                      run_time=0.8)
            self._wait_until(starts[1] if len(starts) > 1 else 0.0, VGroup(*axes))   # as B and s are named
            self.play(FadeIn(s_dot), FadeIn(s_mark), FadeIn(b_panel), run_time=0.8)
            self.play(FadeIn(guides), run_time=1.0)
        self.key_moment("basis", normal=n, origin=[a.ends[0] - off for a in axes],
                        axes=[a.ends[1] - a.ends[0] for a in axes], s=s_dot.get_center() - off,
                        corner=V[top], lamp=lamp.get_center() - off, coords=shown_coords,
                        feet=[(g.get_start() - off, g.get_end() - off) for g in guides],
                        wall_screen=cam.project_points(wall.get_vertices()),
                        lamp_screen=screen(lamp.get_center() - off), lamp_radius=lamp.radius,
                        layers={"wall": wall, "shadow": shadow, "axes": VGroup(*axes), "s": s_dot,
                                "guides": guides})
        self.key_moment("end")

    # --- helpers -----------------------------------------------------------------

    def _fit_view(self, points: np.ndarray) -> np.ndarray:
        """Zoom the camera so ``points`` (k, 3) fill PICTURE when drawn shifted
        by the returned offset (a 3-vector: the scene draws x at x + offset).
        (The camera's own frame_center would move the text fixed in the frame too.)"""
        cam = self.renderer.camera
        cam.reset_rotation_matrix()
        R = cam.get_rotation_matrix()
        left, bottom, right, top = PICTURE
        want = np.array([(left + right) / 2, (bottom + top) / 2])
        q = points @ R.T
        span = q.max(axis=0) - q.min(axis=0)
        # a deep scene (light grazing the wall casts far) is seen from further off: points nearly as far
        # in front as the camera would be blown up (or behind it), the fit would collapse
        if span[2] / 2 > DEPTH_SHARE * cam.get_focal_distance():
            cam.set_focal_distance(span[2] / 2 / DEPTH_SHARE)
        zoom = 0.97 * min((right - left) / span[0], (top - bottom) / span[1])
        middle = (q.max(axis=0) + q.min(axis=0)) / 2
        shift = np.array([want[0] / zoom - middle[0], want[1] / zoom - middle[1], -middle[2]])
        for _ in range(4):   # the camera's perspective bends the fit a little: correct it
            cam.set_zoom(zoom)
            drawn = cam.project_points(points + R.T @ shift)
            lo, hi = drawn.min(axis=0), drawn.max(axis=0)
            zoom *= min(1.0, (right - left) / (hi[0] - lo[0]), (top - bottom) / (hi[1] - lo[1]))
            shift[:2] -= ((lo[:2] + hi[:2]) / 2 - want) / zoom
        cam.set_zoom(zoom)
        return R.T @ shift

    def _cue_starts(self, sentence: str) -> list[float]:
        """When each cue of this beat starts (scene time), if the animations
        are shorter than the reading: the beat shares its time out by reading time."""
        cues = split_cues(sentence, self.lang)
        weights = [cue_seconds(c, self.lang) for c in cues]
        t0 = self.renderer.time
        return [t0 + sum(weights[:k]) for k in range(len(cues))]

    def _wait_until(self, t: float, focus: Mobject) -> None:
        """Let time run to ``t``, highlighting ``focus`` so the frame is never still for long."""
        while t - self.renderer.time > 2.5:
            self.play(Indicate(focus, scale_factor=1.06, color=LIGHT), run_time=1.0)
            self.wait(min(1.2, t - self.renderer.time - 1.0))
        if t - self.renderer.time > 0.05:
            self.wait(t - self.renderer.time)

    def _arrows(self, d_arrow: FlatArrow | None, n_arrow: FlatArrow) -> dict:
        """The arrows as drawn: d's and n's directions, n's foot."""
        out = {"n_foot": n_arrow.ends[0] - self.off, "n_dir": unit(n_arrow.ends[1] - n_arrow.ends[0])}
        if d_arrow is not None:
            out["d_dir"] = unit(d_arrow.ends[1] - d_arrow.ends[0])
        return out

    def _probes(self, corners, marks, shadow, d_arrow, n_arrow, wall) -> dict:
        """What is drawn: corners, their shadow marks, the shadow outline, the
        wall's corners and the two arrows."""
        return {"vertices": np.array([c.get_center() for c in corners]) - self.off,
                "shadows": np.array([m.get_center() for m in marks]) - self.off,
                "outline": shadow.get_vertices() - self.off, "wall": wall.get_vertices() - self.off,
                "wall_screen": self.renderer.camera.project_points(wall.get_vertices()),
                **self._arrows(d_arrow, n_arrow)}
