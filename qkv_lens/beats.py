"""``<Scene>.beats.json``: a clip's beats as played, read back as untrusted input.

The file (written by ``scenes.kit.scene.LessonScene``) is
``{"scene", "language", "voice", "beats": [...]}``; each beat has an ``id``,
its text ``key``, ``start`` and ``end`` (seconds), the length of its
``voice`` and its ``cues`` (``start``, ``end``, ``text``).  ``parse`` checks
all of it before the page, an export or a script uses a beat: numbers
finite and in order inside the clip, texts of bounded length, counts
bounded.  A fault is a ``BeatsError`` naming the file.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from qkv_lens.store import Unsafe, read_inside, shown

MAX_BYTES = 4 << 20      # a long scene's beats are a few KiB
MAX_BEATS = 400
MAX_CUES = 64            # in one beat
MAX_TEXT = 4000          # characters of one cue
MAX_ID = 120
SLACK = 1.0              # seconds a beat may end after the clip (frames are whole)


class BeatsError(ValueError):
    """A beats file that cannot be used; ``str(err)`` is one line naming it."""


def _time(value: object, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("a time that is not a finite number")
    if not lo - 1e-6 <= value <= hi + 1e-6:
        raise ValueError(f"a time of {value:.3f} s outside {lo:.3f} to {hi:.3f} s")
    return float(value)


def _text(value: object, most: int) -> str:
    if not isinstance(value, str) or len(value) > most:
        raise ValueError(f"a text of at most {most} characters expected")
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def parse(data: bytes, where: str, duration: float | None = None) -> list[dict]:
    """The beats in ``data`` (the bytes of a beats file, named ``where`` in
    messages), each ``{"id", "key", "start", "end", "voice", "cues"}`` with
    cues ``{"start", "end", "text"}``; every time lies inside the clip
    (``duration`` seconds, when known), beats in order, each cue inside its
    beat.  BeatsError otherwise."""
    hi = (duration + SLACK) if duration is not None else 6 * 3600.0
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
        raw = doc.get("beats") if isinstance(doc, dict) else None
        if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_BEATS:
            raise ValueError(f"a list of 1 to {MAX_BEATS} beats expected")
        out, last = [], 0.0
        for i, b in enumerate(raw):
            if not isinstance(b, dict):
                raise ValueError(f"beat {i} is not a table")
            beat_id = _text(b.get("id"), MAX_ID)
            if not beat_id or not beat_id.isprintable():
                raise ValueError(f"beat {i}: a printable id expected")
            start = _time(b.get("start"), last, hi)
            end = _time(b.get("end"), start, hi)
            if not start < end:
                raise ValueError(f"beat {i} ends before it starts")
            cues = b.get("cues")
            if not isinstance(cues, list) or not 1 <= len(cues) <= MAX_CUES:
                raise ValueError(f"beat {i}: a list of 1 to {MAX_CUES} cues expected")
            shown_cues = []
            for c in cues:
                if not isinstance(c, dict):
                    raise ValueError(f"beat {i}: a cue that is not a table")
                a = _time(c.get("start"), start, end)
                shown_cues.append({"start": a, "end": _time(c.get("end"), a, end),
                                   "text": _text(c.get("text"), MAX_TEXT)})
            voice = b.get("voice", 0.0)
            out.append({"id": beat_id, "key": _text(b.get("key", ""), MAX_ID), "start": start, "end": end,
                        "voice": _time(voice, 0.0, hi), "cues": shown_cues})
            last = end
    except (ValueError, RecursionError, UnicodeDecodeError) as err:
        message = " ".join(str(err).split())[:200]
        raise BeatsError(f"{where}: damaged beats file ({message}); render it again") from None
    return out


def read(root: Path, name: str, duration: float | None = None) -> list[dict]:
    """The checked beats of the file ``name`` inside the folder ``root``
    (``qkv_lens.store.inside``: no path out of it); BeatsError otherwise."""
    where = shown(root / name)
    try:
        data = read_inside(root, name, MAX_BYTES, "beats file")
    except Unsafe as err:
        raise BeatsError(str(err)) from None
    except OSError as err:
        raise BeatsError(f"{where}: cannot read it ({err.strerror or err})") from None
    return parse(data, where, duration)
