"""Scene 5, UpProjection: a 2x3 matrix lifts the plane into 3-D.

The plane's grid and the point x are carried by W (row vectors: [u, v] @ W)
onto the tilted plane spanned by W's rows; x lands on x @ W.  The path is
the straight line of maps (1 - t) [I | 0] + t W.  W's two rows are drawn as
the arrows that span the tilted plane, and dashed lines drop from the landed
point to the floor and the axes, so its coordinates can be read.  Then a 2x2
map for contrast, built on screen before it is used: M = S R(θ), a stretch
and then a rotation (row vectors: x M = (x S) R), played stage by stage.

    manim -ql scenes/up_projection.py UpProjection
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from manim import (
    DEGREES,
    DL,
    DOWN,
    DR,
    LEFT,
    ORIGIN,
    RIGHT,
    UL,
    UP,
    UR,
    Animation,
    Circle,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    GrowFromPoint,
    Indicate,
    LaggedStart,
    Line,
    MathTex,
    Mobject,
    Polygon,
    SurroundingRectangle,
    Text,
    ThreeDAxes,
    ThreeDScene,
    TransformFromCopy,
    UpdateFromAlphaFunc,
    VGroup,
    Write,
    linear,
    smooth,
)

import qkv_math as qm
from qkv_lens.lesson.keys import Matrix, Number, Params, Vector
from qkv_lens.numbers import plain_number, plain_vector, tex_number
from scenes.kit import palette
from scenes.kit.glyphs import number_tex
from scenes.kit.layout import fix_in_frame, overlaps
from scenes.kit.live import LiveMap, Unchanged, put_segment
from scenes.kit.matrices import matrix_mob
from scenes.kit.motion import Emphasize
from scenes.kit.scene import LessonScene
from scenes.kit.text import note, text, title
from scenes.kit.three_d import aim_solid_arrow, flat_shaded, solid_arrow

SPAN = 4          # the grid covers at least [-SPAN, SPAN]^2 in plane coordinates (and a square past the point)
EMBED = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])   # the plane as z = 0
ROW_COLORS = (palette.BASIS_I, palette.BASIS_J)       # row i of W = where basis vector i lands
POINT = palette.INK                                    # the point x and where it lands
FLAT = dict(phi=0, theta=-90 * DEGREES)                 # the plane seen from above, as the learner first sees it
FACE_TURN = 20 * DEGREES     # where the walk-around ends: a little round from the lifted view, towards the front
BOLD = 2.2                   # i, j and W's rows: arrows this many times the kit's usual thickness (one square long)
FACING = 0.35                # a lifted view sees the sheet's face at least this much (cosine to its normal)


def grid_segments(span: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The grid's lines (ends in plane coordinates): every whole u and v across [-span, span]."""
    return [((u, -span), (u, span)) for u in range(-span, span + 1)] + \
           [((-span, v), (span, v)) for v in range(-span, span + 1)]


def camera_direction(phi: float, theta: float) -> np.ndarray:
    """Where manim's 3-D camera stands at ``phi``, ``theta``, seen from the origin (a unit vector)."""
    return np.array([np.sin(phi) * np.cos(theta), np.sin(phi) * np.sin(theta), np.cos(phi)])


def view_score(W: np.ndarray, phi: float, theta: float) -> float:
    """How well the camera at ``phi``, ``theta`` shows the sheet W lifts the
    plane onto: the least of its face's cosine to the camera (negative: its
    back, i to j turning the other way) and the share of their length that
    W's rows and the three axes are drawn with."""
    cam = camera_direction(phi, theta)
    normal = np.cross(W[0], W[1])
    lines = [v / np.linalg.norm(v) for v in (*W, *np.eye(3))]
    return min(float(cam @ normal / np.linalg.norm(normal)),
               *(float(np.sqrt(max(0.0, 1 - (cam @ v) ** 2))) for v in lines))


def lifted_angles(W: np.ndarray) -> dict:
    """The camera once the plane is lifted: where the sheet's face, W's rows
    and the three axes all read best (``view_score``), the nearer the
    learner's first view (theta -90 degrees) of nearly equal ones; theta
    within half a turn of -90, so the camera reaches it the short way."""
    found = [(view_score(W, phi, theta), abs(theta + np.pi / 2), phi, theta)
             for phi in np.deg2rad(np.arange(35, 76, 5)) for theta in np.deg2rad(np.arange(-270, 90, 5))]
    best = max(v[0] for v in found)
    _, _, phi, theta = min((v for v in found if v[0] >= best - 0.02), key=lambda v: v[1])
    return dict(phi=phi, theta=theta)


def low_front(W: np.ndarray) -> dict:
    """The learner's view (theta -90 degrees) tilted as far (up to 40
    degrees) as still sees the face of the plane at every stage of its lift
    by W (or of its way down): the plane comes up and goes down only there,
    so a flat plane is never seen from behind or turned round.  The least
    cosine of the faces to the camera kept is 0.2 (or the best there is)."""
    maps = [(1 - t) * EMBED + t * W for t in np.linspace(0, 1, 11)]
    normals = [np.cross(m[0], m[1]) / np.linalg.norm(np.cross(m[0], m[1])) for m in maps]
    tilts = np.deg2rad(np.arange(40, -1, -5))
    seen = [min(float(camera_direction(phi, -np.pi / 2) @ n) for n in normals) for phi in tilts]
    phi = next((t for t, f in zip(tilts, seen) if f >= 0.2), tilts[int(np.argmax(seen))])
    return dict(phi=float(phi), theta=-np.pi / 2)


def shown_entries(m: Mobject) -> list[list[str]]:
    """The TeX of every entry of a matrix display, row by row (what is on screen)."""
    return [[e.tex_string for e in row] for row in m.get_rows()]


class UpProjectionParams(Params):
    """[up_projection]: the point carried by W (2 x 3) into 3-D; the contrast
    map is rotation(deg) @ stretch(sx, sy), a 2 x 2 same-dimension map."""
    section = "up_projection"
    point: tuple[Fraction, Fraction] = Vector("plane", 2, doc="the 2-D point followed into 3-D")
    W: tuple[tuple[Fraction, ...], ...] = Matrix("plane_map", 2, 3, why="2 rows: the plane's two axes; 3 "
                                                 "columns: x, y, z", doc="where the plane's two axes land")
    contrast_rotation_degrees: Fraction = Number("angle", doc="the same-dimension contrast: rotate by this angle")
    contrast_stretch: tuple[Fraction, Fraction] = Vector("plane_map", 2, doc="after stretching x and y by these")


@dataclass
class _Stage:
    """What the beats share: the lesson's point ``x``, map ``W`` and ``x W``
    (``work``; ``landed`` in floats); the axes (``unit`` scene units a
    coordinate, axis k reaching ``reach[k]`` either way; the grid is cut to
    the box ``cut`` (lowest and highest coordinates): while lifted, to
    ``reach - 1`` either way, so the sheet stays a bounded piece that fits
    the frame; flat again, to the window the contrast is watched through);
    the grid, the point and the plane's two directions i and j (``arrows``),
    which ``live`` carries by a 2x3 map (row vectors): i and j land on W's
    rows; the text; and what the lift adds for the beats after it."""
    x: np.ndarray
    W: np.ndarray
    work: qm.WorkedProduct
    landed: np.ndarray
    span: int                  # the grid covers [-span, span]^2: a square past the point at least
    unit: float
    reach: np.ndarray
    cut: tuple[np.ndarray, np.ndarray]
    axes: ThreeDAxes
    grid: VGroup
    dot: Dot
    arrows: VGroup
    heading: Mobject
    w_mat: Mobject
    w_mob: VGroup
    x_text: MathTex
    live: LiveMap = field(init=False)
    unchanged: Unchanged = field(default_factory=Unchanged)
    # the flat plane: i and j's names, x's name, the dashed lines to the axes and the coordinates they read
    flat_marks: VGroup | None = None
    # the lift: the axes' names, x W and the note on the span, what the views keep in frame, the sheet
    axis_labels: VGroup | None = None
    result: MathTex | None = None
    span_note: Mobject | None = None
    point_label: Mobject | None = None
    in_view: list[np.ndarray] = field(default_factory=list)
    flat_points: list[np.ndarray] = field(default_factory=list)     # what is in view while the plane is flat
    lifted_view: dict = field(default_factory=dict)
    turn_views: tuple[dict, dict] = ({}, {})     # the walk round the lifted plane: edge on, then its face
    point_spots: list[np.ndarray] = field(default_factory=list)     # x W's name in the lifted view and those
    sheet: Polygon | None = None
    # W's rows' labels; x W's coordinates and the dashed lines reading them
    row_labels: VGroup | None = None
    drops: VGroup | None = None
    coords: VGroup | None = None
    read: list[int] = field(default_factory=list)     # the coordinates read (a zero one is read at the origin)

    def __post_init__(self) -> None:
        self.live = LiveMap(self.draw, start=EMBED, z=0)   # the flat plane first; the driver at z index 0

    def draw(self, state: np.ndarray | tuple) -> None:
        """Carry the grid and the point by the 2x3 map ``state``, the grid cut
        to ``cut``, or by ``(map, low, high)``, cut to that box (the live
        map's ``show``)."""
        m, lo, hi = (state, *self.cut) if isinstance(state, np.ndarray) else state
        if self.unchanged(m, lo, hi):
            return          # the map has not moved since the last frame
        for line, (a, b) in zip(self.grid, grid_segments(self.span)):
            ends = clip_segment(np.array(a) @ m, np.array(b) @ m, lo, hi)
            if ends is None:      # wholly past the cut: a line of no length (not drawn) at the origin
                ends = (np.zeros(3), np.zeros(3))
            put_segment(line, self.axes.c2p(*ends[0]), self.axes.c2p(*ends[1]))
        self.dot.move_to(self.axes.c2p(*(self.x @ m)))
        origin = self.axes.c2p(0, 0, 0)
        for arrow, row in zip(self.arrows, m):    # i and j go where the map sends them
            aim_solid_arrow(arrow, origin, self.axes.c2p(*row))

    def sheet_corners(self) -> np.ndarray:
        """The corners of the lifted sheet (axes coordinates): the grid's
        square carried by W and cut to ``cut``."""
        return clip_square(self.W, self.span, *self.cut) @ self.W

    def sheets_between(self) -> list[np.ndarray]:
        """The corners of the (cut) sheet at every stage of the lift, scene
        coordinates: what a camera that watches the lift must hold."""
        maps = [(1 - t) * EMBED + t * self.W for t in np.linspace(0, 1, 13)]
        return [self.axes.c2p(*q) for m in maps for q in clip_square(m, self.span, *self.cut) @ m]


@dataclass
class _Contrast:
    """The same-dimension contrast M = S R(θ): the stretch ``S`` by ``sx``,
    ``sy``, the turn ``degrees``, ``M`` itself, and its formula (lines
    S =, R(θ) =, M = S R =; ``c_mat`` shows M)."""
    sx: float
    sy: float
    degrees: float
    S: np.ndarray
    M: np.ndarray
    formula: VGroup
    c_mat: Mobject
    title: Mobject                 # "same dimension: stretch, then rotate", under x
    glass: VGroup | None = None    # the glass on the turned plane and x M = 3 (i M) + 4 (j M) (``_glass``)
    kinds: Mobject | None = None   # what the outro writes under it: the three kinds of map, and x W ?
    ahead: Mobject | None = None

    def stretched(self, t: float) -> np.ndarray:
        """The 2x3 map ``t`` of the way from the plane to S."""
        S3 = np.zeros((2, 3))
        S3[:, :2] = self.S
        return (1 - t) * EMBED + t * S3

    def turned(self, t: float) -> np.ndarray:
        """The 2x3 map S R(θ t): a true rotation at every instant."""
        out = np.zeros((2, 3))
        out[:, :2] = self.S @ qm.rotation(np.deg2rad(self.degrees) * t)
        return out


class UpProjection(LessonScene, ThreeDScene):
    params: UpProjectionParams
    chapter = 1
    number = 5
    s: _Stage

    def construct(self):
        self.s = self._stage()
        self._intro()
        self._lift()
        self._rows()
        self._coords()
        self._turn()
        contrast = self._contrast()
        box = self._stretch(contrast)
        box = self._rotate(contrast, box)
        self._outro(box, contrast)

    def _stage(self) -> _Stage:
        """The lesson's numbers, the axes sized to them, the grid, the point
        and i and j (the plane seen from above), the title, W and x."""
        p, lang = self.params, self.lang
        # manim's Cairo camera draws through a context made once, shifted by the frame centre of that moment:
        # make it now, while the centre is the origin, so the views' own centres never move the text
        cam = self.renderer.camera
        cam.get_cairo_context(cam.pixel_array)
        W = np.array(p.W, dtype=float)
        work = qm.worked_product(p.point, p.W)
        landed = np.array([float(v) for v in work.result])
        # the grid reaches a square past the point, so x and x W lie inside it (not on its edge)
        span = max(SPAN, int(np.ceil(np.abs(np.array(p.point, dtype=float)).max())) + 1)
        # the axes only reach a little past the point and W's rows; the lifted grid is cut just inside them
        # (each axis its own: a height the lesson never reaches is not drawn), two units past x W
        reach = np.maximum(SPAN, np.maximum(np.abs(landed) + 2.5, np.abs(W).max(axis=0) + 2))
        reach[:2] = np.maximum(reach[:2], span + 1)          # the flat grid lies inside the cut
        cut = (0.5 - reach, reach - 0.5)
        unit = 7 / (2 * float(reach.max()))                  # scene units per coordinate
        (rx, ry, rz) = (float(r) for r in reach)
        axes = ThreeDAxes(x_range=(-rx, rx, 1), y_range=(-ry, ry, 1), z_range=(-rz, rz, 1),
                          x_length=2 * rx * unit, y_length=2 * ry * unit, z_length=2 * rz * unit,
                          axis_config={"stroke_color": palette.MUTED, "include_ticks": False,
                                       "tip_width": 0.16, "tip_height": 0.16})
        flat_shaded(axes)
        grid = VGroup(*[Line(ORIGIN, RIGHT, stroke_width=1.5, color=palette.EMBED, stroke_opacity=0.7)
                        for _ in grid_segments(span)])
        dot = Dot(radius=0.1, color=POINT)
        self.face_camera(dot)          # a flat disc turned to the camera: round from every side
        arrows = VGroup(*[solid_arrow(axes.c2p(0, 0, 0), axes.c2p(*e), c, bold=BOLD)
                          for e, c in zip(np.eye(2, 3), ROW_COLORS)])
        heading = title(self.tr("title"), lang)
        # a fraction's digits are smaller: its matrix and coordinates are set larger to stay readable
        w_mat = matrix_mob(p.W, row_colors=ROW_COLORS, font_size=37 if _fraction(p.W) else 34)
        w_mob = VGroup(MathTex("W =", font_size=36), w_mat).arrange(RIGHT, buff=0.15)
        x_text = MathTex(rf"x = [{tex_number(p.point[0])},\ {tex_number(p.point[1])}]", font_size=36,
                         color=POINT).next_to(heading, DOWN, aligned_edge=LEFT, buff=0.3)
        w_mob.next_to(x_text, DOWN, aligned_edge=LEFT, buff=0.25)     # read down the column: x, W, then x W
        s = _Stage(np.array(p.point, dtype=float), W, work, landed, span, unit, reach, cut, axes, grid, dot, arrows,
                   heading, w_mat, w_mob, x_text)
        s.live.follow()
        fix_in_frame(self, heading, w_mob, x_text)
        self.add(s.live.driver)
        return s

    def free_box(self) -> tuple:
        """(left, bottom), (right, top): the frame right of the text column, above the subtitles."""
        s = self.s
        column = [m for m in (s.heading, s.x_text, s.w_mob, s.result, s.span_note) if m is not None]
        return (max(m.get_right()[0] for m in column) + 0.3, -2.75), (6.85, 3.85)

    def _intro(self) -> None:
        """The plane seen from above: its axes and grid, its two directions
        i and j, and the point x, read off by dashed lines to the axes."""
        s, axes = self.s, self.s.axes
        x, y = s.x
        names = VGroup(*[MathTex(rf"\boldsymbol{{{n}}}", font_size=54, color=c) for n, c in zip("ij", ROW_COLORS)])
        x_name = MathTex("x", font_size=40, color=POINT)
        feet = [axes.c2p(x, 0, 0), axes.c2p(0, y, 0)]
        drops = VGroup(*[DashedLine(axes.c2p(x, y, 0), f, dash_length=0.08) for f, v in zip(feet, (y, x)) if v])
        drops.set_stroke(color=POINT, width=2, opacity=0.85)
        read = VGroup(*[number_tex(tex_number(v), font_size=40 if _fraction(v) else 34, color=POINT)
                        for v in self.params.point])
        # each beside its own point, on the first side where it covers no label placed before it nor the dot
        down, left = (DOWN if y >= 0 else UP), (LEFT if x >= 0 else RIGHT)
        taken = [box_of(s.dot)]
        for label, anchor, sides in ((read[0], feet[0], (down, -down)), (read[1], feet[1], (left, -left)),
                                     (x_name, s.dot.get_center(), (UR, UL, DR, DL, UP, DOWN)),
                                     (names[0], axes.c2p(1, 0, 0), (DOWN, UP, DR, UR, DL, UL)),
                                     (names[1], axes.c2p(0, 1, 0), (LEFT, RIGHT, UL, UR, DL, DR))):
            tries = [(side, buff) for buff in (0.12, 0.35, 0.6) for side in sides]    # further out if need be
            for side, buff in tries:
                label.next_to(anchor, side, buff=buff)
                if not any(overlaps(box_of(label), t, pad=0.06) for t in taken):
                    break
            taken.append(box_of(label))
        s.flat_marks = VGroup(names, x_name, drops, read)
        self.face_camera(*names, x_name, *read)
        box = self.free_box()
        reach = [s.reach[0], s.reach[1], 0]            # the grid, its axes and the names round it, in frame
        flat = self.fitted(FLAT, [axes.c2p(*(np.array(c) * (s.span + 0.6))) for c in ((1, 1, 0), (-1, -1, 0))] +
                           [axes.c2p(*(sign * np.array(reach) * e)) for e in np.eye(3)[:2] for sign in (1, -1)], box,
                           pad=0.2)
        self.set_camera_orientation(**flat)
        with self.beat("intro_say", u=plain_number(x), v=plain_number(y)):
            self.play(Write(s.heading), Create(s.grid), Create(axes.x_axis), Create(axes.y_axis), run_time=1.5)
            self.play(*[GrowFromPoint(a, axes.c2p(0, 0, 0)) for a in s.arrows], FadeIn(names), run_time=1.0)
            self.play(FadeIn(s.dot), FadeIn(x_name), FadeIn(s.x_text), run_time=0.6)
            self.play(*[Create(d) for d in drops], FadeIn(read, shift=0.1 * DOWN), run_time=1.0)
            self.describe("describe_intro", u=self.params.point[0], v=self.params.point[1], x=self.params.point,
                          fractions=_fraction(self.params.point))
        self.moment("flat", dot=axes.p2c(s.dot.get_center()),
                    arrows=np.array([axes.p2c(a.tip.get_center()) for a in s.arrows]),
                    names=[(n.tex_string, axes.p2c(n.get_center())) for n in names],
                    read=[(r.tex_string, axes.p2c(r.get_center())) for r in read],
                    x_name=axes.p2c(x_name.get_center()), drawn=self.drawn_box(s.grid),
                    arrow_boxes=[self.drawn_box(a) for a in s.arrows], name_boxes=[self.drawn_box(n) for n in names],
                    **self.marks({"i": axes.c2p(1, 0, 0), "j": axes.c2p(0, 1, 0), "x": s.dot.get_center(),
                                  "foot 1": feet[0], "foot 2": feet[1]},
                                 [(names[0], "i", axes.c2p(0, 0, 0)), (names[1], "j", axes.c2p(0, 0, 0)),
                                  (x_name, "x", None), (read[0], "foot 1", None), (read[1], "foot 2", None)]))

    def _lift(self) -> None:
        """W appears, the camera rises and the plane is carried by W into
        3-D: i and j land on W's rows, x lands on x W."""
        s, axes, W = self.s, self.s.axes, self.s.W
        # axis names that face the camera wherever it goes
        # (the output's coordinates y_1, y_2, y_3: named apart from the input x and the point x W)
        tips = [axes.c2p(*((s.reach[k] + (0.45 if k == 2 else 0.4)) * np.eye(3)[k])) for k in range(3)]
        s.axis_labels = VGroup(*[MathTex(f"y_{k + 1}", font_size=42, color=palette.INK).move_to(tips[k])
                                 for k in range(3)])
        self.face_camera(*s.axis_labels)

        s.result = MathTex(r"y = x\,W = [" + ",\\ ".join(tex_number(v) for v in s.work.result) + "]",
                           font_size=38, color=POINT)
        s.result.next_to(s.w_mob, DOWN, aligned_edge=LEFT, buff=0.25)
        s.span_note = note(self.tr("span"), self.lang, width=4.6)
        s.span_note.next_to(s.result, DOWN, aligned_edge=LEFT, buff=0.25)
        s.point_label = MathTex(r"x\,W", font_size=36, color=POINT)
        self.face_camera(s.point_label)
        fix_in_frame(self, s.result, s.span_note)
        s.live.attach()
        # the lifted view: the whole (cut) sheet, the axes' names and the landed point right of the text
        ends = [sign * s.reach * e for e in np.eye(3) for sign in (1, -1)]       # the axes' ends
        s.in_view = [axes.c2p(*q) for q in (*s.sheet_corners(), s.landed, *ends)] + tips
        s.lifted_view = self.fitted(lifted_angles(W), s.in_view, self.free_box(), pad=0.35)
        s.turn_views = self._turn_views()
        # the landed point's own name beside it, clear of the text and the axes' names in every view it is seen
        # from (the lifted view, and the walk round the plane), and nearer its point than any other named point
        self._place_point_label()
        n = s.span
        s.flat_points = [axes.c2p(*c) for c in ((n, n, 0), (n, -n, 0), (-n, n, 0), (-n, -n, 0), *ends)] + tips
        # the camera tilts up from where the learner stands (theta -90 degrees) and the plane lifts there, seen
        # from its face at every stage, filling the frame right of the text; then the camera walks round to the
        # lifted view. The flat plane is never seen turned round or from behind.
        box = self.free_box()
        front = low_front(W)
        tilted = self.fitted(front, s.flat_points, box, pad=0.35)

        def lifting(t: float) -> list[np.ndarray]:
            m = (1 - t) * EMBED + t * W
            return [axes.c2p(*q) for q in clip_square(m, s.span, *s.cut) @ m] + \
                [axes.c2p(*q) for q in ends] + tips

        up = self.fitted(front, lifting(1.0), box, pad=0.35)
        # checkpoint: can the lifted plane fill all of 3-D? Only if W's rank were 3 (the lift shows the sheet)
        n, m = W.shape
        self.checkpoint("fill_ask", choices=[self.tr("yes"), self.tr("no")], answer=0 if qm.rank(W) == m else 1,
                        n=n, m=m)
        with self.beat("lift_say", n=2, m=3):
            self.play(FadeIn(s.w_mob), FadeOut(s.flat_marks), run_time=0.6)
            self.travel(tilted, lambda t: s.flat_points, box, 1.2, FadeIn(axes.z_axis), FadeIn(s.axis_labels))
            s.live.path = lambda t: (1 - t) * EMBED + t * W
            rise = [self.camera_angles()]
            lift_drawn = self.travel(up, lifting, box, 2.2, driven=s.live)
            rise.append(self.camera_angles())
            self.travel(s.lifted_view, lambda t: s.in_view, box, 1.8)
            self.play(FadeIn(s.result), FadeIn(s.point_label), run_time=0.8)
            self.describe("describe_lift", W=self.params.W, y=s.work.result,
                          fractions=_fraction([self.params.W, *s.work.result]))
        s.sheet = Polygon(*[axes.c2p(*c) for c in s.sheet_corners()],
                          stroke_width=0, fill_color=palette.EMBED, fill_opacity=0.16)
        self.moment("lifted", dot=axes.p2c(s.dot.get_center()),
                    grid_ends=np.array([axes.p2c(s.grid[0].get_start()), axes.p2c(s.grid[0].get_end())]),
                    result=s.result.tex_string, arrows=np.array([axes.p2c(a.tip.get_center()) for a in s.arrows]),
                    axis_labels=[(lab.tex_string, axes.p2c(lab.get_center())) for lab in s.axis_labels],
                    facing=all(m in self.renderer.camera.fixed_orientation_mobjects
                               for lab in s.axis_labels for m in lab.get_family()),
                    drawn=self.drawn_box(s.grid, s.axes, s.axis_labels), free=self.free_box(), lift_drawn=lift_drawn,
                    camera=self.camera_angles(), rise=rise)

    def _turn_views(self) -> tuple[dict, dict]:
        """The walk round the lifted plane (``_turn``), from the lifted view:
        a quarter turn round to where the plane is seen edge on; then to a
        view of its face a little round from the lifted one (the side where
        it reads better), each as near as keeps the sheet, the axes and
        their names in frame all the way, and each where the axes' names
        stand apart if such a view is among those tried."""
        s = self.s
        normal = np.cross(s.W[0], s.W[1])
        lifted, box = s.lifted_view, self.free_box()

        def names_apart(view: dict) -> bool:
            with self.viewed_from(**view) as project:
                boxes = [box_of(lab, project(lab.get_center())) for lab in s.axis_labels]
            return not any(overlaps(a, b, pad=0.05) for i, a in enumerate(boxes) for b in boxes[i + 1:])

        def first_apart(views: list[dict], start: dict) -> dict:
            """The first of ``views`` (reached from ``start``) whose axes' names stand apart, else the first."""
            with self.viewed_from(**start):
                fitted = [self.kept_in_frame(self.fitted(v, s.in_view, box, pad=0.35), s.in_view) for v in views]
            return next((v for v in fitted if names_apart(v)), fitted[0])

        # edge on: a quarter turn round (either way), as high as 70 degrees or else lower or higher
        edges = [dict(phi=phi, theta=edge_on_theta(normal, phi, lifted["theta"] + way))
                 for phi in np.deg2rad([70, 60, 80, 50]) for way in (-np.pi / 2, np.pi / 2)]
        edge = first_apart(edges, lifted)
        faces = sorted((dict(phi=lifted["phi"], theta=lifted["theta"] + turn) for turn in (FACE_TURN, -FACE_TURN)),
                       key=lambda f: -view_score(s.W, f["phi"], f["theta"]))
        faces.append(dict(phi=lifted["phi"], theta=lifted["theta"]))
        return edge, first_apart(faces, edge)

    def _place_point_label(self) -> None:
        """Put x W's name beside its point in each view it is held in (the
        lifted view, edge on, its face: ``point_spots``, 3-D; the name slides
        from one to the next as the camera walks round) where, as drawn, it
        stays in the free frame, covers neither the text, the axes' names,
        the point nor the dashed lines that read its coordinates, and lies
        nearer its point than any axis' end or W's rows' tips, at that view
        and as far as may be on the way there; the nearest such spot of
        those tried (above the point first), else the one that fails least
        (leaving the frame, most of all)."""
        s, axes = self.s, self.s.axes
        anchor = axes.c2p(*s.landed)
        others = [axes.c2p(*(s.reach[k] * np.eye(3)[k])) for k in range(3)] + [axes.c2p(*row) for row in s.W]
        # the dashed lines that will drop from the point to the floor and the axes (``_rows``): not under the name
        floor = s.landed * np.array([1.0, 1.0, 0.0])
        drops = [(s.landed, floor)] + [(s.landed if k == 2 else floor, s.landed * np.eye(3)[k]) for k in range(3)]
        on_drops = [axes.c2p(*(a + (b - a) * t)) for a, b in drops for t in np.linspace(0, 1, 24)]
        text = [box_of(m) for m in (s.heading, s.x_text, s.w_mob, s.result, s.span_note)]
        label = s.point_label

        def between(a: dict, b: dict, t: float) -> dict:
            return {k: (1 - t) * np.asarray(a[k]) + t * np.asarray(b[k]) for k in a}

        def misses(view: dict, places: list[np.ndarray]) -> list[int]:
            """For the name at each of ``places`` (3-D), whether it fails in ``view``: 100 when it leaves the
            frame, 1 when it covers something or lies nearer another point."""
            with self.viewed_from(**view) as project:
                spot = project(anchor)[:2]
                other = [project(q)[:2] for q in others]
                taken = text + [box_of(None, spot, 0.12)] + [box_of(None, project(q)[:2], 0.03) for q in on_drops]
                names = [box_of(lab, project(lab.get_center())) for lab in s.axis_labels]
                out = []
                for at in places:
                    box = box_of(label, project(at)[:2])
                    inside = -6.95 < box[0] and box[2] < 6.95 and -2.95 < box[1] and box[3] < 3.95
                    clear = not any(overlaps(box, t, pad=0.05) for t in taken) and \
                        not any(overlaps(box, t, pad=0.2) for t in names)     # (a name is not read as the next)
                    nearest = all(_box_distance(box, spot) < _box_distance(box, q) for q in other)
                    out.append(100 * (not inside) + (not (clear and nearest)))
                return out

        spots: list[np.ndarray] = []
        previous: dict | None = None
        for view in (s.lifted_view, *s.turn_views):
            with self.viewed_from(**view) as project:
                rot = UpProjection._rotation(project, anchor)
            places = [anchor + rot @ (side * np.array([label.width / 2 + gap, label.height / 2 + gap, 0]))
                      for gap in (0.08, 0.2, 0.35, 0.55) for side in (UP, UR, UL, RIGHT, LEFT, DR, DL, DOWN)]
            cost = 10 * np.array(misses(view, places))          # where it is held counts most
            if previous is not None:                            # and then the way there, the name sliding
                for t in (0.25, 0.5, 0.75):
                    cost += np.array(misses(between(previous, view, t), [(1 - t) * spots[-1] + t * q for q in places]))
            spots.append(places[int(np.argmin(cost))])          # (the first of equals: the nearest spot tried)
            previous = view
        s.point_spots = spots
        label.move_to(spots[0])

    def _rows(self) -> None:
        """W's rows are where i and j landed: the arrows from the origin that
        span the tilted plane, named; the landed point's coordinates, read
        off by dashed lines to the floor and the axes, are set out for the
        next beat."""
        s, axes, W, landed = self.s, self.s.axes, self.s.W, self.s.landed
        origin = axes.c2p(0, 0, 0)
        s.row_labels = VGroup(*[VGroup(text(self.tr("row", i=i + 1), self.lang, size=24, color=c),
                                       MathTex(plain_vector(row).replace(", ", r",\ "), font_size=30, color=c)
                                       ).arrange(DOWN, buff=0.06)
                                for i, (row, c) in enumerate(zip(W, ROW_COLORS))])
        floor = landed * np.array([1, 1, 0])
        s.read = [k for k in range(3) if landed[k] != 0]
        feet = [landed * np.eye(3)[k] for k in s.read]
        ends = [(landed, floor)] + [(landed if k == 2 else floor, foot) for k, foot in zip(s.read, feet)]
        s.drops = VGroup(*[DashedLine(axes.c2p(*a), axes.c2p(*b), dash_length=0.06)
                           for a, b in ends if np.linalg.norm(b - a) > 1e-9])
        s.drops.set_stroke(color=POINT, width=2, opacity=0.85)
        s.coords = VGroup(*[number_tex(tex_number(s.work.result[k]),
                                       font_size=40 if _fraction(s.work.result[k]) else 34, color=POINT)
                            for k in s.read])
        with self.viewed_from(**s.lifted_view) as project:
            self._place_close_labels(project, origin, feet)
        self.face_camera(*s.row_labels, *s.coords)
        with self.beat("rows_say", focus=VGroup(s.arrows, s.row_labels)):
            self.play(s.grid.animate.set_stroke(opacity=0.35), run_time=0.8)
            for i, label in enumerate(s.row_labels):
                self.play(FadeIn(label), Indicate(s.w_mat.get_rows()[i], color=ROW_COLORS[i], scale_factor=1.15),
                          run_time=0.9)
            self.play(FadeIn(s.sheet), FadeIn(s.span_note), run_time=1.0)
            self.describe("describe_rows", r1=self.params.W[0], r2=self.params.W[1], span=self.tr("span"),
                          fractions=_fraction(self.params.W))
        with self.viewed_from(**s.lifted_view) as project:
            o = project(origin)[:2]
            lengths = [float(np.linalg.norm(project(axes.c2p(*row))[:2] - o)) for row in W]
        self.moment("rows", tips=np.array([axes.p2c(a.tip.get_center()) for a in s.arrows]),
                    starts=np.array([axes.p2c(a.tail.get_center()) for a in s.arrows]),
                    labels=[lab[1].tex_string for lab in s.row_labels], drawn_lengths=lengths,
                    sheet=np.array([axes.p2c(v) for v in s.sheet.get_vertices()]), dot=axes.p2c(s.dot.get_center()),
                    drawn=self.drawn_box(s.grid, s.sheet, s.axes, s.axis_labels), free=self.free_box(),
                    camera=self.camera_angles(), **self.lifted_marks(rows=True))

    def _place_close_labels(self, project: Callable, origin: np.ndarray, feet: list[np.ndarray]) -> None:
        """Put the coordinates beside their ``feet`` and the rows' labels
        beside the rows' tips where, drawn by ``project``, they cover none of
        the text, the axes' names, the lines, nor each other."""
        s, axes = self.s, self.s.axes
        taken = [box_of(m) for m in (s.heading, s.x_text, s.result, s.span_note, s.w_mob)]
        taken += [box_of(lab, project(lab.get_center())) for lab in (*s.axis_labels, s.point_label)]
        lines = [(origin, axes.c2p(*row)) for row in s.W] + [(d.get_start(), d.get_end()) for d in s.drops]
        lines += [(axes.c2p(*(-s.reach * e)), axes.c2p(*(s.reach * e))) for e in np.eye(3)]
        for a, b in lines:   # the lines a label must not sit on, as a row of small boxes
            steps = max(8, int(np.linalg.norm(project(b) - project(a)) / 0.1))
            taken += [box_of(None, project(a + (b - a) * k / steps), 0.04) for k in range(steps + 1)]
        named = [axes.c2p(*q) for q in (*feet, *s.W, s.landed, *(s.reach * np.eye(3)))]
        for label, anchor in [*zip(s.coords, feet), *zip(s.row_labels, s.W)]:
            taken.append(self.place_beside(label, axes.c2p(*anchor), project, taken, named))

    def _coords(self) -> None:
        """The dashed lines drop from x W to the floor and the axes: its coordinates are read."""
        s, axes = self.s, self.s.axes
        with self.beat("coords_say", focus=s.coords, names_change=True, xw=plain_vector(s.work.result)):
            if len(s.drops):
                self.play(LaggedStart(*[Create(d) for d in s.drops], lag_ratio=0.5), run_time=2.0)
            self.play(FadeIn(s.coords), Emphasize(s.result, scale_factor=1.06), run_time=1.0)
        self.moment("coords", drops=[(axes.p2c(d.get_start()), axes.p2c(d.get_end())) for d in s.drops],
                    coords=[(k, c.tex_string) for k, c in zip(s.read, s.coords)],
                    coord_at=np.array([axes.p2c(c.get_center()) for c in s.coords]),
                    dot=axes.p2c(s.dot.get_center()), camera=self.camera_angles(),
                    **self.lifted_marks(rows=True, coords=True))

    def _turn(self) -> None:
        """The camera goes round the lifted plane: to where it is seen edge
        on (a line: it is flat), then to a view of its face."""
        s, axes = self.s, self.s.axes
        edge, face = s.turn_views
        box = self.free_box()
        with self.beat("turn_say", names_change=True):
            self.play(FadeOut(s.row_labels), FadeOut(s.coords), run_time=0.6)
            self.move_camera(**edge, added_anims=[s.grid.animate.set_stroke(opacity=0.7),
                                                  s.point_label.animate.move_to(s.point_spots[1])], run_time=4.0)
            self.moment("edge", camera=self.camera_angles(), **self.lifted_marks())
            self.move_camera(**face, added_anims=[s.point_label.animate.move_to(s.point_spots[2])], run_time=2.0)
        self.moment("turned", dot=axes.p2c(s.dot.get_center()), drawn=self.drawn_box(s.grid, s.axes, s.axis_labels),
                    free=box, axis_labels=[self.drawn_box(lab) for lab in s.axis_labels],
                    point_label=self.drawn_box(s.point_label), point=self.drawn_box(s.dot), camera=self.camera_angles(),
                    **self.lifted_marks())

    def _contrast(self) -> _Contrast:
        """The contrast, a same-dimension map: the plane comes down flat again
        and M = S R(θ) is built on screen, a stretch and then a rotation."""
        s, p = self.s, self.params
        sx, sy = (float(v) for v in p.contrast_stretch)
        degrees = float(p.contrast_rotation_degrees)
        S = qm.stretch(sx, sy)
        R = qm.rotation(np.deg2rad(degrees))
        C = S @ R
        deg_tex = rf"{tex_number(p.contrast_rotation_degrees)}^\circ"
        contrast = text(self.tr("contrast"), self.lang, size=26, color=palette.INK)
        contrast.next_to(s.x_text, DOWN, aligned_edge=LEFT, buff=0.25)
        s_mat, r_mat, c_mat = (matrix_mob(m, font_size=30, digits=2) for m in (S, R, C))
        formula = VGroup(VGroup(MathTex("S =", font_size=32), s_mat).arrange(RIGHT, buff=0.15),
                         VGroup(MathTex(rf"R({deg_tex}) =", font_size=32), r_mat).arrange(RIGHT, buff=0.15),
                         VGroup(MathTex(r"M = S\,R =", font_size=32), c_mat).arrange(RIGHT, buff=0.15)
                         ).arrange(DOWN, aligned_edge=RIGHT, buff=0.3)
        formula.to_corner(UP + RIGHT, buff=0.3)
        fix_in_frame(self, contrast, formula)

        # the window the contrast is watched through: every place it names (the origin, i and j and where S and
        # M take them, x and where the stretch and the turn take it, the walk of the glass), with room round them
        # for their names; the grid, cut to it, fills it at every stage (it grows with the stretch) and the
        # plane's axes grow to cross it. The flat view puts it left of the formulas, below the text.
        n = s.span
        stages = [S @ qm.rotation(np.deg2rad(degrees) * t) for t in np.linspace(0, 1, 25)] + [np.eye(2)]
        places = np.array([q @ m for m in stages for q in (np.zeros(2), *np.eye(2), s.x)] + [s.x[0] * C[0]])
        low = np.minimum(places.min(axis=0) - 1.3, -1.0)
        high = np.maximum(places.max(axis=0) + 1.3, 1.0)
        window = (np.array([*low, -1.0]), np.array([*high, 1.0]))
        axes = s.axes
        grown = ThreeDAxes(x_range=(low[0], high[0], 1), y_range=(low[1], high[1], 1), z_range=(-1, 1, 1),
                           x_length=(high[0] - low[0]) * s.unit, y_length=(high[1] - low[1]) * s.unit,
                           z_length=2 * s.unit, axis_config={"stroke_color": palette.MUTED, "include_ticks": False,
                                                             "tip_width": 0.16, "tip_height": 0.16})
        grown.shift(axes.c2p(0, 0, 0) - grown.c2p(0, 0, 0))
        flat_shaded(grown)
        left, right, bottom, top = -6.9, formula.get_left()[0] - 0.3, -2.95, contrast.get_bottom()[1] - 0.15
        zoom = min((right - left) / (high[0] - low[0] + 0.3), (top - bottom) / (high[1] - low[1] + 0.3)) / s.unit
        middle = axes.c2p(*(low + high) / 2, 0)
        flat = dict(phi=0, theta=-90 * DEGREES, zoom=zoom,
                    frame_center=middle - np.array([(left + right) / 2, (bottom + top) / 2, 0.0]) / zoom)
        ends = [np.array([q[0], q[1], 0.0]) for q in ((low[0], 0), (high[0], 0), (0, low[1]), (0, high[1]))]
        lifted_ends = [sign * s.reach[k] * np.eye(3)[k] for k in range(2) for sign in (-1, 1)]

        def lowered(t: float) -> tuple:
            """The plane at time t of its way down: its map, and the box it is cut to, from the lifted
            sheet's to the window."""
            return ((1 - t) * s.W + t * EMBED, (1 - t) * s.cut[0] + t * window[0], (1 - t) * s.cut[1] + t * window[1])

        def lowering(t: float) -> list[np.ndarray]:
            m, lo, hi = lowered(t)
            return [axes.c2p(*q) for q in (*(clip_square(m, n, lo, hi) @ m),
                                           *((1 - t) * a + t * b for a, b in zip(lifted_ends, ends)))]

        with self.beat("contrast_say", focus=formula):
            # the camera walks back round to where the learner stands, tilted as in the lift, and the plane comes
            # down there, seen from its face (never from behind), as the camera comes up above it
            front = self.kept_in_frame(self.fitted(low_front(s.W), s.in_view, ((-6.3, -2.7), (6.3, 3.4))),
                                       s.in_view)
            self.move_camera(**front, added_anims=[FadeOut(m) for m in (
                s.sheet, s.result, s.span_note, s.w_mob, s.arrows, s.drops, s.axis_labels, axes.z_axis,
                s.point_label)], run_time=1.2)
            self.remove(axes.x_axis, axes.y_axis)
            descent = [self.camera_angles()]
            s.live.path = lowered
            self.travel(flat, lowering, ((-6.9, -2.95), (6.8, s.x_text.get_bottom()[1] - 0.15)), 1.6,
                        TransformFromCopy(axes.x_axis, grown.x_axis), TransformFromCopy(axes.y_axis, grown.y_axis),
                        driven=s.live)
            descent.append(self.camera_angles())
            s.cut = window          # flat again: from now on the grid fills the window, however it stretches
            self.play(FadeIn(contrast), run_time=0.6)
            for line in formula:
                self.play(FadeIn(line), run_time=0.7)
            self.describe("describe_contrast", contrast=self.tr("contrast"), S=S, deg=p.contrast_rotation_degrees,
                          R=R, M=C, places=2)
        self.moment("formula", S=shown_entries(s_mat), R=shown_entries(r_mat), M=shown_entries(c_mat),
                    dot=s.axes.p2c(s.dot.get_center()), camera=self.camera_angles(), descent=descent,
                    screen=self.plane_on_screen(), dot_radius=s.dot.width / 2)
        return _Contrast(sx, sy, degrees, S, C, formula, c_mat, contrast)

    def _stretch(self, c: _Contrast) -> Mobject:
        """S first: the plane stretched.  Returns the box round S's line."""
        s = self.s
        box = SurroundingRectangle(c.formula[0], color=palette.FOCUS, buff=0.08)
        fix_in_frame(self, box)
        with self.beat("stretch_say", focus=VGroup(c.formula[0], box), sx=plain_number(c.sx), sy=plain_number(c.sy)):
            self.play(FadeIn(box), run_time=0.5)
            s.live.play(self, c.stretched, seconds=2.0)
            self.describe("describe_stretch", at=s.x @ c.S, places=2)
        self.moment("stretched", dot=s.axes.p2c(s.dot.get_center()), **self.grid_probes())
        return box

    def _rotate(self, c: _Contrast, box: Mobject) -> Mobject:
        """Then R(θ): the stretched plane turned, a true rotation at every
        instant; M = S R is where it ends.  The box stays on R while the turn
        is named; then the glass (``_glass``).  Returns the box round R's line."""
        s = self.s
        box2 = SurroundingRectangle(c.formula[1], color=palette.FOCUS, buff=0.08)
        fix_in_frame(self, box2)
        with self.beat("rotate_say", focus=VGroup(c.formula[1], box2),
                       deg=plain_number(self.params.contrast_rotation_degrees)) as said:
            glass_at = self.cue_at(said, 0.75)[0]      # "... like the same thing seen through a magnifying glass"
            self.play(FadeOut(box), FadeIn(box2), run_time=0.5)
            s.live.play(self, c.turned, seconds=2.5)
            self.wait_until(glass_at - 0.6, c.formula[1])
            c.glass = self._glass(c)
            p = self.params
            self.describe("describe_rotate", u=p.point[0], v=p.point[1], x=p.point, fractions=_fraction(p.point))
        g = c.glass
        self.moment("contrast", dot=s.axes.p2c(s.dot.get_center()), matrix=c.M, shown=shown_entries(c.c_mat),
                    arrows=np.array([s.axes.p2c(a.tip.get_center()) for a in s.arrows]),
                    legs=[(s.axes.p2c(leg.get_start()), s.axes.p2c(leg.get_end())) for leg in g.legs],
                    glass=s.axes.p2c(g.ring.get_center()), read=g.read.tex_string, walk=g.walk,
                    screen=self.plane_on_screen(),
                    steps=[m.tex_string for m in g.steps], sum=g.sum.tex_string, **self.grid_probes(),
                    **self.marks({"i M": s.axes.c2p(*c.M[0], 0), "j M": s.axes.c2p(*c.M[1], 0),
                                  "leg 1": g.legs[0].get_center(), "leg 2": g.legs[1].get_center(),
                                  "x M": s.dot.get_center()},
                                 [(g.names[0], "i M", s.axes.c2p(0, 0, 0)), (g.names[1], "j M", s.axes.c2p(0, 0, 0)),
                                  (g.steps[0], "leg 1", g.legs[0].get_start()),
                                  (g.steps[1], "leg 2", g.legs[1].get_start()), (g.read, "x M", None)]))
        return box2

    def _glass(self, c: _Contrast) -> VGroup:
        """The plane stays a plane, the same thing seen through a glass: i and
        j land on M's rows (i M, j M), and the point, found by a glass that
        walks the turned grid from the origin 3 steps along i M and then 4
        along j M, is still [3, 4] in its own grid: x M = 3 (i M) + 4 (j M).
        Nothing is lost (M is invertible: its grid still covers the plane).
        The first step's label shows as the glass walks the second leg, clear
        of its whole way; the other labels once it stands at x M, clear of
        it there: the glass passes over none of them."""
        s, axes, p = self.s, self.s.axes, self.params
        rows = [np.array([*c.M[k], 0.0]) for k in range(2)]
        corner = s.x[0] * rows[0]
        end = corner + s.x[1] * rows[1]           # x M, where the dot is
        o, at_corner, at_end = (axes.c2p(*q) for q in (np.zeros(3), corner, end))
        legs = VGroup(*[Line(a, b, color=col, stroke_width=7) for (a, b), col in
                        zip(((o, at_corner), (at_corner, at_end)), ROW_COLORS)])
        names = VGroup(*[MathTex(rf"{n}\,M", font_size=40, color=col) for n, col in zip("ij", ROW_COLORS)])
        steps = VGroup(*[number_tex(tex_number(v), font_size=40, color=col) for v, col in zip(p.point, ROW_COLORS)])
        radius = 0.75 * s.unit
        ring = Circle(radius=radius, color=palette.INK, stroke_width=5).set_fill(palette.INK, opacity=0.08)
        # the handle points away from both legs' lines (it never lies along the walk; a row M sends to zero
        # has no line)
        dirs = [r[:2] / np.linalg.norm(r[:2]) for r in rows if np.linalg.norm(r[:2]) > 1e-9]
        angles = np.deg2rad(np.arange(0, 360, 15))
        out = max(angles, key=lambda a: (round(min((1 - abs(np.cos(a) * d[0] + np.sin(a) * d[1]) for d in dirs),
                                                   default=1.0), 3),
                                         -abs(a - np.deg2rad(315))))     # (down and right, as a hand holds it)
        way = np.array([np.cos(out), np.sin(out), 0.0])
        handle = Line(radius * way, 2.3 * radius * way, color=palette.INK, stroke_width=10)
        glass = VGroup(ring, handle).shift(o)
        read = MathTex(rf"[{tex_number(p.point[0])},\ {tex_number(p.point[1])}]", font_size=44, color=POINT)
        total = MathTex(r"x\,M =", tex_number(p.point[0]), r"\,(i\,M) +", tex_number(p.point[1]), r"\,(j\,M)",
                        font_size=32)
        total[1].set_color(ROW_COLORS[0]), total[2].set_color(ROW_COLORS[0])
        total[3].set_color(ROW_COLORS[1]), total[4].set_color(ROW_COLORS[1])
        total.next_to(c.formula, DOWN, buff=0.35).align_to(c.formula, RIGHT)
        fix_in_frame(self, total)
        # what the outro writes under x M (``_outro``), laid out now so that no label here takes its place
        c.kinds = note(self.tr("kinds"), self.lang, color=palette.INK)
        c.kinds.next_to(total, DOWN, buff=0.45).align_to(c.formula, RIGHT)
        c.ahead = MathTex(r"x\,W = [" + ",\\ ".join(tex_number(v) for v in s.work.result) + r"]\ ?",
                          font_size=38, color=POINT)
        c.ahead.next_to(c.kinds, DOWN, buff=0.35).align_to(c.formula, RIGHT)
        fix_in_frame(self, c.kinds, c.ahead)
        # each label beside its own place, clear of the text, the legs, the arrows, the glass and each other
        cam = self.renderer.camera
        here = dict(phi=cam.get_phi(), theta=cam.get_theta(), zoom=cam.get_zoom(), frame_center=cam.frame_center.copy())
        with self.viewed_from(**here) as project:
            taken = [box_of(m) for m in (s.heading, s.x_text, c.title, c.formula, total, c.kinds, c.ahead)]
            low, high = s.cut             # the plane's axes run across the window
            lines = [(o, at_corner), (at_corner, at_end)] + [(o, axes.c2p(*row)) for row in rows] + \
                [(axes.c2p(*(low * e)), axes.c2p(*(high * e))) for e in np.eye(3)[:2]]
            for a, b in lines:
                n = max(8, int(np.linalg.norm(project(b) - project(a)) / 0.1))
                taken += [box_of(None, project(a + (b - a) * k / n), 0.05) for k in range(n + 1)]
            # the glass where it stops, and its handle (every label shows once it is there but the first
            # step's, which shows while the glass walks the second leg: that one keeps off the whole walk)
            def glass_at(q: np.ndarray) -> list[tuple]:
                return [box_of(None, project(q), radius * cam.get_zoom() + 0.12)] + \
                    [box_of(None, project(q + k * radius * way), 0.08) for k in np.linspace(1, 2.3, 6)]

            n = max(2, int(np.linalg.norm(project(at_end) - project(at_corner)) / 0.1) + 1)
            walking = [box for k in np.linspace(0, 1, n) for box in glass_at(at_corner + (at_end - at_corner) * k)]
            taken += glass_at(at_end)
            # (the names first: the arrows' tips, by the glass and the legs, leave them the least room)
            marks = (*zip(names, (axes.c2p(*row) for row in rows)),
                     *zip(steps, ((o + at_corner) / 2, (at_corner + at_end) / 2)), (read, at_end))
            named = [anchor for _, anchor in marks]
            for label, anchor in marks:
                taken.append(self.place_beside(label, anchor, project, taken + (walking if label is steps[0] else []),
                                               named))
        self.face_camera(*names, *steps, read)
        times = [self.renderer.time]       # when the glass sets off, reaches the corner, reaches x M
        self.play(FadeIn(s.arrows), FadeIn(glass, scale=0.6), run_time=0.6)
        times.append(self.renderer.time)
        self.play(Create(legs[0]), glass.animate.shift(at_corner - o), run_time=1.0)
        times.append(self.renderer.time)
        self.play(Create(legs[1]), glass.animate.shift(at_end - at_corner), FadeIn(steps[0]), run_time=1.2)
        times.append(self.renderer.time)
        self.play(FadeIn(read, shift=0.1 * RIGHT), FadeIn(total), FadeIn(steps[1]), FadeIn(names), run_time=0.7)
        shown_at = {id(steps[0]): times[2]}          # the others show once the glass stands at x M
        g = VGroup(legs, names, steps, glass, read, total)
        g.legs, g.ring, g.read, g.steps, g.sum, g.names = legs, ring, read, steps, total, names
        # as drawn: the glass's radius and its walk (each leg's ends and when the glass walks it), and each
        # label of the walk with when it shows and where
        cam.reset_rotation_matrix()
        ends = [tuple(cam.project_point(q)[:2]) for q in (o, at_corner, at_end)]
        g.walk = dict(radius=radius * cam.get_zoom(), at=ends[2],
                      legs=[(ends[k], ends[k + 1], times[k + 1], times[k + 2]) for k in range(2)],
                      labels=[(lab.tex_string, shown_at.get(id(lab), times[3]), self.drawn_box(lab))
                              for lab in (*names, *steps, read)])
        return g

    def _outro(self, box: Mobject, c: _Contrast) -> None:
        """The three kinds of map the scene showed, as one line under M; then,
        as the last sentence points ahead, x W again with a question mark:
        where its numbers come from is the next scene."""
        s, kinds, ahead = self.s, c.kinds, c.ahead
        with self.beat("outro_say", focus=kinds, xw=plain_vector(s.work.result)) as said:
            at = self.cue_at(said, 0.9)[0]      # "next: where [3, 4, 2] comes from"
            self.play(FadeOut(box), FadeIn(kinds, shift=0.2 * UP), run_time=0.8)
            self.wait_until(at, kinds)
            shown = self.renderer.time
            self.play(FadeIn(ahead, shift=0.2 * UP), run_time=0.8)
            self.focus_on(ahead)
            self.describe("describe_outro", y=s.work.result, fractions=_fraction(list(s.work.result)))
        s.live.driver.clear_updaters()
        self.moment("end", kinds=kinds.text, ahead=ahead.tex_string, ahead_at=shown)

    def moment(self, name: str, **probes) -> None:
        """A key moment, with the camera's projection brought up to date first
        (a dry run skips the frames that would refresh it)."""
        self.renderer.camera.reset_rotation_matrix()
        self.key_moment(name, **probes)

    def grid_probes(self) -> dict:
        """The grid as drawn: its span and every line's ends (axes coordinates)."""
        s = self.s
        return {"span": s.span, "grid_ends": np.array([[s.axes.p2c(line.get_start()), s.axes.p2c(line.get_end())]
                                                        for line in s.grid])}

    def plane_on_screen(self) -> np.ndarray:
        """Where the plane's origin, (1, 0) and (0, 1) are drawn now (rows): the flat plane's map to the screen."""
        cam, axes = self.renderer.camera, self.s.axes
        cam.reset_rotation_matrix()
        return np.array([cam.project_point(axes.c2p(*q))[:2] for q in np.eye(4, 3)[[3, 0, 1]]])

    def camera_angles(self) -> tuple[float, float]:
        """The camera's phi and theta now."""
        cam = self.renderer.camera
        return float(cam.get_phi()), float(cam.get_theta())

    def lifted_marks(self, rows: bool = False, coords: bool = False) -> dict:
        """``marks`` of the lifted plane: the axes' names at their ends, x W's
        name at its point; with ``rows`` W's rows' labels at their tips (their
        arrows from the origin), with ``coords`` the coordinates at their feet."""
        s, axes = self.s, self.s.axes
        ends = {f"axis {k + 1}": axes.c2p(*(s.reach[k] * np.eye(3)[k])) for k in range(3)}
        anchors = {**ends, "x W": s.dot.get_center()}
        labelled = [(lab, f"axis {k + 1}", None) for k, lab in enumerate(s.axis_labels)] + \
            [(s.point_label, "x W", None)]
        if rows:
            anchors.update({f"row {i + 1}": axes.c2p(*row) for i, row in enumerate(s.W)})
            labelled += [(lab, f"row {i + 1}", axes.c2p(0, 0, 0)) for i, lab in enumerate(s.row_labels)]
        if coords:
            anchors.update({f"foot {k + 1}": axes.c2p(*(s.landed * np.eye(3)[k])) for k in s.read})
            labelled += [(c, f"foot {k + 1}", None) for k, c in zip(s.read, s.coords)]
        return self.marks(anchors, labelled)

    def marks(self, anchors: dict[str, np.ndarray], labelled: list[tuple]) -> dict:
        """Probes of the labelled points as drawn now: ``anchors`` (name -> its
        point, scene coordinates) where they are drawn, and for each label
        ``(label, name, start)`` its TeX, its box as drawn, the name of its
        point and, when ``start`` is given, the line from ``start`` to its
        point (its arrow or leg) as drawn."""
        cam = self.renderer.camera
        cam.reset_rotation_matrix()

        def at(q: np.ndarray) -> tuple[float, float]:
            drawn = cam.project_point(np.asarray(q, dtype=float))
            return float(drawn[0]), float(drawn[1])

        def content(label: Mobject) -> str:
            return next(m.text if isinstance(m, Text) else m.tex_string for m in label.get_family()
                        if hasattr(m, "tex_string") or isinstance(m, Text))

        return {"anchors": {n: at(q) for n, q in anchors.items()},
                "labelled": [(content(label), self.drawn_box(label), name,
                              None if start is None else (at(start), at(anchors[name])))
                             for label, name, start in labelled]}

    @contextmanager
    def viewed_from(self, phi: float, theta: float, zoom: float, frame_center: np.ndarray):
        """Within the block the camera stands at this view (then back where it
        was); yields ``project``: a point in the scene -> where it is drawn."""
        cam = self.renderer.camera
        old = (cam.get_phi(), cam.get_theta(), cam.get_zoom(), cam.frame_center.copy())
        cam.set_phi(phi), cam.set_theta(theta), cam.set_zoom(zoom)
        cam.frame_center = frame_center
        cam.reset_rotation_matrix()
        try:
            yield lambda point: cam.project_point(np.asarray(point, dtype=float))
        finally:
            cam.set_phi(old[0]), cam.set_theta(old[1]), cam.set_zoom(old[2])
            cam.frame_center = old[3]
            cam.reset_rotation_matrix()

    def fitted(self, angles: dict, points: list[np.ndarray], box: tuple, pad: float = 0.0,
               most: float = 2.5) -> dict:
        """The camera at ``angles`` aimed and zoomed (at most ``most``) so that
        ``points`` (scene coordinates) fill ``box`` ((left, bottom), (right,
        top)) less ``pad`` all round, as drawn: what a view keeps in frame."""
        pts = np.array(points, dtype=float)
        (left, bottom), (right, top) = box
        left, bottom, right, top = left + pad, bottom + pad, right - pad, top - pad
        aim = np.array([(left + right) / 2, (bottom + top) / 2])
        centre, zoom = (pts.max(axis=0) + pts.min(axis=0)) / 2, 1.0

        def drawn(view: dict) -> tuple[np.ndarray, np.ndarray]:
            with self.viewed_from(**view) as project:
                return np.array([project(q)[:2] for q in pts]), self.renderer.camera.get_rotation_matrix()

        for _ in range(8):       # aim, then zoom (the perspective makes it a few rounds)
            at, rot = drawn(dict(**angles, zoom=zoom, frame_center=centre))
            middle = (at.max(axis=0) + at.min(axis=0)) / 2
            centre = centre + rot.T @ np.array([*(middle - aim) / zoom, 0.0])
            extent = at.max(axis=0) - at.min(axis=0)
            zoom = min(most, zoom * min((right - left) / extent[0], (top - bottom) / extent[1]))
        view = dict(**angles, zoom=zoom, frame_center=centre)
        for _ in range(60):      # and never past the box: aimed again, then a little further back
            at, rot = drawn(view)
            if at[:, 0].min() >= left and at[:, 0].max() <= right and at[:, 1].min() >= bottom and \
                    at[:, 1].max() <= top:
                break
            middle = (at.max(axis=0) + at.min(axis=0)) / 2
            view["frame_center"] = view["frame_center"] + rot.T @ np.array([*(middle - aim) / view["zoom"], 0.0])
            at, _ = drawn(view)
            if at[:, 0].min() < left or at[:, 0].max() > right or at[:, 1].min() < bottom or at[:, 1].max() > top:
                view["zoom"] *= 0.97
        return view

    def travel(self, end: dict, points_at: Callable[[float], list], box: tuple, seconds: float,
               *also: Animation, driven: LiveMap | None = None) -> list[tuple]:
        """Move the camera from where it stands to ``end`` (each of its values in
        a straight line, smoothly, as ``move_camera`` moves them) with the
        animations ``also`` and the live map ``driven`` (its time t with the
        camera's: a map that moves as the camera does), as near at every
        instant t as draws ``points_at(t)`` inside ``box`` ((left, bottom),
        (right, top)): the zoom and aim follow the straight line unless the
        points need it, then the aim moves them to the box's middle and the
        zoom comes down only as far as they need.  Returns the box of ``points_at(t)`` as drawn at five
        instants t of the way."""
        cam = self.renderer.camera
        start = dict(phi=cam.get_phi(), theta=cam.get_theta(), zoom=cam.get_zoom(),
                     frame_center=cam.frame_center.copy())
        (left, bottom), (right, top) = box
        ts = np.linspace(0, 1, 25)

        def view(t: float) -> dict:
            return {k: (1 - t) * np.asarray(start[k]) + t * np.asarray(end[k]) for k in start}

        aim = np.array([(left + min(right, 6.8) - 0.2) / 2, (bottom + min(top, 3.8) - 0.3) / 2])
        zooms, centres = [], []
        for t in ts:
            v, pts = view(t), points_at(t)
            for _ in range(40):
                with self.viewed_from(**v) as project:
                    at = np.array([project(q)[:2] for q in pts])
                    rot = cam.get_rotation_matrix()
                if at[:, 0].min() >= left and at[:, 0].max() <= min(right, 6.8) - 0.2 and \
                        at[:, 1].min() >= bottom and at[:, 1].max() <= min(top, 3.8) - 0.3:     # (room for names)
                    break
                # aim the points at the box's middle, then come no nearer than lets them in
                middle = (at.max(axis=0) + at.min(axis=0)) / 2
                v["frame_center"] = np.asarray(v["frame_center"]) + rot.T @ np.array(
                    [*(middle - aim) / float(v["zoom"]), 0.0])
                extent = np.maximum(at.max(axis=0) - at.min(axis=0), 1e-6)
                room = np.array([min(right, 6.8) - 0.2 - left, min(top, 3.8) - 0.3 - bottom])
                v["zoom"] = float(v["zoom"]) * min(0.97, float((room / extent).min()))
            zooms.append(float(v["zoom"]))
            centres.append(np.asarray(v["frame_center"], dtype=float))
        zooms[0], zooms[-1] = start["zoom"], min(zooms[-1], float(end["zoom"]))
        centres[0], centres[-1] = np.asarray(start["frame_center"], dtype=float), np.asarray(end["frame_center"],
                                                                                               dtype=float)
        path = np.array(centres)

        def centre_at(t: float) -> np.ndarray:
            return np.array([np.interp(t, ts, path[:, k]) for k in range(path.shape[1])])

        def step(_: Mobject, alpha: float) -> None:
            t = smooth(alpha)
            v = view(t)
            cam.set_phi(float(v["phi"])), cam.set_theta(float(v["theta"]))
            cam.set_zoom(float(np.interp(t, ts, zooms)))
            cam.frame_center = centre_at(t)
            if driven is not None:
                driven.tracker.set_value(t)

        self.play(UpdateFromAlphaFunc(cam.phi_tracker, step), *also, run_time=seconds, rate_func=linear)
        step(cam.phi_tracker, 1.0)
        drawn = []       # the box of points_at(t) as drawn at t, at a few instants
        for t in np.linspace(0, 1, 5):
            v = view(t)
            v["zoom"], v["frame_center"] = float(np.interp(t, ts, zooms)), centre_at(t)
            with self.viewed_from(**v) as project:
                at = np.array([project(q)[:2] for q in points_at(t)])
            drawn.append((*at.min(axis=0), *at.max(axis=0)))
        return drawn

    def kept_in_frame(self, end: dict, points: list[np.ndarray], steps: int = 16) -> dict:
        """``end``, zoomed out as far as needed so that the camera, moving
        there from where it stands (each of its values in a straight line,
        as ``move_camera`` moves them), draws ``points`` inside the frame
        (clear of its left, right and top edges) all the way."""
        cam = self.renderer.camera
        start = dict(phi=cam.get_phi(), theta=cam.get_theta(), zoom=cam.get_zoom(),
                     frame_center=cam.frame_center.copy())
        end = dict(end)
        for _ in range(12):      # (at most about half as near)
            inside = True
            for a in np.linspace(0, 1, steps + 1)[1:]:     # (where it stands is the last view's business)
                view = {k: (1 - a) * np.asarray(start[k]) + a * np.asarray(end[k]) for k in start}
                with self.viewed_from(**view) as project:
                    at = np.array([project(q)[:2] for q in points])
                if np.abs(at[:, 0]).max() > 6.8 or at[:, 1].max() > 3.8:
                    inside = False
                    break
            if inside:
                break
            end["zoom"] *= 0.96
        return end

    def drawn_box(self, *mobjects: Mobject) -> tuple:
        """Left, bottom, right, top of ``mobjects`` as the camera draws them now."""
        cam = self.renderer.camera
        cam.reset_rotation_matrix()
        pts = np.vstack([cam.transform_points_pre_display(m, m.points)
                         for mob in mobjects for m in mob.family_members_with_points()])
        return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))

    @staticmethod
    def place_beside(label: Mobject, anchor: np.ndarray, project: Callable, taken: list,
                     others: tuple = ()) -> tuple:
        """Put ``label`` (one that faces the camera) beside ``anchor`` where,
        as drawn, it covers none of ``taken``, stays in the free frame and
        lies nearer its anchor than any of ``others`` (the other named points,
        3-D), or failing that where it covers none of ``taken``; return its
        box as drawn."""
        spot = project(anchor)
        elsewhere = [project(q)[:2] for q in others if np.linalg.norm(project(q)[:2] - spot[:2]) > 1e-6]
        rot = UpProjection._rotation(project, anchor)
        # nearest first; further out (up to about a label's width) only when the near spots are taken
        tries = [side * np.array([label.width / 2 + gap, label.height / 2 + gap, 0])
                 for gap in (0.12, 0.35, 0.6, 0.9, 1.3, 1.8) for side in (DOWN, LEFT, RIGHT, UP, DL, DR, UL, UR)]

        def free(offset, nearest: bool = True):
            box = box_of(label, spot + offset)
            inside = -6.95 < box[0] and box[2] < 6.95 and -2.95 < box[1] and box[3] < 3.95
            mine = _box_distance(box, spot[:2])
            return inside and not any(overlaps(box, t, pad=0.05) for t in taken) and \
                (not nearest or all(mine < _box_distance(box, q) for q in elsewhere))

        # (where no free spot is nearer its anchor than the others, a free one; failing that, the nearest)
        offset = next((o for o in tries if free(o)), next((o for o in tries if free(o, False)), tries[0]))
        box = box_of(label, spot + offset)
        label.move_to(anchor + rot @ offset)
        return box

    @staticmethod
    def _rotation(project: Callable, anchor: np.ndarray) -> np.ndarray:
        """The 3x3 map from a step on the screen to the 3-D step at ``anchor``
        that is drawn as that step (the inverse of the view, at that depth)."""
        base = project(anchor)[:2]
        cols = np.array([project(anchor + e)[:2] - base for e in np.eye(3)]).T   # 2x3: 3-D step -> screen
        return np.linalg.pinv(cols) @ np.eye(2, 3)

    def face_camera(self, *mobjects: Mobject) -> None:
        """Labels placed in 3-D that always face the camera (only their centre
        moves with the view), not on screen yet: the scene fades them in."""
        self.add_fixed_orientation_mobjects(*mobjects)
        self.remove(*mobjects)


def clip_segment(a: np.ndarray, b: np.ndarray, low: np.ndarray, high: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """The part of the segment from ``a`` to ``b`` (3-D) inside the box
    ``low[k] <= coordinate k <= high[k]`` (Liang-Barsky), or None when none of it is."""
    lo, hi = 0.0, 1.0
    d = b - a
    for k in range(3):
        for p, q in ((-d[k], a[k] - low[k]), (d[k], high[k] - a[k])):
            if abs(p) < 1e-12:
                if q < 0:
                    return None
            elif p < 0:
                lo = max(lo, q / p)
            else:
                hi = min(hi, q / p)
    return None if lo > hi else (a + lo * d, a + hi * d)


def clip_square(W: np.ndarray, span: float, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The corners (plane coordinates, in order round it) of the part of the
    square ``[-span, span]^2`` that ``W`` (2x3) carries inside the box
    ``low[k] <= coordinate k <= high[k]``: the square cut by the half-planes
    ``(p W)_k <= high[k]`` and ``-(p W)_k <= -low[k]`` (Sutherland-Hodgman)."""
    poly = [np.array(c, dtype=float) for c in ((-span, -span), (span, -span), (span, span), (-span, span))]
    for k in range(3):
        for sign, bound in ((1.0, high[k]), (-1.0, -low[k])):
            room = [bound - sign * float(q @ W[:, k]) for q in poly]    # >= 0: inside this half-plane
            out = []
            for i, cur in enumerate(poly):
                prev = poly[i - 1]
                fc, fp = room[i], room[i - 1]
                if (fc >= 0) != (fp >= 0):
                    out.append(prev + (cur - prev) * fp / (fp - fc))
                if fc >= 0:
                    out.append(cur)
            poly = out
    return np.array(poly)


def edge_on_theta(normal: np.ndarray, phi: float, near: float) -> float:
    """The camera's theta (at ``phi``) nearest ``near`` from which the plane
    with this ``normal`` is seen edge on; ``near`` itself if none is."""
    # the camera looks from (sin phi cos theta, sin phi sin theta, cos phi): edge on when that is at right
    # angles to the normal, a cos(theta - delta) = c
    a = np.sin(phi) * np.hypot(normal[0], normal[1])
    c = -normal[2] * np.cos(phi)
    if a < 1e-9 or abs(c) > a:
        return near
    delta, spread = np.arctan2(normal[1], normal[0]), np.arccos(c / a)
    picks = [delta + sign * spread + turn * 2 * np.pi for sign in (1, -1) for turn in range(-3, 4)]
    return float(min(picks, key=lambda t: abs(t - near)))


def _fraction(values) -> bool:
    """Whether any of ``values`` (nested) is written as a fraction (``\\tfrac``)."""
    if isinstance(values, (list, tuple)):
        return any(_fraction(v) for v in values)
    return r"\tfrac" in tex_number(values)


def box_of(m: Mobject | None, centre: np.ndarray | None = None, size: float = 0.0) -> tuple:
    """Left, bottom, right, top of ``m`` as drawn with its centre at ``centre``
    (or where it is), or a square of ``size`` around ``centre``."""
    if m is None:
        return (centre[0] - size, centre[1] - size, centre[0] + size, centre[1] + size)
    c = m.get_center() if centre is None else centre
    return (c[0] - m.width / 2, c[1] - m.height / 2, c[0] + m.width / 2, c[1] + m.height / 2)


def _box_distance(box: tuple, point: np.ndarray) -> float:
    """How far ``point`` (2-D) lies from the box (left, bottom, right, top); 0 inside it."""
    dx = max(box[0] - point[0], 0.0, point[0] - box[2])
    dy = max(box[1] - point[1], 0.0, point[1] - box[3])
    return float(np.hypot(dx, dy))
