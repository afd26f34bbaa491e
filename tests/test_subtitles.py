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


# narration that WebVTT would read as tags, entities or a timing line, each a cue (start, end in ms)
NARRATION = [
    (0, 1500, "a<b: 1 < 2 & 3 > 2"),
    (1500, 3000, "x --> y"),
    (3000, 4000, "-->"),
    (4000, 5000, "<c.red>tag</c> <v Bob>hi</v> &amp; &lt; &nbsp;"),
    (5000, 6000, "W_Q · √d_k, 中文\nthe second line"),
]


def subrip(cues) -> str:
    def t(ms: int) -> str:
        return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"
    return "".join(f"{i}\n{t(a)} --> {t(b)}\n{text}\n\n" for i, (a, b, text) in enumerate(cues, 1))


def test_the_webvtt_shows_the_narration_as_written():
    """Read by an independent WebVTT parser, every cue is its narration,
    character for character: nothing taken for a tag, an entity or a timing line."""
    from tests.helpers import srt_cues, vtt_cues
    text = subrip(NARRATION)
    assert srt_cues(text) == NARRATION            # the SubRip says it (the reference reads it so)
    assert vtt_cues(srt_to_vtt(text)) == NARRATION


def test_a_blank_line_in_a_cue_neither_ends_it_nor_forges_one():
    from tests.helpers import vtt_cues
    text = "1\n00:00:00,000 --> 00:00:01,000\nfirst\n\nx\n00:00:00.000 --> 01:00:00.000\nforged\n"
    assert vtt_cues(srt_to_vtt(text)) == [(0, 1000, "first\nx\n00:00:00.000 --> 01:00:00.000\nforged")]


def test_chapter_titles_are_text_in_webvtt():
    from fractions import Fraction

    from qkv_lens.app.export import chapters_vtt
    from tests.helpers import vtt_cues
    titles = ["<b>Space</b> & shadows", "Q --> K", "a < b > c"]
    vtt = chapters_vtt(titles, [Fraction(0), Fraction(3, 2), Fraction(4), Fraction(6)])
    assert vtt_cues(vtt) == [(0, 1500, titles[0]), (1500, 4000, titles[1]), (4000, 6000, titles[2])]
