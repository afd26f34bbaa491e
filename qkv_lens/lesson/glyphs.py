"""Which characters a scene can draw: the names of a lesson are drawn by
Pango (manim's ``Text``), which takes each character from the scene's font
or, failing that, from any installed font that has it (fontconfig).  A
character no installed font has comes out as a box of hex digits, and
manim's ``Text`` drops right-to-left runs (Hebrew, Arabic) altogether, so
both are refused when the lesson is read, naming the characters.

The installed fonts' characters are read once per process from
``fc-list`` (about 0.05 s, ``qkv_lens.languages.has_glyph``); without
fontconfig nothing is refused here.
"""
from __future__ import annotations

import unicodedata

from qkv_lens.languages import has_glyph

# Bidirectional classes of right-to-left letters and marks (Unicode UAX #9).
RTL = frozenset({"R", "AL", "RLE", "RLO", "RLI"})


def _label(ch: str) -> str:
    return f"U+{ord(ch):04X} {ch!r}"


def undrawable(text: str) -> str:
    """Why ``text`` cannot be drawn as a name ("" when it can): the
    right-to-left characters it holds, or those no installed font has."""
    if text.isascii():
        return ""             # every font of the lesson (and DejaVu, always installed with manim) has these
    rtl = [ch for ch in dict.fromkeys(text) if unicodedata.bidirectional(ch) in RTL]
    if rtl:
        return (f"right-to-left letters ({', '.join(map(_label, rtl[:4]))}), which manim's Text does not "
                "lay out")
    missing = [ch for ch in dict.fromkeys(text) if not ch.isspace() and not has_glyph(ch)]
    if missing:
        first = f"{ord(missing[0]):x}"
        return (f"characters no installed font has ({', '.join(map(_label, missing[:4]))}); install a font "
                f"that has them (fc-list ':charset={first}' lists the fonts that do)")
    return ""
