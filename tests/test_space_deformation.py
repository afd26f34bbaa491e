"""SpaceDeformation: what is drawn agrees with qkv_math, layout, real render."""
import numpy as np
import pytest

import qkv_math as qm
from qkv_lens.lesson import load_lesson
from qkv_lens.spoken import spoken
from tests.helpers import LESSON, assert_clean_layout, change_problems, dry_run, label_owner_problems

SCENE = "SpaceDeformation"


def expected_matrices():
    """Each step's matrix, built here from the lesson's numbers."""
    p = load_lesson(LESSON).params["space_deformation"]
    theta = np.deg2rad(float(p.rotation_degrees))
    c, s = np.cos(theta), np.sin(theta)
    u = np.array(p.flatten_onto, dtype=float)
    u = u / np.linalg.norm(u)
    M = np.array(p.svd_matrix, dtype=float)
    A, B, _ = qm.svd_stages(M)
    return p, {
        "start": np.eye(2),
        "rotation_half": np.array([[np.cos(theta / 2), np.sin(theta / 2)],
                                   [-np.sin(theta / 2), np.cos(theta / 2)]]),
        "rotation": np.array([[c, s], [-s, c]]),
        "stretch": np.diag([float(v) for v in p.stretch]),
        "shear": np.array([[1, 0], [float(p.shear), 1]]),
        "flatten": np.outer(u, u),
        "svd_target": np.eye(2),      # a fresh plane after the flattening, under M's dashed image
        "svd_a": A,
        "svd_b": A @ B,
        "svd_c": M,
        "end": M,
    }


def test_word_points_follow_each_step(scene):
    p, expected = expected_matrices()
    points = np.array([w.at for w in p.words], dtype=float)
    for name, M in expected.items():
        probes = scene.moments[name].probes
        assert np.allclose(probes["words"], points @ M, atol=1e-6), name
        assert np.allclose(probes["i_tip"], M[0], atol=1e-3), name
        assert np.allclose(probes["j_tip"], M[1], atol=1e-3), name


CORNERS = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)


def test_grid_axes_and_square_follow_each_step(scene):
    """At every key moment the grid's axes, the unit square and the basis
    arrows show qkv_math's matrix, and all are on screen (after the
    flattening the plane came back with the words left on the squashed line)."""
    _, expected = expected_matrices()
    for name, M in expected.items():
        probes = scene.moments[name].probes
        assert np.allclose(probes["grid_i"], M[0], atol=1e-6), name
        assert np.allclose(probes["grid_j"], M[1], atol=1e-6), name
        assert np.allclose(probes["square"], CORNERS @ M, atol=1e-6), name
        assert all(probes["shown"].values()), (name, probes["shown"])


def test_svd_target_is_shown_before_the_moves_land_on_it(scene):
    """Before the three moves: M written out and its dashed image of the unit
    square; after them the square lies on that image and the factors shown
    are qkv_math's stages, whose product is M."""
    p, _ = expected_matrices()
    M = np.array(p.svd_matrix, dtype=float)
    target = scene.moments["svd_target"].probes
    assert np.allclose(target["target"], M, atol=0.005)
    ghost = np.array(target["ghost"])
    corners = CORNERS @ M
    # every point of the dashed outline lies on the parallelogram's edges
    for q in ghost:
        assert min(_to_segment(q, corners[i], corners[(i + 1) % 4]) for i in range(4)) < 1e-6
    for c in corners:                            # ... and it reaches each corner
        assert np.min(np.linalg.norm(ghost - c, axis=1)) < 0.05
    end = scene.moments["svd_c"].probes
    assert np.allclose(end["square"], corners, atol=1e-6)
    shown = end["factors"]
    for got, want in zip(shown, qm.svd_stages(M)):
        assert np.allclose(got, want, atol=0.005)
    assert np.allclose(shown[0] @ shown[1] @ shown[2], M, atol=0.05)


def _to_segment(q, a, b) -> float:
    t = np.clip(np.dot(q - a, b - a) / np.dot(b - a, b - a), 0, 1)
    return float(np.linalg.norm(q - (a + t * (b - a))))


def test_flattened_line_crosses_no_label(scene):
    """On the squashed plane no word name, basis name or "same point!" mark
    lies across the line the plane became."""
    p, _ = expected_matrices()
    from scenes.space_deformation import PLANE_ORIGIN, PLANE_UNIT

    u = np.array(p.flatten_onto, dtype=float)
    normal = np.array([-u[1], u[0]]) / np.linalg.norm(u)
    side = scene.moments["flatten"].labels
    names = {w.name(scene.lang) for w in p.words} | {scene.tr("same_point"), r"\hat{\imath}", r"\hat{\jmath}"}
    checked = 0
    for label in side:
        if label.content.replace(" ", "") not in {n.replace(" ", "") for n in names}:
            continue
        l, b, r, t = label.box
        signs = {np.sign(np.dot((np.array([x, y]) - PLANE_ORIGIN[:2]) / PLANE_UNIT, normal))
                 for x in (l, r) for y in (b, t)}
        assert len(signs) == 1, label
        checked += 1
    assert checked >= len(p.words)


SVD_MOMENTS = ("svd_target", "svd_a", "svd_b", "svd_c", "end")


def test_readouts_show_the_matrix_and_its_determinant(scene):
    """The readout labelled M (and det M under it) shows the plane's matrix;
    from the SVD on it holds M, the target the three moves land on (it
    once showed their running product under the name M)."""
    p, expected = expected_matrices()
    target = np.array(p.svd_matrix, dtype=float)
    for name, M in expected.items():
        probes = scene.moments[name].probes
        shown = target if name in SVD_MOMENTS else M
        assert np.allclose(probes["readout"], shown, atol=0.005), name
        assert probes["det"] == pytest.approx(np.linalg.det(shown), abs=0.005), name


def test_svd_stages_compose_on_screen(scene):
    p, _ = expected_matrices()
    M = np.array(p.svd_matrix, dtype=float)
    a, b, c = (scene.moments[f"svd_{k}"].probes["matrix"] for k in "abc")
    # stage a is a rotation, stage c equals M
    assert np.allclose(a @ a.T, np.eye(2), atol=0.02)
    assert np.allclose(c, M, atol=0.005)
    # the stretch stage differs from a by a diagonal factor
    D = np.linalg.solve(scene.moments["svd_a"].probes["matrix"], scene.moments["svd_b"].probes["matrix"])
    assert abs(D[0, 1]) < 1e-9 and abs(D[1, 0]) < 1e-9


def test_flattening_makes_words_collide(scene):
    p, expected = expected_matrices()
    probes = scene.moments["flatten"].probes
    assert probes["det"] == pytest.approx(0, abs=0.005)
    words = probes["words"]
    # apple [2, 1] and banana [1, 2] land on one point of the line [1, 1]
    assert np.allclose(words[0], words[1]) and np.allclose(words[0], [1.5, 1.5])
    assert (0, 1) in probes["collisions"]


def test_the_descriptions_say_the_numbers_drawn(scene):
    """A learner who cannot see hears each move's matrix (built here, to the
    readout's two decimals), the SVD factors as the row shows them, and the
    words that met, by the names their labels show."""
    p, expected = expected_matrices()
    said = {b.id: b.describe for b in scene.beats}
    for name in ("rotation", "stretch", "shear", "flatten"):
        assert spoken(expected[name], scene.lang, 2) in said[name], name
    assert spoken(np.array(p.svd_matrix, dtype=float), scene.lang, 2) in said["svd"]
    factors = scene.moments["svd_c"].probes["factors"]          # read back from the typeset entries
    for k, F in zip("abc", factors):
        assert spoken(F, scene.lang, 2) in said[f"svd_{k}"], k
    labels = {lab.content for lab in scene.moments["start"].labels}
    met = [p.words[i].name(scene.lang) for i in scene.moments["flatten"].probes["collisions"][0]]
    assert set(met) <= labels and spoken(met, scene.lang) in said["flatten"]


def test_chinese_labels_in_zh(scene):
    texts = [l.content for l in scene.moments["start"].labels]
    if scene.lang == "zh":
        assert "苹果" in texts
    else:
        assert "apple" in texts


def test_reflecting_svd_matrix(tmp_path):
    lesson = tmp_path / "l.toml"
    lesson.write_text("[space_deformation]\nsvd_matrix = [[0, 1], [1, 0]]\n", encoding="utf-8")
    s = dry_run("SpaceDeformation", tmp_path, lesson=lesson, lang="en")
    b = s.moments["svd_b"].probes["matrix"]
    a = s.moments["svd_a"].probes["matrix"]
    assert np.allclose(s.moments["end"].probes["readout"], [[0, 1], [1, 0]], atol=0.005)
    assert np.linalg.det(b) / np.linalg.det(a) == pytest.approx(-1)
    assert_clean_layout(s)


REWINDS = ("rotation", "stretch", "shear")


def test_rewinds_move_everything_together(scene):
    """Halfway back to the identity, grid, unit square, words and readout all
    show qkv_math's matrix at that same parameter, and all of them are redrawn
    each frame (none left frozen in manim's cached still)."""
    p, _ = expected_matrices()
    points = np.array([w.at for w in p.words], dtype=float)
    paths = {"rotation": qm.rotation_path(np.deg2rad(float(p.rotation_degrees))),
             "stretch": qm.stretch_path(*(float(v) for v in p.stretch)),
             "shear": qm.shear_path(float(p.shear))}
    corners = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    for key in REWINDS:
        name = f"{key}_rewind_half"
        probes = scene.moments[name].probes
        M = paths[key](0.5)
        # halfway is a genuine in-between, neither end
        assert not np.allclose(M, np.eye(2), atol=0.05), name
        assert not np.allclose(M, paths[key](1.0), atol=0.05), name
        assert np.allclose(probes["matrix"], M), name
        assert np.allclose(probes["grid_i"], M[0], atol=1e-6), name
        assert np.allclose(probes["grid_j"], M[1], atol=1e-6), name
        assert np.allclose(probes["square"], corners @ M, atol=1e-6), name
        assert np.allclose(probes["words"], points @ M, atol=1e-6), name
        assert np.allclose(probes["i_tip"], M[0], atol=1e-3), name
        assert np.allclose(probes["readout"], M, atol=0.005), name
        assert probes["det"] == pytest.approx(np.linalg.det(M), abs=0.005), name
        assert all(probes["live"].values()), (name, probes["live"])


def test_every_move_redraws_the_plane(scene):
    """During each move the grid, square, words and readout are redrawn every
    frame, not left in the cached still."""
    for name in ("rotation_half", "rotation", "stretch", "shear", "flatten", "svd_a", "svd_b", "svd_c"):
        live = scene.moments[name].probes["live"]
        assert all(live.values()), (name, live)


def test_every_label_names_its_own_point(scene):
    """At every key moment each word's label, where shown, covers no other
    point and lies nearer its own point than any other (at the end "apple"
    once sat beside banana's point, its own point unnamed), and each word
    whose point is in the free frame, clear of the SVD row, is named."""
    for name, moment in scene.moments.items():
        labels = moment.probes.get("labels")
        if labels is None:
            continue
        assert not label_owner_problems(labels, where=name), label_owner_problems(labels, where=name)
        row = moment.probes.get("row")
        for (word, dot, box), free in zip(labels, moment.probes["dots_shown"]):
            under = row is not None and row[0] < dot[0] < row[2] and row[1] < dot[1] < row[3]
            if free and not under and name not in ("flatten",):
                assert box is not None, f"{name}: {word} has no label"


def test_the_svd_row_covers_no_word_and_not_the_square(scene):
    """The SVD row (M = turn stretch turn) sits over the plane, framed anew
    so that no word's point, at rest before the moves or after each, nor a
    corner of M's square, lies under it (it once hid the point of "round")."""
    p, _ = expected_matrices()
    row = scene.moments["svd_target"].probes["row"]

    def under(x, y, pad=0.2):
        return row[0] - pad < x < row[2] + pad and row[1] - pad < y < row[3] + pad

    for name in SVD_MOMENTS:
        for word, dot, _ in scene.moments[name].probes["labels"]:
            assert not under(*dot), (name, word)
    plane = scene.s.plane     # as framed for the SVD (the plane keeps that frame to the end)
    for corner in CORNERS @ np.array(p.svd_matrix, dtype=float):
        assert not under(*plane.c2p(corner)[:2], pad=0.0), corner


def test_the_words_come_in_as_the_sentence_names_them(scene):
    """Chapter 1 opens on the empty plane; the word points come in at the
    start of the sentence that says each point is a word vector (they once
    came 3 s after it)."""
    assert [k for k, _ in scene.said][:2] == ["chapter_say", "intro"]
    assert not change_problems(scene, "words", "intro", most=1.2), change_problems(scene, "words", "intro", most=1.2)
    shown = {lab.content for lab in scene.moments["words"].labels}
    p, _ = expected_matrices()
    assert all(w.name(scene.lang).replace(" ", "") in shown for w in p.words)


def test_each_row_of_m_is_flown_to_its_basis_vector(scene):
    """'Row 1 of M is where i lands': row 1 of the readout is written out
    beside the tip of i, row 2 beside the tip of j, while that sentence is read."""
    assert not change_problems(scene, "rows", "convention_say")
    probes = scene.moments["rows"].probes
    # the tags were drawn on the plane as it was then (before the SVD framed it anew)
    from scenes.space_deformation import PLANE_ORIGIN, PLANE_UNIT
    tips = [PLANE_ORIGIN[:2] + PLANE_UNIT * np.asarray(t) for t in (probes["i_tip"], probes["j_tip"])]
    for k, (centre, values) in enumerate(probes["tags"]):
        assert [float(v) for v in values] == pytest.approx(np.eye(2)[k])
        mine, other = (np.linalg.norm(centre - tips[j]) for j in (k, 1 - k))
        assert mine < 1.2 and mine < other, (k, mine, other)


def test_the_svd_moves_come_one_beat_each(scene):
    """Each of the three moves plays while its own sentence is read (the
    three were once said over the first move only)."""
    keys = [k for k, _ in scene.said]
    for k, name in enumerate("abc"):
        key = keys[keys.index("svd_say") + 1 + k]
        assert key.startswith(f"svd_{name}"), keys
        assert not change_problems(scene, f"svd_{name}", key)


def test_the_scene_opens_chapter_one_and_points_ahead(scene):
    """The first sentence says where the story is (chapter 1), the last
    points at what comes next; the last picture shows a vector of two numbers
    becoming one of three."""
    keys = [k for k, _ in scene.said]
    assert keys[0] == "chapter_say" and keys[-1] == "next_say"
    teaser = scene.moments["next"].probes["teaser"]
    assert "x_2" in teaser and "y_3" in teaser and "x_3" not in teaser


def test_the_checkpoint_asks_for_the_determinant_before_the_flattening(scene, tmp_path):
    """Before the plane is squashed onto its line, the learner predicts det M;
    the answer is the determinant of the projection onto the lesson's line
    (numpy here), given to the two decimals det M is shown with, and the beat
    the page stops before is the one that shows it.  An edited line is named
    in the question; the answer stays 0 (every flattening loses the area)."""
    p = load_lesson(LESSON).params["space_deformation"]
    u = np.array(p.flatten_onto, dtype=float)
    F = np.outer(u, u) / (u @ u)
    asked = [b for b in scene.beats if b.ask is not None]
    assert [b.key for b in asked] == ["flatten_say"]
    beat, ask = asked[0], asked[0].ask
    assert ask.number == pytest.approx(np.linalg.det(F), abs=1e-9) and ask.places == 2
    assert ask.right("0") and ask.right("0.00") and not ask.right("1")
    flat = scene.moments["flatten"]
    assert beat.start <= flat.time <= beat.end                      # the beat shows det M ...
    assert flat.probes["det"] == pytest.approx(ask.number, abs=0.005)   # ... as the answer
    before = [m for m in scene.moments.values() if m.time is not None and m.time <= beat.start]
    assert before and all(abs(m.probes["det"]) > 0.005 for m in before if "det" in m.probes)   # never 0 before
    line = "[" + ", ".join(f"{float(v):g}" for v in p.flatten_onto) + "]"
    assert line in ask.question
    if scene.lang != "en":
        return
    edited = tmp_path / "lesson.toml"
    edited.write_text("[space_deformation]\nflatten_onto = [2, -1]\n", encoding="utf-8")
    again = dry_run(SCENE, tmp_path / "media", lesson=edited, lang="en")
    [edited_ask] = [b.ask for b in again.beats if b.ask is not None]
    v = np.array([2.0, -1.0])
    assert "[2, -1]" in edited_ask.question and line not in edited_ask.question
    assert edited_ask.number == pytest.approx(np.linalg.det(np.outer(v, v) / (v @ v)), abs=1e-9)
