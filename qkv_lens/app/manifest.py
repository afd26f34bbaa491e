"""renders/manifest.json: one entry per render, written atomically.

The manifest is read back as untrusted input (it may have been edited by
hand or copied from elsewhere): ``load_checked`` refuses, in one line naming
the file, anything qkv-lens would not have written: a number that is not
finite or out of range (NaN, Infinity, 1e300 as a duration), a name that is
not a plain identifier, a listed file that is absolute or climbs out with
``..``.  Whether a listed file stays inside the folder once symlinks are
followed is checked where it is read (``qkv_lens.store.inside``).
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

from qkv_lens.registry import QUALITIES
from qkv_lens.store import Unsafe, inside, locked, read_inside, regular_file, relative_name, shown, write_atomic

NAME = "manifest.json"
MAX_BYTES = 16 << 20          # a manifest of every scene in every language is a few tens of KiB
MAX_SECONDS = 6 * 3600.0      # the longest clip any entry may claim
MAX_PIXELS_SIDE = 16384
MAX_FILES = 16
MAX_LISTED = 64 << 30         # any file an entry lists (a long 2160p60 clip is a few GiB)
FORMATS = ("mp4", "webm", "gif", "mov")
_SCENE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_LANGUAGE = re.compile(r"[a-z]{2,3}")


def entry_id(scene: str, lang: str, quality: str, fmt: str) -> str:
    return f"{scene}/{lang}/{quality}/{fmt}"


class ManifestError(Exception):
    """manifest.json exists but cannot be read or is damaged (one line)."""


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def finite(value: object, lo: float, hi: float) -> bool:
    """``value`` is a real number (not a boolean) with lo <= value <= hi."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and lo <= value <= hi)


def entry_fault(e: object) -> str:
    """What is wrong with one manifest entry, or "" when it is one qkv-lens writes."""
    if not isinstance(e, dict):
        return "not a table"
    checks = (
        ("scene", isinstance(e.get("scene"), str) and _SCENE.fullmatch(e["scene"]) is not None,
         "a scene's class name"),
        ("language", isinstance(e.get("language"), str) and _LANGUAGE.fullmatch(e["language"]) is not None,
         "a language code"),
        ("quality", e.get("quality") in QUALITIES.values(), "one of " + ", ".join(QUALITIES.values())),
        ("format", e.get("format") in FORMATS, "one of " + ", ".join(FORMATS)),
        ("duration", finite(e.get("duration"), 1e-3, MAX_SECONDS), f"seconds from 0.001 to {MAX_SECONDS:g}"),
        ("files", isinstance(e.get("files"), list) and 1 <= len(e["files"]) <= MAX_FILES,
         f"a list of 1 to {MAX_FILES} files"),
    )
    for key, ok, want in checks:
        if not ok:
            return f"{key}: expected {want}"
    for key, lo, hi in (("width", 1, MAX_PIXELS_SIDE), ("height", 1, MAX_PIXELS_SIDE), ("order", 0, 10**6),
                        ("bytes", 0, 1 << 50), ("render_seconds", 0, 10**7),
                        ("pieces", 1, 1024)):
        if key in e and not finite(e[key], lo, hi):
            return f"{key}: expected a finite number from {lo} to {hi}"
    for key in ("key", "voice"):
        if key in e and not (isinstance(e[key], str) and e[key].isprintable() and len(e[key]) <= 128):
            return f"{key}: expected a short printable text"
    for f in e["files"]:
        try:
            relative_name(f, "file")
        except Unsafe as err:
            return str(err)
    return ""


def _read(out_root: Path) -> list:
    """The manifest's list of entries, not yet checked one by one."""
    path = out_root / NAME
    try:
        data = json.loads(read_inside(out_root, NAME, MAX_BYTES, "manifest").decode("utf-8"),
                          parse_constant=_no_constant)
    except FileNotFoundError:
        return []
    except Unsafe as err:
        raise ManifestError(str(err)) from None
    except OSError as err:
        raise ManifestError(f"{shown(path)}: cannot read it ({err.strerror})") from None
    except (ValueError, RecursionError) as err:  # not UTF-8, not JSON, NaN, a 5000-digit number
        raise ManifestError(f"{shown(path)}: damaged, not JSON ({' '.join(str(err).split())[:200]})") from None
    renders = data.get("renders") if isinstance(data, dict) else None
    if not isinstance(renders, list):
        raise ManifestError(f'{shown(path)}: damaged, expected {{"renders": [...]}}')
    return renders


def load_checked(out_root: Path) -> dict[str, dict]:
    """The manifest's entries by id; a missing file is empty; an unreadable
    or damaged one, or any entry qkv-lens would not write, raises
    ManifestError naming the file and the fault."""
    entries = {}
    for i, e in enumerate(_read(out_root)):
        fault = entry_fault(e)
        if fault:
            raise ManifestError(f"{shown(out_root / NAME)}: damaged, renders[{i}]: {fault}")
        entries[entry_id(e["scene"], e["language"], e["quality"], e["format"])] = e
    return entries


def load(out_root: Path) -> dict[str, dict]:
    """The manifest's good entries by id: a damaged entry is left out (and
    that scene simply renders again); an unreadable, damaged or missing file
    is empty."""
    try:
        renders = _read(out_root)
    except ManifestError:
        return {}
    return {entry_id(e["scene"], e["language"], e["quality"], e["format"]): e
            for e in renders if not entry_fault(e)}


def listed(out_root: Path, name: str, limit: int = MAX_LISTED) -> Path:
    """The real path of the file ``name`` an entry lists: inside ``out_root``
    once symlinks are followed (``qkv_lens.store.inside``) and a regular file
    of at most ``limit`` bytes.  Unsafe otherwise; FileNotFoundError when
    it is missing."""
    real = inside(out_root, name, "file")
    regular_file(real, limit)
    return real


def save(out_root: Path, entries: dict[str, dict]) -> None:
    ordered = sorted(entries.values(), key=lambda e: (e["language"], e["quality"], e.get("order", 0)))
    blob = json.dumps({"renders": ordered}, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    write_atomic(out_root / NAME, blob.encode("utf-8"))


def record(out_root: Path, entry: dict) -> None:
    """Add or replace one entry.  Re-reads the file under a lock (on the
    folder itself), so two qkv-lens processes writing into one renders/
    never drop each other's."""
    fault = entry_fault(entry)
    if fault:
        raise ValueError(f"not a manifest entry: {fault}")
    out_root.mkdir(parents=True, exist_ok=True)
    with locked(out_root):
        entries = load(out_root)
        entries[entry_id(entry["scene"], entry["language"], entry["quality"], entry["format"])] = entry
        save(out_root, entries)
