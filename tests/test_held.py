"""kit/held.py: a still wait's frame is converted once, and the video is the
one manim's own encoder makes of the same frames, packet for packet."""
from __future__ import annotations

from pathlib import Path

import av
import numpy as np
from manim import config, tempconfig
from manim._config.output import OutputFormat, OutputSpec
from manim._config.video_encoder import resolve_video_encoder
from manim.scene.scene_file_writer import SceneFileWriter
from manim.scene.video_segment_encoder import VideoSegmentEncoder

from qkv_lens.app import encoder
from scenes.kit import held


def spec():
    """manim's mp4 encoder at -ql with the project's options (x264 off AVX-512:
    its bytes then depend on the frames alone)."""
    options = {"preset": "veryfast", "threads": "1"}
    params = encoder.without_avx512(encoder.capabilities())
    if params:
        options["x264-params"] = params
    mp4 = OutputSpec(format=OutputFormat.MP4, transparent=False, save_sections=False, fallback_to_still=False)
    with tempconfig({"quality": "low_quality"}):
        return resolve_video_encoder(mp4, width=config.pixel_width, height=config.pixel_height,
                                     frame_rate=config.frame_rate, codec=config.video_codec,
                                     pixel_format=config.pixel_format, options=options)


def packets(path: Path) -> list[bytes]:
    with av.open(str(path)) as video:
        return [bytes(p) for p in video.demux(video=0) if p.size]


def test_a_held_frame_is_converted_once_and_encoded_as_manim_does(tmp_path, monkeypatch):
    s = spec()
    rng = np.random.default_rng(3)
    frames = [rng.integers(0, 256, (s.height, s.width, 4), dtype=np.uint8) for _ in range(3)]
    for f in frames:
        f[..., 3] = 255
    writes = [(frames[0], 1), (frames[1], 6), (frames[2], 1), (frames[0], 4)]
    made = []

    class Counted:      # av, with the frames made from pixels counted
        VideoFrame = type("VideoFrame", (), {"from_ndarray": staticmethod(
            lambda *a, **k: made.append(1) or av.VideoFrame.from_ndarray(*a, **k))})
    monkeypatch.setattr(held, "av", Counted)
    for name, cls in (("own", VideoSegmentEncoder), ("held", held.HeldFrameEncoder)):
        segment = cls(target=tmp_path / f"{name}.mp4", spec=s)
        for pixels, repeat in writes:
            segment.write_frame(pixels.copy(), repeat=repeat)
        segment.finish()
    assert made == [1, 1]                          # the two held frames, once each
    own, ours = packets(tmp_path / "own.mp4"), packets(tmp_path / "held.mp4")
    assert len(own) == sum(r for _, r in writes)
    assert own == ours


def test_a_scene_writer_makes_held_frame_encoders(tmp_path):
    writer = SceneFileWriter.__new__(SceneFileWriter)
    writer.video_encoder = spec()
    assert held.held_frames(writer) is writer
    segment = writer._create_segment_encoder(tmp_path / "a.mp4")
    assert isinstance(segment, held.HeldFrameEncoder)
    segment.abort()
