"""ThreeLenses: each word sits at traits @ M on each lens's plane."""
import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from tests.helpers import ROOT, assert_clean_layout, assert_readable_beats, dry_run


@pytest.fixture(scope="module", params=["zh", "en"])
def scene(request, tmp_path_factory):
    return dry_run("ThreeLenses", tmp_path_factory.mktemp("tl"), lang=request.param)


def test_words_land_at_traits_times_matrix(scene):
    p = load_lesson(ROOT / "lesson.toml").three_lenses
    X = np.array([t for _, t in p.words], dtype=float)
    for k, lens in enumerate(p.lenses):
        M = np.array(lens.matrix, dtype=float)
        expected = [[sum(x[i] * M[i, j] for i in range(len(x))) for j in range(2)] for x in X]
        assert np.allclose(scene.moments[f"lens{k + 1}"].probes["words"], expected, atol=1e-6)


def test_flattening_lens_merges_words(scene):
    # phone and computer are both 0 on roundness: the third lens cannot tell them apart
    assert (3, 4) in scene.moments["lens3"].probes["collisions"]
    assert scene.moments["lens1"].probes["collisions"] == []


def test_layout(scene):
    assert_clean_layout(scene)


def test_beats_are_readable(scene):
    assert_readable_beats(scene)
