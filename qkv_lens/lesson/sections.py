"""Reading a lesson: every section the scenes declare (``declared``), read
key by key (``keys``), then the rules that tie a section's keys together
beyond their sizes (a cube in front of the wall, W of rank 2, products of
counts kept bounded, the picture read from its file)."""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from qkv_lens.languages import LanguageError, current, offered
from qkv_lens.languages import language as column
from qkv_lens.numbers import plain_number
from qkv_lens.store import Unsafe, inside
from qkv_math import cube_vertices, worked_product

from .bounds import (
    DIM_LETTERS,
    JOB_LETTERS,
    LENS_DIGITS,
    LENS_NAME_WIDTH,
    LENS_TRAIT_WIDTH,
    MAX_CHAPTER_TITLE,
    MAX_CHAPTERS,
    MAX_LESSON_SCENES,
    MAX_PARTIES,
    MAX_PROJECTED,
    MAX_SAMPLED,
    MAX_SCORE,
    TOKEN_LETTERS,
    TRAIT_LETTERS,
    WORKED_DIGITS,
    WORKED_ROW_CHARACTERS,
)
from .checks import _Checker, _name_width, _Plain, _show, _show_path, no_name
from .declared import DeclarationError, discover, discover_lesson
from .files import defaults
from .keys import read_section, record_type
from .picture import generated, read_picture
from .schema import VOICES, Chapter, Lesson, LessonError, Named, written_as_fraction


def parse_lesson(raw: dict, path: Path, language: str | None = None) -> Lesson:
    """Validate the table ``raw`` read from ``path`` (keys left out take the
    shipped lesson's values); ``language`` (or QKV_LANG) overrides the file's."""
    c = _Checker(path)
    if not isinstance(raw, dict):
        raise c.fail("", "a table of sections", raw)
    c.texts(raw)
    try:
        declared = discover_lesson(path.parent)
    except DeclarationError as err:
        raise LessonError(str(err)) from None
    base = defaults()
    own = [name for name in declared.sections if name not in base]    # the teacher's: no shipped values
    c.keys(raw, "", [*base, *own])
    merged = {}
    for name, default in base.items():
        if isinstance(default, dict):
            merged[name] = {**default, **c.keys(raw.get(name, {}), name, list(default))}
        else:
            merged[name] = raw.get(name, default)
    for name in own:
        merged[name] = dict(c.keys(raw.get(name, {}), name, list(declared.sections[name].keys), required=True))

    override = language or os.environ.get("QKV_LANG")
    lang = override or merged["language"]
    where = "language (--lang / QKV_LANG)" if override else "language"
    if not isinstance(lang, str) or lang not in current().rows:
        raise c.fail(where, f'one of {", ".join(map(repr, offered()))} (the languages of the text tables)', lang)
    try:
        column(lang)             # declared, with a table, every text key in it
    except LanguageError as err:
        raise c.error(where, str(err)) from None
    c.lang = lang
    voice = merged["voice"]
    if voice not in VOICES:
        raise c.fail("voice", f'one of {", ".join(map(repr, VOICES))}', voice)
    checkpoints, pass_score = merged["checkpoints"], merged["pass_score"]
    if not isinstance(checkpoints, bool):
        raise c.fail("checkpoints", "true or false", checkpoints)
    if isinstance(pass_score, bool) or not isinstance(pass_score, (int, float)) or not 0 <= pass_score <= 1:
        raise c.fail("pass_score", "a number from 0 to 1 (the share of checkpoints right to pass, like 0.8)",
                     pass_score)

    params = {}
    for name, decl in declared.sections.items():
        values = read_section(c, name, decl.keys, merged[name])
        RULES.get(name, _no_rule)(c, values, merged[name])
        params[name] = record_type(decl.cls, tuple(decl.keys))(**values)
    one_data_set(c, params, raw)
    chapters = read_chapters(c, merged["chapters"], declared.scenes)
    lesson = Lesson(path=path, language=lang, voice=voice, params=params, sections=merged,
                    chapters=chapters, named=tuple(c.named), checkpoints=checkpoints, pass_score=float(pass_score))
    return for_language(lesson, lang)


def _same(a: Named, b: Named) -> bool:
    """Whether two names name one thing: the same name in some language."""
    return any(text == b_text for lang, text in a.names for b_lang, b_text in b.names if lang == b_lang)


def one_data_set(c: _Checker, params: dict[str, Any], raw: dict[str, Any]) -> None:
    """A word in two scenes has one value per trait the two share: a token
    of [attention] named like a word of [three_lenses] (in some language)
    carries that word's value on every trait they both name, so a word's
    tech is the same number in ThreeLenses and QKVProjection.  The message
    names the key the file (``raw``) changed from the shipped lesson, the
    other one as what is expected."""
    lenses, attention = params.get("three_lenses"), params.get("attention")
    if lenses is None or attention is None:
        return
    shipped = defaults()
    edited = {name: raw.get(name, {}).get(key, shipped[name][key]) != shipped[name][key]
              for name, key in (("three_lenses", "words"), ("attention", "embeddings"))}
    lens_side = edited["three_lenses"] and not edited["attention"]    # the side the file changed
    for t, token in enumerate(attention.tokens):
        for w, word in enumerate(lenses.words):
            if not _same(token, word.names):
                continue
            for j, trait in enumerate(attention.traits):
                for i, lens_trait in enumerate(lenses.traits):
                    if not _same(trait, lens_trait) or attention.embeddings[t][j] == word.traits[i]:
                        continue
                    here = (f"three_lenses.words[{w}].traits[{i}]", word.traits[i])
                    there = (f"attention.embeddings[{t}][{j}]", attention.embeddings[t][j])
                    (key, found), (other, value) = (here, there) if lens_side else (there, here)
                    raise c.fail(key, f"{plain_number(value)}, the value of {other} (a word has one value "
                                      f"per trait in the whole lesson: edit both, or name them apart)", found)


def for_language(lesson: Lesson, lang: str) -> Lesson:
    """``lesson`` in the language ``lang``: its text column complete
    (``qkv_lens.languages.language``) and every name of the file given in
    it.  Raises LessonError in one line naming the first name that lacks
    it, or every text key the column lacks."""
    file = _show_path(lesson.path)
    try:
        column(lang)
    except LanguageError as err:
        raise LessonError(f"{file}: language {lang}: {err}") from None
    for where, named in lesson.named:
        if lang not in named.languages:
            raise LessonError(f"{file}: {where}: {no_name(lang, named)}")
    return lesson if lesson.language == lang else replace(lesson, language=lang)


def read_chapters(c: _Checker, raw: Any, scenes: tuple = ()) -> tuple[Chapter, ...]:
    """``chapters``: the lesson's scenes in order, under headings.  Each
    chapter is ``{title = {zh = ..., en = ...}, scenes = ["ClassName", ...]}``;
    a scene is named by its class (any case) and appears once in the lesson."""
    known = {d.name.lower(): d.name for d in scenes or discover().scenes}
    want = f"a list of 1 to {MAX_CHAPTERS} chapters ({{title = {{zh = ..., en = ...}}, scenes = [...]}})"
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_CHAPTERS:
        raise c.fail("chapters", want, raw)
    chapters, seen = [], {}
    for i, table in enumerate(raw):
        where = f"chapters[{i}]"
        c.keys(table, where, ["title", "scenes"], required=True)
        raw_title = c.keys(table["title"], f"{where}.title", list(offered()))
        if not raw_title:
            raise c.error(f"{where}.title", f"expected a title in at least one language ({', '.join(offered())})")
        for lang, text in raw_title.items():
            if not isinstance(text, str) or not text.strip() or len(text) > MAX_CHAPTER_TITLE:
                raise c.fail(f"{where}.title.{lang}", f"a title of 1 to {MAX_CHAPTER_TITLE} characters "
                             "(one line of the page and the deck)", text)
        title = Named.of({lang: text.strip() for lang, text in raw_title.items()})
        c.named.append((f"{where}.title", title))
        names = table["scenes"]
        if not isinstance(names, list) or not names:
            raise c.fail(f"{where}.scenes", "a non-empty list of scene names (`qkv-lens list --all` shows them)",
                         names)
        scenes = []
        for j, name in enumerate(names):
            at = f"{where}.scenes[{j}]"
            if not isinstance(name, str) or name.lower() not in known:
                import difflib
                close = difflib.get_close_matches(str(name)[:40], list(known.values()), n=1, cutoff=0.5)
                hint = f' (did you mean "{close[0]}"?)' if close else ""
                raise c.error(at, f"unknown scene {_show(name)}{hint}; `qkv-lens list --all` shows the scenes")
            canonical = known[name.lower()]
            if canonical in seen:
                raise c.error(at, f"{canonical} is already in the lesson, at {seen[canonical]}; "
                              "a scene appears once")
            seen[canonical] = at
            scenes.append(canonical)
        chapters.append(Chapter(title, tuple(scenes)))
    if len(seen) > MAX_LESSON_SCENES:
        raise c.error("chapters", f"expected at most {MAX_LESSON_SCENES} scenes in all, found {len(seen)}")
    return tuple(chapters)


def _no_rule(c: _Checker, values: dict[str, Any], raw: dict[str, Any]) -> None:
    return None


# -- the rules that tie a section's keys together ------------------------------------

def _up_projection(c: _Checker, values: dict[str, Any], raw: dict[str, Any]) -> None:
    if np.linalg.matrix_rank(np.array(values["W"], dtype=float)) < 2:   # entries have 6 decimals at most
        raise c.error("up_projection.W", "expected two rows pointing different ways (rank 2), found rows "
                      "that are zero or parallel: the plane would be flattened onto a line or a point, not "
                      "lifted into space")


def _shadow(c: _Checker, values: dict[str, Any], raw: dict[str, Any]) -> None:
    """The whole cube stays in front of the wall at every angle the scene
    shows, and every light reaches the wall at a slant (not grazing it, so
    shadows stay within about ten times the cube's distance from the wall)."""
    w = "shadow_projection"
    corners = cube_vertices(values["cube_center"], float(values["cube_size"]))
    turn = float(values["wall_turn_degrees"])
    for deg in np.linspace(0, turn, 7):
        a = np.deg2rad(deg)
        n = np.array([np.cos(a), np.sin(a), 0.0])
        if (corners @ n).min() <= 0:
            raise c.fail(f"{w}.cube_center", f"a cube wholly in front of the wall at every turn up to "
                         f"{turn:g} degrees", raw["cube_center"])
        for key in ("light", "light_end"):
            d = np.array(values[key], dtype=float)
            if d @ n / np.linalg.norm(d) > -0.1:
                raise c.fail(f"{w}.{key}", "a light direction pointing towards the wall (n . d < 0), "
                             "at least 6 degrees off the wall", raw[key])
        lamp = np.array(values["lamp"], dtype=float) @ n
        if lamp <= (corners @ n).max() / 0.9:
            raise c.fail(f"{w}.lamp", "a lamp further from the wall than every corner of the cube "
                         "(by a tenth of its own distance at least)", raw["lamp"])


def _photo_filter(c: _Checker, values: dict[str, Any], raw: dict[str, Any]) -> None:
    """The worked pixel inside the picture, a down-sampling factor that
    divides both sides, and the picture itself: generated, or read from its
    file inside the lesson's folder."""
    w = "photo_filter"
    h, wd = values["size"]
    values["pixel"] = (c.integer(raw["pixel"][0], f"{w}.pixel[0]", 0, h - 1),
                       c.integer(raw["pixel"][1], f"{w}.pixel[1]", 0, wd - 1))
    factor = c.integer(raw["downsample"], f"{w}.downsample", 1, min(h, wd))
    if h % factor or wd % factor:
        raise c.fail(f"{w}.downsample", f"a factor that divides both sides of the picture ({h}x{wd})", factor)
    image, where = values["image"], f"{w}.image"
    values["picture"] = generated(h, wd)
    if image:
        try:      # inside the lesson's folder: what travels with the lesson (and to a Dask worker)
            real = inside(c.path.parent, image, "picture")
        except Unsafe as err:
            raise c.error(where, f"{err}; put the picture in the lesson's folder (or a folder inside "
                                 "it) and name it relative to the lesson") from None
        values["picture"] = read_picture(real, h, wd, lambda message: c.error(where, message), shown_as=image)


def _dot_product(c: _Checker, values: dict[str, Any], raw: dict[str, Any]) -> None:
    w = "dot_product_softmax"
    samples, d_k = values["samples"], values["d_k"]
    if samples * sum(d_k) > MAX_SAMPLED:
        raise c.fail(f"{w}.samples", f"samples x (sum of d_k) at most {MAX_SAMPLED} (random numbers "
                     "drawn)", _Plain(f"{samples} x {sum(d_k)} = {samples * sum(d_k)}"))


def _training(c: _Checker, values: dict[str, Any], raw: dict[str, Any]) -> None:
    w = "training"
    people = values["people"]
    if len(values["jobs"]) <= people:
        raise c.fail(f"{w}.jobs", f"more professions than {w}.people ({people}), so no party "
                     "holds every profession", raw["jobs"])
    c.narrow(values["jobs"], f"{w}.jobs", JOB_LETTERS[people],
             f"with {people} guests ({w}.people), to fit a row of the party table")
    steps, batch = values["steps"], values["batch"]
    if steps * batch > MAX_PARTIES:
        raise c.fail(f"{w}.batch", f"{w}.steps x {w}.batch at most {MAX_PARTIES} (parties trained on)",
                     _Plain(f"{steps} x {batch} = {steps * batch}"))


def _worked_example(c: _Checker, values: dict[str, Any], raw: dict[str, Any]) -> None:
    """The worked example writes every number out in full, exactly (the
    entries, each product x_i W_ij and each output), and x W = y across the
    frame: refuse what cannot be read there."""
    w = "worked_example"
    x, W = values["x"], values["W"]
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


def _three_lenses(c: _Checker, values: dict[str, Any], raw: dict[str, Any]) -> None:
    """Every name fits where the scene writes it (the table's heads, beside
    a point, a panel's heading) and every number is a short decimal (the
    worked product writes each term out)."""
    w = "three_lenses"
    for i, t in enumerate(values["traits"]):
        _lens_name(c, t, f"{w}.traits[{i}]", LENS_TRAIT_WIDTH, "the table heads a column with each trait")
    for i, word in enumerate(values["words"]):
        _lens_name(c, word.names, f"{w}.words[{i}]", LENS_NAME_WIDTH,
                   "each lens panel writes every word beside its point")
        _lens_numbers(c, word.traits, f"{w}.words[{i}].traits")
    for i, lens in enumerate(values["lenses"]):
        where = f"{w}.lenses[{i}]"
        for k, name in enumerate(lens.axes):
            _lens_name(c, name, f"{where}.axes[{k}]", LENS_NAME_WIDTH, "its panel, a third of the frame wide, "
                       "names its axes")
        for key in ("keep", "drop"):     # wrapped in the panel's heading: word by word
            _lens_name(c, getattr(lens, key), f"{where}.{key}", LENS_NAME_WIDTH, "its panel's heading, a third "
                       "of the frame wide, wraps between words but not inside one", words=True)
        for r, row in enumerate(lens.matrix):
            _lens_numbers(c, row, f"{where}.matrix[{r}]")


def _lens_name(c: _Checker, name: Named, where: str, most: int, why: str, words: bool = False) -> None:
    """A three_lenses name of at most ``most`` columns in each language (a
    Chinese character counts as 2); with ``words``, each of its words (a run
    of letters a line cannot break: no space, no Chinese character in it)."""
    for lang in name.languages:
        text = name.name(lang)
        runs = re.findall(r"[^\s\u2e80-\u9fff\uff00-\uffef\u3000-\u303f]+", text) if words else [text]
        if any(_name_width(run) > most for run in runs):
            what = "words" if words else "a name"
            raise c.fail(f"{where}.{lang}", f"{what} of at most {most} letters (a Chinese character counts as 2): "
                         f"{why}", text)


def _lens_numbers(c: _Checker, values: tuple, where: str) -> None:
    """Numbers the lenses write out term by term: at most LENS_DIGITS significant digits, a finite decimal."""
    for j, v in enumerate(values):
        q = Fraction(v)
        places = next((p for p in range(8) if (q * 10 ** p).denominator == 1), None)   # the shortest decimal
        digits = None if places is None else \
            len(str(abs(q.numerator * 10 ** places // q.denominator)).strip("0")) if q else 1
        if digits is None or digits > LENS_DIGITS:
            found = f"{q.numerator}/{q.denominator}" if places is None else f"{float(q):.{places}f}"
            raise c.fail(f"{where}[{j}]", f"a number of at most {LENS_DIGITS} significant digits (like 0.5, -1.5, "
                         "0.25 or 3): the scene writes every product of the worked example out in full, at a "
                         "readable size", _Plain(found))


def _attention(c: _Checker, values: dict[str, Any], raw: dict[str, Any]) -> None:
    """Names as wide as the grids and bars hold them, and q, k, v and the
    scores small enough to be written where the scenes write them."""
    tokens = values["tokens"]
    n = len(tokens)
    c.narrow(tokens, "attention.tokens", TOKEN_LETTERS[n],
             f"with {n} token{'s' if n > 1 else ''}, to stand over a column of the score grid")
    c.narrow(values["traits"], "attention.traits", TRAIT_LETTERS, "to stand beside a bar, left of the heat-maps")
    for key in ("qk_dims", "v_dims"):
        c.narrow(values[key], f"attention.{key}", DIM_LETTERS, "to stand over a column of a heat-map")
    X = np.array(values["embeddings"], dtype=float)
    projected = {}
    for name, role, dims in (("W_Q", "q", values["qk_dims"]), ("W_K", "k", values["qk_dims"]),
                             ("W_V", "v", values["v_dims"])):
        M = projected[role] = X @ np.array(values[name], dtype=float)
        i, j = np.unravel_index(np.abs(M).argmax(), M.shape)
        if abs(M[i, j]) >= MAX_PROJECTED + 0.005:
            raise c.error(f"attention.{name}", f"expected weights that keep every entry of {role} = x {name} "
                          f"within ±{MAX_PROJECTED} (one digit before the point, written beside each token), "
                          f"found {M[i, j]:.2f} ({role} of {_show(tokens[i].name(c.lang))}, "
                          f"{_show(dims[j].name(c.lang))})")
    S = projected["q"] @ projected["k"].T
    i, j = np.unravel_index(np.abs(S).argmax(), S.shape)
    if abs(S[i, j]) >= MAX_SCORE + 0.005:
        raise c.error("attention.W_K", f"expected W_Q and W_K that keep every score q · k within ±{MAX_SCORE} "
                      f"(a cell of the score grid), found {S[i, j]:.2f} (q of {_show(tokens[i].name(c.lang))} · k of "
                      f"{_show(tokens[j].name(c.lang))})")


RULES: dict[str, Callable[[_Checker, dict[str, Any], dict[str, Any]], None]] = {
    "up_projection": _up_projection, "shadow_projection": _shadow, "photo_filter": _photo_filter,
    "dot_product_softmax": _dot_product, "training": _training, "worked_example": _worked_example,
    "three_lenses": _three_lenses, "attention": _attention,
}
