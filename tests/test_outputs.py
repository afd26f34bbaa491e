"""Every advertised output, rendered for real through `qkv-lens render` at
-ql (WorkedExample, en, of the short lesson: 35 s of video): a web-ready
mp4, a gif, a transparent .mov; and the render process stopped by SIGTERM or
SIGKILL."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT, mp4_boxes, probe_video, short_lesson

pytestmark = pytest.mark.render

SCENE = "WorkedExample"
FPS = 15


def render(out: Path, *extra: str, tmpdir: Path | None = None, wait: bool = True):
    cmd = [sys.executable, "-m", "qkv_lens", "render", SCENE, "--lang", "en", "--jobs", "1",
           "--lesson", str(short_lesson(out.parent)), "--out", str(out), *extra]
    env = dict(os.environ, **({"TMPDIR": str(tmpdir)} if tmpdir else {}))
    if not wait:
        return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p


def entries(out: Path) -> list[dict]:
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))["renders"]


@pytest.fixture(scope="module")
def mp4_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("mp4")
    render(out)
    return out


def test_mp4_is_web_ready(mp4_out):
    video = mp4_out / "en" / "480p15" / f"{SCENE}.mp4"
    boxes = mp4_boxes(video)
    assert boxes.index("moov") < boxes.index("mdat"), boxes
    info = probe_video(video)
    [entry] = entries(mp4_out)
    assert info["frames"] == round(entry["duration"] * FPS) and info["frames"] > 300
    assert (info["width"], info["height"]) == (854, 480)


def frame_starts_ms(path) -> list[int]:
    """Each frame's start and the end, in ms, from the GIF's own delays (Pillow)."""
    from PIL import Image
    starts = [0]
    with Image.open(path) as im:
        for k in range(im.n_frames):
            im.seek(k)
            starts.append(starts[-1] + im.info["duration"])
    return starts


def test_gif(tmp_path):
    import av
    render(tmp_path, "--format", "gif")
    folder = tmp_path / "en" / "480p15"
    assert sorted(p.name for p in folder.iterdir()) == [f"{SCENE}.{x}" for x in
                                                        ("beats.json", "gif", "png", "srt", "vtt")]
    with av.open(str(folder / f"{SCENE}.gif")) as c:
        assert c.streams.video[0].codec_context.name == "gif"
        frames = sum(1 for _ in c.decode(video=0))
    assert frames > 300
    starts = frame_starts_ms(folder / f"{SCENE}.gif")      # GIF delays are whole centiseconds
    assert len(starts) == frames + 1
    assert max(abs(t - 1000 * k / FPS) for k, t in enumerate(starts)) <= 5   # no drift from the subtitles
    [entry] = entries(tmp_path)
    assert entry["format"] == "gif" and entry["duration"] == pytest.approx(frames / FPS, abs=0.1)
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert f'<img class="clip" src="en/480p15/{SCENE}.gif"' in page


def test_transparent_mp4_is_a_mov_with_alpha(tmp_path):
    import av
    render(tmp_path, "--transparent")
    folder = tmp_path / "en" / "480p15"
    assert sorted(p.name for p in folder.iterdir()) == [f"{SCENE}.{x}" for x in
                                                        ("beats.json", "mov", "png", "srt", "vtt")]
    with av.open(str(folder / f"{SCENE}.mov")) as c:
        stream = c.streams.video[0]
        assert stream.codec_context.name == "qtrle"
        assert stream.format.name in ("argb", "rgba", "bgra", "yuva420p", "yuva444p10le")
        frames, transparent = 0, False
        for frame in c.decode(stream):
            frames += 1
            if frames % 50 == 1:  # a few frames are enough, converting each is slow
                alpha = frame.to_ndarray(format="rgba")[..., 3]
                transparent = transparent or bool((alpha == 0).any() and (alpha == 255).any())
    assert transparent, "no frame has both transparent and opaque pixels"
    [entry] = entries(tmp_path)
    assert entry["format"] == "mov" and round(entry["duration"] * FPS) == frames
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "<video" not in page and f'href="en/480p15/{SCENE}.mov"' in page
    from PIL import Image
    with Image.open(folder / f"{SCENE}.png") as poster:
        assert poster.mode == "RGBA" and poster.getextrema()[3][0] == 0  # a transparent poster


def manim_child(proc: subprocess.Popen, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = subprocess.run(["pgrep", "-P", str(proc.pid), "-f", f"manim render.*{SCENE}"],
                               capture_output=True, text=True).stdout.split()
        if found:
            return int(found[0])
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("no manim child started")


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def snapshot(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_sigterm_stops_like_ctrl_c(mp4_out, tmp_path):
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    shutil.copytree(mp4_out, out)
    tmp.mkdir()
    before = snapshot(out)
    proc = render(out, "--force", tmpdir=tmp, wait=False)
    child = manim_child(proc)
    time.sleep(1.5)  # mid-render
    assert [p.name.startswith(f"qkv-media-{proc.pid}-") for p in tmp.iterdir()] == [True]
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert err.strip().splitlines()[-1] == ("qkv-lens: error: interrupted (SIGTERM); "
                                            "the previous renders and manifest are kept")
    assert gone(child)
    assert list(tmp.iterdir()) == []
    assert snapshot(out) == before  # no .part files, the old video, poster and manifest


def test_folders_of_a_killed_run_are_removed_by_the_next(tmp_path):
    out, tmp = tmp_path / "out", tmp_path / "tmp"
    tmp.mkdir()
    proc = render(out, tmpdir=tmp, wait=False)
    child = manim_child(proc)
    time.sleep(1.0)
    proc.kill()
    proc.communicate(timeout=30)
    try:
        os.killpg(child, signal.SIGKILL)  # the orphaned manim (its own session) would go on
    except ProcessLookupError:
        pass
    def ours():  # the pipeline's folders (the killed manim may leave other temporary files)
        return sorted(p.name for p in tmp.glob("qkv-media-*"))

    left = ours()
    assert len(left) == 1 and left[0].startswith(f"qkv-media-{proc.pid}-")
    live = tmp / f"qkv-media-{os.getpid()}-live"  # another run, still going: kept
    live.mkdir()
    nxt = render(out, tmpdir=tmp, wait=False)  # the next run cleans up first
    manim_child(nxt)
    assert [n for n in ours() if not n.startswith(f"qkv-media-{nxt.pid}-")] == [live.name]
    nxt.send_signal(signal.SIGTERM)
    nxt.communicate(timeout=30)
    assert nxt.returncode == 143
    assert ours() == [live.name]
    assert not list(out.rglob("*.part"))
