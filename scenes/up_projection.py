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
    OUT,
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
    ThreeDAxes,
    ThreeDScene,
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
from scenes.kit.scene import LessonScene
from scenes.kit.text import note, text, title
from scenes.kit.three_d import aim_solid_arrow, flat_shaded, solid_arrow

SPAN = 4          # the grid covers [-SPAN, SPAN]^2 in plane coordinates
EMBED = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])   # the plane as z = 0
ROW_COLORS = (palette.BASIS_I, palette.BASIS_J)       # row i of W = where basis vector i lands
POINT = palette.INK                                    # the point x and where it lands
# the camera once the plane is lifted: from behind the x axis and left of the y axis, where W's two rows
# and the three axes all read long (none of them points at the camera) and the sheet is seen from its face
LIFTED = dict(phi=50 * DEGREES, theta=-220 * DEGREES)   # reached turning the short way from above (-90)
FLAT = dict(phi=0, theta=-90 * DEGREES)                 # the plane seen from above
FACE_TURN = 20 * DEGREES     # where the walk-around ends: a little round from the lifted view
BOLD = 2.2                   # i, j and W's rows: arrows this many times the kit's usual thickness (one square long)
# the grid's lines (ends in plane coordinates): every whole u and v across [-SPAN, SPAN]
SEGMENTS = [((u, -SPAN), (u, SPAN)) for u in range(-SPAN, SPAN + 1)] + \
           [((-SPAN, v), (SPAN, v)) for v in range(-SPAN, SPAN + 1)]


def shown_entries(m: Mobject) -> list[list[str]]:
    """The TeX of every entry of a matrix display, row by row (what is on screen)."""
    return [[e.get_tex_string() for e in row] for row in m.get_rows()]


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
    coordinate, axis k reaching ``reach[k]`` either way; the lifted grid is
    cut at ``clip[k]`` in coordinate k, so the sheet stays a bounded piece
    that fits the frame); the grid, the point and the plane's two directions i
    and j (``arrows``), which ``live`` carries by a 2x3 map (row vectors):
    i and j land on W's rows; the text; and what the lift adds for the
    beats after it."""
    x: np.ndarray
    W: np.ndarray
    work: qm.WorkedProduct
    landed: np.ndarray
    unit: float
    reach: np.ndarray
    clip: np.ndarray
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
    sheet: Polygon | None = None
    # W's rows' labels; x W's coordinates and the dashed lines reading them
    row_labels: VGroup | None = None
    drops: VGroup | None = None
    coords: VGroup | None = None
    read: list[int] = field(default_factory=list)     # the coordinates read (a zero one is read at the origin)

    def __post_init__(self) -> None:
        self.live = LiveMap(self.draw, start=EMBED, z=0)   # the flat plane first; the driver at z index 0

    def draw(self, m: np.ndarray) -> None:
        """Carry the grid and the point by the 2x3 map ``m`` (the live map's ``show``)."""
        if self.unchanged(m):
            return          # the map has not moved since the last frame
        for line, (a, b) in zip(self.grid, SEGMENTS):
            ends = clip_segment(np.array(a) @ m, np.array(b) @ m, self.clip)
            if ends is None:      # wholly past the cut: a line of no length (not drawn) at the origin
                ends = (np.zeros(3), np.zeros(3))
            put_segment(line, self.axes.c2p(*ends[0]), self.axes.c2p(*ends[1]))
        self.dot.move_to(self.axes.c2p(*(self.x @ m)))
        origin = self.axes.c2p(0, 0, 0)
        for arrow, row in zip(self.arrows, m):    # i and j go where the map sends them
            aim_solid_arrow(arrow, origin, self.axes.c2p(*row))

    def sheet_corners(self) -> np.ndarray:
        """The corners of the lifted sheet (axes coordinates): the grid's
        square carried by W and cut at ``clip``."""
        return clip_square(self.W, SPAN, self.clip) @ self.W

    def sheets_between(self) -> list[np.ndarray]:
        """The corners of the (cut) sheet at every stage of the lift, scene
        coordinates: what a camera that watches the lift must hold."""
        maps = [(1 - t) * EMBED + t * self.W for t in np.linspace(0, 1, 13)]
        return [self.axes.c2p(*q) for m in maps for q in clip_square(m, SPAN, self.clip) @ m]


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
    glass: VGroup | None = None    # the glass on the turned plane and x M = 3 (i M) + 4 (j M) (``_glass``)

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
        # the axes only reach a little past the point and W's rows; the lifted grid is cut just inside them
        # (each axis its own: a height the lesson never reaches is not drawn)
        reach = np.maximum(SPAN, np.abs(np.vstack([landed, W])).max(axis=0) + 2)
        reach[:2] = np.maximum(reach[:2], SPAN + 1)          # the flat grid lies inside the cut
        clip = reach - 1
        unit = 7 / (2 * (float(clip.max()) + 0.5))            # scene units per coordinate
        (rx, ry, rz) = (float(r) for r in reach)
        axes = ThreeDAxes(x_range=(-rx, rx, 1), y_range=(-ry, ry, 1), z_range=(-rz, rz, 1),
                          x_length=2 * rx * unit, y_length=2 * ry * unit, z_length=2 * rz * unit,
                          axis_config={"stroke_color": palette.MUTED, "include_ticks": False,
                                       "tip_width": 0.16, "tip_height": 0.16})
        flat_shaded(axes)
        grid = VGroup(*[Line(ORIGIN, RIGHT, stroke_width=1.5, color=palette.EMBED, stroke_opacity=0.7)
                        for _ in SEGMENTS])
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
        s = _Stage(np.array(p.point, dtype=float), W, work, landed, unit, reach, clip, axes, grid, dot, arrows,
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
        read = VGroup(*[number_tex(tex_number(v), font_size=34, color=POINT) for v in self.params.point])
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
        flat = self.fitted(FLAT, [axes.c2p(*(np.array(c) * (SPAN + 0.6))) for c in ((1, 1, 0), (-1, -1, 0))] +
                           [axes.c2p(*(sign * np.array(reach) * e)) for e in np.eye(3)[:2] for sign in (1, -1)], box,
                           pad=0.2)
        self.set_camera_orientation(**flat)
        with self.beat("intro_say", u=plain_number(x), v=plain_number(y)):
            self.play(Write(s.heading), Create(s.grid), Create(axes.x_axis), Create(axes.y_axis), run_time=1.5)
            self.play(*[GrowFromPoint(a, axes.c2p(0, 0, 0)) for a in s.arrows], FadeIn(names), run_time=1.0)
            self.play(FadeIn(s.dot), FadeIn(x_name), FadeIn(s.x_text), run_time=0.6)
            self.play(*[Create(d) for d in drops], FadeIn(read, shift=0.1 * DOWN), run_time=1.0)
        self.moment("flat", dot=axes.p2c(s.dot.get_center()),
                    arrows=np.array([axes.p2c(a.tip.get_center()) for a in s.arrows]),
                    names=[(n.get_tex_string(), axes.p2c(n.get_center())) for n in names],
                    read=[(r.get_tex_string(), axes.p2c(r.get_center())) for r in read],
                    x_name=axes.p2c(x_name.get_center()), drawn=self.drawn_box(s.grid),
                    arrow_boxes=[self.drawn_box(a) for a in s.arrows], name_boxes=[self.drawn_box(n) for n in names])

    def _lift(self) -> None:
        """W appears, the camera rises and the plane is carried by W into
        3-D: i and j land on W's rows, x lands on x W."""
        s, axes, W = self.s, self.s.axes, self.s.W
        # axis names that face the camera wherever it goes
        tips = {"x": axes.c2p(s.reach[0] + 0.4, 0, 0), "y": axes.c2p(0, s.reach[1] + 0.4, 0),
                "z": axes.c2p(0, 0, s.reach[2] + 0.45)}
        s.axis_labels = VGroup(*[MathTex(n, font_size=42, color=palette.INK).move_to(tips[n]) for n in "xyz"])
        self.face_camera(*s.axis_labels)

        s.result = MathTex(r"x\,W = [" + ",\\ ".join(tex_number(v) for v in s.work.result) + "]",
                           font_size=38, color=POINT)
        s.result.next_to(s.w_mob, DOWN, aligned_edge=LEFT, buff=0.25)
        s.span_note = note(self.tr("span"), self.lang, width=4.6)
        s.span_note.next_to(s.result, DOWN, aligned_edge=LEFT, buff=0.25)
        # the landed point's own name, just above it (up is up from every view the camera takes)
        s.point_label = MathTex(r"x\,W", font_size=36, color=POINT).move_to(
            axes.c2p(*s.landed) + 0.32 * OUT)
        self.face_camera(s.point_label)
        fix_in_frame(self, s.result, s.span_note)
        s.live.attach()
        # the lifted view: the whole (cut) sheet, the axes' names and the landed point right of the text
        ends = [sign * s.reach * e for e in np.eye(3) for sign in (1, -1)]       # the axes' ends
        s.in_view = [axes.c2p(*q) for q in (*s.sheet_corners(), s.landed, *ends)] + list(tips.values())
        s.lifted_view = self.fitted(LIFTED, s.in_view, self.free_box(), pad=0.35)
        # the camera rises to a view that holds the plane both flat and lifted (every state between is a
        # blend of the two), then closes in on the lifted sheet; no view on the way leaves the frame
        s.flat_points = [axes.c2p(*c) for c in ((SPAN, SPAN, 0), (SPAN, -SPAN, 0), (-SPAN, SPAN, 0),
                                                (-SPAN, -SPAN, 0), *ends)] + list(tips.values())
        # the camera rises to the lifted angle with the flat plane filling the frame, then closes in on the
        # sheet as it lifts: at every instant as near as keeps that instant's sheet, axes and names in frame
        box = self.free_box()
        risen = self.fitted(LIFTED, s.flat_points, box, pad=0.35)

        def lifting(t: float) -> list[np.ndarray]:
            m = (1 - t) * EMBED + t * W
            return [axes.c2p(*q) for q in clip_square(m, SPAN, s.clip) @ m] + \
                [axes.c2p(*q) for q in ends] + list(tips.values())

        with self.beat("lift_say", n=2, m=3):
            self.play(FadeIn(s.w_mob), FadeOut(s.flat_marks), run_time=0.6)
            self.travel(risen, lambda t: s.flat_points, box, 1.6, FadeIn(axes.z_axis), FadeIn(s.axis_labels))
            s.live.path = lambda t: (1 - t) * EMBED + t * W
            lift_drawn = self.travel(s.lifted_view, lifting, box, 3.0, driven=s.live)
            self.play(FadeIn(s.result), FadeIn(s.point_label), run_time=0.8)
        s.sheet = Polygon(*[axes.c2p(*c) for c in s.sheet_corners()],
                          stroke_width=0, fill_color=palette.EMBED, fill_opacity=0.16)
        self.moment("lifted", dot=axes.p2c(s.dot.get_center()),
                    grid_ends=np.array([axes.p2c(s.grid[0].get_start()), axes.p2c(s.grid[0].get_end())]),
                    result=s.result.get_tex_string(), arrows=np.array([axes.p2c(a.tip.get_center()) for a in s.arrows]),
                    axis_labels=[(lab.get_tex_string(), axes.p2c(lab.get_center())) for lab in s.axis_labels],
                    facing=all(m in self.renderer.camera.fixed_orientation_mobjects
                               for lab in s.axis_labels for m in lab.get_family()),
                    drawn=self.drawn_box(s.grid, s.axes, s.axis_labels), free=self.free_box(), lift_drawn=lift_drawn)

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
        with self.beat("rows_say", focus=s.arrows):
            self.play(s.grid.animate.set_stroke(opacity=0.35), run_time=0.8)
            for i, label in enumerate(s.row_labels):
                self.play(FadeIn(label), Indicate(s.w_mat.get_rows()[i], color=ROW_COLORS[i], scale_factor=1.15),
                          run_time=0.9)
            self.play(FadeIn(s.sheet), FadeIn(s.span_note), run_time=1.0)
        with self.viewed_from(**s.lifted_view) as project:
            o = project(origin)[:2]
            lengths = [float(np.linalg.norm(project(axes.c2p(*row))[:2] - o)) for row in W]
        self.moment("rows", tips=np.array([axes.p2c(a.tip.get_center()) for a in s.arrows]),
                    starts=np.array([axes.p2c(a.tail.get_center()) for a in s.arrows]),
                    labels=[lab[1].get_tex_string() for lab in s.row_labels], drawn_lengths=lengths,
                    sheet=np.array([axes.p2c(v) for v in s.sheet.get_vertices()]),
                    drawn=self.drawn_box(s.grid, s.sheet, s.axes, s.axis_labels), free=self.free_box())

    def _place_close_labels(self, project: Callable, origin: np.ndarray, feet: list[np.ndarray]) -> None:
        """Put the coordinates beside their ``feet`` and the rows' labels
        beside the rows' tips where, drawn by ``project``, they cover none of
        the text, the axes' names, the lines, nor each other."""
        s, axes = self.s, self.s.axes
        taken = [box_of(m) for m in (s.heading, s.x_text, s.result, s.span_note, s.w_mob)]
        taken += [box_of(lab, project(lab.get_center())) for lab in s.axis_labels]
        lines = [(origin, axes.c2p(*row)) for row in s.W] + [(d.get_start(), d.get_end()) for d in s.drops]
        lines += [(axes.c2p(*(-s.reach * e)), axes.c2p(*(s.reach * e))) for e in np.eye(3)]
        for a, b in lines:   # the lines a label must not sit on, as a row of small boxes
            steps = max(8, int(np.linalg.norm(project(b) - project(a)) / 0.1))
            taken += [box_of(None, project(a + (b - a) * k / steps), 0.04) for k in range(steps + 1)]
        for label, anchor in [*zip(s.coords, feet), *zip(s.row_labels, s.W)]:
            taken.append(self.place_beside(label, axes.c2p(*anchor), project, taken))

    def _coords(self) -> None:
        """The dashed lines drop from x W to the floor and the axes: its coordinates are read."""
        s, axes = self.s, self.s.axes
        with self.beat("coords_say", focus=s.coords, xw=plain_vector(s.work.result)):
            if len(s.drops):
                self.play(LaggedStart(*[Create(d) for d in s.drops], lag_ratio=0.5), run_time=2.0)
            self.play(FadeIn(s.coords), Indicate(s.result, color=palette.AREA), run_time=1.0)
        self.moment("coords", drops=[(axes.p2c(d.get_start()), axes.p2c(d.get_end())) for d in s.drops],
                    coords=[(k, c.get_tex_string()) for k, c in zip(s.read, s.coords)],
                    coord_at=np.array([axes.p2c(c.get_center()) for c in s.coords]),
                    dot=axes.p2c(s.dot.get_center()))

    def _turn(self) -> None:
        """The camera goes round the lifted plane: to where it is seen edge
        on (a line: it is flat), then to a view of its face."""
        s, axes = self.s, self.s.axes
        normal = np.cross(s.W[0], s.W[1])
        edge = dict(phi=70 * DEGREES, theta=edge_on_theta(normal, 70 * DEGREES, LIFTED["theta"] - 90 * DEGREES))
        face = dict(phi=LIFTED["phi"], theta=LIFTED["theta"] + FACE_TURN)
        box = self.free_box()
        with self.beat("turn_say"):
            self.play(FadeOut(s.row_labels), FadeOut(s.coords), run_time=0.6)
            self.move_camera(**self.kept_in_frame(self.fitted(edge, s.in_view, box, pad=0.35), s.in_view),
                             added_anims=[s.grid.animate.set_stroke(opacity=0.7)], run_time=4.0)
            self.move_camera(**self.kept_in_frame(self.fitted(face, s.in_view, box, pad=0.35), s.in_view),
                             run_time=2.0)
        self.moment("turned", dot=axes.p2c(s.dot.get_center()), drawn=self.drawn_box(s.grid, s.axes, s.axis_labels),
                    free=box, axis_labels=[self.drawn_box(lab) for lab in s.axis_labels],
                    point_label=self.drawn_box(s.point_label), point=self.drawn_box(s.dot))

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
        contrast = text(self.tr("contrast"), self.lang, size=26, color=palette.AREA)
        contrast.next_to(s.x_text, DOWN, aligned_edge=LEFT, buff=0.25)
        s_mat, r_mat, c_mat = (matrix_mob(m, font_size=30, digits=2) for m in (S, R, C))
        formula = VGroup(VGroup(MathTex("S =", font_size=32), s_mat).arrange(RIGHT, buff=0.15),
                         VGroup(MathTex(rf"R({deg_tex}) =", font_size=32), r_mat).arrange(RIGHT, buff=0.15),
                         VGroup(MathTex(r"M = S\,R =", font_size=32), c_mat).arrange(RIGHT, buff=0.15)
                         ).arrange(DOWN, aligned_edge=RIGHT, buff=0.3)
        formula.to_corner(UP + RIGHT, buff=0.3)
        fix_in_frame(self, contrast, formula)

        # the flat view: the grid left of the formulas, below the text, through every stage
        stages = [S @ qm.rotation(np.deg2rad(degrees) * t) for t in np.linspace(0, 1, 25)] + [np.eye(2), S]
        square = np.array([[SPAN, SPAN], [SPAN, -SPAN], [-SPAN, SPAN], [-SPAN, -SPAN]], dtype=float)
        reach_x = max(float(np.abs(square @ m)[:, 0].max()) for m in stages)
        reach_y = max(float(np.abs(square @ m)[:, 1].max()) for m in stages)
        left, right, bottom, top = -6.9, formula.get_left()[0] - 0.3, -2.95, contrast.get_bottom()[1] - 0.15
        flat_zoom = min((right - left) / 2 / reach_x, (top - bottom) / 2 / reach_y) / s.unit
        centre = np.array([(left + right) / 2, (bottom + top) / 2, 0.0])
        flat = dict(phi=0, theta=-90 * DEGREES, zoom=flat_zoom, frame_center=-centre / flat_zoom)
        with self.beat("contrast_say", focus=formula):
            # the camera backs off to hold the plane both lifted and flat, as it comes down, and turned
            # any way about its middle, as the camera turns back above it
            cam = self.renderer.camera
            ring = [s.axes.c2p(*(SPAN * np.sqrt(2) * np.array([np.cos(a), np.sin(a), 0])))
                    for a in np.linspace(0, 2 * np.pi, 24, endpoint=False)]
            both = self.fitted(dict(phi=cam.get_phi(), theta=cam.get_theta()),
                               s.in_view + s.flat_points + ring + s.sheets_between(), ((-6.3, -2.7), (6.3, 3.4)))
            self.move_camera(**both, added_anims=[FadeOut(m) for m in (
                s.sheet, s.result, s.span_note, s.w_mob, s.arrows, s.drops, s.axis_labels, s.axes.z_axis,
                s.point_label)], run_time=0.8)
            s.live.play(self, lambda t: (1 - t) * s.W + t * EMBED, seconds=1.2)
            self.move_camera(**self.kept_in_frame(flat, s.flat_points), run_time=1.4)
            self.play(FadeIn(contrast), run_time=0.6)
            for line in formula:
                self.play(FadeIn(line), run_time=0.7)
        self.moment("formula", S=shown_entries(s_mat), R=shown_entries(r_mat), M=shown_entries(c_mat),
                    dot=s.axes.p2c(s.dot.get_center()))
        return _Contrast(sx, sy, degrees, S, C, formula, c_mat)

    def _stretch(self, c: _Contrast) -> Mobject:
        """S first: the plane stretched.  Returns the box round S's line."""
        s = self.s
        box = SurroundingRectangle(c.formula[0], color=palette.AREA, buff=0.08)
        fix_in_frame(self, box)
        with self.beat("stretch_say", focus=VGroup(c.formula[0], box), sx=plain_number(c.sx), sy=plain_number(c.sy)):
            self.play(FadeIn(box), run_time=0.5)
            s.live.play(self, c.stretched, seconds=2.0)
        self.moment("stretched", dot=s.axes.p2c(s.dot.get_center()))
        return box

    def _rotate(self, c: _Contrast, box: Mobject) -> Mobject:
        """Then R(θ): the stretched plane turned, a true rotation at every
        instant; M = S R is where it ends.  The box stays on R while the turn
        is named; then the glass (``_glass``).  Returns the box round R's line."""
        s = self.s
        box2 = SurroundingRectangle(c.formula[1], color=palette.AREA, buff=0.08)
        fix_in_frame(self, box2)
        with self.beat("rotate_say", focus=VGroup(c.formula[1], box2),
                       deg=plain_number(self.params.contrast_rotation_degrees)) as said:
            glass_at = self.cue_at(said, 0.75)[0]      # "... like the same thing seen through a magnifying glass"
            self.play(FadeOut(box), FadeIn(box2), run_time=0.5)
            s.live.play(self, c.turned, seconds=2.5)
            self.wait_until(glass_at - 0.6, c.formula[1])
            c.glass = self._glass(c)
        g = c.glass
        self.moment("contrast", dot=s.axes.p2c(s.dot.get_center()), matrix=c.M, shown=shown_entries(c.c_mat),
                    arrows=np.array([s.axes.p2c(a.tip.get_center()) for a in s.arrows]),
                    legs=[(s.axes.p2c(leg.get_start()), s.axes.p2c(leg.get_end())) for leg in g.legs],
                    glass=s.axes.p2c(g.ring.get_center()), read=g.read.get_tex_string(),
                    steps=[m.get_tex_string() for m in g.steps], sum=g.sum.get_tex_string())
        return box2

    def _glass(self, c: _Contrast) -> VGroup:
        """The plane stays a plane, the same thing seen through a glass: i and
        j land on M's rows (i M, j M), and the point, found by a glass that
        walks the turned grid from the origin 3 steps along i M and then 4
        along j M, is still [3, 4] in its own grid: x M = 3 (i M) + 4 (j M).
        Nothing is lost (M is invertible: its grid still covers the plane)."""
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
        # the handle points away from both legs' lines (it never lies along the walk)
        dirs = [r[:2] / np.linalg.norm(r[:2]) for r in rows]
        angles = np.deg2rad(np.arange(0, 360, 15))
        out = max(angles, key=lambda a: (round(min(1 - abs(np.cos(a) * d[0] + np.sin(a) * d[1]) for d in dirs), 3),
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
        # each label beside its own place, clear of the text, the legs, the arrows, the glass and each other
        cam = self.renderer.camera
        here = dict(phi=cam.get_phi(), theta=cam.get_theta(), zoom=cam.get_zoom(), frame_center=cam.frame_center.copy())
        with self.viewed_from(**here) as project:
            taken = [box_of(m) for m in (s.heading, s.x_text, c.formula, total) if m is not None]
            lines = [(o, at_corner), (at_corner, at_end)] + [(o, axes.c2p(*row)) for row in rows]
            for a, b in lines:
                n = max(8, int(np.linalg.norm(project(b) - project(a)) / 0.1))
                taken += [box_of(None, project(a + (b - a) * k / n), 0.05) for k in range(n + 1)]
            for q in (o, at_corner, at_end):      # where the glass stands, and its handle
                taken.append(box_of(None, project(q), radius * cam.get_zoom() + 0.05))
                taken += [box_of(None, project(q + k * radius * way), 0.08) for k in np.linspace(1, 2.3, 6)]
            for label, anchor in ((read, at_end), *zip(steps, ((o + at_corner) / 2, (at_corner + at_end) / 2)),
                                  *zip(names, (axes.c2p(*row) for row in rows))):
                taken.append(self.place_beside(label, anchor, project, taken))
        self.face_camera(*names, *steps, read)
        self.play(FadeIn(s.arrows), FadeIn(names), FadeIn(glass, scale=0.6), run_time=0.6)
        self.play(Create(legs[0]), glass.animate.shift(at_corner - o), FadeIn(steps[0]), run_time=1.0)
        self.play(Create(legs[1]), glass.animate.shift(at_end - at_corner), FadeIn(steps[1]), run_time=1.2)
        self.play(FadeIn(read, shift=0.1 * RIGHT), FadeIn(total), run_time=0.7)
        g = VGroup(legs, names, steps, glass, read, total)
        g.legs, g.ring, g.read, g.steps, g.sum = legs, ring, read, steps, total
        return g

    def _outro(self, box: Mobject, c: _Contrast) -> None:
        """The three kinds of map the scene showed, as one line under M."""
        kinds = note(self.tr("kinds"), self.lang, color=palette.INK)
        kinds.next_to(c.glass.sum, DOWN, buff=0.45).align_to(c.formula, RIGHT)
        fix_in_frame(self, kinds)
        with self.beat("outro_say", focus=kinds):
            self.play(FadeOut(box), FadeIn(kinds, shift=0.2 * UP), run_time=0.8)
        self.s.live.driver.clear_updaters()
        self.moment("end", kinds=kinds.text)

    def moment(self, name: str, **probes) -> None:
        """A key moment, with the camera's projection brought up to date first
        (a dry run skips the frames that would refresh it)."""
        self.renderer.camera.reset_rotation_matrix()
        self.key_moment(name, **probes)

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
    def place_beside(label: Mobject, anchor: np.ndarray, project: Callable, taken: list) -> tuple:
        """Put ``label`` (one that faces the camera) beside ``anchor`` where,
        as drawn, it covers none of ``taken`` and stays in the free frame;
        return its box as drawn."""
        spot = project(anchor)
        rot = UpProjection._rotation(project, anchor)
        # nearest first; further out (up to about a label's width) only when the near spots are taken
        tries = [side * np.array([label.width / 2 + gap, label.height / 2 + gap, 0])
                 for gap in (0.12, 0.35, 0.6, 0.9, 1.3, 1.8) for side in (DOWN, LEFT, RIGHT, UP, DL, DR, UL, UR)]

        def free(offset):
            box = box_of(label, spot + offset)
            inside = -6.95 < box[0] and box[2] < 6.95 and -2.95 < box[1] and box[3] < 3.95
            return inside and not any(overlaps(box, t, pad=0.05) for t in taken)

        offset = next((o for o in tries if free(o)), tries[0])
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


def clip_segment(a: np.ndarray, b: np.ndarray, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The part of the segment from ``a`` to ``b`` (3-D) inside the box
    ``|coordinate k| <= bound[k]`` (Liang-Barsky), or None when none of it is."""
    lo, hi = 0.0, 1.0
    d = b - a
    for k in range(3):
        for p, q in ((-d[k], a[k] + bound[k]), (d[k], bound[k] - a[k])):
            if abs(p) < 1e-12:
                if q < 0:
                    return None
            elif p < 0:
                lo = max(lo, q / p)
            else:
                hi = min(hi, q / p)
    return None if lo > hi else (a + lo * d, a + hi * d)


def clip_square(W: np.ndarray, span: float, bound: np.ndarray) -> np.ndarray:
    """The corners (plane coordinates, in order round it) of the part of the
    square ``[-span, span]^2`` that ``W`` (2x3) carries inside the box
    ``|coordinate k| <= bound[k]``: the square cut by the half-planes
    ``±(p W)_k <= bound[k]`` (Sutherland-Hodgman)."""
    poly = [np.array(c, dtype=float) for c in ((-span, -span), (span, -span), (span, span), (-span, span))]
    for k in range(3):
        for sign in (1.0, -1.0):
            room = [bound[k] - sign * float(q @ W[:, k]) for q in poly]    # >= 0: inside this half-plane
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
