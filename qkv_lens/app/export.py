"""``qkv-lens export``: the whole lesson of one language and quality as files
to hand on, written into ``renders/<lang>/<quality>/`` beside the clips:

- ``lesson.mp4``: every clip in storyboard order, one chapter per scene
  (titled by the scene's title), web-ready (``moov`` first).  The video
  packets are copied, never re-encoded, so the clips must share codec,
  frame size, pixel format, frame rate and codec header (a render at one
  quality does); clips that differ are refused in one line (render them
  again at one quality) rather than re-encoded, which would take minutes at
  1080p60 and lose quality.  When any clip has a voice, the lesson gets one
  AAC track: each clip's sound (silence for a clip without) is decoded,
  fitted to its clip's length and encoded once, so the sound never drifts
  from the picture across the joins.  The subtitles ride along as text
  tracks (mov_text, which players list as captions): the lesson's language
  first, then each other language whose renders of the same scenes exist,
  its beats' cues timed to this language's beats.  When the beats have
  descriptions (``LessonScene.describe``) and each fits its beat, a second
  AAC track: the narration with the descriptions said in it (espeak-ng, or
  the lesson's recordings), tagged with its language and as the described
  track (``qkv_lens.app.described``).
- ``lesson.described.mp4``, when a description runs past its beat: the
  described version, its picture holding at that beat's end until the
  description ends (longer than ``lesson.mp4``; nothing cut).
- ``lesson.descriptions.vtt``: the descriptions, timed in ``lesson.mp4``.
- ``lesson.srt`` / ``lesson.vtt``: every clip's cues, shifted by the time
  its clip starts; ``lesson.chapters.vtt``: one cue per scene.
- ``lesson.pptx``: a title slide, then one slide per scene with its
  question and its clip embedded (poster as the preview, playing when the
  slide appears) and its narration in the speaker notes; with ``--deck
  beats``, ``lesson.beats.pptx`` instead: one slide per beat, each playing
  its beat's part of the clip, previewed by the beat's last frame.
- ``lesson.pdf`` (``--pdf``): a handout, one A4 page per scene in real text
  (``qkv_lens.app.handout``), each scene's checkpoints listed and an answer
  key at the end, and its descriptions after what it says; the decks'
  notes carry the checkpoints too.
- ``lesson.scorm.zip`` (``--scorm``): the lesson page and its clips as a
  SCORM 1.2 package for a learning platform (``qkv_lens.app.scorm``).
- ``lesson.export.json``: what each of these files joined (the lesson's
  scenes, each clip's render key: ``qkv_lens.app.joined``), so the page can
  say when one is older than the clips.

Everything is checked first (a scene without a render, a listed file that
is missing, clips that cannot be joined: an ExportError, one line), then
written to temporary files in the target folders and renamed into place
only when every file of every language is complete, all or none (a rename
that fails puts back the files renamed before it, ``Staging.commit``); a
failure or an interrupt leaves nothing behind and the previous exports as
they were.
"""
from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

import srt

from qkv_lens import beats as beats_file
from qkv_lens.app import described, handout, joined, manifest, scorm
from qkv_lens.app.page import lesson_intro
from qkv_lens.app.subtitles import cue_text, cues, srt_to_vtt
from qkv_lens.app.tracks import AUDIO_FRAME, AudioOut, add_text_tracks, clip_sound
from qkv_lens.languages import font_file, font_for, language, offered
from qkv_lens.latex import LatexFailed
from qkv_lens.lesson import Chapter
from qkv_lens.registry import QUALITIES, SceneInfo
from qkv_lens.store import Unsafe, clean_parts, folder_inside, read_regular, shown, temp_beside
from qkv_lens.texts import tr

STEM = "lesson"
BEATS_DECK = f"{STEM}.beats.pptx"    # --deck beats, beside the scenes' deck lesson.pptx
DESCRIBED = f"{STEM}.described.mp4"  # the described version, when a description runs past its beat
DESCRIPTIONS = f"{STEM}.descriptions.vtt"


class ExportError(Exception):
    """The lesson cannot be exported (one line, exit status 1)."""


@dataclass(frozen=True)
class Clip:
    """One scene's render: its files (srt, poster, beats: None when the
    render has none) and its frame size."""
    scene: SceneInfo
    video: Path
    srt: Path | None
    poster: Path | None
    beats: Path | None
    width: int
    height: int
    duration: float = 0.0   # seconds, as the manifest gives it
    key: str = ""           # the render's cache key, as the manifest gives it


@dataclass(frozen=True)
class Stream:
    """What must agree for clips to be joined without re-encoding."""
    codec: str
    width: int
    height: int
    pix_fmt: str
    rate: Fraction
    extradata: bytes

    def __str__(self) -> str:
        return f"{self.codec} {self.width}x{self.height} {self.pix_fmt} {float(self.rate):g} fps"


@dataclass(frozen=True)
class Probe:
    """One clip's video stream, where it starts and how long it lasts (in
    its time base), and its audio (rate, channels) if it has any."""
    stream: Stream
    time_base: Fraction
    start: int
    length: int
    audio: tuple[int, int] | None

    @property
    def seconds(self) -> Fraction:
        return self.length * self.time_base


def render_hint(scenes: Sequence[str], lang: str, quality: str, out_arg: str) -> str:
    """The one command that renders ``scenes`` (``lang``: a language or all)."""
    out = "" if out_arg == "renders" else f" --out {out_arg}"
    them = "it" if len(scenes) == 1 else "them"
    return f"render {them} first: qkv-lens render {' '.join(scenes)} --lang {lang} -q {quality}{out}"


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def check_rendered(out_root: Path, langs: Sequence[str], quality: str, scenes: Sequence[SceneInfo],
                   out_arg: str = "renders") -> None:
    """ExportError naming every one of ``scenes`` without an mp4 render at
    ``quality`` in each of ``langs``, with one command that renders them all."""
    try:
        entries = manifest.load_checked(out_root)
    except manifest.ManifestError as err:
        raise ExportError(str(err)) from None
    folder = QUALITIES[quality]
    missing = {lang: [s.name for s in scenes if manifest.entry_id(s.name, lang, folder, "mp4") not in entries]
               for lang in langs}
    missing = {lang: names for lang, names in missing.items() if names}
    if not missing:
        return
    every = [s.name for s in scenes if any(s.name in names for names in missing.values())]
    where = "; ".join(f"{_names(names)} in {lang}" for lang, names in missing.items())
    raise ExportError(f"no {folder} mp4 render of {where} ({shown(out_root / manifest.NAME)}); "
                      + render_hint(every, next(iter(missing)) if len(missing) == 1 else "all", quality, out_arg))


POSTER_BYTES = 64 << 20      # a poster is one frame: a 2160p PNG is a few MiB
SUBTITLE_BYTES = 4 << 20


def find_clips(out_root: Path, lang: str, quality: str, scenes: Sequence[SceneInfo],
               out_arg: str = "renders") -> list[Clip]:
    """The mp4 render of each of ``scenes`` (in that order), from the
    manifest; ExportError naming every one without a render
    (``check_rendered``), or the first listed file that is missing, leads
    outside ``out_root`` or is not a file."""
    check_rendered(out_root, [lang], quality, scenes, out_arg)
    try:
        entries = manifest.load_checked(out_root)
    except manifest.ManifestError as err:
        raise ExportError(str(err)) from None
    folder = QUALITIES[quality]
    clips = []
    for scene in scenes:
        hint = render_hint([scene.name], lang, quality, out_arg)
        e = entries[manifest.entry_id(scene.name, lang, folder, "mp4")]
        files = {}
        for name in e["files"]:
            try:
                files[Path(name).name] = manifest.listed(out_root, name)
            except FileNotFoundError:
                raise ExportError(f"{shown(out_root / name)}: missing (listed in "
                                  f"{shown(out_root / manifest.NAME)} for {scene.name}, {lang}); {hint}") from None
            except Unsafe as err:
                raise ExportError(f"{err} (listed in {shown(out_root / manifest.NAME)} for {scene.name}, "
                                  f"{lang})") from None
        video = files.get(f"{scene.name}.mp4")
        if video is None:
            raise ExportError(f"{scene.name} ({lang}, {folder}): the manifest lists no {scene.name}.mp4; {hint}")
        poster = files.get(f"{scene.name}.png")
        if poster is not None:
            check_poster(poster, hint)
        clips.append(Clip(scene, video, files.get(f"{scene.name}.srt"), poster,
                          files.get(f"{scene.name}.beats.json"), int(e.get("width") or 0),
                          int(e.get("height") or 0), float(e["duration"]), str(e.get("key") or "")))
    return clips


def check_poster(path: Path, hint: str) -> None:
    """ExportError naming ``path`` unless it is a PNG picture that decodes."""
    import io

    from PIL import Image
    try:
        data = read_regular(path, POSTER_BYTES, "poster")
        with Image.open(io.BytesIO(data), formats=("PNG",)) as im:
            im.load()
    except Unsafe as err:
        raise ExportError(str(err)) from None
    except Exception as err:  # noqa: BLE001 - Pillow raises many kinds for a damaged file
        reason = getattr(err, "strerror", None) or " ".join(str(err).split()[:12]) or type(err).__name__
        if "BytesIO" in reason:
            reason = "not a PNG picture"
        raise ExportError(f"{shown(path)}: damaged poster ({reason}); {hint}") from None


def probe_clip(video: Path) -> Probe:
    """Read ``video``'s stream headers and packet times (no decoding)."""
    import av

    try:
        with av.open(str(video)) as c:
            if not c.streams.video:
                raise ExportError(f"{shown(video)}: has no video stream")
            v = c.streams.video[0]
            cc = v.codec_context
            rate = Fraction(v.base_rate or v.guessed_rate or v.average_rate or 0)
            tb = Fraction(v.time_base or Fraction(1, 90000))
            step = round(1 / (rate * tb)) if rate else 0
            first, end = None, None
            for packet in c.demux(v):
                if packet.pts is None:
                    continue
                first = packet.pts if first is None else min(first, packet.pts)
                stop = packet.pts + (packet.duration or step)
                end = stop if end is None else max(end, stop)
            if first is None or end is None:
                raise ExportError(f"{shown(video)}: has no video frames")
            audio = None
            if c.streams.audio:
                a = c.streams.audio[0]
                audio = (int(a.rate or a.codec_context.sample_rate), int(a.codec_context.channels or 1))
            stream = Stream(cc.name, v.width, v.height, str(cc.pix_fmt), rate, bytes(cc.extradata or b""))
            return Probe(stream, tb, first, end - first, audio)
    except (av.FFmpegError, OSError) as err:
        reason = getattr(err, "strerror", None) or type(err).__name__
        raise ExportError(f"{shown(video)}: cannot read it ({reason})") from None


def check_joinable(clips: list[Clip], probes: list[Probe], lang: str, quality: str, out_arg: str) -> None:
    """ExportError unless every clip's video stream matches the first's."""
    first = probes[0].stream
    for clip, p in zip(clips[1:], probes[1:]):
        if p.stream != first:
            what = "codec header" if str(p.stream) == str(first) else f"{first} vs {p.stream}"
            out = "" if out_arg == "renders" else f" --out {out_arg}"
            raise ExportError(f"{shown(clips[0].video.name)} and {shown(clip.video.name)} differ ({what}) and "
                              f"are joined only without re-encoding; render them again together: "
                              f"qkv-lens render --force --lang {lang} -q {quality}{out}")


def offsets(probes: list[Probe]) -> list[Fraction]:
    """Where each clip starts in the lesson (seconds), then where it ends."""
    starts = [Fraction(0)]
    for p in probes:
        starts.append(starts[-1] + p.seconds)
    return starts


class Captions:
    """Cues drawn into the picture (``export --burn-captions``): each frame
    gets the cue shown at its time, in the lesson's font, white with a dark
    outline, centred in the band the scenes keep free at the bottom, each
    line inside the frame less SIDE of its width on each side."""

    SIDE = 0.04      # of the frame's width, kept free left and right

    def __init__(self, cues_of: list[srt.Subtitle], lang: str, height: int):
        self.cues = sorted(cues_of, key=lambda c: c.start)
        self.size = max(12, round(0.045 * height))
        self.pen = Pen(lang, self.size)
        self.hyphen = language(lang).spaced
        self._drawn: dict[str, Any] = {}

    def at(self, seconds: float) -> str | None:
        for cue in self.cues:
            if cue.start.total_seconds() <= seconds < cue.end.total_seconds():
                return cue.content
            if cue.start.total_seconds() > seconds:
                break
        return None

    def lines(self, text: str, width: int) -> list[str]:
        """The cue's lines as drawn in a frame ``width`` wide: a line wider
        than the room is broken again, at its last space that fits, else
        inside the word (with a hyphen in a spaced script)."""
        room = width * (1 - 2 * self.SIDE)
        out = []
        for line in text.splitlines():
            rest = line.strip()
            while self.pen.length(rest) > room:
                tail = "-" if self.hyphen else ""
                k = 1
                while k < len(rest) and self.pen.length(rest[:k + 1].rstrip() + tail) <= room:
                    k += 1
                space = rest.rfind(" ", 1, k + 1)
                if space > 0 and self.pen.length(rest[:space]) <= room:
                    head, rest = rest[:space].rstrip(), rest[space:].lstrip()
                else:
                    head, rest = rest[:k] + tail, rest[k:]
                out.append(head)
            out.append(rest)
        return out

    def overlay(self, text: str, width: int, height: int) -> Any:
        """The caption as an RGBA image of the frame's size (kept per text)."""
        from PIL import Image, ImageDraw

        if text not in self._drawn:
            image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
            draw = ImageDraw.Draw(image)
            lines = self.lines(text, width)
            step = round(1.25 * self.size)
            y = height - round(0.015 * height) - step * len(lines)
            for line in lines:
                x = (width - self.pen.length(line)) / 2
                self.pen.write(draw, (x, y), line, "white", stroke=max(2, self.size // 10))
                y += step
            self._drawn = {text: image}      # cues follow one another: keep the last only
        return self._drawn[text]

    def encode(self, container: Any, vin: Any, vout: Any, start: Fraction, probe: Probe,
               last: bool) -> list[tuple[Fraction, int, Any]]:
        """Decode one clip, draw its captions and encode it at its place in the lesson."""
        import av

        timed = []
        rate = probe.stream.rate
        for frame in container.decode(vin):
            if frame.pts is None:
                continue
            seconds = start + (frame.pts - probe.start) * Fraction(vin.time_base)
            text = self.at(float(seconds))
            if text:
                image = frame.to_image().convert("RGBA")
                image.alpha_composite(self.overlay(text, image.width, image.height))
                frame = av.VideoFrame.from_image(image.convert("RGB"))
            frame = frame.reformat(format="yuv420p")
            frame.pts = round(seconds * rate)
            frame.time_base = Fraction(1, 1) / rate
            timed += [(packet.dts * Fraction(packet.time_base), 0, packet) for packet in vout.encode(frame)]
        if last:
            timed += [(packet.dts * Fraction(packet.time_base), 0, packet) for packet in vout.encode(None)]
        return timed


def join_videos(clips: list[Clip], probes: list[Probe], titles: list[str], dest: Path,
                tracks: Sequence[tuple[str, list[srt.Subtitle]]] = (), burn: Captions | None = None,
                said: Sequence[Sequence[described.Said]] | None = None, lang: str = "") -> None:
    """Write the clips one after another into the mp4 ``dest`` (video
    packets copied, one chapter per clip titled ``titles[i]``, ``moov``
    first, one AAC track if any clip has sound, one text track per
    ``tracks`` item: language, cues); with ``burn``, the video is decoded,
    the captions drawn into it and encoded again instead.  With ``said``
    (each clip's descriptions, every one fitting its beat), a second AAC
    track: the narration with the descriptions mixed in, tagged as the
    described track in ``lang`` (the first track is then there even for
    silent clips, silent).  ExportError if PyAV fails."""
    import av

    try:
        _join(clips, probes, titles, dest, tracks, burn, said, lang)
    except av.FFmpegError as err:
        raise ExportError(f"cannot join the clips into {STEM}.mp4 ({err})") from None


def _join(clips: list[Clip], probes: list[Probe], titles: list[str], dest: Path,
          tracks: Sequence[tuple[str, list[srt.Subtitle]]], burn: Captions | None = None,
          said: Sequence[Sequence[described.Said]] | None = None, lang: str = "") -> None:
    import av
    import numpy as np

    from qkv_lens.voice import MIX_RATE

    starts = offsets(probes)
    sound = [p.audio for p in probes if p.audio]
    with av.open(str(clips[0].video)) as template, \
            av.open(str(dest), "w", format="mp4", options={"movflags": "+faststart"}) as out:
        out.metadata.update({k: v for k, v in template.metadata.items() if k in ("comment",)})
        if burn is None:
            vout = out.add_stream_from_template(template.streams.video[0])
        else:          # the captions are drawn into the picture: encoded again, h264 at high quality
            vout = out.add_stream("libx264", rate=probes[0].stream.rate, options={"crf": "18"})
            vout.width, vout.height, vout.pix_fmt = probes[0].stream.width, probes[0].stream.height, "yuv420p"
        tb = Fraction(probes[0].time_base)
        audio: list[AudioOut] = []      # the narration, then the described track
        rate, channels, layout = MIX_RATE, 1, "mono"
        if sound or said:
            if sound:
                rate, channels = sound[0][0], min(2, max(ch for _, ch in sound))
            layout = "mono" if channels == 1 else "stereo"
            audio.append(AudioOut(out.add_stream("aac", rate=rate, layout=layout), rate, channels, layout))
            if said:
                audio[0].stream.metadata["language"] = language(lang).iso639
                audio[0].stream.disposition = av.stream.Disposition.default
                audio.append(AudioOut(out.add_stream("aac", rate=rate, layout=layout), rate, channels, layout))
                described.tag(audio[1].stream, lang, tr(lang, "export.described_track"))
        ms = Fraction(1, 1000)
        out.set_chapters([{"id": i + 1, "start": round(starts[i] / ms), "end": round(starts[i + 1] / ms),
                           "time_base": ms, "metadata": {"title": title}} for i, title in enumerate(titles)])
        text = add_text_tracks(out, tracks)
        queued = 0    # audio samples of the clips before this one
        last_dts = -(1 << 62)
        for i, (clip, p) in enumerate(zip(clips, probes)):
            timed: list[tuple[Fraction, int, av.Packet]] = []
            shift = starts[i] / tb   # this clip's start in the lesson, in the output time base
            with av.open(str(clip.video)) as c:
                vin = c.streams.video[0]
                scale = Fraction(vin.time_base or tb) / tb
                if burn is not None:
                    timed += burn.encode(c, vin, vout, starts[i], p, last=i == len(clips) - 1)
                for packet in (c.demux(vin) if burn is None else ()):
                    if packet.dts is None or packet.pts is None:
                        continue
                    dts = round((packet.dts - p.start) * scale + shift)
                    dts = max(dts, last_dts + 1)   # a clip with a longer B-frame delay than the one before
                    packet.pts = max(dts, round((packet.pts - p.start) * scale + shift))
                    packet.dts = last_dts = dts
                    packet.stream = vout
                    timed.append((packet.dts * tb, 0, packet))
            if audio:
                need = round(starts[i + 1] * rate) - queued   # this clip's samples, fitted to its length
                queued += need
                parts = []
                for chunk in clip_sound(clip.video, p.audio is not None, rate, layout):
                    if need <= 0:
                        break
                    chunk = chunk[:, :need]
                    parts.append(chunk)
                    need -= chunk.shape[1]
                if need > 0:
                    parts.append(np.zeros((channels, need), np.float32))
                own = np.concatenate(parts, axis=1)
                last = i == len(clips) - 1
                timed += audio[0].add(own, last)
                if said is not None and len(audio) > 1:
                    mixed = own + described.speech(said[i], rate, channels, own.shape[1])
                    timed += audio[1].add(np.clip(mixed, -1, 1), last)
            end = starts[i + 1]
            timed += [t for t in text if starts[i] <= t[0] < end or (i == len(clips) - 1 and t[0] >= end)]
            timed.sort(key=lambda t: (t[0], t[1]))
            for _, _, packet in timed:
                out.mux(packet)


def _stamp(seconds: Fraction) -> timedelta:
    return timedelta(microseconds=round(seconds * 1_000_000))


def join_subtitles(clips: list[Clip], starts: list[Fraction]) -> str:
    """SubRip of the whole lesson: every clip's cues, shifted by its start."""
    joined = []
    for clip, start, end in zip(clips, starts, starts[1:]):
        if clip.srt is None:
            continue
        try:
            text = read_regular(clip.srt, SUBTITLE_BYTES, "subtitle file").decode("utf-8")
            found = cues(text)
        except Unsafe as err:
            raise ExportError(str(err)) from None
        except (OSError, ValueError) as err:
            raise ExportError(f"{shown(clip.srt)}: cannot read it ({getattr(err, 'strerror', None) or err})") from None
        for cue in found:
            joined.append(srt.Subtitle(0, cue.start + _stamp(start), min(cue.end + _stamp(start), _stamp(end)),
                                       cue.content))
    return srt.compose(joined, reindex=True, start_index=1)


def _beats(clip: Clip) -> dict[str, beats_file.Beat]:
    if clip.beats is None:
        return {}
    try:
        found = beats_file.read(clip.beats.parent, clip.beats.name, clip.duration or None)
    except beats_file.BeatsError as err:
        raise ExportError(str(err)) from None
    return {b.id: b for b in found}


def beat_timed_cues(clips: list[Clip], starts: list[Fraction], others: list[Clip]) -> list[srt.Subtitle]:
    """The cues of ``others`` (the same scenes in another language), each
    beat's cues spread over the time the same beat has in ``clips``, so a
    second-language track keeps step with this language's picture."""
    timed = []
    for clip, other, start in zip(clips, others, starts):
        here, there = _beats(clip), _beats(other)
        for beat_id, a in here.items():
            b = there.get(beat_id)
            if b is None or b.end <= b.start:
                continue
            scale = (a.end - a.start) / (b.end - b.start)
            for cue in b.cues:
                t0, t1 = (a.start + (t - b.start) * scale for t in (cue.start, cue.end))
                timed.append(srt.Subtitle(0, _stamp(start + Fraction(t0)), _stamp(start + Fraction(t1)), cue.text))
    return timed


def subtitle_tracks(out_root: Path, lang: str, quality: str, clips: list[Clip], starts: list[Fraction],
                    subs: str, languages: Sequence[str]) -> list[tuple[str, list[srt.Subtitle]]]:
    """The text tracks of ``lesson.mp4``: ``lang``'s own cues, then every
    other language of ``languages`` whose renders of the same scenes, with
    beats, are there (a language without them is left out)."""
    tracks = [(lang, list(srt.parse(subs)))]
    for other in languages:
        if other == lang:
            continue
        try:
            found = find_clips(out_root, other, quality, [c.scene for c in clips])
        except ExportError:
            continue
        if all(c.beats is not None for c in found + clips):
            tracks.append((other, beat_timed_cues(clips, starts, found)))
    return tracks


def chapters_vtt(titles: list[str], starts: list[Fraction]) -> str:
    """WebVTT chapters: one cue per scene, from its start to the next's, its title as text."""
    def t(s: Fraction) -> str:
        return srt.timedelta_to_srt_timestamp(_stamp(s)).replace(",", ".")

    out = ["WEBVTT", ""]
    for i, title in enumerate(titles):
        out += [str(i + 1), f"{t(starts[i])} --> {t(starts[i + 1])}", cue_text(title), ""]
    return "\n".join(out)


def narration(clip: Clip, lang: str) -> list[str]:
    """The narration of each beat of ``clip`` (from its checked beats file), in order."""
    if clip.beats is None:
        return []
    try:
        found = beats_file.read(clip.beats.parent, clip.beats.name, clip.duration or None)
    except beats_file.BeatsError as err:
        raise ExportError(str(err)) from None
    return [b.say for b in found]


def describe_clips(clips: list[Clip], lang: str, lesson_dir: Path | None) -> list[list[described.Said]]:
    """Each clip's descriptions as spoken (``described.plan``); ExportError
    (one line) when one cannot be spoken."""
    from qkv_lens.voice import VoiceError
    try:
        return described.plan([c.scene.name for c in clips], [list(_beats(c).values()) for c in clips], lang,
                              lesson_dir)
    except VoiceError as err:
        raise ExportError(f"the descriptions cannot be spoken: {err}") from None


def descriptions(clip: Clip) -> list[tuple[int, str]]:
    """The descriptions of ``clip`` (from its checked beats file), each with its beat's number (from 1)."""
    return [(i + 1, b.describe) for i, b in enumerate(_beats(clip).values()) if b.describe.strip()]


def asked(clip: Clip) -> list[tuple[int, beats_file.Ask]]:
    """The checkpoints of ``clip`` (from its checked beats file), each with
    the index of the beat it comes before (the beat that shows its answer)."""
    return [(i, b.ask) for i, b in enumerate(_beats(clip).values()) if b.ask is not None]


def rounding(lang: str, places: int) -> str:
    """How a number answer is given ("a whole number", "to 2 decimal places"), as the page says it."""
    return tr(lang, "page.cp_whole") if places == 0 else tr(lang, "page.cp_place") if places == 1 else \
        tr(lang, "page.cp_places", places=places)


def choice_lines(ask: beats_file.Ask, lang: str) -> list[str]:
    """A checkpoint's choices, lettered (a, b, ...), or how its number is given."""
    if ask.number is not None:
        return [f"({rounding(lang, ask.places)})"]
    return [f"{'abcdefgh'[k]}) {choice}" for k, choice in enumerate(ask.choices)]


def checkpoint_note(ask: beats_file.Ask, before: int, lang: str) -> str:
    """A checkpoint for a deck's speaker notes: where it is asked (before
    step ``before``, counted from 1), the question, its choices, its answer."""
    return "\n".join([f"{tr(lang, 'export.cp_note', n=before)} {ask.question}", *choice_lines(ask, lang),
                      f"{tr(lang, 'page.cp_answer')} {ask.shown}"])


def chapter_names(chapters: Sequence[Chapter], clips: list[Clip], lang: str) -> list[str]:
    """The titles of the chapters that hold one of ``clips``, in order."""
    there = {c.scene.name for c in clips}
    return [ch.title.name(lang) for ch in chapters if there & set(ch.scenes)]


# PowerPoint's timing tree for a movie that starts on its own when the slide
# appears ("Start: Automatically"): the main sequence's first step begins with
# the sequence (onBegin of node 2) and calls playFrom(0.0) on the movie.
AUTOPLAY = (
    '<p:timing xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:tnLst><p:par>'
    '<p:cTn id="1" dur="indefinite" restart="never" nodeType="tmRoot"><p:childTnLst>'
    '<p:seq concurrent="1" nextAc="seek"><p:cTn id="2" dur="indefinite" nodeType="mainSeq"><p:childTnLst>'
    '<p:par><p:cTn id="3" fill="hold"><p:stCondLst><p:cond delay="indefinite"/>'
    '<p:cond evt="onBegin" delay="0"><p:tn val="2"/></p:cond></p:stCondLst><p:childTnLst>'
    '<p:par><p:cTn id="4" fill="hold"><p:stCondLst><p:cond delay="0"/></p:stCondLst><p:childTnLst>'
    '<p:par><p:cTn id="5" presetID="1" presetClass="mediacall" presetSubtype="0" fill="hold" '
    'nodeType="afterEffect"><p:stCondLst><p:cond delay="0"/></p:stCondLst><p:childTnLst>'
    '<p:cmd type="call" cmd="playFrom(0.0)"><p:cBhvr><p:cTn id="6" dur="{ms}" fill="hold"/>'
    '<p:tgtEl><p:spTgt spid="{spid}"/></p:tgtEl></p:cBhvr></p:cmd>'
    '</p:childTnLst></p:cTn></p:par></p:childTnLst></p:cTn></p:par></p:childTnLst></p:cTn></p:par>'
    '</p:childTnLst></p:cTn>'
    '<p:prevCondLst><p:cond evt="onPrev" delay="0"><p:tgtEl><p:sldTgt/></p:tgtEl></p:cond></p:prevCondLst>'
    '<p:nextCondLst><p:cond evt="onNext" delay="0"><p:tgtEl><p:sldTgt/></p:tgtEl></p:cond></p:nextCondLst>'
    '</p:seq>'
    '<p:video><p:cMediaNode vol="80000"><p:cTn id="7" fill="hold" display="0"><p:stCondLst>'
    '<p:cond delay="indefinite"/></p:stCondLst></p:cTn><p:tgtEl><p:spTgt spid="{spid}"/></p:tgtEl>'
    '</p:cMediaNode></p:video></p:childTnLst></p:cTn></p:par></p:tnLst></p:timing>')


def _autoplay(slide: Any, movie: Any, seconds: float) -> None:
    """Make ``movie`` play from its start when ``slide`` appears in a slide
    show (python-pptx's own timing plays it only on a click)."""
    from pptx.oxml import parse_xml

    old = slide.element.get_or_add_timing()
    old.addprevious(parse_xml(AUTOPLAY.format(ms=max(1, round(seconds * 1000)), spid=movie.shape_id)))
    slide.element.remove(old)


def _text_box(slide: Any, box: tuple[int, int, int, int], text: str, size: int, bold: bool = False,
              colour: str | None = None) -> Any:
    """A word-wrapped text box at ``box`` (left, top, width, height in EMU)."""
    from pptx.dml.color import RGBColor
    from pptx.util import Emu, Pt

    shape = slide.shapes.add_textbox(*(Emu(v) for v in box))
    frame = shape.text_frame
    frame.word_wrap = True
    frame.text = text
    for paragraph in frame.paragraphs:
        paragraph.font.size, paragraph.font.bold = Pt(size), bold
        if colour:
            paragraph.font.color.rgb = RGBColor.from_string(colour)
    return shape


def _place(shape: Any, box: tuple[int, int, int, int]) -> None:
    """Set all four of a placeholder's position and size: setting only some
    writes the others as 0 (the title slide's title and subtitle once sat at
    y = 0 with no height, one over the other)."""
    from pptx.util import Emu

    shape.left, shape.top, shape.width, shape.height = (Emu(v) for v in box)


W_DECK, H_DECK = 12192000, 6858000   # 16:9, in EMU


def build_deck(clips: list[Clip], lang: str, dest: Path, chapters: Sequence[Chapter] = (),
               beat_clips: dict[str, list[BeatPart]] | None = None, checkpoints: bool = True) -> None:
    """A 16:9 deck: the lesson's title and chapters, then per scene its
    title, its question (as on the lesson page), its clip (poster as preview,
    playing from the start when the slide appears) and its narration as
    speaker notes.  With ``beat_clips`` (scene -> each beat and its part of
    the clip, ``cut_beats``), one slide per beat instead, as manim-slides
    makes them: the scene's title with the beat's number, the beat's part
    playing when the slide appears (previewed by the beat's last frame),
    its sentence as the notes.  With ``checkpoints``, the notes of the
    slide where a checkpoint is asked (the scene's; the beat's before the
    one that shows its answer) carry its question, choices and answer.
    The file's title, subject, author and language are set."""
    from pptx import Presentation
    from pptx.util import Emu, Pt

    prs = Presentation()
    W, H = W_DECK, H_DECK
    prs.slide_width, prs.slide_height = Emu(W), Emu(H)
    props = prs.core_properties
    title = lesson_intro(lang, chapters).title
    props.title, props.subject = title, tr(lang, "lesson.generated")
    props.author = props.last_modified_by = "qkv-lens"
    props.language = lang
    margin = W // 24
    cover = prs.slides.add_slide(prs.slide_layouts[0])
    cover.shapes.title.text = title
    cover.placeholders[1].text = "\n".join(chapter_names(chapters, clips, lang))
    _place(cover.shapes.title, (margin, H * 2 // 10, W - 2 * margin, H * 3 // 10))
    _place(cover.placeholders[1], (margin, H * 54 // 100, W - 2 * margin, H * 36 // 100))
    title_top, title_h = H // 40, H // 8
    ask_top, ask_h = title_top + title_h, H // 8

    def slide_for(clip: Clip, heading: str, video: Path, poster: str | None, seconds: float, notes: str) -> None:
        slide = prs.slides.add_slide(prs.slide_layouts[5])   # title only
        title = slide.shapes.title
        title.text = heading
        _place(title, (margin, title_top, W - 2 * margin, title_h))
        for paragraph in title.text_frame.paragraphs:
            paragraph.font.size = Pt(32)
        ask = f"{tr(lang, 'page.think')} {tr(lang, f'page.ask.{clip.scene.section}')}"
        _text_box(slide, (margin, ask_top, W - 2 * margin, ask_h), ask, 18)
        top = ask_top + ask_h + H // 80
        box_w, box_h = W - 2 * margin, H - top - H // 20
        aspect = Fraction(clip.width or 16, clip.height or 9)
        w = min(box_w, int(box_h * aspect))
        h = int(w / aspect)
        left = (W - w) // 2
        movie = slide.shapes.add_movie(str(video), Emu(left), Emu(top + (box_h - h) // 2), Emu(w), Emu(h),
                                       poster_frame_image=poster, mime_type="video/mp4")
        _autoplay(slide, movie, seconds)
        slide.notes_slide.notes_text_frame.text = notes

    for clip in clips:
        name = tr(lang, f"{clip.scene.section}.title")
        poster = str(clip.poster) if clip.poster else None
        questions = asked(clip) if checkpoints else []
        if beat_clips is None:
            notes = ["\n".join(narration(clip, lang)), *(checkpoint_note(a, i + 1, lang) for i, a in questions)]
            slide_for(clip, name, clip.video, poster, clip.duration, "\n\n".join(notes))
            continue
        parts = beat_clips[clip.scene.name]
        where: dict[int, list[str]] = {}     # a checkpoint is asked as the beat before the one it comes before ends
        for i, a in questions:
            where.setdefault(max(0, i - 1), []).append(checkpoint_note(a, i + 1, lang))
        for n, part in enumerate(parts, start=1):
            notes = [part.beat.say, *where.get(n - 1, [])]
            slide_for(clip, f"{name} · {n}/{len(parts)}", part.video, str(part.poster) if part.poster else poster,
                      part.beat.end - part.beat.start, "\n\n".join(notes))
    prs.save(str(dest))


@dataclass(frozen=True)
class BeatPart:
    """A beat's part of its clip (``cut_beats``): the beat, its mp4 and its
    last frame as a PNG (None when no frame falls inside the beat)."""
    beat: beats_file.Beat
    video: Path
    poster: Path | None


def cut_beats(clip: Clip, folder: Path) -> list[BeatPart]:
    """The clip cut at its beats: one mp4 per beat in ``folder`` (h264 and,
    when the clip has sound, AAC; frames and samples from the beat's start
    to its end, encoded again, since a beat rarely starts on a key frame),
    and the beat's last frame as a PNG beside it (its slide's preview)."""
    import av
    import numpy as np

    found = list(_beats(clip).values())
    if not found:
        raise ExportError(f"{clip.scene.name}: its render has no beats file; render it again to cut it at its beats")
    sound, sr = None, 0          # the clip's sound, decoded once (mono, float), cut for each beat below
    with av.open(str(clip.video)) as src:
        if src.streams.audio:
            ain = src.streams.audio[0]
            sr = ain.codec_context.sample_rate
            resample = av.AudioResampler(format="fltp", layout="mono", rate=sr)
            chunks = [f.to_ndarray() for raw in src.decode(ain) for f in resample.resample(raw)]
            sound = np.concatenate(chunks, axis=1) if chunks else np.zeros((1, 0), np.float32)
    out = []
    for n, beat in enumerate(found, start=1):
        dest = folder / f"{clip.scene.name}-{n:02d}.mp4"
        with av.open(str(clip.video)) as src, av.open(str(dest), "w", format="mp4") as dst:
            vin = src.streams.video[0]
            rate = vin.average_rate or Fraction(15)
            vout = dst.add_stream("libx264", rate=rate, options={"crf": "18", "preset": "veryfast"})
            vout.width, vout.height, vout.pix_fmt = vin.codec_context.width, vin.codec_context.height, "yuv420p"
            aout = dst.add_stream("aac", rate=sr, layout="mono") if sound is not None else None
            k, last = 0, None
            for frame in src.decode(vin):
                if frame.time is None or frame.time < beat.start - 1e-6:
                    continue
                if frame.time >= beat.end - 1e-6:
                    break
                last = frame
                frame = frame.reformat(format="yuv420p")
                frame.pts, frame.time_base = k, Fraction(1) / rate
                k += 1
                dst.mux(vout.encode(frame))
            dst.mux(vout.encode(None))
            if sound is not None and aout is not None:
                part = sound[:, round(beat.start * sr):round(beat.end * sr)].astype(np.float32)
                for at in range(0, part.shape[1], AUDIO_FRAME):
                    piece = av.AudioFrame.from_ndarray(np.ascontiguousarray(part[:, at:at + AUDIO_FRAME]),
                                                       format="fltp", layout="mono")
                    piece.sample_rate, piece.pts = sr, at
                    dst.mux(aout.encode(piece))
                dst.mux(aout.encode(None))
        poster = None
        if last is not None:
            poster = dest.with_suffix(".png")
            last.to_image().save(poster)
        out.append(BeatPart(beat, dest, poster))
    return out


NOT_A_CHAR = "\U0010fffd"   # drawn as the font's "missing glyph" box


class Pen:
    """Draws text in the lesson's font for ``lang``, falling back to DejaVu
    Sans for the characters it lacks (Noto Sans CJK has no ᵀ)."""

    def __init__(self, lang: str, size: int, bold: bool = False):
        from PIL import ImageFont

        try:
            family = font_for(lang)
        except Exception:   # noqa: BLE001 - manimpango or a CJK font missing: fontconfig's choice
            family = "sans"
        self.fonts: list[Any] = []
        for name in (family, "DejaVu Sans"):
            file, index = font_file(name, bold)
            try:
                self.fonts.append(ImageFont.truetype(file, size, index=index))
            except OSError:
                pass
        if not self.fonts:
            self.fonts.append(ImageFont.load_default(size))
        self.size = size
        self._missing = bytes(self.fonts[0].getmask(NOT_A_CHAR))
        self._font: dict[str, Any] = {}

    def runs(self, text: str) -> list[tuple[str, Any]]:
        """``text`` cut into pieces that each one font draws."""
        out: list[tuple[str, Any]] = []
        for ch in text:
            font = self._font.get(ch)
            if font is None:
                lacks = len(self.fonts) > 1 and not ch.isspace() and bytes(self.fonts[0].getmask(ch)) == self._missing
                font = self._font[ch] = self.fonts[1 if lacks else 0]
            if out and out[-1][1] is font:
                out[-1] = (out[-1][0] + ch, font)
            else:
                out.append((ch, font))
        return out

    def length(self, text: str) -> float:
        return sum(font.getlength(piece) for piece, font in self.runs(text))

    def write(self, draw: Any, xy: tuple[float, float], text: str, fill: str, stroke: int = 0) -> None:
        x, y = xy
        for piece, font in self.runs(text):
            draw.text((x, y), piece, font=font, fill=fill, stroke_width=stroke, stroke_fill="black")
            x += font.getlength(piece)


def build_handout(clips: list[Clip], probes: list[Probe], lang: str, dest: Path,
                  chapters: Sequence[Chapter] = (), checkpoints: bool = True) -> None:
    """The PDF handout (``qkv_lens.app.handout``): one A4 page per scene,
    its key frame the end of its last beat; headed by the lesson's title
    (``page.lesson_intro`` of its ``chapters``).  With ``checkpoints``, each
    scene's questions (numbered through the lesson, with their choices) and
    an answer key at the end."""
    lesson = lesson_intro(lang, chapters).title
    pages, key = [], []
    for n, (clip, probe) in enumerate(zip(clips, probes), start=1):
        section = clip.scene.section
        ends = sorted(b.end for b in _beats(clip).values())
        seconds = float(probe.seconds)
        minutes, rest = divmod(round(seconds), 60)
        try:
            picture = handout.key_frame(clip.video, handout.key_time(seconds, ends, probe.stream.rate))
        except (OSError, ValueError) as err:
            raise ExportError(f"{shown(clip.video)}: cannot read its key frame ({err})") from None
        try:
            formula = handout.formula_for(section)
        except LatexFailed as err:
            raise ExportError(f"formulas.{section}: {err}") from None
        questions = []
        for _, ask in asked(clip) if checkpoints else []:
            key.append(f"{len(key) + 1}. {tr(lang, f'{section}.title')}: {ask.shown}")
            questions.append(handout.Question(len(key), ask.question, tuple(choice_lines(ask, lang))))
        pages.append(handout.PageContent(
            lesson=lesson, title=tr(lang, f"{section}.title"), questions=tuple(questions),
            question=tr(lang, f"page.ask.{section}"), picture=picture, summary=tr(lang, f"{section}.summary"),
            formula_words=tr(lang, f"export.formula.{section}"), formula=formula,
            sayings=tuple(narration(clip, lang)), descriptions=tuple(descriptions(clip)),
            footer=tr(lang, "export.footer", n=n, total=len(clips), length=f"{minutes}:{rest:02d}")))
    handout.write_pdf(pages, lang, dest, f"{lesson} · {tr(lang, 'export.handout')}", tuple(key))


class Staging:
    """Temporary files beside their targets (``qkv_lens.store.temp_beside``:
    random names created exclusively), renamed into place all or none by
    ``commit``; ``discard`` removes them all."""

    def __init__(self) -> None:
        self.parts: list[tuple[Path, Path]] = []

    def path(self, target: Path) -> Path:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = temp_beside(target)
        self.parts.append((tmp, target))
        return tmp

    def text(self, target: Path, text: str) -> None:
        self.path(target).write_text(text, encoding="utf-8")

    def commit(self) -> list[Path]:
        """Rename each temporary file over its target, all or none: the file
        a target held is kept first (``keep``); when a rename fails or is
        interrupted, every target already renamed gets its previous file
        back (or is removed when it had none) and the error is raised.  The
        kept files go once every file is in place."""
        done: list[tuple[Path, Path | None]] = []     # a target renamed into place, its previous file
        try:
            for tmp, target in self.parts:
                kept = keep(target)
                done.append((target, kept))
                os.replace(tmp, target)
        except BaseException:
            for target, kept in reversed(done):
                try:
                    if kept is not None:
                        os.replace(kept, target)
                        kept.unlink(missing_ok=True)   # still there when both name one file: rename does nothing
                    else:
                        target.unlink(missing_ok=True)
                except OSError:
                    continue
            raise
        for _, kept in done:
            if kept is not None:
                kept.unlink(missing_ok=True)
        return [target for _, target in self.parts]

    def discard(self) -> None:
        for tmp, _ in self.parts:
            tmp.unlink(missing_ok=True)


def keep(target: Path) -> Path | None:
    """The file at ``target`` kept under a new temporary name beside it (a
    hard link, so ``target`` stays in place; moved where the file system has
    none); None when nothing is there.  IsADirectoryError for a folder."""
    if not os.path.lexists(target):
        return None
    if os.path.isdir(target) and not os.path.islink(target):
        raise IsADirectoryError(errno.EISDIR, "a folder is where the file goes", str(target))
    kept = temp_beside(target)
    try:
        kept.unlink()
        os.link(target, kept, follow_symlinks=False)    # a symlink is kept as the link it is
    except OSError:
        os.replace(target, kept)
    return kept


def record(out_root: Path, rel: str, folder: Path, written: list[str], made: dict) -> str:
    """The export record of ``folder`` (``rel`` inside ``out_root``,
    ``qkv_lens.app.joined``) once ``written`` are in place: ``made`` for
    each of them, the previous record's entry for every other export file
    there (``lesson.*``)."""
    kept = {name: e for name, e in joined.read(out_root, f"{rel}/{joined.NAME}").items()
            if name not in written and name != joined.NAME and name.startswith(f"{STEM}.")
            and Path(name).name == name and (folder / name).is_file()}
    return json.dumps(dict(kept, **dict.fromkeys(written, made)), ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def export(out_root: Path, langs: list[str], quality: str, chapters: Sequence[Chapter],
           scenes: Sequence[SceneInfo], pdf: bool = False, out_arg: str = "renders",
           burn_captions: bool = False, deck: str = "scenes", checkpoints: bool = True, scorm_zip: bool = False,
           pass_score: float = 0.8, lesson_dir: Path | None = None) -> list[Path]:
    """Export ``scenes`` (in their order; the deck's cover lists the
    ``chapters`` they are in) in each of ``langs`` at ``quality`` (a -q
    letter); return the files written.  ``checkpoints`` (the lesson's
    key): the handout and the decks' notes carry the scenes' questions.
    ``scorm_zip``: also a course package (``qkv_lens.app.scorm``) that
    passes a learner at ``pass_score``; ``lesson_dir``: the lesson's folder
    (its own scenes).  ExportError (nothing written) on any
    fault, naming only what is missing among ``scenes``."""
    clean_parts(out_root)   # what a killed export or render left
    check_rendered(out_root, langs, quality, scenes, out_arg)   # every scene missing, in every language
    plans = []
    for lang in langs:      # every check before anything is written
        clips = find_clips(out_root, lang, quality, scenes, out_arg)
        probes = [probe_clip(c.video) for c in clips]
        check_joinable(clips, probes, lang, quality, out_arg)
        try:
            folder = folder_inside(out_root, f"{lang}/{QUALITIES[quality]}")
        except Unsafe as err:
            raise ExportError(str(err)) from None
        plans.append((lang, folder, clips, probes))
    lesson = [name for chapter in chapters for name in chapter.scenes]
    staging = Staging()
    try:
        for lang, folder, clips, probes in plans:
            first = len(staging.parts)
            titles = [tr(lang, f"{c.scene.section}.title") for c in clips]
            starts = offsets(probes)
            subs = join_subtitles(clips, starts)
            tracks = subtitle_tracks(out_root, lang, quality, clips, starts, subs, offered())
            burn = Captions(tracks[0][1], lang, probes[0].stream.height) if burn_captions else None
            said = describe_clips(clips, lang, lesson_dir)
            extended = any(x.hold > 0 for clip_said in said for x in clip_said)
            join_videos(clips, probes, titles, staging.path(folder / f"{STEM}.mp4"), tracks, burn,
                        said if any(said) and not extended else None, lang)
            if any(said):
                staging.text(folder / DESCRIPTIONS, described.vtt(said, starts))
            if extended:      # a description runs past its beat: the described version holds the picture for it
                import av
                try:
                    described.write_held([c.video for c in clips], probes, titles, said,
                                         staging.path(folder / DESCRIBED), tracks[0][1], starts, lang,
                                         tr(lang, "export.described_track"))
                except av.FFmpegError as err:
                    raise ExportError(f"cannot write {DESCRIBED} ({err})") from None
            staging.text(folder / f"{STEM}.srt", subs)
            staging.text(folder / f"{STEM}.vtt", srt_to_vtt(subs))
            staging.text(folder / f"{STEM}.chapters.vtt", chapters_vtt(titles, starts))
            if deck == "beats":     # one slide per beat: the parts are cut in a temporary folder, then embedded
                with tempfile.TemporaryDirectory(prefix="qkv-beats-") as tmp:
                    parts = {c.scene.name: cut_beats(c, Path(tmp)) for c in clips}
                    build_deck(clips, lang, staging.path(folder / BEATS_DECK), chapters, parts, checkpoints)
            else:
                build_deck(clips, lang, staging.path(folder / f"{STEM}.pptx"), chapters, None, checkpoints)
            if pdf:
                build_handout(clips, probes, lang, staging.path(folder / f"{STEM}.pdf"), chapters, checkpoints)
            if scorm_zip:
                try:
                    scorm.write_package(out_root, lang, QUALITIES[quality], chapters, [c.scene.name for c in clips],
                                        staging.path(folder / scorm.NAME), pass_score, checkpoints, lesson_dir)
                except scorm.PackageError as err:
                    raise ExportError(str(err)) from None
            written = [target.name for _, target in staging.parts[first:]]
            staging.text(folder / joined.NAME, record(out_root, f"{lang}/{QUALITIES[quality]}", folder, written,
                                                      joined.entry(lesson, {c.scene.name: c.key for c in clips})))
        return staging.commit()
    except OSError as err:
        staging.discard()
        where = err.filename or out_root
        raise ExportError(f"{shown(where)}: {err.strerror or err}; nothing was exported") from None
    except BaseException:
        staging.discard()
        raise
