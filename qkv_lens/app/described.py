"""The described lesson (``qkv-lens export``): each beat's description
(``Beat.describe``, what its picture shows that its sentence does not say)
said aloud and mixed with the narration, for a learner who cannot see the
picture (WCAG 1.2.5; 1.2.7 when the picture must wait for it).

- ``plan``: per clip, its descriptions (``Said``): each spoken in its
  beat's quiet part (``Beat.quiet``: after the beat's voice, to its end),
  in the lesson's recording ``voice/<lang>/<Scene>/<beat-id>.description.wav``
  (or ``.mp3``, ``.m4a``) when it has one, else by espeak-ng in the
  language's voice; ``hold`` is how much longer than its beat it runs.
- ``speech``: a clip's descriptions as samples, to add to its narration
  (``lesson.mp4``'s described track, when every description fits its beat).
- ``write_held``: ``lesson.described.mp4``, when some description runs past
  its beat: the picture holds the frame at that beat's end as long as the
  description needs (the video decoded and encoded again, h264 at CRF 18),
  the narration waits with it, and the chapters and subtitles move with the
  picture; nothing of the picture is cut.
- ``vtt``: the descriptions as WebVTT, timed in ``lesson.mp4``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import srt

from qkv_lens import beats as beats_file
from qkv_lens import voice
from qkv_lens.app.subtitles import cue_text
from qkv_lens.app.tracks import AUDIO_FRAME, add_text_tracks, clip_sound

SUFFIX = ".description"   # a recording of a beat's description: voice/<lang>/<Scene>/<beat-id>.description.wav


@dataclass(frozen=True)
class Said:
    """One beat's description as spoken: from ``at`` (seconds into its
    clip) for ``seconds``, in the sound ``sound`` (a PCM WAV qkv-lens
    wrote), before ``end``, where the beat ends and the next narration starts."""
    beat: str
    text: str
    at: float
    end: float
    sound: Path
    seconds: float

    @property
    def hold(self) -> float:
        """How long the picture must wait at ``end`` for the description to end (0: it fits)."""
        return max(0.0, self.at + self.seconds - self.end)


def aloud(text: str) -> str:
    """A description as a voice reads it: math typography as words (``W_Q`` is "W Q")."""
    from qkv_lens.app.page import math_runs
    return "".join(r if isinstance(r, str) else f" {r['sub']}" for r in math_runs(text))


def plan(scenes: Sequence[str], beats_of: Sequence[Sequence[beats_file.Beat]], lang: str,
         lesson_dir: Path | None) -> list[list[Said]]:
    """Per clip (``scenes[i]``, its ``beats_of[i]``), its descriptions as
    spoken; VoiceError (one line) when a recording is not audio or
    espeak-ng is missing."""
    out = []
    for scene, found in zip(scenes, beats_of):
        said = []
        for b in found:
            if not b.describe.strip():
                continue
            recorded = voice.recording_path(lesson_dir, lang, scene, b.id + SUFFIX) if lesson_dir else None
            if recorded is not None:
                clip = voice.recorded_clip(recorded)
                sound, seconds = clip.path, clip.seconds
            else:
                sound = voice.espeak_wav(aloud(b.describe), lang)
                seconds = voice.wav_seconds(sound)
            assert sound is not None
            said.append(Said(b.id, b.describe, b.quiet[0], b.end, sound, seconds))
        out.append(said)
    return out


def speech(said: Sequence[Said], rate: int, channels: int, n: int, shift: dict[str, float] | None = None) -> np.ndarray:
    """A clip's descriptions as ``channels`` x ``n`` float samples at
    ``rate`` (each from its ``at``, moved later by ``shift[beat]`` seconds
    in a held version), to add to its narration."""
    out = np.zeros((channels, n), np.float32)
    if said:
        placed = voice.mix([{"file": str(s.sound), "time": s.at + (shift or {}).get(s.beat, 0.0)} for s in said],
                           rate).astype(np.float32) / 32768
        out[:, :min(n, len(placed))] += placed[:n]
    return out


def vtt(said: Sequence[Sequence[Said]], starts: Sequence[Fraction]) -> str:
    """The lesson's descriptions as WebVTT, each over its beat's quiet part, timed in ``lesson.mp4``."""
    def t(seconds: float) -> str:
        return srt.timedelta_to_srt_timestamp(srt.timedelta(seconds=seconds)).replace(",", ".")

    out = ["WEBVTT", ""]
    for clip, start in zip(said, starts):
        for s in clip:
            if s.end > s.at:
                out += [f"{t(float(start) + s.at)} --> {t(float(start) + s.end)}", cue_text(s.text), ""]
    return "\n".join(out)


class Held:
    """Where the described version's picture waits: each clip's holds
    (beat end, seconds) and the time each clip starts there."""

    def __init__(self, said: Sequence[Sequence[Said]], lengths: Sequence[Fraction]):
        self.holds = [[(s.end, s.hold) for s in clip if s.hold > 0] for clip in said]
        self.starts = [0.0]
        for holds, length in zip(self.holds, lengths):
            self.starts.append(self.starts[-1] + float(length) + sum(h for _, h in holds))

    def at(self, i: int, t: float, ending: bool = False) -> float:
        """Clip ``i``'s time ``t`` in the held version (a hold at ``t`` comes
        before ``t``, unless ``ending``: a cue that ends there ends before it)."""
        return self.starts[i] + t + sum(h for e, h in self.holds[i] if e < t or (e == t and not ending))

    def shift(self, i: int, said: Sequence[Said]) -> dict[str, float]:
        """How much later each description of clip ``i`` starts in the held version."""
        return {s.beat: self.at(i, s.at) - self.starts[i] - s.at for s in said}


def write_held(videos: Sequence[Path], probes: Sequence[Any], titles: Sequence[str], said: Sequence[Sequence[Said]],
               dest: Path, cues: Sequence[srt.Subtitle], starts: Sequence[Fraction], lang: str, name: str) -> None:
    """``lesson.described.mp4``: the clips one after another, the picture
    holding at each beat whose description runs past its end, one AAC
    track (the narration, silent while the picture holds, with the
    descriptions) tagged as described, the subtitles ``cues`` (timed in
    ``lesson.mp4``, clips starting at ``starts``) and the chapters moved
    with the picture."""
    import av

    from qkv_lens.voice import MIX_RATE

    held = Held(said, [p.seconds for p in probes])
    rate_v = probes[0].stream.rate
    sound = [p.audio for p in probes if p.audio]
    rate = sound[0][0] if sound else MIX_RATE
    channels = min(2, max((ch for _, ch in sound), default=1))
    layout = "mono" if channels == 1 else "stereo"

    def moved(cue: srt.Subtitle) -> srt.Subtitle:
        i = max(k for k in range(len(probes)) if float(starts[k]) <= cue.start.total_seconds() + 1e-9)
        a, b = (cue.start.total_seconds() - float(starts[i]), cue.end.total_seconds() - float(starts[i]))
        return srt.Subtitle(0, srt.timedelta(seconds=held.at(i, a)), srt.timedelta(seconds=held.at(i, b, True)),
                            cue.content)

    with av.open(str(dest), "w", format="mp4", options={"movflags": "+faststart"}) as out:
        vout = out.add_stream("libx264", rate=rate_v, options={"crf": "18", "preset": "veryfast"})
        vout.width, vout.height, vout.pix_fmt = probes[0].stream.width, probes[0].stream.height, "yuv420p"
        aout = out.add_stream("aac", rate=rate, layout=layout)
        tag(aout, lang, name, only=True)
        ms = Fraction(1, 1000)
        ends = held.starts[1:]
        out.set_chapters([{"id": i + 1, "start": round(Fraction(held.starts[i]) / ms), "end": round(Fraction(e) / ms),
                           "time_base": ms, "metadata": {"title": title}} for i, (title, e) in
                          enumerate(zip(titles, ends))])
        text = add_text_tracks(out, [(lang, [moved(c) for c in cues])])
        n, last, written = 0, None, 0
        for i, (video, p) in enumerate(zip(videos, probes)):
            timed: list[tuple[Fraction, int, Any]] = []
            with av.open(str(video)) as c:
                vin = c.streams.video[0]
                for frame in c.decode(vin):
                    if frame.pts is None:
                        continue
                    t = float((frame.pts - p.start) * Fraction(vin.time_base))
                    target = round(Fraction(held.at(i, t)) * rate_v)
                    while last is not None and n < target:       # the picture holds: the frame before again
                        timed += _encode(vout, last, n, rate_v)
                        n += 1
                    last = frame.reformat(format="yuv420p")
                    timed += _encode(vout, last, n, rate_v)
                    n += 1
            if i == len(probes) - 1:
                while last is not None and n < round(Fraction(held.starts[-1]) * rate_v):
                    timed += _encode(vout, last, n, rate_v)
                    n += 1
                timed += [(pk.dts * Fraction(pk.time_base), 0, pk) for pk in vout.encode(None)]
            # the clip's narration, fitted to it, silent through each hold, with its descriptions
            length = round(float(p.seconds) * rate)
            parts = list(clip_sound(video, p.audio is not None, rate, layout))
            narration = np.concatenate(parts, axis=1)[:, :length] if parts else np.zeros((channels, 0), np.float32)
            narration = np.pad(narration, ((0, 0), (0, length - narration.shape[1])))
            pieces, at = [], 0
            for e, h in held.holds[i]:
                cut = min(length, round(e * rate))
                pieces += [narration[:, at:cut], np.zeros((channels, round(h * rate)), np.float32)]
                at = cut
            pieces.append(narration[:, at:])
            track = np.concatenate(pieces, axis=1)
            track = np.clip(track + speech(said[i], rate, channels, track.shape[1], held.shift(i, said[i])), -1, 1)
            for k in range(0, track.shape[1], AUDIO_FRAME):
                frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(track[:, k:k + AUDIO_FRAME], np.float32),
                                                   format="fltp", layout=layout)
                frame.sample_rate, frame.pts = rate, written
                written += frame.samples
                timed += [(Fraction(pk.pts or 0, rate), 1, pk) for pk in aout.encode(frame)]
            if i == len(probes) - 1:
                timed += [(Fraction(pk.pts or 0, rate), 1, pk) for pk in aout.encode(None)]
                timed += [x for x in text if x[0] >= Fraction(held.starts[i])]
            else:
                timed += [x for x in text if Fraction(held.starts[i]) <= x[0] < Fraction(held.starts[i + 1])]
            timed.sort(key=lambda x: (x[0], x[1]))
            for _, _, packet in timed:
                out.mux(packet)


def _encode(vout: Any, frame: Any, n: int, rate: Fraction) -> list[tuple[Fraction, int, Any]]:
    frame.pts, frame.time_base = n, Fraction(1) / rate
    return [(pk.dts * Fraction(pk.time_base), 0, pk) for pk in vout.encode(frame)]


def tag(stream: Any, lang: str, name: str, only: bool = False) -> None:
    """Mark an audio ``stream`` as the described one: its language, its
    name (``handler_name`` and title: "Audio description"), and the
    dispositions players read (``descriptions``, ``visual_impaired``; also
    ``default`` when it is the file's ``only`` audio)."""
    import av

    from qkv_lens.languages import language

    stream.metadata["language"] = language(lang).iso639
    stream.metadata["handler_name"] = stream.metadata["title"] = name
    flags = av.stream.Disposition.descriptions | av.stream.Disposition.visual_impaired
    stream.disposition = flags | av.stream.Disposition.default if only else flags
