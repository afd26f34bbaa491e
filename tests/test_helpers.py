"""The layout check itself must catch what it is for; the test harness
(xdist groups) does what conftest.py says."""
import re
import subprocess
import sys

from scenes.kit.moments import Label, Moment
from tests.helpers import ROOT, layout_problems


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


def test_layout_enforces_the_legibility_floor():
    """A label whose glyphs are drawn under 24 px at 1080p is flagged; one
    at the floor is not.  Measured on real typeset text, not a stub."""
    from manim import MathTex, Matrix, Text

    from scenes.kit.moments import collect_labels

    def problems(mob):
        return [p for p in layout_problems(Moment("m", collect_labels([mob]))) if "too small" in p]

    unit = 8 / 1080                                            # scene units per pixel at 1080p
    big, small = Text("中8", font_size=24), Text("中8", font_size=12)
    assert problems(big) == [] and problems(small)
    assert problems(MathTex("0.25", font_size=30)) == [] and problems(MathTex("0.25", font_size=18))
    tall = Text("中").scale_to_fit_height(24 * unit)
    assert problems(tall) == [] and problems(tall.copy().scale(0.9))
    # a matrix is as small as its smallest entry, whatever its brackets
    assert problems(Matrix([[1, 2]]).scale(0.7)) == [] and problems(Matrix([[1, 2]]).scale(0.3))


def test_layout_catches_an_outline_left_without_its_text():
    """Text faded out by hand (fill only) leaves its dark outline as a smudge."""
    from manim import Text

    from scenes.kit.moments import collect_labels
    from scenes.kit.motion import crossfade
    from scenes.kit.text import outline_labels

    old, new = Text("old"), Text("new")
    outline_labels(old, new)
    old.set_fill(opacity=0)                       # the fill fades, the outline does not
    assert any("outline" in p for p in layout_problems(Moment("m", collect_labels([old]))))
    fade = crossfade(old.set_fill(opacity=1), new)
    fade.interpolate(1.0)                         # the kit's cross-fade fades both together
    assert not any("outline" in p for p in layout_problems(Moment("m", collect_labels([old, new]))))


def test_layout_reads_every_digit_of_a_tick_number():
    """A tick number's exponent is read too: ``10^{-2}`` is as small as its
    exponent's digits, on loss axes and on manim's own axes alike."""
    import numpy as np
    from manim import Axes, MathTex

    from scenes.kit.boards import LossAxes
    from scenes.kit.moments import collect_labels

    def small(*mobs):
        return [p for p in layout_problems(Moment("m", collect_labels(mobs))) if "too small" in p]

    # the digits of 10 are drawn at 27 px, its exponent's at 18: too small
    assert small(MathTex("10^{-2}", font_size=28))
    assert small(MathTex(r"4.4 \times 10^{-5}", font_size=30))
    assert small(MathTex("10^{-2}", font_size=40)) == []
    assert small(MathTex(r"4.4 \times 10^{-5}", font_size=40)) == []
    losses = 1.5 * 0.98 ** np.arange(400)
    board = LossAxes(losses, 400, "en", "steps", "loss")
    ticks = [lab for lab in collect_labels([board]) if lab.kind == "MathTex"]
    assert any("^" in lab.content for lab in ticks) and small(board) == []
    assert any("10^" in p for p in small(board.copy().scale(0.8)))      # the exponents drop under the floor
    axes = Axes(x_range=[0, 3, 1], y_range=[0, 3, 1], x_length=3, y_length=3,
                axis_config={"include_numbers": True, "font_size": 16})
    assert len(small(axes)) == 4                                        # manim's numbers are seen too


def test_tests_sharing_a_module_render_share_a_worker():
    """Under ``make test`` (``-n 2 --dist loadgroup``) the tests that use a
    render module's module-scoped fixture carry its group (the scheduler
    sends a group to one worker, so the fixture is made once); a test of
    such a module that uses none goes to either worker."""
    grouped = ["tests/test_voice.py::test_recording_in_another_format_is_converted",
               "tests/test_voice.py::test_cache_key_follows_the_voice_and_the_recordings"]
    free = "tests/test_render.py::test_list_names_every_scene"
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
                          "-v", *grouped, free], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:]
    ran = {test: worker for worker, test in re.findall(   # each test's worker, from pytest -v
       r"^\[(gw\d)\] .*PASSED (\S+)", run.stdout, re.M)}
    assert set(ran) == {f"{t}@test_voice" for t in grouped} | {free}, run.stdout[-2000:]
    assert len({ran[f"{t}@test_voice"] for t in grouped}) == 1


def test_label_owner_problems_finds_a_label_read_as_another_points():
    from tests.helpers import label_owner_problems

    apple, banana = (0.0, 0.0), (1.0, 0.0)
    beside_banana = (1.1, -0.1, 1.8, 0.2)          # "apple" written right of banana's point
    beside_apple = (0.1, -0.1, 0.8, 0.2)
    assert label_owner_problems([("apple", apple, beside_banana), ("banana", banana, None)])
    assert not label_owner_problems([("apple", apple, beside_apple), ("banana", banana, None)])
    over = (0.9, -0.1, 1.6, 0.2)                    # over banana's point itself
    assert any("covers" in p for p in label_owner_problems([("apple", (0.5, 0.0), over), ("banana", banana, None)]))
    # points at one spot share their names: no problem between them
    assert not label_owner_problems([("a", apple, beside_apple), ("b", apple, None)])


def test_change_problems_wants_the_change_in_its_own_beat():
    from types import SimpleNamespace

    from tests.helpers import change_problems

    beats = [SimpleNamespace(key="a_say", start=0.0, end=4.0), SimpleNamespace(key="b_say", start=4.0, end=9.0)]
    scene = SimpleNamespace(beats=beats, moments={"m": Moment("m", [], time=6.5)})
    assert not change_problems(scene, "m", "b_say")
    assert change_problems(scene, "m", "a_say")                 # said before it happens
    assert change_problems(scene, "m", "b_say", most=2.0)       # 2.5 s into its sentence
    assert change_problems(scene, "missing", "b_say")
