"""One scene rendered in pieces at once, joined into the clip a whole
render gives (``qkv-lens render SCENE --jobs 2``).

Piece k renders the plays that start in ``[cut_k, cut_k+1)``, skipping
through the plays before them (``scenes/kit/segments.py``).  The cuts
balance the pieces (``qkv_lens.app.costs``): a later piece also pays for
skipping, so it draws less; each split measures what the scene costs, and
the next one cuts by that.  They are times, not beats: a cut falls on the first play
that starts at or after it, which every piece finds on the same clock.
The scene's length comes from the beats file of an earlier render (any
quality or language) or, the first time, from a dry run.

The join:
- the pieces' videos are concatenated packet by packet (x264 output is
  copied, never re-encoded), so every frame is the one a whole render
  draws;
- the subtitles and beats are the last piece's: it ran every beat, the
  skipped ones on the same clock, so they are the whole render's; every
  other piece's beats (those it finished) must be the start of that list;
- the voice track is mixed from the sounds the last piece recorded (every
  beat's clip and start), as for a whole render (``render.finish``).

A piece starts from the state its scene reaches by skipping, which need
not be the state the piece before it ended in.  Each piece records the
scene's state at its boundaries; when two neighbours' states (or clocks)
differ, or the beats disagree, the pieces are thrown away and the scene is
rendered whole, with a warning that says where.  Only mp4 is split (a
gif's palette and a transparent .mov are per file).
"""
from __future__ import annotations

import json
import math
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from qkv_lens import beats as beats_file
from qkv_lens.app import costs
from qkv_lens.app.render import (
    Children,
    Job,
    Options,
    Result,
    failed_run,
    find_video,
    finish,
    install,
    media_folder,
    mixed_voice,
    out_folder,
    render_job,
    run_manim,
    video_format,
)
from qkv_lens.app.video import probe
from qkv_lens.languages import offered
from qkv_lens.registry import QUALITIES, frame_rate

RECORD = "segment.json"


def splittable(opts: Options) -> bool:
    """Whether renders of ``opts`` can be split: mp4 only."""
    return video_format(opts.fmt, opts.transparent) == "mp4"


def pieces_for(costs: list[float], workers: int, opts: Options) -> list[int]:
    """Pieces each job is cut into, for jobs of expected ``costs`` (any one
    unit) sharing ``workers``: a job whose cost exceeds the fair share
    ``total / workers`` is cut until no piece does, ``ceil(cost / share)``
    pieces, at most ``workers``.  With fewer jobs than workers nothing
    queues, so the pieces must fit the workers side by side:
    ``floor(cost / share)`` (``workers // jobs`` when the costs are equal).
    1 each for a format that cannot be split."""
    total = sum(costs)
    if not splittable(opts) or total <= 0:
        return [1] * len(costs)
    shares = [round(cost * workers / total, 6) for cost in costs]   # in fair shares; rounded, so 1.0000000002 is 1
    cut = math.floor if len(costs) < workers else math.ceil
    return [min(workers, max(1, cut(s))) for s in shares]


def counts(jobs: list[Job], costs: list[float], workers: int, opts: Options, split: bool = True) -> list[int]:
    """Pieces for each of ``jobs`` (``pieces_for`` their ``costs``), 1 for
    a scene not proven to split exactly (a teacher's scene that does not
    declare ``splits = True``: state kept outside what the pieces compare
    could differ) and for every job unless ``split``."""
    if not split:
        return [1] * len(jobs)
    return [n if job.scene.splits else 1 for job, n in zip(jobs, pieces_for(costs, workers, opts))]


def expected_costs(jobs: list[Job], opts: Options, entries: dict[str, dict]) -> list[float]:
    """Each job's expected render seconds at ``opts.quality`` (what
    ``pieces_for`` shares out and the longest-first order sorts by): from
    the manifest ``entries``, an earlier render of its scene and language
    (``render_seconds`` times its ``pieces``, about the core-seconds; from
    another quality scaled by the frame rate, as the frames drawn scale);
    else the video seconds of an earlier beats file, at the known jobs'
    render seconds per video second; else the known jobs' mean (all equal
    when nothing is known)."""
    want, fps = QUALITIES[opts.quality], frame_rate(QUALITIES[opts.quality])
    fmt = video_format(opts.fmt, opts.transparent)
    known: dict[tuple[str, str], tuple[float, float]] = {}      # (scene, lang) -> (cost, video seconds)
    for e in sorted(entries.values(), key=lambda e: (e["quality"] == want, e["format"] == fmt)):
        seconds = e.get("render_seconds")
        if isinstance(seconds, (int, float)) and seconds > 0:     # the best match comes last and wins
            cost = seconds * e.get("pieces", 1) * fps / frame_rate(e["quality"])
            known[(e["scene"], e["language"])] = (cost, e["duration"])
    costs: list[float | None] = [known.get((j.scene.name, j.lang), (None, 0.0))[0] for j in jobs]
    rate = sum(c for c, _ in known.values()) / sum(d for _, d in known.values()) if known else 1.0
    for i, job in enumerate(jobs):
        if costs[i] is None:
            found = earlier_beats(job, opts)
            costs[i] = found.beats[-1].end * rate if found is not None and found.beats else None
    guessed = [c for c in costs if c is not None]
    typical = sum(guessed) / len(guessed) if guessed else 1.0
    return [typical if c is None else c for c in costs]


def plan(seconds: float, pieces: int, step: float = costs.STEP) -> list[float]:
    """Where ``pieces`` pieces of a scene of ``seconds`` begin when every
    second costs the same to draw and ``step`` of that to skip: so that
    each piece costs the same (``costs.cuts``)."""
    return costs.cuts(costs.Costs.even(seconds, step), pieces)


def earlier_beats(job: Job, opts: Options) -> beats_file.Beats | None:
    """The beats of an earlier render of ``job``'s scene, in its language
    first, else in another one (any quality); None if there is none usable."""
    for lang in [job.lang, *(lang for lang in offered() if lang != job.lang)]:
        for quality in QUALITIES.values():
            folder = opts.out / lang / quality
            try:
                return beats_file.read(folder, f"{job.scene.name}{beats_file.SUFFIX}")
            except beats_file.BeatsError:
                continue
    return None


def planned(job: Job, opts: Options, media: Path, pieces: int) -> list[float]:
    """Where ``job``'s pieces begin: cut by what the last split of the scene
    measured (``costs.kept``) or else evenly (``plan``), for the length of an
    earlier render (another language's will do: a cut need not fall on a
    beat, and only balances the pieces) or else of a dry run."""
    found = earlier_beats(job, opts) or dry_beats(job, opts, media)
    seconds = found.beats[-1].end
    measured = costs.kept(job.scene.name, job.lang, opts.quality)
    if measured is None:
        return plan(seconds, pieces)
    return costs.cuts(measured.scaled(seconds), pieces)


def dry_beats(job: Job, opts: Options, media: Path) -> beats_file.Beats:
    """The scene's beats from a dry run (every play skipped, nothing drawn:
    the times of a render, to the bit)."""
    out = media / f"plan{beats_file.SUFFIX}"
    status, output, _ = run_manim(job, opts, media, env={"QKV_BEATS_OUT": str(out)}, dry=True)
    if status != 0:
        raise RuntimeError(f"the dry run exited with status {status}: {output.strip().splitlines()[-1:]}")
    return beats_file.read(media, out.name)


@dataclass
class Piece:
    start: float
    end: float
    media: Path
    result: Result | None = None
    video: Path | None = None
    record: dict = field(default_factory=dict)
    voice: Path | None = None
    decoded: bool = False      # every frame of ``video`` decoded here (``video.probe``)


def render_piece(job: Job, opts: Options, piece: Piece, last: bool, children: Children | None = None) -> Piece:
    """Render the beats of ``job`` that start in ``[piece.start, piece.end)``;
    the ``last`` piece also mixes the voice of every beat."""
    began = time.monotonic()
    piece.media.mkdir(parents=True, exist_ok=True)
    spec = f"{piece.start!r},{piece.end!r}"
    status, output, warnings = run_manim(job, opts, piece.media, children,
                                         env={"QKV_SEGMENT": spec, "QKV_SEGMENT_OUT": str(piece.media / RECORD)})
    record = piece.media / RECORD
    if status != 0 or not record.is_file():
        piece.result = failed_run(job, began, status, output, warnings)
        return piece
    piece.record = json.loads(record.read_text(encoding="utf-8"))
    piece.video = find_video(piece.media, job.scene.name)
    if piece.video is not None:      # decoded here, beside the other pieces, not after the join
        try:
            probe(piece.video)
            piece.decoded = True
        except Exception as err:  # noqa: BLE001 - a broken video is a failed render
            piece.result = Result(job, False, time.monotonic() - began, error=f"cannot read the video: {err}")
            return piece
    if last:
        piece.voice = mixed_voice(piece.media, job.scene.name)
    piece.result = Result(job, True, time.monotonic() - began, warnings=warnings)
    return piece


def beside_video(piece: Piece, name: str) -> Path | None:
    """The file ``name`` the scene wrote beside its video in ``piece``'s
    folder (the .srt, the beats file), if any."""
    found = sorted(piece.media.glob(f"videos/**/{name}"))
    return found[0] if found else None


def piece_files(piece: Piece, scene: str) -> dict[str, bytes]:
    """A rendered piece's files by plain name (what a cluster worker sends
    back): ``piece.mp4``, the .srt and beats file, the record, the states
    and the voice."""
    files = {RECORD: (piece.media / RECORD).read_bytes()}
    for which in ("start", "end"):
        if which in piece.record:
            name = piece.record[which]["values"]
            files[name] = (piece.media / name).read_bytes()
    if piece.video is not None:
        files["piece.mp4"] = piece.video.read_bytes()
    for ext in (".srt", beats_file.SUFFIX):
        found = beside_video(piece, scene + ext)
        if found is not None:
            files[found.name] = found.read_bytes()
    if piece.voice is not None:
        files["voice.wav"] = piece.voice.read_bytes()
    return files


def piece_from_files(piece: Piece, files: dict[str, bytes]) -> Piece:
    """``piece`` with the files ``piece_files`` gave written into its folder
    (under ``videos/``, where the join looks); only the names it sends."""
    folder = piece.media / "videos"
    folder.mkdir(parents=True)
    for name, data in files.items():
        if "/" in name or "\\" in name or name.startswith("."):
            raise ValueError(f"a piece's file {name!r}: expected a plain file name")
        (piece.media if name.endswith(".npy") else folder).joinpath(name).write_bytes(data)   # states: by the record
    piece.record = json.loads(files[RECORD].decode("utf-8"))
    piece.video = folder / "piece.mp4" if "piece.mp4" in files else None
    piece.voice = folder / "voice.wav" if "voice.wav" in files else None
    return piece


def _beats(piece: Piece, scene: str) -> list[dict]:
    found = beside_video(piece, scene + beats_file.SUFFIX)
    return json.loads(found.read_text(encoding="utf-8"))["beats"] if found else []


TOLERANCE = 1e-9   # scene units (a 1080p pixel is about 0.0074): what rounding leaves between two equal states


def state_values(piece: Piece, which: str) -> np.ndarray | None:
    """The state numbers a piece recorded at its ``which`` boundary."""
    name = str(piece.record[which].get("values", ""))
    if not name or "/" in name or name.startswith("."):
        return None
    try:
        values = np.load(piece.media / name, allow_pickle=False)
    except (OSError, ValueError):
        return None
    return values if values.ndim == 1 and values.dtype == np.float64 else None


def inexact(pieces: list[Piece], scene: str) -> str | None:
    """Why ``pieces`` cannot be joined into the whole render, or None: two
    neighbours must meet at one time in one state (the same structure,
    every number within TOLERANCE), and every piece's beats must be the
    start of the last piece's."""
    for a, b in zip(pieces, pieces[1:]):
        if "start" not in b.record:
            continue          # b renders nothing (no play starts in it)
        end, start = a.record.get("end"), b.record["start"]
        if end is None or end["time"] != start["time"]:
            return f"the pieces meet at different times ({end and end['time']} and {start['time']} s)"
        ended, started = state_values(a, "end"), state_values(b, "start")
        if end["structure"] != start["structure"] or ended is None or started is None or \
                ended.shape != started.shape or not np.allclose(ended, started, rtol=0, atol=TOLERANCE):
            return (f"the scene's state at {start['time']:.2f} s differs between a render and a skip "
                    "to that play (an updater that depends on the frame rate?)")
    whole = _beats(pieces[-1], scene)
    for p in pieces[:-1]:
        own = _beats(p, scene)
        if own != whole[:len(own)]:
            return "the beats of the pieces differ"
    return None


def concat(videos: list[Path], dest: Path) -> None:
    """The video streams of ``videos`` one after the other in ``dest``:
    packets copied, each file's times shifted by the length of those
    before it."""
    import av
    with av.open(str(videos[0])) as first:
        template = first.streams.video[0]
        base = template.time_base
        out = av.open(str(dest), "w", format="mp4")
        stream = out.add_stream_from_template(template)
    try:
        offset = 0
        for video in videos:
            with av.open(str(video)) as inp:
                vin = inp.streams.video[0]
                if vin.time_base != base:
                    raise ValueError(f"{video.name}: another time base ({vin.time_base}, not {base})")
                end = 0
                for packet in inp.demux(vin):
                    if packet.dts is None:
                        continue
                    end = max(end, packet.pts + (packet.duration or 0))
                    packet.pts += offset
                    packet.dts += offset
                    packet.stream = stream
                    out.mux(packet)
                offset += end
    finally:
        out.close()


def render_split(job: Job, opts: Options, pieces: int) -> Result:
    """Render ``job`` in ``pieces`` pieces at once and join them (or, when
    they cannot be joined exactly, whole); install the outputs."""
    began = time.monotonic()
    with media_folder() as media:
        try:
            starts = planned(job, opts, media, pieces)
        except (RuntimeError, beats_file.BeatsError) as err:
            return replace(render_job(job, opts), warnings=[f"{job.scene.name}: not split ({err})"])
        result, staged, why = split_staged(job, opts, media, starts)
        if why is not None:
            whole = render_job(job, opts)
            return replace(whole, seconds=time.monotonic() - began,
                           warnings=[*whole.warnings, f"{job.scene.name} ({job.lang}): rendered whole, "
                                                      f"not split: {why}"])
        result = replace(result, seconds=time.monotonic() - began, pieces=len(starts))
        return install(result, staged, opts.out, out_folder(opts, job.lang)) if result.ok else result


def split_staged(job: Job, opts: Options, media: Path, starts: list[float],
                 end: float = math.inf) -> tuple[Result, dict[str, Path], str | None]:
    """Render the pieces beginning at ``starts`` (the first at 0; the scene
    stops at the first play at or after ``end``) at once, inside ``media``,
    and join them: the result, the staged outputs (as ``render.render_staged``
    gives them) and None; or, when they cannot be joined exactly, why."""
    began = time.monotonic()
    parts = [Piece(a, b, media / f"piece-{k}") for k, (a, b) in enumerate(zip(starts, [*starts[1:], end]))]
    with ThreadPoolExecutor(max_workers=len(parts)) as pool:
        parts = list(pool.map(lambda p: render_piece(job, opts, p, last=p is parts[-1]), parts))
    for p in parts:
        if not p.result.ok:
            warnings = list(dict.fromkeys(w for q in parts for w in q.result.warnings))
            return replace(p.result, seconds=time.monotonic() - began, warnings=warnings), {}, None
    return join(job, opts, media, parts, began)


def join(job: Job, opts: Options, media: Path, parts: list[Piece],
         began: float) -> tuple[Result, dict[str, Path], str | None]:
    """The rendered ``parts`` (each with its files in ``part.media``) joined
    inside ``media``: the result, the staged outputs and None; or why they
    cannot be joined exactly."""
    warnings = list(dict.fromkeys(w for p in parts if p.result for w in p.result.warnings))
    why = inexact(parts, job.scene.name)
    if why is not None:
        return Result(job, False, time.monotonic() - began, error=why), {}, why
    joined = media / "joined"
    joined.mkdir()
    last = parts[-1]
    for ext in (".srt", beats_file.SUFFIX):      # the last piece's: every beat, on the whole clock
        found = beside_video(last, job.scene.name + ext)
        if found is not None:
            shutil.copyfile(found, joined / found.name)
    measured = costs.learned([p.record for p in parts])
    if measured is not None:           # for the next split of this scene (``costs``)
        unkept = costs.keep(measured, job.scene.name, job.lang, opts.quality)
        warnings += [unkept] if unkept else []
    video = joined / f"{job.scene.name}.mp4"
    concat([p.video for p in parts if p.video is not None and (p is parts[0] or "start" in p.record)], video)
    result, staged = finish(job, opts, media, video, began, warnings, last.voice,
                            decoded=all(p.decoded for p in parts if p.video is not None))
    return result, staged, None
