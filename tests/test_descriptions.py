"""Audio descriptions (issue 42): maths said aloud in every language
(``qkv_lens.spoken``), the scene's verb (``LessonScene.describe`` and
``beat(..., names_change=True)``), the beats file's fields read back as
untrusted input, and the coverage check: every beat that changes the
picture has a description or says that its sentence names the change.

The check runs on the teacher's scaffold here and on the shipped scenes
listed in ``tests/test_scenes.py`` (``DESCRIBED``)."""
from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from qkv_lens import texts
from qkv_lens.app import cli
from qkv_lens.beats import MAX_TEXT, Beat, BeatsError, Cue, parse
from qkv_lens.lesson import LessonError
from qkv_lens.spoken import MAX_ROWS, MAX_VALUES, SpokenError, sci_said, spoken
from tests.helpers import assert_misuse_stops, dry_run_file, undescribed

NAME, SNAKE = "SayDemo", "say_demo"


# -- maths said aloud ---------------------------------------------------------------

W = [[1, 0, 2], [0, 1, -1]]


@pytest.mark.parametrize("lang, matrix, half, thirds, other, vector", [
    ("en", "two by three: first row 1, 0, 2; second row 0, 1, minus 1", "one half", "minus two thirds",
     "5 over 12", "3, 4.5, minus 0.25"),
    ("zh", "两行三列：第一行 1，0，2；第二行 0，1，负1", "二分之一", "负三分之二", "12分之5", "3，4.5，负0.25"),
    ("es", "dos por tres: primera fila 1, 0, 2; segunda fila 0, 1, menos 1", "un medio", "menos dos tercios",
     "5 entre 12", "3, 4.5, menos 0.25"),
], ids=["en", "zh", "es"])
def test_maths_is_said_in_the_words_of_each_language(lang, matrix, half, thirds, other, vector):
    assert spoken(W, lang) == matrix
    assert spoken(np.array(W), lang) == matrix                      # an array reads as the list it holds
    assert spoken(Fraction(1, 2), lang, fractions=True) == half     # a lesson that writes "1/2"
    assert spoken(Fraction(1, 2), lang) == "0.5"                    # ... else as the screen shows it
    assert spoken(Fraction(-2, 3), lang) == thirds
    assert spoken(Fraction(5, 12), lang) == other
    assert spoken(np.array([3, 4.5, -0.25]), lang) == vector
    assert spoken(-0.0004, lang) == "0"                             # never "minus 0"
    assert spoken(2.675, lang, digits=2) == "2.68"                  # rounded as plain_number rounds
    assert spoken("W_Q", lang) == "W_Q"
    assert spoken(["I", "want"], lang) == ("I，want" if lang == "zh" else "I, want")


def test_a_loss_is_said_as_the_board_writes_it():
    """``sci_said`` says ``sci``'s mantissa and power of ten in words; a loss
    the board writes plainly is said plainly."""
    assert sci_said(4.4e-5, "en") == "4.4 times ten to the minus 5"
    assert sci_said(4.4e-5, "zh") == "4.4 乘以 10 的 负5 次方"
    assert sci_said(2.5e4, "es") == "2.5 por diez a la 4"
    assert sci_said(0.42, "en") == "0.42"


def test_a_matrix_of_one_row_is_a_matrix_and_a_row_vector_its_entries():
    assert spoken([[1, 2]], "en") == "one by two: first row 1, 2"
    assert spoken((1, 2), "en") == "1, 2"


@pytest.mark.parametrize("value, fault", [
    (True, "a number, a text"),
    (None, "a number, a text"),
    ([], "empty"),
    ([[1, 2], [3]], "one length"),
    ([[1, 2], "ab"], "vectors of numbers"),
    ([[1, True]], "vectors of numbers"),
    ([[[1]]], "vectors of numbers"),
    ([[0]] * (MAX_ROWS + 1), f"at most {MAX_ROWS}"),
    ([0] * (MAX_VALUES + 1), f"at most {MAX_VALUES}"),
])
def test_what_cannot_be_said_is_one_line(value, fault):
    with pytest.raises(SpokenError) as err:
        spoken(value, "en")
    assert fault in str(err.value) and "\n" not in str(err.value)


# -- the beats file -----------------------------------------------------------------

def beat_doc(**extra) -> bytes:
    beat = {"id": "a", "key": "a_say", "start": 0, "end": 2, "say": "x", "voice": 0.5,
            "cues": [{"start": 0, "end": 2, "text": "x"}], **extra}
    return json.dumps({"scene": "S", "beats": [beat]}).encode()


def test_a_description_reads_back_as_written_and_is_spoken_after_the_voice():
    b = Beat("a", "a_say", 0.0, 2.0, "x", (Cue(0.0, 2.0, "x"),), 0.5, describe="W is one by one: first row 1.",
             named=True, changes=True)
    [back] = parse(json.dumps({"beats": [b.as_dict()]}).encode(), "S.beats.json").beats
    assert (back.describe, back.named, back.changes) == (b.describe, True, True)
    assert back.quiet == pytest.approx((0.7, 2.0))      # after the voice and a breath, to the beat's end
    silent = Beat("a", "a_say", 1.0, 2.0, "x", (Cue(1.0, 2.0, "x"),))
    assert silent.quiet == (1.0, 2.0) and "describe" not in silent.as_dict() and "changes" not in silent.as_dict()


@pytest.mark.parametrize("extra, fault", [
    ({"describe": 3}, "a description (describe)"),
    ({"describe": "x" * (MAX_TEXT + 1)}, "a description (describe)"),
    ({"named": "yes"}, "named must be true or false"),
    ({"changes": 1}, "changes must be true or false"),
])
def test_a_damaged_description_is_one_line(extra, fault):
    with pytest.raises(BeatsError) as err:
        parse(beat_doc(**extra), "S.beats.json")
    assert fault in str(err.value) and "\n" not in str(err.value)


# -- the verb, on the teacher's scaffold ------------------------------------------------

@pytest.fixture(scope="module")
def lesson_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("lesson")
    assert cli.main(["init", str(folder)]) == 0
    assert cli.main(["new", NAME, "--lesson", str(folder / "lesson.toml")]) == 0
    texts.use_lesson_texts(None)
    return folder


@pytest.fixture
def scene_file(lesson_folder):
    """The teacher's module and lesson; put back as ``new`` wrote them after the test."""
    path, lesson = lesson_folder / "my_scenes" / f"{SNAKE}.py", lesson_folder / "lesson.toml"
    before = path.read_text(encoding="utf-8"), lesson.read_text(encoding="utf-8")
    yield path
    path.write_text(before[0], encoding="utf-8")
    lesson.write_text(before[1], encoding="utf-8")
    texts.use_lesson_texts(None)


def run_scene(folder: Path, tmp_path: Path, lang: str = "en"):
    try:
        return dry_run_file(folder / "my_scenes" / f"{SNAKE}.py", NAME, tmp_path, folder / "lesson.toml", lang)
    finally:
        texts.use_lesson_texts(None)


@pytest.mark.parametrize("lang, intro, result", [
    ("en", "x is 1, 2. W is two by three: first row 1, 0, minus 1; second row 0.5, 1, 2.",
     "y is 2, 2, 3; a box is drawn around it."),
    ("zh", "x 是 1，2。W 是 两行三列：第一行 1，0，负1；第二行 0.5，1，2。", "y 是 2，2，3，外面画上一个方框。"),
    ("es", "x es 1, 2. W es dos por tres: primera fila 1, 0, menos 1; segunda fila 0.5, 1, 2.",
     "y es 2, 2, 3; se dibuja un recuadro a su alrededor."),
], ids=["en", "zh", "es"])
def test_the_scaffold_describes_each_change_in_every_language(lesson_folder, tmp_path, lang, intro, result):
    scene = run_scene(lesson_folder, tmp_path, lang)
    # x = [1, 2], W = [[1, 0, -1], [0.5, 1, 2]] (the scaffold's lesson section): y = [2, 2, 3]
    assert [(b.id, b.changes, b.describe) for b in scene.beats] == [("intro", True, intro), ("result", True, result)]
    assert undescribed(scene) == []
    back = parse(scene.beats_record().to_json().encode("utf-8"), "x")
    assert [b.describe for b in back] == [intro, result]


def test_a_description_follows_an_edit_of_the_lesson(lesson_folder, scene_file, tmp_path):
    lesson = lesson_folder / "lesson.toml"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace(
        "W = [[1, 0, -1], [0.5, 1, 2]]", 'W = [[1, 0, -3], [0.5, 1, 2]]'), encoding="utf-8")
    intro = run_scene(lesson_folder, tmp_path).beats[0].describe
    assert intro.endswith("first row 1, 0, minus 3; second row 0.5, 1, 2.")


def test_a_change_left_undescribed_is_caught_and_a_named_one_passes(lesson_folder, scene_file, tmp_path):
    """The result's description said in the beat before (where y is not drawn yet): the result's beat
    changes the picture and says nothing of it; with names_change=True it says its sentence does."""
    source = scene_file.read_text(encoding="utf-8")
    call = '            self.describe("describe_result", y=y)\n'
    intro = '            self.describe("describe_intro", x=p.x, W=p.W)\n'
    assert call in source and intro in source
    moved = source.replace(call, "").replace(intro, intro + call)
    scene_file.write_text(moved, encoding="utf-8")
    assert undescribed(run_scene(lesson_folder, tmp_path)) == ["result"]
    scene_file.write_text(moved.replace('self.beat("result_say", focus=result)',
                                        'self.beat("result_say", focus=result, names_change=True)'), encoding="utf-8")
    scene = run_scene(lesson_folder, tmp_path)
    assert undescribed(scene) == [] and scene.beats[1].named and not scene.beats[1].describe


def test_a_beat_that_only_waits_changes_nothing(lesson_folder, scene_file, tmp_path):
    source = scene_file.read_text(encoding="utf-8")
    scene_file.write_text(source.replace(
        '        # a question before the beat that shows its answer',
        '        with self.beat("intro_say"):\n            self.wait(1)\n\n'
        '        # a question before the beat that shows its answer'), encoding="utf-8")
    beats = run_scene(lesson_folder, tmp_path).beats
    assert [(b.id, b.changes) for b in beats] == [("intro", True), ("intro-2", False), ("result", True)]


MISUSES = {
    "outside a beat": ('        # a question before the beat that shows its answer',
                       '        self.describe("describe_result", y=y)\n'
                       '        # a question before the beat that shows its answer'),
    "W: a vector of numbers, or a matrix": ('self.describe("describe_intro", x=p.x, W=p.W)',
                                            'self.describe("describe_intro", x=p.x, W=[[1], "ab"])'),
    "a text key of lower-case letters": ('self.describe("describe_result", y=y)',
                                         'self.describe("describe" + "Result", y=y)'),
}


@pytest.mark.parametrize("fault", list(MISUSES))
def test_a_misused_description_stops_the_scene_in_one_line(lesson_folder, scene_file, tmp_path, fault, capsys):
    assert_misuse_stops(scene_file, lambda: run_scene(lesson_folder, tmp_path), NAME, *MISUSES[fault], fault, capsys)


def test_a_teacher_description_needs_its_text_in_every_language(lesson_folder):
    table = lesson_folder / "texts.toml"
    before = table.read_text(encoding="utf-8")
    try:
        table.write_text(re.sub(r'"say_demo\.describe_result" = .*\n', "", before, count=1), encoding="utf-8")
        with pytest.raises(LessonError, match=r"SayDemo .* lacks \[zh\] say_demo.describe_result"):
            texts.use_lesson_texts(lesson_folder)
        table.write_text(before.replace('"say_demo.describe_result" = "y 是 {y}',
                                        '"say_demo.describe_result" = "y 是 {y}{places}'), encoding="utf-8")
        with pytest.raises(LessonError, match=r"say_demo\.describe_result.*places"):   # a verb's argument, no field
            texts.use_lesson_texts(lesson_folder)
    finally:
        table.write_text(before, encoding="utf-8")
        texts.use_lesson_texts(None)
