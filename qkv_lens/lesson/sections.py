"""Per-section rules: each section of lesson.toml checked into its frozen
object, with the rules that tie its keys together (matrix shapes that follow
list lengths, a cube in front of the wall, products of counts kept bounded)."""
from __future__ import annotations

import os
import re
from fractions import Fraction
from pathlib import Path

import numpy as np

from qkv_lens.store import Unsafe, inside
from qkv_math import cube_vertices, worked_product

from .bounds import (
    DIM_LETTERS,
    JOB_LETTERS,
    LENS_DIGITS,
    LENS_NAME_WIDTH,
    LENS_TRAIT_WIDTH,
    MAX_DIMS,
    MAX_JOBS,
    MAX_LENS_TRAITS,
    MAX_LENS_WORDS,
    MAX_PARTIES,
    MAX_PEOPLE,
    MAX_PROJECTED,
    MAX_SAMPLED,
    MAX_SCORE,
    MAX_TOKENS,
    MAX_TRAITS,
    MAX_WORDS,
    MIN_PEOPLE,
    TOKEN_LETTERS,
    TRAIT_LETTERS,
    WORKED_COLUMNS,
    WORKED_DIGITS,
    WORKED_ROW_CHARACTERS,
    WORKED_ROWS,
)
from .checks import _Checker, _name_width, _Plain, _show
from .files import defaults
from .picture import generated, read_picture
from .schema import (
    LANGUAGES,
    VOICES,
    AttentionParams,
    DotProductParams,
    Lens,
    Lesson,
    Named,
    PhotoFilterParams,
    ShadowParams,
    SpaceDeformationParams,
    ThreeLensesParams,
    TrainingParams,
    UpProjectionParams,
    Word,
    WorkedExampleParams,
    written_as_fraction,
)


def parse_lesson(raw: dict, path: Path, language: str | None = None) -> Lesson:
    """Validate the table ``raw`` read from ``path`` (keys left out take the
    shipped lesson's values); ``language`` (or QKV_LANG) overrides the file's."""
    c = _Checker(path)
    if not isinstance(raw, dict):
        raise c.fail("", "a table of sections", raw)
    c.texts(raw)
    base = defaults()
    c.keys(raw, "", list(base))
    merged = {}
    for name, default in base.items():
        if isinstance(default, dict):
            merged[name] = {**default, **c.keys(raw.get(name, {}), name, list(default))}
        else:
            merged[name] = raw.get(name, default)

    override = language or os.environ.get("QKV_LANG")
    lang = override or merged["language"]
    where = "language (--lang / QKV_LANG)" if override else "language"
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise c.fail(where, f'one of {", ".join(map(repr, LANGUAGES))}', lang)

    voice = merged["voice"]
    if voice not in VOICES:
        raise c.fail("voice", f'one of {", ".join(map(repr, VOICES))}', voice)

    return Lesson(path=path, language=lang, voice=voice,
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
    w = "worked_example"
    if isinstance(we["x"], list) and len(we["x"]) > WORKED_ROWS:
        raise c.fail(f"{w}.x", f"at most {WORKED_ROWS} entries: a frame holds the {WORKED_ROWS} rows of W above "
                     "the arithmetic at a readable size", we["x"])
    x = c.vector(we["x"], f"{w}.x", "entry", most=WORKED_ROWS)
    rows = we["W"]
    if isinstance(rows, list) and rows and isinstance(rows[0], list) and len(rows[0]) > WORKED_COLUMNS:
        raise c.fail(f"{w}.W[0]", f"a row of 1 to {WORKED_COLUMNS} numbers: a frame holds the arithmetic of "
                     f"{WORKED_COLUMNS} outputs at a readable size", rows[0])
    W = c.matrix(rows, f"{w}.W", "entry", rows=len(x), most_cols=WORKED_COLUMNS,
                 why=f" (one row per entry of {w}.x, which has {len(x)})")
    _worked_numbers(c, x, W)
    return WorkedExampleParams(x=x, W=W)


def _worked_numbers(c: _Checker, x, W) -> None:
    """The worked example writes every number out in full, exactly (the
    entries, each product x_i W_ij and each output), and x W = y across the
    frame: refuse what cannot be read there."""
    from scenes.kit.numbers import plain_number  # the one place that writes numbers (no manim)

    w = "worked_example"
    frac = written_as_fraction((x, W))
    work = worked_product(x, W)

    def shown(v) -> str:
        return plain_number(v, fractions=frac)

    def check(v, where: str, what: str) -> None:
        text = shown(v)
        digits = sum(ch.isdigit() for ch in text)
        if digits > WORKED_DIGITS:
            raise c.error(where, f"expected {what} of at most {WORKED_DIGITS} digits: the worked example writes "
                                 f"every number out in full, found {text} ({digits} digits)")

    for i, v in enumerate(x):
        check(v, f"{w}.x[{i}]", "a number")
    for i, row in enumerate(W):
        for j, v in enumerate(row):
            check(v, f"{w}.W[{i}][{j}]", "a number")
    for j, col in enumerate(work.columns):
        for i, t in enumerate(col.terms):
            check(t.product, f"{w}.W[{i}][{j}]", f"a product x[{i}] × W[{i}][{j}]")
    for j, col in enumerate(work.columns):
        check(col.total, f"{w}.W", f"an output (y[{j}] = x times column {j} of W)")
    widest = [max((shown(v) for v in vec), key=len) for vec in (x, [v for r in W for v in r], work.result)]
    counts = (len(x), len(W[0]), len(W[0]))
    total = sum(n * len(t) for n, t in zip(counts, widest))
    if total > WORKED_ROW_CHARACTERS:
        parts = " + ".join(f"{n} × {t}" for n, t in zip(counts, widest))
        raise c.error(f"{w}.W", f"expected x W = y to fit across the frame at a readable size: at most "
                                f"{WORKED_ROW_CHARACTERS} characters, each matrix's widest number once per column "
                                f"(x, W, y), found {parts} = {total}: write shorter numbers or fewer of them")


def _up_projection(c: _Checker, up: dict) -> UpProjectionParams:
    w = "up_projection"
    W = c.matrix(up["W"], f"{w}.W", "plane_map", 2, 3, why=" (2 rows: the plane's two axes; 3 columns: x, y, z)")
    if np.linalg.matrix_rank(np.array(W, dtype=float)) < 2:   # exact enough: entries have 6 decimals at most
        raise c.error(f"{w}.W", "expected two rows pointing different ways (rank 2), found rows that are "
                      "zero or parallel: the plane would be flattened onto a line or a point, not lifted "
                      "into space")
    return UpProjectionParams(
        point=c.vector(up["point"], f"{w}.point", "plane", 2),
        W=W,
        contrast_rotation_degrees=c.number(up["contrast_rotation_degrees"],
                                           f"{w}.contrast_rotation_degrees", "angle"),
        contrast_stretch=c.vector(up["contrast_stretch"], f"{w}.contrast_stretch", "plane_map", 2))


def _three_lenses(c: _Checker, tl: dict) -> ThreeLensesParams:
    w = "three_lenses"
    if isinstance(tl["traits"], list) and len(tl["traits"]) > MAX_LENS_TRAITS:
        raise c.fail(f"{w}.traits", f"at most {MAX_LENS_TRAITS} traits: each lens matrix has a row per trait and "
                     f"its worked product a term per trait, and the frame holds {MAX_LENS_TRAITS} at a readable size",
                     tl["traits"])
    traits = c.names(tl["traits"], f"{w}.traits", most=MAX_LENS_TRAITS)
    for i, t in enumerate(traits):
        _lens_name(c, t, f"{w}.traits[{i}]", LENS_TRAIT_WIDTH, "the table heads a column with each trait")
    d = len(traits)
    if not isinstance(tl["words"], list) or not 1 <= len(tl["words"]) <= MAX_LENS_WORDS:
        raise c.fail(f"{w}.words", f"a list of 1 to {MAX_LENS_WORDS} words: the table shows a row per word above "
                     "the lenses at a readable size", tl["words"])
    words = []
    for i, item in enumerate(tl["words"]):
        where = f"{w}.words[{i}]"
        c.keys(item, where, ["zh", "en", "traits"], required=True)
        name = Named(c.text(item["zh"], f"{where}.zh"), c.text(item["en"], f"{where}.en"))
        _lens_name(c, name, where, LENS_NAME_WIDTH, "each lens panel writes every word beside its point")
        words.append((name, _lens_numbers(c, c.vector(item["traits"], f"{where}.traits", "weight", d),
                                          f"{where}.traits")))
    if not isinstance(tl["lenses"], list) or len(tl["lenses"]) != 3:
        raise c.fail(f"{w}.lenses", "a list of exactly 3 lenses", tl["lenses"])
    lenses = []
    for i, item in enumerate(tl["lenses"]):
        where = f"{w}.lenses[{i}]"
        c.keys(item, where, ["keep", "drop", "axes", "matrix"], required=True)
        axes = c.names(item["axes"], f"{where}.axes", most=2, least=2)
        keep, drop = c.name(item["keep"], f"{where}.keep"), c.name(item["drop"], f"{where}.drop")
        for key, name in (("axes[0]", axes[0]), ("axes[1]", axes[1])):
            _lens_name(c, name, f"{where}.{key}", LENS_NAME_WIDTH, "its panel, a third of the frame wide, names "
                       "its axes")
        for key, name in (("keep", keep), ("drop", drop)):    # wrapped in the panel's heading: word by word
            _lens_name(c, name, f"{where}.{key}", LENS_NAME_WIDTH, "its panel's heading, a third of the frame "
                       "wide, wraps between words but not inside one", words=True)
        matrix = c.matrix(item["matrix"], f"{where}.matrix", "weight", d, 2,
                          why=f" (one row per trait in {w}.traits ({d}), 2 columns)")
        for r, row in enumerate(matrix):
            _lens_numbers(c, row, f"{where}.matrix[{r}]")
        lenses.append(Lens(keep, drop, (axes[0], axes[1]), matrix))
    return ThreeLensesParams(traits, tuple(words), tuple(lenses))


def _lens_name(c: _Checker, name: Named, where: str, most: int, why: str, words: bool = False) -> None:
    """A three_lenses name of at most ``most`` columns in each language (a
    Chinese character counts as 2); with ``words``, each of its words (a run
    of letters a line cannot break: no space, no Chinese character in it)."""
    for lang in ("zh", "en"):
        text = getattr(name, lang)
        runs = re.findall(r"[^\s\u2e80-\u9fff\uff00-\uffef\u3000-\u303f]+", text) if words else [text]
        if any(_name_width(run) > most for run in runs):
            what = "words" if words else "a name"
            raise c.fail(f"{where}.{lang}", f"{what} of at most {most} letters (a Chinese character counts as 2): "
                         f"{why}", text)


def _lens_numbers(c: _Checker, values: tuple, where: str) -> tuple:
    """Numbers the lenses write out term by term: at most LENS_DIGITS significant digits, a finite decimal."""
    for j, v in enumerate(values):
        q = Fraction(v)
        digits = None
        for places in range(8):        # the shortest decimal that is v, if any
            if (q * 10 ** places).denominator == 1:
                digits = len(str(abs(q.numerator * 10 ** places // q.denominator)).strip("0")) if q else 1
                break
        if digits is None or digits > LENS_DIGITS:
            raise c.fail(f"{where}[{j}]", f"a number of at most {LENS_DIGITS} significant digits (like 0.5, -1.5, "
                         "0.25 or 3): the scene writes every product of the worked example out in full, at a "
                         "readable size", _Plain(str(v) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
                                                 if digits is None else _decimal(q)))
    return values


def _decimal(q: Fraction) -> str:
    places = next(p for p in range(8) if (q * 10 ** p).denominator == 1)
    return f"{float(q):.{places}f}"


def _shadow(c: _Checker, sp: dict) -> ShadowParams:
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
    corners = cube_vertices(params.cube_center, float(params.cube_size))
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
    where = f"{w}.image"
    picture = generated(h, wd)
    if image:
        try:      # inside the lesson's folder: what travels with the lesson (and to a Dask worker)
            real = inside(c.path.parent, image, "picture")
        except Unsafe as err:
            raise c.error(where, f"{err}; put the picture in the lesson's folder (or a folder inside "
                                 "it) and name it relative to the lesson") from None
        picture = read_picture(real, h, wd, lambda message: c.error(where, message), shown_as=image)
    return PhotoFilterParams(
        image=image, size=(h, wd), pixel=(row, col),
        tint_strength=c.number(pf["tint_strength"], f"{w}.tint_strength", "tint"),
        darken_factor=c.number(pf["darken_factor"], f"{w}.darken_factor", "darken"),
        downsample=factor,
        **{k: c.matrix(pf[k], f"{w}.{k}", "colour", 3, 3, why=" (a colour filter: [r, g, b] @ M)")
           for k in ("query_filter", "key_filter", "value_filter")},
        picture=picture)


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
    c.narrow(jobs, f"{w}.jobs", JOB_LETTERS[people],
             f"with {people} guests ({w}.people), to fit a row of the party table")
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
    params = AttentionParams(
        tokens=tokens, traits=traits, embeddings=X, qk_dims=qk, v_dims=v, **mats,
        focus=c.index(at["focus"], "attention.focus", n, "attention.tokens"),
        query=c.index(at["query"], "attention.query", n, "attention.tokens"),
        causal_mask=c.boolean(at["causal_mask"], "attention.causal_mask"),
        temperature=c.number(at["temperature"], "attention.temperature", "temperature"))
    c.narrow(tokens, "attention.tokens", TOKEN_LETTERS[n],
             f"with {n} token{'s' if n > 1 else ''}, to stand over a column of the score grid")
    c.narrow(traits, "attention.traits", TRAIT_LETTERS, "to stand beside a bar, left of the heat-maps")
    for key, dims in (("qk_dims", qk), ("v_dims", v)):
        c.narrow(dims, f"attention.{key}", DIM_LETTERS, "to stand over a column of a heat-map")
    _attention_numbers(c, params)
    return params


def _attention_numbers(c: _Checker, p: AttentionParams) -> None:
    """q, k, v and the scores small enough to be written where the scenes write them."""
    X, W_Q, W_K, W_V = p.arrays()
    projected = {}
    for name, W, role, dims in (("W_Q", W_Q, "q", p.qk_dims), ("W_K", W_K, "k", p.qk_dims),
                                ("W_V", W_V, "v", p.v_dims)):
        M = projected[role] = X @ W
        i, j = np.unravel_index(np.abs(M).argmax(), M.shape)
        if abs(M[i, j]) >= MAX_PROJECTED + 0.005:
            raise c.error(f"attention.{name}", f"expected weights that keep every entry of {role} = x {name} "
                          f"within ±{MAX_PROJECTED} (one digit before the point, written beside each token), "
                          f"found {M[i, j]:.2f} ({role} of {_show(p.tokens[i].en)}, {_show(dims[j].en)})")
    S = projected["q"] @ projected["k"].T
    i, j = np.unravel_index(np.abs(S).argmax(), S.shape)
    if abs(S[i, j]) >= MAX_SCORE + 0.005:
        raise c.error("attention.W_K", f"expected W_Q and W_K that keep every score q · k within ±{MAX_SCORE} "
                      f"(a cell of the score grid), found {S[i, j]:.2f} (q of {_show(p.tokens[i].en)} · k of "
                      f"{_show(p.tokens[j].en)})")
