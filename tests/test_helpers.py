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
