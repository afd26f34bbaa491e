"""Real renders through `qkv-lens render` at the lowest quality, probed."""
import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT, probe_video

JOBS = [("SpaceDeformation", "zh"), ("WorkedExample", "en")]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("renders")
    results = {}
    for scene, lang in JOBS:
        proc = subprocess.run([sys.executable, "-m", "scenes", "render", scene, "--lang", lang,
                               "-q", "l", "--out", str(out)], capture_output=True, text=True, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr
        results[scene] = out / lang / "480p15"
    return results


def srt_times(path):
    stamps = re.findall(r"(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)",
                        path.read_text(encoding="utf-8"))
    to_s = lambda h, m, s, ms: int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000
    return [(to_s(*t[:4]), to_s(*t[4:])) for t in stamps]


@pytest.mark.parametrize("scene, lang", JOBS)
def test_video_decodes_with_expected_size_and_length(rendered, scene, lang):
    video = rendered[scene] / f"{scene}.mp4"
    info = probe_video(video)
    assert (info["width"], info["height"]) == (854, 480)
    assert info["rate"] == pytest.approx(15, abs=0.01)
    assert 20 <= info["duration"] <= 60.5, info["duration"]
    assert info["frames"] == pytest.approx(info["duration"] * 15, abs=2)


@pytest.mark.parametrize("scene, lang", JOBS)
def test_subtitles_cover_the_video(rendered, scene, lang):
    times = srt_times(rendered[scene] / f"{scene}.srt")
    duration = probe_video(rendered[scene] / f"{scene}.mp4")["duration"]
    assert len(times) >= 4
    assert times[0][0] == pytest.approx(0, abs=0.1)
    assert all(a < b for a, b in times)
    assert all(b1 <= a2 + 1e-3 for (_, b1), (a2, _) in zip(times, times[1:])), "subtitles overlap"
    assert times[-1][1] <= duration + 0.1
    covered = sum(b - a for a, b in times)
    assert covered > 0.8 * duration
    text = (rendered[scene] / f"{scene}.srt").read_text(encoding="utf-8")
    assert bool(re.search(r"[\u4e00-\u9fff]", text)) == (lang == "zh")


def test_no_temporary_files_left(rendered):
    for folder in rendered.values():
        assert not list(folder.glob("*.part"))


def test_list_names_every_scene():
    proc = subprocess.run([sys.executable, "-m", "scenes", "list"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0
    assert "SpaceDeformation" in proc.stdout and "WorkedExample" in proc.stdout


def test_unknown_scene_is_refused(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "scenes", "render", "SpaceDeformaton", "--out", str(tmp_path / "r")],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert 'did you mean "SpaceDeformation"' in proc.stderr
    assert not (tmp_path / "r").exists()
