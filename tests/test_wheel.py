"""The wheel is an application: installed into a fresh virtualenv and run
from an empty folder (no checkout anywhere on its path), it initialises a
lesson, lists the scenes and renders one.

The fresh venv gets the wheel with pip; its dependencies (manim, numpy, ...)
come from the development venv through a path file, so the test runs offline
and in seconds.  Path files inside that added folder are not processed, so
the development venv's editable install of this project stays invisible:
every qkv_lens, scenes and qkv_math module comes from the wheel."""
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import av
import pytest

from qkv_lens.app import cluster
from qkv_lens.languages import offered
from tests.helpers import LESSON, ROOT, SHORT_LESSON, probe_video

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
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # as run(): no checkout put first
    out = subprocess.run([str(installed / "bin" / "python"), "-c",
                          "import qkv_lens, scenes, qkv_math; print(qkv_lens.__file__, scenes.__path__[0],"
                          " qkv_math.__file__)"], cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
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

    # an edit of the lesson is honoured: the English render of a smaller example (x = [2], W = [[3]])
    lesson = tmp_path / "lesson.toml"
    text = lesson.read_text(encoding="utf-8").replace('language = "zh"', 'language = "en"')
    text, edits = re.subn(r"(?ms)^\[worked_example\].*?(?=^\[)", "[worked_example]\nx = [2]\nW = [[3]]\n\n", text)
    assert edits == 1
    lesson.write_text(text, encoding="utf-8")
    rendered = run(installed, tmp_path, "render", "WorkedExample", "--jobs", "1")
    assert rendered.returncode == 0, rendered.stderr[-2000:]
    video = tmp_path / "renders" / "en" / "480p15" / "WorkedExample.mp4"
    assert probe_video(video)["duration"] > 10
    assert (tmp_path / "renders" / "index.html").exists()


# The languages the teacher's lesson below is rendered, paged and exported in (one constant: a new
# language of the text tables joins by being added here).
LANGS = ("zh", "en")
TEACHER = "Shear"           # the scene `qkv-lens new` writes (my_scenes/shear.py)
SHIPPED = "WorkedExample"   # the shipped scene beside it, at its smallest x and W (a short clip)


def teacher_lesson(folder: Path) -> str:
    """A lesson of one shipped scene (a small worked example), in one chapter."""
    title = ", ".join(f'{lang} = "Warm-up {lang}"' for lang in offered())
    return (f'{SHORT_LESSON}\n[[chapters]]\ntitle = {{{title}}}\nscenes = ["{SHIPPED}"]\n')


def renders(out: Path) -> dict:
    """The manifest's entries by (scene, language)."""
    return {(e["scene"], e["language"]): e
            for e in json.loads((out / "manifest.json").read_text(encoding="utf-8"))["renders"]}


def test_a_teacher_lesson_from_an_empty_folder(installed, tmp_path):
    """Issue 26, done when: a two-scene lesson (one shipped, one made by
    `qkv-lens new`) rendered in every language of LANGS, paged, exported,
    and rendered again after an edit of the teacher's scene only, which
    alone renders again; then the same lesson through a loopback Dask
    cluster, to the same cache keys."""
    assert run(installed, tmp_path, "init").returncode == 0
    (tmp_path / "lesson.toml").write_text(teacher_lesson(tmp_path), encoding="utf-8")
    made = run(installed, tmp_path, "new", TEACHER)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "my_scenes" / "shear.py").is_file() and (tmp_path / "texts.toml").is_file()
    listed = run(installed, tmp_path, "list").stdout.splitlines()
    assert [line.split()[1] for line in listed if line.lstrip()[:1].isdigit()] == [SHIPPED, TEACHER]

    for lang in LANGS:
        done = run(installed, tmp_path, "render", "--lang", lang, "--jobs", "2")
        assert done.returncode == 0, done.stderr[-2000:]
    out = tmp_path / "renders"
    first = renders(out)
    assert set(first) == {(s, lang) for s in (SHIPPED, TEACHER) for lang in LANGS}

    paged = run(installed, tmp_path, "lesson")
    assert paged.returncode == 0, paged.stderr
    page = (out / "index.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="lesson-data">(.*?)</script>', page, re.S).group(1))
    for lang in LANGS:            # in the page and in presenter mode, in the lesson's order, with their beats
        assert f'<figure id="{lang}-{TEACHER}"' in page
        assert [c["scene"] for c in data["clips"][lang]] == [SHIPPED, TEACHER]
        assert [len(c["beats"]) for c in data["clips"][lang]][1] == 2

    for lang in LANGS:
        exported = run(installed, tmp_path, "export", "--lang", lang)
        assert exported.returncode == 0, exported.stderr
        folder = out / lang / "480p15"
        with av.open(str(folder / "lesson.mp4")) as c:
            assert len(c.chapters()) == 2
        assert (folder / "lesson.pptx").stat().st_size > 0

    # an edit of the teacher's scene alone: only it renders again, in every language
    module = tmp_path / "my_scenes" / "shear.py"
    module.write_text(module.read_text(encoding="utf-8").replace("buff=0.35", "buff=0.45"), encoding="utf-8")
    shipped_mtime = (out / "en" / "480p15" / f"{SHIPPED}.mp4").stat().st_mtime_ns
    for lang in LANGS:
        again = run(installed, tmp_path, "render", "--lang", lang)
        assert again.returncode == 0 and "1 rendered, 1 cached" in again.stderr + again.stdout, again.stderr
    second = renders(out)
    for lang in LANGS:
        assert second[SHIPPED, lang]["key"] == first[SHIPPED, lang]["key"]
        assert second[TEACHER, lang]["key"] != first[TEACHER, lang]["key"]
    assert (out / "en" / "480p15" / f"{SHIPPED}.mp4").stat().st_mtime_ns == shipped_mtime

    # the same lesson on a loopback Dask cluster whose workers run the wheel (from another folder): after
    # another edit the teacher's scene renders there, the shipped one stays cached, and a local render then
    # finds every key up to date (the workers computed the client's keys)
    site = subprocess.run([str(installed / "bin" / "python"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    env = {k: v for k, v in os.environ.items() if k not in ("QKV_LESSON", "QKV_LANG")}
    env["PYTHONPATH"] = site
    workers = tmp_path.parent / f"{tmp_path.name}-workers"
    workers.mkdir()
    module.write_text(module.read_text(encoding="utf-8").replace("buff=0.45", "buff=0.5"), encoding="utf-8")
    with cluster.loopback_cluster(workers, 1, cwd=workers, env=env) as address:
        farmed = run(installed, tmp_path, "render", "--lang", "en", "--dask", address)
    assert farmed.returncode == 0 and "1 rendered, 1 cached" in farmed.stderr + farmed.stdout, farmed.stderr[-2000:]
    third = renders(out)
    assert third[TEACHER, "en"]["key"] != second[TEACHER, "en"]["key"]
    assert third[SHIPPED, "en"]["key"] == first[SHIPPED, "en"]["key"]
    assert probe_video(out / "en" / "480p15" / f"{TEACHER}.mp4")["duration"] > 5
    local = run(installed, tmp_path, "render", "--lang", "en")
    assert local.returncode == 0 and "nothing changed" in local.stderr + local.stdout, local.stderr
