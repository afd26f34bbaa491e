"""Render scenes with the manim CLI into renders/<lang>/<quality>/.

Each scene renders in its own manim process with its own media directory
(in a worker thread; the work is in the child process).  Its outputs (video,
.srt, .vtt, poster .png) are staged as ``.part`` files and renamed into
place only after the render succeeded, so renders/ never holds a broken
file and an interrupted render leaves the previous good ones.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from scenes.pipeline.registry import QUALITIES, SceneInfo
from scenes.pipeline.subtitles import srt_to_vtt

VIDEO_EXTENSIONS = ("mp4", "mov", "webm", "gif")


@dataclass(frozen=True)
class Options:
    quality: str = "l"
    fmt: str = "mp4"
    transparent: bool = False
    out: Path = Path("renders")
    lesson_path: Path = Path("lesson.toml")


@dataclass(frozen=True)
class Job:
    scene: SceneInfo
    lang: str
    key: str


@dataclass
class Result:
    job: Job
    ok: bool
    seconds: float
    files: list[Path] = field(default_factory=list)
    duration: float = 0.0
    width: int = 0
    height: int = 0
    error: str = ""


def out_dir(opts: Options, lang: str) -> Path:
    return opts.out / lang / QUALITIES[opts.quality]


def manim_command(scene: SceneInfo, opts: Options, media_dir: Path) -> list[str]:
    cmd = [sys.executable, "-m", "manim", "render", f"-q{opts.quality}", "--progress_bar", "none",
           "--disable_caching", "--media_dir", str(media_dir), "--format", opts.fmt]
    if opts.transparent:
        cmd.append("--transparent")
    return cmd + [str(scene.path), scene.name]


class Children:
    """The manim processes running now, so an interrupt can stop them all."""

    def __init__(self):
        self._procs: set[subprocess.Popen] = set()
        self._lock = threading.Lock()

    def run(self, cmd, env) -> tuple[int, str]:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        with self._lock:
            self._procs.add(proc)
        try:
            output, _ = proc.communicate()
        finally:
            with self._lock:
                self._procs.discard(proc)
        return proc.returncode, output

    def stop_all(self) -> None:
        with self._lock:
            for proc in self._procs:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass


CHILDREN = Children()


def probe(video: Path, poster: Path | None = None) -> tuple[float, int, int]:
    """Decode ``video``; return (duration in seconds, width, height) and, if
    ``poster`` is given, save its last frame there as PNG."""
    import av
    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        last = None
        for frame in container.decode(stream):
            last = frame
        if last is None:
            raise ValueError(f"{video} has no frames")
        rate = float(stream.average_rate or 15)
        if poster is not None:
            last.to_image().save(poster, format="PNG")
        return float(last.pts * stream.time_base) + 1 / rate, stream.width, stream.height


def render_job(job: Job, opts: Options) -> Result:
    """Render one scene in one language and move its outputs into place."""
    start = time.monotonic()
    dest_dir = out_dir(opts, job.lang)
    env = dict(os.environ, QKV_LANG=job.lang, QKV_LESSON=str(opts.lesson_path))
    with tempfile.TemporaryDirectory(prefix="qkv-media-") as tmp:
        media = Path(tmp)
        status, output = CHILDREN.run(manim_command(job.scene, opts, media), env)
        videos = [v for ext in VIDEO_EXTENSIONS for v in media.glob(f"videos/**/{job.scene.name}.{ext}")]
        if status != 0 or not videos:
            tail = "\n".join(output.strip().splitlines()[-12:])
            return Result(job, False, time.monotonic() - start,
                          error=f"manim exited with status {status}\n{tail}")
        video = videos[0]
        stage = media / "stage"
        stage.mkdir()
        staged = {video.name: video}
        srt = video.with_suffix(".srt")
        if srt.exists():
            staged[srt.name] = srt
            vtt = stage / f"{job.scene.name}.vtt"
            vtt.write_text(srt_to_vtt(srt.read_text(encoding="utf-8")), encoding="utf-8")
            staged[vtt.name] = vtt
        png = stage / f"{job.scene.name}.png"
        try:
            duration, width, height = probe(video, poster=png)
        except Exception as err:  # noqa: BLE001 - a broken video is a failed render
            return Result(job, False, time.monotonic() - start, error=f"cannot read the video: {err}")
        staged[png.name] = png
        dest_dir.mkdir(parents=True, exist_ok=True)
        parts = []
        for name, src in staged.items():
            part = dest_dir / f".{name}.part"
            shutil.copyfile(src, part)
            parts.append((part, dest_dir / name))
        for part, dest in parts:
            os.replace(part, dest)
    return Result(job, True, time.monotonic() - start, [d for _, d in parts], duration, width, height)


def run_jobs(jobs: list[Job], opts: Options, workers: int,
             render: Callable[[Job, Options], Result] = render_job,
             on_start: Callable[[Job], None] = lambda job: None,
             on_done: Callable[[Result], None] = lambda result: None) -> list[Result]:
    """Render ``jobs`` on ``workers`` threads (each drives one manim process).
    A failing job never stops the others; results come back in job order."""
    results: dict[int, Result] = {}
    pending = list(enumerate(jobs))
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        running = {}
        try:
            while pending or running:
                while pending and len(running) < max(1, workers):
                    i, job = pending.pop(0)
                    on_start(job)
                    running[pool.submit(_guarded, render, job, opts)] = i
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = running.pop(fut)
                    results[i] = fut.result()
                    on_done(results[i])
        except BaseException:
            CHILDREN.stop_all()
            raise
    return [results[i] for i in range(len(jobs))]


def _guarded(render, job: Job, opts: Options) -> Result:
    start = time.monotonic()
    try:
        return render(job, opts)
    except Exception as err:  # noqa: BLE001 - reported as this job's failure
        return Result(job, False, time.monotonic() - start, error=f"{type(err).__name__}: {err}")
