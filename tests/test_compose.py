"""The lesson lists its scenes: which, in what order, under which headings.
`list`, `render`, the page and `export` follow the list; `export SCENE...`
works on a subset and names only what is missing among the scenes asked for."""
from __future__ import annotations

import re

import pytest
import tomllib

from qkv_lens.app import cli, manifest, page
from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.registry import SCENES
from tests.helpers import LESSON, one_error_line, run_cli
from tests.test_export import PICKED, make_renders

A, B, C = (s.name for s in PICKED)    # SpaceDeformation, WorkedExample, QKVProjection


def lesson_with(tmp_path, chapters: str):
    """The shipped lesson with its chapters replaced by ``chapters`` (TOML)."""
    text = LESSON.read_text(encoding="utf-8")
    text = text[:text.index("[[chapters]]")]
    text = chapters + text if chapters.startswith("chapters =") else text + chapters   # a key before any table
    path = tmp_path / "lesson.toml"
    path.write_text(text, encoding="utf-8")
    return path


def chapter(title: str, *scenes: str) -> str:
    listed = ", ".join(f'"{s}"' for s in scenes)
    return f'[[chapters]]\ntitle = {{ zh = "{title}章", en = "{title}" }}\nscenes = [{listed}]\n\n'


def test_the_shipped_lesson_lists_the_eleven_in_storyboard_order_under_their_chapters():
    lesson = load_lesson(LESSON)
    assert list(lesson.scene_names) == [s.name for s in SCENES]
    for ch in lesson.chapters:   # each heading holds the scenes of one storyboard chapter
        assert len({next(s.chapter for s in SCENES if s.name == n) for n in ch.scenes}) == 1
    shipped = tomllib.loads(LESSON.read_text(encoding="utf-8"))["chapters"]
    assert [c["title"]["en"] for c in shipped] == [ch.title.name("en") for ch in lesson.chapters]


def test_a_lesson_of_its_own_order_and_headings(tmp_path, capsys):
    path = lesson_with(tmp_path, chapter("Attention first", C) + chapter("Then the maths", "workedexample", A))
    lesson = load_lesson(path, "en")
    assert lesson.scene_names == (C, B, A)        # any case names a scene; it is kept as its class
    assert cli.main(["list", "--lesson", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Attention first" and C in out[1] and out[2] == "Then the maths"   # the lesson is en
    assert B in out[3] and A in out[4] and len(out) == 5
    assert cli.main(["list", "--all", "--lesson", str(path)]) == 0
    rest = capsys.readouterr().out.split("not in this lesson:")[1]
    assert {s.name for s in SCENES} - {A, B, C} == set(re.findall(r"-\s+(\w+)", rest))


@pytest.mark.parametrize("chapters, where, says", [
    (chapter("One", "WorkedExampel"), "chapters[0].scenes[0]", 'did you mean "WorkedExample"'),
    (chapter("One", "WorkedExample") + chapter("Two", "workedexample"), "chapters[1].scenes[0]",
     "already in the lesson, at chapters[0].scenes[0]"),
    (chapter("One"), "chapters[0].scenes", "a non-empty list of scene names"),
    ('[[chapters]]\ntitle = { zh = "一" }\nscenes = ["WorkedExample"]\n', "chapters[0].title",
     "no name in en (it has zh)"),                  # the shipped lesson is English
    (chapter("x" * 61, "WorkedExample"), "chapters[0].title.zh", "a title of 1 to 60 characters"),
    ("chapters = []\n", "chapters", "a list of 1 to 12 chapters"),
    ('[[chapters]]\ntitle = { zh = "一", en = "One" }\nscenes = ["WorkedExample"]\norder = 2\n', "chapters[0].order",
     "unknown key"),
])
def test_a_wrong_chapter_is_one_line_naming_where(tmp_path, chapters, where, says):
    path = lesson_with(tmp_path, chapters)
    with pytest.raises(LessonError) as err:
        load_lesson(path)
    message = str(err.value)
    assert "\n" not in message and f"{path}: {where}: " in message and says in message


def test_render_follows_the_lesson_and_renders_nothing_it_leaves_out(tmp_path, fake):
    path = lesson_with(tmp_path, chapter("Only", C, A))
    assert run_cli(tmp_path, "--jobs", "1", lesson=path) == 0
    assert fake.calls == [C, A]


def test_the_page_follows_the_chapters_and_leaves_off_what_the_lesson_leaves_out(tmp_path):
    make_renders(tmp_path)                          # A, B and C rendered in en
    path = lesson_with(tmp_path / "..", chapter("Second half", C) + chapter("First half", A))
    assert cli.main(["lesson", "--out", str(tmp_path), "--lesson", str(path)]) == 0
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    section = html[html.index('<section class="lesson" lang="en"'):]
    order = [m.group(0) for m in re.finditer(r"<h2>(Second half|First half)</h2>|"
                                             rf'id="en-({A}|{B}|{C})"', section)]
    assert order == ["<h2>Second half</h2>", f'id="en-{C}"', "<h2>First half</h2>", f'id="en-{A}"']
    page.build(tmp_path, load_lesson(LESSON).chapters)   # the shipped lesson lists B again
    assert f'id="en-{B}"' in (tmp_path / "index.html").read_text(encoding="utf-8")


def test_export_of_a_subset_names_only_what_it_was_asked_for(tmp_path, capsys):
    make_renders(tmp_path)
    entries = manifest.load(tmp_path)
    del entries[manifest.entry_id(B, "en", "480p15", "mp4")]
    manifest.save(tmp_path, entries)
    assert cli.main(["export", A, C, "--lang", "en", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    assert cli.main(["export", "--lang", "en", "--out", str(tmp_path)]) == 1   # the whole lesson
    line = one_error_line(capsys.readouterr().err)
    missing = [s.name for s in SCENES if s.name not in (A, C)]      # every one of them, in the lesson's order
    assert line.startswith(f"qkv-lens: error: no 480p15 mp4 render of {', '.join(missing[:-1])} and "
                           f"{missing[-1]} in en")


def test_export_follows_the_lessons_order_and_its_chapters(tmp_path):
    from pptx import Presentation

    make_renders(tmp_path)
    path = lesson_with(tmp_path / "..", chapter("Later", C) + chapter("Earlier", A))
    assert cli.main(["export", "--lesson", str(path), "--lang", "en", "--out", str(tmp_path)]) == 0
    deck = Presentation(str(tmp_path / "en" / "480p15" / "lesson.pptx"))
    slides = list(deck.slides)
    assert slides[0].placeholders[1].text.split("\n") == ["Later", "Earlier"]
    titles = [s.shapes.title.text for s in slides[1:]]
    assert len(titles) == 2
    vtt = (tmp_path / "en" / "480p15" / "lesson.chapters.vtt").read_text(encoding="utf-8")
    assert vtt.index(titles[0]) < vtt.index(titles[1])


def test_reordering_the_chapters_alone_rebuilds_the_page(tmp_path, fake):
    first = lesson_with(tmp_path, chapter("One", A) + chapter("Two", C))
    assert run_cli(tmp_path, "--jobs", "1", lesson=first) == 0
    page_file = tmp_path / "out" / "index.html"
    before = page_file.read_text(encoding="utf-8")
    assert before.index(f'id="en-{A}"') < before.index(f'id="en-{C}"')
    fake.calls.clear()
    swapped = lesson_with(tmp_path, chapter("Two", C) + chapter("One", A))
    assert run_cli(tmp_path, "--jobs", "1", lesson=swapped) == 0
    after = page_file.read_text(encoding="utf-8")
    assert fake.calls == [] and after.index(f'id="en-{C}"') < after.index(f'id="en-{A}"')
