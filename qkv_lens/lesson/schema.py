"""The lesson as frozen objects (what ``qkv_lens.lesson.load_lesson``
returns).  Numbers are exact Fractions; vectors are row vectors (y = x W).
The sections themselves are declared by the scenes (``keys``, ``declared``)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

LANGUAGES = ("zh", "en")
# The lesson's `voice`: none (silent clips), espeak (a draft voice) or recorded (qkv_lens.voice).
VOICES = ("none", "espeak", "recorded")


class Written(Fraction):
    """An exact number the lesson wrote as a fraction (``"1/2"``): scenes
    that write numbers out show it, and what is computed from it, as a
    fraction rather than as a decimal (0.5)."""

    __slots__ = ()
    as_fraction = True


def written_as_fraction(values: Any) -> bool:
    """Whether any number in ``values`` (nested tuples) was written as a fraction."""
    if isinstance(values, (tuple, list)):
        return any(written_as_fraction(v) for v in values)
    return isinstance(values, Written)


class LessonError(ValueError):
    """A lesson file that cannot be used; ``str(err)`` is the whole message."""


@dataclass(frozen=True)
class Named:
    """A thing with a Chinese and an English name (a token, a trait, a dimension)."""
    zh: str
    en: str

    def name(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class Chapter:
    """A heading of the lesson and the scenes under it (class names, in order)."""
    title: Named
    scenes: tuple[str, ...]


@dataclass(frozen=True)
class Lesson:
    """A validated lesson: its file, language and voice, and every section
    the scenes declare (``params``: by section name, each a frozen record of
    its keys; a scene reads its own as its declared ``Params`` class).
    ``sections`` keeps the merged raw tables, for cache keys."""
    path: Path
    language: str
    voice: str              # "none", "espeak" or "recorded" (qkv_lens.voice)
    params: dict[str, Any]
    sections: dict[str, Any]
    chapters: tuple[Chapter, ...] = ()   # the lesson's scenes, in order, under their headings

    @property
    def scene_names(self) -> tuple[str, ...]:
        """Every scene of the lesson (class names), in the order it is taught."""
        return tuple(name for chapter in self.chapters for name in chapter.scenes)
