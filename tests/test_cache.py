"""Cache keys: what re-renders a scene and what does not (a copy of the code, edited)."""
from pathlib import Path

import pytest

from qkv_lens import texts as text_mod
from qkv_lens.app.cache import cache_key, code_digests
from qkv_lens.lesson import load_lesson, parse_lesson
from qkv_lens.registry import find
from tests.helpers import LESSON, edit


def key_for(tree, scene="WorkedExample", lesson=None, lang="en", quality="l", fmt="mp4",
            transparent=False, manim="0.22.0"):
    lesson = lesson or load_lesson(LESSON, language=lang)
    d = code_digests(tree)
    return cache_key(find(scene), lesson, lang, quality, fmt, transparent, d, manim, tree)


def test_key_is_stable(tree):
    assert key_for(tree) == key_for(tree)


@pytest.mark.parametrize("change", [
    lambda t: edit(t / "scenes" / "worked_example.py"),
    lambda t: edit(t / "scenes" / "kit" / "text.py"),
    lambda t: edit(t / "qkv_math" / "linear.py"),
    lambda t: edit(t / "qkv_lens" / "lesson" / "sections.py"),
    lambda t: edit(t / "qkv_lens" / "runs.py"),
    lambda t: edit(t / "qkv_lens" / "beats.py"),       # every module outside qkv_lens/app, none listed by hand
    lambda t: edit(t / "qkv_lens" / "store.py"),
    lambda t: (t / "qkv_lens" / "new_helper.py").write_text("X = 1\n", encoding="utf-8"),
    lambda t: edit(t / "qkv_lens" / "manim.cfg"),
])
def test_key_changes_with_code(tree, change):
    before = key_for(tree)
    change(tree)
    assert key_for(tree) != before


def test_other_scene_module_does_not_change_the_key(tree):
    before = key_for(tree)
    edit(tree / "scenes" / "space_deformation.py")
    assert key_for(tree) == before


@pytest.mark.parametrize("name", ["app/cli.py", "app/page.py", "app/render.py", "app/export.py"])
def test_the_command_and_page_do_not_change_the_key(tree, name):
    before = key_for(tree)
    edit(tree / "qkv_lens" / name)
    assert key_for(tree) == before


def test_key_changes_with_own_section_only(tree):
    base = key_for(tree)
    own = parse_lesson({"worked_example": {"x": [5, 4]}}, Path("l.toml"), "en")
    other = parse_lesson({"space_deformation": {"shear": 2}}, Path("l.toml"), "en")
    assert key_for(tree, lesson=own) != base
    assert key_for(tree, lesson=other) == base


def test_key_changes_with_the_picture_file(tree, tmp_path):
    import numpy as np
    from PIL import Image

    pic = tmp_path / "pic.png"
    lesson_file = tmp_path / "l.toml"
    Image.fromarray(np.zeros((8, 8, 3), dtype=np.uint8)).save(pic)
    lesson_file.write_text('[photo_filter]\nimage = "pic.png"\nsize = [8, 8]\npixel = [0, 0]\n'
                           'downsample = 2\n', encoding="utf-8")
    before = key_for(tree, scene="PhotoFilter", lesson=load_lesson(lesson_file, language="en"))
    Image.fromarray(np.full((8, 8, 3), 200, dtype=np.uint8)).save(pic)
    after = key_for(tree, scene="PhotoFilter", lesson=load_lesson(lesson_file, language="en"))
    assert before != after


def test_key_changes_with_own_texts_only(tree, monkeypatch):
    base = key_for(tree)
    monkeypatch.setitem(text_mod.TEXTS["en"], "space_deformation.title", "Another title")
    assert key_for(tree) == base
    monkeypatch.setitem(text_mod.TEXTS["en"], "worked_example.title", "Another title")
    assert key_for(tree) != base


@pytest.mark.parametrize("kw", [{"lang": "zh"}, {"quality": "h"}, {"fmt": "webm"},
                                {"transparent": True}, {"manim": "0.22.1"}])
def test_key_changes_with_options(tree, kw):
    assert key_for(tree, **kw) != key_for(tree)
