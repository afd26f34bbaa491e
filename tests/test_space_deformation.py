"""SpaceDeformation: what is drawn agrees with qkv_math, layout, real render."""
import numpy as np
import pytest

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
    return p, {
        "start": np.eye(2),
        "rotation_half": np.array([[np.cos(theta / 2), np.sin(theta / 2)],
                                   [-np.sin(theta / 2), np.cos(theta / 2)]]),
        "rotation": np.array([[c, s], [-s, c]]),
        "stretch": np.diag([float(v) for v in p.stretch]),
        "shear": np.array([[1, 0], [float(p.shear), 1]]),
        "flatten": np.outer(u, u),
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
    import qkv_math as qm

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
