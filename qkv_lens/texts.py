"""Every sentence the lesson shows or speaks, one column per language (the
tables are the data file ``texts.toml`` beside this module, read by
``qkv_lens.languages``, with any teacher's overlay laid over them).

One glossary keeps each term translated the same way: a text writes
``{g:query}`` and gets 查询 or "query".  Other ``{name}`` fields are filled
from qkv_math results by the scene (never typed in here).
"""
from __future__ import annotations

import re
from importlib import resources

from qkv_lens.languages import FORMULAS, GLOSSARY, TEXTS

__all__ = ["FORMULAS", "GLOSSARY", "TEXTS", "section_texts", "tr"]

_GLOSS = re.compile(r"\{g:([a-z_]+)\}")


def tr(lang: str, key: str, **fields) -> str:
    """The text ``key`` in ``lang`` with glossary terms and ``fields`` filled
    (KeyError for a key or a glossary term the language lacks: never a blank)."""
    try:
        template = TEXTS[lang][key]
    except KeyError:
        raise KeyError(f"no text {key!r} for language {lang!r}") from None

    def term(m: re.Match) -> str:
        try:
            return GLOSSARY[m.group(1)][lang]
        except KeyError:
            raise KeyError(f"no glossary term {m.group(1)!r} for language {lang!r} (in {key!r})") from None

    text = _GLOSS.sub(term, template)
    return text.format(**fields) if fields else text


def section_texts(lang: str, section: str) -> dict[str, str]:
    """All texts of one scene section in one language (for cache keys)."""
    prefix = section + "."
    return {k: v for k, v in TEXTS[lang].items() if k.startswith(prefix)}


# -- the teacher's texts: texts.toml beside their lesson --------------------------------

LESSON_TEXTS = "texts.toml"
MAX_SENTENCE = 1000      # characters of one text of a teacher's table
_KEY = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)*")


def use_lesson_texts(lesson_dir=None) -> None:
    """Use the texts of the lesson in ``lesson_dir``: the shipped tables
    with its ``texts.toml`` (if any) laid over them key by key
    (``qkv_lens.languages.load_tables``: texts added or put in place of the
    shipped ones, glossary terms, formulas, even a new language with its
    ``[languages]`` row).  ``None``: the shipped tables alone.  The file is
    read by the lesson's checked reader (``qkv_lens.lesson.read_toml``: a
    regular file, size capped, parsed in bounded time) and every text is
    checked; LessonError (one line) for a bad one.  Applies to the whole
    process: ``tr`` and ``section_texts`` (cache keys) then read the
    lesson's texts."""
    from pathlib import Path

    from qkv_lens.languages import META, LanguageError, install, load_tables
    from qkv_lens.lesson import LessonError, read_toml
    from qkv_lens.lesson.checks import _clean, _show

    path = Path(lesson_dir) / LESSON_TEXTS if lesson_dir is not None else None
    shipped = Path(str(resources.files("qkv_lens").joinpath(LESSON_TEXTS)))
    if path is None or not path.is_file() or path.resolve() == shipped.resolve():   # the shipped lesson: none
        install(load_tables())
        return
    raw = read_toml(path)

    def fail(where: str, expected: str, found) -> LessonError:
        return LessonError(f"{path}: {where}: expected {expected}, found {_show(found)}")

    def text(value, where: str) -> None:
        if not isinstance(value, str) or len(value) > MAX_SENTENCE or not _clean(value):
            raise fail(where, f"a text of at most {MAX_SENTENCE} characters without control characters", value)

    for name, entries in raw.items():
        if not isinstance(entries, dict):
            raise fail(_show(name), "a table (glossary, formulas, languages or a language's texts)", entries)
        if name == "languages":
            continue                                  # rows: checked by load_tables
        for key, value in entries.items():
            where = f"{name}.{_show(key)}"
            if not _KEY.fullmatch(key):
                raise fail(where, "a key of lower-case words joined by dots", key)
            if name == "glossary":
                if not isinstance(value, dict) or not value:
                    raise fail(where, "a term in each language ({ en = ..., ... })", value)
                for lang, term in value.items():
                    text(term, f"{where}.{lang}")
            elif name not in META:
                text(value, where)
    try:
        install(load_tables((raw, str(path))))
    except LanguageError as err:
        raise LessonError(str(err)) from None
