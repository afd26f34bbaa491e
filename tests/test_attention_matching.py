"""AttentionMatching: every grid cell, weight and output equals the math."""
import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from scenes.kit import palette
from tests.helpers import LESSON, assert_clean_layout, dry_run
from tests.test_attention import reference_attention

SCENE = "AttentionMatching"


def reference(lesson_path=LESSON):
    a = load_lesson(lesson_path).params["attention"]
    X = np.array(a.embeddings, dtype=float)
    Q, K, V = (X @ np.array(getattr(a, n), dtype=float) for n in ("W_Q", "W_K", "W_V"))
    n, d = len(X), Q.shape[1]
    mask = [[-math.inf if j > i else 0.0 for j in range(n)] for i in range(n)] if a.causal_mask else None
    out, w = reference_attention(Q.tolist(), K.tolist(), V.tolist(), mask, None, float(a.temperature))
    scores = np.array([[float(np.dot(Q[i], K[j])) for j in range(n)] for i in range(n)])
    return a, scores, scores / math.sqrt(d), w, out


def as_text(M):
    return [[r"-\infty" if v == -math.inf else f"{v:.2f}".replace("-0.00", "0.00") for v in row] for row in M]


def rounded(M):
    """Each entry of M on its own to 2 decimals, half up, as a person rounds: the weights as they must be shown."""
    return [[str(Decimal(repr(float(v))).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)) for v in row] for row in M]


def test_every_cell_at_every_step(scene):
    a, scores, scaled, w, out = reference()
    assert scene.moments["scores"].probes["shown"] == as_text(scores)
    assert scene.moments["scaled"].probes["shown"] == as_text(scaled)
    assert scene.moments["weights"].probes["shown"] == rounded(w)
    assert scene.moments["weights"].probes["sums"] == ["1.00"] * len(w)


def test_weights_are_rounded_honestly_and_the_caption_says_so(scene):
    # issue 38: the rounding was bent so that each row's numbers summed to 1.00: the want row (0.6056, 0.1801,
    # 0.1071, 0.1071) showed 0.60 where 0.6056 rounds to 0.61, and equal weights showed unequal numbers.
    # Each weight is now rounded on its own (the row may add to 1.01), the row's sum is the true sum, 1.00,
    # and the caption says the weights are rounded
    _, _, _, w, _ = reference()
    shown = scene.moments["weights"].probes["shown"]
    assert shown == rounded(w)
    for i, row in enumerate(w):
        for j in range(len(row)):
            for k in range(len(row)):
                if abs(row[j] - row[k]) < 1e-12:
                    assert shown[i][j] == shown[i][k], (i, j, k)
    caption = scene.moments["weights"].probes["caption"]
    from qkv_lens.texts import tr
    assert tr(scene.lang, "attention_matching.rounded_weights").replace(" ", "") in caption.replace(" ", "")


def test_softmax_worked_on_the_query_row(scene):
    # e^s of each scaled score, their total, each e^s over it: the weights the grid shows
    a, _, scaled, w, _ = reference()
    rows = scene.moments["weights"].probes["exp"]
    exps = np.exp(scaled[a.query])
    assert [r[0] for r in rows] == [f"e^{{{v:.2f}}}" for v in scaled[a.query]]
    assert np.allclose([float(r[1]) for r in rows], exps, atol=0.005)
    assert {r[2] for r in rows} == {str(sum(Decimal(r[1]) for r in rows))}   # the total of the numbers shown
    assert [r[3] for r in rows] == scene.moments["weights"].probes["shown"][a.query]
    assert np.allclose([float(r[1]) / float(r[2]) for r in rows], w[a.query], atol=0.006)


def test_weights_are_shaded_in_a_colour_of_their_own(scene):
    # lavender: never Q gold, K teal or V coral
    a, _, _, w, _ = reference()
    probes = scene.moments["weights"].probes
    assert probes["shade_color"].upper() not in {str(c.to_hex()).upper() for c in palette.QKV.values()}
    assert np.allclose(probes["shade"], 0.6 * w, atol=1e-3)


def numbers_of(rows):
    """Floats of a table of TeX numbers; a negative factor may be in parentheses: (-0.75)."""
    return np.array([[float(v.strip("()")) for v in r] for r in rows])


def test_q_and_k_shown_beside_each_token_are_the_projections(scene):
    a = load_lesson(LESSON).params["attention"]
    E = np.array(a.embeddings, dtype=float)
    probes = scene.moments["vectors"].probes
    for key, W in (("q", a.W_Q), ("k", a.W_K), ("v", a.W_V)):
        shown = numbers_of(probes[key])
        assert shown.shape == (len(E), np.array(W).shape[1])
        assert np.allclose(shown, E @ np.array(W, dtype=float), atol=0.005 + 1e-9), key
    # the grid is not on screen yet while the tokens are introduced
    assert probes["grid_shown"] == 0


def test_one_cell_worked_term_by_term(scene):
    a, scores, _, _, _ = reference()
    E = np.array(a.embeddings, dtype=float)
    q = E[a.query] @ np.array(a.W_Q, dtype=float)
    best = int(np.argmax(scores[a.query]))
    probes = scene.moments["worked"].probes
    assert probes["cell"] == (a.query, best)
    k = E[best] @ np.array(a.W_K, dtype=float)
    terms = numbers_of(probes["terms"])
    assert len(terms) == len(q)
    assert np.allclose(terms[:, 0], q, atol=0.005) and np.allclose(terms[:, 1], k, atol=0.005)
    assert np.allclose(terms[:, 2], q * k, atol=0.005)
    assert probes["total"] == probes["in_cell"] == f"{q @ k:.2f}"
    # the grid fills as it is explained: only the worked cell holds a number
    assert probes["filled"] == 1
    # the same number stays in that cell when the others fill in
    assert scene.moments["scores"].probes["shown"][a.query][best] == probes["total"]


def test_scaling_is_typeset(scene):
    a, scores, scaled, _, _ = reference()
    d = np.array(a.W_Q).shape[1]
    probes = scene.moments["scaled"].probes
    assert probes["scale"].startswith(r"\div\sqrt{d_k}")
    assert probes["scale"].endswith(rf"\approx {math.sqrt(d):.2f}")
    best = int(np.argmax(scores[a.query]))
    assert probes["worked"] == (rf"{scores[a.query, best]:.2f} \div \sqrt{{{d}}} \approx "
                                rf"{scaled[a.query, best]:.2f}")


def test_output_is_the_values_scaled_by_weight_and_added_end_to_end(scene):
    a, _, _, w, out = reference()
    E = np.array(a.embeddings, dtype=float)
    V = E @ np.array(a.W_V, dtype=float)
    probes = scene.moments["output"].probes
    # the weights that fly out of the grid are the query row's, as the grid shows them
    assert probes["weights"] == probes["shown"][a.query]
    assert np.allclose(numbers_of(probes["values"]), V, atol=0.005)
    # each value vector scaled by its weight as shown: 0.77 x [1.54 1.2 0] = [1.19 0.92 0]
    assert np.allclose(numbers_of(probes["scaled"]), w[a.query][:, None] * V, atol=0.005 + 0.01 * np.abs(V).max())
    # the bars end to end reach the sum of the shown products, its numbers at the lanes' ends;
    # the rounding costs the output at most a cent per token
    shown_sum = numbers_of(probes["scaled"]).sum(axis=0)
    assert np.allclose(probes["output"], shown_sum, atol=1e-6)
    assert [float(t) for t in probes["totals"]] == [round(float(v), 2) for v in shown_sum]
    assert np.allclose(shown_sum, out[a.query], atol=0.005 * len(w) + 0.01 * np.abs(V).sum(axis=0).max())


def test_every_shown_product_checks_by_hand(scene):
    # 0.77 x 1.2 was shown as 0.93 (the unrounded weight 0.7709 times 1.2): a hand check gives 0.92
    from decimal import ROUND_HALF_UP, Decimal
    probes = scene.moments["output"].probes
    weights = [Decimal(t) for t in probes["weights"]]
    for w, v_row, p_row in zip(weights, probes["values"], probes["scaled"]):
        for v, p in zip(v_row, p_row):
            exact = w * Decimal(v.strip("()"))
            assert Decimal(p.strip("()")) == exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP), (w, v, p)
    assert probes["note"], "no note says the products are of the rounded numbers"


def test_eat_finds_apple(scene):
    # the article's story: the query of 吃 matches the key of 苹果
    best = scene.moments["output"].probes["best"]
    assert best in ("苹果", "apples")


def test_six_tokens_causal_mask_and_temperature(tmp_path):
    lesson = tmp_path / "l.toml"
    toks = ", ".join(f'{{zh="词{i}", en="word{i}"}}' for i in range(6))
    lesson.write_text(f"""[attention]
tokens = [{toks}]
traits = [{{zh="甲", en="a"}}, {{zh="乙", en="b"}}]
embeddings = [[1, 0], [0, 1], [1, 1], [0.5, -1], [-1, 0.5], [2, 0]]
qk_dims = [{{zh="丙", en="c"}}, {{zh="丁", en="d"}}]
v_dims = [{{zh="戊", en="e"}}]
W_Q = [[1, 0], [0, 1]]
W_K = [[1, 0.5], [0, 1]]
W_V = [[1], [-1]]
focus = 0
query = 5
causal_mask = true
temperature = 0.5
""", encoding="utf-8")
    s = dry_run("AttentionMatching", tmp_path, lesson=lesson, lang="en")
    a, scores, scaled, w, out = reference(lesson)
    masked = np.where(np.triu(np.ones((6, 6)), 1) > 0, -math.inf, scaled)
    assert s.moments["masked"].probes["shown"] == as_text(masked)
    assert s.moments["weights"].probes["shown"] == rounded(w)
    probes = s.moments["output"].probes
    # the bars add the products as shown (rounded), a cent per token from the exact output at most
    assert np.allclose(probes["output"], numbers_of(probes["scaled"]).sum(axis=0), atol=1e-6)
    assert np.allclose(probes["output"], out[5], atol=0.01 * 6)
    # the worked cell is the query's best score among the keys it may see
    best = int(np.argmax(masked[5]))
    worked = s.moments["worked"].probes
    assert worked["cell"] == (5, best)
    E = np.array(a.embeddings, dtype=float)
    q, k = E[5] @ np.array(a.W_Q, dtype=float), E[best] @ np.array(a.W_K, dtype=float)
    assert np.allclose(numbers_of(worked["terms"])[:, 2], q * k, atol=0.005)
    assert worked["total"] == f"{q @ k:.2f}"
    assert_clean_layout(s)


def test_widest_lesson_six_tokens_four_dimensions(tmp_path):
    # the largest accepted table: q and k of 4 entries beside 6 tokens (they stack, q over k)
    lesson = tmp_path / "l.toml"
    names = ["the cat", "sat on", "a soft", "mat", "today", "asleep"]
    toks = ", ".join(f'{{zh="词{i}", en="{nm}"}}' for i, nm in enumerate(names))
    lesson.write_text(f"""[attention]
tokens = [{toks}]
traits = [{{zh="甲", en="a"}}, {{zh="乙", en="b"}}, {{zh="丙", en="c"}}]
embeddings = [[1, 0, 0.5], [0, 1, 0], [1, 1, -1], [0.5, -1, 2], [-1, 0.5, 0], [2, -2, 1]]
qk_dims = [{{zh="一", en="one"}}, {{zh="二", en="two"}}, {{zh="三", en="three"}}, {{zh="四", en="four"}}]
v_dims = [{{zh="戊", en="e"}}, {{zh="己", en="f"}}, {{zh="庚", en="g"}}, {{zh="辛", en="h"}}]
W_Q = [[1, 0, 0.25, -1.5], [0, 1, 2, 0], [0.5, 0, 0, 1]]
W_K = [[1, 0.5, 0, 1], [0, 1, -0.75, 0], [1, 0, 0, 2]]
W_V = [[1, 0, 1, 0], [-1, 0.5, 0, 1], [0, 2, 1, 1]]
focus = 0
query = 2
causal_mask = true
temperature = 2
""", encoding="utf-8")
    s = dry_run("AttentionMatching", tmp_path, lesson=lesson, lang="en")
    a, scores, scaled, w, out = reference(lesson)
    E = np.array(a.embeddings, dtype=float)
    Q, K = E @ np.array(a.W_Q, dtype=float), E @ np.array(a.W_K, dtype=float)
    assert np.allclose(numbers_of(s.moments["scores"].probes["q"]), Q, atol=0.005)
    assert np.allclose(numbers_of(s.moments["scores"].probes["k"]), K, atol=0.005)
    # the query (row 2) may only see keys 0..2: the worked cell is its best among those
    best = int(np.argmax(scores[2, :3]))
    worked = s.moments["worked"].probes
    assert worked["cell"] == (2, best)
    terms = numbers_of(worked["terms"])
    assert np.allclose(terms[:, 2], Q[2] * K[best], atol=0.005)
    assert worked["total"] == f"{scores[2, best]:.2f}"
    assert s.moments["weights"].probes["shown"] == rounded(w)
    assert_clean_layout(s)


def test_formula_boxes_cut_no_other_part(scene):
    # the box on /sqrt(d_k) once cut through the T of K^T (and touched the paren)
    from scenes.kit.layout import overlaps
    probes = scene.moments["end"].probes
    parts = probes["formula"]
    assert probes["boxed"], "no part of the formula was boxed"
    for boxed, box in probes["boxed"]:
        for k, part in enumerate(parts):
            if min(boxed) <= k <= max(boxed):
                continue
            assert not overlaps(box, part, pad=0.0), (boxed, k)


def test_emphasis_is_white_and_weights_are_not_gold(scene):
    # chapter 2: gold means Q; the AREA gold of chapter 1 is not an emphasis colour here
    probes = scene.moments["weights"].probes
    assert probes["shade_color"].upper() != str(palette.AREA.to_hex()).upper()
    assert probes["shade_color"].upper() != str(palette.Q_GOLD.to_hex()).upper()


def test_the_best_match_is_singled_out(scene):
    # "the better they match, the higher the score": the query's q, the key's k that match best, and their cell
    a, scores, _, _, _ = reference()
    best = int(np.argmax(scores[a.query]))
    probes = scene.moments["scores"].probes
    assert probes["boxed"][2] == (a.query, best)
    if probes["table"]:   # no meeting drawn: the table's q and k rows are boxed
        assert probes["boxed"][:2] == [a.query, best]
    else:                 # the meeting took the table's room: q and the best k are its arrows, their rows unboxed
        assert probes["meet"]["key"] == best and probes["boxed"][:2] == [None, None]
    assert probes["box_color"].upper() == str(palette.FOCUS.to_hex()).upper()


def test_the_metaphor_is_drawn_over_the_headings(scene):
    # sign (q), label (k), content (v): each word over (or, stacked, left of) its own heading
    tags = scene.moments["vectors"].probes["tags"]
    assert set(tags) == {"Q", "K", "V"}
    for word, head in tags.values():
        over = word[1] >= head[3] and word[0] < head[2] and head[0] < word[2]
        left = word[2] <= head[0] and word[1] < head[3] and head[1] < word[3]
        assert over or left
    # the boards and tags stay clear of the title
    from scenes.kit.layout import overlaps
    probes = scene.moments["vectors"].probes
    assert not any(overlaps(shape, probes["title"], pad=0.03) for shape in probes["tag_shapes"])


def _drawn_angle_and_ratio(meet):
    (qs, qe), (ks, ke) = meet["q"], meet["k"]
    q, k = np.subtract(qe, qs), np.subtract(ke, ks)
    assert np.allclose(qs, ks), "q and k start from one origin"
    cos = q @ k / (np.linalg.norm(q) * np.linalg.norm(k))
    return math.degrees(math.acos(np.clip(cos, -1, 1))), np.linalg.norm(k) / np.linalg.norm(q)


def test_q_and_k_meet_as_arrows_at_their_true_angle(scene):
    # "the better they match": q and k drawn from one origin, the angle and lengths those of the vectors;
    # a poor key first (its cell boxed), then the best one, nearly along q, with the row's highest score
    a, scores, _, _, _ = reference()
    E = np.array(a.embeddings, dtype=float)
    Q, K = E @ np.array(a.W_Q, dtype=float), E @ np.array(a.W_K, dtype=float)
    qi = a.query

    def true(j):
        c = Q[qi] @ K[j] / (np.linalg.norm(Q[qi]) * np.linalg.norm(K[j]))
        return math.degrees(math.acos(np.clip(c, -1, 1))), np.linalg.norm(K[j]) / np.linalg.norm(Q[qi])

    best = int(np.argmax(scores[qi]))
    first, last = scene.moments["meet_first"].probes, scene.moments["scores"].probes["meet"]
    assert last["key"] == best and last["score"] == f"{scores[qi, best]:.2f}"
    assert np.allclose(_drawn_angle_and_ratio(last), true(best), atol=1e-4)
    poor = first["meet"]["key"]
    assert poor != best and first["cell"] == (qi, poor)
    assert scores[qi, poor] == min(scores[qi, j] for j in range(len(E)) if j != best and np.linalg.norm(K[j]) > 0)
    assert first["meet"]["score"] == f"{scores[qi, poor]:.2f}"
    assert np.allclose(_drawn_angle_and_ratio(first["meet"]), true(poor), atol=1e-4)
    assert _drawn_angle_and_ratio(first["meet"])[0] > _drawn_angle_and_ratio(last)[0]


def test_scaling_shrinks_every_score_by_the_same_factor(scene):
    # a bar under each score, as long as the score; all shrink by 1/sqrt(d_k) as the numbers become the scaled ones
    a, scores, scaled, _, _ = reference()
    before, after = scene.moments["scale_start"].probes, scene.moments["scaled"].probes
    assert before["unit"] == after["unit"] > 0
    assert np.allclose(before["bars"], np.abs(scores).ravel() * before["unit"], atol=1e-3)
    assert np.allclose(after["bars"], np.abs(scaled).ravel() * after["unit"], atol=1e-3)


def test_outro_builds_the_query_rows_formula_equal_to_the_output(scene):
    # the outro used to circumscribe a cell only: it now writes softmax(q K^T/sqrt(d)) V = [the output],
    # its parts taken from the formula, its numbers the lanes' totals, and leaves the winning cell boxed
    a, scores, _, w, _ = reference()
    d = np.array(a.W_Q).shape[1]
    probes = scene.moments["end"].probes
    summary = [p.replace(" ", "") for p in probes["summary"]]
    assert summary[:7] == [r"\mathrm{softmax}", r"\Big(", r"\,q", r"K^{\top}\,", rf"/\sqrt{{{d}}}\,", r"\Big)", "V"]
    assert summary[7] == "="
    assert summary[9::2][:len(probes["totals"])] == [t.replace(" ", "") for t in probes["totals"]]
    assert probes["cell"] == (a.query, int(np.argmax(w[a.query])))


def test_the_meeting_of_q_and_k_is_large(scene):
    # issue 24: the picture of the dot product was a fifth of the frame wide; once q and k are read it takes
    # the table's room (the grid slides left beside the names) and spans a third of the frame's width
    from manim import config
    probes = scene.moments["scores"].probes
    (qs, qe), _ = probes["meet"]["q"], probes["meet"]["k"]
    assert np.linalg.norm(np.subtract(qe, qs)) >= 0.25 * config.frame_width
    left, _, right, _ = probes["meet"]["box"]
    assert right - left >= 0.33 * config.frame_width
    assert probes["table"] == 0


def test_content_comes_back_over_the_values_it_names(scene):
    # issue 24: sign, label, content each seen in use; "content" left with v at the start and is back over
    # the value vectors while they are weighted and added
    name, tag, word, values, shown = scene.moments["output"].probes["content"]
    assert shown == 1 and name == tag   # the same word as over v at the start
    assert word[1] >= values[3] - 1e-6 and word[0] < values[2] and values[0] < word[2]   # over the values


def test_the_values_mix_over_the_time_their_sentence_takes(scene):
    # issue 38: the weighted values poured into the output in about 2 s at the end of a 4 s cue.  Each
    # token's share now pours one after another from the start of "... add up, end to end, into the output"
    # over most of the time that cue is read
    beat = next(b for b in scene.beats if b.key == "output_say")
    last = beat.cues[-1]
    pours = scene.moments["output"].probes["pours"]
    assert pours and pours == sorted(pours)
    assert pours[0][0] >= last.start - 1e-6 and pours[-1][1] <= beat.end + 1e-6
    assert sum(b - a for a, b in pours) >= 0.6 * (last.end - last.start)


def test_the_first_sentence_picks_up_the_tools_and_each_role_comes_with_its_clause(scene):
    # the thread: scene 8 showed the tools; the first sentence takes them to a whole sentence before the party
    # begins, and sign (q), label (k) and value (v) each come on as their own clause is read
    intro = scene.beats[0]
    assert intro.key == "intro_say"
    times = scene.moments["vectors"].probes["roles"]
    assert intro.start + 0.25 * (intro.end - intro.start) <= times["Q"] < times["K"] < times["V"] <= intro.end
    assert times["K"] - times["Q"] >= 1.0 and times["V"] - times["K"] >= 1.0


def test_the_scene_ends_on_who_writes_the_matrices(scene):
    # the thread: RolesEmerge opens with "who writes W_Q, W_K, W_V in a real model?".  The lesson's three
    # matrices come on with their numbers as written by hand, then empty out under a question mark each
    a = load_lesson(LESSON).params["attention"]
    assert [b.key for b in scene.beats[-2:]] == ["handoff_say", "ask_say"]
    by_hand = scene.moments["by_hand"].probes["numbers"]
    for shown, W in zip(by_hand, (a.W_Q, a.W_K, a.W_V)):
        nonzero = [float(v) for row in W for v in row if v != 0]
        assert sorted(float(t) for t in shown) == sorted(nonzero)
    asked = scene.moments["asked"].probes
    ask = scene.beats[-1]
    assert ask.start <= asked["at"] <= ask.end
    assert asked["marks"] == ["?"] * 3 and asked["numbers"] == 0 and max(asked["fill"]) <= 0.05


@pytest.mark.parametrize("lang", ["zh", "en", "es"])
def test_labels_quote_with_the_cues_quotes(dry, lang):
    # issue 39: the output's label used ASCII quotes ("comer") where the cues use curly ones (“comer”)
    s = dry(SCENE, lang)
    texts = [lab.content for m in s.moments.values() for lab in m.labels if lab.kind in ("Text", "MarkupText")]
    assert not [t for t in texts if '"' in t]
    assert any("“" in t for t in texts)


def test_the_checkpoint_asks_which_word_the_query_attends_to(scene, tmp_path):
    """Before the query's best cell is worked out, the learner predicts
    which word it attends to most: the lesson's tokens, the answer the
    largest weight of its row (numpy here); an edited W_Q moves the answer."""
    a, _, _, w, _ = reference()
    asked = [(i, b) for i, b in enumerate(scene.beats) if b.ask is not None]
    assert [b.key for _, b in asked] == ["worked_say"]
    ask = asked[0][1].ask
    assert ask.choices == tuple(t.name(scene.lang) for t in a.tokens)
    best = int(np.argmax(w[a.query]))
    assert ask.answer == best and ask.shown == a.tokens[best].name(scene.lang)
    if scene.lang != "en":
        return
    # "to eat" asks for an eater instead of food: the key that shows "eater" is I's
    edited = tmp_path / "lesson.toml"
    rows = [list(map(str, r)) for r in a.W_Q]
    eating = next(i for i, t in enumerate(a.traits) if t.name("en") == "eating")
    eater = next(j for j, d in enumerate(a.qk_dims) if d.name("en") == "eater")
    rows[eating] = ["0"] * len(rows[eating])
    rows[eating][eater] = "2"
    edited.write_text("[attention]\nW_Q = [" + ", ".join("[" + ", ".join(f'"{v}"' for v in r) + "]" for r in rows)
                      + "]\n", encoding="utf-8")
    _, _, _, w2, _ = reference(edited)
    assert int(np.argmax(w2[a.query])) != ask.answer
    again = dry_run(SCENE, tmp_path / "media", lesson=edited, lang="en")
    [edited_ask] = [b.ask for b in again.beats if b.ask is not None]
    assert edited_ask.answer == int(np.argmax(w2[a.query])) and edited_ask.shown == "I"
