"""How labels change: ``Slots`` keep labels that show the same thing and
``crossfade`` swaps the rest without copying them."""
from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from manim import Animation, FadeIn, FadeOut, Indicate, Mobject, Scene, UpdateFromAlphaFunc, ValueTracker, VMobject

from .text import outline_labels


class Slots:
    """Labels at fixed places, rebuilt only when what they show changes.

    Each step, ``place(key, signature, make)`` every label: the label at
    ``key`` is kept if its ``signature`` is unchanged, else ``make()`` builds
    a new one.  ``commit()`` then returns (outgoing, incoming) lists, to
    crossfade; ``current`` maps each key to its (signature, label)."""

    def __init__(self) -> None:
        self.current: dict[Hashable, tuple[Hashable, Mobject]] = {}
        self.pending: dict[Hashable, tuple[Hashable, Mobject]] = {}

    def place(self, key: Hashable, signature: Hashable, make: Callable[[], Mobject]) -> Mobject:
        old = self.current.get(key)
        self.pending[key] = old if old is not None and old[0] == signature else (signature, make())
        return self.pending[key][1]

    def commit(self) -> tuple[list[Mobject], list[Mobject]]:
        kept = {id(m) for _, m in self.pending.values()} & {id(m) for _, m in self.current.values()}
        out = [m for _, m in self.current.values() if id(m) not in kept]
        new = [m for _, m in self.pending.values() if id(m) not in kept]
        self.current, self.pending = self.pending, {}
        return out, new


def crossfade(old: Mobject, new: Mobject, **kw: Any) -> Animation:
    """Fade ``old`` out while ``new`` fades in, without copying either (a
    Transform deep-copies whole groups of text, which dominates the cost of
    scenes that swap many labels).  The caller adds ``new`` to the scene
    before playing and removes ``old`` after."""
    outline_labels(new)   # before its opacities are read: the outline fades in with it

    def opacities(m):
        return [(part, part.get_fill_opacity(), part.get_stroke_opacity(),
                 part.get_stroke_opacity(background=True) if isinstance(part, VMobject) else 0.0)
                for part in m.family_members_with_points()]

    olds, news = opacities(old), opacities(new)

    def update(_, alpha):
        for parts, weight in ((olds, 1 - alpha), (news, alpha)):
            for part, fill, stroke, outline in parts:
                if isinstance(part, VMobject) and _fade(part, fill * weight, stroke * weight, outline * weight):
                    continue
                part.set_fill(opacity=fill * weight, family=False)
                part.set_stroke(opacity=stroke * weight, family=False)
                if isinstance(part, VMobject):
                    part.set_stroke(opacity=outline * weight, background=True, family=False)

    update(None, 0.0)
    return UpdateFromAlphaFunc(ValueTracker(0), update, **kw)


def _fade(part: VMobject, fill: float, stroke: float, outline: float) -> bool:
    """``part``'s fill, stroke and outline opacities set in place: what
    ``set_fill``/``set_stroke(opacity=...)`` write (the alpha column of
    each colour array and the opacity attribute), without their colour
    parsing, a crossfade's main cost.  False (nothing set) for a part with
    an empty colour array or a sheen: manim's setters resize those."""
    arrays = (part.fill_rgbas, part.stroke_rgbas, part.background_stroke_rgbas)
    if any(len(a) == 0 for a in arrays) or part.get_sheen_factor() != 0:
        return False
    for array, value in zip(arrays, (fill, stroke, outline)):
        array[:, 3] = value
    part.fill_opacity, part.stroke_opacity, part.background_stroke_opacity = fill, stroke, outline
    return True


def swap(scene: Scene, old: Mobject | None, new: Mobject, run_time: float = 0.5) -> Mobject:
    """Replace the caption or label ``old`` (None: nothing yet) by ``new``
    where it stands: the one fades out as the other fades in.  Returns
    ``new``, the caption now on screen."""
    scene.play(*([FadeOut(old)] if old is not None else []), FadeIn(new), run_time=run_time)
    return new


class Emphasize(Indicate):
    """A pulse that grows ``mobject`` a little and back, keeping its colours:
    emphasis that recolours nothing a reader must trust (a red "wrong", a
    grey "truth", the Q/K/V colours).  Manim's ``Indicate`` paints the
    mobject yellow on the way; this only scales it."""

    def __init__(self, mobject: Mobject, scale_factor: float = 1.08, **kw: Any):
        super().__init__(mobject, scale_factor=scale_factor, **kw)

    def create_target(self) -> Mobject:
        return self.mobject.copy().scale(self.scale_factor)
