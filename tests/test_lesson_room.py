"""What a frame has no room for is refused by the loader, in one line naming
the key and why (an accepted lesson always renders: tests/test_accepted_renders.py).
One case per rule; each names the key it refuses."""
from __future__ import annotations

import pytest

from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.lesson.widths import letters_wide
from tests.helpers import LESSON, toml_text, toml_value

try:
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

SHIPPED = tomllib.loads(LESSON.read_text(encoding="utf-8"))
# apples' first five traits, each times 4 (the weights the cases below put in every row): its q or v entry
APPLES_FIVE = 4 * sum(float(v) for v in SHIPPED["attention"]["embeddings"][3][:5])


def names(*texts: str, zh: str = "甲") -> str:
    return toml_value([{"zh": zh, "en": t} for t in texts])


def attention(**changes) -> str:
    """The shipped [attention] section with ``changes`` (key: value, or "key.i.lang": name)."""
    table = {k: v for k, v in SHIPPED["attention"].items()}
    for key, v in changes.items():
        if "." in key:
            key, i, lang = key.split(".")
            table[key] = [dict(item) for item in table[key]]
            table[key][int(i)][lang] = v
        else:
            table[key] = v
    return toml_text({"attention": table})


def widest_scores() -> str:
    """q and k of 9.99 in each of four dimensions: a score of 399."""
    two = [{"zh": "甲", "en": "a"}, {"zh": "乙", "en": "b"}]
    four = two + [{"zh": "丙", "en": "c"}, {"zh": "丁", "en": "d"}]
    return toml_text({"attention": {"tokens": two, "traits": two[:1], "embeddings": [[2.4975], [2.4975]],
                                    "qk_dims": four, "v_dims": two[:1], "W_Q": [[4] * 4], "W_K": [[4] * 4],
                                    "W_V": [[1]], "focus": 0, "query": 1}})


@pytest.mark.parametrize("content, where, part", [
    (f"[training]\npeople = 6\njobs = {names(*['mmmmmmm' + c for c in 'abcdefg'])}\n", "training.jobs[0].en",
     "expected a name at most 13 letters wide with 6 guests (training.people), to fit a row of the party table, "
     "found 'mmmmmmma': "),
    (attention(**{"tokens.3.en": "m" * 8}), "attention.tokens[3].en",
     "expected a name at most 12 letters wide with 4 tokens, to stand over a column of the score grid"),
    (attention(**{"traits.0.en": "m" * 10}), "attention.traits[0].en", "at most 16 letters wide"),
    (attention(**{"qk_dims.0.en": "m" * 7}), "attention.qk_dims[0].en", "at most 12 letters wide"),
    (attention(**{"v_dims.1.zh": "非" * 7}), "attention.v_dims[1].zh", "found '非非非非非非非': 14.0 letters wide"),
    # the tokens named in the lesson's language
    ('language = "en"\n' + attention(W_Q=[[4, 0, 0]] * 5 + [[0, 0, 0]] * 3), "attention.W_Q",
     "keep every entry of q = x W_Q within ±9.99 (one digit before the point, written beside each token), "
     f"found {APPLES_FIVE:.2f} (q of 'apples', 'food')"),
    ('language = "en"\n' + attention(W_V=[[0, 0, 4]] * 8), "attention.W_V",
     f"found {APPLES_FIVE:.2f} (v of 'apples', 'person')"),
    ('language = "zh"\n' + attention(W_V=[[0, 0, 4]] * 8), "attention.W_V",
     f"found {APPLES_FIVE:.2f} (v of '苹果', '人物')"),
    (widest_scores(), "attention.W_K", "every score q · k within ±99.99 (a cell of the score grid), found 399.20"),
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
    load_lesson(LESSON)
