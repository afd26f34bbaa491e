"""A held frame turned into the video's pixels once: ``held_frames(writer)``.

A still wait is one frame that manim hands its encoder with ``repeat``
(a third of a scene's frames, most of them 720p).  manim's encoder makes a
new frame of the pixels and converts it from RGBA to yuv420p for every
copy: about 2.5 ms of a held frame's 5.6 ms at 720p.  Here a held frame is
converted once and that frame is encoded ``repeat`` times; x264 is given the
very same pixels, so the video is the same, byte for byte.
"""
from __future__ import annotations

from fractions import Fraction

import av
from manim.scene.scene_file_writer import SceneFileWriter
from manim.scene.video_segment_encoder import VideoSegmentEncoder

CONVERTED = "yuv420p"    # mp4's pixels; other outputs (gif, a transparent mov) are left to manim


class HeldFrameEncoder(VideoSegmentEncoder):
    """manim's segment encoder, a repeated frame converted once."""

    def write_frame(self, pixels, *, repeat: int = 1) -> None:
        if repeat == 1 or self.spec.pixel_format != CONVERTED:
            return super().write_frame(pixels, repeat=repeat)
        self._validate_frame(pixels, repeat)
        rate = self.spec.frame_rate
        try:
            frame = av.VideoFrame.from_ndarray(pixels, format="rgba").reformat(format=CONVERTED)
            frame.time_base = Fraction(rate.denominator, rate.numerator)
            for _ in range(repeat):
                frame.pts = self._next_pts
                self._next_pts += 1
                for packet in self._stream.encode(frame):
                    self._container.mux(packet)
        except BaseException as error:
            raise self._operation_error("encode", error) from error


class _Writer(SceneFileWriter):
    def _create_segment_encoder(self, target):
        if self.video_encoder is None:
            return super()._create_segment_encoder(target)
        return HeldFrameEncoder(target=target, spec=self.video_encoder)


def held_frames(writer: SceneFileWriter) -> SceneFileWriter:
    """Make ``writer`` (a scene's file writer) encode with ``HeldFrameEncoder``; return it."""
    if type(writer) is SceneFileWriter:
        writer.__class__ = _Writer
    return writer
