"""The lesson's scenes in storyboard order: class name, module, lesson.toml
section.  This is the one declaration: ``LessonScene`` reads its text prefix
and lesson section from here by its class name, and the cache hashes the same
section.  The scene modules are found where the ``scenes`` package is
installed (a checkout or site-packages), without importing them."""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path


@cache
def package_dir(name: str) -> Path:
    """The folder of the installed package ``name`` (found, not imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {name} package of qkv-lens is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def scenes_dir() -> Path:
    """The folder of the installed ``scenes`` package (not imported)."""
    return package_dir("scenes")


@dataclass(frozen=True)
class SceneInfo:
    name: str        # the Scene class
    module: str      # module file name under scenes/ (without .py)
    section: str     # its lesson.toml section and text-table prefix
    chapter: int
    number: int      # its place in STORYBOARD.md
    params: str = ""  # lesson.toml section, when not ``section`` (scenes may share one)

    @property
    def lesson_section(self) -> str:
        return self.params or self.section

    @property
    def path(self) -> Path:
        return scenes_dir() / f"{self.module}.py"


SCENES: tuple[SceneInfo, ...] = (
    SceneInfo("SpaceDeformation", "space_deformation", "space_deformation", 1, 1),
    SceneInfo("ThreeLenses", "three_lenses", "three_lenses", 1, 2),
    SceneInfo("PhotoFilter", "photo_filter", "photo_filter", 1, 3),
    SceneInfo("ShadowProjection", "shadow_projection", "shadow_projection", 1, 4),
    SceneInfo("UpProjection", "up_projection", "up_projection", 1, 5),
    SceneInfo("WorkedExample", "worked_example", "worked_example", 1, 6),
    SceneInfo("QKVProjection", "qkv_projection", "qkv_projection", 2, 7, params="attention"),
    SceneInfo("AttentionMatching", "attention_matching", "attention_matching", 2, 8, params="attention"),
    SceneInfo("DotProductSoftmax", "dot_product_softmax", "dot_product_softmax", 2, 9),
    SceneInfo("RolesEmerge", "roles_emerge", "roles_emerge", 2, 10, params="training"),
    SceneInfo("RoleSwap", "role_swap", "role_swap", 2, 11, params="training"),
)

QUALITIES = {  # -q letter -> manim's folder name
    "l": "480p15",
    "m": "720p30",
    "h": "1080p60",
    "k": "2160p60",
}


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
