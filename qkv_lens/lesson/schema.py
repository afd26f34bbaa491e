"""The lesson as frozen objects (what ``qkv_lens.lesson.load_lesson``
returns).  Numbers are exact Fractions; vectors are row vectors (y = x W).
The sections themselves are declared by the scenes (``keys``, ``declared``)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

# The languages are the columns of the text tables (qkv_lens.languages.offered()).
# The lesson's `voice`: none (silent clips), espeak (a draft voice) or recorded (qkv_lens.voice).
VOICES = ("none", "espeak", "recorded")

# The keys at the top of a lesson file, not in a section: what each accepts and what it is (the
# reference, ``qkv-lens keys``).  ``checkpoints`` and ``pass_score`` are read by the page and the
# exports only: no scene's cache key holds them, so changing them re-renders nothing.
TOP_KEYS = {
    "language": ("a language of the text tables (zh, en, es, ...)",
                 "the lesson's language; --lang or QKV_LANG override it"),
    "voice": (", ".join(f'"{v}"' for v in VOICES[:-1]) + f' or "{VOICES[-1]}"',
              "the narration's voice; --voice overrides it"),
    "checkpoints": ("true or false", "questions the page, the presenter and the exports ask before the beat "
                                     "that answers them (the scenes declare them); false: none"),
    "pass_score": ("a number from 0 to 1", "a course package (export --scorm): the share of checkpoints a "
                                           "learner must answer right to pass"),
}


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
    """A thing named in one or more languages (a token, a trait, a chapter's
    title): ``{zh = ..., en = ...}`` in the file, kept as (language, name)
    pairs in the file's order."""
    names: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, names: dict[str, str]) -> Named:
        return cls(tuple(names.items()))

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(lang for lang, _ in self.names)

    def name(self, lang: str) -> str:
        """The name in ``lang``; KeyError when it has none (the loader
        refuses a lesson whose names lack its language)."""
        for code, text in self.names:
            if code == lang:
                return text
        raise KeyError(f"no name in {lang!r} (only in {', '.join(self.languages)})")


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
    named: tuple[tuple[str, Named], ...] = ()   # every name of the file, by where it is (key path)
    checkpoints: bool = True    # the scenes' checkpoints asked (page, presenter, exports)
    pass_score: float = 0.8     # a course package: the share of checkpoints right to pass

    @property
    def scene_names(self) -> tuple[str, ...]:
        """Every scene of the lesson (class names), in the order it is taught."""
        return tuple(name for chapter in self.chapters for name in chapter.scenes)
