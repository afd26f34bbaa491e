"""ShadowProjection: the drawn shadows are the oblique projection along the
drawn light d onto the wall with the drawn normal n, read back from the scene."""
import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from tests.helpers import LESSON

SCENE = "ShadowProjection"

MOMENTS = ["parallel", "turned", "tilted"]


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


@pytest.mark.parametrize("moment", MOMENTS)
def test_shadows_are_the_projection_along_the_drawn_light(scene, moment):
    pr = scene.moments[moment].probes
    d, n = pr["d_dir"], pr["n_dir"]
    assert np.allclose(pr["shadows"], cast(pr["vertices"], d, n), atol=1e-6)
    assert np.allclose(pr["wall"] @ n, 0, atol=1e-6)                # the drawn wall is n . x = 0
    assert abs(pr["n_foot"] @ n) < 1e-6                             # n stands on it
    # the dark outline is the convex hull of the shadows: each of its corners is one of them
    for corner in pr["outline"]:
        assert np.min(np.linalg.norm(pr["shadows"] - corner, axis=1)) < 1e-6


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
def test_the_readout_is_P_in_the_row_convention(scene, moment):
    pr = scene.moments[moment].probes
    d, n = pr["d_dir"], pr["n_dir"]
    P = np.eye(3) - np.outer(n, d) / (n @ d)
    assert np.allclose(pr["vertices"] @ P, cast(pr["vertices"], d, n))        # x P is the shadow (rows)
    assert np.allclose(pr["readout"], P, atol=0.005 + 1e-9)                   # shown to two decimals
    assert np.allclose(pr["vertices"] @ pr["readout"], pr["shadows"], atol=0.05)


def test_the_cube_collapses_onto_the_wall_with_rank_2(scene):
    pr = scene.moments["collapsed"].probes
    d, n, V, Y = pr["d_dir"], pr["n_dir"], pr["vertices"], pr["flat"]
    assert np.allclose(Y, cast(V, d, n), atol=1e-6)
    assert np.linalg.matrix_rank(Y - Y[0], tol=1e-9) == 2                      # flat: two dimensions left
    assert np.linalg.matrix_rank(V - V[0], tol=1e-9) == 3
    shown = int(pr["rank"].replace(" ", "").split("=")[-1])
    assert shown == np.linalg.matrix_rank(np.eye(3) - np.outer(n, d) / (n @ d))


def test_the_shadow_cast_again_stays_put(scene):
    first, second = scene.moments["collapsed"].probes, scene.moments["again"].probes
    d, n = second["d_dir"], second["n_dir"]
    assert np.allclose(second["flat"], first["flat"], atol=1e-9)
    assert np.allclose(second["flat"], cast(first["flat"], d, n), atol=1e-9)


def test_a_point_sliding_along_a_ray_keeps_its_shadow(scene, lesson):
    pr = scene.moments["pair"].probes
    d, n, corner = pr["d_dir"], pr["n_dir"], pr["corner"]
    points = np.array([v["point"] for v in pr["slid"].values()])
    shadows = np.array([v["shadow"] for v in pr["slid"].values()])
    for x in points:                                                   # on the corner's light ray, up-light
        assert np.linalg.norm(np.cross(x - corner, d)) < 1e-6 and (corner - x) @ d >= -1e-9
    along = (corner - points) @ d
    assert along.max() == pytest.approx(float(lesson.ray_step)) and np.ptp(along) > 0.5
    assert np.allclose(shadows, cast(points, d, n), atol=1e-6)        # each drawn shadow is its projection
    assert np.ptp(shadows, axis=0).max() < 1e-9                       # ... and it never moved


def test_lamp_shadows_are_ray_plane_intersections(scene, lesson):
    pr = scene.moments["lamp"].probes
    L, n = pr["lamp"], pr["n_dir"]
    assert np.allclose(L, np.array(lesson.lamp, dtype=float))
    assert np.allclose(pr["starts"], L, atol=1e-6)
    for v, s in zip(pr["vertices"], pr["shadows"]):
        t = -(n @ L) / (n @ (v - L))
        assert np.allclose(s, L + t * (v - L), atol=1e-6)


def test_wall_coordinates_read_the_marked_shadow(scene):
    """Still in parallel light: B's axes read the shadow x P of the corner x
    as the two numbers x P B, written in the column and at the guides' feet."""
    pr = scene.moments["basis"].probes
    n, d, s, x = pr["n_dir"], pr["d_dir"], pr["s"], pr["x"]
    B = np.array(pr["axes"]).T                    # the drawn axes as the columns of B (3x2)
    assert np.allclose(pr["origin"], 0, atol=1e-9)                      # they start at the origin
    assert np.allclose(B.T @ B, np.eye(2), atol=1e-6)                    # unit length, at right angles
    assert np.allclose(n @ B, 0, atol=1e-6)                              # lying in the wall
    assert np.allclose(x, pr["corner"], atol=1e-9)                       # x: the corner, back from its ray
    assert np.allclose(s, cast(x, d, n)[0], atol=1e-6)                   # s: its shadow along the drawn light
    assert np.allclose([float(v) for v in pr["x_shown"].replace("\\ ", "").split(",")], x, atol=0.005 + 1e-9)
    shown = np.array([float(c) for c in pr["coords"]])
    P = np.eye(3) - np.outer(n, d) / (n @ d)
    assert np.allclose(shown, x @ P @ B, atol=0.005 + 1e-9)              # the numbers written are x P B
    assert np.allclose(shown @ B.T, s, atol=0.02)                        # and give the shadow back
    assert sorted(pr["on_wall"]) == sorted(pr["coords"])                 # the same numbers at the feet
    for (start, foot), axis, c in zip(pr["feet"], B.T, shown):          # dashed from s to c times each axis
        assert np.allclose(start, s, atol=1e-6)
        assert np.allclose(foot, c * axis, atol=0.006)


def test_the_lamp_comes_after_the_linear_story_and_drops_its_facts(scene):
    """P's formula, rank P = 2 and P P = P do not hold for the lamp: none of
    them (nor P's numbers, nor the wall numbers) is on screen once it shines."""
    order = list(scene.moments)
    assert order.index("basis") < order.index("lamp")
    shown = " ".join(lab.content for lab in scene.moments["lamp"].labels)
    for gone in (r"\mathrm{rank}", r"P\,P", r"\frac", "P =", "B =", r"x\,P\,B"):
        assert gone not in shown, gone
    assert "H" in shown                                                 # the homogeneous matrix instead


def _crosses(box, a, b, k=400):
    t = np.linspace(0, 1, k)[:, None]
    p = a[None, :] + t * (b - a)[None, :]
    return bool(np.any((p[:, 0] > box[0]) & (p[:, 0] < box[2]) & (p[:, 1] > box[1]) & (p[:, 1] < box[3])))


@pytest.mark.parametrize("moment", ["pair", "basis", "lamp"])
def test_the_point_letters_sit_clear_of_every_drawn_line(scene, moment):
    """x and x P, the wall numbers (such as 1.50) and the lamp's x and x':
    no cube edge, light ray or x's ray runs through them, nor touches them
    (a margin round each letter's box)."""
    pr = scene.moments[moment].probes
    assert len(pr["lines"]) >= 12 + 8
    names = set(pr["letter_boxes"])
    assert {"lamp": {"x", "x'"}, "basis": {"x", "x P"}, "pair": {"x", "x P"}}[moment] <= names
    if moment == "basis":
        assert len(names) == 4                     # the two wall numbers too
    for name, box in pr["letter_boxes"].items():
        padded = (box[0] - 0.08, box[1] - 0.08, box[2] + 0.08, box[3] + 0.08)   # not even touching
        for a, b in pr["lines"]:
            assert not _crosses(padded, a, b, k=2000), name


def test_the_lamp_formula_uses_only_letters_on_screen(scene):
    """[x, 1] H ∝ [x', 1]: x names the corner and x' its lamp shadow, each letter beside its own point."""
    m = scene.moments["lamp"]
    shown = " ".join(lab.content for lab in m.labels)
    assert r"[x,\ 1]\,H \propto [x',\ 1]" in shown and "[s," not in shown
    named = m.probes["named"]
    for point, label in (("x", "x_label"), ("x'", "x'_label")):
        mine = np.linalg.norm(named[label][:2] - named[point][:2])
        other = np.linalg.norm(named[label][:2] - named["x'" if point == "x" else "x"][:2])
        assert mine < 0.8 and mine < other, point


def test_things_on_the_wall_are_drawn_over_it(scene):
    """Cairo has no depth buffer: what lies on the wall must come after it in
    the camera's drawing order (the axes once vanished behind it)."""
    layers = scene.moments["basis"].probes["layers"]
    order = {m: k for k, m in enumerate(scene.moments["basis"].probes["drawn"])}   # the drawing order then
    wall = order[id(layers["wall"])]
    for name in ("shadow", "axes", "s", "guides"):
        parts = [m for m in layers[name].get_family() if m.has_points()]
        assert parts and all(order[id(m)] > wall for m in parts), name


def _boxes_meet(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("moment", MOMENTS + ["lamp", "basis"])
def test_the_picture_keeps_clear_of_the_text(scene, moment):
    """The wall and the lamp, as drawn, touch no caption, formula or panel
    (only the small letters that name things on the wall may sit on it)."""
    m = scene.moments[moment]
    ws = m.probes["wall_screen"]
    wall_box = (ws[:, 0].min(), ws[:, 1].min(), ws[:, 0].max(), ws[:, 1].max())
    on_wall = {"s", "b_1", "b_2", "n", "d", "x", "x P", "x'", *m.probes.get("on_wall", ())}
    captions = [lab for lab in m.labels if lab.content not in on_wall]
    assert captions
    for lab in captions:
        assert not _boxes_meet(wall_box, lab.box), lab.content
    if "lamp_screen" in m.probes:
        (x, y, _), r = m.probes["lamp_screen"], m.probes["lamp_radius"]
        for lab in m.labels:
            assert not _boxes_meet((x - r, y - r, x + r, y + r), lab.box), lab.content




def test_a_shadow_appears_only_when_its_ray_lands(scene):
    """Light first (no shadow yet), then the rays: a corner's shadow mark is
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


@pytest.mark.parametrize("moment", MOMENTS + ["lamp"])
def test_the_cube_and_wall_are_big(scene, moment):
    """The cube is no speck: over 2 units (1/7 of the frame) across in parallel
    light (over 1.2 once the camera has pulled back for the lamp); cube and
    wall (and the lamp) fill the picture left of the text column: most of its height, half its width."""
    from scenes.shadow_projection import PICTURE
    pr = scene.moments[moment].probes
    assert _span(pr["cube_screen"])[0] > (1.2 if moment == "lamp" else 2.0)
    both = np.concatenate([pr["cube_screen"], pr["wall_screen"], [pr.get("lamp_screen", pr["cube_screen"][0])]])[:, :2]
    lo, hi = both.min(axis=0), both.max(axis=0)
    left, bottom, right, top = PICTURE
    assert left - 0.05 < lo[0] and hi[0] < right + 0.05 and bottom - 0.05 < lo[1] and hi[1] < top + 0.05
    assert hi[1] - lo[1] > 0.75 * (top - bottom) and hi[0] - lo[0] > 0.45 * (right - left)


def test_the_camera_goes_round_once_for_the_lamp(scene):
    """Seen from one side up to the wall's axes; for the lamp the camera moves
    round (the depth from lamp to cube to wall shows) and the lamp is in the picture."""
    views = [scene.moments[m].probes["view"] for m in MOMENTS]
    assert all(np.allclose(v, views[0]) for v in views)
    lamp = scene.moments["lamp"].probes
    assert abs(lamp["view"][1] - views[0][1]) > np.deg2rad(15)
    (x, y, _), r = lamp["lamp_screen"], lamp["lamp_radius"]
    assert -7.0 < x - r and x + r < 2.9 and -3.0 < y - r and y + r < 3.4


def _cross(a, b, p, q):
    def side(u, v, w):
        return np.sign((v[0] - u[0]) * (w[1] - u[1]) - (v[1] - u[1]) * (w[0] - u[0]))
    return side(a, b, p) * side(a, b, q) < 0 and side(p, q, a) * side(p, q, b) < 0


def test_the_sliding_points_ray_keeps_off_the_cube(scene):
    """x's ray (the red track) crosses none of the cube's drawn edges."""
    lines = scene.moments["pair"].probes["lines"]
    track, edges = lines[-1], lines[:12]                                 # the track: the last line drawn
    assert not any(_cross(*track, *edge) for edge in edges)
