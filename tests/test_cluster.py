"""`qkv-lens render --dask`: a real scheduler and two real worker processes on
loopback render scenes that a local render also renders; the files and the
manifest entries agree; a worker killed mid-job; refusals and errors."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from qkv_lens.app import cli, cluster, segments
from qkv_lens.app.cache import cache_key
from qkv_lens.app.render import Job, Options, Result, process_alive
from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.registry import find
from tests.helpers import LESSON, ROOT, probe_video

LANG = "zh"
SCENES = ("ThreeLenses", "WorkedExample")   # about 28 s and 40 s of video at -ql
LESSON = LESSON
# the manifest field allowed to differ: the time taken (the videos are the same bytes: x264 runs without its
# AVX-512 code, which read memory it had not written, qkv_lens/app/encoder.py)
TIMING = {"render_seconds"}


def qkv(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "qkv_lens", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, **kw)


def render_args(out, *scenes, lesson=LESSON):
    return ["render", *scenes, "--lang", LANG, "-q", "l", "--lesson", str(lesson), "--out", str(out)]


def manifest(out):
    return {e["scene"]: e for e in json.loads((out / "manifest.json").read_text(encoding="utf-8"))["renders"]}


@pytest.fixture(scope="module")
def frozen(tmp_path_factory):
    """A copy of the code taken once: the local and the cluster renders (and
    the workers) all run it, so edits made in the checkout meanwhile cannot
    make them differ.  ``run(*args)`` runs the command there; ``env`` its
    environment."""
    root = tmp_path_factory.mktemp("frozen")
    for name in ("qkv_lens", "qkv_math", "scenes"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(LESSON, root / "lesson.toml")
    shutil.copy(ROOT / "manim.cfg", root / "manim.cfg")
    env = dict(os.environ, PYTHONPATH=str(root))
    found = subprocess.run([sys.executable, "-c", "import qkv_lens, qkv_math, scenes; print(qkv_lens.__file__, "
                            "qkv_math.__file__, scenes.__file__)"], capture_output=True, text=True, cwd=root, env=env)
    assert all(Path(f).is_relative_to(root) for f in found.stdout.split()), found   # the copy, not the checkout

    def run(*args, **kw):
        return subprocess.run([sys.executable, "-m", "qkv_lens", *args], capture_output=True, text=True,
                              cwd=root, env=env, **kw)

    return SimpleNamespace(root=root, env=env, run=run, lesson=root / "lesson.toml")


@pytest.fixture(scope="module")
def dask_cluster(frozen, tmp_path_factory):
    """`dask scheduler` and `dask worker` (two single-threaded worker
    processes, each with its nanny) on loopback, running the frozen code."""
    with cluster.loopback_cluster(tmp_path_factory.mktemp("dask"), 2, cwd=frozen.root, env=frozen.env) as address:
        yield SimpleNamespace(scheduler_address=address)


@pytest.fixture(scope="module")
def local(frozen, tmp_path_factory):
    """The reference: the same jobs rendered by local workers (once per module)."""
    out = tmp_path_factory.mktemp("local")
    p = frozen.run(*render_args(out, *SCENES, lesson=frozen.lesson), "--jobs", "2")
    assert p.returncode == 0, p.stderr
    return out


def worker_pids(c) -> dict[str, int]:
    from distributed import Client
    with Client(c.scheduler_address, set_as_default=False) as client:
        return client.run(os.getpid)


@pytest.mark.render
def test_cluster_render_equals_local_render(frozen, local, dask_cluster, tmp_path):
    out = tmp_path / "out"
    p = frozen.run(*render_args(out, *SCENES, lesson=frozen.lesson), "--dask", dask_cluster.scheduler_address)
    assert p.returncode == 0, p.stderr
    for scene in SCENES:   # progress as locally: one line per finished job
        assert f"done {scene}/{LANG} in " in p.stderr
    assert "2 rendered, 0 cached, 0 failed" in p.stdout
    folder = Path(LANG) / "480p15"
    for scene in SCENES:
        for ext in (".srt", ".vtt", ".beats.json"):
            assert (out / folder / f"{scene}{ext}").read_bytes() == (local / folder / f"{scene}{ext}").read_bytes()
        there, here = probe_video(out / folder / f"{scene}.mp4"), probe_video(local / folder / f"{scene}.mp4")
        assert (there["frames"], there["duration"], there["width"]) == (here["frames"], here["duration"],
                                                                         here["width"])
        assert (out / folder / f"{scene}.mp4").read_bytes() == (local / folder / f"{scene}.mp4").read_bytes()
        assert (out / folder / f"{scene}.png").is_file()
    ours, theirs = manifest(out), manifest(local)
    assert ours.keys() == theirs.keys() == set(SCENES)
    for scene in SCENES:
        differ = {k for k in ours[scene].keys() | theirs[scene].keys() if ours[scene].get(k) != theirs[scene].get(k)}
        assert differ <= TIMING, (scene, {k: (ours[scene].get(k), theirs[scene].get(k)) for k in differ})
    assert not list(out.rglob("*.part"))
    assert (out / "index.html").is_file()
    # a second run is a hash check: the cluster is not even contacted
    again = frozen.run(*render_args(out, *SCENES, lesson=frozen.lesson), "--dask", "tcp://127.0.0.1:1")
    assert again.returncode == 0 and "nothing changed" in again.stdout


@pytest.mark.render
def test_one_scene_on_two_workers_is_rendered_in_pieces_equal_to_a_local_render(frozen, local, dask_cluster,
                                                                                tmp_path):
    """One scene and two worker threads: the scene is cut in two pieces, one
    a worker, joined on the client; the clip is the local whole render's,
    frame for frame, with the same subtitles and beats."""
    from tests.test_segments import assert_same_clip
    out = tmp_path / "out"
    scene = SCENES[1]
    p = frozen.run(*render_args(out, scene, lesson=frozen.lesson), "--dask", dask_cluster.scheduler_address)
    assert p.returncode == 0, p.stderr
    assert f"done {scene}/{LANG} in " in p.stderr and "in 2 pieces at once" in p.stderr, p.stderr
    folder = Path(LANG) / "480p15"
    mine = {f.name: f for f in (out / folder).iterdir() if f.name.startswith(scene)}
    theirs = {f.name: f for f in (local / folder).iterdir() if f.name.startswith(scene)}
    assert_same_clip(theirs, mine, scene, voiced=False)
    assert manifest(out)[scene]["pieces"] == 2


@pytest.mark.render
def test_killed_worker_job_is_rendered_elsewhere(frozen, local, dask_cluster, tmp_path):
    """SIGKILL the worker (and its manim child: the machine dies) mid-render:
    the job runs again on a worker and lands whole; nothing partial stays."""
    out = tmp_path / "out"
    scene = SCENES[0]
    pids = set(worker_pids(dask_cluster).values())
    proc = start_cluster_render(frozen, dask_cluster, out, scene)
    victim, child = manim_child(pids, scene, proc)
    assert victim and child, "no worker started a manim render"
    time.sleep(2.0)   # mid-render
    os.kill(victim, signal.SIGKILL)
    os.kill(child, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "1 rendered, 0 cached, 0 failed" in stdout
    folder = Path(LANG) / "480p15"
    for ext in (".srt", ".beats.json"):
        assert (out / folder / f"{scene}{ext}").read_bytes() == (local / folder / f"{scene}{ext}").read_bytes()
    video = folder / f"{scene}.mp4"
    assert probe_video(out / video)["frames"] == probe_video(local / video)["frames"]
    assert manifest(out)[scene]["files"] == manifest(local)[scene]["files"]
    assert not list(out.rglob("*.part"))
    # the retried task removed the dead worker's media folder
    assert not list(Path(tempfile.gettempdir()).glob(f"qkv-media-{victim}-*"))


def manim_child(pids, scene, proc, timeout=60.0):
    """(worker pid, manim pid) once a worker of ``pids`` runs manim on ``scene``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        for pid in pids:
            found = subprocess.run(["pgrep", "-P", str(pid), "-f", f"manim render.*{scene}"],
                                   capture_output=True, text=True).stdout.split()
            if found:
                return pid, int(found[0])
        time.sleep(0.2)
    return None, None


def start_cluster_render(frozen, dask_cluster, out, scene) -> subprocess.Popen:
    """The frozen copy's qkv-lens rendering ``scene`` into ``out`` on ``dask_cluster``, running."""
    return subprocess.Popen([sys.executable, "-m", "qkv_lens", *render_args(out, scene, lesson=frozen.lesson),
                             "--dask", dask_cluster.scheduler_address], cwd=frozen.root, env=frozen.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.render
def test_ctrl_c_cancels_and_stops_the_workers_renders(frozen, dask_cluster, tmp_path):
    out = tmp_path / "out"
    scene = SCENES[1]
    pids = set(worker_pids(dask_cluster).values())
    proc = start_cluster_render(frozen, dask_cluster, out, scene)
    _, child = manim_child(pids, scene, proc)
    assert child, "no worker started a manim render"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted (SIGINT)" in stderr
    deadline = time.monotonic() + 10
    while process_alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not process_alive(child), "the worker's manim render kept running"
    assert not (out / "manifest.json").exists() and not list(out.rglob("*.mp4"))


def test_workers_with_another_version_are_refused(dask_cluster, tmp_path, monkeypatch, capsys):
    """The client sees qkv-lens 9.9.9, the real workers have the installed
    version: one line naming the worker and both versions; nothing renders."""
    real = cluster.version
    monkeypatch.setattr(cluster, "version", lambda name: "9.9.9" if name == "qkv-lens" else real(name))
    out = tmp_path / "out"
    status = cli.main([*render_args(out, "WorkedExample"), "--dask", dask_cluster.scheduler_address])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 1
    assert len(err) == 1 and err[0].startswith("qkv-lens: error: worker tcp://127.0.0.1:")
    assert f"qkv-lens {real('qkv-lens')} (client: 9.9.9)" in err[0]
    assert not (out / "manifest.json").exists()


def job_and_opts(scene="WorkedExample", lesson=LESSON, voice="none"):
    from qkv_lens.lesson import load_lesson
    from qkv_lens.voice import voice_key
    info = find(scene)
    key = cache_key(info, load_lesson(lesson, LANG), LANG, "l",
                    voice=voice_key(voice, lesson.parent, LANG, info.name))
    return Job(info, LANG, key), Options(lesson_path=lesson, voice=voice)


def test_worker_function_refuses_another_manim(monkeypatch):
    job, opts = job_and_opts()
    [task] = cluster.make_tasks([job], opts)
    real = cluster.fingerprint()
    monkeypatch.setattr(cluster, "fingerprint", lambda: {**real, "manim": "0.18.1"})
    monkeypatch.setattr(cluster, "render_staged", lambda *a: pytest.fail("rendered despite the mismatch"))
    with pytest.raises(cluster.Refused) as err:
        cluster.render_task(task)
    message = str(err.value)
    assert f"it has manim 0.18.1 (client: {real['manim']})" in message
    assert "\n" not in message


def test_worker_names_the_code_that_differs(monkeypatch):
    """Same versions, but the scene's module differs on the worker: the key
    is not reproduced and the refusal names the part that differs."""
    job, opts = job_and_opts()
    [task] = cluster.make_tasks([Job(job.scene, job.lang, "0" * 20)], opts)
    real = cluster.fingerprint()
    monkeypatch.setattr(cluster, "fingerprint", lambda: {**real, "scenes": "edited"})
    monkeypatch.setattr(cluster, "render_staged", lambda *a: pytest.fail("rendered despite the mismatch"))
    with pytest.raises(cluster.Refused, match="it has different scenes; install the client's qkv-lens"):
        cluster.render_task(task)


def test_worker_function_refuses_a_key_it_does_not_reproduce(monkeypatch):
    job, opts = job_and_opts()
    [task] = cluster.make_tasks([Job(job.scene, job.lang, "0" * 20)], opts)
    monkeypatch.setattr(cluster, "render_staged", lambda *a: pytest.fail("rendered despite the mismatch"))
    with pytest.raises(cluster.Refused, match=f"computes the cache key {job.key}, the client 0{{20}}"):
        cluster.render_task(task)


def write_png(path: Path, size=(16, 16), colour=(200, 40, 40)):
    from PIL import Image
    Image.new("RGB", size, colour).save(path)


def picture_lesson(folder: Path, image: str) -> Path:
    lesson = folder / "lesson.toml"
    lesson.write_text(f'[photo_filter]\nimage = "{image}"\n', encoding="utf-8")
    return lesson


def test_picture_and_recordings_travel_with_the_job(tmp_path, monkeypatch):
    """The worker gets the lesson, its picture and the scene's recordings in
    a folder of its own, reproduces the key there and returns the bytes."""
    folder = tmp_path / "course"
    folder.mkdir()
    write_png(folder / "cat.png")
    rec = folder / "voice" / LANG / "PhotoFilter"
    rec.mkdir(parents=True)
    (rec / "intro.wav").write_bytes(b"RIFF a recording")
    (folder / "voice" / LANG / "WorkedExample").mkdir(parents=True)
    (folder / "voice" / LANG / "WorkedExample" / "other.wav").write_bytes(b"not this scene")
    lesson = picture_lesson(folder, "cat.png")
    job, opts = job_and_opts("PhotoFilter", lesson, voice="recorded")
    [task] = cluster.make_tasks([job], opts)
    assert task.files == {"cat.png": (folder / "cat.png").read_bytes(),
                          "voice/zh/PhotoFilter/intro.wav": (rec / "intro.wav").read_bytes()}
    seen = {}

    def fake_render(job_, opts_, media, children):
        lesson_dir = opts_.lesson_path.parent
        seen["files"] = sorted(str(p.relative_to(lesson_dir)) for p in lesson_dir.rglob("*") if p.is_file())
        seen["lesson_dir"] = lesson_dir
        (media / "PhotoFilter.srt").write_bytes(b"subtitles")
        return Result(job_, True, 1.0, [], 3.0, 854, 480), {"PhotoFilter.srt": media / "PhotoFilter.srt"}

    monkeypatch.setattr(cluster, "render_staged", fake_render)
    result, files = cluster.render_task(task)   # the key check passed: it is computed from the copies
    assert result.ok and files == {"PhotoFilter.srt": b"subtitles"}
    assert seen["files"] == ["cat.png", "lesson.toml", "voice/zh/PhotoFilter/intro.wav"]
    assert seen["lesson_dir"] != folder and not seen["lesson_dir"].exists()   # its own folder, removed
    without_voice = cluster.make_tasks([job_and_opts("PhotoFilter", lesson)[0]], Options(lesson_path=lesson))
    assert without_voice[0].files == {"cat.png": (folder / "cat.png").read_bytes()}


def test_a_picture_outside_the_lesson_folder_is_refused(tmp_path):
    (tmp_path / "course").mkdir()
    write_png(tmp_path / "cat.png")
    lesson = picture_lesson(tmp_path / "course", "../cat.png")
    # the lesson itself is refused (for every render, not only on a cluster): a worker
    # receives the lesson's folder, and nothing outside it
    with pytest.raises(LessonError) as err:
        load_lesson(lesson)
    assert "put the picture in the lesson's folder" in str(err.value)


def test_longest_task_runs_first_in_task_order_when_equal():
    tasks = [cluster.Task(f"t{i}", Job(find(name), LANG, "k"), Options(), "lesson.toml", b"", {}, {}, cost=cost)
             for i, (name, cost) in enumerate([("ThreeLenses", 9.0), ("WorkedExample", 14.0),
                                               ("ShadowProjection", 9.0), ("RoleSwap", 30.0)])]
    order = cluster.priorities(tasks)
    run_first = [t.job.scene.name for _, t in sorted(zip(order, tasks), key=lambda p: -p[0])]
    assert run_first == ["RoleSwap", "WorkedExample", "ThreeLenses", "ShadowProjection"]


def write_beats(folder: Path, scene: str, lang: str, starts: list[float], end: float) -> None:
    """A beats file as a render leaves it: what a split is planned from."""
    beats = [{"id": f"b{i}", "start": a, "end": b, "say": "x", "cues": [{"start": a, "end": b, "text": "x"}]}
             for i, (a, b) in enumerate(zip(starts, [*starts[1:], end]))]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{scene}.beats.json").write_text(json.dumps({"scene": scene, "language": lang, "voice": "none",
                                                            "beats": beats}), encoding="utf-8")


def test_a_job_that_would_hold_up_the_rest_is_sent_in_pieces(tmp_path, monkeypatch):
    """On two worker threads, the scene that costs more than half of the
    work (by the manifest in --out) goes as two pieces, cut where they cost
    the same (nothing measured yet: ``segments.plan``), each with half its
    cost, run first; the others go whole, in order of cost; ``split=False``
    (--no-split) sends it whole."""
    monkeypatch.setenv("QKV_CACHE_DIR", str(tmp_path / "cache"))     # no costs kept from other splits
    out = tmp_path / "out"
    costs = {"WorkedExample": 30.0, "ThreeLenses": 8.0, "ShadowProjection": 12.0}
    manifest_entries = [{"scene": name, "language": LANG, "quality": "480p15", "format": "mp4",
                         "duration": 60.0, "render_seconds": cost, "files": [f"{LANG}/480p15/{name}.mp4"]}
                        for name, cost in costs.items()]
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"renders": manifest_entries}), encoding="utf-8")
    write_beats(out / LANG / "480p15", "WorkedExample", LANG, [0.0, 20.0, 29.0, 45.0], 60.0)
    client = SimpleNamespace(scheduler_info=lambda: {"workers": {"a": {"nthreads": 1}, "b": {"nthreads": 1}}},
                             close=lambda: None)
    monkeypatch.setattr(cluster, "connect", lambda address: client)
    sent: list[list[cluster.Task]] = []
    monkeypatch.setattr(cluster, "run_tasks", lambda client, tasks, on_start, on_done: sent.append(tasks) or [])
    jobs = [Job(find(name), LANG, "k") for name in costs]
    for split in (True, False):
        with cluster.session("tcp://x", jobs, Options(out=out, lesson_path=LESSON), split) as run:
            run()
    pieces, whole = sent
    cut = segments.plan(60.0, 2)[1]
    assert 30.0 < cut < 45.0
    assert [(t.job.scene.name, t.segment, t.last, t.cost) for t in pieces] == [
        ("WorkedExample", (0.0, cut), False, 15.0), ("WorkedExample", (cut, float("inf")), True, 15.0),
        ("ThreeLenses", None, True, 8.0), ("ShadowProjection", None, True, 12.0)]
    order = cluster.priorities(pieces)
    assert [pieces[i].job.scene.name for i in sorted(range(4), key=lambda i: -order[i])] == [
        "WorkedExample", "WorkedExample", "ShadowProjection", "ThreeLenses"]
    assert [(t.job.scene.name, t.segment, t.cost) for t in whole] == [
        ("WorkedExample", None, 30.0), ("ThreeLenses", None, 8.0), ("ShadowProjection", None, 12.0)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_scheduler_is_one_line(tmp_path):
    address = f"tcp://127.0.0.1:{free_port()}"
    start = time.monotonic()
    p = qkv(*render_args(tmp_path / "out", "WorkedExample"), env=dict(os.environ, QKV_DASK=address))
    elapsed = time.monotonic() - start
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == [
        f"qkv-lens: error: cannot reach the Dask scheduler at {address} within "
        f"{cluster.CONNECT_TIMEOUT:g} s (is `dask scheduler` running there?)"]
    assert elapsed < 30, elapsed    # a short connect timeout, not a hang
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_a_scheduler_without_workers_is_one_line(tmp_path, monkeypatch, capsys):
    from distributed import LocalCluster
    monkeypatch.setattr(cluster, "WORKERS_TIMEOUT", 1.0)
    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=":0") as empty:
        status = cli.main([*render_args(tmp_path / "out", "WorkedExample"), "--dask", empty.scheduler_address])
    assert status == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        f"qkv-lens: error: the Dask scheduler at {empty.scheduler_address} has no workers after 1 s; "
        f"start `dask worker {empty.scheduler_address}` on each render machine"]
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_bad_address_is_a_usage_error(tmp_path, capsys):
    assert cli.main([*render_args(tmp_path / "out", "WorkedExample"), "--dask", "foo://x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("qkv-lens: error: --dask foo://x: unknown address scheme")


def test_without_distributed_says_how_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)   # import distributed -> ImportError
    assert cli.main([*render_args(tmp_path / "out", "WorkedExample"), "--dask", "tcp://127.0.0.1:1"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "qkv-lens: error: --dask needs the distributed package: pip install qkv-lens[cluster]"]
