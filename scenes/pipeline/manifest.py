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


def load(out_root: Path) -> dict[str, dict]:
    """The manifest's entries by id; an unreadable or missing file is empty."""
    path = out_root / NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {entry_id(e["scene"], e["language"], e["quality"], e["format"]): e
                for e in data.get("renders", [])}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
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
