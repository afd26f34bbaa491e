"""ThreeLenses: the word vectors and the lens matrices are on screen, one
word's product is worked out before the cloud moves, and each word sits at
traits @ M on each lens's plane."""
import re
from fractions import Fraction

import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from qkv_lens.spoken import spoken
from qkv_lens.texts import tr
from tests.helpers import LESSON, change_problems, dry_run, frame_use, qkv_colour_problems

SCENE = "ThreeLenses"

LESSON = load_lesson(LESSON).params["three_lenses"]
X = np.array([w.traits for w in LESSON.words], dtype=float)


def number(tex: str) -> float:
    """A number as the scene typesets it: 0.6, -2, (-0.5), \\tfrac{1}{3}."""
    tex = tex.strip().strip("()")
    m = re.fullmatch(r"(-?)\\tfrac\{(\d+)\}\{(\d+)\}", tex)
    if m:
        return float((-1 if m.group(1) else 1) * Fraction(int(m.group(2)), int(m.group(3))))
    return float(tex)


def test_the_word_vectors_are_shown_first(scene):
    table = scene.moments["intro"].probes["table"]
    assert np.array_equal([[number(e) for e in row] for row in table], X)
    # nothing but the title and the table yet: no lens heading, no matrix
    kinds = {lab.kind for lab in scene.moments["intro"].labels}
    assert "Text" in kinds and kinds <= {"Text", "MathTex", "NumberTex"}   # no matrix yet
    shown = "".join(lab.content for lab in scene.moments["intro"].labels)
    assert not any(tr(scene.lang, "three_lenses.keep", what=lens.keep.name(scene.lang)).replace(" ", "") in shown
                   for lens in LESSON.lenses)


def test_one_word_times_each_lens_matrix_worked_out(scene):
    """The word's product with the first lens is written out term by term;
    the other two build on it: the same row x times their matrix, only their
    results new (no lines of arithmetic)."""
    # apple is the word with a non-zero value on every trait
    w = int(np.argmax((X != 0).sum(axis=1)))
    assert (X[w] != 0).all()
    assert [len(scene.moments[f"work{k}"].probes["lines"]) for k in (1, 2, 3)] == [2, 0, 0]
    for k, lens in enumerate(LESSON.lenses):
        probes = scene.moments[f"work{k + 1}"].probes
        assert probes["word"] == LESSON.words[w].name(scene.lang)
        M = np.array(lens.matrix, dtype=float)
        assert np.array_equal([[number(e) for e in row] for row in probes["matrix"]], M)
        expected = X[w] @ M
        assert [number(e) for e in probes["result"]] == pytest.approx(expected, abs=1e-12)
        for j, line in enumerate(probes["lines"]):
            parts = [p.strip() for p in line.split("=")]
            # first the terms x_i \times M_ij, in trait order, then (maybe) the non-zero products, then the total
            pairs = [t.split(r"\times") for t in parts[0].split(" + ")]
            assert [(number(a), number(b)) for a, b in pairs] == [(X[w, i], M[i, j]) for i in range(len(X[w]))]
            assert number(parts[-1]) == pytest.approx(expected[j], abs=1e-12)
            assert len(parts) == (3 if np.count_nonzero(X[w] * M[:, j]) >= 2 else 2)


def test_the_worked_product_comes_before_the_cloud_moves(scene):
    names = list(scene.moments)
    for k, lens in enumerate(LESSON.lenses):
        assert names.index(f"work{k + 1}") < names.index(f"lens{k + 1}")
        # the panel's heading (wrapped into lines; a Text keeps no spaces)
        heading = tr(scene.lang, "three_lenses.keep", what=lens.keep.name(scene.lang)).replace(" ", "")
        shown = [any(lab.kind == "Text" and heading.startswith(lab.content) for lab in scene.moments[m].labels)
                 for m in (f"work{k + 1}", f"lens{k + 1}")]
        assert shown == [False, True]


def test_words_land_at_traits_times_matrix(scene):
    for k, lens in enumerate(LESSON.lenses):
        M = np.array(lens.matrix, dtype=float)
        expected = [[sum(x[i] * M[i, j] for i in range(len(x))) for j in range(2)] for x in X]
        assert np.allclose(scene.moments[f"lens{k + 1}"].probes["words"], expected, atol=1e-6)
        # the worked word's coordinates are written where its guides meet the axes
        w = int(np.argmax((X != 0).sum(axis=1)))
        assert [number(c) for c in scene.moments[f"lens{k + 1}"].probes["coords"]] == pytest.approx(expected[w])


def test_the_descriptions_say_the_numbers_drawn(scene):
    """A learner who cannot see hears the table, each lens's matrix, where
    every word lands on each plane (by hand, as drawn) and which words pile
    up; the beats whose sentences say all they show are marked so."""
    said = {b.id: b.describe for b in scene.beats}
    lang = scene.lang
    assert spoken(X, lang) in said["intro"] and all(spoken(lens.matrix, lang) in said["intro"]
                                                    for lens in LESSON.lenses)
    for k in range(len(LESSON.lenses)):
        drawn = scene.moments[f"lens{k + 1}"].probes["words"]
        assert spoken(drawn, lang) in said[f"lens{k + 1}"]
    names = [w.name(lang) for w in LESSON.words]
    assert spoken([names[3], names[4]], lang) in said["lens3"]      # phone and computer, on one point
    assert {b.id for b in scene.beats if b.named} == {"define", "zero"}


def test_flattening_lens_merges_words(scene):
    # phone and computer are both 0 on roundness: the third lens cannot tell them apart
    assert (3, 4) in scene.moments["lens3"].probes["collisions"]
    assert scene.moments["lens1"].probes["collisions"] == []


def test_the_whole_frame_is_used(scene):
    boxes = np.array([lab.box for lab in scene.moments["end"].labels])
    left, bottom, right, top = boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 2].max(), boxes[:, 3].max()
    # from edge to edge, and down to just above the subtitle band (y = -3.04)
    assert left < -6.0 and right > 6.0 and top > 3.3
    assert bottom < -2.5


def test_the_three_views_are_large_at_the_end(every_language):
    """The three panels side by side, the scene's point, take the height
    under the title (they were once 270 px wide at 480p under three
    matrices, their names 10 px tall): each plane at least 4 units tall and
    4 wide, every name at least 26 px tall at 1080p (a name of small letters
    only, "manzana", is as tall as its small letters)."""
    end = every_language.moments["end"].probes
    for left, bottom, right, top in end["panels"]:
        assert top - bottom >= 4.0 and right - left >= 4.0, (left, bottom, right, top)
    assert end["label_px"] >= 26, end["label_px"]




def _dist(p, box):
    dx = max(box[0] - p[0], 0.0, p[0] - box[2])
    dy = max(box[1] - p[1], 0.0, p[1] - box[3])
    return float(np.hypot(dx, dy))


def _meet(a, b, pad=0.0):
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


def _on_segment(p, a, b):
    """How far the point ``p`` lies from the segment ``a``-``b``."""
    p, a, b = (np.asarray(v, dtype=float) for v in (p, a, b))
    t = np.clip(np.dot(p - a, b - a) / max(np.dot(b - a, b - a), 1e-12), 0, 1)
    return float(np.linalg.norm(p - (a + t * (b - a))))


def _labels_beside_their_points(drawn, axes, others, names, where_, sep):
    half_w, half_h = 14.222 / 2, 4.0
    # words that land on one point share one label naming them all, held by the first of them
    names = list(names)
    for i, d in enumerate(drawn):
        same = [j for j, e in enumerate(drawn) if np.allclose(e["dot"], d["dot"], atol=1e-6)]
        if i == same[0]:
            names[i] = sep.join(names[j] for j in same)
            assert d["holder"] is None
        else:
            assert d["holder"] == same[0] and d["label"] is None, f"{where_}: {names[i]} has a label of its own"
    assert [d["name"] for d in drawn if d["holder"] is None] == \
        [n.replace(" ", "") for n, d in zip(names, drawn) if d["holder"] is None]
    for i, d in enumerate(drawn):
        box, dot = d["label"], d["dot"]
        where = f"{where_}, {names[i]}"
        if d["holder"] is not None:
            continue
        assert box is not None, f"{where}: label hidden"
        assert -half_w + 0.1 < box[0] and box[2] < half_w - 0.1 and -half_h < box[1] and box[3] < half_h, where
        for j, e in enumerate(drawn):
            x, y = e["dot"]
            assert not _meet(box, (x - 0.07, y - 0.07, x + 0.07, y + 0.07)), f"{where} covers {names[j]}'s dot"
            if j != i and e["label"] is not None:
                assert not _meet(box, e["label"], pad=-0.02), f"{where} overlaps {names[j]}'s label"
        for line in axes:
            assert not _meet(box, line), f"{where}: an axis line strikes through the label"
        for other in others:
            assert not _meet(box, other, pad=-0.02), f"{where}: on an axis name or coordinate"
        rivals = [e["dot"] for e in drawn if np.hypot(e["dot"][0] - dot[0], e["dot"][1] - dot[1]) > 1e-6]
        if d["leader"] is None:
            assert all(_dist(r, box) >= _dist(dot, box) + 0.09 for r in rivals), \
                f"{where}: another point is as near the label as its own"
        else:
            lead, width, drawn_with = d["leader"]
            assert drawn_with and width >= 2.5, f"{where}: the leader line is missing or faint"
            ends = list(lead)
            a = min(ends, key=lambda q: np.hypot(q[0] - dot[0], q[1] - dot[1]))
            b = max(ends, key=lambda q: np.hypot(q[0] - dot[0], q[1] - dot[1]))
            assert np.hypot(a[0] - dot[0], a[1] - dot[1]) < 0.15 and _dist(b, box) < 0.15, \
                f"{where}: the leader does not join the dot to its label"
            assert all(_on_segment(r, a, b) > 0.1 for r in rivals), f"{where}: the leader passes another point"
            # at the end of its leader the label stands clear of every other point (it once sat right over
            # phone's point), and the leader crosses no other label (it once cut through "banana")
            assert all(_dist(r, box) >= 0.25 for r in rivals), f"{where}: the label sits beside another point"
            for j, e in enumerate(drawn):
                if j != i and e["label"] is not None:
                    assert not any(_inside((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])), e["label"])
                                   for t in np.linspace(0, 1, 60)), f"{where}: the leader cuts {names[j]}'s label"
            for other in others:     # nor an axis name ("round" was once struck through by tomato's leader)
                assert not any(_inside((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])), other)
                               for t in np.linspace(0, 1, 60)), f"{where}: the leader cuts an axis name"
    # no point is drawn over an axis name or a coordinate (one once overprinted "comida")
    for d in drawn:
        for other in others:
            assert _dist(d["dot"], other) >= 0.07, f"{where_}: a point is drawn over an axis name or coordinate"


def _inside(q, box):
    return box[0] < q[0] < box[2] and box[1] < q[1] < box[3]


@pytest.fixture(params=("zh", "en", "es"))
def every_language(request, dry):
    """The scene dry-run in each language of the text tables (Spanish names are the longest)."""
    return dry(SCENE, request.param)


def test_every_label_sits_beside_its_own_point(every_language):
    """Read back from the drawn panels (each lens large, then the three side
    by side at the end): each word's label is shown, inside the frame, on no
    dot, no axis line, no other label or axis name; and it is unmistakably its
    own point's: its own dot is the nearest dot to it by a margin, or a clear
    leader line runs from its own dot to it past every other dot."""
    scene = every_language
    names = [w.name(scene.lang) for w in LESSON.words]
    sep = tr(scene.lang, "three_lenses.sep")
    for k in range(1, 4):
        probes = scene.moments[f"lens{k}"].probes
        _labels_beside_their_points(probes["drawn"], probes["axes"], probes["others"], names, f"lens {k}", sep)
    end = scene.moments["end"].probes
    for k in range(3):
        _labels_beside_their_points(end["drawn"][k], end["axes"][k], end["others"][k], names, f"end, lens {k + 1}",
                                    sep)


def test_words_on_one_point_share_one_label(scene):
    """The third lens sends phone and computer (both 0 on roundness) to one
    point: one label, "phone, computer", beside that point, in the large panel
    and in the small one at the end; no two leaders from the same dot."""
    sep = tr(scene.lang, "three_lenses.sep")
    names = [w.name(scene.lang) for w in LESSON.words]
    phone, computer = 3, 4
    for drawn in (scene.moments["lens3"].probes["drawn"], scene.moments["end"].probes["drawn"][2]):
        assert np.allclose(drawn[phone]["dot"], drawn[computer]["dot"])
        assert drawn[phone]["name"] == (names[phone] + sep + names[computer]).replace(" ", "")
        assert drawn[computer]["label"] is None and drawn[computer]["leader"] is None
        leaders = [d["leader"] for d in drawn if d["leader"] is not None and
                   np.hypot(*np.subtract(d["leader"][0][0], drawn[phone]["dot"])) < 0.15]
        assert len(leaders) <= 1


def test_the_intro_brings_in_the_three_lenses(scene):
    """As the sentence names the three matrices they appear, beside the table."""
    mats = scene.moments["lenses"].probes["mats"]
    assert [[[number(e) for e in row] for row in m] for m in mats] == \
        [[list(map(float, row)) for row in lens.matrix] for lens in LESSON.lenses]
    kinds = [lab.kind for lab in scene.moments["lenses"].labels]
    assert kinds.count("Matrix") == 3


def test_each_lens_gets_most_of_the_frame(scene):
    """Each lens's plane is shown large: at least half the frame wide and most
    of the height between the title and the subtitle band."""
    for k in range(1, 4):
        left, bottom, right, top = scene.moments[f"lens{k}"].probes["panel"]
        assert right - left > 0.5 * 14.222 and top - bottom > 0.6 * (3.1 + 2.95), f"lens {k}"
        # beside it, under the table, the one matrix that makes it
        assert [lab.kind for lab in scene.moments[f"lens{k}"].labels].count("Matrix") == 1, f"lens {k}"


def test_the_terms_multiplied_by_zero_are_greyed(scene):
    """The terms multiplied by 0 grey out while their own sentence says they
    drop out (once 2.7 s before it), within a second of its start, and stay
    greyed until the next sentence (once 0.3 s in Chinese)."""
    w = int(np.argmax((X != 0).sum(axis=1)))
    M = np.array(LESSON.lenses[0].matrix, dtype=float)
    greyed = scene.moments["zero"].probes["greyed"]
    assert greyed == [[bool(X[w, i] * M[i, j] == 0) for i in range(len(X[w]))] for j in range(2)]
    assert not change_problems(scene, "zero", "zero_say", most=1.0), change_problems(scene, "zero", "zero_say", 1.0)
    beat = next(b for b in scene.beats if b.key == "zero_say")
    assert beat.end - scene.moments["zero"].time >= 2.0
    assert scene.moments["work1"].probes["greyed"] == greyed      # still greyed when the product is done


def test_the_definition_comes_first_and_stays_in_the_corner(scene):
    """The lesson's definition, once, at the start and on screen: its head,
    x (1 x n) W (n x m) = x W (1 x m) typeset, its note; then, as the words
    come in, x -> x W with these lenses' sizes (4 traits to 2) in the corner."""
    assert scene.said[0][0] == "define_say"
    d = scene.moments["define"].probes
    assert d["head"].replace(" ", "") == tr(scene.lang, "three_lenses.define_head").replace(" ", "")
    for part in (r"\underbrace{x}_{1\times n}", r"\underbrace{W}_{n\times m}", r"\underbrace{x\,W}_{1\times m}"):
        assert part in d["formula"]
    shown = "".join(lab.content for lab in scene.moments["define"].labels)
    assert "".join(d["note"]) in shown
    reminder = [lab.content for lab in scene.moments["lenses"].labels if "mapsto" in lab.content]
    assert len(reminder) == 1 and f"{len(LESSON.traits)}" in reminder[0] and "2" in reminder[0]


def test_lenses_wear_no_colour_of_q_k_or_v(scene):
    """Gold, teal and coral mean Q, K and V, which come in scene 7: no label
    here is drawn in them nor in a colour that reads as one (the lens titles
    were once pale teal and pale gold)."""
    assert not qkv_colour_problems(scene, hue=25), qkv_colour_problems(scene, hue=25)


def test_the_scene_ends_pointing_at_the_photo(scene):
    """The last sentence hands on to PhotoFilter."""
    assert scene.said[-1][0] == "outro_say"
    assert tr(scene.lang, "three_lenses.outro_say").endswith(
        {"zh": "照片上。", "en": "photo.", "es": "foto."}[scene.lang])


def test_the_flat_lens_collapses_the_plane_onto_its_line(scene):
    """The third lens keeps one trait: the words first stand on a plane of that
    trait and a trait the lens drops (a zero row of its matrix), then move
    straight down onto the line."""
    M = np.array(LESSON.lenses[2].matrix, dtype=float)
    before = scene.moments["lens3_plane"].probes["words"]
    after = scene.moments["lens3"].probes["words"]
    assert np.allclose(after, X @ M, atol=1e-6) and np.allclose(after[:, 1], 0, atol=1e-6)
    assert np.allclose(before[:, 0], (X @ M)[:, 0], atol=1e-6)
    dropped = [i for i in range(len(M)) if not M[i].any()]
    assert any(np.allclose(before[:, 1], X[:, i], atol=1e-6) for i in dropped)
    assert np.ptp(before[:, 1]) > 0.5      # a plane: the words spread up and down before the collapse
    names = list(scene.moments)
    assert names.index("lens3_plane") < names.index("lens3")


def test_the_table_reads_large_beside_the_lenses(scene):
    """As the three matrices come in, the table keeps a large size on the left
    (its digits clearly readable at 480p) and the matrices stand beside it, both
    centred in the height under the title: together they fill the frame."""
    probes = scene.moments["lenses"].probes
    table, mats = probes["table"], probes["box"]
    assert probes["digit"] >= 36, f"the table's digits are {probes['digit']:.0f} px tall at 1080p"
    assert table[2] < mats[0] and table[0] < -6.0 and mats[2] > 6.0
    middle = (3.1 - 2.95) / 2
    for box in (table, mats):
        assert abs((box[1] + box[3]) / 2 - middle) < 0.3
    assert frame_use(scene.moments["lenses"]) >= 0.7


def test_the_work_spreads_under_the_table(scene):
    """While a product is worked out, the table waits at the top left, the
    product stands right of it and the lines of arithmetic run under both,
    across most of the frame's width and larger than the product's digits."""
    for k in range(1, 4):
        probes = scene.moments[f"work{k}"].probes
        table, product, lines = probes["table"], probes["product"], probes["lines_box"]
        assert table[2] < product[0], f"work {k}: the product is not right of the table"
        if k > 1:
            continue     # the result only
        assert lines[3] < min(table[1], product[1]), f"work {k}: the lines are not under the table and product"
        assert lines[2] - lines[0] > 0.6 * 14.222 and lines[1] > -2.95, f"work {k}"
        assert probes["digits"][1] > probes["digits"][0], f"work {k}: the lines are not the larger"


def test_the_table_opens_large(scene):
    """The intro's table (alone: sparse_moments excuses a lesson of few words)
    fills the frame for the shipped lesson."""
    assert frame_use(scene.moments["intro"]) >= 0.6


def test_the_table_stays_large_during_the_work(scene):
    """While a product is worked out the table keeps a large size (it once fell
    back to 24.7 px digits at 1080p, the floor): as large as leaves the product
    beside it readable, and never smaller than beside a lens's panel."""
    for k in range(1, 4):
        probes = scene.moments[f"work{k}"].probes
        assert probes["table_digit"] >= 30, f"work {k}: the table's digits are {probes['table_digit']:.1f} px"
        assert probes["digits"][0] >= 25, f"work {k}: the product's digits are {probes['digits'][0]:.1f} px"


def traits_dropped(X, w: int, M) -> list[int]:
    """The traits of word w whose every product with M is 0 (numpy here)."""
    return [i for i in range(X.shape[1]) if not np.any(X[w, i] * M[i])]


def test_the_checkpoint_asks_which_traits_drop_out(scene, tmp_path):
    """With the first product written out and before its zero terms grey,
    the learner predicts which of the worked word's traits drop out of both
    sums: every choice as many traits of the lesson as the answer has, the
    answer the traits whose every product is 0 (numpy here).  Nothing said
    before names what the lens drops; another first matrix moves the answer."""
    lang = scene.lang
    asked = [(i, b) for i, b in enumerate(scene.beats) if b.ask is not None]
    assert [b.key for _, b in asked] == ["zero_say"]
    i, beat = asked[0]
    assert scene.beats[i - 1].key == "work1_say"
    assert scene.beats[i - 1].end <= beat.start <= scene.moments["zero"].time <= beat.end    # it greys them
    w = int(np.argmax((X != 0).sum(axis=1)))
    M = np.array(LESSON.lenses[0].matrix, dtype=float)
    gone = traits_dropped(X, w, M)
    assert gone == [i for i in range(len(M)) if not M[i].any()]     # the shipped word: the lens's zero rows
    names = [t.name(lang) for t in LESSON.traits]
    ask = beat.ask
    assert len(ask.choices) == len(set(ask.choices)) >= 2
    assert all(sum(n in c for n in names) == len(gone) for c in ask.choices)
    assert all(names[t] in ask.shown for t in gone) and ask.shown == ask.choices[ask.answer]
    assert LESSON.words[w].name(lang) in ask.question
    before = "".join(text for key, text in scene.said[:i])
    assert LESSON.lenses[0].drop.name(lang) not in before and not any(names[t] in before for t in gone)
    if lang != "en":
        return
    edited = tmp_path / "lesson.toml"
    matrices = [[[0, 0], [1, 0], [0, 0], [0, 1]]] + [lens.matrix for lens in LESSON.lenses[1:]]
    edited.write_text("[three_lenses]\n" + "".join(
        f"[[three_lenses.lenses]]\nkeep = {{ en = \"{lens.keep.name('en')}\" }}\n"
        f"drop = {{ en = \"{lens.drop.name('en')}\" }}\n"
        f"axes = [{{ en = \"{lens.axes[0].name('en')}\" }}, {{ en = \"{lens.axes[1].name('en')}\" }}]\n"
        f"matrix = {[[str(v) for v in row] for row in m]}\n".replace("'", '"')
        for lens, m in zip(LESSON.lenses, matrices)), encoding="utf-8")
    moved = traits_dropped(X, w, np.array(matrices[0], dtype=float))
    assert moved != gone
    again = dry_run(SCENE, tmp_path / "media", lesson=edited, lang="en")
    [edited_ask] = [b.ask for b in again.beats if b.ask is not None]
    assert {t for t, n in enumerate(names) if n in edited_ask.shown} == set(moved)
