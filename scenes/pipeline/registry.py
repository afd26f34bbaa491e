"""The lesson's scenes in storyboard order: class name, module, lesson.toml section."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SCENES_DIR = Path(__file__).resolve().parents[1]


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
        return SCENES_DIR / f"{self.module}.py"


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


def find(name: str) -> SceneInfo:
    """The scene called ``name`` (class name, case-insensitive, or module name)."""
    for s in SCENES:
        if name.lower() in (s.name.lower(), s.module):
            return s
    import difflib
    close = difflib.get_close_matches(name, [s.name for s in SCENES], n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    raise KeyError(f'unknown scene "{name}"{hint}; `qkv-lens list` shows them all')
