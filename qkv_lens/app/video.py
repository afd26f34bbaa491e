"""Measures of a rendered video, shared by the pipeline and the tests: its
probe, the longest still stretch, beats that leave the picture as they found
it, and frames where something touches the edge."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class VideoInfo:
    duration: float   # seconds: the last frame's time plus one frame
    width: int
    height: int
    frames: int
    rate: float       # frames per second


def probe(video: Path, poster: Path | None = None, poster_at: float | None = None,
          decoded: bool = False) -> VideoInfo:
    """Decode every frame of ``video`` (so a broken file fails here) and, if
    ``poster`` is given, save there as PNG the last frame before
    ``poster_at`` seconds (default: the last frame), with its alpha when
    the video is transparent.  ``decoded``: its frames were decoded already
    (the pieces of a split render, each checked where it was rendered), so
    its packets are counted and frames decoded only up to the poster."""
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"   # frame and slice threads: the same frames, a fifth sooner where a core is free
        rate = float(stream.average_rate or 15)
        last, chosen, frames = None, None, 0
        if decoded and poster_at is not None:
            times = [p.pts for p in container.demux(stream) if p.size and p.pts is not None]
            if not times:
                raise ValueError(f"{video} has no frames")
            frames, end = len(times), float(max(times) * stream.time_base) + 1 / rate
            container.seek(0)
            for frame in container.decode(stream):
                if float(frame.pts * stream.time_base) >= poster_at:
                    break
                chosen = frame
            last = chosen
        else:
            for frame in container.decode(stream):
                last, frames = frame, frames + 1
                if poster_at is None or float(frame.pts * stream.time_base) < poster_at:
                    chosen = frame
            if last is None:
                raise ValueError(f"{video} has no frames")
            end = float(last.pts * stream.time_base) + 1 / rate
        if poster is not None:
            chosen = chosen or last
            if chosen is None:
                raise ValueError(f"{video}: no frame before {poster_at} s")
            image = chosen.to_image()
            if any(c.is_alpha for c in chosen.format.components):
                rgba = chosen.to_ndarray(format="rgba")
                if (rgba[..., 3] < 255).any():  # a transparent video gets a transparent poster
                    from PIL import Image
                    image = Image.fromarray(rgba, "RGBA")
            image.save(poster, format="PNG")
        return VideoInfo(end, stream.width, stream.height, frames, rate)


def longest_hold(video: Path, tail: float = 1.5, level: int = 24, pixels: int = 30) -> tuple[float, float]:
    """(seconds, start) of the longest stretch of ``video`` in which the
    picture stands still: fewer than ``pixels`` pixels change by more than
    ``level`` grey levels from one frame to the next.  A hold that runs into
    the last ``tail`` seconds counts only up to there (an end hold is fine)."""
    import av
    import numpy as np

    best, start, prev, end = (0.0, 0.0), None, None, 0.0
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            t = float(frame.pts * stream.time_base)
            grey = frame.to_ndarray(format="gray").astype(np.int16)
            still = prev is not None and int((np.abs(grey - prev) > level).sum()) < pixels
            start = (start if start is not None else t) if still else None
            if start is not None:
                best = max(best, (t - start, start))
            prev, end = grey, t
    if best[1] + best[0] > end - tail:
        best = (max(0.0, end - tail - best[1]), best[1])
    return best


def longest_still(video: Path, tail: float = 1.5, level: int = 24, share: float = 0.001) -> tuple[float, float]:
    """(seconds, start) of the longest stretch of ``video`` in which every
    frame differs from the stretch's first frame in fewer than ``share`` of
    its pixels (by more than ``level`` grey levels): a flicker or a small
    sliding dot does not end it, as it ends a hold.  A stretch that runs into
    the last ``tail`` seconds counts only up to there."""
    import av
    import numpy as np

    best, first, start, t = (0.0, 0.0), None, 0.0, 0.0
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            t = float(frame.pts * stream.time_base)
            grey = frame.to_ndarray(format="gray").astype(np.int16)
            if first is None or int((np.abs(grey - first) > level).sum()) >= share * grey.size:
                first, start = grey, t
            best = max(best, (t - start, start))
    if best[1] + best[0] > t - tail:
        best = (max(0.0, t - tail - best[1]), best[1])
    return best


SUBTITLE_BAND = 0.12   # the bottom of the frame the subtitles take (kept out of every picture measure)


THUMB = (256, 144)     # frames are compared as small grey thumbnails: a change must be seen, not a pixel


def grey_frames_at(video: Path, times: list[float]) -> dict[float, Any]:
    """The frame shown at each of ``times`` (s) as a THUMB-sized grey
    thumbnail (int16 array, bilinear): the first frame that starts at or
    after it (the last frame for a time past the end)."""
    import av
    import numpy as np
    from PIL import Image

    def thumb(frame: Any) -> Any:
        return np.asarray(frame.to_image().convert("L").resize(THUMB, Image.BILINEAR), dtype=np.int16)

    want, out, i, last = sorted(set(times)), {}, 0, None
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            t = float(frame.pts * stream.time_base)
            while i < len(want) and t >= want[i] - 1e-6:
                out[want[i]] = thumb(frame)
                i += 1
            last = frame
    for t in want[i:]:
        out[t] = thumb(last)
    return out


def _changed(a: Any, b: Any, level: int = 24, pixels: int = 12) -> bool:
    return int((abs(a - b) > level).sum()) >= pixels


def _region(frame: Any, box: tuple[float, float, float, float] | None, frame_width: float,
            frame_height: float) -> Any:
    """The part of ``frame`` above the subtitle band, or inside ``box``
    (scene units: left, bottom, right, top; the origin at the centre)."""
    h, w = frame.shape
    if box is None:
        return frame[: int(h * (1 - SUBTITLE_BAND))]
    x0 = int(max(0, (box[0] / frame_width + 0.5) * w))
    x1 = int(min(w, (box[2] / frame_width + 0.5) * w + 1))
    y0 = int(max(0, (0.5 - box[3] / frame_height) * h))
    y1 = int(min(h * (1 - SUBTITLE_BAND), (0.5 - box[1] / frame_height) * h + 1))
    return frame[y0:max(y0 + 1, y1), x0:max(x0 + 1, x1)]


@dataclass(frozen=True)
class BeatChange:
    id: str
    start: float
    end: float
    picture: bool         # the picture above the subtitle band differs between the beat's start and end
    named: bool | None    # what the beat names (its focus box) differs too; None when it names nothing


def beat_changes(video: Path, beats: Any, frame_width: float = 14.222, frame_height: float = 8.0,
                 ) -> list[BeatChange]:
    """For each beat of ``beats`` (a ``qkv_lens.beats.Beats``): whether its
    picture, and the part it names, are different at its end (0.1 s before)
    from its start (0.1 s after).  Whatever moved in between and went back (a
    pulse, a flash) left nothing new."""
    keys = [(round(b.start + 0.1, 3), round(b.end - 0.1, 3)) for b in beats.beats]
    frames = grey_frames_at(video, [t for k in keys for t in k])
    out = []
    for b, (a, z) in zip(beats.beats, keys):
        whole = _changed(_region(frames[a], None, frame_width, frame_height),
                         _region(frames[z], None, frame_width, frame_height))
        named = None if b.focus is None else _changed(_region(frames[a], b.focus, frame_width, frame_height),
                                                     _region(frames[z], b.focus, frame_width, frame_height))
        out.append(BeatChange(b.id, b.start, b.end, whole, named))
    return out


def talk_only_run(video: Path, beats: Any) -> tuple[float, float, list[str]]:
    """(seconds, start, ids) of the longest run of consecutive beats whose
    picture above the subtitle band is the same at their end as at their start."""
    best, at, ids, start, run = 0.0, 0.0, [], 0.0, []
    for c in beat_changes(video, beats):
        if c.picture:
            run = []
            continue
        start, run = (c.start if not run else start), [*run, c.id]
        if c.end - start > best:
            best, at, ids = c.end - start, start, run
    return best, at, ids


def edge_frames(video: Path, margin: int = 3, level: int = 60, least: int = 4) -> list[float]:
    """Times of the frames in which ``least`` or more bright pixels touch the
    left, right or top edge (the subtitle band aside): something cut off."""
    import av

    hits = []
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            g = frame.to_ndarray(format="gray")
            h, w = g.shape
            top = g[: int(h * (1 - SUBTITLE_BAND))]
            n = int((top[:, :margin] > level).sum() + (top[:, w - margin:] > level).sum() + (g[:margin] > level).sum())
            if n >= least:
                hits.append(float(frame.pts * stream.time_base))
    return hits
