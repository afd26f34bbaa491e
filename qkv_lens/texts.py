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
# each scene's key formula (LaTeX, math mode), by text section; the same in every language
FORMULAS: dict[str, str] = _TABLE.get("formulas", {})

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
