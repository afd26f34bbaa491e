"""The described lesson in the exports (issue 42, item 5), on the fake
renders of ``tests/test_export.py`` with descriptions in their beats files:
``lesson.mp4``'s second audio track (the narration with the descriptions
mixed in, tagged with its language and as the described track), read back
with PyAV; ``lesson.described.mp4`` when a description runs past its beat
(the picture holds, nothing is cut: longer by the holds); the lesson's
descriptions as WebVTT; the handout's descriptions; a recording of a
description used instead of espeak-ng."""
from __future__ import annotations

import json
import math
import shutil
import wave
from pathlib import Path

import av
import numpy as np
import pytest
import webvtt

from qkv_lens import voice
from qkv_lens.app import cli, export
from qkv_lens.lesson import load_lesson
from qkv_lens.texts import tr
from tests.helpers import LESSON, one_error_line
from tests.test_export import CLIPS, NAMES, PICKED, STARTS, TOTAL, make_renders

SHORT = {0: {0: "One."}, 2: {1: "Two."}}                  # clip -> beat -> a description that fits its beat
LONG = {0: {0: "The plane is a grid of squares; i is green and j is red, and W is two by two: first row 1, 0; "
               "second row 0, 1."}}                            # runs past its one-second beat
BEAT = [c[0] / 2 for c in CLIPS]                           # each clip's two beats share it evenly


def describe(root: Path, texts: dict[int, dict[int, str]], lang: str = "en") -> None:
    """Put ``texts`` (clip -> beat -> description) into the renders' beats files."""
    for i, by_beat in texts.items():
        path = root / lang / "480p15" / f"{PICKED[i].name}.beats.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        for j, text in by_beat.items():
            doc["beats"][j]["describe"] = text
        path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory):
    """espeak-ng's WAVs in a cache of this module's own."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("QKV_CACHE_DIR", str(tmp_path_factory.mktemp("voice-cache")))
        voice.espeak_version.cache_clear()
        yield


def spoken_seconds(text: str) -> float:
    """How long espeak-ng says ``text`` in English (what the described track plays)."""
    return voice.wav_seconds(voice.espeak_wav(text, "en"))


def audio(path: Path, index: int) -> tuple[np.ndarray, int, dict, int]:
    """Audio stream ``index`` of ``path``: its samples (mono float), rate, metadata, disposition."""
    with av.open(str(path)) as c:
        s = c.streams.audio[index]
        meta, disposition, rate = dict(s.metadata), int(s.disposition), s.codec_context.sample_rate
        samples = np.concatenate([f.to_ndarray().mean(axis=0) for f in c.decode(s)])
    return samples, rate, meta, disposition


def loud(samples: np.ndarray, rate: int, a: float, b: float) -> float:
    part = samples[round(a * rate):round(b * rate)]
    return float(np.sqrt(np.mean(part ** 2))) if len(part) else 0.0


@pytest.fixture(scope="module")
def fits(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("renders")
    make_renders(root)
    describe(root, SHORT)
    assert cli.main(["export", *NAMES, "--lang", "en", "--out", str(root), "--pdf"]) == 0
    return root / "en" / "480p15"


def test_lesson_mp4_has_a_described_track_tagged_and_as_long_as_the_lesson(fits):
    assert all(spoken_seconds(t) < BEAT[i] for i, by in SHORT.items() for t in by.values())   # each one fits
    with av.open(str(fits / "lesson.mp4")) as c:
        assert [s.type for s in c.streams if s.type != "data"] == ["video", "audio", "audio", "subtitle"]
        lengths = [float(s.duration * s.time_base) for s in c.streams if s.type in ("video", "audio")]
    assert lengths == pytest.approx([TOTAL] * 3, abs=0.05)       # nothing longer: every description fits
    narration, rate, meta0, flags0 = audio(fits / "lesson.mp4", 0)
    said, rate1, meta1, flags1 = audio(fits / "lesson.mp4", 1)
    assert (meta0["language"], meta1["language"], rate1) == ("eng", "eng", rate)
    assert meta1["handler_name"] == tr("en", "export.described_track")
    assert flags0 & av.stream.Disposition.default and not flags0 & av.stream.Disposition.descriptions
    assert flags1 & av.stream.Disposition.descriptions and flags1 & av.stream.Disposition.visual_impaired
    assert not flags1 & av.stream.Disposition.default
    # "One." in clip 0's first beat, over silence; the tone of clip 1 on both tracks; "Two." in clip 2's second beat
    first, second = spoken_seconds("One."), spoken_seconds("Two.")
    assert loud(narration, rate, 0.0, 1.0) < 1e-3 < loud(said, rate, 0.05, first - 0.05)
    assert loud(said, rate, first + 0.05, STARTS[1] - 0.05) < 1e-3
    a, b = STARTS[1] + 0.2, STARTS[2] - 0.2
    assert loud(said, rate, a, b) == pytest.approx(loud(narration, rate, a, b), rel=0.05)
    assert loud(narration, rate, a, b) > 0.1
    two = STARTS[2] + BEAT[2]
    assert loud(narration, rate, two, TOTAL) < 1e-3 < loud(said, rate, two + 0.05, two + second - 0.05)
    assert not (fits / export.DESCRIBED).exists()


def test_the_descriptions_as_webvtt_and_in_the_handout(fits):
    def seconds(stamp: str) -> float:
        h, m, s = stamp.split(":")
        return 3600 * int(h) + 60 * int(m) + float(s)

    cues = webvtt.read(str(fits / export.DESCRIPTIONS))
    assert [(seconds(c.start), seconds(c.end), c.text) for c in cues] == [
        (0.0, BEAT[0], "One."), (STARTS[2] + BEAT[2], TOTAL, "Two.")]
    from pypdf import PdfReader
    pages = [p.extract_text() for p in PdfReader(fits / "lesson.pdf").pages]
    first, last = pages[0], pages[-1]
    heading = tr("en", "export.descriptions")
    # after what the clip says, numbered as its beats
    assert first.index(tr("en", "export.transcript")) < first.index(heading) < first.index("1. One.")
    assert heading in last and "2. Two." in last
    assert heading not in pages[1]


def test_a_description_past_its_beat_gives_a_described_version_whose_picture_waits(tmp_path):
    root = tmp_path / "renders"
    make_renders(root)
    describe(root, LONG)
    assert cli.main(["export", *NAMES, "--lang", "en", "--out", str(root)]) == 0
    folder = root / "en" / "480p15"
    hold = spoken_seconds(LONG[0][0]) - BEAT[0]
    assert hold > 0.5
    with av.open(str(folder / "lesson.mp4")) as c:           # lesson.mp4 is the lesson as it plays: no track cut
        assert [s.type for s in c.streams if s.type != "data"] == ["video", "audio", "subtitle"]
    held = folder / export.DESCRIBED
    with av.open(str(held)) as c:
        assert [s.type for s in c.streams if s.type != "data"] == ["video", "audio", "subtitle"]
        v, a = c.streams.video[0], c.streams.audio[0]
        lengths = [float(s.duration * s.time_base) for s in (v, a)]
        chapters = [(float(ch["start"] * ch["time_base"]), ch["metadata"]["title"]) for ch in c.chapters()]
        meta, flags = dict(a.metadata), int(a.disposition)
    assert lengths == pytest.approx([TOTAL + hold] * 2, abs=0.12)      # longer by the hold
    assert meta["language"] == "eng" and meta["handler_name"] == tr("en", "export.described_track")
    assert flags & av.stream.Disposition.descriptions and flags & av.stream.Disposition.default
    assert [t for _, t in chapters] == [tr("en", f"{s.section}.title") for s in PICKED]
    assert [s for s, _ in chapters] == pytest.approx([0.0, STARTS[1] + hold, STARTS[2] + hold], abs=0.01)
    # the frame at the beat's end holds through the description; after it, the clip goes on as it was
    with av.open(str(held)) as c:
        shown = [(float(f.time), f.to_ndarray(format="rgb24").astype(int)) for f in c.decode(video=0)]
    with av.open(str(folder / f"{PICKED[0].name}.mp4")) as c:
        clip = [f.to_ndarray(format="rgb24").astype(int) for f in c.decode(video=0)]
    end = round(BEAT[0] * 10)           # 10 frames a second: frame 9 is the beat's last
    during = [img for t, img in shown if BEAT[0] - 1e-6 <= t < BEAT[0] + hold - 0.1]
    assert len(during) >= round(hold * 10) - 1
    assert all(np.abs(img - clip[end - 1]).mean() < 3 for img in during)
    after = [img for t, img in shown if t >= BEAT[0] + hold + 0.05][0]
    assert np.abs(after - clip[end]).mean() < 3 or np.abs(after - clip[end + 1]).mean() < 3
    # the described audio: the description from 0 s on; the tone of clip 1 moved by the hold
    said, rate, _, _ = audio(held, 0)
    assert loud(said, rate, 0.1, hold) > 1e-3
    assert loud(said, rate, STARTS[1] + hold + 0.2, STARTS[2] + hold - 0.2) > 0.1
    assert loud(said, rate, BEAT[0] + hold + 0.1, STARTS[1] + hold - 0.1) < 1e-3   # clip 0's quiet second beat
    # its subtitles move with the picture: the second beat's cues after the hold
    with av.open(str(held)) as c:
        starts = sorted(float(p.pts * p.time_base) for p in c.demux(c.streams.subtitles[0]) if p.size > 2)   # 2: a gap
    assert starts[2] == pytest.approx(BEAT[0] + hold, abs=0.01)
    # and the page links it
    page = (root / "index.html").read_text(encoding="utf-8")
    assert f'href="en/480p15/{export.DESCRIBED}"' in page and tr("en", "page.dl_described") in page


def test_a_recording_of_a_description_is_played_instead_of_espeak(tmp_path):
    root, lesson = tmp_path / "renders", tmp_path / "lesson"
    make_renders(root)
    describe(root, {0: {1: "A recorded description."}})
    recording = lesson / "voice" / "en" / PICKED[0].name / "b1.description.wav"
    recording.parent.mkdir(parents=True)
    rate = 22050
    with wave.open(str(recording), "wb") as w:          # a 0.5 s, 880 Hz tone stands for the teacher's voice
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        n = rate // 2
        w.writeframes(b"".join(int(12000 * math.sin(2 * math.pi * 880 * k / rate)).to_bytes(2, "little", signed=True)
                               for k in range(n)))
    chapters = load_lesson(LESSON).chapters
    export.export(root, ["en"], "l", chapters, list(PICKED), lesson_dir=lesson)
    said, r, _, _ = audio(root / "en" / "480p15" / "lesson.mp4", 1)
    part = said[round((BEAT[0] + 0.05) * r):round((BEAT[0] + 0.45) * r)]
    spectrum = np.abs(np.fft.rfft(part))
    assert np.fft.rfftfreq(len(part), 1 / r)[spectrum.argmax()] == pytest.approx(880, abs=10)
    assert loud(said, r, BEAT[0] + 0.6, STARTS[1] - 0.05) < 1e-3      # the recording's half second, no more
    # a recording named after a beat's description is no stray
    assert voice.stray_recordings(lesson, "en", PICKED[0].name, ["b0", "b1"]) == []


def test_without_espeak_the_descriptions_cannot_be_spoken_in_one_line(tmp_path, monkeypatch, capsys):
    root = tmp_path / "renders"
    make_renders(root)
    describe(root, {0: {0: "Never said before: " + tmp_path.name}})
    monkeypatch.setattr(voice, "ESPEAK", "espeak-ng-not-installed")
    voice.espeak_version.cache_clear()
    try:
        assert cli.main(["export", *NAMES, "--lang", "en", "--out", str(root)]) == 1
    finally:
        voice.espeak_version.cache_clear()
    line = one_error_line(capsys.readouterr().err)
    assert "the descriptions cannot be spoken" in line and "apt-get install" in line
    assert not list((root / "en" / "480p15").glob("lesson.*"))
    shutil.rmtree(root)
