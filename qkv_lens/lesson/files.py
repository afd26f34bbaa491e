"""Reading a lesson's files safely: regular files only (a FIFO is never
opened), sizes capped, a byte-order mark accepted, TOML parsed in bounded
time; and where the lesson is found."""
from __future__ import annotations

import os
import re
import stat
import sys
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from qkv_lens.store import Unsafe, inside

from .bounds import _LONG_KEY, MAX_KEY_PARTS, MAX_LESSON_BYTES
from .checks import _one_line, _show_path
from .schema import LessonError

LESSON_NAME = "lesson.toml"
# The keys whose value names a file in the lesson's folder, by section.
FILE_KEYS = {"photo_filter": ("image",)}


def default_lesson() -> Path:
    """The lesson shipped with qkv-lens (package data): the defaults of every
    key, and what ``qkv-lens init`` writes."""
    return Path(str(resources.files("qkv_lens").joinpath(LESSON_NAME)))


def default_lesson_path() -> Path:
    """QKV_LESSON if set, else ./lesson.toml if present, else the shipped one."""
    env = os.environ.get("QKV_LESSON")
    if env:
        return Path(env)
    here = Path.cwd() / LESSON_NAME
    return here if here.exists() else default_lesson()


_FILE_TYPES = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a pipe (FIFO)"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISSOCK, "a socket"))


def _read_regular(path: Path, limit: int, what: str, fail) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most
    ``limit`` bytes.  Checked with stat before opening (a FIFO is never
    opened) and again on the open descriptor (the name may have changed).
    ``fail(message)`` builds the LessonError; FileNotFoundError passes."""
    def check(st):
        if not stat.S_ISREG(st.st_mode):
            kind = next((k for test, k in _FILE_TYPES if test(st.st_mode)), "not a regular file")
            raise fail(f"expected {what} (a regular file), found {kind}")
        if st.st_size > limit:
            raise fail(f"expected {what} of at most {limit >> 20} MiB, found {st.st_size} bytes")

    check(os.stat(path))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as f:
        check(os.fstat(fd))
        data = f.read(limit + 1)
    if len(data) > limit:
        raise fail(f"expected {what} of at most {limit >> 20} MiB, found more")
    return data


def read_toml(path: Path, what: str = "lesson file") -> dict[str, Any]:
    """The table in the TOML file ``path`` (a regular file of at most
    MAX_LESSON_BYTES, UTF-8 with or without a byte-order mark); ``what``
    it is, for messages.  Raises LessonError with a one-line message."""
    shown = _show_path(path)
    try:
        data = _read_regular(path, MAX_LESSON_BYTES, f"a {what}", lambda message: LessonError(f"{shown}: {message}"))
    except LessonError:
        raise
    except FileNotFoundError:
        link = " (a symlink to a missing file)" if os.path.islink(path) else ""
        raise LessonError(f"{shown}: {what} not found{link}") from None
    except (OSError, ValueError) as err:   # ValueError: a NUL in the name
        message = getattr(err, "strerror", None) or _one_line(err)
        raise LessonError(f"{shown}: cannot read the {what} ({message})") from None
    try:
        text = data.decode("utf-8-sig")      # a byte-order mark at the start is fine
    except UnicodeDecodeError:
        raise LessonError(f"{shown}: the {what} is not UTF-8 text") from None
    long_key = _LONG_KEY.search(text)
    if long_key:
        line = text.count("\n", 0, long_key.start()) + 1
        raise LessonError(f"{shown}: TOML syntax error: a dotted key of more than {MAX_KEY_PARTS} "
                          f"parts (at line {line})")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise LessonError(f"{shown}: TOML syntax error: {_one_line(err)}{_fraction_hint(text, err)}") from None
    except RecursionError:
        raise LessonError(f"{shown}: TOML syntax error: lists or tables nested too deeply") from None
    except Exception as err:  # noqa: BLE001 - e.g. int() on an integer of thousands of digits
        raise LessonError(f"{shown}: TOML syntax error: {_one_line(err)}") from None


_AT_LINE = re.compile(r"\(at line (\d+), column \d+\)")
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|#.*')
_FRACTION = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?\s*/\s*\d+(?![\w.])")


def _fraction_hint(text: str, err: Exception) -> str:
    """For a syntax error on a line with an unquoted fraction (``x = [1/2, 3]``:
    TOML has no fractions, tomllib says "Unclosed array"), how to write it."""
    at = _AT_LINE.search(str(err))
    lines = text.splitlines()
    if at is None or not 1 <= int(at.group(1)) <= len(lines):
        return ""
    found = _FRACTION.search(_STRING_OR_COMMENT.sub("", lines[int(at.group(1)) - 1]))
    if found is None:
        return ""
    fraction = re.sub(r"\s+", "", found.group())
    return f'; a fraction is text in a lesson file: quote it: "{fraction}"'


_DEFAULTS: dict[str, Any] | None = None


def defaults() -> dict[str, Any]:
    """Every key's default: the shipped lesson, read once (a fresh copy each call)."""
    global _DEFAULTS
    if _DEFAULTS is None:
        _DEFAULTS = read_toml(default_lesson())
    import copy
    return copy.deepcopy(_DEFAULTS)


def named_files(lesson_dir: Path, sections: dict[str, Any], section: str | None = None) -> dict[str, Path]:
    """The files the lesson's ``sections`` name (``FILE_KEYS``; only
    ``section``'s when given), by the name written in the lesson, each as
    its real path inside ``lesson_dir`` (a name that leads out, or names no
    file, is left out: the loader refuses it)."""
    out = {}
    for name, keys in FILE_KEYS.items():
        table = sections.get(name)
        if (section is not None and name != section) or not isinstance(table, dict):
            continue
        for key in keys:
            value = table.get(key)
            if not isinstance(value, str) or not value:
                continue
            try:
                real = inside(lesson_dir, value)
            except Unsafe:
                continue
            if real.is_file():
                out[value] = real
    return out
