"""Split one narration sentence into subtitle cues a person can read.

The clips are silent, so the subtitles *are* the lesson.  A cue is one or two
lines (one string, ``"\\n"`` between the lines); a line holds at most
``LINE_WIDTH[lang]`` characters (``len()``; spaces count): 16 for a cjk
script, 42 for a spaced one (``qkv_lens.languages``: the rules follow the
language's script, the words a line should not end with its row).  Pure Python, no
manim: the scenes and the pipeline call :func:`split_cues` and
:func:`cue_seconds`.

Where a line may break
    A spaced script (English): at spaces only, so never inside a word, a number (``4.4×10⁻⁵``)
    or a formula (``softmax(QKᵀ/√d_k)V``).  A cjk script (Chinese): between characters, but
    never inside a run of Latin letters, digits and symbols (``W_Q``,
    ``0.87``, ``95%``), never before closing punctuation (，。、；：？！」』）》”’
    and ``,.;:?!)]}``) and never after opening punctuation (（《「『“‘ and
    ``([{``).  In both languages a short ASCII group ``[..]`` / ``(..)`` of at
    most 16 characters (``[3, 4, 2]``) is kept whole.

How the breaks are chosen
    Every allowed break gets a cost: after 。！？/ ". " is best, then ；: and
    ，、, , then a space or a Chinese/Latin boundary, then a break between two
    Chinese characters (dearer inside a word, as jieba segments the text with
    the glossary as its user dictionary, dearer still inside a glossary term
    or a short quote).  Small heuristics add to it: a break that
    leaves a scrap of a clause ("... conclusion. Try" | "more"), a line ending
    in "the" or starting with 的, a break inside "Q, K, V" or beside "=".
    A dynamic programme picks the cues and their lines together, adding a
    cost per cue (so cues fill up), a convex penalty for unused room (so cue
    lengths even out: no 3-character last cue), a penalty for unequal lines
    and a prohibitive one for an orphan (a line whose only content is one
    character, e.g. "上。").  Cue ends cost more than line ends at the same
    place, so cues end at sentence and clause ends where they can.

Text is preserved: the lines are slices of the text (but for the hyphens
below); only the spaces at a break (and at both ends of the text) are dropped, and a cue's own ``"\\n"`` is
the only line separator (tabs and newlines in the input count as spaces).
Joining the lines, with the dropped space put back where a break consumed one,
gives the text back.

A token no allowed break splits and longer than a line (a 50-letter word, a
20-character formula inside Chinese) is cut into even pieces that fit, each
but the last ending with a hyphen in a spaced script (``cut_token``): a line
never exceeds the width; the hyphens are the only characters added.
"""
from __future__ import annotations

import functools
import logging
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jieba

from qkv_lens.languages import Language, LanguageError, language, offered
from qkv_lens.texts import GLOSSARY


class _ByLanguage(Mapping[str, float]):
    """One fact of each language's script (``LINE_WIDTH["en"]`` is 42)."""

    def __init__(self, fact: str):
        self.fact = fact

    def __getitem__(self, lang: str) -> float:
        try:
            return getattr(language(lang).facts, self.fact)
        except LanguageError as err:
            raise KeyError(str(err)) from None

    def __iter__(self) -> Iterator[str]:
        return iter(offered())

    def __len__(self) -> int:
        return len(offered())


LINE_WIDTH = _ByLanguage("line_width")   # characters a line holds: cjk 16, spaced 42
MAX_LINES = 2
CPS = _ByLanguage("cps")                 # characters a second: cjk 7, spaced 15

# cue_seconds divides by a slightly lower rate than CPS (6.6 < 7, 14.2 < 15,
# about 5 % slower) and adds one frame at 15 fps, manim's slowest preview
# quality: rounding a cue's duration to whole frames (at 15 fps or more)
# never makes it shorter than len / CPS.
_SAFE_CPS = _ByLanguage("safe_cps")
_FRAME_MARGIN = 1.0 / 15.0

_CLOSE = frozenset("，。、；：？！」』）》”’〕］｝〉】…,.;:?!)]}")
_OPEN = frozenset("（《「『“‘〔［｛〈【([{")
_SPACES = frozenset(" \u3000")
_OPERATORS = frozenset("=×÷+−-→←↔≈≠≤≥<>·*/")
_SENT, _SEMI, _COLON, _COMMA, _SPACE, _CJK = range(6)
# cost of a line break / a cue break of each class
_LINE_COST = (0.0, 0.5, 0.8, 1.0, 2.5, 5.0)
_CUE_COST = (0.0, 2.0, 2.5, 3.0, 30.0, 34.0)   # a cue ends at a clause end wherever one is in reach
_CUE_EACH = 5.0  # per cue: fewer, fuller cues
_FILL = 10.0  # times (unused fraction of the cue)²: even cue lengths
_SHORT = 40.0  # times ((0.3·capacity − length) / (0.3·capacity))² below 0.3·capacity
_TWO_LINES = 1.0  # a cue that fits one line stays on one line
_BALANCE = 8.0  # times ((line1 − line2) / width)²
_ORPHAN = 1000.0  # a line with a single content character
_MID_SENTENCE = 10.0  # a sentence that ends inside a line, with the next one running on
_GROUP = re.compile(r"\[[^\[\]\n]{0,14}\]|\([^()\n]{0,14}\)")  # kept whole
_SOFT_GROUP = {  # short quotes and asides, by script: a break inside costs 3 more
    "cjk": re.compile(r"“[^“”]{1,10}”|‘[^‘’]{1,10}’|（[^（）]{1,14}）|「[^「」]{1,10}」"),
    "spaced": re.compile(r"“[^“”]{1,22}”|‘[^‘’]{1,22}’|\"[^\"]{1,22}\""),
}
# a longer [..] / (..) group may take a line break (2 more) but hardly a cue break (8 more)
_LONG_GROUP = re.compile(r"\[[^\[\]\n]{15,60}\]|\([^()\n]{15,60}\)")
_PUNCT = frozenset("。！？；：，、!?;:,…")
_NUMBER = re.compile(r"^[-+−]?[\d.,%×⁰¹²³⁴⁵⁶⁷⁸⁹⁻°\u202f]*\d[\d.,%×⁰¹²³⁴⁵⁶⁷⁸⁹⁻°\u202f]*$")
# A break that binds (``binds``: a line ending on an end_bad word such as "the", "of", 的 or 被, or a
# word of a bind_pos part of speech; a line starting with a start_bad character such as 的; a number cut
# from its word) costs _BIND: taken only where nothing else fits.  A line ending in an end_weak word
# ("is") costs 2 more; one starting with a start_good word ("and") 1 less; for cjk, ending with end_good
# (了) 1.5 less (the words are in each language's row of texts.toml).
_BIND, _END_WEAK, _START_GOOD, _END_GOOD = 60.0, 2.0, 1.0, 1.5
def _wide(c: str) -> bool:
    return unicodedata.east_asian_width(c) in "WF" and c not in _SPACES


def _content(c: str) -> bool:
    """A character a reader reads (not a space, not punctuation)."""
    return not (c in _SPACES or c in _OPEN or c in _CLOSE or unicodedata.category(c)[0] in "PZ")


def _terms(lang: str) -> frozenset[str]:
    """The glossary's terms of two or more characters in ``lang``."""
    return frozenset(e[lang] for e in GLOSSARY.values() if len(e.get(lang, "")) >= 2)


@functools.lru_cache(maxsize=4)
def _segmenter(terms: frozenset[str]) -> jieba.Tokenizer:
    """jieba's segmenter, with ``terms`` (the glossary's, in a cjk
    language) as its user dictionary (a term is one word, whatever jieba's
    own dictionary says)."""
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    for term in sorted(terms):
        tokenizer.add_word(term, freq=10**6, tag="n")      # a term names a thing
    return tokenizer


def _cjk_words(text: str, lang: str) -> list[tuple[int, int, float]]:
    """The words of ``text`` (a cjk script) a line should not split, as
    (start, end, extra cost of a break inside): jieba's words of two or
    more characters, the glossary's terms dearer."""
    terms = _terms(lang)
    out, at = [], 0
    for word in _segmenter(terms).cut(text, HMM=False):
        if len(word) >= 2 and all(_wide(c) and _content(c) for c in word):
            out.append((at, at + len(word), 25.0 if word in terms else 20.0))
        at += len(word)
    return out


@functools.lru_cache(maxsize=4)
def _tagger(terms: frozenset[str]) -> Any:
    """jieba's part-of-speech tagger over ``_segmenter(terms)``: made once
    (it reads its whole word-tag table, about 0.4 s)."""
    import jieba.posseg
    return jieba.posseg.POSTokenizer(_segmenter(terms))


@functools.lru_cache(maxsize=4096)
def _cjk_tags(text: str, lang: str) -> tuple[dict[int, str], dict[int, str]]:
    """jieba's parts of speech of ``text`` (a cjk script), as two maps: the
    end of each word -> its tag, and the start of each word -> its tag."""
    ends, starts, at = {}, {}, 0
    for pair in _tagger(_terms(lang)).cut(text, HMM=False):
        starts[at] = pair.flag
        at += len(pair.word)
        ends[at] = pair.flag
    return ends, starts


def _cjk_word_before(text: str, s: int) -> str:
    """The run of wide characters ending at ``s``."""
    k = s
    while k > 0 and _wide(text[k - 1]) and _content(text[k - 1]):
        k -= 1
    return text[k:s]


def binds(text: str, s: int, e: int, code: str) -> str:
    """Why a break ending a line at ``s`` (the next starting at ``e``)
    splits words that belong together ("" when it does not): the line ends
    on a word that binds to the next (the row's ``end_bad``, or for a cjk
    script a word of a ``bind_pos`` part of speech), the next starts with a
    character that attaches to the word before (``start_bad``), or a
    number is cut from the word beside it.  Breaks at punctuation never bind."""
    if _klass(text, s, e) < _SPACE:
        return ""
    lang = language(code)
    words = lang.words
    before, after = _token_before(text, s), _token_after(text, e)
    if lang.spaced:
        word = before.strip(".,;:!?“”‘’\"'()[]¡¿«»").lower()
        if word in words["end_bad"]:
            return f"ends on {word!r}"
        if _NUMBER.match(before) or _NUMBER.match(after):
            return "cuts a number from its word"
        return ""
    a, b = text[s - 1], text[e]
    if b in words["start_bad"]:
        return f"starts with {b!r}"
    tail = _cjk_word_before(text, s)
    if any(tail.endswith(w) for w in words["end_bad"]):
        return f"ends on {next(w for w in words['end_bad'] if tail.endswith(w))!r}"
    ends, starts = _cjk_tags(text, code)
    if _wide(a) and ends.get(s) in words["bind_pos"]:
        return f"ends on {tail[-2:] if len(tail) > 1 else tail!r} ({ends[s]})"
    if not _wide(a) and _wide(b) and _NUMBER.match(before.split("\u3000")[-1] or "x") and \
            (b in words["units"] or starts.get(e) == "q"):
        return f"cuts a number from its unit {b!r}"      # "4" | "行"
    if _wide(a) and not _wide(b):
        if a in words["copulas"] and re.match(r"[-+−]?\d", after):
            return f"cuts {a!r} from its number"         # "秩为" | "1"
        if _NAME.match(after) and (ends.get(s) or "").startswith("n"):
            return "cuts a name from its noun"          # "矩阵" | "B", "查询" | "q"
    return ""


_NAME = re.compile(r"[A-Za-zα-ωΑ-Ω](?:_?[\w′ᵀ])?(?![\w′ᵀ])")    # a symbol naming a thing: B, n, q, W_Q, Kᵀ


def _normalise(text: str) -> str:
    return re.sub(r"[\t\r\n\v\f]", " ", text)


def _klass(text: str, s: int, e: int) -> int:
    """Class of a break whose previous line ends at ``s`` and next starts at ``e``."""
    k = s - 1
    while k > 0 and text[k] in "”’」』)）]》":
        k -= 1
    p = text[k]
    spaced = e > s
    if p in "。！？!?…" or (p == "." and spaced):
        return _SENT
    if p in "；;":
        return _SEMI
    if p in "：:":
        return _COLON
    if p in "，,、":
        return _COMMA
    if not spaced and _wide(text[s - 1]) and _wide(text[e]) and text[s - 1] not in _CLOSE and text[e] not in _OPEN:
        return _CJK
    return _SPACE


def _token_before(text: str, s: int) -> str:
    k = s
    while k > 0 and text[k - 1] not in _SPACES:
        k -= 1
    return text[k:s]


def _token_after(text: str, e: int) -> str:
    k = e
    while k < len(text) and text[k] not in _SPACES:
        k += 1
    return text[e:k]


def _item(text: str, k: int, step: int) -> int:
    """Content characters from ``k`` (a punctuation mark when ``step`` is -1) to the next mark."""
    if step < 0:
        k -= 1
    seen = 0
    while 0 <= k < len(text) and text[k] not in _PUNCT and seen <= 2:
        seen += _content(text[k])
        k += step
    return seen


def _is_operator(tok: str) -> bool:
    return bool(tok) and all(c in _OPERATORS for c in tok)


def _adjust(text: str, s: int, e: int, lang: Language, klass: int) -> float:
    """Language heuristics added to a break's class cost."""
    before, after = _token_before(text, s), _token_after(text, e)
    extra = 0.0
    if e > s and (_is_operator(before) or _is_operator(after)):
        extra += _BIND  # "y =" | "x M", "T =" | "4"
    if klass >= _SPACE:  # not at punctuation: how much of the clause is cut off?
        dangle = lang.facts.dangle
        k, seen = s, 0
        while k > 0 and seen <= dangle and text[k - 1] not in _PUNCT:
            k -= 1
            seen += text[k] not in _SPACES
        if 0 < seen <= dangle and k > 0:
            extra += 4.0  # "... conclusion. Try" | "more steps"
        k, seen = e, 0
        while k < len(text) and seen <= dangle and text[k] not in _PUNCT:
            seen += text[k] not in _SPACES
            k += 1
        if 0 < seen <= dangle and k < len(text):
            extra += 4.0  # "Q, K," | "V: a lesson", "斜面" | "上，"
    elif klass == _COMMA and (_item(text, s - 1, -1) <= 1 or _item(text, e, 1) <= 1):
        extra += 4.0  # inside a list of single symbols: "Q, K," | "V", "红、" | "绿、蓝"
    words = lang.words
    if klass >= _SPACE and binds(text, s, e, lang.code):
        extra += _BIND      # "the" | "wall", "竖线被" | "推斜了", "rank" | "2"
    if lang.spaced:
        word = before.strip(".,;:!?“”‘’\"'()[]¡¿«»").lower()
        nxt = after.strip(".,;:!?“”‘’\"'()[]¡¿«»").lower()
        if klass >= _SPACE:
            extra += _END_WEAK if word in words["end_weak"] else 0.0
            if nxt in words["start_good"]:
                extra -= _START_GOOD
            if len(nxt) == 1 and nxt.isalpha():
                extra += 1.5  # a lone variable opening a line
        return extra
    a, b = text[s - 1], text[e]
    if not _wide(a) and not _wide(b) and e > s:
        extra += 4.0  # between two Latin tokens: "Q Kᵀ", "×2, ×3"
    if klass == _CJK:
        if a in words["end_good"]:
            extra -= _END_GOOD
    elif klass == _SPACE and (a == "第" or (_wide(a) and not _wide(b) and b not in _OPEN and a in "约乘以除是为")):
        extra += 3.0
    return extra


_ITEM = re.compile(r"[^,;:.!?]*")


def _list_commas(text: str) -> list[int]:
    """The commas of ``text`` that separate items of a list ("food, tech,
    red and round"; "turn, stretch along the axes, and turn back"; "drops
    food, tech: ..."): the item before or after is at most three words, and
    it is itself between list marks (a comma or colon before it; a comma, a
    colon, "and" or "or" after it)."""
    out = []
    for m in re.finditer(",", text):
        k = m.start()
        before = text[:k]
        prev = before[len(before) - len(_ITEM.match(before[::-1]).group()):]
        nxt = _ITEM.match(text, k + 1).group()
        prev_mark = before[len(before) - len(prev) - 1:len(before) - len(prev)]
        after = text[k + 1 + len(nxt):k + 2 + len(nxt)]
        short_prev = 0 < len(prev.split()) <= 3 and prev_mark in (",", ":")
        short_next = 0 < len(nxt.split()) <= 3 and (after in (",", ":") or re.match(r"\s*(and|or)\b", nxt) is not None
                                                     or re.search(r"\b(and|or)\s", nxt) is not None)
        if short_prev or short_next:
            out.append(k)
    return out


def _breaks(text: str, code: str) -> list[tuple[int, int, float, float]]:
    """Allowed breaks as (end of previous line, start of next, line cost, cue cost).

    The first entry is the start of the text and the last its end.
    """
    lang = language(code)
    cjk = not lang.spaced
    n = len(text)
    first = 0
    while first < n and text[first] in _SPACES:
        first += 1
    last = n
    while last > first and text[last - 1] in _SPACES:
        last -= 1
    hard = bytearray(n + 1)
    soft = [0.0] * (n + 1)
    soft_cue = [0.0] * (n + 1)
    longer = list(_LONG_GROUP.finditer(text))
    for m in _GROUP.finditer(text):
        glued = m.end()      # the closing marks after it stay on its line
        while glued < n and text[glued] in _CLOSE:
            glued += 1
        if glued - m.start() > lang.line_width:
            longer.append(m)     # with them it would not fit a line: breakable, as a longer group
            continue
        for p in range(m.start() + 1, m.end()):
            hard[p] = 1
    for m in longer:
        for p in range(m.start() + 1, m.end()):
            soft[p], soft_cue[p] = 2.0, 8.0
    if cjk:
        for start, end, cost in _cjk_words(text, code):
            for p in range(start + 1, end):
                soft[p] = max(soft[p], cost)
    for m in _SOFT_GROUP[lang.script].finditer(text):
        quoted = 20.0 if cjk and len(m.group()) <= 8 else 3.0   # “我想找谁” reads as one word
        for p in range(m.start() + 1, m.end()):
            soft[p] = max(soft[p], quoted)

    if not cjk:
        for k in _list_commas(text):
            soft_cue[k + 1] = max(soft_cue[k + 1], 30.0)   # a line may break in a list, a cue hardly
        lower = text.lower()
        for term in _terms(code):           # "projection matrix", "producto escalar": one word
            if " " in term:
                for m in re.finditer(re.escape(term.lower()), lower):
                    for p in range(m.start() + 1, m.end()):
                        soft[p] = max(soft[p], 20.0)

    out = [(first, first, 0.0, 0.0)]
    p = first + 1
    while p < last:
        if text[p] in _SPACES:
            q = p
            while text[q] in _SPACES:
                q += 1
            s, e = p, q
            p = q + 1
        else:
            s = e = p
            p += 1
            a, b = text[s - 1], text[s]
            if not cjk or a in _SPACES or (not _wide(a) and not _wide(b)):
                continue
        if text[s - 1] in _OPEN or text[e] in _CLOSE or hard[s] or hard[e]:
            continue
        klass = _klass(text, s, e)
        extra = _adjust(text, s, e, lang, klass) + max(soft[s], soft[e])
        cue_extra = extra + max(soft_cue[s], soft_cue[e])
        out.append((s, e, max(0.0, _LINE_COST[klass] + extra), max(0.0, _CUE_COST[klass] + cue_extra)))
    out.append((last, last, 0.0, 0.0))
    return out


def line_breaks(text: str, lang: str) -> list[tuple[int, int, float]]:
    """Where ``text`` may break into lines, as (end of a line, start of the
    next, cost): the subtitle rules (never inside a word, number, formula or
    a short bracket; dearer inside a glossary term).  The first entry is the
    start of the text, the last its end (both cost 0)."""
    return [(s, e, cost) for s, e, cost, _ in _breaks(_normalise(text), lang)]


def is_orphan(line: str) -> bool:
    """A line whose only content is one character ("上。")."""
    return sum(_content(c) for c in line) <= 1


_PER_LINE = 20.0    # every line costs: as few lines as fit
_RAGGED = 4.0       # times (unused fraction of a line)² (half that for the last line)


def fit_lines(content: str, lang: str, width: float, span: Callable[[int, int], float]) -> list[str]:
    """The cheapest split of ``content`` into lines at most ``width`` wide,
    ``span(s, e)`` being how wide ``content[s:e]`` is drawn: breaks where the
    subtitles break (never inside a word, number or formula, dearer inside a
    Chinese term), as few lines as fit, evenly filled, no orphan; a line too
    long for any break stays whole.  On-screen text and the handout use it."""
    breaks = line_breaks(content, lang)
    n = len(breaks)
    best: list[tuple[float, int]] = [(0.0, -1)] + [(float("inf"), -1)] * (n - 1)
    for j in range(1, n):
        for i in range(j - 1, -1, -1):
            line = content[breaks[i][1]:breaks[j][0]]
            w = span(breaks[i][1], breaks[j][0])
            if w > width and i < j - 1:
                break                       # longer lines from further back only get wider
            if best[i][0] == float("inf"):
                continue
            cost = best[i][0] + _PER_LINE + breaks[j][2] + (_ORPHAN if is_orphan(line) else 0.0)
            cost += (_RAGGED if j < n - 1 else _RAGGED / 2) * max(0.0, 1 - w / width) ** 2
            if w > width:
                cost += 10 * _ORPHAN        # no break fits: an over-long line, only as a last resort
            if cost < best[j][0]:
                best[j] = (cost, i)
    lines, j = [], n - 1
    while j > 0:
        i = best[j][1]
        lines.append(content[breaks[i][1]:breaks[j][0]].strip())
        j = i
    return lines[::-1]


def split_cues(text: str, lang: str) -> list[str]:
    """Subtitle cues for one narration sentence, each one or two lines."""
    width = LINE_WIDTH[lang]      # KeyError for a language the tables do not offer
    text = _normalise(text)
    brk = _breaks(text, lang)
    if brk[0][1] >= brk[-1][0]:
        return []
    cap = MAX_LINES * width
    short = 0.3 * cap
    starts = [b[1] for b in brk]
    ends = [b[0] for b in brk]
    content = [0]
    for c in text:
        content.append(content[-1] + _content(c))
    m = len(brk)

    def line_ok(i: int, j: int) -> bool:
        return ends[j] - starts[i] <= width or j == i + 1

    def orphan(i: int, j: int) -> float:
        return _ORPHAN if content[ends[j]] - content[starts[i]] <= 1 else 0.0

    # a sentence that ends inside a line ("... of another. Attention" | "must ...") reads badly: the
    # line between breaks i and j costs _MID_SENTENCE for each sentence end strictly inside it
    ended = [0]
    for b in brk[1:-1]:
        ended.append(ended[-1] + (_klass(text, b[0], b[1]) == _SENT))
    ended.append(ended[-1])

    def mid(i: int, j: int) -> float:
        return _MID_SENTENCE * (ended[j - 1] - ended[i]) if j - 1 > i else 0.0

    inf = float("inf")
    best = [inf] * m
    back: list[tuple[int, int]] = [(0, 0)] * m  # (cue start, line break or -1)
    best[0] = 0.0
    for j in range(1, m):
        top = inf
        for i in range(j - 1, -1, -1):
            span = ends[j] - starts[i]
            if span > cap and j - i > 2:
                break
            if best[i] == inf:
                continue
            length = min(span, cap)
            cost = best[i] + _CUE_EACH + _FILL * ((cap - length) / cap) ** 2
            if span < short:
                cost += _SHORT * ((short - span) / short) ** 2
            if cost >= top:
                continue
            inner, split = inf, -1
            if line_ok(i, j):
                inner = orphan(i, j) + mid(i, j)
            for k in range(i + 1, j):
                l1 = ends[k] - starts[i]
                if l1 > width and k > i + 1:
                    break
                l2 = ends[j] - starts[k]
                if l2 > width and k < j - 1:
                    continue
                c2 = _TWO_LINES + brk[k][2] + _BALANCE * ((l1 - l2) / width) ** 2 + mid(i, k) + mid(k, j)
                if c2 < inner:
                    c2 += orphan(i, k) + orphan(k, j)
                    if c2 < inner:
                        inner, split = c2, k
            cost += inner
            if cost < top:
                top, back[j] = cost, (i, split)
        best[j] = top + brk[j][3]
    cues: list[str] = []
    j = m - 1
    while j > 0:
        i, k = back[j]
        if k < 0:
            cues.append(text[starts[i]:ends[j]])
        else:
            cues.append(text[starts[i]:ends[k]] + "\n" + text[starts[k]:ends[j]])
        j = i
    cues.reverse()
    if all(len(line) <= width for cue in cues for line in cue.split("\n")):
        return cues
    spaced = language(lang).spaced
    lines = [piece for cue in cues for line in cue.split("\n") for piece in cut_token(line, width, spaced)]
    return ["\n".join(lines[k:k + MAX_LINES]) for k in range(0, len(lines), MAX_LINES)]


def cut_token(line: str, width: int, hyphen: bool) -> list[str]:
    """``line`` as it is when it fits ``width``; else (a token no allowed
    break splits) cut into as few even pieces as fit, each ending with a
    hyphen when ``hyphen`` (a spaced script) and the cut is inside a word;
    no piece starts with closing or ends with opening punctuation where a
    cut can avoid it."""
    pieces: list[str] = []
    rest = line
    while len(rest) > width:
        room = width - 1 if hyphen else width
        aim = -(-len(rest) // -(-len(rest) // room))      # as few pieces as fit, even
        end = next((e for d in range(room) for e in (aim - d, aim + d) if 0 < e <= room
                    and rest[:e].rstrip(" \u3000")[-1:] not in _OPEN and rest[e:].lstrip(" \u3000")[:1] not in _CLOSE),
                   aim)
        head, rest = rest[:end].rstrip(" \u3000"), rest[end:].lstrip(" \u3000")
        inside = hyphen and head[-1:] not in ("", "-") and not line[len(line) - len(rest) - 1].isspace()
        pieces.append(head + "-" if inside else head)
    return [*pieces, rest] if rest else pieces


def cue_seconds(cue: str, lang: str) -> float:
    """The least time ``cue`` must stay on screen to be read at ``CPS[lang]``.

    ``len(cue without "\\n") / 6.6`` (cjk) or ``/ 14.2`` (spaced), plus 1/15 s: a
    margin so that rounding to frames never pushes the rate above CPS.
    """
    return len(cue.replace("\n", "")) / _SAFE_CPS[lang] + _FRAME_MARGIN


def reading_seconds(text: str, lang: str) -> float:
    """Total on-screen time the cues of ``text`` need."""
    return sum(cue_seconds(c, lang) for c in split_cues(text, lang))


def check_cue(cue: str, lang: str) -> list[str]:
    """Readability problems of one cue as short messages ([] when fine)."""
    width = LINE_WIDTH[lang]
    lines = cue.split("\n")
    problems = []
    if len(lines) > MAX_LINES:
        problems.append(f"{len(lines)} lines > {MAX_LINES}")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            problems.append(f"line {n} is empty")
            continue
        if line != line.strip(" \u3000"):
            problems.append(f"line {n} has leading or trailing spaces")
        if len(line) > width:
            problems.append(f"line {n} too long: {len(line)} > {width}")
        if line[0] in _CLOSE:
            problems.append(f"line {n} starts with closing punctuation {line[0]!r}")
        if line[-1] in _OPEN:
            problems.append(f"line {n} ends with opening punctuation {line[-1]!r}")
        if sum(map(_content, line)) <= 1:
            problems.append(f"line {n} is an orphan: {line!r}")
    return problems


def _joined(cues: list[str], spaced: bool) -> tuple[str, list[tuple[int, int, bool]]]:
    """The sentence the ``cues`` were cut from, and where each break was:
    (end of a line, start of the next, whether it ends a cue).  A cjk
    script's break beside a Latin token had its space dropped: it is put back."""
    text, breaks = "", []
    for cue in cues:
        for li, line in enumerate(cue.split("\n")):
            if text:
                s = len(text)
                text += " " if spaced or not (_wide(text[-1]) and _wide(line[0])) else ""
                breaks.append((s, len(text), li == 0))
            text += line
    return text, breaks


def _fits_a_cue(text: str, start: int, end: int, code: str) -> bool:
    """Whether ``text[start:end]`` can be laid out as one cue (two lines at
    most, broken where no words are torn apart)."""
    width = LINE_WIDTH[code]
    piece = text[start:end].strip()
    if len(piece) <= width:
        return True
    if len(piece) > MAX_LINES * width:
        return False
    return any(s - start <= width and end - e <= width and cost < _BIND
               for s, e, cost in line_breaks(text, code)[1:-1] if start < s and e < end)


def break_problems(cues: list[str], code: str) -> list[str]:
    """What a reader stumbles on in the breaks of one sentence's ``cues``:
    a line or cue that ends on a word that binds to the next (``binds``),
    and a cue that ends inside a clause while it could have ended at a
    clause end (one it reaches within two lines).  [] when there is none."""
    lang = language(code)
    text, breaks = _joined(cues, lang.spaced)
    listed = {k + 1 for k in _list_commas(text)} if lang.spaced else set()

    def clause_end(s: int, e: int) -> bool:      # a list's comma is inside its clause ("food," | "tech")
        return _klass(text, s, e) < _SPACE and s not in listed

    # clause ends, but none that would leave a scrap ("... information." | "א") for a cue of its own
    ends = [s for s, e, _ in line_breaks(text, code)[1:-1]
            if clause_end(s, e) and sum(map(_content, text[e:])) > 2] + [len(text)]
    problems, start = [], 0
    for s, e, cue_end in breaks:
        where = f"{text[max(0, s - 12):s]!r} | {text[e:e + 12]!r}"
        why = binds(text, s, e, code)
        if why:
            problems.append(f"{'cue' if cue_end else 'line'} break {where} {why}")
        if not cue_end:
            continue
        if not clause_end(s, e):
            after = next(c for c in ends if c > s)       # where this clause ends
            # in reach: the cue could have run on to its clause's end, or ended at an earlier clause end
            # from which the next cue reaches that end
            if _fits_a_cue(text, start, after, code) or any(
                    start < c < s and _fits_a_cue(text, start, c, code) and _fits_a_cue(text, c, after, code)
                    for c in ends):
                problems.append(f"cue break {where} inside a clause, with a clause end in reach")
        start = e
    return problems
