"""Scene 3, PhotoFilter: a projection matrix is a photo filter.

Pixels are RGB row vectors; a colour filter is a (3, 3) matrix applied to
every pixel ([r, g, b] @ M), and blur and down-sampling are linear maps on
the whole flattened picture.  Every picture shown is a ``qkv_math.filters``
result; values pushed outside [0, 1] are clipped and the count is shown.

    manim -ql scenes/photo_filter.py PhotoFilter
"""
from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    RIGHT,
    UL,
    UP,
    FadeIn,
    FadeOut,
    Group,
    ImageMobject,
    MathTex,
    Rectangle,
    SurroundingRectangle,
    VGroup,
    Write,
)
from manim.constants import RESAMPLING_ALGORITHMS

import qkv_math as qm
from scenes.kit import palette
from scenes.kit.displays import matrix_mob, note, text, title
from scenes.kit.numbers import plain_number
from scenes.kit.scene import LessonScene
from scenes.kit.wrap import wrapped_text


def picture(image: np.ndarray, height: float) -> ImageMobject:
    """An (h, w, 3) array in [0, 1] as a crisp (nearest-neighbour) image."""
    rgb = np.round(np.clip(image, 0, 1) * 255).astype(np.uint8)
    alpha = np.full(rgb.shape[:2] + (1,), 255, dtype=np.uint8)
    mob = ImageMobject(np.concatenate([rgb, alpha], axis=2))
    mob.set_resampling_algorithm(RESAMPLING_ALGORITHMS["nearest"])
    mob.height = height
    mob.source = image
    return mob


class PhotoFilter(LessonScene):
    def construct(self):
        p, lang = self.params, self.lang
        img = np.asarray(p.picture, dtype=float)
        h, w, _ = img.shape
        r, c = p.pixel
        tint = qm.warm_tint(float(p.tint_strength))

        heading = title(self.tr("title"), lang)
        original = picture(img, 3.0).move_to([-4.3, 0.4, 0])
        cap = note(self.tr("original", h=h, w=w), lang)
        cap.next_to(original, DOWN, buff=0.15)
        with self.narration("intro_say", n=h * w):
            self.play(Write(heading), FadeIn(original), FadeIn(cap), run_time=1.2)

        # one pixel worked out: [r g b] @ W = [r' g' b']
        px = img[r, c]
        out = px @ tint
        cell = original.height / h
        mark = Rectangle(width=cell, height=cell, color=palette.AREA, stroke_width=4).move_to(
            original.get_corner(UL) + np.array([(c + 0.5) * cell, -(r + 0.5) * cell, 0]))
        row_in = matrix_mob([px], font_size=36, digits=2)
        row_out = matrix_mob([out], font_size=36, digits=2)
        W = matrix_mob(tint, font_size=36, digits=2)
        eq = VGroup(row_in, MathTex(r"\times", font_size=40), W, MathTex("=", font_size=40), row_out)
        eq.arrange(RIGHT, buff=0.2)
        room = 6.9 - (original.get_right()[0] + 0.3)
        if eq.width > room:
            eq.scale_to_fit_width(room)
        eq.move_to([original.get_right()[0] + 0.3 + room / 2, 1.2, 0])
        names = note(self.tr("pixel", r=r, c=c), lang, color=palette.AREA).next_to(eq, UP, buff=0.3)
        tinted = qm.apply_color(img, tint)
        recoloured = picture(tinted.image, 2.4).next_to(eq, DOWN, buff=0.5)
        rcap = note(self.tr("tinted", clipped=tinted.clipped), lang)
        rcap.next_to(recoloured, DOWN, buff=0.15)
        with self.narration("pixel_say"):
            self.play(FadeIn(mark), FadeIn(names), run_time=0.6)
            self.play(FadeIn(eq), run_time=1.2)
            self.play(FadeIn(recoloured), FadeIn(rcap), run_time=1.0)
        self.key_moment("pixel", pixel=px, shown_in=[e.get_tex_string() for e in row_in.get_entries()],
                        shown_out=[e.get_tex_string() for e in row_out.get_entries()],
                        tinted=recoloured.source, clipped=tinted.clipped)
        self.play(FadeOut(Group(mark, names, eq, recoloured, rcap)), run_time=0.6)

        # four more filters, all linear
        f, k = p.downsample, float(p.darken_factor)
        filters = [
            ("darken", qm.apply_color(img, qm.darken(k)), {"k": plain_number(k, 2, pad=True)}),
            ("gray", qm.apply_color(img, qm.grayscale()), {"rank": qm.rank(qm.grayscale())}),
            ("blur", qm.apply_spatial(img, qm.blur_matrix(h, w), (h, w)), {}),
            ("down", qm.apply_spatial(img, qm.downsample_matrix(h, w, f), (h // f, w // f)),
             {"h": h // f, "w": w // f}),
        ]
        tiles = Group()
        for key, res, fields in filters:
            pic = picture(res.image, 1.9)
            label = wrapped_text(self.tr(key, **fields), lang, size=20, width=2.7, color=palette.INK)
            clip = note(self.tr("clipped", n=res.clipped), lang,
                        color=palette.ALERT if res.clipped else palette.MUTED)
            tiles.add(Group(pic, VGroup(label, clip).arrange(DOWN, buff=0.08)).arrange(DOWN, buff=0.15))
        tiles.arrange_in_grid(rows=2, cols=2, buff=(0.5, 0.35))
        room = heading.get_bottom()[1] - 0.25 + 3.9
        if tiles.height > room:
            tiles.scale_to_fit_height(room)
        tiles.move_to([2.6, 0, 0]).align_to(heading.get_bottom() + 0.25 * DOWN, UP)
        with self.narration("filters_say"):
            for tile in tiles:
                self.play(FadeIn(tile), run_time=0.8)
        self.key_moment("filters", images={k: t[0].source for (k, _, _), t in zip(filters, tiles)},
                        clipped={k: res.clipped for k, res, _ in filters})
        self.play(FadeOut(tiles), FadeOut(original), FadeOut(cap), run_time=0.6)

        # the same photo through three filters: query, key, value
        trio = Group()
        colours = palette.QKV.values()
        results = {}
        for (key, M), colour in zip((("query", p.query_filter), ("key", p.key_filter),
                                     ("value", p.value_filter)), colours):
            res = qm.apply_color(img, np.array(M, dtype=float))
            results[key] = res
            pic = picture(res.image, 2.6)
            label = text(self.tr(f"{key}_filter"), lang, size=26, color=colour)
            clip = note(self.tr("clipped", n=res.clipped), lang,
                        color=palette.ALERT if res.clipped else palette.MUTED)
            frame = SurroundingRectangle(pic, color=colour, buff=0.04)
            trio.add(Group(label, Group(pic, frame), clip).arrange(DOWN, buff=0.2))
        trio.arrange(RIGHT, buff=0.6).move_to([0, -0.3, 0])
        with self.narration("qkv_say"):
            for t in trio:
                self.play(FadeIn(t), run_time=0.8)
            self.wait(0.5)
        self.key_moment("qkv", images={k: t[1][0].source for k, t in zip(results, trio)},
                        clipped={k: r.clipped for k, r in results.items()})
        with self.narration("outro_say"):
            self.wait(0.5)
        self.key_moment("end")
