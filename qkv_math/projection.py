"""Shadows: projections of 3-D points onto a wall (row vectors, x @ P).

Parallel light along d casts x onto the wall plane n . x = 0 as x @ P with
P = I - outer(n, d) / (n . d)   (row convention: x @ outer(n, d) = (x . n) d).
A point lamp gives a perspective projection, linear only in homogeneous
coordinates: [x, 1] @ H is proportional to [shadow, 1].
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]


def _vec3(v: ArrayLike, name: str) -> Array:
    v = np.asarray(v, dtype=float)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be a finite 3-vector, got {v!r}")
    if not np.any(v):
        raise ValueError(f"{name} must not be the zero vector")
    return v


def shadow_matrix(light_dir: ArrayLike, wall_normal: ArrayLike) -> Array:
    """(3, 3) P casting x along the light direction d onto the wall n . x = 0:
    x @ P lies on the wall, x - x @ P is parallel to d, P @ P == P, rank 2.
    Raises ValueError for a zero vector or light parallel to the wall."""
    d = _vec3(light_dir, "light_dir")
    n = _vec3(wall_normal, "wall_normal")
    nd = float(n @ d)
    if abs(nd) <= 1e-12 * np.linalg.norm(n) * np.linalg.norm(d):
        raise ValueError("the light runs parallel to the wall (n . d == 0): it casts no shadow on it")
    return np.eye(3) - np.outer(n, d) / nd


def wall_basis(wall_normal: ArrayLike) -> Array:
    """(3, 2) matrix B of two orthonormal axes on the wall n . x = 0: the
    first horizontal, the second as close to 'up' (z) as the wall allows.
    A shadow s (shape (3,)) has wall coordinates s @ B (shape (2,))."""
    n = _vec3(wall_normal, "wall_normal")
    n = n / np.linalg.norm(n)
    up = np.array([0.0, 0.0, 1.0])
    if abs(n @ up) > 1 - 1e-9:  # a horizontal wall (floor): use x as 'up'
        up = np.array([1.0, 0.0, 0.0])
    v = up - (up @ n) * n
    v /= np.linalg.norm(v)
    u = np.cross(v, n)
    return np.column_stack([u, v])


def lamp_matrix(lamp: ArrayLike, wall_normal: ArrayLike, offset: float = 0.0) -> Array:
    """(4, 4) homogeneous H for a point lamp at L and the wall n . x = offset:
    [x, 1] @ H = w [s, 1] with s the shadow of x.  (Row convention:
    H = (p . L_h) I - outer(p, L_h), with p = [n, -offset], L_h = [L, 1].)"""
    L = np.asarray(lamp, dtype=float)
    if L.shape != (3,) or not np.all(np.isfinite(L)):
        raise ValueError(f"lamp must be a finite 3-vector, got {lamp!r}")
    n = _vec3(wall_normal, "wall_normal")
    p = np.append(n, -float(offset))
    Lh = np.append(L, 1.0)
    if abs(p @ Lh) < 1e-12:
        raise ValueError("the lamp is on the wall: it casts no shadows")
    return (p @ Lh) * np.eye(4) - np.outer(p, Lh)


def lamp_shadows(lamp: ArrayLike, wall_normal: ArrayLike, offset: float, X: ArrayLike) -> Array:
    """Shadows (k, 3) of the points X (k, 3) from a point lamp on the wall
    n . x = offset, through the homogeneous matrix.  A point as far from the
    wall as the lamp (its ray never meets the wall) or behind the lamp, or
    beyond the wall, is refused with ValueError naming it."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    H = lamp_matrix(lamp, wall_normal, offset)
    n = np.asarray(wall_normal, dtype=float)
    L = np.asarray(lamp, dtype=float)
    lamp_side = float(n @ L - offset)
    out: list[Array] = []
    for i, x in enumerate(X):
        point_side = float(n @ x - offset)
        if abs(point_side - lamp_side) <= 1e-12 * max(1.0, abs(lamp_side)):
            raise ValueError(f"point {i} {x.tolist()} is as far from the wall as the lamp: "
                             "its light ray runs parallel to the wall")
        if lamp_side * point_side < 0:
            raise ValueError(f"point {i} {x.tolist()} is on the far side of the wall")
        if abs(point_side) > abs(lamp_side):
            raise ValueError(f"point {i} {x.tolist()} is behind the lamp: the lamp lights it from the front")
        h = np.append(x, 1.0) @ H
        out.append(h[:3] / h[3])
    return np.array(out)


def cube_vertices(center: ArrayLike, size: float) -> Array:
    """(8, 3) corners of an axis-aligned cube; corner i has sign bits (x, y, z) of i."""
    c = np.asarray(center, dtype=float)
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    return c + 0.5 * float(size) * signs


CUBE_EDGES = tuple((i, j) for i in range(8) for j in range(i + 1, 8) if bin(i ^ j).count("1") == 1)


def _turn(a: tuple[Fraction, Fraction], b: tuple[Fraction, Fraction], c: tuple[Fraction, Fraction]) -> Fraction:
    """Twice the signed area of the triangle a, b, c, exactly: > 0 for a left turn."""
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def convex_hull_2d(points: ArrayLike) -> NDArray[np.int_]:
    """Indices (h,) of the convex hull of the (k, 2) points, counter-clockwise
    from the leftmost (the lowest of those), each vertex a strict turn (points on an edge
    and repeats left out).  Exact: every turn is decided in rational
    arithmetic on the floats as given, so ties and near-ties (points one ulp
    apart) never drop a corner.  Fewer than three distinct points, or all on
    one line: the one point, or the two ends (Andrew's monotone chain)."""
    pts = np.asarray(points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] != 2 or not np.all(np.isfinite(pts)):
        raise ValueError(f"points must be finite (k, 2), got shape {pts.shape}")
    exact = [(Fraction(float(x)), Fraction(float(y))) for x, y in pts]
    first: dict[tuple[Fraction, Fraction], int] = {}
    for i, p in enumerate(exact):
        first.setdefault(p, i)                      # a repeated point once, by its first index
    order = sorted(first.values(), key=lambda i: exact[i])
    if len(order) < 3:
        return np.array(order, dtype=int)

    def chain(indices: list[int]) -> list[int]:
        out: list[int] = []
        for i in indices:
            while len(out) >= 2 and _turn(exact[out[-2]], exact[out[-1]], exact[i]) <= 0:
                out.pop()
            out.append(i)
        return out

    lower, upper = chain(order), chain(order[::-1])
    return np.array(lower[:-1] + upper[:-1], dtype=int)
