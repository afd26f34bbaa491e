"""How small a label may be drawn: the legibility floor, and the scale a
group of labels may shrink to before some glyph falls under it.

A label's size is its tallest glyph (a capital, a digit or a Chinese
character), as the layout check measures it (``moments``): a frame fitted
to its room is scaled down, but never below ``least_scale``."""
from __future__ import annotations

from manim import Mobject, config

from .moments import LABEL_TYPES, _glyph_height

MIN_GLYPH_PX = 24     # no glyph drawn smaller than this at 1080p


def glyph_px(mob: Mobject) -> float:
    """The smallest label of ``mob`` (its tallest glyph) in pixels at 1080p,
    visible or not; inf when ``mob`` holds no text."""
    found: list[Mobject] = []

    def walk(m: Mobject) -> None:
        if isinstance(m, LABEL_TYPES):
            found.append(m)
            return
        for sub in m.submobjects:
            walk(sub)

    walk(mob)
    heights = [_glyph_height(m, None) for m in found]
    return min(heights, default=float("inf")) * 1080 / config.frame_height


def least_scale(mob: Mobject, px: float = MIN_GLYPH_PX) -> float:
    """The smallest factor ``mob`` may be scaled by with every glyph still at
    least ``px`` tall (0 when it holds no text)."""
    size = glyph_px(mob)
    return px / size if size < float("inf") else 0.0


def shrink_to(mob: Mobject, width: float, height: float, least: float = 0.0) -> float:
    """Scale ``mob`` down (never up) to fit ``width`` x ``height``, but not
    below ``least`` times its size; returns the factor used."""
    s = max(least, min(1.0, width / mob.width if mob.width else 1.0, height / mob.height if mob.height else 1.0))
    if s != 1.0:
        mob.scale(s)
    return s
