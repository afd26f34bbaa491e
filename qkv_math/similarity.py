"""Dot products as similarity, and why attention divides by sqrt(d_k)."""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .attention import softmax

Array = NDArray[np.float64]


def dot_and_angle(a: ArrayLike, b: ArrayLike) -> tuple[float, float, float, float]:
    """(a . b, |a|, |b|, angle in radians in [0, pi]) of two vectors of shape (d,)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a and b must be vectors of one shape, got {a.shape} and {b.shape}")
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    dot = float(a @ b)
    angle = 0.0 if na == 0 or nb == 0 else float(np.arccos(np.clip(dot / (na * nb), -1, 1)))
    return dot, na, nb, angle


def dot_product_samples(d_k: int, n: int, seed: int) -> Array:
    """n dot products q . k of independent q, k with standard normal entries
    in d_k dimensions (seeded, so the same arguments give the same samples).
    Their spread (standard deviation) grows like sqrt(d_k)."""
    if d_k < 1 or n < 1:
        raise ValueError(f"d_k and n must be >= 1, got {d_k} and {n}")
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, d_k))
    k = rng.standard_normal((n, d_k))
    return np.einsum("ij,ij->i", q, k)


def histogram(samples: ArrayLike, bins: int, limit: float) -> tuple[NDArray[np.intp], Array]:
    """Counts of ``samples`` in ``bins`` equal bins over [-limit, limit]
    (values outside are counted in the end bins).  Returns (counts, edges)."""
    clipped = np.clip(np.asarray(samples, dtype=float), -limit, limit)
    return np.histogram(clipped, bins=bins, range=(-limit, limit))


def saturation(d_k: int, n_tokens: int, seed: int) -> tuple[Array, Array]:
    """Softmax of one row of n_tokens random scores q . k_j in d_k dimensions,
    unscaled and divided by sqrt(d_k): (weights_raw, weights_scaled).  The raw
    row is close to one-hot for large d_k; the scaled one stays soft."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal(d_k)
    K = rng.standard_normal((n_tokens, d_k))
    scores = K @ q
    return softmax(scores), softmax(scores / np.sqrt(d_k))
