"""A teacher's own scene (issue 26): ``qkv-lens new`` writes it beside the
lesson, the registry, the loader, the texts and the cache key see it, a
clash is one line, and the scaffold as written passes the layout check,
the cue rules and (rendered once) the clip measures of clipcheck."""
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomllib

from qkv_lens import texts
from qkv_lens.app import cli
from qkv_lens.app.cache import cache_key
from qkv_lens.app.scaffold import edit_mark, names
from qkv_lens.app.video import edge_frames, longest_hold, talk_only_run
from qkv_lens.beats import parse as parse_beats
from qkv_lens.cues import check_cue, split_cues
from qkv_lens.languages import offered
from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.registry import by_class, find, in_lesson
from tests.helpers import (
    LESSON,
    ROOT,
    assert_clean_layout,
    assert_readable_beats,
    cue_problems,
    dry_run_file,
    one_error_line,
    watching,
)

NAME, SNAKE = "ShearDemo", "shear_demo"


@pytest.fixture(autouse=True)
def shipped_texts():
    """The shipped texts again after each test (a lesson's texts are in use for the whole process)."""
    yield
    texts.use_lesson_texts(None)


@pytest.fixture
def folder(tmp_path):
    """A lesson folder made by `qkv-lens init` and `qkv-lens new ShearDemo`."""
    assert cli.main(["init", str(tmp_path)]) == 0
    assert cli.main(["new", NAME, "--lesson", str(tmp_path / "lesson.toml")]) == 0
    return tmp_path


def dry_run(folder: Path, lang: str, tmp: Path):
    """The teacher's scene run as manim runs it (its module loaded by path), no video written."""
    return dry_run_file(folder / "my_scenes" / f"{SNAKE}.py", NAME, tmp, folder / "lesson.toml", lang)


def test_names_in_either_form_and_bad_ones_refused():
    assert names("ShearDemo") == ("ShearDemo", "shear_demo")
    assert names("shear_demo") == ("ShearDemo", "shear_demo")
    assert names("Scene2D") == ("Scene2D", "scene2_d")
    for bad in ("9lives", "my-scene", "My_Scene", "", "x" * 41, "../evil"):
        with pytest.raises(Exception) as err:
            names(bad)
        assert "\n" not in str(err.value)


def test_new_writes_the_scene_its_section_texts_and_test(folder, capsys):
    for rel in (f"my_scenes/{SNAKE}.py", f"tests/test_{SNAKE}.py", "texts.toml"):
        assert (folder / rel).is_file(), rel
    assert not (folder / "my_scenes" / "__init__.py").exists()    # never a package hiding the shipped one
    lesson = load_lesson(folder / "lesson.toml")
    assert lesson.scene_names[-1] == NAME and len(lesson.scene_names) == 12   # the shipped chapters kept
    assert lesson.params[SNAKE].W[1] == (0.5, 1, 2)
    info = by_class(NAME, folder)
    assert info.teacher and info.path == folder / "my_scenes" / f"{SNAKE}.py"
    assert [s.name for s in in_lesson(lesson)][-1] == NAME
    assert find(SNAKE, folder) == info
    with pytest.raises(KeyError):
        by_class(NAME)                     # not a shipped scene: the lesson's folder finds it
    capsys.readouterr()
    assert cli.main(["list", "--lesson", str(folder / "lesson.toml")]) == 0
    assert f"{NAME:<20} my_scenes/{SNAKE}.py  [{SNAKE}]  (yours)" in capsys.readouterr().out
    # a second scene joins the same chapter
    assert cli.main(["new", "other_demo", "--lesson", str(folder / "lesson.toml")]) == 0
    chapters = load_lesson(folder / "lesson.toml").chapters
    assert chapters[-1].scenes == (NAME, "OtherDemo") and len(chapters) == 3


@pytest.mark.parametrize("name", [NAME, "worked_example", "WorkedExample", "kit", "json", "numpy", "Scenes", "Page",
                                  "language", "bad name"])
def test_new_refuses_a_taken_or_bad_name_in_one_line(folder, name, capsys):
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert cli.main(["new", name, "--lesson", str(folder / "lesson.toml")]) == 2
    assert one_error_line(capsys.readouterr().err)
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


def test_a_teacher_scene_named_like_a_shipped_one_is_one_line(folder, capsys):
    module = folder / "my_scenes" / f"{SNAKE}.py"
    module.write_text(module.read_text().replace(f"class {NAME}(LessonScene)", "class WorkedExample(LessonScene)"))
    with pytest.raises(LessonError, match="a shipped scene has that name") as err:
        load_lesson(folder / "lesson.toml")
    assert "\n" not in str(err.value)
    assert cli.main(["list", "--lesson", str(folder / "lesson.toml")]) == 2
    assert "shipped scene has that name" in one_error_line(capsys.readouterr().err)


def test_its_section_is_checked_by_its_declaration(folder):
    lesson = folder / "lesson.toml"
    text = lesson.read_text()
    lesson.write_text(text.replace("x = [1, 2]\nW =", "x = [1, 2, 3, 4]\nW ="))
    with pytest.raises(LessonError, match=rf"{SNAKE}\.x") as err:
        load_lesson(lesson)
    assert "\n" not in str(err.value)
    lesson.write_text(text.replace("x = [1, 2]\n", ""))    # a teacher's section has no shipped values
    with pytest.raises(LessonError, match='missing key "x"'):
        load_lesson(lesson)


def test_texts_toml_adds_keys_and_overrides_shipped_ones_key_by_key(folder):
    shipped_title = texts.tr("en", "worked_example.title")
    table = folder / "texts.toml"
    table.write_text(table.read_text().replace("[en]\n", '[en]\n"worked_example.title" = "My worked example"\n'))
    texts.use_lesson_texts(folder)
    assert texts.tr("en", "worked_example.title") == "My worked example"
    shipped = tomllib.loads((ROOT / "qkv_lens" / "texts.toml").read_text(encoding="utf-8"))
    assert texts.TEXTS["zh"]["worked_example.title"] == shipped["zh"]["worked_example.title"]
    assert texts.TEXTS["en"]["worked_example.outro"] == shipped["en"]["worked_example.outro"]
    assert texts.tr("en", f"{SNAKE}.summary").startswith(edit_mark("en"))
    texts.use_lesson_texts(None)
    assert texts.tr("en", "worked_example.title") == shipped_title
    table.write_text(table.read_text() + '\n[fr]\n"x.title" = "bonjour"\n')
    with pytest.raises(LessonError, match="fr") as err:
        texts.use_lesson_texts(folder)
    assert "\n" not in str(err.value)


def test_its_placeholder_texts_pass_the_cue_rules_in_every_language(folder):
    texts.use_lesson_texts(folder)
    for lang in offered():
        for key in ("intro_say", "result_say"):
            sentence = texts.tr(lang, f"{SNAKE}.{key}")
            assert sentence.startswith(edit_mark(lang))            # marked for the teacher to edit
            problems = [p for cue in split_cues(sentence, lang) for p in check_cue(cue, lang)]
            assert not problems, (lang, key, problems)
        for key in (f"{SNAKE}.title", f"{SNAKE}.summary", f"page.ask.{SNAKE}", f"export.formula.{SNAKE}"):
            assert texts.tr(lang, key)                               # the page and the exports need them


def test_editing_the_teacher_scene_changes_its_cache_key_only(folder):
    lesson = load_lesson(folder / "lesson.toml")
    texts.use_lesson_texts(folder)
    mine, shipped = by_class(NAME, folder), by_class("WorkedExample", folder)
    before = {s.name: cache_key(s, lesson, "en", "l") for s in (mine, shipped)}
    mine.path.write_text(mine.path.read_text().replace("buff=0.35", "buff=0.4"))
    assert cache_key(mine, lesson, "en", "l") != before[NAME]
    assert cache_key(shipped, lesson, "en", "l") == before["WorkedExample"]
    table = folder / "texts.toml"                    # its text too, and a shipped scene's text only that scene's
    table.write_text(re.sub(r'"shear_demo.result_say" = "\(edit me\) .*"', '"shear_demo.result_say" = "Now y."',
                            table.read_text()))
    texts.use_lesson_texts(folder)
    after = cache_key(mine, lesson, "en", "l")
    assert after != before[NAME] and cache_key(shipped, lesson, "en", "l") == before["WorkedExample"]


@pytest.mark.parametrize("lang", offered())
def test_the_scaffold_passes_the_layout_check_and_reads_well(folder, lang, tmp_path):
    scene = dry_run(folder, lang, tmp_path / "media")
    assert_clean_layout(scene)
    assert_readable_beats(scene)
    assert scene.moments["result"].probes["y"] == [2.0, 2.0, 3.0]    # [1, 2] x [[1, 0, -1], [0.5, 1, 2]]
    assert [b.id for b in scene.beats] == ["intro", "result"]


def test_its_own_test_passes_with_pytest(folder):
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"tests/test_{SNAKE}.py"],
                         cwd=folder, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and f"{len(offered()) + 1} passed" in run.stdout, run.stdout[-2000:]


@pytest.mark.render
def test_the_scaffold_rendered_passes_clipcheck(folder, tmp_path):
    """Rendered once at -ql: no still stretch over 6 s, no talk-only run over
    6 s, nothing at the frame's edges, every cue within the reading limits."""
    out = tmp_path / "out"
    assert cli.main(["render", NAME, "--lang", "en", "--jobs", "1", "--lesson", str(folder / "lesson.toml"),
                     "--out", str(out)]) == 0
    clip = out / "en" / "480p15" / f"{NAME}.mp4"
    beats = parse_beats((out / "en" / "480p15" / f"{NAME}.beats.json").read_bytes(), "beats")
    assert longest_hold(clip)[0] <= 6.0
    assert talk_only_run(clip, beats)[0] <= 6.0
    assert edge_frames(clip) == []
    assert not cue_problems([(c.start, c.end, c.text) for b in beats for c in b.cues], "en")
    entry = json.loads((out / "manifest.json").read_text())["renders"][0]
    assert entry["scene"] == NAME and entry["order"] == by_class(NAME, folder).number
    page = (out / "index.html").read_text(encoding="utf-8")
    assert f'<figure id="en-{NAME}"' in page and f"<h3>{NAME}</h3>" in page   # its title, from its texts


def test_the_shipped_lesson_still_has_no_teacher_scene():
    assert not any(s.teacher for s in in_lesson(load_lesson(LESSON)))


@pytest.mark.render
def test_a_failing_teacher_scene_is_isolated_and_never_imported_by_the_app(folder, tmp_path):
    """A teacher's scene that raises fails alone (the other renders, the
    command exits 1 naming it); the app process runs it by path and never
    imports it."""
    assert cli.main(["new", "other_demo", "--lesson", str(folder / "lesson.toml")]) == 0
    module = folder / "my_scenes" / f"{SNAKE}.py"
    module.write_text(module.read_text().replace("        p = self.params\n",
                                                 "        raise RuntimeError('a teacher bug')\n"))
    out = tmp_path / "out"
    script = (f"import sys; from qkv_lens.app import cli\n"
              f"status = cli.main(['render', '{NAME}', 'OtherDemo', '--lang', 'en', '--jobs', '2', '--lesson', "
              f"{str(folder / 'lesson.toml')!r}, '--out', {str(out)!r}])\n"
              f"mine = [m for m in list(sys.modules.values()) if {str(folder)!r} in str(getattr(m, '__file__', ''))]\n"
              f"print('status', status, 'imported', mine)")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert "status 1 imported []" in run.stdout, run.stdout + run.stderr[-2000:]
    assert f"FAILED {NAME} (en)" in run.stderr and "a teacher bug" in run.stderr
    assert (out / "en" / "480p15" / "OtherDemo.mp4").is_file()
    assert not (out / "en" / "480p15" / f"{NAME}.mp4").exists()


def test_watch_renders_on_an_edit_of_the_teacher_scene(folder, tmp_path):
    code = tmp_path / "code"          # no shipped code watched: only the lesson's folder and its my_scenes/
    code.mkdir()
    with watching(folder / "lesson.toml", (code,)) as wait_for:
        assert wait_for(1) == 1        # the first round at start
        time.sleep(1.0)
        module = folder / "my_scenes" / f"{SNAKE}.py"
        module.write_text(module.read_text() + "\n")
        assert wait_for(2) == 2


def test_the_teacher_scene_travels_with_a_dask_task(folder, monkeypatch):
    """A task carries the teacher's modules and texts.toml; the worker
    writes them into a folder of its own, reproduces the key there and
    renders the module of that folder, never the client's path."""
    from qkv_lens.app import cluster
    from qkv_lens.app.render import Job, Options, Result

    lesson_path = folder / "lesson.toml"
    lesson = load_lesson(lesson_path)
    texts.use_lesson_texts(folder)
    info = by_class(NAME, folder)
    job = Job(info, "en", cache_key(info, lesson, "en", "l"))
    [task] = cluster.make_tasks([job], Options(lesson_path=lesson_path))
    assert set(task.files) == {"texts.toml", f"my_scenes/{SNAKE}.py"}
    assert task.files[f"my_scenes/{SNAKE}.py"] == info.path.read_bytes()
    moved = folder.rename(folder.parent / f"{folder.name}-gone")   # the client's folder is not on a worker
    seen = []

    def render_staged(job, opts, media, children):
        seen.append(job.scene.path)
        assert job.scene.path.read_bytes() == task.files[f"my_scenes/{SNAKE}.py"]
        return Result(job, True, 0.0), {}

    monkeypatch.setattr(cluster, "render_staged", render_staged)
    result, files = cluster.render_task(task)
    assert result.ok and seen and not seen[0].is_relative_to(moved) and seen[0] != info.path
    moved.rename(folder)


def test_new_in_a_lesson_without_chapters_keeps_the_shipped_ones(tmp_path, capsys):
    (tmp_path / "lesson.toml").write_text('language = "en"\n', encoding="utf-8")
    assert cli.main(["new", NAME, "--lesson", str(tmp_path / "lesson.toml")]) == 0
    lesson = load_lesson(tmp_path / "lesson.toml")
    assert lesson.scene_names[:-1] == load_lesson(LESSON).scene_names and lesson.scene_names[-1] == NAME


def test_new_never_writes_into_the_shipped_lesson(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)                      # no ./lesson.toml: the shipped lesson would be used
    monkeypatch.delenv("QKV_LESSON", raising=False)
    before = LESSON.read_bytes()
    assert cli.main(["new", NAME]) == 2
    assert "qkv-lens init" in one_error_line(capsys.readouterr().err)
    assert LESSON.read_bytes() == before and not (LESSON.parent / "my_scenes").exists()


def test_a_teacher_scene_renders_whole_unless_it_declares_it_splits(folder, tmp_path, fake, monkeypatch):
    """Pieces are proven to join into the whole render only for the shipped
    scenes (their tests compare frames): a teacher's scene, which may keep
    state the pieces do not compare (a count in a closure), renders whole
    under ``--jobs 2`` until it declares ``splits = True``."""
    from qkv_lens.app import segments
    split: list[tuple[str, int]] = []
    monkeypatch.setattr(segments, "render_split",
                        lambda job, opts, pieces: split.append((job.scene.name, pieces)) or fake(job, opts))
    lesson, out = folder / "lesson.toml", tmp_path / "out"

    def render() -> None:
        texts.use_lesson_texts(folder)
        assert cli.main(["render", NAME, "--lang", "en", "--jobs", "2", "--force", "--lesson", str(lesson),
                         "--out", str(out)]) == 0

    render()
    assert split == [] and fake.calls == [NAME]
    assert not by_class(NAME, folder).splits and by_class("WorkedExample", folder).splits
    module = folder / "my_scenes" / f"{SNAKE}.py"
    source = module.read_text()
    module.write_text(re.sub(r"(\n    number = \d+\n)", r"\1    splits = True\n", source, count=1))
    assert by_class(NAME, folder).splits
    render()
    assert split == [(NAME, 2)]
    module.write_text(re.sub(r"(\n    number = \d+\n)", r"\1    splits = 1\n", source, count=1))
    with pytest.raises(Exception, match="splits: expected True or False"):
        by_class(NAME, folder)


def test_the_cache_key_covers_the_teacher_modules_a_scene_imports(folder):
    """Editing ``my_scenes/style.py``, which the scene imports (directly or
    through another of its modules), renders the scene again; a module it
    does not import does not."""
    lesson = load_lesson(folder / "lesson.toml")
    texts.use_lesson_texts(folder)
    mine = folder / "my_scenes"
    (mine / "style.py").write_text("from colours import GOLD\nSIZE = 30\n")
    (mine / "colours.py").write_text("GOLD = '#ffd700'\n")
    (mine / "unrelated.py").write_text("X = 1\n")
    module = mine / f"{SNAKE}.py"
    module.write_text(module.read_text().replace("from __future__ import annotations\n",
                                                 "from __future__ import annotations\n\nimport style  # noqa\n"))
    info = by_class(NAME, folder)

    def key() -> str:
        return cache_key(info, lesson, "en", "l")

    before = key()
    (mine / "unrelated.py").write_text("X = 2\n")
    assert key() == before
    (mine / "style.py").write_text("from colours import GOLD\nSIZE = 36\n")
    edited = key()
    assert edited != before
    (mine / "colours.py").write_text("GOLD = '#ffcc00'\n")        # imported through style.py
    assert key() != edited


def test_watch_takes_in_a_my_scenes_folder_made_after_it_started(tmp_path):
    """``new`` run while ``watch`` runs makes my_scenes/: watch renders,
    and renders again when a scene in it is edited."""
    assert cli.main(["init", str(tmp_path)]) == 0
    code = tmp_path / "code"
    code.mkdir()
    with watching(tmp_path / "lesson.toml", (code,)) as wait_for:
        assert wait_for(1) == 1
        time.sleep(1.0)
        assert cli.main(["new", NAME, "--lesson", str(tmp_path / "lesson.toml")]) == 0
        assert wait_for(2) == 2
        time.sleep(1.0)
        module = tmp_path / "my_scenes" / f"{SNAKE}.py"
        module.write_text(module.read_text() + "\n")
        assert wait_for(3) == 3
