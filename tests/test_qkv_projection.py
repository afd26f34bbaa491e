"""QKVProjection: bars and heat-maps show exactly x, W and x W."""

import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from tests.helpers import LESSON, assert_clean_layout, assert_readable_beats, dry_run

SCENE = "QKVProjection"


def expected():
    a = load_lesson(LESSON).params["attention"]
    X = np.array(a.embeddings, dtype=float)
    x = X[a.focus]
    # independent of qkv_math: one dot product per output column
    mats = {n: np.array(getattr(a, n), dtype=float) for n in ("W_Q", "W_K", "W_V")}
    out = {k: np.array([sum(x[i] * W[i, j] for i in range(len(x))) for j in range(W.shape[1])])
           for k, W in zip("qkv", mats.values())}
    return x, mats, out


def test_bars_show_x_and_its_three_projections(scene):
    x, mats, out = expected()
    assert np.allclose(scene.moments["embedding"].probes["x"], x, atol=1e-6)
    end = scene.moments["end"].probes
    for k in "qkv":
        assert np.allclose(end[f"{k}_bars"], out[k], atol=1e-6), k


def test_heat_maps_are_the_lesson_matrices(scene):
    _, mats, _ = expected()
    for k, name in zip("qkv", ("W_Q", "W_K", "W_V")):
        probes = scene.moments[k].probes
        assert np.array_equal(probes["heat"], mats[name])
        nonzero = [f"{v:.1f}" for v in mats[name].ravel() if v != 0]
        assert probes["heat_numbers"] == nonzero


def test_default_story_apple_key_shows_food():
    _, _, out = expected()
    # the key of 苹果 is strongest on the food dimension
    assert np.argmax(out["k"]) == 0


def two_word_lesson(tmp_path, W_K: str, W_V: str):
    """A lesson of two tokens over two traits, one q/k dimension and two v
    dimensions; W_K and W_V as TOML text."""
    lesson = tmp_path / "l.toml"
    lesson.write_text(f"""[attention]
tokens = [{{zh="猫", en="cat"}}, {{zh="坐", en="sat"}}]
traits = [{{zh="动物", en="animal"}}, {{zh="动作", en="action"}}]
embeddings = [[1, 0], [0, 1]]
qk_dims = [{{zh="甲", en="a"}}]
v_dims = [{{zh="乙", en="b"}}, {{zh="丙", en="c"}}]
W_Q = [[1], [-1]]
W_K = {W_K}
W_V = {W_V}
focus = 1
query = 0
""", encoding="utf-8")
    return lesson


def test_six_traits_and_other_focus(tmp_path):
    lesson = two_word_lesson(tmp_path, W_K="[[0.5], [2]]", W_V="[[1, 0], [0, -1]]")
    s = dry_run("QKVProjection", tmp_path, lesson=lesson, lang="en")
    end = s.moments["end"].probes
    assert np.allclose(end["q_bars"], [-1]) and np.allclose(end["v_bars"], [0, -1])
    assert_clean_layout(s)


def expected_terms():
    """Every product x_i W_ij of the focus token, by hand (not qkv_math)."""
    x, mats, out = expected()
    return {k: x[:, None] * W for k, W in zip("qkv", mats.values())}, out


def links(probes):
    """What the drawn flows of one product connect: (trait row, output bar, value shown),
    each read from where the flow starts (the heat-map row it leaves) and ends (the bar it enters)."""
    rows, bars = np.array(probes["heat_rows"]), np.array(probes["bar_rows"])
    return [(int(np.argmin(abs(rows - f["start"][1]))), int(np.argmin(abs(bars - f["end"][1]))), float(f["value"]))
            for f in probes["flows"]]


def test_flows_link_exactly_the_traits_with_a_non_zero_product(scene):
    terms, _ = expected_terms()
    for k in "qkv":
        drawn = {(i, j) for i, j, _ in links(scene.moments[k].probes)}
        assert drawn == {(i, j) for i, j in zip(*np.nonzero(terms[k]))}, k
        # each flow starts level with its trait's row and ends level with its bar
        probes = scene.moments[k].probes
        for f, (i, j, _) in zip(probes["flows"], links(probes)):
            assert abs(f["start"][1] - probes["heat_rows"][i]) < 1e-6
            assert abs(f["end"][1] - probes["bar_rows"][j]) < 1e-6


def test_flows_carry_the_products_and_sum_to_each_bar(scene):
    terms, out = expected_terms()
    for k in "qkv":
        probes = scene.moments[k].probes
        sums = np.zeros(len(out[k]))
        for i, j, value in links(probes):
            assert value == pytest.approx(terms[k][i, j], abs=0.005), (k, i, j)
            sums[j] += value
        shown = probes[f"{k}_bars"]
        assert np.allclose(sums, shown, atol=0.005 * len(terms[k])), k
        assert np.allclose(shown, out[k], atol=1e-6), k


def test_each_bar_is_fed_while_its_flows_are_on_screen(scene):
    # one key moment per fed bar, taken while its products and arrows are drawn
    terms, _ = expected_terms()
    for k in "qkv":
        for j in range(terms[k].shape[1]):
            name = f"{k}_flow_{j}"
            fed = np.count_nonzero(terms[k][:, j])
            assert (name in scene.moments) == bool(fed), name
            if fed:
                values = sorted(float(f["value"]) for f in scene.moments[name].probes["flows"])
                assert values == pytest.approx(sorted(terms[k][:, j][terms[k][:, j] != 0]), abs=0.005)
                shown = {lab.content for lab in scene.moments[name].labels}
                assert {f["value"] for f in scene.moments[name].probes["flows"]} <= shown


def test_narration_names_the_traits_that_feed_a_bar(scene):
    said = dict(scene.said)
    a = load_lesson(LESSON).params["attention"]
    lang = scene.lang
    # the key of 苹果: its food bar is fed by fruit and sweet
    assert a.traits[0].name(lang) in said["k_flow_say"] and a.traits[4].name(lang) in said["k_flow_say"]
    assert a.qk_dims[0].name(lang) in said["k_flow_say"]


def test_a_product_nothing_feeds_says_so(tmp_path):
    lesson = two_word_lesson(tmp_path, W_K="[[2], [0]]", W_V="[[1, 0], [0.5, -1]]")
    s = dry_run("QKVProjection", tmp_path, lesson=lesson, lang="zh")
    keys = [k for k, _ in s.said]
    assert "flow_none_say" in keys and "k_flow_say" not in keys
    assert s.moments["k"].probes["flows"] == [] and np.allclose(s.moments["k"].probes["k_bars"], [0])
    # the negative share of W_V flows too, and the bars sum what flowed in
    assert sorted(float(f["value"]) for f in s.moments["v"].probes["flows"]) == [-1, 0.5]
    assert_clean_layout(s)
    assert_readable_beats(s)




def test_the_worked_query_shows_something():
    # the query taken apart is not nearly empty: two of its bars are fed, one of them by two traits
    terms, out = expected_terms()
    assert np.count_nonzero(out["q"]) >= 2
    assert max(np.count_nonzero(terms["q"][:, j]) for j in range(terms["q"].shape[1])) >= 2


def test_every_share_is_written_and_the_zeros_fade(scene):
    # each fed bar's moment: its non-zero shares flow while the zero shares of its column have faded
    terms, _ = expected_terms()
    for k in "qkv":
        for j in range(terms[k].shape[1]):
            name = f"{k}_flow_{j}"
            if name in scene.moments:
                assert scene.moments[name].probes["zeros"] == np.count_nonzero(terms[k][:, j] == 0)


def test_outro_marks_stay_inside_the_frame(scene):
    from manim import config
    marks = scene.moments["end"].probes["marks"]
    assert len(marks) == 3
    for left, right, bottom, top in marks:
        assert -config.frame_width / 2 + 0.05 < left < right < config.frame_width / 2 - 0.05
        assert -config.frame_height / 2 < bottom < top < config.frame_height / 2


def test_named_bar_flows_while_named_and_the_rest_in_their_own_beat(scene):
    keys = [k for k, _ in scene.said]
    # k and v name one bar; the other bars come in a beat of their own
    assert keys.count("rest_say") == 2
    assert keys.index("k_flow_say") < keys.index("rest_say") < keys.index("v_flow_say")
