"""``qkv-lens new NAME``: a teacher's scene, written beside their lesson.

Four things, each checked before anything is written: the scene module
(``my_scenes/<snake>.py``, a ``LessonScene`` built from the kit: two beats, each
describing what it shows, a checkpoint before the second, which shows its
answer, and a key moment), its
section appended to the lesson file and its name added to the chapter "your
scenes" (made on first use), its texts in every language of the text tables
(``texts.toml`` beside the lesson; placeholder sentences that start with
``edit_mark(lang)``), and a test of its own
(``tests/test_<snake>.py``, run with pytest in the lesson's folder).

All or nothing: the name (not one the module already binds, a keyword or a
builtin), the folders and the files are checked first; the texts are added
to ``texts.toml`` as TOML (each table found by parsing, the result read back
to be exactly the old tables and the new keys); every file is written to a
temporary file, the module renamed into place, the lesson as it will be
read back (``qkv_lens.lesson.parse_lesson``), then the rest renamed.  Any
failure removes what was made and restores what was changed: a refused
``new`` can be run again.
"""
from __future__ import annotations

import ast
import builtins
import copy
import importlib.util
import json
import keyword
import os
import re
import sys
from functools import cache
from pathlib import Path

import tomllib

from qkv_lens.languages import language, offered
from qkv_lens.lesson import LessonError, default_lesson, defaults, parse_lesson, read_toml
from qkv_lens.lesson.bounds import MAX_LESSON_BYTES
from qkv_lens.lesson.declared import discover_lesson, teacher_folder
from qkv_lens.store import Unsafe, inside, read_regular, shown, temp_beside, write_atomic
from qkv_lens.texts import LESSON_TEXTS
from qkv_lens.texts import TEXTS as TEXT_TABLES

CHAPTER_MARK = "# your scenes: qkv-lens new adds each new scene to this chapter"
_CAMEL = re.compile(r"[A-Z][a-z0-9]*(?:[A-Z][a-z0-9]*)*")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
MAX_NAME = 40
# The placeholder texts of a new scene come from the text tables, in every
# language: ``scaffold.<part>`` (the marked sentences a teacher replaces;
# ``{g:...}`` terms stay for the glossary to fill).
PARTS = ("intro_say", "result_say", "summary", "ask", "formula", "checkpoint", "checkpoint_wrong")
DESCRIPTIONS = ("describe_intro", "describe_result")   # the scaffold's descriptions: true as written, no edit mark
CHECKPOINT = "last_entry"    # the scaffold's checkpoint: its texts are "<snake>.last_entry" and "..._wrong"
FORMULA = r"y = x\,W"        # the scaffold's key formula, the same in every language


def edit_mark(lang: str) -> str:
    """What starts every placeholder sentence in ``lang``: "(edit me) ", and
    no space after it in a script that writes none between words."""
    return TEXT_TABLES[lang]["scaffold.edit_mark"] + (" " if language(lang).spaced else "")


class ScaffoldError(Exception):
    """A scene ``new`` cannot write (one line)."""


def names(name: str) -> tuple[str, str]:
    """(ClassName, snake_name) of ``name``, given in either form."""
    if len(name) > MAX_NAME:
        raise ScaffoldError(f"{shown(name[:MAX_NAME])}...: a name of at most {MAX_NAME} characters")
    if _SNAKE.fullmatch(name):
        cls = "".join(part.capitalize() for part in name.split("_"))
    elif _CAMEL.fullmatch(name):
        cls = name
    else:
        raise ScaffoldError(f"{shown(name)}: expected a scene name in CamelCase (MyScene) or snake_case "
                            "(my_scene), letters and digits, starting with a letter")
    taken = next((f"{n}: {bound()[n]}" for n in (cls, f"{cls}Params") if n in bound()), None)
    if taken is None and (keyword.iskeyword(cls) or hasattr(builtins, cls)):
        taken = f"{cls}: a name of Python itself"
    if taken:
        raise ScaffoldError(f"{cls}: a name the scene's module already has ({taken}); the class would hide it, "
                            "choose another name")
    return cls, re.sub(r"(?<!^)(?=[A-Z])", "_", cls).lower() if cls == name else name


PROBE = "QkvLensProbe"    # a class name no import binds, to read what else the scaffold's module binds


@cache
def bound() -> dict[str, str]:
    """Every name the scaffold's module binds at its top level besides the
    scene's own classes (its imports: manim's, fractions', the kit's), each
    with where it comes from; read from ``scene_source`` itself."""
    out = {}
    for node in ast.parse(scene_source(PROBE, "probe", 0, 0)).body:
        if isinstance(node, ast.ImportFrom):
            out.update({a.asname or a.name: f"from {node.module} import {a.name}" for a in node.names})
        elif isinstance(node, ast.Import):
            out.update({(a.asname or a.name).split(".")[0]: f"import {a.name}" for a in node.names})
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith(PROBE):
            out[node.name] = "defined in it"
    return out


def scene_source(cls: str, snake: str, chapter: int, number: int) -> str:
    """The new scene's module."""
    return f'''"""{cls}: your own scene (written by `qkv-lens new`; make it yours).

Its numbers are the [{snake}] section of lesson.toml, declared key by key by
{cls}Params below (the loader checks them before anything renders); its
sentences are the "{snake}.*" keys of texts.toml, one table per language.

    qkv-lens render {cls}        # renders/<lang>/480p15/{cls}.mp4
    qkv-lens preview {cls}       # its last frame, in seconds
"""
from __future__ import annotations

from fractions import Fraction

from manim import DOWN, RIGHT, Create, FadeIn, MathTex, SurroundingRectangle, VGroup, Write

from qkv_lens.lesson.keys import Matrix, Params, Vector
from scenes.kit import palette
from scenes.kit.matrices import matrix_mob
from scenes.kit.scene import LessonScene
from scenes.kit.text import title


class {cls}Params(Params):
    """[{snake}]: a row vector x and a matrix W, multiplied (y = x W)."""
    section = "{snake}"
    x: tuple[Fraction, ...] = Vector("entry", least=1, most=3, doc="the input row vector")
    W: tuple[tuple[Fraction, ...], ...] = Matrix("entry", rows="x", most_cols=3, doc="one row per entry of x")


class {cls}(LessonScene):
    params: {cls}Params
    chapter = {chapter}
    number = {number}

    def construct(self):
        p = self.params
        y = [sum((xi * row[j] for xi, row in zip(p.x, p.W)), Fraction(0)) for j in range(len(p.W[0]))]
        heading = title(self.tr("title"), self.lang)
        x = matrix_mob([p.x], font_size=44)
        W = matrix_mob(p.W, font_size=44)
        times, equals = MathTex(r"\\times", font_size=52), MathTex("=", font_size=52)
        result = matrix_mob([y], font_size=44, col_colors=list(palette.COLUMNS[:len(y)]))
        row = VGroup(x, times, W, equals, result).arrange(RIGHT, buff=0.35)
        row.scale_to_fit_width(min(row.width, 12.5)).move_to(0.3 * DOWN)
        names = VGroup(*(MathTex(n, font_size=44).next_to(m, DOWN, buff=0.3)
                         for n, m in ((r"x", x), (r"W", W), (r"y", result))))

        with self.beat("intro_say"):                      # x and W come in
            self.play(FadeIn(heading))
            self.play(FadeIn(x), FadeIn(times), FadeIn(W), FadeIn(names[:2]))
            # what the picture shows that the sentence does not say, read aloud for a learner who cannot
            # see it: the values as drawn ("W is two by three: first row 1, 0, minus 1; ...")
            self.describe("describe_intro", x=p.x, W=p.W)

        # a question before the beat that shows its answer: y's last entry, computed from the lesson's
        # numbers (a learner's answer counts when it rounds to it at 2 decimals)
        self.checkpoint("{CHECKPOINT}", number=y[-1], places=2)

        with self.beat("result_say", focus=result):       # y appears, boxed; the filler pulses it
            self.play(Write(equals), FadeIn(result), FadeIn(names[2]))
            self.play(Create(SurroundingRectangle(result, color=palette.FOCUS, buff=0.15)))
            self.describe("describe_result", y=y)
            self.key_moment("result", y=[float(v) for v in y])
'''


def test_source(cls: str, snake: str) -> str:
    """The new scene's own test (pytest, run in the lesson's folder)."""
    return f'''"""{cls}'s own test: a dry run of the scene in every language of the
lesson, its key moment's numbers, and its picture's layout.  Run it in the
lesson's folder:  python -m pytest tests/test_{snake}.py"""
import importlib.util
import os
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from manim import tempconfig

from qkv_lens.languages import offered
from qkv_lens.lesson import load_lesson

HERE = Path(__file__).resolve().parents[1]            # the lesson's folder
LESSON = HERE / "lesson.toml"


def dry_run(lang, tmp_path):
    """Run {cls}.construct with no video written; return the scene."""
    os.environ.update(QKV_LESSON=str(LESSON), QKV_LANG=lang)
    spec = importlib.util.spec_from_file_location("{snake}", HERE / "my_scenes" / "{snake}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["{snake}"] = module
    spec.loader.exec_module(module)
    with tempconfig({{"dry_run": True, "quality": "low_quality", "disable_caching": True,
                     "progress_bar": "none", "media_dir": str(tmp_path), "verbosity": "ERROR"}}):
        scene = module.{cls}(skip_animations=True)
        scene.render()
    return scene


@pytest.mark.parametrize("lang", offered())
def test_{snake}_runs_in_every_language(lang, tmp_path):
    """Every beat has its sentence, and every beat that changes the picture
    describes it (self.describe) or says its sentence names the change
    (self.beat(..., names_change=True)); every label of a key moment stays
    in the frame, above the subtitle band (the bottom 12%)."""
    scene = dry_run(lang, tmp_path)
    assert scene.beats and scene.moments
    undescribed = [b.id for b in scene.beats if b.changes and not b.describe and not b.named]
    assert not undescribed, f"beats that change the picture and say nothing of it: {{undescribed}}"
    for moment in scene.moments.values():
        for label in moment.labels:          # box: left, bottom, right, top in scene units (8 high)
            left, bottom, right, top = label.box
            assert -7.1 <= left and right <= 7.1 and top <= 4 and bottom >= -4 + 0.12 * 8, label


# -- what the scene shows: change this test when you change the scene -------------

def test_{snake}_shows_its_numbers(tmp_path):
    """y = x W on screen, and the checkpoint before the beat that shows y asks for
    its last entry: both computed from the lesson's numbers, so they follow an edit."""
    scene = dry_run("en", tmp_path)
    p = load_lesson(LESSON).params["{snake}"]
    want = [sum((xi * row[j] for xi, row in zip(p.x, p.W)), Fraction(0)) for j in range(len(p.W[0]))]
    assert scene.moments["result"].probes["y"] == pytest.approx([float(v) for v in want])
    [(beat, asked)] = [(b.id, b.ask) for b in scene.beats if b.ask is not None]
    assert beat == "result"
    assert asked.right(str(float(want[-1]))) and not asked.right(str(float(want[-1]) + 1))
'''


def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _toml_value(text: str) -> str:
    """``text`` as a TOML string: a literal one ('...') when it holds a
    backslash (LaTeX) and can be one, else a basic one."""
    if "\\" in text and "'" not in text and text.isprintable():
        return f"'{text}'"
    return _toml_string(text)


def _chapter_block(title: dict[str, str], scenes: list[str]) -> str:
    names = ", ".join(f"{lang} = {_toml_string(title[lang])}" for lang in offered() if lang in title)
    return f"[[chapters]]\ntitle = {{{names}}}\nscenes = [{', '.join(map(_toml_string, scenes))}]\n"


def lesson_text(text: str, raw: dict, cls: str, snake: str) -> str:
    """The lesson file's ``text`` with the new scene's section appended and
    the scene in the chapter "your scenes" (made on first use; a lesson
    without chapters gets the shipped ones first, which it used)."""
    section = (f"\n[{snake}]{' ' * max(1, 26 - len(snake) - 2)}# your scene {cls} (my_scenes/{snake}.py)\n"
               "x = [1, 2]\nW = [[1, 0, -1], [0.5, 1, 2]]\n")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    if CHAPTER_MARK + "\n" in lines:
        at = lines.index(CHAPTER_MARK + "\n") + 1
        while at < len(lines) and not lines[at].startswith("scenes"):
            at += 1
        if at == len(lines) or not lines[at].rstrip().endswith("]"):
            raise ScaffoldError(f"the chapter under {CHAPTER_MARK!r} has no one-line scenes = [...]; "
                                "add the scene to a chapter yourself")
        lines[at] = lines[at].rstrip()[:-1].rstrip() + f", {_toml_string(cls)}]\n"
        return "".join(lines) + section
    chapters = "" if "chapters" in raw else "\n" + "\n".join(
        _chapter_block(c["title"], c["scenes"]) for c in defaults()["chapters"])
    return "".join(lines) + chapters + f"\n{CHAPTER_MARK}\n" + _chapter_block(
        {lang: TEXT_TABLES[lang]["scaffold.chapter"] for lang in offered()}, [cls]) + section


def texts_text(text: str, cls: str, snake: str) -> str:
    """``texts.toml``'s ``text`` with the new scene's keys in every language
    and its formula (``add_to_table``); ScaffoldError when a table is written
    so that keys cannot be added to it (inline, or by dotted keys)."""
    for lang in offered():
        mark, words = edit_mark(lang), {k: TEXT_TABLES[lang][f"scaffold.{k}"] for k in PARTS}
        keys = {f"{snake}.title": cls,
                **{f"{snake}.{k}": mark + words[k] for k in ("intro_say", "result_say", "summary")},
                f"{snake}.{CHECKPOINT}": mark + words["checkpoint"],
                f"{snake}.{CHECKPOINT}_wrong": mark + words["checkpoint_wrong"],
                **{f"{snake}.{k}": TEXT_TABLES[lang][f"scaffold.{k}"] for k in DESCRIPTIONS},
                f"page.ask.{snake}": mark + words["ask"], f"export.formula.{snake}": words["formula"]}
        text = add_to_table(text, lang, keys, f"# {cls} (my_scenes/{snake}.py): replace the marked sentences\n")
    return add_to_table(text, "formulas", {snake: FORMULA}, "",
                        "   # its key formula on the handout (LaTeX, math mode)")


def add_to_table(text: str, table: str, keys: dict[str, str], comment: str = "", after: str = "") -> str:
    """The TOML ``text`` with ``keys`` added to its table ``table``: under the
    line that opens it (a header ``[table]``, with a comment or not), or in
    a new table at the end.  The result is parsed and must be the old tables
    with ``keys`` added, nothing else; ScaffoldError otherwise."""
    old = tomllib.loads(text)
    want = copy.deepcopy(old)
    want.setdefault(table, {}).update(keys)
    block = comment + "".join(f"{_toml_string(k)} = {_toml_value(v)}{after}\n" for k, v in keys.items())
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    tries = [lines + ["\n", f"[{table}]\n", block]] if table not in old else \
        [lines[:i + 1] + [block] + lines[i + 1:] for i, line in enumerate(lines) if _opens(line, table)]
    for candidate in tries:
        new = "".join(candidate)
        try:
            if tomllib.loads(new) == want:
                return new
        except tomllib.TOMLDecodeError:
            continue
    raise ScaffoldError(f"cannot add the new scene's keys to the [{shown(table)}] table of {LESSON_TEXTS} (is it "
                        "written inline, or with dotted keys?); write it as a [table] with one key a line")


def _opens(line: str, table: str) -> bool:
    """Whether ``line`` on its own is the TOML header of the table ``table``."""
    if not line.lstrip().startswith("["):
        return False
    try:
        return tomllib.loads(line) == {table: {}}
    except tomllib.TOMLDecodeError:
        return False


def _importable(name: str) -> bool:
    """Whether ``name`` is a top-level module Python can import (the
    standard library, manim, numpy, scenes, ...): manim puts the scene's
    folder first on ``sys.path``, so a scene file of that name would hide it."""
    if name in sys.stdlib_module_names:
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return True


def new_scene(lesson_path: Path, name: str) -> list[Path]:
    """Write the scene ``name`` beside the lesson at ``lesson_path``; the
    files written or changed.  ScaffoldError (one line) for a bad name, a
    name taken, a folder that is a file, a file that cannot be read, or a
    lesson that would not read back; then nothing is left changed."""
    cls, snake = names(name)
    folder = lesson_path.parent
    if not lesson_path.is_file() or lesson_path.resolve() == default_lesson().resolve():
        raise ScaffoldError(f"{shown(lesson_path)}: not a lesson of yours (no ./lesson.toml here); "
                            "write one first with qkv-lens init")
    texts_path = folder / LESSON_TEXTS
    try:
        declared = discover_lesson(folder)
        raw = read_toml(lesson_path)
        lesson_old = _text(lesson_path)
        texts_old = _text(texts_path, "texts file") if os.path.lexists(texts_path) else ""
    except (LessonError, ValueError) as err:
        raise ScaffoldError(str(err)) from None
    taken = {s.name.lower() for s in declared.scenes}
    if cls.lower() in taken:
        raise ScaffoldError(f"{cls}: a scene of that name exists (qkv-lens list --all); choose another name")
    module = teacher_folder(folder) / f"{snake}.py"
    test = folder / "tests" / f"test_{snake}.py"
    shipped_modules = {s.path.stem.lower() for s in declared.scenes} | {"kit"}
    if snake in declared.sections or snake in raw or snake in shipped_modules or _importable(snake) \
            or any(key.startswith(f"{snake}.") for table in TEXT_TABLES.values() for key in table):
        raise ScaffoldError(f"{snake}: a section, lesson key, text prefix or Python module of that name exists "
                            "(a module would be hidden by your scene's file); choose another name")
    for sub in (module.parent, test.parent):
        try:
            real = inside(folder, sub.name, "folder")
        except Unsafe as err:
            raise ScaffoldError(str(err)) from None
        if os.path.lexists(sub) and not real.is_dir():
            raise ScaffoldError(f"{shown(sub)}: expected a folder, found a file; move it away")
    for path in (module, test):
        if os.path.lexists(path):
            raise ScaffoldError(f"{shown(path)} exists; choose another name")
    number = max(s.number for s in declared.scenes) + 1
    chapter = max(s.chapter for s in declared.scenes) + 1
    lesson_new = lesson_text(lesson_old, raw, cls, snake)
    try:
        texts_new = texts_text(texts_old, cls, snake)
    except tomllib.TOMLDecodeError as err:     # read_toml refuses this before; here for a file changed since
        raise ScaffoldError(f"{shown(texts_path)}: TOML syntax error: {err}") from None

    def reads_back() -> None:      # the module in place: the lesson as it will be, the new scene in it
        try:
            lesson = parse_lesson(tomllib.loads(lesson_new), lesson_path)
        except (LessonError, ValueError) as err:
            raise ScaffoldError(f"the lesson would not read back with {cls} in it ({err}); nothing was "
                                "changed") from None
        if cls not in lesson.scene_names:
            raise ScaffoldError(f"the lesson would not list {cls}; nothing was changed")

    write_all({module: scene_source(cls, snake, chapter, number), test: test_source(cls, snake),
               texts_path: texts_new, lesson_path: lesson_new}, reads_back)
    return [module, lesson_path, texts_path, test]


def _text(path: Path, what: str = "lesson file") -> str:
    """The text of the TOML file ``path``, read as ``read_toml`` reads it
    (a regular file, capped, UTF-8, valid TOML; LessonError otherwise)."""
    read_toml(path, what)
    return read_regular(path, MAX_LESSON_BYTES).decode("utf-8-sig")


def write_all(files: dict[Path, str], check) -> None:
    """Write ``files`` (path -> text) all or none: each to a temporary file
    beside it, the first renamed into place, ``check()`` run, then the
    others renamed.  On any failure the temporary files, the files made and
    the folders made are removed and the files changed get their old bytes
    back; the error goes on."""
    old = {path: path.read_bytes() if path.is_file() else None for path in files}
    made: list[Path] = []
    staged: dict[Path, Path] = {}
    placed: list[Path] = []
    try:
        for path, text in files.items():
            if not path.parent.is_dir():
                path.parent.mkdir()
                made.append(path.parent)
            staged[path] = temp_beside(path)
            with os.fdopen(os.open(staged[path], os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW), "wb") as f:
                f.write(text.encode("utf-8"))
        first, *rest = files
        for path in (first, *rest):
            os.replace(staged[path], path)
            del staged[path]
            placed.append(path)
            if path == first:
                check()
    except BaseException:
        for tmp in staged.values():
            tmp.unlink(missing_ok=True)
        for path in reversed(placed):
            if old[path] is None:
                path.unlink(missing_ok=True)
            else:
                write_atomic(path, old[path])
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                pass
        raise
