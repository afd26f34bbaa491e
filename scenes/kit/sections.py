"""The lesson sections several scenes read: ``[attention]`` (QKVProjection,
AttentionMatching) and ``[training]`` (RolesEmerge, RoleSwap), declared key
by key (``qkv_lens.lesson.keys``).  A section one scene reads is declared
in that scene's module.

Vectors are row vectors: ``q = x W_Q``, so W_Q has one row per trait and
one column per query dimension."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from qkv_lens.lesson.keys import (
    MAX_DIMS,
    MAX_JOBS,
    MAX_PEOPLE,
    MAX_TOKENS,
    MAX_TRAITS,
    MIN_PEOPLE,
    Flag,
    Index,
    Integer,
    Matrix,
    Named,
    Names,
    Number,
    Params,
)


class AttentionParams(Params):
    """The sentence as embeddings X (n_tokens x n_traits, row vectors) and
    W_Q, W_K (n_traits x d_k), W_V (n_traits x d_v)."""
    section = "attention"
    tokens: tuple[Named, ...] = Names(MAX_TOKENS, doc="the sentence, one name per token")
    traits: tuple[Named, ...] = Names(MAX_TRAITS, doc="the named traits each embedding is made of")
    embeddings: tuple[tuple[Fraction, ...], ...] = Matrix(
        "weight", rows="tokens", cols="traits", why="one row per token in {rows} ({nrows}), one column per "
        "trait in {cols} ({ncols})", doc="one embedding row per token, one column per trait")
    qk_dims: tuple[Named, ...] = Names(MAX_DIMS, doc="the columns of W_Q and W_K: what a query asks, a key shows")
    v_dims: tuple[Named, ...] = Names(MAX_DIMS, doc="the columns of W_V: what a value hands over")
    W_Q: tuple[tuple[Fraction, ...], ...] = Matrix(
        "weight", rows="traits", cols="qk_dims", why="one row per trait in {rows} ({nrows}), one column per "
        "entry of {cols} ({ncols})", doc="Q = X W_Q")
    W_K: tuple[tuple[Fraction, ...], ...] = Matrix(
        "weight", rows="traits", cols="qk_dims", why="one row per trait in {rows} ({nrows}), one column per "
        "entry of {cols} ({ncols})", doc="K = X W_K")
    W_V: tuple[tuple[Fraction, ...], ...] = Matrix(
        "weight", rows="traits", cols="v_dims", why="one row per trait in {rows} ({nrows}), one column per "
        "entry of {cols} ({ncols})", doc="V = X W_V")
    focus: int = Index("tokens", doc="the token QKVProjection takes apart (from 0)")
    query: int = Index("tokens", doc="the query row AttentionMatching follows (from 0)")
    causal_mask: bool = Flag(doc="true: a token may only look at itself and earlier tokens")
    temperature: Fraction = Number("temperature", doc="softmax temperature: below 1 sharpens, above 1 softens")

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """X (n_tokens, n_traits), W_Q, W_K, W_V as float arrays."""
        return tuple(np.array(m, dtype=float) for m in (self.embeddings, self.W_Q, self.W_K, self.W_V))  # type: ignore[return-value]


class TrainingParams(Params):
    """The matchmaking task and its training: ``jobs`` names the professions,
    ``people`` the guests per party; the rest are the arguments of
    ``qkv_math.train_matching``."""
    section = "training"
    jobs: tuple[Named, ...] = Names(MAX_JOBS, doc="the professions (more of them than people)")
    people: int = Integer(MIN_PEOPLE, MAX_PEOPLE, why=" (with 2 guests each has one candidate, so there is "
                          "nothing to match)", doc="guests per party")
    seed: int = Integer(0, 2**31 - 1, doc="the random start")
    steps: int = Integer(10, 20000, doc="training steps")
    learning_rate: Fraction = Number("learning_rate", doc="Adam's learning rate")
    batch: int = Integer(1, 512, doc="parties per step")
    heldout: int = Integer(8, 4096, doc="held-out parties the accuracy is measured on")
    snapshots: int = Integer(4, 24, doc="log-spaced snapshots the scenes play")
