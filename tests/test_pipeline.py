"""The pipeline's logic: cache keys, orchestration, subtitles (no real video)."""
import json
import shutil
import threading
import time
from pathlib import Path

import pytest

from scenes.kit import text as text_mod
from scenes.kit.lesson import load_lesson, parse_lesson
from scenes.pipeline import cli, manifest
from scenes.pipeline import render as render_mod
from scenes.pipeline.cache import cache_key, code_digests
from scenes.pipeline.registry import SCENES, find
from scenes.pipeline.subtitles import cue_times, srt_to_vtt
from tests.helpers import ROOT

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
    assert cue_times(vtt) == cue_times(SRT) == [(0.0, 2.5), (2.5, 63.04)]


def test_srt_to_vtt_refuses_garbage():
    with pytest.raises(ValueError):
        srt_to_vtt("1\nnot a time line\ntext\n")


# --- cache keys -----------------------------------------------------------

@pytest.fixture
def tree(tmp_path):
    """A copy of the code tree whose files the test may edit."""
    shutil.copytree(ROOT / "scenes", tmp_path / "scenes", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "qkv_math", tmp_path / "qkv_math", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def key_for(tree, scene="WorkedExample", lesson=None, lang="en", quality="l", fmt="mp4",
            transparent=False, manim="0.22.0"):
    lesson = lesson or load_lesson(ROOT / "lesson.toml", language=lang)
    d = code_digests(tree / "scenes")
    return cache_key(find(scene), lesson, lang, quality, fmt, transparent, d, manim, tree / "scenes")


def edit(path: Path):
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")


def test_key_is_stable(tree):
    assert key_for(tree) == key_for(tree)


@pytest.mark.parametrize("change", [
    lambda t: edit(t / "scenes" / "worked_example.py"),
    lambda t: edit(t / "scenes" / "kit" / "displays.py"),
    lambda t: edit(t / "qkv_math" / "linear.py"),
])
def test_key_changes_with_code(tree, change):
    before = key_for(tree)
    change(tree)
    assert key_for(tree) != before


def test_other_scene_module_does_not_change_the_key(tree):
    before = key_for(tree)
    edit(tree / "scenes" / "space_deformation.py")
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
    lesson = lesson or (ROOT / "lesson.toml")
    return cli.main(["render", "--lang", "en", "--out", str(tmp_path / "out"),
                     "--lesson", str(lesson), *extra])


def test_cache_hit_and_one_edit_one_render(tmp_path, fake, capsys):
    lesson = tmp_path / "lesson.toml"
    shutil.copyfile(ROOT / "lesson.toml", lesson)
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


def test_watch_renders_on_edit_and_not_on_reads(tmp_path):
    from types import SimpleNamespace

    from scenes.pipeline.watch import watch

    lesson = tmp_path / "lesson.toml"
    shutil.copyfile(ROOT / "lesson.toml", lesson)
    calls = []
    stop = threading.Event()
    args = SimpleNamespace(lesson=str(lesson))
    t = threading.Thread(target=watch, args=(args, lambda a: calls.append(time.monotonic()), stop))
    t.start()
    try:
        deadline = time.monotonic() + 10
        while not calls and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(calls) == 1  # the first round at start
        time.sleep(1.0)
        lesson.read_text(encoding="utf-8")               # reading is not a change
        (ROOT / "scenes" / "worked_example.py").read_bytes()
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
