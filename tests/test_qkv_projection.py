"""QKVProjection: bars and heat-maps show exactly x, W and x W."""

import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from qkv_lens.spoken import spoken
from tests.helpers import LESSON, assert_clean_layout, assert_readable_beats, change_problems, dry_run

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
    assert not [b for b in s.beats if b.ask is not None]     # one q dimension: no choice to ask
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


def test_chapter_two_opens_on_w_q_w_k_w_v(scene):
    """The first sentence says where the story is: chapter 1's recipes become
    W_Q, W_K and W_V, written in their colours as it says so; the last points
    at DotProductSoftmax (q against k)."""
    keys = [k for k, _ in scene.said]
    assert keys[:2] == ["chapter_say", "intro_say"] and keys[-1] == "outro_say"
    assert scene.moments["chapter"].probes["names"] == ["W_Q", "W_K", "W_V"]
    assert not change_problems(scene, "chapter", "chapter_say")
    said = dict(scene.said)
    assert all(w in said["chapter_say"] for w in ("W_Q", "W_K", "W_V"))
    assert "q" in said["outro_say"] and "k" in said["outro_say"]


def test_the_query_says_what_the_word_looks_for(scene):
    """After q is built, its tallest bar (computed here, not by qkv_math) is
    boxed and named as what the word looks for: "apples" looks for an eater."""
    x, mats, out = expected()
    a = load_lesson(LESSON).params["attention"]
    best = int(np.argmax(out["q"]))
    probes = scene.moments["sought"].probes
    assert probes["best"] == best
    rows = probes["rows"]
    assert int(np.argmin([abs(r - probes["bar"]) for r in rows])) == best
    left, bottom, right, top = probes["box"]
    assert bottom < probes["bar"] < top
    said = dict(scene.said)["q_best_say"]
    assert a.qk_dims[best].name(scene.lang) in said and a.tokens[a.focus].name(scene.lang) in said
    assert not change_problems(scene, "sought", "q_best_say", most=1.0)
    if scene.lang == "en":
        assert a.qk_dims[best].name("en") == "eater"


@pytest.mark.parametrize("lang", ["zh", "en", "es"])
def test_no_share_is_held_still_for_long(dry, lang):
    """The shares of a bar are held at most 2 s before they flow (the beat's
    pulses fill the rest): the Spanish v flow once held still for 6.2 s."""
    scene = dry(SCENE, lang)
    holds = [m.probes["hold"] for name, m in scene.moments.items() if "_flow_" in name]
    assert holds and max(holds) <= 2.0 + 1e-9, holds


def test_a_bar_appears_only_once_its_shares_flow_in(scene):
    """While a bar's shares flow, the bars shown are those already built:
    none comes in early (a pulse of all the bars once drew "brand" a beat
    before its shares flowed)."""
    terms, _ = expected_terms()
    for k in "qkv":
        flowed = {j for j in range(terms[k].shape[1]) if not np.any(terms[k][:, j])}   # nothing flows into a 0 bar
        for name, m in scene.moments.items():
            if name.startswith(f"{k}_flow_"):
                assert set(m.probes["shown"]) <= flowed, (name, m.probes["shown"], flowed)
                flowed.add(int(name.rsplit("_", 1)[1]))


def test_the_descriptions_say_x_each_w_and_what_flows_into_each_bar(scene):
    """Issue 42: a listener hears x, each W (its cells as they read) and every bar of q, k and v as it
    grows, with the shares that feed it: numpy written out here, not the scene's values."""
    x, mats, out = expected()
    lang = scene.lang
    said = {b.id: b.describe for b in scene.beats}
    assert spoken(x, lang, 2) in said["intro"]
    for k, name in zip("qkv", ("W_Q", "W_K", "W_V")):
        assert spoken(mats[name], lang, 1) in said[k]
        flowed = " ".join(d for key, d in said.items() if key.startswith((f"{k}_flow", "rest")))
        for j in range(mats[name].shape[1]):
            shares = [x[i] * mats[name][i, j] for i in range(len(x)) if x[i] * mats[name][i, j] != 0]
            if shares:
                assert f"{spoken(shares, lang, 2)}" in flowed and spoken(out[k][j], lang, 2) in flowed, (k, j)
        assert spoken(out[k], lang, 2) in said["outro"]
    assert said["q_best"] == "" and next(b for b in scene.beats if b.id == "q_best").named   # it names the bar


def query_of(lesson_path):
    """The focus word's query, x W_Q, worked out here with numpy."""
    a = load_lesson(lesson_path).params["attention"]
    return np.array(a.embeddings, dtype=float)[a.focus] @ np.array(a.W_Q, dtype=float)


def w_q_lesson(tmp_path, food_row: list[str]):
    """The shipped lesson with W_Q's first row (the trait "food") as ``food_row`` and its other rows zero."""
    a = load_lesson(LESSON).params["attention"]
    rows = [food_row] + [["0"] * len(a.qk_dims) for _ in a.traits[1:]]
    path = tmp_path / "lesson.toml"
    path.write_text("[attention]\nW_Q = [" + ", ".join("[" + ", ".join(f'"{v}"' for v in r) + "]" for r in rows)
                    + "]\n", encoding="utf-8")
    return path


def test_the_checkpoint_asks_which_entry_of_q_is_largest(scene, tmp_path):
    """Once x and W_Q are on screen and before q's shares flow, the learner
    predicts which of q's dimensions comes out largest: the lesson's q/k
    dimensions, the answer the argmax of x W_Q (numpy here).  No q bar has
    grown before that beat; an edited W_Q moves the answer, a tie asks nothing."""
    a = load_lesson(LESSON).params["attention"]
    lang = scene.lang
    asked = [(i, b) for i, b in enumerate(scene.beats) if b.ask is not None]
    assert [b.key for _, b in asked] == ["q_flow_say"]
    i, beat = asked[0]
    ask = beat.ask
    assert scene.beats[i - 1].key == "q_say"
    q = query_of(LESSON)
    assert ask.choices == tuple(d.name(lang) for d in a.qk_dims)
    assert ask.answer == int(np.argmax(q)) and ask.shown == a.qk_dims[int(np.argmax(q))].name(lang)
    assert a.tokens[a.focus].name(lang) in ask.question
    # the bars answer it inside the asked beat, none of them grown before
    flows = [m for k, m in scene.moments.items() if k.startswith("q_flow_")]
    assert flows and all(beat.start <= m.time <= beat.end for m in flows)
    assert not [j for j in min(flows, key=lambda m: m.time).probes["shown"] if q[j] != 0]
    if lang != "en":
        return
    edited = w_q_lesson(tmp_path, ["2", "0", "0.5"])
    q2 = query_of(edited)
    assert int(np.argmax(q2)) != ask.answer
    again = dry_run(SCENE, tmp_path / "edited", lesson=edited, lang="en")
    [edited_ask] = [b.ask for b in again.beats if b.ask is not None]
    assert edited_ask.answer == int(np.argmax(q2)) and edited_ask.shown == a.qk_dims[int(np.argmax(q2))].name("en")
    tied = w_q_lesson(tmp_path, ["1", "0", "1"])
    assert np.count_nonzero(query_of(tied) == query_of(tied).max()) == 2
    assert not [b for b in dry_run(SCENE, tmp_path / "tied", lesson=tied, lang="en").beats if b.ask is not None]
