"""PhotoFilter: every picture, colour and number shown is the filter's result."""
import re

import numpy as np
import pytest
from PIL import Image

import qkv_math as qm
from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.spoken import spoken
from qkv_lens.texts import tr
from tests.helpers import LESSON, change_problems, dry_run, qkv_colour_problems

SCENE = "PhotoFilter"


def lesson_params():
    return load_lesson(LESSON).params["photo_filter"]


def tint_by_hand(s: float) -> np.ndarray:
    return np.diag([1 + s, 1, 1 - s])   # a warm tint: more red, less blue


def outside(values: np.ndarray) -> int:
    return int(np.sum((values < -1e-9) | (values > 1 + 1e-9)))


GREY = np.outer([0.299, 0.587, 0.114], np.ones(3))   # Rec. 601 luma in every output channel


def test_pixel_arithmetic(scene):
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    px = img[p.pixel]
    s = float(p.tint_strength)
    by_hand = [px[0] * (1 + s), px[1], px[2] * (1 - s)]   # a warm tint is diagonal
    probes = scene.moments["pixel"].probes
    assert [float(t) for t in probes["shown_in"]] == pytest.approx(np.round(px, 2))
    assert [float(t) for t in probes["shown_out"]] == pytest.approx(np.round(by_hand, 2))
    assert np.allclose(scene.moments["whole"].probes["tinted"], np.clip(img @ tint_by_hand(s), 0, 1))


def test_swatches_are_the_pixel_colours(scene):
    """The zoomed pixel's swatch is its colour; the output swatch is pixel @ W, clipped for display."""
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    px = img[p.pixel]
    out = np.clip(px @ tint_by_hand(float(p.tint_strength)), 0, 1)
    assert np.allclose(scene.moments["zoom"].probes["swatch_in"], px, atol=1e-9)
    assert np.allclose(scene.moments["pixel"].probes["swatch_in"], px, atol=1e-9)
    assert np.allclose(scene.moments["pixel"].probes["swatch_out"], out, atol=1e-9)
    # the default pixel's red goes over 1: the swatch shows it clipped, not raw
    assert (px @ tint_by_hand(float(p.tint_strength)))[0] > 1 and scene.moments["pixel"].probes["swatch_out"][0] == 1
    # the zoom is the picture around the pixel, magnified
    zoom = scene.moments["zoom"].probes["zoom"]
    r, c = p.pixel
    k = zoom.shape[0]
    assert zoom.shape == (k, k, 3) and k >= 3
    assert any(np.array_equal(zoom, img[r0:r0 + k, c0:c0 + k])
               for r0 in range(max(0, r - k + 1), r + 1) for c0 in range(max(0, c - k + 1), c + 1))


def test_output_swatch_keeps_its_colour_through_every_animation(tmp_path, monkeypatch):
    """The output swatch's colour is the answer: every animation that moves it
    while it is on screen (the beats' highlights too) leaves its colour alone
    at every point of its run, not just at the end."""
    from manim import Animation

    import scenes.photo_filter as pf
    from scenes.kit.scene import LessonScene

    seen: dict = {}
    made = pf.PhotoFilter._pixel_sum

    def capture(*args, **kw):
        seen["sum"] = made(*args, **kw)
        return seen["sum"]

    play, finish = LessonScene.play, Animation.finish
    samples: list = []

    def play_and_note(self, *anims, **kw):
        # on screen before this play (the play that makes it morphs it out of the row)
        seen["shown"] = "sum" in seen and seen["sum"].sw_out in self.get_mobject_family_members()
        return play(self, *anims, **kw)

    def finish_sampled(anim):
        sw = seen["sum"].sw_out if "sum" in seen else None
        if sw is not None and seen.get("shown") \
                and getattr(anim, "mobject", None) is not None and sw in anim.mobject.get_family():
            for alpha in (0.15, 0.3, 0.5, 0.7, 0.85):
                anim.interpolate(alpha)
                samples.extend([(type(anim).__name__, m.get_fill_color().to_rgb())
                                for m in sw.family_members_with_points()])   # every part drawn
        return finish(anim)

    monkeypatch.setattr(pf.PhotoFilter, "_pixel_sum", staticmethod(capture))
    monkeypatch.setattr(LessonScene, "play", play_and_note)
    monkeypatch.setattr(Animation, "finish", finish_sampled)
    dry_run("PhotoFilter", tmp_path, lang="en")
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    out = np.clip(img[p.pixel] @ tint_by_hand(float(p.tint_strength)), 0, 1)
    assert samples, "the output swatch was never animated on screen"
    for name, rgb in samples:
        assert np.allclose(rgb, out, atol=1e-6), (name, rgb)
    assert "Emphasize" in {name for name, _ in samples}      # the pixel beat's highlight of it was sampled


def clip_pattern(lang: str) -> re.Pattern:
    """The clipped-count note of any count, as Pango keeps it (no spaces)."""
    template = tr(lang, "photo_filter.clipped", n="@@").replace(" ", "")
    return re.compile(re.escape(template).replace("@@", r"(\d+)"))


def shown_counts(moment, lang: str) -> list[int]:
    """Every clipped count on screen at ``moment``, read from its text
    labels (a note wrapped over lines is read as one)."""
    shown = "".join(lab.content for lab in moment.labels if lab.kind == "Text")
    return [int(m.group(1)) for m in clip_pattern(lang).finditer(shown)]


def test_clipped_count_said_once_where_it_happens(scene):
    """The tint clips: its count is shown, equal to numpy's; the filters that
    clip nothing show no count at all."""
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    lang = scene.lang
    tint_count = outside(img @ tint_by_hand(float(p.tint_strength)))
    assert tint_count > 0
    whole = scene.moments["whole"]
    assert [n.replace(" ", "") for n in whole.probes["clip_notes"]] == \
        [tr(lang, "photo_filter.clipped", n=tint_count).replace(" ", "")]
    assert shown_counts(whole, lang) == [tint_count]   # read back from the labels on screen
    colour_filters = {"darken": float(p.darken_factor) * np.eye(3), "gray": GREY,
                      "query": np.array(p.query_filter, dtype=float), "key": np.array(p.key_filter, dtype=float),
                      "value": np.array(p.value_filter, dtype=float)}
    expected = {k: outside(img @ M) for k, M in colour_filters.items()}
    assert shown_counts(scene.moments["filters"], lang) == [n for k, n in expected.items()
                                                            if k in ("darken", "gray") and n]
    assert shown_counts(scene.moments["qkv"], lang) == [n for k, n in expected.items()
                                                        if k in ("query", "key", "value") and n]
    assert [b.key for b in scene.beats].count("whole_clip_say") == 1


def test_the_descriptions_say_the_numbers_drawn(scene):
    """A learner who cannot see hears the worked pixel's colour before and
    after the tint (by hand, to the two decimals shown), the tint, the
    clipped count, the grey matrix, the blur's average and what each of the
    three filters makes of the photo (its average colour)."""
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    px, s, lang = img[p.pixel], float(p.tint_strength), scene.lang
    said = {b.id: b.describe for b in scene.beats}
    assert spoken(px, lang, 2) in said["intro"]
    assert all(spoken(v, lang, 2) in said["pixel"] for v in (px @ tint_by_hand(s), tint_by_hand(s)))
    assert spoken(outside(img @ tint_by_hand(s)), lang) in said["whole_clip"]
    assert spoken(GREY, lang) in said["collapse"]
    assert spoken(float(scene.moments["blur"].probes["y_shown"]), lang, 2) in said["blur"]
    for M in (p.query_filter, p.key_filter, p.value_filter):
        average = np.clip(img @ np.array(M, dtype=float), 0, 1).reshape(-1, 3).mean(axis=0)
        assert spoken(average, lang, 2) in said["qkv"]


def test_clipped_pixels_are_marked_on_the_picture(scene):
    """The pixels the tint pushes outside [0, 1] are hatched on the tinted
    picture, exactly those (read from where the stripes are drawn)."""
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    raw = img @ tint_by_hand(float(p.tint_strength))
    want = {tuple(int(v) for v in rc) for rc in np.argwhere(((raw < -1e-9) | (raw > 1 + 1e-9)).any(axis=2))}
    assert want and scene.moments["whole"].probes["hatched"] == want


def test_qkv_pictures_come_from_the_source_shown_beside_them(scene):
    """The source photo is on screen with the three filtered pictures, an
    arrow from it to each."""
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    q = scene.moments["qkv"].probes
    assert np.allclose(q["source"], img)
    assert len(q["arrows"]) == 3
    for (start, end), top in zip(q["arrows"], q["labels_top"]):
        assert start[0] == pytest.approx(q["source_bottom"][0])     # from under the source
        assert q["source_bottom"][1] - 0.6 < start[1] <= q["source_bottom"][1]
        assert np.linalg.norm(end - top) < 0.1                       # to each filter's name
    assert q["source_shown"]


def solve_rgb(points: np.ndarray, origin: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """RGB coordinates of drawn points, in the frame the drawn cube gives."""
    return np.linalg.solve(axes.T, (points - origin).T).T


def test_grey_collapses_the_colour_cube_onto_its_diagonal(scene):
    before, after = scene.moments["cube"].probes, scene.moments["collapsed"].probes
    # the cube swings to either side and back before it is named (depth), and its dots are big enough to see
    from scenes.photo_filter import cube_swing

    angles = [cube_swing(t) for t in np.linspace(0, 1, 41)]
    assert min(angles) < -30 and max(angles) > 30
    assert angles[0] == pytest.approx(0, abs=1e-9) and angles[-1] == pytest.approx(0, abs=1e-9)
    assert before["dot_radius"] >= 0.1
    colours = before["corner_colours"]
    # every corner of [0, 1]^3 is drawn, in its own colour
    assert sorted(map(tuple, np.round(colours, 9))) == sorted((a, b, c) for a in (0, 1) for b in (0, 1)
                                                              for c in (0, 1))
    at = {tuple(np.round(rgb).astype(int)): pos for rgb, pos in zip(colours, before["corners"])}
    origin = at[(0, 0, 0)]
    axes = np.array([at[(1, 0, 0)] - origin, at[(0, 1, 0)] - origin, at[(0, 0, 1)] - origin])
    assert abs(np.linalg.det(axes)) > 0.1
    # before: a true cube drawing; every corner and every picture colour at its own rgb
    assert np.allclose(solve_rgb(before["corners"], origin, axes), colours, atol=1e-6)
    assert np.allclose(solve_rgb(before["inner"], origin, axes), before["inner_colours"], atol=1e-6)
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    in_picture = {tuple(c) for c in np.round(img.reshape(-1, 3), 9)}
    assert {tuple(c) for c in np.round(before["inner_colours"], 9)} <= in_picture
    # after: each corner at corner @ W_grey, on the diagonal r = g = b, in that grey
    landed = solve_rgb(after["corners"], origin, axes)
    assert np.allclose(landed, colours @ GREY, atol=1e-6)
    assert np.allclose(landed, landed[:, :1] * np.ones(3), atol=1e-6)
    assert np.allclose(after["corner_colours"], np.clip(colours @ GREY, 0, 1), atol=1e-9)
    inner = solve_rgb(after["inner"], origin, axes)
    assert np.allclose(inner, before["inner_colours"] @ GREY, atol=1e-6)
    assert np.allclose(inner, inner[:, :1] * np.ones(3), atol=1e-6)
    # the matrix shown is the grey-scale matrix; the photo beside it turns grey
    assert np.array_equal([[float(t) for t in row] for row in after["W"]], np.round(GREY, 3))
    assert np.allclose(after["grey"], img @ GREY)


def test_filter_pictures(scene):
    p = load_lesson(LESSON).params["photo_filter"]
    img = qm.generated_picture(*p.size)
    shown = scene.moments["filters"].probes["images"]
    assert np.allclose(shown["darken"], img * float(p.darken_factor))
    grey = img @ np.array([0.299, 0.587, 0.114])
    assert np.allclose(shown["gray"], np.repeat(grey[:, :, None], 3, axis=2))
    f = p.downsample
    h, w = p.size
    assert shown["down"].shape == (h // f, w // f, 3)
    assert np.allclose(shown["down"][0, 0], img[:f, :f].reshape(-1, 3).mean(axis=0))
    assert shown["blur"].shape == img.shape
    assert np.allclose(shown["blur"][5, 5], img[4:7, 4:7].reshape(-1, 3).mean(axis=0))
    assert scene.moments["filters"].probes["clipped"]["blur"] == 0
    qkv = scene.moments["qkv"].probes["images"]
    assert np.allclose(qkv["query"], np.clip(img @ np.array(p.query_filter, dtype=float), 0, 1))


def test_user_picture(tmp_path):
    rgb = np.zeros((40, 40, 3), dtype=np.uint8)
    rgb[:, :20] = [255, 0, 0]
    rgb[:, 20:] = [0, 0, 255]
    Image.fromarray(rgb).save(tmp_path / "mine.png")
    lesson = tmp_path / "l.toml"
    lesson.write_text('[photo_filter]\nimage = "mine.png"\nsize = [8, 8]\npixel = [0, 0]\ndownsample = 2\n',
                      encoding="utf-8")
    p = load_lesson(lesson).params["photo_filter"]
    assert p.picture.shape == (8, 8, 3)
    assert np.allclose(p.picture[0, 0], [1, 0, 0]) and np.allclose(p.picture[0, 7], [0, 0, 1])
    s = dry_run("PhotoFilter", tmp_path, lesson=lesson, lang="en")
    assert [float(t) for t in s.moments["pixel"].probes["shown_in"]] == [1, 0, 0]
    # pure red tinted goes to 1.2: clipped in the swatch and counted (a half-red picture: 32 values)
    tinted = p.picture @ tint_by_hand(float(p.tint_strength))
    assert np.allclose(s.moments["pixel"].probes["swatch_out"], [1, 0, 0])
    assert shown_counts(s.moments["whole"], "en") == [outside(tinted)] == [32]


def test_no_clipping_no_count(tmp_path):
    """A picture the tint keeps inside [0, 1]: no clipped count anywhere, and
    the narration does not speak of clipping."""
    Image.fromarray(np.full((16, 16, 3), 128, dtype=np.uint8)).save(tmp_path / "grey.png")
    lesson = tmp_path / "l.toml"
    lesson.write_text('[photo_filter]\nimage = "grey.png"\nsize = [8, 8]\npixel = [3, 3]\ndownsample = 2\n',
                      encoding="utf-8")
    p = load_lesson(lesson).params["photo_filter"]
    assert outside(p.picture @ tint_by_hand(float(p.tint_strength))) == 0
    s = dry_run("PhotoFilter", tmp_path, lesson=lesson, lang="zh")
    assert s.moments["whole"].probes["clip_notes"] == []
    assert all(shown_counts(m, "zh") == [] for m in s.moments.values())
    keys = [b.key for b in s.beats]
    assert "whole_say" in keys and "whole_clip_say" not in keys
    assert np.allclose(s.moments["pixel"].probes["swatch_out"], p.picture[3, 3] @ tint_by_hand(float(p.tint_strength)))
    whole = next(b for b in s.beats if b.key == "whole_say")
    assert whole.describe == tr("zh", "photo_filter.describe_whole")      # ... nor does its description


@pytest.mark.parametrize("content, part", [
    ('image = "nope.png"', "does not exist"),
    ('image = "bad.png"', "cannot read"),
    ("downsample = 5", "divides both sides"),
    ("pixel = [24, 0]", "photo_filter.pixel[0]"),
    ("query_filter = [[1, 0], [0, 1]]", "photo_filter.query_filter"),
])
def test_bad_picture_settings(tmp_path, content, part):
    (tmp_path / "bad.png").write_text("not a picture")
    lesson = tmp_path / "l.toml"
    lesson.write_text(f"[photo_filter]\n{content}\n", encoding="utf-8")
    with pytest.raises(LessonError, match=part.replace("[", r"\[").replace("]", r"\]")):
        load_lesson(lesson)


def test_one_output_pixel_is_the_long_vector_times_a_column(scene):
    """Blur as x A: the lit cells of the drawn window are where A (built here
    by hand) is not 0, the framed column makes the output pixel, and the
    value shown is x times that column (numpy, not qkv_math)."""
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    h, w, _ = img.shape
    pr = scene.moments["blur"].probes
    r, c = pr["pixel"]
    assert 1 <= r < h - 1 and 1 <= c < w - 1
    want = img[r - 1:r + 2, c - 1:c + 2, 0].mean()                  # the 3x3 box average of red
    colour = img[r - 1:r + 2, c - 1:c + 2].reshape(-1, 3).mean(axis=0)
    k = pr["window"].shape[0]
    kc = k // 3
    c0 = min(max(c - kc // 2, 0), w - kc)
    cells = [(rr, cc) for rr in range(r - 1, r + 2) for cc in range(c0, c0 + kc)]
    by_hand = np.array([[1 / 9 if abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1 else 0 for b in cells]
                        for a in cells])
    x = np.array([img[rr, cc, 0] for rr, cc in cells])
    assert np.allclose(pr["window"], by_hand)
    assert pr["lit_cells"] == {tuple(ij) for ij in np.argwhere(by_hand != 0)}      # what is drawn lit
    assert x @ by_hand[:, pr["j"]] == pytest.approx(want)                            # the column makes y
    assert float(pr["y_shown"]) == pytest.approx(want, abs=0.0051)
    assert np.allclose(pr["y_colour"], colour) and np.allclose(pr["big_colour"], colour)
    assert np.count_nonzero(by_hand) < by_hand.size / 2                              # mostly zeros: a band


def test_the_blurred_pixel_is_written_as_the_average_of_nine(scene):
    """'That output pixel is their average' is written out, while it is
    said: the 9 red values around the pixel (row by row, two decimals, read
    from the picture here) summed over 9, equal to the value shown."""
    p = lesson_params()
    img = qm.generated_picture(*p.size)
    pr = scene.moments["blur"].probes
    r, c = pr["pixel"]
    around = img[r - 1:r + 2, c - 1:c + 2, 0].ravel()
    assert [float(v) for v in pr["values"]] == pytest.approx(around, abs=0.0051)     # 2 digits, half away from 0
    tex = pr["average"].replace(" ", "")
    assert r"\dfrac{" in tex and tex.endswith("}{9}")
    assert re.findall(r"\d+\.\d+", tex) == [f"{float(v):.2f}" for v in pr["values"]]
    assert sum(float(v) for v in pr["values"]) / 9 == pytest.approx(float(pr["y_shown"]), abs=0.006)
    assert not change_problems(scene, "blur", "blur_say"), change_problems(scene, "blur", "blur_say")


def test_the_blur_numbers_read_on_a_projector(scene):
    """No digit drawn while the blur is worked (the long row, the window's
    legend, the average) is under 26 px at 1080p (the row's values were once
    8-9 px at 480p, the legend's 1/9 a small fraction)."""
    assert scene.moments["blur"].probes["digits_px"] >= 26, scene.moments["blur"].probes["digits_px"]


def test_the_caption_stays_clear_of_the_swinging_cube(scene):
    """The colour cube swings to either side and back: no corner of it, at
    any angle of the swing, passes over its caption (it once crossed it)."""
    from scenes.kit.colour import CORNERS, cube_view
    from scenes.photo_filter import CUBE_ORIGIN, CUBE_SIZE, cube_swing

    left, bottom, right, top = scene.moments["cube"].probes["heading"]
    for t in np.linspace(0, 1, 101):
        view = cube_view(-70, -30 + cube_swing(t))
        for rgb in CORNERS:
            x, y, _ = CUBE_ORIGIN + CUBE_SIZE * np.asarray(rgb, dtype=float) @ view
            assert not (left - 0.1 < x < right + 0.1 and bottom - 0.1 < y < top + 0.1), (t, rgb)


def test_the_three_filters_wear_no_colour_of_q_k_or_v(scene):
    """Gold, teal and coral mean Q, K and V, which come in scene 7: the three
    filters take ThreeLenses' three colours."""
    assert not qkv_colour_problems(scene), qkv_colour_problems(scene)


def test_the_photo_opens_with_its_pixel_and_ends_pointing_at_the_shadow(scene):
    """One sentence opens the scene on the photo and zooms into one pixel as it
    says a pixel is three numbers; the last points at ShadowProjection."""
    keys = [k for k, _ in scene.said]
    assert keys[0] == "intro_say" and "zoom_say" not in keys and keys[-1] == "outro_say"
    assert not change_problems(scene, "zoom", "intro_say")
    assert "down_say" not in keys     # down-sampling is one of the filters, not worked out again


def test_the_outro_names_the_photo_x_and_its_three_rules(scene):
    end = scene.moments["end"].probes
    assert end["x_tag"] == "x" and end["rules"] == [r"x\,W_1", r"x\,W_2", r"x\,W_3"]
