"""Labels fitted to the room they have, never under the legibility floor.

The floor is the one the layout check holds every label to
(``tests.helpers.MIN_GLYPH_PX``): no glyph drawn smaller than 24 px at
1080p, measured as the label's tallest glyph (``moments``).  A label
shrinks to fit its room down to that floor and no further; what still
does not fit is the loader's to refuse (or the scene's to lay out anew)."""
from __future__ import annotations

import numpy as np
from manim import Mobject, config

from .moments import TEXT_TYPES, _glyph_height, is_bracket

FLOOR_PX = 24          # glyph height at 1080p no label goes under


def floor_height() -> float:
    """The floor as a glyph height in scene units (a little above, for rounding)."""
    return (FLOOR_PX + 0.1) * config.frame_height / 1080


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
