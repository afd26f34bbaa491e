"""Cache keys: a render is redone only when its key changes.

The key of (scene, language, quality, format) hashes: the scene's own
module, every ``.py`` file of ``scenes/kit`` and ``qkv_math``, the scene's
section of lesson.toml (after defaults) and the contents of any file it names
(a picture), its texts and the glossary in that language, the quality, the
format, transparency and the manim version.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from scenes.kit.lesson import Lesson
from scenes.kit.text import GLOSSARY, section_texts
from scenes.pipeline.registry import SCENES_DIR, SceneInfo

PIPELINE_VERSION = "1"  # bump when the way renders are made changes


def _tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        h.update(str(path.relative_to(folder)).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def code_digests(scenes_dir: Path = SCENES_DIR) -> dict[str, str]:
    """Digests of the shared code every scene depends on (computed once a run)."""
    return {"kit": _tree_digest(scenes_dir / "kit"),
            "qkv_math": _tree_digest(scenes_dir.parent / "qkv_math")}


def _named_files(lesson: Lesson, section) -> dict[str, str]:
    """Digests of files the section names (a picture), so editing the file
    itself re-renders the scene."""
    out = {}
    for value in (section or {}).values():
        if isinstance(value, str) and value:
            path = lesson.path.parent / value
            if path.is_file():
                out[value] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def manim_version() -> str:
    from importlib.metadata import version
    return version("manim")


def cache_key(scene: SceneInfo, lesson: Lesson, lang: str, quality: str, fmt: str = "mp4",
              transparent: bool = False, digests: dict[str, str] | None = None,
              manim: str | None = None, scenes_dir: Path = SCENES_DIR) -> str:
    """The hex key of one render (see the module docstring for its inputs)."""
    digests = digests or code_digests(scenes_dir)
    parts = {
        "pipeline": PIPELINE_VERSION,
        "module": hashlib.sha256((scenes_dir / f"{scene.module}.py").read_bytes()).hexdigest(),
        "kit": digests["kit"],
        "qkv_math": digests["qkv_math"],
        "section": lesson.sections.get(scene.lesson_section),
        "files": _named_files(lesson, lesson.sections.get(scene.lesson_section)),
        "texts": section_texts(lang, scene.section),
        "glossary": {k: v[lang] for k, v in GLOSSARY.items()},
        "lang": lang,
        "quality": quality,
        "format": fmt,
        "transparent": transparent,
        "manim": manim or manim_version(),
    }
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]
