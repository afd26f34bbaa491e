"""The vocabulary a lesson section is declared in: one ``Key`` per key, with
its kind (which fixes its range, ``bounds``) and a line of documentation.

A scene declares the section it reads as a ``Params`` class in its own
module, one annotated line per key: the annotation is the value's Python
type (what the scene works with), the assigned ``Key`` how the loader
reads it::

    class WorkedExampleParams(Params):
        \"\"\"[worked_example]: y = x W, written out term by term.\"\"\"
        section = "worked_example"
        x: tuple[Fraction, ...] = Vector("entry", most=WORKED_ROWS, doc="the input row vector")
        W: tuple[tuple[Fraction, ...], ...] = Matrix("entry", rows="x", doc="one row per entry of x")

A key's default is the shipped lesson's value (``qkv_lens/lesson.toml``); a
key may name an earlier key of its section where a size follows from it
(``rows="x"``: as many rows as ``x`` has entries).  The loader reads the
declarations from the scene modules' source without importing them
(``qkv_lens.lesson.declared``), so every argument of a ``Key`` is a
literal or one of the names this module exports.  Rules that tie keys
together beyond sizes live in ``qkv_lens.lesson.sections``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, make_dataclass
from fractions import Fraction
from typing import Any, ClassVar

from .bounds import (
    KINDS,
    MAX_DIMS,
    MAX_ENTRIES,
    MAX_JOBS,
    MAX_LENS_TRAITS,
    MAX_LENS_WORDS,
    MAX_PEOPLE,
    MAX_TOKENS,
    MAX_TRAITS,
    MAX_WORDS,
    MIN_PEOPLE,
    WORKED_COLUMNS,
    WORKED_ROWS,
)
from .checks import _Checker
from .schema import Named

# The names a declaration may use besides literals (``declared`` evaluates declarations with these only).
LIMITS = {"MAX_DIMS": MAX_DIMS, "MAX_ENTRIES": MAX_ENTRIES, "MAX_JOBS": MAX_JOBS,
          "MAX_LENS_TRAITS": MAX_LENS_TRAITS, "MAX_LENS_WORDS": MAX_LENS_WORDS, "MAX_PEOPLE": MAX_PEOPLE,
          "MAX_TOKENS": MAX_TOKENS, "MAX_TRAITS": MAX_TRAITS, "MAX_WORDS": MAX_WORDS, "MIN_PEOPLE": MIN_PEOPLE,
          "WORKED_COLUMNS": WORKED_COLUMNS, "WORKED_ROWS": WORKED_ROWS}


@dataclass
class Context:
    """What a key may refer to: the section's name and the keys read so far."""
    section: str
    values: dict[str, Any]

    def size(self, ref: int | str | None) -> int | None:
        """A size given as a number, or as the name of an earlier key (its length)."""
        return len(self.values[ref]) if isinstance(ref, str) else ref

    def qualified(self, ref: str) -> str:
        return f"{self.section}.{ref}"


@dataclass(frozen=True)
class Key:
    """How one key of a section is read; ``doc`` says what it is, ``room``
    why a list may hold no more than it does (what the frame has room for),
    said when a list is too long."""
    doc: str = field(default="", kw_only=True)
    room: str = field(default="", kw_only=True)

    def too_many(self, c: _Checker, value: Any, where: str, most: int | None, want: str) -> None:
        """Refuse a list ``value`` longer than ``most`` with ``want: room``."""
        if self.room and most and isinstance(value, list) and len(value) > most:
            raise c.fail(where, f"{want}: {self.room}", value)

    def read(self, c: _Checker, value: Any, where: str, ctx: Context) -> Any:
        raise NotImplementedError


@dataclass(frozen=True)
class Number(Key):
    """One exact number of ``kind`` (a range in ``bounds.KINDS``)."""
    kind: str

    def read(self, c, value, where, ctx):
        return c.number(value, where, self.kind)


@dataclass(frozen=True)
class Vector(Key):
    """A list of numbers of ``kind``: exactly ``n`` (a number, or the name
    of an earlier key whose length it is), else ``least`` to ``most``;
    ``nonzero``: not all zero (a direction; or the noun it names, "vector")."""
    kind: str
    n: int | str | None = None
    most: int | None = None
    least: int = 1
    nonzero: bool | str = False

    def read(self, c, value, where, ctx):
        self.too_many(c, value, where, self.most, f"at most {self.most} entries")
        vec = c.vector(value, where, self.kind, ctx.size(self.n), self.most, self.least)
        if self.nonzero:
            return c.nonzero(vec, where, self.nonzero if isinstance(self.nonzero, str) else "direction")
        return vec


@dataclass(frozen=True)
class Matrix(Key):
    """A matrix of numbers of ``kind`` as a list of rows: ``rows`` rows and
    ``cols`` columns (numbers, or names of earlier keys whose lengths they
    are); without ``cols``, 1 to ``most_cols`` columns, every row alike.
    ``why`` says where the shape comes from in messages; it may use
    ``{rows}``, ``{nrows}``, ``{cols}`` and ``{ncols}``."""
    kind: str
    rows: int | str
    cols: int | str | None = None
    most_cols: int = MAX_ENTRIES
    why: str = ""

    def read(self, c, value, where, ctx):
        if self.cols is None and isinstance(value, list) and value:
            self.too_many(c, value[0], f"{where}[0]", self.most_cols, f"a row of 1 to {self.most_cols} numbers")
        why = self.why or ("one row per entry of {rows}, which has {nrows}" if isinstance(self.rows, str) else "")
        fill = {"rows": ctx.qualified(self.rows) if isinstance(self.rows, str) else "",
                "nrows": ctx.size(self.rows),
                "cols": ctx.qualified(self.cols) if isinstance(self.cols, str) else "",
                "ncols": ctx.size(self.cols)}
        return c.matrix(value, where, self.kind, ctx.size(self.rows), ctx.size(self.cols), self.most_cols,
                        why=f" ({why.format(**fill)})" if why else "")


@dataclass(frozen=True)
class Integer(Key):
    """A whole number from ``lo`` to ``hi``; ``why`` adds the reason."""
    lo: int
    hi: int
    why: str = ""

    def read(self, c, value, where, ctx):
        return c.integer(value, where, self.lo, self.hi, why=self.why)


@dataclass(frozen=True)
class Integers(Key):
    """A list of whole numbers from ``lo`` to ``hi``: exactly ``n``, else
    ``least`` to ``most``; ``shape`` names the list in messages."""
    lo: int
    hi: int
    n: int | None = None
    least: int = 1
    most: int | None = None
    shape: str = ""

    def read(self, c, value, where, ctx):
        count = (lambda k: k == self.n) if self.n else (lambda k: self.least <= k <= (self.most or k))
        if not isinstance(value, list) or not count(len(value)):
            want = self.shape or (f"a list of {self.n} whole numbers" if self.n
                                  else f"a list of {self.least} to {self.most} {self.doc or 'whole numbers'}")
            raise c.fail(where, want, value)
        return tuple(c.integer(v, f"{where}[{i}]", self.lo, self.hi) for i, v in enumerate(value))


@dataclass(frozen=True)
class Flag(Key):
    """true or false."""

    def read(self, c, value, where, ctx):
        return c.boolean(value, where)


@dataclass(frozen=True)
class Choice(Key):
    """One of ``options`` (texts)."""
    options: tuple[str, ...]

    def read(self, c, value, where, ctx):
        if not isinstance(value, str) or value not in self.options:
            raise c.fail(where, f'one of {", ".join(map(repr, self.options))}', value)
        return value


@dataclass(frozen=True)
class Text(Key):
    """A name shown on screen in one language: 1 to NAME_WIDTH columns, every
    character one the fonts can draw."""

    def read(self, c, value, where, ctx):
        return c.text(value, where)


@dataclass(frozen=True)
class Computed(Key):
    """A value the lesson does not hold: the section's rule computes it
    (``sections``) from the keys it reads (a picture from its file)."""

    def read(self, c, value, where, ctx):
        return None


@dataclass(frozen=True)
class Name(Key):
    """A name in the languages of the text tables: ``{zh = ..., en = ...}``
    (the lesson's own language at least)."""

    def read(self, c, value, where, ctx):
        return c.name(value, where)


@dataclass(frozen=True)
class Names(Key):
    """A list of ``least`` to ``most`` names (``noun``: what they are, in the plural)."""
    most: int
    least: int = 1
    noun: str = "names"

    def read(self, c, value, where, ctx):
        self.too_many(c, value, where, self.most, f"at most {self.most} {self.noun}")
        return c.names(value, where, most=self.most, least=self.least)


@dataclass(frozen=True)
class Index(Key):
    """A position (from 0) in the list key ``of``."""
    of: str

    def read(self, c, value, where, ctx):
        return c.index(value, where, ctx.size(self.of), ctx.qualified(self.of))


@dataclass(frozen=True)
class File(Key):
    """The name of a file in the lesson's folder, or "" for none; read by the
    section's rule (``sections``), which knows what the file must be."""

    def read(self, c, value, where, ctx):
        if not isinstance(value, str):
            raise c.fail(where, f'a file name, or "" for {self.doc or "none"}', value)
        return value


@dataclass(frozen=True)
class Items(Key):
    """A list of ``least`` to ``most`` tables, each with the keys ``item``
    declares (all required); each item is read into a record whose fields
    are those keys.  A ``named`` item also names itself, in the languages of
    the text tables beside its keys (``{zh = "猫", en = "cat", at = [1, 2]}``):
    its record has ``names`` and ``name(lang)``."""
    item: dict[str, Key]
    most: int
    least: int = 1
    noun: str = "items"     # what the items are, in the plural
    named: bool = False

    def read(self, c, value, where, ctx):
        if not isinstance(value, list) or not self.least <= len(value) <= self.most:
            want = (f"a list of exactly {self.most} {self.noun}" if self.least == self.most
                    else f"a list of {self.least} to {self.most} {self.noun}")
            raise c.fail(where, f"{want}: {self.room}" if self.room else want, value)
        record = record_type("Item", (*self.item, *(("names",) if self.named else ())))
        out = []
        for i, raw in enumerate(value):
            here = f"{where}[{i}]"
            names = {"names": c.named_in(raw, here, other=list(self.item))} if self.named else {}
            c.keys(raw, here, list(raw) if self.named else list(self.item))
            for name in self.item:
                if name not in raw:
                    raise c.error(here, f'missing key "{name}"')
            out.append(record(**{name: key.read(c, raw[name], f"{here}.{name}", ctx)
                                 for name, key in self.item.items()}, **names))
        return tuple(out)


class Record:
    """An item of an ``Items`` list: its keys as attributes."""

    def name(self, lang: str) -> str:
        """A named item's name in ``lang`` (``Items(named=True)``)."""
        return self.names.name(lang)     # type: ignore[attr-defined]


_RECORDS: dict[tuple[str, tuple[str, ...]], type] = {}


def record_type(name: str, keys: tuple[str, ...]) -> type:
    """A frozen record class called ``name`` with the fields ``keys``: how the
    loader hands a section (or an item) on without the scene's own class."""
    if (name, keys) not in _RECORDS:
        _RECORDS[name, keys] = make_dataclass(name, keys, bases=(Record,), frozen=True)
    return _RECORDS[name, keys]


class Params:
    """A lesson section as a scene reads it: a frozen record of its keys.

    A subclass declares ``section`` (its name in lesson.toml) and one
    annotated ``Key`` per key, in the order they are read (a key may name
    an earlier one); ``keys()`` gives them.  ``Params.read`` reads a raw
    table into an instance.  Subclasses become frozen dataclasses."""

    section: ClassVar[str] = ""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        declared = {name: value for name, value in vars(cls).items() if isinstance(value, Key)}
        cls._keys = {**getattr(cls, "_keys", {}), **declared}       # type: ignore[attr-defined]
        for name in declared:
            delattr(cls, name)
        dataclass(frozen=True)(cls)

    @classmethod
    def keys(cls) -> dict[str, Key]:
        return dict(getattr(cls, "_keys", {}))

    @classmethod
    def of(cls, values: Any) -> Any:
        """The instance of this class holding ``values`` (a mapping, or
        another section record with the same keys)."""
        if not isinstance(values, dict):
            values = {f.name: getattr(values, f.name) for f in fields(values)}
        return cls(**values)


def read_section(c: _Checker, name: str, keys: dict[str, Key], raw: dict[str, Any]) -> dict[str, Any]:
    """Every key of the section ``name`` read from ``raw`` (the merged table:
    defaults under what the lesson wrote), in declaration order; a
    ``Computed`` key is None until the section's rule sets it."""
    ctx = Context(name, {})
    for key, spec in keys.items():
        ctx.values[key] = spec.read(c, raw.get(key), f"{name}.{key}", ctx)
    return ctx.values


__all__ = [*LIMITS, "Choice", "Computed", "Context", "File", "Flag", "Fraction", "Index", "Integer", "Integers",
           "Items", "Key", "LIMITS", "Matrix", "Name", "Named", "Names", "Number", "Params", "Record", "Text",
           "Vector", "read_section", "record_type"]


def _count(n: int | str | None, least: int, most: int | None, noun: str, nouns: str = "") -> str:
    nouns = nouns or noun + "s"
    if isinstance(n, str):
        return f"one {noun} per entry of {n}"
    if n is not None or least == most:
        return f"{n if n is not None else least} {nouns}"
    return f"{least} to {most} {nouns}"


def describe(key: Key) -> str:
    """What ``key`` accepts, in words (for the reference of every key)."""
    if isinstance(key, (Number, Vector, Matrix)):
        lo, hi, lo_open = KINDS[key.kind]
        rng = f"> {lo} to {hi}" if lo_open else f"{lo} to {hi}"
        if isinstance(key, Number):
            return f"a number, {rng}"
        if isinstance(key, Vector):
            return f"{_count(key.n, key.least, key.most, 'number')}, each {rng}" + \
                (" (not all zero)" if key.nonzero else "")
        rows = f"one row per entry of {key.rows}" if isinstance(key.rows, str) else f"{key.rows} rows"
        cols = (f"one column per entry of {key.cols}" if isinstance(key.cols, str)
                else f"{key.cols} columns" if key.cols is not None else f"1 to {key.most_cols} columns")
        return f"a matrix, {rows}, {cols}, entries {rng}"
    if isinstance(key, Integer):
        return f"a whole number, {key.lo} to {key.hi}"
    if isinstance(key, Integers):
        return f"{_count(key.n, key.least, key.most, 'whole number')}, {key.lo} to {key.hi}"
    if isinstance(key, Flag):
        return "true or false"
    if isinstance(key, Choice):
        return "one of " + ", ".join(key.options)
    if isinstance(key, Text):
        return "a name"
    if isinstance(key, Name):
        return "a name {zh, en, ...}"
    if isinstance(key, Names):
        return f"{_count(None, key.least, key.most, 'name')} {{zh, en, ...}}"
    if isinstance(key, Index):
        return f"a position in {key.of}, from 0"
    if isinstance(key, File):
        return "a file in the lesson's folder, or \"\""
    if isinstance(key, Items):
        inner = "; ".join(["zh, en, ...: its name"] * key.named + [f"{k}: {describe(v)}" for k, v in key.item.items()])
        return f"{_count(None, key.least, key.most, key.noun, key.noun)}, each {{{inner}}}"
    return "computed"
