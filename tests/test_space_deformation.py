"""SpaceDeformation: what is drawn agrees with qkv_math, layout, real render."""
import numpy as np
import pytest

import qkv_math as qm
from qkv_lens.lesson import load_lesson
from tests.helpers import LESSON, assert_clean_layout, dry_run

SCENE = "SpaceDeformation"


def expected_matrices():
    """Each step's matrix, built here from the lesson's numbers."""
    p = load_lesson(LESSON).params["space_deformation"]
    theta = np.deg2rad(float(p.rotation_degrees))
    c, s = np.cos(theta), np.sin(theta)
    u = np.array(p.flatten_onto, dtype=float)
    u = u / np.linalg.norm(u)
    M = np.array(p.svd_matrix, dtype=float)
    A, B, _ = qm.svd_stages(M)
    return p, {
        "start": np.eye(2),
        "rotation_half": np.array([[np.cos(theta / 2), np.sin(theta / 2)],
                                   [-np.sin(theta / 2), np.cos(theta / 2)]]),
        "rotation": np.array([[c, s], [-s, c]]),
        "stretch": np.diag([float(v) for v in p.stretch]),
        "shear": np.array([[1, 0], [float(p.shear), 1]]),
        "flatten": np.outer(u, u),
        "svd_target": np.eye(2),      # a fresh plane after the flattening, under M's dashed image
        "svd_a": A,
        "svd_b": A @ B,
        "svd_c": M,
        "end": M,
    }


def test_word_points_follow_each_step(scene):
    p, expected = expected_matrices()
    points = np.array([w.at for w in p.words], dtype=float)
    for name, M in expected.items():
        probes = scene.moments[name].probes
        assert np.allclose(probes["words"], points @ M, atol=1e-6), name
        assert np.allclose(probes["i_tip"], M[0], atol=1e-3), name
        assert np.allclose(probes["j_tip"], M[1], atol=1e-3), name


CORNERS = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)


def test_grid_axes_and_square_follow_each_step(scene):
    """At every key moment the grid's axes, the unit square and the basis
    arrows show qkv_math's matrix, and all are on screen (after the
    flattening the plane came back with the words left on the squashed line)."""
    _, expected = expected_matrices()
    for name, M in expected.items():
        probes = scene.moments[name].probes
        assert np.allclose(probes["grid_i"], M[0], atol=1e-6), name
        assert np.allclose(probes["grid_j"], M[1], atol=1e-6), name
        assert np.allclose(probes["square"], CORNERS @ M, atol=1e-6), name
        assert all(probes["shown"].values()), (name, probes["shown"])


def test_svd_target_is_shown_before_the_moves_land_on_it(scene):
    """Before the three moves: M written out and its dashed image of the unit
    square; after them the square lies on that image and the factors shown
    are qkv_math's stages, whose product is M."""
    p, _ = expected_matrices()
    M = np.array(p.svd_matrix, dtype=float)
    target = scene.moments["svd_target"].probes
    assert np.allclose(target["target"], M, atol=0.005)
    ghost = np.array(target["ghost"])
    corners = CORNERS @ M
    # every point of the dashed outline lies on the parallelogram's edges
    for q in ghost:
        assert min(_to_segment(q, corners[i], corners[(i + 1) % 4]) for i in range(4)) < 1e-6
    for c in corners:                            # ... and it reaches each corner
        assert np.min(np.linalg.norm(ghost - c, axis=1)) < 0.05
    end = scene.moments["svd_c"].probes
    assert np.allclose(end["square"], corners, atol=1e-6)
    shown = end["factors"]
    for got, want in zip(shown, qm.svd_stages(M)):
        assert np.allclose(got, want, atol=0.005)
    assert np.allclose(shown[0] @ shown[1] @ shown[2], M, atol=0.05)


def _to_segment(q, a, b) -> float:
    t = np.clip(np.dot(q - a, b - a) / np.dot(b - a, b - a), 0, 1)
    return float(np.linalg.norm(q - (a + t * (b - a))))


def test_flattened_line_crosses_no_label(scene):
    """On the squashed plane no word name, basis name or "same point!" mark
    lies across the line the plane became."""
    p, _ = expected_matrices()
    from scenes.space_deformation import PLANE_ORIGIN, PLANE_UNIT

    u = np.array(p.flatten_onto, dtype=float)
    normal = np.array([-u[1], u[0]]) / np.linalg.norm(u)
    side = scene.moments["flatten"].labels
    names = {w.name(scene.lang) for w in p.words} | {scene.tr("same_point"), r"\hat{\imath}", r"\hat{\jmath}"}
    checked = 0
    for label in side:
        if label.content.replace(" ", "") not in {n.replace(" ", "") for n in names}:
            continue
        l, b, r, t = label.box
        signs = {np.sign(np.dot((np.array([x, y]) - PLANE_ORIGIN[:2]) / PLANE_UNIT, normal))
                 for x in (l, r) for y in (b, t)}
        assert len(signs) == 1, label
        checked += 1
    assert checked >= len(p.words)


def test_readouts_show_the_matrix_and_its_determinant(scene):
    _, expected = expected_matrices()
    for name, M in expected.items():
        probes = scene.moments[name].probes
        assert np.allclose(probes["readout"], M, atol=0.005), name
        assert probes["det"] == pytest.approx(np.linalg.det(M), abs=0.005), name


def test_svd_stages_compose_on_screen(scene):
    p, _ = expected_matrices()
    M = np.array(p.svd_matrix, dtype=float)
    a, b, c = (scene.moments[f"svd_{k}"].probes["readout"] for k in "abc")
    # stage a is a rotation, stage c equals M
    assert np.allclose(a @ a.T, np.eye(2), atol=0.02)
    assert np.allclose(c, M, atol=0.005)
    # the stretch stage differs from a by a diagonal factor
    D = np.linalg.solve(scene.moments["svd_a"].probes["matrix"], scene.moments["svd_b"].probes["matrix"])
    assert abs(D[0, 1]) < 1e-9 and abs(D[1, 0]) < 1e-9


def test_flattening_makes_words_collide(scene):
    p, expected = expected_matrices()
    probes = scene.moments["flatten"].probes
    assert probes["det"] == pytest.approx(0, abs=0.005)
    words = probes["words"]
    # apple [2, 1] and banana [1, 2] land on one point of the line [1, 1]
    assert np.allclose(words[0], words[1]) and np.allclose(words[0], [1.5, 1.5])
    assert (0, 1) in probes["collisions"]


def test_chinese_labels_in_zh(scene):
    texts = [l.content for l in scene.moments["start"].labels]
    if scene.lang == "zh":
        assert "苹果" in texts
    else:
        assert "apple" in texts


def test_reflecting_svd_matrix(tmp_path):
    lesson = tmp_path / "l.toml"
    lesson.write_text("[space_deformation]\nsvd_matrix = [[0, 1], [1, 0]]\n", encoding="utf-8")
    s = dry_run("SpaceDeformation", tmp_path, lesson=lesson, lang="en")
    b = s.moments["svd_b"].probes["matrix"]
    a = s.moments["svd_a"].probes["matrix"]
    assert np.allclose(s.moments["end"].probes["readout"], [[0, 1], [1, 0]], atol=0.005)
    assert np.linalg.det(b) / np.linalg.det(a) == pytest.approx(-1)
    assert_clean_layout(s)


REWINDS = ("rotation", "stretch", "shear")


def test_rewinds_move_everything_together(scene):
    """Halfway back to the identity, grid, unit square, words and readout all
    show qkv_math's matrix at that same parameter, and all of them are redrawn
    each frame (none left frozen in manim's cached still)."""
    p, _ = expected_matrices()
    points = np.array([w.at for w in p.words], dtype=float)
    paths = {"rotation": qm.rotation_path(np.deg2rad(float(p.rotation_degrees))),
             "stretch": qm.stretch_path(*(float(v) for v in p.stretch)),
             "shear": qm.shear_path(float(p.shear))}
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    for key in REWINDS:
        name = f"{key}_rewind_half"
        probes = scene.moments[name].probes
        M = paths[key](0.5)
        # halfway is a genuine in-between, neither end
        assert not np.allclose(M, np.eye(2), atol=0.05), name
        assert not np.allclose(M, paths[key](1.0), atol=0.05), name
        assert np.allclose(probes["matrix"], M), name
        assert np.allclose(probes["grid_i"], M[0], atol=1e-6), name
        assert np.allclose(probes["grid_j"], M[1], atol=1e-6), name
        assert np.allclose(probes["square"], corners @ M, atol=1e-6), name
        assert np.allclose(probes["words"], points @ M, atol=1e-6), name
        assert np.allclose(probes["i_tip"], M[0], atol=1e-3), name
        assert np.allclose(probes["readout"], M, atol=0.005), name
        assert probes["det"] == pytest.approx(np.linalg.det(M), abs=0.005), name
        assert all(probes["live"].values()), (name, probes["live"])


def test_every_move_redraws_the_plane(scene):
    """During each move the grid, square, words and readout are redrawn every
    frame, not left in the cached still."""
    for name in ("rotation_half", "rotation", "stretch", "shear", "flatten", "svd_a", "svd_b", "svd_c"):
        live = scene.moments[name].probes["live"]
        assert all(live.values()), (name, live)
