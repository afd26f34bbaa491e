"""Scene 4, ShadowProjection: a lamp, a cube and a wall; the shadow is a projection.

Parallel light along d casts each corner x of the cube onto the wall
n . x = 0 as x @ P, P = I - outer(n, d) / (n . d) (row vectors), recomputed
every frame while the wall turns and the light tilts; d and n are drawn as
arrows.  The cube collapses onto the wall (rank 2) and its shadow, cast
again, stays put (P P = P); a point slides along a light ray while its
shadow stays put; the 3x2 matrix B of wall coordinates reads that shadow
as two numbers, x -> x P B.  Last, a point lamp (a perspective projection,
linear only in homogeneous coordinates): P's formula is struck out and the
camera goes round once to show the depth from lamp to cube to wall.  A
corner's shadow appears only when its ray lands.  All numbers from
``qkv_math.projection``.

Seen in a three-quarter view; cairo has no depth buffer, so nothing here is
a shaded 3-D surface (those are drawn before every flat mobject): dots and
arrows are flat, drawn in the z order set below.

    manim -ql scenes/shadow_projection.py ShadowProjection
"""
from __future__ import annotations

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
    Flash,
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
from manim.camera.three_d_camera import ThreeDCamera

import qkv_math as qm
from qkv_lens.lesson.keys import Number, Params, Vector
from qkv_lens.numbers import tex_number
from scenes.kit import palette
from scenes.kit.layout import bounds, fix_in_frame, overlaps
from scenes.kit.live import LiveMap, Unchanged, put_segment
from scenes.kit.matrices import LiveMatrix, matrix_mob
from scenes.kit.scene import LessonScene
from scenes.kit.text import title, wrapped_text
from scenes.kit.three_d import FlatArrow

PHI, THETA = 64 * DEGREES, 64 * DEGREES   # a three-quarter view: the wall seen at a slant
LAMP_PHI, LAMP_THETA = 72 * DEGREES, 92 * DEGREES   # for the lamp the camera goes round: lamp, cube, wall in depth
# Where the 3-D picture goes on screen (left, bottom, right, top): left of the
# text column, under the title, above the subtitle band (y >= -3.04).
PICTURE = (-6.75, -2.85, 2.45, 2.95)
COLUMN_X = 2.85          # the text column's left edge ...
COLUMN_W = 4.05          # ... and width
LABEL_SIZE = 44          # the letters beside the drawn points and arrows
MATH_SIZE = 40           # the formulas and matrices in the text column
NOTE_SIZE = 28           # its sentences: legible at 480p, not the kit's small grey note
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


@dataclass
class _World:
    """The lesson's cube, wall and lights in scene coordinates (before the
    view's offset), and the trackers that move them: where each thing is at
    the trackers' values."""
    V: np.ndarray              # the cube's corners, one a row
    size: float                # its edge
    d0: np.ndarray             # the parallel light's direction ...
    d1: np.ndarray             # ... and the one it tilts to
    turn: float                # how far the wall turns (radians)
    L: np.ndarray              # the point lamp
    ray_step: float            # how far up a light ray the sliding point goes
    angle: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))      # the wall's turn so far
    tilt: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))       # 0 -> 1: d0 -> d1
    lampness: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))   # 0 -> 1: parallel -> lamp
    cast: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))       # 0 -> 1: the rays reach the wall
    flat: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))       # 0 -> 1: the cube onto the wall
    again: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))      # 0 -> 1: ... and cast again
    slide: ValueTracker = field(default_factory=lambda: ValueTracker(0.0))      # 0 -> 1: a point up its ray
    centre: np.ndarray = field(init=False)
    reach: float = field(init=False)       # light arrives at the cube from this far up-light; d is drawn there
    top: int = field(init=False)           # the corner whose ray the sliding point follows and whose shadow B reads
    wall_box: tuple = field(init=False)    # the wall in its own axes B: (u0, v0, u1, v1)
    wall_uv: np.ndarray = field(init=False)    # ... its four corners
    lamp_wall_uv: np.ndarray = field(init=False)   # ... and once it holds the lamp's shadows too
    foot_uv: np.ndarray = field(init=False)    # where n stands on it
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
        self.reach = 1.4 * self.size + 1.2
        self.top = int(np.argmax(V[:, 2] - V[:, 0]))
        # The wall: a rectangle in its own axes B (wall_basis), holding every
        # shadow the scene casts and the origin (where B's axes start).
        uv = [np.zeros((1, 2))]
        for a in np.linspace(0, self.turn, 7):
            B = qm.wall_basis(turned(a))
            for t in (0.0, 0.5, 1.0):
                uv.append(V @ qm.shadow_matrix(self.light(t), turned(a)) @ B)
        (u0, v0), (u1, v1) = np.concatenate(uv).min(axis=0) - 0.55, np.concatenate(uv).max(axis=0) + 0.55
        self.wall_box = (u0, v0, u1, v1)
        self.wall_uv = np.array([(u0, v0), (u1, v0), (u1, v1), (u0, v1)])
        # ... and the lamp's shadows too: the wall grows to this as the lamp comes on
        uv.append(qm.lamp_shadows(self.L, turned(self.turn), 0.0, V) @ qm.wall_basis(turned(self.turn)))
        (u0, v0), (u1, v1) = np.concatenate(uv).min(axis=0) - 0.55, np.concatenate(uv).max(axis=0) + 0.55
        self.lamp_wall_uv = np.array([(u0, v0), (u1, v0), (u1, v1), (u0, v1)])
        # n stands on the wall at the corner of it that the cube's shadow leaves clearest
        inset = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * 0.45
        S0 = V @ qm.shadow_matrix(self.d0, turned(0.0)) @ qm.wall_basis(turned(0.0))
        self.foot_uv = max(self.wall_uv + inset, key=lambda c: float(np.min(np.linalg.norm(S0 - c, axis=1))))
        self.n_len = 0.9 + 0.3 * self.size

    def light(self, t: float | None = None) -> np.ndarray:
        """The light's direction at tilt ``t`` (default: the tracker's)."""
        t = self.tilt.get_value() if t is None else t
        return unit((1 - t) * self.d0 + t * self.d1)

    def normal(self) -> np.ndarray:
        return turned(self.angle.get_value())

    def proj(self) -> np.ndarray:
        return qm.shadow_matrix(self.light(), self.normal())

    def shadows(self) -> np.ndarray:
        """Where the corners fall now: parallel light blended into the lamp's."""
        S = self.V @ self.proj()
        lam = self.lampness.get_value()
        if lam > 0:
            S = (1 - lam) * S + lam * qm.lamp_shadows(self.L, self.normal(), 0.0, self.V)
        return S

    def landed(self, S: np.ndarray) -> np.ndarray:
        """How far along its ray each corner has slid towards its shadow ``S``
        (0 -> 1) at the cast tracker's value: the rays all start together and
        travel at one speed, so the corners nearest the wall land first."""
        far = np.linalg.norm(S - self.V, axis=1)
        return np.clip(self.cast.get_value() * far.max() / np.maximum(far, 1e-9), 0.0, 1.0)

    def arrivals(self) -> np.ndarray:
        """The cast tracker's value at which each corner lands on the wall."""
        far = np.linalg.norm(self.V @ self.proj() - self.V, axis=1)
        return far / far.max()

    def d_ends(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the arrow d is drawn: up-light of the cube."""
        tail = self.centre - self.reach * d
        return tail, tail + 1.25 * d

    def n_ends(self, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the arrow n is drawn: standing on the wall with normal ``n``."""
        foot = self.foot_uv @ qm.wall_basis(n).T
        return foot, foot + self.n_len * n

    def slide_point(self, t: float | None = None) -> np.ndarray:
        """The point ``t`` (default: the tracker's) of the way up the top corner's light ray."""
        t = self.slide.get_value() if t is None else t
        return self.V[self.top] - t * self.ray_step * self.light()

    def flattened(self) -> np.ndarray:
        """The cube as it collapses onto the wall (flat), then cast again (again)."""
        P = self.proj()
        Y = self.V + self.flat.get_value() * (self.V @ P - self.V)
        return Y + self.again.get_value() * (Y @ P - Y)

    def wall_corners(self) -> np.ndarray:
        """The wall's corners in its own axes now: it grows as the lamp comes on."""
        lam = self.lampness.get_value()
        return (1 - lam) * self.wall_uv + lam * self.lamp_wall_uv

    def extent(self, lamp: bool = False) -> np.ndarray:
        """Every point the scene will draw in parallel light (and with the
        ``lamp``), one a row: what the view must hold."""
        extent = [self.V, self.V - self.ray_step * self.light(1.0)]   # and every corner's ray up-light
        if lamp:
            extent += [self.L[None, :], self.lamp_wall_uv @ qm.wall_basis(turned(self.turn)).T]
        for a in np.linspace(0, self.turn, 7):
            extent.append(self.wall_uv @ qm.wall_basis(turned(a)).T)
            extent.append(np.array(self.n_ends(turned(a))))
        for t in np.linspace(0, 1, 5):
            extent.append(np.array(self.d_ends(self.light(t))))
        return np.concatenate(extent)


@dataclass
class _Picture:
    """The 3-D picture, in its z order (back to front)."""
    wall: Polygon
    shadow: Polygon
    marks: VGroup          # the shadows of the corners
    n_arrow: FlatArrow
    rays: VGroup
    d_arrow: FlatArrow
    edges: VGroup          # the cube ...
    corners: VGroup
    sliders: VGroup        # ... its corners as they slide to their shadows
    flat_edges: VGroup     # ... and as it collapses onto the wall
    flat_dots: VGroup

    @classmethod
    def of(cls, V: np.ndarray, off: np.ndarray) -> _Picture:
        """The picture of the cube ``V`` drawn at V + ``off``; the rest is placed by ``_Stage.draw``."""
        pic = cls(
            wall=Polygon(*[np.zeros(3)] * 4, stroke_color=palette.MUTED, stroke_width=2,
                         fill_color=WALL_FILL, fill_opacity=0.9),
            shadow=Polygon(*[np.zeros(3)] * 4, stroke_width=0, fill_color=SHADOW_FILL, fill_opacity=0.92),
            marks=VGroup(*[Dot(radius=0.05, color=palette.EMBED) for _ in V]),
            n_arrow=FlatArrow(NORMAL),
            rays=VGroup(*[Line(np.zeros(3), np.ones(3), stroke_width=1.8, color=LIGHT, stroke_opacity=0.75)
                          for _ in V]),
            d_arrow=FlatArrow(LIGHT, stroke_width=6, tip=0.32),
            edges=VGroup(*[Line(V[i] + off, V[j] + off, stroke_width=3, color=palette.EMBED)
                           for i, j in qm.CUBE_EDGES]),
            corners=VGroup(*[Dot(v + off, radius=0.06, color=palette.EMBED) for v in V]),
            sliders=VGroup(*[Dot(v + off, radius=0.06, color=palette.EMBED) for v in V]),
            flat_edges=VGroup(*[Line(V[i], V[j], stroke_width=3.5, color=palette.INK) for i, j in qm.CUBE_EDGES]),
            flat_dots=VGroup(*[Dot(V[i], radius=0.055, color=palette.INK) for i in range(len(V))]))
        for z, mob in enumerate(pic.layers()):
            mob.set_z_index(z - 30)
        return pic

    def layers(self) -> tuple[Mobject, ...]:
        return (self.wall, self.shadow, self.marks, self.n_arrow, self.rays, self.d_arrow, self.edges,
                self.corners, self.sliders, self.flat_edges, self.flat_dots)

    def dots(self) -> tuple[Mobject, ...]:
        """The dots: drawn round, whatever the view."""
        return (*self.marks, *self.corners, *self.sliders, *self.flat_dots)


@dataclass
class _Stage:
    """What the beats share: the world, the view (x is drawn at x + ``off``;
    ``toward``: the unit vector from the scene to the camera), the picture,
    the letters on it (kept clear of each other) and the text column;
    ``live`` redraws the picture at the trackers' values."""
    world: _World
    off: np.ndarray
    cam: ThreeDCamera
    toward: np.ndarray
    pic: _Picture
    d_label: MathTex
    n_label: MathTex
    heading: Mobject
    formula: MathTex
    readout: LiveMatrix
    P_row: VGroup
    letters: list[Mobject]
    pan: tuple[ValueTracker, ValueTracker]   # the picture's shift on screen (x, y), after the projection
    plain: object                            # the camera's projection without it
    segments: list[Mobject] = field(default_factory=list)   # lines the letters keep off, besides the picture's
    live: LiveMap = field(init=False)
    unchanged: Unchanged = field(default_factory=Unchanged)

    def __post_init__(self) -> None:
        self.live = LiveMap(self.draw, z=-40)   # below everything: every layer is redrawn each frame

    def screen(self, x: np.ndarray) -> np.ndarray:
        """Where the scene point ``x`` is drawn."""
        return self.cam.project_point(np.asarray(x, dtype=float) + self.off)

    def midpoint(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (self.screen(a) + self.screen(b)) / 2

    def draw(self, _state: object = None) -> None:
        """Put the picture and the readout where the trackers say (the live map's ``show``)."""
        w, pic, off = self.world, self.pic, self.off
        if self.unchanged(*(t.get_value() for t in (w.angle, w.tilt, w.lampness, w.cast, w.flat, w.again)),
                          self.cam.get_phi(), self.cam.get_theta()):
            return          # nothing it draws has moved since the last frame
        self.toward = self.cam.generate_rotation_matrix()[2]    # the flat arrows face the camera as it moves
        n, P, S = w.normal(), w.proj(), w.shadows()
        B = qm.wall_basis(n)
        wall = w.wall_corners()
        pic.wall.set_points_as_corners([c @ B.T + off for c in (*wall, wall[0])])
        hull = qm.convex_hull_2d(S @ B)
        pic.shadow.set_points_as_corners([S[i] + off for i in (*hull, hull[0])])
        lam = w.lampness.get_value()
        for i, (ray, dot, slider, c) in enumerate(zip(pic.rays, pic.marks, pic.sliders, w.landed(S))):
            src = (1 - lam) * w.V[i] + lam * w.L + off
            put_segment(ray, src, src + max(c, 1e-3) * (S[i] + off - src))
            dot.move_to(S[i] + off).set_opacity(1.0 if c >= 1.0 else 0.0)   # a shadow only once its ray lands
            slider.move_to(w.V[i] + c * (S[i] - w.V[i]) + off)
        pic.d_arrow.put(*(e + off for e in w.d_ends(w.light())), self.toward)
        pic.n_arrow.put(*(e + off for e in w.n_ends(n)), self.toward)
        Y = w.flattened()
        for (i, j), line in zip(qm.CUBE_EDGES, pic.flat_edges):
            put_segment(line, Y[i] + off, Y[j] + off)
        for dot, y in zip(pic.flat_dots, Y):
            dot.move_to(y + off)
        self.readout.set_matrix(P)
        self.cam.add_fixed_in_frame_mobjects(self.readout)   # digits it rebuilt stay flat in the frame

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


def _free(box: tuple, others: list[tuple], top: float, lines: np.ndarray | None = None) -> bool:
    """Whether a letter's ``box`` lies in the free picture (left of the text
    column, above the subtitles, under ``top``), clear of ``others`` and of
    the drawn ``lines`` (points along them on screen, one a row)."""
    left, bottom = -config.frame_width / 2 + 0.1, -config.frame_height / 2 + 0.12 * config.frame_height + 0.06
    pad = LINE_CLEARANCE
    if lines is not None and len(lines) and np.any((lines[:, 0] > box[0] - pad) & (lines[:, 0] < box[2] + pad)
                                                   & (lines[:, 1] > box[1] - pad) & (lines[:, 1] < box[3] + pad)):
        return False
    return (left <= box[0] and box[2] <= COLUMN_X - 0.1 and bottom <= box[1] and box[3] <= top
            and not any(overlaps(box, o, pad=0.02) for o in others))


def _clear_corner(w: _World, screen) -> int:
    """The corner whose light ray (as the point slides along it, after the
    wall has turned and the light tilted) crosses the fewest of the cube's
    drawn edges on screen (``screen``: points (k, 3) to screen (k, 2)); ties
    go to the highest corner nearest the wall."""
    d = w.light(1.0)
    P = qm.shadow_matrix(d, turned(w.turn))
    edges = [(screen(w.V[i])[0], screen(w.V[j])[0], i, j) for i, j in qm.CUBE_EDGES]

    def crossings(k: int) -> int:
        a, b = screen(w.V[k] - w.ray_step * d)[0], screen(w.V[k] @ P)[0]
        return sum(_cross(a, b, p, q) for p, q, i, j in edges if k not in (i, j))

    return min(range(len(w.V)), key=lambda k: (crossings(k), -(w.V[k, 2] - w.V[k, 0])))


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
    sparse_moments = {name: "the right column waits for P's formula, written in the next beat"
                      for name in ("light", "landing")}
    s: _Stage

    def construct(self):
        self.s = self._stage()
        self._intro()
        facts, rank_note = self._collapse()     # rank 2, and P P = P
        self._turn(facts, rank_note)            # the wall turns, the light tilts
        pair = self._pair()                     # one ray, one shadow
        shown = self._basis(facts, pair)             # x -> x P B: two numbers on the wall
        self._lamp(shown)                # a point lamp: no longer P
        self.key_moment("end")

    # --- the stage ---------------------------------------------------------------

    def _stage(self) -> _Stage:
        """The world, the view fitted to it, the picture, its letters and the
        text column; the live map drawing them from now on."""
        w = _World.of(self.params)
        self.set_camera_orientation(phi=PHI, theta=THETA, zoom=1.0, frame_center=ORIGIN)
        off = self._fit_view(w.extent())   # drawn at x + off: x in view
        cam = self.renderer.camera
        w.top = _clear_corner(w, lambda x: cam.project_points(np.atleast_2d(x) + off)[:, :2])
        pic = _Picture.of(w.V, off)
        for dot in pic.dots():
            self.add_fixed_orientation_mobjects(dot)   # round, whatever the view
        # the letters beside the drawn things (fixed in the frame, placed by projection)
        d_label = MathTex("d", font_size=LABEL_SIZE, color=LIGHT)
        n_label = MathTex("n", font_size=LABEL_SIZE + 6, color=NORMAL)
        # lambdas, not bound methods: a label's copy (FadeIn) would deep-copy a bound method's scene
        d_label.add_updater(lambda m: self._place_d(m))
        n_label.add_updater(lambda m: self._place_n(m))
        fix_in_frame(self, d_label, n_label)
        outline(d_label, n_label)
        # the text column
        heading = title(self.tr("title"), self.lang)
        formula = MathTex(r"P = I - \frac{n\,d^{\top}}{n^{\top} d}", font_size=MATH_SIZE + 4)
        formula.move_to([COLUMN_X, 0, 0], aligned_edge=LEFT).set_y(config.frame_height / 2 - 0.75)
        readout = LiveMatrix(np.eye(3), row_colors=(palette.INK,) * 3, font_size=40).scale(0.9)
        P_row = VGroup(MathTex("P =", font_size=MATH_SIZE), readout).arrange(RIGHT, buff=0.15)
        P_row.scale(min(1.0, (COLUMN_W - 0.2) / P_row.width))
        fix_in_frame(self, heading, formula, P_row)
        pan, plain = (ValueTracker(0.0), ValueTracker(0.0)), cam.project_points

        def project(points: np.ndarray) -> np.ndarray:   # the camera's projection, then the pan
            out = plain(points)
            out[:, 0] += pan[0].get_value()
            out[:, 1] += pan[1].get_value()
            return out

        cam.project_points = project   # one camera, one scene: the 3-D picture pans, the text column stays
        s = _Stage(w, off, cam, cam.get_rotation_matrix()[2], pic, d_label, n_label, heading, formula, readout,
                   P_row, letters=[n_label, d_label], pan=pan, plain=plain)
        self.add(s.live.driver)
        s.live.follow()
        s.live.attach()
        return s

    def _place_d(self, label: Mobject) -> None:
        """Keep d's letter beside the drawn d (an updater)."""
        s, w = self.s, self.s.world
        self._settle(s.beside(label, *w.d_ends(w.light())), s.midpoint(*w.d_ends(w.light())))

    def _place_n(self, label: Mobject) -> None:
        """Keep n's letter just past the tip of the drawn n (an updater)."""
        s, w = self.s, self.s.world
        self._settle(s.past(label, *w.n_ends(w.normal())), s.screen(w.n_ends(w.normal())[1]))

    def _settle(self, label: Mobject, anchor: np.ndarray, also: tuple = ()) -> Mobject:
        """Leave ``label`` where it was put if that is inside the free picture
        and clear of the other letters shown (and of ``also``); else move it
        round its ``anchor`` (a point on screen) to the nearest spot that is."""
        letters = [o for o in self.s.letters if o in self.mobjects]
        others = [bounds(o) for o in (*letters, *also) if o is not label]
        top = self.s.heading.get_bottom()[1] - 0.05
        lines = _samples(self._drawn_lines())
        if _free(bounds(label), others, top, lines):
            return label
        w, h = label.width, label.height
        for gap in (0.12, 0.35, 0.6, 0.9, 1.3):
            for k in range(16):
                a = np.pi / 2 + k * np.pi / 8
                u = np.array([np.cos(a), np.sin(a), 0.0])
                c = np.asarray(anchor, dtype=float) + (gap + 0.5 * (abs(u[0]) * w + abs(u[1]) * h)) * u
                if _free((c[0] - w / 2, c[1] - h / 2, c[0] + w / 2, c[1] + h / 2), others, top, lines):
                    return label.move_to(c)
        return label

    # --- the beats ---------------------------------------------------------------

    def _intro(self) -> None:
        """The cube, the wall and n; the light d; the rays cast the shadow; P's formula."""
        s, pic = self.s, self.s.pic
        with self.beat("intro_say") as said:
            starts = self.cue_starts(said)
            self.play(Write(s.heading), FadeIn(pic.wall), FadeIn(pic.edges), FadeIn(pic.corners),
                      FadeIn(pic.n_arrow), FadeIn(s.n_label), run_time=1.2)
            self.play(FadeIn(pic.d_arrow), FadeIn(s.d_label), FadeIn(pic.sliders), run_time=0.8)
            self.wait_until(starts[-2] if len(starts) > 1 else 0.0, pic.d_arrow)   # as the sliding is named
            self.key_moment("light", **self._marks())
            self.add(pic.rays)
            first = sorted(set(np.round(s.world.arrivals(), 6)))   # the nearest corners land first ...
            half = (first[0] + first[1]) / 2 if len(first) > 1 else 1.0
            self.play(s.world.cast.animate.set_value(half), run_time=2.0 * half, rate_func=linear)
            self.key_moment("landing", **self._marks())
            self.play(s.world.cast.animate.set_value(1.0), run_time=2.0 * (1 - half), rate_func=linear)
            self.play(FadeIn(pic.shadow), FadeOut(pic.sliders), run_time=0.6)
            self.reveal([(starts[-1], [FadeIn(s.formula)])], pic.marks)
        self.key_moment("parallel", **self._probes(), **self._marks())

    def _collapse(self) -> tuple[VGroup, Mobject]:
        """Rank 2: the cube collapses onto the wall; P P = P: its shadow, cast
        again, stays put.  Returns the two facts and the note under them."""
        s, w, pic = self.s, self.s.world, self.s.pic
        P0 = w.proj()
        rank_tex = MathTex(rf"\mathrm{{rank}}\,P = {qm.rank(P0)}", font_size=MATH_SIZE)
        again_tex = MathTex(r"P\,P = P", font_size=MATH_SIZE)
        facts = VGroup(rank_tex, again_tex).arrange(RIGHT, buff=0.6)
        facts.scale(min(1.0, (COLUMN_W - 0.2) / facts.width))
        facts.next_to(s.formula, DOWN, aligned_edge=LEFT, buff=0.35)
        rank_note = wrapped_text(self.tr("rank_note"), self.lang, size=NOTE_SIZE, width=COLUMN_W - 0.1)
        rank_note.next_to(facts, DOWN, aligned_edge=LEFT, buff=0.2)
        fix_in_frame(self, rank_tex, again_tex, rank_note)
        with self.beat("rank_say"):
            self.play(FadeIn(rank_tex), FadeIn(pic.flat_edges), FadeIn(pic.flat_dots), run_time=0.8)
            self.play(w.flat.animate.set_value(1.0), run_time=2.2, rate_func=smooth)
        self.key_moment("collapsed", flat=np.array([d.get_center() - s.off for d in pic.flat_dots]), vertices=w.V,
                        **self._arrows(), rank=rank_tex.get_tex_string())
        with self.beat("again_say"):
            self.play(FadeIn(again_tex), FadeIn(rank_note), run_time=0.8)
            self.play(w.again.animate.set_value(1.0),
                      *[Flash(d, color=LIGHT, flash_radius=0.22, line_length=0.14) for d in pic.flat_dots],
                      run_time=1.6)
        self.key_moment("again", flat=np.array([d.get_center() - s.off for d in pic.flat_dots]), vertices=w.V,
                        **self._arrows())
        return facts, rank_note

    def _turn(self, facts: VGroup, rank_note: Mobject) -> None:
        """P read out live while the wall turns, then while the light tilts."""
        s, w, pic = self.s, self.s.world, self.s.pic
        s.P_row.next_to(facts, DOWN, aligned_edge=LEFT, buff=0.35)
        with self.beat("turn_say", focus=pic.n_arrow):
            self.play(FadeOut(pic.flat_edges), FadeOut(pic.flat_dots), FadeOut(rank_note), FadeIn(s.P_row),
                      run_time=0.8)
            self.play(w.angle.animate.set_value(w.turn), run_time=3.5, rate_func=linear)
        self.key_moment("turned", **self._probes(), readout=s.readout.values())
        with self.beat("tilt_say", focus=pic.d_arrow):
            self.play(w.tilt.animate.set_value(1.0), run_time=3.5, rate_func=linear)
        self.key_moment("tilted", **self._probes(), readout=s.readout.values())

    def _pair(self) -> list[Mobject]:
        """A point slides along one light ray; its shadow stays put.  Returns what it showed."""
        s, w, off = self.s, self.s.world, self.s.off
        V, top = w.V, w.top
        runner = Dot(V[top] + off, radius=0.085, color=palette.ALERT).set_z_index(-10)
        its_shadow = Dot(V[top] @ w.proj() + off, radius=0.085, color=palette.ALERT).set_z_index(-10)
        self.add_fixed_orientation_mobjects(runner, its_shadow)
        track = Line(w.slide_point(1.0) + off, V[top] @ w.proj() + off, color=palette.ALERT, stroke_width=3,
                     stroke_opacity=0.8).set_z_index(-11)
        s.segments.append(track)
        runner.add_updater(lambda m: m.move_to(w.slide_point() + off))
        its_shadow.add_updater(lambda m: m.move_to(w.slide_point() @ w.proj() + off))
        x_label = MathTex("x", font_size=LABEL_SIZE + 6, color=palette.ALERT)
        s_label = MathTex("x P", font_size=LABEL_SIZE, color=palette.ALERT)
        x_label.add_updater(lambda m: self._settle(m.next_to(s.screen(w.slide_point()), UL, buff=0.12),
                                                   s.screen(w.slide_point())))
        s_label.add_updater(lambda m: self._settle(m.next_to(s.screen(w.slide_point() @ w.proj()), DOWN + LEFT,
                                                             buff=0.12), s.screen(w.slide_point() @ w.proj())))
        s.letters += [x_label, s_label]
        fix_in_frame(self, x_label, s_label)
        outline(x_label, s_label)
        pair_note = wrapped_text(self.tr("same_shadow"), self.lang, size=NOTE_SIZE, color=palette.ALERT,
                                 width=COLUMN_W - 0.1)
        pair_note.next_to(s.P_row, DOWN, aligned_edge=LEFT, buff=0.35)
        fix_in_frame(self, pair_note)
        slid: dict[str, dict] = {}
        with self.beat("pair_say", focus=runner):
            self.play(FadeIn(track), FadeIn(runner), FadeIn(its_shadow), FadeIn(x_label), FadeIn(s_label),
                      FadeIn(pair_note), run_time=0.8)
            for t, name in ((1.0, "far"), (0.35, "near"), (0.75, "mid")):
                self.play(w.slide.animate.set_value(t), run_time=1.6, rate_func=smooth)
                slid[name] = {"point": runner.get_center() - off, "shadow": its_shadow.get_center() - off}
        self.key_moment("pair", slid=slid, corner=V[top], **self._arrows(), **self._clearance(x_label, s_label))
        return [track, runner, its_shadow, x_label, s_label, pair_note]

    def _basis(self, facts: VGroup, pair: list[Mobject]) -> list[Mobject]:
        """Wall coordinates, still in parallel light: the 3x2 matrix B reads the
        shadow x P as two numbers; the whole map is x -> x P B.  Returns what it showed."""
        s, w, off = self.s, self.s.world, self.s.off
        track, runner, its_shadow, x_label, s_label, pair_note = pair
        n, P = w.normal(), w.proj()
        B = qm.wall_basis(n)
        x = w.V[w.top]
        point = x @ P                  # the shadow x P
        c = point @ B                  # ... as two wall numbers
        axes = (FlatArrow(palette.BASIS_I, stroke_width=5).put(off, B[:, 0] + off, s.toward),
                FlatArrow(palette.BASIS_J, stroke_width=5).put(off, B[:, 1] + off, s.toward))
        feet = (c[0] * B[:, 0], c[1] * B[:, 1])
        u0, v0, u1, v1 = w.wall_box
        axis_lines = VGroup(*[Line(a @ B.T + off, b @ B.T + off, color=col, stroke_width=2, stroke_opacity=0.6)
                              for a, b, col in (((u0, 0), (u1, 0), palette.BASIS_I),
                                                ((0, v0), (0, v1), palette.BASIS_J))])
        guides = VGroup(*[DashedLine(point + off, f + off, color=col, stroke_width=3, dash_length=0.1)
                          for f, col in zip(feet, (palette.BASIS_I, palette.BASIS_J))])
        for z, mob in enumerate((axis_lines, guides, *axes)):
            mob.set_z_index(-24 + 0.1 * z)   # on the wall, over the shadow, under the rays
        axis_labels = VGroup(MathTex(r"b_1", font_size=LABEL_SIZE, color=palette.BASIS_I),
                             MathTex(r"b_2", font_size=LABEL_SIZE, color=palette.BASIS_J))
        shown = [tex_number(v, 2, pad=True) for v in c]
        at_feet = VGroup(*[MathTex(t, font_size=LABEL_SIZE - 4, color=col)
                           for t, col in zip(shown, (palette.BASIS_I, palette.BASIS_J))])
        self._settle(s.past(axis_labels[0], ORIGIN, B[:, 0]), s.screen(B[:, 0]))
        self._settle(s.past(axis_labels[1], ORIGIN, B[:, 1]), s.screen(B[:, 1]), also=(axis_labels[0],))
        for k, lab in enumerate(at_feet):
            self._settle(s.past(lab, point, feet[k]), s.screen(feet[k]), also=(*axis_labels, *at_feet[:k]))
        s.letters += [*axis_labels, *at_feet]
        fix_in_frame(self, *axis_labels, *at_feet)
        outline(*axis_labels, *at_feet)
        x_tex = r",\ ".join(tex_number(v, 2) for v in x)
        b_row = VGroup(MathTex("B =", font_size=MATH_SIZE), matrix_mob(B, font_size=MATH_SIZE - 2, digits=2)
                       ).arrange(RIGHT, buff=0.15)
        x_row = MathTex(rf"x = [{x_tex}]", font_size=MATH_SIZE)
        map_row = MathTex(r"x\,P\,B = [", shown[0], r",\ ", shown[1], "]", font_size=MATH_SIZE)
        map_row[1].set_color(palette.BASIS_I)
        map_row[3].set_color(palette.BASIS_J)
        b_panel = VGroup(b_row, x_row, map_row).arrange(DOWN, aligned_edge=LEFT, buff=0.25)
        P_up = s.P_row.copy().next_to(s.formula, DOWN, aligned_edge=LEFT, buff=0.3)   # where the facts were
        b_panel.next_to(P_up, DOWN, aligned_edge=LEFT, buff=0.3)
        moving = [lab.copy() for lab in at_feet]          # the wall numbers, on their way into x P B
        fix_in_frame(self, b_panel, *moving)
        with self.beat("basis_say", focus=guides) as said:
            starts = self.cue_starts(said)
            self.play(FadeOut(pair_note), FadeOut(track), FadeOut(facts), w.slide.animate.set_value(0.0),
                      s.P_row.animate.move_to(P_up), FadeIn(axis_lines), FadeIn(VGroup(*axes)), FadeIn(axis_labels),
                      run_time=1.2)
            self.play(FadeIn(b_row), FadeIn(x_row), run_time=0.8)
            self.reveal([(starts[1] if len(starts) > 1 else 0.0,       # as the two numbers are named
                          [Create(guides), FadeIn(at_feet)])], VGroup(*axes), run_time=1.2)
            self.add(*moving)
            self.reveal([(starts[-1], [moving[0].animate.move_to(map_row[1]),    # the numbers move into x P B
                                       moving[1].animate.move_to(map_row[3]),    # (the same glyphs: fixed in frame)
                                       FadeIn(VGroup(map_row[0], map_row[2], map_row[4]))])], guides,
                        run_time=1.4)
            self.remove(*moving)
            self.add(map_row[1], map_row[3])
        self.key_moment("basis", normal=n, origin=[a.ends[0] - off for a in axes],
                        axes=[a.ends[1] - a.ends[0] for a in axes], s=its_shadow.get_center() - off,
                        x=runner.get_center() - off, corner=w.V[w.top], coords=shown, x_shown=x_tex,
                        feet=[(g.get_start() - off, g.get_end() - off) for g in guides],
                        wall_screen=s.cam.project_points(s.pic.wall.get_vertices()), **self._arrows(),
                        on_wall=[lab.get_tex_string() for lab in at_feet],
                        **self._clearance(x_label, s_label, *at_feet),
                        layers={"wall": s.pic.wall, "shadow": s.pic.shadow, "axes": VGroup(*axes),
                                "s": its_shadow, "guides": guides},
                        drawn=[id(m) for m in s.cam.get_mobjects_to_display(self.mobjects)])
        return [runner, its_shadow, x_label, s_label, axis_lines, *axes, guides, axis_labels, at_feet, b_panel]

    def _lamp(self, shown: list[Mobject]) -> None:
        """A point lamp: perspective, linear only in homogeneous coordinates;
        P's formula and its facts, which no longer hold, are struck out."""
        s, w, off = self.s, self.s.world, self.s.off
        lamp = Dot(w.L + off, radius=0.14, color=LIGHT).set_z_index(-12)
        self.add_fixed_orientation_mobjects(lamp)
        self.remove(lamp)
        old = VGroup(s.formula, s.P_row)   # (rank P = 2 and P P = P went with the wall's axes)
        strike = VGroup(Line(old.get_corner(UL), old.get_corner(DR), color=palette.ALERT, stroke_width=6),
                        Line(old.get_corner(DL), old.get_corner(UR), color=palette.ALERT, stroke_width=6))
        lamp_panel = VGroup(wrapped_text(self.tr("lamp_note"), self.lang, size=NOTE_SIZE, width=COLUMN_W - 0.1),
                            MathTex(r"[x,\ 1]\,H \propto [x',\ 1]", font_size=MATH_SIZE)
                            ).arrange(DOWN, aligned_edge=LEFT, buff=0.25)
        # x stays by its corner; its lamp shadow is named x', the letters the formula uses
        x_label = shown[2]
        top = w.top
        x_shadow = MathTex("x'", font_size=LABEL_SIZE, color=palette.ALERT)
        x_shadow.add_updater(lambda m: self._settle(
            m.next_to(s.screen(s.pic.marks[top].get_center() - off), DOWN + LEFT, buff=0.12),
            s.screen(s.pic.marks[top].get_center() - off)))
        s.letters.append(x_shadow)
        fix_in_frame(self, x_shadow)
        outline(x_shadow)
        lamp_panel.move_to(s.formula.get_corner(UL), aligned_edge=UL)
        fix_in_frame(self, strike, lamp_panel)
        with self.beat("lamp_say", focus=lamp) as said:
            later = self.cue_at(said, 0.5)[0]              # as "not a linear map" is said
            self.play(*[FadeOut(m) for m in (*shown, s.pic.d_arrow, s.d_label) if m is not x_label], Create(strike),
                      run_time=0.8)
            zoom, pan = self._view_for(LAMP_PHI, LAMP_THETA, w.extent(lamp=True))   # round to the side: depth
            self.move_camera(phi=LAMP_PHI, theta=LAMP_THETA, zoom=zoom, run_time=2.4,
                             added_anims=[s.pan[0].animate.set_value(pan[0]), s.pan[1].animate.set_value(pan[1])])
            self.play(FadeIn(lamp, scale=3), run_time=0.6)
            self.play(w.lampness.animate.set_value(1.0), run_time=2.4, rate_func=smooth)
            self.play(FadeIn(x_shadow), run_time=0.6)
            self.reveal([(later, [FadeOut(old), FadeOut(strike), FadeIn(lamp_panel)])], lamp)
        self.key_moment("lamp", lamp=lamp.get_center() - off, lamp_screen=s.screen(lamp.get_center() - off),
                        lamp_radius=lamp.radius, **self._probes(with_d=False),
                        starts=np.array([r.get_start() - off for r in s.pic.rays]),
                        named={"x": s.screen(w.V[top]), "x'": s.screen(s.pic.marks[top].get_center() - off),
                               "x_label": x_label.get_center(), "x'_label": x_shadow.get_center()},
                        **self._clearance(x_label, x_shadow))

    # --- helpers -----------------------------------------------------------------

    def _drawn_lines(self) -> np.ndarray:
        """The straight lines on screen now that letters must not sit on: the
        cube's edges, the light rays and ``segments`` (m, 2, 2), screen x, y."""
        s, shown = self.s, set(self.get_mobject_family_members())
        lines = [ln for ln in (*s.pic.edges, *s.pic.rays, *s.segments) if ln in shown]
        if not lines:
            return np.zeros((0, 2, 2))
        ends = np.array([[ln.get_start(), ln.get_end()] for ln in lines])
        return s.cam.project_points(ends.reshape(-1, 3))[:, :2].reshape(-1, 2, 2)

    def _clearance(self, *labels: Mobject) -> dict:
        """The letters' boxes and the drawn lines (screen), to check that none runs through a letter."""
        return {"letter_boxes": {lab.get_tex_string(): bounds(lab) for lab in labels},
                "lines": self._drawn_lines()}

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
        (where one is drawn) and the corners' shadows they are cast towards."""
        pic, off, w = self.s.pic, self.s.off, self.s.world
        shown = set(self.get_mobject_family_members())
        return {"mark_opacity": np.array([m.get_fill_opacity() if m in shown else 0.0 for m in pic.marks]),
                "ray_tips": np.array([r.get_end() - off if r in shown else np.full(3, np.nan) for r in pic.rays]),
                "cast_to": w.V @ w.proj()}

    def _probes(self, with_d: bool = True) -> dict:
        """What is drawn: corners, their shadow marks, the shadow outline, the
        wall's corners and the two arrows."""
        pic, off = self.s.pic, self.s.off
        return {"vertices": np.array([c.get_center() for c in pic.corners]) - off,
                "shadows": np.array([m.get_center() for m in pic.marks]) - off,
                "outline": pic.shadow.get_vertices() - off, "wall": pic.wall.get_vertices() - off,
                "wall_screen": self.renderer.camera.project_points(pic.wall.get_vertices()),
                "cube_screen": self.renderer.camera.project_points(np.array([c.get_center() for c in pic.corners])),
                "view": (self.s.cam.get_phi(), self.s.cam.get_theta()), **self._arrows(with_d)}
