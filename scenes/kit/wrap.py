"""Line wrapping of Pango text to a width (Chinese by character, English by word)."""
from __future__ import annotations

import re

from manim import DOWN, LEFT, ParsableManimColor, VGroup

from .displays import text

_CJK_BREAK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
_NO_LINE_START = set("，。、；：！？）」』》,.;:!?)]")


def _tokens(content: str, lang: str) -> list[str]:
    if lang != "zh":
        return content.split(" ")
    tokens: list[str] = []
    word = ""
    for ch in content:
        if _CJK_BREAK.match(ch):
            if word:
                tokens.append(word)
                word = ""
            if ch in _NO_LINE_START and tokens:
                tokens[-1] += ch
            else:
                tokens.append(ch)
        else:
            word += ch
    if word:
        tokens.append(word)
    return tokens


def wrap_lines(content: str, lang: str, size: float, width: float) -> list[str]:
    """Split ``content`` into lines whose rendered width is at most ``width``."""
    sep = "" if lang == "zh" else " "
    lines: list[str] = []
    line = ""
    for tok in _tokens(content, lang):
        candidate = (line + sep + tok) if line and not (lang == "zh" and tok == " ") else line + tok
        if line and text(candidate.strip(), lang, size=size).width > width:
            lines.append(line.strip())
            line = tok
        else:
            line = candidate
    if line.strip():
        lines.append(line.strip())
    return lines


def wrapped_text(content: str, lang: str, size: float = 24, width: float = 5.0,
                 color: ParsableManimColor | None = None, line_buff: float = 0.12) -> VGroup:
    """``content`` as left-aligned lines no wider than ``width`` (a VGroup of Text)."""
    kw = {} if color is None else {"color": color}
    lines = [text(l, lang, size=size, **kw) for l in wrap_lines(content, lang, size, width)]
    return VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=line_buff)
