"""The tracks of a joined mp4 (``qkv-lens export``): a clip's sound as
float samples, an AAC track written in pieces as the clips come, and the
subtitles as mov_text tracks, each packet timed for muxing."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import srt

from qkv_lens.languages import language

AUDIO_FRAME = 1024   # samples per AAC frame


def clip_sound(video: Path, has_audio: bool, rate: int, layout: str) -> Iterator:
    """``video``'s sound as float planar arrays at ``rate``/``layout`` (nothing if it has none)."""
    if not has_audio:
        return
    import av
    with av.open(str(video)) as c:
        resampler = av.AudioResampler(format="fltp", layout=layout, rate=rate)
        for frame in c.decode(c.streams.audio[0]):
            for f in resampler.resample(frame):
                yield f.to_ndarray()
        for f in resampler.resample(None):
            yield f.to_ndarray()


class AudioOut:
    """One AAC track written in AUDIO_FRAME pieces, each clip's samples
    handed on as they come (``add``), timed for muxing."""

    def __init__(self, stream: Any, rate: int, channels: int, layout: str):
        import numpy as np

        self.stream, self.rate, self.layout = stream, rate, layout
        self.pending = np.zeros((channels, 0), np.float32)
        self.written = 0

    def add(self, samples: Any, last: bool) -> list[tuple[Fraction, int, Any]]:
        import av
        import numpy as np

        self.pending = np.ascontiguousarray(np.concatenate([self.pending, samples], axis=1), dtype=np.float32)
        timed = []
        while self.pending.shape[1] >= AUDIO_FRAME or (last and self.pending.shape[1]):
            n = min(AUDIO_FRAME, self.pending.shape[1])
            frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(self.pending[:, :n]), format="fltp",
                                               layout=self.layout)
            frame.sample_rate, frame.pts = self.rate, self.written
            self.written += n
            self.pending = self.pending[:, n:]
            timed += [(Fraction(packet.pts or 0, self.rate), 1, packet) for packet in self.stream.encode(frame)]
        if last:
            timed += [(Fraction(packet.pts or 0, self.rate), 1, packet) for packet in self.stream.encode(None)]
        return timed


ASS_HEADER = ("[Script Info]\nScriptType: v4.00+\nPlayResX: 384\nPlayResY: 288\n\n[V4+ Styles]\n"
              "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, "
              "Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, "
              "Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n"
              "Style: Default,Sans,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0\n\n"
              "[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n")


def add_text_tracks(out: Any, tracks: Sequence[tuple[str, list[srt.Subtitle]]]) -> list[tuple[Fraction, int, Any]]:
    """Add one mov_text stream per track to ``out``; return its packets, timed."""
    from av.subtitles.subtitle import SubtitleSet

    ms = Fraction(1, 1000)
    timed = []
    for lang, cues_of in tracks:
        stream = out.add_stream("mov_text")
        stream.metadata["language"] = language(lang).iso639
        stream.codec_context.subtitle_header = ASS_HEADER.encode()
        stream.time_base = ms
        last = 0
        for n, cue in enumerate(sorted(cues_of, key=lambda c: c.start)):
            start = max(last, round(cue.start.total_seconds() * 1000))
            end = round(cue.end.total_seconds() * 1000)
            if end <= start:
                continue
            text = cue.content.replace("\r", "").replace("\n", "\\N")
            packet = stream.codec_context.encode_subtitle(
                SubtitleSet.create(f"{n},0,Default,,0,0,0,,{text}".encode(), 0, end - start, pts=start))
            packet.stream, packet.pts, packet.dts, packet.duration = stream, start, start, end - start
            timed.append((start * ms, 2, packet))
            last = end
    return timed
