"""Load and validate a lesson file into frozen, typed objects.

Every value is checked before anything renders.  A bad file raises
``LessonError`` whose one-line message names the file, the key path (such
as ``worked_example.W[1][2]``), what was expected and what was found (texts
escaped and cut short, so a value cannot spoof the terminal).  Numbers are
kept exact: ints and decimal texts become Fractions, and texts such as
``"1/2"`` are accepted too.  Keys left out take the values of the lesson
shipped with qkv-lens (``default_lesson()``, package data): no default is
spelled out in Python.

The sections are declared by the scenes that read them, key by key
(``keys``: the vocabulary; ``declared``: reading the declarations from the
scene modules without importing them).  The parts: ``schema`` (the
objects), ``bounds`` (how far each value may go), ``checks`` (the generic
checks and messages), ``files`` (reading files safely), ``sections``
(reading a lesson, and the rules that tie a section's keys together),
``picture`` and ``glyphs``.
"""
from __future__ import annotations

import os
from pathlib import Path

from .declared import DeclarationError, discover
from .files import default_lesson, default_lesson_path, defaults, named_files, read_toml
from .keys import Params
from .schema import VOICES, Chapter, Lesson, LessonError, Named, Written, written_as_fraction
from .sections import for_language, parse_lesson


def load_lesson(path: str | os.PathLike | None = None, language: str | None = None) -> Lesson:
    """Read and validate a lesson file (default: ``default_lesson_path()``).
    ``language`` (or QKV_LANG) overrides the file's own.  Raises LessonError
    with a one-line message."""
    path = Path(path) if path is not None else default_lesson_path()
    return parse_lesson(read_toml(path), path, language)


__all__ = [
    "VOICES", "Chapter", "DeclarationError", "Lesson", "LessonError", "Named", "Params", "Written",
    "default_lesson", "default_lesson_path", "defaults", "discover", "for_language", "load_lesson", "named_files",
    "parse_lesson",
    "read_toml", "written_as_fraction",
]
