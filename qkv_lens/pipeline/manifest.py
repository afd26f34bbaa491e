"""renders/manifest.json: one entry per render, written atomically."""
from __future__ import annotations

import fcntl
import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

NAME = "manifest.json"


def entry_id(scene: str, lang: str, quality: str, fmt: str) -> str:
    return f"{scene}/{lang}/{quality}/{fmt}"


class ManifestError(Exception):
    """manifest.json exists but cannot be read or is damaged (one line)."""


FIELDS = {"scene": str, "language": str, "quality": str, "format": str, "files": list,
          "duration": (int, float)}


def load_checked(out_root: Path) -> dict[str, dict]:
    """The manifest's entries by id; a missing file is empty; an unreadable
    or damaged one raises ManifestError naming the file and the fault."""
    path = out_root / NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise ManifestError(f"{path}: cannot read it ({err.strerror})") from None
    except ValueError as err:  # not UTF-8, not JSON
        raise ManifestError(f"{path}: damaged, not JSON ({err})") from None
    renders = data.get("renders") if isinstance(data, dict) else None
    if not isinstance(renders, list):
        raise ManifestError(f'{path}: damaged, expected {{"renders": [...]}}')
    for i, e in enumerate(renders):
        bad = [k for k, kind in FIELDS.items() if not isinstance(e, dict) or not isinstance(e.get(k), kind)]
        if bad or not all(isinstance(f, str) for f in e["files"]):
            raise ManifestError(f"{path}: damaged, renders[{i}]: missing or wrong {', '.join(bad) or 'files'}")
    return {entry_id(e["scene"], e["language"], e["quality"], e["format"]): e for e in renders}


def load(out_root: Path) -> dict[str, dict]:
    """The manifest's entries by id; an unreadable, damaged or missing file is
    empty (a render then simply renders again and rewrites it)."""
    try:
        return load_checked(out_root)
    except ManifestError:
        return {}


def umask() -> int:
    """The process umask, read without changing it (Linux), else set and restored."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it.
    The file gets the mode any new file gets (0666 less the umask), not
    mkstemp's private 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        os.fchmod(fd, 0o666 & ~umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save(out_root: Path, entries: dict[str, dict]) -> None:
    ordered = sorted(entries.values(), key=lambda e: (e["language"], e["quality"], e.get("order", 0)))
    blob = json.dumps({"renders": ordered}, indent=2, ensure_ascii=False) + "\n"
    write_atomic(out_root / NAME, blob.encode("utf-8"))


@contextmanager
def _locked(out_root: Path):
    out_root.mkdir(parents=True, exist_ok=True)
    with open(out_root / ".manifest.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def record(out_root: Path, entry: dict) -> None:
    """Add or replace one entry.  Re-reads the file under a lock, so two
    qkv-lens processes writing into one renders/ never drop each other's."""
    with _locked(out_root):
        entries = load(out_root)
        entries[entry_id(entry["scene"], entry["language"], entry["quality"], entry["format"])] = entry
        save(out_root, entries)
