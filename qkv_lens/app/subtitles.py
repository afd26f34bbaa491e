"""Subtitles: manim writes SubRip (.srt) from add_subcaption; browsers need
WebVTT.  Parsed and written with the ``srt`` package (a manim dependency).
A cue's text is a lesson's text, so WebVTT gets it escaped (``cue_text``)."""
from __future__ import annotations

from datetime import timedelta

import srt


def cues(text: str) -> list[srt.Subtitle]:
    """The cues of SubRip ``text``; ValueError if it is not SubRip."""
    try:
        return list(srt.parse(text, ignore_errors=False))
    except srt.SRTParseError as err:
        raise ValueError(f"not SubRip subtitles: {err}") from None


def _vtt_time(t: timedelta) -> str:
    # SubRip writes 00:00:01,500; WebVTT 00:00:01.500
    return srt.timedelta_to_srt_timestamp(t).replace(",", ".")


def cue_text(text: str) -> str:
    """``text`` as WebVTT cue text, read back as written: ``&``, ``<`` and
    ``>`` as character references (so nothing in it is a tag, a reference
    or ``-->``), and no blank line (which would end the cue)."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "\n".join(line for line in escaped.replace("\r", "\n").split("\n") if line.strip())


def srt_to_vtt(text: str) -> str:
    """WebVTT of SubRip ``text``: a header, no cue numbers, '.' before the
    milliseconds, each cue's text as text (``cue_text``)."""
    out = ["WEBVTT", ""]
    for cue in cues(text):
        out += [f"{_vtt_time(cue.start)} --> {_vtt_time(cue.end)}", cue_text(cue.content), ""]
    return "\n".join(out)


def cue_times(text: str) -> list[tuple[float, float]]:
    """(start, end) seconds of every cue of SubRip ``text``."""
    return [(c.start.total_seconds(), c.end.total_seconds()) for c in cues(text)]
