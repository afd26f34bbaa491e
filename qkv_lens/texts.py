"""Every sentence the lesson shows or speaks, one column per language (the
tables are the data file ``texts.toml`` beside this module, read by
``qkv_lens.languages``, with any teacher's overlay laid over them).

One glossary keeps each term translated the same way: a text writes
``{g:query}`` and gets 查询 or "query".  Other ``{name}`` fields are filled
from qkv_math results by the scene (never typed in here).
"""
from __future__ import annotations

import re

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
