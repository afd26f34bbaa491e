"""Key moments of a scene, read back from its mobjects for tests.

A scene calls ``key_moment(name, **probes)`` when something worth checking
is on screen.  The record keeps every visible label's box (for the layout
check) and the probes the scene reports (read from the mobjects it shows).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from manim import (
    Camera,
    DecimalNumber,
    ImageMobject,
    MarkupText,
    MathTex,
    Matrix,
    Mobject,
    SingleStringMathTex,
    Tex,
    Text,
    VMobject,
)

# Text of every kind; with matrices and pictures, the things that must stay
# inside the frame and clear of each other.
TEXT_TYPES = (Text, MarkupText, MathTex, SingleStringMathTex, Tex, DecimalNumber)
LABEL_TYPES = (*TEXT_TYPES, Matrix, ImageMobject)


@dataclass(frozen=True)
class Label:
    kind: str
    content: str
    box: tuple[float, float, float, float]  # left, bottom, right, top in scene units
    glyph: float = float("inf")  # height of its smallest text piece's tallest glyph, as drawn (scene units)
    outlined: bool = True        # every glyph has the dark outline behind it
    smudge: bool = False         # a glyph's outline is drawn more opaque than its fill: a dark smudge
    colours: tuple[str, ...] = ()   # the fill colours its glyphs are drawn in (hex, each once)
    inks: tuple[tuple[str, float], ...] = ()   # each (colour, opacity) its visible glyphs are filled with


@dataclass
class Moment:
    name: str
    labels: list[Label]
    probes: dict[str, Any] = field(default_factory=dict)
    content: tuple[float, float, float, float] | None = None   # box of everything visible, as drawn
    time: float | None = None     # the scene's clock when it was recorded (s)


def _visible(mob: Mobject) -> bool:
    if isinstance(mob, ImageMobject):
        return float(mob.pixel_array[..., 3].max()) > 12  # alpha of its most opaque pixel
    fam = mob.get_family()
    for m in fam:
        if not m.has_points():
            continue
        if not isinstance(m, VMobject):     # a point cloud or the like: its opacities as attributes, if any
            opacities = [getattr(m, name, None) for name in ("fill_opacity", "stroke_opacity")]
            if all(o is None for o in opacities) or any(o is not None and o > 0.05 for o in opacities):
                return True
            continue
        try:
            if m.get_fill_opacity() > 0.05 or m.get_stroke_opacity() > 0.05:
                return True
        except IndexError:                  # no colour set yet
            return True
    return False


def _content(mob: Mobject) -> str:
    if isinstance(mob, DecimalNumber):
        return f"{mob.get_value():.{mob.num_decimal_places}f}"
    if isinstance(mob, (Text, MarkupText)):
        return mob.text
    if isinstance(mob, (MathTex, SingleStringMathTex, Tex)):
        return mob.get_tex_string()
    if isinstance(mob, Matrix):
        return "matrix"
    if isinstance(mob, ImageMobject):
        return "image"
    return type(mob).__name__


def drawn_box(mobjects: Iterable[Mobject], camera: Camera | None) -> tuple[float, float, float, float] | None:
    """Left, bottom, right, top of the visible parts of ``mobjects`` together,
    as ``camera`` draws them (None if nothing is visible)."""
    pts = [camera.transform_points_pre_display(sub, sub.points) if camera is not None else sub.points
           for m in mobjects for sub in m.get_family() if len(sub.points) and _visible(sub)]
    if not pts:
        return None
    allp = np.concatenate(pts)
    return (float(allp[:, 0].min()), float(allp[:, 1].min()), float(allp[:, 0].max()), float(allp[:, 1].max()))


def _screen_box(m: Mobject, camera: Camera | None) -> tuple[float, float, float, float]:
    """Left, bottom, right, top of ``m`` as drawn: through the camera's own
    projection (a 3-D camera's rotation, or nothing for a fixed-in-frame mobject)."""
    if camera is None:
        return (m.get_left()[0], m.get_bottom()[1], m.get_right()[0], m.get_top()[1])
    pts = [camera.transform_points_pre_display(sub, sub.points)
           for sub in m.get_family() if len(sub.points)]
    allp = np.concatenate(pts) if pts else np.zeros((1, 3))
    return (allp[:, 0].min(), allp[:, 1].min(), allp[:, 0].max(), allp[:, 1].max())


_SIGNS = re.compile(r"\\[A-Za-z]+")       # TeX commands: \\times, \\circ, \\approx
_WORDY = re.compile(r"[^\W_]")            # a letter, digit or CJK character
# a number with a power of ten, as TeX: 10^{-2}, 4.4\times10^{-5} (a tick or a loss); every digit
# of it is read, the exponent's too, so it is as small as its smallest digit
_POWER = re.compile(r"-?(?:[\d.,]+\\times)?10\^(?:\{-?\d+\}|\d)")


def _glyph_height(m: Mobject, camera: Camera | None) -> float:
    """How tall the text of ``m`` is drawn: the tallest single glyph (a
    leaf with points), in scene units.  A Matrix is as small as its smallest
    entry (its brackets do not count); a picture, or a lone sign with no
    letter, digit or character in it ("=", "\\times"), has no text height (inf)."""
    if isinstance(m, ImageMobject) or not _WORDY.search(_SIGNS.sub("", _content(m))):
        return float("inf")
    if isinstance(m, Matrix):
        return min((_glyph_height(e, camera) for e in m.get_entries()), default=float("inf"))
    if isinstance(m, (MathTex, SingleStringMathTex)) and _POWER.fullmatch(re.sub(r"\s", "", _content(m))):
        return _smallest_digit(m, camera)
    heights = []
    for leaf in m.family_members_with_points():
        if leaf.submobjects and any(s.has_points() for s in leaf.submobjects):
            continue
        b, t = _screen_box(leaf, camera)[1::2]
        heights.append(t - b)
    return max(heights, default=float("inf"))


def _smallest_digit(m: Mobject, camera: Camera | None) -> float:
    """How tall the smallest digit of a typeset number is drawn (an exponent's digit, in ``10^{-2}``):
    digits are the glyphs taller than wide (not a minus, a point or a times sign)."""
    heights = []
    for leaf in m.family_members_with_points():
        if leaf.submobjects and any(s.has_points() for s in leaf.submobjects):
            continue
        left, bottom, right, top = _screen_box(leaf, camera)
        if top - bottom >= 1.15 * (right - left):
            heights.append(top - bottom)
    return min(heights, default=float("inf"))


def is_bracket(m: Mobject) -> bool:
    """A matrix bracket as manim typesets it (``\\left[\\begin{array}...``)."""
    return isinstance(m, SingleStringMathTex) and m.get_tex_string().startswith("\\left") \
        and "\\begin{array}" in m.get_tex_string()


def _outlined(m: Mobject) -> bool:
    """Every glyph of the text in ``m`` has a background stroke (a matrix's brackets do not count)."""
    texts = [s for s in m.get_family() if isinstance(s, TEXT_TYPES) and not is_bracket(s)]
    return all(g.get_stroke_width(background=True) > 0
               for t in texts for g in t.family_members_with_points())


def _smudged(m: Mobject) -> bool:
    """Some glyph of ``m`` draws its dark outline more opaque than its fill
    (text faded out by hand, its outline left behind)."""
    for t in [s for s in m.get_family() if isinstance(s, TEXT_TYPES)]:
        for g in t.family_members_with_points():
            bg = g.get_stroke_opacity(background=True) if g.get_stroke_width(background=True) > 0 else 0.0
            if bg > g.get_fill_opacity() + 0.25:
                return True
    return False


def _glyph_colours(m: Mobject) -> tuple[tuple[str, ...], tuple[tuple[str, float], ...]]:
    """(colours, inks) of the text glyphs of ``m`` (a matrix's brackets left
    out), in one walk: every fill colour, each once, as hex, in drawing
    order; and each distinct (hex colour, fill opacity) of the visible ones."""
    if isinstance(m, ImageMobject):
        return (), ()
    colours: dict[str, None] = {}
    inks: set[tuple[str, float]] = set()
    glyphs = {id(g): g for t in m.get_family() if isinstance(t, TEXT_TYPES) and not is_bracket(t)
              for g in t.family_members_with_points()}       # a MathTex's parts are in the family too: once each
    for g in glyphs.values():
        colour = g.get_fill_color().to_hex().upper()
        colours[colour] = None
        opacity = float(g.get_fill_opacity())
        if opacity > 0.05:
            inks.add((colour, round(opacity, 3)))
    return tuple(colours), tuple(sorted(inks))


def collect_labels(mobjects: Iterable[Mobject], camera: Camera | None = None) -> list[Label]:
    """The outermost text-like mobjects (Text, MathTex, DecimalNumber,
    Matrix, ...) under ``mobjects`` that are visible, with their boxes as drawn by ``camera`` (if given).  A
    label that is also part of another label (an entry of a Matrix that an
    animation added to the scene on its own) is counted once, as the outer."""
    found: dict[int, Mobject] = {}

    def walk(m: Mobject):
        if isinstance(m, LABEL_TYPES):
            found.setdefault(id(m), m)
            return
        for sub in m.submobjects:
            walk(sub)

    for m in mobjects:
        walk(m)
    inner = {id(sub) for m in found.values() for sub in m.get_family()[1:]}
    out = []
    for key, m in found.items():
        smudge = key not in inner and _smudged(m)
        if key in inner or not (_visible(m) or smudge):
            continue
        left, bottom, right, top = (float(v) for v in _screen_box(m, camera))
        out.append(Label(type(m).__name__, _content(m), (left, bottom, right, top), _glyph_height(m, camera),
                         _outlined(m), smudge, *_glyph_colours(m)))
    return out
