"""A colleague's lesson folder is input, not code the terminal obeys (issue 36).

A teacher unpacks a colleague's folder (``lesson.toml``, ``texts.toml`` with
its texts, ``[languages]`` rows and glossary, ``my_scenes/*.py``) and runs
``qkv-lens`` on it.  Whatever the folder holds, each command ends in one
line (exit status 2), never a traceback or a hang:

- every name, text and file name from the folder, and every argument, is
  printed escaped: no ESC, BEL, C1 control or bidi override reaches the
  terminal (``store.shown``, ``store.escaped``);
- a scene module is a regular file inside the folder, capped and parsed
  with a bound; a text's braces are fields its key is given and glossary
  terms the tables have, checked when the tables load; a teacher's scene
  lacking texts is named with every key it lacks, in every language;
- ``new`` checks first and writes all or nothing, reads ``texts.toml`` as
  TOML, and refuses a class name its module already binds;
- a teacher's scene never stands in for a shipped one, whatever its case;
- ``--dask`` is checked before anything connects, a cost file that cannot
  be kept is a warning, and ``doctor`` checks the lesson's own languages."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import tomllib

from qkv_lens import store, texts
from qkv_lens.app import cli, costs, scaffold
from qkv_lens.lesson import LessonError, load_lesson
from qkv_lens.store import shown
from tests.helpers import ROOT, one_error_line, toml_text
from tests.test_costs import uneven
from tests.test_trust import stand_in  # noqa: F401 - a fixture: the real pipeline with a stand-in manim child

NAME, SNAKE = "Shear", "shear"
POISON = "\x1b[31mRED\x07"
# what must never reach a terminal raw: C0 controls but tab and newline, DEL, C1 controls (CSI is U+009B),
# line and paragraph separators, bidi embeddings, overrides and isolates
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
SHIPPED = tomllib.loads((ROOT / "qkv_lens" / "texts.toml").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def shipped_texts():
    """The shipped texts again after each test (a lesson's texts are in use for the whole process)."""
    yield
    texts.use_lesson_texts(None)


def lesson_folder(folder: Path) -> Path:
    """``folder`` made a lesson by `qkv-lens init` and `qkv-lens new Shear`; its lesson file."""
    assert cli.main(["init", str(folder)]) == 0
    assert cli.main(["new", NAME, "--lesson", str(folder / "lesson.toml")]) == 0
    return folder / "lesson.toml"


@pytest.fixture
def lesson(tmp_path, capsys):
    path = lesson_folder(tmp_path / "colleague")
    capsys.readouterr()
    return path


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def assert_no_raw(*outputs: str) -> None:
    for text in outputs:
        found = RAW.search(text)
        assert found is None, f"raw {found.group()!r} in {text!r}"


def refused(capsys, *args: str) -> str:
    """The one error line of a command that must refuse, checked free of raw controls."""
    status, out, err = run(capsys, *args)
    assert status == 2, (status, out, err)
    assert_no_raw(out, err)
    return one_error_line(err)


def with_language(lesson: Path, row: dict, table: bool = True) -> None:
    """The lesson's texts.toml with a language ``qq`` (``row``), its texts
    English (the shipped ones and the lesson's own) when ``table``."""
    path = lesson.parent / "texts.toml"
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    doc.setdefault("languages", {})["qq"] = row
    if table:
        doc["qq"] = {**SHIPPED["en"], **doc["en"]}
        doc["glossary"] = {term: {"qq": entry["en"]} for term, entry in SHIPPED["glossary"].items()}
    path.write_text(toml_text(doc), encoding="utf-8")


def names_in_qq(node):
    """A lesson table with a qq name beside every English one (the English name)."""
    if isinstance(node, dict):
        out = {k: names_in_qq(v) for k, v in node.items()}
        if isinstance(node.get("en"), str) and isinstance(node.get("zh"), str):
            out["qq"] = node["en"]
        return out
    return [names_in_qq(v) for v in node] if isinstance(node, list) else node


def edit_texts(lesson: Path, lang: str, key: str, value: str | None) -> None:
    """Set (or, with None, remove) one text of the lesson's texts.toml."""
    path = lesson.parent / "texts.toml"
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    if value is None:
        del doc[lang][key]
    else:
        doc.setdefault(lang, {})[key] = value
    path.write_text(toml_text(doc), encoding="utf-8")


# -- 1. nothing from the folder reaches the terminal raw ------------------------------------

@pytest.mark.parametrize("ch", ["\x1b", "\x07", "\x9b", "\u202e", "\u200b", "\n", "\r", "\u2028", "\x00"])
def test_shown_and_escaped_catch_a_control_anywhere_in_a_name(ch):
    name = f"my_scenes/ok{ch}[2Jstill ok.py"
    for text in (store.shown(name), store.escaped(name)):
        assert ch not in text and text.isprintable() and "still ok" in text
    assert store.shown(name) == repr(name)


def test_shown_keeps_a_printable_name_with_wide_spaces_as_it_is():
    for name in ("第一章　投影矩阵让空间变形", "Capítulo 1. Una matriz", "a b", "über\u00a0große"):
        assert store.shown(name) == name and store.escaped(name) == name


def test_a_language_rows_name_is_escaped_in_render_lang(lesson, capsys):
    with_language(lesson, {"name": f"Q{POISON}", "script": "spaced", "voice": "en"}, table=False)
    line = refused(capsys, "render", "--lang", "qq", "--lesson", str(lesson))
    # a row field with control characters is refused when the tables load, the value escaped
    assert "languages.qq.name" in line and "\x1b" not in line and "\x07" not in line


def test_a_language_rows_font_package_is_escaped_in_the_missing_font_line(lesson, capsys):
    with_language(lesson, {"name": "Qq", "script": "cjk", "voice": "en", "fonts": ["Qq Sans Nowhere"],
                           "font_package": f"fonts-qq{POISON}"})
    lesson.write_text(toml_text(names_in_qq(tomllib.loads(lesson.read_text(encoding="utf-8")))), encoding="utf-8")
    line = refused(capsys, "render", "--lang", "qq", "--lesson", str(lesson))
    assert "languages.qq.font_package" in line and "\x1b" not in line and "\x07" not in line


def test_an_unknown_scene_name_is_escaped(lesson, capsys):
    for command in ("render", "preview", "script", "export"):
        line = refused(capsys, command, f"X{POISON}", "--lesson", str(lesson))
        assert f'unknown scene "{shown(f"X{POISON}")}"' in line, command


# -- 2. a scene module is read as input, and never stands in for a shipped one -----------------

def qkv(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """The command in a child with its memory capped at 4 GiB: a file that
    would be read whole fails fast instead of filling the machine."""
    import resource

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    return subprocess.run([sys.executable, "-m", "qkv_lens", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, preexec_fn=cap)


def test_a_scene_module_that_is_a_device_or_a_fifo_is_one_line_at_once(lesson):
    scenes = lesson.parent / "my_scenes"
    (scenes / "zero.py").symlink_to("/dev/zero")
    start = time.monotonic()
    p = qkv("list", "--lesson", str(lesson))
    assert p.returncode == 2 and "leads outside" in one_error_line(p.stderr) and "zero.py" in p.stderr
    (scenes / "zero.py").unlink()
    os.mkfifo(scenes / "pipe.py")
    p = qkv("list", "--lesson", str(lesson), timeout=30)
    assert p.returncode == 2 and "pipe.py: expected a scene module (a regular file)" in one_error_line(p.stderr)
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("source, part", [
    ("x = " + "+".join(["1"] * 200_000) + "\n", "nested too deeply"),
    ("x = 1\n" + "#" * (1 << 20), "at most 1 MiB"),
    (b"x = '\xff'\n", "utf-8"),
    ("class (:\n", "syntax error at line 1"),
    ("x = 1\0\n", "null bytes"),
])
def test_a_scene_module_too_big_too_deep_or_not_python_is_one_line_naming_it(lesson, capsys, source, part):
    path = lesson.parent / "my_scenes" / "odd.py"
    path.write_bytes(source if isinstance(source, bytes) else source.encode("utf-8"))
    line = refused(capsys, "list", "--lesson", str(lesson))
    assert "odd.py" in line and part.lower() in line.lower()


def test_a_scene_module_linked_inside_the_folder_is_read_one_linked_out_refused(lesson, tmp_path, capsys):
    scenes = lesson.parent / "my_scenes"
    (lesson.parent / "kept").mkdir()
    (scenes / f"{SNAKE}.py").rename(lesson.parent / "kept" / f"{SNAKE}.py")
    (scenes / f"{SNAKE}.py").symlink_to(lesson.parent / "kept" / f"{SNAKE}.py")
    status, out, err = run(capsys, "list", "--lesson", str(lesson))
    assert status == 0 and f"my_scenes/{SNAKE}.py" in out
    outside = tmp_path / f"{SNAKE}.py"
    (lesson.parent / "kept" / f"{SNAKE}.py").rename(outside)
    (scenes / f"{SNAKE}.py").unlink()
    (scenes / f"{SNAKE}.py").symlink_to(outside)
    assert "leads outside" in refused(capsys, "list", "--lesson", str(lesson))


def test_a_scene_module_name_is_escaped_in_list_and_list_all(lesson, capsys):
    bad = lesson.parent / "my_scenes" / f"x{POISON}.py"
    bad.write_text("class (:\n", encoding="utf-8")             # a syntax error: list names the file
    for args in (["list"], ["list", "--all"]):
        line = refused(capsys, *args, "--lesson", str(lesson))
        assert f"{store.escaped(bad.name)}'" in line and "without control characters" in line
    bad = bad.rename(bad.with_name("Oddly Named.py"))                       # printable, but not a key's prefix
    bad.write_text((lesson.parent / "my_scenes" / f"{SNAKE}.py").read_text().replace(NAME, "Other")
                   .replace("number = ", "number = 1 + "), encoding="utf-8")
    for args in (["list"], ["list", "--all"]):
        line = refused(capsys, *args, "--lesson", str(lesson))
        assert shown(bad) in line and "lower-case letters, digits and _" in line


@pytest.mark.parametrize("edit, part", [
    (("class Shear(LessonScene)", "class Workedexample(LessonScene)"), "a shipped scene has that name (WorkedExample"),
    (('section = "shear"', 'section = "Worked_Example"'), "section [Worked_Example] is already declared"),
])
def test_a_teacher_name_in_another_case_is_refused(lesson, capsys, edit, part):
    module = lesson.parent / "my_scenes" / f"{SNAKE}.py"
    module.write_text(module.read_text().replace(*edit))
    line = refused(capsys, "list", "--lesson", str(lesson))
    assert part in line
    status, _, _ = run(capsys, "render", "WorkedExample", "--lesson", str(lesson), "--out", str(lesson.parent / "o"))
    assert status == 2


def test_a_teacher_module_named_like_a_shipped_one_in_another_case_is_refused(lesson, capsys):
    scenes = lesson.parent / "my_scenes"
    (scenes / f"{SNAKE}.py").rename(scenes / "Worked_Example.py")
    assert "a scene's module is named like its texts' keys" in refused(capsys, "list", "--lesson", str(lesson))


# -- 3. texts: their braces, their glossary terms, the keys a teacher's scene needs ----------------

@pytest.mark.parametrize("lang, key, value, part", [
    ("en", "worked_example.title", "Worked {", "Single '{'"),
    ("en", "worked_example.title", "Worked in {minutes} minutes", "{minutes} is not a field"),
    ("en", "export.footer", "{n} of {total}, {minutes}", "{minutes} is not a field"),
    ("zh", "worked_example.column_say", "第 {j} 个 {rows} 列", "{rows} is not a field"),
    ("en", "worked_example.summary", "See the {g:nosuchterm}.", "{g:nosuchterm}: no such glossary term"),
    ("en", "worked_example.summary", "See {0} and {n.real}.", "{0} is neither"),
    ("en", f"{SNAKE}.summary", "In {minutes} minutes.", "(it takes none)"),
    ("en", f"{SNAKE}.intro_say", "This is {x}.", "{x} is not a field"),
])
def test_a_text_with_a_brace_or_a_field_it_is_not_given_is_refused_when_the_tables_load(
        lesson, capsys, lang, key, value, part):
    edit_texts(lesson, lang, key, value)
    with pytest.raises(LessonError) as err:
        texts.use_lesson_texts(lesson.parent)
    assert part in str(err.value) and key in str(err.value) and "\n" not in str(err.value)
    (lesson.parent / "manifest.json").write_text("{}")      # `lesson` opens the lesson once a render is there
    for args in (["lesson", "--out", str(lesson.parent)], ["export", "--out", str(lesson.parent)], ["render"],
                 ["list"]):
        assert part in refused(capsys, *args, "--lesson", str(lesson)), args


def test_the_fields_a_key_is_given_are_accepted(lesson):
    """A shipped key keeps its own fields; a teacher's key those its scene passes."""
    module = lesson.parent / "my_scenes" / f"{SNAKE}.py"
    module.write_text(module.read_text().replace('self.beat("result_say", focus=result)',
                                                 'self.beat("result_say", focus=result, y0=y[0])'))
    edit_texts(lesson, "en", "worked_example.column_say", "Output {j} of a {g:row_vector}: {terms}, {total}.")
    edit_texts(lesson, "en", f"{SNAKE}.result_say", "y starts with {y0}; a brace is written {{ like this }}.")
    texts.use_lesson_texts(lesson.parent)
    assert texts.tr("en", f"{SNAKE}.result_say", y0=3) == "y starts with 3; a brace is written { like this }."


def test_a_teacher_scene_lacking_texts_is_one_line_naming_every_key_in_every_language(lesson, capsys):
    edit_texts(lesson, "en", f"{SNAKE}.title", None)
    edit_texts(lesson, "en", f"page.ask.{SNAKE}", None)
    edit_texts(lesson, "zh", f"export.formula.{SNAKE}", None)
    edit_texts(lesson, "es", f"{SNAKE}.intro_say", None)
    (lesson.parent / "manifest.json").write_text("{}")      # `lesson` opens the lesson once a render is there
    for args in (["lesson", "--out", str(lesson.parent)], ["export", "--out", str(lesson.parent)], ["render"],
                 ["list"]):
        line = refused(capsys, *args, "--lesson", str(lesson))
        assert (f"{NAME} (my_scenes/{SNAKE}.py) lacks [zh] export.formula.{SNAKE}; [en] {SNAKE}.title, "
                f"page.ask.{SNAKE}; [es] {SNAKE}.intro_say") in line, line


@pytest.mark.parametrize("make", ["fifo", "folder", "dangling"])
def test_a_texts_toml_that_is_not_a_file_is_one_line(lesson, capsys, make):
    path = lesson.parent / "texts.toml"
    path.unlink()
    {"fifo": os.mkfifo, "folder": os.mkdir, "dangling": lambda p: os.symlink("nowhere.toml", p)}[make](path)
    line = refused(capsys, "list", "--lesson", str(lesson))
    assert shown(path) in line and {"fifo": "pipe (FIFO)", "folder": "a directory",
                                    "dangling": "a symlink to a missing file"}[make] in line


# -- 4. new: all or nothing ---------------------------------------------------------------------

def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): (p.is_dir(), p.read_bytes() if p.is_file() and not p.is_symlink() else None)
            for p in folder.rglob("*")}


@pytest.mark.parametrize("case, part", [
    ("tests is a file", "tests: expected a folder, found a file"),
    ("my_scenes is a file", "my_scenes: expected a folder, found a file"),
    ("texts.toml is a folder", "expected a texts file (a regular file), found a directory"),
    ("texts.toml is not UTF-8", "the texts file is not UTF-8 text"),
    ("my_scenes leads out", "leads outside"),
])
def test_new_refuses_in_one_line_writes_nothing_and_runs_again_once_mended(tmp_path, capsys, case, part):
    assert cli.main(["init", str(tmp_path / "l")]) == 0
    folder = tmp_path / "l"
    target = {"tests": folder / "tests", "my_scenes": folder / "my_scenes",
              "texts.toml": folder / "texts.toml"}[case.split()[0]]
    if case.endswith("a file"):
        target.write_text("x")
    elif case.endswith("a folder"):
        target.mkdir()
    elif case.endswith("UTF-8"):
        target.write_bytes(b'[en]\n"x.title" = "\xff"\n')
    else:
        (tmp_path / "away").mkdir()
        target.symlink_to(tmp_path / "away")
    capsys.readouterr()
    before = snapshot(folder)
    assert part in refused(capsys, "new", NAME, "--lesson", str(folder / "lesson.toml"))
    assert snapshot(folder) == before and not list((tmp_path / "away").iterdir() if case.endswith("out") else [])
    os.unlink(target) if not target.is_dir() or target.is_symlink() else os.rmdir(target)
    assert cli.main(["new", NAME, "--lesson", str(folder / "lesson.toml")]) == 0
    load_lesson(folder / "lesson.toml")


def test_new_failing_at_its_last_write_leaves_the_folder_as_it_was(tmp_path, capsys, monkeypatch):
    assert cli.main(["init", str(tmp_path)]) == 0
    (tmp_path / "texts.toml").write_text('[en]\n"worked_example.title" = "Mine"\n', encoding="utf-8")
    before = snapshot(tmp_path)
    real = os.replace

    def replace(src, dst):
        if Path(dst).name == "lesson.toml":
            raise OSError(28, "No space left on device")
        real(src, dst)
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError):
        scaffold.new_scene(tmp_path / "lesson.toml", NAME)
    monkeypatch.setattr(os, "replace", real)
    assert snapshot(tmp_path) == before         # the module, the test, the folders and the temporary files gone
    assert cli.main(["new", NAME, "--lesson", str(tmp_path / "lesson.toml")]) == 0


def test_new_reads_texts_toml_as_toml(tmp_path, capsys):
    assert cli.main(["init", str(tmp_path)]) == 0
    (tmp_path / "texts.toml").write_text(
        '[ "en" ]   # my English texts\n"worked_example.title" = "Mine"\n\n[formulas] # mine\n'
        'x = """\n[zh] \\\n"""\n', encoding="utf-8")   # a line that looks like a header, inside a string
    assert cli.main(["new", NAME, "--lesson", str(tmp_path / "lesson.toml")]) == 0
    doc = tomllib.loads((tmp_path / "texts.toml").read_text(encoding="utf-8"))
    assert doc["en"]["worked_example.title"] == "Mine" and doc["en"][f"{SNAKE}.title"] == NAME
    assert doc["formulas"] == {"x": "[zh] ", SNAKE: scaffold.FORMULA} and f"{SNAKE}.title" in doc["zh"]
    texts.use_lesson_texts(tmp_path)
    assert texts.tr("en", "worked_example.title") == "Mine"


@pytest.mark.parametrize("name", ["Write", "Fraction", "fraction", "MathTex", "LessonScene", "Vector", "Exception",
                                  "None", "Matrix"])
def test_new_refuses_a_name_its_module_already_binds(lesson, capsys, name):
    line = refused(capsys, "new", name, "--lesson", str(lesson))
    assert "the class would hide it" in line


def test_the_names_new_refuses_are_the_scaffolds_own_imports():
    import ast
    tree = ast.parse(scaffold.scene_source("Probe", "probe", 0, 0))
    imported = {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert imported <= set(scaffold.bound()) and {"Write", "Fraction", "LessonScene"} <= imported


# -- 5. the cluster, the cost file, the doctor; every command on a poisoned folder ---------------

@pytest.mark.parametrize("address", ["not a url", "tcp://", "tcp//host:8786", "tcp://host:99999", "host:8786",
                                     "tcp://host:8786/x", "tcp://ho st:1"])
def test_a_malformed_dask_address_is_one_line_at_once(tmp_path, capsys, address):
    start = time.monotonic()
    line = refused(capsys, "render", "WorkedExample", "--lang", "en", "--dask", address, "--out", str(tmp_path / "o"))
    assert time.monotonic() - start < 2 and line.startswith(f"qkv-lens: error: --dask {address}")
    assert not (tmp_path / "o").exists()


def test_a_cost_file_the_cache_cannot_take_is_a_warning(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("QKV_CACHE_DIR", str(tmp_path / "file" / "cache"))     # read-only, as even root finds it
    warning = costs.keep(uneven(), "WorkedExample", "en", "l")
    assert warning and "WorkedExample (en)" in warning and "\n" not in warning
    assert costs.kept("WorkedExample", "en", "l") is None


def test_doctor_checks_the_lessons_own_language_rows(lesson, capsys):
    with_language(lesson, {"name": "Qq", "script": "cjk", "voice": "qq-nowhere", "font_package": "fonts-qq"})
    edit_texts(lesson, "qq", "worked_example.title", "Worked \U0001d2e0")     # a Mayan numeral: no font has it
    status, out, err = run(capsys, "doctor", "--lesson", str(lesson))
    missing = [line for line in out.splitlines() if line.startswith("MISSING")]
    assert any("qq" in line and "U+1D2E0" in line and "fonts-qq" in line for line in missing), out
    assert any("voice qq-nowhere for Qq" in line for line in missing), out


def test_every_command_on_a_poisoned_folder_prints_nothing_raw(tmp_path, capsys, stand_in):  # noqa: F811
    """A lesson folder whose name, language row, file names and the
    arguments hold ESC and BEL: each command works or refuses, and nothing
    it prints holds a raw control."""
    folder = tmp_path / f"lesson{POISON}"
    lesson = lesson_folder(folder)
    # (a row's own fields with controls are refused when the tables load: the two tests above)
    with_language(lesson, {"name": "Qq", "script": "spaced", "voice": "en", "font_package": "fonts-qq"})
    out = folder / f"renders{POISON}"
    L = ["--lesson", str(lesson)]
    commands = [
        ["list", *L], ["list", "--all", *L], ["keys"], ["doctor", *L],
        ["render", NAME, "--lang", "qq", "--jobs", "1", "--out", str(out), *L],
        ["render", NAME, "--lang", "en", "--jobs", "1", "--out", str(out), *L],
        ["lesson", "--out", str(out), *L], ["lesson", "--out", str(tmp_path / f"none{POISON}"), *L],
        ["export", "--out", str(tmp_path / f"none{POISON}"), *L],
        ["render", f"X{POISON}", *L], ["render", "--lang", f"q{POISON}", *L],
        ["render", "--dask", f"tcp://{POISON}", *L], ["render", "--dask", f"{POISON}://x", *L],
        ["render", "--out", str(lesson), *L], ["watch", "--lang", f"q{POISON}", *L],
        ["script", f"X{POISON}", *L], ["preview", f"X{POISON}", *L],
        ["new", f"X{POISON}", *L], ["new", NAME, *L], ["init", str(folder)],
    ]
    statuses = []
    for args in commands:
        statuses.append(cli.main(args))
        assert_no_raw(*capsys.readouterr())
    assert statuses[0] == statuses[5] == 0        # it lists and renders
    assert all(status == 2 for status in statuses[9:]), statuses
    # what the folder is refused for is escaped too: a text, a chapter title, a scene module's name
    edit_texts(lesson, "en", f"{SNAKE}.title", f"S{POISON}")
    refused(capsys, "list", *L)
    edit_texts(lesson, "en", f"{SNAKE}.title", NAME)
    text = lesson.read_text(encoding="utf-8")
    lesson.write_text(text.replace('en = "Your scenes"', 'en = "Your\\u001b[31mRED\\u0007"'), encoding="utf-8")
    refused(capsys, "render", *L)
    lesson.write_text(text, encoding="utf-8")
    (folder / "my_scenes" / f"helper{POISON}.py").write_text("HELP = 1\n", encoding="utf-8")
    refused(capsys, "list", "--all", *L)
