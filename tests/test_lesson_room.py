"""What a frame has no room for is refused by the loader, in one line naming
the key and why (an accepted lesson always renders: tests/test_accepted_renders.py).
One case per rule; each names the key it refuses."""
from __future__ import annotations

import pytest

from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.lesson.widths import letters_wide
from tests.helpers import ROOT, toml_value


def names(*texts: str, zh: str = "甲") -> str:
    return toml_value([{"zh": zh, "en": t} for t in texts])


@pytest.mark.parametrize("content, where, part", [
    (f"[training]\npeople = 6\njobs = {names(*['mmmmmm' + c for c in 'abcdefg'])}\n", "training.jobs[0].en",
     "expected a name at most 10 letters wide with 6 guests (training.people), to fit a row of the party table, "
     "found 'mmmmmma': "),
])
def test_what_the_frame_cannot_hold_is_refused(tmp_path, content, where, part):
    path = tmp_path / "bad.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LessonError) as err:
        load_lesson(path)
    message = str(err.value)
    assert message.startswith(f"{path}: {where}: ") and "\n" not in message and message.isprintable(), message
    assert part in message, message


def test_letters_wide_counts_a_chinese_character_as_two_and_m_nearly_two():
    assert letters_wide("苹果", "zh") == pytest.approx(4.0)
    assert 1.7 < letters_wide("m", "en") < 2.0 and letters_wide("i", "en") < 0.7
    assert 6.5 < letters_wide("teacher", "en") < 7.5


def test_the_shipped_lesson_is_accepted():
    load_lesson(ROOT / "lesson.toml")
