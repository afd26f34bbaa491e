"""Linear maps of the plane, their animation paths and their SVD stages.

Row-vector convention: ``y = x @ M``.  A 2x2 ``M`` sends the basis vector
i = [1, 0] to ``M[0]`` and j = [0, 1] to ``M[1]``.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]

Path = Callable[[float], Array]
"""An animation path: t in [0, 1] -> the (2, 2) matrix at time t; path(0) = I."""


def apply(x: ArrayLike, W: ArrayLike) -> Array:
    """Map row vector(s) ``x`` through ``W``: ``x @ W``.

    x: shape (n,) for one vector or (k, n) for a stack of k row vectors.
    W: shape (n, m).  Returns shape (m,) or (k, m).
    Raises ValueError when the shapes do not fit.
    """
    x = np.asarray(x, dtype=float)
    W = np.asarray(W, dtype=float)
    if W.ndim != 2:
        raise ValueError(f"W must be a 2-D matrix, got shape {W.shape}")
    if x.ndim not in (1, 2):
        raise ValueError(f"x must be one row vector (n,) or a stack (k, n), got shape {x.shape}")
    if x.shape[-1] != W.shape[0]:
        raise ValueError(
            f"x has {x.shape[-1]} entries per vector but W has {W.shape[0]} rows; "
            f"with row vectors y = x @ W they must be equal"
        )
    return x @ W


def rotation(theta: float) -> Array:
    """(2, 2) counter-clockwise rotation by ``theta`` radians, row convention:
    ``[1, 0] @ rotation(theta) == [cos theta, sin theta]``."""
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, s], [-s, c]])


def rotation_angle(R: ArrayLike) -> float:
    """Angle in (-pi, pi] of a (2, 2) rotation matrix in row convention."""
    R = np.asarray(R, dtype=float)
    return float(np.arctan2(R[0, 1], R[0, 0]))


def stretch(sx: float, sy: float) -> Array:
    """(2, 2) axis stretch: x by ``sx``, y by ``sy`` (negative = reflection)."""
    return np.diag([float(sx), float(sy)])


def shear(k: float) -> Array:
    """(2, 2) horizontal shear: ``[x, y] @ shear(k) == [x + k*y, y]``."""
    return np.array([[1.0, 0.0], [float(k), 1.0]])


def flatten_onto(direction: ArrayLike) -> Array:
    """(2, 2) rank-1 orthogonal projection onto the line through 0 along
    ``direction`` (shape (2,), non-zero).  Symmetric, so the row and column
    conventions agree."""
    u = np.asarray(direction, dtype=float)
    if u.shape != (2,):
        raise ValueError(f"direction must have shape (2,), got {u.shape}")
    n2 = float(u @ u)
    if not np.isfinite(n2) or n2 == 0.0:
        raise ValueError("direction must be a finite, non-zero vector")
    return np.outer(u, u) / n2


def determinant(M: ArrayLike) -> float:
    """Determinant of a square matrix: the signed factor by which areas scale."""
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"determinant needs a square matrix, got shape {M.shape}")
    return float(np.linalg.det(M))


def rank(M: ArrayLike, tol: float = 1e-10) -> int:
    """Numerical rank of a matrix of any shape (singular values above ``tol``
    times the largest)."""
    M = np.asarray(M, dtype=float)
    if M.size == 0:
        return 0
    s = np.linalg.svd(np.atleast_2d(M), compute_uv=False)
    if s[0] == 0.0:
        return 0
    return int(np.sum(s > tol * s[0]))


# --- animation paths: each returns t -> (2, 2) matrix with path(0) == I -------

def _check_t(t: float) -> float:
    t = float(t)
    if not 0.0 <= t <= 1.0:
        raise ValueError(f"path time t must lie in [0, 1], got {t}")
    return t


def rotation_path(theta: float) -> Path:
    """Rotation by ``t * theta``: every frame is a true rotation."""
    return lambda t: rotation(_check_t(t) * theta)


def stretch_path(sx: float, sy: float) -> Path:
    """Stretch whose factors move linearly from 1 to (sx, sy); always diagonal."""
    return lambda t: stretch(1 + _check_t(t) * (sx - 1), 1 + t * (sy - 1))


def shear_path(k: float) -> Path:
    """Shear by ``t * k``: every frame is a true shear."""
    return lambda t: shear(_check_t(t) * k)


def linear_path(M: ArrayLike) -> Path:
    """Straight line from I to a general (2, 2) ``M``: (1 - t) I + t M."""
    M = np.asarray(M, dtype=float)
    if M.shape != (2, 2):
        raise ValueError(f"linear_path needs a (2, 2) matrix, got shape {M.shape}")
    return lambda t: (1 - _check_t(t)) * np.eye(2) + t * M


def svd_stages(M: ArrayLike) -> tuple[Array, Array, Array]:
    """Split a (2, 2) ``M`` as ``A @ B @ C`` (row convention: x is rotated by A,
    stretched by B, rotated by C).

    A and C are proper rotations (orthogonal, det +1); B is diagonal with a
    non-negative first entry, and a reflection appears as a negative second
    entry.  Exact to rounding for singular, reflecting and zero ``M``.
    """
    M = np.asarray(M, dtype=float)
    if M.shape != (2, 2):
        raise ValueError(f"svd_stages needs a (2, 2) matrix, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ValueError("svd_stages needs finite entries")
    U, s, Vt = np.linalg.svd(M)
    flip = np.diag([1.0, -1.0])
    B = np.diag(s)
    if np.linalg.det(U) < 0:
        U = U @ flip
        B = flip @ B
    if np.linalg.det(Vt) < 0:
        Vt = flip @ Vt
        B = B @ flip
    # Snap A and C to exact rotation matrices of their angles.
    A = rotation(rotation_angle(U))
    C = rotation(rotation_angle(Vt))
    return A, B, C


def svd_path(M: ArrayLike) -> list[Path]:
    """Three cumulative stage paths for ``M = A @ B @ C``: stage k at time t
    gives the whole matrix so far, so stage 1 ends at A, stage 2 at A @ B and
    stage 3 at A @ B @ C == M.  Rotations follow true rotation paths and the
    stretch moves its (signed) factors linearly."""
    A, B, C = svd_stages(M)
    rot_a = rotation_path(rotation_angle(A))
    stretch_b = stretch_path(B[0, 0], B[1, 1])
    rot_c = rotation_path(rotation_angle(C))
    return [
        rot_a,
        lambda t: A @ stretch_b(t),
        lambda t: A @ B @ rot_c(t),
    ]


def collisions(X: ArrayLike, M: ArrayLike, tol: float = 1e-9) -> list[tuple[int, ...]]:
    """Groups of rows of ``X`` (shape (k, n)) that ``M`` (shape (n, m)) sends
    to the same point (within ``tol``): the inputs a singular map cannot tell
    apart.  Each group lists row indices in increasing order; only groups of
    two or more are returned."""
    Y = apply(np.atleast_2d(X), M)
    groups: list[list[int]] = []
    for i, y in enumerate(Y):
        for g in groups:
            if np.linalg.norm(Y[g[0]] - y) <= tol * max(1.0, float(np.linalg.norm(y))):
                g.append(i)
                break
        else:
            groups.append([i])
    return [tuple(g) for g in groups if len(g) > 1]
