"""Where a scene is cut (``qkv_lens.app.costs``): by what its last split
measured, so the dearest piece costs the least; what is kept is checked
when read back."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from qkv_lens.app import costs, segments
from qkv_lens.app.costs import Costs
from qkv_lens.app.render import Job, Options
from qkv_lens.registry import find


def uneven() -> Costs:
    """Drawing costs 1 a second for 30 s, then 4 a second to 60 s;
    skipping 0.2 a second."""
    t = np.array([0.0, 30.0, 60.0])
    return Costs(60.0, (t, np.array([0.0, 30.0, 150.0])), (t, 0.2 * t))


def dearest(c: Costs, starts: list[float]) -> float:
    return max(c.piece(a, b) for a, b in zip(starts, [*starts[1:], c.seconds]))


@pytest.mark.parametrize("pieces", [2, 3])
def test_cuts_leave_no_cheaper_way_to_split(pieces):
    c = uneven()
    starts = costs.cuts(c, pieces)
    assert len(starts) == pieces and starts[0] == 0.0 and starts == sorted(starts)
    grid = np.linspace(0.0, 60.0, 241)[1:-1]
    others = ([[0.0, a] for a in grid] if pieces == 2 else
              [[0.0, a, b] for a in grid for b in grid if b > a])
    assert dearest(c, starts) <= min(dearest(c, o) for o in others) + 1e-6
    # the costly end is drawn by the later pieces in shorter stretches than an even split gives
    assert starts[1] > 60.0 / pieces


def test_an_even_plan_and_a_measured_one_differ_where_the_cost_is_uneven():
    even = costs.cuts(Costs.even(60.0, 0.2), 2)
    assert costs.cuts(uneven(), 2)[1] > even[1]          # the dear second half draws less


def test_what_a_split_measured_is_its_drawing_and_skipping_costs():
    first = {"plays": [[0.0, 2.0], [10.0, 5.0], [20.0, 9.0], [20.0, 9.5]], "end": {"time": 20.0}}
    second = {"start": {"time": 20.0}, "plays": [[0.0, 2.0], [10.0, 2.5], [20.0, 3.0], [30.0, 7.0], [40.0, 11.0]]}
    c = costs.learned([first, second])
    assert c.seconds == 40.0
    assert c.draw(10.0) == pytest.approx(3.0) and c.draw(20.0) == pytest.approx(7.5)   # the tear-down's 0.5 too
    assert c.draw(40.0) == pytest.approx(15.5)
    assert c.skip(20.0) == pytest.approx(1.0)
    assert c.skip(40.0) == pytest.approx(2.0)           # past what was skipped: at its mean rate
    assert costs.learned([{"plays": [[0.0, 1.0], [5.0, "x"]]}]) is None
    assert costs.learned([{"plays": [[0.0, 1.0], [5.0, 0.5]]}]) is None      # CPU time never runs back
    assert costs.learned([{"plays": []}]) is None


def test_kept_costs_come_back_and_tampered_ones_are_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("QKV_CACHE_DIR", str(tmp_path))
    costs.keep(uneven(), "S", "en", "l")
    back = costs.kept("S", "en", "l")
    assert back is not None and back.seconds == 60.0 and costs.cuts(back, 2) == costs.cuts(uneven(), 2)
    assert costs.kept("S", "zh", "l") is None and costs.kept("S", "en", "m") is None
    path = tmp_path / "pieces" / "S.en.l.json"
    good = json.loads(path.read_text())
    for bad in ({**good, "seconds": -1}, {**good, "seconds": math.inf}, {**good, "drawn": [[0, 0], [5, 3], [4, 4]]},
                {**good, "drawn": [[1, 0], [5, 3]]}, {**good, "skipped": [[0, 0], [5, "nan"]]},
                {**good, "drawn": []}, {"seconds": 60}, [1, 2]):
        path.write_text(json.dumps(bad))
        assert costs.kept("S", "en", "l") is None, bad
    path.write_bytes(b"\xff not json")
    assert costs.kept("S", "en", "l") is None
    path.write_bytes(b" " * (costs.LIMIT + 1))
    assert costs.kept("S", "en", "l") is None


def test_a_scene_is_cut_by_its_kept_costs_stretched_to_its_new_length(tmp_path, monkeypatch):
    monkeypatch.setenv("QKV_CACHE_DIR", str(tmp_path))
    job, opts = Job(find("WorkedExample"), "en", "k"), Options(out=tmp_path)

    class Found:
        beats = [type("B", (), {"end": 120.0})()]
    monkeypatch.setattr(segments, "earlier_beats", lambda job, opts: Found)
    assert segments.planned(job, opts, tmp_path, 2) == segments.plan(120.0, 2)          # nothing kept: even
    costs.keep(uneven(), "WorkedExample", "en", "l")
    starts = segments.planned(job, opts, tmp_path, 2)
    assert starts == pytest.approx([2 * t for t in costs.cuts(uneven(), 2)])              # 60 s measured, 120 s now
