"""docs/tutorial.md works as written: every `qkv-lens` command in it is one
the command accepts, and its steps, done in order in an empty folder (the
files written as the tutorial says), give a lesson whose scene declares the
keys its section holds, runs in every language with a clean layout and
readable beats, passes its own test, and (rendered once) previews and renders."""
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from qkv_lens import texts
from qkv_lens.app import cli
from qkv_lens.languages import offered
from qkv_lens.lesson import load_lesson
from qkv_lens.lesson.declared import read_module
from tests.helpers import ROOT, assert_clean_layout, assert_readable_beats, dry_run_file, toml_text

TUTORIAL = ROOT / "docs" / "tutorial.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def blocks(lang: str) -> list[str]:
    return [body for kind, body in BLOCK.findall(TUTORIAL.read_text(encoding="utf-8")) if kind == lang]


def commands() -> list[list[str]]:
    return [shlex.split(line) for body in blocks("sh") for line in body.splitlines()
            if line.startswith("qkv-lens ")]


def test_every_command_is_one_qkv_lens_accepts():
    parser = cli.build_parser()
    assert {c[1] for c in commands()} >= {"init", "new", "preview", "render", "list", "export"}
    for command in commands():
        parser.parse_args(command[1:])          # SystemExit (a usage error) fails the test


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    """The tutorial's steps 1 to 5 and 7, done in an empty folder."""
    folder = tmp_path_factory.mktemp("my-lesson")
    scene, test = blocks("python")
    numbers, table, page_texts = blocks("toml")
    for command in commands()[:2]:            # init, new Shear
        assert cli.main([*command[1:], *(["--lesson", str(folder / "lesson.toml")] if command[1] == "new"
                                         else [str(folder)])]) == 0
    (folder / "my_scenes" / "shear.py").write_text(scene, encoding="utf-8")
    text = (folder / "lesson.toml").read_text(encoding="utf-8")
    (folder / "lesson.toml").write_text(text[:text.index("[shear]")] + numbers, encoding="utf-8")
    tables = tomllib.loads(table)
    for lang, added in tomllib.loads(page_texts).items():    # step 9: added to the tables of step 5
        tables[lang].update(added)
    (folder / "texts.toml").write_text(toml_text(tables), encoding="utf-8")
    own = folder / "tests" / "test_shear.py"
    source = own.read_text(encoding="utf-8")
    own.write_text(source[:source.index("# -- what the scene shows")] + test, encoding="utf-8")
    yield folder
    texts.use_lesson_texts(None)


def test_the_scene_declares_what_its_section_holds(lesson):
    scenes, sections = read_module(lesson / "my_scenes" / "shear.py")
    assert [s.name for s in scenes] == ["Shear"] and sections[0].section == "shear"
    raw = tomllib.loads((lesson / "lesson.toml").read_text(encoding="utf-8"))
    assert set(raw["shear"]) == set(sections[0].keys)
    assert load_lesson(lesson / "lesson.toml").params["shear"].k == 1
    assert load_lesson(lesson / "lesson.toml").scene_names[-1] == "Shear"


@pytest.mark.parametrize("lang", offered())
def test_the_scene_runs_with_a_clean_layout(lesson, lang, tmp_path):
    scene = dry_run_file(lesson / "my_scenes" / "shear.py", "Shear", tmp_path, lesson / "lesson.toml", lang)
    assert_clean_layout(scene)
    assert_readable_beats(scene)
    assert [b.id for b in scene.beats] == ["intro", "shear"]
    assert scene.moments["sheared"].probes["j"] == [1.0, 1.0]
    asked = scene.beats[1].ask         # before the beat that shows it: where j lands, x = k
    assert (asked.key, asked.number, asked.places, asked.shown) == ("where_j", 1.0, 1, "1")
    assert asked.wrong.endswith("= 1。" if lang == "zh" else "= 1.")


def test_its_own_test_passes(lesson):
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_shear.py"],
                         cwd=lesson, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and f"{len(offered()) + 1} passed" in run.stdout, run.stdout[-2000:]


def test_the_page_is_the_lessons_own_as_the_tutorial_says(lesson):
    """Step 9: the page's title and goals are the ones texts.toml gives, in every language."""
    from qkv_lens.app.page import lesson_intro
    page_texts = tomllib.loads(blocks("toml")[2])
    assert set(page_texts) == set(offered())
    texts.use_lesson_texts(lesson)
    chapters = load_lesson(lesson / "lesson.toml").chapters
    for lang, own in page_texts.items():
        intro = lesson_intro(lang, chapters)
        assert intro.title == own["lesson.title"]
        assert intro.points == tuple(own[f"page.goal{i}"] for i in (1, 2, 3))
    texts.use_lesson_texts(None)                # without them: the chapters, none of the shipped goals
    intro = lesson_intro("en", chapters)
    assert intro.title == " · ".join(ch.title.name("en") for ch in chapters)
    assert intro.points == tuple(ch.title.name("en") for ch in chapters)


@pytest.mark.render
def test_preview_and_render_as_the_tutorial_says(lesson, tmp_path):
    out = tmp_path / "renders"
    for command in commands():
        if command[1] in ("preview", "render") and "Shear" in command:
            assert cli.main([*command[1:], "--lesson", str(lesson / "lesson.toml"), "--out", str(out)]) == 0
    assert (out / "preview" / "en" / "Shear.png").stat().st_size > 0
    assert Path(out / "en" / "480p15" / "Shear.mp4").stat().st_size > 0
    assert '<figure id="en-Shear"' in (out / "index.html").read_text(encoding="utf-8")
