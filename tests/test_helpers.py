"""The layout check itself must catch what it is for."""
from scenes.kit.moments import Label, Moment
from tests.helpers import layout_problems


def _m(*boxes):
    return Moment("m", [Label("Text", f"t{i}", b) for i, b in enumerate(boxes)])


def test_layout_flags_overlap_and_out_of_frame():
    assert layout_problems(_m((0, 0, 1, 1), (2, 2, 3, 3))) == []
    assert any("overlaps" in p for p in layout_problems(_m((0, 0, 1, 1), (0.5, 0.5, 1.5, 1.5))))
    assert any("leaves the frame" in p for p in layout_problems(_m((6.5, 0, 7.5, 1))))
    assert any("leaves the frame" in p for p in layout_problems(_m((0, 3.5, 1, 4.2))))
    # touching edges are not an overlap
    assert layout_problems(_m((0, 0, 1, 1), (1.0, 0, 2, 1))) == []


def test_layout_keeps_the_subtitle_band_free():
    # the frame is 8 units high: the band is its bottom 0.96 units (y < -3.04)
    assert layout_problems(_m((0, -3.0, 1, -2.0))) == []
    assert any("subtitle band" in p for p in layout_problems(_m((0, -3.3, 1, -2.5))))


def test_cue_problems_catch_long_lines_and_fast_cues():
    from tests.helpers import cue_problems
    assert cue_problems([(0.0, 5.0, "这句话不长")], "zh") == []
    assert any("characters per second" in p for p in cue_problems([(0.0, 0.5, "这句话不长")], "zh"))
    assert cue_problems([(0.0, 9.0, "a" * 43)], "en")          # a line over 42 characters
    assert cue_problems([(0.0, 9.0, "one\ntwo\nthree")], "en")  # three lines
