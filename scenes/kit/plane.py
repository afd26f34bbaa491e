"""A deformable plane: grid, unit square, basis vectors and word points, all
moved by one 2x2 matrix in the row convention (a point p goes to p @ M)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from manim import (
    DL,
    DOWN,
    DR,
    LEFT,
    RIGHT,
    UL,
    UP,
    UR,
    Arrow,
    MathTex,
    Mobject,
    NumberPlane,
    ParsableManimColor,
    Polygon,
    VGroup,
    VMobject,
)
from manim.typing import Point2D, Point2DLike, Point3D, Point3DLike

from . import palette
from .layout import WordPoint, beside, bounds, overlaps, place_labels, shifted, within
from .live import aim_arrow


class DeformablePlane(VGroup):
    """Everything drawn on the plane.  ``set_matrix(M)`` redraws every part
    for the (2, 2) matrix M: the grid and unit square are moved point by
    point, the basis arrows end at the rows of M, each word dot sits at
    ``coords @ M`` and the labels are re-placed so none overlap."""

    def __init__(self, words: Sequence[WordPoint], origin: Point3DLike, unit: float = 0.85,
                 x_extent: int = 16, y_extent: int = 12, avoid: Sequence[Mobject] = (),
                 inside: tuple[float, float, float, float] | None = None, own: float | None = None):
        self.origin = np.array(origin, dtype=float)
        self.unit = unit
        self.avoid = list(avoid)
        self.inside = inside      # the free part of the frame the labels stay in (or are hidden)
        self.own = own            # with a margin: each label nearer its own dot than any other (place_labels)
        axis = {"stroke_width": 0}
        self.background = NumberPlane(
            x_range=(-x_extent, x_extent, 1), y_range=(-y_extent, y_extent, 1),
            x_length=2 * x_extent * unit, y_length=2 * y_extent * unit,
            background_line_style={"stroke_color": palette.MUTED, "stroke_width": 1,
                                   "stroke_opacity": 0.6},
            axis_config=axis, faded_line_ratio=1,
        ).shift(self.origin).set_z_index(-6)   # under the moving grid (z -4)
        self.grid = NumberPlane(
            x_range=(-x_extent, x_extent, 1), y_range=(-y_extent, y_extent, 1),
            x_length=2 * x_extent * unit, y_length=2 * y_extent * unit,
            background_line_style={"stroke_color": "#3C7DC4", "stroke_width": 2,
                                   "stroke_opacity": 0.8},
            axis_config={"stroke_color": palette.INK, "stroke_width": 2.5},
            faded_line_ratio=1,
        ).shift(self.origin)
        _merge_lines(self.grid)
        self.square = Polygon(*[self.c2p(p) for p in ((0, 0), (1, 0), (1, 1), (0, 1))],
                              color=palette.AREA, stroke_width=2,
                              fill_color=palette.AREA, fill_opacity=0.35)
        self.i_arrow = self._arrow((1, 0), palette.BASIS_I)
        self.j_arrow = self._arrow((0, 1), palette.BASIS_J)
        self.i_label = MathTex(r"\hat{\imath}", color=palette.BASIS_I, font_size=40)
        self.j_label = MathTex(r"\hat{\jmath}", color=palette.BASIS_J, font_size=40)
        self.words = list(words)
        # Below z 0, so panels and captions (z 0, added later) draw on top;
        # glyphs that readouts rebuild each frame come in at z 0 as well.
        for z, mobs in enumerate(([self.grid], [self.square],
                                  [self.i_arrow, self.j_arrow, self.i_label, self.j_label], self.words),
                                 start=-4):
            for mob in mobs:
                mob.set_z_index(z)
        self._originals = [[(sub, sub.points.copy()) for sub in m.family_members_with_points()]
                           for m in (self.grid, self.square)]
        self.matrix = np.eye(2)
        super().__init__(self.grid, self.square, self.i_arrow, self.j_arrow,
                         self.i_label, self.j_label, *self.words)
        self.set_matrix(np.eye(2))

    def c2p(self, coords: Point2DLike) -> Point3D:
        """Scene point of plane coordinates [x, y]."""
        x, y = coords
        return self.origin + self.unit * np.array([x, y, 0.0])

    def p2c(self, point: Point3DLike) -> Point2D:
        """Plane coordinates [x, y] of a scene point."""
        return (np.asarray(point)[:2] - self.origin[:2]) / self.unit

    def _arrow(self, tip: Point2DLike, color: ParsableManimColor) -> Arrow:
        return Arrow(self.c2p((0, 0)), self.c2p(tip), buff=0, color=color,
                     stroke_width=6, max_tip_length_to_length_ratio=0.3)

    def set_matrix(self, M: np.ndarray | Sequence[Sequence[float]]) -> DeformablePlane:
        M = np.asarray(M, dtype=float)
        self.matrix = M
        M3 = np.eye(3)
        M3[:2, :2] = M
        for members in self._originals:
            for sub, pts in members:
                sub.points = self.origin + (pts - self.origin) @ M3
        for arrow, label, row, side in ((self.i_arrow, self.i_label, M[0], DOWN),
                                        (self.j_arrow, self.j_label, M[1], LEFT)):
            tip = row if np.linalg.norm(row) > 1e-3 else np.array([1e-3, 0.0])
            aim_arrow(arrow, self.c2p((0, 0)), self.c2p(tip))
            first = side if np.linalg.norm(row) > 0.3 else RIGHT
            label.next_to(arrow.get_end(), first, buff=0.1)
            if self.inside is not None:    # the j label clear of the i label (rows that meet)
                clear = [bounds(m) for m in self.avoid]     # and clear of what the labels avoid
                if label is self.j_label and _shown(self.i_label):
                    clear.append(bounds(self.i_label))
                self._keep_inside(label, arrow.get_end(), clear)
        for w in self.words:
            w.dot.move_to(self.c2p(w.coords @ M))
        shown = [m for m in (self.i_label, self.j_label) if _shown(m)]
        place_labels(self.words, avoid=[*shown, *self.avoid], inside=self.inside, own=self.own)
        return self

    def _keep_inside(self, label: Mobject, tip: np.ndarray, clear: list) -> None:
        """Keep a basis vector's name in the free frame, clear of the boxes
        ``clear``: on another side of its tip if need be, hidden while the
        tip is outside the frame (or no side is free)."""
        inside, box, point = self.inside, bounds(label), (tip[0], tip[1], tip[0], tip[1])

        def free(b) -> bool:
            return within(b, inside) and not any(overlaps(b, c, pad=-0.01) for c in clear)   # as the check

        shown = within(point, inside)
        if shown and not free(box):       # it sits where ``first`` put it
            shifts = [beside(point, box, side, buff) for buff in (0.1, 0.35)
                      for side in (DOWN, LEFT, RIGHT, UP, DR, DL, UR, UL)]
            fits = [d for d in shifts if free(shifted(box, d))]
            shown = bool(fits)
            if fits:
                label.shift([fits[0][0], fits[0][1], 0.0])
        if getattr(label, "label_shown", True) != shown:
            label.set_opacity(1.0 if shown else 0.0)
            label.label_shown = shown

    def refit(self, origin: Point3DLike, unit: float) -> DeformablePlane:
        """Move the plane's origin to ``origin`` and draw ``unit`` scene units
        per plane unit (both grids with it), then redraw it for its matrix:
        the same plane, framed anew (a fresh page with other room)."""
        origin = np.array(origin, dtype=float)
        k = unit / self.unit
        self.background.scale(k, about_point=self.origin).shift(origin - self.origin)
        for members in self._originals:
            for _, pts in members:
                pts[:] = origin + (pts - self.origin) * k
        self.origin, self.unit = origin, unit
        return self.set_matrix(self.matrix)

    def word_coords(self) -> np.ndarray:
        """Plane coordinates of the word dots as drawn, shape (k, 2)."""
        return np.array([self.p2c(w.dot.get_center()) for w in self.words])


def _merge_lines(plane: NumberPlane) -> None:
    """Draw the grid lines of ``plane`` as one path (each line a subpath):
    manim draws each mobject on its own, every frame."""
    for group in (plane.background_lines, plane.faded_lines):
        lines = [m for m in group.submobjects if m.has_points()]
        if len(lines) > 1:
            merged = VMobject().match_style(lines[0])
            merged.points = np.concatenate([m.points for m in lines])
            group.submobjects = [merged]


def _shown(mob: Mobject) -> bool:
    return getattr(mob, "label_shown", True)
