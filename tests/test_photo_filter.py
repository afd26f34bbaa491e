"""PhotoFilter: every picture and number shown is the filter's result."""
import numpy as np
import pytest
from PIL import Image

import qkv_math as qm
from qkv_lens.lesson import LessonError, load_lesson
from tests.helpers import ROOT, assert_clean_layout, assert_readable_beats, dry_run


@pytest.fixture(scope="module", params=["zh", "en"])
def scene(request, tmp_path_factory):
    return dry_run("PhotoFilter", tmp_path_factory.mktemp("pf"), lang=request.param)


def test_pixel_arithmetic(scene):
    p = load_lesson(ROOT / "lesson.toml").photo_filter
    img = qm.generated_picture(*p.size)
    px = img[p.pixel]
    s = float(p.tint_strength)
    by_hand = [px[0] * (1 + s), px[1], px[2] * (1 - s)]   # a warm tint is diagonal
    probes = scene.moments["pixel"].probes
    assert [float(t) for t in probes["shown_in"]] == pytest.approx(np.round(px, 2))
    assert [float(t) for t in probes["shown_out"]] == pytest.approx(np.round(by_hand, 2))
    assert np.allclose(probes["tinted"], np.clip(img @ np.diag([1 + s, 1, 1 - s]), 0, 1))
    assert probes["clipped"] == int(np.sum(img @ np.diag([1 + s, 1, 1 - s]) > 1 + 1e-9))


def test_filter_pictures(scene):
    p = load_lesson(ROOT / "lesson.toml").photo_filter
    img = qm.generated_picture(*p.size)
    shown = scene.moments["filters"].probes["images"]
    assert np.allclose(shown["darken"], img * float(p.darken_factor))
    grey = img @ np.array([0.299, 0.587, 0.114])
    assert np.allclose(shown["gray"], np.repeat(grey[:, :, None], 3, axis=2))
    f = p.downsample
    h, w = p.size
    assert shown["down"].shape == (h // f, w // f, 3)
    assert np.allclose(shown["down"][0, 0], img[:f, :f].reshape(-1, 3).mean(axis=0))
    assert shown["blur"].shape == img.shape
    assert np.allclose(shown["blur"][5, 5], img[4:7, 4:7].reshape(-1, 3).mean(axis=0))
    assert scene.moments["filters"].probes["clipped"]["blur"] == 0
    qkv = scene.moments["qkv"].probes["images"]
    assert np.allclose(qkv["query"], np.clip(img @ np.array(p.query_filter, dtype=float), 0, 1))


def test_layout(scene):
    assert_clean_layout(scene)


def test_beats_are_readable(scene):
    assert_readable_beats(scene)


def test_user_picture(tmp_path):
    rgb = np.zeros((40, 40, 3), dtype=np.uint8)
    rgb[:, :20] = [255, 0, 0]
    rgb[:, 20:] = [0, 0, 255]
    Image.fromarray(rgb).save(tmp_path / "mine.png")
    lesson = tmp_path / "l.toml"
    lesson.write_text('[photo_filter]\nimage = "mine.png"\nsize = [8, 8]\npixel = [0, 0]\ndownsample = 2\n',
                      encoding="utf-8")
    p = load_lesson(lesson).photo_filter
    assert p.picture.shape == (8, 8, 3)
    assert np.allclose(p.picture[0, 0], [1, 0, 0]) and np.allclose(p.picture[0, 7], [0, 0, 1])
    s = dry_run("PhotoFilter", tmp_path, lesson=lesson, lang="en")
    assert [float(t) for t in s.moments["pixel"].probes["shown_in"]] == [1, 0, 0]


@pytest.mark.parametrize("content, part", [
    ('image = "nope.png"', "does not exist"),
    ('image = "bad.png"', "cannot read"),
    ("downsample = 5", "divides both sides"),
    ("pixel = [24, 0]", "photo_filter.pixel[0]"),
    ("query_filter = [[1, 0], [0, 1]]", "photo_filter.query_filter"),
])
def test_bad_picture_settings(tmp_path, content, part):
    (tmp_path / "bad.png").write_text("not a picture")
    lesson = tmp_path / "l.toml"
    lesson.write_text(f"[photo_filter]\n{content}\n", encoding="utf-8")
    with pytest.raises(LessonError, match=part.replace("[", r"\[").replace("]", r"\]")):
        load_lesson(lesson)
