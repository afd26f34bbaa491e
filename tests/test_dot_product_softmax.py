"""DotProductSoftmax and the similarity math behind it."""
import math

import numpy as np
import pytest

import qkv_math as qm
from qkv_lens.lesson import load_lesson
from tests.helpers import LESSON

SCENE = "DotProductSoftmax"


def test_dot_and_angle_by_hand():
    dot, na, nb, ang = qm.dot_and_angle([3, 4], [4, -3])
    assert (dot, na, nb) == (0, 5, 5) and ang == pytest.approx(math.pi / 2)
    assert qm.dot_and_angle([1, 0], [-2, 0])[3] == pytest.approx(math.pi)
    with pytest.raises(ValueError):
        qm.dot_and_angle([1, 2], [1, 2, 3])


@pytest.mark.parametrize("d", [1, 4, 64, 256])
def test_spread_grows_like_sqrt_dk(d):
    s = qm.dot_product_samples(d, 20000, seed=3)
    assert s.std() == pytest.approx(math.sqrt(d), rel=0.05)
    assert (s / math.sqrt(d)).std() == pytest.approx(1, rel=0.05)


def test_samples_are_reproducible():
    assert np.array_equal(qm.dot_product_samples(8, 50, 1), qm.dot_product_samples(8, 50, 1))
    assert not np.array_equal(qm.dot_product_samples(8, 50, 1), qm.dot_product_samples(8, 50, 2))


def test_histogram_counts_everything():
    counts, edges = qm.histogram([-100, 0, 0.1, 100], bins=4, limit=2)
    assert counts.sum() == 4 and counts[0] == 1 and counts[-1] == 1 and len(edges) == 5


def test_saturation_without_scaling():
    hard, soft = qm.saturation(256, 8, seed=0)
    assert hard.max() > soft.max()
    assert hard.sum() == pytest.approx(1) and soft.sum() == pytest.approx(1)


def test_dot_readouts(scene):
    p = load_lesson(LESSON).params["dot_product_softmax"]
    a = np.array(p.vector_a, dtype=float)
    na, nb = float(np.hypot(*a)), float(p.vector_b_length)
    for name, angle in (("aligned", 0), ("perpendicular", 90), ("opposite", 180)):
        pr = scene.moments[name].probes
        assert pr["na"] == pytest.approx(na) and pr["nb"] == pytest.approx(nb)
        assert pr["theta"] == pytest.approx(angle, abs=1e-6)
        assert pr["dot"] == pytest.approx(na * nb * math.cos(math.radians(angle)), abs=1e-9)


def test_softmax_bars(scene):
    p = load_lesson(LESSON).params["dot_product_softmax"]
    s = np.array(p.scores, dtype=float)
    e = np.exp(s)
    assert np.allclose(scene.moments["scores"].probes["bars"], s, atol=1e-6)
    assert np.allclose(scene.moments["exp"].probes["bars"], e, atol=1e-6)
    w = e / e.sum()
    assert np.allclose(scene.moments["weights"].probes["bars"], w, atol=1e-6)
    assert scene.moments["weights"].probes["labels"] == [f"{v:.2f}" for v in w]
    for T in p.temperatures:
        wt = np.exp(s / float(T)) / np.exp(s / float(T)).sum()
        assert np.allclose(scene.moments[f"temperature_{float(T):.2f}"].probes["bars"], wt, atol=1e-6)


def test_histograms_and_saturation(scene):
    p = load_lesson(LESSON).params["dot_product_softmax"]
    pr = scene.moments["spread"].probes
    for d, std, cap in zip(p.d_k, pr["stds"], pr["captions"]):
        assert std == pytest.approx(math.sqrt(d), rel=0.1)
        assert f"{std:.2f}" in cap
    for hist in pr["hist"] + scene.moments["scaled"].probes["hist"]:
        assert sum(hist) == pytest.approx(1, abs=1e-6)   # shares of all samples
    sat = scene.moments["saturation"].probes
    assert max(sat["hard"]) > max(sat["soft"])
    assert sum(sat["hard"]) == pytest.approx(1, abs=1e-6)


def test_angle_and_projection_are_drawn(scene):
    """The projection foot lies on a's line, |a| times the drawn segment's
    signed length is the shown dot product, and the arc spans the shown angle."""
    for name in ("aligned", "acute", "perpendicular", "obtuse", "opposite"):
        pr = scene.moments[name].probes
        a, b = np.asarray(pr["a"], dtype=float), np.asarray(pr["b"], dtype=float)
        dot, na, _, ang = qm.dot_and_angle(a, b)
        (s0, s1), (d0, d1) = np.array(pr["proj"]), np.array(pr["drop"])
        assert np.allclose(s0, 0, atol=1e-6)                       # the segment starts at the origin
        assert np.allclose(d0, b, atol=1e-6) and np.allclose(d1, s1, atol=1e-6)   # drop: b's tip to the foot
        assert abs(a[0] * s1[1] - a[1] * s1[0]) < 1e-6            # the foot is on the line of a
        signed = float(s1 @ a) / na
        assert na * signed == pytest.approx(dot, abs=1e-6) and pr["dot"] == pytest.approx(dot, abs=1e-9)
        assert float((b - s1) @ a) == pytest.approx(0, abs=1e-6)  # the drop is perpendicular to a
        assert pr["arc_deg"] == pytest.approx(math.degrees(ang), abs=1e-4)
        assert pr["theta"] == pytest.approx(math.degrees(ang), abs=1e-9)
    assert scene.moments["obtuse"].probes["dot"] < 0 < scene.moments["acute"].probes["dot"]


def test_histogram_squeezes_by_sqrt_dk(scene):
    p = load_lesson(LESSON).params["dot_product_softmax"]
    before, after = scene.moments["spread"].probes, scene.moments["scaled"].probes
    for d, raw, sq, std, cap in zip(p.d_k, before["drawn"], after["drawn"], after["stds"], after["captions"]):
        s = qm.dot_product_samples(d, p.samples, p.seed) / math.sqrt(d)
        assert std == pytest.approx(float(s.std())) and f"{std:.2f}" in cap and r"\approx" not in cap
        raw_w, sq_w = np.diff(raw["extent"])[0], np.diff(sq["extent"])[0]
        assert sq_w == pytest.approx(raw_w / math.sqrt(d), rel=1e-6)          # the x-extent shrinks by sqrt(d_k)

        def spread(h):
            w, c = np.array(h["areas"]), np.array(h["centres"])
            return math.sqrt(float(w @ (c - w @ c) ** 2))
        assert spread(sq) == pytest.approx(spread(raw) / math.sqrt(d), rel=1e-6)
        assert sum(sq["areas"]) == pytest.approx(1, abs=1e-6) and sum(raw["areas"]) == pytest.approx(1, abs=1e-6)
    assert before["drawn"][0]["extent"] == pytest.approx(before["drawn"][1]["extent"])   # one shared axis


def test_saturation_captions_typeset_the_root_and_the_drawn_peak(scene):
    p = load_lesson(LESSON).params["dot_product_softmax"]
    sat = scene.moments["saturation"].probes
    d = max(p.d_k)
    for parts, bars in zip(sat["captions"], (sat["hard"], sat["soft"])):
        assert any(r"\sqrt{d_k}" in part for part in parts), parts
        assert parts[-1] == f"{max(bars):.2f}"          # the largest weight is the tallest bar drawn
    assert any(f"d_k = {d}" in part for part in sat["captions"][0])
    assert any(rf"\sqrt{{{d}}} = {round(math.sqrt(d), 2):g}" in part for part in sat["captions"][1])


def test_each_temperature_is_shown_while_its_own_sentence_is_said(scene):
    p = load_lesson(LESSON).params["dot_product_softmax"]
    said = [(k, s) for k, s in scene.said if k.startswith("temperature_") and k != "temperature_say"]
    assert len(said) == len(p.temperatures)
    scores = np.array(p.scores, dtype=float)
    for (key, sentence), T in zip(said, p.temperatures):
        t = float(T)
        assert key == f"temperature_{'low' if t < 1 else 'one' if t == 1 else 'high'}_say"
        w = np.exp(scores / t) / np.exp(scores / t).sum()
        assert f"{t:.1f}" in sentence and f"{w.max():.2f}" in sentence
    # the beat of each temperature holds the moment its chart is drawn
    beats = [b for b in scene.beats if b.key.startswith("temperature_") and b.key != "temperature_say"]
    for b, T in zip(beats, p.temperatures):
        assert b.start <= scene.moments[f"temperature_{float(T):.2f}"].probes["at"] <= b.end


def test_saturation_rows_start_even(scene):
    even = scene.moments["saturation_even"].probes
    n = len(even["hard"])
    assert np.allclose(even["hard"], 1 / n) and np.allclose(even["soft"], 1 / n)


def test_axis_numbers_and_the_zoom_once_scaled(scene):
    # the raw axis is numbered to +-limit; once scaled it zooms to +-3 and the bells fill it again
    p = load_lesson(LESSON).params["dot_product_softmax"]
    limit = 3 * math.sqrt(max(p.d_k))
    z = scene.moments["zoomed"].probes
    assert z["view"] == 3.0
    assert z["ticks"][:7] == ["-3", "-2", "-1", "0", "1", "2", "3"]
    for drawn, scaled in zip(z["drawn"], scene.moments["scaled"].probes["drawn"]):
        # the same bars, stretched by limit / 3 on the axis
        assert np.diff(drawn["extent"])[0] == pytest.approx(min(2 * limit, np.diff(scaled["extent"])[0] * limit / 3),
                                                           rel=1e-6)
    labels = {lab.content for lab in scene.moments["spread"].labels}
    assert f"{limit:.0f}" in labels and f"-{limit:.0f}" in labels


def test_a_and_b_are_a_query_and_a_key_in_no_qkv_colour(scene):
    from scenes import dot_product_softmax as m
    from scenes.kit import palette
    assert scene.moments["roles"].probes["roles"] == r"a = q,\quad b = k"
    for c in (m.A_COLOR, m.B_COLOR):   # far from Q gold, K teal and V coral
        rgb = np.array(c.to_rgb())
        assert all(np.abs(rgb - np.array(q.to_rgb())).sum() > 0.45 for q in palette.QKV.values()), c


def test_three_wide_panels_number_only_the_ends_and_zero(tmp_path):
    # found by test_accepted_renders: d_k up to 512 in three panels, the tick numbers crowded each other
    from tests.helpers import assert_clean_layout, dry_run
    text = LESSON.read_text(encoding="utf-8").replace("d_k = [4, 64]", "d_k = [64, 1, 512]")
    lesson = tmp_path / "l.toml"
    lesson.write_text(text, encoding="utf-8")
    s = dry_run(SCENE, tmp_path, lesson=lesson, lang="en")
    assert "-45.3" not in {lab.content for lab in s.moments["spread"].labels}   # only -67.9, 0, 67.9
    assert_clean_layout(s)


def test_histograms_have_a_numbered_height_scale(scene):
    # issue 24: the histograms' heights had no numbers; each panel has a scale at its left edge,
    # its numbers at their ticks' heights, before and after the zoom (the heights are densities: unchanged by it)
    from manim import config

    from tests.helpers import MIN_GLYPH_PX
    for name in ("spread", "zoomed"):
        m = scene.moments[name]
        heights = m.probes["heights"]
        assert len(heights) == 2
        for scale in heights:
            assert len(scale) >= 2
            for tex, at, tick in scale:
                assert float(tex) == pytest.approx(tick, abs=1e-6) and at == pytest.approx(tick, abs=1e-6)
        labels = {lab.content: lab for lab in m.labels}
        for tex, _, _ in heights[0]:
            px = labels[tex].glyph * 1080 / config.frame_height
            assert px >= MIN_GLYPH_PX - 0.5, (tex, px)


def test_the_temperature_rule_leaves_a_picture_and_each_temperature_its_chart(scene):
    # issue 24: the rule's beat changed only its caption.  Now every score's name becomes s_i / T under the
    # formula with T, a scale of T numbers the lesson's temperatures in order, and each temperature's beat
    # leaves a small chart of its weights over its own number on that scale
    p = load_lesson(LESSON).params["dot_product_softmax"]
    rule = scene.moments["temperature_rule"].probes
    assert rule["names"] == [rf"s_{{{i + 1}}} / T" for i in range(len(p.scores))]
    assert r"e^{s_i / T}" in rule["formula"] and r"\sum_j" in rule["formula"]
    assert rule["numbers"] == {float(T): f"{float(T):.1f}" for T in p.temperatures}
    scores = np.array(p.scores, dtype=float)
    slots = []
    beats = {b.key: b for b in scene.beats}
    for T in p.temperatures:
        t = float(T)
        mini = scene.moments[f"mini_{t:.2f}"].probes
        w = np.exp(scores / t) / np.exp(scores / t).sum()
        assert np.allclose(np.array(mini["heights"]) / mini["unit"], w, atol=1e-3)   # its bars are its weights
        assert mini["x"] == pytest.approx(mini["slot"])
        b = beats[f"temperature_{'low' if t < 1 else 'one' if t == 1 else 'high'}_say"]
        assert b.start <= mini["at"] <= b.end                                        # left while its sentence is said
        slots.append((t, mini["slot"]))
    assert [x for _, x in sorted(slots)] == sorted(x for _, x in slots)              # lower T further left
