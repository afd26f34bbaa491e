"""A language is a column of the text tables: a generated pseudo-language
proves that no code path hard-codes zh or en.

The pseudo-language ``qps`` is made here from the English column: every
word of four letters or more is accented and half as long again, and
every text ends with a right-to-left letter (Hebrew alef).  It is laid
over the shipped tables as a teacher's ``texts.toml`` is
(``languages.load_tables`` / ``install``), declared ``script = "spaced"``,
and a lesson names its things in it.  Then: the tables, the lesson loader,
the cues, a scene's dry run (ThreeLenses: layout and readable beats), a
render through the command, the voice, the lesson page and the exports all
work in it; and a column that lacks keys, a table without a row, a row
without a table and a column no font draws are each refused in one line.
SpaceDeformation does not fit words this long yet (an expected failure,
kept strict so that the fix shows)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qkv_lens import languages
from qkv_lens.app import cli
from qkv_lens.cues import LINE_WIDTH, check_cue, cue_seconds, split_cues
from qkv_lens.languages import LanguageError, check_fonts, language, load_tables, offered
from qkv_lens.lesson import LessonError, default_lesson_path, load_lesson, read_toml
from qkv_lens.texts import GLOSSARY, TEXTS, tr
from tests.helpers import assert_clean_layout, assert_readable_beats, dry_run, toml_text

CODE = "qps"
RTL = "\u05d0"      # HEBREW LETTER ALEF: a right-to-left letter in every text
_ACCENT = str.maketrans("aeiouycnAEIOUYCN", "áéíöüýçñÁÉÍÖÜÝÇÑ")
_FIELD = re.compile(r"(\{[^{}]*\})")


def long_word(m: re.Match) -> str:
    word = m.group()
    return (word + word[1:1 + len(word) // 2]).translate(_ACCENT)


def pseudo(text: str, mark: bool = True) -> str:
    """``text`` in the pseudo-language: fields ({name}, {g:term}) kept,
    words of four letters or more accented and half as long again, a
    right-to-left letter at the end (``mark``)."""
    parts = [p if _FIELD.fullmatch(p) else re.sub(r"[A-Za-z]{4,}", long_word, p) for p in _FIELD.split(text)]
    return "".join(parts) + (f" {RTL}" if mark else "")


def pseudo_name(name: str) -> str:
    """A lesson's name in the pseudo-language: accented, as long as the English
    (names are bounded by the room the frame has for them)."""
    return name.translate(_ACCENT)


def write_tables(path: Path, texts: dict[str, str], glossary: dict[str, str], row: dict | None = None) -> Path:
    doc = {"languages": {CODE: row or {"name": "Pseudo", "script": "spaced", "voice": "en"}},
           CODE: texts, "glossary": {term: {CODE: text} for term, text in glossary.items()}}
    path.write_text(toml_text(doc), encoding="utf-8")
    return path


def with_names(node, name=pseudo_name):
    """The lesson table ``node`` with a pseudo-language name beside every English one."""
    if isinstance(node, dict):
        out = {k: with_names(v, name) for k, v in node.items()}
        if isinstance(node.get("en"), str) and isinstance(node.get("zh"), str):
            out[CODE] = name(node["en"])
        return out
    if isinstance(node, list):
        return [with_names(v, name) for v in node]
    return node


@pytest.fixture(scope="module")
def column(tmp_path_factory):
    """The pseudo-language laid over the shipped tables (the shipped tables
    back in use afterwards), and a lesson naming its things in it."""
    folder = tmp_path_factory.mktemp("qps")
    en = dict(TEXTS["en"])
    tables = write_tables(folder / "texts.toml", {k: pseudo(v) for k, v in en.items()},
                          {term: pseudo(entry["en"], mark=False) for term, entry in GLOSSARY.items()})
    shipped = languages.current()
    languages.install(load_tables(tables))
    raw = with_names(read_toml(default_lesson_path()))
    raw["language"] = CODE
    lesson = folder / "lesson.toml"
    lesson.write_text(toml_text(raw), encoding="utf-8")
    yield {"tables": tables, "lesson": lesson, "en": en, "folder": folder}
    languages.install(shipped)


def test_a_column_with_a_row_is_a_language(column):
    assert CODE in offered()
    lang = language(CODE)
    assert (lang.script, lang.voice, lang.line_width, lang.cps) == ("spaced", "en", 42, 15.0)
    glossed = 0
    for key, text in column["en"].items():
        if re.search(r"\{(?!g:)[^{}]*\}", text):
            continue          # other fields are the scene's to fill
        expected = re.sub(r"\{g:([a-z_]+)\}", lambda m: pseudo(GLOSSARY[m.group(1)]["en"], mark=False), pseudo(text))
        assert tr(CODE, key) == expected, key
        glossed += "{g:" in text
    assert glossed > 10


def test_the_lesson_loads_in_it_with_its_names(column):
    lesson = load_lesson(column["lesson"])
    assert lesson.language == CODE
    words = lesson.params["space_deformation"].words
    shipped = load_lesson(default_lesson_path(), language="en").params["space_deformation"].words
    assert [w.name(CODE) for w in words] == [pseudo_name(w.name("en")) for w in shipped]
    assert [c.title.name(CODE) for c in lesson.chapters] == \
        [pseudo_name(c.title.name("en")) for c in load_lesson(default_lesson_path()).chapters]


def test_a_lesson_whose_name_lacks_the_language_fails_naming_where(column, tmp_path):
    raw = with_names(read_toml(default_lesson_path()))
    del raw["space_deformation"]["words"][1][CODE]
    bad = tmp_path / "lesson.toml"
    bad.write_text(toml_text(raw), encoding="utf-8")
    assert load_lesson(bad, language="en").language == "en"      # the other languages do not need it
    with pytest.raises(LessonError) as err:
        load_lesson(bad, language=CODE)
    message = str(err.value)
    assert "\n" not in message
    has = ", ".join(k for k in raw["space_deformation"]["words"][1] if k != "at")
    assert message.startswith(f"{bad}: space_deformation.words[1]: no name in {CODE} (it has {has})")


def test_cues_break_at_spaces_within_the_script_limits(column):
    width = LINE_WIDTH[CODE]
    assert width == 42
    for key in sorted(TEXTS[CODE]):
        text = TEXTS[CODE][key]
        if "{" in text or len(column["en"][key].strip()) <= 5:
            continue          # fields are the scene's to fill; a separator is not a sentence
        cues = split_cues(text, CODE)
        words = text.split()
        assert " ".join(c.replace("\n", " ") for c in cues).split() == words, key   # never inside a word
        for cue in cues:
            problems = check_cue(cue, CODE)
            long_token = any(len(line) > width and " " not in line for line in cue.split("\n"))
            assert not problems or long_token, (key, cue, problems)
            assert cue_seconds(cue, CODE) >= len(cue.replace("\n", "")) / 15.0


def test_the_pseudo_language_is_longer_than_english(column):
    en = sum(len(t) for t in column["en"].values())
    assert sum(len(t) for t in TEXTS[CODE].values()) > 1.25 * en


def test_a_scene_dry_runs_in_it(column, tmp_path):
    """ThreeLenses, a scene of many names and texts, in the pseudo-language:
    every key moment's layout clean (long words and all), its beats
    readable at the spaced script's limits, its narration and names the
    column's."""
    scene = dry_run("ThreeLenses", tmp_path, lesson=column["lesson"], lang=CODE)
    assert scene.lang == CODE
    assert_clean_layout(scene)
    assert_readable_beats(scene)
    assert all(b.say.endswith(RTL) for b in scene.beats)
    assert any(b.say == tr(CODE, f"three_lenses.{b.key}") for b in scene.beats)   # a beat without fields
    drawn = {label.content for m in scene.moments.values() for label in m.labels}
    words = load_lesson(column["lesson"]).params["three_lenses"].words
    assert all(w.name(CODE).replace(" ", "") in drawn for w in words), sorted(drawn)[:20]


@pytest.mark.xfail(strict=True, reason="finding: the side column now closes its gaps and shrinks to its room "
                   "(Spanish fits), but SpaceDeformation's SVD row (turn · stretch · turn, a name under each "
                   "factor) does not: names half again as long as English overlap their neighbours")
def test_space_deformation_fits_long_words(column, tmp_path):
    scene = dry_run("SpaceDeformation", tmp_path, lesson=column["lesson"], lang=CODE)
    assert_readable_beats(scene)
    assert_clean_layout(scene)


def test_the_voice_follows_the_row(column, tmp_path):
    from qkv_lens import voice
    key = voice.voice_key("espeak", tmp_path, CODE, "SpaceDeformation")
    assert key is not None and key["voice"] == language(CODE).voice == "en"


def test_render_in_it(column, fake, tmp_path):
    from qkv_lens.app import manifest
    out = tmp_path / "out"
    code = cli.main(["render", "WorkedExample", "--lang", CODE, "--out", str(out), "--lesson", str(column["lesson"])])
    assert code == 0 and fake.calls == ["WorkedExample"]
    assert (out / CODE / "480p15" / "WorkedExample.mp4").is_file()
    assert {e["language"] for e in manifest.load(out).values()} == {CODE}


def test_page_chrome_in_it(column, tmp_path):
    """The page's own words (title, contents, presenter labels, language
    switch) are the column's texts, and its fonts the language's stack."""
    from qkv_lens.app import manifest, page
    out = tmp_path / "renders"
    for lang in ("en", CODE):
        folder = out / lang / "480p15"
        folder.mkdir(parents=True)
        (folder / "WorkedExample.mp4").write_bytes(b"\0" * 16)
        (folder / "WorkedExample.png").write_bytes(b"\0" * 16)
        files = [f"{lang}/480p15/WorkedExample.{x}" for x in ("mp4", "png")]
        manifest.record(out, {"scene": "WorkedExample", "order": 6, "key": "k", "language": lang,
                              "quality": "480p15", "format": "mp4", "voice": "none", "duration": 2.0,
                              "width": 160, "height": 90, "files": files, "bytes": 16, "render_seconds": 0.1})
    html = page.build(out, load_lesson(column["lesson"]).chapters).read_text(encoding="utf-8")
    assert f'<section class="lesson" lang="{CODE}" hidden>' in html
    assert f'lang="{CODE}" data-lang="{CODE}"' in html and tr(CODE, "lesson.language").replace(RTL, "") in html
    data = json.loads(re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', html,
                                re.S).group(1))
    assert data["langs"] == ["en", CODE]
    assert data["ui"][CODE]["present"] == tr(CODE, "page.present")
    assert all(text.endswith(RTL) for text in data["ui"][CODE].values())
    rule = re.search(rf":lang\({CODE}\) {{ font-family: (.*), sans-serif; }}", html)
    stack = json.loads(f"[{rule.group(1)}]")        # a spaced script: a Latin font first, then its own
    assert stack[0] in page.LATIN_FONTS and set(language(CODE).fonts) <= set(stack)


def test_missing_keys_are_listed_in_one_error(column, tmp_path):
    en = column["en"]
    dropped = sorted(en)[:3]
    texts = {k: pseudo(v) for k, v in en.items() if k not in dropped}
    glossary = {t: pseudo(e["en"], mark=False) for t, e in GLOSSARY.items() if t != "query"}
    shipped = languages.current()
    languages.install(load_tables(write_tables(tmp_path / "texts.toml", texts, glossary)))
    try:
        with pytest.raises(LanguageError) as err:
            language(CODE)
        message = str(err.value)
        assert "\n" not in message and f"[{CODE}] lacks 4 texts" in message
        for key in [*dropped, "glossary.query"]:
            assert key in message
        with pytest.raises(KeyError):          # never a blank, never another language
            tr(CODE, dropped[0])
        with pytest.raises(LessonError) as err:
            load_lesson(column["lesson"])
        assert all(key in str(err.value) for key in dropped) and "\n" not in str(err.value)
    finally:
        languages.install(shipped)


def test_a_row_without_a_table_is_not_offered(tmp_path):
    path = tmp_path / "texts.toml"
    path.write_text('[languages]\nxx = { name = "Nowhere", script = "spaced", voice = "en" }\n', encoding="utf-8")
    tables = load_tables(path)
    shipped = languages.current()
    languages.install(tables)
    try:
        assert "xx" not in offered()
        with pytest.raises(LanguageError, match=r"xx \(Nowhere\) is declared in \[languages\] but has no \[xx\]"):
            language("xx")
        with pytest.raises(LessonError, match=r"lesson.toml: language \(--lang / QKV_LANG\): .*xx \(Nowhere\) is "
                           r"declared in \[languages\] but has no \[xx\] table of texts$"):
            load_lesson(default_lesson_path(), language="xx")
    finally:
        languages.install(shipped)


@pytest.mark.parametrize("content, said", [
    ("[xx]\n\"lesson.title\" = \"x\"\n", "[xx] has no row in [languages]"),
    ('[languages]\nxx = { name = "X", script = "rtl", voice = "en" }\n', "languages.xx.script: expected one of cjk"),
    ('[languages]\nxx = { name = "X", script = "spaced" }\n', "languages.xx: missing voice"),
    ('[languages]\nXX1 = { name = "X", script = "spaced", voice = "x" }\n', "2 to 8 lower-case letters"),
    # row fields are names, not markup or commands: each refused naming its row and field
    ('[languages]\nxx = { name = "X", script = "spaced", voice = "en", fonts = ["</style><script>"] }\n',
     "languages.xx.fonts: expected font family names"),
    ('[languages]\nxx = { name = "X", script = "spaced", voice = "en", fonts = ["a\\"; } b { x: \\""] }\n',
     "languages.xx.fonts: expected font family names"),
    ('[languages]\nxx = { name = "X", script = "spaced", voice = "en", fonts = [""] }\n',
     "languages.xx.fonts: expected font family names"),
    ('[languages]\nxx = { name = "X", script = "spaced", voice = "en", fonts = ["%s"] }\n' % ("N" * 65),
     "languages.xx.fonts: expected font family names"),
    ('[languages]\nxx = { name = "X", script = "spaced", voice = "en", font_package = "fonts-x; rm -rf ~" }\n',
     "languages.xx.font_package: expected a Debian package name"),
    ('[languages]\nxx = { name = "X", script = "spaced", voice = "-w /tmp/x" }\n',
     "languages.xx.voice: expected an espeak-ng voice"),
    ('[languages]\nxx = { name = "X\\u001b[2J", script = "spaced", voice = "en" }\n',
     "languages.xx.name: expected a name of 1 to 40 printable characters"),
    ('[languages]\nxx = { name = "<b>X</b>", script = "spaced", voice = "en" }\n',
     "languages.xx.name: expected a name of 1 to 40 printable characters"),
    ('[languages]\nxx = { name = "X", script = "spaced", voice = "en", end_bad = ["a b"] }\n',
     "languages.xx.end_bad: expected a list of words"),
])
def test_bad_tables_are_refused_in_one_line(tmp_path, content, said):
    path = tmp_path / "texts.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LanguageError) as err:
        load_tables(path)
    assert said in str(err.value) and "\n" not in str(err.value) and str(err.value).isprintable()


def test_the_shipped_rows_and_usual_row_fields_pass(tmp_path):
    path = tmp_path / "texts.toml"
    path.write_text('[languages]\nxx = { name = "Español (España)", script = "spaced", voice = "roa/es+f3", '
                    'fonts = ["Noto Sans CJK SC", "DejaVu Sans", "Source Han Sans-SC"], '
                    'font_package = "fonts-noto-cjk", end_bad = ["l\'", "d\u2019"] }\n', encoding="utf-8")
    assert load_tables(path).rows["xx"]["fonts"][2] == "Source Han Sans-SC"


def test_a_column_no_font_draws_is_refused_with_the_install_command(column, tmp_path):
    undrawable = "\U0010fffd"      # a private-use character of plane 16: no font has it
    texts = {k: pseudo(v) + undrawable for k, v in column["en"].items()}
    glossary = {t: pseudo(e["en"], mark=False) for t, e in GLOSSARY.items()}
    shipped = languages.current()
    languages.install(load_tables(write_tables(tmp_path / "texts.toml", texts, glossary)))
    try:
        with pytest.raises(languages.FontMissing) as err:
            check_fonts(CODE)
        message = str(err.value)
        assert "U+10FFFD" in message and "sudo apt-get install --no-install-recommends" in message
        assert "\n" not in message
    finally:
        languages.install(shipped)


def test_lang_takes_the_languages_of_the_tables(tmp_path, capsys, fake):
    from tests.helpers import one_error_line
    code = cli.main(["render", "--lang", "fr", "--out", str(tmp_path / "out")])
    line = one_error_line(capsys.readouterr().err)
    assert code == 2 and fake.calls == []
    assert "no language 'fr'" in line and f"offered: {', '.join(offered())}" in line
    with pytest.raises(SystemExit) as exit_:
        cli.main(["preview", "WorkedExample", "--lang", "all"])
    assert exit_.value.code == 2 and "does not take all" in capsys.readouterr().err


def test_no_module_names_a_language():
    """Outside the text tables no code spells out a language code: the one
    exception is the key reference, a page written in English, which quotes
    the shipped chapters by their English titles."""
    import ast
    root = Path(__file__).resolve().parents[1]
    found = []
    for path in sorted([*(root / "qkv_lens").rglob("*.py"), *(root / "scenes").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in ("zh", "en", "cmn", "es"):
                found.append((str(path.relative_to(root)), node.lineno))
    assert len(found) == 1 and found[0][0] == "qkv_lens/lesson/reference.py", found


def test_export_in_it(column, tmp_path):
    """The exports of the pseudo-language: its chapter titles in the video,
    its chapter headings on the deck's cover, its narration in the notes, a
    handout page per scene (synthetic clips, as in test_export)."""
    import av
    from pptx import Presentation

    from tests.test_export import CLIPS, NAMES, PICKED, make_renders
    sentences = [(s, t, [pseudo("The first sentence is here."), pseudo("The second goes on.")]) for s, t, _ in CLIPS]
    make_renders(tmp_path, CODE, clips=sentences)
    assert cli.main(["export", *NAMES, "--lang", CODE, "--out", str(tmp_path), "--lesson", str(column["lesson"]),
                     "--pdf"]) == 0
    folder = tmp_path / CODE / "480p15"
    titles = [tr(CODE, f"{s.section}.title") for s in PICKED]
    with av.open(str(folder / "lesson.mp4")) as c:
        assert [ch["metadata"]["title"] for ch in c.chapters()] == titles
    slides = list(Presentation(str(folder / "lesson.pptx")).slides)
    assert slides[0].shapes.title.text == tr(CODE, "lesson.title")
    headings = [c.title.name(CODE) for c in load_lesson(column["lesson"]).chapters
                if set(c.scenes) & set(NAMES)]
    assert slides[0].placeholders[1].text.split("\n") == headings
    assert all(s.notes_slide.notes_text_frame.text.endswith(RTL) for s in slides[1:])
    assert len(re.findall(rb"/Type\s*/Page\b", (folder / "lesson.pdf").read_bytes())) == len(PICKED)
