"""UpProjection: x lands on x W in 3-D; the contrast map keeps it flat."""
from fractions import Fraction

import numpy as np
import pytest

from qkv_lens.languages import offered
from qkv_lens.lesson import load_lesson
from qkv_lens.spoken import spoken
from tests.helpers import LESSON, assert_clean_layout, dry_run

SCENE = "UpProjection"


def test_article_point_lands_on_3_4_2(scene):
    assert np.allclose(scene.moments["flat"].probes["dot"], [3, 4, 0], atol=1e-6)
    assert np.allclose(scene.moments["lifted"].probes["dot"], [3, 4, 2], atol=1e-6)
    assert np.allclose(scene.moments["turned"].probes["dot"], [3, 4, 2], atol=1e-6)
    assert scene.moments["lifted"].probes["result"].replace(" ", "").endswith("[3,\\4,\\2]")


def test_grid_lies_in_the_span_of_w(scene):
    W = np.array(load_lesson(LESSON).params["up_projection"].W, dtype=float)
    normal = np.cross(W[0], W[1])
    for end in scene.moments["lifted"].probes["grid_ends"]:
        assert abs(end @ normal) < 1e-6


def test_contrast_is_a_flat_rotation_and_stretch(scene):
    p = load_lesson(LESSON).params["up_projection"]
    th = np.deg2rad(float(p.contrast_rotation_degrees))
    sx, sy = (float(v) for v in p.contrast_stretch)
    x = np.array([3.0, 4.0])
    by_hand = np.array([x[0] * sx, x[1] * sy]) @ np.array([[np.cos(th), np.sin(th)], [-np.sin(th), np.cos(th)]])
    assert np.allclose(scene.moments["contrast"].probes["dot"], [*by_hand, 0], atol=1e-6)


def lesson():
    p = load_lesson(LESSON).params["up_projection"]
    x, W = np.array(p.point, dtype=float), np.array(p.W, dtype=float)
    # by hand, not qkv_math: x W one column at a time
    landed = np.array([sum(x[i] * W[i, j] for i in range(2)) for j in range(3)])
    return p, x, W, landed


def test_axes_are_named_and_face_the_camera(scene):
    _, _, W, landed = lesson()
    probes = scene.moments["lifted"].probes
    assert [n for n, _ in probes["axis_labels"]] == ["y_1", "y_2", "y_3"]
    for k, (_, at) in enumerate(probes["axis_labels"]):
        # each name sits at the end of its own axis (a little to the side), past the point and W's rows
        assert at[k] > np.abs(np.vstack([landed, W])).max()
        assert np.abs(np.delete(at, k)).max() < 1
    assert probes["facing"], "axis names turn with the scene instead of facing the camera"
    for moment in ("lifted", "rows", "coords", "turned"):
        assert {"y_1", "y_2", "y_3"} <= {lab.content for lab in scene.moments[moment].labels}, moment


def test_w_rows_are_the_arrows_that_span_the_plane(scene):
    _, _, W, _ = lesson()
    probes = scene.moments["rows"].probes
    assert np.allclose(probes["starts"], 0, atol=1e-6)
    assert np.allclose(probes["tips"], W, atol=1e-6)
    assert [t.replace(r"\ ", "") for t in probes["labels"]] == \
        ["[" + ",".join(f"{v:g}" for v in row) + "]" for row in W]
    # the sheet shown with them is their span: every corner is a combination of the two rows
    for corner in probes["sheet"]:
        coeffs, *_ = np.linalg.lstsq(W.T, corner, rcond=None)
        assert np.allclose(coeffs @ W, corner, atol=1e-6)


def test_drop_lines_read_off_the_landed_point(scene):
    _, _, _, landed = lesson()
    probes = scene.moments["coords"].probes
    assert np.allclose(probes["dot"], landed, atol=1e-6)
    floor = landed * [1, 1, 0]
    ends = [(np.round(a, 6), np.round(b, 6)) for a, b in probes["drops"]]
    # every dashed line starts at the point or straight below it on the floor ...
    assert all(np.allclose(a, landed) or np.allclose(a, floor) for a, _ in ends)
    assert any(np.allclose(a, landed) and np.allclose(b, floor) for a, b in ends)
    # ... and the others end on the three axes, at the point's coordinates
    on_axes = sorted((tuple(b) for _, b in ends if np.count_nonzero(np.abs(b) > 1e-6) == 1))
    assert np.allclose(on_axes, sorted(tuple(landed * e) for e in np.eye(3)))
    # each coordinate is written beside its own foot
    assert [k for k, _ in probes["coords"]] == [0, 1, 2]
    assert [float(c) for _, c in probes["coords"]] == pytest.approx(list(landed))
    feet = np.array([landed * e for e in np.eye(3)])
    for k, at in enumerate(probes["coord_at"]):
        assert np.argmin(np.linalg.norm(feet - at, axis=1)) == k
    assert {"3", "4", "2"} <= {lab.content for lab in scene.moments["coords"].labels}


@pytest.mark.parametrize("point, W", [([2, 4], None), ([-2, 1], [[2, 1, 0], [0, -1, 3]])])
def test_other_lessons_stay_readable(tmp_path, point, W):
    # a point that lands on the floor (no height to read) and a steeper W
    lesson = tmp_path / "l.toml"
    lesson.write_text("[up_projection]\n" + f"point = {point}\n" + (f"W = {W}\n" if W else ""), encoding="utf-8")
    s = dry_run("UpProjection", tmp_path, lesson=lesson, lang="zh")
    p = load_lesson(lesson).params["up_projection"]
    landed = np.array(point, dtype=float) @ np.array(p.W, dtype=float)
    assert np.allclose(s.moments["coords"].probes["dot"], landed)
    assert [k for k, _ in s.moments["coords"].probes["coords"]] == [k for k in range(3) if landed[k] != 0]
    assert np.allclose(s.moments["rows"].probes["tips"], np.array(p.W, dtype=float))
    assert_clean_layout(s)


def shown(entries):
    return np.array([[float(e) for e in row] for row in entries])


def test_contrast_matrix_is_built_from_a_stretch_and_a_rotation(scene):
    p, x, _, _ = lesson()
    th = np.deg2rad(float(p.contrast_rotation_degrees))
    sx, sy = (float(v) for v in p.contrast_stretch)
    S = np.diag([sx, sy])
    R = np.array([[np.cos(th), np.sin(th)], [-np.sin(th), np.cos(th)]])
    formula = scene.moments["formula"].probes
    assert np.allclose(shown(formula["S"]), S, atol=0.005)
    assert np.allclose(shown(formula["R"]), R, atol=0.005)
    assert np.allclose(shown(formula["M"]), S @ R, atol=0.005)
    assert np.allclose(shown(formula["M"]), shown(formula["S"]) @ shown(formula["R"]), atol=0.02)
    # M is on screen before it is used: the plane is still flat and unmoved
    assert np.allclose(formula["dot"], [*x, 0], atol=1e-6)
    # then it is played as its two factors: first the stretch, then the turn
    assert np.allclose(scene.moments["stretched"].probes["dot"], [*(x @ S), 0], atol=1e-6)
    assert np.allclose(scene.moments["contrast"].probes["dot"], [*(x @ S @ R), 0], atol=1e-6)
    assert scene.moments["contrast"].probes["shown"] == formula["M"]




def test_the_descriptions_say_the_numbers_drawn(scene):
    """A learner who cannot see hears x, W's rows and x W (by hand), S, R
    and M as the formulas show them, and where the stretch takes x; the
    beats whose sentences say all they show are marked so."""
    p, x, W, landed = lesson()
    said = {b.id: b.describe for b in scene.beats}
    lang = scene.lang
    assert spoken(x, lang) in said["intro"] and spoken(landed, lang) in said["lift"]
    assert spoken(W, lang) in said["lift"] and all(spoken(row, lang) in said["rows"] for row in W)
    formula = scene.moments["formula"].probes
    assert all(spoken(shown(formula[k]), lang, 2) in said["contrast"] for k in ("S", "R", "M"))
    sx, sy = (float(v) for v in p.contrast_stretch)
    assert spoken([x[0] * sx, x[1] * sy], lang, 2) in said["stretch"]
    assert spoken(landed, lang) in said["outro"]
    assert {b.id for b in scene.beats if b.named} == {"coords", "turn"}


def test_flat_plane_reads_the_point_and_draws_i_and_j(scene):
    # the plane before the lift: i and j drawn from the origin, named at their tips; x named beside
    # itself; dashed lines to the axes end on the numbers that read [3, 4]
    _, x, W, _ = lesson()
    flat = scene.moments["flat"].probes
    assert np.allclose(flat["arrows"], np.eye(2, 3), atol=1e-6)
    for k, (name, at) in enumerate(flat["names"]):
        assert name in ("ij"[k], rf"\boldsymbol{{{'ij'[k]}}}")
        assert np.linalg.norm(at - np.eye(3)[k]) < 0.8, name
    feet = np.array([[x[0], 0, 0], [0, x[1], 0]])
    for k, (shown, at) in enumerate(flat["read"]):
        assert float(shown) == x[k]
        assert np.argmin(np.linalg.norm(feet - at, axis=1)) == k and np.linalg.norm(feet[k] - at) < 0.8
    assert np.linalg.norm(flat["x_name"] - [*x, 0]) < 1.2     # beside the dot, within a grid square
    shown = {lab.content.replace("\\boldsymbol{", "").replace("}", "") for lab in scene.moments["flat"].labels}
    assert {"i", "j", "x", "3", "4"} <= shown


def test_i_and_j_are_carried_onto_w_rows(scene):
    _, _, W, _ = lesson()
    assert np.allclose(scene.moments["lifted"].probes["arrows"], W, atol=1e-6)
    assert np.allclose(scene.moments["rows"].probes["tips"], W, atol=1e-6)


def test_both_rows_read_long_from_the_camera(scene):
    # neither row points at the camera: each arrow is drawn at least 0.75 scene units long (100 px at 1080p)
    lengths = scene.moments["rows"].probes["drawn_lengths"]
    assert min(lengths) > 0.75, lengths


@pytest.mark.parametrize("moment", ["flat", "lifted", "rows", "turned"])
def test_the_plane_stays_right_of_the_text_and_inside_the_frame(scene, moment):
    # the grid, the axes and their names, as drawn: clear of the text column (title, x, W, x W, the note)
    # and inside the frame, so nothing bright touches its edge
    left, bottom, right, top = scene.moments[moment].probes["drawn"]
    (free_left, _), _ = scene.moments["lifted"].probes["free"]
    assert left >= free_left - 1e-6 and right <= 6.9 and top <= 3.9 and bottom >= -2.95, (left, bottom, right, top)


def test_landed_point_is_named_and_the_axis_names_stand_apart(scene):
    from scenes.kit.layout import overlaps
    probes = scene.moments["turned"].probes
    name, point = probes["point_label"], probes["point"]
    # x W's name sits beside its own point (within 0.45 of it; nearer it than any other point: the test below) ...
    assert max(name[0] - point[2], point[0] - name[2], name[1] - point[3], point[1] - name[3]) < 0.45
    # ... and no axis name covers it; the axis names are apart from each other, not bunched at the origin
    boxes = probes["axis_labels"]
    assert not any(overlaps(name, b, pad=0.2) for b in boxes)
    centres = [np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]) for b in boxes]
    assert min(np.linalg.norm(a - b) for i, a in enumerate(centres) for b in centres[i + 1:]) > 1.0
    for moment in ("lifted", "rows", "coords", "turned"):
        assert "x\\,W" in {lab.content for lab in scene.moments[moment].labels}, moment



def test_a_half_is_rounded_away_from_zero_as_by_hand(scene):
    # the shipped contrast turns by 30 degrees after a stretch of 0.75 upwards: M[1][0] is
    # -0.75 sin 30 deg = -0.375 exactly (the float is -0.37499999999999994), written -0.38 by hand
    p, _, _, _ = lesson()
    assert float(p.contrast_rotation_degrees) == 30 and Fraction(p.contrast_stretch[1]) == Fraction(3, 4)
    assert scene.moments["formula"].probes["M"][1][0] in ("-0.38", "-0.380")


@pytest.mark.parametrize("lang", offered())
def test_the_lift_fills_the_frame_as_it_plays(dry, lang):
    # the camera closes in as the sheet lifts: at every instant the sheet, the axes and their names, as drawn,
    # fill the free frame right of the text in one direction (the lift once played about 3 units across;
    # in Spanish, whose longer title leaves the frame's right 55 %, about 1.5 units, until the view was
    # aimed again before it backs off)
    probes = dry(SCENE, lang).moments["lifted"].probes
    (left, bottom), (right, top) = probes["free"]
    for x0, y0, x1, y1 in probes["lift_drawn"]:
        wide, tall = (x1 - x0) / (right - left), (y1 - y0) / (top - bottom)
        assert max(wide, tall) > 0.8 and min(wide, tall) > 0.5, (wide, tall)      # as large as its shape allows
        assert x0 >= left - 1e-6 and x1 <= 6.9 and y1 <= 3.9 and y0 >= -2.95


def test_i_and_j_read_clearly(scene):
    # one square long, so drawn bold: each arrow at least 19 px thick at 1080p (its box across its length),
    # its name at least 40 px tall
    probes = scene.moments["flat"].probes
    for x0, y0, x1, y1 in probes["arrow_boxes"]:
        assert min(x1 - x0, y1 - y0) * 1080 / 8 >= 19
    for _, y0, _, y1 in probes["name_boxes"]:
        assert (y1 - y0) * 1080 / 8 >= 40


def test_the_glass_finds_the_point_in_its_own_grid(scene):
    # "the plane stays a plane, the same thing seen through a magnifying glass": i and j land on M's rows, and
    # the glass walks the turned grid 3 steps along i M, then 4 along j M, onto x M: x is still [3, 4] there
    p, x, _, _ = lesson()
    th = np.deg2rad(float(p.contrast_rotation_degrees))
    sx, sy = (float(v) for v in p.contrast_stretch)
    M = np.diag([sx, sy]) @ np.array([[np.cos(th), np.sin(th)], [-np.sin(th), np.cos(th)]])
    probes = scene.moments["contrast"].probes
    assert np.allclose(probes["arrows"][:, :2], M, atol=1e-6) and np.allclose(probes["arrows"][:, 2], 0, atol=1e-6)
    (a0, b0), (a1, b1) = probes["legs"]
    assert np.allclose(a0, 0, atol=1e-6) and np.allclose(b0[:2], x[0] * M[0], atol=1e-6)
    assert np.allclose(a1, b0, atol=1e-6) and np.allclose(b1[:2], x @ M, atol=1e-6)
    assert np.allclose(probes["glass"], probes["dot"], atol=1e-6)
    assert [float(v) for v in probes["steps"]] == list(x)
    assert probes["read"].replace("\\ ", "") == f"[{x[0]:g},{x[1]:g}]"
    assert probes["sum"].replace(" ", "") == f"x\\,M={x[0]:g}\\,(i\\,M)+{x[1]:g}\\,(j\\,M)"


# --- issue 38: what a learner saw (the point on the patch's edge, axes named like the vector, the grid
# clipped while it stretched, the plane from behind), and labels read from what is drawn

def inside_margin(polygon: np.ndarray, point: np.ndarray) -> float:
    """How far ``point`` lies inside the convex ``polygon`` (2-D corners in order): its least distance to
    an edge, negative when it is outside."""
    centre = polygon.mean(axis=0)
    least = np.inf
    for a, b in zip(polygon, np.roll(polygon, -1, axis=0)):
        edge = b - a
        normal = np.array([edge[1], -edge[0]]) / np.linalg.norm(edge)
        if normal @ (centre - a) < 0:
            normal = -normal              # pointing inwards
        least = min(least, float(normal @ (point - a)))
    return least


def test_the_landed_point_lies_well_inside_the_shaded_patch(scene):
    # x W once sat on the sheet's outer edge (x = [3, 4] on the grid's edge v = 4): it did not read as
    # lying in the plane until the edge-on view. Measured in the sheet's plane (an orthonormal basis of
    # the span of W's rows), x W lies at least a unit inside every edge of the shaded patch (a grid square).
    _, x, W, landed = lesson()
    probes = scene.moments["rows"].probes
    basis, _ = np.linalg.qr(W.T)                  # 3 x 2: orthonormal, spanning W's rows
    assert np.allclose(probes["sheet"] @ basis @ basis.T, probes["sheet"], atol=1e-6)   # the sheet lies in it
    margin = inside_margin(probes["sheet"] @ basis, landed @ basis)
    assert margin >= 1.0, margin
    assert np.allclose(probes["dot"], landed, atol=1e-6)


def test_the_output_axes_are_not_named_like_the_vector(scene):
    # the 3-D axes were x, y, z while the input is x and the point x W: the dashed lines ran to "axis x".
    # They are the output's coordinates y_1, y_2, y_3, and y = x W says so beside the product.
    probes = scene.moments["lifted"].probes
    names = [n.replace(" ", "").replace("{", "").replace("}", "") for n, _ in probes["axis_labels"]]
    assert names == ["y_1", "y_2", "y_3"]
    assert not any("x" in n for n in names)
    assert probes["result"].replace(" ", "").startswith("y=x\\,W=")


def hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of 2-D points, corners in order (Andrew's monotone chain)."""
    pts = sorted(set(map(tuple, np.round(points, 9))))

    def turn(o, a, b) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(seq):
        out: list = []
        for q in seq:
            while len(out) >= 2 and turn(out[-2], out[-1], q) <= 0:
                out.pop()
            out.append(q)
        return out[:-1]
    return np.array(half(pts) + half(pts[::-1]))


def test_the_grid_grows_with_the_stretch(scene):
    # after "across by 1.5" the grid stayed cut to its old square and the dot left it: as drawn, every line of
    # the grid is a line of the grid carried by S (then by M = S R), and the dot lies well inside the grid
    p, x, _, _ = lesson()
    th = np.deg2rad(float(p.contrast_rotation_degrees))
    S = np.diag([float(v) for v in p.contrast_stretch])
    M = S @ np.array([[np.cos(th), np.sin(th)], [-np.sin(th), np.cos(th)]])
    for moment, m in (("stretched", S), ("contrast", M)):
        probes = scene.moments[moment].probes
        ends = probes["grid_ends"][:, :, :2]
        drawn = ends[np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1) > 1e-9]
        back = drawn @ np.linalg.inv(m)          # in the plane's own coordinates: on a whole u or a whole v
        for a, b in back:
            assert any(abs(a[k] - b[k]) < 1e-6 and abs(a[k] - round(a[k])) < 1e-6 for k in (0, 1)), (moment, a, b)
        assert np.allclose(probes["dot"][:2], x @ m, atol=1e-6)
        margin = inside_margin(hull(drawn.reshape(-1, 2)), x @ m)
        assert margin >= 0.5, (moment, margin)


def camera_direction(phi: float, theta: float) -> np.ndarray:
    """Where the camera stands, seen from the origin (manim's ThreeDCamera angles)."""
    return np.array([np.sin(phi) * np.cos(theta), np.sin(phi) * np.sin(theta), np.cos(phi)])


def facing(phi: float, theta: float, m: np.ndarray) -> float:
    """The cosine between the camera's direction and the normal of the sheet the 2x3 map ``m`` lifts the
    plane onto, oriented as i x j is on the flat plane (positive: its face, i to j turning as they did)."""
    normal = np.cross(m[0], m[1])
    return float(camera_direction(phi, theta) @ normal / np.linalg.norm(normal))


def test_the_camera_never_shows_the_plane_from_behind(scene):
    # the plane came down while the camera stood behind it (theta -200 degrees, the learner's first view being
    # -90) and the flat plane was shown turned round, from behind, for two seconds (and went up the same way).
    # The plane now goes up and comes down only where the learner stands (theta -90), tilted no further than
    # shows its face at every stage; between the lifted views the camera walks round (its angles in straight
    # lines, as manim moves them) seeing the sheet's face all the way, and in every lifted view the face.
    _, _, W, _ = lesson()
    flat = np.eye(2, 3)
    rise = scene.moments["lifted"].probes["rise"]
    descent = scene.moments["formula"].probes["descent"]
    for (_, theta), way in ((rise[0], "up"), (rise[1], "up"), (descent[0], "down"), (descent[1], "down")):
        assert np.rad2deg(theta) == pytest.approx(-90), way
    for (a, b), start, end in ((rise, flat, W), (descent, W, flat)):
        for t in np.linspace(0, 1, 21):
            phi, theta = (1 - t) * np.array(a) + t * np.array(b)
            assert facing(phi, theta, (1 - t) * start + t * end) > 0.15, (t, np.rad2deg(phi))
    views = [rise[1]] + [scene.moments[m].probes["camera"] for m in ("lifted", "rows", "coords", "edge", "turned")] + \
        [descent[0]]
    for a, b in zip(views, views[1:]):
        for t in np.linspace(0, 1, 21):
            assert facing(*((1 - t) * np.array(a) + t * np.array(b)), W) > -1e-6, (a, b, t)
    for moment in ("lifted", "rows", "coords", "turned"):
        assert facing(*scene.moments[moment].probes["camera"], W) > 0.3, moment
    assert abs(facing(*scene.moments["edge"].probes["camera"], W)) < 1e-6
    assert scene.moments["formula"].probes["camera"] == pytest.approx(descent[1])
    assert descent[1][0] == pytest.approx(0)


def box_distance(box, point) -> float:
    """How far ``point`` (2-D) lies from the box (left, bottom, right, top); 0 inside it."""
    dx = max(box[0] - point[0], 0.0, point[0] - box[2])
    dy = max(box[1] - point[1], 0.0, point[1] - box[3])
    return float(np.hypot(dx, dy))


def crosses(box, a, b, pad: float = 0.02) -> bool:
    """Whether the segment from ``a`` to ``b`` (2-D) passes through the box grown by ``pad``."""
    l, bt, r, t = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    return any(l <= q[0] <= r and bt <= q[1] <= t for q in (a + (b - a) * s for s in np.linspace(0, 1, 200)))


@pytest.mark.parametrize("moment", ["flat", "rows", "coords", "turned", "contrast"])
def test_each_label_is_nearest_its_own_point_and_off_its_own_line(scene, moment):
    # as drawn: every label of a point (a name, a coordinate, a step of the walk) is nearer its own point than
    # any other named point on screen, and none sits on its own arrow or leg
    probes = scene.moments[moment].probes
    anchors = probes["anchors"]          # name -> (x, y) as drawn
    for label, box, own, line in probes["labelled"]:
        mine = box_distance(box, anchors[own])
        others = {n: box_distance(box, p) for n, p in anchors.items() if n != own and
                  np.linalg.norm(np.asarray(p) - np.asarray(anchors[own])) > 1e-6}
        assert all(mine < d for d in others.values()), (moment, label, own, mine, str(others))
        if line is not None:
            assert not crosses(box, np.asarray(line[0]), np.asarray(line[1])), (moment, label)


@pytest.mark.parametrize("table, lang", [
    # x W's name left the frame in the edge-on view of the walk round
    ({"point": [-3.08, 4], "W": [[-4, 0, 3.1], [2.0, -3.49, -1]], "contrast_rotation_degrees": 219.3,
      "contrast_stretch": [2.0, -1]}, "zh"),
    # the edge-on view put the names of two axes on one another (y_1 on y_3)
    ({"point": [-2, -5], "W": [[-2, 0, "5/5"], [-2, "-6/8", 0]], "contrast_rotation_degrees": -1,
      "contrast_stretch": ["7/4", 3]}, "en"),
    # x W's name, placed once for the whole walk round, on y_3's when seen edge on: it now slides beside its
    # point as the camera walks
    ({"point": [-5, 2.14], "W": [["-3/4", 0, -2.0], [4, 2.0, -4]], "contrast_rotation_degrees": -89,
      "contrast_stretch": [3, -2.0]}, "zh"),
    # i M's name where the outro then wrote the three kinds of map (and a row of M sent to zero)
    ({"point": [-2, "3/4"], "W": [["6/8", 0.63, 2.42], [0.83, -1, -2.0]], "contrast_rotation_degrees": "1/9",
      "contrast_stretch": [4, 0]}, "zh"),
])
def test_drawn_lessons_keep_a_clean_layout_on_the_walk_round(tmp_path, table, lang):
    # lessons hypothesis drew (tests/test_accepted_renders.py with more draws): every key moment, the edge-on
    # view of the walk round included, clean
    from tests.helpers import toml_text
    lesson = tmp_path / "l.toml"
    lesson.write_text(toml_text({"up_projection": table}), encoding="utf-8")
    assert_clean_layout(dry_run(SCENE, tmp_path / "media", lesson=lesson, lang=lang))


def on_screen(screen: np.ndarray, plane: np.ndarray) -> np.ndarray:
    """A flat-plane point (u, v) where it is drawn, from the drawn origin, (1, 0) and (0, 1)."""
    origin, e1, e2 = screen
    return origin + plane[0] * (e1 - origin) + plane[1] * (e2 - origin)


def test_the_moving_dot_passes_under_no_label(scene):
    # text overprinted by a moving dot: as drawn, the dot's way through the stretch (every map between the
    # plane and S) and the turn (S R(t theta)) keeps clear of every label on screen while it moves
    p, x, _, _ = lesson()
    th = np.deg2rad(float(p.contrast_rotation_degrees))
    S = np.diag([float(v) for v in p.contrast_stretch])
    formula = scene.moments["formula"].probes
    screen, radius = formula["screen"], formula["dot_radius"]
    ways = (("formula", [x @ ((1 - t) * np.eye(2) + t * S) for t in np.linspace(0, 1, 41)]),
            ("stretched", [x @ S @ np.array([[np.cos(t * th), np.sin(t * th)], [-np.sin(t * th), np.cos(t * th)]])
                           for t in np.linspace(0, 1, 41)]))
    for moment, way in ways:
        for q in way:
            at = on_screen(screen, q)
            near = [lab.content for lab in scene.moments[moment].labels if box_distance(lab.box, at) < radius + 0.02]
            assert not near, (moment, q, near)


def test_the_glass_passes_over_no_label(scene):
    # as drawn: no label of the walk is under the glass where it stops at x M, and none that shows before the
    # glass has walked a leg lies within the glass's reach of that leg
    contrast = scene.moments["contrast"].probes
    walk = contrast["walk"]
    radius, at = walk["radius"], np.array(walk["at"])
    assert np.allclose(at, on_screen(contrast["screen"], contrast["dot"][:2]), atol=1e-6)
    under = [lab.content for lab in scene.moments["contrast"].labels if box_distance(lab.box, at) < radius]
    assert not under, under
    for label, shows, box in walk["labels"]:
        for a, b, _, done in walk["legs"]:
            if shows < done - 1e-6:
                a, b = np.array(a), np.array(b)
                reach = min(box_distance(box, a + (b - a) * t) for t in np.linspace(0, 1, 101))
                assert reach > radius, (label, reach, radius)


def test_the_checkpoint_asks_whether_the_lift_can_fill_space(scene, tmp_path):
    """Before the lift, the learner predicts whether the lifted plane can fill
    all of 3-D space: yes only if W's rank (numpy here) is 3, which no 2-by-3
    W reaches.  The page stops before the lift, the first beat that shows the
    lifted sheet (the note on the span and the edge-on walk come later).  An
    edited W is judged by its own rank."""
    _, _, W, _ = lesson()
    asked = [b for b in scene.beats if b.ask is not None]
    assert [b.key for b in asked] == ["lift_say"]
    beat, ask = asked[0], asked[0].ask
    assert len(ask.choices) == 2
    assert ask.answer == (0 if np.linalg.matrix_rank(W) == 3 else 1) == 1      # "no"
    assert f"{W.shape[0]}" in ask.question and f"{W.shape[1]}" in ask.question
    assert beat.start <= scene.moments["lifted"].time <= beat.end
    assert all(b.start >= beat.end for b in scene.beats if b.key in ("rows_say", "turn_say"))
    if scene.lang != "en":
        return
    edited = tmp_path / "lesson.toml"
    edited.write_text("[up_projection]\nW = [[2, 1, 0], [0, -1, 3]]\n", encoding="utf-8")
    again = dry_run(SCENE, tmp_path / "media", lesson=edited, lang="en")
    [edited_ask] = [b.ask for b in again.beats if b.ask is not None]
    V = np.array([[2, 1, 0], [0, -1, 3]], dtype=float)
    assert edited_ask.answer == (0 if np.linalg.matrix_rank(V) == 3 else 1)
