"""A toy matchmaking task trained for real: Q/K/V roles emerge from position.

Each party has ``n_people`` people with distinct professions drawn from
``n_jobs`` (more professions than people, so a party's professions never
add up to a constant the layer could exploit).  Person i has a profile (what
they are) and a wish (the profession of another person at the party).  Their input row is
``x_i = [onehot(profile_i), onehot(wish_i)]`` (shape (2 * n_jobs,)).  The
right match of i is the one person j with profile_j == wish_i, and what i
should retrieve is onehot(profile_j).

One attention layer with W_Q, W_K, W_V (each (2 * n_jobs, n_jobs)), row
vectors, is trained from a seeded random start by Adam on the mean squared
error of its output, with analytic gradients:
  "standard": out = softmax(Q K^T / sqrt(d)) V
  "swapped":  out = softmax(V K^T / sqrt(d)) Q
Nobody can pick themself (the diagonal is masked with -inf before the
softmax): a person's own wish equals the answer, and without the mask the
layer could copy it instead of finding the match.  Matching accuracy is the
share of people whose largest attention weight is on their right match,
always measured on held-out parties never trained on.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from .attention import softmax

Array = NDArray[np.float64]
IntArray = NDArray[np.int_]
Weights = dict[str, Array]
"""The trainable matrices by name: "W_Q", "W_K", "W_V", each (2 * n_jobs, n_jobs)."""

FORMULAS = ("standard", "swapped")
# A run has learned the matching when at least this share of held-out people
# is matched; below it the scenes say the roles did not (yet) form.
LEARNED_ACCURACY = 0.95


def make_parties(n_parties: int, n_people: int, n_jobs: int,
                 rng: np.random.Generator) -> tuple[Array, Array, IntArray]:
    """(X, T, match): X (P, n_people, 2 n_jobs) inputs, T (P, n_people, n_jobs)
    targets (the match's profile), match (P, n_people) index of each
    person's right match."""
    X = np.zeros((n_parties, n_people, 2 * n_jobs))
    T = np.zeros((n_parties, n_people, n_jobs))
    match = np.zeros((n_parties, n_people), dtype=int)
    eye = np.eye(n_jobs)
    for p in range(n_parties):
        profile = rng.choice(n_jobs, size=n_people, replace=False)
        others = np.array([rng.choice([j for j in range(n_people) if j != i]) for i in range(n_people)])
        wish = profile[others]
        X[p, :, :n_jobs] = eye[profile]
        X[p, :, n_jobs:] = eye[wish]
        match[p] = others
        T[p] = eye[wish]  # the match's profile
    return X, T, match


def _no_self(n: int) -> Array:
    """(n, n) additive mask: -inf on the diagonal (no one matches themself)."""
    return np.where(np.eye(n, dtype=bool), -np.inf, 0.0)


def _roles(W: Weights, formula: str) -> tuple[Array, Array, Array]:
    """(asking, labelling, content) matrices for the formula."""
    if formula == "standard":
        return W["W_Q"], W["W_K"], W["W_V"]
    return W["W_V"], W["W_K"], W["W_Q"]


def forward(W: Weights, X: Array, formula: str = "standard") -> tuple[Array, Array]:
    """Attention weights A (P, n, n) and output O (P, n, n_jobs) for parties X."""
    Wa, Wl, Wc = _roles(W, formula)
    d = Wa.shape[1]
    S = (X @ Wa) @ np.swapaxes(X @ Wl, 1, 2) / np.sqrt(d) + _no_self(X.shape[1])
    A = softmax(S, axis=-1)
    return A, A @ (X @ Wc)


def loss_and_grads(W: Weights, X: Array, T: Array,
                   formula: str = "standard") -> tuple[float, Weights]:
    """Mean over people of ||out - target||^2, and its exact gradient for
    each of W_Q, W_K, W_V (same shapes)."""
    if formula not in FORMULAS:
        raise ValueError(f"formula must be one of {FORMULAS}, got {formula!r}")
    Wa, Wl, Wc = _roles(W, formula)
    d = Wa.shape[1]
    s = 1.0 / np.sqrt(d)
    Qa, Kl, Vc = X @ Wa, X @ Wl, X @ Wc
    A = softmax(Qa @ np.swapaxes(Kl, 1, 2) * s + _no_self(X.shape[1]), axis=-1)
    O = A @ Vc
    n_people = X.shape[0] * X.shape[1]
    diff = O - T
    loss = float(np.sum(diff ** 2) / n_people)
    dO = 2 * diff / n_people
    dA = dO @ np.swapaxes(Vc, 1, 2)
    dVc = np.swapaxes(A, 1, 2) @ dO
    dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True))
    dQa = s * dS @ Kl
    dKl = s * np.swapaxes(dS, 1, 2) @ Qa
    Xt = np.swapaxes(X, 1, 2)
    ga, gl, gc = (np.sum(Xt @ g, axis=0) for g in (dQa, dKl, dVc))
    if formula == "standard":
        return loss, {"W_Q": ga, "W_K": gl, "W_V": gc}
    return loss, {"W_V": ga, "W_K": gl, "W_Q": gc}


def accuracy(W: Weights, X: Array, match: IntArray, formula: str) -> float:
    """Share of people whose largest attention weight falls on their match."""
    A, _ = forward(W, X, formula)
    return float(np.mean(np.argmax(A, axis=-1) == match))


def probes(W: Weights, n_jobs: int) -> dict[str, float]:
    """For each matrix, the share of its weight that reads the wish half of
    the input (rows n_jobs..2n_jobs-1) rather than the profile half: near 1
    it encodes what a person seeks, near 0 what a person is."""
    out: dict[str, float] = {}
    for name, M in W.items():
        prof, wish = np.linalg.norm(M[:n_jobs]), np.linalg.norm(M[n_jobs:])
        out[name] = float(wish / (prof + wish)) if prof + wish > 0 else 0.5
    return out


def readouts(W: Weights, X: Array, formula: str = "standard") -> dict[str, Array]:
    """What each person's projections say, in professions (each (n, n_jobs)
    for one party X of shape (n, 2 n_jobs)):
      "asks":  softmax over professions j of q_i . key(j) / sqrt(d), where
               key(j) is the key of a bare profile j (no wish): whom the
               query (the asking matrix's output) looks for;
      "says":  softmax over professions m of query(m) . k_i / sqrt(d), where
               query(m) is the query of a bare wish m: whom the key answers to;
      "brings": v_i, the content row (already in professions).
    With the formula swapped the asking matrix is W_V and the content W_Q."""
    Wa, Wl, Wc = _roles(W, formula)
    n_jobs = Wa.shape[1]
    s = 1.0 / np.sqrt(n_jobs)
    bare_keys = Wl[:n_jobs]          # e_j (profile only) @ W_label
    bare_queries = Wa[n_jobs:]       # e_{n+m} (wish only) @ W_ask
    return {
        "asks": softmax((X @ Wa) @ bare_keys.T * s, axis=-1),
        "says": softmax((X @ Wl) @ bare_queries.T * s, axis=-1),
        "brings": X @ Wc,
    }


def qk_shadow(weights: Sequence[Weights], X: Array,
              formula: str = "standard") -> tuple[Array, Array, Array, float]:
    """One fixed plane for every snapshot's queries and keys: their shadow.

    Row vectors: for snapshot s, Q_s = X W_ask and K_s = X W_label, each
    (n, d) for one party X of shape (n, 2 d) (with the formula swapped the
    asking matrix is W_V).  The plane is spanned by the top two right
    singular vectors of the last snapshot's stacked [Q; K] (2n, d): the plane
    that keeps most of the trained q and k.  Returns (B, q, k, kept):
      B    (d, 2) orthonormal columns, the first the most kept, each signed so
           that its largest entry (by size) is positive;
      q, k (S, n, 2): Q_s B and K_s B, the shadows of every snapshot's rows;
      kept the share of the last snapshot's squared length the shadow keeps
           (||[Q; K] B||^2 / ||[Q; K]||^2, in [0, 1]).
    Lengths and angles inside the plane are true; what the shadow drops is
    the part of each vector off the plane."""
    if not weights:
        raise ValueError("need at least one snapshot's weights")
    Wa, Wl, _ = _roles(weights[-1], formula)
    last = np.vstack([X @ Wa, X @ Wl])
    _, _, Vt = np.linalg.svd(last, full_matrices=False)
    B = Vt[:2].T.copy()
    for c in range(2):
        if B[np.argmax(np.abs(B[:, c])), c] < 0:
            B[:, c] = -B[:, c]
    q = np.stack([X @ _roles(W, formula)[0] @ B for W in weights])
    k = np.stack([X @ _roles(W, formula)[1] @ B for W in weights])
    total = float(np.sum(last ** 2))
    kept = float(np.sum((last @ B) ** 2) / total) if total > 0 else 0.0
    return B, q, k, kept


@dataclass(frozen=True)
class Snapshot:
    step: int
    weights: Weights
    attention: Array        # (n, n) on the display party (held out)
    loss: float             # training loss at this step
    accuracy: float         # held-out matching accuracy
    probes: dict[str, float]


@dataclass
class Run:
    formula: str
    losses: Array                       # one per step
    snapshots: list[Snapshot] = field(default_factory=list)
    heldout_accuracy: float = 0.0
    display_party: tuple = ()           # (X, match) of the party the scenes show

    @property
    def learned(self) -> bool:
        """The verdict: held-out accuracy at least ``LEARNED_ACCURACY``."""
        return self.heldout_accuracy >= LEARNED_ACCURACY


def initial_weights(n_jobs: int, seed: int, scale: float = 0.3) -> Weights:
    """The seeded random start shared by both formulas."""
    rng = np.random.default_rng(seed)
    return {k: scale * rng.standard_normal((2 * n_jobs, n_jobs)) for k in ("W_Q", "W_K", "W_V")}


def snapshot_steps(steps: int, count: int = 12) -> list[int]:
    """Log-spaced steps from 0 to ``steps`` (distinct, increasing)."""
    marks = np.unique(np.round(np.logspace(0, np.log10(max(steps, 1)), count)).astype(int))
    return sorted({0, steps, *(int(m) for m in marks)})


def train_matching(formula: str = "standard", seed: int = 7, steps: int = 800, n_people: int = 4,
                   n_jobs: int = 8,
                   batch: int = 16, learning_rate: float = 0.05, heldout: int = 64,
                   snapshots: int = 14) -> Run:
    """Train one attention layer on the matchmaking task (see the module
    docstring) with Adam; deterministic for given arguments."""
    if formula not in FORMULAS:
        raise ValueError(f"formula must be one of {FORMULAS}, got {formula!r}")
    if n_people < 2 or n_jobs < n_people or steps < 1 or batch < 1 or heldout < 1 or not learning_rate > 0:
        raise ValueError("need n_people >= 2, n_jobs >= n_people, steps >= 1, batch >= 1, heldout >= 1 "
                         "and learning_rate > 0")
    rng = np.random.default_rng(seed)
    test_rng = np.random.default_rng(seed + 1_000_003)   # held-out parties, never trained on
    Xh, _, mh = make_parties(heldout, n_people, n_jobs, test_rng)
    W = initial_weights(n_jobs, seed)
    m = {k: np.zeros_like(v) for k, v in W.items()}
    v = {k: np.zeros_like(x) for k, x in W.items()}
    b1, b2, eps = 0.9, 0.999, 1e-8
    losses = np.zeros(steps)
    keep = set(snapshot_steps(steps, snapshots))
    run = Run(formula, losses, display_party=(Xh[0], mh[0]))

    def snap(step: int, loss: float) -> None:
        A, _ = forward(W, Xh[:1], formula)
        run.snapshots.append(Snapshot(step, {k: x.copy() for k, x in W.items()}, A[0], loss,
                                      accuracy(W, Xh, mh, formula), probes(W, n_jobs)))

    for step in range(steps):
        X, T, _ = make_parties(batch, n_people, n_jobs, rng)
        loss, g = loss_and_grads(W, X, T, formula)
        losses[step] = loss
        if step in keep:
            snap(step, loss)
        for k in W:
            m[k] = b1 * m[k] + (1 - b1) * g[k]
            v[k] = b2 * v[k] + (1 - b2) * g[k] ** 2
            mh_ = m[k] / (1 - b1 ** (step + 1))
            vh_ = v[k] / (1 - b2 ** (step + 1))
            W[k] = W[k] - learning_rate * mh_ / (np.sqrt(vh_) + eps)
    X, T, _ = make_parties(batch, n_people, n_jobs, rng)
    snap(steps, loss_and_grads(W, X, T, formula)[0])
    run.heldout_accuracy = run.snapshots[-1].accuracy
    return run
