"""QKVProjection: bars and heat-maps show exactly x, W and x W."""

import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from tests.helpers import ROOT, assert_clean_layout, dry_run


@pytest.fixture(scope="module", params=["zh", "en"])
def scene(request, tmp_path_factory):
    return dry_run("QKVProjection", tmp_path_factory.mktemp("qkv"), lang=request.param)


def expected():
    a = load_lesson(ROOT / "lesson.toml").attention
    X = np.array(a.embeddings, dtype=float)
    x = X[a.focus]
    # independent of qkv_math: one dot product per output column
    mats = {n: np.array(getattr(a, n), dtype=float) for n in ("W_Q", "W_K", "W_V")}
    out = {k: np.array([sum(x[i] * W[i, j] for i in range(len(x))) for j in range(W.shape[1])])
           for k, W in zip("qkv", mats.values())}
    return x, mats, out


def test_bars_show_x_and_its_three_projections(scene):
    x, mats, out = expected()
    assert np.allclose(scene.moments["embedding"].probes["x"], x, atol=1e-6)
    end = scene.moments["end"].probes
    for k in "qkv":
        assert np.allclose(end[f"{k}_bars"], out[k], atol=1e-6), k


def test_heat_maps_are_the_lesson_matrices(scene):
    _, mats, _ = expected()
    for k, name in zip("qkv", ("W_Q", "W_K", "W_V")):
        probes = scene.moments[k].probes
        assert np.array_equal(probes["heat"], mats[name])
        nonzero = [f"{v:.1f}" for v in mats[name].ravel() if v != 0]
        assert probes["heat_numbers"] == nonzero


def test_default_story_apple_key_shows_food():
    _, _, out = expected()
    # the key of 苹果 is strongest on the food dimension
    assert np.argmax(out["k"]) == 0


def test_layout(scene):
    assert_clean_layout(scene)


def test_six_traits_and_other_focus(tmp_path):
    lesson = tmp_path / "l.toml"
    lesson.write_text("""[attention]
tokens = [{zh="猫", en="cat"}, {zh="坐", en="sat"}]
traits = [{zh="动物", en="animal"}, {zh="动作", en="action"}]
embeddings = [[1, 0], [0, 1]]
qk_dims = [{zh="甲", en="a"}]
v_dims = [{zh="乙", en="b"}, {zh="丙", en="c"}]
W_Q = [[1], [-1]]
W_K = [[0.5], [2]]
W_V = [[1, 0], [0, -1]]
focus = 1
query = 0
""", encoding="utf-8")
    s = dry_run("QKVProjection", tmp_path, lesson=lesson, lang="en")
    end = s.moments["end"].probes
    assert np.allclose(end["q_bars"], [-1]) and np.allclose(end["v_bars"], [0, -1])
    assert_clean_layout(s)
