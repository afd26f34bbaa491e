"""Key moments of a scene, read back from its mobjects for tests.

A scene calls ``key_moment(name, **probes)`` when something worth checking
is on screen.  The record keeps every visible label's box (for the layout
check) and the probes the scene reports (read from the mobjects it shows).
"""
from __future__ import annotations

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
)

# Things that must stay inside the frame and clear of each other (pictures too).
LABEL_TYPES = (Text, MarkupText, MathTex, SingleStringMathTex, Tex, DecimalNumber, Matrix, ImageMobject)


@dataclass(frozen=True)
class Label:
    kind: str
    content: str
    box: tuple[float, float, float, float]  # left, bottom, right, top in scene units


@dataclass
class Moment:
    name: str
    labels: list[Label]
    probes: dict[str, Any] = field(default_factory=dict)


def _visible(mob: Mobject) -> bool:
    if isinstance(mob, ImageMobject):
        return float(mob.pixel_array[..., 3].max()) > 12  # alpha of its most opaque pixel
    fam = mob.get_family()
    for m in fam:
        if m.has_points():
            try:
                if m.get_fill_opacity() > 0.05 or m.get_stroke_opacity() > 0.05:
                    return True
            except (AttributeError, IndexError):
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


def _screen_box(m: Mobject, camera: Camera | None) -> tuple[float, float, float, float]:
    """Left, bottom, right, top of ``m`` as drawn: through the camera's own
    projection (a 3-D camera's rotation, or nothing for a fixed-in-frame mobject)."""
    if camera is None:
        return (m.get_left()[0], m.get_bottom()[1], m.get_right()[0], m.get_top()[1])
    pts = [camera.transform_points_pre_display(sub, sub.points)
           for sub in m.get_family() if len(sub.points)]
    allp = np.concatenate(pts) if pts else np.zeros((1, 3))
    return (allp[:, 0].min(), allp[:, 1].min(), allp[:, 0].max(), allp[:, 1].max())


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
        if key in inner or not _visible(m):
            continue
        left, bottom, right, top = (float(v) for v in _screen_box(m, camera))
        out.append(Label(type(m).__name__, _content(m), (left, bottom, right, top)))
    return out
