"""How wide a name is drawn, in letters: the width of its characters in
the lesson's font for its language (Pango draws them with the same
advances), counted in halves of a Chinese character.  An ordinary letter
is about one (i and l less, m and W nearly two), a Chinese character two.

A scene typesets a name of font size ``s`` about ``letters * s / 144``
scene units wide (an em is s / 72 units), so a limit in letters is a
limit on the room a name takes.  The fonts are found with fontconfig and
measured with Pillow (both there whenever manim is: Pango draws with
fontconfig's fonts); without them a name is counted as the generic check
counts it (a Chinese character 2, any other character 1), and a character
no font at hand has counts 2."""
from __future__ import annotations

import unicodedata
from functools import cache
from typing import Any

SIZE = 1000          # the size names are measured at (advances in thousandths of an em)
PROBE = 64           # the size a glyph is looked for at (drawing one at SIZE takes 4 ms, at PROBE 0.08)
NOT_A_CHAR = "\uffff"


@cache
def _fonts(lang: str) -> tuple[Any, ...]:
    """The lesson's font for ``lang`` and DejaVu Sans (what Pango falls back
    to for the characters the first lacks), as Pillow fonts; () without."""
    try:
        from PIL import ImageFont

        from qkv_lens.languages import font_file, font_for
    except ImportError:      # pragma: no cover - Pillow comes with manim
        return ()
    try:
        family = font_for(lang)
    except Exception:        # noqa: BLE001 - no CJK font (or no manimpango): fontconfig's choice
        family = "sans"
    fonts = []
    for name in (family, "DejaVu Sans"):
        file, index = font_file(name)
        if not file:
            continue
        try:
            fonts.append(ImageFont.truetype(file, SIZE, index=index))
        except OSError:
            continue
    return tuple(fonts)


@cache
def _probes(lang: str) -> tuple[tuple[Any, Any], ...]:
    """Each of ``_fonts(lang)`` at size PROBE, with the mask it draws for a
    character it lacks."""
    probes = []
    for font in _fonts(lang):
        small = font.font_variant(size=PROBE)
        probes.append((small, _mask(small, NOT_A_CHAR)))
    return tuple(probes)


def _mask(font: Any, ch: str) -> tuple[tuple[int, int], bytes]:
    mask = font.getmask(ch)
    return mask.size, bytes(mask)


@cache
def _font_of(ch: str, lang: str) -> Any:
    """The first font that has ``ch`` (None when none of them does)."""
    for font, (small, missing) in zip(_fonts(lang), _probes(lang)):
        if ch.isspace() or _mask(small, ch) != missing:
            return font
    return None


def letters_wide(text: str, lang: str) -> float:
    """How wide ``text`` is drawn in ``lang``'s font, in letters (half the
    width of a Chinese character; see the module's note)."""
    if not _fonts(lang):
        return float(sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text))
    total, run, run_font = 0.0, "", None
    for ch in text:
        font = _font_of(ch, lang)
        if font is None:                 # a character no font at hand has: as wide as a Chinese one
            total += 2.0
            continue
        if font is not run_font and run:
            total += run_font.getlength(run) / SIZE * 2
            run = ""
        run, run_font = run + ch, font
    if run:
        total += run_font.getlength(run) / SIZE * 2
    return total
