"""Checkpoints (issue 41): a question a scene declares between two beats
(``LessonScene.checkpoint``), recorded on the beat that answers it in the
beats file, read back as untrusted input; the lesson keys that turn them off
and set the pass score, which no render depends on."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qkv_lens import texts
from qkv_lens.app import cli
from qkv_lens.app.cache import cache_key
from qkv_lens.beats import MAX_CHOICES, Ask, BeatsError, CheckpointError, ask, parse
from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.registry import by_class
from tests.helpers import LESSON, assert_misuse_stops, dry_run_file

NAME, SNAKE = "AskDemo", "ask_demo"


# -- the record: one checked Ask --------------------------------------------------

def test_a_choice_and_a_number_question():
    q = ask("which_key", "Which key?", "Look at the scores.", choices=["I", "want", "to eat"], answer=2)
    assert (q.shown, q.number) == ("to eat", None)
    assert q.right("to eat") and not q.right("want")
    n = ask("third", "The third entry?", "Add the terms.", number=2.675, places=2)
    assert n.shown == "2.68"                         # half away from zero, as by hand
    assert n.right("2.68") and n.right("2.67") and n.right("2,675") and not n.right("2.66")
    assert not n.right("two") and not n.right("nan")
    whole = ask("det", "The determinant?", "It flattens.", number=0.0, places=0)
    assert whole.shown == "0" and whole.right("0") and whole.right("-0.4") and not whole.right("1")
    # read as the page reads what a learner types: digits, a point or a comma, spaces ignored, 16 at most
    assert whole.right(" \u22120.4 ") and not whole.right("0_0") and not whole.right("0" * 17) and not whole.right("")


@pytest.mark.parametrize("kwargs, fault", [
    (dict(choices=["a", "b"], answer=2), "answer must be the index of the right choice, 0 to 1"),
    (dict(choices=["a", "b"], answer=True), "answer must be the index"),
    (dict(choices=["a", "a"], answer=0), "two choices are the same"),
    (dict(choices=["a"], answer=0), "a list of 2 to"),
    (dict(choices=[str(i) for i in range(MAX_CHOICES + 1)], answer=0), "a list of 2 to"),
    (dict(choices="ab", answer=0), "a list of 2 to"),
    (dict(choices=["a", "b\nc"], answer=0), "printable"),
    (dict(choices=["a", "b"], answer=0, number=1), "give choices= and answer=, or number="),
    (dict(), "give choices= and answer=, or number="),
    (dict(number=float("nan")), "finite"),
    (dict(number=1e12), "finite and at most"),
    (dict(number="3"), "number must be a number"),
    (dict(number=3, places=7), "places must be a whole number from 0 to 6"),
    (dict(number=3, answer=0), "answer= goes with choices="),
    (dict(choices=["a", "b"], answer=0, places=1), "places= goes with number="),
])
def test_a_checkpoint_that_cannot_be_asked_is_one_line(kwargs, fault):
    with pytest.raises(CheckpointError) as err:
        ask("k", "Q?", "W.", **kwargs)
    assert fault in str(err.value) and "\n" not in str(err.value)


def beats_doc(ask_doc: dict | None) -> bytes:
    beat = {"id": "a", "key": "a_say", "start": 0, "end": 1, "say": "x", "cues": [{"start": 0, "end": 1,
                                                                                  "text": "x"}]}
    second = dict(beat, id="b", start=1, end=2, cues=[{"start": 1, "end": 2, "text": "y"}])
    if ask_doc is not None:
        second["ask"] = ask_doc
    return json.dumps({"scene": "S", "beats": [beat, second]}).encode()


def test_a_checkpoint_reads_back_as_written():
    for q in (ask("k", "Which?", "No.", choices=["I", "want"], answer=1),
              ask("n", "How much?", "It is {x}.", number=-1 / 3, places=3)):
        back = parse(beats_doc(q.as_dict()), "S.beats.json")
        assert back.beats[1].ask == q and back.beats[0].ask is None


@pytest.mark.parametrize("doc, fault", [
    ({"key": "k", "question": "Q", "wrong": "W", "choices": ["a", "b"], "answer": 5, "shown": "a"}, "answer must"),
    ({"key": "k", "question": "Q", "wrong": "W", "choices": ["a", "b"], "answer": 0, "shown": "b"},
     "not written as it is given"),
    ({"key": "k", "question": "Q", "wrong": "W", "number": 2.5, "places": 0, "shown": "2"},
     "not written as it is given"),
    ({"key": "k", "question": "Q", "wrong": "W", "number": 2, "places": 0, "shown": "2", "script": "x"},
     "not a table of its fields"),
    ({"key": "../k", "question": "Q", "wrong": "W", "number": 2, "places": 0, "shown": "2"}, "a text key"),
    ({"key": "k", "question": "Q" * 5000, "wrong": "W", "number": 2, "places": 0, "shown": "2"}, "question"),
    ([1, 2], "not a table"),
])
def test_a_damaged_checkpoint_is_one_line(doc, fault):
    with pytest.raises(BeatsError) as err:
        parse(beats_doc(doc), "S.beats.json")
    message = str(err.value)
    assert message.startswith("S.beats.json: damaged beats file (beat 1:") and fault in message, message
    assert "\n" not in message


def test_number_constants_json_refuses_are_refused():
    data = beats_doc({"key": "k", "question": "Q", "wrong": "W", "number": 1, "places": 0, "shown": "1"})
    with pytest.raises(BeatsError, match="not a number JSON allows"):
        parse(data.replace(b'"number": 1', b'"number": NaN'), "S.beats.json")


# -- the verb: LessonScene.checkpoint ---------------------------------------------

@pytest.fixture(scope="module")
def lesson_folder(tmp_path_factory) -> Path:
    """A lesson folder with a teacher's scene made by ``qkv-lens new`` (it declares one checkpoint)."""
    folder = tmp_path_factory.mktemp("lesson")
    assert cli.main(["init", str(folder)]) == 0
    assert cli.main(["new", NAME, "--lesson", str(folder / "lesson.toml")]) == 0
    texts.use_lesson_texts(None)
    return folder


@pytest.fixture
def scene_file(lesson_folder):
    """The teacher's module; put back as ``new`` wrote it after the test."""
    path = lesson_folder / "my_scenes" / f"{SNAKE}.py"
    before = path.read_text(encoding="utf-8")
    yield path
    path.write_text(before, encoding="utf-8")
    texts.use_lesson_texts(None)


def run_scene(lesson_folder: Path, tmp_path: Path, lang: str = "en"):
    return dry_run_file(lesson_folder / "my_scenes" / f"{SNAKE}.py", NAME, tmp_path, lesson_folder / "lesson.toml",
                        lang)


def test_the_scaffold_asks_before_the_beat_that_shows_y(lesson_folder, scene_file, tmp_path):
    scene = run_scene(lesson_folder, tmp_path)
    asked = [(b.id, b.ask) for b in scene.beats]
    assert [a is not None for _, a in asked] == [False, True]
    q: Ask = asked[1][1]
    # [1, 2] x [[1, 0, -1], [0.5, 1, 2]]: the last entry is 1 * -1 + 2 * 2 = 3
    assert (q.key, q.number, q.places, q.shown) == ("last_entry", 3.0, 2, "3")
    assert q.question.startswith("(edit me) What is the last entry")
    assert q.wrong.endswith("summed: 3.")               # {answer}: the answer as written
    back = parse(scene.beats_record().to_json().encode(), "x")
    assert back.beats[1].ask == q


def test_an_edited_lesson_changes_the_answer(lesson_folder, scene_file, tmp_path):
    lesson = lesson_folder / "lesson.toml"
    before = lesson.read_text(encoding="utf-8")
    try:
        lesson.write_text(before.replace("W = [[1, 0, -1], [0.5, 1, 2]]", 'W = [[1, 0, -1], [0.5, 1, "1/3"]]'),
                          encoding="utf-8")
        q = run_scene(lesson_folder, tmp_path).beats[1].ask
    finally:
        lesson.write_text(before, encoding="utf-8")
    assert q.number == pytest.approx(-1 / 3) and q.shown == "-0.33" and q.right("-0.33")


MISUSES = {
    "inside a beat": ('        with self.beat("result_say", focus=result):',
                      '        with self.beat("result_say", focus=result):\n'
                      '            self.checkpoint("last_entry", number=1)'),
    "after checkpoint": ('self.checkpoint("last_entry", number=y[-1], places=2)',
                         'self.checkpoint("last_entry", number=y[-1], places=2)\n'
                         '        self.checkpoint("last_entry", choices=["1", "2"], answer=0)'),
    "comes after the last beat": ('            self.key_moment("result", y=[float(v) for v in y])',
                                  '            self.key_moment("result", y=[float(v) for v in y])\n'
                                  '        self.checkpoint("last_entry", number=1)'),
    "answer must be the index of the right choice": (
        'self.checkpoint("last_entry", number=y[-1], places=2)',
        'self.checkpoint("last_entry", choices=["1", "2", "3"], answer=3)'),
    "two choices are the same": (
        'self.checkpoint("last_entry", number=y[-1], places=2)',
        'self.checkpoint("last_entry", choices=["2", "2", "3"], answer=2)'),
}


@pytest.mark.parametrize("fault", list(MISUSES))
def test_a_misused_checkpoint_stops_the_scene_in_one_line(lesson_folder, scene_file, tmp_path, fault, capsys):
    assert_misuse_stops(scene_file, lambda: run_scene(lesson_folder, tmp_path), NAME, *MISUSES[fault], fault, capsys)


def test_a_teacher_checkpoint_needs_its_texts_and_may_use_answer(lesson_folder, scene_file):
    """Its question and its _wrong sentence are texts the scene needs in every
    language; the _wrong sentence may use {answer}, the question may not."""
    table = lesson_folder / "texts.toml"
    before = table.read_text(encoding="utf-8")
    try:
        table.write_text(re.sub(r'"ask_demo\.last_entry_wrong" = .*\n', "", before, count=1), encoding="utf-8")
        with pytest.raises(LessonError, match=r"AskDemo .* lacks \[zh\] ask_demo.last_entry_wrong"):
            texts.use_lesson_texts(lesson_folder)
        mark = '"ask_demo.last_entry" = "（待改）'
        table.write_text(before.replace(mark, mark + "{answer}"), encoding="utf-8")
        with pytest.raises(LessonError, match=r"ask_demo\.last_entry.*answer"):
            texts.use_lesson_texts(lesson_folder)
    finally:
        table.write_text(before, encoding="utf-8")
        texts.use_lesson_texts(None)


# -- the lesson keys: checkpoints and pass_score ----------------------------------

def lesson_with(tmp_path: Path, lines: str) -> Path:
    path = tmp_path / "lesson.toml"
    path.write_text(lines + "\n", encoding="utf-8")
    return path


def test_the_shipped_lesson_asks_and_passes_at_eighty_percent():
    lesson = load_lesson(LESSON)
    assert lesson.checkpoints is True and lesson.pass_score == 0.8


@pytest.mark.parametrize("lines, fault", [
    ('checkpoints = "yes"', "checkpoints: expected true or false, found 'yes'"),
    ("pass_score = 1.5", "pass_score: expected a number from 0 to 1"),
    ("pass_score = true", "pass_score: expected a number from 0 to 1"),
    ("pass_score = nan", "pass_score: expected a number from 0 to 1"),
    ("checkpoint = false", 'checkpoint: unknown key (did you mean "checkpoints"?)'),
])
def test_a_bad_checkpoint_key_is_one_line(tmp_path, lines, fault):
    with pytest.raises(LessonError) as err:
        load_lesson(lesson_with(tmp_path, lines))
    assert fault in str(err.value) and "\n" not in str(err.value)


def test_turning_checkpoints_off_or_the_pass_score_re_renders_nothing(tmp_path):
    off = load_lesson(lesson_with(tmp_path, "checkpoints = false\npass_score = 0.5"))
    assert (off.checkpoints, off.pass_score) == (False, 0.5)
    shipped = load_lesson(LESSON)
    for name in ("WorkedExample", "AttentionMatching"):
        scene = by_class(name)
        assert cache_key(scene, off, "en", "l") == cache_key(scene, shipped, "en", "l")
