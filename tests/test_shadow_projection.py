"""ShadowProjection: what is drawn, read back from the scene and checked
against independent computations (a ray-plane intersection, qhull's convex
hull, the drawn light and wall), and when each named change happens
against the words that name it, in every language."""
import re

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from qkv_lens.lesson import load_lesson
from qkv_lens.spoken import spoken
from qkv_lens.texts import tr
from tests.helpers import LESSON

SCENE = "ShadowProjection"

MOMENTS = ["parallel", "turned", "tilted"]


@pytest.fixture(params=["zh", "en", "es"])
def scene(request, dry):
    """The scene dry-run in every language of the tables (the letters settle
    round the words' own timing: Spanish once put a wall number on an edge)."""
    return dry(SCENE, request.param)


@pytest.fixture(scope="module")
def lesson():
    return load_lesson(LESSON).params["shadow_projection"]


def cast(X, d, n):
    """Independent reference: slide each row of X along d until it meets the
    plane n . x = 0 (a ray-plane intersection, no projection matrix)."""
    X = np.atleast_2d(X)
    return X - np.outer(X @ n, d) / (n @ d)


def unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def plane_axes(n):
    """Two orthonormal axes of the plane n . x = 0 (3, 2), from an SVD (not qkv_math's wall_basis)."""
    return np.linalg.svd(unit(n)[None, :])[2][1:].T


def area(polygon):
    """The area of a simple polygon (k, 2), by the shoelace formula."""
    x, y = polygon[:, 0], polygon[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def assert_exact_hull(outline, points, n):
    """The drawn outline (closed polygon, 3-D) is the convex hull of the
    shadow points: every corner is one of them, and it covers qhull's area."""
    A = plane_axes(n)
    ring = outline[:-1] if np.allclose(outline[0], outline[-1]) else outline
    for corner in ring:
        assert np.min(np.linalg.norm(points - corner, axis=1)) < 1e-6
    assert area(ring @ A) == pytest.approx(ConvexHull(points @ A).volume, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("moment", MOMENTS)
def test_shadows_are_the_projection_along_the_drawn_light(scene, moment):
    pr = scene.moments[moment].probes
    d, n = pr["d_dir"], pr["n_dir"]
    assert np.allclose(pr["shadows"], cast(pr["vertices"], d, n), atol=1e-6)
    assert np.allclose(pr["wall"] @ n, 0, atol=1e-6)                # the drawn wall is n . x = 0
    assert abs(pr["n_foot"] @ n) < 1e-6                             # n stands on it
    assert_exact_hull(pr["outline"], pr["shadows"], n)


def test_arrows_follow_the_lesson_light_and_wall(scene, lesson):
    a, b, c = (scene.moments[m].probes for m in MOMENTS)
    turn = np.deg2rad(float(lesson.wall_turn_degrees))
    assert np.allclose(a["d_dir"], unit(lesson.light), atol=1e-9)
    assert np.allclose(a["n_dir"], [1, 0, 0], atol=1e-9)
    assert np.allclose(b["n_dir"], [np.cos(turn), np.sin(turn), 0], atol=1e-9)   # the wall turned ...
    assert np.allclose(b["d_dir"], a["d_dir"], atol=1e-9)                       # ... the light not yet
    assert np.allclose(c["d_dir"], unit(lesson.light_end), atol=1e-9)          # then the light tilted
    assert not np.allclose(a["shadows"], b["shadows"]) and not np.allclose(b["shadows"], c["shadows"])


@pytest.mark.parametrize("moment", ["turned", "tilted"])
def test_the_readouts_are_P_and_P_P(scene, moment):
    """P in the row convention, and P P read out under it with P's own numbers."""
    pr = scene.moments[moment].probes
    d, n = pr["d_dir"], pr["n_dir"]
    P = np.eye(3) - np.outer(n, d) / (n @ d)
    assert np.allclose(pr["vertices"] @ P, cast(pr["vertices"], d, n))        # x P is the shadow (rows)
    assert np.allclose(pr["readout"], P, atol=0.005 + 1e-9)                   # shown to two decimals
    assert np.allclose(pr["twice"], P @ P, atol=0.005 + 1e-9)
    assert np.array_equal(np.round(pr["twice"], 2), np.round(pr["readout"], 2))   # the same numbers shown


def test_the_cube_falls_into_the_wall_with_rank_2(scene):
    """Three edges at x, the cube's three directions, span space; after the
    collapse they lie in the wall and span only its plane."""
    before, after = scene.moments["directions"].probes, scene.moments["collapsed"].probes
    d, n, V, Y = after["d_dir"], after["n_dir"], after["vertices"], after["flat"]
    assert np.allclose(Y, cast(V, d, n), atol=1e-6)                            # every vertex slid onto the wall
    starts, ends = before["ends"][:, 0], before["ends"][:, 1]
    x = starts[0]
    assert np.allclose(starts, x) and any(np.allclose(x, v) for v in V)
    steps = ends - starts
    assert np.allclose(np.sort(np.abs(steps), axis=1)[:, :2], 0, atol=1e-9)   # each along one axis: cube edges
    assert np.linalg.matrix_rank(steps, tol=1e-9) == 3
    landed = after["ends"]
    assert np.allclose(landed @ n, 0, atol=1e-6)                               # in the wall now ...
    assert np.allclose(landed.reshape(-1, 3), cast(before["ends"].reshape(-1, 3), d, n), atol=1e-6)
    assert np.linalg.matrix_rank(landed[:, 1] - landed[:, 0], tol=1e-9) == 2   # ... spanning two directions
    word, formula = after["rank"]
    shown = formula.split("P =")[1]
    assert int(shown) == np.linalg.matrix_rank(np.eye(3) - np.outer(n, d) / (n @ d))
    assert word.strip() == tr(scene.lang, "shadow_projection.rank_word")


def test_the_rank_is_written_in_spanish(dry):
    """Issue 39: the Spanish column says rango, as its narration does (and the
    Chinese one 秩, in the lesson's font: LaTeX here has no CJK)."""
    assert dry(SCENE, "zh").moments["collapsed"].probes["rank"][0] == "秩"
    es = dry(SCENE, "es")
    assert es.moments["collapsed"].probes["rank"][0] == "rango"
    texts = " ".join(tr("es", f"shadow_projection.{k}") for k in ("summary", "intro_say", "rank_say"))
    assert "esquina" not in texts and "vértice" in texts


def test_the_flat_shadow_cast_again_moves_nothing(scene):
    """P P = P: cast again, each ray runs from a point of the flat shadow to
    that point's shadow: every ray has length zero; nothing moved; and P P's
    numbers are P's."""
    recast, again = scene.moments["recast"].probes, scene.moments["again"].probes
    d, n = again["d_dir"], again["n_dir"]
    flat = again["flat"]
    assert np.allclose(recast["after"], recast["before"], atol=1e-12)         # nothing moved
    assert np.allclose(recast["after"], flat, atol=1e-12)
    for (start, end), y in zip(recast["rays"], flat):
        assert np.allclose(start, y, atol=1e-6) and np.allclose(end, y, atol=1e-6)   # a ray of length zero
    assert np.allclose(cast(flat, d, n), flat, atol=1e-9)                      # ... because y P = y on the wall
    P = np.eye(3) - np.outer(n, d) / (n @ d)
    assert np.allclose(again["twice"], P @ P, atol=0.005 + 1e-9)
    assert np.array_equal(np.round(again["twice"], 2), np.round(again["readout"], 2))


def test_the_cube_slides_along_the_light_and_no_shadow_moves(scene, lesson):
    """The whole cube slides up the drawn light and part way back: every
    vertex along its own ray, and no shadow (nor the outline) moves."""
    pr = scene.moments["pair"].probes
    d, n, x = pr["d_dir"], pr["n_dir"], pr["vertex"]
    V = scene.moments["parallel"].probes["vertices"]
    first = next(iter(pr["slid"].values()))
    along = []
    for step in pr["slid"].values():
        moved = step["drawn"] - V
        assert np.allclose(moved, moved[0], atol=1e-9)                        # the cube moves whole ...
        assert np.linalg.norm(np.cross(moved[0], d)) < 1e-6 and moved[0] @ d <= 1e-9   # ... up the light
        assert np.allclose(step["shadows"], cast(V, d, n), atol=1e-6)         # no shadow moved
        assert np.allclose(step["outline"], first["outline"], atol=1e-9)
        r = step["runner"]                                                    # x's point, on x's ray
        assert np.allclose(r, x + moved[0], atol=1e-9)
        along.append(-moved[0] @ d)
    assert max(along) == pytest.approx(float(lesson.ray_step)) and np.ptp(along) > 0.5


def test_wall_coordinates_read_the_marked_shadow(scene):
    """Still in parallel light: B's axes read the shadow x P of the vertex x
    as the two numbers x P B, written in the column and at the guides' feet."""
    pr = scene.moments["basis"].probes
    n, d, s, x = pr["n_dir"], pr["d_dir"], pr["s"], pr["corner"]
    B = np.array(pr["axes"]).T                    # the drawn axes as the columns of B (3x2)
    assert np.allclose(pr["origin"], 0, atol=1e-9)                      # they start at the origin
    assert np.allclose(B.T @ B, np.eye(2), atol=1e-6)                    # unit length, at right angles
    assert np.allclose(n @ B, 0, atol=1e-6)                              # lying in the wall
    assert np.allclose(s, cast(x, d, n)[0], atol=1e-6)                   # s: its shadow along the drawn light
    assert np.allclose([float(v) for v in pr["x_shown"].replace("\\ ", "").split(",")], x, atol=0.005 + 1e-9)
    shown = np.array([float(c) for c in pr["coords"]])
    P = np.eye(3) - np.outer(n, d) / (n @ d)
    assert np.allclose(shown, x @ P @ B, atol=0.005 + 1e-9)              # the numbers written are x P B
    assert np.allclose(shown @ B.T, s, atol=0.02)                        # and give the shadow back
    named = pr["named"]
    assert all(c in named for c in pr["coords"])                         # the same numbers at the feet
    for (start, foot), axis, c in zip(pr["feet"], B.T, shown):          # dashed from s to c times each axis
        assert np.allclose(start, s, atol=1e-6)
        assert np.allclose(foot, c * axis, atol=0.006)


@pytest.mark.parametrize("moment", ["lamp", "nearer"])
def test_lamp_shadows_are_ray_plane_intersections(scene, lesson, moment):
    pr = scene.moments[moment].probes
    L, n = pr["lamp"], pr["n_dir"]
    assert np.allclose(L, np.array(lesson.lamp, dtype=float))
    assert np.allclose(pr["starts"], L, atol=1e-6)                        # every ray from the one lamp
    for v, s in zip(pr["vertices"], pr["shadows"]):
        t = -(n @ L) / (n @ (v - L))
        assert np.allclose(s, L + t * (v - L), atol=1e-6)
    assert_exact_hull(pr["outline"], pr["shadows"], n)                    # the corner once dropped is there


def _vertices(edges):
    """The cube's vertices (8, 3) from its drawn edges (12, 2, 3), in qkv_math's edge order."""
    import qkv_math as qm
    out = np.zeros((8, 3))
    for (i, j), (a, b) in zip(qm.CUBE_EDGES, edges):
        out[i], out[j] = a, b
    return out


def test_the_same_cube_nearer_the_lamp_casts_a_bigger_shadow(scene):
    pr = scene.moments["nearer"].probes
    L, n, V = pr["lamp"], pr["n_dir"], pr["vertices"]
    copy = _vertices(pr["copy_edges"])
    move = copy - V
    assert np.allclose(move, move[0], atol=1e-9)                           # the same cube, moved whole ...
    centre = V.mean(axis=0)
    assert np.linalg.norm(np.cross(move[0], L - centre)) < 1e-6 and move[0] @ (L - centre) > 0   # ... to the lamp
    assert np.all(copy @ n < L @ n) and np.all(copy @ n > V @ n)          # nearer the lamp, still before it
    shadows = np.array([L + (-(n @ L) / (n @ (v - L))) * (v - L) for v in copy])   # rays from L through it
    assert_exact_hull(pr["copy_outline"], shadows, n)                       # its drawn shadow
    A = plane_axes(n)

    def ring(o):
        return (o[:-1] if np.allclose(o[0], o[-1]) else o) @ A
    assert area(ring(pr["copy_outline"])) > 1.2 * area(ring(pr["outline"]))   # near things: bigger shadows


def test_the_lamp_view_shows_the_shadow_as_a_shape(scene):
    """The wall faces the camera enough for the lamp's shadow to read as a
    shape, not a sliver: its drawn outline is large, and not thin (area
    against the square of its perimeter)."""
    pr = scene.moments["nearer"].probes
    drawn = pr["shadow_screen"][:, :2]
    a = area(drawn)
    perimeter = np.sum(np.linalg.norm(np.roll(drawn, -1, axis=0) - drawn, axis=1))
    assert a > 4.0 and a / perimeter ** 2 > 0.035
    phi, theta = pr["view"]
    toward = np.array([np.sin(phi) * np.cos(theta), np.sin(phi) * np.sin(theta), np.cos(phi)])
    assert toward @ pr["n_dir"] > 0.6                                     # within 53 degrees of the wall's normal


def test_the_homogeneous_matrix_is_shown_and_holds(scene):
    """[x, 1] H is proportional to [x', 1] for every drawn vertex and its
    drawn lamp shadow; the numbers shown are H's, to one decimal; the law
    names only letters on screen, each beside its point."""
    m = scene.moments["homog"]
    pr = m.probes
    H = pr["H"]
    for v, s in zip(pr["vertices"], pr["shadows"]):
        h = np.append(v, 1.0) @ H
        assert np.allclose(h[:3] / h[3], s, atol=1e-6)
    shown = np.array([[float(e.replace("{", "").replace("}", "")) for e in row] for row in pr["shown_H"]])
    assert np.allclose(shown, H, atol=0.05 + 1e-9)
    labels = " ".join(lab.content for lab in m.labels)
    assert r"[x,\ 1]\,H \propto [x',\ 1]" in labels
    assert {"x", "x'"} <= set(pr["named"])


def test_the_descriptions_say_the_numbers_drawn(scene, lesson):
    """A learner who cannot see hears P as the drawn light and wall make it
    (its readout's two decimals), P P under it, the wall's turn and H as
    shown; every beat that changes the picture says something of it."""
    said = {b.id: b.describe for b in scene.beats}
    for beat, moment in (("intro", "parallel"), ("turn", "tilted")):
        pr = scene.moments[moment].probes
        d, n = pr["d_dir"], pr["n_dir"]
        P = np.eye(3) - np.outer(n, d) / (n @ d)
        assert spoken(P, scene.lang, 2) in said[beat], beat
    assert spoken(scene.moments["again"].probes["twice"], scene.lang, 2) in said["again"]
    assert spoken(lesson.wall_turn_degrees, scene.lang) in said["turn"]
    shown = [[float(e.replace("{", "").replace("}", "")) for e in row]
             for row in scene.moments["homog"].probes["shown_H"]]
    assert spoken(shown, scene.lang, 1) in said["homog"]
    coords = [float(c.replace("{", "").replace("}", "")) for c in scene.moments["basis"].probes["coords"]]
    assert spoken(coords, scene.lang, 2) in said["basis"]


def test_the_lamp_drops_P_and_its_facts(scene):
    """P's formula, its rank, P P = P, B and x P B do not hold for the lamp:
    none is on screen once H is."""
    order = list(scene.moments)
    assert order.index("basis") < order.index("lamp") < order.index("homog")
    shown = " ".join(lab.content for lab in scene.moments["homog"].labels)
    for gone in (r"\mathrm{", r"P\,P", r"\frac", "P =", "B =", r"x\,P\,B"):
        assert gone not in shown, gone
    assert "H" in shown


LETTER_MOMENTS = ["parallel", "collapsed", "again", "turned", "tilted", "pair", "basis", "nearer", "homog"]


def _reach(point, box):
    """How far ``point`` is from ``box`` (0 inside it)."""
    return float(np.linalg.norm(np.maximum(0, np.maximum(np.array(box[:2]) - point, point - np.array(box[2:])))))


@pytest.mark.parametrize("moment", LETTER_MOMENTS)
def test_each_letter_is_nearest_its_own_point(scene, moment):
    """A letter sits by the point it names: nearer it than any other named
    point (x P, b_2 and 1.50 once crowded one spot and named the wrong one)."""
    named = scene.moments[moment].probes["named"]
    assert named
    for name, it in named.items():
        mine = _reach(it["point"], it["box"])
        assert mine < 0.8, name
        for other, that in named.items():
            if other != name and np.linalg.norm(that["point"] - it["point"]) > 1e-6:
                assert mine < _reach(that["point"], it["box"]), (name, other)


def _crosses(box, a, b, k=2000):
    t = np.linspace(0, 1, k)[:, None]
    p = a[None, :] + t * (b - a)[None, :]
    return bool(np.any((p[:, 0] > box[0]) & (p[:, 0] < box[2]) & (p[:, 1] > box[1]) & (p[:, 1] < box[3])))


@pytest.mark.parametrize("moment", LETTER_MOMENTS)
def test_letters_sit_clear_of_every_drawn_line_and_dot(scene, moment):
    """No cube edge, ray, arrow (a letter's own too: n once sat on its
    arrow), axis or guide runs through a letter, nor touches it; no dot is
    drawn on one (the flattened cube once covered n)."""
    pr = scene.moments[moment].probes
    assert len(pr["lines"]) >= 12 + 6                                   # the edges, and rays or axes
    for name, it in pr["named"].items():
        box = it["box"]
        padded = (box[0] - 0.08, box[1] - 0.08, box[2] + 0.08, box[3] + 0.08)
        for a, b in pr["lines"]:
            assert not _crosses(padded, a, b), name
        for dot in pr["dots"]:
            assert not (padded[0] - 0.05 < dot[0] < padded[2] + 0.05
                        and padded[1] - 0.05 < dot[1] < padded[3] + 0.05), name


# Each named change and the words that name it, in each language (written here, not read from the scene).
NAMED = {
    "x W": ("intro", {"en": "special case of x W", "zh": "x W 的严格几何特例", "es": "de x W"}),
    "light": ("intro", {"en": "Light along d", "zh": "光沿 d", "es": "dirección d"}),
    "cast": ("intro", {"en": "carries each vertex", "zh": "送到", "es": "lleva cada vértice"}),
    "x P": ("intro", {"en": "shadow is x P", "zh": "影子就是 x P", "es": "sombra es x P"}),
    "flatten": ("rank", {"en": "slides along", "zh": "滑到墙上", "es": "se desliza"}),
    "rank": ("rank", {"en": "rank 2", "zh": "秩是 2", "es": "rango 2"}),
    "recast": ("again", {"en": "shadow again", "zh": "再投一次", "es": "otra vez"}),
    "P P": ("again", {"en": "P times P", "zh": "P 乘 P", "es": "P por P"}),
    "turn": ("turn", {"en": "Turn the wall", "zh": "转动墙面", "es": "Giremos la pared"}),
    "slide": ("pair", {"en": "Slide the cube", "zh": "沿着光线滑动", "es": "Deslicemos el cubo"}),
    "one ray": ("pair", {"en": "one ray", "zh": "同一条光线", "es": "mismo rayo"}),
    "outline": ("pair", {"en": "outline", "zh": "轮廓", "es": "contorno"}),
    "axes": ("basis", {"en": "two axes", "zh": "两根轴", "es": "dos ejes"}),
    "B": ("basis", {"en": "matrix B", "zh": "矩阵 B", "es": "matriz B"}),
    "x P B": ("basis", {"en": "x P B", "zh": "x P B", "es": "x P B"}),
    "lamp": ("lamp", {"en": "point lamp", "zh": "点光源", "es": "lámpara puntual"}),
    "spread": ("lamp", {"en": "spread", "zh": "散开", "es": "un solo punto"}),
    "nearer": ("lamp", {"en": "nearer the lamp", "zh": "离灯越近", "es": "más cerca"}),
    "strike": ("homog", {"en": "linear map", "zh": "线性变换", "es": "lineal"}),
    "law": ("homog", {"en": "homogeneous", "zh": "齐次", "es": "homogéneas"}),
    "H": ("homog", {"en": "4×4 H", "zh": "4×4 的 H", "es": "H, de 4×4"}),
    "up": ("next", {"en": "two numbers become three", "zh": "两个数变成三个数", "es": "dos números se vuelven tres"}),
}


@pytest.mark.parametrize("lang", ["zh", "en", "es"])
def test_each_named_change_happens_while_its_words_are_read(dry, lang):
    """What a cue names happens while that cue is on screen, not before it
    (P was once struck out 6 s before "not an ordinary linear map", the
    lamp lit after "rays spread from one point" had gone)."""
    scene = dry(SCENE, lang)
    beats = {b.id: b for b in scene.beats}
    assert set(scene.changes) >= set(NAMED)
    for change, (beat, words) in NAMED.items():
        b = beats[beat]
        flat = re.sub(r"\s", "", words[lang])
        holding = [(start, end) for start, end, text in b.cues if flat in re.sub(r"\s", "", text)]
        assert holding, (change, [c[2] for c in b.cues])
        start, end = scene.changes[change]
        cue_start, cue_end = holding[0]
        assert cue_start - 1e-6 <= start < cue_end, (change, start, holding[0])
        assert end <= b.end + 1e-6, change


def test_the_scene_opens_and_closes_the_thread(scene):
    """First sentence: a shadow, the special case of x W (scene 2's projection
    matrix); last: projections need not shrink (scene 5)."""
    assert scene.beats[0].key == "intro_say" and "x W" in scene.beats[0].say
    assert scene.beats[-1].key == "next_say"
    assert scene.moments["ahead"].probes["card"] == [r"x\,P\,B:\ 3 \to 2", r"2 \to 3"]


def test_the_scene_keeps_its_time(dry):
    """60 to 75 s in English (it was 85 s): no padding, no cramming."""
    assert 60 <= dry(SCENE, "en").renderer.time <= 75


def test_things_on_the_wall_are_drawn_over_it(scene):
    """Cairo has no depth buffer: what lies on the wall must come after it in
    the camera's drawing order (the axes once vanished behind it)."""
    layers = scene.moments["basis"].probes["layers"]
    order = {m: k for k, m in enumerate(scene.moments["basis"].probes["drawn"])}   # the drawing order then
    wall = order[id(layers["wall"])]
    for name in ("shadow", "axes", "guides"):
        parts = [m for m in layers[name].get_family() if m.has_points()]
        assert parts and all(order[id(m)] > wall for m in parts), name


def _boxes_meet(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("moment", MOMENTS + ["nearer", "basis", "homog"])
def test_the_picture_keeps_clear_of_the_text(scene, moment):
    """The wall and the lamp, as drawn, touch no caption, formula or panel
    (only the letters that name things on the picture may sit on it)."""
    m = scene.moments[moment]
    ws = m.probes["wall_screen"]
    wall_box = (ws[:, 0].min(), ws[:, 1].min(), ws[:, 0].max(), ws[:, 1].max())
    on_wall = set(m.probes.get("named", {}))
    captions = [lab for lab in m.labels if lab.content not in on_wall]
    assert captions
    for lab in captions:
        assert not _boxes_meet(wall_box, lab.box), lab.content
    if "lamp_screen" in m.probes:
        (x, y, _), r = m.probes["lamp_screen"], m.probes["lamp_radius"]
        for lab in m.labels:
            assert not _boxes_meet((x - r, y - r, x + r, y + r), lab.box), lab.content


def test_a_shadow_appears_only_when_its_ray_lands(scene):
    """Light first (no shadow yet), then the rays: a vertex's shadow mark is
    shown exactly when its ray has reached it; at the end all eight are."""
    before, mid, after = (scene.moments[m].probes for m in ("light", "landing", "parallel"))
    assert not np.any(before["mark_opacity"] > 0)                     # the light shines: nothing on the wall
    landed = np.linalg.norm(mid["ray_tips"] - mid["cast_to"], axis=1) < 1e-6
    assert 0 < landed.sum() < 8                                         # some rays have landed, some not
    assert np.array_equal(mid["mark_opacity"] > 0, landed)             # ... and just those cast a shadow
    assert np.all(after["mark_opacity"] > 0)


def _span(points):
    points = np.asarray(points)[:, :2]
    return points.max(axis=0) - points.min(axis=0)


@pytest.mark.parametrize("moment", ["parallel", "pair", "basis", "nearer"])
def test_the_picture_fills_its_part_of_the_frame(scene, moment):
    """The cube is no speck: over 3 units (a fifth of the frame) across in
    the first cast, over 1.5 once the view widens; cube, wall and lamp fill
    the picture left of the text column: most of its height (the first
    cast, the lamp) or all its width (the wall turned wide)."""
    from scenes.shadow_projection import PICTURE
    pr = scene.moments[moment].probes
    assert _span(pr["cube_screen"])[0] > (3.0 if moment == "parallel" else 1.5)
    both = np.concatenate([pr["cube_screen"], pr["wall_screen"], [pr.get("lamp_screen", pr["cube_screen"][0])]])[:, :2]
    lo, hi = both.min(axis=0), both.max(axis=0)
    left, bottom, right, top = PICTURE
    assert left - 0.05 < lo[0] and hi[0] < right + 0.05 and bottom - 0.05 < lo[1] and hi[1] < top + 0.05
    tall, wide = (hi[1] - lo[1]) / (top - bottom), (hi[0] - lo[0]) / (right - left)
    assert min(tall, wide) > 0.65 and max(tall, wide) > 0.8


def _cross(a, b, p, q):
    def side(u, v, w):
        return np.sign((v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0]))
    return side(a, b, p) * side(a, b, q) < 0 and side(p, q, a) * side(p, q, b) < 0


def test_the_sliding_points_ray_keeps_off_the_cube(scene):
    """x's ray (the red track) crosses none of the cube's drawn edges (those
    at x itself meet it at x: they end on it)."""
    lines = scene.moments["pair"].probes["lines"]
    track, edges = lines[-1], lines[:12]                                 # the track: the last line drawn
    a, b = track
    u = (b - a) / np.linalg.norm(b - a)

    def on_track(p):
        d = p - a
        return abs(u[0] * d[1] - u[1] * d[0]) < 1e-6      # the 2-D cross product, written out

    crossing = [e for e in edges if not (on_track(e[0]) or on_track(e[1])) and _cross(a, b, *e)]
    assert not crossing
    assert sum(on_track(e[0]) or on_track(e[1]) for e in edges) == 3     # x's own three edges


def test_the_checkpoint_asks_whether_the_shadow_of_the_shadow_moves(scene):
    """Before the flat shadow is cast again: will it move? P P = P for the
    lesson's light and wall, computed here from the formula, so it stays."""
    p = load_lesson(LESSON).params["shadow_projection"]
    d = np.array([float(v) for v in p.light])
    d /= np.linalg.norm(d)
    n = np.array([1.0, 0.0, 0.0])                   # the wall x = 0, before it turns
    P = np.eye(3) - np.outer(n, d) / (n @ d)        # row convention: x P = x - (x.n / n.d) d
    assert np.allclose(P @ P, P)
    asked = [b for b in scene.beats if b.ask is not None]
    assert [b.key for b in asked] == ["again_say"]
    assert asked[0].ask.choices[asked[0].ask.answer] == tr(scene.lang, "shadow_projection.stays")


def test_a_letter_moves_to_the_first_free_spot_tried():
    """The spot search (all spots at once) finds what trying each spot in
    turn finds: the first spot, nearest first and round from straight up,
    that is free (``free``, below) and nearer the letter's own point than any
    other letter's point; none when no spot is, and no move when the letter
    is already where it may stay."""
    from manim import Rectangle, config

    from scenes.kit.layout import overlaps
    from scenes.shadow_projection import COLUMN_X, DOT_CLEARANCE, GAPS, LINE_CLEARANCE, ShadowProjection

    def free(box, others, top, lines, dots):
        """In the free picture (left of the text column, above the subtitles, under
        ``top``), clear of ``others``, of the ``lines``' points and of the ``dots``."""
        left, bottom = -config.frame_width / 2 + 0.1, -config.frame_height / 2 + 0.12 * config.frame_height + 0.06
        for near, pad in ((lines, LINE_CLEARANCE), (dots, DOT_CLEARANCE)):
            if len(near) and np.any((near[:, 0] > box[0] - pad) & (near[:, 0] < box[2] + pad)
                                    & (near[:, 1] > box[1] - pad) & (near[:, 1] < box[3] + pad)):
                return False
        return (left <= box[0] and box[2] <= COLUMN_X - 0.1 and bottom <= box[1] and box[3] <= top
                and not any(overlaps(box, o, pad=0.04) for o in others))

    def in_turn(label, anchor, now, others, points, lines, dots, top):
        mine, w, h = np.asarray(anchor, dtype=float)[:2], label.width, label.height

        def ok(box):
            return (all(_reach(mine, box) < _reach(p, box) for p in points if np.linalg.norm(p - mine) > 1e-6)
                    and free(box, others, top, lines, dots))
        if ok(now):
            return "stays", None
        for gap in GAPS:
            for k in range(16):
                a = np.pi / 2 + k * np.pi / 8
                u = np.array([np.cos(a), np.sin(a), 0.0])
                c = np.asarray(anchor, dtype=float) + (gap + 0.5 * (abs(u[0]) * w + abs(u[1]) * h)) * u
                if ok((c[0] - w / 2, c[1] - h / 2, c[0] + w / 2, c[1] + h / 2)):
                    return ("first" if gap == GAPS[0] and k == 0 else "later"), c
        return "none", None

    rng = np.random.default_rng(7)
    found = {"stays": 0, "first": 0, "later": 0, "none": 0}
    for _ in range(300):
        label = Rectangle(width=rng.uniform(0.2, 0.9), height=rng.uniform(0.2, 0.6))
        anchor = np.array([rng.uniform(-5.5, 1.5), rng.uniform(-1.5, 2.5), 0.0])
        label.move_to(anchor + np.array([*rng.uniform(-0.4, 0.4, 2), 0.0]))
        lo, hi = label.get_corner(np.array([-1, -1, 0])), label.get_corner(np.array([1, 1, 0]))
        now = (lo[0], lo[1], hi[0], hi[1])
        others = [(x, y, x + rng.uniform(0.2, 0.8), y + rng.uniform(0.2, 0.5))
                  for x, y in rng.uniform([-6, -2], [2, 3], (rng.integers(0, 4), 2))]
        points = [anchor[:2] + rng.uniform(-1.5, 1.5, 2) for _ in range(rng.integers(0, 4))]
        lines = rng.uniform([-6.5, -2.5], [2.5, 3.0], (rng.integers(0, 200), 2))
        dots = rng.uniform([-6.5, -2.5], [2.5, 3.0], (rng.integers(0, 6), 2))
        top = rng.uniform(2.0, 3.2)
        kind, want = in_turn(label, anchor, now, others, points, lines, dots, top)
        got = ShadowProjection._spot(label, anchor, now, others, points, lines, dots, top)
        assert (got is None) if want is None else np.array_equal(got, want)
        found[kind] += 1
    assert all(found.values()), found       # every kind of answer was met
