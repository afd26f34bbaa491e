import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from qkv_lens.lesson import LessonError, default_lesson, defaults, load_lesson, parse_lesson
from tests.helpers import LESSON, ROOT

try:
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib


def test_the_lesson_is_one_file_the_shipped_default():
    # the defaults live in one file, package data (what `qkv-lens init` copies);
    # the checkout keeps no second copy to drift from it
    assert default_lesson().parent.name == "qkv_lens" and default_lesson().is_file() and LESSON == default_lesson()


def test_defaults_come_from_the_shipped_file():
    raw = tomllib.loads(default_lesson().read_text(encoding="utf-8"))
    assert defaults() == raw
    defaults()["worked_example"]["x"].append(99)      # a copy: the defaults stay as shipped
    assert defaults() == raw


def test_no_default_value_is_spelled_out_in_python():
    import qkv_lens.lesson as pkg
    for path in Path(pkg.__file__).parent.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for word in ("苹果", "apple", "svd_matrix\": [[", "程序员"):
            assert word not in text, f"{path.name} spells out a default ({word})"


def test_default_lesson_values():
    lesson = load_lesson(LESSON, language="en")
    assert lesson.language == "en"
    assert lesson.params["worked_example"].x == (3, 4)
    assert lesson.params["worked_example"].W == ((1, 0, 2), (0, 1, -1))
    assert lesson.params["space_deformation"].words[0].name("zh") == "苹果"
    assert isinstance(lesson.params["space_deformation"].stretch[0], Fraction)


def test_numbers_are_exact():
    lesson = parse_lesson({"worked_example": {"x": ["1/3", 0.1], "W": [[1], ["-2/7"]]}}, Path("t.toml"))
    assert lesson.params["worked_example"].x == (Fraction(1, 3), Fraction(1, 10))
    assert lesson.params["worked_example"].W[1][0] == Fraction(-2, 7)


def test_partial_file_takes_defaults():
    lesson = parse_lesson({"worked_example": {"x": [1, 2]}}, Path("t.toml"))
    assert lesson.params["worked_example"].W == ((1, 0, 2), (0, 1, -1))
    assert len(lesson.params["space_deformation"].words) == 6


BAD = [
    ('language = "fr"\n', ["language", "'zh'", "'fr'"]),
    ("[worked_example]\nW = [[1, 0, 2], [0, 1, \"abc\"]]\n", ["worked_example.W[1][2]", "finite number", "'abc'"]),
    ("[worked_example]\nW = [[1, 0, 2], [0, 1, nan]]\n", ["worked_example.W[1][2]", "nan"]),
    ("[worked_example]\nx = [1, inf]\n", ["worked_example.x[1]", "inf"]),
    ("[worked_example]\nW = [[1, 0, 2]]\n", ["worked_example.W", "2 rows", "1 row"]),
    ("[worked_example]\nW = [[1, 0, 2], [0, 1]]\n", ["worked_example.W[1]", "3 numbers", "2"]),
    ("[worked_example]\nWW = 1\n", ["worked_example.WW", "unknown key", 'did you mean "W"']),
    ("[worked_exampel]\nW = 1\n", ["worked_exampel", "unknown key", 'did you mean "worked_example"']),
    ("[space_deformation]\nstretch = [1, 2, 3]\n", ["space_deformation.stretch", "2 numbers", "3"]),
    ("[space_deformation]\nflatten_onto = [0, 0]\n", ["space_deformation.flatten_onto", "non-zero"]),
    ("[space_deformation]\nsvd_matrix = [[1, 2], [3, true]]\n", ["space_deformation.svd_matrix[1][1]", "True"]),
    ("[space_deformation]\nwords = [{zh = \"苹果\", en = \"apple\", at = [1]}]\n",
     ["space_deformation.words[0].at", "2 numbers"]),
    ("[worked_example]\nW = [[1, 0, 2]\n", ["TOML syntax error"]),
    ("[attention]\nembeddings = [[1, 0], [0, 1], [1, 1], [0, 0]]\n",
     ["attention.embeddings[0]", "8 numbers", "one column per trait in attention.traits (8)"]),
    ("[attention]\nW_Q = [[1, 0, 0]]\n", ["attention.W_Q", "8 rows", "one row per trait"]),
    ("[attention]\nW_V = [[1]] \n", ["attention.W_V", "8 rows"]),
    ("[attention]\nfocus = 4\n", ["attention.focus", "0 to 3", "4"]),
    ("[attention]\ntemperature = 0\n", ["attention.temperature", "> 0"]),
    ("[attention]\ncausal_mask = \"yes\"\n", ["attention.causal_mask", "true or false"]),
    ("[attention]\ntokens = [" + ", ".join(['{zh="a", en="a"}'] * 7) + "]\n",
     ["attention.tokens", "at most 6", "7"]),
    ("language = \"en\"\n[attention]\ntraits = [{zh=\"甲\"}]\n", ["attention.traits[0]", "no name in en",
                                                                  "it has zh", 'add en = "..."']),
    ("[attention]\ntraits = [{fr=\"x\"}]\n", ["attention.traits[0].fr", "unknown key", "zh, en"]),
    ("[attention]\ntraits = [{}]\n", ["attention.traits[0]", "a name in at least one language"]),
    ("[dot_product_softmax]\nd_k = [4, 0]\n", ["dot_product_softmax.d_k[1]", "1 to 4096"]),
    ("[dot_product_softmax]\ntemperatures = [1, -2]\n", ["dot_product_softmax.temperatures[1]", "> 0"]),
    ("[dot_product_softmax]\nscores = [1]\n", ["dot_product_softmax.scores", "2 to 8"]),
    ("[dot_product_softmax]\nseed = 1.5\n", ["dot_product_softmax.seed", "whole number"]),
    ("[shadow_projection]\ncube_center = [-1, 0, 0]\n", ["shadow_projection.cube_center", "in front of the wall"]),
    ("[shadow_projection]\nlight = [1, 0, 0]\n", ["shadow_projection.light", "towards the wall"]),
    ("[shadow_projection]\nlamp = [2, 0, 1]\n", ["shadow_projection.lamp", "further from the wall"]),
    ("[up_projection]\nW = [[1, 0], [0, 1]]\n", ["up_projection.W[0]", "3 numbers"]),
    ("[three_lenses]\nlenses = []\n", ["three_lenses.lenses", "exactly 3"]),
    ("[training]\npeople = 8\n", ["training.people", "3 to 6", "8"]),
    ("[training]\npeople = 2\n", ["training.people", "3 to 6", "nothing to match", "found 2"]),
    ("[training]\npeople = 5\njobs = [" + ", ".join(['{zh="甲", en="a"}'] * 5) + "]\n",
     ["training.jobs", "more professions than training.people (5)"]),
    ("[training]\nlearning_rate = 0\n", ["training.learning_rate", "> 0"]),
    ("[training]\nlearning_rate = 3\n", ["training.learning_rate", "at most 1"]),
    ("[training]\nsteps = 2.5\n", ["training.steps", "10 to 20000", "2.5"]),
    ("[training]\nseed = -1\n", ["training.seed", "whole number"]),
    ("[training]\nsnapshot = 3\n", ["training.snapshot", "unknown key", 'did you mean "snapshots"']),
]


@pytest.mark.parametrize("content, parts", BAD, ids=[b[1][0] for b in BAD])
def test_bad_lesson_message(tmp_path, content, parts):
    bad = tmp_path / "bad.toml"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(LessonError) as err:
        load_lesson(bad)
    message = str(err.value)
    assert message.startswith(str(bad))
    assert "\n" not in message
    for part in parts:
        assert part in message


@pytest.mark.parametrize("content, fraction", [
    ("[worked_example]\nx = [1/2, 3]\n", "1/2"),                     # tomllib: "Unclosed array"
    ("[worked_example]\nx = [3, -3 / 4]\n", "-3/4"),
    ("[worked_example]\nW = [[1, 0, 2],\n  [0, 2.5/10, -1]]\n", "2.5/10"),
    ("[worked_example]\nx = 1/2\n", "1/2"),                          # "Expected newline or end of document"
])
def test_an_unquoted_fraction_is_told_to_be_quoted(tmp_path, content, fraction):
    bad = tmp_path / "bad.toml"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(LessonError) as err:
        load_lesson(bad)
    message = str(err.value)
    assert "TOML syntax error" in message and "\n" not in message
    assert message.endswith(f'quote it: "{fraction}"')


@pytest.mark.parametrize("content", [
    "[worked_example]\nW = [[1, 0, 2]\n",                  # no fraction anywhere
    '[worked_example]\nx = ["1/2", 3  # 1/2 in a comment\n',  # quoted, and in a comment: not the fault
    "[worked_example]\nx = [1, 2 3]  # a/b\n",
])
def test_no_fraction_hint_without_an_unquoted_fraction(tmp_path, content):
    bad = tmp_path / "bad.toml"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(LessonError) as err:
        load_lesson(bad)
    assert "TOML syntax error" in str(err.value) and "quote it" not in str(err.value)


@pytest.mark.parametrize("content, parts", BAD[:3] + BAD[6:7] + BAD[-1:], ids=lambda v: str(v)[:20])
def test_cli_refuses_bad_lesson_with_status_2(tmp_path, content, parts):
    bad = tmp_path / "bad.toml"
    bad.write_text(content, encoding="utf-8")
    out = tmp_path / "renders"
    proc = subprocess.run([sys.executable, "-m", "qkv_lens", "render", "--lesson", str(bad),
                           "--out", str(out)], capture_output=True, text=True, cwd=ROOT, check=False)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert all(p in proc.stderr for p in parts)
    assert not out.exists()


def test_manim_cli_shows_the_same_message(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD[1][0], encoding="utf-8")
    expected = None
    try:
        load_lesson(bad)
    except LessonError as err:
        expected = str(err)
    proc = subprocess.run([sys.executable, "-m", "manim", "render", "-ql", "--media_dir",
                           str(tmp_path / "media"), str(ROOT / "scenes" / "worked_example.py"),
                           "WorkedExample"], capture_output=True, text=True, cwd=tmp_path, check=False,
                          env={**__import__("os").environ, "QKV_LESSON": str(bad)})
    assert proc.returncode == 2
    assert expected in proc.stderr
    assert not list((tmp_path / "media").glob("**/*.mp4"))


def test_missing_lesson_file(tmp_path):
    with pytest.raises(LessonError, match="not found"):
        load_lesson(tmp_path / "nope.toml")


def test_init_writes_the_lesson_in_the_language_asked_for(tmp_path, capsys):
    from importlib import resources

    from qkv_lens.app import cli
    shipped = resources.files("qkv_lens").joinpath("lesson.toml").read_text(encoding="utf-8")
    assert load_lesson(LESSON).language == "en"          # the shipped lesson is in English, as the README
    assert cli.main(["init", str(tmp_path / "zh"), "--lang", "zh"]) == 0
    written = (tmp_path / "zh" / "lesson.toml").read_text(encoding="utf-8")
    assert load_lesson(tmp_path / "zh" / "lesson.toml").language == "zh"
    # one line differs, its comment kept; everything else is the shipped lesson
    changed = [(a, b) for a, b in zip(shipped.splitlines(), written.splitlines()) if a != b]
    assert len(written.splitlines()) == len(shipped.splitlines()) and len(changed) == 1
    assert changed[0][1].startswith('language = "zh"') and changed[0][1].endswith(changed[0][0].split("#", 1)[1])
    assert (tmp_path / "zh" / "manim.cfg").is_file()
    # without --lang, the lesson as shipped
    assert cli.main(["init", str(tmp_path / "as-shipped")]) == 0
    assert (tmp_path / "as-shipped" / "lesson.toml").read_text(encoding="utf-8") == shipped
    with pytest.raises(SystemExit) as err:
        cli.main(["init", str(tmp_path / "fr"), "--lang", "fr"])
    assert err.value.code == 2 and not (tmp_path / "fr").exists()
    capsys.readouterr()


def test_a_word_in_two_scenes_has_one_value_per_shared_trait(tmp_path):
    """apple's food, tech, red and round are the same numbers in
    [three_lenses] and [attention] (a token named like a lens word, in some
    language, on traits named alike); a lesson that differs is refused,
    naming both places; naming them apart unties them."""
    shipped = load_lesson(LESSON)
    a, lenses = shipped.params["attention"], shipped.params["three_lenses"]
    apple_lens = next(w for w in lenses.words if w.names.name("zh") == "苹果")
    apple_tok = a.tokens.index(next(t for t in a.tokens if t.name("zh") == "苹果"))
    shared = [(j, i) for j, t in enumerate(a.traits) for i, u in enumerate(lenses.traits)
              if t.name("en") == u.name("en")]
    assert {a.traits[j].name("en") for j, _ in shared} == {"food", "tech", "red", "round"}
    assert all(a.embeddings[apple_tok][j] == apple_lens.traits[i] for j, i in shared)

    rows = [list(r) for r in a.embeddings]
    j_tech = next(j for j, t in enumerate(a.traits) if t.name("en") == "tech")
    rows[apple_tok][j_tech] = apple_lens.traits[1] + Fraction(1, 5)
    text = "[attention]\nembeddings = [" + ", ".join(
        "[" + ", ".join(f'"{v}"' for v in r) + "]" for r in rows) + "]\n"
    path = tmp_path / "lesson.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LessonError) as err:
        load_lesson(path)
    message = str(err.value)
    assert message.startswith(f"{path}: attention.embeddings[{apple_tok}][{j_tech}]: expected ")
    assert "three_lenses.words[0].traits[1]" in message
    # a file that edits the lens word instead is told about the lens word
    path.write_text("[three_lenses]\nwords = [{ zh = \"苹果\", en = \"apple\", traits = [1, 0.9, 0.9, 0.9] }]\n",
                    encoding="utf-8")
    with pytest.raises(LessonError) as err:
        load_lesson(path)
    assert str(err.value).startswith(f"{path}: three_lenses.words[0].traits[1]: expected ")
    path.write_text(text, encoding="utf-8")
    # a token named apart from every lens word (in every language) is its own word
    tokens = ", ".join("{ " + ", ".join(f'{lang} = "{name}{"x" if k == apple_tok else ""}"'
                                         for lang, name in t.names) + " }" for k, t in enumerate(a.tokens))
    path.write_text(text + f"tokens = [{tokens}]\n", encoding="utf-8")
    assert load_lesson(path).params["attention"].embeddings[apple_tok][j_tech] == rows[apple_tok][j_tech]
