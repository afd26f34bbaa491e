"""Cairo drawing with less Python per mobject: ``lean_drawing(camera)``.

manim's Cairo camera draws each vectorised mobject on its own: it builds the
path, then strokes the outline behind it, fills it and strokes it, every
pass also when it paints nothing (a line's empty fill, a stroke of width or
opacity 0).  A label is a dozen glyphs and a grid dozens of lines, so a
frame is a few hundred such draws, and their Python costs more than Cairo's
painting.  ``lean_drawing`` changes one camera's class to one where:

- a pass that paints nothing is skipped (the picture is the same);
- an outlined run (below) is painted once as a picture, then copied; a
  fading one from a picture of each pass, laid on at the pass's opacity;
- consecutive mobjects of one style (the glyphs of a label, the lines of a
  grid: same colours, widths, joints and caps, each colour one opacity 0
  or 1 unless outlined, no gradient, no 3-D shading) are drawn as one path
  of many pieces, each pass once: the outlines behind all of them, then
  their fills, then their strokes.  Where two overlap, an outline no longer
  covers the neighbour drawn before it (a glyph's dark rim over the last
  glyph's ink); nothing else changes.

A frame also starts where the last one stopped changing: the mobjects
drawn first that are drawn as before (same points, colours, widths, same
camera, same background under them) are not drawn again; the frame starts
from a copy of the pixels they left (``_resume``).  manim's own still
background covers only what no animation or updater touches and what is
added before it; this covers also what an updater or a running animation
leaves as it was.

The order of drawing, z indices and the still-background cache are manim's.
"""
from __future__ import annotations

import itertools as it
from collections.abc import Iterable
from functools import cache

import cairo
import numpy as np
from manim import VMobject
from manim.camera.camera import CAP_STYLE_MAP, LINE_JOIN_MAP, Camera


class LeanCamera(Camera):
    """manim's Cairo camera drawing as described above; ``lean_drawing``
    puts it under a camera's own class (a ThreeDCamera's depth sort,
    shading and projection stay its own)."""

    def display_multiple_non_background_colored_vmobjects(self, vmobjects: Iterable[VMobject],
                                                          pixel_array: np.ndarray) -> None:
        _display_all(self, vmobjects, pixel_array)

    def reset(self):
        self._ground = None         # the frame starts from the camera's background
        return super().reset()

    def set_frame_to_background(self, background: np.ndarray) -> None:
        self._ground = background   # manim's still background of the play
        super().set_frame_to_background(background)

    def capture_mobjects(self, mobjects: Iterable, **kwargs) -> None:
        """Camera.capture_mobjects, from the picture of the still start of the last frame's
        list when this frame's list starts the same way (``_resume``)."""
        shown = self.get_mobjects_to_display(mobjects, **kwargs)
        start, still = _resume(self, shown)
        self._draw(shown[start:still])
        if still > start:
            _keep(self, shown[:still])
        self._draw(shown[still:])

    def _draw(self, mobjects: list) -> None:
        """manim's drawing of ``mobjects`` (in runs of one type, as ``capture_mobjects``)."""
        for group_type, group in it.groupby(mobjects, self.type_or_raise):
            self.display_funcs[group_type](list(group), self.pixel_array)


@cache
def _lean(cls: type[Camera]) -> type[Camera]:
    """``cls`` with ``LeanCamera`` between it and manim's ``Camera``."""
    return LeanCamera if cls is Camera else type(f"Lean{cls.__name__}", (cls, LeanCamera), {})


def lean_drawing(camera: Camera) -> Camera:
    """Make ``camera`` (manim's Cairo camera, or one of its subclasses) draw
    as described above; return it."""
    if not isinstance(camera, LeanCamera):
        camera.__class__ = _lean(type(camera))
    return camera


# The still start of a frame: the signatures of the last frame's mobjects
# (what their drawing reads), and one picture of the frame after its first
# ``n`` mobjects, with their signatures.  A frame whose list starts with
# those signatures, on the same background, seen by the same camera, starts
# from the picture.  A picture is only taken at a run's edge (a run of one
# style is one path: cut in two it would paint differently where it overlaps).
def _signature(vm) -> tuple | None:
    """What drawing ``vm`` reads of it (None: not a vectorised mobject; it ends a still start)."""
    if not isinstance(vm, VMobject):
        return None
    return (id(vm), vm.points.tobytes(), vm.fill_rgbas.tobytes(), vm.stroke_rgbas.tobytes(),
            vm.background_stroke_rgbas.tobytes(), vm.stroke_width, vm.background_stroke_width,
            vm.sheen_factor, np.asarray(vm.sheen_direction).tobytes(), vm.joint_type, vm.cap_style,
            getattr(vm, "shade_in_3d", False))


def _view(camera: Camera) -> tuple:
    """What the camera's drawing depends on besides the mobjects: the frame, and a 3-D camera's
    projection (probed, not read: a scene may add to it, as ShadowProjection's pan), its light and
    the mobjects it keeps upright or fixed on the screen."""
    view: tuple = (camera.pixel_array.shape, np.asarray(camera.frame_center).tobytes(), camera.frame_width,
                   camera.frame_height)
    project = getattr(camera, "project_points", None)
    if project is not None:
        view += (project(_PROBE.copy()).tobytes(), camera.light_source.points.tobytes(),
                 frozenset(camera.fixed_in_frame_mobjects), frozenset(camera.fixed_orientation_mobjects))
    return view


_PROBE = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def _resume(camera: Camera, shown: list) -> tuple[int, int]:
    """Where drawing ``shown`` starts (the pixels up to there restored from the kept picture)
    and how far its start is still since the last frame (where a picture is kept)."""
    sigs = [_signature(m) for m in shown]
    ground, view = camera.__dict__.get("_ground"), _view(camera)
    last = camera.__dict__.get("_last")
    camera._last = (ground, view, sigs)
    if last is None or last[0] is not ground or last[1] != view:
        return 0, 0
    still = 0
    for new, old in zip(sigs, last[2]):
        if new is None or new != old:
            break
        still += 1
    while 0 < still < len(shown) and _run_joins(camera, shown[still - 1], shown[still]):
        still -= 1
    kept = camera.__dict__.get("_kept")
    if kept is None or kept[0] is not ground or kept[1] != view or len(kept[2]) > still \
            or kept[2] != sigs[:len(kept[2])]:
        return 0, still
    np.copyto(camera.pixel_array, kept[3])
    return len(kept[2]), still


def _run_joins(camera: Camera, a, b) -> bool:
    """Whether ``a`` and ``b`` (drawn one after the other) are painted in one run."""
    if not (isinstance(a, VMobject) and isinstance(b, VMobject)):
        return False
    style = _style(camera, a)
    return style is not None and style == _style(camera, b)


def _keep(camera: Camera, still: list) -> None:
    """Keep the frame as it is after drawing ``still`` (the still start of the frame's list)."""
    ground, view, sigs = camera._last
    camera._kept = (ground, view, sigs[:len(still)], camera.pixel_array.copy())


def _rgbas(rgbas: np.ndarray) -> tuple | None:
    """One colour as a key: (r, g, b, a), or (0.0,) when clear (None: a gradient)."""
    if len(rgbas) != 1:
        return None
    row = rgbas[0].tolist()     # Python floats: the same values, read three times faster than numpy's
    return tuple(row) if row[3] else (0.0,)


def _style(camera: Camera, vm: VMobject) -> tuple | None:
    """What decides how ``vm`` is painted, or None when it must be drawn
    alone (shaded in 3-D, a gradient, see-through and not outlined)."""
    if getattr(vm, "shade_in_3d", False):
        return None
    back, fill, stroke = (_rgbas(camera.get_stroke_rgbas(vm, background=True)), _rgbas(camera.get_fill_rgbas(vm)),
                          _rgbas(camera.get_stroke_rgbas(vm)))
    if back is None or fill is None or stroke is None:
        return None
    outlined = back != (0.0,) and vm.get_stroke_width(True) > 0
    if not outlined and not {back[-1], fill[-1], stroke[-1]} <= {0.0, 1.0}:
        return None         # where two see-through ones overlap, manim paints twice
    return (back, vm.get_stroke_width(True), fill, stroke, vm.get_stroke_width(), vm.joint_type, vm.cap_style)


def _display_all(self: Camera, vmobjects: Iterable[VMobject], pixel_array: np.ndarray) -> None:
    """Camera.display_multiple_non_background_colored_vmobjects, in runs of one style."""
    ctx = self.get_cairo_context(pixel_array)
    run: list[VMobject] = []
    key: tuple | None = None
    for vm in vmobjects:
        style = _style(self, vm)
        if style is not None and style == key:
            run.append(vm)
            continue
        _paint(self, ctx, run, key)
        run, key = [vm], style
    _paint(self, ctx, run, key)


def _paint(camera: Camera, ctx, run: list[VMobject], style: tuple | None) -> None:
    """Draw ``run``: mobjects of one ``style`` as one path (None: the one
    mobject, manim's way less its empty passes)."""
    if not run:
        return
    first = run[0]
    if style is None:
        back_on = first.get_stroke_width(True) > 0 and camera.get_stroke_rgbas(first, background=True)[:, 3].any()
        fill_on = camera.get_fill_rgbas(first)[:, 3].any()
        stroke_on = first.get_stroke_width() > 0 and camera.get_stroke_rgbas(first)[:, 3].any()
    else:
        back_on = style[1] > 0 and style[0] != (0.0,)
        fill_on = style[2] != (0.0,)
        stroke_on = style[4] > 0 and style[3] != (0.0,)
    if not (back_on or fill_on or stroke_on):
        return
    if back_on and style is not None:   # an outlined label: from its picture
        _stamp(camera, ctx, run, style, fill_on, stroke_on)
        return
    ctx.new_path()
    for vm in run:
        _add_path(camera, ctx, vm)
    if style is None:
        _passes(camera, ctx, first, back_on, fill_on, stroke_on)
    else:
        _paint_style(camera, ctx, style, (back_on, fill_on, stroke_on))


def _passes(camera: Camera, ctx: cairo.Context, first: VMobject, back_on: bool, fill_on: bool,
            stroke_on: bool) -> None:
    """Paint the current path in ``first``'s style, manim's passes in manim's
    order (the outline behind, the fill, the stroke), those asked for."""
    if back_on:
        camera.apply_stroke(ctx, first, background=True)
    if fill_on:
        camera.apply_fill(ctx, first)
    if stroke_on:
        camera.apply_stroke(ctx, first)


def _paint_style(camera: Camera, ctx: cairo.Context, style: tuple, passes: tuple[bool, bool, bool]) -> None:
    """Paint the current path in ``style`` (``_style``'s: one colour a pass),
    its ``passes`` of outline, fill and stroke asked for: what manim's
    ``apply_stroke``/``apply_fill`` paint for a mobject of that style."""
    back, back_width, fill, stroke, width, joint, cap = style
    for on, rgba, line in zip(passes, (back, fill, stroke), (back_width, None, width)):
        if not on:
            continue
        ctx.set_source_rgba(*rgba[2::-1], rgba[3])     # manim's order: Cairo's pixels are BGRA
        if line is None:
            ctx.fill_preserve()
        else:
            ctx.set_line_width(line * camera.cairo_line_width_multiple)
            ctx.set_line_join(LINE_JOIN_MAP[joint])
            ctx.set_line_cap(CAP_STYLE_MAP[cap])
            ctx.stroke_preserve()


# Outlined labels as pictures: the stroke of a label's dark outline (a wide
# stroke round every curve of every glyph) costs four times its fill, and a
# label is mostly drawn where it was drawn the frame before.  A run of one
# outlined style is painted once into a picture of its own, whole pixels
# apart from the frame's, and then copied: by its style and points on
# screen, so a moved or recoloured label is a new picture.  Copied the first
# time too, so a frame does not depend on what was drawn before it (a split
# render's first frame equals the whole render's).  A fading label (its
# colours see-through) is painted from one opaque picture for each pass,
# each laid on with its pass's opacity: what painting the pass at that
# opacity gives (to a level of 255), and a fade reuses the pictures of its
# first frame.  Emptied past STAMPS_BYTES.
STAMPS_BYTES = 96 << 20
_stamps: dict[tuple, tuple[cairo.ImageSurface, int, int]] = {}
_stamped_bytes = [0]


def _stamp(camera: Camera, ctx: cairo.Context, run: list[VMobject], style: tuple, fill_on: bool,
           stroke_on: bool) -> None:
    """Paint ``run`` (outlined, one ``style``) from its pictures in ``_stamps``."""
    points = [camera.transform_points_pre_display(vm, vm.points) for vm in run]
    matrix = ctx.get_matrix()
    device = _device(matrix, points)
    # where it lands, to Cairo's 1/256 of a pixel: a label faded in place by a
    # transform is at points a rounding error apart in every frame
    where = (tuple(matrix), tuple(map(len, points)), np.rint(device * 256).astype(np.int64).tobytes())
    back, back_width, fill, stroke, width, joint, cap = style
    if {back[-1], fill[-1], stroke[-1]} <= {0.0, 1.0}:
        layers = [(style, (True, fill_on, stroke_on), 1.0)]
    else:       # see-through: each pass alone, opaque, laid on at its opacity
        clear = (0.0,)
        layers = [(((*back[:3], 1.0), back_width, clear, clear, 0, joint, cap), (True, False, False), back[-1])]
        if fill_on:
            layers.append(((clear, 0, (*fill[:3], 1.0), clear, 0, joint, cap), (False, True, False), fill[-1]))
        if stroke_on:
            layers.append(((clear, 0, clear, (*stroke[:3], 1.0), width, joint, cap), (False, False, True), stroke[-1]))
    for painted, passes, alpha in layers:
        key = (painted, *where)
        found = _stamps.get(key)
        if found is None:
            found = _stamps[key] = _picture(camera, ctx, matrix, run, points, device, painted, passes)
            _stamped_bytes[0] += found[0].get_stride() * found[0].get_height()
            if _stamped_bytes[0] > STAMPS_BYTES:
                _stamps.clear()
                _stamped_bytes[0] = 0
        surface, x, y = found
        ctx.save()
        ctx.identity_matrix()
        ctx.set_source_surface(surface, x, y)
        ctx.paint_with_alpha(alpha)
        ctx.restore()


def _device(matrix: cairo.Matrix, points: list[np.ndarray]) -> np.ndarray:
    """``points`` (screen units, each (n, 3)) on the frame's pixels: (sum of n, 2)."""
    xy = np.concatenate([p[:, :2] for p in points])
    return xy @ np.array([[matrix.xx, matrix.yx], [matrix.xy, matrix.yy]]) + (matrix.x0, matrix.y0)


def _picture(camera: Camera, ctx: cairo.Context, matrix: cairo.Matrix, run: list[VMobject],
             points: list[np.ndarray], device: np.ndarray, style: tuple, passes: tuple[bool, bool, bool]
             ) -> tuple[cairo.ImageSurface, int, int]:
    """``run`` painted in ``style`` (its ``passes`` of outline, fill and stroke) on a
    clear picture covering it within the frame (``device``: its points on the
    frame's pixels): the picture and where its corner goes (pixels)."""
    widest = max(style[1], style[4]) * camera.cairo_line_width_multiple
    pad = ctx.get_miter_limit() * widest * abs(matrix.xx) / 2 + 2       # a mitred corner reaches this far
    size = ctx.get_target()
    x0, y0 = (max(0, int(np.floor(v - pad))) for v in device.min(axis=0))
    x1 = min(size.get_width(), int(np.ceil(device[:, 0].max() + pad)))
    y1 = min(size.get_height(), int(np.ceil(device[:, 1].max() + pad)))
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, max(1, x1 - x0), max(1, y1 - y0))
    pic = cairo.Context(surface)
    pic.set_matrix(matrix.multiply(cairo.Matrix(x0=-x0, y0=-y0)))
    for vm, p in zip(run, points):
        _build(pic, vm, p, p[:, :2].tolist())
    _paint_style(camera, pic, style, passes)
    surface.flush()
    return surface, x0, y0


# The Cairo path each mobject was last drawn with, by ``id``: the frame's
# matrix and the screen points it was built from (x, y as bytes) and, once it has been drawn at the same
# points twice in a row, the path itself, appended whole from then on (not
# rebuilt curve by curve); a mobject that moves every frame is built straight
# into the frame.  Emptied when it grows past PATHS_KEPT.
PATHS_KEPT = 20_000
_paths: dict[int, tuple[tuple, cairo.Path | None]] = {}
_scratch: dict[str, cairo.Context] = {}


def _add_path(camera: Camera, ctx: cairo.Context, vm: VMobject) -> None:
    """Add ``vm``'s pieces to ``ctx``'s current path, as manim's
    ``Camera.set_cairo_context_path`` draws them (without starting a new
    path); from ``_paths`` when drawn at these points before."""
    points = camera.transform_points_pre_display(vm, vm.points)
    xy = np.ascontiguousarray(points[:, :2])
    key = (tuple(ctx.get_matrix()), xy.tobytes())     # a path kept is in the units of one frame's matrix
    last = _paths.get(id(vm))
    if last is None or last[0] != key:          # new, or moved: built in place
        _build(ctx, vm, points, xy.tolist())
        path = None
    elif last[1] is None:                       # still since the last frame: built once more, and kept
        scratch = _scratch_like(ctx)
        scratch.new_path()
        _build(scratch, vm, points, xy.tolist())
        path = scratch.copy_path()
        ctx.append_path(path)
    else:
        ctx.append_path(last[1])
        return
    if len(_paths) >= PATHS_KEPT:
        _paths.clear()
    _paths[id(vm)] = (key, path)


def _scratch_like(ctx: cairo.Context) -> cairo.Context:
    """A context off screen with ``ctx``'s matrix (a path copied from it is
    in the same units); the cache is emptied when the matrix changes."""
    matrix = tuple(ctx.get_matrix())
    scratch = _scratch.get("ctx")
    if scratch is None or tuple(scratch.get_matrix()) != matrix:
        scratch = _scratch["ctx"] = cairo.Context(cairo.ImageSurface(cairo.FORMAT_ARGB32, 1, 1))
        scratch.set_matrix(cairo.Matrix(*matrix))
        _paths.clear()
    return scratch


def _build(ctx: cairo.Context, vm: VMobject, points: np.ndarray, xy: list) -> None:
    """manim's path of ``vm`` at ``points`` (screen, (n, 3); ``xy`` their x, y)."""
    n = vm.n_points_per_cubic_curve
    for start, end in vm.get_subpath_split_indices_from_points(points, n_dims=2).tolist():
        if end - start < n:
            continue
        ctx.new_sub_path()
        ctx.move_to(*xy[start])
        for i in range(start + 1, end - n + 2, n):
            ctx.curve_to(*xy[i], *xy[i + 1], *xy[i + 2])
        if vm.consider_points_equals_2d(points[start], points[end - 1]):
            ctx.close_path()
