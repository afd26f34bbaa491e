"""The optional voice: espeak-ng's draft voice, the author's recordings, the
recording script, the audio track of a clip and the cache key.

The real renders (WorkedExample, en, -ql, about 35 s each) are marked
``render``; the rest run in a few seconds (the script test does one dry run).
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from qkv_lens import voice
from qkv_lens.app.cache import cache_key
from qkv_lens.app.render import fit_audio
from qkv_lens.lesson import load_lesson
from qkv_lens.registry import find
from qkv_lens.texts import tr
from tests.helpers import LESSON, one_error_line

ROOT = Path(__file__).resolve().parents[1]
SCENE = "WorkedExample"
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed (tools/bootstrap.sh installs it)")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache folder of this module's own (espeak WAVs, converted recordings)."""
    return tmp_path_factory.mktemp("voice-cache")


@pytest.fixture(autouse=True)
def own_cache(cache, monkeypatch):
    monkeypatch.setenv("QKV_CACHE_DIR", str(cache))
    monkeypatch.delenv("QKV_VOICE", raising=False)
    voice.espeak_version.cache_clear()


def cli(*args, cache: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, QKV_CACHE_DIR=str(cache))
    env.pop("QKV_VOICE", None)
    return subprocess.run([sys.executable, "-m", "qkv_lens", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


def tone(path: Path, seconds: float, rate: int = 22050) -> None:
    """A 440 Hz sine of exactly ``seconds`` as a 16-bit mono WAV (stdlib only)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = round(seconds * rate)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / rate)))
                               for i in range(n)))


def lesson_copy(folder: Path) -> Path:
    lesson = folder / "lesson.toml"
    shutil.copyfile(LESSON, lesson)
    return lesson


def stream_seconds(video: Path) -> dict[str, float]:
    """Seconds to the end of the video and audio streams, and the frame length."""
    import av
    out = {}
    with av.open(str(video)) as c:
        for s in c.streams:
            if s.type not in ("video", "audio"):
                continue
            end = 0.0
            for p in c.demux(s):
                if p.pts is not None:
                    end = max(end, float((p.pts + (p.duration or 0)) * s.time_base))
            c.seek(0)
            out[s.type] = end
            if s.type == "video":
                out["frame"] = 1 / float(s.average_rate)
                out["video_codec"] = s.codec_context.name
            else:
                out["audio_codec"] = s.codec_context.name
    return out


def beats_of(out: Path, lang: str = "en") -> dict:
    return json.loads((out / lang / "480p15" / f"{SCENE}.beats.json").read_text(encoding="utf-8"))


# -- (4) the recording script ------------------------------------------------

SCRIPT_LINE = re.compile(r"^\[(?P<id>[\w-]+)\] (?P<seconds>\d+\.\d+) s -> (?P<path>\S+) \((?P<state>[^)]*)\)$")


@pytest.fixture(scope="module")
def zh_script(tmp_path_factory, cache):
    """``qkv-lens script WorkedExample --lang zh`` (one dry run), parsed."""
    folder = tmp_path_factory.mktemp("script")
    lesson = lesson_copy(folder)
    tone(voice.expected_recording(folder, "zh", SCENE, "outro"), 1.5)
    tone(voice.recordings_dir(folder, "zh", SCENE) / "Outro-take2.wav", 0.5)     # misnamed: never played
    proc = cli("script", SCENE, "--lang", "zh", "--lesson", str(lesson), "--out", str(folder / "script.txt"),
               cache=cache)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = (folder / "script.txt").read_text(encoding="utf-8").splitlines()
    beats = []
    for i, line in enumerate(lines):
        m = SCRIPT_LINE.match(line)
        if m:
            beats.append({**m.groupdict(), "seconds": float(m["seconds"]), "text": lines[i + 1]})
    return folder, lines, beats


def test_script_lists_every_beat_with_text_time_and_path(zh_script):
    folder, lines, beats = zh_script
    assert lines[0].startswith(f"# Recording script: {SCENE} (zh), {len(beats)} beats")
    ids = [b["id"] for b in beats]
    assert ids[0] == "intro" and ids[-1] == "outro" and len(set(ids)) == len(ids) >= 5
    assert "column" in ids and "column-2" in ids          # a repeated step is numbered
    for b in beats:
        assert b["seconds"] > 1.0, b
        assert re.search(r"[\u4e00-\u9fff]", b["text"]), b   # the Chinese sentence
        assert Path(b["path"]) == voice.expected_recording(folder, "zh", SCENE, b["id"])
    # the text is the sentence of the table, whole (the outro has no fields)
    outro = next(b for b in beats if b["id"] == "outro")
    assert outro["text"] == tr("zh", "worked_example.outro_say")
    assert outro["state"] == "recorded, 1.50 s"
    assert all(b["state"] == "missing" for b in beats if b["id"] != "outro")
    stray = [line for line in lines if line.startswith("# warning: ")]
    assert len(stray) == 1 and "Outro-take2.wav is named after no beat" in stray[0]
    assert "did you mean outro.wav?" in stray[0]


# -- (1) espeak-ng through the CLI ---------------------------------------------

@pytest.mark.render
@needs_espeak
def test_espeak_render_has_a_voice_track_as_long_as_the_video(tmp_path, cache):
    out = tmp_path / "out"
    proc = cli("render", SCENE, "--lang", "en", "--voice", "espeak", "--out", str(out), cache=cache)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    video = out / "en" / "480p15" / f"{SCENE}.mp4"
    s = stream_seconds(video)
    assert s["audio_codec"] == "aac"
    assert abs(s["audio"] - s["video"]) <= s["frame"], s
    beats = beats_of(out)
    assert beats["voice"] == "espeak"
    for b in beats["beats"]:
        assert b["voice"] > 0.5, b                       # every beat is spoken
        assert b["end"] - b["start"] >= b["voice"], b    # and lasts at least as long as its voice
    sentences = {b["say"] for b in beats["beats"]}
    assert len(list((cache / "voice").glob("espeak-en-*.wav"))) >= len(sentences) == len(beats["beats"])
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["renders"][0]["voice"] == "espeak"


@needs_espeak
def test_espeak_wavs_are_cached(cache):
    first = voice.espeak_wav("Multiply x by W.", "en")
    made = first.stat().st_mtime_ns
    assert voice.wav_seconds(first) > 0.3
    again = voice.espeak_wav("Multiply x by W.", "en")
    assert again == first and again.stat().st_mtime_ns == made       # not spoken again
    assert voice.espeak_wav("Multiply x by W.", "zh") != first           # another voice, another file
    assert not list(first.parent.glob("*.part"))


# -- (2) recordings ------------------------------------------------------------

@pytest.mark.render
def test_recorded_beat_lasts_as_long_as_its_recording(tmp_path, cache, zh_script):
    ids = [b["id"] for b in zh_script[2]]              # beat ids are the same in every language
    lesson = lesson_copy(tmp_path)
    tone(voice.expected_recording(tmp_path, "en", SCENE, ids[0]), 9.0)
    tone(voice.recordings_dir(tmp_path, "en", SCENE) / "Column.wav", 0.5)    # misnamed: named, not played
    out = tmp_path / "out"
    proc = cli("render", SCENE, "--lang", "en", "--voice", "recorded", "--lesson", str(lesson),
               "--out", str(out), cache=cache)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    beats = {b["id"]: b for b in beats_of(out)["beats"]}
    first = beats[ids[0]]
    assert first["voice"] == 9.0
    assert first["end"] - first["start"] >= 9.0
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("qkv-lens: warning: ")]
    for beat_id in ids[1:]:                            # each missing one named once, with its path
        expected = voice.expected_recording(tmp_path, "en", SCENE, beat_id)
        assert sum(str(expected) in line for line in warnings) == 1, (beat_id, warnings)
    assert not any(f"/{ids[0]}.wav" in line for line in warnings)
    stray = [line for line in warnings if "Column.wav" in line]
    assert len(stray) == 1 and "named after no beat" in stray[0] and "did you mean column.wav?" in stray[0]
    s = stream_seconds(out / "en" / "480p15" / f"{SCENE}.mp4")
    assert abs(s["audio"] - s["video"]) <= s["frame"], s


def test_recording_in_another_format_is_converted(tmp_path):
    """An .m4a recording (AAC, as a phone writes it) becomes a cached WAV of its length."""
    import av
    import numpy as np
    path = tmp_path / "intro.m4a"
    rate, n = 44100, 2 * 44100
    with av.open(str(path), "w") as out:
        stream = out.add_stream("aac", rate=rate, layout="mono")
        samples = (0.2 * np.sin(np.arange(n) * 2 * np.pi * 440 / rate)).astype(np.float32)
        for i in range(0, n, 1024):
            frame = av.AudioFrame.from_ndarray(samples[None, i:i + 1024], format="fltp", layout="mono")
            frame.sample_rate, frame.pts = rate, i
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))
    clip = voice.recorded_clip(path)
    assert clip.path.suffix == ".wav" and abs(clip.seconds - 2.0) < 0.05
    assert voice.recorded_clip(path) == clip           # converted once


# -- (3) a recording that is not audio ------------------------------------------

def test_recording_that_is_not_audio_is_one_error_line(tmp_path, cache):
    lesson = lesson_copy(tmp_path)
    bad = voice.expected_recording(tmp_path, "en", SCENE, "intro")
    bad.parent.mkdir(parents=True)
    bad.write_text("these are words, not sound\n", encoding="utf-8")
    proc = cli("render", SCENE, "--lang", "en", "--voice", "recorded", "--lesson", str(lesson),
               "--out", str(tmp_path / "out"), cache=cache)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"qkv-lens: error: {bad}: not an audio file")
    assert not (tmp_path / "out" / "en").exists()      # refused before anything rendered


def test_scene_refuses_a_recording_that_is_not_audio(tmp_path, cache):
    """The plain manim CLI: the beat turns the VoiceError into one line, status 2."""
    lesson = lesson_copy(tmp_path)
    bad = voice.expected_recording(tmp_path, "en", SCENE, "intro")
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"\x00" * 64)
    env = dict(os.environ, QKV_VOICE="recorded", QKV_LANG="en", QKV_LESSON=str(lesson), QKV_CACHE_DIR=str(cache))
    proc = subprocess.run([sys.executable, "-m", "manim", "render", "--dry_run", "-ql", "--progress_bar", "none",
                           "--media_dir", str(tmp_path / "media"), str(find(SCENE).path), SCENE],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines() == [f"qkv-lens: error: {bad}: not an audio file "
                                                "(Invalid data found when processing input)"]


# -- (5) the cache key -----------------------------------------------------------

def test_cache_key_follows_the_voice_and_the_recordings(tmp_path):
    lesson = load_lesson(lesson_copy(tmp_path))
    info = find(SCENE)

    def key(mode: str, lang: str = "en") -> str:
        return cache_key(info, lesson, lang, "l", voice=voice.voice_key(mode, tmp_path, lang, SCENE))

    silent = key("none")
    assert silent == cache_key(info, lesson, "en", "l")   # no voice: the key it always had
    empty = key("recorded")
    assert empty != silent
    tone(voice.expected_recording(tmp_path, "en", SCENE, "intro"), 1.0)
    one = key("recorded")
    assert one != empty
    assert key("recorded") == one                       # same bytes, same key
    tone(voice.expected_recording(tmp_path, "en", SCENE, "intro"), 1.2)
    assert key("recorded") not in (one, empty)          # the recording changed
    tone(voice.expected_recording(tmp_path, "zh", SCENE, "intro"), 3.0)
    assert key("recorded", "en") == key("recorded", "en")   # another language's recordings do not count
    assert voice.voice_key("recorded", tmp_path, "zh", SCENE) != voice.voice_key("recorded", tmp_path, "en", SCENE)


@needs_espeak
def test_espeak_key_names_the_version():
    part = voice.voice_key("espeak", ROOT, "zh", SCENE)
    assert part == {"mode": "espeak", "espeak": voice.espeak_version(), "voice": "cmn"}
    assert re.match(r"\d+\.\d+", part["espeak"])


# -- the audio track fitted to the picture ---------------------------------------

def synthetic_video(path: Path, seconds: float, audio_seconds: float, vcodec: str, acodec: str) -> None:
    """A small video of ``seconds`` at 15 fps with an audio track of ``audio_seconds``."""
    import av
    import numpy as np
    with av.open(str(path), "w") as out:
        v = out.add_stream(vcodec, rate=15)
        v.width, v.height, v.pix_fmt = 64, 48, "yuv420p"
        a = out.add_stream(acodec, rate=48000, layout="mono")
        for i in range(round(seconds * 15)):
            img = np.full((48, 64, 3), (i * 9) % 255, np.uint8)
            out.mux(v.encode(av.VideoFrame.from_ndarray(img, format="rgb24")))
        out.mux(v.encode(None))
        n = round(audio_seconds * 48000)
        for i in range(0, n, 960):
            chunk = np.zeros((1, min(960, n - i)), np.float32)
            frame = av.AudioFrame.from_ndarray(chunk, format="fltp", layout="mono")
            frame.sample_rate, frame.pts = 48000, i
            out.mux(a.encode(frame))
        out.mux(a.encode(None))


@pytest.mark.parametrize("ext, vcodec, acodec, want", [
    (".mp4", "libx264", "aac", "aac"),
    (".webm", "libvpx-vp9", "libopus", "opus"),
])
def test_fit_audio_pads_the_track_to_the_video(tmp_path, ext, vcodec, acodec, want):
    src, dest = tmp_path / f"src{ext}", tmp_path / f"fit{ext}"
    synthetic_video(src, 3.0, 1.2, vcodec, acodec)
    before = stream_seconds(src)
    tone(tmp_path / "clip.wav", 1.2)
    track = tmp_path / "voice.wav"
    voice.write_wav(track, voice.mix([{"file": str(tmp_path / "clip.wav"), "time": 0.0}]), voice.MIX_RATE)
    fit_audio(src, dest, track)
    after = stream_seconds(dest)
    assert after["audio_codec"] == want and after["video_codec"] == before["video_codec"]
    assert abs(after["audio"] - after["video"]) <= after["frame"], after
    assert abs(after["video"] - before["video"]) < 1e-6


def test_mix_lays_each_clip_at_its_time(tmp_path):
    """Each clip starts at round(time * rate) of the 48 kHz track, resampled
    from its own rate; silence between; overlapping clips add."""
    import numpy as np
    tone(tmp_path / "a.wav", 0.5, rate=22050)
    tone(tmp_path / "b.wav", 0.25, rate=48000)
    rate = voice.MIX_RATE
    a = voice.mix([{"file": str(tmp_path / "a.wav"), "time": 0.0}])
    b = voice.mix([{"file": str(tmp_path / "b.wav"), "time": 0.0}])
    assert abs(len(a) - 0.5 * rate) <= 2 and len(b) == round(0.25 * rate)
    both = voice.mix([{"file": str(tmp_path / "a.wav"), "time": 0.0},
                      {"file": str(tmp_path / "b.wav"), "time": 1.1}])
    at = round(1.1 * rate)
    assert len(both) == at + len(b)
    assert np.array_equal(both[:len(a)], a) and not both[len(a):at].any()
    assert np.array_equal(both[at:], b)
    over = voice.mix([{"file": str(tmp_path / "b.wav"), "time": 0.0}, {"file": str(tmp_path / "b.wav"), "time": 0.0}])
    assert np.array_equal(over, 2 * b.astype(np.int32))
    voice.write_wav(tmp_path / "t.wav", both, rate)
    back, r = voice.read_wav(tmp_path / "t.wav")
    assert r == rate and np.array_equal(back, both)


def test_recorded_voice_with_the_shipped_lesson_asks_for_init_first(tmp_path, cache):
    """Without a lesson of their own, a teacher is told to run init, never to
    record into the installed package's folder."""
    for args in (("script", SCENE), ("render", SCENE, "--out", str(tmp_path / "out"))):
        proc = cli(*args, "--lang", "en", "--voice", "recorded", cache=cache, cwd=tmp_path)
        assert proc.returncode == 2, args
        line = one_error_line(proc.stderr)
        assert "qkv-lens init" in line and "shipped lesson" in line
        assert "site-packages" not in line and "qkv_lens/" not in line
    assert not (tmp_path / "out").exists()
