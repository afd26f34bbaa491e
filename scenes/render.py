"""Render scenes with the manim CLI into renders/<lang>/<quality>/.

Each scene renders in its own manim process with its own media directory;
the video and its .srt are moved into place only when the render succeeded,
so renders/ never holds a half-written file.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from scenes.registry import QUALITIES, SceneInfo


@dataclass
class RenderResult:
    scene: str
    lang: str
    quality: str
    ok: bool
    seconds: float
    files: list[Path]
    error: str = ""


def manim_command(scene: SceneInfo, quality: str, media_dir: Path, fmt: str = "mp4") -> list[str]:
    return [sys.executable, "-m", "manim", "render", f"-q{quality}", "--progress_bar", "none",
            "--disable_caching", "--media_dir", str(media_dir), "--format", fmt,
            str(scene.path), scene.name]


def render_one(scene: SceneInfo, lang: str, quality: str, out_root: Path,
               lesson_path: Path) -> RenderResult:
    """Render one scene in one language; move its video and .srt into
    ``out_root/<lang>/<quality folder>/``."""
    start = time.monotonic()
    out_dir = out_root / lang / QUALITIES[quality]
    env = dict(os.environ, QKV_LANG=lang, QKV_LESSON=str(lesson_path))
    with tempfile.TemporaryDirectory(prefix="qkv-media-") as tmp:
        media = Path(tmp)
        proc = subprocess.run(manim_command(scene, quality, media), env=env,
                              capture_output=True, text=True)
        videos = list(media.glob(f"videos/**/{scene.name}.mp4"))
        if proc.returncode != 0 or not videos:
            tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
            return RenderResult(scene.name, lang, quality, False, time.monotonic() - start, [],
                                f"manim exited with status {proc.returncode}\n{tail}")
        out_dir.mkdir(parents=True, exist_ok=True)
        files = []
        for src in [videos[0], videos[0].with_suffix(".srt")]:
            if src.exists():
                dest = out_dir / src.name
                part = dest.with_name(dest.name + ".part")
                shutil.copyfile(src, part)
                os.replace(part, dest)
                files.append(dest)
    return RenderResult(scene.name, lang, quality, True, time.monotonic() - start, files)
