"""``qkv-lens doctor``: the system pieces a render needs, each checked the
way qkv-lens uses it, with the Debian/Ubuntu line that installs it.

The needed pieces stop every render (LaTeX with ``standalone``, dvisvgm);
the others serve one feature (fonts for each language of the text
tables, which the loader also checks when a language is asked for; espeak-ng
and a voice of each language for ``--voice espeak``; Chromium for the lesson
page's browser tests).  The languages are those of the lesson's text tables:
``cmd_doctor`` puts the lesson's ``texts.toml`` in use first, so a
colleague's ``[languages]`` row is checked like a shipped one.  ``render``,
``preview``, ``watch`` and ``script`` call ``first_missing`` before they
start, so a machine without LaTeX gets one line pointing here rather than a
traceback from a manim child.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from qkv_lens.languages import FontMissing, LanguageError, check_fonts, language, offered
from qkv_lens.store import shown
from qkv_lens.voice import ESPEAK

APT = "sudo apt-get install --no-install-recommends"


@dataclass(frozen=True)
class Piece:
    """One system piece: its name, what uses it, whether every render needs
    it, the check (None when fine, else what is wrong) and its Debian package
    (empty when no package mends it: the problem says what does)."""
    name: str
    used_for: str
    needed: bool
    check: Callable[[], str | None]
    package: str

    @property
    def install(self) -> str:
        return f"{APT} {self.package}"


def _program(name: str) -> Callable[[], str | None]:
    def check() -> str | None:
        return None if shutil.which(name) else f"`{name}` is not on PATH"
    return check


def _standalone() -> str | None:
    """LaTeX's ``standalone`` class, which manim's Tex template loads."""
    if not shutil.which("kpsewhich"):
        return "`kpsewhich` is not on PATH (no TeX installation)"
    try:
        found = subprocess.run(["kpsewhich", "standalone.cls"], capture_output=True, text=True,
                               timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as err:
        return f"kpsewhich failed ({err})"
    return None if found else "LaTeX cannot find standalone.cls"


def _fonts() -> str | None:
    """Each language of the text tables in use (the lesson's own rows too)
    has a font that draws every character of its texts (``languages.check_fonts``)."""
    problems = []
    for code in offered():
        try:
            check_fonts(code)
        except (FontMissing, LanguageError) as err:
            problems.append(f"{code}: {err}")
    return "; ".join(problems) or None


def _voices() -> str | None:
    """espeak-ng speaks each language of the text tables in use with its
    row's ``voice`` (``espeak-ng -v VOICE``, as ``--voice espeak`` runs it)."""
    if not shutil.which(ESPEAK):
        return f"not checked: `{ESPEAK}` is not on PATH"
    problems = []
    for code in offered():
        try:
            name, voice = language(code).name, language(code).voice
        except LanguageError as err:
            problems.append(f"{code}: {err}")
            continue
        try:
            ok = subprocess.run([ESPEAK, "-q", "-v", voice, "x"], capture_output=True, timeout=30).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if not ok:
            problems.append(f"{code}: {ESPEAK} has no voice {shown(voice)} for {shown(name)} ({ESPEAK} --voices "
                            "lists them)")
    return "; ".join(problems) or None


def _chromium() -> str | None:
    if os.access("/usr/bin/chromium", os.X_OK) or shutil.which("chromium"):
        return None
    return "no `chromium` (looked in /usr/bin and on PATH)"


PIECES: tuple[Piece, ...] = (
    Piece("LaTeX (latex)", "every formula", True, _program("latex"), "texlive-latex-base"),
    Piece("LaTeX class standalone", "every formula", True, _standalone, "texlive-latex-extra"),
    Piece("dvisvgm", "every formula (LaTeX to SVG)", True, _program("dvisvgm"), "dvisvgm"),
    Piece("fonts", "the lesson's languages (each checked by fontconfig)", False, _fonts, "fonts-noto-cjk"),
    Piece("espeak-ng", "the draft voice, --voice espeak", False, _program(ESPEAK), "espeak-ng"),
    Piece("espeak-ng voices", "the draft voice of each of the lesson's languages", False, _voices, ""),
    Piece("Chromium", "the lesson page's browser tests", False, _chromium, "chromium chromium-driver"),
)


def examine(pieces: tuple[Piece, ...] = PIECES) -> list[tuple[Piece, str | None]]:
    """Each piece with what is wrong with it (None when it is fine)."""
    return [(piece, piece.check()) for piece in pieces]


def report(found: list[tuple[Piece, str | None]]) -> tuple[str, int]:
    """The doctor's text and its exit status: 1 when a piece every render
    needs is missing, else 0."""
    lines = []
    for piece, problem in found:
        kind = "needed" if piece.needed else "optional"
        if problem is None:
            lines.append(f"ok       {piece.name}: {piece.used_for}")
        else:
            lines.append(f"MISSING  {piece.name}: {problem} ({kind} for {piece.used_for})")
            if piece.package:
                lines.append(f"         install: {piece.install}")
    missing = [p for p, problem in found if problem is not None]
    bad = [p for p in missing if p.needed]
    if bad:
        lines.append(f"{len(bad)} piece(s) every render needs are missing; install them, "
                     "then run qkv-lens doctor again")
    elif missing:
        lines.append("ready to render; the optional pieces above serve only what they name")
    else:
        lines.append("ready: everything qkv-lens uses is installed")
    return "\n".join(lines) + "\n", 1 if bad else 0


def first_missing() -> str | None:
    """One line naming the first piece every render needs that is missing,
    with its install line, or None when a render can start."""
    for piece in PIECES:
        if piece.needed:
            problem = piece.check()
            if problem is not None:
                return (f"{piece.name} is missing ({problem}), and {piece.used_for} needs it: "
                        f"{piece.install} (qkv-lens doctor checks everything)")
    return None
