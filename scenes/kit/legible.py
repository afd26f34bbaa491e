"""Labels fitted to the room they have, never under the legibility floor.

The floor is the one the layout check holds every label to
(``tests.helpers.MIN_GLYPH_PX``): no glyph drawn smaller than 24 px at
1080p, measured as the label's tallest glyph (``moments``).  A label
shrinks to fit its room down to that floor and no further; what still
does not fit is the loader's to refuse (or the scene's to lay out anew)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Mobject, config

from .displays import bounds
from .moments import TEXT_TYPES, _glyph_height, is_bracket

FLOOR_PX = 24          # glyph height at 1080p no label goes under
SUBTITLE_BAND = 0.12   # the bottom of the frame the subtitles take
EDGE_MARGIN = 0.05     # labels stay this far inside the frame


def floor_height() -> float:
    """The floor as a glyph height in scene units (a little above, for rounding)."""
    return (FLOOR_PX + 0.1) * config.frame_height / 1080


def safe_box() -> tuple[float, float, float, float]:
    """(left, bottom, right, top) where a label may go: inside the frame by
    EDGE_MARGIN, above the subtitle band."""
    w, h = config.frame_width / 2, config.frame_height / 2
    return (-w + EDGE_MARGIN, -h + SUBTITLE_BAND * config.frame_height + EDGE_MARGIN,
            w - EDGE_MARGIN, h - EDGE_MARGIN)


def _texts(mob: Mobject) -> list[Mobject]:
    """The outermost text mobjects of ``mob`` (a matrix's brackets left out)."""
    found: list[Mobject] = []

    def walk(m: Mobject) -> None:
        if isinstance(m, TEXT_TYPES):
            if not is_bracket(m):
                found.append(m)
            return
        for sub in m.submobjects:
            walk(sub)

    walk(mob)
    return found


def smallest_glyph(mob: Mobject) -> float:
    """The glyph height of the smallest text in ``mob`` (inf without text)."""
    return min((_glyph_height(t, None) for t in _texts(mob)), default=float("inf"))


def glyph_px(mob: Mobject) -> float:
    """The smallest text of ``mob`` (its tallest glyph) in pixels at 1080p; inf without text."""
    return smallest_glyph(mob) * 1080 / config.frame_height


def least_scale(mob: Mobject, px: float | None = None) -> float:
    """The smallest factor ``mob`` may be scaled by and stay legible, every
    glyph at least ``px`` tall (default: the floor); above 1 when it is drawn
    under that already, 0 when it holds no text."""
    glyph = smallest_glyph(mob)
    least = floor_height() if px is None else px * config.frame_height / 1080
    return 0.0 if glyph == float("inf") else least / glyph


def floor_width(mob: Mobject) -> float:
    """How wide ``mob`` is drawn at the floor (its narrowest legible width)."""
    return mob.width * least_scale(mob)


def legible(mob: Mobject, px: float | None = None) -> Mobject:
    """``mob``, scaled up so its smallest glyph is ``px`` tall at 1080p
    (default: the floor) if it is drawn smaller: a name of small letters only
    ("mmm", "ace") at a size chosen for capitals."""
    factor = least_scale(mob, px)
    if factor > 1.0:
        mob.scale(factor)
    return mob


def shrink_to_fit(mob: Mobject, width: float | None = None, height: float | None = None,
                  about: np.ndarray | None = None) -> float:
    """Scale ``mob`` down to at most ``width`` wide and ``height`` tall, never
    under the floor (nor up); return the factor used.  ``mob`` may still be
    too large: compare its size with the room to know."""
    factor = 1.0
    if width is not None and mob.width > width:
        factor = min(factor, width / mob.width)
    if height is not None and mob.height > height:
        factor = min(factor, height / mob.height)
    if factor < 1.0:
        factor = min(1.0, max(factor, least_scale(mob)))
        if factor < 1.0:
            if about is None:
                mob.scale(factor)
            else:
                mob.scale(factor, about_point=about)
    return factor


Box = tuple[float, float, float, float]


def overlaps(a: Box, b: Box, pad: float = 0.04) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def inside(box: Box, region: Box) -> bool:
    return box[0] >= region[0] and box[1] >= region[1] and box[2] <= region[2] and box[3] <= region[3]


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
            if inside(box, region) and not any(overlaps(box, b) for b in avoid):
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
