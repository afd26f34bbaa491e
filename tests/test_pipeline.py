"""The pipeline's logic: cache keys, orchestration, subtitles (no real video)."""
import json
import shutil
import threading
import time
from pathlib import Path

import pytest

from qkv_lens import texts as text_mod
from qkv_lens.app import cli, manifest
from qkv_lens.app import render as render_mod
from qkv_lens.app.cache import cache_key, code_digests
from qkv_lens.app.subtitles import cue_times, srt_to_vtt
from qkv_lens.lesson import load_lesson, parse_lesson
from qkv_lens.registry import SCENES, find
from tests.helpers import LESSON, ROOT

ALL = sorted(s.name for s in SCENES)

SRT = """1
00:00:00,000 --> 00:00:02,500
第一句

2
00:00:02,500 --> 00:01:03,040
Second line
continues here
"""


def test_srt_to_vtt():
    vtt = srt_to_vtt(SRT)
    assert vtt.startswith("WEBVTT\n\n")
    assert "00:00:00.000 --> 00:00:02.500\n第一句\n" in vtt
    assert "00:00:02.500 --> 00:01:03.040\nSecond line\ncontinues here\n" in vtt
    assert "\n1\n" not in vtt and "\n2\n" not in vtt
    assert cue_times(SRT) == [(0.0, 2.5), (2.5, 63.04)]


def test_srt_to_vtt_refuses_garbage():
    with pytest.raises(ValueError):
        srt_to_vtt("1\nnot a time line\ntext\n")


# --- cache keys -----------------------------------------------------------

@pytest.fixture
def tree(tmp_path):
    """A copy of the code tree whose files the test may edit."""
    shutil.copytree(ROOT / "scenes", tmp_path / "scenes", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "qkv_math", tmp_path / "qkv_math", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "qkv_lens", tmp_path / "qkv_lens", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def key_for(tree, scene="WorkedExample", lesson=None, lang="en", quality="l", fmt="mp4",
            transparent=False, manim="0.22.0"):
    lesson = lesson or load_lesson(LESSON, language=lang)
    d = code_digests(tree)
    return cache_key(find(scene), lesson, lang, quality, fmt, transparent, d, manim, tree)


def edit(path: Path):
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")


def test_key_is_stable(tree):
    assert key_for(tree) == key_for(tree)


@pytest.mark.parametrize("change", [
    lambda t: edit(t / "scenes" / "worked_example.py"),
    lambda t: edit(t / "scenes" / "kit" / "displays.py"),
    lambda t: edit(t / "qkv_math" / "linear.py"),
    lambda t: edit(t / "qkv_lens" / "lesson" / "sections.py"),
    lambda t: edit(t / "qkv_lens" / "runs.py"),
    lambda t: edit(t / "qkv_lens" / "beats.py"),       # every module outside qkv_lens/app, none listed by hand
    lambda t: edit(t / "qkv_lens" / "store.py"),
    lambda t: (t / "qkv_lens" / "new_helper.py").write_text("X = 1\n", encoding="utf-8"),
    lambda t: edit(t / "qkv_lens" / "manim.cfg"),
])
def test_key_changes_with_code(tree, change):
    before = key_for(tree)
    change(tree)
    assert key_for(tree) != before


def test_other_scene_module_does_not_change_the_key(tree):
    before = key_for(tree)
    edit(tree / "scenes" / "space_deformation.py")
    assert key_for(tree) == before


@pytest.mark.parametrize("name", ["app/cli.py", "app/page.py", "app/render.py", "app/export.py"])
def test_the_command_and_page_do_not_change_the_key(tree, name):
    before = key_for(tree)
    edit(tree / "qkv_lens" / name)
    assert key_for(tree) == before


def test_key_changes_with_own_section_only(tree):
    base = key_for(tree)
    own = parse_lesson({"worked_example": {"x": [5, 4]}}, Path("l.toml"), "en")
    other = parse_lesson({"space_deformation": {"shear": 2}}, Path("l.toml"), "en")
    assert key_for(tree, lesson=own) != base
    assert key_for(tree, lesson=other) == base


def test_key_changes_with_the_picture_file(tree, tmp_path):
    import numpy as np
    from PIL import Image

    pic = tmp_path / "pic.png"
    lesson_file = tmp_path / "l.toml"
    Image.fromarray(np.zeros((8, 8, 3), dtype=np.uint8)).save(pic)
    lesson_file.write_text('[photo_filter]\nimage = "pic.png"\nsize = [8, 8]\npixel = [0, 0]\n'
                           'downsample = 2\n', encoding="utf-8")
    before = key_for(tree, scene="PhotoFilter", lesson=load_lesson(lesson_file, language="en"))
    Image.fromarray(np.full((8, 8, 3), 200, dtype=np.uint8)).save(pic)
    after = key_for(tree, scene="PhotoFilter", lesson=load_lesson(lesson_file, language="en"))
    assert before != after


def test_key_changes_with_own_texts_only(tree, monkeypatch):
    base = key_for(tree)
    monkeypatch.setitem(text_mod.TEXTS["en"], "space_deformation.title", "Another title")
    assert key_for(tree) == base
    monkeypatch.setitem(text_mod.TEXTS["en"], "worked_example.title", "Another title")
    assert key_for(tree) != base


@pytest.mark.parametrize("kw", [{"lang": "zh"}, {"quality": "h"}, {"fmt": "webm"},
                                {"transparent": True}, {"manim": "0.22.1"}])
def test_key_changes_with_options(tree, kw):
    assert key_for(tree, **kw) != key_for(tree)


# --- orchestration with a stand-in renderer ---------------------------------

class FakeRenderer:
    """Writes small stand-in outputs; fails for the scenes in ``fail``."""

    def __init__(self, delay=0.0):
        self.calls = []
        self.fail = set()
        self.delay = delay
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()

    def __call__(self, job, opts):
        with self.lock:
            self.calls.append(job.scene.name)
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            time.sleep(self.delay)
            if job.scene.name in self.fail:
                return render_mod.Result(job, False, 0.1, error="boom")
            d = render_mod.out_dir(opts, job.lang)
            d.mkdir(parents=True, exist_ok=True)
            files = []
            for ext in ("mp4", "srt", "vtt", "png"):
                f = d / f"{job.scene.name}.{ext}"
                f.write_text(job.key, encoding="utf-8")
                files.append(f)
            return render_mod.Result(job, True, 0.1, files, 30.0, 854, 480)
        finally:
            with self.lock:
                self.active -= 1


@pytest.fixture
def fake(monkeypatch):
    f = FakeRenderer()
    monkeypatch.setattr(render_mod, "render_job", f)
    return f


def run_cli(tmp_path, *extra, lesson=None):
    lesson = lesson or (LESSON)
    return cli.main(["render", "--lang", "en", "--out", str(tmp_path / "out"),
                     "--lesson", str(lesson), *extra])


def test_cache_hit_and_one_edit_one_render(tmp_path, fake, capsys):
    lesson = tmp_path / "lesson.toml"
    shutil.copyfile(LESSON, lesson)
    assert run_cli(tmp_path, lesson=lesson) == 0
    assert sorted(fake.calls) == ALL
    fake.calls.clear()
    assert run_cli(tmp_path, lesson=lesson) == 0
    assert fake.calls == []
    assert "nothing changed" in capsys.readouterr().out
    lesson.write_text(lesson.read_text(encoding="utf-8").replace("x = [3, 4]", "x = [3, 5]"),
                      encoding="utf-8")
    assert run_cli(tmp_path, lesson=lesson) == 0
    assert fake.calls == ["WorkedExample"]
    fake.calls.clear()
    assert run_cli(tmp_path, "--force", lesson=lesson) == 0
    assert sorted(fake.calls) == ALL


def test_missing_output_file_is_rerendered(tmp_path, fake):
    assert run_cli(tmp_path) == 0
    (tmp_path / "out" / "en" / "480p15" / "WorkedExample.png").unlink()
    fake.calls.clear()
    assert run_cli(tmp_path) == 0
    assert fake.calls == ["WorkedExample"]


def test_failure_is_isolated_and_old_output_kept(tmp_path, fake, capsys):
    assert run_cli(tmp_path) == 0
    video = tmp_path / "out" / "en" / "480p15" / "SpaceDeformation.mp4"
    old = video.read_text(encoding="utf-8")
    old_entry = manifest.load(tmp_path / "out")["SpaceDeformation/en/480p15/mp4"]
    fake.fail = {"SpaceDeformation"}
    fake.calls.clear()
    status = run_cli(tmp_path, "--force", "--jobs", "2")
    assert status == 1
    assert sorted(fake.calls) == ALL
    assert video.read_text(encoding="utf-8") == old
    entries = manifest.load(tmp_path / "out")
    assert entries["SpaceDeformation/en/480p15/mp4"] == old_entry
    err = capsys.readouterr().err
    assert "FAILED SpaceDeformation" in err and "boom" in err


def test_jobs_run_in_parallel(tmp_path, monkeypatch):
    slow = FakeRenderer(delay=0.5)
    monkeypatch.setattr(render_mod, "render_job", slow)
    assert cli.main(["render", "--lang", "all", "--jobs", "2", "--out", str(tmp_path / "out")]) == 0
    assert len(slow.calls) == 2 * len(ALL) and slow.max_active == 2


def test_an_exception_in_one_job_is_a_failure_not_a_crash(tmp_path, monkeypatch):
    def explode(job, opts):
        if job.scene.name == "WorkedExample":
            raise RuntimeError("worker died")
        return FakeRenderer()(job, opts)
    monkeypatch.setattr(render_mod, "render_job", explode)
    assert run_cli(tmp_path) == 1
    assert "SpaceDeformation/en/480p15/mp4" in manifest.load(tmp_path / "out")


def test_manifest_is_valid_json_with_every_field(tmp_path, fake):
    run_cli(tmp_path)
    data = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    for e in data["renders"]:
        assert set(e) >= {"scene", "key", "language", "quality", "format", "duration", "width",
                          "height", "files", "bytes", "render_seconds"}
        assert all((tmp_path / "out" / f).exists() for f in e["files"])
    assert not list((tmp_path / "out").glob(".*.part"))


def test_bad_jobs_value(tmp_path):
    assert cli.main(["render", "--jobs", "0", "--out", str(tmp_path / "o")]) == 2


def test_watch_renders_on_edit_and_not_on_reads(tmp_path, tree):
    from types import SimpleNamespace

    from qkv_lens.app.watch import watch

    lesson = tmp_path / "lesson.toml"
    shutil.copyfile(LESSON, lesson)
    calls = []
    stop = threading.Event()
    args = SimpleNamespace(lesson=str(lesson))
    # a copy of the code: other people's edits of the checkout must not count
    code = (tree / "scenes", tree / "qkv_math")
    t = threading.Thread(target=watch, args=(args, lambda a: calls.append(time.monotonic()), stop, code))
    t.start()
    try:
        deadline = time.monotonic() + 10
        while not calls and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(calls) == 1  # the first round at start
        time.sleep(1.0)
        lesson.read_text(encoding="utf-8")               # reading is not a change
        (tree / "scenes" / "worked_example.py").read_bytes()
        time.sleep(1.5)
        assert len(calls) == 1
        lesson.write_text(lesson.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        deadline = time.monotonic() + 10
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(calls) == 2
    finally:
        stop.set()
        t.join(timeout=10)
    assert not t.is_alive()


# --- hardening: every advertised output works -------------------------------

def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qkv-lens: error: "), err
    return lines[0]


@pytest.mark.parametrize("where", ["a_file", "a_file/sub", "/proc/qkv-lens-out", "/sys/kernel"])
def test_unusable_out_is_refused_before_rendering(tmp_path, fake, capsys, where):
    (tmp_path / "a_file").write_text("not a folder", encoding="utf-8")
    out = tmp_path / where  # an absolute `where` replaces tmp_path
    assert cli.main(["render", "--lang", "en", "--out", str(out)]) == 2
    assert f"--out {out}: " in one_error_line(capsys.readouterr().err)
    assert fake.calls == []


def test_unusable_out_in_a_real_process(tmp_path):
    import subprocess
    import sys
    (tmp_path / "a_file").write_text("", encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "qkv_lens", "render", "WorkedExample", "--out",
                        str(tmp_path / "a_file" / "sub")], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 2
    assert one_error_line(p.stderr) == (f"qkv-lens: error: --out {tmp_path / 'a_file' / 'sub'}: "
                                        "cannot write there (Not a directory)")
    assert cli.main(["preview", "WorkedExample", "--out", str(tmp_path / "a_file")]) == 2


def test_out_probe_leaves_nothing(tmp_path, fake):
    assert run_cli(tmp_path) == 0
    assert not list((tmp_path / "out").glob(".qkv-lens-probe-*"))


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_page_and_manifest_honour_the_umask(tmp_path, fake, mask, mode):
    import os
    import stat
    old = os.umask(mask)
    try:
        assert run_cli(tmp_path) == 0
    finally:
        os.umask(old)
    for name in ("index.html", "manifest.json"):
        assert stat.S_IMODE((tmp_path / "out" / name).stat().st_mode) == mode, name


@pytest.fixture
def rendered(tmp_path, fake):
    """renders/ from the stand-in renderer: real files, manifest and page."""
    assert run_cli(tmp_path) == 0
    out = tmp_path / "out"
    return out, (out / "index.html").read_bytes()


def test_lesson_names_a_missing_subtitle_and_keeps_the_page(rendered, capsys):
    out, page = rendered
    (out / "en" / "480p15" / "WorkedExample.vtt").unlink()
    capsys.readouterr()
    assert cli.main(["lesson", "--out", str(out)]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "WorkedExample.vtt: missing" in line and "render it again" in line
    assert (out / "index.html").read_bytes() == page


@pytest.mark.parametrize("damage", ["{not json", '{"renders": [{"scene": 1}]}', "[]", "\xff\xfe"])
def test_lesson_refuses_a_damaged_manifest_and_keeps_the_page(rendered, capsys, damage):
    out, page = rendered
    (out / "manifest.json").write_bytes(damage.encode("latin-1"))
    capsys.readouterr()
    assert cli.main(["lesson", "--out", str(out)]) == 1
    assert f"{out / 'manifest.json'}: damaged" in one_error_line(capsys.readouterr().err)
    assert (out / "index.html").read_bytes() == page


def test_lesson_without_a_manifest(tmp_path, capsys):
    assert cli.main(["lesson", "--out", str(tmp_path)]) == 1
    assert "manifest.json: not found" in one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "index.html").exists()


def test_lesson_with_a_damaged_manifest_in_a_real_process(rendered):
    import subprocess
    import sys
    out, page = rendered
    (out / "manifest.json").write_text('{"renders": 3}', encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "qkv_lens", "lesson", "--out", str(out)], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert "manifest.json: damaged" in one_error_line(p.stderr)
    assert (out / "index.html").read_bytes() == page


def test_render_reports_a_page_it_cannot_build(rendered, fake, capsys):
    out, page = rendered
    (out / "en" / "480p15" / "SpaceDeformation.vtt").unlink()
    fake.fail = {"SpaceDeformation"}  # its re-render fails: the old entry names a missing file
    fake.calls.clear()
    capsys.readouterr()
    assert run_cli(out.parent) == 1
    assert fake.calls == ["SpaceDeformation"]
    err = capsys.readouterr().err
    assert "qkv-lens: error: lesson page not rebuilt: " in err and "SpaceDeformation.vtt: missing" in err
    assert (out / "index.html").read_bytes() == page


def test_transparent_mp4_is_recorded_as_mov_and_linked_not_played(tmp_path, fake, capsys):
    assert run_cli(tmp_path, "--transparent", "WorkedExample") == 0
    # the stand-in writes .mp4 files; give the entry the .mov real renders produce
    out = tmp_path / "out"
    entries = manifest.load(out)
    assert list(entries) == ["WorkedExample/en/480p15/mov"]
    fake.calls.clear()
    assert run_cli(tmp_path, "--transparent", "WorkedExample") == 0
    assert fake.calls == []  # its cache entry is found under its own format
    entry = entries["WorkedExample/en/480p15/mov"]
    folder = out / "en" / "480p15"
    (folder / "WorkedExample.mp4").rename(folder / "WorkedExample.mov")
    entry["files"] = [f.replace(".mp4", ".mov") for f in entry["files"]]
    manifest.save(out, {"x": entry})
    assert cli.main(["lesson", "--out", str(out)]) == 0
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "<video" not in html
    assert '<a class="download" href="en/480p15/WorkedExample.mov"' in html
    assert 'src="en/480p15/WorkedExample.png"' in html


def mp4_boxes(path: Path) -> list[str]:
    """The types of an MP4 file's top-level boxes, in file order."""
    import struct
    data = path.read_bytes()
    boxes, i = [], 0
    while i + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        if size == 1:
            size = struct.unpack(">Q", data[i + 8:i + 16])[0]
        elif size == 0:
            size = len(data) - i
        assert size >= 8, f"bad box at {i}"
        boxes.append(kind.decode("latin-1"))
        i += size
    return boxes


def test_faststart_moves_the_index_first_without_reencoding(tmp_path):
    import av
    import numpy as np

    src, dest = tmp_path / "in.mp4", tmp_path / "out.mp4"
    with av.open(str(src), "w") as c:
        s = c.add_stream("libx264", rate=15)
        s.width, s.height, s.pix_fmt = 64, 48, "yuv420p"
        for i in range(30):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), i * 8, np.uint8), format="rgb24")
            for packet in s.encode(frame):
                c.mux(packet)
        for packet in s.encode():
            c.mux(packet)
    boxes = mp4_boxes(src)
    assert boxes.index("moov") > boxes.index("mdat")  # what manim writes
    render_mod.faststart(src, dest)
    boxes = mp4_boxes(dest)
    assert boxes.index("moov") < boxes.index("mdat")

    def packets(path):
        with av.open(str(path)) as c:
            return [(p.pts, bytes(p)) for p in c.demux(c.streams.video[0]) if p.dts is not None]

    def frames(path):
        with av.open(str(path)) as c:
            return [f.pts for f in c.decode(video=0)]

    assert packets(dest) == packets(src)  # the same compressed packets: a remux
    assert frames(dest) == frames(src) and len(frames(dest)) == 30


def test_zh_and_en_renders_go_to_different_files(tmp_path):
    """With the plain manim CLI, a scene's zh and en renders must not share a path."""
    from manim import tempconfig

    from scenes.worked_example import WorkedExample
    from tests.helpers import lesson_env

    paths = {}
    for lang in ("zh", "en"):
        with lesson_env(LESSON, lang), tempconfig({
                "media_dir": str(tmp_path), "quality": "low_quality", "verbosity": "ERROR",
                "input_file": str(ROOT / "scenes" / "worked_example.py")}):
            scene = WorkedExample()
            paths[lang] = (scene.renderer.file_writer.movie_file_path, scene.output_plan.fallback_image)
    assert paths["zh"][0] == tmp_path / "videos" / "worked_example" / "zh" / "480p15" / "WorkedExample.mp4"
    assert paths["en"][0] == tmp_path / "videos" / "worked_example" / "en" / "480p15" / "WorkedExample.mp4"
    assert paths["zh"][1].parent == tmp_path / "images" / "worked_example" / "zh"
    assert paths["en"][1].parent == tmp_path / "images" / "worked_example" / "en"


def test_a_chosen_video_dir_is_left_alone(tmp_path):
    from manim import tempconfig

    from scenes.worked_example import WorkedExample
    from tests.helpers import lesson_env

    with lesson_env(LESSON, "en"), tempconfig({
            "media_dir": str(tmp_path), "quality": "low_quality", "verbosity": "ERROR",
            "video_dir": str(tmp_path / "mine")}):
        scene = WorkedExample()
        assert scene.renderer.file_writer.movie_file_path == tmp_path / "mine" / "WorkedExample.mp4"


def test_stale_media_folders_of_dead_runs_only_are_removed(tmp_path):
    import os
    import subprocess
    dead = subprocess.Popen(["true"])
    dead.wait()
    gone = tmp_path / f"qkv-media-{dead.pid}-abc"
    live = tmp_path / f"qkv-media-{os.getppid()}-abc"
    mine = tmp_path / f"qkv-media-{os.getpid()}-abc"
    old_style = tmp_path / "qkv-media-k2j4h5g6"
    for folder in (gone, live, mine, old_style):
        (folder / "videos").mkdir(parents=True)
    assert render_mod.clean_stale_media(tmp_path) == [gone]
    assert not gone.exists() and live.exists() and mine.exists() and old_style.exists()


def test_the_folder_of_a_killed_process_not_yet_reaped_is_removed(tmp_path):
    """A killed Dask worker stays a zombie until its nanny reaps it: its
    folder is stale all the same."""
    import signal
    import subprocess
    import time
    zombie = subprocess.Popen(["sleep", "60"])
    try:
        zombie.send_signal(signal.SIGKILL)
        for _ in range(100):      # wait until the kernel marks it Z (not reaped: no wait())
            if Path(f"/proc/{zombie.pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z":
                break
            time.sleep(0.01)
        folder = tmp_path / f"qkv-media-{zombie.pid}-abc"
        folder.mkdir()
        assert render_mod.clean_stale_media(tmp_path) == [folder]
    finally:
        zombie.wait()


def test_watch_renders_on_an_edit_of_the_lessons_picture(tmp_path, tree):
    from types import SimpleNamespace

    import numpy as np
    from PIL import Image

    from qkv_lens.app.watch import watch

    (tmp_path / "pics").mkdir()
    recording = tmp_path / "voice" / "en" / "WorkedExample" / "intro.wav"
    recording.parent.mkdir(parents=True)
    recording.write_bytes(b"RIFF")
    named = tmp_path / "pics" / "x.png"
    beside = tmp_path / "y.jpg"
    Image.fromarray(np.zeros((8, 8, 3), dtype=np.uint8)).save(named)
    Image.fromarray(np.zeros((8, 8, 3), dtype=np.uint8)).save(beside)
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('[photo_filter]\nimage = "pics/x.png"\nsize = [8, 8]\n', encoding="utf-8")
    calls = []
    stop = threading.Event()
    code = (tree / "scenes", tree / "qkv_math")  # not the checkout others edit
    t = threading.Thread(target=watch, args=(SimpleNamespace(lesson=str(lesson)),
                                             lambda a: calls.append(time.monotonic()), stop, code))

    def wait_for(n):
        deadline = time.monotonic() + 10
        while len(calls) < n and time.monotonic() < deadline:
            time.sleep(0.1)
        return len(calls)

    t.start()
    try:
        assert wait_for(1) == 1  # the first round at start
        time.sleep(1.0)
        (tmp_path / "notes.txt").write_text("not part of the lesson", encoding="utf-8")
        named.read_bytes()
        time.sleep(1.5)
        assert len(calls) == 1
        Image.fromarray(np.full((8, 8, 3), 200, dtype=np.uint8)).save(named)  # the named picture
        assert wait_for(2) == 2
        time.sleep(1.2)
        Image.fromarray(np.full((8, 8, 3), 90, dtype=np.uint8)).save(beside)  # a picture beside it
        assert wait_for(3) == 3
        time.sleep(1.2)
        recording.write_bytes(b"RIFF again")                                   # a recording of a beat
        assert wait_for(4) == 4
    finally:
        stop.set()
        t.join(timeout=10)
    assert not t.is_alive()


def test_typesetting_cache_seeds_and_publishes_svgs(tmp_path):
    from qkv_lens.app import texcache
    cache, media = tmp_path / "cache", tmp_path / "media"
    assert texcache.seed(media, cache) == 0 and not (media / "Tex").exists()   # nothing cached yet
    (media / "Tex").mkdir(parents=True)
    (media / "Tex" / "a1.svg").write_text("<svg>a</svg>")
    (media / "Tex" / "a1.tex").write_text("x")            # only SVGs travel
    (media / "Tex" / "empty.svg").write_text("")           # a conversion that wrote nothing
    assert texcache.publish(media, cache) == 1
    assert sorted(p.name for p in cache.iterdir()) == ["a1.svg"]
    assert texcache.publish(media, cache) == 0              # already there: not copied again
    fresh = tmp_path / "fresh"
    (fresh / "Tex").mkdir(parents=True)
    (fresh / "Tex" / "b2.svg").write_text("<svg>mine</svg>")
    (cache / "b2.svg").write_text("<svg>cached</svg>")
    assert texcache.seed(fresh, cache) == 1                 # a1 seeded; b2 of this render kept
    assert (fresh / "Tex" / "a1.svg").read_text() == "<svg>a</svg>"
    assert (fresh / "Tex" / "b2.svg").read_text() == "<svg>mine</svg>"


def test_typesetting_cache_that_cannot_be_written_is_left_alone(tmp_path):
    from qkv_lens.app import texcache
    media = tmp_path / "media"
    (media / "Tex").mkdir(parents=True)
    (media / "Tex" / "a1.svg").write_text("<svg>a</svg>")
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert texcache.publish(media, blocked / "tex") == 0    # no exception: the render itself succeeded
    assert not list(tmp_path.rglob("*.part"))


def test_typesetting_cache_lives_in_the_cache_folder_per_manim_version(tmp_path, monkeypatch):
    from qkv_lens.app import texcache
    monkeypatch.setenv("QKV_CACHE_DIR", str(tmp_path))
    assert texcache.tex_cache("0.22.0") == tmp_path / "tex" / "manim-0.22.0"
    assert texcache.tex_cache("0.23.0") != texcache.tex_cache("0.22.0")


def test_manim_reads_the_shipped_settings():
    # `qkv-lens init` and direct `manim` runs use the project's copy, the
    # pipeline the package's: the same file, and every setting a name manim knows
    # (a misspelt key would be ignored without a word)
    from manim._config.utils import ManimConfig, make_config_parser

    shipped = ROOT / "qkv_lens" / "manim.cfg"
    assert (ROOT / "manim.cfg").read_text() == shipped.read_text()
    parser = make_config_parser(str(shipped))
    known = ManimConfig().digest_parser(make_config_parser())._d
    ours = ManimConfig().digest_parser(parser)
    for key in parser["CLI"]:
        assert key in known, key
    assert ours.disable_caching
    assert ours.max_inflight_encoders == 1   # several encoders at once: not reproducible (docs/design.md)
    assert parser["video_encoder.options"]["preset"] == "veryfast"
