"""WorkedExample: the arithmetic shown is exact and agrees with qkv_math."""
from fractions import Fraction

import numpy as np
import pytest

import qkv_math as qm
from qkv_lens.lesson import load_lesson
from qkv_lens.numbers import column_tex
from scenes.kit import palette
from tests.helpers import LESSON, assert_clean_layout, dry_run

SCENE = "WorkedExample"


def squash(tex: str) -> str:
    return tex.replace(" ", "")


def test_article_arithmetic_on_screen(scene):
    lines = [squash(l) for l in scene.moments["columns"].probes["lines"]]
    assert lines == [r"3\times1+4\times2=3+8=11",
                     r"3\times2+4\times1=6+4=10",
                     r"3\times2+4\times(-1)=6-4=2"]
    assert [squash(r) for r in scene.moments["columns"].probes["result"]] == ["11", "10", "2"]


def test_glasses_fill_to_the_result(scene):
    probes = scene.moments["cocktail"].probes
    assert probes["levels"] == pytest.approx([11, 10, 2], abs=1e-9)
    assert [squash(v) for v in probes["values"]] == ["y_{1}=11", "y_{2}=10", "y_{3}=2"]


def test_every_glass_is_a_real_mix(scene):
    """Each glass holds x_i * W_ij of every ingredient i (a layer in the
    ingredient's colour, its amount written beside it), and the default
    lesson's W mixes two ingredients into every glass."""
    lesson = load_lesson(LESSON).params["worked_example"]
    x = np.array(lesson.x, dtype=float)
    W = np.array(lesson.W, dtype=float)
    amounts = x[:, None] * W                      # amounts[i, j]: ingredient i in glass j
    probes = scene.moments["cocktail"].probes
    colour = [palette.INGREDIENTS[i].to_hex() for i in range(len(x))]
    for j in range(W.shape[1]):
        assert np.count_nonzero(amounts[:, j]) >= 2, f"glass {j + 1} holds one ingredient"
        poured_in = [(amounts[i, j], colour[i]) for i in range(len(x)) if amounts[i, j] > 0]
        layers = probes["layers"][j]
        assert [c for _, c in layers] == [c for _, c in poured_in]
        assert [h for h, _ in layers] == pytest.approx([a for a, _ in poured_in])
        # the amounts beside the glass: what goes in, then what is poured out
        written = [(float(t), c) for t, c in probes["amounts"][j]]
        expected = poured_in + [(amounts[i, j], colour[i]) for i in range(len(x)) if amounts[i, j] < 0]
        assert written == expected
    assert [squash(r) for r in probes["recipes"]] == [r"1\,x_{1}+2\,x_{2}", r"2\,x_{1}+1\,x_{2}",
                                                      r"2\,x_{1}+(-1)\,x_{2}"]


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


@pytest.mark.parametrize("written, shown, total", [('"1/2"', r"\tfrac{1}{2}", r"\tfrac{17}{2}"),
                                                   ("0.5", "0.5", "8.5")])
def test_a_number_is_shown_as_the_lesson_writes_it(tmp_path, written, shown, total):
    lesson = tmp_path / "l.toml"
    lesson.write_text(f"[worked_example]\nx = [{written}, 4]\n", encoding="utf-8")
    s = dry_run("WorkedExample", tmp_path, lesson=lesson, lang="en")
    assert squash(s.moments["start"].probes["x"][0]) == shown
    first = squash(s.moments["columns"].probes["lines"][0])
    # the default W's first column is [1, 2]: 1/2 x 1 + 4 x 2 = 1/2 + 8 = 17/2
    assert first == rf"{shown}\times1+4\times2={shown}+8={total}"
