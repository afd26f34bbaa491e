"""The generic checks of a lesson's values: numbers of a kind, vectors,
matrices, names, texts; and one-line messages with the found value shown
escaped (so a value cannot spoof the terminal)."""
from __future__ import annotations

import datetime
import difflib
import math
import unicodedata
from fractions import Fraction
from pathlib import Path
from typing import Any

from qkv_lens.languages import offered
from qkv_lens.store import shown

from .bounds import (
    _BAD_CATEGORIES,
    _NUMBER_TEXT,
    KINDS,
    MAX_DENOMINATOR,
    MAX_ENTRIES,
    MAX_NUMBER_TEXT,
    MAX_TEXT,
    NAME_WIDTH,
)
from .glyphs import undrawable
from .schema import LessonError, Named, Written
from .widths import letters_wide


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
    return shown(path)


def _name_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class _Checker:
    def __init__(self, path: Path):
        self.path = path
        self.file = _show_path(path)
        self.named: list[tuple[str, Named]] = []     # every name read, by where it is
        self.lang = ""                               # the lesson's language, once known

    def named_in(self, value: Any, where: str, other: list[str] | None = None) -> Named:
        """The names of ``value``, a table whose keys are languages of the
        text tables (and, with ``other``, also those keys, not read here):
        at least one, and one in the lesson's language (``lang``); each a
        name the scenes can draw (``text``).  Other languages a lesson is
        rendered in are checked by ``sections.for_language``."""
        langs = list(offered())
        self.keys(value, where, langs + (other or []))
        found = {lang: self.text(value[lang], f"{where}.{lang}") for lang in langs if lang in value}
        if not found:
            raise self.error(where, f"expected a name in at least one language ({', '.join(langs)})")
        named = Named.of(found)
        if self.lang and self.lang not in found:
            raise self.error(where, no_name(self.lang, named))
        self.named.append((where, named))
        return named

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
        if isinstance(value, str) and "/" in value and v.denominator != 1:
            v = Written(v)             # shown as written: 1/2, not 0.5
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

    def nonzero(self, vec: tuple[Fraction, ...], where: str, noun: str = "direction") -> tuple[Fraction, ...]:
        if all(v == 0 for v in vec):
            raise self.fail(where, f"a non-zero {noun}", _Plain("[" + ", ".join("0" for _ in vec) + "]"))
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
        return self.named_in(value, where)

    def names(self, value: Any, where: str, most: int, least: int = 1) -> tuple[Named, ...]:
        want = ("a non-empty" if least == 1 else f"a {least} or more long") + \
            f" list of {{zh = ..., en = ...}} names (at most {most})"
        if not isinstance(value, list) or not least <= len(value) <= most:
            raise self.fail(where, want, value)
        return tuple(self.name(item, f"{where}[{i}]") for i, item in enumerate(value))

    def narrow(self, names: tuple[Named, ...], where: str, letters: float, why: str) -> None:
        """Every name of ``names`` (in each language) at most ``letters``
        wide, as its language's font draws it (``widths.letters_wide``)."""
        for i, item in enumerate(names):
            for lang in item.languages:
                name = item.name(lang)
                wide = letters_wide(name, lang)
                if wide > letters + 1e-9:
                    raise self.error(f"{where}[{i}].{lang}",
                                     f"expected a name at most {letters:g} letters wide {why}, found "
                                     f"{_show(name)}: {wide:.1f} letters wide (a Chinese character counts "
                                     "2, m or W nearly 2)")

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
        """A name shown on screen: a non-blank text of at most NAME_WIDTH
        columns, every character one the scenes can draw (``glyphs``)."""
        if not isinstance(value, str) or not value.strip() or _name_width(value) > NAME_WIDTH:
            raise self.fail(where, f"a name of 1 to {NAME_WIDTH} letters (a Chinese character "
                            "counts as 2)", value)
        why = undrawable(value)
        if why:
            raise self.error(where, f"the name {_show(value)} cannot be drawn: it holds {why}")
        return value


def no_name(lang: str, named: Named) -> str:
    """What to say of a name that lacks the language ``lang``."""
    return (f"no name in {lang} (it has {', '.join(named.languages)}); add {lang} = \"...\" to render the "
            f"lesson in {lang}")


def _clean(text: str) -> bool:
    if text.isprintable():    # the fast path: no Cc, Cf, Cs, Zl, Zp (nor other spaces) at all
        return True
    return not any(unicodedata.category(ch) in _BAD_CATEGORIES for ch in text)


def _one_line(err: BaseException) -> str:
    return shown(" ".join(str(err).split()) or type(err).__name__)
