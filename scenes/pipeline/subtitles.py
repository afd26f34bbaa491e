"""Subtitles: manim writes .srt from add_subcaption; browsers need WebVTT."""
from __future__ import annotations

import re

_TIME = re.compile(r"(\d+):(\d\d):(\d\d),(\d\d\d)")


def srt_to_vtt(srt: str) -> str:
    """Convert SubRip text to WebVTT: a header, cue numbers dropped, and
    ``00:00:01,500`` times written ``00:00:01.500``."""
    blocks = [b for b in re.split(r"\r?\n\s*\r?\n", srt.strip()) if b.strip()]
    out = ["WEBVTT", ""]
    for block in blocks:
        lines = block.splitlines()
        if lines and lines[0].strip().isdigit():
            lines = lines[1:]
        if not lines or "-->" not in lines[0]:
            raise ValueError(f"not an SRT cue: {block!r}")
        out.append(_TIME.sub(r"\1:\2:\3.\4", lines[0].strip()))
        out.extend(lines[1:])
        out.append("")
    return "\n".join(out)


def cue_times(text: str) -> list[tuple[float, float]]:
    """(start, end) seconds of every cue in SRT or VTT text."""
    stamp = r"(\d+):(\d\d):(\d\d)[,.](\d\d\d)"
    found = re.findall(stamp + r"\s*-->\s*" + stamp, text)
    sec = lambda h, m, s, ms: int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000
    return [(sec(*f[:4]), sec(*f[4:])) for f in found]
