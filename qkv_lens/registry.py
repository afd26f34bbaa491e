"""The lesson's scenes in storyboard order: class name, module, text prefix
and lesson.toml section, chapter and number.  Each scene declares them in its
own module (its class's ``chapter``, ``number`` and ``params``); they are read
from the source where the ``scenes`` package is installed (a checkout or
site-packages), without importing it (``qkv_lens.lesson.declared``).
``LessonScene`` finds its entry by its class name, so the cache key and the
scene always read the same section."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from qkv_lens.lesson.declared import discover, package_dir


def scenes_dir() -> Path:
    """The folder of the installed ``scenes`` package (not imported)."""
    return package_dir("scenes")


@dataclass(frozen=True)
class SceneInfo:
    name: str        # the Scene class
    module: str      # module file name under scenes/ (without .py)
    section: str     # its text-table prefix (its module's name)
    chapter: int
    number: int      # its place in STORYBOARD.md
    params: str = ""  # lesson.toml section, when not ``section`` (scenes may share one)

    @property
    def lesson_section(self) -> str:
        return self.params or self.section

    @property
    def path(self) -> Path:
        return scenes_dir() / f"{self.module}.py"


SCENES: tuple[SceneInfo, ...] = tuple(
    SceneInfo(d.name, d.path.stem, d.path.stem, d.chapter, d.number, params=discover().section_of[d.name])
    for d in discover().scenes)


QUALITIES = {  # -q letter -> manim's folder name
    "l": "480p15",
    "m": "720p30",
    "h": "1080p60",
    "k": "2160p60",
}


def in_lesson(lesson) -> list[SceneInfo]:
    """The scenes ``lesson`` (a ``qkv_lens.lesson.Lesson``) lists, in its order."""
    return [by_class(name) for name in lesson.scene_names]


def by_class(name: str) -> SceneInfo:
    """The scene whose class is called ``name`` (exactly)."""
    for s in SCENES:
        if s.name == name:
            return s
    raise KeyError(f"{name} is not a scene of the lesson (qkv_lens.registry.SCENES)")


def find(name: str) -> SceneInfo:
    """The scene called ``name`` (class name, case-insensitive, or module name)."""
    for s in SCENES:
        if name.lower() in (s.name.lower(), s.module):
            return s
    import difflib
    close = difflib.get_close_matches(name, [s.name for s in SCENES], n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    raise KeyError(f'unknown scene "{name}"{hint}; `qkv-lens list` shows them all')
