"""Reading a lesson: every section the scenes declare (``declared``), read
key by key (``keys``), then the rules that tie a section's keys together
beyond their sizes (a cube in front of the wall, W of rank 2, products of
counts kept bounded, the picture read from its file)."""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from qkv_lens.store import Unsafe, inside
from qkv_math import cube_vertices

from .bounds import MAX_PARTIES, MAX_SAMPLED
from .checks import _Checker, _Plain
from .declared import discover
from .files import defaults
from .keys import read_section, record_type
from .picture import generated, read_picture
from .schema import LANGUAGES, VOICES, Lesson


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

    params = {}
    for name, decl in discover().sections.items():
        values = read_section(c, name, decl.keys, merged[name])
        RULES.get(name, _no_rule)(c, values, merged[name])
        params[name] = record_type(decl.cls, tuple(decl.keys))(**values)
    return Lesson(path=path, language=lang, voice=voice, params=params, sections=merged)


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
    steps, batch = values["steps"], values["batch"]
    if steps * batch > MAX_PARTIES:
        raise c.fail(f"{w}.batch", f"{w}.steps x {w}.batch at most {MAX_PARTIES} (parties trained on)",
                     _Plain(f"{steps} x {batch} = {steps * batch}"))


RULES: dict[str, Callable[[_Checker, dict[str, Any], dict[str, Any]], None]] = {
    "up_projection": _up_projection, "shadow_projection": _shadow, "photo_filter": _photo_filter,
    "dot_product_softmax": _dot_product, "training": _training,
}
