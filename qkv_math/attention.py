"""Scaled dot-product attention, step by step, in the row-vector convention.

X has one row per token, shape (n, d_model); ``Q = X @ W_Q`` and so on.
``attention_steps`` computes every intermediate the scenes show; ``attention``
returns its last two, so the steps and the result cannot disagree.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]


def softmax(scores: ArrayLike, axis: int = -1, temperature: float = 1.0) -> Array:
    """exp(s / T) normalised along ``axis``; any shape.

    Stable for large scores (the row maximum is subtracted first); ``-inf``
    entries get weight 0.  A slice that is all ``-inf`` has nothing to
    attend to and raises ValueError, as do NaN scores and T <= 0.
    """
    s = np.asarray(scores, dtype=float)
    if not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be a finite number > 0, got {temperature}")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    if np.isposinf(s).any():
        raise ValueError("scores contain +inf")
    top = np.max(s, axis=axis, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError("a row of scores is all -inf (fully masked): nothing to attend to")
    e = np.exp((s - top) / temperature)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n: int) -> Array:
    """(n, n) additive mask: 0 on and below the diagonal, -inf above it
    (token i may look at tokens 0..i only)."""
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    return np.triu(np.full((int(n), int(n)), -np.inf), k=1)


def project(X: ArrayLike, W_Q: ArrayLike, W_K: ArrayLike, W_V: ArrayLike) -> tuple[Array, Array, Array]:
    """Q, K, V = X @ W_Q, X @ W_K, X @ W_V.

    X: (n, d_model); W_Q, W_K: (d_model, d_k); W_V: (d_model, d_v)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    out: list[Array] = []
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        W = np.asarray(W, dtype=float)
        if W.ndim != 2 or W.shape[0] != X.shape[1]:
            raise ValueError(f"{name} must have shape ({X.shape[1]}, d) to match X's {X.shape[1]} "
                             f"columns, got {W.shape}")
        out.append(X @ W)
    if out[0].shape[1] != out[1].shape[1]:
        raise ValueError(f"W_Q and W_K must have the same number of columns (d_k), "
                         f"got {out[0].shape[1]} and {out[1].shape[1]}")
    return out[0], out[1], out[2]


@dataclass(frozen=True)
class AttentionSteps:
    """Every piece of softmax(Q K^T * scale + mask) V, with shapes:
    scores (n_q, n_k) = Q K^T; scaled = scores * scale; masked = scaled +
    mask; weights (n_q, n_k), rows summing to 1; output (n_q, d_v) =
    weights @ V, so output row i is sum_j weights[i, j] * V[j]."""
    scores: Array
    scale: float
    scaled: Array
    masked: Array
    weights: Array
    output: Array


def attention_steps(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None,
                    scale: float | None = None,
                    temperature: float = 1.0) -> AttentionSteps:
    """Compute attention one step at a time (see AttentionSteps).

    Q: (n_q, d_k), K: (n_k, d_k), V: (n_k, d_v); mask: None or (n_q, n_k)
    additive (0 or -inf); scale defaults to 1 / sqrt(d_k)."""
    Q, K, V = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (Q, K, V))
    if Q.ndim != 2 or K.ndim != 2 or V.ndim != 2:
        raise ValueError("Q, K and V must be 2-D (tokens x features)")
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"Q and K need the same width d_k, got {Q.shape[1]} and {K.shape[1]}")
    if K.shape[0] != V.shape[0]:
        raise ValueError(f"K and V need one row per token each, got {K.shape[0]} and {V.shape[0]} rows")
    scale = 1.0 / np.sqrt(Q.shape[1]) if scale is None else float(scale)
    scores = Q @ K.T
    scaled = scores * scale
    if mask is None:
        masked = scaled
    else:
        mask = np.asarray(mask, dtype=float)
        if mask.shape != scaled.shape:
            raise ValueError(f"mask must have shape {scaled.shape}, got {mask.shape}")
        masked = scaled + mask
    weights = softmax(masked, axis=-1, temperature=temperature)
    return AttentionSteps(scores, scale, scaled, masked, weights, weights @ V)


def attention(Q: ArrayLike, K: ArrayLike, V: ArrayLike, mask: ArrayLike | None = None,
              scale: float | None = None, temperature: float = 1.0) -> tuple[Array, Array]:
    """(output, weights) of softmax(Q K^T * scale + mask) V; shapes as in
    ``attention_steps``."""
    steps = attention_steps(Q, K, V, mask, scale, temperature)
    return steps.output, steps.weights
