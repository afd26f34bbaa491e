"""Text in the lesson's font: ``text``, a scene's ``title``, a ``note``,
lines wrapped to a width (``wrapped_text``, with the subtitles' rules: never
inside a word, number or formula, dearer inside a Chinese term, no line of a
single character such as "上。"), and the dark outline behind labels."""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from manim import DOWN, LEFT, UL, ManimColor, Mobject, ParsableManimColor, Text, VGroup

from qkv_lens.cues import fit_lines
from qkv_lens.languages import font_for

from . import palette
from .live import forget_svg_sources
from .moments import TEXT_TYPES, is_bracket

TITLE_SIZE = 32      # every scene's title: one size ...
TITLE_BUFF = 0.35    # ... in the top-left corner, this far from the frame's edges
NOTE_SIZE = 22       # every note: a small explanatory line under what it explains


OUTLINE_WIDTH = 5    # the dark outline drawn behind every label, so grid lines do not cut through it


def outline_labels(*mobjects: Mobject) -> None:
    """Give every label under ``mobjects`` (Text, MathTex, numbers, matrix
    entries, not a matrix's brackets) a dark outline behind its glyphs, in
    the background colour; labels that have one already keep theirs."""
    for sub in _text_parts(mobjects):
        if not sub.get_stroke_width(background=True):
            sub.set_stroke(palette.BACKGROUND, width=OUTLINE_WIDTH, background=True)


def _text_parts(mobjects: Sequence[Mobject]) -> list[Mobject]:
    """The text mobjects under ``mobjects``, a matrix's brackets left out
    (a bracket is drawn in pieces: outlined, each piece would cut the next)."""
    return [sub for mob in mobjects for sub in mob.get_family()
            if isinstance(sub, TEXT_TYPES) and not is_bracket(sub)]


TEXTS_KEPT = 1024    # typeset texts kept to copy (a Text is ~10x dearer to typeset than to copy)
_typeset: dict[tuple, Text] = {}


def text(content: str, lang: str, size: float = 28, color: ParsableManimColor = palette.INK,
         **kw: Any) -> Text:
    """A Pango Text in the lesson font for ``lang`` (CJK-capable): a copy of the
    one typeset first with the same content, font, size, colour and options
    (a scene shows the same names and read-outs again and again)."""
    font = font_for(lang)
    try:
        key = (content, font, float(size), ManimColor(color).to_hex(with_alpha=True), tuple(sorted(kw.items())))
        hash(key)
    except (TypeError, ValueError):     # an option that cannot be a key (t2c's dict): typeset each time
        return Text(content, font=font, font_size=size, color=color, **kw)
    found = _typeset.get(key)
    if found is None:
        if len(_typeset) >= TEXTS_KEPT:
            _typeset.clear()
        found = _typeset[key] = Text(content, font=font, font_size=size, color=color, **kw)
        forget_svg_sources(found)       # no copy needs the parsed SVG again
    return found.copy()


def title(content: str, lang: str, width: float | None = None) -> Mobject:
    """A scene's title, in the top-left corner.  With ``width`` it is
    wrapped to lines no wider than that (a title over a narrow side bar)."""
    if width is None:
        mob: Mobject = text(content, lang, size=TITLE_SIZE)
    else:
        mob = wrapped_text(content, lang, size=TITLE_SIZE, width=width)
    return mob.to_corner(UL, buff=TITLE_BUFF)


def note(content: str, lang: str, color: ParsableManimColor = palette.MUTED,
         width: float | None = None) -> Mobject:
    """A note: a small explanatory line (muted unless ``color`` says
    otherwise).  With ``width`` it is wrapped to lines no wider than that (a
    VGroup of Text); without, it is one Text."""
    if width is None:
        return text(content, lang, size=NOTE_SIZE, color=color)
    return wrapped_text(content, lang, size=NOTE_SIZE, width=width, color=color)




class _Ruler:
    """Widths of pieces of ``content`` as typeset on one line: one Pango
    run, one glyph per non-space character, read off by position."""

    def __init__(self, content: str, lang: str, size: float):
        glyphs = text(content, lang, size=size).submobjects
        spots = [k for k, c in enumerate(content) if not c.isspace()]
        self.exact = len(glyphs) == len(spots)
        self.left = {k: g.get_left()[0] for k, g in zip(spots, glyphs)}
        self.right = {k: g.get_right()[0] for k, g in zip(spots, glyphs)}
        self.content, self.lang, self.size = content, lang, size

    def width(self, s: int, e: int) -> float:
        inside = [k for k in range(s, e) if k in self.left]
        if not inside:
            return 0.0
        if self.exact:
            return float(self.right[inside[-1]] - self.left[inside[0]])
        return text(self.content[s:e].strip(), self.lang, size=self.size).width  # pragma: no cover


@lru_cache(maxsize=512)
def _ruler(content: str, lang: str, size: float) -> _Ruler:
    """The ``_Ruler`` of ``content`` (typeset once: a wrap tries many widths)."""
    return _Ruler(content, lang, size)


@lru_cache(maxsize=4096)
def _typeset_width(line: str, lang: str, size: float) -> float:
    """How wide ``line`` is typeset (once for each line a wrap tries)."""
    return float(text(line, lang, size=size).width)


def _best_lines(content: str, lang: str, size: float, width: float) -> list[str]:
    """The cheapest split of ``content`` into lines of width at most ``width``
    as one Pango run measures them (``cues.fit_lines``)."""
    return fit_lines(content, lang, width, _ruler(content, lang, size).width)


def wrap_lines(content: str, lang: str, size: float, width: float) -> list[str]:
    """Split ``content`` into lines whose rendered width is at most ``width``
    (scene units): as few lines as fit, breaks where the subtitles would
    break, no orphan.  The estimate is checked on the typeset lines."""
    limit = width
    for _ in range(6):
        lines = _best_lines(content, lang, size, limit)
        if all(_typeset_width(l, lang, size) <= width + 1e-6 for l in lines if l):
            return lines
        limit *= 0.96
    return lines


def wrapped_text(content: str, lang: str, size: float = 24, width: float = 5.0,
                 color: ParsableManimColor | None = None, line_buff: float = 0.12) -> VGroup:
    """``content`` as left-aligned lines no wider than ``width`` (a VGroup of Text)."""
    kw = {} if color is None else {"color": color}
    lines = [text(l, lang, size=size, **kw) for l in wrap_lines(content, lang, size, width)]
    return VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=line_buff)
