"""Scene 1, SpaceDeformation: a matrix deforms the whole plane.

Chapter 1 opens here.  Rotation, stretch, shear and a rank-1 flattening,
each along its true path from ``qkv_math``, then any M from lesson.toml
played as its SVD stages rotate -> (signed) stretch -> rotate, one beat a
move, on a plane framed anew so the SVD row covers no word.  Row vectors: a
point p goes to p @ M.

    manim -ql scenes/space_deformation.py SpaceDeformation
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    BackgroundRectangle,
    Circle,
    Create,
    DashedVMobject,
    FadeIn,
    FadeOut,
    Flash,
    GrowFromCenter,
    Indicate,
    MathTex,
    Mobject,
    Polygon,
    Rectangle,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
    Write,
    config,
    linear,
    rush_from,
    rush_into,
    smooth,
)

import qkv_math as qm
from qkv_lens.lesson.keys import MAX_WORDS, Items, Matrix, Number, Params, Record, Vector
from qkv_lens.numbers import plain_number, plain_vector
from scenes.kit import palette
from scenes.kit.glyphs import FastDecimal, set_shown
from scenes.kit.layout import Box, WordPoint, bounds, overlaps, place_clear, within
from scenes.kit.legible import least_scale
from scenes.kit.live import LiveMap, Unchanged
from scenes.kit.matrices import LiveMatrix, matrix_mob
from scenes.kit.motion import Emphasize, swap
from scenes.kit.plane import DeformablePlane
from scenes.kit.scene import LessonScene
from scenes.kit.text import note, text, title, wrapped_text

SIDEBAR_WIDTH = 4.6                       # the readout column on the left
TEXT_WIDTH = SIDEBAR_WIDTH - 0.6
PLANE_ORIGIN = np.array([2.3, 0.35, 0.0])  # centred on the frame above the subtitle band
PLANE_UNIT = 0.78                         # scene units per plane unit: the words stay clear of the band
FACTOR_SIZE = 28                          # the SVD row's matrices
FLOOR = -2.95                             # nothing drawn lower: the subtitle band starts at y = -3.04
OWN = 0.1                                 # a word's label is this much nearer its own dot than any other
ROW_CLEAR = 0.3                           # the SVD row keeps this far from every word and from M's square
DET_PLACES = 2                            # det M is shown to this many decimals


class SpaceDeformationParams(Params):
    """[space_deformation]: word points on the plane and the moves that deform it."""
    section = "space_deformation"
    words: tuple[Record, ...] = Items({"at": Vector("plane", 2)}, MAX_WORDS,
                                      noun="words", named=True, doc="labelled word points: a name, [x, y]")
    rotation_degrees: Fraction = Number("angle", doc="step 1: rotate by this angle (counter-clockwise)")
    stretch: tuple[Fraction, Fraction] = Vector("plane_map", 2, doc="step 2: stretch x and y by these factors")
    shear: Fraction = Number("plane_map", doc="step 3: shear, [x, y] -> [x + shear y, y]")
    flatten_onto: tuple[Fraction, Fraction] = Vector("direction", 2, nonzero=True,
                                                     doc="step 4: flatten the plane onto this line (rank 1)")
    svd_matrix: tuple[tuple[Fraction, ...], ...] = Matrix("plane_map", 2, 2,
                                                          doc="any 2x2 M, split into rotate, stretch, rotate")


@dataclass
class _Stage:
    """What the beats share: the readout panel, the plane and the map that drives them."""
    words: list[WordPoint]
    points: np.ndarray            # the words' plane coordinates, one row each
    heading: Mobject
    caption: Mobject              # the step's caption under the title, swapped step by step
    readout: LiveMatrix
    det_num: FastDecimal
    det_row: VGroup
    column: VGroup
    convention: VGroup
    panel: Rectangle
    band: Rectangle               # the subtitle band
    free: Box                     # the free frame the word labels stay in
    plane: DeformablePlane
    live: LiveMap
    axis_reach: tuple[float, float]
    unchanged: Unchanged = field(default_factory=Unchanged)
    stale: bool = False           # the readouts lag the map (moved in frames nobody saw)
    follow: bool = True           # the readouts show the map's matrix (False: they hold the SVD's target M)


@dataclass
class _Factors:
    """The SVD row above the plane: the target M = turn stretch turn, the
    names giving way to the factors' matrices, and M's dashed image."""
    back: Mobject
    target: Mobject
    equals: Mobject
    names: list[Mobject]
    mats: list[Mobject]
    deeds: list[Mobject]
    ghost: VGroup
    factors: list[Mobject] = field(default_factory=list)
    box: Mobject | None = None


class SpaceDeformation(LessonScene):
    params: SpaceDeformationParams
    chapter = 1
    number = 1
    s: _Stage

    def construct(self):
        self.s = self._stage()
        self._gone: list[Mobject] = []     # shown by a beat, faded out with the next caption
        self._intro()
        self._primitives()
        gone = self._flatten()
        self._svd(gone)

    def _stage(self) -> _Stage:
        """The readout panel (left), the plane and its live map, laid out."""
        p = self.params
        lang = self.lang
        words = [WordPoint(w.name(lang), np.array(w.at, dtype=float), lang) for w in p.words]
        points = np.array([w.at for w in p.words], dtype=float)

        heading = title(self.tr("title"), lang, width=TEXT_WIDTH)
        stage = text(" ", lang, size=28, color=palette.AREA)
        readout = LiveMatrix(np.eye(2)).scale(0.9)
        m_eq = MathTex("M =", font_size=36)
        m_row = VGroup(m_eq, readout).arrange(RIGHT, buff=0.2)
        det_tex = MathTex(r"\det M =", font_size=36)
        det_num = FastDecimal(1.0, num_decimal_places=DET_PLACES, font_size=36, color=palette.AREA)
        det_row = VGroup(det_tex, det_num).arrange(RIGHT, buff=0.2)
        det_note = note(self.tr("det_label") + " = |det M|", lang, color=palette.AREA)
        # the rule, big enough to read: each row of M in its basis vector's colour
        convention = VGroup(
            VGroup(MathTex(r"y = x\,M", font_size=38),
                   text(self.tr("convention"), lang, size=26, color=palette.INK)).arrange(RIGHT, buff=0.2),
            text(self.tr("row_i"), lang, size=28, color=palette.BASIS_I),
            text(self.tr("row_j"), lang, size=28, color=palette.BASIS_J),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.14)
        column = VGroup(m_row, det_row, det_note).arrange(DOWN, aligned_edge=LEFT, buff=0.25)
        stage.next_to(heading, DOWN, aligned_edge=LEFT, buff=0.3)
        # the readouts under the step caption, the convention under them; when a
        # long title leaves too little room above the subtitle band, the gaps
        # close first (never onto the caption), then the two blocks shrink
        top, bottom = 1.25, 0.6
        room = heading.get_bottom()[1] - FLOOR
        # the tallest step caption (the flattening's with what it loses under it)
        least_top = 0.3 + self._captions_height() + 0.2
        spare = room - (top + column.height + bottom + convention.height)
        if spare < 0:
            cut = min(-spare, (top - least_top) + (bottom - 0.25))
            top -= cut * (top - least_top) / ((top - least_top) + (bottom - 0.25))
            bottom -= cut - (1.25 - top)
        over = column.height + convention.height - (room - top - bottom)
        if over > 0:    # the convention's words give way first (down to the floor), then the readouts
            give = min(over, convention.height * (1 - min(1.0, least_scale(convention))))
            convention.scale((convention.height - give) / convention.height)
            over -= give
        if over > 0:
            column.scale(max(least_scale(column), (column.height - over) / column.height))
        column.next_to(heading, DOWN, aligned_edge=LEFT, buff=top)
        convention.next_to(column, DOWN, aligned_edge=LEFT, buff=bottom)
        panel = Rectangle(width=SIDEBAR_WIDTH, height=config.frame_height + 0.1, stroke_width=0,
                          fill_color=palette.PANEL, fill_opacity=0.93)
        panel.to_edge(LEFT, buff=0)

        # word labels keep out of the side panel and the subtitle band
        band = Rectangle(width=config.frame_width, height=config.frame_height / 2 + FLOOR)
        band.move_to([0, -config.frame_height / 2, 0], aligned_edge=DOWN)
        # ... and stay in the free frame (hidden while their dot is out of it)
        free = (panel.get_right()[0] + 0.05, FLOOR, config.frame_width / 2 - 0.05, config.frame_height / 2 - 0.05)
        plane = DeformablePlane(words, PLANE_ORIGIN, unit=PLANE_UNIT, avoid=[panel, band], inside=free, own=OWN)
        # manim redraws each frame only what comes at or after the first
        # mobject with an updater in z order; the rest is a cached still.  The
        # driver sits just below the plane (grid z -4), so grid, square, arrows,
        # words and readouts all move with it; only the faint reference grid
        # (z -6) stays in the cached still.
        live = LiveMap(self._show, start=np.eye(2), z=-5)
        # the grid's axes end at x_extent * (image of a basis vector)
        axis_reach = (plane.p2c(plane.grid.x_axis.get_end())[0], plane.p2c(plane.grid.y_axis.get_end())[1])
        return _Stage(words, points, heading, stage, readout, det_num, det_row, column, convention, panel, band,
                      free, plane, live, axis_reach)

    def _names(self) -> list[str]:
        """The words' names in the lesson's language, as their labels show them."""
        return [w.name(self.lang) for w in self.params.words]

    def _captions_height(self) -> float:
        """How tall the tallest step caption is drawn (the flattening's with
        the line that says what it loses): the room kept under the title."""
        M = np.array(self.params.svd_matrix, dtype=float)
        keys = [("rotation", {}), ("stretch", {}), ("shear", {}), ("svd", {}), ("outro", {}),
                *_stage_keys(M)]
        heights = [wrapped_text(self.tr(k, **f), self.lang, size=26, width=TEXT_WIDTH).height for k, f in keys]
        flat = wrapped_text(self.tr("flatten"), self.lang, size=26, width=TEXT_WIDTH).height + 0.12 \
            + text(self.tr("info_lost"), self.lang, size=26).height
        return max(*heights, flat)

    def _show(self, M) -> None:
        """Draw the plane and the readouts for the matrix M."""
        s = self.s
        if not s.unchanged(M):      # the map moved since the last frame (else nothing to redraw)
            s.plane.set_matrix(M)   # seen or not: its word labels keep their side from frame to frame
            s.stale = True
        if s.stale and self.drawing and s.follow:    # a frame nobody sees leaves them to the play's last pass
            s.readout.set_matrix(M)
            set_shown(s.det_num, qm.determinant(M))
            s.stale = False

    def _replace_labels(self) -> None:
        """Place the labels again now (the plane redraws only when its matrix
        moves): something they must avoid has come."""
        self.s.unchanged.last = None
        self.s.live.follow()

    def _caption(self, key: str, **fields) -> None:
        """The step's caption under the title, in place of the last one (and
        what the last beat left to go, ``_gone``, fading with it)."""
        new = wrapped_text(self.tr(key, **fields), self.lang, size=26, width=TEXT_WIDTH, color=palette.AREA)
        new.next_to(self.s.heading, DOWN, aligned_edge=LEFT, buff=0.3)
        self.play(FadeOut(self.s.caption), *[FadeOut(m) for m in self._gone], FadeIn(new), run_time=0.5)
        self.s.caption, self._gone = new, []

    def _probes(self, M) -> dict:
        """What the map's last move redrew each frame (the rest is manim's cached still)."""
        s, plane, readout = self.s, self.s.plane, self.s.readout
        live = s.live.redrawn
        on_screen = set(self.get_mobject_family_members())
        return dict(matrix=np.array(M), words=plane.word_coords(), readout=readout.values(),
                    labels=[(w.name, w.dot.get_center()[:2].copy(),
                             bounds(w.label) if getattr(w, "label_shown", True) else None) for w in s.words],
                    dots_shown=[within(tuple(w.dot.get_center()[:2]) * 2, s.free) for w in s.words],
                    det=s.det_num.get_value(), i_tip=plane.p2c(plane.i_arrow.get_end()),
                    j_tip=plane.p2c(plane.j_arrow.get_end()),
                    grid_i=plane.p2c(plane.grid.x_axis.get_end()) / s.axis_reach[0],
                    grid_j=plane.p2c(plane.grid.y_axis.get_end()) / s.axis_reach[1],
                    square=np.array([plane.p2c(v) for v in plane.square.get_vertices()]),
                    live={"grid": plane.grid in live, "square": plane.square in live,
                          "words": all(w.dot in live for w in s.words),
                          "readout": all(n in live for row in readout.numbers for n in row)
                          and s.det_num in live},
                    shown={name: m in on_screen and max(m.get_stroke_opacity(), m.get_fill_opacity()) > 0.5
                           for name, m in (("grid", plane.grid.x_axis), ("square", plane.square),
                                           ("i", plane.i_arrow), ("j", plane.j_arrow))})

    # --- the plane, the readouts and the row convention -------------------
    def _intro(self) -> None:
        """Chapter 1 opens on the plane; the words come in as the sentence
        names them; then the rule y = x M, each row of M flown to the tip of
        the basis vector it is."""
        s, plane = self.s, self.s.plane
        self.add(plane.background, s.live.driver)
        with self.beat("chapter_say"):
            self.play(Create(plane.grid), run_time=1.5)
            self.play(FadeIn(s.panel), Write(s.heading), FadeIn(plane.square),
                      GrowFromCenter(plane.i_arrow), GrowFromCenter(plane.j_arrow),
                      FadeIn(plane.i_label), FadeIn(plane.j_label), run_time=1.2)
            self.describe("describe_chapter")
        with self.beat("intro"):
            self.play(*[FadeIn(w, scale=0.6) for w in s.words], run_time=1.0)
            self.describe("describe_words", words=self._names(), points=s.points, places=2)
            self.key_moment("words", **self._probes(np.eye(2)))
        s.live.attach(every_play=False)   # the map changes only in its moves: other plays keep it in the still
        with self.beat("convention_say", focus=s.convention) as sentence:
            rows_at = self.cue_at(sentence, 0.45, 0.75)
            self.play(FadeIn(s.column), FadeIn(s.convention), run_time=1.0)
            tags = self._row_tags()
            for k, (at, tag) in enumerate(zip(rows_at, tags)):
                self.wait_until(at, s.convention)
                colour = (palette.BASIS_I, palette.BASIS_J)[k]
                arrow = (plane.i_arrow, plane.j_arrow)[k]
                self.play(TransformFromCopy(s.readout.get_rows()[k], tag), Indicate(arrow, color=colour),
                          Indicate(s.convention[k + 1], color=colour, scale_factor=1.05), run_time=1.0)
            M = s.readout.values()
            self.describe("describe_convention", M=M, det=qm.determinant(M), i=M[0], j=M[1], places=2)
            self.key_moment("rows", tags=[(t.get_center()[:2].copy(), t.tex_strings[1::2])
                                          for t in tags],
                            i_tip=plane.p2c(plane.i_arrow.get_end()), j_tip=plane.p2c(plane.j_arrow.get_end()))
        self.key_moment("start", **self._probes(np.eye(2)))
        self._gone = [VGroup(*tags)]     # they leave with the first step's caption

    def _row_tags(self) -> list[VGroup]:
        """Row k of the readout written out, ``(a, b)``, beside the tip of
        basis vector k (where the row says it lands), clear of the labels."""
        s, plane = self.s, self.s.plane
        tags = []
        taken = [bounds(m) for m in (plane.i_label, plane.j_label, *[w.label for w in s.words],
                                     *[w.dot for w in s.words])]
        for k, (arrow, colour) in enumerate(((plane.i_arrow, palette.BASIS_I), (plane.j_arrow, palette.BASIS_J))):
            row = s.readout.values()[k]
            tag = MathTex("(", plain_number(row[0], 2, pad=True), ",", plain_number(row[1], 2, pad=True), ")",
                          font_size=34, color=colour)
            place_clear(tag, arrow.get_end(), (DOWN + RIGHT, UP + RIGHT, RIGHT, UP + LEFT, LEFT),
                        avoid=taken, region=s.free)
            taken.append(bounds(tag))
            tags.append(tag)
        return tags

    # --- the four primitives, each along its true path ----------------
    def _primitives(self) -> None:
        p = self.params
        theta = np.deg2rad(float(p.rotation_degrees))
        sx, sy = (float(v) for v in p.stretch)
        k = float(p.shear)
        steps = [
            ("rotation", qm.rotation_path(theta), qm.rotation(theta)),
            ("stretch", qm.stretch_path(sx, sy), qm.stretch(sx, sy)),
            ("shear", qm.shear_path(k), qm.shear(k)),
        ]
        moves = {"rotation": {"angle": p.rotation_degrees}, "stretch": {"sx": sx, "sy": sy}, "shear": {"k": k}}
        for key, path, M in steps:
            self._caption(key)
            # each sentence names the square the map moves and ends on its area
            with self.beat(f"{key}_say", focus=VGroup(self.s.plane.square, self.s.det_row)):
                if key == "rotation":  # pause halfway: still a rotation
                    self.s.live.play(self, path, 1.5, 0.0, 0.5, rate=linear)
                    self.wait(0.6)
                    self.key_moment("rotation_half", **self._probes(path(0.5)))
                    self.s.live.play(self, path, 1.5, 0.5, 1.0, rate=linear)
                else:
                    self.s.live.play(self, path, 2.5)
                self.wait(0.6)
                self.key_moment(key, **self._probes(M))
                self.describe(f"describe_{key}", caption=self.tr(key), M=M, det=qm.determinant(M), **moves[key],
                              places=2)
            # back to the identity along the same path, in two halves of one smooth move
            self.s.live.play(self, path, 0.45, 1.0, 0.5, rate=rush_into)
            self.key_moment(f"{key}_rewind_half", **self._probes(path(0.5)))
            self.s.live.play(self, path, 0.45, 0.5, 0.0, rate=rush_from)

    # --- rank 1: words collide, the area is lost -------------------------
    def _flatten(self) -> None:
        s, plane, lang = self.s, self.s.plane, self.lang
        self._caption("flatten")
        F = qm.flatten_onto(np.array(self.params.flatten_onto, dtype=float))
        # checkpoint: det M once the plane is squashed onto the line (the beat shows it)
        self.checkpoint("det_ask", number=qm.determinant(F), places=DET_PLACES,
                        line=plain_vector(self.params.flatten_onto))
        with self.beat("flatten_say"):
            self.s.live.play(self, qm.linear_path(F), 3.0)
            plane.avoid += self._line_strip(np.array(self.params.flatten_onto, dtype=float))
            groups = qm.collisions(s.points, F)
            marks = VGroup()
            rings = VGroup()
            for g in groups:
                spot = plane.c2p(s.points[g[0]] @ F)
                mark = text(self.tr("same_point"), lang, size=24, color=palette.ALERT)
                marks.add(mark)
                ring = Circle(radius=0.26, color=palette.ALERT, stroke_width=5).move_to(spot)
                rings.add(ring)
                plane.avoid.append(ring)   # the labels step out of the ring
                self.play(Flash(spot, color=palette.ALERT, flash_radius=0.45, line_length=0.35,
                                line_stroke_width=5), GrowFromCenter(ring), run_time=0.8)
            lost = text(self.tr("info_lost"), lang, size=26, color=palette.ALERT)
            lost.next_to(s.caption, DOWN, aligned_edge=LEFT, buff=0.12)   # the step's caption
            # the labels step off the line and out of the rings
            self._slide_labels(s.det_num.animate.set_color(palette.ALERT), FadeIn(lost), run_time=0.8)
            self._mark_collisions(groups, marks, rings)
            self.wait(1.0)
            self.key_moment("flatten", collisions=groups, **self._probes(F))
            self.describe("describe_flatten", caption=self.tr("flatten"),
                          u=np.array(self.params.flatten_onto, dtype=float), M=F, det=qm.determinant(F), places=2)
            for g in groups:
                self.describe("describe_flatten_met", words=[self._names()[i] for i in g], at=s.points[g[0]] @ F,
                              places=2)
        return [marks, rings, lost]

    def _fresh_plane(self, gone: list[Mobject], origin: np.ndarray, unit: float) -> None:
        """A clean page after the flattening (it cannot be undone): the squashed
        plane fades out whole and the identity plane fades in, framed anew
        (``origin``, ``unit``: room for the SVD row).  The plane is redrawn
        at the identity while hidden, before the fade-in copies it (a wait
        draws a still frame and runs no updater, and a fade run over a plane
        its updater has not yet redrawn would hold the squashed one)."""
        s, plane = self.s, self.s.plane
        parts = [plane.background, plane.grid, plane.square, plane.i_arrow, plane.j_arrow, plane.i_label,
                 plane.j_label, *s.words]
        plane.avoid = [s.panel, s.band]
        self.play(*[FadeOut(m) for m in (*gone, *parts)], s.det_num.animate.set_color(palette.AREA), run_time=0.6)
        s.live.path = lambda t: np.eye(2)
        s.unchanged.last = None
        plane.refit(origin, unit)
        s.live.follow()
        self.play(*[FadeIn(m) for m in parts], run_time=0.6)

    def _line_strip(self, u: np.ndarray, step: float = 0.1) -> list[Mobject]:
        """Small boxes along the line a flattened plane becomes (through the
        origin along ``u``, inside the free frame): what labels must not cross."""
        plane, free = self.s.plane, self.s.free
        u = u / np.linalg.norm(u)
        reach = np.hypot(config.frame_width, config.frame_height) / plane.unit
        strip = []
        for t in np.arange(-reach, reach, step / plane.unit):
            x, y, _ = plane.c2p(t * u)
            if within((x, y, x, y), free):
                strip.append(Rectangle(width=0.06, height=0.06).move_to([x, y, 0]))
        return strip

    def _slide_labels(self, *also, run_time: float = 0.6) -> None:
        """Move the labels to where they now belong (clear of what was just
        added to ``plane.avoid``), with the animations ``also``."""
        plane = self.s.plane
        labels = [w.label for w in self.s.words] + [plane.i_label, plane.j_label]
        before = [m.get_center() for m in labels]
        self._replace_labels()
        after = [m.get_center() for m in labels]
        for m, b in zip(labels, before):
            m.move_to(b)
        self.play(*[m.animate.move_to(a) for m, a in zip(labels, after)], *also, run_time=run_time)

    def _mark_collisions(self, groups, marks: VGroup, rings: VGroup) -> None:
        """Name each spot where words met, one after another (a mark with no room is dropped from ``marks``)."""
        s, plane = self.s, self.s.plane
        for g, mark, ring in list(zip(groups, marks, rings)):
            # above the words that met (or their ring), where it covers no other label
            shown = [s.words[i].label for i in g if getattr(s.words[i], "label_shown", True)]
            taken = [bounds(m) for m in (*[w.label for w in s.words if getattr(w, "label_shown", True)],
                                         plane.i_label, plane.j_label, *plane.avoid)
                     if getattr(m, "label_shown", True)]
            # by the ring first, else beside the names of the words that met
            if not (self._place_mark(mark, ring, taken, s.free)
                    or shown and self._place_mark(mark, VGroup(*shown), taken, s.free)):
                marks.remove(mark)     # no room for it: the ring alone marks the spot
                continue
            plane.avoid.append(mark)
            self.play(FadeIn(mark), run_time=0.5)

    # --- any M as rotate -> stretch -> rotate -------------------------
    def _svd(self, gone: list[Mobject]) -> None:
        M = np.array(self.params.svd_matrix, dtype=float)
        eq = self._svd_row(M)
        origin, unit = self._svd_frame(M, eq)
        self._fresh_plane(gone, origin, unit)
        self._caption("svd")
        self._svd_target(M, eq)
        self._svd_stages(M, eq)
        self._outro(M, eq)
        self._next()

    def _svd_row(self, M: np.ndarray) -> _Factors:
        """The SVD row, ``[M] = turn stretch turn`` (the factors' matrices, and
        what each does, kept for later in the names' places), across the
        bottom of the free frame."""
        s, lang = self.s, self.lang
        A, B, C = qm.svd_stages(M)
        target = matrix_mob(M, row_colors=[palette.BASIS_I, palette.BASIS_J], font_size=FACTOR_SIZE, digits=2,
                            gap=0.35, pad=True)
        mats = [matrix_mob(F, font_size=FACTOR_SIZE, digits=2, gap=0.35, pad=True).set_z_index(1) for F in (A, B, C)]
        names = [text(self.tr(k), lang, size=28, color=palette.AREA) for k in ("svd_turn", "svd_stretch", "svd_turn")]
        # what each factor does, read back in the outro (its room kept from the start)
        deeds = [MathTex(_deg(qm.rotation_angle(A)) + r"^\circ", font_size=32),
                 MathTex(r"\times" + plain_number(B[0, 0], 2, pad=True) + r",\,\times"
                         + plain_number(B[1, 1], 2, pad=True), font_size=32),
                 MathTex(_deg(qm.rotation_angle(C)) + r"^\circ", font_size=32)]
        equals = MathTex("=", font_size=40)
        row = VGroup(target, equals, *mats).arrange(RIGHT, buff=0.35)   # room for each factor's deed under it
        for d, m in zip(deeds, mats):
            d.set_color(palette.AREA).next_to(m, DOWN, buff=0.12)
        block = VGroup(row, *deeds)
        block.move_to([(s.free[0] + s.free[2]) / 2, s.free[1] + 0.2, 0], aligned_edge=DOWN)
        for n, m in zip(names, mats):
            n.move_to(m)
        back = BackgroundRectangle(block, color=palette.PANEL, fill_opacity=0.93, buff=0.15)
        for m in (back, target, equals, *names, *deeds):
            m.set_z_index(1)
        return _Factors(back, target, equals, names, mats, deeds, VGroup())

    def _svd_frame(self, M: np.ndarray, eq: _Factors) -> tuple[np.ndarray, float]:
        """Where the plane goes for the SVD (its origin and unit): every word
        at rest (before the moves and after each) and M's unit square and
        arrows inside the free frame above the SVD row, ROW_CLEAR from it,
        at PLANE_UNIT or as large as fits."""
        s = self.s
        A, B, _ = qm.svd_stages(M)
        square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
        spots = np.vstack([s.points @ N for N in (np.eye(2), A, A @ B, M)] + [square @ M, square])
        lo, hi = spots.min(axis=0), spots.max(axis=0)
        left, bottom, right, top = s.free[0] + 0.3, bounds(eq.back)[3] + ROW_CLEAR, s.free[2] - 0.3, s.free[3] - 0.35
        unit = min(PLANE_UNIT, (right - left) / max(hi[0] - lo[0], 1e-9), (top - bottom) / max(hi[1] - lo[1], 1e-9))
        middle = np.array([(left + right) / 2, (bottom + top) / 2])
        return np.array([*(middle - unit * (lo + hi) / 2), 0.0]), float(unit)

    def _svd_target(self, M: np.ndarray, eq: _Factors) -> None:
        """Where the three moves must land: M in the readout and written out
        in the SVD row, and the image of the unit square and of i and j
        under M drawn dashed on the plane."""
        s, plane = self.s, self.s.plane
        back, target, equals, names = eq.back, eq.target, eq.equals, eq.names
        corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float) @ M
        ghost = eq.ghost = VGroup(
            DashedVMobject(Polygon(*[plane.c2p(c) for c in corners], color=palette.AREA, stroke_width=3),
                           num_dashes=28),
            *[DashedVMobject(Arrow(plane.c2p((0, 0)), plane.c2p(r), buff=0, color=col, stroke_width=4,
                                   max_tip_length_to_length_ratio=0.3), num_dashes=10)
              for r, col in ((M[0], palette.BASIS_I), (M[1], palette.BASIS_J))])
        ghost.set_z_index(-1)
        with self.beat("svd_say") as sentence:
            first, *later = self.cue_at(sentence, 0.0, 0.5, 0.7, 0.9)
            self.wait_until(first, back)
            plane.avoid.append(back)          # the labels keep out of its way
            self._replace_labels()
            # from here the readouts hold M, the target, while the plane moves towards it
            s.follow = False
            s.readout.set_matrix(M)
            set_shown(s.det_num, qm.determinant(M))
            self.reveal([(first, [FadeIn(back), FadeIn(target), Create(ghost),
                                  Emphasize(s.readout, scale_factor=1.1), Emphasize(s.det_row, scale_factor=1.1)]),
                         (first, [FadeIn(equals)]),
                         *[(t, [FadeIn(n, shift=0.2 * DOWN)]) for t, n in zip(later, names)]],
                        focus=VGroup(back, ghost))
            self.describe("describe_svd", M=M, det=qm.determinant(M), places=2)
            self.key_moment("svd_target", target=_entries(target), ghost=[plane.p2c(v) for v in
                                                                         ghost[0].get_all_points()],
                            row=bounds(back), **self._probes(np.eye(2)))

    def _svd_stages(self, M: np.ndarray, eq: _Factors) -> None:
        """The three moves, one beat each, each onto the plane as its factor
        replaces its name; the last lands on M, and the box goes to it."""
        A, B, C = qm.svd_stages(M)
        stage_keys = _stage_keys(M)
        ends = [A, A @ B, A @ B @ C]
        box = SurroundingRectangle(eq.names[0], color=palette.FOCUS, buff=0.08).set_z_index(1)
        for k, ((key, fields), path, end, name) in enumerate(zip(stage_keys, qm.svd_path(M), ends, "abc")):
            self._caption(key, **fields)
            mat = eq.mats[k]
            with self.beat(f"{key}_say", focus=mat, **fields):
                self.play(Create(box) if k == 0 else box.animate.become(
                    SurroundingRectangle(eq.names[k], color=palette.FOCUS, buff=0.08).set_z_index(1)),
                    run_time=0.4)
                self.s.live.play(self, path, 2.2, 0.0, 1.0, smooth, FadeOut(eq.names[k]), FadeIn(mat),
                                 box.animate.become(SurroundingRectangle(mat, color=palette.FOCUS, buff=0.08)))
                eq.factors.append(mat)
                if k == 2:     # the moves land on the target: the box goes to M
                    self.play(box.animate.become(SurroundingRectangle(eq.target, color=palette.FOCUS, buff=0.08)),
                              run_time=0.5)
                self.wait(0.6)
                self.describe(f"describe_svd_{name}", F=(A, B, C)[k], places=2)
                self.key_moment(f"svd_{name}", factors=[_entries(f) for f in eq.factors], **self._probes(end))
        eq.box = box

    def _outro(self, M: np.ndarray, eq: _Factors) -> None:
        """The manual read back: under each factor, what it does, boxed as its words are read."""
        self._caption("outro")
        with self.beat("outro_say") as sentence:
            times = self.cue_at(sentence, 0.55, 0.75, 0.9)
            self.reveal([(t, [eq.box.animate.become(SurroundingRectangle(VGroup(f, d), color=palette.FOCUS,
                                                                         buff=0.08)),
                              FadeIn(d, shift=0.15 * DOWN)]) for t, f, d in zip(times, eq.factors, eq.deeds)],
                        focus=eq.back)
            A, B, C = qm.svd_stages(M)
            self.describe("describe_outro", a=float(_deg(qm.rotation_angle(A))), sx=B[0, 0],
                          sy=B[1, 1], c=float(_deg(qm.rotation_angle(C))), places=2)   # the angles as _deg shows them
        self.key_moment("end", deeds=[d.get_tex_string() for d in eq.deeds], **self._probes(M))

    def _next(self) -> None:
        """What comes next, in the caption's place: a vector of 2 numbers
        becoming one of 3 (the next scenes' matrices change how many numbers)."""
        s = self.s
        teaser = MathTex(r"[\,x_1,\ x_2\,]\ \mapsto\ [\,y_1,\ y_2,\ y_3\,]", font_size=36, color=palette.AREA)
        if teaser.width > TEXT_WIDTH:
            teaser.scale_to_fit_width(TEXT_WIDTH)
        teaser.next_to(s.heading, DOWN, aligned_edge=LEFT, buff=0.35)
        with self.beat("next_say", focus=teaser):
            s.caption = swap(self, s.caption, teaser, run_time=0.8)
            self.describe("describe_next")
        self.key_moment("next", teaser=teaser.get_tex_string())

    @staticmethod
    def _place_mark(mark, near, taken, free) -> bool:
        """Put ``mark`` beside ``near`` (above it first) where it covers none of
        the boxes ``taken`` and stays inside ``free``; False when nowhere fits."""
        for buff in (0.12, 0.4):
            for side in (UP, DOWN, RIGHT, LEFT, UP + RIGHT, UP + LEFT, DOWN + RIGHT, DOWN + LEFT):
                box = bounds(mark.next_to(near, side, buff=buff))
                if within(box, free) and not any(overlaps(box, t) for t in taken):
                    return True
        return False


def _stage_keys(M: np.ndarray) -> list[tuple[str, dict[str, str]]]:
    """The text key of each SVD move's caption (and sentence) and its fields: the angles and stretches of M's stages."""
    A, B, C = qm.svd_stages(M)
    sx, sy = plain_number(B[0, 0], 2, pad=True), plain_number(B[1, 1], 2, pad=True)
    return [("svd_a", {"angle": _deg(qm.rotation_angle(A))}),
            ("svd_b_flip" if B[1, 1] < 0 else "svd_b", {"sx": sx, "sy": sy}),
            ("svd_c", {"angle": _deg(qm.rotation_angle(C))})]


def _deg(radians: float) -> str:
    """An angle in degrees, one decimal: ``36.9``."""
    return plain_number(np.rad2deg(radians), 1, pad=True)


def _entries(matrix) -> np.ndarray:
    """The numbers a matrix shows, read back from its typeset entries."""
    return np.array([[float(e.get_tex_string()) for e in row] for row in matrix.get_rows()])
