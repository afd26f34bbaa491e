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
Debian package to install when none is), and the words that bind a line
break (``qkv_lens.cues``): ``end_bad``, words that bind to the next one (an
article, a preposition, a conjunction; 的, 被, 把), which never end a line
or a cue; ``start_bad`` (a cjk script: characters that attach to the word
before, 的, 了), which never start one; ``bind_pos`` (a cjk script: jieba's
parts of speech that bind to the next word, such as ``p`` prepositions and
``uj`` for 的), ``units`` (a cjk script: measure words a number is never cut
from, 行, 个) and ``copulas`` (a cjk script: characters never cut from the
number after them, 为, 是); ``end_weak``, words a line had better not end with;
``start_good`` and ``end_good``, good places to break), and
``iso639`` (its ISO 639-2 code, for the language of a media track) and
``thousands`` (what groups the thousands of a large number in narration:
"," by default, a narrow space for Spanish; decimals are written with a
point in every language, as the lesson's matrices write them).

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
THOUSANDS = (",", "\u202f", "'", "")      # a comma, a narrow space, an apostrophe, or nothing: never the point
_WORD_LISTS = ("end_bad", "end_weak", "start_good", "start_bad", "end_good", "bind_pos", "units", "copulas")


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
    thousands: str = ","     # what groups a large number's thousands (29,000; 29 000 in Spanish)

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
    laid: dict[str, set[str]] = field(default_factory=dict)   # language -> the keys an overlay (texts.toml) sets


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
        for code, table in raw.items():
            if code not in META:
                tables.laid.setdefault(code, set()).update(table)
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
                fault = formula_fault(latex)
                if fault:
                    raise LanguageError(f"{where}: formulas.{shown(section)}: {fault}")
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
    known = {"name", "script", "voice", "fonts", "font_package", "iso639", "thousands", *_WORD_LISTS}
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
    if row.get("thousands", ",") not in THOUSANDS:
        raise LanguageError(f"{at}.thousands: expected one of {', '.join(map(repr, THOUSANDS))} (what groups "
                            f"the thousands of a large number: 29,000 or 29 000), found {row['thousands']!r}")
    for key in ("fonts", *_WORD_LISTS):
        if key in row and (not isinstance(row[key], list) or not all(isinstance(v, str) for v in row[key])):
            raise LanguageError(f"{at}.{key}: expected a list of texts")
    # each field has the shape of what it names: no markup for the page, no option or command for a shell
    if not _shaped(row["name"], 40, "<>"):
        raise LanguageError(f"{at}.name: expected a name of 1 to 40 printable characters without < or >, "
                            f"found {row['name']!r}")
    if not _VOICE.fullmatch(row["voice"]):
        raise LanguageError(f"{at}.voice: expected an espeak-ng voice (letters, digits and _+/-, like en, cmn or "
                            f"roa/es+f3), found {row['voice']!r}")
    if "font_package" in row and not (isinstance(row["font_package"], str)
                                      and _PACKAGE.fullmatch(row["font_package"])):
        raise LanguageError(f"{at}.font_package: expected a Debian package name (like fonts-noto-cjk), "
                            f"found {row['font_package']!r}")
    for key, most, each, ok in (
            ("fonts", 20, f"font family names (each 1 to 64 printable characters, none of {_NOT_IN_FONT})",
             lambda f: _shaped(f, 64, _NOT_IN_FONT) and f == f.strip()),
            *((key, 1000, "a list of words (each 1 to 32 printable characters, no spaces)",
               lambda w: _shaped(w, 32, "") and not any(c.isspace() for c in w)) for key in _WORD_LISTS)):
        values = row.get(key, [])
        bad = next((v for v in values if not ok(v)), None)
        if bad is not None or len(values) > most:
            found = repr(bad) if bad is not None else f"{len(values)} of them"
            raise LanguageError(f"{at}.{key}: expected {each}, at most {most}; found {found}")
    return row


# -- formulas: math from an allow-list ---------------------------------------------------
# A formula of the text tables ([formulas]) goes to LaTeX (the handout), so one from a
# lesson folder may use only what math needs: the control words below (what the shipped
# formulas and the scenes' own use, and the common vocabulary of a math lesson), the
# environments below, and printable ASCII.  Anything else (\input, \def, \csname, \write,
# ^^5c, $, %, ...) is refused when the tables load, naming it.

MAX_FORMULA = 1000        # characters, as a text of the tables
MATH_WORDS = frozenset("""
    alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu
    xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega
    Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega
    frac dfrac tfrac binom sqrt sum prod coprod int iint oint bigcup bigcap limits nolimits substack
    sin cos tan exp log ln det dim ker deg arg max min sup inf lim Pr operatorname
    cdot times div pm mp ast star circ bullet oplus otimes odot setminus cup cap wedge vee dagger
    leq geq le ge neq ne approx equiv sim simeq cong propto ll gg subset subseteq supset supseteq
    in notin ni not perp parallel mid colon
    to gets rightarrow leftarrow leftrightarrow Rightarrow Leftarrow Leftrightarrow longrightarrow
    longleftarrow longleftrightarrow Longrightarrow Longleftrightarrow mapsto implies iff uparrow downarrow
    top intercal prime infty partial nabla forall exists emptyset varnothing ldots cdots vdots ddots
    dots ell hbar imath jmath Re Im angle
    left right middle big Big bigg Bigg bigl bigr Bigl Bigr langle rangle lVert rVert lvert rvert
    Vert vert lfloor rfloor lceil rceil
    hat bar vec tilde dot ddot check breve acute grave widehat widetilde overline underline
    overbrace underbrace overrightarrow overset underset stackrel
    mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak boldsymbol
    quad qquad displaystyle textstyle scriptstyle hline
    """.split())
TEXT_WORDS = frozenset({"text", "textrm", "textbf", "textit"})     # their argument: plain text only
MATH_SYMBOLS = frozenset(",;:! \\{}|&%#_$")     # \, \; \: \! "\ " \\ \{ \} \| \& \% \# \_ \$
MATH_ENVIRONMENTS = frozenset({"matrix", "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "smallmatrix",
                               "array", "cases", "aligned", "gathered", "split"})
_TEX_TOKEN = re.compile(r"\\[A-Za-z]+|\\.?|\^\^|[{}%#$]")
_ENVIRONMENT = re.compile(r"\s*\{([A-Za-z*]*)\}")
_PLAIN_TEXT = re.compile(r"\s*\{[^{}\\$%#^_&~]*\}")


def formula_fault(latex: str) -> str | None:
    """What makes ``latex`` more than math from the allow-list (``MATH_WORDS``,
    ``TEXT_WORDS`` with a plain-text argument, ``MATH_SYMBOLS``,
    ``\\begin``/``\\end`` of ``MATH_ENVIRONMENTS``, printable ASCII, balanced
    braces, at most MAX_FORMULA characters), as a short phrase naming it;
    None when it is math."""
    if len(latex) > MAX_FORMULA:
        return f"expected a formula of at most {MAX_FORMULA} characters, found {len(latex)}"
    other = next((ch for ch in latex if not " " <= ch <= "~"), None)
    if other is not None:
        return (f"the character U+{ord(other):04X} ({other!r}) is not ASCII LaTeX; write its command "
                "(\\alpha for α, \\times for ×)")
    depth = 0
    for m in _TEX_TOKEN.finditer(latex):
        token, after = m.group(), latex[m.end():]
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth < 0:
                return "a } closes no {"
        elif token == "^^":
            return "^^ (TeX's character code notation) is not math; write ^{^...} for a double superscript"
        elif token in ("%", "#", "$"):
            return f"{token} is not math in a formula; write \\{token} for the sign"
        elif token in ("\\begin", "\\end"):
            env = _ENVIRONMENT.match(after)
            name = env.group(1) if env else "..."
            if name not in MATH_ENVIRONMENTS:
                return (f"{token}{{{name}}} is not a math environment a formula may use; expected one of "
                        f"{', '.join(sorted(MATH_ENVIRONMENTS))}")
        elif token[1:] in TEXT_WORDS:
            if not _PLAIN_TEXT.match(after):
                return f"{token}{{...}} holds plain text only (no commands, braces or $%#^_&~ inside)"
        elif len(token) == 1:
            return "a lone \\ ends the formula"
        elif not (token[1:] in MATH_WORDS if token[1:].isalpha() else token[1:] in MATH_SYMBOLS):
            return f"{token} is not a command a formula may use (math only; see docs/trust.md for the list)"
    if depth:
        return "a { is never closed"
    return None


_VOICE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+/-]{0,39}")
_PACKAGE = re.compile(r"[a-z0-9][a-z0-9+.-]{1,63}")    # Debian policy, 5.6.1
_NOT_IN_FONT = "<>{}[];:,\"'`\\"                       # CSS and fontconfig syntax, markup, quotes


def _shaped(text: str, most: int, refused: str) -> bool:
    """``text`` is 1 to ``most`` printable characters, none of ``refused``."""
    return 0 < len(text) <= most and text.isprintable() and not any(c in refused for c in text)


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
                    {key: frozenset(row.get(key, ())) for key in _WORD_LISTS}, row.get("iso639", "und"),
                    row.get("thousands", ","))


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
