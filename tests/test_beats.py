"""The beats record (``qkv_lens.beats``): what a scene writes is what the page,
the exports and the script read, sentence included; nothing is rebuilt
from cue lines."""
from __future__ import annotations

import pytest

from qkv_lens.beats import BeatsError, parse
from qkv_lens.texts import tr

SCENE = "WorkedExample"


def squeeze(text: str) -> str:
    return "".join(text.split())


def test_each_beat_says_its_sentence_and_its_cues_are_that_sentence(scene):
    record = scene.beats_record()
    assert [b.say for b in record] == [sentence for _, sentence in scene.said]
    assert record.beats[-1].say == tr(scene.lang, "worked_example.outro_say")
    for b in record:
        assert squeeze("".join(c.text for c in b.cues)) == squeeze(b.say), b.id


def test_the_file_reads_back_as_written(scene):
    record = scene.beats_record()
    back = parse(record.to_json().encode("utf-8"), "beats.json")
    assert [(b.id, b.say, b.key) for b in back] == [(b.id, b.say, b.key) for b in record]
    assert [b.start for b in back] == pytest.approx([b.start for b in record], abs=1e-3)
    assert [len(b.cues) for b in back] == [len(b.cues) for b in record]


def test_a_beat_that_names_its_focus_records_where_it_is(scene):
    """The column beats name their arithmetic line (``focus=``): its box is
    recorded, inside the frame."""
    columns = [b for b in scene.beats_record() if b.key == "column_say"]
    assert columns and all(b.focus is not None for b in columns)
    for b in columns:
        left, bottom, right, top = b.focus
        assert -7.2 < left < right < 7.2 and -4.1 < bottom < top < 4.1


@pytest.mark.parametrize("doc, fault", [
    ('{"beats": []}', "a list of 1 to"),
    ('{"beats": [{"id": "a", "start": 0, "end": 1, "cues": [{"start": 0, "end": 1, "text": "x"}]}]}',
     "a sentence (say)"),
    ('{"beats": [{"id": "a", "start": 0, "end": 1, "say": "x", "focus": [1, 0, 0, 1],'
     ' "cues": [{"start": 0, "end": 1, "text": "x"}]}]}', "out of order"),
    ('{"beats": [{"id": "a", "start": 2, "end": 1, "say": "x", "cues": []}]}', "outside"),
])
def test_a_damaged_record_is_one_line(doc, fault):
    with pytest.raises(BeatsError) as err:
        parse(doc.encode(), "x.beats.json")
    assert str(err.value).startswith("x.beats.json: damaged beats file") and fault in str(err.value)
