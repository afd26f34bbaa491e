"""Segment rendering (``qkv_lens.app.segments``): a scene rendered in pieces
at once is its whole render, frame for frame, with the same subtitles,
beats and voice; a state that a skip cannot reach exactly is caught."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from manim import RIGHT, Dot, Scene, Square, tempconfig

from qkv_lens.app import segments
from qkv_lens.app.render import Job, Options
from qkv_lens.lesson import load_lesson
from qkv_lens.registry import find, in_lesson
from scenes.kit.segments import advance_like_frames, state
from tests.helpers import LESSON, ROOT, run_cli

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed (tools/bootstrap.sh installs it)")


def decoded(video: Path) -> tuple[list[np.ndarray], np.ndarray | None]:
    """Every frame (RGB) and the audio samples of ``video``."""
    import av
    with av.open(str(video)) as c:
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    with av.open(str(video)) as c:
        audio = [f.to_ndarray() for f in c.decode(audio=0)] if c.streams.audio else []
    return frames, (np.concatenate(audio, axis=1) if audio else None)


def assert_same_clip(whole: dict[str, Path], split: dict[str, Path], scene: str, voiced: bool) -> None:
    assert sorted(whole) == sorted(split)
    a_frames, a_audio = decoded(whole[f"{scene}.mp4"])
    b_frames, b_audio = decoded(split[f"{scene}.mp4"])
    assert len(a_frames) == len(b_frames) > 0
    different = [i for i, (x, y) in enumerate(zip(a_frames, b_frames)) if not np.array_equal(x, y)]
    assert not different, f"{len(different)} frames differ, the first at frame {different[0]}"
    assert (a_audio is not None) == voiced == (b_audio is not None)
    if voiced:
        assert a_audio.shape == b_audio.shape and np.array_equal(a_audio, b_audio)
        assert np.abs(a_audio).max() > 0.01          # a voice, not silence
    for ext in (".srt", ".vtt", ".beats.json"):
        assert whole[scene + ext].read_bytes() == split[scene + ext].read_bytes(), ext
    assert whole[f"{scene}.png"].read_bytes() == split[f"{scene}.png"].read_bytes()     # the same poster


def job_of(scene: str, lang: str) -> Job:
    return Job(find(scene), lang, "test")


@pytest.mark.render
@pytest.mark.parametrize("scene, lang, voice, first, inside", [
    ("UpProjection", "en", "espeak", 1, False),   # 3-D: lift into 3-D | the rows (the camera has moved)
    ("AttentionMatching", "zh", "espeak", 0, True),   # cut inside a beat, the voice of one beat over both
    # a live map's moves skipped before the cut: their readouts left to each play's last pass (Scene.drawing)
    ("SpaceDeformation", "en", "none", 2, True),
])
def test_beats_in_two_pieces_are_their_render_in_one(tmp_path, scene, lang, voice, first, inside):
    """Beats ``first`` and ``first + 1`` of the scene as one piece and as
    two, cut where the second beat starts or (``inside``) in the middle of
    the first: the same clip, frame for frame, subtitles, beats and voice."""
    if voice == "espeak" and shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is not installed (tools/bootstrap.sh installs it)")
    job, opts = job_of(scene, lang), Options(out=tmp_path / "out", voice=voice, lesson_path=LESSON)
    (tmp_path / "plan").mkdir()
    beats = segments.dry_beats(job, opts, tmp_path / "plan").beats
    cut = (beats[first].start + beats[first].end) / 2 if inside else beats[first + 1].start
    starts, end = [beats[first].start, cut], beats[first + 2].start
    one, staged_one, why = segments.split_staged(job, opts, tmp_path / "a", starts[:1], end)
    assert why is None and one.ok, (why, one.error)
    two, staged_two, why = segments.split_staged(job, opts, tmp_path / "b", starts, end)
    assert why is None and two.ok, (why, two.error)
    assert_same_clip(staged_one, staged_two, scene, voiced=voice != "none")
    second = json.loads((tmp_path / "b" / "piece-1" / segments.RECORD).read_text())
    first_ended = json.loads((tmp_path / "b" / "piece-0" / segments.RECORD).read_text())["end"]["time"]
    assert second["start"]["time"] == first_ended     # they meet at one play, on one clock
    if inside:                                         # at the first play from the cut on, inside the beat
        assert cut <= second["start"]["time"] < beats[first].end
    else:
        assert second["start"]["time"] == pytest.approx(cut, abs=1e-3)
    assert second["end"]["time"] == pytest.approx(end, abs=1e-3)


def piece(tmp: Path, name: str, **boundaries: tuple[float, np.ndarray]) -> segments.Piece:
    """A rendered piece whose record holds ``boundaries`` (which -> (time, state values))."""
    media = tmp / name
    media.mkdir()
    record = {}
    for which, (t, values) in boundaries.items():
        np.save(media / f"{which}.npy", values)
        record[which] = {"time": t, "structure": str(values.size), "values": f"{which}.npy"}
    return segments.Piece(0.0, 1.0, media, record=record)


def test_pieces_that_do_not_meet_in_one_state_are_not_joined(tmp_path):
    state = np.linspace(-3, 3, 50)
    a = piece(tmp_path, "a", end=(4.0, state))
    assert segments.inexact([a, piece(tmp_path, "b", start=(4.0, state + 1e-14))], "S") is None   # a rounding
    assert "state" in segments.inexact([a, piece(tmp_path, "c", start=(4.0, state + 1e-6))], "S")
    assert "state" in segments.inexact([a, piece(tmp_path, "d", start=(4.0, state[:-1]))], "S")
    assert "times" in segments.inexact([a, piece(tmp_path, "e", start=(4.1, state))], "S")
    # a piece in which no play starts draws nothing and joins anything
    assert segments.inexact([a, piece(tmp_path, "f")], "S") is None


class Boundary(Scene):
    """A square moved for 1.3 s (not a whole number of frames at 15 fps),
    then a still wait; with ``drift``, a dot moved by an updater that
    integrates dt (one step of the whole run time when skipped, a step a
    frame when rendered).  The clock is set as the kit sets it after a
    skipped play."""
    drift = False

    def construct(self):
        dot = Dot()
        if self.drift:
            dot.add_updater(lambda m, dt: m.shift(dt * dt * RIGHT))
        self.add(dot)
        self.play(Square().animate.shift(RIGHT), run_time=1.3)
        self.wait(0.75)

    def play(self, *animations, **kwargs):
        start = self.renderer.time
        super().play(*animations, **kwargs)
        if self.renderer.skip_animations:
            self.renderer.time = advance_like_frames(start, self.duration, self.is_current_animation_frozen_frame())


def state_after(drift: bool, skip: bool, tmp: Path) -> tuple[str, np.ndarray]:
    with tempconfig({"write_to_movie": False, "quality": "low_quality", "disable_caching": True,
                     "verbosity": "ERROR", "progress_bar": "none", "media_dir": str(tmp)}):
        scene = type("S", (Boundary,), {"drift": drift})(skip_animations=skip)
        scene.render()
        return state(scene)


def test_the_state_tells_a_skip_that_lands_elsewhere(tmp_path):
    """What the join trusts: after the same plays, skipped or drawn, the
    state agrees (the clock to the bit) unless an updater integrating dt
    left the dot elsewhere."""
    (shape_a, a), (shape_b, b) = state_after(False, True, tmp_path), state_after(False, False, tmp_path)
    assert shape_a == shape_b and a[0] == b[0] and np.allclose(a, b, rtol=0, atol=segments.TOLERANCE)
    (shape_a, a), (shape_b, b) = state_after(True, True, tmp_path), state_after(True, False, tmp_path)
    assert shape_a == shape_b and not np.allclose(a, b, rtol=0, atol=segments.TOLERANCE)


def test_pieces_for_splits_only_when_cores_would_idle():
    """Equal costs: with fewer jobs than workers, ``workers // jobs`` pieces
    each (side by side, never more pieces than workers); else whole."""
    opts = Options()
    assert segments.pieces_for([1.0], 2, opts) == [2]
    assert segments.pieces_for([7.0], 4, opts) == [4]
    assert segments.pieces_for([3.0, 3.0], 4, opts) == [2, 2]
    assert segments.pieces_for([3.0, 3.0], 3, opts) == [1, 1]         # 4 pieces would not fit 3 workers
    assert segments.pieces_for([5.0] * 3, 2, opts) == [1, 1, 1]
    assert segments.pieces_for([2.5] * 11, 2, opts) == [1] * 11
    assert segments.pieces_for([0.1] * 3, 3, opts) == [1, 1, 1]      # 3 x 0.1 is not 0.3: no float noise
    assert segments.pieces_for([1.0], 1, opts) == [1]
    assert segments.pieces_for([], 2, opts) == []


def test_pieces_for_splits_a_job_that_would_hold_up_the_rest():
    """A job over the fair share (total / workers) is cut until no piece
    is: ceil(cost / share) pieces, at most the workers; the rest stay whole."""
    opts = Options()
    assert segments.pieces_for([10.0] + [1.0] * 9, 2, opts) == [2] + [1] * 9
    assert segments.pieces_for([1.0] * 4 + [30.0], 4, opts) == [1] * 4 + [4]    # 30 / 8.5: 4 pieces
    assert segments.pieces_for([20.0, 1.0, 1.0], 3, opts) == [3, 1, 1]
    assert segments.pieces_for([100.0, 1.0, 1.0], 2, opts) == [2, 1, 1]          # never more than the workers
    assert segments.pieces_for([10.0, 10.0, 1.0], 2, opts) == [1, 1, 1]          # 10 is below the share, 10.5
    assert segments.pieces_for([3.0, 1.0], 3, opts) == [2, 1]                   # fewer jobs: 3 pieces fit 3


def test_pieces_for_never_splits_what_cannot_be_joined():
    for opts in (Options(fmt="gif"), Options(transparent=True), Options(fmt="webm")):
        assert segments.pieces_for([1.0], 2, opts) == [1]
        assert segments.pieces_for([10.0] + [1.0] * 9, 2, opts) == [1] * 10
    assert segments.pieces_for([0.0, 0.0], 4, Options()) == [1, 1]


def cost_entry(scene: str, lang: str, quality: str, seconds: float, duration: float, pieces: int = 1,
               fmt: str = "mp4") -> tuple[str, dict]:
    return f"{scene}/{lang}/{quality}/{fmt}", {
        "scene": scene, "language": lang, "quality": quality, "format": fmt, "render_seconds": seconds,
        "duration": duration, "pieces": pieces, "files": [f"{lang}/{quality}/{scene}.{fmt}"]}


def test_pieces_for_expected_costs_from_the_manifest_scaled_by_frame_rate(tmp_path):
    """A job's cost is its earlier render's seconds times its pieces, the
    same quality preferred, another scaled by frame rate; a job never
    rendered costs what the known ones do on average."""
    opts = Options(quality="m", out=tmp_path)                                    # 720p30
    jobs = [Job(find(name), lang, "k") for name, lang in
            [("WorkedExample", "zh"), ("ThreeLenses", "zh"), ("RoleSwap", "en"), ("RoleSwap", "zh")]]
    entries = dict([
        cost_entry("WorkedExample", "zh", "480p15", 10.0, 40.0),                 # at 15 fps: twice at 30
        cost_entry("WorkedExample", "zh", "1080p60", 99.0, 40.0, fmt="gif"),     # not preferred over either
        cost_entry("ThreeLenses", "zh", "720p30", 6.0, 30.0, pieces=2),         # 2 pieces of 6 s at once
        cost_entry("ThreeLenses", "zh", "480p15", 1.0, 30.0),                    # not the same quality
        cost_entry("RoleSwap", "zh", "2160p60", 40.0, 80.0),                     # twice the frames
        cost_entry("SpaceDeformation", "en", "720p30", 500.0, 70.0),             # no job of ours
    ])
    assert segments.expected_costs(jobs, opts, entries) == pytest.approx([20.0, 12.0, 52 / 3, 20.0])
    assert segments.expected_costs(jobs, opts, {}) == [1.0] * 4


def test_pieces_for_expected_costs_from_an_earlier_beats_file(tmp_path):
    """Without a manifest entry, a job costs its scene's video seconds (from
    a beats file of any quality) at the known jobs' render seconds per video
    second."""
    opts = Options(quality="l", out=tmp_path)
    jobs = [Job(find("WorkedExample"), "zh", "k"), Job(find("ThreeLenses"), "en", "k")]
    beats = {"scene": "ThreeLenses", "language": "en", "voice": "none", "beats": [
        {"id": "a", "start": 0.0, "end": 20.0, "say": "a", "cues": [{"start": 0.0, "end": 20.0, "text": "a"}]},
        {"id": "b", "start": 20.0, "end": 45.0, "say": "b", "cues": [{"start": 20.0, "end": 45.0, "text": "b"}]}]}
    folder = tmp_path / "en" / "720p30"
    folder.mkdir(parents=True)
    (folder / "ThreeLenses.beats.json").write_text(json.dumps(beats), encoding="utf-8")
    entries = dict([cost_entry("WorkedExample", "zh", "480p15", 10.0, 40.0)])   # 0.25 s a video second
    assert segments.expected_costs(jobs, opts, entries) == [10.0, 45.0 * 0.25]
    assert segments.expected_costs(jobs[1:], opts, {}) == [45.0]                 # alone: its own unit


def test_pieces_for_a_local_render_longest_first_and_the_dominating_scene_split(tmp_path, fake, monkeypatch):
    """``render --jobs N`` with the costs of the manifest in --out: the jobs
    start longest first (storyboard order when equal); on two workers the
    scene costing more than half of the work is rendered in two pieces, the
    others whole; --no-split renders it whole."""
    assert run_cli(tmp_path) == 0                   # every scene of the lesson, once (stand-in renders)
    names = [s.name for s in in_lesson(load_lesson(LESSON))]
    out = tmp_path / "out"

    def set_costs(costs: dict[str, float]) -> None:
        data = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        for e in data["renders"]:
            e["render_seconds"] = costs.get(e["scene"], 1.0)
        (out / "manifest.json").write_text(json.dumps(data), encoding="utf-8")

    split: list[tuple[str, int]] = []
    monkeypatch.setattr(segments, "render_split", lambda job, opts, pieces: split.append((job.scene.name, pieces))
                        or fake(job, opts))
    costs = {names[-1]: 9.0, names[3]: 2.0}
    set_costs(costs)
    fake.calls.clear()
    assert run_cli(tmp_path, "--force", "--jobs", "1") == 0
    assert fake.calls == [names[-1], names[3]] + [n for n in names if n not in costs]
    assert split == []
    costs = {names[-1]: 20.0}                       # more than half of 20 + 1 x the others
    set_costs(costs)
    assert run_cli(tmp_path, "--force", "--jobs", "2", "--no-split") == 0
    assert split == []
    set_costs(costs)
    assert run_cli(tmp_path, "--force", "--jobs", "2") == 0
    assert split == [(names[-1], 2)]


@pytest.mark.parametrize("seconds, pieces, step", [(73.2, 2, 0.1), (73.2, 3, 0.1), (40.0, 4, 0.25), (10.0, 2, 0.0)])
def test_a_plan_gives_each_piece_the_same_cost(seconds, pieces, step):
    """A piece costs ``step`` a second it skips through and 1 a second it
    draws: every piece the same, the first from 0, the last to the end."""
    starts = segments.plan(seconds, pieces, step)
    assert len(starts) == pieces and starts[0] == 0.0 and starts == sorted(set(starts))
    ends = [*starts[1:], seconds]
    costs = [step * a + (b - a) for a, b in zip(starts, ends)]
    assert max(costs) - min(costs) < 1e-9 and sum(b - a for a, b in zip(starts, ends)) == pytest.approx(seconds)
    if step > 0:
        assert ends[0] > seconds / pieces          # the first piece skips nothing, so it draws the most


def test_a_plan_of_one_piece_is_the_whole():
    assert segments.plan(73.2, 1) == [0.0] and segments.plan(0.0, 2) == [0.0]


@pytest.mark.render
def test_render_one_scene_with_two_jobs_is_its_one_job_render(tmp_path):
    """``render SCENE --jobs 2`` (fewer scenes than jobs) renders the scene
    in two pieces and lands the clip ``--jobs 1`` renders whole: the same
    frames, voice (espeak), subtitles and beats."""
    if shutil.which("espeak-ng") is None:
        pytest.fail("espeak-ng is not installed (tools/bootstrap.sh installs it)")
    out = {jobs: tmp_path / f"out{jobs}" for jobs in (1, 2)}
    for jobs in (1, 2):
        proc = subprocess.run([sys.executable, "-m", "qkv_lens", "render", "WorkedExample", "--lang", "zh",
                               "--voice", "espeak", "--jobs", str(jobs), "--out", str(out[jobs])],
                              cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "rendered whole" not in proc.stderr
    whole = {p.name: p for p in (out[1] / "zh/480p15").iterdir()}
    split = {p.name: p for p in (out[2] / "zh/480p15").iterdir()}
    assert_same_clip(whole, split, "WorkedExample", voiced=True)
    pieces = [json.loads((out[jobs] / "manifest.json").read_text())["renders"][0]["pieces"] for jobs in (1, 2)]
    assert pieces == [1, 2]
