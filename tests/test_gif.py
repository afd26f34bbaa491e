"""GIF delays: frame k starts at the centisecond nearest k / fps (qkv_lens.app.gif),
checked on GIFs Pillow writes and reads back."""
import io

import pytest
from PIL import Image

from qkv_lens.app.gif import GifError, delay_offsets, exact_delays


def gif_bytes(delays_ms: list[int], local_palettes: bool = False) -> bytes:
    frames = [Image.new("P" if not local_palettes else "RGB", (8, 6), k * 20 % 255) for k in range(len(delays_ms))]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=delays_ms, loop=0,
                   optimize=False, disposal=1)
    return buf.getvalue()


def durations(data: bytes) -> list[int]:
    with Image.open(io.BytesIO(data)) as im:
        out = []
        for k in range(im.n_frames):
            im.seek(k)
            out.append(im.info["duration"])
        return out


@pytest.mark.parametrize("fps, written_ms", [(15, 70), (30, 30), (60, 20)])
def test_frame_starts_fall_on_the_nearest_centisecond(fps, written_ms):
    n = 45
    fixed = durations(exact_delays(gif_bytes([written_ms] * n), fps))
    assert len(fixed) == n
    start = 0
    for k, d in enumerate(fixed):
        assert abs(start - 1000 * k / fps) <= 5, (k, start)      # within half a centisecond
        start += d
    assert start == round(100 * n / fps) * 10                     # the clip's length, to the centisecond


def test_a_merged_frame_keeps_its_number_of_periods():
    """An encoder that merges three equal frames writes one frame of 3 periods."""
    fixed = durations(exact_delays(gif_bytes([70, 200, 70]), 15))
    assert fixed == [70, 200, 60]        # starts 0, 70, 270 ms = 0, 1, 4 periods of 66.7 ms, rounded


def test_local_colour_tables_are_walked():
    data = gif_bytes([70] * 5, local_palettes=True)
    assert len(delay_offsets(data)) == 5
    assert durations(exact_delays(data, 15)) == [70, 60, 70, 70, 60]


def test_not_a_gif_is_refused():
    with pytest.raises(GifError, match="not a GIF"):
        exact_delays(b"\x89PNG\r\n\x1a\n" + bytes(20), 15)
    with pytest.raises(GifError, match="truncated"):
        exact_delays(gif_bytes([70] * 3)[:-8], 15)
