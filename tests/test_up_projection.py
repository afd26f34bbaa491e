"""UpProjection: x lands on x W in 3-D; the contrast map keeps it flat."""
import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from tests.helpers import ROOT, assert_clean_layout, dry_run


@pytest.fixture(scope="module", params=["zh", "en"])
def scene(request, tmp_path_factory):
    return dry_run("UpProjection", tmp_path_factory.mktemp("up"), lang=request.param)


def test_article_point_lands_on_3_4_2(scene):
    assert np.allclose(scene.moments["flat"].probes["dot"], [3, 4, 0], atol=1e-6)
    assert np.allclose(scene.moments["lifted"].probes["dot"], [3, 4, 2], atol=1e-6)
    assert np.allclose(scene.moments["turned"].probes["dot"], [3, 4, 2], atol=1e-6)
    assert scene.moments["lifted"].probes["result"].replace(" ", "").endswith("[3,\\4,\\2]")


def test_grid_lies_in_the_span_of_w(scene):
    W = np.array(load_lesson(ROOT / "lesson.toml").up_projection.W, dtype=float)
    normal = np.cross(W[0], W[1])
    for end in scene.moments["lifted"].probes["grid_ends"]:
        assert abs(end @ normal) < 1e-6


def test_contrast_is_a_flat_rotation_and_stretch(scene):
    p = load_lesson(ROOT / "lesson.toml").up_projection
    th = np.deg2rad(float(p.contrast_rotation_degrees))
    sx, sy = (float(v) for v in p.contrast_stretch)
    x = np.array([3.0, 4.0])
    by_hand = np.array([x[0] * sx, x[1] * sy]) @ np.array([[np.cos(th), np.sin(th)], [-np.sin(th), np.cos(th)]])
    assert np.allclose(scene.moments["contrast"].probes["dot"], [*by_hand, 0], atol=1e-6)


def test_layout(scene):
    assert_clean_layout(scene)
