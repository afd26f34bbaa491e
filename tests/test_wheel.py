"""The wheel is an application: installed into a fresh virtualenv and run
from an empty folder (no checkout anywhere on its path), it initialises a
lesson, lists the scenes and renders one.

The fresh venv gets the wheel with pip; its dependencies (manim, numpy, ...)
come from the development venv through a path file, so the test runs offline
and in seconds.  Path files inside that added folder are not processed, so
the development venv's editable install of this project stays invisible:
every qkv_lens, scenes and qkv_math module comes from the wheel."""
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from tests.helpers import LESSON, ROOT, probe_video

pytestmark = pytest.mark.render


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    source, dist = base / "source", base / "dist"
    # built from a copy: setuptools writes build/ and *.egg-info beside the sources
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in ("qkv_lens", "qkv_math", "scenes"):
        shutil.copytree(ROOT / name, source / name, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist), str(source)], check=True, cwd=base, capture_output=True)
    wheel = next(dist.glob("qkv_lens-*.whl"))
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "deps-from-dev-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index",
                    "-q", str(wheel)], check=True, capture_output=True)
    return env_dir


def run(env_dir, cwd, *args):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "QKV_LESSON", "QKV_LANG")}
    env["PATH"] = f"{env_dir / 'bin'}:{env['PATH']}"
    return subprocess.run([str(env_dir / "bin" / "qkv-lens"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_the_wheel_carries_no_checkout(installed, tmp_path):
    out = subprocess.run([str(installed / "bin" / "python"), "-c",
                          "import qkv_lens, scenes, qkv_math; print(qkv_lens.__file__, scenes.__path__[0],"
                          " qkv_math.__file__)"], cwd=tmp_path, capture_output=True, text=True, check=True)
    for path in out.stdout.split():
        assert str(installed) in path and str(ROOT) not in path, path


def test_version_init_list_render_from_an_empty_folder(installed, tmp_path):
    version = run(installed, tmp_path, "--version")
    assert version.returncode == 0 and version.stdout.startswith("qkv-lens 0.1.0 (manim 0.22")

    init = run(installed, tmp_path, "init")
    assert init.returncode == 0, init.stderr
    assert (tmp_path / "lesson.toml").read_bytes() == (LESSON).read_bytes()
    assert "disable_caching = True" in (tmp_path / "manim.cfg").read_text()
    again = run(installed, tmp_path, "init")
    assert again.returncode == 2 and "exists" in again.stderr   # never overwrites an edited lesson

    listed = run(installed, tmp_path, "list")
    lines = listed.stdout.splitlines()        # two chapter headings, each over its scenes
    assert listed.returncode == 0 and len(lines) == 13 and sum(line.lstrip()[:1].isdigit() for line in lines) == 11

    # an edit of the lesson is honoured: the English render of a smaller example
    lesson = tmp_path / "lesson.toml"
    lesson.write_text(lesson.read_text(encoding="utf-8").replace('language = "zh"', 'language = "en"'),
                      encoding="utf-8")
    rendered = run(installed, tmp_path, "render", "WorkedExample", "--jobs", "1")
    assert rendered.returncode == 0, rendered.stderr[-2000:]
    video = tmp_path / "renders" / "en" / "480p15" / "WorkedExample.mp4"
    assert probe_video(video)["duration"] > 10
    assert (tmp_path / "renders" / "index.html").exists()
