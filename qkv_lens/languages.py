"""The languages of the lesson: one column of the text tables each.

A language is offered when ``texts.toml`` has both its table (``[es]``:
every text key) and its row in ``[languages]``, which declares its facts::

    [languages]
    es = { name = "Español", script = "spaced", voice = "es" }

``script`` says how a line may break: ``"cjk"`` between characters (a
segmenter keeps words whole), ``"spaced"`` at spaces only, never inside a
word.  It also sets the line width and reading speed of the subtitles and
the fonts (``SCRIPTS``).  ``voice`` is the espeak-ng voice.  Optional:
``fonts`` (font families, first choice first: the scenes draw with the
first installed one, the page lists them all) and ``font_package`` (the
Debian package to install when none is), and the words a line should not
end or start with (``end_bad``, ``end_weak``, ``start_good``, ``start_bad``,
``end_good``: lists of words, or of characters for a cjk script), and
``iso639`` (its ISO 639-2 code, for the language of a media track).

A teacher's ``texts.toml`` adds columns or overrides texts key by key
(``load_tables``, ``install``).  A language whose texts lack keys of the
others is refused with every missing key in one message (``language``); a
language no installed font can draw is refused in one line with the
install command (``check_fonts``).  A leaf: imports nothing of qkv_lens
but ``store`` (``shown``: every name from a teacher's row escaped in messages).
"""
from __future__ import annotations

import bisect
import re
import shutil
import string
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from qkv_lens.store import shown

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

META = ("languages", "glossary", "formulas")     # the tables of texts.toml that are not a language's texts
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei")


@dataclass(frozen=True)
class Script:
    """How a kind of writing is broken into lines and read."""
    line_width: int          # characters a subtitle line holds
    cps: float               # characters a second a learner reads
    safe_cps: float          # what cue timing divides by (about 5% slower, so frame rounding never reads faster)
    dangle: int              # a break leaving at most this many characters of a clause costs more
    fonts: tuple[str, ...]   # font families, first choice first
    font_package: str        # the Debian package with fonts for it
    needs_font: bool         # refuse when no family of ``fonts`` is installed


SCRIPTS = {
    "cjk": Script(16, 7.0, 6.6, 2, CJK_FONTS, "fonts-noto-cjk", True),
    # one look: the CJK font also draws Latin letters; DejaVu Sans comes with manim
    "spaced": Script(42, 15.0, 14.2, 6, (*CJK_FONTS, "DejaVu Sans"), "fonts-noto-core", False),
}
_WORD_LISTS = ("end_bad", "end_weak", "start_good", "start_bad", "end_good")


class LanguageError(ValueError):
    """A language that cannot be used, or text tables that cannot be read (one line)."""


class FontMissing(LanguageError):
    """No installed font can draw a language's texts."""


@dataclass(frozen=True)
class Language:
    """One column of the text tables and what it needs."""
    code: str
    name: str
    script: str
    voice: str
    fonts: tuple[str, ...]
    font_package: str
    words: dict[str, frozenset[str]] = field(default_factory=dict)   # end_bad, end_weak, ... (see the module)
    iso639: str = "und"      # ISO 639-2, for the language of a media track

    @property
    def facts(self) -> Script:
        return SCRIPTS[self.script]

    @property
    def line_width(self) -> int:
        return self.facts.line_width

    @property
    def cps(self) -> float:
        return self.facts.cps

    @property
    def spaced(self) -> bool:
        return self.script == "spaced"


@dataclass
class Tables:
    """The text tables: declared language rows, each language's texts, the glossary."""
    rows: dict[str, dict[str, Any]]
    texts: dict[str, dict[str, str]]
    glossary: dict[str, dict[str, str]]
    where: str = "texts.toml"
    formulas: dict[str, str] = field(default_factory=dict)   # text section -> LaTeX, the same in every language


def _read(path: Path | tuple[dict, str] | None) -> tuple[dict, str]:
    if isinstance(path, tuple):          # already read (a teacher's file, by the lesson's checked reader)
        return path
    if path is None:
        text = resources.files("qkv_lens").joinpath("texts.toml").read_text(encoding="utf-8")
        return tomllib.loads(text), "texts.toml"
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8")), shown(path)
    except (OSError, UnicodeDecodeError) as err:
        raise LanguageError(f"{shown(path)}: cannot read the text tables ({err})") from None
    except tomllib.TOMLDecodeError as err:
        raise LanguageError(f"{shown(path)}: not a TOML file ({err})") from None


def load_tables(*overlays: Path | tuple[dict, str],
                fields: Callable[[str], frozenset[str] | None] = lambda key: frozenset()) -> Tables:
    """The shipped text tables with each of ``overlays`` (a teacher's
    ``texts.toml``, a path or its parsed table and name) laid over them:
    rows, texts, glossary terms and formulas added or replaced key by key.
    An overlay's text may hold only the fields (``{name}``) of the shipped
    text of its key, or for a key the shipped tables lack, ``fields(key)``
    (None: any), and glossary terms (``{g:term}``) the tables have.
    Raises LanguageError (one line) for a table with no row, a malformed
    row, a text that is not a text, or a brace or field it cannot fill."""
    raw, where = _read(None)
    tables = Tables({}, {}, {}, where)
    _merge(tables, raw, where)
    shipped = {key: frozenset().union(*(placeholders(t[key])[0] for t in tables.texts.values() if key in t))
               for key in set().union(*tables.texts.values())}
    laid = []
    for path in overlays:
        raw, where = _read(path)
        _merge(tables, raw, where)
        tables.where = f"{tables.where} + {where}"
        laid.append((raw, where))
    for code in tables.texts:
        if code not in tables.rows:
            raise LanguageError(f"{tables.where}: [{shown(code)}] has no row in [languages]; add "
                                f'{shown(code)} = {{ name = "...", script = "spaced", voice = "{shown(code)}" }}')
    for raw, where in laid:
        _check_fields(raw, where, tables, lambda key: shipped[key] if key in shipped else fields(key))
    return tables


GLOSS = re.compile(r"\{g:([a-z_]+)\}")    # a glossary term in a text: {g:query}


def placeholders(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The fields (``{name}``) and glossary terms (``{g:term}``) of a text,
    read as ``texts.tr`` fills it (the terms, then ``str.format``);
    ValueError saying what is wrong for any other brace."""
    terms = frozenset(GLOSS.findall(text))
    names = set()
    try:
        parts = list(string.Formatter().parse(GLOSS.sub("", text)))
    except ValueError as err:
        raise ValueError(f"{err} (a field is {{name}}, a glossary term {{g:term}}, a brace {{{{ or }}}})") from None
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            field = "{" + name + ("!" + conversion if conversion else "") + (":" + spec if spec else "") + "}"
            raise ValueError(f"{shown(field)} is neither a field {{name}} nor a glossary term {{g:term}}")
        names.add(name)
    return frozenset(names), terms


def _check_fields(raw: dict, where: str, tables: Tables, fields: Callable[[str], frozenset[str] | None]) -> None:
    """Every text of the overlay ``raw`` as ``load_tables`` says."""
    for term, entry in raw.get("glossary", {}).items():
        for code, text in entry.items():
            if "{" in text or "}" in text:
                raise LanguageError(f"{where}: glossary.{shown(term)}.{shown(code)}: a term has no braces")
    for code, table in raw.items():
        if code in META:
            continue
        for key, text in table.items():
            at = f"{where}: [{shown(code)}] {shown(key)}"
            try:
                names, terms = placeholders(text)
            except ValueError as err:
                raise LanguageError(f"{at}: {err}") from None
            unknown = sorted(terms - set(tables.glossary))
            if unknown:
                raise LanguageError(f"{at}: {{g:{shown(unknown[0])}}}: no such glossary term (the glossary has "
                                    f"{', '.join(sorted(tables.glossary)) or 'none'})")
            allowed = fields(key)
            if allowed is not None and not names <= allowed:
                takes = ", ".join(f"{{{n}}}" for n in sorted(allowed)) or "none"
                raise LanguageError(f"{at}: {{{shown(sorted(names - allowed)[0])}}} is not a field this text is "
                                    f"given (it takes {takes}); a brace is written {{{{ or }}}}")


def _merge(tables: Tables, raw: dict, where: str) -> None:
    for name, table in raw.items():
        if not isinstance(table, dict):
            raise LanguageError(f"{where}: {shown(name)}: expected a table, found {type(table).__name__}")
        if name == "languages":
            for code, row in table.items():
                tables.rows[code] = _row(code, row, where)
        elif name == "glossary":
            for term, entry in table.items():
                if not isinstance(entry, dict) or not all(isinstance(v, str) for v in entry.values()):
                    raise LanguageError(f"{where}: glossary.{shown(term)}: expected {{ zh = ..., en = ... }} (a text "
                                        "per language)")
                tables.glossary.setdefault(term, {}).update(entry)
        elif name == "formulas":
            for section, latex in table.items():
                if not isinstance(latex, str):
                    raise LanguageError(f"{where}: formulas.{shown(section)}: expected LaTeX (a text)")
            tables.formulas.update(table)
        else:
            for key, text in table.items():
                if not isinstance(text, str):
                    raise LanguageError(f"{where}: {shown(name)}.{shown(key)}: expected a text, found "
                                        f"{type(text).__name__}")
            tables.texts.setdefault(name, {}).update(table)


def _row(code: str, row: Any, where: str) -> dict[str, Any]:
    at = f"{where}: languages.{shown(code)}"
    if not (code.isascii() and code.isalpha() and code.islower() and 2 <= len(code) <= 8):
        raise LanguageError(f"{at}: a language code is 2 to 8 lower-case letters (like es or qps), found {code!r}")
    if not isinstance(row, dict):
        raise LanguageError(f"{at}: expected {{ name = ..., script = ..., voice = ... }}")
    known = {"name", "script", "voice", "fonts", "font_package", "iso639", *_WORD_LISTS}
    unknown = sorted(set(row) - known)
    if unknown:
        raise LanguageError(f"{at}: unknown key {unknown[0]!r}; expected some of: {', '.join(sorted(known))}")
    for key in ("name", "script", "voice"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            raise LanguageError(f"{at}: missing {key} (a text)")
    iso = row.get("iso639", "und")
    if not (isinstance(iso, str) and len(iso) == 3 and iso.isascii() and iso.isalpha() and iso.islower()):
        raise LanguageError(f"{at}.iso639: expected a three-letter ISO 639-2 code like spa, found {iso!r}")
    if row["script"] not in SCRIPTS:
        raise LanguageError(f"{at}.script: expected one of {', '.join(SCRIPTS)}, found {row['script']!r}")
    for key in ("fonts", *_WORD_LISTS):
        if key in row and (not isinstance(row[key], list) or not all(isinstance(v, str) for v in row[key])):
            raise LanguageError(f"{at}.{key}: expected a list of texts")
    return row


# -- the tables in use -----------------------------------------------------------------

_TABLES = load_tables()
TEXTS: dict[str, dict[str, str]] = {}          # offered language -> key -> text (kept in place by install)
GLOSSARY: dict[str, dict[str, str]] = {}       # term -> language -> text
FORMULAS: dict[str, str] = {}                   # text section -> its key formula, LaTeX (the handout)


def install(tables: Tables) -> None:
    """Use ``tables`` from now on (``TEXTS`` and ``GLOSSARY`` are updated in place)."""
    global _TABLES
    _TABLES = tables
    TEXTS.clear()
    TEXTS.update({code: texts for code, texts in tables.texts.items() if code in tables.rows})
    GLOSSARY.clear()
    GLOSSARY.update(tables.glossary)
    FORMULAS.clear()
    FORMULAS.update(tables.formulas)
    _language.cache_clear()
    _undrawn.cache_clear()


def current() -> Tables:
    """The tables in use."""
    return _TABLES


def offered() -> tuple[str, ...]:
    """Every language with both a row and a table, in the order of the tables."""
    return tuple(TEXTS)


def language(code: str) -> Language:
    """The language ``code``, its texts complete; raises LanguageError naming
    what is missing: the language, or every key its texts lack."""
    return _language(code)


@cache
def _language(code: str) -> Language:
    tables = _TABLES
    if code not in TEXTS:
        if code in tables.rows:
            raise LanguageError(f"{tables.where}: {code} ({shown(tables.rows[code]['name'])}) is declared in "
                                f"[languages] but has no [{code}] table of texts")
        raise LanguageError(f"no language {code!r} in {tables.where}; offered: {', '.join(offered())}")
    keys = set().union(*(set(t) for t in TEXTS.values()))
    missing = sorted(keys - set(TEXTS[code]))
    missing += [f"glossary.{term}" for term, entry in sorted(GLOSSARY.items()) if code not in entry]
    if missing:
        raise LanguageError(f"{tables.where}: [{code}] lacks {len(missing)} text"
                            f"{'s' if len(missing) > 1 else ''} the other languages have: {', '.join(missing)}")
    row = tables.rows[code]
    script = SCRIPTS[row["script"]]
    return Language(code, row["name"], row["script"], row["voice"], tuple(row.get("fonts", script.fonts)),
                    row.get("font_package", script.font_package),
                    {key: frozenset(row.get(key, ())) for key in _WORD_LISTS}, row.get("iso639", "und"))


def texts_of(code: str) -> Iterator[str]:
    """Every text of a language: its table and its glossary terms."""
    yield from TEXTS.get(code, {}).values()
    yield from (entry[code] for entry in GLOSSARY.values() if code in entry)


# -- fonts -------------------------------------------------------------------------------

@cache
def _installed() -> frozenset[str]:
    import manimpango
    return frozenset(manimpango.list_fonts())


def font_for(code: str) -> str:
    """The font family the scenes draw ``code`` with: the first installed of
    its ``fonts``; raises FontMissing (with the install command) when none
    is and its script needs one (Chinese would be empty boxes)."""
    lang = language(code)
    for name in lang.fonts:
        if name in _installed():
            return name
    if lang.facts.needs_font:
        raise FontMissing(f"no font for {shown(lang.name)} ({code}) is installed (any of "
                          f"{', '.join(map(shown, lang.fonts))}), so "
                          f"its text would render as empty boxes; install one with: {install_hint(lang)}")
    return lang.fonts[-1]


def install_hint(lang: Language) -> str:
    return f"sudo apt-get install --no-install-recommends {shown(lang.font_package)}"


def check_fonts(code: str) -> str:
    """The font family for ``code`` after checking that every character of
    its texts is drawn by some installed font (fontconfig); raises
    FontMissing in one line naming the first characters none has."""
    family = font_for(code)
    lang = language(code)
    missing = _undrawn(code)
    if missing:
        chars = ", ".join(f"U+{ord(ch):04X} {ch!r}" for ch in missing[:4])
        raise FontMissing(f"no installed font draws the {shown(lang.name)} ({code}) texts' characters {chars}"
                          f"{' and more' if len(missing) > 4 else ''}; install one with: {install_hint(lang)}")
    return family


@cache
def _undrawn(code: str) -> list[str]:
    chars = {ch for text in texts_of(code) for ch in text if not ch.isspace() and not ch.isascii()}
    return [ch for ch in sorted(chars) if not has_glyph(ch)]


@cache
def _coverage() -> tuple[list[int], list[int]] | None:
    """The characters some installed font has, as sorted, merged ranges
    (starts, ends inclusive); None when fontconfig cannot be asked."""
    fc = shutil.which("fc-list")
    if fc is None:
        return None
    try:
        out = subprocess.run([fc, "--format", "%{charset}\n"], capture_output=True, text=True,
                             timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    ranges = []
    for token in set(out.split()):     # fonts share ranges: 90 000 tokens, 3 000 of them different
        a, _, b = token.partition("-")
        try:
            ranges.append((int(a, 16), int(b or a, 16)))
        except ValueError:
            continue
    if not ranges:
        return None
    ranges.sort()
    starts, ends = [ranges[0][0]], [ranges[0][1]]
    for a, b in ranges[1:]:
        if a <= ends[-1] + 1:
            ends[-1] = max(ends[-1], b)
        else:
            starts.append(a)
            ends.append(b)
    return starts, ends


def has_glyph(ch: str) -> bool:
    """Whether some installed font draws ``ch`` (True when that cannot be known)."""
    cov = _coverage()
    if cov is None:
        return True
    starts, ends = cov
    i = bisect.bisect_right(starts, ord(ch)) - 1
    return i >= 0 and ord(ch) <= ends[i]


install(_TABLES)


def font_file(family: str, bold: bool = False) -> tuple[str, int]:
    """(file, face index) of ``family`` as fontconfig matches it (``fc-match``;
    ``("", 0)`` without fontconfig)."""
    fc = shutil.which("fc-match")
    if fc is None:
        return "", 0
    try:
        found = subprocess.run([fc, "-f", "%{file}|%{index}", f"{family}:bold" if bold else family],
                               capture_output=True, text=True, timeout=10, check=True).stdout
        file, _, index = found.partition("|")
        return file, int(index or 0)
    except (OSError, ValueError, subprocess.SubprocessError):
        return "", 0
