"""The scenes declare themselves and their lesson sections (``qkv_lens.lesson.
declared``, ``keys``): the registry, the loader and the reference of every
key are read from those declarations, so adding a scene is its module, its
lesson section and its texts."""
from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest

from qkv_lens.lesson import defaults, discover
from qkv_lens.lesson.declared import DeclarationError, read_module
from qkv_lens.lesson.keys import Computed
from qkv_lens.lesson.reference import reference
from qkv_lens.lesson.schema import TOP_KEYS
from qkv_lens.registry import SCENES, scenes_dir
from qkv_lens.texts import section_texts
from tests.helpers import ROOT

DEMO = '''
from fractions import Fraction

from qkv_lens.lesson.keys import Params, Vector
from scenes.kit.scene import LessonScene


class DemoParams(Params):
    """[demo]: one point."""
    section = "demo"
    point: tuple[Fraction, Fraction] = Vector("plane", 2, doc="a point")


class Demo(LessonScene):
    params: DemoParams
    chapter = 3
    number = 12

    def construct(self):
        pass
'''


def test_the_registry_is_what_the_scenes_declare():
    assert [s.number for s in SCENES] == list(range(1, len(SCENES) + 1))
    assert [s.chapter for s in SCENES] == sorted(s.chapter for s in SCENES)
    for s in SCENES:
        assert s.path.is_file() and s.path.stem == s.module == s.section
        assert section_texts("en", s.section), f"{s.name} has no texts"


@pytest.mark.parametrize("info", SCENES, ids=lambda s: s.name)
def test_each_scene_reads_the_section_it_declares(info):
    module = importlib.import_module(f"scenes.{info.module}")
    cls = module.__dict__[info.name]
    declared = discover().sections[info.lesson_section]
    assert cls.params_class().__name__ == declared.cls
    assert cls.params_class().section == info.lesson_section
    assert list(cls.params_class().keys()) == list(declared.keys)   # the same declaration, read two ways


def test_every_declared_key_has_its_shipped_value_and_no_other_is_shipped():
    shipped = defaults()
    sections = discover().sections
    assert set(shipped) == set(sections) | set(TOP_KEYS) | {"chapters"}
    for name, section in sections.items():
        written = [k for k, spec in section.keys.items() if not isinstance(spec, Computed)]
        assert list(shipped[name]) == written, name


def test_the_reference_of_every_key_is_the_docs_page():
    assert (ROOT / "docs" / "lesson-keys.md").read_text(encoding="utf-8") == reference()


def test_a_declaration_that_is_not_a_literal_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(DEMO.replace('Vector("plane", 2, doc="a point")', 'Vector(KIND, 2)'), encoding="utf-8")
    with pytest.raises(DeclarationError) as err:
        read_module(bad)
    assert str(err.value).startswith(f"{bad}:11: a declaration may hold only literals")


def test_a_new_scene_module_joins_the_lesson_with_its_section(tmp_path):
    folder = tmp_path / "scenes"
    shutil.copytree(scenes_dir(), folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "demo.py").write_text(DEMO, encoding="utf-8")
    found = discover(folder)
    assert found.scenes[-1].name == "Demo" and found.section_of["Demo"] == "demo"
    assert list(found.sections["demo"].keys) == ["point"]
    assert [s.name for s in found.scenes[:-1]] == [s.name for s in SCENES]
    assert Path(found.scenes[-1].path) == folder / "demo.py"
