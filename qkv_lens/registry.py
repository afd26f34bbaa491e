"""The lesson's scenes in storyboard order: class name, module, text prefix
and lesson.toml section, chapter and number.  Each scene declares them in its
own module (its class's ``chapter``, ``number`` and ``params``); they are read
from the source where the ``scenes`` package is installed (a checkout or
site-packages), without importing it (``qkv_lens.lesson.declared``).
``LessonScene`` finds its entry by its class name, so the cache key and the
scene always read the same section.

A teacher's own scenes live in ``scenes/`` beside their lesson file
(``qkv_lens.lesson.declared.teacher_folder``); the functions that take a
``lesson_dir`` see them after the shipped ones (``scenes_for``)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from qkv_lens.lesson.declared import discover, discover_lesson, package_dir
from qkv_lens.store import shown


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
    folder: Path | None = None   # a teacher's scene: its folder (None: shipped, in scenes_dir())
    splits: bool = True   # its renders may be cut into pieces: a shipped scene (its tests compare the frames),
                          # a teacher's scene only when it declares ``splits = True``

    @property
    def lesson_section(self) -> str:
        return self.params or self.section

    @property
    def path(self) -> Path:
        return (self.folder or scenes_dir()) / f"{self.module}.py"

    @property
    def teacher(self) -> bool:
        """Whether the scene is the teacher's (beside the lesson), not shipped."""
        return self.folder is not None


SCENES: tuple[SceneInfo, ...] = tuple(
    SceneInfo(d.name, d.path.stem, d.path.stem, d.chapter, d.number, params=discover().section_of[d.name])
    for d in discover().scenes)


QUALITIES = {  # -q letter -> manim's folder name
    "l": "480p15",
    "m": "720p30",
    "h": "1080p60",
    "k": "2160p60",
}


def frame_rate(folder: str) -> int:
    """Frames a second of a quality's folder name (``480p15`` -> 15)."""
    return int(folder.rpartition("p")[2])


def scenes_for(lesson_dir: Path | None = None) -> tuple[SceneInfo, ...]:
    """The shipped scenes, then the teacher's of the lesson in ``lesson_dir``
    (None: the shipped ones only).  DeclarationError (one line) for a
    teacher's scene whose name a shipped scene has."""
    if lesson_dir is None:
        return SCENES
    found = discover_lesson(lesson_dir)
    shipped = {s.name for s in SCENES}
    return SCENES + tuple(
        SceneInfo(d.name, d.path.stem, d.path.stem, d.chapter, d.number, params=found.section_of[d.name],
                  folder=d.path.parent, splits=d.splits)
        for d in found.scenes if d.name not in shipped)


def in_lesson(lesson) -> list[SceneInfo]:
    """The scenes ``lesson`` (a ``qkv_lens.lesson.Lesson``) lists, in its order."""
    return [by_class(name, lesson.path.parent) for name in lesson.scene_names]


def by_class(name: str, lesson_dir: Path | None = None) -> SceneInfo:
    """The scene whose class is called ``name`` (exactly)."""
    for s in scenes_for(lesson_dir):
        if s.name == name:
            return s
    raise KeyError(f"{shown(name)} is not a scene of the lesson (qkv_lens.registry.SCENES)")


def find(name: str, lesson_dir: Path | None = None) -> SceneInfo:
    """The scene called ``name`` (class name, case-insensitive, or module name)."""
    every = scenes_for(lesson_dir)
    for s in every:
        if name.lower() in (s.name.lower(), s.module):
            return s
    import difflib
    close = difflib.get_close_matches(name, [s.name for s in every], n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    raise KeyError(f'unknown scene "{shown(name)}"{hint}; `qkv-lens list` shows them all')
