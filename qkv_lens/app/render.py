"""Render scenes with the manim CLI into renders/<lang>/<quality>/.

Each scene renders in its own manim process with its own media directory
(in a worker thread; the work is in the child process).  Its outputs (video,
.srt, .vtt, poster .png) are staged as ``.part`` files and renamed into
place only after the render succeeded, so renders/ never holds a broken
file and an interrupted render leaves the previous good ones.

Media directories are named ``qkv-media-<pid>-*`` after the qkv-lens process
that owns them, so a later run can remove those a killed run left behind.
An mp4 is remuxed (not re-encoded) with its index (``moov``) first, so a
browser starts playing before the whole file is downloaded.

A video with a voice (``--voice``): the scene records where each beat's
clip starts (``<Scene>.sounds.json``); ``qkv_lens.voice.mix`` lays the
clips on one 48 kHz track and ``fit_audio`` encodes it padded with silence
to the video's length (within one frame): AAC in mp4, Opus in webm, PCM in
a transparent .mov; the video packets are copied.  manim's own mix is not
used: a scene split into segments (``qkv_lens.app.segments``) gets the very
same track.  A gif has no sound.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from qkv_lens import voice as voice_mod
from qkv_lens.app import encoder, gif, texcache
from qkv_lens.app.subtitles import srt_to_vtt
from qkv_lens.app.video import probe
from qkv_lens.registry import QUALITIES, SceneInfo, frame_rate
from qkv_lens.store import Unsafe, folder_inside, process_alive, relative_name, shown, temp_beside

VIDEO_EXTENSIONS = ("mp4", "mov", "webm", "gif")
MEDIA_PREFIX = "qkv-media-"
STOP_GRACE = 5.0  # seconds a manim child gets to exit after SIGTERM before SIGKILL


@dataclass(frozen=True)
class Options:
    quality: str = "l"
    fmt: str = "mp4"
    transparent: bool = False
    out: Path = Path("renders")
    lesson_path: Path = Path("lesson.toml")
    voice: str = "none"          # qkv_lens.voice mode, passed to manim as QKV_VOICE


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
    warnings: list[str] = field(default_factory=list)   # the child's "qkv-lens: warning:" lines
    pieces: int = 1       # rendered in this many pieces at once (qkv_lens.app.segments)


def out_folder(opts: Options, lang: str) -> str:
    """Where a job's outputs go inside ``opts.out``: ``<lang>/<quality>``."""
    return f"{lang}/{QUALITIES[opts.quality]}"


def out_dir(opts: Options, lang: str) -> Path:
    return opts.out / out_folder(opts, lang)


def video_format(fmt: str, transparent: bool) -> str:
    """The container actually written: mp4 cannot carry alpha, so a
    transparent mp4 is a QuickTime .mov (manim's lossless qtrle, argb)."""
    return "mov" if transparent and fmt == "mp4" else fmt


def manim_command(scene: SceneInfo, opts: Options, media_dir: Path) -> list[str]:
    cmd = [sys.executable, "-m", "manim", "render", f"-q{opts.quality}", "--progress_bar", "none",
           "--disable_caching", "--media_dir", str(media_dir),
           "--config_file", str(encoder.config_file(media_dir)),   # the encoder settings
           "--format", video_format(opts.fmt, opts.transparent)]
    if opts.transparent:
        cmd.append("--transparent")
    return cmd + [str(scene.path), scene.name]


class Children:
    """The manim processes running now, so an interrupt can stop them all
    (and none starts after that)."""

    def __init__(self):
        self._procs: set[subprocess.Popen] = set()
        self._lock = threading.Lock()
        self._stopping = False

    def run(self, cmd, env) -> tuple[int, str]:
        with self._lock:
            if self._stopping:
                return -signal.SIGTERM, "not started: stopping"
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True, start_new_session=True)
            self._procs.add(proc)
        try:
            output, _ = proc.communicate()
        finally:
            with self._lock:
                self._procs.discard(proc)
        return proc.returncode, output

    def allow(self) -> None:
        """Let children start again (a new run in the same process)."""
        with self._lock:
            self._stopping = False

    def stop_all(self, grace: float = STOP_GRACE) -> None:
        """SIGTERM every child's process group; SIGKILL what is left after ``grace`` s."""
        with self._lock:
            self._stopping = True
            procs = list(self._procs)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for proc in procs:
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + grace
            while any(p.returncode is None and p.poll() is None for p in procs) \
                    and time.monotonic() < deadline:
                time.sleep(0.05)


CHILDREN = Children()


def clean_stale_media(tmp_root: Path | None = None) -> list[Path]:
    """Remove the ``qkv-media-<pid>-*`` folders whose qkv-lens process is gone
    (a run killed with SIGKILL cannot clean up); never a live run's, never
    another user's, never through a symlink."""
    removed = []
    for folder in Path(tmp_root or tempfile.gettempdir()).glob(f"{MEDIA_PREFIX}*"):
        m = re.fullmatch(rf"{MEDIA_PREFIX}(\d+)-.*", folder.name)
        if not m or int(m.group(1)) == os.getpid() or process_alive(int(m.group(1))):
            continue
        try:
            st = folder.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid():
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def faststart(src: Path, dest: Path) -> None:
    """Copy the mp4 ``src`` to ``dest`` with its index (``moov``) before the
    media data, so browsers can play it while it downloads.  A remux: the
    packets are copied, nothing is re-encoded."""
    import av
    with av.open(str(src)) as inp, \
            av.open(str(dest), "w", format="mp4", options={"movflags": "+faststart"}) as out:
        out.metadata.update(inp.metadata)
        streams = {s.index: out.add_stream_from_template(s) for s in inp.streams
                   if s.type in ("video", "audio")}
        for packet in inp.demux([s for s in inp.streams if s.index in streams]):
            if packet.dts is None:  # the flushing packets demux ends with
                continue
            packet.stream = streams[packet.stream.index]
            out.mux(packet)


def find_video(media: Path, scene: str) -> Path | None:
    """The video manim wrote for ``scene``: ``<Scene>.<ext>``, or for gif
    ``<Scene>_ManimCE_v<version>.gif``."""
    for ext in VIDEO_EXTENSIONS:
        for v in sorted(media.glob(f"videos/**/{scene}*.{ext}")):
            if v.stem == scene or v.stem.startswith(f"{scene}_ManimCE_v"):
                return v
    return None


def render_job(job: Job, opts: Options) -> Result:
    """Render one scene in one language and move its outputs into place."""
    with media_folder() as media:
        result, staged = render_staged(job, opts, media)
        return install(result, staged, opts.out, out_folder(opts, job.lang)) if result.ok else result


@contextmanager
def media_folder() -> Iterator[Path]:
    """A temporary folder ``qkv-media-<pid>-*`` (removed on exit) to render in."""
    with tempfile.TemporaryDirectory(prefix=f"{MEDIA_PREFIX}{os.getpid()}-") as tmp:
        yield Path(tmp)


def render_staged(job: Job, opts: Options, media: Path,
                  children: Children | None = None) -> tuple[Result, dict[str, Path]]:
    """Render ``job`` with manim inside ``media``; return its result (no
    files yet) and its outputs by file name (video, .srt, .vtt, .beats.json,
    .png), all inside ``media``.  Nothing is written outside ``media`` but
    the formulas it typeset, into the shared typesetting cache
    (``qkv_lens.app.texcache``).  ``children``: who runs (and can stop) the manim process (default CHILDREN)."""
    start = time.monotonic()
    status, output, warnings = run_manim(job, opts, media, children)
    video = find_video(media, job.scene.name)
    if status != 0 or video is None:
        return failed_run(job, start, status, output, warnings), {}
    voice = mixed_voice(media, job.scene.name)
    return finish(job, opts, media, video, start, warnings, voice)


# numpy's BLAS (and any OpenMP) in a manim child runs on one thread, unless the
# environment sets any of these (OpenBLAS also reads OMP_NUM_THREADS): the pipeline
# runs a child a core, and BLAS threads that wait spinning took about 3 % of a
# render's CPU from the other children.
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def run_manim(job: Job, opts: Options, media: Path, children: Children | None = None,
              env: Mapping[str, str] | None = None, dry: bool = False) -> tuple[int, str, list[str]]:
    """Run manim for ``job`` inside ``media`` (``env`` added to the child's
    environment; ``dry``: a dry run, nothing written): its exit status, its
    output and its warnings."""
    base = dict(os.environ)
    base.pop("QKV_BEATS_OUT", None)   # the beats file goes beside the video, unless ``env`` says where
    if not any(var in base for var in ONE_THREAD):   # one set: the user's choice, all left alone
        base.update(dict.fromkeys(ONE_THREAD, "1"))
    base.update(QKV_LANG=job.lang, QKV_LESSON=str(opts.lesson_path), QKV_VOICE=opts.voice, **(env or {}))
    cmd = manim_command(job.scene, opts, media)
    if dry:
        cmd.insert(cmd.index("--progress_bar"), "--dry_run")
    texcache.seed(media)
    status, output = (children or CHILDREN).run(cmd, base)
    if status == 0:
        texcache.publish(media)
    return status, output, child_warnings(output)


def failed_run(job: Job, start: float, status: int, output: str, warnings: list[str]) -> Result:
    tail = "\n".join(output.strip().splitlines()[-12:])
    found = "" if status != 0 else " but wrote no video"
    return Result(job, False, time.monotonic() - start,
                  error=f"manim exited with status {status}{found}\n{tail}", warnings=warnings)


def mixed_voice(media: Path, scene: str) -> Path | None:
    """The voice track (``voice.mix``) of the sounds the scene recorded
    beside its video, written as ``media/<Scene>.voice.wav``; None without
    a voice."""
    found = sorted(media.glob(f"videos/**/{scene}.sounds.json"))
    if not found:
        return None
    sounds = json.loads(found[0].read_text(encoding="utf-8"))
    wav = media / f"{scene}.voice.wav"
    voice_mod.write_wav(wav, voice_mod.mix(sounds), voice_mod.MIX_RATE)
    return wav


def finish(job: Job, opts: Options, media: Path, video: Path, start: float, warnings: list[str],
           voice: Path | None, decoded: bool = False) -> tuple[Result, dict[str, Path]]:
    """From manim's ``video`` (and the .srt and beats file beside it) to the
    outputs: the voice track ``voice`` fitted to the picture (an mp4 with
    its index first), the gif's exact delays, the .vtt and the poster
    (``decoded``: every frame of ``video`` was decoded already; see ``probe``)."""
    stage = media / "stage"
    stage.mkdir(exist_ok=True)
    scene = job.scene.name
    srt = video.with_suffix(".srt")  # manim writes it beside the video, with the video's name
    name = f"{scene}{video.suffix}"  # without manim's _ManimCE_v... (gif)
    if video.suffix != ".gif" and (voice is not None or video.suffix == ".mp4"):
        try:
            # fit_audio: the track covers the whole clip (mp4: faststart too)
            if voice is not None:
                fit_audio(video, stage / name, voice)
            else:
                faststart(video, stage / name)
        except Exception as err:  # noqa: BLE001 - a broken video is a failed render
            return Result(job, False, time.monotonic() - start, error=f"cannot remux the video: {err}"), {}
        video = stage / name
    if video.suffix == ".gif":     # whole-centisecond delays that keep time with the subtitles
        try:
            fps = float(frame_rate(QUALITIES[opts.quality]))
            (stage / name).write_bytes(gif.exact_delays(video.read_bytes(), fps))
        except gif.GifError as err:
            return Result(job, False, time.monotonic() - start, error=f"cannot read the gif: {err}"), {}
        video = stage / name
    staged = {name: video}
    if srt.exists():
        staged[f"{scene}.srt"] = srt
        vtt = stage / f"{scene}.vtt"
        vtt.write_text(srt_to_vtt(srt.read_text(encoding="utf-8")), encoding="utf-8")
        staged[vtt.name] = vtt
    beats = srt.with_name(f"{scene}.beats.json")
    if beats.exists():      # the beats as played: ids, times, cues (for the page and presenting)
        staged[beats.name] = beats
    png = stage / f"{scene}.png"
    try:
        info = probe(video, poster=png, poster_at=poster_time(beats if beats.exists() else None), decoded=decoded)
    except Exception as err:  # noqa: BLE001 - a broken video is a failed render
        return Result(job, False, time.monotonic() - start, error=f"cannot read the video: {err}"), {}
    staged[png.name] = png
    return Result(job, True, time.monotonic() - start, [], info.duration, info.width, info.height,
                  warnings=warnings), staged


def install(result: Result, staged: Mapping[str, Path | bytes], out_root: Path, folder: str) -> Result:
    """Write the outputs ``staged`` (file name -> a file to copy, or its
    bytes) into ``out_root/folder`` (``lang/quality``): each to a temporary
    file with a random name first (``qkv_lens.store.temp_beside``), then all
    renamed into place; on any error no temporary file stays and no output
    is replaced.  The folder must lie inside ``out_root`` (no symlink out)
    and every name be a plain file name.  Returns ``result`` with the
    placed files."""
    for name in staged:
        if relative_name(name, "output") != Path(name).name or name.startswith("."):
            raise Unsafe(f"output {shown(name)}: expected a plain file name")
    dest_dir = folder_inside(out_root, folder)
    parts: list[tuple[Path, Path]] = []
    try:
        for name, src in staged.items():
            part = temp_beside(dest_dir / name)
            parts.append((part, dest_dir / name))
            if isinstance(src, bytes):
                part.write_bytes(src)
            else:
                shutil.copyfile(src, part)
    except BaseException:
        for part, _ in parts:
            part.unlink(missing_ok=True)
        raise
    for part, dest in parts:
        os.replace(part, dest)
    return dataclasses.replace(result, files=[d for _, d in parts])


WARNING = "qkv-lens: warning: "


def child_warnings(output: str) -> list[str]:
    """The ``qkv-lens: warning:`` lines a manim child printed (a missing
    recording), without the prefix, each once, in order."""
    found = [line.strip()[len(WARNING):] for line in output.splitlines() if line.strip().startswith(WARNING)]
    return list(dict.fromkeys(found))


def stream_end(path: Path, kind: str) -> float:
    """Seconds to the end of the first ``kind`` ("video", "audio") stream of
    ``path``: the latest packet's time plus its duration."""
    import av
    with av.open(str(path)) as c:
        stream = getattr(c.streams, kind)[0]
        end, step = 0.0, 0.0
        if stream.type == "video" and stream.average_rate:
            step = 1 / float(stream.average_rate)
        for packet in c.demux(stream):
            if packet.pts is None:
                continue
            t = float(packet.pts * stream.time_base)
            d = float(packet.duration * stream.time_base) if packet.duration else step
            end = max(end, t + d)
        return end


# The audio codec of each container (PyAV names); a .mov keeps manim's PCM.
AUDIO_CODECS = {".mp4": "aac", ".webm": "libopus", ".mov": "pcm_s16le"}


def fit_audio(src: Path, dest: Path, voice: Path) -> None:
    """Write ``src``'s video packets (copied) to ``dest`` with the voice
    track ``voice`` (a 16-bit mono WAV, ``voice.mix``) encoded beside them,
    padded with silence (or cut) to the video's length.  For AAC the length
    is rounded to whole 1024-sample frames, which is how an mp4 reports it:
    the track then ends within half a frame of audio (about 11 ms) of the
    picture.  The same samples give the same bytes: a split render's track
    is its whole render's."""
    import av
    import numpy as np

    seconds = stream_end(src, "video")
    codec = AUDIO_CODECS.get(dest.suffix, "aac")
    pcm, rate = voice_mod.read_wav(voice)
    if codec == "libopus" and rate != 48000:
        raise ValueError(f"an Opus track needs 48000 samples a second, not {rate}")
    n = round(seconds * rate)
    if codec == "aac":       # whole AAC frames (1024 samples): the mp4 then reports exactly n samples
        n = round(seconds * rate / 1024) * 1024
    samples = np.zeros((1, n), np.float32)
    k = min(n, len(pcm))
    samples[0, :k] = pcm[:k].astype(np.float32) / 32768

    options = {"movflags": "+faststart"} if dest.suffix == ".mp4" else {}
    with av.open(str(src)) as inp, av.open(str(dest), "w", format=dest.suffix[1:], options=options) as out:
        out.metadata.update(inp.metadata)
        vin = inp.streams.video[0]
        vout = out.add_stream_from_template(vin)
        aout = out.add_stream(codec, rate=rate, layout="mono")
        for packet in inp.demux(vin):
            if packet.dts is None:
                continue
            packet.stream = vout
            out.mux(packet)
        step = 4800
        for i in range(0, n, step):
            frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(samples[:, i:i + step]), format="fltp",
                                               layout="mono")
            frame.sample_rate, frame.pts = rate, i
            out.mux(aout.encode(frame))
        out.mux(aout.encode(None))


def poster_time(beats: Path | None) -> float | None:
    """When the poster is taken: at the end of the first beat, where the
    title and the first picture are on screen and the ending is not yet
    given away (None, the last frame, without a beats file)."""
    if beats is None:
        return None
    try:
        index = json.loads(beats.read_text(encoding="utf-8"))
        return float(index["beats"][0]["end"])
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


def run_jobs(jobs: list[Job], opts: Options, workers: int,
             render: Callable[[Job, Options], Result] = render_job,
             on_start: Callable[[Job], None] = lambda job: None,
             on_done: Callable[[Result], None] = lambda result: None) -> list[Result]:
    """Render ``jobs`` on ``workers`` threads (each drives one manim process).
    A failing job never stops the others; results come back in job order."""
    results: dict[int, Result] = {}
    pending = list(enumerate(jobs))
    CHILDREN.allow()
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
