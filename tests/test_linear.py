import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import qkv_math as qm

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False)
mat2 = arrays(np.float64, (2, 2), elements=finite)
angles = st.floats(-2 * np.pi, 2 * np.pi, allow_nan=False)
times = st.floats(0, 1)


def test_apply_article_example():
    assert np.array_equal(qm.apply([3, 4], [[1, 0, 2], [0, 1, -1]]), [3, 4, 2])


def test_apply_stack_is_row_by_row():
    X = np.array([[3, 4], [1, 0], [0, 1]])
    W = np.array([[1, 0, 2], [0, 1, -1]])
    out = qm.apply(X, W)
    assert out.shape == (3, 3)
    assert np.array_equal(out[1], W[0]) and np.array_equal(out[2], W[1])


@pytest.mark.parametrize("x, W", [([1, 2, 3], np.eye(2)), ([[1, 2]], np.eye(3)), ([1, 2], [1, 2]),
                                  (np.zeros((2, 2, 2)), np.eye(2))])
def test_apply_refuses_mismatched_shapes(x, W):
    with pytest.raises(ValueError):
        qm.apply(x, W)


def test_primitives_by_hand():
    assert np.allclose([1, 0] @ qm.rotation(np.pi / 2), [0, 1])
    assert np.allclose([0, 1] @ qm.rotation(np.pi / 2), [-1, 0])
    assert np.allclose([2, 3] @ qm.stretch(2, -1), [4, -3])
    assert np.allclose([2, 3] @ qm.shear(0.5), [3.5, 3])
    P = qm.flatten_onto([1, 1])
    assert np.allclose([2, 1] @ P, [1.5, 1.5]) and np.allclose([1, 2] @ P, [1.5, 1.5])
    assert qm.rank(P) == 1 and abs(qm.determinant(P)) < 1e-12


def test_flatten_refuses_zero_direction():
    with pytest.raises(ValueError):
        qm.flatten_onto([0, 0])


def test_determinant_and_rank():
    assert qm.determinant([[2, 0], [0, 3]]) == pytest.approx(6)
    assert qm.determinant(qm.shear(7)) == pytest.approx(1)
    assert qm.rank(np.zeros((2, 2))) == 0
    assert qm.rank([[1, 0, 2], [0, 1, -1]]) == 2
    with pytest.raises(ValueError):
        qm.determinant([[1, 2, 3]])


@given(angles, times)
def test_rotation_path_stays_a_rotation(theta, t):
    R = qm.rotation_path(theta)(t)
    assert np.allclose(R @ R.T, np.eye(2), atol=1e-12)
    assert qm.determinant(R) == pytest.approx(1)
    # the angle at time t is t * theta (mod 2 pi)
    d = (qm.rotation_angle(R) - t * theta + np.pi) % (2 * np.pi) - np.pi
    assert abs(d) < 1e-9


@given(finite, finite, times)
def test_stretch_and_shear_paths(sx, sy, t):
    S = qm.stretch_path(sx, sy)(t)
    assert S[0, 1] == 0 and S[1, 0] == 0
    assert S[0, 0] == pytest.approx(1 + t * (sx - 1)) and S[1, 1] == pytest.approx(1 + t * (sy - 1))
    H = qm.shear_path(sx)(t)
    assert np.allclose(H, [[1, 0], [t * sx, 1]])
    assert qm.determinant(H) == pytest.approx(1)


@given(mat2)
def test_paths_start_at_identity_and_end_at_target(M):
    assert np.allclose(qm.linear_path(M)(0), np.eye(2))
    assert np.allclose(qm.linear_path(M)(1), M)
    assert np.allclose(qm.rotation_path(1.3)(0), np.eye(2))


def test_path_time_outside_unit_interval_refused():
    with pytest.raises(ValueError):
        qm.rotation_path(1.0)(1.5)


def _check_svd(M):
    A, B, C = qm.svd_stages(M)
    assert np.allclose(A @ B @ C, M, atol=1e-12 * max(1, np.abs(M).max()))
    for R in (A, C):
        assert np.allclose(R @ R.T, np.eye(2), atol=1e-12)
        assert qm.determinant(R) == pytest.approx(1)
    assert B[0, 1] == 0 and B[1, 0] == 0
    assert B[0, 0] >= 0
    return A, B, C


@settings(max_examples=300)
@given(mat2)
def test_svd_stages_random(M):
    _check_svd(M)


def test_svd_stages_singular_reflecting_zero():
    _, B, _ = _check_svd(np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert B[1, 1] == pytest.approx(0, abs=1e-12)
    _, B, _ = _check_svd(np.array([[1.0, 0.0], [0.0, -1.0]]))  # a reflection
    assert B[1, 1] < 0
    _, B, _ = _check_svd(np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert np.prod(np.diag(B)) == pytest.approx(-1)
    _check_svd(np.zeros((2, 2)))
    _check_svd(qm.flatten_onto([1, 1]))


@given(mat2)
def test_svd_path_composes_to_m(M):
    A, B, C = qm.svd_stages(M)
    stages = qm.svd_path(M)
    assert np.allclose(stages[0](0), np.eye(2))
    assert np.allclose(stages[0](1), A) and np.allclose(stages[1](0), A)
    assert np.allclose(stages[1](1), A @ B) and np.allclose(stages[2](0), A @ B)
    assert np.allclose(stages[2](1), M, atol=1e-9 * max(1, np.abs(M).max()))


def test_collisions_of_flattening():
    X = np.array([[2, 1], [1, 2], [3, 0], [0, 0]])
    groups = qm.collisions(X, qm.flatten_onto([1, 1]))
    assert groups == [(0, 1, 2)]
    assert qm.collisions(X, qm.rotation(0.3)) == []
