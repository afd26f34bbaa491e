"""Files on disk: the cache folder, the one atomic write, and reading inside
a folder that may hold anything.

A render folder (``renders/``), the lesson's folder (its picture, its
recordings) and the cache are written by qkv-lens but may be edited by hand,
copied from elsewhere or hold planted symlinks, so every path read from them
goes through ``inside`` and every file written goes through ``write_atomic``
or ``temp_beside``:

- a temporary file has a random name, created exclusively (``mkstemp``:
  ``O_CREAT | O_EXCL``, which never follows a symlink), never a fixed name;
  its name carries the writer's pid (``.<name>.<pid>-<random>.part``), so a
  later run removes what a killed one left (``clean_parts``);
- a path read back is relative, has no ``..`` part and resolves (symlinks
  followed) inside its folder, and what it names is a regular file of
  bounded size (``read_inside``);
- a folder written into is created inside its root, never through a
  symlink that leads out (``folder_inside``);
- a path or name in a message is shown with ``shown`` (escaped when it
  holds a character a terminal acts on), and a whole line with ``escaped``,
  so a file name cannot spoof the terminal or forge a second line.

This module imports nothing of qkv-lens: every other module may use it.
"""
from __future__ import annotations

import fcntl
import os
import re
import stat
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

PART = ".part"
# .<name>.<pid>-<random>.part: a temporary file of process <pid>
_PART_NAME = re.compile(r"\..+\.(\d+)-[A-Za-z0-9_]+\.part")
LEGACY_PART_AGE = 3600.0   # seconds: a .part without a pid (older versions) is stale after this


class Unsafe(ValueError):
    """A path that leaves its folder, or a file that is not what it must be
    (not a regular file, too large); ``str(err)`` is one line naming it."""


# What a terminal acts on or a reader cannot see: controls (ESC, BEL, CSI
# U+009B, newlines), format characters (bidi overrides, zero-width marks),
# surrogates, line and paragraph separators.  Spaces (U+3000 too) are fine.
ACTING = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _acts(ch: str) -> bool:
    return not ch.isprintable() and unicodedata.category(ch) in ACTING


def shown(path: object) -> str:
    """``path`` (a path, a name, any text from outside) for a message: as it
    is, or quoted and escaped (repr) when it holds a character a terminal
    acts on (``ACTING``) anywhere in it."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    return repr(text) if not text.isprintable() and any(map(_acts, text)) else text


def escaped(text: str) -> str:
    """``text`` with each character a terminal acts on (``ACTING``, the
    newline too) written as in a Python literal (``\\x1b``, ``\\n``,
    ``\\u202e``), the rest as it is: one line that shows what it says."""
    if text.isprintable():
        return text
    return "".join(repr(ch)[1:-1] if _acts(ch) else ch for ch in text)


def cache_dir() -> Path:
    """Where qkv-lens keeps what it can make again: ``QKV_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/qkv-lens``, else ``~/.cache/qkv-lens``."""
    env = os.environ.get("QKV_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "qkv-lens"


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


def file_mode() -> int:
    """The mode a new file gets here: 0666 less the umask (not mkstemp's 0600)."""
    return 0o666 & ~umask()


# -- writing -------------------------------------------------------------------

def temp_beside(target: Path) -> Path:
    """A new, empty temporary file in ``target``'s folder, created exclusively
    under a random name that carries this process's pid, with the mode a new
    file gets.  The caller writes it and renames it over ``target`` (or
    removes it)."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.{os.getpid()}-", suffix=PART)
    try:
        os.fchmod(fd, file_mode())
    finally:
        os.close(fd)
    return Path(tmp)


def write_atomic(path: Path, data: bytes | Callable[[Path], None], sync: bool = True) -> None:
    """Write ``path`` whole or not at all: ``data`` (bytes, or a function
    that writes the temporary file it is given) goes to ``temp_beside(path)``,
    is flushed to disk (``sync``) and renamed over ``path``.  A symlink at
    ``path`` is replaced, never followed.  The folder is created if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_beside(path)
    try:
        if isinstance(data, bytes):
            fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                if sync:
                    f.flush()
                    os.fsync(f.fileno())
        else:
            data(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def process_alive(pid: int) -> bool:
    """``pid`` is a running process: not gone, and not a zombie (a killed
    process its parent has not reaped yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    except OverflowError:
        return False
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True       # no /proc (not Linux): a signal reached it, take it as running
    return text.rsplit(")", 1)[-1].split()[0] != "Z"


def clean_parts(root: Path, depth: int = 3) -> list[Path]:
    """Remove the temporary files a killed run left under ``root`` (down to
    ``depth`` folders, never through a symlink): those of a process that is
    gone, and those without a pid older than LEGACY_PART_AGE.  A live run's
    are kept.  Returns what was removed."""
    removed: list[Path] = []
    if depth < 0:
        return removed
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                removed += clean_parts(Path(entry.path), depth - 1)
                continue
            if not (entry.name.startswith(".") and entry.name.endswith(PART)):
                continue
            m = _PART_NAME.fullmatch(entry.name)
            if m:
                stale = int(m.group(1)) != os.getpid() and not process_alive(int(m.group(1)))
            else:
                stale = time.time() - entry.stat(follow_symlinks=False).st_mtime > LEGACY_PART_AGE
            if stale:
                os.unlink(entry.path)      # a symlink is removed, never followed
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """An exclusive lock held on ``folder`` itself (no lock file to plant a
    symlink at), so two qkv-lens processes take turns."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)   # releases the lock


# -- reading inside a folder -----------------------------------------------------

def relative_name(name: object, what: str = "path") -> str:
    """``name`` if it is a plain relative path (``a/b.png``): a text without
    NUL or control characters, not absolute, no empty, ``.`` or ``..`` part;
    Unsafe otherwise."""
    if not isinstance(name, str) or not name or len(name) > 1024:
        raise Unsafe(f"{what} {shown(name)}: expected a relative file name")
    if not name.isprintable() or "\\" in name:
        raise Unsafe(f"{what} {shown(name)}: expected a file name without control characters")
    if name.startswith("/"):
        raise Unsafe(f"{what} {shown(name)}: an absolute path; expected a path inside its folder")
    if any(part in ("", ".", "..") for part in name.split("/")):
        raise Unsafe(f"{what} {shown(name)}: expected a path inside its folder, without '.' or '..' parts")
    return name


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def inside(root: Path, name: str, what: str = "path") -> Path:
    """The real path of ``root/name`` (symlinks followed), which must lie
    inside ``root``'s real path; Unsafe when ``name`` is absolute, climbs
    out with ``..``, or leads out through a symlink."""
    relative_name(name, what)
    base = os.path.realpath(root)
    try:
        real = os.path.realpath(os.path.join(base, name), strict=False)
    except (OSError, ValueError, RuntimeError):
        raise Unsafe(f"{shown(Path(root) / name)}: cannot resolve it (a symlink loop?)") from None
    if not _within(real, base):
        raise Unsafe(f"{shown(Path(root) / name)}: leads outside {shown(root)} (a symlink to "
                     f"{shown(real)}); refused")
    return Path(real)


def regular_file(path: Path, limit: int, what: str = "file") -> int:
    """The size of ``path``, which must be a regular file (not a FIFO, a
    device or a folder) of at most ``limit`` bytes; Unsafe otherwise,
    FileNotFoundError when it is missing."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise Unsafe(f"{shown(path)}: expected a {what} (a regular file), found something else")
    if st.st_size > limit:
        raise Unsafe(f"{shown(path)}: expected a {what} of at most {_size(limit)}, found {_size(st.st_size)}")
    return st.st_size


def read_inside(root: Path, name: str, limit: int, what: str = "file") -> bytes:
    """The bytes of ``root/name`` (``inside``): a regular file of at most
    ``limit`` bytes, read without following a symlink swapped in after the
    check; Unsafe or OSError otherwise."""
    real = inside(root, name, what)
    return read_regular(real, limit, what)


def read_regular(path: Path, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file ``path`` of at most ``limit`` bytes,
    checked before opening (a FIFO is never opened) and on the open file."""
    regular_file(path, limit, what)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            raise Unsafe(f"{shown(path)}: changed while it was read; refused")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise Unsafe(f"{shown(path)}: expected a {what} of at most {_size(limit)}, found more")
    return data


def folder_inside(root: Path, name: str) -> Path:
    """``root/name`` as a folder (created where missing) that lies inside
    ``root``: an existing part that is a symlink must resolve inside
    ``root``, and nothing is created through one that leads out."""
    relative_name(name, "folder")
    base = os.path.realpath(root)
    current = Path(root)
    for part in name.split("/"):
        current = current / part
        try:
            current.mkdir()     # made here; not checked first, as a job beside this one may make it too
            continue
        except FileExistsError:
            pass                # there already (a folder, a file or a symlink, even a dangling one)
        real = os.path.realpath(current)
        if not _within(real, base):
            raise Unsafe(f"{shown(current)}: leads outside {shown(root)} (a symlink to {shown(real)}); "
                         "refused")
        if not os.path.isdir(real):
            raise Unsafe(f"{shown(current)}: expected a folder, found a file")
    return current


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.3g} {unit}"
    return f"{n} bytes"
