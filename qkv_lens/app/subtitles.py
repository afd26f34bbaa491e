"""Subtitles: manim writes SubRip (.srt) from add_subcaption; browsers need
WebVTT.  Parsed and written with the ``srt`` package (a manim dependency)."""
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


def srt_to_vtt(text: str) -> str:
    """WebVTT of SubRip ``text``: a header, no cue numbers, '.' before the milliseconds."""
    out = ["WEBVTT", ""]
    for cue in cues(text):
        out += [f"{_vtt_time(cue.start)} --> {_vtt_time(cue.end)}", cue.content, ""]
    return "\n".join(out)


def cue_times(text: str) -> list[tuple[float, float]]:
    """(start, end) seconds of every cue of SubRip ``text``."""
    return [(c.start.total_seconds(), c.end.total_seconds()) for c in cues(text)]
