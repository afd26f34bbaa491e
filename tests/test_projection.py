"""Shadow projections and photo filters."""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import qkv_math as qm

vec = arrays(np.float64, 3, elements=st.floats(-5, 5))


@settings(max_examples=200)
@given(vec, vec, vec)
def test_shadow_invariants(d, n, x):
    assume(np.linalg.norm(d) > 0.1 and np.linalg.norm(n) > 0.1)
    assume(abs(n @ d) > 0.1 * np.linalg.norm(n) * np.linalg.norm(d))
    P = qm.shadow_matrix(d, n)
    s = x @ P
    scale = 1 + np.abs(x).max()
    assert abs(s @ n) < 1e-8 * scale * np.linalg.norm(n)                     # on the wall
    r = x - s
    assert np.linalg.norm(np.cross(r, d)) < 1e-8 * scale * np.linalg.norm(d) * 10  # along the light
    assert np.allclose(P @ P, P, atol=1e-9 * max(1, np.abs(P).max()))       # idempotent
    assert qm.rank(P) == 2


def test_two_points_on_one_ray_share_a_shadow():
    d, n = np.array([1.0, -1, -2]), np.array([0.0, 0, 1])
    P = qm.shadow_matrix(d, n)
    x = np.array([1.0, 2, 3])
    assert np.allclose(x @ P, (x + 2.5 * d) @ P)


@pytest.mark.parametrize("d, n, match", [([1, 0, 0], [0, 0, 1], "parallel"), ([0, 0, 0], [0, 0, 1], "zero"),
                                         ([0, 0, 1], [0, 0, 0], "zero")])
def test_refused_lights(d, n, match):
    with pytest.raises(ValueError, match=match):
        qm.shadow_matrix(d, n)


@given(vec)
def test_wall_basis_is_orthonormal_on_the_wall(n):
    assume(np.linalg.norm(n) > 0.1)
    B = qm.wall_basis(n)
    assert B.shape == (3, 2)
    assert np.allclose(B.T @ B, np.eye(2), atol=1e-9)
    assert np.allclose(n @ B, 0, atol=1e-9)


def test_wall_coordinates_recover_the_shadow():
    n = np.array([1.0, 1, 0])
    P, B = qm.shadow_matrix([1, 0.2, -0.3], n), qm.wall_basis(n)
    s = np.array([2.0, 1, 0.5]) @ P
    assert np.allclose((s @ B) @ B.T, s)


def ray_plane(L, x, n, c):
    """Independent: walk from L through x until n . p = c."""
    t = (c - n @ L) / (n @ (x - L))
    return L + t * (x - L)


@settings(max_examples=200)
@given(arrays(np.float64, (4, 3), elements=st.floats(-2, 2)))
def test_lamp_matches_ray_plane_intersection(X):
    L, n, c = np.array([0.5, -1.0, 6.0]), np.array([0.0, 0.0, 1.0]), -1.0
    # keep points strictly between the wall (z = -1) and the lamp's height (z = 6)
    X = X.copy()
    X[:, 2] = np.clip(X[:, 2], -0.5, 5.0)
    shadows = qm.lamp_shadows(L, n, c, X)
    for x, s in zip(X, shadows):
        assert np.allclose(s, ray_plane(L, x, n, c), atol=1e-9)
        assert s[2] == pytest.approx(c)


@pytest.mark.parametrize("x, match", [([0, 0, 6], "as far from the wall"), ([0, 0, 8], "behind the lamp"),
                                      ([0, 0, -3], "far side")])
def test_lamp_refuses(x, match):
    with pytest.raises(ValueError, match=match):
        qm.lamp_shadows([0, 0, 6], [0, 0, 1], -1, [x])
    with pytest.raises(ValueError, match="on the wall"):
        qm.lamp_matrix([0, 0, -1], [0, 0, 1], -1)


# --- filters -----------------------------------------------------------------

pixels = arrays(np.float64, (4, 5, 3), elements=st.floats(0, 1))
coef = st.floats(-2, 2)


@given(pixels, pixels, coef, coef)
def test_colour_filters_are_linear_before_clipping(x, y, a, b):
    for M in (qm.warm_tint(0.2), qm.darken(0.5), qm.grayscale()):
        lhs = qm.apply_color(a * x + b * y, M).raw
        rhs = a * qm.apply_color(x, M).raw + b * qm.apply_color(y, M).raw
        assert np.allclose(lhs, rhs, atol=1e-12)


@given(pixels, pixels, coef, coef)
def test_spatial_filters_are_linear(x, y, a, b):
    for A, shape, cols in ((qm.blur_matrix(4, 5), (4, 5), 5), (qm.downsample_matrix(4, 4, 2), (2, 2), 4)):
        xx, yy = x[:, :cols], y[:, :cols]
        lhs = qm.apply_spatial(a * xx + b * yy, A, shape).raw
        rhs = a * qm.apply_spatial(xx, A, shape).raw + b * qm.apply_spatial(yy, A, shape).raw
        assert np.allclose(lhs, rhs, atol=1e-12)


def test_grayscale_is_rank_one_onto_the_grey_axis():
    G = qm.grayscale()
    assert qm.rank(G) == 1
    out = np.array([0.9, 0.2, 0.4]) @ G
    assert out[0] == out[1] == out[2] == pytest.approx(0.299 * 0.9 + 0.587 * 0.2 + 0.114 * 0.4)


def test_clipping_is_reported():
    img = np.full((2, 2, 3), 0.9)
    f = qm.apply_color(img, qm.darken(1.5))
    assert f.clipped == 12 and f.raw.max() == pytest.approx(1.35) and f.image.max() == 1.0
    assert qm.apply_color(img, qm.darken(0.5)).clipped == 0


def test_blur_keeps_flat_images_and_downsample_averages():
    flat = np.full((3, 4, 3), 0.3)
    assert np.allclose(qm.apply_spatial(flat, qm.blur_matrix(3, 4), (3, 4)).raw, 0.3)
    img = np.arange(16, dtype=float).reshape(4, 4)[:, :, None].repeat(3, axis=2) / 16
    small = qm.apply_spatial(img, qm.downsample_matrix(4, 4, 2), (2, 2)).raw
    assert small[0, 0, 0] == pytest.approx(np.mean([0, 1, 4, 5]) / 16)
    with pytest.raises(ValueError):
        qm.downsample_matrix(5, 4, 2)


def test_patch_indices_are_the_flattened_patch():
    h, w = 5, 7
    grid = np.arange(h * w).reshape(h, w)          # each pixel holds its own flat index
    assert qm.patch_indices(w, 1, 2, 3, 4).tolist() == grid[1:4, 2:6].ravel().tolist()
    assert qm.patch_indices(w, 1, 2, 3, 4).tolist() == [np.ravel_multi_index((r, c), (h, w))
                                                       for r in range(1, 4) for c in range(2, 6)]


def test_blur_column_is_the_box_average_by_convolution():
    """Column j of the blur matrix makes output pixel j: x @ B[:, j] is the 3x3
    mean, as a separable np.convolve computes it on the inside pixels."""
    rng = np.random.default_rng(3)
    h, w = 6, 7
    chan = rng.random((h, w))
    B = qm.blur_matrix(h, w)
    rows = np.array([np.convolve(row, np.ones(3), mode="valid") for row in chan])     # (h, w-2)
    box = np.array([np.convolve(col, np.ones(3), mode="valid") for col in rows.T]).T / 9   # (h-2, w-2)
    for r in range(1, h - 1):
        for c in range(1, w - 1):
            j = r * w + c
            assert chan.ravel() @ B[:, j] == pytest.approx(box[r - 1, c - 1])
            assert np.count_nonzero(B[:, j]) == 9
    # the window of the patch around (2, 3) holds the whole column of its middle pixel
    idx = qm.patch_indices(w, 1, 1, 3, 5)
    window = B[np.ix_(idx, idx)]
    assert np.count_nonzero(window[:, 7]) == 9 and window[:, 7].sum() == pytest.approx(1)


def test_sharpest_blur_is_where_the_blur_changes_red_most():
    img = np.zeros((6, 8, 3))
    img[:, 5:, 0] = 1.0                     # a red edge between columns 4 and 5
    r, c = qm.sharpest_blur(img, (2, 1))
    assert c in (4, 5) and 1 <= r <= 4
    assert qm.sharpest_blur(np.zeros((4, 4, 3)), (0, 0)) == (1, 1)   # nothing changes: the nearest inside pixel


def test_generated_picture():
    img = qm.generated_picture(24, 32)
    assert img.shape == (24, 32, 3) and img.min() >= 0 and img.max() <= 1
    assert np.array_equal(img, qm.generated_picture(24, 32))


def test_cube_and_hull():
    V = qm.cube_vertices([0, 0, 0], 2)
    assert V.shape == (8, 3) and len(qm.CUBE_EDGES) == 12
    assert all(np.isclose(np.linalg.norm(V[i] - V[j]), 2) for i, j in qm.CUBE_EDGES)
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5], [0.5, 0]])
    hull = qm.convex_hull_2d(square)
    assert sorted(hull.tolist()) == [0, 1, 2, 3]
    # counter-clockwise: positive signed area
    P = square[hull]
    area = 0.5 * sum(P[i, 0] * P[(i + 1) % 4, 1] - P[(i + 1) % 4, 0] * P[i, 1] for i in range(4))
    assert area == pytest.approx(1)


# --- the convex hull, exact for ties and near-ties ---------------------------

def _orient(a, b, c):
    """Sign of the turn a -> b -> c, computed exactly (floats are rationals)."""
    from fractions import Fraction as F
    ax, ay, bx, by, cx, cy = (F(float(v)) for v in (*a, *b, *c))
    v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    return (v > 0) - (v < 0)


def _is_the_hull(pts, hull):
    """Brute force, exactly: the hull's vertices are distinct points of the
    cloud, each a strict left turn (counter-clockwise, none collinear), and
    every point of the cloud is inside or on the polygon."""
    hull = list(hull)
    assert len(set(hull)) == len(hull)
    assert len({tuple(p) for p in pts[hull]}) == len(hull)
    if len({tuple(p) for p in pts}) == 1:
        return len(hull) == 1
    if len(hull) == 2:                                      # a collinear cloud: its two ends
        a, b = pts[hull]
        return all(_orient(a, b, p) == 0 and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
                   and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]) for p in pts)
    k = len(hull)
    edges = [(pts[hull[i]], pts[hull[(i + 1) % k]]) for i in range(k)]
    return (k >= 3 and all(_orient(a, b, pts[hull[(i + 2) % k]]) > 0 for i, (a, b) in enumerate(edges))
            and all(_orient(a, b, p) >= 0 for a, b in edges for p in pts))


def test_the_hull_keeps_the_corner_of_an_ulp_tie():
    """The lesson's lamp shadows at the final wall: four points share one
    wall coordinate up to one ulp; the hull once popped the top of that
    edge, and the filled shadow fell 0.8 short of the shadow points' hull."""
    from scipy.spatial import ConvexHull

    t = np.deg2rad(30)
    n = np.array([np.cos(t), np.sin(t), 0.0])
    S = qm.lamp_shadows([5.5, 1.2, 2.6], n, 0.0, qm.cube_vertices([1.8, 0.4, 0.8], 1.6)) @ qm.wall_basis(n)
    hull = qm.convex_hull_2d(S)
    assert _is_the_hull(S, hull)
    P = S[hull]
    area = 0.5 * sum(P[i - 1, 0] * P[i, 1] - P[i, 0] * P[i - 1, 1] for i in range(len(P)))   # counter-clockwise: > 0
    assert area == pytest.approx(ConvexHull(S).volume, abs=1e-9)


def _clouds():
    """Degenerate clouds: grid points (collinear runs, repeats), some nudged
    by a few ulps in x or y (ties and near-ties), scaled and shifted."""
    grid = st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-2, 2), st.integers(-2, 2))
    return st.tuples(st.lists(grid, min_size=1, max_size=14), st.sampled_from([1.0, 0.1, 1.3856406460551023, 1e6]),
                     st.sampled_from([0.0, 1.0, -7.25, 1.3856406460551023]))


@settings(max_examples=300, deadline=None)
@given(_clouds())
def test_the_hull_is_exact_on_degenerate_clouds(cloud):
    from scipy.spatial import ConvexHull, QhullError

    raw, scale, shift = cloud
    pts = np.array([[x * scale + shift, y * scale + shift] for x, y, _, _ in raw])
    for (_, _, ux, uy), p in zip(raw, pts):                  # a few ulps off the grid
        p[0] = p[0] + ux * np.spacing(p[0] if p[0] else 1.0)
        p[1] = p[1] + uy * np.spacing(p[1] if p[1] else 1.0)
    hull = qm.convex_hull_2d(pts)
    assert _is_the_hull(pts, hull), (pts.tolist(), hull.tolist())
    try:
        independent = ConvexHull(pts)
    except (QhullError, ValueError):                          # qhull refuses flat or tiny clouds
        return
    P = pts[hull]
    area = 0.5 * abs(sum(P[i - 1, 0] * P[i, 1] - P[i, 0] * P[i - 1, 1] for i in range(len(P))))
    assert area == pytest.approx(independent.volume, rel=1e-9, abs=1e-9 * scale * scale)
