import re
import string

import pytest

from qkv_lens.texts import GLOSSARY, TEXTS, tr


def test_both_languages_have_the_same_texts():
    assert set(TEXTS["zh"]) == set(TEXTS["en"])


@pytest.mark.parametrize("key", sorted(TEXTS["zh"]))
def test_fields_agree_and_glossary_resolves(key):
    fields = {}
    for lang in ("zh", "en"):
        names = {f for _, f, _, _ in string.Formatter().parse(re.sub(r"\{g:[a-z_]+\}", "", TEXTS[lang][key])) if f}
        fields[lang] = names
        for term in re.findall(r"\{g:([a-z_]+)\}", TEXTS[lang][key]):
            assert term in GLOSSARY, f"{key}: unknown glossary term {term}"
    assert fields["zh"] == fields["en"], key
    filled = {f: "1" for f in fields["zh"]}
    zh, en = tr("zh", key, **filled), tr("en", key, **filled)
    assert "{" not in zh and "{" not in en
    if re.search(r"[A-Za-z]", re.sub(r"\{[^}]*\}", "", TEXTS["en"][key])):   # not a bare separator
        assert re.search(r"[\u4e00-\u9fff]", zh), key
    assert not re.search(r"[\u4e00-\u9fff]", en), key


def test_glossary_terms_are_used_consistently():
    assert tr("zh", "worked_example.outro").startswith(GLOSSARY["projection_matrix"]["zh"])
    assert "projection matrix" in tr("en", "worked_example.outro")


def _regular_plural(word: str) -> bool:
    """True when English forms the plural of ``word`` by adding a bare s."""
    return not re.search(r"(s|x|z|ch|sh|[^aeiou]y)$", word)


@pytest.mark.parametrize("key", sorted(TEXTS["en"]))
def test_glossary_plurals_are_spelled_right(key):
    # "{g:term}s" adds an s to the term's English; "matrix" + "s" gave "matrixs".
    for term in re.findall(r"\{g:([a-z_]+)\}s\b", TEXTS["en"][key]):
        last = GLOSSARY[term]["en"].split()[-1]
        assert _regular_plural(last), f'{key}: "{GLOSSARY[term]["en"]}s"; use a plural glossary entry'
    assert not re.search(r"\b\w+(xs|chs|shs)\b", tr("en", key, **_dummy_fields(key))), key


def _dummy_fields(key):
    names = {f for _, f, _, _ in string.Formatter().parse(re.sub(r"\{g:[a-z_]+\}", "", TEXTS["en"][key])) if f}
    return {f: "1" for f in names}
