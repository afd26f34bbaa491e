"""One probe of a rendered video, shared by the pipeline and the tests."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class VideoInfo:
    duration: float   # seconds: the last frame's time plus one frame
    width: int
    height: int
    frames: int
    rate: float       # frames per second


def probe(video: Path, poster: Path | None = None, poster_at: float | None = None) -> VideoInfo:
    """Decode every frame of ``video`` (so a broken file fails here) and, if
    ``poster`` is given, save there as PNG the last frame before
    ``poster_at`` seconds (default: the last frame), with its alpha when
    the video is transparent."""
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        last, chosen, frames = None, None, 0
        for frame in container.decode(stream):
            last, frames = frame, frames + 1
            if poster_at is None or float(frame.pts * stream.time_base) < poster_at:
                chosen = frame
        if last is None:
            raise ValueError(f"{video} has no frames")
        rate = float(stream.average_rate or 15)
        if poster is not None:
            chosen = chosen or last
            image = chosen.to_image()
            if any(c.is_alpha for c in chosen.format.components):
                rgba = chosen.to_ndarray(format="rgba")
                if (rgba[..., 3] < 255).any():  # a transparent video gets a transparent poster
                    from PIL import Image
                    image = Image.fromarray(rgba, "RGBA")
            image.save(poster, format="PNG")
        return VideoInfo(float(last.pts * stream.time_base) + 1 / rate, stream.width, stream.height,
                         frames, rate)


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
