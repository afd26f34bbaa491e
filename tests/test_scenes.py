"""What every scene owes a learner, checked on each scene in each language
(the shipped lesson, dry-run): a clean layout at every key moment (inside
the frame, above the subtitle band, legible, outlined, no overlap), readable
cues, formulas typeset, never shown as TeX-like source in plain text, text
at 4.5:1 against the dark outline behind it, and, for the scenes that
describe their pictures (``DESCRIBED``), every change of the picture
described or named by its sentence."""
from __future__ import annotations

import pytest

from qkv_lens.languages import offered
from qkv_lens.registry import SCENES
from tests.helpers import assert_clean_layout, assert_readable_beats, faint_labels, undescribed

# an unset subscript, a root written out, a float's exponent: source a reader should not see
RAW_FORMULA = ("_", "√d", "e-0")
CASES = [(info, lang) for info in SCENES for lang in offered()]   # every language of the text tables
IDS = [f"{info.name}-{lang}" for info, lang in CASES]
# The scenes whose every beat that changes the picture has a description (``self.describe``) or says its
# sentence names the change (``self.beat(..., names_change=True)``), in every language (issue 42). A scene
# joins this list once its beats say all they show; in the end, every scene.
DESCRIBED: tuple[str, ...] = ("SpaceDeformation", "ThreeLenses", "PhotoFilter", "ShadowProjection", "UpProjection",
                              "WorkedExample", "QKVProjection", "DotProductSoftmax", "AttentionMatching",
                              "RolesEmerge", "RoleSwap")
DESCRIBED_CASES = [(info, lang) for info, lang in CASES if info.name in DESCRIBED]


@pytest.mark.parametrize("info, lang", CASES, ids=IDS)
def test_layout(info, lang, dry):
    assert_clean_layout(dry(info.name, lang), frame_use_floor=True)   # the shipped lesson uses the frame


@pytest.mark.parametrize("info, lang", CASES, ids=IDS)
def test_beats_are_readable(info, lang, dry):
    assert_readable_beats(dry(info.name, lang))


@pytest.mark.parametrize("info, lang", CASES, ids=IDS)
def test_text_labels_hold_no_raw_formulas(info, lang, dry):
    scene = dry(info.name, lang)
    raw = [(m.name, lab.content) for m in scene.moments.values() for lab in m.labels
           if lab.kind in ("Text", "MarkupText") and any(s in lab.content for s in RAW_FORMULA)]
    assert not raw, raw


@pytest.mark.parametrize("info, lang", CASES, ids=IDS)
def test_labels_read_at_4_5_to_1(info, lang, dry):
    assert not faint_labels(dry(info.name, lang))


@pytest.mark.parametrize("info, lang", DESCRIBED_CASES, ids=[f"{i.name}-{lang}" for i, lang in DESCRIBED_CASES])
def test_every_change_is_described_or_named(info, lang, dry):
    scene = dry(info.name, lang)
    assert not undescribed(scene), f"beats that change the picture and say nothing of it: {undescribed(scene)}"
