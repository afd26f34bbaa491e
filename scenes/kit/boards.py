"""Boards that show how a training run went.

``LossAxes``: axes of log10(loss) against log10(step + 1), the loss of a
run of ``steps`` steps (``losses``, one per step), with at most three
decades named up the side, the steps 1, 10, 100, ... along the bottom and
the two axes' names; ``point(step, loss)`` is where a step's loss is drawn
and ``value(point)`` reads a point back as (log10(step + 1), log10(loss)).

Example (save as ``loss_demo.py``, then ``manim -ql loss_demo.py LossDemo``)::

    import numpy as np
    from manim import Create, Dot, Scene, VMobject

    from scenes.kit.boards import LossAxes

    class LossDemo(Scene):
        def construct(self):
            losses = 1.5 * 0.98 ** np.arange(400)
            ax = LossAxes(losses, 400, "en", "steps", "loss")
            curve = VMobject(stroke_width=3).set_points_as_corners(
                [ax.point(t, losses[t]) for t in range(400)])
            self.play(Create(ax), Create(curve))
            self.add(Dot(ax.point(399, losses[399])))
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RIGHT, UR, Axes, MathTex, VGroup

from . import palette
from .text import text

TICK_SIZE = 40     # the decades: their exponents at the legibility floor
STEP_SIZE = 32     # the steps along the bottom
LABEL_SIZE = 24    # the axes' names


class LossAxes(Axes):
    """log10(loss) against log10(step + 1), the x axis along the bottom
    (the y coordinate is counted from the lowest decade shown, ``lo``);
    ``x_name`` and ``y_name`` name the steps and the loss."""

    def __init__(self, losses: np.ndarray, steps: int, lang: str, x_name: str, y_name: str, width: float = 5.6,
                 height: float = 1.6):
        logs = np.log10(np.maximum(losses, 1e-12))
        self.lo, hi = int(np.floor(logs.min())), int(np.ceil(logs.max()))
        hi = max(hi, self.lo + 1)
        x_max = float(np.log10(steps + 1))
        super().__init__(x_range=[0, x_max, x_max], y_range=[0, hi - self.lo, 1], x_length=width,
                         y_length=height, tips=False, axis_config={"color": palette.MUTED, "stroke_width": 2})
        ticks = VGroup()
        # three decades named at most (the lowest, the highest and one between), and the
        # steps 1, 10, 100, ... (every other power once there are more than four)
        decades = range(self.lo, hi + 1, max(1, -(-(hi - self.lo) // 2)))
        for k in decades:
            ticks.add(MathTex(f"10^{{{k}}}", font_size=TICK_SIZE, color=palette.MUTED)
                      .next_to(self.c2p(0, k - self.lo), LEFT, buff=0.12))
        powers = [10 ** e for e in range(int(np.log10(max(steps, 1))) + 1)]
        for s in powers[::2 if len(powers) > 4 else 1]:
            ticks.add(MathTex(str(s), font_size=STEP_SIZE, color=palette.MUTED)
                      .next_to(self.c2p(np.log10(s + 1), 0), DOWN, buff=0.12))
        x_label = text(x_name, lang, size=LABEL_SIZE, color=palette.MUTED)
        x_label.next_to(self.x_axis, RIGHT, buff=0.15)
        y_label = text(y_name, lang, size=LABEL_SIZE, color=palette.MUTED)
        # in the top right corner, where a falling curve never is
        y_label.move_to(self.c2p(x_max, hi - self.lo), aligned_edge=UR)
        self.x_label, self.y_label = x_label, y_label    # the axes' names, for a scene to move
        self.add(ticks, x_label, y_label)

    def point(self, step: int, loss: float) -> np.ndarray:
        """Where the loss ``loss`` of step ``step`` is drawn."""
        return self.c2p(np.log10(step + 1), np.log10(max(loss, 1e-12)) - self.lo)

    def value(self, point) -> list[float]:
        """(log10(step + 1), log10(loss)) of a point on screen."""
        x, y = self.p2c(point)
        return [float(x), float(y + self.lo)]
