"""Cache keys: a render is redone only when its key changes.

The key of (scene, language, quality, format) hashes: the scene's own
module (a teacher's scene: its file beside the lesson, and every module of
its folder it imports, ``teacher_modules``), every ``.py`` file of ``scenes/kit`` and ``qkv_math``, the scene
side of ``qkv_lens`` (every module but this application, ``qkv_lens/app``:
the lesson loader, registry, languages, texts and cues, voice, training runs,
beats, store) and the manim settings it renders with (``manim.cfg``), the
scene's section of lesson.toml (after defaults) and
the contents of any file it names (a picture), its texts and the glossary in
that language and the language's row of the tables (after the teacher's
``texts.toml``, key by key: editing one scene's text re-renders that scene
only), the quality, the format, transparency and the manim version,
and with a voice (``qkv_lens.voice.voice_key``) the voice mode and the
espeak-ng version or the digest of the scene's recordings in that language.
The application (the command, render pipeline, page, exports: ``qkv_lens/app``)
is not part of it: editing it re-renders nothing.
"""
from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

from qkv_lens.languages import current
from qkv_lens.lesson import Lesson, named_files
from qkv_lens.registry import SceneInfo, package_dir, scenes_dir
from qkv_lens.store import Unsafe, read_regular
from qkv_lens.texts import GLOSSARY, section_texts

APP = "app"   # the folder of qkv_lens that runs scenes (never inside one): outside the key

# bump when the way renders are made changes (2: x264 preset veryfast; 3: beats say their sentence)
PIPELINE_VERSION = "3"


def _tree_digest(folder: Path, skip: str | None = None) -> str:
    """One digest of the .py files under ``folder`` (but those under its
    sub-folder ``skip``), with their relative paths."""
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder)
        if skip is not None and rel.parts[0] == skip:
            continue
        h.update(str(rel).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def code_digests(root: Path | None = None) -> dict[str, str]:
    """Digests of the shared code every scene depends on (computed once a
    run).  ``root``: a folder holding ``scenes``, ``qkv_math`` and
    ``qkv_lens`` (default: where they are installed)."""
    scenes = root / "scenes" if root else scenes_dir()
    math = root / "qkv_math" if root else package_dir("qkv_math")
    lens = root / "qkv_lens" if root else package_dir("qkv_lens")
    return {"kit": _tree_digest(scenes / "kit"), "qkv_math": _tree_digest(math),
            "qkv_lens": _tree_digest(lens, skip=APP),
            "manim.cfg": hashlib.sha256((lens / "manim.cfg").read_bytes()).hexdigest()}


def _named_files(lesson: Lesson, section: str) -> dict[str, str]:
    """Digests of the files the section names (a picture), so editing the
    file itself re-renders the scene."""
    return {name: hashlib.sha256(path.read_bytes()).hexdigest()
            for name, path in named_files(lesson.path.parent, lesson.sections, section).items()}


MODULE_BYTES = 1 << 20     # a teacher's module read for its imports (the loader refuses larger ones)


def _imported(path: Path) -> set[str]:
    """The top-level names of the modules ``path`` imports (``import a.b``,
    ``from a import b``: ``a``); nothing when it cannot be read or parsed
    (its render then fails and says why)."""
    try:
        tree = ast.parse(read_regular(path, MODULE_BYTES, "scene module"))
    except (OSError, Unsafe, SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


def teacher_modules(scene: SceneInfo) -> list[Path]:
    """A teacher's scene's own file and every module of its folder it
    imports, directly or through another (manim puts the folder first on
    ``sys.path``, so ``import style`` reads ``my_scenes/style.py``); a
    package's every ``.py`` file.  Sorted; [] for a shipped scene."""
    if scene.folder is None:
        return []
    folder, seen, todo = scene.folder, {scene.path}, [scene.path]
    while todo:
        for name in _imported(todo.pop()):
            package = folder / name
            found = [folder / f"{name}.py"] + (sorted(package.rglob("*.py")) if package.is_dir() else [])
            for path in found:
                if path.is_file() and path not in seen:
                    seen.add(path)
                    todo.append(path)
    return sorted(seen)


def manim_version() -> str:
    from importlib.metadata import version
    return version("manim")


def cache_key(scene: SceneInfo, lesson: Lesson, lang: str, quality: str, fmt: str = "mp4",
              transparent: bool = False, digests: dict[str, str] | None = None,
              manim: str | None = None, root: Path | None = None, voice: dict | None = None) -> str:
    """The hex key of one render (see the module docstring for its inputs)."""
    digests = digests or code_digests(root)
    module = root / "scenes" / f"{scene.module}.py" if root and not scene.teacher else scene.path
    parts = {
        "pipeline": PIPELINE_VERSION,
        "module": hashlib.sha256(module.read_bytes()).hexdigest(),
        **digests,
        "section": lesson.sections.get(scene.lesson_section),
        "files": _named_files(lesson, scene.lesson_section),
        "texts": section_texts(lang, scene.section),
        "glossary": {k: v[lang] for k, v in GLOSSARY.items()},
        "lang": lang,
        "language": current().rows.get(lang),   # its script, voice, fonts and line-break words
        "quality": quality,
        "format": fmt,
        "transparent": transparent,
        "manim": manim or manim_version(),
    }
    if scene.teacher:    # the modules of its folder it imports (my_scenes/style.py), by their names there
        parts["imports"] = {str(p.relative_to(scene.folder)): hashlib.sha256(p.read_bytes()).hexdigest()
                            for p in teacher_modules(scene) if p != scene.path}
    if voice:    # absent without a voice, so silent renders keep their keys
        parts["voice"] = voice
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]
