"""Attention against an independent reference written with loops."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import qkv_math as qm


def reference_attention(Q, K, V, mask=None, scale=None, temperature=1.0):
    """Plain loops over rows and columns; math.exp; no numpy vectorisation."""
    n_q, d_k = len(Q), len(Q[0])
    n_k, d_v = len(K), len(V[0])
    scale = 1 / math.sqrt(d_k) if scale is None else scale
    weights = [[0.0] * n_k for _ in range(n_q)]
    out = [[0.0] * d_v for _ in range(n_q)]
    for i in range(n_q):
        row = []
        for j in range(n_k):
            s = sum(Q[i][t] * K[j][t] for t in range(d_k)) * scale
            if mask is not None:
                s += mask[i][j]
            row.append(s)
        top = max(row)
        ex = [0.0 if r == -math.inf else math.exp((r - top) / temperature) for r in row]
        total = sum(ex)
        for j in range(n_k):
            weights[i][j] = ex[j] / total
            for c in range(d_v):
                out[i][c] += weights[i][j] * V[j][c]
    return np.array(out), np.array(weights)


mats = st.integers(1, 5).flatmap(lambda n: st.integers(1, 4).flatmap(lambda d: st.tuples(
    arrays(np.float64, (n, d), elements=st.floats(-3, 3)),
    arrays(np.float64, (n, d), elements=st.floats(-3, 3)),
    arrays(np.float64, (n, 3), elements=st.floats(-3, 3)))))


@settings(max_examples=100)
@given(mats, st.booleans(), st.floats(0.2, 5))
def test_attention_matches_loop_reference(qkv, causal, temperature):
    Q, K, V = qkv
    mask = qm.causal_mask(len(Q)) if causal else None
    out, w = qm.attention(Q, K, V, mask=mask, temperature=temperature)
    ref_out, ref_w = reference_attention(Q.tolist(), K.tolist(), V.tolist(),
                                         None if mask is None else mask.tolist(), None, temperature)
    assert np.allclose(w, ref_w, atol=1e-12)
    assert np.allclose(out, ref_out, atol=1e-12)


def test_steps_agree_with_result():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    s = qm.attention_steps(Q, K, V, mask=qm.causal_mask(4))
    assert s.scale == pytest.approx(1 / np.sqrt(3))
    assert np.allclose(s.scores, Q @ K.T) and np.allclose(s.scaled, s.scores / np.sqrt(3))
    for i in range(4):
        assert np.allclose(s.output[i], sum(s.weights[i, j] * V[j] for j in range(4)))
    out, w = qm.attention(Q, K, V, mask=qm.causal_mask(4))
    assert np.array_equal(out, s.output) and np.array_equal(w, s.weights)


rows = arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 6)), elements=st.floats(-50, 50))


@given(rows)
def test_softmax_rows_sum_to_one(s):
    w = qm.softmax(s)
    assert np.allclose(w.sum(axis=-1), 1) and (w >= 0).all()


@given(rows, st.floats(-100, 100))
def test_softmax_invariant_to_row_constant(s, c):
    assert np.allclose(qm.softmax(s), qm.softmax(s + c), atol=1e-12)


@given(arrays(np.float64, 5, elements=st.floats(-5, 5), unique=True), st.floats(0.1, 3), st.floats(1.1, 3))
def test_softmax_sharper_at_lower_temperature(s, t, factor):
    hot, cold = qm.softmax(s, temperature=t * factor), qm.softmax(s, temperature=t)
    top = np.argmax(s)
    assert cold[top] >= hot[top] - 1e-12


def test_softmax_extremes():
    w = qm.softmax([1e4, 0.0, -1e4])
    assert np.isfinite(w).all() and w[0] == pytest.approx(1)
    w = qm.softmax([0.0, -np.inf, 0.0])
    assert w.tolist() == [0.5, 0.0, 0.5]
    with pytest.raises(ValueError, match="all -inf"):
        qm.softmax([[0.0, 1.0], [-np.inf, -np.inf]])
    for t in (0, -1, np.nan):
        with pytest.raises(ValueError, match="temperature"):
            qm.softmax([1.0, 2.0], temperature=t)
    with pytest.raises(ValueError):
        qm.softmax([np.nan, 1.0])


def test_causal_mask():
    m = qm.causal_mask(3)
    assert m.tolist() == [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]]
    with pytest.raises(ValueError):
        qm.causal_mask(0)


def test_project_and_shape_errors():
    X = np.array([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]])
    Wq, Wk, Wv = np.eye(2), np.array([[1.0, 0], [0, 2]]), np.ones((2, 3))
    Q, K, V = qm.project(X, Wq, Wk, Wv)
    assert np.array_equal(K, X @ Wk) and V.shape == (3, 3)
    with pytest.raises(ValueError, match="W_K"):
        qm.project(X, Wq, np.ones((3, 2)), Wv)
    with pytest.raises(ValueError, match="d_k"):
        qm.project(X, Wq, np.ones((2, 3)), Wv)
    with pytest.raises(ValueError, match="same width"):
        qm.attention(np.ones((2, 2)), np.ones((2, 3)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="one row per token"):
        qm.attention(np.ones((2, 2)), np.ones((3, 2)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="mask"):
        qm.attention(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 1)), mask=np.zeros((3, 3)))
