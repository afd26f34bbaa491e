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

from qkv_lens.languages import FORMULAS, GLOSS, GLOSSARY, TEXTS

__all__ = ["FORMULAS", "GLOSSARY", "TEXTS", "section_texts", "tr"]


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

    text = GLOSS.sub(term, template)
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
    regular file, size capped, parsed in bounded time; a FIFO, a folder or
    a dangling symlink is refused) and every text is checked: its fields
    (``{name}``) those the shipped text of its key has, or for a new key
    of a teacher's scene those its module passes (``declared_fields``), its
    glossary terms known.  Every text a teacher's scene needs must be there
    in every language (``needed_texts``).  LessonError (one line) for a bad
    one.  Applies to the whole process: ``tr`` and ``section_texts`` (cache
    keys) then read the lesson's texts."""
    import os
    from pathlib import Path

    from qkv_lens.languages import META, LanguageError, install, load_tables
    from qkv_lens.lesson import DeclarationError, LessonError, read_toml
    from qkv_lens.lesson.checks import _clean, _show, _show_key
    from qkv_lens.lesson.declared import discover_lesson, teacher_folder
    from qkv_lens.store import shown

    path = Path(lesson_dir) / LESSON_TEXTS if lesson_dir is not None else None
    shipped = Path(str(resources.files("qkv_lens").joinpath(LESSON_TEXTS)))
    if path is None or path.resolve() == shipped.resolve():   # the shipped lesson: no teacher's texts
        install(load_tables())
        return
    try:
        found = discover_lesson(path.parent)
    except DeclarationError as err:
        raise LessonError(str(err)) from None
    mine = [s for s in found.scenes if s.path.parent == teacher_folder(path.parent)]
    if not os.path.lexists(path):
        tables = load_tables()
    else:
        raw = read_toml(path, "texts file")

        def fail(where: str, expected: str, value) -> LessonError:
            return LessonError(f"{shown(path)}: {where}: expected {expected}, found {_show(value)}")

        def text(value, where: str) -> None:
            if not isinstance(value, str) or len(value) > MAX_SENTENCE or not _clean(value):
                raise fail(where, f"a text of at most {MAX_SENTENCE} characters without control characters", value)

        for name, entries in raw.items():
            if not isinstance(entries, dict):
                raise fail(_show_key(name), "a table (glossary, formulas, languages or a language's texts)", entries)
            if name not in META and not _CODE.fullmatch(name):
                raise fail(_show_key(name), "a table glossary, formulas, languages or a language code (2 to 8 "
                           "lower-case letters, like es)", name)
            if name == "languages":
                continue                                  # rows: checked by load_tables
            for key, value in entries.items():
                where = f"{name}.{_show_key(key)}"
                if not _KEY.fullmatch(key):
                    raise fail(where, "a key of lower-case words joined by dots", key)
                if name == "glossary":
                    if not isinstance(value, dict) or not value:
                        raise fail(where, "a term in each language ({ en = ..., ... })", value)
                    for lang, term in value.items():
                        text(term, f"{where}.{_show_key(lang)}")
                elif name not in META:
                    text(value, where)
        try:
            tables = load_tables((raw, shown(path)), fields=declared_fields(mine))
        except LanguageError as err:
            raise LessonError(str(err)) from None
    lacking = []
    for scene in mine:
        langs = [f"[{lang}] {', '.join(missing)}" for lang, texts in tables.texts.items() if lang in tables.rows
                 for missing in [[key for key in needed_texts(scene) if key not in texts]] if missing]
        if langs:
            lacking.append(f"{scene.name} ({shown(scene.path.relative_to(path.parent))}) lacks {'; '.join(langs)}")
    if lacking:
        raise LessonError(f"{shown(path)}: your scenes need texts in every language: {'; '.join(lacking)}")
    install(tables)


_CODE = re.compile(r"[a-z]{2,8}")     # a language's table (languages._row checks its row the same way)


def needed_texts(scene) -> list[str]:
    """The texts a teacher's scene (a ``DeclaredScene``) needs in every
    language: those its module names (``.beat("intro_say")``: its section's
    ``intro_say``) and those the page and the exports read for every scene
    (``scene_texts``)."""
    section = scene.path.stem
    named = [f"{section}.{key}" for key, _ in scene.texts if key != "*"]
    return list(dict.fromkeys([*scene_texts(section), *named]))


def scene_texts(section: str) -> tuple[str, ...]:
    """What the page and the exports read of every scene, with no fields:
    its title and summary, its question and the words before its formula."""
    return f"{section}.title", f"{section}.summary", f"page.ask.{section}", f"export.formula.{section}"


def declared_fields(scenes):
    """``key -> the fields its text may hold`` for the new keys of a
    teacher's ``scenes``: what the scene's module passes to that key's
    ``beat``/``tr`` calls and to those whose key is computed (None: any,
    a ``**`` call); none for the texts the page and the exports read
    (``scene_texts``) and for keys no scene names."""
    by_section = {s.path.stem: dict(s.texts) for s in scenes}

    def fields(key: str) -> frozenset[str] | None:
        section, _, rest = key.partition(".")
        calls = by_section.get(section)
        if calls is None or key in scene_texts(section):
            return frozenset()
        named, computed = calls.get(rest, frozenset()), calls.get("*", frozenset())
        return None if named is None or computed is None else named | computed
    return fields
