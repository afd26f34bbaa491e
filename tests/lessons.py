"""Hypothesis strategies that draw lesson sections inside the loader's
bounds (``qkv_lens.lesson.bounds``): every number of its kind's range with
its edges, zero, repeats and fractions; names of every width up to the
limit, Latin, accented and Chinese; list lengths from one to the most.

Each strategy gives the raw TOML table of one section, as a teacher would
write it; the loader decides whether it is accepted."""
from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import strategies as st

from qkv_lens.lesson.bounds import (
    DIM_LETTERS,
    JOB_LETTERS,
    KINDS,
    LENS_NAME_WIDTH,
    LENS_TRAIT_WIDTH,
    MAX_DIMS,
    MAX_JOBS,
    MAX_LENS_TRAITS,
    MAX_LENS_WORDS,
    MAX_PEOPLE,
    MAX_PROJECTED,
    MAX_TOKENS,
    MAX_TRAITS,
    MAX_WORDS,
    MIN_PEOPLE,
    NAME_WIDTH,
    TOKEN_LETTERS,
    TRAIT_LETTERS,
    WORKED_COLUMNS,
    WORKED_ROWS,
)
from qkv_lens.lesson.widths import letters_wide

# Names a teacher might write: short and at the width limit, Latin, accented, Chinese, mixed.
LATIN = ["a", "I", "apple", "fire truck", "Ñandú", "crème brûlée", "x2", "über-große Äpfel",
         "W" * NAME_WIDTH, "m" * NAME_WIDTH, "extraordinarily long nm", "i"]
CHINESE = ["我", "苹果", "消防车", "红色圆形的水果", "非" * (NAME_WIDTH // 2), "一二三四五六七八九十十一",
           "甜", "（压扁）"]
NAME_CHARS = st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 éüñçß苹果红色圆甜人想吃")


def _fits(text: str) -> bool:
    import unicodedata
    return bool(text.strip()) and sum(2 if unicodedata.east_asian_width(c) in "WF" else 1
                                      for c in text) <= NAME_WIDTH


names_text = st.one_of(st.sampled_from(LATIN + CHINESE),
                       st.text(NAME_CHARS, min_size=1, max_size=NAME_WIDTH).filter(_fits))
name = st.fixed_dictionaries({"zh": st.one_of(st.sampled_from(CHINESE), names_text),
                              "en": names_text})


def names(least: int, most: int):
    return st.lists(name, min_size=least, max_size=most)


def number(kind: str):
    """A number of ``kind`` as a lesson writes it: an int, a decimal or a
    fraction text, with the range's edges, zero and one drawn often."""
    return _number(*KINDS[kind])


def within(limit: float):
    """A weight between -limit and limit (at most the weight kind's range), written as ``number``
    writes one: its edges (limit rounded down to two decimals), zero, decimals and fractions."""
    hi = min(math.floor(limit * 100) / 100, KINDS["weight"][1])
    return _number(-hi, hi, False) if hi > 0 else st.just(0)


def value(written) -> float:
    """The value of a number as ``number`` writes it."""
    return float(Fraction(written)) if isinstance(written, str) else float(written)


def _number(lo: float, hi: float, lo_open: bool):
    ok = (lambda v: lo < v <= hi) if lo_open else (lambda v: lo <= v <= hi)
    edges = [v for v in dict.fromkeys((lo, hi, 0, 1, -1, hi / 2, lo / 2)) if ok(v)]
    ints = st.integers(math.ceil(lo), math.floor(hi)).filter(ok)
    decimals = st.integers(math.ceil(lo * 100), math.floor(hi * 100)).map(lambda n: n / 100).filter(ok)
    fractions = st.tuples(st.integers(-7, 7), st.integers(2, 9)).filter(lambda t: ok(t[0] / t[1])) \
        .map(lambda t: f"{t[0]}/{t[1]}")
    return st.one_of(st.sampled_from(edges), ints, decimals, fractions)


def vector(kind: str, n: int):
    return st.lists(number(kind), min_size=n, max_size=n)


def matrix(kind: str, rows: int, cols: int):
    return st.lists(vector(kind, cols), min_size=rows, max_size=rows)


@st.composite
def space_deformation(draw):
    words = draw(st.lists(st.fixed_dictionaries({"zh": st.sampled_from(CHINESE), "en": names_text,
                                                 "at": vector("plane", 2)}), min_size=1, max_size=MAX_WORDS))
    return {"words": words, "rotation_degrees": draw(number("angle")), "stretch": draw(vector("plane_map", 2)),
            "shear": draw(number("plane_map")), "flatten_onto": draw(vector("direction", 2)),
            "svd_matrix": draw(matrix("plane_map", 2, 2))}


# What a teacher writes in a worked example: short numbers mostly, and the entry's whole
# range (its edges, 2-decimal numbers, fractions) and the widest numbers the loader takes.
WORKED_NUMBER = st.one_of(st.integers(-12, 12), st.integers(-99, 99).map(lambda n: n / 10),
                          st.sampled_from(["1/2", "-1/3", "2/3", "-3/4", "1/7", "-5/6"]),
                          number("entry"), st.sampled_from([-99.999999, 12.345678, "-97/99", 0]))


@st.composite
def worked_example(draw):
    n = draw(st.integers(1, WORKED_ROWS))
    m = draw(st.integers(1, WORKED_COLUMNS))
    row = st.lists(WORKED_NUMBER, min_size=m, max_size=m)
    return {"x": draw(st.lists(WORKED_NUMBER, min_size=n, max_size=n)),
            "W": draw(st.lists(row, min_size=n, max_size=n))}


@st.composite
def up_projection(draw):
    return {"point": draw(vector("plane", 2)), "W": draw(matrix("plane_map", 2, 3)),
            "contrast_rotation_degrees": draw(number("angle")),
            "contrast_stretch": draw(vector("plane_map", 2))}


def _columns(text: str) -> int:
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def narrow_name(width: int):
    """Names of at most ``width`` columns in both languages: the widest, Latin, accented, Chinese."""
    widest = ["m" * width, "W" * width, "非" * (width // 2)]
    drawn = st.text(NAME_CHARS, min_size=1, max_size=width).filter(lambda t: _fits(t) and _columns(t) <= width)
    text = st.one_of(st.sampled_from([n for n in LATIN + CHINESE if _columns(n) <= width] + widest), drawn)
    return st.fixed_dictionaries({"zh": text, "en": text})


# What a lens keeps or drops: a phrase its panel's heading wraps, words of at most LENS_NAME_WIDTH letters.
PHRASE = st.one_of(narrow_name(LENS_NAME_WIDTH), st.fixed_dictionaries({
    "zh": st.sampled_from(["能不能吃、科技", "颜色与形状", "非" * (NAME_WIDTH // 2)]),
    "en": st.sampled_from(["colour and shape", "everything else", "m" * LENS_NAME_WIDTH + " " + "W" * 11])}))
# The lenses' numbers: short decimals (LENS_DIGITS significant digits), the weight's edges, or any weight.
_SHORT = st.one_of(st.integers(-4, 4), st.integers(-40, 40).map(lambda n: n / 10),
                   st.sampled_from([0.25, -0.75, 0.05, -3.5, 1.5, "1/2", "-1/4", 0]))
# one lesson in five takes any weight at all (most such lessons are refused)
LENS_NUMBERS = st.sampled_from([_SHORT] * 4 + [st.one_of(_SHORT, number("weight"))])


@st.composite
def three_lenses(draw):
    d = draw(st.integers(1, MAX_LENS_TRAITS))
    LENS_NUMBER = draw(LENS_NUMBERS)
    lens = st.fixed_dictionaries({"keep": PHRASE, "drop": PHRASE,
                                  "axes": st.lists(narrow_name(LENS_NAME_WIDTH), min_size=2, max_size=2),
                                  "matrix": st.lists(st.lists(LENS_NUMBER, min_size=2, max_size=2),
                                                     min_size=d, max_size=d)})
    word = narrow_name(LENS_NAME_WIDTH).flatmap(lambda n: st.fixed_dictionaries(
        {"zh": st.just(n["zh"]), "en": st.just(n["en"]),
         "traits": st.lists(LENS_NUMBER, min_size=d, max_size=d)}))
    return {"traits": draw(st.lists(narrow_name(LENS_TRAIT_WIDTH), min_size=d, max_size=d)),
            "words": draw(st.lists(word, min_size=1, max_size=MAX_LENS_WORDS)),
            "lenses": draw(st.lists(lens, min_size=3, max_size=3))}


@st.composite
def photo_filter(draw):
    h = draw(st.sampled_from([4, 8, 12, 24, 64]))
    w = draw(st.sampled_from([4, 8, 16, 32, 64]))
    factor = draw(st.sampled_from([f for f in (1, 2, 4) if h % f == 0 and w % f == 0]))
    return {"image": "", "size": [h, w], "pixel": [draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))],
            "tint_strength": draw(number("tint")), "darken_factor": draw(number("darken")),
            "downsample": factor, "query_filter": draw(matrix("colour", 3, 3)),
            "key_filter": draw(matrix("colour", 3, 3)), "value_filter": draw(matrix("colour", 3, 3))}


@st.composite
def shadow_projection(draw):
    """Mostly a cube in front of the wall lit towards it (what the loader
    accepts, at its edges), sometimes anything inside the bounds."""
    if draw(st.integers(0, 4)) == 0:
        return {"cube_center": draw(vector("space", 3)), "cube_size": draw(number("cube_size")),
                "light": draw(vector("direction", 3)), "light_end": draw(vector("direction", 3)),
                "wall_turn_degrees": draw(number("angle")), "lamp": draw(vector("space", 3)),
                "ray_step": draw(number("ray_step"))}
    size = draw(st.sampled_from([0.1, 0.5, 1.2, 2, 3]))
    centre = [draw(st.sampled_from([size + 0.5, 2.5, 5, 9.5])), draw(number("space")), draw(number("space"))]
    lean = st.sampled_from([-0.8, -0.3, 0, 0.3, 0.8])
    toward = st.tuples(st.sampled_from([1, 10, 100]), lean, lean).map(lambda t: [-t[0], t[0] * t[1], t[0] * t[2]])
    return {"cube_center": centre, "cube_size": size, "light": draw(toward), "light_end": draw(toward),
            "wall_turn_degrees": draw(st.sampled_from([0, 5, 30, 60, -45])),
            "lamp": [draw(st.sampled_from([6, 8, 10])), draw(number("space")), draw(number("space"))],
            "ray_step": draw(number("ray_step"))}


@st.composite
def attention(draw):
    n = draw(st.integers(1, MAX_TOKENS))
    d = draw(st.integers(1, MAX_TRAITS))
    dk = draw(st.integers(1, MAX_DIMS))
    dv = draw(st.integers(1, MAX_DIMS))
    X = draw(matrix("weight", n, d))
    if draw(st.integers(0, 4)) < 4:
        # mostly a lesson the scenes can write out (MAX_PROJECTED, MAX_SCORE), up to the edges: weights
        # that keep every q and k within +-4.99 (a score of four such products within +-99.8) and every
        # v within +-9.99, names the frame holds at their widest
        reach = max(sum(abs(value(x)) for x in row) for row in X) or 1.0
        mats = {name: draw(st.lists(st.lists(within(limit / reach), min_size=m, max_size=m), min_size=d,
                                    max_size=d))
                for name, limit, m in (("W_Q", 4.99, dk), ("W_K", 4.99, dk), ("W_V", MAX_PROJECTED, dv))}
        lists = {"tokens": narrowed(draw(names(n, n)), TOKEN_LETTERS[n]),
                 "traits": narrowed(draw(names(d, d)), TRAIT_LETTERS),
                 "qk_dims": narrowed(draw(names(dk, dk)), DIM_LETTERS),
                 "v_dims": narrowed(draw(names(dv, dv)), DIM_LETTERS)}
    else:
        mats = {"W_Q": draw(matrix("weight", d, dk)), "W_K": draw(matrix("weight", d, dk)),
                "W_V": draw(matrix("weight", d, dv))}
        lists = {"tokens": draw(names(n, n)), "traits": draw(names(d, d)), "qk_dims": draw(names(dk, dk)),
                 "v_dims": draw(names(dv, dv))}
    return {**lists, "embeddings": X, **mats, "focus": draw(st.integers(0, n - 1)),
            "query": draw(st.integers(0, n - 1)), "causal_mask": draw(st.booleans()),
            "temperature": draw(number("temperature"))}


@st.composite
def dot_product_softmax(draw):
    d_k = draw(st.lists(st.sampled_from([1, 2, 4, 64, 512, 4096]), min_size=1, max_size=3))
    samples = draw(st.sampled_from([100, 500, 2000]))
    return {"vector_a": draw(vector("arrow", 2)), "vector_b_length": draw(number("arrow_length")),
            "scores": draw(st.lists(number("score"), min_size=2, max_size=8)),
            "temperatures": draw(st.lists(number("temperature"), min_size=1, max_size=4)),
            "d_k": d_k, "samples": samples, "seed": draw(st.integers(0, 2**32 - 1)),
            "bins": draw(st.integers(5, 60)), "saturation_tokens": draw(st.integers(2, 8))}


def narrowed(drawn: list[dict], letters: float) -> list[dict]:
    """The names cut from their end until each is at most ``letters`` wide
    (``letters_wide``): the widest names a limit accepts ("mmmmm", "WWWWWW"), and shorter ones."""
    def cut(text: str, lang: str) -> str:
        while len(text) > 1 and letters_wide(text, lang) > letters:
            text = text[:-1]
        return text if text.strip() else "a"
    return [{lang: cut(text, lang) for lang, text in item.items()} for item in drawn]


@st.composite
def training(draw):
    people = draw(st.integers(MIN_PEOPLE, MAX_PEOPLE))
    jobs = draw(names(people + 1, MAX_JOBS))
    if draw(st.integers(0, 4)) < 4:   # mostly names the party table holds (the widest of them too)
        jobs = narrowed(jobs, JOB_LETTERS[people])
    # training time grows with steps x batch: a few hundred parties keep a dry run quick
    return {"jobs": jobs, "people": people, "seed": draw(st.integers(0, 2**31 - 1)),
            "steps": draw(st.sampled_from([10, 40, 200])), "learning_rate": draw(number("learning_rate")),
            "batch": draw(st.sampled_from([1, 4, 16])), "heldout": draw(st.sampled_from([8, 64])),
            "snapshots": draw(st.integers(4, 24))}


SECTIONS = {
    "space_deformation": space_deformation(), "three_lenses": three_lenses(), "photo_filter": photo_filter(),
    "shadow_projection": shadow_projection(), "up_projection": up_projection(),
    "worked_example": worked_example(), "attention": attention(),
    "dot_product_softmax": dot_product_softmax(), "training": training(),
}
