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
  from the picture across the joins.
- ``lesson.srt`` / ``lesson.vtt``: every clip's cues, shifted by the time
  its clip starts; ``lesson.chapters.vtt``: one cue per scene.
- ``lesson.pptx``: a title slide, then one slide per scene with its clip
  embedded (poster as the preview) and its narration in the speaker notes.
- ``lesson.pdf`` (``--pdf``): a handout, one page per scene: poster, summary,
  key formula.

Everything is checked first (a scene without a render, a listed file that
is missing, clips that cannot be joined: an ExportError, one line), then
written to temporary files in the target folders and renamed into place
only when every file of every language is complete; a failure or an
interrupt leaves nothing behind and the previous exports as they were.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import srt

from qkv_lens import beats as beats_file
from qkv_lens.app import manifest
from qkv_lens.app.subtitles import cues, srt_to_vtt
from qkv_lens.cues import fit_lines
from qkv_lens.languages import font_for
from qkv_lens.lesson import Chapter
from qkv_lens.registry import QUALITIES, SceneInfo
from qkv_lens.store import Unsafe, clean_parts, folder_inside, read_regular, shown, temp_beside
from qkv_lens.texts import tr

STEM = "lesson"
AUDIO_FRAME = 1024   # samples per AAC frame


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


def render_hint(scene: str, lang: str, quality: str, out_arg: str) -> str:
    out = "" if out_arg == "renders" else f" --out {out_arg}"
    return f"render it first: qkv-lens render {scene} --lang {lang} -q {quality}{out}"


POSTER_BYTES = 64 << 20      # a poster is one frame: a 2160p PNG is a few MiB
SUBTITLE_BYTES = 4 << 20


def find_clips(out_root: Path, lang: str, quality: str, scenes: Sequence[SceneInfo],
               out_arg: str = "renders") -> list[Clip]:
    """The mp4 render of each of ``scenes`` (in that order), from the
    manifest; ExportError naming the first of them without one, or the
    first listed file that is missing, leads outside ``out_root`` or is not
    a file."""
    try:
        entries = manifest.load_checked(out_root)
    except manifest.ManifestError as err:
        raise ExportError(str(err)) from None
    folder = QUALITIES[quality]
    clips = []
    for scene in scenes:
        hint = render_hint(scene.name, lang, quality, out_arg)
        e = entries.get(manifest.entry_id(scene.name, lang, folder, "mp4"))
        if e is None:
            raise ExportError(f"{scene.name} has no {folder} mp4 render in {lang} "
                              f"({shown(out_root / manifest.NAME)}); {hint}")
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
                          int(e.get("height") or 0), float(e["duration"])))
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


def _silence_or_sound(video: Path, has_audio: bool, rate: int, layout: str) -> Iterator:
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


def join_videos(clips: list[Clip], probes: list[Probe], titles: list[str], dest: Path) -> None:
    """Write the clips one after another into the mp4 ``dest`` (video
    packets copied, one chapter per clip titled ``titles[i]``, ``moov``
    first, one AAC track if any clip has sound); ExportError if PyAV fails."""
    import av

    try:
        _join(clips, probes, titles, dest)
    except av.FFmpegError as err:
        raise ExportError(f"cannot join the clips into {STEM}.mp4 ({err})") from None


def _join(clips: list[Clip], probes: list[Probe], titles: list[str], dest: Path) -> None:
    import av
    import numpy as np

    starts = offsets(probes)
    sound = [p.audio for p in probes if p.audio]
    with av.open(str(clips[0].video)) as template, \
            av.open(str(dest), "w", format="mp4", options={"movflags": "+faststart"}) as out:
        out.metadata.update({k: v for k, v in template.metadata.items() if k in ("comment",)})
        vout = out.add_stream_from_template(template.streams.video[0])
        tb = Fraction(probes[0].time_base)
        aout, rate, channels, layout = None, 0, 0, "mono"
        if sound:
            rate, channels = sound[0][0], min(2, max(ch for _, ch in sound))
            layout = "mono" if channels == 1 else "stereo"
            aout = out.add_stream("aac", rate=rate, layout=layout)
        ms = Fraction(1, 1000)
        out.set_chapters([{"id": i + 1, "start": round(starts[i] / ms), "end": round(starts[i + 1] / ms),
                           "time_base": ms, "metadata": {"title": title}} for i, title in enumerate(titles)])
        pending = np.zeros((channels, 0), np.float32)
        written = 0   # audio samples handed to the encoder so far
        last_dts = -(1 << 62)
        for i, (clip, p) in enumerate(zip(clips, probes)):
            timed: list[tuple[Fraction, int, av.Packet]] = []
            shift = starts[i] / tb   # this clip's start in the lesson, in the output time base
            with av.open(str(clip.video)) as c:
                vin = c.streams.video[0]
                scale = Fraction(vin.time_base or tb) / tb
                for packet in c.demux(vin):
                    if packet.dts is None or packet.pts is None:
                        continue
                    dts = round((packet.dts - p.start) * scale + shift)
                    dts = max(dts, last_dts + 1)   # a clip with a longer B-frame delay than the one before
                    packet.pts = max(dts, round((packet.pts - p.start) * scale + shift))
                    packet.dts = last_dts = dts
                    packet.stream = vout
                    timed.append((packet.dts * tb, 0, packet))
            if aout is not None:
                goal = round(starts[i + 1] * rate)   # samples up to this clip's end
                need = goal - written - pending.shape[1]
                parts = [pending]
                for chunk in _silence_or_sound(clip.video, p.audio is not None, rate, layout):
                    if need <= 0:
                        break
                    chunk = chunk[:, :need]
                    parts.append(chunk)
                    need -= chunk.shape[1]
                if need > 0:
                    parts.append(np.zeros((channels, need), np.float32))
                pending = np.ascontiguousarray(np.concatenate(parts, axis=1), dtype=np.float32)
                last = i == len(clips) - 1
                while pending.shape[1] >= AUDIO_FRAME or (last and pending.shape[1]):
                    n = min(AUDIO_FRAME, pending.shape[1])
                    frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(pending[:, :n]),
                                                       format="fltp", layout=layout)
                    frame.sample_rate, frame.pts = rate, written
                    written += n
                    pending = pending[:, n:]
                    for packet in aout.encode(frame):
                        timed.append((Fraction(packet.pts or 0, rate), 1, packet))
                if last:
                    for packet in aout.encode(None):
                        timed.append((Fraction(packet.pts or 0, rate), 1, packet))
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


def chapters_vtt(titles: list[str], starts: list[Fraction]) -> str:
    """WebVTT chapters: one cue per scene, from its start to the next's."""
    def t(s: Fraction) -> str:
        return srt.timedelta_to_srt_timestamp(_stamp(s)).replace(",", ".")

    out = ["WEBVTT", ""]
    for i, title in enumerate(titles):
        out += [str(i + 1), f"{t(starts[i])} --> {t(starts[i + 1])}", title, ""]
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


def chapter_names(chapters: Sequence[Chapter], clips: list[Clip], lang: str) -> list[str]:
    """The titles of the chapters that hold one of ``clips``, in order."""
    there = {c.scene.name for c in clips}
    return [ch.title.name(lang) for ch in chapters if there & set(ch.scenes)]


def build_deck(clips: list[Clip], lang: str, dest: Path, chapters: Sequence[Chapter] = ()) -> None:
    """A 16:9 deck: the lesson's title and chapters, then per scene its
    title, its clip (poster as preview) and its narration as speaker notes."""
    from pptx import Presentation
    from pptx.util import Emu, Pt

    prs = Presentation()
    W, H = 12192000, 6858000   # 16:9, in EMU
    prs.slide_width, prs.slide_height = Emu(W), Emu(H)
    margin = Emu(W // 24)
    cover = prs.slides.add_slide(prs.slide_layouts[0])
    cover.shapes.title.text = tr(lang, "lesson.title")
    cover.placeholders[1].text = "\n".join(chapter_names(chapters, clips, lang))
    for shape in cover.placeholders:
        shape.left, shape.width = margin, Emu(W - 2 * margin)
    title_h = Emu(H // 7)
    for clip in clips:
        slide = prs.slides.add_slide(prs.slide_layouts[5])   # title only
        title = slide.shapes.title
        title.text = tr(lang, f"{clip.scene.section}.title")
        title.left, title.top, title.width, title.height = margin, Emu(H // 40), Emu(W - 2 * margin), title_h
        for paragraph in title.text_frame.paragraphs:
            paragraph.font.size = Pt(32)
        box_w, box_h = W - 2 * margin, H - title_h - H // 40 - margin // 2 - H // 20
        aspect = Fraction(clip.width or 16, clip.height or 9)
        w = min(box_w, int(box_h * aspect))
        h = int(w / aspect)
        left, top = (W - w) // 2, title_h + H // 40 + (box_h - h) // 2 + H // 40
        poster = str(clip.poster) if clip.poster else None
        slide.shapes.add_movie(str(clip.video), Emu(left), Emu(top), Emu(w), Emu(h),
                               poster_frame_image=poster, mime_type="video/mp4")
        slide.notes_slide.notes_text_frame.text = "\n".join(narration(clip, lang))
    prs.save(str(dest))


PAGE = (1240, 1754)   # A4 at 150 dpi
DPI = 150
NOT_A_CHAR = "\U0010fffd"   # drawn as the font's "missing glyph" box


@cache
def font_file(family: str, bold: bool = False) -> tuple[str, int]:
    """(file, face index) of ``family`` from fontconfig ('' if none)."""
    import subprocess

    pattern = f"{family}:bold" if bold else family
    try:
        found = subprocess.run(["fc-match", "-f", "%{file}|%{index}", pattern], capture_output=True,
                               text=True, timeout=10).stdout
        file, _, index = found.partition("|")
        return file, int(index or 0)
    except (OSError, ValueError, subprocess.SubprocessError):
        return "", 0


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

    def write(self, draw: Any, xy: tuple[float, float], text: str, fill: str) -> None:
        x, y = xy
        for piece, font in self.runs(text):
            draw.text((x, y), piece, font=font, fill=fill)
            x += font.getlength(piece)


def wrap(text: str, width: float, measure: Callable[[str], float], lang: str) -> list[str]:
    """``text`` broken into lines at most ``width`` wide by ``measure``, by
    the rules of the subtitles and the on-screen text (``cues.fit_lines``)."""
    return fit_lines(text, lang, width, lambda s, e: measure(text[s:e].strip()))


def handout_page(clip: Clip, n: int, total: int, seconds: Fraction, lang: str) -> Any:
    """One A4 page (a PIL image): the lesson's title, the scene's title, its
    poster, its summary and its key formula, and which scene of how many."""
    from PIL import Image, ImageDraw

    page = Image.new("RGB", PAGE, "white")
    draw = ImageDraw.Draw(page)
    margin, y = 110, 90
    width = PAGE[0] - 2 * margin
    small, body, head, big = Pen(lang, 26), Pen(lang, 32), Pen(lang, 34, True), Pen(lang, 50, True)
    small.write(draw, (margin, y), tr(lang, "lesson.title"), "#6b7280")
    y += 60
    for line in wrap(tr(lang, f"{clip.scene.section}.title"), width, big.length, lang):
        big.write(draw, (margin, y), line, "#111827")
        y += 70
    y += 20
    if clip.poster is not None:
        with Image.open(clip.poster) as poster:
            image = poster.convert("RGB")
        h = round(width * image.height / image.width)
        page.paste(image.resize((width, h), Image.Resampling.LANCZOS), (margin, y))
        y += h + 50
    for label, text in (("export.summary", f"{clip.scene.section}.summary"),
                        ("export.formula", f"export.formula.{clip.scene.section}")):
        head.write(draw, (margin, y), tr(lang, label), "#b45309")
        y += 56
        for line in wrap(tr(lang, text), width, body.length, lang):
            body.write(draw, (margin, y), line, "#111827")
            y += 48
        y += 30
    minutes, rest = divmod(round(seconds), 60)
    footer = tr(lang, "export.footer", n=n, total=total, length=f"{minutes}:{rest:02d}")
    small.write(draw, (margin, PAGE[1] - 90), footer, "#6b7280")
    return page


def build_handout(clips: list[Clip], seconds: list[Fraction], lang: str, dest: Path) -> None:
    """The PDF handout: one A4 page per scene (``handout_page``)."""
    pages = [handout_page(c, i + 1, len(clips), s, lang) for i, (c, s) in enumerate(zip(clips, seconds))]
    pages[0].save(str(dest), format="PDF", save_all=True, append_images=pages[1:], resolution=DPI,
                  title=f"{tr(lang, 'lesson.title')} · {tr(lang, 'export.handout')}")


class Staging:
    """Temporary files beside their targets (``qkv_lens.store.temp_beside``:
    random names created exclusively), renamed into place together by
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
        for tmp, target in self.parts:
            os.replace(tmp, target)
        return [target for _, target in self.parts]

    def discard(self) -> None:
        for tmp, _ in self.parts:
            tmp.unlink(missing_ok=True)


def export(out_root: Path, langs: list[str], quality: str, chapters: Sequence[Chapter],
           scenes: Sequence[SceneInfo], pdf: bool = False, out_arg: str = "renders") -> list[Path]:
    """Export ``scenes`` (in their order; the deck's cover lists the
    ``chapters`` they are in) in each of ``langs`` at ``quality`` (a -q
    letter); return the files written.  ExportError (nothing written) on any
    fault, naming only what is missing among ``scenes``."""
    clean_parts(out_root)   # what a killed export or render left
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
    staging = Staging()
    try:
        for lang, folder, clips, probes in plans:
            titles = [tr(lang, f"{c.scene.section}.title") for c in clips]
            starts = offsets(probes)
            join_videos(clips, probes, titles, staging.path(folder / f"{STEM}.mp4"))
            subs = join_subtitles(clips, starts)
            staging.text(folder / f"{STEM}.srt", subs)
            staging.text(folder / f"{STEM}.vtt", srt_to_vtt(subs))
            staging.text(folder / f"{STEM}.chapters.vtt", chapters_vtt(titles, starts))
            build_deck(clips, lang, staging.path(folder / f"{STEM}.pptx"), chapters)
            if pdf:
                build_handout(clips, [p.seconds for p in probes], lang, staging.path(folder / f"{STEM}.pdf"))
        return staging.commit()
    except OSError as err:
        staging.discard()
        where = err.filename or out_root
        raise ExportError(f"{shown(where)}: {err.strerror or err}; nothing was exported") from None
    except BaseException:
        staging.discard()
        raise
