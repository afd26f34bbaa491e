"""WorkedExample: the arithmetic shown is exact and agrees with qkv_math."""
import re
from fractions import Fraction

import numpy as np
import pytest

import qkv_math as qm
from qkv_lens.lesson import load_lesson
from qkv_lens.numbers import column_tex, tex_number
from qkv_lens.spoken import spoken as said_aloud
from scenes.kit import palette
from tests.helpers import LESSON, ROOT, assert_clean_layout, dry_run

SCENE = "WorkedExample"


def squash(tex: str) -> str:
    return tex.replace(" ", "")


# The article (projection-matrix-post.zh.txt, section 三、数字例子：一算就懂):
#   "假设我们有一个输入向量 x = [3, 4]"
#   "textW = [ 1  0  2 ]"  /  "    [ 0  1 -1 ]"
#   "输出的第1个数 = 3×1 + 4×0 = 3" / "输出的第2个数 = 3×0 + 4×1 = 4" / "输出的第3个数 = 3×2 + 4×(-1) = 6 - 4 = 2"
#   "结果：[3, 4] → [3, 4, 2]（从二维变成了三维）"
ARTICLE_X = (3, 4)
ARTICLE_W = ((1, 0, 2), (0, 1, -1))
ARTICLE_Y = (3, 4, 2)
# beside the checkout (../shared/seed/), or beside the folder of worktrees
ARTICLE = next((p for p in (d / "shared" / "seed" / "projection-matrix-post.zh.txt" for d in ROOT.parents[:2])
                if p.exists()), ROOT / "missing")


def test_the_default_lesson_is_the_articles_example():
    """The shipped lesson works the article's example (and UpProjection's,
    one scene earlier): a learner sees one answer for one x."""
    lesson = load_lesson(LESSON).params
    assert lesson["worked_example"].x == ARTICLE_X
    assert lesson["worked_example"].W == ARTICLE_W
    assert qm.worked_product(ARTICLE_X, ARTICLE_W).result == ARTICLE_Y
    assert tuple(lesson["up_projection"].point) == ARTICLE_X
    assert lesson["up_projection"].W == ARTICLE_W


@pytest.mark.skipif(not ARTICLE.exists(), reason="the article is not beside this checkout")
def test_the_numbers_quoted_are_the_articles():
    text = ARTICLE.read_text(encoding="utf-8")
    assert "x = [3, 4]" in text
    rows = re.findall(r"\[\s*(-?\d+)\s+(-?\d+)\s+(-?\d+)\s*\]", text)
    assert tuple(tuple(int(v) for v in r) for r in rows[:2]) == ARTICLE_W
    assert "[3, 4] → [3, 4, 2]" in text


def test_article_arithmetic_on_screen(scene):
    lines = [squash(l) for l in scene.moments["columns"].probes["lines"]]
    assert lines == [r"3\times1+4\times0=3",
                     r"3\times0+4\times1=4",
                     r"3\times2+4\times(-1)=6-4=2"]
    assert [squash(r) for r in scene.moments["columns"].probes["result"]] == ["3", "4", "2"]


def test_glasses_fill_to_the_result(scene):
    probes = scene.moments["cocktail"].probes
    assert probes["levels"] == pytest.approx([3, 4, 2], abs=1e-9)
    assert [squash(v) for v in probes["values"]] == ["y_{1}=3", "y_{2}=4", "y_{3}=2"]


def test_two_pure_pours_and_one_real_mix(scene):
    """Each glass holds x_i * W_ij of every ingredient i that is not zero (a
    layer in the ingredient's colour, its amount written beside it; a
    negative amount poured out).  The article's W pours x_1 alone into glass
    1, x_2 alone into glass 2 and mixes both into glass 3, 3x2 + 4x(-1)."""
    lesson = load_lesson(LESSON).params["worked_example"]
    x = np.array(lesson.x, dtype=float)
    W = np.array(lesson.W, dtype=float)
    amounts = x[:, None] * W                      # amounts[i, j]: ingredient i in glass j
    probes = scene.moments["cocktail"].probes
    colour = [palette.INGREDIENTS[i].to_hex() for i in range(len(x))]
    assert [np.count_nonzero(amounts[:, j]) for j in range(W.shape[1])] == [1, 1, 2]
    for j in range(W.shape[1]):
        poured_in = [(amounts[i, j], colour[i]) for i in range(len(x)) if amounts[i, j] > 0]
        layers = probes["layers"][j]
        assert [c for _, c in layers] == [c for _, c in poured_in]
        assert [h for h, _ in layers] == pytest.approx([a for a, _ in poured_in])
        # the amounts beside the glass: what goes in, then what is poured out (a zero is neither)
        written = [(float(t), c) for t, c in probes["amounts"][j]]
        expected = poured_in + [(amounts[i, j], colour[i]) for i in range(len(x)) if amounts[i, j] < 0]
        assert written == expected
    assert probes["amounts"][2] == [("6", colour[0]), ("-4", colour[1])]
    assert [squash(r) for r in probes["recipes"]] == [r"1\,x_{1}+0\,x_{2}", r"0\,x_{1}+1\,x_{2}",
                                                      r"2\,x_{1}+(-1)\,x_{2}"]


def test_the_descriptions_say_the_example_drawn(scene):
    """A learner who cannot see hears x, W and y of the article's example,
    each output's column of W and its total, what each glass takes in and
    what is poured out of the third."""
    said = {b.id: b.describe for b in scene.beats}
    lang = scene.lang
    assert all(said_aloud(v, lang) in said["intro"] for v in (ARTICLE_X, ARTICLE_W, ARTICLE_Y))
    columns = [b.id for b in scene.beats if b.key == "column_say"]
    for j, beat in enumerate(columns):
        column = [row[j] for row in ARTICLE_W]
        assert said_aloud(column, lang) in said[beat] and said_aloud(ARTICLE_Y[j], lang) in said[beat]
    glasses = said["cocktail"]
    for j in range(len(ARTICLE_Y)):
        poured_in = [x * row[j] for x, row in zip(ARTICLE_X, ARTICLE_W) if x * row[j] > 0]
        assert said_aloud(poured_in, lang) in glasses and said_aloud([row[j] for row in ARTICLE_W], lang) in glasses
    poured_out = [-x * row[2] for x, row in zip(ARTICLE_X, ARTICLE_W) if x * row[2] < 0]
    assert said_aloud(poured_out, lang) in said["pour"] and said_aloud(ARTICLE_Y[2], lang) in said["pour"]


def test_fractions_lesson(tmp_path):
    lesson = tmp_path / "l.toml"
    lesson.write_text('[worked_example]\nx = ["1/3", 0.5, 2]\nW = [["3/2", -1], [0.25, "2/3"], [1, -1]]\n',
                      encoding="utf-8")
    s = dry_run("WorkedExample", tmp_path, lesson=lesson, lang="en")
    expected = qm.worked_product(["1/3", "1/2", "2"], [["3/2", "-1"], ["1/4", "2/3"], ["1", "-1"]])
    assert expected.result == (Fraction(1, 2) + Fraction(1, 8) + 2, Fraction(-1, 3) + Fraction(1, 3) - 2)
    lines = [squash(l) for l in s.moments["columns"].probes["lines"]]
    # numbers written as fractions keep the whole example in fractions, 21/8 included
    assert lines[0].endswith(r"=\tfrac{21}{8}")
    assert lines[1] == squash(column_tex(expected.columns[1], fractions=True))
    assert r"\tfrac{1}{3}" in lines[0] and r"\tfrac{1}{4}" in lines[0]
    assert s.moments["cocktail"].probes["levels"] == pytest.approx([float(v) for v in expected.result])
    said = {b.id: b.describe for b in s.beats}        # ... and said as fractions: "one third", "21 over 8"
    assert "x is one third, one half, 2;" in said["intro"] and "its total, 21 over 8," in said["column"]
    assert_clean_layout(s)


def test_column_tex_shows_the_middle_step_only_when_needed():
    w = qm.worked_product([3, 4], [[1, 2], [0, -1]])
    assert squash(column_tex(w.columns[0])) == r"3\times1+4\times0=3"
    assert squash(column_tex(w.columns[1])) == r"3\times2+4\times(-1)=6-4=2"


@pytest.mark.parametrize("written, shown, total", [('"1/2"', r"\tfrac{1}{2}", r"\tfrac{1}{2}"),
                                                   ("0.5", "0.5", "0.5")])
def test_a_number_is_shown_as_the_lesson_writes_it(tmp_path, written, shown, total):
    lesson = tmp_path / "l.toml"
    lesson.write_text(f"[worked_example]\nx = [{written}, 4]\n", encoding="utf-8")
    s = dry_run("WorkedExample", tmp_path, lesson=lesson, lang="en")
    assert squash(s.moments["start"].probes["x"][0]) == shown
    first = squash(s.moments["columns"].probes["lines"][0])
    # the default W's first column is [1, 0]: 1/2 x 1 + 4 x 0 = 1/2
    assert first == rf"{shown}\times1+4\times0={total}"


def test_each_factor_slides_in_from_where_it_stands(scene):
    """Column j: a copy of x_i lands beside w_ij in W (touching nothing: it
    once sat on w_ij for 0.6 s), then x_i x w_ij is written in the line as
    its own parts (in the column's colour), and the total flies into y_j."""
    lesson = load_lesson(LESSON).params["worked_example"]
    work = qm.worked_product(lesson.x, lesson.W)
    for j, col in enumerate(work.columns):
        m = scene.moments[f"column_{j + 1}"].probes
        assert len(m["landed"]) == len(col.terms)
        for landed, on in m["landed"]:
            apart = max(on[0] - landed[2], landed[0] - on[2], on[1] - landed[3], landed[1] - on[3])
            assert 0 < apart < 0.2, (landed, on)
        parts = [squash(p) for p in m["parts"]]
        for i, t in enumerate(col.terms):
            k = 4 * i
            assert parts[k] == squash(tex_number(t.x, paren_negative=i > 0))
            assert parts[k + 1] == r"\times" and parts[k + 2] == squash(tex_number(t.w, paren_negative=True))
            if i:
                assert parts[k - 1] == "+"
        assert squash(m["line"]) == squash(column_tex(col))
        assert len(set(m["colors"])) == 1 and not reads_as_a_role(m["colors"][0])   # one neutral colour
        assert m["shown"] == 1 and squash(m["entry"]) == squash(tex_number(col.total))


def test_the_recipe_is_w_and_emphasis_is_white(scene):
    """The outro boxes each column of W in white (FOCUS, never AREA gold);
    the glasses' heading is white too."""
    end = scene.moments["end"].probes
    for box, col in zip(end["boxes"], end["columns"]):
        assert box[0] < col[0] and box[1] < col[1] and box[2] > col[2] and box[3] > col[3]
    assert scene.moments["cocktail"].probes["heading"] == palette.FOCUS.to_hex()
    assert len(end["recipes"]) == len(end["boxes"])


def test_split_lines_are_worked_term_by_term_too(tmp_path):
    """Long numbers put each output's factors on one row and its sums under
    them; that line was written at once: now each x_i slides beside w_ij
    and the pair drops into the line there, as in the one-row layout."""
    lesson = tmp_path / "l.toml"
    lesson.write_text("[worked_example]\nx = [-23.5, 34.5, -45.5, 56.5]\n"
                      "W = [[-9.5, 8.5, -7.5, 6.5], [5.5, -4.5, 3.5, -2.5], [-1.5, 9.5, -8.5, 7.5], "
                      "[6.5, -5.5, 4.5, -3.5]]\n", encoding="utf-8")
    s = dry_run("WorkedExample", tmp_path, lesson=lesson, lang="en")
    expected = qm.worked_product(*(lambda p: (p.x, p.W))(load_lesson(lesson).params["worked_example"]))
    for j, col in enumerate(expected.columns):
        m = s.moments[f"column_{j + 1}"].probes
        assert m["split"], "this lesson's lines are on two rows"
        assert len(m["landed"]) == len(col.terms)
        for landed, on in m["landed"]:
            apart = max(on[0] - landed[2], landed[0] - on[2], on[1] - landed[3], landed[1] - on[3])
            assert 0 < apart < 0.2
        assert squash(m["line"]) == squash(column_tex(col))
    assert_clean_layout(s)


# --- issues 37 and 38: the example picks up UpProjection's answer, says its own numbers, wears no role
# colour, reads at a glance, keeps off the frame's edge, and shows each change while it is said

def hue_and_saturation(colour: str) -> tuple[float, float]:
    import colorsys
    r, g, b = (int(colour[k:k + 2], 16) / 255 for k in (1, 3, 5))
    h, _, s = colorsys.rgb_to_hls(r, g, b)
    return 360 * h, s


ROLE_HEX = ("#F2C14E", "#2EC4B6", "#FF7F6B")     # Q gold, K teal, V coral (docs/storyboard.md: Q, K, V only)


def reads_as_a_role(colour: str) -> bool:
    """A colour a learner could take for gold, teal or coral: a hue within 30 degrees of one of them, and
    not a near-grey."""
    hue, sat = hue_and_saturation(colour.upper())
    if sat < 0.15:
        return False
    for role in ROLE_HEX:
        role_hue, _ = hue_and_saturation(role)
        if min(abs(hue - role_hue), 360 - abs(hue - role_hue)) < 30:
            return True
    return False


def test_no_output_wears_a_role_colour(scene):
    # outputs 1 and 3 were highlighted in a pale gold (#E6EE9C) and a pale teal (#B2EBF2): gold, teal and coral
    # are Q, K and V, which come in chapter 2. Every colour the outputs wear (the column's box, its line, y's
    # entries, the glasses' levels and values) is neutral or far from them.
    worn = []
    for j in range(3):
        m = scene.moments[f"column_{j + 1}"].probes
        worn += m["colors"] + m["box_colors"]
    cocktail = scene.moments["cocktail"].probes
    worn += cocktail["level_colors"] + cocktail["value_colors"] + scene.moments["start"].probes["y_colors"]
    assert worn and not [c for c in worn if reads_as_a_role(c)], sorted(set(worn))


def spoken(v) -> str:
    """How the narration writes a number: an integer plainly, a fraction as a/b."""
    v = Fraction(v)
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


@pytest.mark.parametrize("lang", ["zh", "en", "es"])
def test_each_column_is_said_with_its_own_numbers(dry, lang):
    # the narration said one sentence three times ("take column j of W, multiply ... add everything up") and
    # never the numbers: each column's sentence now says its own factors, in order, and its total, and the
    # three sentences differ
    s = dry(SCENE, lang)
    lesson = load_lesson(LESSON).params["worked_example"]
    x, W = [Fraction(v) for v in lesson.x], [[Fraction(v) for v in row] for row in lesson.W]
    said = [b.say for b in s.beats if b.key == "column_say"]
    assert len(said) == len(W[0]) and len(set(said)) == len(said)
    for j, sentence in enumerate(said):
        numbers = [spoken(v) for i in range(len(x)) for v in (x[i], W[i][j])]
        numbers.append(spoken(sum(x[i] * W[i][j] for i in range(len(x)))))
        at = 0
        for n in numbers:          # each in its place: x_1, W_1j, x_2, W_2j, ..., then the total
            found = re.search(rf"(?<![\d/.]){re.escape(n)}(?![\d/]|\.\d)", sentence[at:])
            assert found, (sentence, n, numbers)
            at += found.end()


def test_the_intro_picks_up_the_answer_already_seen(scene):
    # the example was worked out as if new, one scene after UpProjection showed x W = [3, 4, 2]: it opens on
    # that answer (shown faintly in y before any column is worked, and said), asking where it comes from
    start = scene.moments["start"].probes
    lesson = load_lesson(LESSON).params["worked_example"]
    result = qm.worked_product(lesson.x, lesson.W).result
    assert [squash(e) for e in start["y"]] == [squash(tex_number(v)) for v in result]
    assert all(0.1 < o < 1 for o in start["y_opacity"])
    intro = next(b.say for b in scene.beats if b.key == "intro_say")
    assert "[" + ", ".join(spoken(v) for v in result) + "]" in intro
    assert all(scene.moments[f"column_{j + 1}"].probes["shown"] == 1 for j in range(len(result)))


def test_the_glass_amounts_read_as_large_as_the_values(scene):
    # the amounts beside the glasses (3, 4, 6, -4) were drawn small (font 32 against the values' 40): as drawn,
    # each is at least as tall as the glasses' values y_j
    labels = scene.moments["cocktail"].labels
    values = [lab.glyph for lab in labels if lab.content.replace(" ", "").startswith("y_{")]
    amounts = [lab.glyph for lab in labels if re.fullmatch(r"-?\d+", lab.content.strip())]
    assert values and len(amounts) == 4
    assert min(amounts) >= min(values) - 1e-6, (amounts, values)


@pytest.mark.parametrize("lang", ["zh", "en", "es"])
def test_nothing_touches_the_frame_edge(dry, lang):
    # the Spanish outro heading ran to the frame's right edge: every label keeps a fifth of a unit (27 px at
    # 1080p) from the edges of the frame at every key moment
    from manim import config
    s = dry(SCENE, lang)
    half_w, half_h = config.frame_width / 2, config.frame_height / 2
    near = [(m.name, lab.content, lab.box) for m in s.moments.values() for lab in m.labels
            if min(lab.box[0] + half_w, half_w - lab.box[2], half_h - lab.box[3]) < 0.2]
    assert not near, near


def test_the_pour_out_is_shown_while_it_is_said(scene):
    # the glasses were all filled, the negative amount poured out too, seconds before the narration reached
    # "a negative amount pours some out": the pour is a beat of its own, played from its start, and its
    # sentence says the negative product's numbers (x_2 = 4 times W_23 = -1 takes 4 away)
    lesson = load_lesson(LESSON).params["worked_example"]
    x, W = [Fraction(v) for v in lesson.x], [[Fraction(v) for v in row] for row in lesson.W]
    negative = [(x[i], W[i][j]) for j in range(len(W[0])) for i in range(len(x)) if x[i] * W[i][j] < 0]
    pour = next(b for b in scene.beats if b.key == "pour_say")
    poured = scene.moments["cocktail"].probes["poured_at"]
    assert pour.start - 1e-6 <= poured < pour.start + 0.5, (poured, pour.start)
    xi, w = negative[0]
    at = 0
    for n in (spoken(xi), spoken(w), spoken(-xi * w)):
        found = re.search(rf"(?<![\d/.]){re.escape(n)}(?![\d/]|\.\d)", pour.say[at:])
        assert found, (pour.say, n)
        at += found.end()
    cocktail = next(b for b in scene.beats if b.key == "cocktail_say")
    assert cocktail.end <= pour.start + 1e-6


@pytest.mark.parametrize("lang", ["zh", "en", "es"])
def test_the_last_sentence_points_to_w_q_w_k_w_v(dry, lang):
    # chapter 1 ends here: its last sentence names the three recipes of attention, and they are on screen
    s = dry(SCENE, lang)
    last = s.beats[-1].say
    assert all(name in last for name in ("W_Q", "W_K", "W_V")), last
    shown = " ".join(lab.content for lab in s.moments["end"].labels)
    assert all(name in shown.replace("{", "").replace("}", "") for name in ("W_Q", "W_K", "W_V")), shown


def box_distance(box, point) -> float:
    dx = max(box[0] - point[0], 0.0, point[0] - box[2])
    dy = max(box[1] - point[1], 0.0, point[1] - box[3])
    return float(np.hypot(dx, dy))


def test_each_glass_label_is_nearest_its_own_glass(scene):
    # as drawn: an amount is nearer its own layer than any other layer, a value and a recipe nearer their
    # own glass than any other glass
    probes = scene.moments["cocktail"].probes
    anchors = probes["anchors"]
    for label, box, own in probes["labelled"]:
        kind = own.split()[0]
        mine = box_distance(box, anchors[own])
        others = [box_distance(box, p) for n, p in anchors.items() if n != own and n.split()[0] == kind]
        assert all(mine < d for d in others), (label, own, mine, others)


def test_four_terms_are_said_in_clauses(tmp_path):
    # a drawn lesson of four zero terms: the Chinese sentence "0 乘 0 加 0 乘 0 加 ..." was cut inside a clause
    # with a clause end in reach; the terms said are now separated as clauses, and every cue breaks well
    from tests.helpers import assert_readable_beats
    lesson = tmp_path / "l.toml"
    lesson.write_text('[worked_example]\nx = [0, 0, 0, 0]\nW = [[0], [0], [0], [0]]\n', encoding="utf-8")
    s = dry_run(SCENE, tmp_path / "media", lesson=lesson, lang="zh")
    assert_readable_beats(s)
    assert_clean_layout(s)
