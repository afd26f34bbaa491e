"""Cheap per-frame work: updaters that skip still frames, lines moved
without manim's general machinery, copies without the SVG sources.

manim runs every updater on every frame, also while nothing it follows
moves (waits, fades of other things, the beats' fillers); its general
``put_start_and_end_on`` rotates and rescales a whole line to move it; and
every Transform or FadeIn deep-copies its mobjects, glyphs with the SVG path
they were parsed from.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from manim import Arrow, Line, Mobject, Scene, ValueTracker, VGroup, smooth


class Unchanged:
    """``unchanged(*values)`` is True when ``values`` (numbers or arrays)
    equal those of its last call, so an updater can return early; the first
    call is always False."""

    def __init__(self) -> None:
        self.last: np.ndarray | None = None

    def __call__(self, *values: object) -> bool:
        key = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in values])
        if self.last is not None and self.last.shape == key.shape and np.array_equal(self.last, key):
            return True
        self.last = key
        return False


def put_segment(line: Line, start: np.ndarray, end: np.ndarray) -> Line:
    """Make the straight ``line`` run from ``start`` to ``end`` (3-D points):
    its one cubic curve written directly, as ``Line`` builds it."""
    a = np.asarray(start, dtype=float)
    b = np.asarray(end, dtype=float)
    line.points = np.array([a, a + (b - a) / 3, a + 2 * (b - a) / 3, b])
    return line


def forget_svg_sources(*mobjects: Mobject) -> None:
    """Drop the parsed SVG path (``path_obj``) each glyph of a Tex, MathTex
    or Text keeps once its points are made: manim reads it only then, but
    every copy deep-copies it again (seven times the cost of copying the
    glyph's points and colours)."""
    for mob in mobjects:
        for m in mob.get_family():
            m.__dict__.pop("path_obj", None)


def aim_arrow(arrow: Arrow, start: np.ndarray, end: np.ndarray) -> Arrow:
    """Make ``arrow`` (an ``Arrow`` with buff 0 and its one tip, drawn in the
    xy plane) run from ``start`` to ``end`` exactly as ``Arrow(start, end)``
    with its settings would: the tip ``min(tip_length, ratio * length)`` long,
    the shaft ending at the tip's base, the stroke thinned on short arrows.
    Building a new Arrow each frame costs milliseconds, most of it the tip."""
    a = np.asarray(start, dtype=float)
    b = np.asarray(end, dtype=float)
    length = float(np.linalg.norm(b - a))
    if length == 0:
        return arrow
    u = (b - a) / length
    tip = arrow.tip
    old_point, old_vector = tip.tip_point.copy(), tip.vector
    old_length = float(np.linalg.norm(old_vector))
    new_length = min(arrow.tip_length, arrow.max_tip_length_to_length_ratio * length)
    turn = np.arctan2(u[1], u[0]) - np.arctan2(old_vector[1], old_vector[0])
    c, s = np.cos(turn), np.sin(turn)
    rotate = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    tip.points = b + (tip.points - old_point) @ rotate.T * (new_length / old_length)
    put_segment(arrow, a, b - new_length * u)
    arrow.set_stroke(width=min(arrow.initial_stroke_width, arrow.max_stroke_width_to_length_ratio * length),
                     family=False)
    return arrow


class LiveMap:
    """A picture driven by one number: ``show(state)`` draws the state a
    path gives at time t in [0, 1], and ``play`` runs a path by moving one
    ``ValueTracker``.  The drawing happens in an updater on ``driver``, an
    empty mobject at z index ``z``: manim redraws each frame only what lies
    at or above the first mobject with an updater (the rest is a cached
    still), so ``z`` says which layers move with the map.  ``attach(False)``
    draws only in the map's own moves: every other play then redraws just
    what it animates (a caption's fade no longer redraws the whole map).
    ``redrawn``: the mobjects the last move redrew each frame.

    >>> live = LiveMap(lambda M: plane.set_matrix(M), start=np.eye(2))
    >>> scene.add(live.driver); live.attach()
    >>> live.play(scene, lambda t: qm.lerp_matrix(I, M, t), seconds=3)
    """

    def __init__(self, show: Callable[[Any], None], start: Any = None, z: float = -5):
        self.show = show
        self.tracker = ValueTracker(0.0)
        self.path: Callable[[float], Any] = lambda t: start
        self.driver = VGroup().set_z_index(z)
        self.in_moves_only = False
        self.redrawn: set[Mobject] = set()

    def follow(self, _: Mobject | None = None) -> None:
        """Draw the state at the tracker's time (clamped to [0, 1])."""
        self.show(self.path(min(1.0, max(0.0, self.tracker.get_value()))))

    def attach(self, every_play: bool = True) -> None:
        """From now on, draw every frame of every play, or (``every_play``
        False) every frame of this map's own moves (``play``): for a map whose
        state changes only there."""
        self.in_moves_only = not every_play
        if every_play:
            self.driver.add_updater(self.follow)

    def play(self, scene: Scene, path: Callable[[float], Any], seconds: float = 3.0, start: float = 0.0,
             end: float = 1.0, rate: Callable[[float], float] = smooth, *also: Any) -> None:
        """Play ``path`` from time ``start`` to ``end`` (end < start plays it
        back) in ``seconds``, with the animations ``also`` alongside."""
        self.path = path
        self.tracker.set_value(start)
        with self.moving(scene):
            scene.play(self.tracker.animate.set_value(end), *also, run_time=seconds, rate_func=rate)

    @contextmanager
    def moving(self, scene: Scene) -> Iterator[None]:
        """A move of the map: the plays inside draw it every frame (also
        when attached for its moves only), and ``redrawn`` is what they
        redrew.  ``play`` is one; a scene that moves ``tracker`` itself
        plays inside one."""
        if self.in_moves_only:
            self.driver.add_updater(self.follow)
        try:
            yield
        finally:
            if self.in_moves_only:
                self.driver.remove_updater(self.follow)
        self.redrawn = set(scene.moving_mobjects)
