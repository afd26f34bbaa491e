"""Typeset formulas kept between renders.

manim typesets every ``Tex``/``MathTex`` with latex and dvisvgm (about
0.15 s each on this project's machines) into ``<media>/Tex/<hash>.svg``,
the hash taken over the whole .tex source (preamble included), and reuses
an SVG only if it is already there.  Each render runs in a fresh media
folder, so without help every render typeset its formulas again: a third
of a formula-heavy scene's time.  ``seed`` links the SVGs made by earlier
renders into a media folder before manim starts; ``publish`` copies the new
ones back, each atomically (another render may read the cache meanwhile).

The cache is ``<cache_dir>/tex/manim-<version>`` (``qkv_lens.store.cache_dir``:
``QKV_CACHE_DIR``, else ``$XDG_CACHE_HOME/qkv-lens``, else
``~/.cache/qkv-lens``).  Deleting it is always safe.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from qkv_lens.app.cache import manim_version
from qkv_lens.store import cache_dir, write_atomic

TEX_SUBDIR = "Tex"   # manim's tex_dir inside a media folder ({media_dir}/Tex)


def tex_cache(manim: str | None = None) -> Path:
    """The folder of cached SVGs for this manim version (not created)."""
    if manim is None:
        manim = manim_version()
    return cache_dir() / "tex" / f"manim-{manim}"


def seed(media: Path, cache: Path | None = None) -> int:
    """Put every cached SVG into ``media/Tex`` (hard links where the file
    system allows, else copies); return how many."""
    cache = cache or tex_cache()
    if not cache.is_dir():
        return 0
    dest = media / TEX_SUBDIR
    dest.mkdir(parents=True, exist_ok=True)
    count = 0
    for svg in cache.glob("*.svg"):
        target = dest / svg.name
        if target.exists():
            continue
        try:
            os.link(svg, target)
        except OSError:
            try:
                shutil.copyfile(svg, target)
            except OSError:
                continue   # a cache file that vanished or cannot be read: typeset it again
        count += 1
    return count


def publish(media: Path, cache: Path | None = None) -> int:
    """Copy the SVGs in ``media/Tex`` the cache lacks into it, each through
    a temporary file renamed into place; return how many.  A cache that
    cannot be written is left as it is (the render itself succeeded)."""
    cache = cache or tex_cache()
    source = media / TEX_SUBDIR
    if not source.is_dir():
        return 0
    count = 0
    for svg in source.glob("*.svg"):
        target = cache / svg.name
        if target.exists() or svg.stat().st_size == 0:
            continue
        try:
            write_atomic(target, lambda tmp, svg=svg: shutil.copyfile(svg, tmp))
        except OSError:
            return count
        count += 1
    return count
