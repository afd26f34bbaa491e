"""The encoder settings every render uses: the shipped ``manim.cfg``, with
x264's AVX-512 code turned off on a CPU where x264 would use it.

libx264 (core 165, as PyAV 18 ships it) reads memory it has not written on
its AVX-512 path: the same frames give other bytes depending on what the
heap held before (a process's first encode or a later one; any
``MALLOC_PERTURB_``), a few pixels of a frame up to 40/255 apart, and every
frame after them in the clip.  So two renders of one scene, or a scene's
pieces and its whole render, were not always the same video (issue 28).
Given the capabilities x264 finds minus ``AVX512`` (``x264-params =
asm=...``), its output depends on the frames alone, for about 6% more
encoder CPU time.
Where x264 finds no AVX-512 the shipped file is used as it is.
"""
from __future__ import annotations

import configparser
import functools
import io
import threading
from fractions import Fraction
from pathlib import Path

from qkv_lens.registry import package_dir
from qkv_lens.store import write_atomic

SHIPPED = package_dir("qkv_lens") / "manim.cfg"
OPTIONS = "video_encoder.options"   # manim's section of encoder options
AVX512 = "AVX512"
_LOGGING = threading.Lock()         # PyAV's log level is one for the process


@functools.cache
def capabilities() -> tuple[str, ...]:
    """The CPU capabilities libx264 uses on this machine, as it names them
    when an encoder opens (``MMX2 SSE2Fast ... AVX2 AVX512``); empty when
    it does not say."""
    return x264_capabilities()


def x264_capabilities(params: str | None = None) -> tuple[str, ...]:
    """The capabilities libx264 reports when it opens with ``x264-params``
    ``params`` (empty when it does not report them or will not open: then
    manim says what is wrong)."""
    import av
    import av.logging

    with _LOGGING:
        level = av.logging.get_level()
        av.logging.set_level(av.logging.INFO)
        try:
            with av.logging.Capture() as logs:    # this thread's messages only
                ctx = av.CodecContext.create("libx264", "w")
                ctx.width = ctx.height = 64
                ctx.pix_fmt = "yuv420p"
                ctx.time_base = Fraction(1, 15)
                if params:
                    ctx.options = {"x264-params": params}
                ctx.open()
                del ctx
        except (ValueError, av.FFmpegError):     # no libx264, or it refused ``params``
            return ()
        finally:
            av.logging.set_level(level)
    prefix = "using cpu capabilities:"
    for _, _, message in logs:
        if message.startswith(prefix):
            return tuple(message[len(prefix):].split())
    return ()


def without_avx512(found: tuple[str, ...]) -> str | None:
    """The ``x264-params`` that keep x264 off its AVX-512 code, given the
    capabilities it ``found``: ``asm=`` all the others; None without AVX512."""
    if AVX512 not in found:
        return None
    return "asm=" + ",".join(name for name in found if name != AVX512)


def config_file(folder: Path) -> Path:
    """The manim.cfg a render uses: the shipped one, or where x264 would use
    AVX-512, a copy in ``folder`` with it turned off (added to any
    ``x264-params`` the shipped file sets)."""
    params = without_avx512(capabilities())
    if params is None:
        return SHIPPED
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.optionxform = str               # type: ignore[assignment,method-assign]  # keys as written
    cfg.read_string(SHIPPED.read_text(encoding="utf-8"))
    if not cfg.has_section(OPTIONS):
        cfg.add_section(OPTIONS)
    shipped = cfg.get(OPTIONS, "x264-params", fallback="")
    cfg.set(OPTIONS, "x264-params", f"{shipped}:{params}" if shipped else params)
    text = io.StringIO()
    cfg.write(text)
    path = folder / "manim.cfg"
    write_atomic(path, text.getvalue().encode("utf-8"))
    return path
