"""GIF frame delays that keep time with the subtitles.

A GIF gives each frame a delay in whole centiseconds, so a 15 fps clip
(66.7 ms a frame) is written with 7 cs (70 ms) a frame and runs 5 % slow:
its subtitles drift a second every 20 s.  ``exact_delays`` rewrites each
frame's delay so that frame ``k`` starts at ``round(100 k / fps)`` cs, the
nearest a GIF can say: 7, 6, 7, 7, 6, 7, ... for 15 fps.  A frame the encoder
merged with its repeats (a longer delay) keeps its count of frame periods.
"""
from __future__ import annotations


class GifError(ValueError):
    """Bytes that are not a GIF this module can walk."""


def _sub_blocks_end(data: bytes, at: int) -> int:
    """The offset after the data sub-blocks starting at ``at`` (ending in a 0 block)."""
    while True:
        if at >= len(data):
            raise GifError("truncated GIF (data sub-blocks run past the end)")
        size = data[at]
        at += 1 + size
        if size == 0:
            return at


def _table_size(packed: int) -> int:
    return 3 * 2 ** ((packed & 7) + 1) if packed & 0x80 else 0


def delay_offsets(data: bytes) -> list[int]:
    """The offset of each frame's delay field (two bytes, little-endian, cs), in order."""
    if data[:6] not in (b"GIF87a", b"GIF89a") or len(data) < 13:
        raise GifError("not a GIF (no GIF87a/GIF89a header)")
    at = 13 + _table_size(data[10])
    offsets = []
    while at < len(data):
        kind = data[at]
        if kind == 0x3B:                          # trailer
            return offsets
        if kind == 0x21:                          # extension: label, then sub-blocks
            if data[at + 1] == 0xF9 and data[at + 2] == 4:    # graphic control: packed, delay, index
                offsets.append(at + 4)
            at = _sub_blocks_end(data, at + 2)
        elif kind == 0x2C:                        # image: descriptor, colour table, LZW size, data
            at = _sub_blocks_end(data, at + 10 + _table_size(data[at + 9]) + 1)
        else:
            raise GifError(f"unexpected block 0x{kind:02x} at byte {at}")
    raise GifError("truncated GIF (no trailer)")


def exact_delays(data: bytes, fps: float) -> bytes:
    """``data`` with every frame delay set so frame starts fall on the
    nearest centisecond of ``k / fps`` (frames merged by the encoder keep
    their number of frame periods)."""
    out = bytearray(data)
    period = 100.0 / fps
    frames = 0
    for at in delay_offsets(data):
        periods = max(1, round(int.from_bytes(data[at:at + 2], "little") / period))
        start, end = round(frames * period), round((frames + periods) * period)
        out[at:at + 2] = (end - start).to_bytes(2, "little")
        frames += periods
    return bytes(out)
