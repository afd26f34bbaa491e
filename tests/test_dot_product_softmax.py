"""DotProductSoftmax and the similarity math behind it."""
import math

import numpy as np
import pytest

import qkv_math as qm
from qkv_lens.lesson import load_lesson
from qkv_lens.spoken import spoken
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


def test_softmax_steps_are_held_on_their_own_words(scene):
    # issue 38: e^s was on screen about a second, the total never shown, the weights drawn while the
    # subtitle still said "exponentiate".  Now e^s is drawn early in its sentence and stays through the
    # sentence that adds them up; the weights come only once "then divide" has started
    beats = {b.key: b for b in scene.beats}
    m = scene.moments
    e = np.exp(np.array(load_lesson(LESSON).params["dot_product_softmax"].scores, dtype=float))
    exp_b, sum_b, div_b = beats["exp_say"], beats["sum_say"], beats["divide_say"]
    assert exp_b.start <= m["exp"].probes["at"] <= exp_b.start + 2.0          # e^s drawn early in its sentence
    for name in ("exp", "sum", "divide_start"):                            # ... and still there until "divide"
        assert np.allclose(m[name].probes["bars"], e, atol=1e-6), name
    assert sum_b.start <= m["sum"].probes["at"] <= sum_b.end
    assert div_b.start <= m["divide_start"].probes["at"] < m["weights"].probes["at"] <= div_b.end
    assert not np.allclose(m["divide_start"].probes["bars"], m["weights"].probes["bars"])


def test_the_total_is_shown_and_is_the_sum_of_the_numbers_shown(scene):
    # issue 38: the total (12.13) was never shown.  It is the sum of the numbers over the bars, so a learner
    # adding 7.39 + 2.72 + 1.65 + 0.37 finds it; and each weight shown is that bar's number over it
    from decimal import Decimal
    m = scene.moments
    shown = [Decimal(v) for v in m["sum"].probes["labels"]]
    assert m["sum"].probes["total"] == str(sum(shown))
    total = float(m["sum"].probes["total"])
    for e, w in zip(m["sum"].probes["labels"], m["weights"].probes["labels"]):
        assert abs(float(w) - float(e) / total) <= 0.005 + 1e-9, (e, w)
    sentence = dict(scene.said)["sum_say"]
    assert m["sum"].probes["total"] in sentence


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
    probes = [scene.moments[name].probes for name in ("start", "aligned", "perpendicular", "opposite", "law")]
    draw = scene.moments["law"].probes["draw"]
    probes += [draw(math.radians(deg)) for deg in (30, 120, 225, 300)]
    for pr in probes:
        a, b = np.asarray(pr["a"], dtype=float), np.asarray(pr["b"], dtype=float)
        assert np.allclose(pr["b_tip"], b, atol=1e-6)                   # b is drawn where the readouts say
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
    assert draw(math.radians(120))["dot"] < 0 < scene.moments["start"].probes["dot"]


def test_every_readout_agrees_with_the_law_as_shown(scene):
    # issue 38: theta = 94 deg and a.b = -0.19 were shown together, where |a||b|cos(theta) of the shown numbers
    # is 2.06 x 1.50 x cos 94 deg = -0.22.  At every angle b passes, a.b computed from the numbers shown
    # (theta as shown) is the shown a.b, to the rounding of |a|, |b| and a.b (2 decimals each)
    draw = scene.moments["law"].probes["draw"]
    for tenth in range(0, 3600, 7):      # every 0.7 degrees, off the whole degrees
        shown = {k: float(v) for k, v in draw(math.radians(tenth / 10))["shown"].items()}
        na, nb, theta, dot = shown["na"], shown["nb"], shown["theta"], shown["dot"]
        by_hand = na * nb * math.cos(math.radians(theta))
        assert abs(dot - by_hand) <= 0.005 * (na + nb) + 0.005 + 1e-9, (tenth / 10, shown, by_hand)


@pytest.mark.parametrize("lang", ["zh", "en", "es"])
def test_b_stops_at_each_case_while_its_sentence_is_read(dry, lang):
    # issue 38: the sweep passed 90 deg without stopping; in Spanish b reached 90 deg at 4.0 s while the cue
    # still said "maximum when they point the same way".  Each case has its sentence: b turns to it after that
    # sentence starts, shows the case's a.b there, and stays while the sentence is read
    s = dry(SCENE, lang)
    p = load_lesson(LESSON).params["dot_product_softmax"]
    a = np.array(p.vector_a, dtype=float)
    full = float(np.hypot(*a)) * float(p.vector_b_length)
    beats = {b.key: b for b in s.beats}
    for key, name, angle, dot in (("same_say", "aligned", 0, full), ("right_say", "perpendicular", 90, 0.0),
                                  ("apart_say", "opposite", 180, -full)):
        b = beats[key]
        before, there = s.moments[f"{name}_from"].probes, s.moments[name].probes
        assert before["theta"] != pytest.approx(angle)                       # b was elsewhere when it began
        assert b.start <= before["at"] and there["at"] <= b.end - 0.5        # it turns in its sentence, then stays
        assert there["shown"]["theta"] == str(angle) and there["shown"]["dot"] == f"{dot:.2f}"


def test_a_is_a_query_in_gold_and_b_a_key_in_teal_from_the_start(scene):
    # issue 38: a and b were blue and lavender while the words called them a query and a key
    from scenes.kit import palette
    start = scene.moments["start"].probes
    first = scene.beats[0]
    assert first.key == "dot_say" and first.start <= start["at"] <= first.end
    assert start["roles"] == r"a = q ,\quad b = k"
    gold, teal = str(palette.Q_GOLD.to_hex()).upper(), str(palette.K_TEAL.to_hex()).upper()
    for name in ("start", "perpendicular", "law"):
        colors = {k: v.upper() for k, v in scene.moments[name].probes["colors"].items()}
        assert colors == {"a": gold, "a_name": gold, "b": teal, "b_name": teal}, (name, colors)


def test_the_scene_opens_on_a_query_and_a_key_and_closes_on_the_formula(scene):
    # the thread: the first sentence picks up QKVProjection's question (one word's query, another's key);
    # the last hands the tools on to AttentionMatching as the formula that puts them together
    from qkv_lens.texts import GLOSSARY
    first, last = scene.said[0], scene.said[-1]
    assert first[0] == "dot_say" and all(GLOSSARY[t][scene.lang] in first[1] for t in ("query", "key"))
    assert last[0] == "tools_say" and scene.beats[-1].key == "tools_say"
    tools = scene.moments["tools"].probes
    assert "".join(tools["formula"]).replace(" ", "") == r"\mathrm{softmax}\Big(\,QK^{\top}\,/\sqrt{d_k}\,\Big)V"
    assert len(tools["names"]) == 3


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


def test_each_temperature_is_shown_while_the_sentence_says_what_t_does(scene):
    p = load_lesson(LESSON).params["dot_product_softmax"]
    beat = next(b for b in scene.beats if b.key == "temperature_say")
    rule = scene.moments["temperature_rule"].probes
    times = []
    for T in p.temperatures:
        t = float(T)
        pr = scene.moments[f"temperature_{t:.2f}"].probes
        assert pr["t"] == t and beat.start <= pr["at"] <= beat.end
        times.append(pr["at"])
    assert times == sorted(times)
    # the charts come once the rule is on screen, and not before the cue that says what T does
    second_cue = beat.cues[1][0] if len(beat.cues) > 1 else beat.start
    assert rule["names"] and min(times) >= second_cue


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
        b = beats["temperature_say"]
        assert b.start <= mini["at"] <= b.end                                        # left while its sentence is said
        slots.append((t, mini["slot"]))
    assert [x for _, x in sorted(slots)] == sorted(x for _, x in slots)              # lower T further left


def test_the_checkpoint_asks_what_temperature_does_before_it_plays(scene):
    """Before the temperatures play: at the lesson's highest T, does the
    largest weight grow or shrink? The answer from softmax written out here."""
    p = load_lesson(LESSON).params["dot_product_softmax"]
    scores = np.array([float(s) for s in p.scores])
    t = max(float(T) for T in p.temperatures)
    assert t > 1

    def top(T):
        e = np.exp(scores / T - (scores / T).max())
        return (e / e.sum()).max()
    asked = [b for b in scene.beats if b.ask is not None]
    assert [b.key for b in asked] == ["temperature_say"]
    ask = asked[0].ask
    assert len(ask.choices) == 2 and ask.answer == (0 if top(t) > top(1.0) else 1) == 1    # it shrinks
    assert f"{t:g}" in ask.question


def test_the_descriptions_say_the_numbers_drawn(scene):
    """Issue 42: a listener hears what the readouts and bars show, numpy written out here: a . b in each
    case, the weights after dividing and at each temperature, the scaled and unscaled saturated rows."""
    p = load_lesson(LESSON).params["dot_product_softmax"]
    said = {b.key: b.describe for b in scene.beats}
    lang = scene.lang
    a = np.array(p.vector_a, dtype=float)
    length = float(np.hypot(*a)) * float(p.vector_b_length)
    for key, angle in (("same_say", 0), ("right_say", 90), ("apart_say", 180)):
        assert spoken(length * math.cos(math.radians(angle)), lang, 2) in said[key]
        assert spoken(angle, lang) in said[key]
    s = np.array(p.scores, dtype=float)
    assert spoken(np.exp(s) / np.exp(s).sum(), lang, 2) in said["divide_say"]
    for T in p.temperatures:
        w = np.exp(s / float(T)) / np.exp(s / float(T)).sum()
        assert spoken(w, lang, 2) in said["temperature_say"]
    hard, soft = qm.saturation(max(p.d_k), p.saturation_tokens, p.seed)
    assert spoken(hard, lang, 2) in said["saturate_say"] and spoken(soft, lang, 2) in said["saturate_say"]
    assert said["sum_say"] == "" and next(b for b in scene.beats if b.key == "sum_say").named   # it says the total
