"""The render command's jobs with a stand-in renderer: the cache, failure
isolation, parallel jobs, --out, the manifest and page files, outputs and
media folders."""
import json
import shutil
import time
from pathlib import Path

import pytest

from qkv_lens.app import cli, manifest
from qkv_lens.app import render as render_mod
from qkv_lens.languages import offered
from qkv_lens.registry import SCENES
from tests.helpers import LESSON, ROOT, FakeRenderer, mp4_boxes, one_error_line, run_cli

ALL = sorted(s.name for s in SCENES)


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
    assert len(slow.calls) == len(offered()) * len(ALL) and slow.max_active == 2     # every language of the tables


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


@pytest.mark.parametrize("preset", [None, "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"])
def test_a_manim_child_gets_one_blas_thread_unless_the_environment_says(tmp_path, monkeypatch, preset):
    seen = []
    monkeypatch.setattr(render_mod.CHILDREN, "run", lambda cmd, env: seen.append(env) or (1, "stopped"))
    for var in render_mod.ONE_THREAD:
        monkeypatch.delenv(var, raising=False)
    if preset:
        monkeypatch.setenv(preset, "3")
    job = render_mod.Job(SCENES[0], "en", "test")
    render_mod.run_manim(job, render_mod.Options(out=tmp_path), tmp_path)
    want = {var: "1" for var in render_mod.ONE_THREAD} if preset is None else {preset: "3"}
    assert {var: seen[0][var] for var in render_mod.ONE_THREAD if var in seen[0]} == want


def test_render_and_export_default_to_720p30_and_qkv_quality_overrides(monkeypatch):
    """A teacher's default is class quality (720p30); the draft (480p15) is
    -q l, or QKV_QUALITY=l (the suite's own setting); watch and preview draw
    drafts; an unknown QKV_QUALITY is ignored."""
    from qkv_lens.app.cli import build_parser
    monkeypatch.delenv("QKV_QUALITY", raising=False)
    parser = build_parser()
    assert parser.parse_args(["render"]).quality == "m" and parser.parse_args(["export"]).quality == "m"
    assert parser.parse_args(["render", "-q", "l"]).quality == "l"
    assert parser.parse_args(["watch"]).quality == "l" and parser.parse_args(["preview", "X"]).quality == "l"
    monkeypatch.setenv("QKV_QUALITY", "h")
    assert build_parser().parse_args(["render"]).quality == "h"
    monkeypatch.setenv("QKV_QUALITY", "1080p")
    assert build_parser().parse_args(["export"]).quality == "m"


def test_lang_all_skips_a_language_the_lesson_has_no_names_in(tmp_path, fake, capsys):
    """A lesson whose chapter titles are in English only renders with --lang
    all in the languages it can be shown in, naming the one it skips in one
    warning line; asked for alone, that language is refused in one line."""
    import tomllib

    from tests.helpers import LESSON, toml_text
    raw = tomllib.loads(LESSON.read_text(encoding="utf-8"))
    for chapter in raw["chapters"]:
        chapter["title"] = {"en": chapter["title"]["en"]}
    lesson = tmp_path / "lesson.toml"
    lesson.write_text(toml_text(raw), encoding="utf-8")
    out = tmp_path / "out"
    # the folder already holds zh clips (as after make render LANG=all with the shipped lesson)
    assert cli.main(["render", "WorkedExample", "--lang", "zh", "--out", str(out)]) == 0
    capsys.readouterr()
    fake.calls.clear()
    assert cli.main(["render", "WorkedExample", "--lang", "all", "--out", str(out), "--lesson", str(lesson)]) == 0
    err = capsys.readouterr().err
    skipped = [line for line in err.splitlines() if "skipped" in line]
    assert {line.split()[2] for line in skipped} == {"zh", "es"} and all("chapters" in line for line in skipped)
    assert fake.calls == ["WorkedExample"]
    left_out = [line for line in err.splitlines() if "leaves out the zh clips" in line]
    assert len(left_out) == 1 and "chapter 1's title has no zh name" in left_out[0]
    page = (out / "index.html").read_text(encoding="utf-8")
    assert 'lang="en"' in page and '<section class="lesson" lang="zh"' not in page
    assert cli.main(["lesson", "--out", str(out), "--lesson", str(lesson)]) == 0     # the page alone too
    assert "leaves out the zh clips" in capsys.readouterr().err
    assert cli.main(["render", "WorkedExample", "--lang", "zh", "--out", str(out), "--lesson", str(lesson)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
