"""Load and validate ``lesson.toml`` into frozen, typed objects.

Every value is checked before anything renders.  A bad file raises
``LessonError`` whose one-line message names the file, the key path (such
as ``worked_example.W[1][2]``), what was expected and what was found (texts
escaped and cut short, so a value cannot spoof the terminal).
Numbers are kept exact: ints and decimal texts become Fractions
(``0.5`` -> 1/2), and strings such as ``"1/2"`` are accepted too.

Every accepted lesson renders in bounded time and memory: each number has a
kind with a range (``KINDS``), each list and name a length, the costly
products (samples x d_k, steps x batch) a cap, and the files a type (regular)
and a size; see the bounds block below ``Lesson``.  Checking itself takes
bounded time whatever the text: numbers are matched by a short pattern
before they are converted.
"""
from __future__ import annotations

import datetime
import difflib
import functools
import math
import os
import re
import stat
import sys
import unicodedata
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

LANGUAGES = ("zh", "en")
PROJECT_ROOT = Path(__file__).resolve().parents[2]

# The lesson's defaults (the article's numbers).  The shipped lesson.toml
# spells every one of them out; a key left out of a user's file takes these.
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    "space_deformation": {
        "words": [
            {"zh": "苹果", "en": "apple", "at": [2, 1]},
            {"zh": "香蕉", "en": "banana", "at": [1, 2]},
            {"zh": "红色", "en": "red", "at": [2.5, -1]},
            {"zh": "圆形", "en": "round", "at": [0.5, -2]},
            {"zh": "手机", "en": "phone", "at": [-2, 1.5]},
            {"zh": "电脑", "en": "computer", "at": [-2.5, -1]},
        ],
        "rotation_degrees": 60,
        "stretch": [1.5, 0.5],
        "shear": 1,
        "flatten_onto": [1, 1],
        "svd_matrix": [[1, 1], [-0.5, 1.5]],
    },
    "worked_example": {
        "x": [3, 4],
        "W": [[1, 0, 2], [0, 1, -1]],
    },
    "attention": {
        "tokens": [{"zh": "我", "en": "I"}, {"zh": "想", "en": "want"},
                   {"zh": "吃", "en": "to eat"}, {"zh": "苹果", "en": "apples"}],
        "traits": [{"zh": "水果", "en": "fruit"}, {"zh": "科技", "en": "tech"},
                   {"zh": "红色", "en": "red"}, {"zh": "圆形", "en": "round"},
                   {"zh": "甜", "en": "sweet"}, {"zh": "人", "en": "person"},
                   {"zh": "意愿", "en": "wish"}, {"zh": "进食", "en": "eating"}],
        "embeddings": [[0, 0, 0, 0, 0, 1, 0, 0],
                       [0, 0, 0, 0, 0, 0.3, 1, 0],
                       [0, 0, 0, 0, 0, 0, 0.4, 1],
                       [1, 0.8, 0.7, 0.8, 0.6, 0, 0, 0]],
        "qk_dims": [{"zh": "食物", "en": "food"}, {"zh": "主语", "en": "subject"},
                    {"zh": "科技", "en": "tech"}],
        "v_dims": [{"zh": "甜味", "en": "sweetness"}, {"zh": "品牌", "en": "brand"},
                   {"zh": "人物", "en": "person"}],
        "W_Q": [[0, 0, 0], [0, 0, 0.5], [0, 0, 0], [0, 0, 0],
                [0, 0, 0], [0, 0, 0], [0, 1.5, 0], [2, 0, 0]],
        "W_K": [[2, 0, 0], [0, 0, 1.5], [0, 0, 0], [0, 0, 0],
                [0.5, 0, 0], [0, 2, 0], [0, 0, 0], [0, 0, 0]],
        "W_V": [[0.5, 0, 0], [0, 1.5, 0], [0.2, 0, 0], [0, 0, 0],
                [1.5, 0, 0], [0, 0, 1.5], [0, 0, 0], [0, 0, 0]],
        "focus": 3,
        "query": 2,
        "causal_mask": False,
        "temperature": 1,
    },
    "three_lenses": {
        "traits": [{"zh": "食物", "en": "food"}, {"zh": "科技", "en": "tech"},
                   {"zh": "红色", "en": "red"}, {"zh": "圆形", "en": "round"}],
        "words": [
            {"zh": "苹果", "en": "apple", "traits": [1, 0.6, 0.9, 0.9]},
            {"zh": "香蕉", "en": "banana", "traits": [1, 0, 0, 0.1]},
            {"zh": "番茄", "en": "tomato", "traits": [0.8, 0, 1, 1]},
            {"zh": "手机", "en": "phone", "traits": [0, 1, 0.2, 0]},
            {"zh": "电脑", "en": "computer", "traits": [0, 0.9, 0, 0]},
            {"zh": "消防车", "en": "fire truck", "traits": [0, 0.5, 1, 0.2]},
        ],
        "lenses": [
            {"keep": {"zh": "食物与科技", "en": "food vs tech"},
             "drop": {"zh": "颜色、形状", "en": "colour, shape"},
             "axes": [{"zh": "食物", "en": "food"}, {"zh": "科技", "en": "tech"}],
             "matrix": [[1, 0], [0, 1], [0, 0], [0, 0]]},
            {"keep": {"zh": "颜色与形状", "en": "colour and shape"},
             "drop": {"zh": "能不能吃、科技", "en": "food, tech"},
             "axes": [{"zh": "红色", "en": "red"}, {"zh": "圆形", "en": "round"}],
             "matrix": [[0, 0], [0, 0], [1, 0], [0, 1]]},
            {"keep": {"zh": "只看圆不圆", "en": "roundness only"},
             "drop": {"zh": "其他一切", "en": "everything else"},
             "axes": [{"zh": "圆形", "en": "round"}, {"zh": "（压扁）", "en": "(flat)"}],
             "matrix": [[0, 0], [0, 0], [0, 0], [1, 0]]},
        ],
    },
    "shadow_projection": {
        "cube_center": [2.5, 0.5, 0.6],
        "cube_size": 1.2,
        "light": [-1, 0.35, -0.45],
        "light_end": [-1, 0.45, -0.1],
        "wall_turn_degrees": 30,
        "lamp": [6, 1.5, 2.2],
        "ray_step": 1.4,
    },
    "up_projection": {
        "point": [3, 4],
        "W": [[1, 0, 2], [0, 1, -1]],
        "contrast_rotation_degrees": 30,
        "contrast_stretch": [1.5, 0.75],
    },
    "photo_filter": {
        "image": "",
        "size": [24, 32],
        "pixel": [14, 11],
        "tint_strength": 0.2,
        "darken_factor": 0.6,
        "downsample": 4,
        "query_filter": [[1, 0, 0], [0, 0.4, 0], [0, 0, 0.4]],
        "key_filter": [[0.3, 0.3, 0.3], [0.3, 0.3, 0.3], [0.3, 0.3, 0.3]],
        "value_filter": [[0.2, 0, 0.9], [0, 1, 0], [0.9, 0, 0.2]],
    },
    "dot_product_softmax": {
        "vector_a": [2, 0.5],
        "vector_b_length": 1.5,
        "scores": [2, 1, 0.5, -1],
        "temperatures": [0.5, 1, 2],
        "d_k": [4, 64],
        "samples": 2000,
        "seed": 7,
        "bins": 25,
        "saturation_tokens": 8,
    },
    "training": {
        "jobs": [{"zh": "程序员", "en": "coder"}, {"zh": "厨师", "en": "chef"},
                 {"zh": "医生", "en": "doctor"}, {"zh": "教师", "en": "teacher"},
                 {"zh": "画家", "en": "painter"}, {"zh": "农民", "en": "farmer"},
                 {"zh": "歌手", "en": "singer"}, {"zh": "飞行员", "en": "pilot"}],
        "people": 4,
        "seed": 7,
        "steps": 800,
        "learning_rate": 0.05,
        "batch": 16,
        "heldout": 64,
        "snapshots": 14,
    },
}


class LessonError(ValueError):
    """A lesson file that cannot be used; ``str(err)`` is the whole message."""


@dataclass(frozen=True)
class Word:
    """A labelled point of the plane: its names and position [x, y]."""
    zh: str
    en: str
    at: tuple[Fraction, Fraction]

    def name(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class SpaceDeformationParams:
    words: tuple[Word, ...]
    rotation_degrees: Fraction
    stretch: tuple[Fraction, Fraction]
    shear: Fraction
    flatten_onto: tuple[Fraction, Fraction]
    svd_matrix: tuple[tuple[Fraction, ...], ...]


@dataclass(frozen=True)
class WorkedExampleParams:
    x: tuple[Fraction, ...]
    W: tuple[tuple[Fraction, ...], ...]


@dataclass(frozen=True)
class Named:
    """A thing with a Chinese and an English name (a token, a trait, a dimension)."""
    zh: str
    en: str

    def name(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class AttentionParams:
    """The sentence as embeddings X (n_tokens x n_traits, row vectors) and
    W_Q, W_K (n_traits x d_k), W_V (n_traits x d_v); ``focus`` is the token
    QKVProjection shows, ``query`` the row AttentionMatching follows."""
    tokens: tuple[Named, ...]
    traits: tuple[Named, ...]
    embeddings: tuple[tuple[Fraction, ...], ...]
    qk_dims: tuple[Named, ...]
    v_dims: tuple[Named, ...]
    W_Q: tuple[tuple[Fraction, ...], ...]
    W_K: tuple[tuple[Fraction, ...], ...]
    W_V: tuple[tuple[Fraction, ...], ...]
    focus: int
    query: int
    causal_mask: bool
    temperature: Fraction

    def arrays(self):
        """X (n_tokens, n_traits), W_Q, W_K, W_V as float arrays."""
        import numpy as np
        return tuple(np.array(m, dtype=float) for m in (self.embeddings, self.W_Q, self.W_K, self.W_V))


@dataclass(frozen=True)
class Lens:
    """A 2-D view of the word cloud: what it keeps and drops, the names of
    its two output axes, and its matrix (n_traits x 2, row vectors)."""
    keep: Named
    drop: Named
    axes: tuple[Named, Named]
    matrix: tuple[tuple[Fraction, ...], ...]


@dataclass(frozen=True)
class ThreeLensesParams:
    traits: tuple[Named, ...]
    words: tuple[tuple[Named, tuple[Fraction, ...]], ...]
    lenses: tuple[Lens, ...]


@dataclass(frozen=True)
class ShadowParams:
    """A cube (centre, edge) in front of the wall n . x = 0 (n starts as
    [1, 0, 0] and turns about z by ``wall_turn_degrees``); parallel light
    along ``light`` tilting to ``light_end``; a point lamp at ``lamp``;
    ``ray_step``: how far up a light ray the second point sits."""
    cube_center: tuple[Fraction, Fraction, Fraction]
    cube_size: Fraction
    light: tuple[Fraction, Fraction, Fraction]
    light_end: tuple[Fraction, Fraction, Fraction]
    wall_turn_degrees: Fraction
    lamp: tuple[Fraction, Fraction, Fraction]
    ray_step: Fraction


@dataclass(frozen=True)
class UpProjectionParams:
    """point (2,) carried by W (2, 3) into 3-D; the contrast map is
    rotation(deg) @ stretch(sx, sy), a 2x2 same-dimension map."""
    point: tuple[Fraction, Fraction]
    W: tuple[tuple[Fraction, ...], ...]
    contrast_rotation_degrees: Fraction
    contrast_stretch: tuple[Fraction, Fraction]


@dataclass(frozen=True)
class PhotoFilterParams:
    """``picture``: the (h, w, 3) image in [0, 1] (generated, or the file
    named by ``image`` resized to ``size``); filters are (3, 3) matrices in
    the row convention, a pixel [r, g, b] @ M."""
    image: str
    size: tuple[int, int]
    pixel: tuple[int, int]
    tint_strength: Fraction
    darken_factor: Fraction
    downsample: int
    query_filter: tuple[tuple[Fraction, ...], ...]
    key_filter: tuple[tuple[Fraction, ...], ...]
    value_filter: tuple[tuple[Fraction, ...], ...]
    picture: Any = None


@dataclass(frozen=True)
class DotProductParams:
    vector_a: tuple[Fraction, Fraction]
    vector_b_length: Fraction
    scores: tuple[Fraction, ...]
    temperatures: tuple[Fraction, ...]
    d_k: tuple[int, ...]
    samples: int
    seed: int
    bins: int
    saturation_tokens: int


@dataclass(frozen=True)
class TrainingParams:
    """The matchmaking task and its training (scenes 10 and 11): ``jobs``
    names the professions (n_jobs), ``people`` per party; the rest are the
    arguments of ``qkv_math.train_matching``."""
    jobs: tuple[Named, ...]
    people: int
    seed: int
    steps: int
    learning_rate: Fraction
    batch: int
    heldout: int
    snapshots: int

    def run_args(self) -> dict:
        """Keyword arguments of ``qkv_math.train_matching`` (all but formula)."""
        return {"seed": self.seed, "steps": self.steps, "n_people": self.people,
                "n_jobs": len(self.jobs), "batch": self.batch,
                "learning_rate": float(self.learning_rate), "heldout": self.heldout,
                "snapshots": self.snapshots}


@dataclass(frozen=True)
class Lesson:
    path: Path
    language: str
    space_deformation: SpaceDeformationParams
    worked_example: WorkedExampleParams
    attention: AttentionParams
    three_lenses: ThreeLensesParams
    shadow_projection: ShadowParams
    up_projection: UpProjectionParams
    photo_filter: PhotoFilterParams
    dot_product_softmax: DotProductParams
    training: TrainingParams
    sections: dict  # the merged raw sections, for cache keys


# --- bounds ---------------------------------------------------------------
# Every number of a lesson has a KIND; a kind is the range a scene can draw
# (or compute) in bounded time and memory, with room to spare around the
# shipped values.  (lo, hi, lo_open): lo_open means "> lo" rather than ">= lo".
KINDS: dict[str, tuple[int, int, bool]] = {
    # a point on SpaceDeformation's plane, UpProjection's x: the grid shows about +-5 cells
    "plane": (-5, 5, False),
    # stretch and shear factors, entries of the 2x2 and 2x3 maps of the plane: the
    # deformed grid stays within 4 times its size
    "plane_map": (-4, 4, False),
    # only the direction counts (flatten_onto, the light): non-zero is checked apart
    "direction": (-100, 100, False),
    "angle": (-360, 360, False),                 # degrees
    # the worked example writes each number out (exactly) and scales its glasses
    "entry": (-100, 100, False),
    # attention embeddings and W_*, three_lenses traits and lens matrices: drawn as
    # bars at about one scene unit per 1.0 (q = x W sums up to 12 such products)
    "weight": (-4, 4, False),
    "colour": (-4, 4, False),                    # photo colour filters act on [0, 1] pixels
    "tint": (-1, 1, False),                      # warm tint: diag(1 + s, 1, 1 - s)
    "darken": (0, 4, True),
    "arrow": (-3, 3, False),                     # dot_product_softmax.vector_a on its +-3 plane
    "arrow_length": (0, 3, True),
    "score": (-10, 10, False),                   # shown as bars of exp(score)
    "temperature": (0, 100, True),
    "space": (-10, 10, False),                   # cube centre and lamp, 3-D scene units
    "cube_size": (0, 3, True),
    "ray_step": (0, 5, True),
    "learning_rate": (0, 1, True),
}
# A number is a text of at most MAX_NUMBER_TEXT characters: an optional sign,
# digits with an optional decimal point, an optional exponent of at most two
# digits, or p/q; and its exact value needs a denominator of at most
# MAX_DENOMINATOR (6 decimal places, or a fraction such as 1/7): finer values
# are not drawable and make exact arithmetic (the worked example) unreadable.
MAX_NUMBER_TEXT = 24
MAX_DENOMINATOR = 10**6
_NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?|[+-]?[0-9]+/[0-9]+")

# tomllib takes time and memory quadratic in the parts of one dotted key
# (x.x.x... of 32000 parts: 26 s, 4 GB), so longer chains are refused first by
# a scan that stays linear whatever the text: the alternatives of a part never
# overlap, and a part starts only after a character that cannot precede one
# (so no stretch of the text is scanned from many starts).  Any text with more
# than MAX_KEY_PARTS dotted parts is refused, even in a comment or a string,
# where no accepted value could hold it.
MAX_KEY_PARTS = 16
_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_LONG_KEY = re.compile(
    rf"(?<![-A-Za-z0-9_\\])(?:{_KEY_PART}[ \t]*\.[ \t]*){{{MAX_KEY_PARTS},}}")

# Names are drawn as labels of about 0.3 to 0.5 scene units per character on a
# 14.2 x 8 frame: at most NAME_WIDTH columns (a Chinese character takes 2).
NAME_WIDTH = 24
MAX_TEXT = 256            # any text at all (the picture's file name, ...)
# Unicode categories refused in every text: control (newlines, tabs, escapes),
# format (bidi overrides, zero-width marks), surrogates, line/paragraph separators.
_BAD_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}

# How many of each list a scene lays out.
MAX_TOKENS = 6           # the attention grids are laid out (and tested) up to this size
MAX_TRAITS = 12          # QKVProjection's bars shrink their rows down to this many
MAX_DIMS = 4             # each of attention.qk_dims and attention.v_dims
MAX_WORDS = 8            # space_deformation.words, three_lenses.words
MAX_LENS_TRAITS = 8      # three_lenses.traits (one line of names)
MAX_ENTRIES = 6          # worked_example: entries of x and columns of W
MAX_PEOPLE = 6           # rows of the RolesEmerge table
MIN_PEOPLE = 3           # with 2 guests each has one candidate: nothing to learn
MAX_JOBS = 12
# Products that cost time or memory (defaults: 2000 x 68 and 800 x 16).
MAX_SAMPLED = 2_000_000  # dot_product_softmax.samples x sum(d_k): 2 arrays of that many floats
MAX_PARTIES = 64_000     # training.steps x training.batch: about 4 s per formula
# Files.
MAX_LESSON_BYTES = 1 << 20
MAX_PICTURE_BYTES = 50 << 20
MAX_PICTURE_PIXELS = 40_000_000


class _Plain(str):
    """What was found, already in plain words (not a user value to escape)."""


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _item_noun(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "text", list: "list", dict: "table"}.get(type(value), "item")


def _show(value: Any) -> str:
    """A found value for a one-line message: texts quoted with every
    non-printable character escaped and cut to 40 characters, numbers as
    written, anything else in plain words."""
    if isinstance(value, _Plain):
        return str(value)
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        if abs(value) >= 10**40:
            return f"a whole number of about {int(value.bit_length() * 0.30103) + 1} digits"
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        if len(value) > 40:
            return f"{value[:40]!r}… ({len(value)} characters)"
        return repr(value)
    if isinstance(value, list):
        if not value:
            return "an empty list"
        nouns = {_item_noun(v) for v in value}
        return "a list of " + _plural(len(value), nouns.pop() if len(nouns) == 1 else "item")
    if isinstance(value, dict):
        return "a table"
    if value is None:
        return "nothing"
    if isinstance(value, (datetime.date, datetime.time)):
        return "a date or time"
    return f"a {type(value).__name__}"


def _show_key(key: Any) -> str:
    """A key of the file as part of a key path (escaped if it needs to be)."""
    key = str(key)
    return key if key.isprintable() and len(key) <= 40 else _show(key)


def _key_path(keys: tuple) -> str:
    """("attention", "tokens", 0, "en") -> attention.tokens[0].en"""
    out = ""
    for key in keys:
        out += f"[{key}]" if isinstance(key, int) else (f".{_show_key(key)}" if out else _show_key(key))
    return out


def _show_path(path: Any) -> str:
    text = str(path)
    return text if text.isprintable() else repr(text)


def _name_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class _Checker:
    def __init__(self, path: Path):
        self.path = path
        self.file = _show_path(path)

    def error(self, where: str, message: str) -> LessonError:
        loc = f"{where}: " if where else ""
        return LessonError(f"{self.file}: {loc}{message}")

    def fail(self, where: str, expected: str, found: Any) -> LessonError:
        return self.error(where, f"expected {expected}, found {_show(found)}")

    def texts(self, raw: Any) -> None:
        """One pass over every text of the file, keys included: no control
        characters, no text longer than MAX_TEXT.  Iterative, so any nesting
        is fine; key paths are spelled out only for the message."""
        stack = [(raw, ())]
        while stack:
            node, path = stack.pop()
            if isinstance(node, dict):
                for key in node:
                    if isinstance(key, str) and not _clean(key):
                        raise self.error(_key_path(path + (key,)), "unknown key (it holds control characters)")
                items = node.items()
            else:
                items = enumerate(node)
            for key, value in items:
                if isinstance(value, str):
                    if len(value) > MAX_TEXT or not _clean(value):
                        self._bad_text(_key_path(path + (key,)), value)
                elif isinstance(value, (dict, list)):
                    stack.append((value, path + (key,)))

    def _bad_text(self, where: str, value: str) -> None:
        if len(value) > MAX_TEXT:
            raise self.fail(where, f"a text of at most {MAX_TEXT} characters", value)
        raise self.fail(where, "a text without control characters (line breaks, tabs, escapes, "
                        "direction marks)", value)

    def keys(self, table: Any, where: str, allowed: list[str], required: bool = False) -> dict:
        if not isinstance(table, dict):
            raise self.fail(where, "a table", table)
        for key in table:
            if key not in allowed:
                close = difflib.get_close_matches(str(key)[:40], allowed, n=1, cutoff=0.5)
                hint = f' (did you mean "{close[0]}"?)' if close else ""
                name = f"{where}.{_show_key(key)}" if where else _show_key(key)
                raise self.error(name, f'unknown key{hint}; expected one of: {", ".join(allowed)}')
        if required:
            for key in allowed:
                if key not in table:
                    raise self.error(where, f'missing key "{key}"')
        return table

    def number(self, value: Any, where: str, kind: str) -> Fraction:
        lo, hi, lo_open = KINDS[kind]
        bounds = f"> {lo} and at most {hi}" if lo_open else f"from {lo} to {hi}"
        malformed = f'a finite number {bounds} (like 3, -0.5 or "1/2")'
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self.fail(where, malformed, value)
        v = value
        if isinstance(value, str):
            text = value.strip()       # matched before Fraction sees it: bounded time
            if len(text) > MAX_NUMBER_TEXT or not _NUMBER_TEXT.fullmatch(text):
                raise self.fail(where, malformed, value)
            try:
                v = Fraction(text)
            except ZeroDivisionError:
                raise self.fail(where, malformed, value) from None
        elif isinstance(value, float) and not math.isfinite(value):
            raise self.fail(where, malformed, value)
        if v > hi or v < lo or (lo_open and v == lo):
            raise self.fail(where, f"a number {bounds}", value)
        if isinstance(v, int):
            return Fraction(v)
        if isinstance(v, float):
            v = Fraction(repr(v))      # 0.1 -> 1/10, as written
        if v.denominator > MAX_DENOMINATOR:
            raise self.fail(where, "a number with at most 6 decimal places (or a fraction "
                            f"with a denominator up to {MAX_DENOMINATOR})", value)
        return v

    def vector(self, value: Any, where: str, kind: str, n: int | None = None,
               most: int | None = None, least: int = 1) -> tuple[Fraction, ...]:
        want = _plural(n, "number") if n else f"{least} to {most} numbers"
        if not isinstance(value, list) or (len(value) != n if n else not least <= len(value) <= most):
            raise self.fail(where, f"a list of {want}", value)
        return tuple(self.number(v, f"{where}[{i}]", kind) for i, v in enumerate(value))

    def nonzero(self, vec: tuple[Fraction, ...], where: str) -> tuple[Fraction, ...]:
        if all(v == 0 for v in vec):
            raise self.fail(where, "a non-zero direction", _Plain("[" + ", ".join("0" for _ in vec) + "]"))
        return vec

    def matrix(self, value: Any, where: str, kind: str, rows: int, cols: int | None = None,
               most_cols: int = MAX_ENTRIES, why: str = "") -> tuple[tuple[Fraction, ...], ...]:
        want = f"a {rows}x{cols or 'm'} matrix (a list of rows){why}"
        if not isinstance(value, list) or not value:
            raise self.fail(where, want, value)
        if len(value) != rows:
            raise self.fail(where, f"{_plural(rows, 'row')}{why}", _Plain(_plural(len(value), "row")))
        width = cols
        if width is None:
            first = value[0]
            if not isinstance(first, list) or not 1 <= len(first) <= most_cols:
                raise self.fail(f"{where}[0]", f"a row of 1 to {most_cols} numbers{why}",
                                _Plain("an empty row") if first == [] else first)
            width = len(first)
        out = []
        for i, row in enumerate(value):
            if not isinstance(row, list) or len(row) != width:
                raise self.fail(f"{where}[{i}]", f"a row of {_plural(width, 'number')}{why}",
                                _Plain("an empty row") if row == [] else row)
            out.append(self.vector(row, f"{where}[{i}]", kind, width))
        return tuple(out)

    def name(self, value: Any, where: str) -> Named:
        self.keys(value, where, ["zh", "en"], required=True)
        return Named(self.text(value["zh"], f"{where}.zh"), self.text(value["en"], f"{where}.en"))

    def names(self, value: Any, where: str, most: int, least: int = 1) -> tuple[Named, ...]:
        want = ("a non-empty" if least == 1 else f"a {least} or more long") + \
            f" list of {{zh = ..., en = ...}} names (at most {most})"
        if not isinstance(value, list) or not least <= len(value) <= most:
            raise self.fail(where, want, value)
        return tuple(self.name(item, f"{where}[{i}]") for i, item in enumerate(value))

    def index(self, value: Any, where: str, n: int, of: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
            raise self.fail(where, f"a token index from 0 to {n - 1} (into {of})", value)
        return value

    def integer(self, value: Any, where: str, lo: int, hi: int, why: str = "") -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise self.fail(where, f"a whole number from {lo} to {hi}{why}", value)
        return value

    def boolean(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, "true or false", value)
        return value

    def text(self, value: Any, where: str) -> str:
        """A name shown on screen: a non-blank text of at most NAME_WIDTH columns."""
        if not isinstance(value, str) or not value.strip() or _name_width(value) > NAME_WIDTH:
            raise self.fail(where, f"a name of 1 to {NAME_WIDTH} letters (a Chinese character "
                            "counts as 2)", value)
        return value


def _clean(text: str) -> bool:
    if text.isprintable():    # the fast path: no Cc, Cf, Cs, Zl, Zp (nor other spaces) at all
        return True
    return not any(unicodedata.category(ch) in _BAD_CATEGORIES for ch in text)


def default_lesson_path() -> Path:
    """QKV_LESSON if set, else ./lesson.toml if present, else the project's."""
    env = os.environ.get("QKV_LESSON")
    if env:
        return Path(env)
    here = Path.cwd() / "lesson.toml"
    return here if here.exists() else PROJECT_ROOT / "lesson.toml"


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


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if text.isprintable() else repr(text)


def load_lesson(path: str | os.PathLike | None = None, language: str | None = None) -> Lesson:
    """Read and validate a lesson file.  ``language`` (or QKV_LANG) overrides
    the file's own.  Raises LessonError with a one-line message."""
    path = Path(path) if path is not None else default_lesson_path()
    shown = _show_path(path)
    try:
        data = _read_regular(path, MAX_LESSON_BYTES, "a lesson file",
                             lambda message: LessonError(f"{shown}: {message}"))
    except LessonError:
        raise
    except FileNotFoundError:
        raise LessonError(f"{shown}: lesson file not found") from None
    except (OSError, ValueError) as err:   # ValueError: a NUL in the name
        message = getattr(err, "strerror", None) or _one_line(err)
        raise LessonError(f"{shown}: cannot read the lesson file ({message})") from None
    try:
        text = data.decode("utf-8-sig")      # a byte-order mark at the start is fine
    except UnicodeDecodeError:
        raise LessonError(f"{shown}: the lesson file is not UTF-8 text") from None
    long_key = _LONG_KEY.search(text)
    if long_key:
        line = text.count("\n", 0, long_key.start()) + 1
        raise LessonError(f"{shown}: TOML syntax error: a dotted key of more than {MAX_KEY_PARTS} "
                          f"parts (at line {line})")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise LessonError(f"{shown}: TOML syntax error: {_one_line(err)}") from None
    except RecursionError:
        raise LessonError(f"{shown}: TOML syntax error: lists or tables nested too deeply") from None
    except Exception as err:  # noqa: BLE001 - e.g. int() on an integer of thousands of digits
        raise LessonError(f"{shown}: TOML syntax error: {_one_line(err)}") from None
    return parse_lesson(raw, path, language)


def parse_lesson(raw: dict, path: Path, language: str | None = None) -> Lesson:
    c = _Checker(path)
    if not isinstance(raw, dict):
        raise c.fail("", "a table of sections", raw)
    c.texts(raw)
    c.keys(raw, "", list(DEFAULTS))
    merged = {}
    for name, default in DEFAULTS.items():
        if isinstance(default, dict):
            merged[name] = {**default, **c.keys(raw.get(name, {}), name, list(default))}
        else:
            merged[name] = raw.get(name, default)

    override = language or os.environ.get("QKV_LANG")
    lang = override or merged["language"]
    where = "language (--lang / QKV_LANG)" if override else "language"
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise c.fail(where, f'one of {", ".join(map(repr, LANGUAGES))}', lang)

    return Lesson(path=path, language=lang,
                  space_deformation=_space_deformation(c, merged["space_deformation"]),
                  worked_example=_worked_example(c, merged["worked_example"]),
                  attention=_attention(c, merged["attention"]),
                  three_lenses=_three_lenses(c, merged["three_lenses"]),
                  shadow_projection=_shadow(c, merged["shadow_projection"]),
                  up_projection=_up_projection(c, merged["up_projection"]),
                  photo_filter=_photo_filter(c, merged["photo_filter"]),
                  dot_product_softmax=_dot_product(c, merged["dot_product_softmax"]),
                  training=_training(c, merged["training"]),
                  sections=merged)


def _space_deformation(c: _Checker, sd: dict) -> SpaceDeformationParams:
    w = "space_deformation"
    words_raw = sd["words"]
    if not isinstance(words_raw, list) or not 1 <= len(words_raw) <= MAX_WORDS:
        raise c.fail(f"{w}.words", f"a list of 1 to {MAX_WORDS} words", words_raw)
    words = []
    for i, item in enumerate(words_raw):
        where = f"{w}.words[{i}]"
        c.keys(item, where, ["zh", "en", "at"], required=True)
        words.append(Word(c.text(item["zh"], f"{where}.zh"), c.text(item["en"], f"{where}.en"),
                          c.vector(item["at"], f"{where}.at", "plane", 2)))
    return SpaceDeformationParams(
        words=tuple(words),
        rotation_degrees=c.number(sd["rotation_degrees"], f"{w}.rotation_degrees", "angle"),
        stretch=c.vector(sd["stretch"], f"{w}.stretch", "plane_map", 2),
        shear=c.number(sd["shear"], f"{w}.shear", "plane_map"),
        flatten_onto=c.nonzero(c.vector(sd["flatten_onto"], f"{w}.flatten_onto", "direction", 2),
                               f"{w}.flatten_onto"),
        svd_matrix=c.matrix(sd["svd_matrix"], f"{w}.svd_matrix", "plane_map", 2, 2))


def _worked_example(c: _Checker, we: dict) -> WorkedExampleParams:
    x = c.vector(we["x"], "worked_example.x", "entry", most=MAX_ENTRIES)
    W = c.matrix(we["W"], "worked_example.W", "entry", rows=len(x),
                 why=f" (one row per entry of worked_example.x, which has {len(x)})")
    return WorkedExampleParams(x=x, W=W)


def _up_projection(c: _Checker, up: dict) -> UpProjectionParams:
    w = "up_projection"
    return UpProjectionParams(
        point=c.vector(up["point"], f"{w}.point", "plane", 2),
        W=c.matrix(up["W"], f"{w}.W", "plane_map", 2, 3,
                   why=" (2 rows: the plane's two axes; 3 columns: x, y, z)"),
        contrast_rotation_degrees=c.number(up["contrast_rotation_degrees"],
                                           f"{w}.contrast_rotation_degrees", "angle"),
        contrast_stretch=c.vector(up["contrast_stretch"], f"{w}.contrast_stretch", "plane_map", 2))


def _three_lenses(c: _Checker, tl: dict) -> ThreeLensesParams:
    w = "three_lenses"
    traits = c.names(tl["traits"], f"{w}.traits", most=MAX_LENS_TRAITS)
    d = len(traits)
    if not isinstance(tl["words"], list) or not 1 <= len(tl["words"]) <= MAX_WORDS:
        raise c.fail(f"{w}.words", f"a list of 1 to {MAX_WORDS} words", tl["words"])
    words = []
    for i, item in enumerate(tl["words"]):
        where = f"{w}.words[{i}]"
        c.keys(item, where, ["zh", "en", "traits"], required=True)
        name = Named(c.text(item["zh"], f"{where}.zh"), c.text(item["en"], f"{where}.en"))
        words.append((name, c.vector(item["traits"], f"{where}.traits", "weight", d)))
    if not isinstance(tl["lenses"], list) or len(tl["lenses"]) != 3:
        raise c.fail(f"{w}.lenses", "a list of exactly 3 lenses", tl["lenses"])
    lenses = []
    for i, item in enumerate(tl["lenses"]):
        where = f"{w}.lenses[{i}]"
        c.keys(item, where, ["keep", "drop", "axes", "matrix"], required=True)
        axes = c.names(item["axes"], f"{where}.axes", most=2, least=2)
        lenses.append(Lens(c.name(item["keep"], f"{where}.keep"), c.name(item["drop"], f"{where}.drop"),
                           (axes[0], axes[1]),
                           c.matrix(item["matrix"], f"{where}.matrix", "weight", d, 2,
                                    why=f" (one row per trait in {w}.traits ({d}), 2 columns)")))
    return ThreeLensesParams(traits, tuple(words), tuple(lenses))


def _shadow(c: _Checker, sp: dict) -> ShadowParams:
    import numpy as np

    w = "shadow_projection"
    params = ShadowParams(
        cube_center=c.vector(sp["cube_center"], f"{w}.cube_center", "space", 3),
        cube_size=c.number(sp["cube_size"], f"{w}.cube_size", "cube_size"),
        light=c.nonzero(c.vector(sp["light"], f"{w}.light", "direction", 3), f"{w}.light"),
        light_end=c.nonzero(c.vector(sp["light_end"], f"{w}.light_end", "direction", 3), f"{w}.light_end"),
        wall_turn_degrees=c.number(sp["wall_turn_degrees"], f"{w}.wall_turn_degrees", "angle"),
        lamp=c.vector(sp["lamp"], f"{w}.lamp", "space", 3),
        ray_step=c.number(sp["ray_step"], f"{w}.ray_step", "ray_step"))
    # The whole cube must stay in front of the wall at every angle the scene
    # shows, and every light must reach the wall at a slant (not grazing it, so
    # shadows stay within about ten times the cube's distance from the wall).
    half = float(params.cube_size) / 2
    corners = np.array(params.cube_center, dtype=float) + half * np.array(
        [[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    for deg in np.linspace(0, float(params.wall_turn_degrees), 7):
        a = np.deg2rad(deg)
        n = np.array([np.cos(a), np.sin(a), 0.0])
        if (corners @ n).min() <= 0:
            raise c.fail(f"{w}.cube_center", f"a cube wholly in front of the wall at every turn up to "
                         f"{float(params.wall_turn_degrees):g} degrees", sp["cube_center"])
        for key in ("light", "light_end"):
            d = np.array(getattr(params, key), dtype=float)
            if d @ n / np.linalg.norm(d) > -0.1:
                raise c.fail(f"{w}.{key}", "a light direction pointing towards the wall (n . d < 0), "
                             "at least 6 degrees off the wall", sp[key])
        L = np.array(params.lamp, dtype=float) @ n
        if L <= (corners @ n).max() / 0.9:
            raise c.fail(f"{w}.lamp", "a lamp further from the wall than every corner of the cube "
                         "(by a tenth of its own distance at least)", sp["lamp"])
    return params


@functools.lru_cache(maxsize=8)
def _generated_picture(h: int, w: int):
    """qkv_math's generated picture, read-only, made once per size."""
    from qkv_math import generated_picture

    picture = generated_picture(h, w)
    picture.setflags(write=False)
    return picture


def _photo_filter(c: _Checker, pf: dict) -> PhotoFilterParams:
    w = "photo_filter"
    size = pf["size"]
    if not isinstance(size, list) or len(size) != 2:
        raise c.fail(f"{w}.size", "[height, width] in pixels", size)
    h = c.integer(size[0], f"{w}.size[0]", 4, 64)
    wd = c.integer(size[1], f"{w}.size[1]", 4, 64)
    pixel = pf["pixel"]
    if not isinstance(pixel, list) or len(pixel) != 2:
        raise c.fail(f"{w}.pixel", "[row, column] of one pixel", pixel)
    row = c.integer(pixel[0], f"{w}.pixel[0]", 0, h - 1)
    col = c.integer(pixel[1], f"{w}.pixel[1]", 0, wd - 1)
    factor = c.integer(pf["downsample"], f"{w}.downsample", 1, min(h, wd))
    if h % factor or wd % factor:
        raise c.fail(f"{w}.downsample", f"a factor that divides both sides of the picture ({h}x{wd})",
                     factor)
    image = pf["image"]
    if not isinstance(image, str):
        raise c.fail(f"{w}.image", 'a file name, or "" for the generated picture', image)
    if image:
        picture = _read_picture(c, image, h, wd)
        picture.setflags(write=False)
    else:
        picture = _generated_picture(h, wd)
    return PhotoFilterParams(
        image=image, size=(h, wd), pixel=(row, col),
        tint_strength=c.number(pf["tint_strength"], f"{w}.tint_strength", "tint"),
        darken_factor=c.number(pf["darken_factor"], f"{w}.darken_factor", "darken"),
        downsample=factor,
        **{k: c.matrix(pf[k], f"{w}.{k}", "colour", 3, 3, why=" (a colour filter: [r, g, b] @ M)")
           for k in ("query_filter", "key_filter", "value_filter")},
        picture=picture)


def _read_picture(c: _Checker, image: str, h: int, wd: int):
    """The PNG or JPEG ``image`` (beside the lesson file) resized to h x wd,
    as floats in [0, 1].  A regular file of at most MAX_PICTURE_BYTES, of at
    most MAX_PICTURE_PIXELS (checked on the header, before decoding)."""
    import io
    import warnings

    import numpy as np
    from PIL import Image

    where = "photo_filter.image"
    path = c.path.parent / image
    shown = repr(str(path))
    try:
        data = _read_regular(path, MAX_PICTURE_BYTES, f"a picture {shown}", lambda m: c.error(where, m))
    except LessonError:
        raise
    except FileNotFoundError:
        raise c.error(where, f"the picture {shown} does not exist") from None
    except (OSError, ValueError) as err:
        message = getattr(err, "strerror", None) or _one_line(err)
        raise c.error(where, f"cannot read {shown} ({message})") from None
    limit = f"a picture of at most {MAX_PICTURE_PIXELS // 10**6} megapixels"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            warnings.filterwarnings("ignore", module=r"PIL\.")
            with Image.open(io.BytesIO(data), formats=("PNG", "JPEG")) as im:
                pw, ph = im.size
                if pw * ph > MAX_PICTURE_PIXELS:
                    raise c.fail(where, limit, _Plain(f"{pw}x{ph} pixels in {shown}"))
                im.draft("RGB", (wd, h))          # JPEG: decode at a reduced scale
                small = im.convert("RGB").resize((wd, h), Image.Resampling.BOX)
                return np.asarray(small, dtype=float) / 255.0
    except LessonError:
        raise
    except Image.DecompressionBombError:
        raise c.fail(where, limit, _Plain(f"a larger one in {shown}")) from None
    except Image.UnidentifiedImageError:
        raise c.error(where, f"cannot read {shown} as a PNG or JPEG picture") from None
    except Exception as err:  # noqa: BLE001 - Pillow raises many kinds for a damaged file
        raise c.error(where, f"cannot read {shown} as a PNG or JPEG picture ({_one_line(err)})") from None


def _dot_product(c: _Checker, dp: dict) -> DotProductParams:
    w = "dot_product_softmax"
    dims = dp["d_k"]
    if not isinstance(dims, list) or not 1 <= len(dims) <= 3:
        raise c.fail(f"{w}.d_k", "a list of 1 to 3 dimensions", dims)
    d_k = tuple(c.integer(d, f"{w}.d_k[{i}]", 1, 4096) for i, d in enumerate(dims))
    samples = c.integer(dp["samples"], f"{w}.samples", 100, 200000)
    if samples * sum(d_k) > MAX_SAMPLED:
        raise c.fail(f"{w}.samples", f"samples x (sum of d_k) at most {MAX_SAMPLED} (random numbers "
                     "drawn)", _Plain(f"{samples} x {sum(d_k)} = {samples * sum(d_k)}"))
    vector_a = c.vector(dp["vector_a"], f"{w}.vector_a", "arrow", 2)
    if all(v == 0 for v in vector_a):
        raise c.fail(f"{w}.vector_a", "a non-zero vector", _Plain("[0, 0]"))
    return DotProductParams(
        vector_a=vector_a,
        vector_b_length=c.number(dp["vector_b_length"], f"{w}.vector_b_length", "arrow_length"),
        scores=c.vector(dp["scores"], f"{w}.scores", "score", most=8, least=2),
        temperatures=c.vector(dp["temperatures"], f"{w}.temperatures", "temperature", most=4),
        d_k=d_k, samples=samples,
        seed=c.integer(dp["seed"], f"{w}.seed", 0, 2**32 - 1),
        bins=c.integer(dp["bins"], f"{w}.bins", 5, 60),
        saturation_tokens=c.integer(dp["saturation_tokens"], f"{w}.saturation_tokens", 2, 8))


def _training(c: _Checker, tp: dict) -> TrainingParams:
    w = "training"
    jobs = c.names(tp["jobs"], f"{w}.jobs", most=MAX_JOBS)
    people = c.integer(tp["people"], f"{w}.people", MIN_PEOPLE, MAX_PEOPLE,
                       why=" (with 2 guests each has one candidate, so there is nothing to match)")
    if len(jobs) <= people:
        raise c.fail(f"{w}.jobs", f"more professions than {w}.people ({people}), so no party "
                     "holds every profession", tp["jobs"])
    steps = c.integer(tp["steps"], f"{w}.steps", 10, 20000)
    batch = c.integer(tp["batch"], f"{w}.batch", 1, 512)
    if steps * batch > MAX_PARTIES:
        raise c.fail(f"{w}.batch", f"{w}.steps x {w}.batch at most {MAX_PARTIES} (parties trained on)",
                     _Plain(f"{steps} x {batch} = {steps * batch}"))
    return TrainingParams(
        jobs=jobs, people=people,
        seed=c.integer(tp["seed"], f"{w}.seed", 0, 2**31 - 1),
        steps=steps,
        learning_rate=c.number(tp["learning_rate"], f"{w}.learning_rate", "learning_rate"),
        batch=batch,
        heldout=c.integer(tp["heldout"], f"{w}.heldout", 8, 4096),
        snapshots=c.integer(tp["snapshots"], f"{w}.snapshots", 4, 24))


def _attention(c: _Checker, at: dict) -> AttentionParams:
    tokens = c.names(at["tokens"], "attention.tokens", most=MAX_TOKENS)
    traits = c.names(at["traits"], "attention.traits", most=MAX_TRAITS)
    qk = c.names(at["qk_dims"], "attention.qk_dims", most=MAX_DIMS)
    v = c.names(at["v_dims"], "attention.v_dims", most=MAX_DIMS)
    n, d = len(tokens), len(traits)
    X = c.matrix(at["embeddings"], "attention.embeddings", "weight", n, d,
                 why=f" (one row per token in attention.tokens ({n}), one column per trait "
                     f"in attention.traits ({d}))")
    mats = {}
    for name, dims, dims_key in (("W_Q", qk, "qk_dims"), ("W_K", qk, "qk_dims"), ("W_V", v, "v_dims")):
        mats[name] = c.matrix(at[name], f"attention.{name}", "weight", d, len(dims),
                              why=f" (one row per trait in attention.traits ({d}), one column per "
                                  f"entry of attention.{dims_key} ({len(dims)}))")
    return AttentionParams(
        tokens=tokens, traits=traits, embeddings=X, qk_dims=qk, v_dims=v, **mats,
        focus=c.index(at["focus"], "attention.focus", n, "attention.tokens"),
        query=c.index(at["query"], "attention.query", n, "attention.tokens"),
        causal_mask=c.boolean(at["causal_mask"], "attention.causal_mask"),
        temperature=c.number(at["temperature"], "attention.temperature", "temperature"))
