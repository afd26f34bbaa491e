"""Subtitles: SubRip from the scenes, WebVTT for browsers."""

import pytest

from qkv_lens.app.subtitles import cue_times, srt_to_vtt

SRT = """1
00:00:00,000 --> 00:00:02,500
第一句

2
00:00:02,500 --> 00:01:03,040
Second line
continues here
"""


def test_srt_to_vtt():
    vtt = srt_to_vtt(SRT)
    assert vtt.startswith("WEBVTT\n\n")
    assert "00:00:00.000 --> 00:00:02.500\n第一句\n" in vtt
    assert "00:00:02.500 --> 00:01:03.040\nSecond line\ncontinues here\n" in vtt
    assert "\n1\n" not in vtt and "\n2\n" not in vtt
    assert cue_times(SRT) == [(0.0, 2.5), (2.5, 63.04)]


def test_srt_to_vtt_refuses_garbage():
    with pytest.raises(ValueError):
        srt_to_vtt("1\nnot a time line\ntext\n")
