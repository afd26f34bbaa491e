"""3-D pictures drawn by Cairo, which has no depth buffer: it draws shaded
3-D surfaces before every flat mobject, and flat mobjects in their z order.

``FlatArrow`` an arrow between two 3-D points drawn flat (a line and a
triangular tip turned to the viewer), so it keeps its place in the z order;
``solid_arrow`` a thin 3-D arrow of few faces (quick to draw) that knows its
tail and tip, ``aim_solid_arrow`` one moved to new ends (quick to redo each
frame: building one costs some 50 ms); ``flat_shaded`` ``ThreeDAxes`` drawn flat, without the sheen
that costs most of a frame.  Points are 3-vectors in scene coordinates.

    class Arrows(ThreeDScene):
        def construct(self):
            self.set_camera_orientation(phi=64 * DEGREES, theta=64 * DEGREES)
            axes = ThreeDAxes()
            flat_shaded(axes)
            cam = self.renderer.camera
            cam.reset_rotation_matrix()              # the view just set
            toward = cam.get_rotation_matrix()[2]    # the unit vector from the scene to the camera
            flat = FlatArrow(YELLOW).put(ORIGIN, np.array([2.0, 1.0, 1.0]), toward)
            solid = solid_arrow(ORIGIN, np.array([0.0, 2.0, 1.0]), GREEN)
            self.add(axes, flat, solid)
"""
from __future__ import annotations

from functools import cache

import numpy as np
from manim import (
    ORIGIN,
    OUT,
    RIGHT,
    UL,
    Cone,
    Line,
    Line3D,
    ParsableManimColor,
    Polygon,
    ThreeDAxes,
    VectorizedPoint,
    VGroup,
)
from manim.utils.space_ops import rotation_matrix


class FlatArrow(VGroup):
    """An arrow between two 3-D points drawn flat: a line and a triangular tip
    turned towards the viewer (``toward``: the unit vector from the scene to
    the camera), so it keeps its place in the z order.  ``put`` places it;
    ``ends`` are the (start, end) it was put at."""

    def __init__(self, color: ParsableManimColor, stroke_width: float = 5, tip: float = 0.28):
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


def solid_arrow(start: np.ndarray, end: np.ndarray, color: ParsableManimColor, bold: float = 1.0) -> VGroup:
    """A 3-D arrow from ``start`` to ``end`` (few faces: quick to draw),
    ``bold`` times the usual thickness and head;
    ``.tail`` and ``.tip`` are points that move with it."""
    direction = (end - start) / np.linalg.norm(end - start)
    head = min(0.14 * bold, 0.4 * float(np.linalg.norm(end - start)))
    shaft = Line3D(start, end - head * direction, thickness=0.012 * bold, color=color, resolution=(1, 12))
    cone = Cone(direction=direction, base_radius=0.045 * bold, height=head, resolution=(1, 12),
                fill_color=color, fill_opacity=1, stroke_width=0).shift(end)
    arrow = VGroup(shaft, cone)
    arrow.tail, arrow.tip = VectorizedPoint(start), VectorizedPoint(end)
    arrow.add(arrow.tail, arrow.tip)
    arrow.bold = bold
    return arrow


def aim_solid_arrow(arrow: VGroup, start: np.ndarray, end: np.ndarray) -> VGroup:
    """Move ``arrow`` (a ``solid_arrow``) to run from ``start`` to ``end``,
    drawn as ``solid_arrow(start, end, ...)`` draws it (the same faces, to
    rounding): its unit parts scaled, turned as manim turns a cylinder or a
    cone to its direction, and moved, in place of building an arrow anew."""
    start, end = np.asarray(start, float), np.asarray(end, float)
    length = float(np.linalg.norm(end - start))
    direction = (end - start) / length if length > 0 else np.array([0.0, 0.0, 1.0])   # a zero arrow: a point
    head = min(0.14 * arrow.bold, 0.4 * length)
    turn = _turn_to(direction)
    shaft_length = length - head
    parts = _unit_parts(arrow.bold)
    for members, unit, scale, at in (
            (arrow[0].family_members_with_points(), parts[0], [0.012 * arrow.bold] * 2 + [shaft_length],
             start + shaft_length / 2 * direction),
            (arrow[1].family_members_with_points(), parts[1], [0.045 * arrow.bold] * 2 + [head], end)):
        for member, points in zip(members, unit, strict=True):
            member.points = (points * scale) @ turn.T + at
    cone = arrow[1]    # manim's own (unused) end point of a cone: the direction turned once more
    cone.end_point.move_to(cone.start_point.get_center() + head * turn @ direction)
    arrow.tail.move_to(start)
    arrow.tip.move_to(end)
    return arrow


@cache
def _unit_parts(bold: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The points of a ``solid_arrow``'s shaft and head (family member by
    member) built along +z at unit radius and length: the shaft centred on
    the origin, the head's apex at the origin."""
    shaft = Line3D(-OUT / 2, OUT / 2, thickness=1, resolution=(1, 12))
    cone = Cone(direction=OUT, base_radius=1, height=1, resolution=(1, 12))
    return ([m.points.copy() for m in shaft.family_members_with_points()],
            [m.points.copy() for m in cone.family_members_with_points()])


def _turn_to(direction: np.ndarray) -> np.ndarray:
    """The rotation manim gives a cylinder or cone along ``direction`` (a unit
    vector): ``theta`` about y, then ``phi`` about z."""
    x, y, z = direction
    theta = np.arccos(z)
    if x == 0:
        phi = 0.0 if y == 0 else np.pi / 2 + (np.pi if y < 0 else 0.0)
    else:
        phi = np.arctan(y / x) + (np.pi if x < 0 else 0.0)
    return rotation_matrix(phi, OUT) @ rotation_matrix(theta, np.array([0.0, 1.0, 0.0]))


def flat_shaded(axes: ThreeDAxes) -> None:
    """Draw ``axes`` flat, without the sheen manim's Cairo renderer gives 3-D axes.

    Each axis comes cut into twenty pieces, each shaded by a gradient
    between two points recomputed from the whole axis's bounds every frame:
    two thirds of a scene's drawing time, for a sheen invisible on thin
    muted lines.  Flat and whole, they are drawn below every other mobject
    (z index -1), as the depth-sorted shaded pieces were."""
    for axis in axes.axes:
        width = axis.pieces[0].get_stroke_width()
        axis.remove(axis.pieces)             # one line per axis again, not twenty pieces
        axis.set_stroke(width=width, family=False)
    axes.set_shade_in_3d(False)
    for mob in axes.family_members_with_points():
        mob.set_sheen(0, family=False)
        mob.stroke_rgbas = mob.stroke_rgbas[:1]   # the colour without its lighter twin: no gradient
        mob.fill_rgbas = mob.fill_rgbas[:1]
        for name in ("get_gradient_start_and_end_points", "get_unit_normal"):
            mob.__dict__.pop(name, None)     # back to the class's own methods
    axes.set_z_index(-1)
