"""Trust boundaries: what a render folder, a recording or the command line may
make qkv-lens do.  Every test uses real files, symlinks and processes:

- a render folder is untrusted input: no write through a planted symlink, no
  fixed temporary names, no read outside the folder (symlinks, absolute and
  ``..`` paths), every number read back finite and in range, stale
  temporary files removed, one line naming the file and the old page kept;
- a recording is untrusted input: bounded in size before it is read and in
  duration by its decoded stream (never by its header), its name escaped;
- the command's own edges: a symlink loop, ``init`` where it cannot write,
  an empty ``--lesson``, a scene named twice, a refused voice, ``watch``'s
  errors and Ctrl-C, a picture outside the lesson's folder, names the fonts
  cannot draw.

The renders here run the real pipeline (``render_job``: staging, remux,
probe, install, manifest, page) with a stand-in for the manim child that
writes a tiny real clip, its subtitles and its beats."""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import wave
from pathlib import Path

import pytest

from qkv_lens import voice
from qkv_lens.app import cli, manifest, page
from qkv_lens.app import render as render_mod
from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.store import Unsafe, clean_parts, folder_inside, read_inside, temp_beside
from tests.helpers import LESSON, ROOT
from tests.test_export import make_renders
from tests.test_page import write_clip

SCENE = "WorkedExample"
SECRET = "the private notes of another user\n"
PART = re.compile(r"\..+\.(\d+)-[A-Za-z0-9_]+\.part")


# -- a real render pipeline with a stand-in manim child --------------------------------

class StandIn:
    """Stands in for the manim child (``Children.run``): writes a 1 s clip,
    its .srt and its beats into the media folder it is given, as manim and
    LessonScene do; counts the scenes it was asked for."""

    def __init__(self):
        self.calls: list[str] = []

    def __call__(self, cmd, env):
        media = Path(cmd[cmd.index("--media_dir") + 1])
        scene = cmd[-1]
        self.calls.append(scene)
        folder = media / "videos" / "stand_in" / env["QKV_LANG"] / "480p15"
        folder.mkdir(parents=True)
        write_clip(folder / f"{scene}.mp4", 1.0)
        (folder / f"{scene}.srt").write_text("1\n00:00:00,000 --> 00:00:01,000\nhello\n\n", encoding="utf-8")
        beats = {"scene": scene, "language": env["QKV_LANG"], "voice": "none",
                 "beats": [{"id": "intro", "key": "intro_say", "start": 0.0, "end": 1.0, "say": "hello", "voice": 0.0,
                            "cues": [{"start": 0.0, "end": 1.0, "text": "hello"}]}]}
        (folder / f"{scene}.beats.json").write_text(json.dumps(beats), encoding="utf-8")
        return 0, ""


@pytest.fixture
def stand_in(monkeypatch, tmp_path):
    s = StandIn()
    monkeypatch.setattr(render_mod.CHILDREN, "run", s)
    monkeypatch.setenv("QKV_CACHE_DIR", str(tmp_path / "cache"))
    return s


def render(out: Path, *extra: str) -> int:
    return cli.main(["render", SCENE, "--lang", "en", "--jobs", "1", "--out", str(out), *extra])


def victim(tmp_path: Path) -> Path:
    """A file outside the render folder that nothing may read or change."""
    path = tmp_path / "elsewhere" / "victim.txt"
    path.parent.mkdir(exist_ok=True)
    path.write_text(SECRET, encoding="utf-8")
    return path


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qkv-lens: error: "), err
    assert lines[0].isprintable(), lines[0]
    return lines[0]


# -- render folders: writing ------------------------------------------------------------

def test_a_symlink_planted_at_any_temporary_name_is_never_written_through(tmp_path, stand_in):
    """Every name an older qkv-lens used for a temporary file (and the lock
    file) is a symlink to a file outside; the render writes its outputs and
    the victim stays as it was."""
    out, target = tmp_path / "out", victim(tmp_path)
    folder = out / "en" / "480p15"
    folder.mkdir(parents=True)
    planted = [folder / f".{SCENE}.{x}.part" for x in ("mp4", "srt", "vtt", "png", "beats.json")]
    planted += [out / ".manifest.json.part", out / ".manifest.lock", out / ".index.html.part"]
    for link in planted:
        link.symlink_to(target)
    assert render(out) == 0
    assert target.read_text(encoding="utf-8") == SECRET
    assert (folder / f"{SCENE}.mp4").stat().st_size > 0 and manifest.load_checked(out)


def test_every_output_is_renamed_from_a_fresh_random_temporary_file(tmp_path, stand_in, monkeypatch):
    """The general rule: each file that lands in the render folder (clip,
    subtitles, poster, beats, manifest, page, exports) is renamed from a
    temporary file with this process's pid and a random part, a new one
    every time, never a fixed name."""
    renamed: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src, dst):
        renamed.append((os.fspath(src), os.fspath(dst)))
        return real_replace(src, dst)
    monkeypatch.setattr(os, "replace", spy)
    out = tmp_path / "out"
    for _ in range(2):
        assert render(out, "--force") == 0
    assert cli.main(["export", SCENE, "--lang", "en", "--out", str(out)]) == 0
    landed = [(s, d) for s, d in renamed if Path(d).is_relative_to(out)]
    names = {Path(d).name for _, d in landed}
    assert {f"{SCENE}.{x}" for x in ("mp4", "srt", "vtt", "png", "beats.json")} | \
        {"manifest.json", "index.html", "lesson.mp4", "lesson.srt", "lesson.pptx"} <= names
    temps = [Path(s).name for s, _ in landed]
    for name in temps:
        m = PART.fullmatch(name)
        assert m and int(m.group(1)) == os.getpid(), name
    assert len(set(temps)) == len(temps), "a temporary name was used twice"


def test_a_language_folder_that_is_a_symlink_out_is_not_written_into(tmp_path, stand_in, capsys):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.mkdir()
    (out / "en").symlink_to(elsewhere, target_is_directory=True)
    assert render(out) == 1
    err = capsys.readouterr().err
    assert "leads outside" in err and f"{out / 'en'}" in err
    assert list(elsewhere.rglob("*")) == []


def test_a_temporary_file_a_killed_run_left_is_removed_a_live_ones_kept(tmp_path, stand_in):
    out = tmp_path / "out"
    folder = out / "en" / "480p15"
    folder.mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = folder / f".lesson.mp4.{dead.pid}-abc123.part"
    stale.write_bytes(b"half an export")
    live = folder / f".lesson.pptx.{os.getppid()}-xyz789.part"   # pytest's parent: alive
    live.write_bytes(b"another run at work")
    old = folder / ".lesson.srt.part"                            # an older qkv-lens's fixed name
    old.write_bytes(b"left long ago")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    assert render(out) == 0
    assert not stale.exists() and not old.exists() and live.exists()
    make_renders(tmp_path / "r2")
    stale2 = tmp_path / "r2" / "en" / "480p15" / f".lesson.vtt.{dead.pid}-q1w2e3.part"
    stale2.write_bytes(b"x")
    assert clean_parts(tmp_path / "r2") == [stale2] and not stale2.exists()


def test_a_temporary_file_is_created_exclusively_under_a_random_name(tmp_path):
    target = tmp_path / "clip.mp4"
    a, b = temp_beside(target), temp_beside(target)
    assert a != b and a.parent == tmp_path and PART.fullmatch(a.name)
    assert a.stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


# -- render folders: reading back --------------------------------------------------------

@pytest.fixture
def site(tmp_path, stand_in):
    """A render folder with one real render and its page."""
    out = tmp_path / "out"
    assert render(out) == 0
    return out


def lesson_cmd(out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qkv_lens", "lesson", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", ["vtt", "srt", "png", "mp4", "beats.json"])
def test_a_listed_file_that_is_a_symlink_out_is_refused(site, tmp_path, kind):
    target = victim(tmp_path)
    listed = site / "en" / "480p15" / f"{SCENE}.{kind}"
    listed.unlink()
    listed.symlink_to(target)
    before = (site / "index.html").read_bytes()
    p = lesson_cmd(site)
    assert p.returncode == 1
    line = one_line(p.stderr)
    assert f"{listed}: leads outside {site}" in line
    assert (site / "index.html").read_bytes() == before
    assert SECRET.strip().encode() not in before


@pytest.mark.parametrize("name", ["/etc/passwd", "../elsewhere/victim.txt", "en/../../elsewhere/victim.txt",
                                  "en/480p15/./WorkedExample.vtt", "en\\..\\x", "en/\x1b[2J.vtt"])
def test_a_listed_path_that_is_absolute_or_climbs_out_is_refused(site, tmp_path, name):
    victim(tmp_path)
    doc = json.loads((site / manifest.NAME).read_text(encoding="utf-8"))
    doc["renders"][0]["files"][2] = name
    (site / manifest.NAME).write_text(json.dumps(doc), encoding="utf-8")
    before = (site / "index.html").read_bytes()
    p = lesson_cmd(site)
    assert p.returncode == 1
    assert f"{site / manifest.NAME}: damaged, renders[0]: file " in one_line(p.stderr)
    assert (site / "index.html").read_bytes() == before
    e = cli.main(["export", SCENE, "--lang", "en", "--out", str(site)])
    assert e == 1 and not list(site.rglob("lesson.*"))


def test_export_refuses_outside_files(site, tmp_path, monkeypatch, capsys):
    target = victim(tmp_path)
    srt = site / "en" / "480p15" / f"{SCENE}.srt"
    srt.unlink()
    srt.symlink_to(target)
    assert cli.main(["export", SCENE, "--lang", "en", "--out", str(site)]) == 1
    assert "leads outside" in one_line(capsys.readouterr().err)
    assert not list(site.rglob("lesson.*"))
    outside_mp4 = tmp_path / "elsewhere" / "clip.mp4"
    write_clip(outside_mp4, 1.0)
    srt.unlink()
    srt.write_text("1\n00:00:00,000 --> 00:00:01,000\nhello\n\n", encoding="utf-8")
    video = site / "en" / "480p15" / f"{SCENE}.mp4"
    video.unlink()
    video.symlink_to(outside_mp4)
    assert cli.main(["export", SCENE, "--lang", "en", "--out", str(site)]) == 1
    assert f"{video}: leads outside" in one_line(capsys.readouterr().err)


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e300", "1e999", "-1", "0", "true",
                                   '"12"', "1" * 5000])
def test_a_manifest_number_that_is_not_finite_or_in_range_is_refused(site, value, stand_in, capsys):
    text = (site / manifest.NAME).read_text(encoding="utf-8")
    bad = re.sub(r'"duration": [0-9.]+', f'"duration": {value}', text)
    assert bad != text
    (site / manifest.NAME).write_text(bad, encoding="utf-8")
    before = (site / "index.html").read_bytes()
    p = lesson_cmd(site)
    assert p.returncode == 1
    assert one_line(p.stderr).startswith(f"qkv-lens: error: {site / manifest.NAME}: damaged")
    assert (site / "index.html").read_bytes() == before
    # a render skips the damaged entry: it renders that scene again, and the page is whole again
    stand_in.calls.clear()
    assert render(site) == 0 and stand_in.calls == [SCENE]
    page.build(site, load_lesson(LESSON).chapters)
    json.loads(re.search(r'id="lesson-data">(.*?)</script>', (site / "index.html").read_text()).group(1))


@pytest.mark.parametrize("field, value", [("start", math.nan), ("end", math.inf), ("end", 1e300),
                                          ("start", -5), ("end", 99), ("cues", []), ("id", "a\x1b[2Jb"),
                                          ("start", "0")])
def test_a_beats_value_that_is_not_finite_or_in_range_is_refused(site, field, value):
    beats = site / "en" / "480p15" / f"{SCENE}.beats.json"
    doc = json.loads(beats.read_text(encoding="utf-8"))
    doc["beats"][0][field] = value
    beats.write_text(json.dumps(doc), encoding="utf-8")     # NaN and Infinity as Python's json writes them
    before = (site / "index.html").read_bytes()
    p = lesson_cmd(site)
    assert p.returncode == 1
    assert one_line(p.stderr).startswith(f"qkv-lens: error: {beats}: damaged beats file")
    assert (site / "index.html").read_bytes() == before


def test_the_page_data_is_always_valid_json(site):
    html = (site / "index.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="lesson-data">(.*?)</script>', html).group(1))
    assert all(math.isfinite(b["end"]) for clips in data["clips"].values() for c in clips for b in c["beats"])


def test_a_damaged_poster_is_named_by_its_file(site, monkeypatch, capsys):
    poster = site / "en" / "480p15" / f"{SCENE}.png"
    poster.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    assert cli.main(["export", SCENE, "--lang", "en", "--out", str(site)]) == 1
    line = one_line(capsys.readouterr().err)
    assert f"{poster}: damaged poster" in line and "BytesIO" not in line


def test_reading_inside_refuses_fifos_devices_and_loops(tmp_path):
    from qkv_lens.store import Unsafe
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "big").write_bytes(b"x" * 2000)
    for name, what in (("fifo", "regular file"), ("big", "at most"), ("zero", "leads outside")):
        with pytest.raises(Unsafe, match=what):
            read_inside(tmp_path, name, 1000)
    with pytest.raises((Unsafe, OSError)):
        read_inside(tmp_path, "loop", 1000)


# -- recordings ---------------------------------------------------------------------------

def wav(path: Path, seconds: float, rate: int = 8000, claim: int | None = None) -> None:
    """A 16-bit mono WAV of ``seconds`` of a tone; ``claim``: frames its header says it has."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = round(seconds * rate)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(6000 * math.sin(i / 3))) for i in range(n)))
    if claim is not None:     # the RIFF and data sizes of a 44-byte header, forged
        data = bytearray(path.read_bytes())
        data[4:8] = struct.pack("<I", min(2**32 - 1, 36 + 2 * claim))
        data[40:44] = struct.pack("<I", min(2**32 - 1, 2 * claim))
        path.write_bytes(bytes(data))


def beat_dir(lesson_dir: Path) -> Path:
    return lesson_dir / "voice" / "en" / SCENE


@pytest.fixture
def voice_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("QKV_CACHE_DIR", str(tmp_path / "cache"))


def test_a_header_that_claims_149_hours_is_measured_on_the_stream(tmp_path, voice_cache):
    rec = beat_dir(tmp_path) / "intro.wav"
    wav(rec, 1.0, claim=149 * 3600 * 8000)
    t0 = time.monotonic()
    clip = voice.recorded_clip(voice.checked(tmp_path, f"voice/en/{SCENE}/intro.wav"))
    assert clip.seconds == pytest.approx(1.0, abs=0.01) and time.monotonic() - t0 < 5


def test_a_recording_longer_than_the_cap_is_refused_in_one_line(tmp_path, voice_cache):
    rec = beat_dir(tmp_path) / "intro.wav"
    wav(rec, voice.MAX_RECORDING_SECONDS + 2, rate=1000)
    with pytest.raises(voice.VoiceError, match=r"longer than 120 s"):
        voice.check_recordings(tmp_path, "en", SCENE)


def test_a_3_gb_recording_is_refused_before_it_is_read(tmp_path):
    """A sparse 3 GiB file: refused by its size, in a process whose memory
    stays small (it is never read whole)."""
    rec = beat_dir(tmp_path) / "intro.wav"
    rec.parent.mkdir(parents=True)
    with open(rec, "wb") as f:
        f.truncate(3 << 30)
    code = ("import sys; from pathlib import Path; from qkv_lens import voice\n"
            f"try:\n    voice.check_recordings(Path({str(tmp_path)!r}), 'en', {SCENE!r})\n"
            "except voice.VoiceError as err:\n    print(err)\n"
            # VmHWM: this process's own peak (ru_maxrss keeps the forking parent's peak across exec)
            "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and len(p.stdout.strip().splitlines()) == 2, p.stderr
    message, peak_kib = p.stdout.strip().splitlines()
    assert "expected a recording of at most 64 MiB, found 3 GiB" in message
    assert int(peak_kib) < 300 * 1024


def test_a_recording_name_with_escapes_and_newlines_is_shown_escaped(tmp_path, voice_cache):
    rec = beat_dir(tmp_path) / "intro\x1b[31m\nqkv-lens: error: forged.wav"
    rec.parent.mkdir(parents=True)
    rec.write_bytes(b"not audio at all")
    with pytest.raises(voice.VoiceError) as err:
        voice.check_recordings(tmp_path, "en", SCENE)
    message = str(err.value)
    assert "\n" not in message and "\x1b" not in message and message.isprintable()
    assert "\\x1b[31m\\nqkv-lens" in message


def test_a_recording_that_leads_out_of_the_lesson_folder_is_refused(tmp_path, voice_cache):
    outside = tmp_path / "elsewhere.wav"
    wav(outside, 0.5)
    lesson_dir = tmp_path / "lesson"
    beat_dir(lesson_dir).mkdir(parents=True)
    (beat_dir(lesson_dir) / "intro.wav").symlink_to(outside)
    with pytest.raises(voice.VoiceError, match="leads outside"):
        voice.check_recordings(lesson_dir, "en", SCENE)
    shutil.rmtree(lesson_dir / "voice" / "en")
    wav(tmp_path / SCENE / "intro.wav", 0.5)
    (lesson_dir / "voice" / "en").symlink_to(tmp_path, target_is_directory=True)   # the folder itself
    with pytest.raises(voice.VoiceError, match="leads outside"):
        voice.recordings(lesson_dir, "en", SCENE)


def test_script_with_a_lying_header_ends_quickly(tmp_path, voice_cache):
    lesson = tmp_path / "lesson.toml"
    shutil.copyfile(LESSON, lesson)
    wav(beat_dir(tmp_path) / "intro.wav", 0.5, claim=149 * 3600 * 8000)
    p = subprocess.run([sys.executable, "-m", "qkv_lens", "script", SCENE, "--lang", "en", "--voice", "recorded",
                        "--lesson", str(lesson)], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, QKV_CACHE_DIR=str(tmp_path / "cache")))
    assert p.returncode == 0, p.stderr
    assert re.search(r"\[intro\] [0-9.]+ s -> .* \(recorded, 0\.50 s\)", p.stdout), p.stdout


# -- the command's own edges ------------------------------------------------------------

def qkv(*args: str, cwd: Path = ROOT, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qkv_lens", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def test_a_lesson_that_is_a_symlink_loop_is_one_line(tmp_path):
    loop = tmp_path / "lesson.toml"
    loop.symlink_to(loop)
    for cmd in (["render"], ["export"], ["script", SCENE]):
        p = qkv(*cmd, "--lesson", str(loop), "--out", str(tmp_path / "out")) if cmd[0] != "script" else \
            qkv(*cmd, "--lesson", str(loop))
        assert p.returncode == 2, (cmd, p.stderr)
        assert "symlink loop" in one_line(p.stderr)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("where", ["a_file", "/sys/kernel/qkv-lens", "/proc/qkv-lens"])
def test_init_where_it_cannot_write_is_one_line(tmp_path, where):
    (tmp_path / "a_file").write_text("x", encoding="utf-8")
    p = qkv("init", str(tmp_path / where) if where == "a_file" else where)
    assert p.returncode == 2
    one_line(p.stderr)


def test_an_empty_lesson_name_is_refused_not_the_default(tmp_path):
    p = qkv("render", "--lesson", "", "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and "--lesson: an empty file name" in one_line(p.stderr)
    assert not (tmp_path / "out").exists()


def test_a_scene_named_twice_renders_once(tmp_path, stand_in):
    assert cli.main(["render", SCENE, "workedexample", "worked_example", "QKVProjection", "--lang", "en",
                     "--jobs", "2", "--out", str(tmp_path / "out")]) == 0
    assert sorted(stand_in.calls) == sorted([SCENE, "QKVProjection"])


def test_jobs_beside_each_other_make_one_folder_without_a_race(tmp_path):
    """Two jobs finishing at once make their language folder together (one
    of them once failed: it found the folder missing, then could not make it)."""
    import threading

    for round_ in range(40):
        root = tmp_path / f"out{round_}"
        root.mkdir()
        start, errors = threading.Barrier(4), []

        def make(root=root, start=start, errors=errors):
            start.wait()
            try:
                folder_inside(root, "en/480p15")
            except Exception as err:  # noqa: BLE001 - what the test looks for
                errors.append(err)
        threads = [threading.Thread(target=make) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and (root / "en" / "480p15").is_dir()
    # what is there already is still checked: a file, or a symlink out of the root
    root = tmp_path / "out0"
    (root / "file").write_text("x")
    (root / "away").symlink_to(tmp_path)
    (root / "dangling").symlink_to(root / "missing")            # inside, to nothing
    (root / "dangling_away").symlink_to(tmp_path / "nowhere")   # outside, to nothing
    for name in ("file", "file/x", "away", "away/x", "dangling", "dangling/x", "dangling_away/x"):
        with pytest.raises(Unsafe):
            folder_inside(root, name)
    assert not (root / "missing").exists() and not (tmp_path / "nowhere").exists()   # nothing made through one


def test_a_refused_voice_creates_nothing(tmp_path):
    lesson = tmp_path / "lesson.toml"
    shutil.copyfile(LESSON, lesson)
    bad = beat_dir(tmp_path) / "intro.wav"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not audio")
    p = qkv("render", SCENE, "--lang", "en", "--voice", "recorded", "--lesson", str(lesson),
            "--out", str(tmp_path / "out"))
    assert p.returncode == 2 and "not an audio file" in one_line(p.stderr)
    assert not (tmp_path / "out").exists()


def test_watch_reports_errors_on_stderr_and_keeps_watching(tmp_path, capsys):
    import argparse
    import threading

    from qkv_lens.app.watch import watch
    stop, rounds = threading.Event(), []

    def failing(args):
        rounds.append(1)
        stop.set()
        raise RuntimeError("a bad edit")
    args = argparse.Namespace(lesson=str(LESSON))
    assert watch(args, failing, stop=stop, code_dirs=(tmp_path,)) == 0
    out, err = capsys.readouterr()
    assert "qkv-lens: error: a bad edit" in err and "a bad edit" not in out and rounds


def test_watch_stopped_by_ctrl_c_exits_130(tmp_path):
    lesson = tmp_path / "lesson.toml"
    shutil.copyfile(LESSON, lesson)
    proc = subprocess.Popen([sys.executable, "-m", "qkv_lens", "watch", "--lesson", str(lesson), "--lang", "en",
                             "--out", str(tmp_path / "out"), "--jobs", "1"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert "watching" in proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
        assert "interrupted (SIGINT)" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.parametrize("image", ["/etc/hostname", "../p.png", "sub/../../p.png", "link.png"])
def test_a_picture_outside_the_lesson_folder_is_refused(tmp_path, image):
    from PIL import Image
    lesson_dir = tmp_path / "lesson"
    lesson_dir.mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "p.png")
    (lesson_dir / "link.png").symlink_to(tmp_path / "p.png")
    lesson = lesson_dir / "lesson.toml"
    lesson.write_text(f'[photo_filter]\nimage = "{image}"\nsize = [8, 8]\npixel = [0, 0]\ndownsample = 2\n',
                      encoding="utf-8")
    with pytest.raises(LessonError) as err:
        load_lesson(lesson)
    message = str(err.value)
    assert message.startswith(f"{lesson}: photo_filter.image: ") and "lesson's folder" in message


def test_a_picture_inside_a_subfolder_is_accepted(tmp_path):
    from PIL import Image
    (tmp_path / "pictures").mkdir()
    Image.new("RGB", (8, 8), (255, 0, 0)).save(tmp_path / "pictures" / "p.png")
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('[photo_filter]\nimage = "pictures/p.png"\nsize = [8, 8]\npixel = [0, 0]\ndownsample = 2\n',
                      encoding="utf-8")
    assert load_lesson(lesson).params["photo_filter"].picture[0, 0, 0] == 1.0


@pytest.mark.parametrize("name, said", [("שלום", "right-to-left letters (U+05E9"), ("مرحبا", "right-to-left"),
                                        ("𐀀𐀁", "no installed font has (U+10000")])
def test_a_name_the_fonts_cannot_draw_is_refused_naming_its_characters(tmp_path, name, said):
    lesson = tmp_path / "lesson.toml"
    lesson.write_text(f'[attention]\ntokens = [{{ zh = "我", en = "{name}" }}, {{ zh = "想", en = "want" }}, '
                      '{ zh = "吃", en = "to eat" }, { zh = "苹果", en = "apples" }]\n', encoding="utf-8")
    with pytest.raises(LessonError) as err:
        load_lesson(lesson)
    message = str(err.value)
    assert message.startswith(f"{lesson}: attention.tokens[0].en: the name ") and said in message


def test_names_in_latin_accents_greek_cyrillic_and_chinese_are_drawable():
    from qkv_lens.lesson.glyphs import undrawable
    for name in ("Ñandú crème brûlée", "Ελλάδα", "Привет", "苹果（压扁）", "x₁ ≤ 2"):
        assert undrawable(name) == "", name
