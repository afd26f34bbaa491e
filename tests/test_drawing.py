"""kit/drawing.py: the lean Cairo drawing paints what manim's own does, in fewer draws."""
from __future__ import annotations

import numpy as np
import pytest
from manim import (
    BLUE,
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Circle,
    Dot,
    Line,
    MathTex,
    Square,
    VGroup,
    tempconfig,
)
from manim.camera.camera import Camera
from manim.camera.three_d_camera import ThreeDCamera

from scenes.kit import drawing
from scenes.kit.drawing import lean_drawing


def picture(mobjects, lean: bool) -> np.ndarray:
    """The pixels a fresh 480p camera draws of ``mobjects`` (lean or manim's own)."""
    with tempconfig({"quality": "low_quality"}):
        cam = Camera()
        if lean:
            lean_drawing(cam)
        cam.capture_mobjects(mobjects)
        return cam.pixel_array.copy()


def apart() -> list:
    """Mobjects that do not touch: a label with an outline (glyphs of one
    style), grid lines, a see-through square, a gradient circle, dots."""
    label = MathTex(r"x\,W = y", font_size=48).shift(UP * 2)
    label.set_stroke("#000000", width=6, background=True)
    grid = VGroup(*[Line(LEFT * 6 + DOWN * k, LEFT * 2 + DOWN * k, stroke_width=3) for k in (0.5, 1.5, 2.5)])
    see_through = Square(1).set_fill(BLUE, 0.4).set_stroke(width=2).shift(RIGHT * 4 + DOWN)
    gradient = Circle(0.6).set_stroke(["#ff0000", "#00ff00"], width=4).shift(RIGHT * 1.5 + DOWN * 2)
    dots = VGroup(*[Dot(RIGHT * k + UP * 0.3) for k in (-1, 0, 1)])
    return [label, grid, see_through, gradient, dots]


def test_lean_drawing_paints_what_manim_paints():
    """Pixel for pixel, but where the glyphs of a label meet: their outlines
    are painted together, so a rim no longer covers the glyph drawn before
    it: a pixel both touch is a few levels (of 255) lighter or darker."""
    label, *rest = apart()
    own, lean = picture(rest, lean=False), picture(rest, lean=True)
    assert np.count_nonzero(own[..., :3].max(axis=2)) > 2_000           # something was drawn
    assert np.array_equal(own, lean)
    own, lean = picture([label], lean=False), picture([label], lean=True)
    differ = np.abs(own.astype(int) - lean.astype(int)).max(axis=2)
    assert np.count_nonzero(own[..., :3].max(axis=2)) > 300
    assert differ.max() <= 4, f"{np.count_nonzero(differ)} pixels differ, by up to {differ.max()}"


def test_a_label_and_a_grid_each_draw_as_one_path(monkeypatch):
    painted: list[int] = []
    paint = drawing._paint

    def counting(camera, ctx, run, style):
        if run:
            painted.append(len(run))
        return paint(camera, ctx, run, style)

    monkeypatch.setattr(drawing, "_paint", counting)
    label, grid = apart()[:2]
    picture([label, grid], lean=True)
    glyphs = len(label.family_members_with_points())
    assert glyphs >= 4
    assert painted == [glyphs, len(grid)]


def test_a_kept_path_is_drawn_where_its_mobject_is_now():
    """A mobject drawn at the same points in two frames has its path kept;
    drawn again it is the same picture, and once moved it is drawn at its
    new place, as manim draws it."""
    line = Line(LEFT * 3, RIGHT * 3, stroke_width=6)
    own = picture([line], lean=False)
    for _ in range(3):                                  # built, built and kept, appended from the cache
        assert np.array_equal(picture([line], lean=True), own)
    assert drawing._paths[id(line)][1] is not None
    line.shift(UP * 2)
    assert np.array_equal(picture([line], lean=True), picture([line], lean=False))


@pytest.mark.parametrize("opacity", [0.0, 1.0])
def test_a_clear_pass_is_skipped_and_an_opaque_one_kept(opacity):
    square = Square(2).set_fill(BLUE, opacity).set_stroke(width=0)
    lean = picture([square], lean=True)
    assert np.array_equal(lean, picture([square], lean=False))
    assert (np.count_nonzero(lean[..., :3]) > 0) == (opacity > 0)


def test_a_3d_camera_stays_one():
    """The lean class goes under a camera's own: a ThreeDCamera keeps its
    projection, shading and depth sort."""
    with tempconfig({"quality": "low_quality"}):
        cam = lean_drawing(ThreeDCamera())
    assert isinstance(cam, ThreeDCamera) and isinstance(cam, drawing.LeanCamera)
    assert lean_drawing(cam).__class__ is cam.__class__           # once


def test_an_outlined_label_is_painted_once_then_copied(monkeypatch):
    """A label with its dark outline is painted into a picture once and
    copied in later frames: the same pixels; moved, it is a new picture,
    drawn where a fresh camera draws it."""
    painted = []
    picture_of = drawing._picture
    monkeypatch.setattr(drawing, "_stamps", {})        # none kept from another test
    monkeypatch.setattr(drawing, "_picture", lambda *a: painted.append(1) or picture_of(*a))
    label = apart()[0]
    first, second = picture([label], lean=True), picture([label], lean=True)
    assert len(painted) == 1 and np.array_equal(first, second)
    assert np.count_nonzero(first[..., :3].max(axis=2)) > 300
    label.shift(DOWN * 3 + LEFT * 2)
    moved = picture([label], lean=True)
    assert len(painted) == 2
    monkeypatch.setattr(drawing, "_stamps", {})
    monkeypatch.setattr(drawing, "_paths", {})
    assert np.array_equal(moved, picture([label], lean=True))
    assert not np.array_equal(moved, first)


def test_a_kept_path_is_not_reused_at_another_resolution():
    """A path kept at 480p is not appended in a 1080p frame (its points were
    rounded to the 480p pixel grid): there the mobject is drawn as manim draws it."""
    line = Line(LEFT * 3 + DOWN * 0.37, RIGHT * 2.9 + UP * 1.13, stroke_width=6)
    for _ in range(3):
        picture([line], lean=True)                       # kept at 480p
    with tempconfig({"quality": "high_quality"}):
        own, lean = Camera(), lean_drawing(Camera())
        own.capture_mobjects([line])
        lean.capture_mobjects([line])
        assert np.array_equal(own.pixel_array, lean.pixel_array)


def drawn_fresh(mobjects, camera_class=Camera, project=None) -> np.ndarray:
    """What a new lean camera draws of ``mobjects`` on its background (``project``: a projection
    the camera is given, as ShadowProjection pans its own)."""
    with tempconfig({"quality": "low_quality"}):
        cam = lean_drawing(camera_class())
    if project is not None:
        cam.project_points = project
    cam.capture_mobjects(mobjects)
    return cam.pixel_array.copy()


def test_a_frame_starts_from_the_picture_of_its_still_start(monkeypatch):
    """Frame after frame on one camera, the mobjects drawn first and as before are not drawn
    again (the frame starts from their picture); what changed after them is, and every frame
    is what a new camera draws."""
    still = apart()
    square = Square(0.8).set_fill(BLUE, 1).set_stroke(width=0).shift(DOWN * 3 + LEFT * 5)
    scene = [*still, square]
    with tempconfig({"quality": "low_quality"}):
        cam = lean_drawing(Camera())
    drawn: list[int] = []
    paint = drawing._paint
    monkeypatch.setattr(drawing, "_paint",
                        lambda c, ctx, run, style: (run and drawn.append(len(run))) or paint(c, ctx, run, style))

    def frame() -> list[int]:
        drawn.clear()
        cam.reset()
        cam.capture_mobjects(scene)
        runs = list(drawn)
        assert np.array_equal(cam.pixel_array, drawn_fresh(scene))
        return runs

    for _ in range(3):
        frame()
        square.shift(RIGHT * 0.5)
    assert frame() == [1], "only the moved square is drawn"
    still[-1].set_color("#ff0000")            # the dots, drawn before the square, change colour
    assert len(frame()) > 2, "the picture before the dots is used, the dots and the square drawn"


def test_a_frame_on_another_background_or_view_is_drawn_whole():
    """The still start's picture is only used on the same background, and when the camera
    projects as before (ShadowProjection pans the 3-D picture through its own projection)."""
    scene = apart()
    with tempconfig({"quality": "low_quality"}):
        cam = lean_drawing(Camera())
        for _ in range(3):
            cam.reset()
            cam.capture_mobjects(scene)
        other = np.zeros_like(cam.pixel_array)
        other[..., 2] = 90                    # a blue background
        other[..., 3] = 255
        cam.set_frame_to_background(other)
        cam.capture_mobjects(scene)
        on_blue = cam.pixel_array.copy()
        fresh = lean_drawing(Camera())
        fresh.set_frame_to_background(other)
        fresh.capture_mobjects(scene)
        assert np.array_equal(on_blue, fresh.pixel_array)

    pan = [0.0]
    with tempconfig({"quality": "low_quality"}):
        cam = lean_drawing(ThreeDCamera())
    plain = cam.project_points

    def panned(points):
        out = plain(points)
        out[:, 0] += pan[0]
        return out
    cam.project_points = panned
    square = Square(2).set_stroke(width=4)
    for shift in (0.0, 0.0, 0.0, 1.5):        # still, still, still, then the picture pans
        pan[0] = shift
        cam.reset()
        cam.capture_mobjects([square])
    assert np.array_equal(cam.pixel_array, drawn_fresh([square], ThreeDCamera, panned))
    assert not np.array_equal(cam.pixel_array, drawn_fresh([square], ThreeDCamera))

    # a mobject fixed on the screen (no longer seen in depth) after three still frames
    with tempconfig({"quality": "low_quality"}):
        cam = lean_drawing(ThreeDCamera())
    high = Square(1).set_stroke(width=4).shift(2 * UP + 2 * np.array([0.0, 0.0, 1.0]))
    for _ in range(3):
        cam.reset()
        cam.capture_mobjects([square, high])
    cam.add_fixed_in_frame_mobjects(high)
    cam.reset()
    cam.capture_mobjects([square, high])
    with tempconfig({"quality": "low_quality"}):
        fresh = lean_drawing(ThreeDCamera())
    fresh.add_fixed_in_frame_mobjects(high)
    fresh.capture_mobjects([square, high])
    assert np.array_equal(cam.pixel_array, fresh.pixel_array)
    assert not np.array_equal(cam.pixel_array, drawn_fresh([square, high], ThreeDCamera))


def test_a_fading_label_is_painted_from_pictures_made_once(monkeypatch):
    """A see-through outlined label (a fade) over a bright square: each pass
    from an opaque picture laid on at its opacity, which paints what manim
    paints (a few levels apart where glyphs meet).  The pictures are made at
    the first opacity and serve every other, and a label at points a rounding
    error apart (a fade by transform): what a fresh camera draws there."""
    made = []
    picture_of = drawing._picture
    monkeypatch.setattr(drawing, "_stamps", {})
    monkeypatch.setattr(drawing, "_picture", lambda *a: made.append(1) or picture_of(*a))
    label = apart()[0]
    under = Square(3).set_fill("#ffffff", 1).set_stroke(width=0).move_to(label)
    seen = []
    for opacity in (0.3, 0.6, 0.9):
        label.set_fill(opacity=opacity).set_stroke("#000000", width=6, opacity=opacity, background=True)
        own, lean = picture([under, label], lean=False), picture([under, label], lean=True)
        differ = np.abs(own.astype(int) - lean.astype(int)).max(axis=2)
        assert differ.max() <= 4, f"{np.count_nonzero(differ)} pixels differ, by up to {differ.max()}"
        seen.append(lean)
    assert len(made) == 2                          # the outline's picture and the ink's, once
    assert not np.array_equal(seen[0], seen[2])    # the opacity is not the picture's
    for glyph in label.family_members_with_points():
        glyph.points = glyph.points * (1 + 1e-15)
    nudged = picture([under, label], lean=True)
    assert len(made) == 2
    monkeypatch.setattr(drawing, "_stamps", {})
    assert np.array_equal(nudged, picture([under, label], lean=True))
