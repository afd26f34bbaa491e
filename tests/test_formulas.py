"""Formulas from a lesson folder are data: LaTeX sees them only as math from
an allow-list (checked when the text tables load), and every LaTeX run
qkv-lens starts (the handout's, and the scenes' ``MathTex`` through the
kit) is bounded in time and stopped with one line naming the formula."""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from qkv_lens import languages, latex
from qkv_lens.app import cli
from qkv_lens.app.scaffold import FORMULA as SCAFFOLD_FORMULA
from qkv_lens.languages import LanguageError, formula_fault, load_tables
from qkv_lens.lesson import LessonError
from qkv_lens.store import process_alive
from qkv_lens.texts import use_lesson_texts
from tests.helpers import ROOT, one_error_line


@pytest.fixture
def shipped_tables():
    """Put the shipped text tables back after a test that lays a teacher's over them."""
    yield
    languages.install(load_tables())


def lesson_folder(folder: Path, formula: str, key: str = "space_deformation") -> Path:
    """A teacher's lesson folder whose texts.toml gives ``key`` the key formula ``formula``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lesson.toml").write_text('language = "en"\n', encoding="utf-8")
    quoted = formula.replace("\\", "\\\\").replace('"', '\\"')
    (folder / "texts.toml").write_text(f'[formulas]\n{key} = "{quoted}"\n', encoding="utf-8")
    return folder


def test_every_shipped_formula_passes_the_allow_list():
    """Read from the tables (the handout's [formulas]) and the scaffold's, not a hand list."""
    formulas = load_tables().formulas
    assert len(formulas) >= 11
    for section, formula in [*formulas.items(), ("scaffold", SCAFFOLD_FORMULA)]:
        assert formula_fault(formula) is None, (section, formula, formula_fault(formula))


@pytest.mark.parametrize("formula, culprit", [
    (r"\input{/etc/hostname}", r"\input"),
    (r"\def\x{\x}\x", r"\def"),
    (r"x + \include{notes}", r"\include"),
    (r"\csname input\endcsname{/etc/hostname}", r"\csname"),
    (r"\catcode`\^=11", r"\catcode"),
    (r"\immediate\write18{ls}", r"\immediate"),
    (r"\openin1=/etc/hostname", r"\openin"),
    (r"\newcommand{\x}{\x}\x", r"\newcommand"),
    (r"\usepackage{verbatim}", r"\usepackage"),
    (r"\phantom{x}", r"\phantom"),
    (r"x^^5cinput{/etc/hostname}", "^^"),                   # TeX reads ^^5c as a backslash
    (r"\begin{document}x", r"\begin{document}"),
    (r"\begin{verbatim}x\end{verbatim}", r"\begin{verbatim}"),
    (r"\text{\input{/etc/hostname}}", r"\text"),            # \text holds plain text only
    (r"\text{a {b} c}", r"\text"),
    ("x $\\input{a}$", "$"),
    ("x % a comment", "%"),
    ("x # y", "#"),
    ("\\frac{a}{b}\nx", "U+000A"),                          # a control character
    ("x \\\x1b[2J", "U+001B"),                                # an escape after a backslash
    ("\u03b1 + 1", "U+03B1"),                               # LaTeX reads ASCII here: \alpha
    (r"\frac{a}{b", "{"),
    (r"\frac{a}}{b}", "}"),
    ("x" * 1001, "1000 characters"),
])
def test_a_formula_outside_the_allow_list_is_refused_naming_its_culprit(formula, culprit):
    fault = formula_fault(formula)
    assert fault is not None and culprit in fault, fault
    with pytest.raises(LanguageError) as err:
        load_tables(({"formulas": {"space_deformation": formula}}, "my/texts.toml"))
    message = str(err.value)
    assert "\n" not in message and message.startswith("my/texts.toml: formulas.space_deformation: "), message
    assert culprit in message


@pytest.mark.parametrize("formula", [
    r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
    r"\left[\begin{array}{cc} 1 & 0 \\ 0 & 1 \end{array}\right]",
    r"\text{loss} = \tfrac{1}{n} \sum_{i=1}^{n} \lVert y_i - \hat{y}_i \rVert^2",
    r"\operatorname{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}",
    r"\alpha, \beta \in \mathbb{R}, \quad \boldsymbol{x} \cdot \mathbf{w} \approx 0",
    r"f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}",
    r"x_{\{1\}} \% \ \& \,\;\:\! y",
])
def test_common_math_is_accepted(formula):
    assert formula_fault(formula) is None, formula_fault(formula)


def test_an_input_outside_the_lesson_is_refused_at_load_before_anything_renders(tmp_path, shipped_tables):
    outside = tmp_path / "elsewhere" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text("the secret of another user\n", encoding="utf-8")
    folder = lesson_folder(tmp_path / "lesson", rf"\input{{{outside}}}")
    with pytest.raises(LessonError) as err:
        use_lesson_texts(folder)
    assert "\n" not in str(err.value)
    assert str(err.value).startswith(f"{folder / 'texts.toml'}: formulas.space_deformation: ")
    assert r"\input" in str(err.value)


def test_export_pdf_with_a_formula_that_would_hang_is_one_line_exit_2(tmp_path, capsys, shipped_tables):
    folder = lesson_folder(tmp_path / "lesson", r"\def\x{\x}\x")
    out = tmp_path / "out"
    t0 = time.monotonic()
    status = cli.main(["export", "--pdf", "--lesson", str(folder / "lesson.toml"), "--out", str(out)])
    assert time.monotonic() - t0 < 10
    assert status == 2
    line = one_error_line(capsys.readouterr().err)
    assert "formulas.space_deformation" in line and r"\def" in line and str(folder / "texts.toml") in line
    assert not any(out.rglob("lesson.*")) if out.exists() else True


# -- LaTeX runs, bounded in time ----------------------------------------------------------

RUNAWAY = r"\boldsymbol{" * 9 + "x" + "}" * 9      # passes the allow-list; about 25 s of LaTeX at depth 8


def test_the_runaway_passes_the_allow_list():
    """The bound is needed: a formula made only of listed commands can still run away."""
    assert formula_fault(RUNAWAY) is None


@pytest.mark.parametrize("formula", [r"\def\x{\x}\x", RUNAWAY])
def test_a_hanging_formula_is_stopped_within_the_bound_naming_it(tmp_path, formula):
    from manim import tempconfig
    with tempconfig({"media_dir": str(tmp_path)}):
        t0 = time.monotonic()
        with pytest.raises(latex.LatexTimeout) as err:
            latex.typeset(formula, environment="align*", seconds=1.0)
        took = time.monotonic() - t0
    assert took < 5, took
    message = str(err.value)
    assert "\n" not in message and formula in message and "1 s" in message
    assert not list(tmp_path.rglob("*.dvi")) and not list(tmp_path.rglob("*.svg"))


def test_the_bounded_run_kills_its_whole_process_group(tmp_path):
    """A child the command started (a shell's sleep) goes with it."""
    marker = tmp_path / "pid"
    t0 = time.monotonic()
    with pytest.raises(latex.LatexTimeout):
        latex.run(["sh", "-c", f"sleep 30 & echo $! > {marker}; wait"], 1.0, "x")
    assert time.monotonic() - t0 < 5
    pid = int(marker.read_text())
    deadline = time.monotonic() + 5
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(pid)


def test_a_latex_error_is_one_line_naming_the_formula(tmp_path):
    from manim import tempconfig
    with tempconfig({"media_dir": str(tmp_path)}), pytest.raises(latex.LatexError) as err:
        latex.typeset(r"\frac{a}", environment="align*")
    assert "\n" not in str(err.value) and r"\frac{a}" in str(err.value)


def test_typeset_gives_the_svg_manims_own_typesetting_gives(tmp_path):
    """The bounded path writes the same file manim's ``tex_to_svg_file`` does
    (same hash of the same .tex source), so the typesetting cache is shared."""
    from manim import tempconfig
    from manim.utils.tex_file_writing import tex_to_svg_file
    with tempconfig({"media_dir": str(tmp_path / "a")}):
        ours = latex.typeset(r"y = x\,W", environment="align*")
        assert ours.is_file()
    with tempconfig({"media_dir": str(tmp_path / "b")}):
        theirs = tex_to_svg_file(r"y = x\,W", environment="align*")
    assert ours.name == theirs.name and ours.read_bytes() == theirs.read_bytes()


SCENE_WITH_A_RUNAWAY = f'''
import sys
sys.path.insert(0, {str(ROOT)!r})
import scenes.kit  # the kit bounds manim's typesetting
from qkv_lens import latex
latex.LATEX_SECONDS = 1.0
from manim import MathTex
MathTex(r"{RUNAWAY}")
'''


def test_a_scene_formula_that_runs_away_stops_the_scene_with_one_line(tmp_path):
    """Through the kit: manim's MathTex typesets with the bound, and the scene
    process ends with one error line naming the formula."""
    import subprocess
    script = tmp_path / "scene.py"
    script.write_text(SCENE_WITH_A_RUNAWAY, encoding="utf-8")
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert time.monotonic() - t0 < 30
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("qkv-lens: error: ")]
    assert len(errors) == 1 and RUNAWAY in errors[0] and "Traceback" not in proc.stderr, proc.stderr
    assert re.search(r"longer than 1 s", errors[0])


def test_export_pdf_stops_a_runaway_formula_in_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys,
                                                                          shipped_tables):
    """A formula that passes the allow-list but runs away: the handout's LaTeX
    run is stopped at the bound, the export is one line and leaves nothing."""
    from tests.test_export import NAMES, PICKED, leftovers, make_renders

    make_renders(tmp_path / "out")
    folder = lesson_folder(tmp_path / "lesson", RUNAWAY, PICKED[1].section)
    monkeypatch.setattr(latex, "LATEX_SECONDS", 1.0)
    t0 = time.monotonic()
    status = cli.main(["export", *NAMES, "--lesson", str(folder / "lesson.toml"), "--out", str(tmp_path / "out"),
                       "--pdf"])
    assert time.monotonic() - t0 < 30
    assert status == 1
    line = one_error_line(capsys.readouterr().err)
    assert f"formulas.{PICKED[1].section}" in line and "longer than 1 s" in line and RUNAWAY in line
    assert leftovers(tmp_path / "out") == []
