"""Every sentence the lesson shows or speaks, in Chinese and English
(the table is the data file ``texts.toml`` beside this module).

One glossary keeps each term translated the same way: a text writes
``{g:query}`` and gets 查询 or "query".  Other ``{name}`` fields are filled
from qkv_math results by the scene (never typed in here).
"""
from __future__ import annotations

import re
import sys
from importlib import resources

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_TABLE = tomllib.loads(resources.files("qkv_lens").joinpath("texts.toml").read_text(encoding="utf-8"))
GLOSSARY: dict[str, dict[str, str]] = _TABLE["glossary"]
TEXTS: dict[str, dict[str, str]] = {"zh": _TABLE["zh"], "en": _TABLE["en"]}

_GLOSS = re.compile(r"\{g:([a-z_]+)\}")


def tr(lang: str, key: str, **fields) -> str:
    """The text ``key`` in ``lang`` with glossary terms and ``fields`` filled."""
    try:
        template = TEXTS[lang][key]
    except KeyError:
        raise KeyError(f"no text {key!r} for language {lang!r}") from None
    text = _GLOSS.sub(lambda m: GLOSSARY[m.group(1)][lang], template)
    return text.format(**fields) if fields else text


def section_texts(lang: str, section: str) -> dict[str, str]:
    """All texts of one scene section in one language (for cache keys)."""
    prefix = section + "."
    return {k: v for k, v in TEXTS[lang].items() if k.startswith(prefix)}


# -- the teacher's texts: texts.toml beside their lesson --------------------------------

LESSON_TEXTS = "texts.toml"
MAX_SENTENCE = 1000      # characters of one text of a teacher's table
_SHIPPED = ({k: dict(v) for k, v in GLOSSARY.items()}, {k: dict(v) for k, v in TEXTS.items()})
_KEY = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)*")


def use_lesson_texts(lesson_dir=None) -> None:
    """Use the texts of the lesson in ``lesson_dir``: the shipped table, with
    the keys of its ``texts.toml`` (if any) added or put in place of the
    shipped ones, key by key (the same tables: one per language, and
    ``glossary``, each term in every language).  ``None``: the shipped
    table alone.  The file is read by the lesson's checked reader
    (``qkv_lens.lesson.read_toml``: a regular file, size capped, parsed in
    bounded time); LessonError (one line) for a bad one.  Applies to the
    whole process: ``tr`` and ``section_texts`` (cache keys) then read the
    lesson's texts."""
    from pathlib import Path

    from qkv_lens.lesson import LANGUAGES, LessonError, read_toml
    from qkv_lens.lesson.checks import _clean, _show

    glossary = {k: dict(v) for k, v in _SHIPPED[0].items()}
    table = {k: dict(v) for k, v in _SHIPPED[1].items()}
    path = Path(lesson_dir) / LESSON_TEXTS if lesson_dir is not None else None
    shipped = Path(str(resources.files("qkv_lens").joinpath(LESSON_TEXTS)))
    if path is not None and path.is_file() and path.resolve() != shipped.resolve():   # the shipped lesson: none
        raw = read_toml(path)

        def fail(where: str, expected: str, found) -> LessonError:
            return LessonError(f"{path}: {where}: expected {expected}, found {_show(found)}")

        def text(value, where: str) -> str:
            if not isinstance(value, str) or len(value) > MAX_SENTENCE or not _clean(value):
                raise fail(where, f"a text of at most {MAX_SENTENCE} characters without control characters",
                           value)
            return value

        for name, entries in raw.items():
            if name not in ("glossary", *LANGUAGES):
                raise fail(_show(name), f"a table named glossary or a language ({', '.join(LANGUAGES)})", name)
            if not isinstance(entries, dict):
                raise fail(name, "a table of texts", entries)
            for key, value in entries.items():
                where = f"{name}.{_show(key)}"
                if not _KEY.fullmatch(key):
                    raise fail(where, "a key of lower-case words joined by dots", key)
                if name != "glossary":
                    table[name][key] = text(value, where)
                    continue
                if not isinstance(value, dict) or set(value) != set(LANGUAGES):
                    raise fail(where, f"a term in every language ({{{', '.join(f'{l} = ...' for l in LANGUAGES)}}})",
                               value)
                glossary[key] = {lang: text(value[lang], f"{where}.{lang}") for lang in LANGUAGES}
    for shared, new in ((GLOSSARY, glossary), (TEXTS, table)):
        shared.clear()
        shared.update(new)
