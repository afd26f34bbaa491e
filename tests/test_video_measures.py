"""The picture measures of qkv_lens.app.video on a made-up clip whose every
frame is known: a square that pulses and returns, a square that moves away,
a bar that touches the right edge."""
import av
import numpy as np
import pytest

from qkv_lens.app.video import beat_changes, edge_frames, talk_only_run
from qkv_lens.beats import Beat, Beats

W, H, FPS = 256, 144, 10
UNIT = W / 14.222          # pixels per scene unit (the frame is 14.222 units wide)


def px(x: float, y: float) -> tuple[int, int]:
    return int((x + 7.111) * UNIT), int((4.0 - y) * UNIT)


def square(img, x: float, y: float, half: float = 0.6) -> None:
    (x0, y0), (x1, y1) = px(x - half, y + half), px(x + half, y - half)
    img[y0:y1, x0:x1] = 230


def picture(t: float) -> np.ndarray:
    """0-3 s: still; 3-6 s: square A pulses (bigger at 4.5 s) and returns;
    6-9 s: square B slides right and stays; 9-12 s: a bar reaches the right edge."""
    img = np.zeros((H, W), np.uint8)
    grow = 0.3 * max(0.0, 1 - abs(t - 4.5) / 1.0) if 3 <= t < 6 else 0.0
    square(img, -4.0, 1.0, 0.6 + grow)                       # A
    square(img, -1.0 + 3.0 * min(1.0, max(0.0, (t - 6.5) / 2.0)), -1.0)   # B
    if t >= 9:
        img[60:70, W - 60:] = 230                            # the bar, cut by the edge
    return img


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("clip") / "clip.mp4"
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=FPS)
        s.width, s.height, s.pix_fmt = W, H, "yuv420p"
        for i in range(12 * FPS):
            frame = av.VideoFrame.from_ndarray(np.repeat(picture(i / FPS)[..., None], 3, axis=2), format="rgb24")
            for packet in s.encode(frame):
                c.mux(packet)
        for packet in s.encode():
            c.mux(packet)
    return path


def beats(*spans) -> Beats:
    return Beats("Made", "en", "none", tuple(Beat(i, i, a, b, i, (), 0.0, focus) for i, a, b, focus in spans))


A = (-4.9, 0.1, -3.1, 1.9)     # square A's box, scene units
B_START = (-1.7, -1.7, -0.3, -0.3)


def test_a_pulse_that_returns_leaves_nothing_new(clip):
    changes = beat_changes(clip, beats(("still", 0.0, 3.0, None), ("pulse", 3.0, 6.0, A),
                                       ("slide", 6.0, 9.0, B_START)))
    got = {c.id: (c.picture, c.named) for c in changes}
    assert got == {"still": (False, None), "pulse": (False, False), "slide": (True, True)}


def test_a_beat_naming_what_did_not_change_is_caught_even_when_the_picture_changed(clip):
    # the slide beat said to name square A: the picture changed, but not what it names
    [c] = beat_changes(clip, beats(("slide", 6.0, 9.0, A)))
    assert c.picture and c.named is False


def test_the_talk_only_run_is_the_still_and_the_pulse_together(clip):
    run, at, ids = talk_only_run(clip, beats(("still", 0.0, 3.0, None), ("pulse", 3.0, 6.0, A),
                                             ("slide", 6.0, 9.0, None), ("bar", 9.0, 12.0, None)))
    assert (round(run, 1), at, ids) == (6.0, 0.0, ["still", "pulse"])


def test_edge_frames_are_those_with_the_bar(clip):
    hits = edge_frames(clip)
    assert hits and min(hits) >= 9.0 - 1e-6 and len(hits) >= 2 * FPS


@pytest.mark.parametrize("at", [0.05, 4.5, 7.55, 11.95])
def test_a_probe_of_decoded_frames_counts_packets_and_keeps_the_poster(clip, tmp_path, at):
    """``probe(decoded=True)`` (a joined split render) decodes only up to the
    poster: the same length, frame count and poster as decoding every frame."""
    from qkv_lens.app.video import probe
    full, quick = probe(clip, tmp_path / "a.png", at), probe(clip, tmp_path / "b.png", at, decoded=True)
    assert full == quick and full.frames == 12 * FPS and full.duration == pytest.approx(12.0)
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
