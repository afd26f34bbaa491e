"""Scene 4, ShadowProjection: a shadow is the projection everyone has seen,
the strict, geometric special case of x W.

Parallel light along d casts each vertex x of a cube onto the wall
n . x = 0 as x @ P, P = I - outer(n, d) / (n . d) (row vectors), recomputed
every frame while the wall turns and the light tilts.  Rank 2: the cube
slides along its rays onto the wall, three of its edges landing in the
wall's plane.  P P = P: the flat shadow, cast again, is lit along rays of
length zero and nothing moves (P P read out beside P).  The cube slides
along the light and no shadow moves; the 3x2 matrix B of wall axes reads a
shadow as two numbers, x -> x P B.  Last, a point lamp (a perspective
projection, linear only in homogeneous coordinates, the 4x4 matrix H): a
copy of the cube nearer the lamp casts a bigger shadow.  Every filled
shadow is the exact convex hull of its shadow points; every number comes
from ``qkv_math.projection``.

Seen in a three-quarter view that the camera widens as the picture grows;
cairo has no depth buffer, so nothing here is a shaded 3-D surface: dots
and arrows are flat, drawn in the z order set below.

    manim -ql scenes/shadow_projection.py ShadowProjection
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from manim import (
    BLACK,
    DEGREES,
    DL,
    DOWN,
    DR,
    LEFT,
    ORIGIN,
    RIGHT,
    UL,
    UR,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    Line,
    MathTex,
    Mobject,
    Polygon,
    ThreeDScene,
    Transform,
    ValueTracker,
    VGroup,
    Write,
    config,
    linear,
    smooth,
)
from manim.camera.three_d_camera import ThreeDCamera

import qkv_math as qm
from qkv_lens.cues import split_cues
from qkv_lens.lesson.keys import Number, Params, Vector
from qkv_lens.numbers import tex_number
from scenes.kit import palette
from scenes.kit.layout import bounds, centre, fix_in_frame
from scenes.kit.legible import shrink_to_fit
from scenes.kit.live import LiveMap, Unchanged, put_segment
from scenes.kit.matrices import LiveMatrix, matrix_mob
from scenes.kit.motion import Emphasize
from scenes.kit.scene import LessonScene
from scenes.kit.text import text, title, wrapped_text
from scenes.kit.three_d import FlatArrow

PHI, THETA = 64 * DEGREES, 40 * DEGREES   # a three-quarter view: the wall seen at a slant, the cube before it
# Where the 3-D picture goes on screen (left, bottom, right, top): left of the
# text column, under the title, above the subtitle band (y >= -3.04).
PICTURE = (-6.85, -2.95, 2.5, 3.05)
COLUMN_X = 2.85          # the text column's left edge ...
COLUMN_W = 4.1           # ... and width
COLUMN_TOP = 3.55        # ... and top
LABEL_SIZE = 44          # the letters beside the drawn points and arrows
MATH_SIZE = 40           # the formulas and matrices in the text column
NOTE_SIZE = 28           # its one sentence: legible at 480p
DEPTH_SHARE = 0.3        # the picture reaches at most this share of the camera's distance towards it
# a formula's letters alone, as every language's sentence names them (not inside a word)
LONE_D, LONE_X, LONE_B, LONE_H = (rf"(?<![A-Za-z]){c}(?![A-Za-z])" for c in "dxBH")
LIGHT = palette.AREA     # light: rays, the lamp and the arrow d
NORMAL = palette.INK     # the wall's normal n
WALL_FILL = "#2A3340"
SHADOW_FILL = "#0B0F14"
MARGIN = 0.5             # the wall reaches this far past the shadows it holds
DIRECTIONS = [palette.INGREDIENTS[k] for k in (0, 1, 4)]   # the cube's three directions (not green: b_1 is)
COPY = palette.FOCUS     # the lamp's second cube and its shadow's outline


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


def box_of(uv: np.ndarray, margin: float = MARGIN) -> np.ndarray:
    """The rectangle (its four corners, counter-clockwise) holding the wall
    points ``uv`` (k, 2), ``margin`` past them."""
    (u0, v0), (u1, v1) = uv.min(axis=0) - margin, uv.max(axis=0) + margin
    return np.array([(u0, v0), (u1, v0), (u1, v1), (u0, v1)])


class ShadowParams(Params):
    """[shadow_projection]: a cube (centre, edge) in front of the wall n . x = 0
    (n starts as [1, 0, 0] and turns about z); parallel light along ``light``
    tilting to ``light_end``; a point lamp; ``ray_step``: how far up the light
    the cube slides."""
    section = "shadow_projection"
    cube_center: tuple[Fraction, Fraction, Fraction] = Vector("space", 3, doc="the cube, in front of the wall")
    cube_size: Fraction = Number("cube_size", doc="its edge")
    light: tuple[Fraction, Fraction, Fraction] = Vector("direction", 3, nonzero=True,
                                                        doc="parallel light: its direction, towards the wall")
    light_end: tuple[Fraction, Fraction, Fraction] = Vector("direction", 3, nonzero=True,
                                                            doc="the direction the light tilts to")
    wall_turn_degrees: Fraction = Number("angle", doc="how far the wall turns about the vertical axis")
    lamp: tuple[Fraction, Fraction, Fraction] = Vector("space", 3, doc="the point lamp, further from the wall")
    ray_step: Fraction = Number("ray_step", doc="how far up the light the cube slides")


@dataclass
class _World:
    """The lesson's cube, wall and lights in scene coordinates (before the
    view's offset), and the trackers that move them: where each thing is at
    the trackers' values."""
    V: np.ndarray              # the cube's vertices, one a row
    size: float                # its edge
    d0: np.ndarray             # the parallel light's direction ...
    d1: np.ndarray             # ... and the one it tilts to
    turn: float                # how far the wall turns (radians)
    L: np.ndarray              # the point lamp
    ray_step: float            # how far up the light the cube slides
    angle: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))      # the wall's turn so far
    tilt: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))       # 0 -> 1: d0 -> d1
    lampness: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))   # 0 -> 1: parallel -> lamp
    cast: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))       # 0 -> 1: the rays reach the wall
    flat: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))       # 0 -> 1: the cube onto the wall
    again: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))      # 0 -> 1: rays from the cube as drawn
    slide: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))      # 0 -> 1: the cube up the light
    grow: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))       # 0 -> 1: the wall, to hold all turns
    near: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))       # 0 -> 1: a copy towards the lamp
    centre: np.ndarray = field(init=False)
    top: int = 0               # the vertex x: its ray, its shadow and the wall numbers that read it
    to_lamp: np.ndarray = field(init=False)     # how far the copy moves towards the lamp
    first_uv: np.ndarray = field(init=False)    # the wall in its own axes B: first (the first shadow) ...
    full_uv: np.ndarray = field(init=False)     # ... then every turn and tilt (and the origin) ...
    lamp_uv: np.ndarray = field(init=False)     # ... then the lamp's shadows too
    foot_uv: np.ndarray = field(init=False)     # where n stands on it
    n_len: float = field(init=False)

    @classmethod
    def of(cls, p: ShadowParams) -> _World:
        V = qm.cube_vertices(np.array(p.cube_center, dtype=float), float(p.cube_size))
        d0, d1 = (np.array(v, dtype=float) for v in (p.light, p.light_end))
        return cls(V, float(p.cube_size), d0, d1, np.deg2rad(float(p.wall_turn_degrees)),
                   np.array(p.lamp, dtype=float), float(p.ray_step))

    def __post_init__(self) -> None:
        V = self.V
        self.centre = V.mean(axis=0)
        n_end = turned(self.turn)
        # the copy moves towards the lamp until its nearest vertex has covered half its way there
        h_lamp, h_max, h_mid = self.L @ n_end, float((V @ n_end).max()), float(self.centre @ n_end)
        self.to_lamp = 0.5 * (h_lamp - h_max) / (h_lamp - h_mid) * (self.L - self.centre)
        first = V @ qm.shadow_matrix(self.d0, turned(0.0)) @ qm.wall_basis(turned(0.0))
        self.first_uv = box_of(first)
        uv = [first, np.zeros((1, 2))]
        for a in np.linspace(0, self.turn, 7):
            B = qm.wall_basis(turned(a))
            for t in (0.0, 0.5, 1.0):
                uv.append(V @ qm.shadow_matrix(self.light(t), turned(a)) @ B)
        self.full_uv = box_of(np.concatenate([*uv, self.first_uv]))
        B = qm.wall_basis(n_end)
        lamp = [qm.lamp_shadows(self.L, n_end, 0.0, V + self.to_lamp) @ B, qm.lamp_shadows(self.L, n_end, 0.0, V) @ B]
        self.lamp_uv = box_of(np.concatenate([*lamp, self.full_uv]), margin=0.3)
        self.foot_uv = self.first_uv.mean(axis=0)     # until the view is known (_clear_foot)
        self.n_len = 0.8 + 0.3 * self.size

    def light(self, t: float | None = None) -> np.ndarray:
        """The light's direction at tilt ``t`` (default: the tracker's)."""
        t = self.tilt.get_value() if t is None else t
        return unit((1 - t) * self.d0 + t * self.d1)

    def normal(self) -> np.ndarray:
        return turned(self.angle.get_value())

    def proj(self) -> np.ndarray:
        return qm.shadow_matrix(self.light(), self.normal())

    def cube(self) -> np.ndarray:
        """Where the cube's vertices are now: slid up the light by the slide tracker."""
        return self.V - self.slide.get_value() * self.ray_step * self.light()

    def body(self) -> np.ndarray:
        """The cube as drawn: collapsing along its rays onto the wall as the flat tracker goes to 1."""
        C = self.cube()
        return C + self.flat.get_value() * (C @ self.proj() - C)

    def shadows(self) -> np.ndarray:
        """Where the vertices fall now: parallel light blended into the lamp's."""
        C = self.cube()
        S = C @ self.proj()
        lam = self.lampness.get_value()
        if lam > 0:
            S = (1 - lam) * S + lam * qm.lamp_shadows(self.L, self.normal(), 0.0, C)
        return S

    def copy(self) -> np.ndarray:
        """The lamp's second cube: the same cube moved towards the lamp by the near tracker."""
        return self.V + self.near.get_value() * self.to_lamp

    def copy_shadows(self) -> np.ndarray:
        return qm.lamp_shadows(self.L, self.normal(), 0.0, self.copy())

    def landed(self, S: np.ndarray) -> np.ndarray:
        """How far along its ray each vertex has slid towards its shadow ``S``
        (0 -> 1) at the cast tracker's value: the rays all start together and
        travel at one speed, so the vertices nearest the wall land first."""
        far = np.linalg.norm(S - self.cube(), axis=1)
        return np.clip(self.cast.get_value() * far.max() / np.maximum(far, 1e-9), 0.0, 1.0)

    def arrivals(self) -> np.ndarray:
        """The cast tracker's value at which each vertex lands on the wall."""
        far = np.linalg.norm(self.V @ self.proj() - self.V, axis=1)
        return far / far.max()

    def d_ends(self, d: np.ndarray, C: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Where the arrow d is drawn: over the cube ``C`` (default: where it is), along the light."""
        C = self.cube() if C is None else C
        up = np.array([0.0, 0.0, 1.0]) - d[2] * d
        up = up / max(np.linalg.norm(up), 1e-9)
        lift = float(np.max((C - C.mean(axis=0)) @ up)) + 0.45
        tail = C.mean(axis=0) + lift * up - (0.5 * self.size + 1.0) * d
        return tail, tail + 1.2 * d

    def n_ends(self, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the arrow n is drawn: standing on the wall with normal ``n``."""
        foot = self.foot_uv @ qm.wall_basis(n).T
        return foot, foot + self.n_len * n

    def wall_corners(self) -> np.ndarray:
        """The wall's corners in its own axes now: it grows to hold the turns, then the lamp's shadows."""
        g, lam = self.grow.get_value(), self.lampness.get_value()
        return self.first_uv + g * (self.full_uv - self.first_uv) + lam * (self.lamp_uv - self.full_uv)

    def extent(self, stage: str) -> np.ndarray:
        """Every point the scene draws in ``stage`` ("first": the first cast;
        "full": the wall turning, the light tilting, the cube sliding;
        "final": the cube sliding at the last wall and light; "basis": the
        cube back, at the last wall; "lamp"), one a row: what the view must
        hold."""
        out = [self.V]
        if stage == "first":
            out += [self.first_uv @ qm.wall_basis(turned(0.0)).T, np.array(self.n_ends(turned(0.0))),
                    np.array(self.d_ends(self.light(0.0), self.V))]
        elif stage in ("final", "basis"):
            n = turned(self.turn)
            out += [self.full_uv @ qm.wall_basis(n).T, np.array(self.n_ends(n)),
                    np.array(self.d_ends(self.light(1.0), self.V))]
            if stage == "final":
                slid = self.V - self.ray_step * self.light(1.0)
                out += [slid, np.array(self.d_ends(self.light(1.0), slid))]
        elif stage == "full":
            slid = self.V - self.ray_step * self.light(1.0)
            out += [slid, np.array(self.d_ends(self.light(1.0), slid))]
            for a in np.linspace(0, self.turn, 7):
                out += [self.full_uv @ qm.wall_basis(turned(a)).T, np.array(self.n_ends(turned(a)))]
            for t in np.linspace(0, 1, 5):
                out.append(np.array(self.d_ends(self.light(t), self.V)))
        else:
            n = turned(self.turn)
            out += [self.L[None, :], self.V + self.to_lamp, self.lamp_uv @ qm.wall_basis(n).T,
                    np.array(self.n_ends(n))]
        return np.concatenate(out)


@dataclass
class _Picture:
    """The 3-D picture, in its z order (back to front)."""
    wall: Polygon
    shadow: Polygon
    copy_shadow: Polygon   # the lamp's second cube's shadow (an outline over the first)
    marks: VGroup          # the shadows of the vertices
    n_arrow: FlatArrow
    rays: VGroup
    d_arrow: FlatArrow
    ghost: VGroup          # the cube where it was (dashed), while it collapses or slides
    edges: VGroup          # the cube ...
    corners: VGroup
    sliders: VGroup        # ... its vertices as they slide to their shadows
    directions: VGroup     # ... three of its edges, its three directions
    copy_edges: VGroup     # the lamp's second cube

    @classmethod
    def of(cls, V: np.ndarray, off: np.ndarray) -> _Picture:
        """The picture of the cube ``V`` drawn at V + ``off``; the rest is placed by ``_Stage.draw``."""
        def lines(width: float, color, opacity: float = 1.0) -> VGroup:
            return VGroup(*[Line(V[i] + off, V[j] + off, stroke_width=width, color=color, stroke_opacity=opacity)
                            for i, j in qm.CUBE_EDGES])

        pic = cls(
            wall=Polygon(*[np.zeros(3)] * 4, stroke_color=palette.MUTED, stroke_width=2,
                         fill_color=WALL_FILL, fill_opacity=0.9),
            shadow=Polygon(*[np.zeros(3)] * 4, stroke_width=0, fill_color=SHADOW_FILL, fill_opacity=0.92),
            copy_shadow=Polygon(*[np.zeros(3)] * 4, stroke_color=COPY, stroke_width=3, fill_color=SHADOW_FILL,
                                fill_opacity=0.45),
            marks=VGroup(*[Dot(radius=0.06, color=palette.EMBED) for _ in V]),
            n_arrow=FlatArrow(NORMAL),
            rays=VGroup(*[Line(np.zeros(3), np.ones(3), stroke_width=2, color=LIGHT, stroke_opacity=0.75)
                          for _ in V]),
            d_arrow=FlatArrow(LIGHT, stroke_width=6, tip=0.32),
            ghost=VGroup(*[DashedLine(V[i] + off, V[j] + off, stroke_width=2, color=palette.MUTED, dash_length=0.08)
                           for i, j in qm.CUBE_EDGES]),
            edges=lines(3.5, palette.EMBED),
            corners=VGroup(*[Dot(v + off, radius=0.07, color=palette.EMBED) for v in V]),
            sliders=VGroup(*[Dot(v + off, radius=0.07, color=palette.EMBED) for v in V]),
            directions=VGroup(*[FlatArrow(c, stroke_width=7, tip=0.3) for c in DIRECTIONS]),
            copy_edges=lines(3, COPY))
        for z, mob in enumerate(pic.layers()):
            mob.set_z_index(z - 30)
        return pic

    def layers(self) -> tuple[Mobject, ...]:
        return (self.wall, self.shadow, self.copy_shadow, self.marks, self.n_arrow, self.rays, self.d_arrow,
                self.ghost, self.edges, self.corners, self.sliders, self.directions, self.copy_edges)

    def dots(self) -> tuple[Mobject, ...]:
        """The dots: drawn round, whatever the view."""
        return (*self.marks, *self.corners, *self.sliders)


@dataclass
class _Letter:
    """A letter on the picture and the point it names (``anchor``: where that point is drawn now);
    ``settled``: what its latest settlings read, each with where it put the letter (None: left
    where put); the letter and an animation's copies of it read the same in a frame."""
    mob: MathTex
    anchor: Callable[[], np.ndarray]
    settled: dict = field(default_factory=dict)


@dataclass
class _Stage:
    """What the beats share: the world, the view (x is drawn at x + ``off``;
    ``toward``: the unit vector from the scene to the camera), the picture,
    the letters on it (kept clear of each other and of the drawn lines) and
    the text column; ``live`` redraws the picture at the trackers' values."""
    world: _World
    off: np.ndarray
    cam: ThreeDCamera
    toward: np.ndarray
    pic: _Picture
    heading: Mobject
    readout: LiveMatrix        # P, live
    twice: LiveMatrix          # P P, live
    pan: tuple[ValueTracker, ValueTracker]   # the picture's shift on screen (x, y), after the projection
    plain: Callable[[np.ndarray], np.ndarray]   # the camera's projection without it
    lamp: Dot                                   # the point lamp
    letters: list[_Letter] = field(default_factory=list)
    names: dict[str, MathTex] = field(default_factory=dict)    # the letters by their TeX: n, d, x, x P, ...
    rows: dict[str, Mobject] = field(default_factory=dict)     # the text column's rows: x W, P's formula, ...
    segments: list[Mobject] = field(default_factory=list)   # lines the letters keep off, besides the picture's
    live: LiveMap = field(init=False)
    unchanged: Unchanged = field(default_factory=Unchanged)

    def __post_init__(self) -> None:
        self.live = LiveMap(self.draw, z=-40)   # below everything: every layer is redrawn each frame

    def screen(self, x: np.ndarray) -> np.ndarray:
        """Where the scene point ``x`` is drawn."""
        return self.cam.project_point(np.asarray(x, dtype=float) + self.off)

    def draw(self, _state: object = None) -> None:
        """Put the picture and the readouts where the trackers say (the live map's ``show``)."""
        w, pic, off = self.world, self.pic, self.off
        if self.unchanged(*(t.get_value() for t in (w.angle, w.tilt, w.lampness, w.cast, w.flat, w.again, w.slide,
                                                     w.grow, w.near, *self.pan)),
                          self.cam.get_phi(), self.cam.get_theta(), self.cam.get_zoom()):
            return          # nothing it draws has moved since the last frame
        self.toward = self.cam.generate_rotation_matrix()[2]    # the flat arrows face the camera as it moves
        n, P, S, C, Y = w.normal(), w.proj(), w.shadows(), w.cube(), w.body()
        R = C + w.again.get_value() * (Y - C)     # where the rays start: the cube, or the flat shadow cast again
        B = qm.wall_basis(n)
        wall = w.wall_corners()
        pic.wall.set_points_as_corners([c @ B.T + off for c in (*wall, wall[0])])
        hull = qm.convex_hull_2d(S @ B)
        pic.shadow.set_points_as_corners([S[i] + off for i in (*hull, hull[0])])
        lam = w.lampness.get_value()
        for i, (ray, dot, slider, c) in enumerate(zip(pic.rays, pic.marks, pic.sliders, w.landed(S))):
            src = (1 - lam) * R[i] + lam * w.L + off
            put_segment(ray, src, src + max(c, 1e-3) * (S[i] + off - src))
            dot.move_to(S[i] + off).set_opacity(1.0 if c >= 1.0 else 0.0)   # a shadow only once its ray lands
            slider.move_to(C[i] + c * (S[i] - C[i]) + off)
        for (i, j), line in zip(qm.CUBE_EDGES, pic.edges):
            put_segment(line, Y[i] + off, Y[j] + off)
        for dot, y in zip(pic.corners, Y):
            dot.move_to(y + off)
        for arrow, k in zip(pic.directions, (4, 2, 1)):    # vertex i has sign bits (x, y, z) of i
            arrow.put(Y[w.top] + off, Y[w.top ^ k] + off, self.toward)
        if lam > 0:
            K, T = w.copy(), w.copy_shadows()
            for (i, j), line in zip(qm.CUBE_EDGES, pic.copy_edges):
                put_segment(line, K[i] + off, K[j] + off)
            hull = qm.convex_hull_2d(T @ B)
            pic.copy_shadow.set_points_as_corners([T[i] + off for i in (*hull, hull[0])])
        pic.d_arrow.put(*(e + off for e in w.d_ends(w.light())), self.toward)
        pic.n_arrow.put(*(e + off for e in w.n_ends(n)), self.toward)
        self.readout.set_matrix(P)
        self.twice.set_matrix(P @ P)
        self.cam.add_fixed_in_frame_mobjects(self.readout, self.twice)   # digits rebuilt stay flat in the frame

    def beside(self, label: Mobject, a: np.ndarray, b: np.ndarray, at: float = 0.5, gap: float = 0.2) -> Mobject:
        """Put ``label`` beside the drawn segment a-b (3-D), on its upper side."""
        sa, sb = self.screen(a), self.screen(b)
        u = unit(sb - sa)
        side = np.array([-u[1], u[0], 0.0])
        if side[1] < 0:
            side = -side
        half = 0.5 * (abs(side[0]) * label.width + abs(side[1]) * label.height)
        return label.move_to(sa + at * (sb - sa) + (gap + half) * side)

    def past(self, label: Mobject, a: np.ndarray, b: np.ndarray, gap: float = 0.15) -> Mobject:
        """Put ``label`` just past the end b of the drawn segment a-b."""
        sa, sb = self.screen(a), self.screen(b)
        u = unit(sb - sa)
        half = 0.5 * (abs(u[0]) * label.width + abs(u[1]) * label.height)
        return label.move_to(sb + (gap + half) * u)


LINE_CLEARANCE = 0.09   # a letter's box keeps this far from every drawn line (its outline and the line's width)
DOT_CLEARANCE = 0.14    # ... and this far from every dot's centre
GAPS = (0.1, 0.25, 0.45, 0.7, 1.0)   # how far from its point a letter is tried, nearest first
_TRIED = (np.repeat(GAPS, 16)[:, None],     # the spots a letter is tried at: (gap, unit direction), nearest first
          np.array([[np.cos(a), np.sin(a), 0.0] for a in (np.pi / 2 + k * np.pi / 8 for k in range(16))] * len(GAPS)))
SETTLED_KEPT = 16       # settlings a letter remembers (its own and its copies', in the latest frames)
READABLE = 0.4          # the wall numbers of x's shadow, when they can be, are at least this far from 0


def _free_boxes(boxes: np.ndarray, others: list[tuple], top: float, lines: np.ndarray,
                dots: np.ndarray) -> np.ndarray:
    """Which of a letter's ``boxes`` (n, 4) lie in the free picture (left of
    the text column, above the subtitles, under ``top``), clear of ``others``,
    of the drawn ``lines`` (points along them on screen, one a row) and of
    ``dots``: (n,) bools."""
    left, bottom = -config.frame_width / 2 + 0.1, -config.frame_height / 2 + 0.12 * config.frame_height + 0.06
    good = ((left <= boxes[:, 0]) & (boxes[:, 2] <= COLUMN_X - 0.1) & (bottom <= boxes[:, 1])
            & (boxes[:, 3] <= top))
    for points, pad in ((lines, LINE_CLEARANCE), (dots, DOT_CLEARANCE)):
        if len(points):
            x, y = points[None, :, 0], points[None, :, 1]
            good &= ~np.any((x > boxes[:, :1] - pad) & (x < boxes[:, 2:3] + pad)
                            & (y > boxes[:, 1:2] - pad) & (y < boxes[:, 3:4] + pad), axis=1)
    for o in others:
        good &= ~((boxes[:, 0] < o[2] + 0.04) & (o[0] < boxes[:, 2] + 0.04)
                  & (boxes[:, 1] < o[3] + 0.04) & (o[1] < boxes[:, 3] + 0.04))
    return good


def _reaches(points: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """How far each of the screen ``points`` (k, 2) is from each of ``boxes`` (n, 4), 0 inside: (n, k)."""
    lo, hi = boxes[:, None, :2], boxes[:, None, 2:]
    d = np.maximum(0.0, np.maximum(lo - points[None], points[None] - hi))
    return np.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1])


def _within(points: np.ndarray, region: tuple) -> np.ndarray:
    """The rows of ``points`` (n, 2) inside ``region`` (left, bottom, right, top)."""
    keep = ((points[:, 0] > region[0]) & (points[:, 0] < region[2])
            & (points[:, 1] > region[1]) & (points[:, 1] < region[3]))
    return points[keep]


def _clear_corner(w: _World, screen) -> int:
    """The vertex x: the one whose light ray (as the cube slides along it,
    after the wall has turned and the light tilted) crosses the fewest of
    the cube's drawn edges on screen (``screen``: points (k, 3) to screen
    (k, 2)) wherever the cube is on its way; among those, one whose shadow
    lies clear of both wall axes (its two wall numbers at least READABLE
    from 0), then the highest nearest the wall."""
    d = w.light(1.0)
    P = qm.shadow_matrix(d, turned(w.turn))
    uv = w.V @ P @ qm.wall_basis(turned(w.turn))

    def crossings(k: int) -> int:
        a, b = screen(w.V[k] - w.ray_step * d)[0], screen(w.V[k] @ P)[0]
        count = 0
        for t in np.linspace(0, 1, 9):
            C = w.V - t * w.ray_step * d
            count += sum(_cross(a, b, screen(C[i])[0], screen(C[j])[0]) for i, j in qm.CUBE_EDGES if k not in (i, j))
        return count

    return min(range(len(w.V)), key=lambda k: (crossings(k), bool(np.min(np.abs(uv[k])) < READABLE),
                                               -(w.V[k, 2] - w.V[k, 0])))


def _clear_foot(w: _World, screen) -> np.ndarray:
    """Where n stands on the first wall (its own axes): the corner of it
    (inset) from which the drawn arrow n keeps furthest, on screen, from the
    cube's edges and the first shadow (``screen``: points (k, 3) to (k, 2))."""
    n, B = turned(0.0), qm.wall_basis(turned(0.0))
    S = w.V @ qm.shadow_matrix(w.d0, n)
    t = np.linspace(0, 1, 12)[:, None]
    busy = np.concatenate([screen(w.V[i] + t * (w.V[j] - w.V[i])) for i, j in qm.CUBE_EDGES] + [screen(S)])
    inset = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * 0.4

    def room(foot_uv: np.ndarray) -> float:
        foot = foot_uv @ B.T
        arrow = screen(foot + t * w.n_len * n)
        return float(np.min(np.linalg.norm(arrow[:, None] - busy[None], axis=2)))

    return max(w.first_uv + inset, key=room)


def _cross(a: np.ndarray, b: np.ndarray, p: np.ndarray, q: np.ndarray) -> bool:
    """Whether the screen segments a-b and p-q cross."""
    def side(u, v, w):
        return np.sign((v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0]))
    return side(a, b, p) * side(a, b, q) < 0 and side(p, q, a) * side(p, q, b) < 0


def _samples(segments: np.ndarray, step: float = 0.03) -> np.ndarray:
    """Points along each screen segment of ``segments`` (m, 2, 2), one a row,
    at most ``step`` apart (closer than a letter is wide: a long ray sampled
    by a fixed count once stepped over a wall number)."""
    if not len(segments):
        return np.zeros((0, 2))
    longest = float(np.max(np.linalg.norm(segments[:, 1] - segments[:, 0], axis=1)))
    t = np.linspace(0, 1, max(2, int(np.ceil(longest / step)) + 1))[None, :, None]
    return (segments[:, None, 0] + t * (segments[:, None, 1] - segments[:, None, 0])).reshape(-1, 2)


class ShadowProjection(LessonScene, ThreeDScene):
    params: ShadowParams
    chapter = 1
    number = 4
    sparse_moments = {name: "the right column waits for P's formula, written at the end of the first beat"
                      for name in ("light", "landing")}
    s: _Stage
    _pulsing = False     # a beat's pulse is playing: the letters hold still (a pulsed line would push them)
    _passing: dict | None = None   # what an updater pass has read once (None: not in a pass)

    def construct(self):
        self.changes: dict[str, tuple[float, float]] = {}   # a named change: when its play starts and ends
        self.s = self._stage()
        self._intro()                           # a shadow: x -> x P, the special case of x W
        self._collapse()                        # rank 2: three directions fall into the wall's two
        self._ask_again()                       # checkpoint: does the shadow of the shadow move?
        self._again()                           # P P = P: rays of length zero
        self._turn()                            # the wall turns, the light tilts
        pair = self._pair()                     # the cube slides along the light; no shadow moves
        board, column = self._basis(pair)       # x -> x P B: two numbers on the wall
        self._lamp(board)                       # a point lamp: the nearer copy casts the bigger shadow
        panel = self._homogeneous(column)       # not linear; a 4x4 matrix in homogeneous coordinates
        self._ahead(panel)                      # projections need not shrink
        self.key_moment("end")

    # --- the stage ---------------------------------------------------------------

    def _stage(self) -> _Stage:
        """The world, the view fitted to its first cast, the picture, the text
        column's live readouts; the live map drawing them from now on."""
        w = _World.of(self.params)
        self.set_camera_orientation(phi=PHI, theta=THETA, zoom=1.0, frame_center=ORIGIN)
        off = self._fit_view(np.concatenate([w.extent(s) for s in ("first", "full", "lamp")]))   # all in view
        cam = self.renderer.camera
        w.top = _clear_corner(w, lambda x: cam.project_points(np.atleast_2d(x) + off)[:, :2])
        w.foot_uv = _clear_foot(w, lambda x: cam.project_points(np.atleast_2d(x) + off)[:, :2])
        pic = _Picture.of(w.V, off)
        for dot in pic.dots():
            self.add_fixed_orientation_mobjects(dot)   # round, whatever the view
        heading = title(self.tr("title"), self.lang)
        readout = LiveMatrix(np.eye(3), row_colors=(palette.INK,) * 3, font_size=38)
        twice = LiveMatrix(np.eye(3), row_colors=(palette.INK,) * 3, font_size=38)
        fix_in_frame(self, heading)
        pan, plain = (ValueTracker(0.0), ValueTracker(0.0)), cam.project_points

        def project(points: np.ndarray) -> np.ndarray:   # the camera's projection, then the pan
            out = plain(points)
            out[:, 0] += pan[0].get_value()
            out[:, 1] += pan[1].get_value()
            return out

        cam.project_points = project   # one camera, one scene: the 3-D picture pans, the text column stays
        lamp = Dot(w.L + off, radius=0.14, color=LIGHT).set_z_index(-12)
        self.add_fixed_orientation_mobjects(lamp)
        self.remove(lamp)
        s = self.s = _Stage(w, off, cam, cam.get_rotation_matrix()[2], pic, heading, readout, twice, pan=pan,
                            plain=plain, lamp=lamp)
        self._letters()
        self._rows()
        zoom, shift = self._view_for(PHI, THETA, w.extent("first"))   # then closer, on the first cast
        cam.set_zoom(zoom)
        for tracker, v in zip(pan, shift):
            tracker.set_value(v)
        self.add(s.live.driver)
        s.live.follow()
        s.live.attach()
        return s

    def _letters(self) -> None:
        """The letters of the parallel light and the lamp: n, d, the vertex x,
        its shadow x P (and x P P = x P once cast again) and its lamp shadow x'."""
        s, w = self.s, self.s.world
        top = w.top

        def shadow_of_x() -> np.ndarray:      # where x's shadow is drawn: parallel light, or the lamp's
            return s.screen(centre(s.pic.marks[top]) - s.off)

        self._letter("n", NORMAL, lambda: s.screen(w.n_ends(w.normal())[1]),
                     lambda m: s.past(m, *w.n_ends(w.normal())), size=LABEL_SIZE + 6)
        self._letter("d", LIGHT, lambda: np.mean([s.screen(e) for e in w.d_ends(w.light())], axis=0),
                     lambda m: s.beside(m, *w.d_ends(w.light())))
        self._letter("x", palette.INK, lambda: s.screen(w.V[top]),
                     lambda m: m.next_to(s.screen(w.V[top]), UL, buff=0.1))
        for tex in (r"x\,P", r"x\,P\,P = x\,P", "x'"):
            self._letter(tex, palette.INK, shadow_of_x, lambda m: m.next_to(shadow_of_x(), DL, buff=0.1))

    def _rows(self) -> None:
        """The text column's rows of the parallel light: x W (then x P), P's
        formula, P read out, its rank, P P read out."""
        s = self.s
        word = self.tr("rank_word")
        rows = {"x W": MathTex(r"x \mapsto x\,", "W", font_size=MATH_SIZE + 8),
                "x P": MathTex(r"x \mapsto x\,", "P", font_size=MATH_SIZE + 8),
                "formula": MathTex(r"P = I - \frac{n\,d^{\top}}{n^{\top} d}", font_size=MATH_SIZE + 4),
                "P": VGroup(MathTex("P =", font_size=MATH_SIZE), s.readout).arrange(RIGHT, buff=0.15),
                "rank": self._rank_row(word, qm.rank(s.world.proj())),
                "P P": VGroup(MathTex(r"P\,P =", font_size=MATH_SIZE), s.twice).arrange(RIGHT, buff=0.15)}
        self._column(rows["x W"], rows["formula"], rows["P"], rows["rank"], rows["P P"])
        rows["x P"].move_to(rows["x W"], aligned_edge=LEFT)
        fix_in_frame(self, *rows.values())
        s.rows.update(rows)

    def _rank_read(self) -> tuple[str, str]:
        """The rank row as drawn: its word and its formula."""
        row = self.s.rows["rank"]
        if isinstance(row, MathTex):
            word, formula = row.tex_string.split(r"}\,")
            return word.removeprefix(r"\mathrm{"), formula
        return row[0].text, row[1].tex_string

    def _rank_row(self, word: str, rank: int) -> Mobject:
        """rank P = 2: the word typeset upright as an operator (rank, rango); a
        word LaTeX cannot set here (秩: no CJK) in the lesson's font beside it."""
        if word.isascii() and word.isalpha():
            return MathTex(rf"\mathrm{{{word}}}\,P = {rank}", font_size=MATH_SIZE)
        return VGroup(text(word, self.lang, size=MATH_SIZE * 0.8), MathTex(rf"P = {rank}", font_size=MATH_SIZE)
                      ).arrange(RIGHT, buff=0.15, aligned_edge=DOWN)

    def _letter(self, tex: str, color, anchor: Callable[[], np.ndarray], put: Callable[[Mobject], Mobject],
                size: float = LABEL_SIZE) -> MathTex:
        """A letter naming the point drawn at ``anchor()``: placed by ``put``
        each frame, then settled clear of the other letters, lines and dots."""
        mob = MathTex(tex, font_size=size, color=color)
        letter = _Letter(mob, anchor)
        mob.add_updater(lambda m: m if self._pulsing else self._settle(put(m), self._anchor(letter), letter))
        self.s.letters.append(letter)
        self.s.names[tex] = mob
        fix_in_frame(self, mob)
        outline(mob)
        return mob

    def _settle(self, label: Mobject, anchor: np.ndarray, me: _Letter | None = None, also: tuple = ()) -> Mobject:
        """Leave ``label`` where it was put if that is inside the free picture,
        clear of the other letters shown (and of ``also``), of the drawn lines
        and dots, and nearer its own ``anchor`` than any other letter's point;
        else move it round its ``anchor`` (a point on screen) to the nearest
        spot that is."""
        shown = [t for t in self.s.letters if t.mob in self.mobjects and t is not me and t.mob is not label]
        others = [bounds(t.mob) for t in shown] + [bounds(o) for o in also]
        points = [self._anchor(t)[:2] for t in shown]
        lines, dots, top = self._obstacles()
        now = bounds(label)
        # a letter put where it was, among what it was (most frames): settled where it was
        read = (tuple(now), tuple(np.asarray(anchor, dtype=float)), tuple(map(tuple, others)),
                tuple(map(tuple, points)), lines.tobytes(), dots.tobytes(), top)
        if me is not None and read in me.settled:
            spot = me.settled[read]
            return label if spot is None else label.move_to(spot)
        spot = self._spot(label, anchor, now, others, points, lines, dots, top)
        if me is not None:
            if len(me.settled) >= SETTLED_KEPT:
                me.settled.clear()
            me.settled[read] = spot
        return label if spot is None else label.move_to(spot)

    def _anchor(self, letter: _Letter) -> np.ndarray:
        """``letter.anchor()``; in an updater pass read once (the letters, settling in turn, each read
        the others' points: nothing in a pass moves them)."""
        passing = self._passing
        if passing is None:
            return np.asarray(letter.anchor(), dtype=float)
        key = ("anchor", id(letter))
        if key not in passing:
            passing[key] = np.asarray(letter.anchor(), dtype=float)
        return passing[key]

    @staticmethod
    def _spot(label: Mobject, anchor: np.ndarray, now: tuple, others: list, points: list,
              lines: np.ndarray, dots: np.ndarray, top: float) -> np.ndarray | None:
        """Where ``_settle`` moves ``label`` (None: it stays where it is, its box ``now``)."""
        mine = np.asarray(anchor, dtype=float)[:2]
        w, h = label.width, label.height
        reach = GAPS[-1] + w + h + max(LINE_CLEARANCE, DOT_CLEARANCE) + 0.01   # no spot tried reaches further
        region = (min(now[0], mine[0] - reach), min(now[1], mine[1] - reach),
                  max(now[2], mine[0] + reach), max(now[3], mine[1] + reach))
        lines, dots = _within(lines, region), _within(dots, region)     # the rest can touch no box tried

        far = np.array([p for p in points if np.linalg.norm(p - mine) > 1e-6]).reshape(-1, 2)

        def ok(boxes: np.ndarray) -> np.ndarray:      # (n, 4) -> (n,): free, and nearer its own point
            good = _free_boxes(boxes, others, top, lines, dots)
            if len(far):
                good &= np.all(_reaches(mine[None], boxes) < _reaches(far, boxes), axis=1)
            return good

        if ok(np.array([now], dtype=float))[0]:
            return None
        # every spot tried at once, nearest first: the first that is ok
        gaps, units = _TRIED
        centres = np.asarray(anchor, dtype=float) + (gaps + 0.5 * (np.abs(units[:, :1]) * w
                                                                  + np.abs(units[:, 1:2]) * h)) * units
        first = np.flatnonzero(ok(np.stack([centres[:, 0] - w / 2, centres[:, 1] - h / 2,
                                            centres[:, 0] + w / 2, centres[:, 1] + h / 2], axis=1)))
        return centres[first[0]] if len(first) else None

    def update_mobjects(self, dt: float) -> None:
        """manim's pass over the updaters; inside it, what the letters keep
        clear of is read once (``_obstacles``)."""
        self._reading_once(super().update_mobjects)(dt)

    def begin_animations(self) -> None:
        """manim's start of a play; then each animation's pass over the
        updaters of its copies (a fading letter's start and end: they settle
        too) reads the picture once, like the scene's pass (nothing the scene
        shows moves between them)."""
        super().begin_animations()
        for animation in self.animations or ():
            animation.update_mobjects = self._reading_once(animation.update_mobjects)

    def _reading_once(self, update: Callable[[float], None]) -> Callable[[float], None]:
        """``update`` run as one pass: the letters settling in it read the picture once."""
        def once(dt: float) -> None:
            if self._passing is not None:
                return update(dt)
            self._passing = {}
            try:
                update(dt)
            finally:
                self._passing = None
        return once

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray, float]:
        """Points along the drawn lines (``_samples``), the drawn dots'
        centres and the top of the free picture (under the heading); in an
        updater pass read once, by its first letter (six letters settling a
        frame read the same picture: reading it for each was a third of the
        render)."""
        passing = self._passing
        if passing is not None and "obstacles" in passing:
            return passing["obstacles"]
        shown = set(self.get_mobject_family_members())
        found = (_samples(self._drawn_lines(shown)), self._drawn_dots(shown), bounds(self.s.heading)[1] - 0.05)
        if passing is not None:
            passing["obstacles"] = found
        return found

    def play(self, *animations, **kwargs):
        """LessonScene.play; while a play of pulses only (``Emphasize``: a
        beat's filler, a wait for a cue) runs, the letters hold still."""
        self._pulsing = bool(animations) and all(isinstance(a, Emphasize) for a in animations)
        try:
            super().play(*animations, **kwargs)
        finally:
            self._pulsing = False

    def _play(self, name: str, *animations, run_time: float = 0.8, **kw) -> None:
        """Play the change the sentence names as ``name``; its start and end are kept in ``changes``."""
        start = self.renderer.time
        self.play(*animations, run_time=run_time, **kw)
        self.changes[name] = (start, self.renderer.time)

    def _clock(self, said: str) -> Callable[..., None]:
        """Called as its beat starts: ``at(where, focus)`` then waits
        (pulsing ``focus``) for a cue of the sentence ``said``: the first cue
        that holds the pattern ``where`` (a formula's letters, read alike in
        every language: r"x W", a lone d), or the cue read at the fraction
        ``where`` of the sentence (``fraction`` too, when no cue holds the
        pattern: a teacher's own sentence)."""
        cues = [c.replace("\n", " ") for c in split_cues(said, self.lang)]
        starts = self.cue_starts(said)
        fractions = np.linspace(0, 1, 201)
        by_fraction = dict(zip(np.round(fractions, 3), self.cue_at(said, *fractions)))

        def at(where: float | str, focus: Mobject, fraction: float = 0.5) -> None:
            holding = [k for k, c in enumerate(cues) if isinstance(where, str) and re.search(where, c)]
            f = fraction if isinstance(where, str) else where
            t = starts[holding[0]] if holding else by_fraction[round(round(f * 200) / 200, 3)]
            self.wait_until(t + 1 / config.frame_rate, focus)      # a frame late rather than early
        return at

    def _column(self, *rows: Mobject, top: float = COLUMN_TOP, buff: float = 0.3) -> VGroup:
        """``rows`` stacked down the text column from ``top``, each fitted to its width."""
        for row in rows:
            shrink_to_fit(row, width=COLUMN_W - 0.1)
        group = VGroup(*rows).arrange(DOWN, aligned_edge=LEFT, buff=buff)
        group.move_to([COLUMN_X, top, 0], aligned_edge=UL)
        return group

    # --- the beats ---------------------------------------------------------------

    def _intro(self) -> None:
        """The cube, the wall and n; x W; the light d carries each vertex x to x P; P's formula and numbers."""
        s, w, pic = self.s, self.s.world, self.s.pic
        rows, names = s.rows, s.names
        with self.beat("intro_say") as said:
            at = self._clock(said)
            self.play(Write(s.heading), FadeIn(pic.wall), FadeIn(pic.edges), FadeIn(pic.corners),
                      FadeIn(pic.n_arrow), FadeIn(names["n"]), run_time=1.2)
            at(r"x W", pic.edges, 0.4)   # "... a special case of x W"
            self._play("x W", FadeIn(rows["x W"], shift=0.2 * DOWN), run_time=0.6)
            at(LONE_D, pic.edges, 0.5)   # "light along d ..."
            self._play("light", FadeIn(pic.d_arrow), FadeIn(names["d"]), FadeIn(pic.sliders), run_time=0.6)
            at(LONE_X + r"(?! [WP])", pic.d_arrow, 0.65)   # "... carries each vertex x"
            self.play(FadeIn(names["x"]), run_time=0.3)
            self.key_moment("light", **self._marks())
            self.add(pic.rays)
            first = sorted(set(np.round(w.arrivals(), 6)))    # the nearest vertices land first ...
            half = (first[0] + first[1]) / 2 if len(first) > 1 else 1.0
            start = self.renderer.time
            self.play(w.cast.animate.set_value(half), run_time=2.0 * half, rate_func=linear)
            self.key_moment("landing", **self._marks())
            self.play(w.cast.animate.set_value(1.0), run_time=2.0 * (1 - half), rate_func=linear)
            self.changes["cast"] = (start, self.renderer.time)
            self.play(FadeIn(pic.shadow), FadeOut(pic.sliders), run_time=0.5)
            at(r"x P(?! B)", pic.marks, 0.97)   # "... its shadow is x P"
            self._play("x P", FadeIn(names[r"x\,P"]), Transform(rows["x W"], rows["x P"]), FadeIn(rows["formula"]),
                       FadeIn(rows["P"]), run_time=0.9)
            self.describe("describe_intro", P=w.proj(), places=2)
        self.key_moment("parallel", **self._probes(), **self._marks(), **self._named(), **self._clearance())

    def _collapse(self) -> None:
        """Rank 2: the cube slides along its rays onto the wall, its three
        directions (three edges at x) landing in the wall's plane."""
        s, w, pic = self.s, self.s.world, self.s.pic
        with self.beat("rank_say", focus=pic.directions) as said:
            at = self._clock(said)
            self.play(FadeIn(pic.directions), FadeIn(pic.ghost), run_time=0.6)
            self.key_moment("directions", ends=self._directions())
            self._play("flatten", w.flat.animate.set_value(1.0), run_time=3.4, rate_func=smooth)   # into the next cue
            at(0.93, pic.directions)   # "P has rank 2"
            self._play("rank", FadeIn(s.rows["rank"]), run_time=0.6)
            self.describe("describe_rank", rank=qm.rank(w.proj()))
        self.key_moment("collapsed", flat=np.array([d.get_center() - s.off for d in pic.corners]), vertices=w.V,
                        ends=self._directions(), **self._arrows(), rank=self._rank_read(),
                        **self._named(), **self._clearance())

    def _ask_again(self) -> None:
        """Before the flat shadow is cast again: will it move?  Right is
        "it stays" exactly when P P = P for the lesson's light and wall."""
        P = self.s.world.proj()
        choices = [self.tr("moves"), self.tr("stays")]
        self.checkpoint("again_ask", choices=choices, answer=int(np.allclose(P @ P, P)))

    def _again(self) -> None:
        """P P = P: cast again, the flat shadow's rays start where they land:
        they shrink to length zero and nothing moves; P P, read out under
        P, has P's numbers."""
        s, w, pic, off = self.s, self.s.world, self.s.pic, self.s.off
        before = np.array([dot.get_center() for dot in pic.corners]) - off
        with self.beat("again_say", focus=s.rows["P P"]) as said:
            at = self._clock(said)
            self._play("recast", w.again.animate.set_value(1.0), run_time=1.8, rate_func=smooth)
            self.key_moment("recast", before=before, after=np.array([dot.get_center() for dot in pic.corners]) - off,
                            rays=np.array([[r.get_start(), r.get_end()] for r in pic.rays]) - off)
            at(0.9, pic.rays)   # "P times P is P"
            self.remove(s.names[r"x\,P"])
            self._play("P P", FadeIn(s.rows["P P"]), FadeIn(s.names[r"x\,P\,P = x\,P"]), run_time=0.8)
            self.describe("describe_again", PP=w.proj() @ w.proj(), places=2)
        self.key_moment("again", flat=np.array([dot.get_center() - off for dot in pic.corners]), vertices=w.V,
                        twice=s.twice.values(), readout=s.readout.values(), **self._arrows(), **self._named(),
                        **self._clearance())

    def _turn(self) -> None:
        """The cube back out of the wall, the view widened; P (and P P) read
        out live while the wall turns, then while the light tilts."""
        s, w, pic = self.s, self.s.world, self.s.pic
        zoom, pan = self._view_for(PHI, THETA, w.extent("full"))
        with self.beat("turn_say", focus=pic.shadow) as said:
            at = self._clock(said)
            self.remove(s.names[r"x\,P\,P = x\,P"])
            self.move_camera(zoom=zoom, run_time=1.2,
                             added_anims=[s.pan[0].animate.set_value(pan[0]), s.pan[1].animate.set_value(pan[1]),
                                          w.flat.animate.set_value(0.0), w.grow.animate.set_value(1.0),
                                          FadeOut(pic.directions), FadeOut(pic.ghost), FadeIn(s.names[r"x\,P"])])
            self._play("turn", w.angle.animate.set_value(w.turn), run_time=2.6, rate_func=linear)
            self.key_moment("turned", **self._probes(), readout=s.readout.values(), twice=s.twice.values(),
                        **self._named(), **self._clearance())
            at(0.45, pic.shadow)   # "P is recomputed every frame"
            self._play("tilt", w.tilt.animate.set_value(1.0), run_time=2.6, rate_func=linear)
            self.describe("describe_turn", angle=self.params.wall_turn_degrees, P=w.proj(), places=2)
        self.key_moment("tilted", **self._probes(), readout=s.readout.values(), twice=s.twice.values(),
                        **self._named(), **self._clearance())

    def _pair(self) -> list[Mobject]:
        """The cube slides up the light and back part way; no shadow moves:
        points on one ray share one shadow.  Returns what it showed."""
        s, w, off = self.s, self.s.world, self.s.off
        V, top = w.V, w.top
        runner = Dot(V[top] + off, radius=0.09, color=palette.ALERT).set_z_index(-10)
        self.add_fixed_orientation_mobjects(runner)
        self.remove(runner)
        track = Line(V[top] - w.ray_step * w.light() + off, V[top] @ w.proj() + off, color=palette.ALERT,
                     stroke_width=3.5, stroke_opacity=0.9).set_z_index(-11)
        s.segments.append(track)
        runner.add_updater(lambda m: m.move_to(w.cube()[top] + off))
        slid: dict[str, dict] = {}
        zoom, pan = self._view_for(PHI, THETA, w.extent("final"))
        with self.beat("pair_say", focus=s.pic.shadow) as said:
            at = self._clock(said)
            self.move_camera(zoom=zoom, run_time=0.8, added_anims=[
                s.pan[0].animate.set_value(pan[0]), s.pan[1].animate.set_value(pan[1]), FadeIn(s.pic.ghost),
                FadeIn(track), FadeIn(runner)])
            start = self.renderer.time
            for t, name in ((1.0, "far"), (0.35, "near")):
                self.play(w.slide.animate.set_value(t), run_time=2.0 if t == 1.0 else 1.4, rate_func=smooth)
                slid[name] = {"cube": w.cube(), "drawn": np.array([c.get_center() for c in s.pic.corners]) - off,
                              "shadows": np.array([m.get_center() for m in s.pic.marks]) - off,
                              "outline": s.pic.shadow.get_vertices() - off, "runner": runner.get_center() - off}
            self.changes["slide"] = (start, self.renderer.time)
            at(0.6, track)   # "points on one ray share one shadow"
            self._play("one ray", Emphasize(track, scale_factor=1.04), Emphasize(runner, scale_factor=1.6),
                       w.slide.animate.set_value(0.75), run_time=1.2)
            slid["mid"] = {"cube": w.cube(), "drawn": np.array([c.get_center() for c in s.pic.corners]) - off,
                           "shadows": np.array([m.get_center() for m in s.pic.marks]) - off,
                           "outline": s.pic.shadow.get_vertices() - off, "runner": runner.get_center() - off}
            at(0.9, s.pic.shadow)   # "the outline survives"
            self._play("outline", s.pic.shadow.animate.set_stroke(color=palette.FOCUS, width=5), run_time=0.6)
            self.describe("describe_pair", step=w.ray_step, places=2)
        self.key_moment("pair", slid=slid, vertex=V[top], **self._arrows(), **self._named(), **self._clearance(),
                        **self._screen())
        return [track, runner]

    def _basis(self, pair: list[Mobject]) -> tuple[list[Mobject], list[Mobject]]:
        """Wall coordinates, still in parallel light: the 3x2 matrix B reads the
        shadow x P as two numbers; the whole map is x -> x P B.  Returns what
        it showed on the picture and in the column."""
        s, w, off = self.s, self.s.world, self.s.off
        track, runner = pair
        n, P = w.normal(), w.proj()
        B = qm.wall_basis(n)
        x = w.V[w.top]
        point = x @ P                  # the shadow x P
        c = point @ B                  # ... as two wall numbers
        axes = (FlatArrow(palette.BASIS_I, stroke_width=5).put(off, B[:, 0] + off, s.toward),
                FlatArrow(palette.BASIS_J, stroke_width=5).put(off, B[:, 1] + off, s.toward))
        feet = (c[0] * B[:, 0], c[1] * B[:, 1])
        (u0, v0), (u1, v1) = w.full_uv.min(axis=0), w.full_uv.max(axis=0)
        axis_lines = VGroup(*[Line(a @ B.T + off, b @ B.T + off, color=col, stroke_width=2, stroke_opacity=0.6)
                              for a, b, col in (((u0, 0), (u1, 0), palette.BASIS_I),
                                                ((0, v0), (0, v1), palette.BASIS_J))])
        guides = VGroup(*[DashedLine(point + off, f + off, color=col, stroke_width=3, dash_length=0.1)
                          for f, col in zip(feet, (palette.BASIS_I, palette.BASIS_J))])
        for z, mob in enumerate((axis_lines, guides, *axes)):
            mob.set_z_index(-26.5 + 0.1 * z)   # on the wall, over the shadow, under the rays
        shown = [tex_number(v, 2, pad=True) for v in c]
        labels = [self._letter(r"b_1", palette.BASIS_I, lambda: s.screen(B[:, 0]),
                               lambda m: s.past(m, ORIGIN, B[:, 0])),
                  self._letter(r"b_2", palette.BASIS_J, lambda: s.screen(B[:, 1]),
                               lambda m: s.past(m, ORIGIN, B[:, 1]))]
        at_feet = [self._letter(t, col, lambda f=f: s.screen(f), lambda m, f=f: s.past(m, point, f),
                                size=LABEL_SIZE - 4)
                   for t, col, f in zip(shown, (palette.BASIS_I, palette.BASIS_J), feet)]
        s.segments.extend([*axis_lines, *guides, *[a.shaft for a in axes]])
        x_tex = r",\ ".join(tex_number(v, 2) for v in x)
        b_row = VGroup(MathTex("B =", font_size=MATH_SIZE), matrix_mob(B, font_size=MATH_SIZE - 2, digits=2)
                       ).arrange(RIGHT, buff=0.15)
        x_row = MathTex(rf"x = [{x_tex}]", font_size=MATH_SIZE)
        map_row = MathTex(r"x\,P\,B = [", shown[0], r",\ ", shown[1], "]", font_size=MATH_SIZE)
        map_row[1].set_color(palette.BASIS_I)
        map_row[3].set_color(palette.BASIS_J)
        rows = s.rows
        kept = VGroup(rows["formula"].copy(), rows["P"].copy())
        self._column(*kept, b_row, x_row, map_row)
        fix_in_frame(self, b_row, x_row, map_row)
        moving = [lab.copy().clear_updaters() for lab in at_feet]      # the wall numbers, on their way into x P B
        fix_in_frame(self, *moving)
        zoom, pan = self._view_for(PHI, THETA, w.extent("basis"))
        with self.beat("basis_say", focus=guides) as said:
            at = self._clock(said)
            self.move_camera(zoom=zoom, run_time=1.0, added_anims=[
                s.pan[0].animate.set_value(pan[0]), s.pan[1].animate.set_value(pan[1]),
                FadeOut(track), FadeOut(runner), FadeOut(s.pic.ghost), w.slide.animate.set_value(0.0),
                FadeOut(s.pic.n_arrow), FadeOut(s.names["n"]), FadeOut(s.pic.rays),   # the wall alone, read
                s.pic.shadow.animate.set_stroke(width=0), FadeOut(rows["x W"]), FadeOut(rows["rank"]),
                FadeOut(rows["P P"]), rows["formula"].animate.move_to(kept[0]), rows["P"].animate.move_to(kept[1])])
            s.segments.remove(track)
            self._play("axes", FadeIn(axis_lines), FadeIn(VGroup(*axes)), *[FadeIn(m) for m in labels],
                       run_time=0.8)
            at(LONE_B, VGroup(*axes), 0.5)   # "the matrix B reads each shadow as two numbers"
            self._play("B", FadeIn(b_row), FadeIn(x_row), Create(guides), *[FadeIn(m) for m in at_feet],
                       run_time=1.2)
            at(r"x P B", guides, 0.95)   # "... x P B"
            for m, lab in zip(moving, at_feet):
                m.move_to(lab)
            self.add(*moving)
            self._play("x P B", moving[0].animate.move_to(map_row[1]), moving[1].animate.move_to(map_row[3]),
                       FadeIn(VGroup(map_row[0], map_row[2], map_row[4])), run_time=1.2)
            self.remove(*moving)
            self.add(map_row)
            self.describe("describe_basis", B=B, x=x, xPB=c, places=2)
        self.key_moment("basis", normal=n, origin=[a.ends[0] - off for a in axes],
                        axes=[a.ends[1] - a.ends[0] for a in axes], s=w.V[w.top] @ w.proj(),
                        corner=w.V[w.top], coords=shown, x_shown=x_tex, shown_x=s.names["x"].get_center(),
                        feet=[(g.get_start() - off, g.get_end() - off) for g in guides],
                        **self._arrows(), on_wall=shown, **self._named(), **self._clearance(), **self._screen(),
                        layers={"wall": s.pic.wall, "shadow": s.pic.shadow, "axes": VGroup(*axes),
                                "guides": guides},
                        drawn=[id(m) for m in s.cam.get_mobjects_to_display(self.mobjects)])
        return [axis_lines, *axes, guides, *labels, *at_feet], [rows["formula"], rows["P"], b_row, x_row, map_row]

    def _lamp(self, board: list[Mobject]) -> None:
        """A point lamp: its rays spread from one point; the same cube nearer
        the lamp casts the bigger shadow.  ``board``: the wall's axes and numbers, which go."""
        s, w, pic = self.s, self.s.world, self.s.pic
        zoom, pan = self._view_for(PHI, THETA, w.extent("lamp"))
        for m in board:
            s.segments[:] = [g for g in s.segments if g not in m.get_family()]
        with self.beat("lamp_say", focus=s.lamp) as said:
            at = self._clock(said)
            self.move_camera(zoom=zoom, run_time=1.0, added_anims=[
                s.pan[0].animate.set_value(pan[0]), s.pan[1].animate.set_value(pan[1]),
                *[FadeOut(m) for m in board], FadeOut(pic.d_arrow), FadeOut(s.names["d"]), FadeOut(s.names[r"x\,P"]),
                FadeIn(pic.rays), FadeIn(pic.n_arrow), FadeIn(s.names["n"])])
            self._play("lamp", FadeIn(s.lamp, scale=3), run_time=0.6)
            at(0.3, s.lamp)   # "its rays spread from one point"
            self._play("spread", w.lampness.animate.set_value(1.0), run_time=2.0, rate_func=smooth)
            self.key_moment("lamp", **self._lamp_probes())
            at(0.7, pic.shadow)   # "the same cube nearer the lamp: a bigger shadow"
            self.add(pic.copy_shadow, pic.copy_edges)
            self._play("nearer", w.near.animate.set_value(1.0), run_time=2.2, rate_func=smooth)
            self.describe("describe_lamp")
        self.key_moment("nearer", **self._lamp_probes(), **self._named(), **self._clearance())

    def _homogeneous(self, column: list[Mobject]) -> VGroup:
        """Said honestly: the lamp is no linear map of x; P and what followed
        from it (``column``) are struck out; with [x, 1] it is the 4x4 matrix
        H.  Returns the new column."""
        s, w = self.s, self.s.world
        old = VGroup(*column)
        strike = VGroup(Line(old.get_corner(UL), old.get_corner(DR), color=palette.ALERT, stroke_width=6),
                        Line(old.get_corner(DL), old.get_corner(UR), color=palette.ALERT, stroke_width=6))
        H = qm.lamp_matrix(w.L, w.normal(), 0.0)
        law = MathTex(r"[x,\ 1]\,H \propto [x',\ 1]", font_size=MATH_SIZE + 4)
        matrix = matrix_mob(H, font_size=MATH_SIZE - 4, digits=1, gap=0.35)
        h_row = VGroup(MathTex("H =", font_size=MATH_SIZE), matrix).arrange(RIGHT, buff=0.15)
        note = wrapped_text(self.tr("lamp_note"), self.lang, size=NOTE_SIZE, width=COLUMN_W - 0.1)
        panel = self._column(law, h_row, note)
        fix_in_frame(self, strike, *panel)
        with self.beat("homog_say", focus=panel) as said:
            at = self._clock(said)
            at(0.1, old)   # "this is no ordinary linear map"
            self._play("strike", Create(strike), run_time=0.8)
            at(0.6, strike)   # "with a fourth, homogeneous coordinate ..."
            self._play("law", FadeOut(old), FadeOut(strike), FadeIn(law), FadeIn(s.names["x'"]), run_time=0.8)
            at(LONE_H, law, 0.92)   # "... a 4x4 matrix again, H"
            self._play("H", FadeIn(h_row), FadeIn(note), run_time=0.8)
            self.describe("describe_homog", H=H, note=self.tr("lamp_note"), places=1)
        self.key_moment("homog", H=H, shown_H=[[e.tex_string for e in row] for row in matrix.get_rows()],
                        **self._lamp_probes(), **self._named(), **self._clearance())
        return panel

    def _ahead(self, panel: VGroup) -> None:
        """Projections need not shrink: this shadow took 3 numbers to 2, the next scene takes 2 to 3."""
        rows, cols = qm.wall_basis(self.s.world.normal()).shape     # B: three numbers in, two out
        down = MathTex(rf"x\,P\,B:\ {rows} \to {cols}", font_size=MATH_SIZE + 4, color=palette.MUTED)
        up = MathTex(rf"{cols} \to {rows}", font_size=MATH_SIZE + 6)
        card = VGroup(down, up).arrange(RIGHT, buff=0.45)
        self._column(*panel, card)
        fix_in_frame(self, down, up)
        with self.beat("next_say", focus=up) as said:
            at = self._clock(said)
            self._play("down", FadeIn(down), run_time=0.6)
            at(0.6, down)   # "next, two numbers become three"
            self._play("up", FadeIn(up, shift=0.3 * RIGHT), run_time=0.8)
            self.describe("describe_next", rows=rows, cols=cols)
        self.key_moment("ahead", card=[down.tex_string, up.tex_string])

    # --- helpers -----------------------------------------------------------------

    def _drawn_lines(self, shown: set | None = None) -> np.ndarray:
        """The straight lines on screen now that letters must not sit on: the
        cube's edges, its three directions, the rays, the arrows n and d and
        ``segments`` (m, 2, 2), screen x, y (``shown``: the scene's family
        members, when already read)."""
        s = self.s
        shown = set(self.get_mobject_family_members()) if shown is None else shown
        pic = s.pic
        lines = [ln for ln in (*pic.edges, *pic.rays, *pic.copy_edges, *pic.ghost,
                               pic.n_arrow.shaft, pic.d_arrow.shaft, *[a.shaft for a in pic.directions],
                               *s.segments) if ln in shown]
        if not lines:
            return np.zeros((0, 2, 2))
        ends = np.array([[ln.get_start(), ln.get_end()] for ln in lines])
        return s.cam.project_points(ends.reshape(-1, 3))[:, :2].reshape(-1, 2, 2)

    def _drawn_dots(self, shown: set | None = None) -> np.ndarray:
        """The centres (k, 2) of the dots on screen now (shadow marks only once their ray has landed)."""
        s = self.s
        shown = set(self.get_mobject_family_members()) if shown is None else shown
        dots = [d for d in (*s.pic.corners, *s.pic.marks, *s.pic.sliders, s.lamp)
                if d in shown and d.fill_opacity > 0.05]
        if not dots:
            return np.zeros((0, 2))
        return s.cam.project_points(np.array([centre(d) for d in dots]))[:, :2]    # one projection for all

    def _named(self) -> dict:
        """Each letter on screen: its box and centre (screen) and the point it names, drawn where."""
        return {"named": {t.mob.tex_string: {"box": bounds(t.mob), "centre": t.mob.get_center()[:2],
                                             "point": np.asarray(t.anchor(), dtype=float)[:2]}
                          for t in self.s.letters if t.mob in self.mobjects}}

    def _clearance(self) -> dict:
        """The drawn lines (m, 2, 2) and dots (k, 2) on screen, to check that none runs through a letter."""
        return {"lines": self._drawn_lines(), "dots": self._drawn_dots()}

    def _directions(self) -> np.ndarray:
        """The three direction arrows as drawn: (3, 2, 3) start and end, scene coordinates."""
        return np.array([a.ends for a in self.s.pic.directions]) - self.s.off

    def _arrows(self, with_d: bool = True) -> dict:
        """The arrows as drawn: d's and n's directions (d's only ``with_d``), n's foot."""
        pic, off = self.s.pic, self.s.off
        n_ends, d_ends = pic.n_arrow.ends, pic.d_arrow.ends
        out = {"n_foot": n_ends[0] - off, "n_dir": unit(n_ends[1] - n_ends[0])}
        if with_d:
            out["d_dir"] = unit(d_ends[1] - d_ends[0])
        return out

    def _marks(self) -> dict:
        """The shadow marks as drawn (visible or not), the tips of the rays
        (where one is drawn) and the vertices' shadows they are cast towards."""
        pic, off, w = self.s.pic, self.s.off, self.s.world
        shown = set(self.get_mobject_family_members())
        return {"mark_opacity": np.array([m.get_fill_opacity() if m in shown else 0.0 for m in pic.marks]),
                "ray_tips": np.array([r.get_end() - off if r in shown else np.full(3, np.nan) for r in pic.rays]),
                "cast_to": w.V @ w.proj()}

    def _screen(self) -> dict:
        """Where the wall and the cube's vertices are drawn on screen."""
        pic, cam = self.s.pic, self.s.cam
        return {"wall_screen": cam.project_points(pic.wall.get_vertices()),
                "cube_screen": cam.project_points(np.array([c.get_center() for c in pic.corners]))}

    def _probes(self, with_d: bool = True) -> dict:
        """What is drawn: vertices, their shadow marks, the shadow outline, the
        wall's corners, the two arrows and the view."""
        pic, off, cam = self.s.pic, self.s.off, self.s.cam
        corners = np.array([c.get_center() for c in pic.corners])
        return {"vertices": corners - off, "shadows": np.array([m.get_center() for m in pic.marks]) - off,
                "outline": pic.shadow.get_vertices() - off, "wall": pic.wall.get_vertices() - off,
                "wall_screen": cam.project_points(pic.wall.get_vertices()),
                "cube_screen": cam.project_points(corners),
                "shadow_screen": cam.project_points(pic.shadow.get_vertices()),
                "view": (cam.get_phi(), cam.get_theta()), **self._arrows(with_d)}

    def _lamp_probes(self) -> dict:
        """The lamp's picture as drawn: the lamp, the rays' starts, the cube and
        its copy, their shadows and the outlines filled."""
        s, off, pic = self.s, self.s.off, self.s.pic
        shown = set(self.get_mobject_family_members())
        out = {"lamp": s.lamp.get_center() - off, "lamp_screen": s.screen(s.lamp.get_center() - off),
               "lamp_radius": s.lamp.radius, "starts": np.array([r.get_start() for r in pic.rays]) - off,
               **self._probes(with_d=False)}
        if pic.copy_edges in shown:
            out.update(copy=np.array([ln.get_start() for ln in pic.copy_edges]) - off,
                       copy_edges=np.array([[ln.get_start(), ln.get_end()] for ln in pic.copy_edges]) - off,
                       copy_outline=pic.copy_shadow.get_vertices() - off,
                       copy_screen=s.cam.project_points(pic.copy_shadow.get_vertices()))
        return out

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


    def _view_for(self, phi: float, theta: float, points: np.ndarray) -> tuple[float, np.ndarray]:
        """The zoom and the pan that fit ``points`` (k, 3, scene coordinates)
        into PICTURE seen from ``phi``, ``theta``; the camera is left as it was."""
        s, cam = self.s, self.s.cam
        was = cam.get_phi(), cam.get_theta(), cam.get_zoom()
        cam.set_phi(phi)
        cam.set_theta(theta)
        cam.set_zoom(1.0)
        cam.reset_rotation_matrix()
        raw = s.plain(np.asarray(points, dtype=float) + s.off)[:, :2]
        cam.set_phi(was[0])
        cam.set_theta(was[1])
        cam.set_zoom(was[2])
        cam.reset_rotation_matrix()
        left, bottom, right, top = PICTURE
        lo, hi = raw.min(axis=0), raw.max(axis=0)
        zoom = 0.97 * min((right - left) / (hi[0] - lo[0]), (top - bottom) / (hi[1] - lo[1]))
        want = np.array([(left + right) / 2, (bottom + top) / 2])
        return zoom, want - zoom * (lo + hi) / 2

