"""An accepted lesson always renders: hypothesis draws lesson sections inside
the loader's bounds (zeros, repeats, the range's edges, the widest names;
``tests/lessons.py``), and for each scene the lesson is either refused by
the loader in one line naming the file, or the scene dry-runs (every
animation played to its end) with a clean layout at every key moment
(inside the frame, above the subtitle band, no overlap, legible) and
readable cues.  Never a traceback in between.

The draws are derandomized, so CI runs the same lessons every time; set
QKV_PROPERTY_EXAMPLES to draw more (and new) lessons while working on a
scene."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.registry import SCENES
from tests.helpers import assert_clean_layout, assert_readable_beats, dry_run, toml_text
from tests.lessons import SECTIONS

EXAMPLES = int(os.environ.get("QKV_PROPERTY_EXAMPLES", "0"))
# No shrinking: each draw is a dry run of a few seconds, and the drawn lesson is printed as it failed.
SETTINGS = settings(max_examples=EXAMPLES or 4, deadline=None, derandomize=not EXAMPLES, database=None,
                    suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])


RENDERED, REFUSED = "rendered", "refused"


def renders_or_is_refused(scene: str, section: str, table: dict, lang: str) -> str:
    """REFUSED (one printable line naming the file and the key) or RENDERED
    (a dry run with a clean layout and readable cues); anything else fails."""
    with tempfile.TemporaryDirectory(prefix="qkv-accepted-") as tmp:
        lesson = Path(tmp) / "lesson.toml"
        lesson.write_text(toml_text({section: table}), encoding="utf-8")
        try:
            load_lesson(lesson, lang)
        except LessonError as err:
            message = str(err)
            assert message.startswith(f"{lesson}: {section}.") and message.isprintable(), message
            OUTCOMES.append(REFUSED)
            return REFUSED
        shown = dry_run(scene, Path(tmp) / "media", lesson=lesson, lang=lang)
        assert_clean_layout(shown)
        assert_readable_beats(shown)
        OUTCOMES.append(RENDERED)
        return RENDERED


# Lessons that once crashed a scene or left the frame, each run every time and each accepted (so it
# must render), but those listed in REFUSED_EDGES.
EDGES = {
    "WorkedExample": [{"x": [3, 4], "W": [[1, 0, 2], [0, 0, -1]]},       # a zero column of W: an empty glass
                      {"x": [3, 4], "W": [[0, 0, 0], [0, 0, 0]]},        # W = 0
                      {"x": [0, 0], "W": [[1, 0, 2], [0, 1, -1]]},       # x = 0
                      {"x": [-100, 100, "1/7", 0, 100, -100], "W": [[100] * 6] * 6},   # refused: 6 rows
                     # the widest numbers taken: long recipes, amounts beside neighbouring glasses
                     {"x": [-1, 1, -1, 1], "W": [[-99.999999] * 4] * 2 + [[99.999999] * 4] * 2},
                     # fractions: the lines do not fit together, each output's line in turn
                     {"x": ["-97/99", "-95/99", "97/99", "95/99"], "W": [["-98/99"] * 4] * 4}],
    "UpProjection": [{"point": [3, 4], "W": [[0, 0, 0], [0, 0, 0]]},     # W = 0: refused (rank 2 to lift a plane)
                     {"point": [0, 0], "W": [[1, 2, 0], [2, 4, 0]]},      # rank 1: refused
                     {"point": [3, 4], "W": [[1, 0, 0], [0, 1, 0]]},      # a zero lift: the plane stays flat
                     {"point": [-5, 5], "W": [[4, -4, 4], [-4, 4, 4]]},
                     # a fraction read off at 22.8 px; x W's name under the name of an axis once turned
                     {"point": ["-4/9", 1], "W": [[1, 1, -3.32], [2.0, 2.0, 1]], "contrast_rotation_degrees": 360,
                      "contrast_stretch": [2.0, "5/2"]}],
    # b's name under its tip in the subtitle band; eight numbers wider than their bars
    "DotProductSoftmax": [{"vector_a": [-3, -3], "vector_b_length": 3, "scores": [10] * 8},
                          # a's name on the angle's, b's on both
                          {"vector_a": [0.34, -1], "vector_b_length": 3, "scores": [-2.81, "5/2", -5.0]}],
    # the widest the loader accepts: six tokens of 4 q/k and 4 v dimensions, names at their limits,
    # entries of q (-9.99), k (-2.49) and v (-9.99) and scores (99.50) as wide as they are written
    "AttentionMatching": [{
        "tokens": [{"zh": "非非非" + c, "en": "mmmm" + c} for c in "abcdef"],
        "traits": [{"zh": "甲", "en": "a"}], "embeddings": [[2.4975], [-2.4975]] * 3,
        "qk_dims": [{"zh": "非非非非非" + c, "en": "mmmmm" + c} for c in "abcd"],
        "v_dims": [{"zh": "非非非非非" + c, "en": "mmmmm" + c} for c in "efgh"],
        "W_Q": [[-4] * 4], "W_K": [[-0.997] * 4], "W_V": [[-4] * 4], "focus": 0, "query": 0,
        "causal_mask": True}],
    # twelve traits and four dimensions at their widest, x at +-4, W at -4
    "QKVProjection": [{
        "tokens": [{"zh": "非非非非非非甲", "en": "mmmmmma"}] * 3,
        "traits": [{"zh": "非非非非非非非" + c, "en": "mmmmmmmm" + c} for c in "acefgijklrst"],
        "embeddings": [[4, -4] * 5 + [4, "-1/100"]] * 3,
        "qk_dims": [{"zh": "非非非非非" + c, "en": "mmmmm" + c} for c in "abcd"],
        "v_dims": [{"zh": "非非非非非" + c, "en": "mmmmm" + c} for c in "efgh"],
        "W_Q": [[-4] * 4, [-4] * 4, [-1.2] * 4] + [[0] * 4] * 9, "W_K": [[-4] * 4, [-4] * 4] + [[0] * 4] * 10,
        "W_V": [[-4] * 4, [-4] * 4, [-2.4] * 4] + [[0] * 4] * 9, "focus": 1, "query": 2}],
    # six guests with names at their widest (a short run)
    # names at their widest (12 to 13 letters: the shipped "programador" is 12.4): six guests, one line a
    # row and the plane under the table; four, two lines a row and the plane beside it, at its narrowest
    "RolesEmerge": [{"jobs": [{"zh": "非非非非非" + z, "en": "mmmmmm" + c}
                              for z, c in zip("甲乙丙丁戊己庚", "abcdefg")],
                     "people": people, "steps": 10, "batch": 1, "snapshots": 4, "heldout": 8} for people in (6, 4)],
}


# (scene, index in EDGES) of the edge cases the loader must refuse
REFUSED_EDGES = {("WorkedExample", 3), ("UpProjection", 0), ("UpProjection", 1)}

# Scenes whose edges are numbers only (no names of the lesson's own): the
# numbers are written alike in every language, so each accepted edge renders
# in one language, zh and en in turn (the draws still take both), not both.
NUMBERS_ONLY = {"WorkedExample", "UpProjection", "DotProductSoftmax"}


def _names(value) -> bool:
    """Whether ``value`` holds a name (a table of words by language) anywhere."""
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and any(_names(v) for v in value)


def edge_languages(scene: str, index: int, refused: bool) -> tuple[str, ...]:
    """The languages an edge is tried in: both, but one (zh, en in turn) for
    an accepted edge of a numbers-only scene (a refusal costs no render)."""
    if scene in NUMBERS_ONLY and not refused:
        assert not _names(list(EDGES[scene][index].values())), f"{scene}'s edge {index} names something"
        return (("zh", "en")[index % 2],)
    return ("zh", "en")


OUTCOMES: list[str] = []     # what each drawn lesson came to (renders_or_is_refused), in order


def _case(info):
    strategy = st.tuples(SECTIONS[info.lesson_section], st.sampled_from(["zh", "en"]))

    @SETTINGS
    @given(drawn=strategy)
    def run(drawn):
        renders_or_is_refused(info.name, info.lesson_section, drawn[0], drawn[1])

    return run


@pytest.mark.parametrize("info", SCENES, ids=lambda s: s.name)
def test_an_accepted_lesson_renders_or_is_refused(info):
    """Every scene of the registry: the edge cases have the outcome they
    must (accepted ones render), and of the drawn lessons the accepted
    ones render; a loader that refused every draw would fail here."""
    for i, table in enumerate(EDGES.get(info.name, [])):
        want = REFUSED if (info.name, i) in REFUSED_EDGES else RENDERED
        for lang in edge_languages(info.name, i, want == REFUSED):
            assert renders_or_is_refused(info.name, info.lesson_section, table, lang) == want, (i, lang, table)
    OUTCOMES.clear()
    _case(info)()
    assert RENDERED in OUTCOMES, f"the loader refused all {len(OUTCOMES)} drawn lessons of {info.lesson_section}"
