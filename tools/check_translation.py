"""Check one language column of the text tables against English.

usage: python tools/check_translation.py LANG [--rules RULES] [--texts FILE] [--renders DIR]

Reads ``FILE`` (default: the shipped ``qkv_lens/texts.toml``) and checks
that ``[LANG]`` has exactly the keys of ``[en]``, in the same order; that
every key has the same ``{field}`` and ``{g:term}`` placeholders as in
English; that every glossary entry has a ``LANG`` translation; and that
every narration sentence (a key ending in ``_say``), its fields filled
with typical values, splits into cues that pass ``qkv_lens.cues.check_cue``
with the line-break rules of ``RULES`` (default: LANG when ``cues`` knows
it, else ``en``) and breaks between phrases (``qkv_lens.cues.break_problems``:
no line or cue ends on a word that binds to the next, no cue ends inside a
clause while a clause end was in reach).  With ``--renders DIR`` it reads
the cues of every clip rendered in LANG under DIR (each beats file, beat by
beat) and reports the breaks of those too, as a learner sees them.  It
prints the counts, the narration's reading time
against English, and the labels most longer than English (the layouts were
made for English widths).  Exit status 0 when all is well, 1 otherwise.
"""
from __future__ import annotations

import argparse
import re
import string
import sys
from pathlib import Path

from qkv_lens import cues

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TEXTS = Path(__file__).resolve().parent.parent / "qkv_lens" / "texts.toml"
GLOSS = re.compile(r"\{g:([a-z_]+)\}")
# Typical values the scenes put in a narration's fields (numbers as qkv_math prints them).
SAMPLE = {"word": "manzanas", "other": "quiero", "best": "manzanas", "dim": "comida", "name": "dulce",
          "who": "programador", "asks": "cantante", "says": "cantante", "w": "W_K", "std": "W_Q", "swp": "W_V",
          "traits": "“fruta”, “dulce” y “comer”", "point": "[1, 0.6]", "result": "[3, 4, 2]",
          "xw": "[3, 4, 2]", "start": "1.4", "end": "3.2×10⁻²", "score": "1.25", "root": "1.73"}


def fields(text: str) -> set[str]:
    """The ``{field}`` names of ``text`` (glossary terms left out)."""
    return {f for _, f, _, _ in string.Formatter().parse(GLOSS.sub("", text)) if f}


def placeholders(text: str) -> tuple[set[str], list[str]]:
    return fields(text), sorted(GLOSS.findall(text))


def fill(text: str, glossary: dict, lang: str) -> str:
    text = GLOSS.sub(lambda m: glossary[m.group(1)][lang], text)
    return text.format(**{f: SAMPLE.get(f, "12.5") for f in fields(text)})


def rendered_problems(renders: Path, lang: str, rules: str) -> list[str]:
    """The break problems of every beat of every clip rendered in ``lang``
    under ``renders`` (``<lang>/<quality>/<Scene>.beats.json``)."""
    from qkv_lens.beats import SUFFIX, BeatsError, read

    found, clips = [], 0
    for path in sorted((renders / lang).glob(f"*/*{SUFFIX}")):
        try:
            beats = read(path.parent, path.name)
        except BeatsError as err:
            found.append(f"{path}: {err}")
            continue
        clips += 1
        for beat in beats.beats:
            found += [f"{path.parent.name}/{beats.scene} {beat.id} at {beat.start:.1f}s: {p}"
                      for p in cues.break_problems([c.text for c in beat.cues], rules)]
    print(f"renders: {clips} clips in {lang} under {renders}")
    if not clips:
        found.append(f"no clip rendered in {lang} under {renders}")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lang")
    ap.add_argument("--rules", help="the cue rules' language (default: LANG if known, else en)")
    ap.add_argument("--texts", type=Path, default=TEXTS)
    ap.add_argument("--renders", type=Path, help="also check the cues of the clips rendered in LANG under DIR")
    args = ap.parse_args(argv)
    lang = args.lang
    rules = args.rules or (lang if lang in cues.LINE_WIDTH else "en")
    table = tomllib.loads(args.texts.read_text(encoding="utf-8"))
    en, other, glossary = table["en"], table.get(lang, {}), table["glossary"]
    problems: list[str] = []

    if list(other) != list(en):
        missing, extra = [k for k in en if k not in other], [k for k in other if k not in en]
        problems += [f"missing key {k}" for k in missing] + [f"extra key {k}" for k in extra]
        if not missing and not extra:
            problems.append("the keys are in another order than in [en]")
    problems += [f"glossary {t}: no {lang}" for t, e in glossary.items() if lang not in e]
    for key in en:
        if key in other and placeholders(other[key]) != placeholders(en[key]):
            problems.append(f"{key}: placeholders {placeholders(other[key])} != en {placeholders(en[key])}")

    say = [k for k in en if k.endswith("_say") and k in other]
    n_cues = worst_line = 0
    seconds = {lang: 0.0, "en": 0.0}
    for key in say:
        if problems and any(p.startswith(key + ":") for p in problems):
            continue
        text = fill(other[key], glossary, lang)
        split = cues.split_cues(text, rules)
        if not split:
            problems.append(f"{key}: no cues")
        for cue in split:
            n_cues += 1
            worst_line = max(worst_line, *map(len, cue.split("\n")))
            problems += [f"{key}: {p} in {cue!r}" for p in cues.check_cue(cue, rules)]
        problems += [f"{key}: {p}" for p in cues.break_problems(split, rules)]
        seconds[lang] += cues.reading_seconds(text, rules)
        seconds["en"] += cues.reading_seconds(fill(en[key], glossary, "en"), "en")

    labels = [k for k in en if k in other and not k.endswith(("_say", "_word", ".summary"))
              and not k.startswith(("page.", "export.formula."))]
    def ratio(k: str) -> float:
        return len(fill(other[k], glossary, lang)) / max(1, len(fill(en[k], glossary, "en")))

    longer = sorted(labels, key=ratio, reverse=True)
    print(f"{lang}: {len(other)} keys (en {len(en)}), {sum(lang in e for e in glossary.values())}/{len(glossary)} "
          f"glossary terms")
    print(f"narration: {len(say)} sentences, {n_cues} cues with the {rules!r} rules "
          f"(width {cues.LINE_WIDTH[rules]}), longest line {worst_line}; reading time "
          f"{seconds[lang]:.0f} s vs en {seconds['en']:.0f} s ({seconds[lang] / max(seconds['en'], 1e-9):.2f}x)")
    print(f"labels: {len(labels)}; most longer than en (characters, filled):")
    for k in longer[:12]:
        a, b = fill(other[k], glossary, lang), fill(en[k], glossary, "en")
        print(f"  {len(a):3d} vs {len(b):3d}  {k}: {a!r}")
    if args.renders is not None:
        problems += rendered_problems(args.renders, lang, rules)
    for p in problems:
        print("PROBLEM", p)
    print(f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
