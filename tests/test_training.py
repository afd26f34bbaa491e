"""The matchmaking training: exact gradients, determinism, roles that emerge."""
import numpy as np
import pytest

import qkv_math as qm
from qkv_math import training as tr
from tests.helpers import LESSON


@pytest.mark.parametrize("formula", tr.FORMULAS)
def test_gradients_match_finite_differences(formula):
    rng = np.random.default_rng(0)
    X, T, _ = tr.make_parties(3, 4, 6, rng)
    W = tr.initial_weights(6, seed=1, scale=0.5)
    _, grads = tr.loss_and_grads(W, X, T, formula)
    h = 1e-6
    for name in W:
        for idx in [(0, 0), (3, 2), (7, 5), (11, 1)]:
            Wp = {k: v.copy() for k, v in W.items()}
            Wm = {k: v.copy() for k, v in W.items()}
            Wp[name][idx] += h
            Wm[name][idx] -= h
            numeric = (tr.loss_and_grads(Wp, X, T, formula)[0] - tr.loss_and_grads(Wm, X, T, formula)[0]) / (2 * h)
            assert grads[name][idx] == pytest.approx(numeric, rel=1e-5, abs=1e-9), (name, idx)


def test_parties_have_exactly_one_match_each():
    X, T, match = tr.make_parties(20, 4, 8, np.random.default_rng(3))
    for x, t, m in zip(X, T, match):
        profiles, wishes = x[:, :8], x[:, 8:]
        for i in range(4):
            hits = [j for j in range(4) if np.array_equal(profiles[j], wishes[i])]
            assert hits == [m[i]] and m[i] != i
            assert np.array_equal(t[i], profiles[m[i]])


def test_deterministic():
    a = qm.train_matching(steps=60, seed=5)
    b = qm.train_matching(steps=60, seed=5)
    assert np.array_equal(a.losses, b.losses)
    for sa, sb in zip(a.snapshots, b.snapshots):
        assert sa.step == sb.step
        assert all(np.array_equal(sa.weights[k], sb.weights[k]) for k in sa.weights)
        assert np.array_equal(sa.attention, sb.attention)
    assert not np.array_equal(a.losses, qm.train_matching(steps=60, seed=6).losses)


@pytest.fixture(scope="module")
def runs():
    return {f: qm.train_matching(f) for f in tr.FORMULAS}


@pytest.mark.parametrize("formula", tr.FORMULAS)
def test_default_run_learns_to_match_held_out_people(runs, formula):
    run = runs[formula]
    assert len(run.losses) == 800
    assert run.heldout_accuracy >= 0.95
    assert run.losses[-20:].mean() * 10 <= run.losses[:5].mean()
    assert run.snapshots[0].accuracy < 0.6          # noise at the start
    steps = [s.step for s in run.snapshots]
    assert steps == sorted(steps) and steps[0] == 0 and steps[-1] == 800


def test_roles_follow_position_not_name(runs):
    std, swp = runs["standard"].snapshots[-1].probes, runs["swapped"].snapshots[-1].probes
    # standard: W_Q asks (reads the wish), W_K and W_V describe (read the profile)
    assert std["W_Q"] > 0.7 and std["W_K"] < 0.3 and std["W_V"] < 0.3
    # swapped: the matrix named V asks, the one named Q carries the content
    assert swp["W_V"] > 0.7 and swp["W_Q"] < 0.3 and swp["W_K"] < 0.3
    # both start from the same weights
    a, b = runs["standard"].snapshots[0].weights, runs["swapped"].snapshots[0].weights
    assert all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("kw", [{"formula": "sideways"}, {"n_people": 1}, {"n_jobs": 3, "n_people": 4},
                                {"steps": 0}, {"learning_rate": 0}, {"batch": 0}])
def test_bad_parameters_refused(kw):
    with pytest.raises(ValueError):
        qm.train_matching(**kw)


def test_defaults_are_the_lessons():
    import inspect

    from qkv_lens.lesson import load_lesson
    from qkv_lens.runs import run_args
    args = run_args(load_lesson(LESSON).params["training"])
    sig = inspect.signature(qm.train_matching).parameters
    assert {k: sig[k].default for k in args} == args


def test_readouts_turn_from_noise_into_meaning(runs):
    X, match = runs["standard"].display_party
    n_jobs = X.shape[1] // 2
    profile, wish = X[:, :n_jobs].argmax(1), X[:, n_jobs:].argmax(1)
    for formula, run in runs.items():
        first = qm.readouts(run.snapshots[0].weights, X, formula)
        last = qm.readouts(run.snapshots[-1].weights, X, formula)
        # at the end: the query asks for the wish, the key says the profile,
        # the value carries the profile, each with a clear margin
        assert np.array_equal(last["asks"].argmax(1), wish), formula
        assert np.array_equal(last["says"].argmax(1), profile), formula
        assert np.array_equal(last["brings"].argmax(1), profile), formula
        assert last["asks"].max(1).min() > 3 / n_jobs
        # at the start the sign is vague: no profession stands out as strongly
        assert first["asks"].max(1).mean() < last["asks"].max(1).mean()
    # each row of asks and says is a distribution over professions
    r = qm.readouts(runs["swapped"].snapshots[3].weights, X, "swapped")
    assert np.allclose(r["asks"].sum(1), 1) and np.allclose(r["says"].sum(1), 1)


@pytest.mark.parametrize("formula", tr.FORMULAS)
def test_qk_shadow_is_one_fixed_plane_of_row_vectors(formula):
    """The shadow: one orthonormal plane (the trained q, k set's top two directions) for every
    snapshot; each shadow is the row vector times the plane's basis; no other plane keeps more."""
    run = tr.train_matching(formula, seed=3, steps=60, snapshots=5)
    X, _ = run.display_party
    weights = [s.weights for s in run.snapshots]
    B, q, k, kept = tr.qk_shadow(weights, X, formula)
    n, d = X.shape[0], X.shape[1] // 2
    assert B.shape == (d, 2) and q.shape == k.shape == (len(weights), n, 2)
    assert np.allclose(B.T @ B, np.eye(2))
    ask = "W_Q" if formula == "standard" else "W_V"
    for s, W in enumerate(weights):
        assert np.allclose(q[s], X @ W[ask] @ B) and np.allclose(k[s], X @ W["W_K"] @ B)
    last = np.vstack([X @ weights[-1][ask], X @ weights[-1]["W_K"]])
    assert kept == pytest.approx(np.sum((last @ B) ** 2) / np.sum(last ** 2))
    assert 0 < kept <= 1
    rng = np.random.default_rng(0)
    for _ in range(20):     # the top singular plane keeps the most
        R, _ = np.linalg.qr(rng.standard_normal((d, 2)))
        assert np.sum((last @ R) ** 2) / np.sum(last ** 2) <= kept + 1e-12
    for c in range(2):      # signed so its largest entry is positive: the same plane the same way round
        assert B[np.argmax(np.abs(B[:, c])), c] > 0
    with pytest.raises(ValueError):
        tr.qk_shadow([], X)
