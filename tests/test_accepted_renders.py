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
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.registry import SCENES
from tests.helpers import assert_clean_layout, assert_readable_beats, dry_run, toml_text
from tests.lessons import SECTIONS

EXAMPLES = int(os.environ.get("QKV_PROPERTY_EXAMPLES", "0"))
# No shrinking: each draw is a dry run of a few seconds, and the drawn lesson is printed as it failed.
SETTINGS = settings(max_examples=EXAMPLES or 4, deadline=None, derandomize=not EXAMPLES, database=None,
                    suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])


def renders_or_is_refused(scene: str, section: str, table: dict, lang: str) -> None:
    with tempfile.TemporaryDirectory(prefix="qkv-accepted-") as tmp:
        lesson = Path(tmp) / "lesson.toml"
        lesson.write_text(toml_text({section: table}), encoding="utf-8")
        try:
            load_lesson(lesson, lang)
        except LessonError as err:      # refused: one printable line naming the file and the key
            message = str(err)
            assert message.startswith(f"{lesson}: {section}.") and message.isprintable(), message
            return
        shown = dry_run(scene, Path(tmp) / "media", lesson=lesson, lang=lang)
        assert_clean_layout(shown)
        assert_readable_beats(shown)


# Lessons that once crashed a scene or left the frame, each drawn every run.
EDGES = {
    "WorkedExample": [{"x": [3, 4], "W": [[1, 0, 2], [0, 0, -1]]},       # an empty glass
                      {"x": [3, 4], "W": [[0, 0, 0], [0, 0, 0]]},        # W = 0
                      {"x": [0, 0], "W": [[1, 0, 2], [0, 1, -1]]},       # x = 0
                      {"x": [-100, 100, "1/7", 0, 100, -100], "W": [[100] * 6] * 6},   # refused: 6 rows
                     # the widest numbers taken: long recipes, amounts beside neighbouring glasses
                     {"x": [-1, 1, -1, 1], "W": [[-99.999999] * 4] * 2 + [[99.999999] * 4] * 2},
                     # fractions: the lines do not fit together, each output's line in turn
                     {"x": ["-97/99", "-95/99", "97/99", "95/99"], "W": [["-98/99"] * 4] * 4}],
    "UpProjection": [{"point": [3, 4], "W": [[0, 0, 0], [0, 0, 0]]},     # W = 0
                     {"point": [0, 0], "W": [[1, 2, 0], [2, 4, 0]]},      # rank 1
                     {"point": [-5, 5], "W": [[4, -4, 4], [-4, 4, 4]]}],
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
    "RolesEmerge": [{"jobs": [{"zh": "非非非非" + c, "en": "mmmm" + c} for c in "abcdefg"], "people": 6,
                     "steps": 10, "batch": 1, "snapshots": 4, "heldout": 8}],
}


def _case(info):
    strategy = st.tuples(SECTIONS[info.lesson_section], st.sampled_from(["zh", "en"]))
    edges = EDGES.get(info.name, [])

    @SETTINGS
    @given(drawn=strategy)
    def run(drawn):
        renders_or_is_refused(info.name, info.lesson_section, drawn[0], drawn[1])

    for table in edges:
        for lang in ("zh", "en"):
            run = example(drawn=(table, lang))(run)
    return run


# The scenes whose layout holds every accepted lesson (the others are being fitted, one by one).
READY = {"AttentionMatching", "DotProductSoftmax", "PhotoFilter", "QKVProjection", "RolesEmerge", "RoleSwap",
         "ShadowProjection", "SpaceDeformation", "ThreeLenses", "UpProjection", "WorkedExample"}


@pytest.mark.parametrize("info", [s for s in SCENES if s.name in READY], ids=lambda s: s.name)
def test_an_accepted_lesson_renders_or_is_refused(info):
    _case(info)()
