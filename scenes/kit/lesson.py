"""Load and validate ``lesson.toml`` into frozen, typed objects.

Every value is checked before anything renders.  A bad file raises
``LessonError`` whose message names the file, the key path (such as
``worked_example.W[1][2]``), what was expected and what was found.
Numbers are kept exact: ints and decimal texts become Fractions
(``0.5`` -> 1/2), and strings such as ``"1/2"`` are accepted too.
"""
from __future__ import annotations

import difflib
import math
import os
import sys
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

MAX_TOKENS = 6  # the attention grids are laid out (and tested) up to this size


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


class _Checker:
    def __init__(self, path: Path):
        self.path = path

    def fail(self, where: str, expected: str, found: Any) -> LessonError:
        shown = found if isinstance(found, str) and found.startswith("<") else repr(found)
        loc = f"{where}: " if where else ""
        return LessonError(f"{self.path}: {loc}expected {expected}, found {shown}")

    def keys(self, table: Any, where: str, allowed: list[str]) -> dict:
        if not isinstance(table, dict):
            raise self.fail(where, "a table", _kind(table))
        for key in table:
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.5)
                hint = f' (did you mean "{close[0]}"?)' if close else ""
                name = f"{where}.{key}" if where else key
                raise LessonError(
                    f'{self.path}: {name}: unknown key{hint}; expected one of: {", ".join(allowed)}'
                )
        return table

    def number(self, value: Any, where: str) -> Fraction:
        expected = 'a finite number (like 3, -0.5 or "1/2")'
        if isinstance(value, bool):
            raise self.fail(where, expected, value)
        if isinstance(value, int):
            return Fraction(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail(where, expected, f"<{value}>")
            return Fraction(repr(value))
        if isinstance(value, str):
            try:
                return Fraction(value.strip())
            except (ValueError, ZeroDivisionError):
                raise self.fail(where, expected, value) from None
        raise self.fail(where, expected, _kind(value))

    def vector(self, value: Any, where: str, n: int | None = None) -> tuple[Fraction, ...]:
        want = f"a list of {n} numbers" if n else "a non-empty list of numbers"
        if not isinstance(value, list) or not value:
            raise self.fail(where, want, _kind(value))
        if n is not None and len(value) != n:
            raise self.fail(where, want, f"<a list of {len(value)}>")
        return tuple(self.number(v, f"{where}[{i}]") for i, v in enumerate(value))

    def matrix(self, value: Any, where: str, rows: int | None = None,
               cols: int | None = None, why: str = "") -> tuple[tuple[Fraction, ...], ...]:
        shape = f"{rows or 'n'}x{cols or 'm'}"
        want = f"a {shape} matrix (a list of rows){why}"
        if not isinstance(value, list) or not value or not all(isinstance(r, list) for r in value):
            raise self.fail(where, want, _kind(value))
        if rows is not None and len(value) != rows:
            raise self.fail(where, f"{rows} rows{why}",
                            f"<{len(value)} row{'' if len(value) == 1 else 's'}>")
        width = cols if cols is not None else len(value[0])
        out = []
        for i, row in enumerate(value):
            if len(row) != width or width == 0:
                raise self.fail(f"{where}[{i}]", f"a row of {width} numbers{why}", f"<a row of {len(row)}>")
            out.append(self.vector(row, f"{where}[{i}]", width))
        return tuple(out)

    def names(self, value: Any, where: str, most: int | None = None) -> tuple[Named, ...]:
        want = "a non-empty list of {zh = ..., en = ...} names" + (f" (at most {most})" if most else "")
        if not isinstance(value, list) or not value or (most and len(value) > most):
            raise self.fail(where, want, _kind(value) if not isinstance(value, list)
                            else f"<a list of {len(value)}>")
        out = []
        for i, item in enumerate(value):
            self.keys(item, f"{where}[{i}]", ["zh", "en"])
            for key in ("zh", "en"):
                if key not in item:
                    raise LessonError(f'{self.path}: {where}[{i}]: missing key "{key}"')
            out.append(Named(self.text(item["zh"], f"{where}[{i}].zh"),
                             self.text(item["en"], f"{where}[{i}].en")))
        return tuple(out)

    def index(self, value: Any, where: str, n: int, of: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
            raise self.fail(where, f"a token index from 0 to {n - 1} (into {of})", _kind(value))
        return value

    def integer(self, value: Any, where: str, lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise self.fail(where, f"a whole number from {lo} to {hi}", _kind(value))
        return value

    def positive(self, value: Any, where: str) -> Fraction:
        v = self.number(value, where)
        if v <= 0:
            raise self.fail(where, "a number > 0", float(v))
        return v

    def boolean(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, "true or false", _kind(value))
        return value

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, "a non-empty text", _kind(value) if not isinstance(value, str) else value)
        return value


def _kind(value: Any) -> str:
    names = {dict: "a table", list: "a list", str: "a text", bool: "a boolean",
             int: "an integer", float: "a number"}
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return repr(value)
    return f"<{names.get(type(value), type(value).__name__)}>"


def default_lesson_path() -> Path:
    """QKV_LESSON if set, else ./lesson.toml if present, else the project's."""
    env = os.environ.get("QKV_LESSON")
    if env:
        return Path(env)
    here = Path.cwd() / "lesson.toml"
    return here if here.exists() else PROJECT_ROOT / "lesson.toml"


def load_lesson(path: str | os.PathLike | None = None, language: str | None = None) -> Lesson:
    """Read and validate a lesson file.  ``language`` (or QKV_LANG) overrides
    the file's own.  Raises LessonError with a one-line message."""
    path = Path(path) if path is not None else default_lesson_path()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LessonError(f"{path}: lesson file not found") from None
    except OSError as err:
        raise LessonError(f"{path}: cannot read the lesson file ({err.strerror})") from None
    except UnicodeDecodeError:
        raise LessonError(f"{path}: the lesson file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise LessonError(f"{path}: TOML syntax error: {err}") from None
    return parse_lesson(raw, path, language)


def parse_lesson(raw: dict, path: Path, language: str | None = None) -> Lesson:
    c = _Checker(path)
    c.keys(raw, "", list(DEFAULTS))
    merged = {
        name: ({**default, **raw.get(name, {})} if isinstance(default, dict) else raw.get(name, default))
        for name, default in DEFAULTS.items()
    }
    for name, default in DEFAULTS.items():
        if isinstance(default, dict):
            c.keys(raw.get(name, {}), name, list(default))

    lang = language or os.environ.get("QKV_LANG") or merged["language"]
    where = "language" if not (language or os.environ.get("QKV_LANG")) else "language (--lang / QKV_LANG)"
    if lang not in LANGUAGES:
        raise c.fail(where, f'one of {", ".join(map(repr, LANGUAGES))}', lang)

    sd = merged["space_deformation"]
    words_raw = sd["words"]
    if not isinstance(words_raw, list) or not words_raw:
        raise c.fail("space_deformation.words", "a non-empty list of words", _kind(words_raw))
    words = []
    for i, w in enumerate(words_raw):
        wp = f"space_deformation.words[{i}]"
        c.keys(w, wp, ["zh", "en", "at"])
        for key in ("zh", "en", "at"):
            if key not in w:
                raise LessonError(f"{path}: {wp}: missing key \"{key}\"")
        words.append(Word(c.text(w["zh"], f"{wp}.zh"), c.text(w["en"], f"{wp}.en"),
                          c.vector(w["at"], f"{wp}.at", 2)))
    onto = c.vector(sd["flatten_onto"], "space_deformation.flatten_onto", 2)
    if all(v == 0 for v in onto):
        raise c.fail("space_deformation.flatten_onto", "a non-zero direction", "<[0, 0]>")
    space = SpaceDeformationParams(
        words=tuple(words),
        rotation_degrees=c.number(sd["rotation_degrees"], "space_deformation.rotation_degrees"),
        stretch=c.vector(sd["stretch"], "space_deformation.stretch", 2),
        shear=c.number(sd["shear"], "space_deformation.shear"),
        flatten_onto=onto,
        svd_matrix=c.matrix(sd["svd_matrix"], "space_deformation.svd_matrix", 2, 2),
    )

    we = merged["worked_example"]
    x = c.vector(we["x"], "worked_example.x")
    W = c.matrix(we["W"], "worked_example.W", rows=len(x),
                 why=f" (one row per entry of worked_example.x, which has {len(x)})")
    worked = WorkedExampleParams(x=x, W=W)
    return Lesson(path=path, language=lang, space_deformation=space,
                  worked_example=worked, attention=_attention(c, merged["attention"]),
                  three_lenses=_three_lenses(c, merged["three_lenses"]),
                  shadow_projection=_shadow(c, merged["shadow_projection"]),
                  up_projection=UpProjectionParams(
                      point=c.vector(merged["up_projection"]["point"], "up_projection.point", 2),
                      W=c.matrix(merged["up_projection"]["W"], "up_projection.W", 2, 3,
                                 why=" (2 rows: the plane's two axes; 3 columns: x, y, z)"),
                      contrast_rotation_degrees=c.number(merged["up_projection"]["contrast_rotation_degrees"],
                                                         "up_projection.contrast_rotation_degrees"),
                      contrast_stretch=c.vector(merged["up_projection"]["contrast_stretch"],
                                                "up_projection.contrast_stretch", 2)),
                  photo_filter=_photo_filter(c, merged["photo_filter"]),
                  dot_product_softmax=_dot_product(c, merged["dot_product_softmax"]),
                  training=_training(c, merged["training"]),
                  sections=merged)


def _three_lenses(c: _Checker, tl: dict) -> ThreeLensesParams:
    w = "three_lenses"
    traits = c.names(tl["traits"], f"{w}.traits")
    d = len(traits)
    if not isinstance(tl["words"], list) or not 1 <= len(tl["words"]) <= 8:
        raise c.fail(f"{w}.words", "a list of 1 to 8 words", _kind(tl["words"]))
    words = []
    for i, item in enumerate(tl["words"]):
        where = f"{w}.words[{i}]"
        c.keys(item, where, ["zh", "en", "traits"])
        for key in ("zh", "en", "traits"):
            if key not in item:
                raise LessonError(f'{c.path}: {where}: missing key "{key}"')
        name = Named(c.text(item["zh"], f"{where}.zh"), c.text(item["en"], f"{where}.en"))
        words.append((name, c.vector(item["traits"], f"{where}.traits", d)))
    if not isinstance(tl["lenses"], list) or len(tl["lenses"]) != 3:
        raise c.fail(f"{w}.lenses", "a list of exactly 3 lenses", _kind(tl["lenses"]))
    lenses = []
    for i, item in enumerate(tl["lenses"]):
        where = f"{w}.lenses[{i}]"
        c.keys(item, where, ["keep", "drop", "axes", "matrix"])
        for key in ("keep", "drop", "axes", "matrix"):
            if key not in item:
                raise LessonError(f'{c.path}: {where}: missing key "{key}"')
        axes = c.names(item["axes"], f"{where}.axes")
        if len(axes) != 2:
            raise c.fail(f"{where}.axes", "2 axis names", f"<a list of {len(axes)}>")
        lenses.append(Lens(c.names([item["keep"]], f"{where}.keep")[0],
                           c.names([item["drop"]], f"{where}.drop")[0], (axes[0], axes[1]),
                           c.matrix(item["matrix"], f"{where}.matrix", d, 2,
                                    why=f" (one row per trait in {w}.traits ({d}), 2 columns)")))
    return ThreeLensesParams(traits, tuple(words), tuple(lenses))


def _shadow(c: _Checker, sp: dict) -> ShadowParams:
    import numpy as np

    w = "shadow_projection"
    params = ShadowParams(
        cube_center=c.vector(sp["cube_center"], f"{w}.cube_center", 3),
        cube_size=c.positive(sp["cube_size"], f"{w}.cube_size"),
        light=c.vector(sp["light"], f"{w}.light", 3),
        light_end=c.vector(sp["light_end"], f"{w}.light_end", 3),
        wall_turn_degrees=c.number(sp["wall_turn_degrees"], f"{w}.wall_turn_degrees"),
        lamp=c.vector(sp["lamp"], f"{w}.lamp", 3),
        ray_step=c.positive(sp["ray_step"], f"{w}.ray_step"))
    # The whole cube must stay in front of the wall at every angle the scene shows,
    # and every light must reach the wall.
    half = float(params.cube_size) / 2
    corners = np.array(params.cube_center, dtype=float) + half * np.array(
        [[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    for deg in np.linspace(0, float(params.wall_turn_degrees), 7):
        a = np.deg2rad(deg)
        n = np.array([np.cos(a), np.sin(a), 0.0])
        if (corners @ n).min() <= 0:
            raise c.fail(f"{w}.cube_center", f"a cube wholly in front of the wall at every turn up to "
                         f"{float(params.wall_turn_degrees):g} degrees", list(map(float, params.cube_center)))
        for key in ("light", "light_end"):
            d = np.array(getattr(params, key), dtype=float)
            if d @ n >= -1e-6:
                raise c.fail(f"{w}.{key}", "a light direction pointing towards the wall (n . d < 0)",
                              [float(v) for v in d])
        L = np.array(params.lamp, dtype=float)
        if L @ n <= (corners @ n).max():
            raise c.fail(f"{w}.lamp", "a lamp further from the wall than every corner of the cube",
                         [float(v) for v in L])
    return params


def _photo_filter(c: _Checker, pf: dict) -> PhotoFilterParams:
    import numpy as np
    from qkv_math import generated_picture

    w = "photo_filter"
    h = c.integer(pf["size"][0] if isinstance(pf["size"], list) and len(pf["size"]) == 2 else None,
                  f"{w}.size[0]", 4, 64)
    wd = c.integer(pf["size"][1], f"{w}.size[1]", 4, 64)
    pixel = pf["pixel"]
    if not isinstance(pixel, list) or len(pixel) != 2:
        raise c.fail(f"{w}.pixel", "[row, column] of one pixel", _kind(pixel))
    row = c.integer(pixel[0], f"{w}.pixel[0]", 0, h - 1)
    col = c.integer(pixel[1], f"{w}.pixel[1]", 0, wd - 1)
    factor = c.integer(pf["downsample"], f"{w}.downsample", 1, min(h, wd))
    if h % factor or wd % factor:
        raise c.fail(f"{w}.downsample", f"a factor that divides both sides of the picture ({h}x{wd})",
                     factor)
    image = pf["image"]
    if not isinstance(image, str):
        raise c.fail(f"{w}.image", 'a file name, or "" for the generated picture', _kind(image))
    if image:
        path = (c.path.parent / image)
        try:
            from PIL import Image
            with Image.open(path) as im:
                picture = np.asarray(im.convert("RGB").resize((wd, h), Image.Resampling.BOX),
                                     dtype=float) / 255.0
        except FileNotFoundError:
            raise LessonError(f"{c.path}: {w}.image: the picture {str(path)!r} does not exist") from None
        except OSError as err:
            raise LessonError(f"{c.path}: {w}.image: cannot read {str(path)!r} as a picture ({err})") from None
    else:
        picture = generated_picture(h, wd)
    picture.setflags(write=False)
    return PhotoFilterParams(
        image=image, size=(h, wd), pixel=(row, col),
        tint_strength=c.number(pf["tint_strength"], f"{w}.tint_strength"),
        darken_factor=c.positive(pf["darken_factor"], f"{w}.darken_factor"),
        downsample=factor,
        **{k: c.matrix(pf[k], f"{w}.{k}", 3, 3, why=" (a colour filter: [r, g, b] @ M)")
           for k in ("query_filter", "key_filter", "value_filter")},
        picture=picture)


def _dot_product(c: _Checker, dp: dict) -> DotProductParams:
    w = "dot_product_softmax"
    scores = c.vector(dp["scores"], f"{w}.scores")
    if not 2 <= len(scores) <= 8:
        raise c.fail(f"{w}.scores", "from 2 to 8 scores", f"<a list of {len(scores)}>")
    temps = c.vector(dp["temperatures"], f"{w}.temperatures")
    if len(temps) > 4:
        raise c.fail(f"{w}.temperatures", "at most 4 temperatures", f"<a list of {len(temps)}>")
    for i, t in enumerate(temps):
        if t <= 0:
            raise c.fail(f"{w}.temperatures[{i}]", "a number > 0", float(t))
    dims = dp["d_k"]
    if not isinstance(dims, list) or not 1 <= len(dims) <= 3:
        raise c.fail(f"{w}.d_k", "a list of 1 to 3 dimensions", _kind(dims))
    return DotProductParams(
        vector_a=c.vector(dp["vector_a"], f"{w}.vector_a", 2),
        vector_b_length=c.positive(dp["vector_b_length"], f"{w}.vector_b_length"),
        scores=scores, temperatures=temps,
        d_k=tuple(c.integer(d, f"{w}.d_k[{i}]", 1, 4096) for i, d in enumerate(dims)),
        samples=c.integer(dp["samples"], f"{w}.samples", 100, 200000),
        seed=c.integer(dp["seed"], f"{w}.seed", 0, 2**32 - 1),
        bins=c.integer(dp["bins"], f"{w}.bins", 5, 60),
        saturation_tokens=c.integer(dp["saturation_tokens"], f"{w}.saturation_tokens", 2, 8))


MAX_PEOPLE = 6   # rows of the RolesEmerge table
MAX_JOBS = 12


def _training(c: _Checker, tp: dict) -> TrainingParams:
    w = "training"
    jobs = c.names(tp["jobs"], f"{w}.jobs", most=MAX_JOBS)
    people = c.integer(tp["people"], f"{w}.people", 2, MAX_PEOPLE)
    if len(jobs) <= people:
        raise c.fail(f"{w}.jobs", f"more professions than {w}.people ({people}), so no party "
                     "holds every profession", f"<a list of {len(jobs)}>")
    rate = c.positive(tp["learning_rate"], f"{w}.learning_rate")
    if rate > 1:
        raise c.fail(f"{w}.learning_rate", "a number > 0 and at most 1", float(rate))
    return TrainingParams(
        jobs=jobs, people=people,
        seed=c.integer(tp["seed"], f"{w}.seed", 0, 2**31 - 1),
        steps=c.integer(tp["steps"], f"{w}.steps", 10, 20000),
        learning_rate=rate,
        batch=c.integer(tp["batch"], f"{w}.batch", 1, 512),
        heldout=c.integer(tp["heldout"], f"{w}.heldout", 8, 4096),
        snapshots=c.integer(tp["snapshots"], f"{w}.snapshots", 4, 24))


def _attention(c: _Checker, at: dict) -> AttentionParams:
    tokens = c.names(at["tokens"], "attention.tokens", most=MAX_TOKENS)
    traits = c.names(at["traits"], "attention.traits")
    qk = c.names(at["qk_dims"], "attention.qk_dims")
    v = c.names(at["v_dims"], "attention.v_dims")
    n, d = len(tokens), len(traits)
    X = c.matrix(at["embeddings"], "attention.embeddings", n, d,
                 why=f" (one row per token in attention.tokens ({n}), one column per trait "
                     f"in attention.traits ({d}))")
    mats = {}
    for name, dims, dims_key in (("W_Q", qk, "qk_dims"), ("W_K", qk, "qk_dims"), ("W_V", v, "v_dims")):
        mats[name] = c.matrix(at[name], f"attention.{name}", d, len(dims),
                              why=f" (one row per trait in attention.traits ({d}), one column per "
                                  f"entry of attention.{dims_key} ({len(dims)}))")
    temperature = c.positive(at["temperature"], "attention.temperature")
    return AttentionParams(
        tokens=tokens, traits=traits, embeddings=X, qk_dims=qk, v_dims=v, **mats,
        focus=c.index(at["focus"], "attention.focus", n, "attention.tokens"),
        query=c.index(at["query"], "attention.query", n, "attention.tokens"),
        causal_mask=c.boolean(at["causal_mask"], "attention.causal_mask"),
        temperature=temperature)
