"""Scene 3, PhotoFilter: a projection matrix is a photo filter.

Pixels are RGB row vectors; a colour filter is a (3, 3) matrix applied to
every pixel ([r, g, b] @ M), and blur and down-sampling are linear maps on
the whole flattened picture.  One pixel is zoomed into and worked out with
colour swatches; grey-scale is shown as the RGB cube collapsing onto its
diagonal.  Every picture, colour and count shown is a ``qkv_math`` result;
values pushed outside [0, 1] are clipped for display, and the count is
shown where a filter clips.

    manim -ql scenes/photo_filter.py PhotoFilter
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    Arrow,
    DashedLine,
    DecimalNumber,
    Dot,
    FadeIn,
    FadeOut,
    Group,
    ImageMobject,
    Line,
    MathTex,
    Mobject,
    MoveToTarget,
    Rectangle,
    Square,
    SurroundingRectangle,
    Text,
    TransformFromCopy,
    UpdateFromAlphaFunc,
    VGroup,
    VMobject,
    Write,
    config,
)
from manim.constants import RESAMPLING_ALGORITHMS

import qkv_math as qm
from qkv_lens.cues import reading_seconds
from qkv_lens.lesson.keys import Computed, File, Integer, Integers, Matrix, Number, Params
from qkv_lens.numbers import plain_number, tex_number
from qkv_math.filters import LUMA
from scenes.kit import palette
from scenes.kit.colour import CORNERS, EDGES, ColourCube, cube_view, rgb_colour, swatch
from scenes.kit.layout import bounds
from scenes.kit.matrices import matrix_mob
from scenes.kit.motion import Emphasize
from scenes.kit.scene import LessonScene
from scenes.kit.text import NOTE_SIZE, note, text, title, wrap_lines, wrapped_text

PIC_H = 2.4          # height of the pictures in the pixel part
PIC_W = 3.6          # and their widest
PIC_TOP = 2.85       # their top edge (under the title)
ZOOM = 7             # the zoom shows ZOOM x ZOOM pixels around the worked one
MARGIN = 0.55        # kept clear at the left and right edges of the frame
SWATCH = 0.7         # side of a colour swatch
# The colour cube, drawn in 3-D and seen by a fixed parallel projection (the
# camera drops z): rgb -> CUBE_ORIGIN + CUBE_SIZE * rgb @ CUBE_VIEW.
CUBE_SIZE = 3.0
CUBE_ORIGIN = np.array([-5.2, -1.75, 0.0])
CUBE_VIEW = cube_view(-70, -30)
MAX_COLOUR_DOTS = 60  # the picture's colours drawn inside the cube, at most


def picture(image: np.ndarray, height: float, max_width: float | None = None) -> ImageMobject:
    """An (h, w, 3) array in [0, 1] as a crisp (nearest-neighbour) image,
    ``height`` tall (less if it would be wider than ``max_width``)."""
    rgb = np.round(np.clip(image, 0, 1) * 255).astype(np.uint8)
    alpha = np.full(rgb.shape[:2] + (1,), 255, dtype=np.uint8)
    mob = ImageMobject(np.concatenate([rgb, alpha], axis=2))
    mob.set_resampling_algorithm(RESAMPLING_ALGORITHMS["nearest"])
    mob.height = height
    if max_width is not None and mob.width > max_width:
        mob.width = max_width
    mob.source = image
    return mob


def clipped_pixels(raw: np.ndarray) -> np.ndarray:
    """(h, w) mask of the pixels with a value outside [0, 1] (as ``qkv_math`` counts them)."""
    return ((raw < -1e-9) | (raw > 1 + 1e-9)).any(axis=2)


def hatch(mask: np.ndarray, over: Mobject, stripes: int = 1) -> VMobject:
    """White diagonal stripes over the pixels of ``mask`` on the picture
    ``over`` (``stripes`` a pixel; one path: neighbouring pixels' stripes join)."""
    h, w = mask.shape
    cw, ch = over.width / w, over.height / h
    ul = over.get_corner(UL)
    mob = VMobject(stroke_color=palette.FOCUS, stroke_width=2.5)
    for r, c in zip(*np.nonzero(mask)):
        x0, y0 = ul[0] + c * cw, ul[1] - (r + 1) * ch    # the cell's lower left
        for k in range(stripes):
            d = 1 - 2 * (k + 0.5) / stripes             # the stripe y = x + d across the unit cell
            (ax, ay), (bx, by) = ((0.0, d), (1 - d, 1.0)) if d >= 0 else ((-d, 0.0), (1.0, 1 + d))
            mob.start_new_path(np.array([x0 + ax * cw, y0 + ay * ch, 0]))
            mob.add_line_to(np.array([x0 + bx * cw, y0 + by * ch, 0]))
    mob.mask = mask
    return mob


def hatched_cells(marks: VMobject, pic: ImageMobject) -> set[tuple[int, int]]:
    """The pixels (row, column) of ``pic`` that the stripes of ``marks`` cross, read from where they are drawn."""
    rows, cols = pic.source.shape[:2]
    ul = pic.get_corner(UL)
    cells = set()
    for path in marks.get_subpaths():
        mid = (path[0] + path[-1]) / 2
        cells.add((int((ul[1] - mid[1]) / pic.height * rows), int((mid[0] - ul[0]) / pic.width * cols)))
    return cells


def drawn_colour(mob: Mobject) -> np.ndarray:
    """The one fill colour ``mob`` is drawn in: that of every part with points
    (a Transform onto it may have split it into many), as rgb."""
    colours = np.unique(np.round([m.get_fill_color().to_rgb() for m in mob.family_members_with_points()], 9),
                        axis=0)
    return colours[0] if len(colours) == 1 else colours


def cell_at(pic: ImageMobject, rows: int, r: int, c: int) -> np.ndarray:
    """Centre of pixel (r, c) of a picture ``rows`` pixels high."""
    cell = pic.height / rows
    return pic.get_corner(UL) + np.array([(c + 0.5) * cell, -(r + 0.5) * cell, 0])


def shown_text(mob: Mobject) -> str:
    """The words of a Text or of wrapped lines of Text, joined (as Pango
    keeps them: without spaces)."""
    return "".join(m.text for m in mob.get_family() if isinstance(m, Text))


def balanced_text(content: str, lang: str, size: float, width: float, color) -> VGroup:
    """``content`` wrapped to no wider than ``width`` in as few lines as
    possible, and those lines as even as possible (no orphan word)."""
    n = len(wrap_lines(content, lang, size, width))
    lo, hi = width / n, width
    for _ in range(6):   # the narrowest width that still needs only n lines
        mid = (lo + hi) / 2
        if len(wrap_lines(content, lang, size, mid)) > n:
            lo = mid
        else:
            hi = mid
    return wrapped_text(content, lang, size=size, width=hi if n > 1 else width, color=color)


def cols_of(n: int) -> int:
    """How many terms a row of a sum of ``n`` terms holds: 3 for the 9 of a 3 x 3 neighbourhood."""
    return max(1, int(round(n ** 0.5)))


def digits_px(mobjects: list[Mobject]) -> float:
    """How tall the smallest digit of any typeset number among ``mobjects`` is drawn, in px at 1080p (a
    digit: a glyph of a MathTex or a number taller than wide, so not a point, a minus or a bar)."""
    heights = [g.height for m in mobjects for t in m.get_family() if isinstance(t, (MathTex, DecimalNumber))
               for g in t.family_members_with_points() if g.height >= 1.15 * g.width and g.height > 0.02]
    return min(heights, default=float("inf")) * 1080 / config.frame_height


def cube_swing(t: float) -> float:
    """Degrees the colour cube is turned (about b) at time t in [0, 1] of its
    swing: to one side, to the other and back, so its depth reads."""
    return 45 * float(np.sin(2 * np.pi * t))


def picture_colours(img: np.ndarray, most: int = MAX_COLOUR_DOTS) -> np.ndarray:
    """The picture's distinct colours, (k, 3); at most ``most``, evenly
    spread over them ordered by brightness."""
    colours = np.unique(img.reshape(-1, 3), axis=0)
    colours = colours[np.argsort(colours @ LUMA, kind="stable")]
    if len(colours) > most:
        colours = colours[np.round(np.linspace(0, len(colours) - 1, most)).astype(int)]
    return colours


@dataclass
class _Zoom:
    """The worked pixel's neighbourhood, magnified (``PhotoFilter._zoom``)."""
    region: Rectangle          # on the original
    zoom: ImageMobject
    zoom_frame: SurroundingRectangle
    rays: VGroup               # from the region to the zoom
    grid: VGroup               # the pixels' borders
    hit: Square                # the worked pixel
    names: Mobject             # its row and column


@dataclass
class _PixelSum:
    """[swatch] [r g b] x W = [r' g' b'] [swatch] (``PhotoFilter._pixel_sum``)."""
    sw_in: Square
    row_in: VGroup
    times: MathTex
    W: VGroup
    equals: MathTex
    row_out: VGroup
    sw_out: Square
    tags: VGroup               # under the rows and W
    block: VGroup              # all of it


@dataclass
class _Whole:
    """The whole picture through the same W (``PhotoFilter._whole``)."""
    recoloured: ImageMobject
    rcap: Mobject
    clip_note: Mobject         # how many values the display clips
    arrow: Arrow
    arrow_tag: MathTex
    landed: Square             # the worked pixel's swatch, landing in the picture
    clips: bool
    marks: VMobject            # the clipped pixels, hatched over the picture
    key: VGroup                # a hatched square before the clipped count: the same marks


@dataclass
class _Product:
    """One output pixel of the blur as y = x A (``PhotoFilter._product``):
    the patch of the picture, its pixels as the long row x, a window of A (lit
    where A is not 0), x tipped beside it, the output row y under it, and y
    written out as the average it is."""
    patch: ImageMobject        # the picture's patch, enlarged
    patch_hit: Square          # the output pixel on it
    x_row: VGroup              # one cell a pixel, in its colour
    x_tag: Mobject             # what x holds
    grid: VMobject             # A's window: every cell, faint (the zeros)
    band: VMobject             # the cells where A is not 0, lit
    x_col: VGroup              # x tipped beside A, one cell a row of A
    y_row: VGroup              # the output row under A, one cell a column
    column: Rectangle          # the column that makes the chosen output pixel
    legend: VGroup             # a lit cell = the weight, a faint one = 0; what the window is
    y_cell: Square             # the chosen output cell, in the output colour
    big: Square                # the output pixel, large
    average: MathTex           # y = (the red values the column weighs, summed) / their count = y's red value
    window: np.ndarray         # A's window (rows: x's pixels, columns: y's)
    j: int                     # the chosen column
    values: list[str]          # the red values the average adds, as written


class PhotoFilterParams(Params):
    """[photo_filter]: the picture (generated, or a file in the lesson's
    folder resized to ``size``) and the filters, (3, 3) matrices in the row
    convention: a pixel [r, g, b] @ M."""
    section = "photo_filter"
    image: str = File(doc='the generated picture ("") or a PNG or JPEG in the lesson\'s folder')
    size: tuple[int, int] = Integers(4, 64, 2, shape="[height, width] in pixels", doc="pixels (rows, columns)")
    pixel: tuple[int, int] = Integers(0, 63, 2, shape="[row, column] of one pixel", doc="the worked pixel")
    tint_strength: Fraction = Number("tint", doc="warm tint: red x (1 + s), blue x (1 - s)")
    darken_factor: Fraction = Number("darken", doc="darkening: every channel x this factor")
    downsample: int = Integer(1, 64, doc="average blocks of this many pixels a side")
    query_filter: tuple[tuple[Fraction, ...], ...] = Matrix("colour", 3, 3, why="a colour filter: [r, g, b] @ M",
                                                            doc="the query filter")
    key_filter: tuple[tuple[Fraction, ...], ...] = Matrix("colour", 3, 3, why="a colour filter: [r, g, b] @ M",
                                                          doc="the key filter")
    value_filter: tuple[tuple[Fraction, ...], ...] = Matrix("colour", 3, 3, why="a colour filter: [r, g, b] @ M",
                                                            doc="the value filter")
    picture: Any = Computed(doc="the (h, w, 3) picture in [0, 1], read-only")


class PhotoFilter(LessonScene):
    params: PhotoFilterParams
    chapter = 1
    number = 3
    sparse_moments = {"zoom": "the photo and its one pixel, taken apart, keep the left; the filtered photo fills "
                              "the right in the next beat (about half the frame in every language)"}
    def construct(self):
        p, lang = self.params, self.lang
        img = np.asarray(p.picture, dtype=float)
        h, w, _ = img.shape

        heading = title(self.tr("title"), lang)
        slot = config.frame_width / 2 - MARGIN - PIC_W / 2   # the top row's side pictures: centred in PIC_W
        original = picture(img, PIC_H, PIC_W).move_to([-slot, 0, 0]).align_to([0, PIC_TOP, 0], UP)
        cap = note(self.tr("original", h=h, w=w), lang, width=PIC_W + 0.4)
        cap.next_to(original, DOWN, buff=0.15)
        self._pixel(img, original, heading, cap)
        # the original goes back to the left, larger, for the four filters beside it
        original.generate_target()
        original.target.scale(min(3.0 / original.height, 4.0 / original.width)).move_to([-4.3, 0.4, 0])
        cap.generate_target()
        cap.target.next_to(original.target, DOWN, buff=0.15)
        self.play(MoveToTarget(original), MoveToTarget(cap), run_time=0.6)
        tiles = self._filters(img, heading, original, cap)
        self.play(FadeOut(tiles), FadeOut(original), FadeOut(cap), run_time=0.6)
        self._spatial(img, heading)
        self._cube(img)
        self._qkv(img, heading)

    # --- one pixel, zoomed in and worked out -------------------------------
    def _pixel(self, img: np.ndarray, original: ImageMobject, heading: Mobject, cap: Mobject) -> None:
        p = self.params
        r, c = p.pixel
        tint = qm.warm_tint(float(p.tint_strength))
        px = img[r, c]
        out = px @ tint
        tinted = qm.apply_color(img, tint)
        z = self._zoom(img, original)
        sum_ = self._pixel_sum(px, out, tint)
        whole = self._whole(img, original, tinted, out, z, sum_)
        self._zoom_in(z, sum_, heading, original, cap)
        self._work_pixel(sum_, px, tint)
        self._tint_all(whole, sum_, tinted.clipped)
        self.play(FadeOut(Group(z.region, z.zoom, z.grid, z.zoom_frame, z.rays, z.hit, z.names, sum_.block,
                                whole.recoloured, whole.rcap, whole.arrow, whole.arrow_tag,
                                *([whole.clip_note, whole.marks, whole.key] if whole.clips else []))),
                  run_time=0.6)

    def _zoom(self, img: np.ndarray, original: ImageMobject) -> _Zoom:
        """The ZOOM x ZOOM neighbourhood of the worked pixel, magnified in the middle of the top row."""
        h, w, _ = img.shape
        r, c = self.params.pixel
        k_r = k_c = min(ZOOM, h, w)
        r0, c0 = min(max(r - k_r // 2, 0), h - k_r), min(max(c - k_c // 2, 0), w - k_c)
        cell = original.height / h
        region = Rectangle(width=k_c * cell, height=k_r * cell, color=palette.AREA, stroke_width=3)
        region.move_to((cell_at(original, h, r0, c0) + cell_at(original, h, r0 + k_r - 1, c0 + k_c - 1)) / 2)
        zoom = picture(img[r0:r0 + k_r, c0:c0 + k_c], PIC_H).move_to([0, PIC_TOP - PIC_H / 2, 0])
        zoom_frame = SurroundingRectangle(zoom, color=palette.AREA, buff=0, stroke_width=3)
        rays = VGroup(Line(region.get_corner(UP + RIGHT), zoom.get_corner(UL)),
                      Line(region.get_corner(DOWN + RIGHT), zoom.get_corner(DOWN + LEFT)))
        rays.set_stroke(palette.AREA, 2, opacity=0.7)
        zcell = zoom.height / k_r
        # the pixels' borders, so the zoom reads as a grid of single colours
        grid = VGroup(*[Line(zoom.get_corner(UL) + RIGHT * i * zcell, zoom.get_corner(DOWN + LEFT) + RIGHT * i * zcell)
                        for i in range(1, k_c)],
                      *[Line(zoom.get_corner(UL) + DOWN * i * zcell, zoom.get_corner(UP + RIGHT) + DOWN * i * zcell)
                        for i in range(1, k_r)]).set_stroke(palette.PANEL, 2)
        hit = Square(zcell, color=palette.INK, stroke_width=5).move_to(cell_at(zoom, k_r, r - r0, c - c0))
        names = note(self.tr("pixel", r=r, c=c), self.lang, color=palette.AREA, width=4.2)
        names.next_to(zoom, DOWN, buff=0.15)
        return _Zoom(region, zoom, zoom_frame, rays, grid, hit, names)

    @staticmethod
    def _pixel_sum(px: np.ndarray, out: np.ndarray, tint: np.ndarray) -> _PixelSum:
        """[swatch] [r g b] x W = [r' g' b'] [swatch], across the bottom, centred."""
        row_in = matrix_mob([px], font_size=36, digits=2)
        W = matrix_mob(tint, font_size=36, digits=2)
        row_out = matrix_mob([out], font_size=36, digits=2)
        outside = [j for j, v in enumerate(out) if not 0 <= v <= 1]
        for j in outside:   # what the display cannot show
            row_out.get_entries()[j].set_color(palette.ALERT)
        sw_in, sw_out = swatch(px, SWATCH), swatch(out, SWATCH)
        times, equals = MathTex(r"\times", font_size=40), MathTex("=", font_size=40)
        eq = VGroup(sw_in, row_in, times, W, equals, row_out, sw_out).arrange(RIGHT, buff=0.25)
        tags = VGroup(*[MathTex(s, font_size=32, color=palette.MUTED).next_to(m, DOWN, buff=0.12)
                        for s, m in ((r"[r\;\,g\;\,b]", row_in), ("W", W), (r"[r'\;\,g'\;\,b']", row_out))])
        block = VGroup(eq, tags)
        room = config.frame_width - 2 * MARGIN
        if block.width > room:
            block.scale_to_fit_width(room)
        block.move_to([0, 0, 0]).align_to([0, -2.92, 0], DOWN)
        return _PixelSum(sw_in, row_in, times, W, equals, row_out, sw_out, tags, block)

    def _whole(self, img: np.ndarray, original: ImageMobject, tinted, out: np.ndarray, z: _Zoom,
               sum_: _PixelSum) -> _Whole:
        """The whole picture through the same W, at the right of the top row,
        the arrow to it from the zoom, and how many values the display clips."""
        h = img.shape[0]
        r, c = self.params.pixel
        cell = original.height / h
        slot = config.frame_width / 2 - MARGIN - PIC_W / 2
        recoloured = picture(tinted.image, PIC_H, PIC_W).move_to([slot, 0, 0]).align_to([0, PIC_TOP, 0], UP)
        rcap = note(self.tr("tinted"), self.lang, width=PIC_W + 0.4).next_to(recoloured, DOWN, buff=0.15)
        # how many values the display clips: under the output it happens to, once
        clip_note = balanced_text(self.tr("clipped", n=tinted.clipped), self.lang, NOTE_SIZE, 5.0, palette.ALERT)
        clip_note.next_to(sum_.tags[2], DOWN, buff=0.12).align_to(sum_.sw_out, RIGHT)
        lift = -2.95 - min(clip_note.get_bottom()[1], sum_.block.get_bottom()[1])
        if lift > 0:
            sum_.block.shift(UP * lift)
            clip_note.shift(UP * lift)
        arrow = Arrow(z.zoom.get_right() + RIGHT * 0.2, recoloured.get_left() + LEFT * 0.2,
                      color=palette.INK, buff=0)
        arrow_tag = MathTex(r"\times W", font_size=36).next_to(arrow, UP, buff=0.1)
        landed = swatch(out, SWATCH).scale(cell / SWATCH).move_to(cell_at(recoloured, h, r, c))
        marks = hatch(clipped_pixels(tinted.raw), recoloured)
        sample = Square(0.36, stroke_width=1.5, stroke_color=palette.FOCUS, fill_color=rgb_colour(np.clip(out, 0, 1)),
                        fill_opacity=1)
        key = VGroup(sample, hatch(np.ones((1, 1), dtype=bool), sample, stripes=3))
        key.next_to(clip_note, LEFT, buff=0.15)
        return _Whole(recoloured, rcap, clip_note, arrow, arrow_tag, landed, tinted.clipped > 0, marks, key)

    def _zoom_in(self, z: _Zoom, sum_: _PixelSum, heading: Mobject, original: ImageMobject, cap: Mobject) -> None:
        """The photo, then one of its pixels zoomed into as the sentence says
        each pixel is one colour, three numbers."""
        h, w = original.source.shape[:2]
        with self.beat("intro_say", focus=sum_.sw_in, n=h * w) as sentence:
            zoom_at = self.cue_at(sentence, 0.45)[0]
            self.play(Write(heading), FadeIn(original), FadeIn(cap), run_time=1.2)
            self.wait_until(zoom_at, original)
            self.play(FadeIn(z.region), run_time=0.6)
            self.play(TransformFromCopy(z.region, z.zoom_frame), FadeIn(z.zoom), FadeIn(z.grid), FadeIn(z.rays),
                      run_time=1.2)
            self.play(FadeIn(z.hit), FadeIn(z.names), run_time=0.6)
            self.play(TransformFromCopy(z.hit, sum_.sw_in), run_time=0.9)
            self.play(FadeIn(sum_.row_in), FadeIn(sum_.tags[0]), run_time=0.8)
            r, c = self.params.pixel
            self.describe("describe_intro", h=h, w=w, r=r, c=c, rgb=original.source[r, c], places=2)
        self.key_moment("zoom", zoom=z.zoom.source, swatch_in=drawn_colour(sum_.sw_in))

    def _work_pixel(self, sum_: _PixelSum, px: np.ndarray, tint: np.ndarray) -> None:
        with self.beat("pixel_say", focus=sum_.sw_out):
            self.play(FadeIn(sum_.times), FadeIn(sum_.W), FadeIn(sum_.tags[1]), run_time=0.8)
            self.play(FadeIn(sum_.equals), TransformFromCopy(sum_.row_in, sum_.row_out), FadeIn(sum_.tags[2]),
                      run_time=1.2)
            self.play(TransformFromCopy(sum_.row_out, sum_.sw_out), run_time=0.8)
            out = px @ tint
            self.describe("describe_pixel", W=tint, out=out, places=2)
            outside = [v for v in out if not 0 <= v <= 1]
            if outside:
                self.describe("describe_pixel_outside", values=outside, places=2)
        self.key_moment("pixel", pixel=px, shown_in=[e.get_tex_string() for e in sum_.row_in.get_entries()],
                        shown_out=[e.get_tex_string() for e in sum_.row_out.get_entries()],
                        swatch_in=drawn_colour(sum_.sw_in),
                        swatch_out=drawn_colour(sum_.sw_out))

    def _tint_all(self, whole: _Whole, sum_: _PixelSum, clipped: int) -> None:
        clips = whole.clips
        focus = whole.clip_note if clips else whole.recoloured
        with self.beat("whole_clip_say" if clips else "whole_say", focus=focus):
            self.play(FadeIn(whole.arrow), FadeIn(whole.arrow_tag), run_time=0.6)
            self.play(TransformFromCopy(sum_.sw_out, whole.landed), run_time=0.9)
            self.play(FadeIn(whole.recoloured), FadeIn(whole.rcap), run_time=1.0)
            self.remove(whole.landed)
            if clips:   # the pixels the display clips, hatched, and their count with the same hatching
                self.play(FadeIn(whole.marks), FadeIn(whole.key), FadeIn(whole.clip_note), run_time=0.8)
            self.describe("describe_whole")
            if clips:
                self.describe("describe_whole_clip", n=clipped)
        self.key_moment("whole", tinted=whole.recoloured.source, swatch_out=drawn_colour(sum_.sw_out),
                        clip_notes=[shown_text(whole.clip_note)] if clips else [],
                        hatched=hatched_cells(whole.marks, whole.recoloured) if whole.marks in self.mobjects else None)

    # --- four more filters, all linear ---------------------------------------
    def _filters(self, img: np.ndarray, heading: Mobject, original: ImageMobject, cap: Mobject) -> Group:
        p, lang = self.params, self.lang
        h, w, _ = img.shape
        f, k = p.downsample, float(p.darken_factor)
        filters = [
            ("darken", qm.apply_color(img, qm.darken(k)), {"k": plain_number(k, 2, pad=True)}),
            ("gray", qm.apply_color(img, qm.grayscale()), {"rank": qm.rank(qm.grayscale())}),
            ("blur", qm.apply_spatial(img, qm.blur_matrix(h, w), (h, w)), {}),
            ("down", qm.apply_spatial(img, qm.downsample_matrix(h, w, f), (h // f, w // f)),
             {"h": h // f, "w": w // f}),
        ]

        def make_tiles(height: float) -> Group:
            tiles = Group()
            for key, res, fields in filters:
                pic = picture(res.image, height, 3.9)
                label = balanced_text(self.tr(key, **fields), lang, 20, 3.9, palette.INK)
                if res.clipped:   # said only where a filter clips
                    label = VGroup(label, note(self.tr("clipped", n=res.clipped), lang, color=palette.ALERT)
                                   ).arrange(DOWN, buff=0.08)
                tiles.add(Group(pic, label).arrange(DOWN, buff=0.15))
            return tiles.arrange_in_grid(rows=2, cols=2, buff=(0.4, 0.3), row_alignments="uu")

        # the tiles go right of the original, between the title and the subtitle band;
        # when they are too tall the pictures shrink, not the captions
        top = heading.get_bottom()[1] - 0.25
        room = top - (-config.frame_height / 2 + 0.12 * config.frame_height + 0.1)
        left = max(original.get_right()[0], cap.get_right()[0]) + 0.35
        right = config.frame_width / 2 - MARGIN
        tiles = make_tiles(1.9)
        if tiles.height > room:
            tiles = make_tiles(max(1.0, 1.9 - (tiles.height - room) / 2))
        if tiles.height > room:
            tiles.scale_to_fit_height(room)
        if tiles.width > right - left:
            tiles.scale_to_fit_width(right - left)
        tiles.move_to([(left + right) / 2, 0, 0]).align_to([0, top, 0], UP)
        with self.beat("filters_say", focus=tiles[-1][1]) as sentence:
            # each filter appears as the sentence reaches it
            slot = reading_seconds(sentence, lang) / len(tiles)
            for i, tile in enumerate(tiles):
                self.play(FadeIn(tile), run_time=0.8)
                if i < len(tiles) - 1 and slot > 0.8:
                    self.wait(slot - 0.8)
            self.describe("describe_filters")
            for key, res, fields in filters:
                self.describe(f"describe_tile_{key}", **fields)
                if res.clipped:
                    self.describe("describe_tile_clip", n=res.clipped)
        self.key_moment("filters", images={k: t[0].source for (k, _, _), t in zip(filters, tiles)},
                        clipped={k: res.clipped for k, res, _ in filters})
        return tiles

    # --- blur: one long vector times a big matrix ---------------------------
    def _spatial(self, img: np.ndarray, heading: Mobject) -> None:
        """One output pixel of the blur as x A: the patch's pixels in a row, a
        window of A, the one column that makes the pixel, and that column's
        product written out: the sum of the 9 red values it weighs, over 9."""
        p = self.params
        h, w, _ = img.shape
        r, c = qm.sharpest_blur(img, tuple(p.pixel))
        kc = min(5, w)
        c0 = min(max(c - kc // 2, 0), w - kc)
        idx = qm.patch_indices(w, r - 1, c0, 3, kc)
        blurred = qm.apply_spatial(img, qm.blur_matrix(h, w), (h, w))
        B = qm.blur_matrix(h, w)
        view = self._product(img, (r - 1, c0, 3, kc), B[np.ix_(idx, idx)], kc + c - c0,
                             blurred.raw[r, c], heading, n=h * w)
        self._play_product(view, pixel=(r, c))
        self.play(FadeOut(Group(*self._product_parts(view))), run_time=0.6)

    @staticmethod
    def _product_parts(v: _Product) -> list[Mobject]:
        return [v.patch, v.patch_hit, v.x_row, v.x_tag, v.grid, v.band, v.x_col, v.y_row, v.column,
                v.legend, v.y_cell, v.big, v.average]

    def _product(self, img: np.ndarray, patch: tuple[int, int, int, int], window: np.ndarray, j: int,
                 out: np.ndarray, heading: Mobject, **fields) -> _Product:
        """The layout of y = x A for one output pixel: the patch top left, x along
        the top, A's window in the middle with x tipped at its left and y under it;
        its legend and the output pixel, large, at the right; under the patch,
        y written out: the red values column j weighs, summed, over their count."""
        lang = self.lang
        r0, c0, rows, cols = patch
        pix = img[r0:r0 + rows, c0:c0 + cols].reshape(-1, 3)
        k, m = window.shape
        top = heading.get_bottom()[1] - 0.2
        bottom = -config.frame_height / 2 + 0.12 * config.frame_height + 0.12
        # the patch, enlarged, top left
        pic = picture(img[r0:r0 + rows, c0:c0 + cols], min(1.5, 2.6 * rows / cols), 2.6)
        pic.to_edge(LEFT, buff=MARGIN).align_to([0, top, 0], UP)
        # x along the top, right of the patch: one cell a pixel, in its colour
        left = pic.get_right()[0] + 0.5
        sx = min(0.62, (config.frame_width / 2 - MARGIN - left) / k)
        x_row = VGroup(*[Square(sx, stroke_color=palette.MUTED, stroke_width=1.5, fill_color=rgb_colour(px),
                                fill_opacity=1) for px in pix]).arrange(RIGHT, buff=0)
        x_row.move_to([left + k * sx / 2, top - 0.45 - sx / 2, 0])
        x_tag = VGroup(MathTex("x", font_size=40), note(self.tr("red_values"), lang))
        x_tag.arrange(RIGHT, buff=0.2).next_to(x_row, UP, buff=0.08).align_to(x_row, LEFT)
        # A's window: k rows (x's pixels), m columns (y's pixels)
        a_top = x_row.get_bottom()[1] - 0.3
        ch = min(0.3, (a_top - 0.1 - bottom) / (k + 1))
        cw = ch
        origin = np.array([-0.6, a_top, 0])   # A's top left

        def cell_rect(i: int, jj: int) -> tuple[np.ndarray, np.ndarray]:
            ul = origin + np.array([jj * cw, -i * ch, 0])
            return ul, ul + np.array([cw, -ch, 0])

        grid, band = VMobject(), VMobject()
        for i in range(k):
            for jj in range(m):
                (x0, y0, _), (x1, y1, _) = cell_rect(i, jj)
                corners = [np.array(p_) for p_ in ([x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0], [x0, y0, 0])]
                target = band if window[i, jj] else grid
                target.start_new_path(corners[0])
                target.add_points_as_corners(corners[1:])
        grid.set_stroke(palette.MUTED, 1, opacity=0.45)
        band.set_fill(palette.AREA, opacity=0.85).set_stroke(palette.BACKGROUND, 1)
        x_col = VGroup(*[Square(ch, stroke_color=palette.MUTED, stroke_width=1, fill_color=rgb_colour(px),
                                fill_opacity=1) for px in pix]).arrange(DOWN, buff=0)
        x_col.next_to(origin, LEFT, buff=0.25).align_to([0, origin[1], 0], UP)
        y_row = VGroup(*[Rectangle(width=cw, height=ch, stroke_color=palette.MUTED, stroke_width=1)
                         for _ in range(m)]).arrange(RIGHT, buff=0)
        y_row.next_to(origin + np.array([0, -k * ch, 0]), DOWN, buff=0.1).align_to([origin[0], 0, 0], LEFT)
        ul, _ = cell_rect(0, j)
        column = Rectangle(width=cw, height=k * ch + 0.1 + ch, color=palette.FOCUS, stroke_width=4)
        column.move_to(ul + np.array([cw / 2, -(k * ch + 0.1 + ch) / 2, 0]))
        y_cell = Square(1.0, stroke_width=0, fill_color=rgb_colour(np.clip(out, 0, 1)), fill_opacity=1)
        y_cell.stretch_to_fit_width(cw).stretch_to_fit_height(ch).move_to(y_row[j])
        # right of A: the legend (a lit cell is the weight, a faint one 0; the window's size) and the output pixel
        lit_rows = [i for i in range(k) if window[i, j]]
        weight = Fraction(float(window[lit_rows[0], j])).limit_denominator(4096)
        lit = Square(0.36, stroke_width=0, fill_color=palette.AREA, fill_opacity=0.85)
        faint = Square(0.36, stroke_color=palette.MUTED, stroke_width=1.5, stroke_opacity=0.45)
        room = config.frame_width / 2 - MARGIN - (origin[0] + m * cw) - 0.4
        legend = VGroup(VGroup(lit, MathTex("=", tex_number(weight, 3, fractions=True).replace(r"\tfrac", r"\frac"),
                                            font_size=40)).arrange(RIGHT, buff=0.2),
                        VGroup(faint, MathTex("= 0", font_size=40)).arrange(RIGHT, buff=0.2),
                        note(self.tr("blur_window", k=k, m=m, **fields), lang, width=room))
        legend.arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        legend.next_to(origin + np.array([m * cw, 0, 0]), RIGHT, buff=0.4).align_to([0, origin[1], 0], UP)
        big = Square(1.0, stroke_color=palette.FOCUS, stroke_width=3, fill_color=rgb_colour(np.clip(out, 0, 1)),
                     fill_opacity=1)
        big.next_to(legend, DOWN, buff=0.4).align_to(legend, LEFT)
        # under the patch: y, the column's product, as the sum of the red values it weighs over their count
        values = [tex_number(float(pix[i, 0]), 2, pad=True) for i in lit_rows]
        rows_tex = [" + ".join(values[q:q + cols_of(len(values))])
                    for q in range(0, len(values), cols_of(len(values)))]
        summed = r"\begin{array}{c}" + r" \\ +\ ".join(rows_tex) + r"\end{array}"
        total = rf"y = \dfrac{{{summed}}}{{{weight.denominator}}}" if weight.numerator == 1 else \
            rf"y = {tex_number(weight, 3, fractions=True)}\left({summed}\right)"
        average = MathTex(total, "=", tex_number(float(out[0]), 2, pad=True), font_size=34)
        average.next_to(pic, DOWN, buff=0.45).align_to(pic, LEFT)
        if average.get_right()[0] > x_col.get_left()[0] - 0.3:
            average.scale_to_fit_width(x_col.get_left()[0] - 0.3 - average.get_left()[0])
        cell = pic.height / rows
        hit = Square(cell, color=palette.FOCUS, stroke_width=4).move_to(cell_at(pic, rows, j // cols, j % cols))
        return _Product(pic, hit, x_row, x_tag, grid, band, x_col, y_row, column, legend, y_cell, big, average,
                        window, j, values)

    def _play_product(self, v: _Product, **probes) -> None:
        lit = [i for i in range(len(v.x_col)) if v.window[i, v.j]]
        with self.beat("blur_say", focus=v.average, count=len(lit)) as sentence:
            sum_at = self.cue_at(sentence, 0.62)[0]     # "... adds up its 9 neighbours and divides by 9 ..."
            self.play(FadeIn(v.patch), FadeIn(v.x_tag), run_time=0.5)
            # flatten: each pixel of the patch goes to its place in the long row
            rows, cols = v.patch.source.shape[:2]
            self.play(*[FadeIn(cell, target_position=cell_at(v.patch, rows, i // cols, i % cols), scale=0.5)
                        for i, cell in enumerate(v.x_row)], run_time=0.9)
            self.play(FadeIn(v.grid), FadeIn(v.y_row), run_time=0.5)
            self.play(FadeIn(v.band), FadeIn(v.legend), run_time=0.6)
            # x tips over beside A: pixel i meets row i
            self.play(TransformFromCopy(v.x_row, v.x_col), run_time=0.8)
            self.wait_until(sum_at, VGroup(v.grid, v.band))
            self.play(FadeIn(v.column), FadeIn(v.patch_hit), run_time=0.5)
            # the pixels the column's weights touch go into it, then down into the output cell, summed over 9
            movers = [v.x_col[i].copy() for i in lit]
            self.play(*[m_.animate.move_to([v.column.get_center()[0], v.x_col[i].get_center()[1], 0])
                        for m_, i in zip(movers, lit)], run_time=0.8)
            self.play(*[m_.animate.move_to(v.y_row[v.j]).scale(0.6) for m_ in movers], Write(v.average[0]),
                      run_time=1.0)
            self.remove(*movers)
            self.add(v.y_cell)
            self.play(FadeIn(v.average[1:]), TransformFromCopy(v.y_cell, v.big), run_time=0.6)
            weight = Fraction(float(v.window[lit[0], v.j])).limit_denominator(4096)     # as the legend shows it
            self.describe("describe_blur", weight=weight, count=len(lit), values=[float(t) for t in v.values],
                          y=float(v.average[2].tex_string), places=2, fractions=True)
            self.key_moment("blur", window=v.window, j=v.j,
                            lit_cells=self._lit_cells(v), column_at=v.column.get_center()[0],
                            values=v.values, average=v.average[0].tex_string, digits_px=digits_px(self.mobjects),
                            y_shown=v.average[2].tex_string.strip(), y_colour=drawn_colour(v.y_cell),
                            big_colour=drawn_colour(v.big), patch=v.patch.source, **probes)

    @staticmethod
    def _lit_cells(v: _Product) -> set[tuple[int, int]]:
        """The (row, column) cells of A's window drawn lit, read from where the band's squares are."""
        k, m = v.window.shape
        ul = np.array([min(v.grid.get_left()[0] if len(v.grid.points) else 1e9, v.band.get_left()[0]),
                       max(v.grid.get_top()[1] if len(v.grid.points) else -1e9, v.band.get_top()[1]), 0])
        ch = v.x_col[0].height
        cw = v.y_row[0].width
        cells = set()
        for path in v.band.get_subpaths():
            mid = path.mean(axis=0)
            cells.add((int((ul[1] - mid[1]) / ch), int((mid[0] - ul[0]) / cw)))
        return cells

    # --- grey-scale: the colour cube collapses onto its diagonal -------------
    def _cube(self, img: np.ndarray) -> None:
        lang = self.lang
        G = qm.grayscale()
        cube = ColourCube(picture_colours(img), origin=CUBE_ORIGIN, size=CUBE_SIZE, view=CUBE_VIEW)
        # the cube as it was, faint, with its axes named: the reference the collapse is seen against
        ghost = VGroup(*[DashedLine(cube.point(CORNERS[i]), cube.point(CORNERS[j]), dash_length=0.08)
                         for i, j in EDGES]).set_stroke(palette.MUTED, 2, opacity=0.6)
        axis_names = VGroup()
        for rgb, name in ((CORNERS[4], "r"), (CORNERS[2], "g"), (CORNERS[1], "b")):
            tip = cube.point(rgb)
            away = tip - cube.point(np.full(3, 0.5))
            away[2] = 0
            axis_names.add(MathTex(name, font_size=40, color=rgb_colour(0.5 * rgb + 0.5))
                           .move_to(tip + 0.45 * away / np.linalg.norm(away)))
        diagonal = DashedLine(cube.point(CORNERS[0]), cube.point(CORNERS[7]), dash_length=0.12)
        diagonal.set_stroke(palette.AREA, 4)
        heading = text(self.tr("cube"), lang, size=28, color=palette.INK)
        # above everything the cube reaches as it swings (its corners and axis names at every angle)
        swept = ghost.copy()
        for t in np.linspace(0, 1, 25):
            view = cube_view(-70, -30 + cube_swing(t))
            swept.add(*[Dot(CUBE_ORIGIN + CUBE_SIZE * np.asarray(rgb, dtype=float) @ view, radius=0.12)
                        for rgb in CORNERS])
        heading.next_to(VGroup(swept, axis_names), UP, buff=0.2)
        if heading.get_left()[0] < -config.frame_width / 2 + MARGIN:
            heading.to_edge(LEFT, buff=MARGIN)
        axis_tag = VGroup(text(self.tr("grey_axis"), lang, size=24, color=palette.AREA),
                          MathTex("r = g = b", font_size=34, color=palette.AREA)).arrange(RIGHT, buff=0.15)
        axis_tag.next_to(cube.point(CORNERS[7]), RIGHT, buff=0.35)

        # the matrix and what it does, in the right-hand column
        W = matrix_mob(G, font_size=36, digits=3)
        w_eq = VGroup(MathTex("W =", font_size=40), W).arrange(RIGHT, buff=0.2)
        rank_note = text(self.tr("gray_rank", rank=qm.rank(G)), lang, size=26, color=palette.AREA)
        flat_note = note(self.tr("flat_note"), lang, width=5.0)
        column = VGroup(w_eq, rank_note, flat_note).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        column.to_edge(RIGHT, buff=MARGIN).align_to([0, 0.7, 0], UP)
        # the photo beside its colours; it turns grey as the cube collapses
        photo = picture(img, 1.9, PIC_W).to_edge(RIGHT, buff=MARGIN).align_to([0, PIC_TOP, 0], UP)
        grey = picture(qm.apply_color(img, G).image, 1.9, PIC_W).move_to(photo)
        grey.set_opacity(0.0)

        def collapse(m: ColourCube, t: float) -> None:
            m.show((1 - t) * np.eye(3) + t * G)
            grey.set_opacity(t)

        def positions(group: VGroup) -> np.ndarray:
            return np.array([d.get_center() for d in group])

        def colours(group: VGroup) -> np.ndarray:
            return np.array([d.get_fill_color().to_rgb() for d in group])

        for d in cube.inner:   # the picture's colours, big enough to tell apart
            d.scale(1.5)

        def turn(m: ColourCube, t: float) -> None:
            m.view = cube_view(-70, -30 + cube_swing(t)) if t < 1 else CUBE_VIEW
            m.show(np.eye(3))

        with self.beat("cube_say", focus=cube.inner):
            self.play(FadeIn(heading), FadeIn(photo), run_time=0.6)
            self.add(grey)
            self.play(FadeIn(cube.edges), FadeIn(cube.corners), run_time=0.6)
            self.play(FadeIn(cube.inner, lag_ratio=0.05), run_time=0.8)
            self.play(UpdateFromAlphaFunc(cube, turn), run_time=2.4)
            # the cube as it stands, named and outlined: what the collapse is seen against
            self.play(FadeIn(ghost), FadeIn(axis_names), run_time=0.6)
            self.describe("describe_cube", count=len(cube.inner))
        self.key_moment("cube", dot_radius=cube.inner[0].width / 2, heading=bounds(heading),
                        corners=positions(cube.corners), corner_colours=colours(cube.corners),
                        inner=positions(cube.inner), inner_colours=colours(cube.inner))
        with self.beat("collapse_say", focus=cube):
            self.play(FadeIn(w_eq), Write(diagonal), FadeIn(axis_tag), run_time=1.0)
            # straight from I to W: every point moves along rgb @ ((1 - t) I + t W)
            self.play(UpdateFromAlphaFunc(cube, collapse), run_time=3.0)
            self.remove(photo)   # the grey photo now covers it
            self.play(FadeIn(rank_note), run_time=0.6)
            self.play(FadeIn(flat_note), run_time=0.6)
            self.describe("describe_collapse", W=G, rank=qm.rank(G))
        self.key_moment("collapsed", corners=positions(cube.corners), corner_colours=colours(cube.corners),
                        inner=positions(cube.inner), inner_colours=colours(cube.inner),
                        W=[[e.get_tex_string() for e in row] for row in W.get_rows()], grey=grey.source)
        self.play(FadeOut(Group(cube, ghost, axis_names, diagonal, heading, axis_tag, column, photo, grey)),
                  run_time=0.6)

    # --- the same photo through three filters: query, key, value -------------
    def _qkv(self, img: np.ndarray, heading: Mobject) -> None:
        p, lang = self.params, self.lang
        h, w, _ = img.shape
        # the one source photo at the top, an arrow from it to each filtered copy
        source = picture(img, 1.45, 3.0)
        src_cap = note(self.tr("original", h=h, w=w), lang, width=3.4)
        source.move_to([0, heading.get_bottom()[1] - 0.2 - source.height / 2, 0])
        src_cap.next_to(source, RIGHT, buff=0.3)
        trio = Group()
        results = {}
        # the colours of ThreeLenses' three views: gold, teal and coral are Q, K and V's, from scene 7 on
        for (key, M), colour in zip((("query", p.query_filter), ("key", p.key_filter),
                                     ("value", p.value_filter)), palette.LENSES):
            res = qm.apply_color(img, np.array(M, dtype=float))
            results[key] = res
            pic = picture(res.image, 2.6, 3.9)
            label = text(self.tr(f"{key}_filter"), lang, size=26, color=colour)
            frame = SurroundingRectangle(pic, color=colour, buff=0.04)
            parts = [label, Group(pic, frame)]
            if res.clipped:   # said only where a filter clips: on lines no wider than a picture may be
                clip = note(self.tr("clipped", n=res.clipped), lang, color=palette.ALERT)
                if clip.width > 3.9:
                    clip = note(self.tr("clipped", n=res.clipped), lang, color=palette.ALERT, width=3.9)
                parts.append(clip)
            trio.add(Group(*parts).arrange(DOWN, buff=0.15))
        # the arrows leave under the source and its caption (a wide, low picture has a caption taller than it)
        foot = np.array([source.get_center()[0], min(source.get_bottom()[1], src_cap.get_bottom()[1]) - 0.05, 0])
        top = foot[1] - 0.9
        trio.arrange(RIGHT, buff=0.6, aligned_edge=UP).align_to([0, top, 0], UP)
        over = -2.95 - trio.get_bottom()[1]     # clipped counts under the pictures: keep out of the subtitle band
        if over > 0:
            for t in trio:                      # the pictures shrink, never the words
                t[1].scale((t[1].height - over) / t[1].height)
                t.arrange(DOWN, buff=0.15)
            trio.arrange(RIGHT, buff=0.6, aligned_edge=UP).align_to([0, top, 0], UP)
        trio.move_to([0, trio.get_center()[1], 0])
        arrows, tags = VGroup(), VGroup()
        for t, sub, colour in zip(trio, "123", palette.LENSES):
            arrow = Arrow(foot, t[0].get_top() + 0.05 * UP, buff=0, color=colour,
                          stroke_width=4, max_tip_length_to_length_ratio=0.25)
            arrows.add(arrow)
            tag = MathTex(rf"\times W_{sub}", font_size=32, color=colour)
            v = arrow.get_vector()
            normal = np.array([-v[1], v[0], 0.0]) / np.linalg.norm(v)
            if abs(normal[1]) < 0.2:          # the upright arrow: its name on the right
                normal = RIGHT
            elif normal[1] > 0:               # a slanted one: its name under it, clear of the caption
                normal = -normal
            mid = (arrow.get_start() + arrow.get_end()) / 2
            tag.move_to(mid + normal * (0.12 + 0.5 * abs(np.dot(normal, [tag.width, tag.height, 0]))))
            tags.add(tag)
        with self.beat("qkv_say", focus=trio[-1][0]) as sentence:
            self.play(FadeIn(source), FadeIn(src_cap), run_time=0.6)
            slot = (reading_seconds(sentence, lang) - 0.6) / len(trio)
            for i, t in enumerate(trio):
                # the same photo goes down each arrow and comes out filtered
                self.play(FadeIn(arrows[i]), FadeIn(tags[i]), FadeIn(Group(*t[:1], t[1][1], *t[2:])),
                          TransformFromCopy(source, t[1][0]), run_time=1.0)
                if i < len(trio) - 1 and slot > 1.0:
                    self.wait(slot - 1.0)
            self.describe("describe_qkv", h=h, w=w)
            for key, res in results.items():     # each picture by its average colour (what it looks like)
                self.describe("describe_qkv_picture", name=self.tr(f"{key}_filter"),
                              rgb=res.image.reshape(-1, 3).mean(axis=0), places=2)
                if res.clipped:
                    self.describe("describe_tile_clip", n=res.clipped)
        self.key_moment("qkv", images={k: t[1][0].source for k, t in zip(results, trio)},
                        clipped={k: r.clipped for k, r in results.items()}, source=source.source,
                        source_shown=source in self.mobjects and all(t[1][0] in self.mobjects for t in trio),
                        arrows=[(a.get_start(), a.get_end()) for a in arrows],
                        source_bottom=source.get_bottom(), labels_top=[t[0].get_top() for t in trio])
        # the photo is x, the filters three fixed matrices: x W_1, x W_2, x W_3
        rules = MathTex(r"x\,W_1", r",\ ", r"x\,W_2", r",\ ", r"x\,W_3", font_size=40)
        for part, colour in zip(rules[::2], palette.LENSES):
            part.set_color(colour)
        rules.move_to(src_cap, aligned_edge=LEFT)
        x_tag = MathTex("x", font_size=40).next_to(source, LEFT, buff=0.25)
        with self.beat("outro_say", focus=rules):
            self.play(FadeOut(src_cap), FadeIn(x_tag), FadeIn(rules), *[Emphasize(m) for m in tags], run_time=1.2)
            self.describe("describe_outro")
        self.key_moment("end", rules=[m.tex_string for m in rules[::2]], x_tag=x_tag.tex_string)
