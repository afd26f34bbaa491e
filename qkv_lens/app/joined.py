"""What an export joined: ``lesson.export.json`` beside its files holds, for
each file an export wrote, the lesson's scenes (in order) and the render key
of every clip it joined.  The lesson page compares it with the manifest and
says when an export is older than the clips (a clip rendered again, a scene
added to the lesson or taken out).

The record is read back as untrusted input: a regular file inside the
render folder, of bounded size, a JSON object; anything else is no record,
and every export beside it counts as older than the clips.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qkv_lens.store import Unsafe, read_inside

NAME = "lesson.export.json"
MAX_BYTES = 256 << 10      # a few KiB: a few files, each with a key per scene


def entry(lesson: Sequence[str], keys: dict[str, str]) -> dict[str, Any]:
    """One file's record: the lesson's scenes and the key of each clip joined."""
    return {"lesson": list(lesson), "clips": dict(keys)}


def read(out_root: Path, rel: str) -> dict[str, Any]:
    """The record at ``out_root/rel``, by file name; {} when there is none
    or it is not one (a symlink out, too large, not a JSON object)."""
    try:
        doc = json.loads(read_inside(out_root, rel, MAX_BYTES, "export record"))
    except (OSError, Unsafe, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def fresh(found: Any, lesson: Sequence[str], keys: dict[str, str]) -> bool:
    """Whether a file's record ``found`` was made from the lesson's scenes
    as they are now (``lesson``) and from the clips' current renders
    (``keys``: scene -> the manifest's key of its render)."""
    if not isinstance(found, dict) or found.get("lesson") != list(lesson):
        return False
    clips = found.get("clips")
    return isinstance(clips, dict) and bool(clips) and all(
        isinstance(key, str) and keys.get(scene) == key for scene, key in clips.items())
