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
    Indicate,
    MathTex,
    Rectangle,
    SurroundingRectangle,
    VGroup,
    Write,
    config,
)
from manim.constants import RESAMPLING_ALGORITHMS

import qkv_math as qm
from qkv_lens.cues import reading_seconds
from scenes.kit import palette
from scenes.kit.displays import matrix_mob, note, text, title
from scenes.kit.numbers import plain_number
from scenes.kit.scene import LessonScene
from scenes.kit.wrap import wrap_lines, wrapped_text


def picture(image: np.ndarray, height: float) -> ImageMobject:
    """An (h, w, 3) array in [0, 1] as a crisp (nearest-neighbour) image."""
    rgb = np.round(np.clip(image, 0, 1) * 255).astype(np.uint8)
    alpha = np.full(rgb.shape[:2] + (1,), 255, dtype=np.uint8)
    mob = ImageMobject(np.concatenate([rgb, alpha], axis=2))
    mob.set_resampling_algorithm(RESAMPLING_ALGORITHMS["nearest"])
    mob.height = height
    mob.source = image
    return mob


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
        with self.beat("intro_say", focus=cap, n=h * w):
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
        with self.beat("pixel_say", focus=eq):
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
        def make_tiles(height: float) -> Group:
            tiles = Group()
            for key, res, fields in filters:
                pic = picture(res.image, height)
                label = balanced_text(self.tr(key, **fields), lang, 20, 3.9, palette.INK)
                clip = note(self.tr("clipped", n=res.clipped), lang,
                            color=palette.ALERT if res.clipped else palette.MUTED)
                tiles.add(Group(pic, VGroup(label, clip).arrange(DOWN, buff=0.08)).arrange(DOWN, buff=0.15))
            return tiles.arrange_in_grid(rows=2, cols=2, buff=(0.4, 0.3), row_alignments="uu")

        # the tiles go right of the original, between the title and the subtitle band;
        # when they are too tall the pictures shrink, not the captions
        top = heading.get_bottom()[1] - 0.25
        room = top - (-config.frame_height / 2 + 0.12 * config.frame_height + 0.1)
        left = max(original.get_right()[0], cap.get_right()[0]) + 0.35
        right = config.frame_width / 2 - 0.15
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
        trio.arrange(RIGHT, buff=0.6).move_to([0, -0.1, 0])
        with self.beat("qkv_say", focus=trio[-1][0]) as sentence:
            slot = reading_seconds(sentence, lang) / len(trio)
            for i, t in enumerate(trio):
                self.play(FadeIn(t), run_time=0.8)
                if i < len(trio) - 1 and slot > 0.8:
                    self.wait(slot - 0.8)
        self.key_moment("qkv", images={k: t[1][0].source for k, t in zip(results, trio)},
                        clipped={k: r.clipped for k, r in results.items()})
        with self.beat("outro_say"):
            # the three filters' names: one fixed rule each
            self.play(*[Indicate(t[0], scale_factor=1.06, color=palette.AREA) for t in trio], run_time=1.2)
        self.key_moment("end")
