"""``<Scene>.beats.json``: a clip's beats as played, the one record of them.

A beat is one narration step: its ``id`` (the text key without ``_say``,
numbered when repeated), its text ``key``, its sentence ``say``, its
``start`` and ``end`` in seconds, its subtitle ``cues`` (start, end, text),
the length of its ``voice`` (0 without) and its ``focus``: the box
(left, bottom, right, top, in scene units) of what the beat's sentence
names, when the scene says so; its ``ask``, when a checkpoint comes
before it: a question the learner answers before the beat plays (the beat
shows the answer: ``Ask``); its ``describe``, what its picture shows that
its sentence does not say (an audio description, ``LessonScene.describe``),
spoken in the beat's quiet part (``Beat.quiet``: after its voice, to its
end); ``named`` when the scene says its sentence names what changes; and
``changes`` when the beat changes the picture (an animation other than a
wait or a pulse), so a test can tell a described or named change from a
forgotten one.

The scene writes the file (``Beats.to_json``, from
``scenes.kit.scene.LessonScene``); the page, the exports, the recording
script and the tests read it (``parse``, ``read``), and nothing rebuilds a
sentence from its cue lines.  Read back, the file is untrusted input:
``parse`` checks every field (numbers finite and in order inside the clip,
texts of bounded length, counts bounded) and a fault is a ``BeatsError``
naming the file.
"""
from __future__ import annotations

import json
import math
import numbers
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from qkv_lens.numbers import plain_number
from qkv_lens.store import Unsafe, read_inside, shown

SUFFIX = ".beats.json"
MAX_BYTES = 4 << 20      # a long scene's beats are a few KiB
MAX_BEATS = 400
MAX_CUES = 64            # in one beat
MAX_TEXT = 4000          # characters of a cue, a sentence or a beat's description
MAX_ID = 120
SLACK = 1.0              # seconds a beat may end after the clip (frames are whole)
FAR = 1000.0             # scene units: a focus box further out than this is not a box on screen
QUIET_AFTER_VOICE = 0.2  # seconds after a beat's voice before its description (a breath between voices)
# a checkpoint's bounds: choices a learner picks by a digit key, each a name or a number as the scene shows it
MIN_CHOICES, MAX_CHOICES = 2, 8
MAX_CHOICE = 80          # characters of one choice
MAX_PLACES = 6           # decimals a number answer is given to
MAX_ANSWER = 1e9         # the size of a number answer
KEY = re.compile(r"[a-z][a-z0-9_]{0,63}")   # a checkpoint's text key (and its "<key>_wrong")
# a number answer as a learner types it (the page reads it the same way, page.js ``typed``)
TYPED = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
MAX_TYPED = 16


class Cue(NamedTuple):
    start: float
    end: float
    text: str


class CheckpointError(ValueError):
    """A checkpoint that cannot be asked (one line)."""


@dataclass(frozen=True)
class Ask:
    """A checkpoint: ``question`` asked before its beat plays (the beat shows
    the answer), ``wrong`` the one sentence said after a wrong answer.  A
    choice (``choices``, the right one ``choices[answer]``) or a number
    (``number``, right when it rounds to the same at ``places`` decimals);
    ``shown`` is the answer as written (the right choice, or the number at
    most, half away from zero, as ``qkv_lens.numbers`` writes it: 3, 2.68).
    ``key`` is its text key in the scene's section."""
    key: str
    question: str
    wrong: str
    choices: tuple[str, ...] = ()
    answer: int = 0
    number: float | None = None
    places: int = 0
    shown: str = ""

    def right(self, response: str) -> bool:
        """Whether ``response`` (a choice as shown, or a number as typed:
        digits with a point or a comma before the decimals, spaces ignored,
        at most MAX_TYPED characters) is the right answer."""
        if self.number is None:
            return response == self.choices[self.answer]
        typed = "".join(response.split()).replace(",", ".", 1).replace("\u2212", "-", 1)
        if not TYPED.fullmatch(typed) or len(typed) > MAX_TYPED or not math.isfinite(value := float(typed)):
            return False
        return abs(value - self.number) <= 0.5 * 10.0 ** -self.places + 1e-9

    def as_dict(self) -> dict:
        doc: dict = {"key": self.key, "question": self.question, "wrong": self.wrong}
        if self.number is None:
            doc.update(choices=list(self.choices), answer=self.answer)
        else:
            doc.update(number=self.number, places=self.places)
        doc["shown"] = self.shown
        return doc


def ask(key: str, question: str, wrong: str, choices=None, answer=None, number=None, places=None) -> Ask:
    """A checked ``Ask``: a choice (``choices``: 2 to MAX_CHOICES distinct
    texts, ``answer`` the index of the right one) or a number (``number``,
    finite, at most MAX_ANSWER in size, given to ``places`` decimals, 0 to
    MAX_PLACES), never both; texts of bounded length.  CheckpointError
    (one line naming ``key``) otherwise."""
    def fail(why: str) -> CheckpointError:
        return CheckpointError(f"checkpoint {shown(str(key))}: {why}")

    if not isinstance(key, str) or not KEY.fullmatch(key) or key.endswith("_wrong"):
        raise fail("a text key of lower-case letters, digits and _ expected (not ending in _wrong)")
    for what, text in (("question", question), ("feedback (_wrong)", wrong)):
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
            raise fail(f"its {what} must be a text of 1 to {MAX_TEXT} characters")
    if (choices is None) == (number is None):
        raise fail("give choices= and answer=, or number= and places=")
    if choices is not None:
        if places is not None:
            raise fail("places= goes with number=, not with choices=")
        if isinstance(choices, str) or not isinstance(choices, (list, tuple)) \
                or not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
            raise fail(f"choices must be a list of {MIN_CHOICES} to {MAX_CHOICES} texts")
        texts = tuple(choices)
        for c in texts:
            if not isinstance(c, str) or not c.strip() or len(c) > MAX_CHOICE or not c.isprintable():
                raise fail(f"each choice must be a printable text of 1 to {MAX_CHOICE} characters, found "
                           f"{shown(repr(c))}")
        if len(set(texts)) != len(texts):
            raise fail(f"two choices are the same ({shown(', '.join(texts))}): a learner could not tell them apart")
        if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer < len(texts):
            raise fail(f"answer must be the index of the right choice, 0 to {len(texts) - 1}, found "
                       f"{shown(repr(answer))}")
        return Ask(key, question, wrong, texts, answer, shown=texts[answer])
    if answer is not None:
        raise fail("answer= goes with choices=; a number question gives number= and places=")
    if isinstance(number, bool) or not isinstance(number, numbers.Real):
        raise fail(f"number must be a number, found {shown(repr(number))}")
    value = float(number)
    if not math.isfinite(value) or abs(value) > MAX_ANSWER:
        raise fail(f"number must be finite and at most {MAX_ANSWER:g} in size")
    places = 0 if places is None else places
    if isinstance(places, bool) or not isinstance(places, int) or not 0 <= places <= MAX_PLACES:
        raise fail(f"places must be a whole number from 0 to {MAX_PLACES}")
    return Ask(key, question, wrong, number=value, places=places, shown=plain_number(value, places))


@dataclass(frozen=True)
class Beat:
    id: str
    key: str
    start: float
    end: float
    say: str
    cues: tuple[Cue, ...]
    voice: float = 0.0
    focus: tuple[float, float, float, float] | None = None
    ask: Ask | None = None     # a checkpoint before the beat, which shows its answer
    describe: str = ""         # what the picture shows that the sentence does not say ("": nothing to add)
    named: bool = False        # the scene says the sentence names what changes
    changes: bool = False      # the beat changes the picture

    @property
    def quiet(self) -> tuple[float, float]:
        """When the beat's description is spoken: from where its voice (and
        the pause after it) ends, or its start when it has none, to its end."""
        at = self.start + self.voice + QUIET_AFTER_VOICE if self.voice > 0 else self.start
        return min(at, self.end), self.end

    def as_dict(self) -> dict:
        doc = {"id": self.id, "key": self.key, "start": round(self.start, 3), "end": round(self.end, 3),
               "say": self.say, "voice": round(self.voice, 3),
               "focus": None if self.focus is None else [round(v, 3) for v in self.focus],
               "cues": [{"start": round(c.start, 3), "end": round(c.end, 3), "text": c.text} for c in self.cues]}
        if self.ask is not None:
            doc["ask"] = self.ask.as_dict()
        if self.describe:
            doc["describe"] = self.describe
        if self.named:
            doc["named"] = True
        if self.changes:
            doc["changes"] = True
        return doc


@dataclass(frozen=True)
class Beats:
    """A clip's beats: its scene, language and voice mode, and the beats in order."""
    scene: str
    language: str
    voice: str
    beats: tuple[Beat, ...]

    def to_json(self) -> str:
        doc = {"scene": self.scene, "language": self.language, "voice": self.voice,
               "beats": [b.as_dict() for b in self.beats]}
        return json.dumps(doc, ensure_ascii=False, indent=1, allow_nan=False) + "\n"

    def __iter__(self):
        return iter(self.beats)

    def __len__(self) -> int:
        return len(self.beats)


class BeatsError(ValueError):
    """A beats file that cannot be used; ``str(err)`` is one line naming it."""


def _time(value: object, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError("a time that is not a finite number")
    if not lo - 1e-6 <= value <= hi + 1e-6:
        raise ValueError(f"a time of {value:.3f} s outside {lo:.3f} to {hi:.3f} s")
    return float(value)


def _text(value: object, most: int, what: str = "a text") -> str:
    if not isinstance(value, str) or len(value) > most:
        raise ValueError(f"{what} of at most {most} characters expected")
    return value


def _focus(value: object) -> tuple[float, float, float, float] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 4:
        raise ValueError("a focus box [left, bottom, right, top] expected")
    box = tuple(_time(v, -FAR, FAR) for v in value)
    if not (box[0] <= box[2] and box[1] <= box[3]):
        raise ValueError("a focus box whose sides are out of order")
    return box   # type: ignore[return-value]


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _beat(i: int, b: object, last: float, hi: float) -> Beat:
    if not isinstance(b, dict):
        raise ValueError(f"beat {i} is not a table")
    beat_id = _text(b.get("id"), MAX_ID, f"beat {i}: an id")
    if not beat_id or not beat_id.isprintable():
        raise ValueError(f"beat {i}: a printable id expected")
    start = _time(b.get("start"), last, hi)
    end = _time(b.get("end"), start, hi)
    if not start < end:
        raise ValueError(f"beat {i} ends before it starts")
    raw = b.get("cues")
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_CUES:
        raise ValueError(f"beat {i}: a list of 1 to {MAX_CUES} cues expected")
    cues = []
    for c in raw:
        if not isinstance(c, dict):
            raise ValueError(f"beat {i}: a cue that is not a table")
        a = _time(c.get("start"), start, end)
        cues.append(Cue(a, _time(c.get("end"), a, end), _text(c.get("text"), MAX_TEXT, f"beat {i}: a cue")))
    return Beat(beat_id, _text(b.get("key", ""), MAX_ID, f"beat {i}: a key"), start, end,
                _text(b.get("say"), MAX_TEXT, f"beat {i}: a sentence (say)"), tuple(cues),
                _time(b.get("voice", 0.0), 0.0, hi), _focus(b.get("focus")), _ask(i, b.get("ask")),
                _text(b.get("describe", ""), MAX_TEXT, f"beat {i}: a description (describe)"),
                _flag(b.get("named", False), f"beat {i}: named"), _flag(b.get("changes", False), f"beat {i}: changes"))


def _flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be true or false")
    return value


def _ask(i: int, value: object) -> Ask | None:
    """A beat's checkpoint as the file gives it, checked as ``ask`` checks
    a scene's (and its ``shown`` the answer that follows from it)."""
    if value is None:
        return None
    if not isinstance(value, dict) or not set(value) <= {"key", "question", "wrong", "choices", "answer",
                                                           "number", "places", "shown"}:
        raise ValueError(f"beat {i}: a checkpoint (ask) that is not a table of its fields")
    try:
        found = ask(value.get("key"), value.get("question"), value.get("wrong"),  # type: ignore[arg-type]
                    value.get("choices"), value.get("answer"), value.get("number"), value.get("places"))
    except CheckpointError as err:
        raise ValueError(f"beat {i}: {err}") from None
    if found.number is not None and found.number != value.get("number") or value.get("shown") != found.shown:
        raise ValueError(f"beat {i}: a checkpoint whose answer is not written as it is given")
    return found


def parse(data: bytes, where: str, duration: float | None = None) -> Beats:
    """The beats in ``data`` (the bytes of a beats file, named ``where`` in
    messages): every time inside the clip (``duration`` seconds, when
    known), beats in order, each cue inside its beat.  BeatsError otherwise."""
    hi = (duration + SLACK) if duration is not None else 6 * 3600.0
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
        raw = doc.get("beats") if isinstance(doc, dict) else None
        if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_BEATS:
            raise ValueError(f"a list of 1 to {MAX_BEATS} beats expected")
        beats, last = [], 0.0
        for i, b in enumerate(raw):
            beats.append(_beat(i, b, last, hi))
            last = beats[-1].end
        return Beats(_text(doc.get("scene", ""), MAX_ID, "a scene"), _text(doc.get("language", ""), 16,
                                                                            "a language"),
                     _text(doc.get("voice", "none"), 16, "a voice"), tuple(beats))
    except (ValueError, RecursionError, UnicodeDecodeError) as err:
        message = " ".join(str(err).split())[:200]
        raise BeatsError(f"{where}: damaged beats file ({message}); render it again") from None


def read(root: Path, name: str, duration: float | None = None) -> Beats:
    """The checked beats of the file ``name`` inside the folder ``root``
    (``qkv_lens.store.inside``: no path out of it); BeatsError otherwise."""
    where = shown(root / name)
    try:
        data = read_inside(root, name, MAX_BYTES, "beats file")
    except Unsafe as err:
        raise BeatsError(str(err)) from None
    except OSError as err:
        raise BeatsError(f"{where}: cannot read it ({err.strerror or err})") from None
    return parse(data, where, duration)
