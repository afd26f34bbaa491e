"""Real renders through `qkv-lens render` at the lowest quality: probed
videos, subtitles, posters, the cache, a killed worker, the lesson page."""
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from qkv_lens import beats as beats_file
from qkv_lens.app.subtitles import cue_times, cues
from qkv_lens.app.video import beat_changes, edge_frames, longest_hold, talk_only_run
from tests.helpers import ROOT, cue_problems, probe_video, short_lesson, srt_cues, vtt_cues

pytestmark = pytest.mark.render

# the English five are the README's "Teach with it" lesson (test_the_readme_teaches_a_class)
JOBS = [("SpaceDeformation", "en"), ("WorkedExample", "en"), ("QKVProjection", "en"),
        ("AttentionMatching", "en"), ("DotProductSoftmax", "en"), ("ThreeLenses", "zh"),
        ("PhotoFilter", "zh"), ("ShadowProjection", "zh"), ("UpProjection", "zh"),
        ("RolesEmerge", "zh"), ("RoleSwap", "en")]


def qkv(*args, **kw):
    return subprocess.run([sys.executable, "-m", "qkv_lens", *args], capture_output=True, text=True,
                          cwd=ROOT, **kw)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """The cache folder of this module's renders (training runs, typeset formulas)."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def out(tmp_path_factory, cache):
    """Every scene rendered once, each language by its own process (two at once)."""
    out = tmp_path_factory.mktemp("renders")
    env = dict(os.environ, QKV_CACHE_DIR=str(cache))
    procs = [subprocess.Popen([sys.executable, "-m", "qkv_lens", "render",
                               *[s for s, l in JOBS if l == lang], "--lang", lang, "-q", "l",
                               "--out", str(out), "--jobs", "1"], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for lang in ("zh", "en")]
    for p in procs:
        _, err = p.communicate()
        assert p.returncode == 0, err
    assert qkv("lesson", "--out", str(out)).returncode == 0
    return out


def manifest(out):
    return {(e["scene"], e["language"]): e
            for e in json.loads((out / "manifest.json").read_text(encoding="utf-8"))["renders"]}


@pytest.mark.parametrize("scene, lang", JOBS)
def test_video_decodes_with_expected_size_and_length(out, scene, lang):
    info = probe_video(out / lang / "480p15" / f"{scene}.mp4")
    assert (info["width"], info["height"]) == (854, 480)
    assert info["rate"] == pytest.approx(15, abs=0.01)
    assert 20 <= info["duration"] <= 240, info["duration"]
    assert info["frames"] == pytest.approx(info["duration"] * 15, abs=2)
    entry = manifest(out)[(scene, lang)]
    assert entry["duration"] == pytest.approx(info["duration"], abs=0.1)
    assert (entry["width"], entry["height"]) == (854, 480)


@pytest.mark.parametrize("scene, lang", JOBS)
def test_subtitles_cover_the_video(out, scene, lang):
    folder = out / lang / "480p15"
    srt = (folder / f"{scene}.srt").read_text(encoding="utf-8")
    vtt = (folder / f"{scene}.vtt").read_text(encoding="utf-8")
    times = cue_times(srt)
    duration = probe_video(folder / f"{scene}.mp4")["duration"]
    assert vtt_cues(vtt) == srt_cues(srt)            # an independent WebVTT reader finds the SubRip's cues
    assert len(times) >= 4
    assert times[0][0] == pytest.approx(0, abs=0.1)
    assert all(a < b for a, b in times)
    assert all(b1 <= a2 + 1e-3 for (_, b1), (a2, _) in zip(times, times[1:])), "subtitles overlap"
    assert times[-1][1] <= duration + 0.1
    assert sum(b - a for a, b in times) > 0.8 * duration
    assert bool(re.search(r"[\u4e00-\u9fff]", srt)) == (lang == "zh")


@pytest.mark.parametrize("scene, lang", JOBS)
def test_cues_are_readable(out, scene, lang):
    # at most two lines, 16 (zh) / 42 (en) characters a line, 7 / 15 characters a second
    srt = (out / lang / "480p15" / f"{scene}.srt").read_text(encoding="utf-8")
    found = [(c.start.total_seconds(), c.end.total_seconds(), c.content) for c in cues(srt)]
    assert not cue_problems(found, lang)


@pytest.mark.parametrize("scene, lang", JOBS)
def test_no_still_frame_longer_than_six_seconds(out, scene, lang):
    # measured on the video, frame against frame (the last 1.5 s may hold)
    hold, at = longest_hold(out / lang / "480p15" / f"{scene}.mp4")
    assert hold <= 6.0, f"the picture stands still for {hold:.1f} s from {at:.1f} s"


# Scenes whose picture fills the frame by design (SpaceDeformation's grid is
# the whole plane): something bright touches the edge all along.
FILLS_FRAME = {"SpaceDeformation"}


@pytest.mark.parametrize("scene, lang", JOBS)
def test_no_run_of_talk_only_beats_longer_than_six_seconds(out, scene, lang):
    # a beat that leaves the picture as it found it (a pulse that returns) only talks
    folder = out / lang / "480p15"
    run, at, ids = talk_only_run(folder / f"{scene}.mp4", beats_file.read(folder, f"{scene}.beats.json"))
    assert run <= 6.0, f"{run:.1f} s from {at:.1f} s of beats that change nothing: {ids}"


@pytest.mark.parametrize("scene, lang", JOBS)
def test_what_a_beat_names_changes_while_its_sentence_is_shown(out, scene, lang):
    # read from the beats file: the focus box of each beat that names something
    folder = out / lang / "480p15"
    changes = beat_changes(folder / f"{scene}.mp4", beats_file.read(folder, f"{scene}.beats.json"))
    late = [(c.id, round(c.start, 1)) for c in changes if c.named is False]
    assert not late, f"named, but unchanged during its own sentence: {late}"


@pytest.mark.parametrize("scene, lang", [j for j in JOBS if j[0] not in FILLS_FRAME])
def test_nothing_touches_the_frame_edge(out, scene, lang):
    hits = edge_frames(out / lang / "480p15" / f"{scene}.mp4")
    assert not hits, f"{len(hits)} frames touch the edge, from {hits[0]:.1f} s"


@pytest.mark.parametrize("scene, lang", JOBS)
def test_beats_file_beside_the_video(out, scene, lang):
    folder = out / lang / "480p15"
    index = json.loads((folder / f"{scene}.beats.json").read_text(encoding="utf-8"))
    assert index["scene"] == scene and index["language"] == lang and index["beats"]
    srt = [(round(c.start.total_seconds(), 2), c.content)
           for c in cues((folder / f"{scene}.srt").read_text(encoding="utf-8"))]
    listed = [(round(c["start"], 2), c["text"]) for b in index["beats"] for c in b["cues"]]
    assert [t for _, t in listed] == [t for _, t in srt]
    assert all(abs(a - b) <= 0.02 for (a, _), (b, _) in zip(listed, srt))
    ends = [b["end"] for b in index["beats"]]
    assert ends == sorted(ends) and ends[-1] <= probe_video(folder / f"{scene}.mp4")["duration"] + 0.05


@pytest.mark.parametrize("scene, lang", JOBS)
def test_poster_is_the_end_of_the_first_beat(out, scene, lang):
    # the title with the first picture, not the last frame that gives the ending away
    import av
    import numpy as np
    from PIL import Image

    folder = out / lang / "480p15"
    first_end = json.loads((folder / f"{scene}.beats.json").read_text(encoding="utf-8"))["beats"][0]["end"]
    with Image.open(folder / f"{scene}.png") as im:
        assert im.size == (854, 480)
        poster = np.asarray(im.convert("RGB"), dtype=int)
    assert poster.max() > 0                                  # not blank
    before = last = None                                     # two frames held, never the whole clip
    with av.open(str(folder / f"{scene}.mp4")) as c:
        s = c.streams.video[0]
        for f in c.decode(s):
            last = f.to_ndarray(format="rgb24").astype(int)
            if float(f.pts * s.time_base) < first_end:
                before = last
    assert before is not None and last is not None
    assert np.abs(poster - before).mean() < 1.0              # the frame at the end of the first beat
    assert np.abs(poster - last).mean() > 1.0                # not the last frame


def test_noop_render_is_a_hash_check(out):
    start = time.monotonic()
    p = qkv("render", "SpaceDeformation", "--lang", "en", "--out", str(out))
    assert p.returncode == 0 and "nothing changed" in p.stdout
    assert time.monotonic() - start < 15  # process start-up included; no render


def test_formulas_typeset_once_serve_the_next_render(out, cache, tmp_path):
    """The renders above left their formulas in the typesetting cache: the
    same scene renders again with latex and dvisvgm failing (each would
    leave a mark), and its video is the same length."""
    svgs = list(cache.glob("tex/manim-*/*.svg"))
    assert svgs and not list(cache.glob("tex/manim-*/.*.part"))
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("latex", "dvisvgm"):
        tool = tools / name
        tool.write_text(f"#!/bin/sh\ntouch {tmp_path}/{name}-ran\nexit 1\n")
        tool.chmod(0o755)
    env = dict(os.environ, QKV_CACHE_DIR=str(cache), PATH=f"{tools}:{os.environ['PATH']}")
    again = tmp_path / "again"
    p = qkv("render", "WorkedExample", "--lang", "en", "--out", str(again), env=env)
    assert p.returncode == 0, p.stderr
    assert not list(tmp_path.glob("*-ran"))
    first, second = (probe_video(o / "en" / "480p15" / "WorkedExample.mp4") for o in (out, again))
    assert second["duration"] == pytest.approx(first["duration"], abs=0.1)


def test_killed_worker_leaves_old_files_and_manifest(out):
    video = out / "en" / "480p15" / "WorkedExample.mp4"
    before = video.read_bytes()
    entry = manifest(out)[("WorkedExample", "en")]
    proc = subprocess.Popen([sys.executable, "-m", "qkv_lens", "render", "WorkedExample", "--lang", "en",
                             "--force", "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    worker = None
    deadline = time.monotonic() + 30
    while worker is None and time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-P", str(proc.pid), "-f", "manim render.*WorkedExample"],
                               capture_output=True, text=True).stdout.split()
        worker = int(found[0]) if found else None
        time.sleep(0.2)
    assert worker, "no manim worker started"
    time.sleep(2.0)  # mid-render
    os.kill(worker, signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "FAILED WorkedExample" in err
    assert video.read_bytes() == before
    assert manifest(out)[("WorkedExample", "en")] == entry
    assert not list(video.parent.glob(".*.part"))


def test_lesson_page_in_chromium(out):
    from playwright.sync_api import sync_playwright

    entries = manifest(out)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto((out / "index.html").resolve().as_uri())
        page.wait_for_function(
            "Array.from(document.querySelectorAll('video')).every(v => v.readyState >= 1 && "
            "v.textTracks.length && v.textTracks[0].cues && v.textTracks[0].cues.length)", timeout=30000)
        videos = page.evaluate("""() => Array.from(document.querySelectorAll('video')).map(v => ({
            scene: v.dataset.scene, lang: v.closest('section').lang, duration: v.duration,
            cues: v.textTracks[0].cues.length, visible: !v.closest('[hidden]')}))""")
        assert {(v["scene"], v["lang"]) for v in videos} == set(entries)
        for v in videos:
            assert v["duration"] == pytest.approx(entries[(v["scene"], v["lang"])]["duration"], abs=0.2)
            assert v["cues"] >= 4
        assert all(v["visible"] for v in videos if v["lang"] == "en")     # the lesson's language
        assert not any(v["visible"] for v in videos if v["lang"] == "zh")
        page.click("nav button[data-lang=zh]")
        shown = page.evaluate("() => Array.from(document.querySelectorAll('section.lesson'))"
                              ".filter(s => !s.hidden).map(s => s.lang)")
        assert shown == ["zh"]
        assert page.evaluate("document.documentElement.lang") == "zh"
        browser.close()


def test_list_names_every_scene():
    p = qkv("list")
    assert p.returncode == 0
    assert all(s in p.stdout for s, _ in JOBS)


def test_unknown_scene_is_refused(tmp_path):
    p = qkv("render", "SpaceDeformaton", "--out", str(tmp_path / "r"))
    assert p.returncode == 2
    assert 'did you mean "SpaceDeformation"' in p.stderr
    assert not (tmp_path / "r").exists()


def test_preview_writes_the_last_frame(tmp_path):
    p = qkv("preview", "WorkedExample", "--lang", "en", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    from PIL import Image
    with Image.open(tmp_path / "preview" / "en" / "WorkedExample.png") as im:
        assert im.size == (854, 480)


def test_save_sections_gives_one_clip_per_beat(tmp_path):
    # the plain manim CLI: every beat is a manim section (of the short lesson: a shorter render)
    env = dict(os.environ, QKV_LANG="en", QKV_LESSON=str(short_lesson(tmp_path)))
    p = subprocess.run([sys.executable, "-m", "manim", "render", "-ql", "--save_sections", "--progress_bar",
                        "none", "--media_dir", str(tmp_path), "scenes/worked_example.py", "WorkedExample"],
                       cwd=ROOT, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    index = next(tmp_path.glob("videos/**/sections/WorkedExample.json"))
    sections = json.loads(index.read_text(encoding="utf-8"))
    beats = json.loads(next(tmp_path.glob("videos/**/WorkedExample.beats.json")).read_text(encoding="utf-8"))
    assert [s["name"] for s in sections] == [b["id"] for b in beats["beats"]]
    # a section runs from its beat's start to the next beat's start (what plays between two
    # beats belongs to the first)
    starts = [b["start"] for b in beats["beats"]]
    video = next(tmp_path.glob("videos/**/WorkedExample.mp4"))
    ends = starts[1:] + [probe_video(video)["duration"]]
    for s, a, e in zip(sections, starts, ends):
        assert (index.parent / s["video"]).exists()
        assert float(s["duration"]) == pytest.approx(e - a, abs=0.15)


def readme_steps() -> list[tuple[str, str]]:
    """The fenced blocks of the README's "Teach with it", in order: (language, text)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Teach with it"):text.index("\n## ", text.index("## Teach with it") + 1)]
    return [(m.group(1), re.sub(r"^ {3}", "", m.group(2), flags=re.M))
            for m in re.finditer(r"```(\w+)\n(.*?)```", section, flags=re.S)]


def test_the_readme_teaches_a_class(out, cache, tmp_path):
    """A teacher follows only the README's "Teach with it": a lesson folder
    from init, five scenes of their own choosing, their title and goals, the
    render, the export, presenter mode. The five English clips rendered above
    are the ones the README's lesson names, so its render is a hash check
    (the teacher's texts leave the scenes' keys alone)."""
    import shutil

    from playwright.sync_api import sync_playwright
    steps = readme_steps()
    shell = [line for lang, block in steps if lang == "sh" for line in block.splitlines() if line.strip()]
    chapters, texts = [block for lang, block in steps if lang == "toml"]
    assert shell[:2] == ["mkdir week7 && cd week7", "qkv-lens init --lang en"], shell
    env = dict(os.environ, QKV_CACHE_DIR=str(cache))
    here = tmp_path

    def run(line: str) -> subprocess.CompletedProcess:
        args = line.split("#")[0].split()
        assert args[0] == "qkv-lens", line
        p = subprocess.run([sys.executable, "-m", "qkv_lens", *args[1:]], cwd=folder, capture_output=True,
                           text=True, env=env, timeout=900)
        assert p.returncode == 0, (line, p.stdout[-2000:], p.stderr[-2000:])
        return p

    folder = here / "week7"
    folder.mkdir()
    assert "next:" in run(shell[1]).stdout                              # init says what comes next
    lesson = folder / "lesson.toml"
    shipped = lesson.read_text(encoding="utf-8")
    cut = shipped.index("[[chapters]]")
    lesson.write_text(shipped[:shipped.rindex("\n#", 0, cut) + 1] + "\n" + chapters, encoding="utf-8")
    (folder / "texts.toml").write_text(texts, encoding="utf-8")
    names = re.search(r'scenes = \[(.*?)\]', chapters).group(1).replace('"', "").split(", ")
    assert len(names) == 5 and all((n, "en") in JOBS for n in names)
    # the clips rendered above, as a render of this folder leaves them
    doc = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    doc["renders"] = [e for e in doc["renders"] if e["scene"] in names and e["language"] == "en"]
    for e in doc["renders"]:
        for f in e["files"]:
            (folder / "renders" / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(out / f, folder / "renders" / f)
    (folder / "renders" / "manifest.json").write_text(json.dumps(doc), encoding="utf-8")
    for line in shell[2:]:
        p = run(line)
        if line.startswith("qkv-lens render"):
            assert "nothing changed" in p.stdout, p.stdout
    quality = folder / "renders" / "en" / "480p15"           # QKV_QUALITY=l: the suite's drafts
    assert all((quality / f"lesson.{ext}").is_file() for ext in ("mp4", "pptx", "pdf", "srt"))
    title = re.search(r'"lesson.title" = "(.*)"', texts).group(1)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto((folder / "renders" / "index.html").resolve().as_uri() + "?present=1")
        page.wait_for_function("document.body.dataset.state === 'ready'", timeout=30000)
        assert page.evaluate("document.documentElement.lang") == "en" and page.title() == title
        assert page.evaluate("document.body.dataset.beat") == f"{names[0]}/0"
        clips = page.evaluate("() => Array.from(document.querySelectorAll('section.lesson[lang=en] video'))"
                              ".map(v => v.dataset.scene)")
        assert clips == names
        goals = page.evaluate("() => Array.from(document.querySelectorAll('section.lesson[lang=en] .intro li'))"
                              ".map(li => li.textContent)")
        assert goals == re.findall(r'"page.goal\d" = "(.*)"', texts)
        page.keyboard.press("ArrowRight")
        page.wait_for_function("document.body.dataset.state === 'playing'", timeout=10000)
        browser.close()
