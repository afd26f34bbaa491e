"""Colours as RGB rows, drawn: swatches and the RGB colour cube.

A colour is a row vector [r, g, b] of shape (3,), each channel in [0, 1]; a
colour filter is a (3, 3) matrix M applied to the row, ``rgb @ M``.  Values a
filter pushes outside [0, 1] are clipped for display only.

``rgb_colour`` the ManimColor of a row; ``swatch`` a square of it;
``cube_view`` a fixed parallel projection of 3-D (the camera drops z);
``ColourCube`` the unit cube (``CORNERS``, ``EDGES``) with colours as dots
inside, each point drawn at ``origin + size * rgb @ view``, and
``ColourCube.show(M)`` moves every point to ``rgb @ M`` in that colour.

    import numpy as np
    from manim import Scene, UpdateFromAlphaFunc
    from scenes.kit.colour import ColourCube, cube_view

    class Grey(Scene):
        def construct(self):
            colours = np.random.default_rng(0).random((30, 3))
            cube = ColourCube(colours, origin=np.array([-1.5, -2.0, 0.0]), size=3.0, view=cube_view(-70, -30))
            self.add(cube)
            G = np.full((3, 3), 1 / 3)     # every channel becomes the mean: the cube falls onto its diagonal
            self.play(UpdateFromAlphaFunc(cube, lambda m, t: m.show((1 - t) * np.eye(3) + t * G)), run_time=3)
"""
from __future__ import annotations

import itertools

import numpy as np
from manim import ORIGIN, RIGHT, Dot, Line, ManimColor, Square, VGroup

from . import palette

CORNERS = np.array(list(itertools.product((0.0, 1.0), repeat=3)))   # the 8 corners of [0, 1]^3
EDGES = [(i, j) for i, j in itertools.combinations(range(8), 2)
         if np.abs(CORNERS[i] - CORNERS[j]).sum() == 1]                # the 12 edges, as pairs of corners


def rgb_colour(rgb: np.ndarray) -> ManimColor:
    """The colour of an RGB row, clipped to [0, 1] for display."""
    return ManimColor(np.clip(np.asarray(rgb, dtype=float), 0.0, 1.0))


def swatch(rgb: np.ndarray, side: float = 0.7) -> Square:
    """A square ``side`` wide filled with the colour ``rgb`` (clipped to [0, 1] for display)."""
    return Square(side, fill_color=rgb_colour(rgb), fill_opacity=1.0,
                  stroke_color=palette.INK, stroke_width=2)


def cube_view(phi_deg: float, theta_deg: float) -> np.ndarray:
    """(3, 3) rotation whose rows are the 3-D images of the r, g and b axes:
    turned by ``theta`` about b, then tilted by ``phi`` about the screen's x."""
    t, p = np.radians(theta_deg), np.radians(phi_deg)
    rz = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, np.cos(p), -np.sin(p)], [0, np.sin(p), np.cos(p)]])
    return (rx @ rz).T


class ColourCube(VGroup):
    """The RGB unit cube under a (3, 3) matrix: its 8 corners (dots in their
    colours), 12 edges, and ``colours`` (k, 3) as small dots inside, drawn at
    ``point(rgb)``.  ``show(M)`` puts every point at ``rgb @ M`` and gives it
    that colour; it starts at the identity."""

    def __init__(self, colours: np.ndarray, origin: np.ndarray = ORIGIN, size: float = 1.0,
                 view: np.ndarray | None = None):
        self.colours = np.asarray(colours, dtype=float)
        self.origin = np.asarray(origin, dtype=float)
        self.size = size
        self.view = cube_view(-70, -30) if view is None else np.asarray(view, dtype=float)
        self.edges = VGroup(*[Line(ORIGIN, RIGHT, color=palette.INK, stroke_width=3) for _ in EDGES])
        self.inner = VGroup(*[Dot(radius=0.075) for _ in self.colours])
        self.corners = VGroup(*[Dot(radius=0.11, stroke_color=palette.INK, stroke_width=2)
                                for _ in CORNERS])
        super().__init__(self.edges, self.inner, self.corners)
        self.show(np.eye(3))

    def point(self, rgb: np.ndarray) -> np.ndarray:
        """Scene position(s) of RGB colour(s) in the drawn cube (rows in, rows out)."""
        return self.origin + self.size * (np.asarray(rgb, dtype=float) @ self.view)

    def show(self, M: np.ndarray) -> ColourCube:
        ends = self.point(CORNERS @ M)
        for (i, j), edge in zip(EDGES, self.edges):
            edge.set_points_as_corners([ends[i], ends[j]])
        for dot, rgb in zip(self.corners, CORNERS):
            dot.move_to(self.point(rgb @ M)).set_fill(rgb_colour(rgb @ M), opacity=1.0)
        for dot, rgb in zip(self.inner, self.colours):
            dot.move_to(self.point(rgb @ M)).set_fill(rgb_colour(rgb @ M), opacity=1.0)
        return self
