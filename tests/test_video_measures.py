"""The picture measures of qkv_lens.app.video on a made-up clip whose every
frame is known: a square that pulses and returns, a square that moves away,
a bar that touches the right edge."""
import av
import numpy as np
import pytest

from qkv_lens.app.video import beat_changes, edge_frames, longest_hold, longest_still, talk_only_run
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


DOT_W, DOT_H = 320, 180        # 57 600 pixels: 0.1 % is 57.6


def dot_picture(t: float) -> np.ndarray:
    """0-8 s: a 4x4 dot slides 4 px a frame (32 pixels change from frame to
    frame, 32 from the first frame: it ends holds, not the still stretch);
    from 8 s a large square stands beside it, still to the end (12 s)."""
    img = np.zeros((DOT_H, DOT_W), np.uint8)
    x = 20 + 4 * min(int(round(t * FPS)), 8 * FPS - 1)
    img[80:84, x:x + 4] = 230
    if t >= 8:
        img[20:60, 20:60] = 230
    return img


@pytest.fixture(scope="module")
def dot_clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("dot") / "dot.mp4"
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=FPS)
        s.width, s.height, s.pix_fmt = DOT_W, DOT_H, "yuv420p"
        s.options = {"crf": "0"}            # lossless: the frames are the pictures
        for i in range(12 * FPS):
            frame = av.VideoFrame.from_ndarray(np.repeat(dot_picture(i / FPS)[..., None], 3, axis=2),
                                               format="rgb24")
            for packet in s.encode(frame):
                c.mux(packet)
        for packet in s.encode():
            c.mux(packet)
    return path


def test_longest_hold_known_answers(clip, dot_clip):
    """The made-up clip stands still from its second frame until square A
    starts to pulse (after 3.5 s); the sliding dot ends every hold, so the
    dot clip's longest hold is the square's, from 8.1 s to 1.5 s before its
    end (11.9 s): 2.3 s."""
    hold, at = longest_hold(clip)
    assert at == pytest.approx(0.1) and 3.3 <= hold <= 3.7
    hold, at = longest_hold(dot_clip)
    assert at == pytest.approx(8.1) and hold == pytest.approx(2.3)


def test_longest_still_known_answers(dot_clip):
    """The dot changes fewer than 0.1 % of the pixels from the first frame:
    one still stretch from 0 s until the square appears at 8 s."""
    still, at = longest_still(dot_clip)
    assert at == 0.0 and still == pytest.approx(7.9)
    still, at = longest_still(dot_clip, share=0.0005)      # 28.8 pixels: the dot's 32 end it at once
    assert at == 8.0 and still == pytest.approx(2.4)   # the square's stretch, to 1.5 s before the end
