"""LaTeX runs, bounded in time.

manim typesets every ``MathTex`` and ``Tex`` with latex and dvisvgm
(``manim.utils.tex_file_writing``) and waits for them without a limit, so a
formula that loops (``\\def\\x{\\x}\\x``, or ``\\boldsymbol`` nested nine
deep, which the allow-list of ``qkv_lens.languages.formula_fault`` lets
through) would hold a render or an export forever.  ``typeset`` is manim's
``tex_to_svg_file`` (the same .tex source, so the same SVG name and the
same typesetting cache) with each run bounded by ``LATEX_SECONDS``: a run
that takes longer is killed with its whole process group and LatexTimeout
raised, one line naming the formula; a run that fails is LatexError, one
line naming the formula and LaTeX's first error.  ``bound_manim`` makes
manim's ``MathTex`` and ``Tex`` typeset through it (the kit calls it, so
every scene does); the handout calls ``typeset`` itself.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from qkv_lens.store import shown

LATEX_SECONDS = 30.0      # one latex or dvisvgm run; a formula takes about 0.15 s
_MARKS = re.compile(r"\\special\{dvisvgm:raw [^{}]*\}")    # manim's marks around each part of a MathTex


class LatexFailed(ValueError):
    """A formula LaTeX did not typeset (one line naming it)."""


class LatexTimeout(LatexFailed):
    """A LaTeX run took longer than its bound and was stopped."""


class LatexError(LatexFailed):
    """LaTeX stopped with an error."""


def run(command: list[str], seconds: float, formula: str) -> int:
    """Run ``command`` (latex or dvisvgm on ``formula``) in a process group
    of its own, without input; its exit status.  Past ``seconds`` (or on an
    interrupt) the whole group is killed; LatexTimeout names ``formula``."""
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise LatexTimeout(f"{Path(command[0]).name} ran longer than {seconds:g} s on the formula "
                           f"{_named(formula)} and was stopped") from None
    except BaseException:
        _kill(proc)
        raise


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def typeset(expression: str, environment: str | None = None, tex_template: Any = None,
            seconds: float | None = None) -> Path:
    """``expression`` typeset as manim's ``tex_to_svg_file`` does (its
    template, latex then dvisvgm, in its tex folder; an SVG already there is
    reused), each run bounded by ``seconds`` (default LATEX_SECONDS); the SVG.
    LatexTimeout or LatexError (one line) when it cannot."""
    from manim import config
    from manim.utils import tex_file_writing as tex

    limit = LATEX_SECONDS if seconds is None else seconds
    template = tex_template or config["tex_template"]
    tex_file = tex.generate_tex_file(expression, environment, template)
    svg = tex_file.with_suffix(".svg")
    if svg.exists():
        return svg
    out = tex_file.with_suffix(template.output_format)
    compilers = [template.tex_compiler] if isinstance(template.tex_compiler, str) else template.tex_compiler
    try:
        if not out.exists():
            for compiler in compilers:
                command = tex.make_tex_compilation_command(compiler, template.output_format, tex_file,
                                                           config.get_dir("tex_dir"))
                if run(command, limit, expression) != 0:
                    raise LatexError(f"{compiler} cannot typeset the formula {_named(expression)}: "
                                     f"{_first_error(tex_file.with_suffix('.log'))}")
        pdf = ["--pdf"] if template.output_format == ".pdf" else []
        run(["dvisvgm", *pdf, "--page=1", "--no-fonts", "--verbosity=0", f"--output={svg.as_posix()}",
             out.as_posix()], limit, expression)
    except BaseException:
        out.unlink(missing_ok=True)     # what a stopped run left half-written is never reused
        svg.unlink(missing_ok=True)
        raise
    if not svg.exists():
        raise LatexError(f"dvisvgm made no SVG of the formula {_named(expression)} (qkv-lens doctor checks it)")
    if not config["no_latex_cleanup"]:
        tex.delete_nonsvg_files()
    return svg


def _named(formula: str) -> str:
    """``formula`` for a message: without manim's marks, escaped when not printable."""
    return shown(_MARKS.sub("", formula).strip())


def _first_error(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "no log"
    found = next((line[2:].strip() for line in lines if line.startswith("! ")), "see its log")
    return shown(found)


def bound_manim() -> None:
    """Make manim's ``MathTex``/``Tex`` typeset through ``typeset``; a
    formula that fails or runs too long ends the process with one error
    line naming it (exit status 2).  Idempotent."""
    from manim.mobject.text import tex_mobject
    from manim.utils import tex_file_writing

    if getattr(tex_mobject.tex_to_svg_file, "bounded", False):
        return

    def bounded(expression: str, environment: str | None = None, tex_template: Any = None) -> Path:
        try:
            return typeset(expression, environment, tex_template)
        except LatexFailed as err:
            print(f"qkv-lens: error: {err}", file=sys.stderr, flush=True)
            raise SystemExit(2) from None

    bounded.bounded = True  # type: ignore[attr-defined]
    tex_mobject.tex_to_svg_file = bounded
    tex_file_writing.tex_to_svg_file = bounded
