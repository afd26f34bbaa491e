"""WorkedExample: the arithmetic shown is exact and agrees with qkv_math."""
from fractions import Fraction

import pytest

import qkv_math as qm
from scenes.worked_example import column_tex
from tests.helpers import assert_clean_layout, assert_readable_beats, dry_run


@pytest.fixture(scope="module", params=["zh", "en"])
def scene(request, tmp_path_factory):
    return dry_run("WorkedExample", tmp_path_factory.mktemp("we"), lang=request.param)


def squash(tex: str) -> str:
    return tex.replace(" ", "")


def test_article_arithmetic_on_screen(scene):
    lines = [squash(l) for l in scene.moments["columns"].probes["lines"]]
    assert lines == [r"3\times1+4\times0=3",
                     r"3\times0+4\times1=4",
                     r"3\times2+4\times(-1)=6-4=2"]
    assert [squash(r) for r in scene.moments["columns"].probes["result"]] == ["3", "4", "2"]


def test_glasses_fill_to_the_result(scene):
    probes = scene.moments["cocktail"].probes
    assert probes["levels"] == pytest.approx([3, 4, 2], abs=1e-9)
    assert [squash(v) for v in probes["values"]] == ["y_{1}=3", "y_{2}=4", "y_{3}=2"]


def test_layout(scene):
    assert_clean_layout(scene)


def test_beats_are_readable(scene):
    assert_readable_beats(scene)


def test_fractions_lesson(tmp_path):
    lesson = tmp_path / "l.toml"
    lesson.write_text('[worked_example]\nx = ["1/3", 0.5, 2]\nW = [["3/2", -1], [0.25, "2/3"], [1, -1]]\n',
                      encoding="utf-8")
    s = dry_run("WorkedExample", tmp_path, lesson=lesson, lang="en")
    expected = qm.worked_product(["1/3", "1/2", "2"], [["3/2", "-1"], ["1/4", "2/3"], ["1", "-1"]])
    assert expected.result == (Fraction(1, 2) + Fraction(1, 8) + 2, Fraction(-1, 3) + Fraction(1, 3) - 2)
    lines = [squash(l) for l in s.moments["columns"].probes["lines"]]
    # numbers written as fractions keep the whole example in fractions, 21/8 included
    assert lines[0].endswith(r"=\tfrac{21}{8}")
    assert lines[1] == squash(column_tex(expected.columns[1], fractions=True))
    assert r"\tfrac{1}{3}" in lines[0] and r"\tfrac{1}{4}" in lines[0]
    assert s.moments["cocktail"].probes["levels"] == pytest.approx([float(v) for v in expected.result])
    assert_clean_layout(s)


def test_column_tex_shows_the_middle_step_only_when_needed():
    w = qm.worked_product([3, 4], [[1, 2], [0, -1]])
    assert squash(column_tex(w.columns[0])) == r"3\times1+4\times0=3"
    assert squash(column_tex(w.columns[1])) == r"3\times2+4\times(-1)=6-4=2"


@pytest.mark.parametrize("written, shown", [('"1/2"', r"\tfrac{1}{2}"), ("0.5", "0.5")])
def test_a_number_is_shown_as_the_lesson_writes_it(tmp_path, written, shown):
    lesson = tmp_path / "l.toml"
    lesson.write_text(f"[worked_example]\nx = [{written}, 4]\n", encoding="utf-8")
    s = dry_run("WorkedExample", tmp_path, lesson=lesson, lang="en")
    assert squash(s.moments["start"].probes["x"][0]) == shown
    first = squash(s.moments["columns"].probes["lines"][0])
    assert first == rf"{shown}\times1+4\times0={shown}"
