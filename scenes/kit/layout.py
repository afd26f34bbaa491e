"""Where things go: boxes (``bounds``, ``overlaps``, ``within``), the
free part of the frame (``safe_box``), labels placed beside their points
(``place_labels``, ``place_clear``, ``lift_clear``), word points, and
overlays fixed in the frame of a 3-D scene (``fix_in_frame``).

A box is (left, bottom, right, top) in scene units."""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar, overload

import numpy as np
from manim import DL, DOWN, DR, LEFT, RIGHT, UL, UP, UR, Dot, Mobject, ParsableManimColor, VGroup, VMobject, config
from manim.typing import Vector3D

from . import palette
from .text import text

if TYPE_CHECKING:
    from manim import ThreeDScene

M = TypeVar("M", bound=Mobject)
Box = tuple[float, float, float, float]
SUBTITLE_BAND = 0.12   # the bottom of the frame the subtitles take
EDGE_MARGIN = 0.05     # labels stay this far inside the frame


def safe_box() -> Box:
    """Where a label may go: inside the frame by EDGE_MARGIN, above the subtitle band."""
    w, h = config.frame_width / 2, config.frame_height / 2
    return (-w + EDGE_MARGIN, -h + SUBTITLE_BAND * config.frame_height + EDGE_MARGIN,
            w - EDGE_MARGIN, h - EDGE_MARGIN)


@overload
def fix_in_frame(scene: ThreeDScene, mobject: M, /) -> M: ...
@overload
def fix_in_frame(scene: ThreeDScene, *mobjects: Mobject) -> tuple[Mobject, ...]: ...


def fix_in_frame(scene: ThreeDScene, *mobjects: Mobject) -> Mobject | tuple[Mobject, ...]:
    """Fix ``mobjects`` in the frame of a 3-D scene (drawn flat over the
    view, unmoved by the camera) and return them: the one mobject, or a
    tuple of several.  They are not on screen yet (manim's
    ``add_fixed_in_frame_mobjects`` also adds them; this takes them off
    again): the scene fades them in when it is ready."""
    scene.add_fixed_in_frame_mobjects(*mobjects)
    scene.remove(*mobjects)
    return mobjects[0] if len(mobjects) == 1 else mobjects


class WordPoint(VGroup):
    """A dot at plane coordinates ``coords`` with a text label beside it."""

    def __init__(self, name: str, coords: Sequence[float] | np.ndarray, lang: str,
                 color: ParsableManimColor = palette.EMBED, size: float = 24):
        self.dot = Dot(radius=0.07, color=color)
        self.label = text(name, lang, size=size, color=color)
        self.coords = np.asarray(coords, dtype=float)
        self.side: Vector3D = UR
        super().__init__(self.dot, self.label, name=name)   # Mobject's name (set in __init__) is the word's


_SIDES = (UR, UL, DR, DL, RIGHT, LEFT, UP, DOWN)


def _extent(mob: Mobject) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest x, y, z of ``mob``'s curves' anchors (what manim's
    get_left, get_center, ... measure), in one pass over its family."""
    anchors = [m.points[i::m.n_points_per_curve] if isinstance(m, VMobject) else m.points
               for m in mob.family_members_with_points()
               for i in ((0, m.n_points_per_curve - 1) if isinstance(m, VMobject) else (0,))]
    pts = np.concatenate(anchors) if anchors else mob.get_center()[None]
    return pts.min(axis=0), pts.max(axis=0)


def bounds(mob: Mobject) -> Box:
    """(left, bottom, right, top) of ``mob``: the box of its curves' anchors,
    as manim's get_left/get_bottom/... measure it, in one pass (each of those
    walks the whole family again; per frame that dominated live labels)."""
    lo, hi = _extent(mob)
    return (lo[0], lo[1], hi[0], hi[1])


def centre(mob: Mobject) -> np.ndarray:
    """``mob.get_center()`` (x, y, z), to the bit, from one pass (``_extent``)."""
    lo, hi = _extent(mob)
    return (lo + hi) / 2


def beside(anchor: tuple[float, ...], box: tuple[float, ...], side: np.ndarray,
            buff: float) -> np.ndarray:
    """The shift that puts ``box`` next to ``anchor`` (both boxes) on ``side``,
    ``buff`` apart, as ``Mobject.next_to`` does."""
    x, y = float(side[0]), float(side[1])     # in floats: per frame, numpy's small arrays cost more
    return np.array([(anchor[0] + anchor[2]) / 2 + x * (anchor[2] - anchor[0]) / 2 + buff * x
                     - ((box[0] + box[2]) / 2 + -x * (box[2] - box[0]) / 2),
                     (anchor[1] + anchor[3]) / 2 + y * (anchor[3] - anchor[1]) / 2 + buff * y
                     - ((box[1] + box[3]) / 2 + -y * (box[3] - box[1]) / 2)])


def shifted(box: Box, by: np.ndarray) -> Box:
    return (box[0] + by[0], box[1] + by[1], box[2] + by[0], box[3] + by[1])


def overlaps(a: Box, b: Box, pad: float = 0.04) -> bool:
    """Whether boxes ``a`` and ``b`` come within ``pad`` of each other."""
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def place_labels(points: Sequence[WordPoint], avoid: Sequence[Mobject] = (),
                 inside: tuple[float, float, float, float] | None = None, own: float | None = None) -> None:
    """Put each label next to its dot on the first side (its previous side
    first) where it overlaps no earlier label and nothing in ``avoid``;
    if every side is taken, try again further from the dot.  Points sharing
    a spot so get their labels stacked apart.

    With ``inside`` (left, bottom, right, top: the free part of the frame),
    a label also stays inside it, stacked further above and below its dot
    when the sides are taken; a label whose dot is outside it, or that finds
    no free spot, is hidden (``show_label``) until it finds one again.

    With ``own`` (a margin in scene units), a label also covers no other
    dot and lies nearer its own dot than any dot at another spot by ``own``
    (``owned``): it cannot be read as another point's name."""
    taken = [bounds(m) for m in avoid]
    dots = [p.dot.get_center() for p in points] if own is not None else []
    for p in points:
        order = (p.side,) + tuple(s for s in _SIDES if s is not p.side)
        dot, label = bounds(p.dot), bounds(p.label)
        if inside is not None and not within(((dot[0] + dot[2]) / 2,) * 2 + ((dot[1] + dot[3]) / 2,) * 2, inside):
            show_label(p, False)       # its dot has left the free frame
            continue
        # nearest first; only when every side is taken, move further out
        # (made one at a time: most labels take their first try)
        tries = ((side, beside(dot, label, side, buff)) for buff in (0.08, 0.4, 0.75) for side in order)
        if inside is not None:    # then stacked above and below, on either side of the dot (no side kept)
            step = label[3] - label[1] + 0.08
            tries = itertools.chain(tries, ((None, beside(dot, label, side, 0.08) + np.array([0.0, k * step]))
                                            for k in (1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7)
                                            for side in (RIGHT, LEFT, UP if k > 0 else DOWN)))
        mine = ((dot[0] + dot[2]) / 2, (dot[1] + dot[3]) / 2)
        for side, shift in tries:
            box = shifted(label, shift)
            if not any(overlaps(box, t) for t in taken) and (inside is None or within(box, inside)) \
                    and (own is None or owned(box, mine, dots, own)):
                if side is not None:
                    p.side = side
                break
        else:
            if inside is not None:
                show_label(p, False)   # no free spot: hidden rather than on top of another label
                continue
            shift = beside(dot, label, p.side, 0.08)
        show_label(p, True)
        p.label.shift([shift[0], shift[1], 0.0])
        taken.append(shifted(label, shift))


def box_distance(box: Box, point: Sequence[float]) -> float:
    """How far ``point`` (x, y) lies from ``box`` (0 inside it)."""
    dx = max(box[0] - point[0], 0.0, point[0] - box[2])
    dy = max(box[1] - point[1], 0.0, point[1] - box[3])
    return float(np.hypot(dx, dy))


DOT_CLEAR = 0.09    # a label keeps this far from every other dot (a word dot's radius, 0.07, and a little)


def owned(box: Box, mine: Sequence[float], dots: Sequence[Sequence[float]], margin: float) -> bool:
    """Whether a label at ``box`` reads as the name of the dot at ``mine``:
    it keeps DOT_CLEAR from every dot of ``dots`` at another spot, and each
    of those is ``margin`` further from it than ``mine`` is."""
    near = box_distance(box, mine) + margin
    for d in dots:
        if abs(d[0] - mine[0]) < 1e-6 and abs(d[1] - mine[1]) < 1e-6:
            continue
        far = box_distance(box, d)
        if far < near or far < DOT_CLEAR:
            return False
    return True


def within(box: Box, inside: Box) -> bool:
    """Whether ``box`` lies wholly in ``inside``."""
    return inside[0] <= box[0] and box[2] <= inside[2] and inside[1] <= box[1] and box[3] <= inside[3]


def show_label(point: WordPoint, shown: bool) -> None:
    """Show or hide a word point's label (its text and outline), once per change."""
    if getattr(point, "label_shown", True) != shown:
        point.label.set_opacity(1.0 if shown else 0.0)
        point.label_shown = shown


Box = tuple[float, float, float, float]


SIDES = (UP, DOWN, RIGHT, LEFT, UP + RIGHT, UP + LEFT, DOWN + RIGHT, DOWN + LEFT)


def place_clear(mob: Mobject, anchor: np.ndarray, sides: Sequence[np.ndarray], avoid: Iterable[Box] = (),
                region: Box | None = None, buffs: Sequence[float] = (0.1, 0.35, 0.7)) -> bool:
    """Put ``mob`` next to the point ``anchor`` on the first of ``sides``
    (nearest ``buffs`` first) where its box overlaps nothing in ``avoid`` and
    stays inside ``region`` (default: ``safe_box()``); if there is no such
    place, on the first side at the first buff.  Returns whether it is clear."""
    region = safe_box() if region is None else region
    avoid = list(avoid)
    for buff in buffs:
        for side in sides:
            mob.next_to(anchor, side, buff=buff)
            box = bounds(mob)
            if within(box, region) and not any(overlaps(box, b) for b in avoid):
                return True
    mob.next_to(anchor, sides[0], buff=buffs[0])
    return False


def lift_clear(mobs: Sequence[Mobject], step: float, avoid: Iterable[Box] = (), most: int = 4) -> None:
    """Each of ``mobs`` in turn, lifted by ``step`` (up to ``most`` times)
    until it overlaps none of ``avoid`` nor the ones placed before it:
    numbers over bars that stand closer than the numbers are wide."""
    taken = list(avoid)
    for mob in mobs:
        for _ in range(most):
            if not any(overlaps(bounds(mob), b) for b in taken):
                break
            mob.shift(UP * step)
        taken.append(bounds(mob))
