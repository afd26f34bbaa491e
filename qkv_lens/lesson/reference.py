"""The reference of every lesson key, from the declarations: what each
section is, and per key what it accepts and its shipped value.  ``qkv-lens
keys`` prints it; ``docs/lesson-keys.md`` is this text (a test keeps them
equal)."""
from __future__ import annotations

import json

from .bounds import MAX_CHAPTER_TITLE
from .declared import discover
from .files import defaults
from .keys import describe
from .schema import TOP_KEYS

HEADER = """# Every key of a lesson

Generated from the scenes' declarations (`qkv-lens keys` prints it; a test
keeps this page equal to it). A key you leave out takes the shipped value.
Numbers may be integers, decimals or fractions written as text (`"1/2"`);
vectors are row vectors (`y = x W`). A name (`{ zh = ..., en = ... }`) may
be given in any language of the text tables (each row of `[languages]` in
`texts.toml` that has a table of texts); the lesson needs one in every
language it is rendered in.
"""


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def reference() -> str:
    """The reference as Markdown."""
    shipped = defaults()
    out = [HEADER, "## The top of the file", "", "Keys before the first section.", "",
           "| key | accepts | shipped | what it is |", "|---|---|---|---|"]
    out += [f"| `{key}` | {accepts} | `{_shown(shipped[key])}` | {doc} |" for key, (accepts, doc) in TOP_KEYS.items()]
    out.append("")
    declared = discover()
    readers: dict[str, list[str]] = {}
    for scene in declared.scenes:
        readers.setdefault(declared.section_of[scene.name], []).append(scene.name)
    for name, section in declared.sections.items():
        doc = " ".join(section.doc.split()).removeprefix(f"[{name}]:").strip()
        doc = doc[:1].upper() + doc[1:]
        out += [f"## [{name}]", "", f"{doc} Read by {', '.join(readers[name])}.", "",
                "| key | accepts | shipped | what it is |", "|---|---|---|---|"]
        for key, spec in section.keys.items():
            if key not in shipped.get(name, {}):
                continue          # computed, not written in a lesson
            out.append(f"| `{key}` | {describe(spec)} | `{_shown(shipped[name][key])}` | {spec.doc} |")
        out.append("")
    out += ["## [[chapters]]", "",
            "The lesson's scenes, in the order they are taught, under headings of your choosing. "
            "Each chapter has a `title` in each language it is rendered in (`{ zh = ..., en = ... }`, at most "
            f"{MAX_CHAPTER_TITLE} characters) and `scenes`, a list of scene class names (any case; "
            "`qkv-lens list --all` shows them). A scene appears at most once. `render`, `watch`, the page "
            "and `export` follow this list; `render SCENE...` and `export SCENE...` take a part of it.", "",
            "Shipped: " + "; ".join(f"{c['title']['en']!r}: {', '.join(c['scenes'])}" for c in shipped["chapters"])
            + ".", ""]
    return "\n".join(out).rstrip() + "\n"
