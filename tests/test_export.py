"""``qkv-lens export`` on a fake renders folder: tiny synthetic clips made with
PyAV (no manim), their subtitles, posters, beats and a manifest."""
import json
import re
import zipfile
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest
import srt
from PIL import Image

from qkv_lens.app import cli, export, manifest
from qkv_lens.lesson import load_lesson
from qkv_lens.registry import SCENES
from qkv_lens.texts import tr
from tests.helpers import LESSON

# Three scenes across both chapters, in storyboard order.
PICKED = (SCENES[0], SCENES[5], SCENES[6])   # one of chapter 1's, its last, and chapter 2's first
NAMES = [s.name for s in PICKED]
FPS, SIZE, RATE = 10, (160, 90), 44100
# Per scene: seconds, a tone (Hz) for an AAC track or None, and its narration:
# two beats, each one sentence said as two cues.
CLIPS = [
    (2.0, None, ["First beat of one, said slowly.", "Second beat of one closes it."]),
    (2.5, 440, ["The middle clip has a voice.", "It sings a steady tone."]),
    (3.0, None, ["The last clip starts here.", "And it ends the lesson."]),
]
STARTS = [0.0, 2.0, 4.5]   # each clip's start: the sum of the clips before it
TOTAL = 7.5
OUTPUTS = ("lesson.mp4", "lesson.srt", "lesson.vtt", "lesson.chapters.vtt", "lesson.pptx")


def make_clip(path: Path, seconds: float, tone: int | None, shade: int, fps: int = FPS,
              size: tuple[int, int] = SIZE) -> None:
    """An h264 (yuv420p, B-frames) mp4 with a moving bar; an AAC sine if ``tone``."""
    with av.open(str(path), "w", format="mp4") as out:
        video = out.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = size[0], size[1], "yuv420p"
        audio = out.add_stream("aac", rate=RATE, layout="mono") if tone else None
        for i in range(round(seconds * fps)):
            picture = np.full((size[1], size[0], 3), shade, np.uint8)
            picture[:, : (i * 7) % size[0]] = 255 - shade
            frame = av.VideoFrame.from_ndarray(picture, format="rgb24")
            frame.pts = i
            out.mux(video.encode(frame))
        out.mux(video.encode(None))
        if audio is not None:
            n = round(seconds * RATE)
            wave = (0.3 * np.sin(2 * np.pi * tone * np.arange(n) / RATE)).astype(np.float32)[None, :]
            for s in range(0, n, 1024):
                frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(wave[:, s:s + 1024]), format="fltp",
                                                   layout="mono")
                frame.sample_rate, frame.pts = RATE, s
                out.mux(audio.encode(frame))
            out.mux(audio.encode(None))


def cue_split(sentence: str) -> tuple[str, str]:
    """Two cues: after the second word, or (Chinese, no spaces) halfway."""
    words = sentence.split()
    if len(words) == 1:
        return sentence[:len(sentence) // 2], sentence[len(sentence) // 2:]
    return " ".join(words[:2]), " ".join(words[2:])


def make_renders(root: Path, lang: str = "en", clips=CLIPS, fps=(FPS, FPS, FPS), sizes=(SIZE, SIZE, SIZE)) -> None:
    """renders/<lang>/480p15/<Scene>.{mp4,srt,vtt,png,beats.json} and the
    manifest (recorded last scene first: the export must follow the storyboard)."""
    folder = root / lang / "480p15"
    folder.mkdir(parents=True, exist_ok=True)
    for i, (scene, (seconds, tone, sentences)) in reversed(list(enumerate(zip(PICKED, clips)))):
        make_clip(folder / f"{scene.name}.mp4", seconds, tone, shade=60 * (i + 1), fps=fps[i], size=sizes[i])
        beats, subs, t = [], [], 0.0
        step = seconds / (2 * len(sentences))
        for j, sentence in enumerate(sentences):
            cues = []
            for part in cue_split(sentence):
                cues.append({"start": round(t, 3), "end": round(t + step, 3), "text": part})
                subs.append(srt.Subtitle(len(subs) + 1, srt.timedelta(seconds=t), srt.timedelta(seconds=t + step),
                                         part))
                t += step
            beats.append({"id": f"b{j}", "key": "x_say", "start": cues[0]["start"], "end": cues[-1]["end"],
                          "say": sentence, "voice": 0.0, "cues": cues})
        (folder / f"{scene.name}.srt").write_text(srt.compose(subs), encoding="utf-8")
        (folder / f"{scene.name}.vtt").write_text("WEBVTT\n", encoding="utf-8")
        (folder / f"{scene.name}.beats.json").write_text(json.dumps({"scene": scene.name, "beats": beats}),
                                                         encoding="utf-8")
        Image.new("RGB", sizes[i], (200, 40 * i, 90)).save(folder / f"{scene.name}.png")
        files = [f"{lang}/480p15/{scene.name}.{ext}" for ext in ("mp4", "srt", "vtt", "beats.json", "png")]
        manifest.record(root, {"scene": scene.name, "order": scene.number, "key": "k", "language": lang,
                               "quality": "480p15", "format": "mp4", "voice": "none", "duration": seconds,
                               "width": sizes[i][0], "height": sizes[i][1], "files": files, "bytes": 0,
                               "render_seconds": 0.0})


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """A renders folder with the three clips, exported once (--pdf too)."""
    root = tmp_path_factory.mktemp("renders")
    make_renders(root)
    assert cli.main(["export", *NAMES, "--lang", "en", "--out", str(root), "--pdf"]) == 0
    return root / "en" / "480p15"


def run(root: Path, *extra: str) -> int:
    """``qkv-lens export`` of the three PICKED scenes (a subset of the lesson)."""
    return cli.main(["export", *NAMES, "--out", str(root), *extra])


def leftovers(root: Path) -> list[str]:
    """Export outputs and temporary files anywhere under ``root``."""
    return sorted(p.name for p in root.rglob("*") if p.name.startswith(("lesson.", ".lesson.")))


def video_packets(path: Path) -> list[bytes]:
    with av.open(str(path)) as c:
        return [bytes(p) for p in c.demux(c.streams.video[0]) if p.size]


def frames(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]


def clip_path(folder: Path, i: int) -> Path:
    return folder / f"{PICKED[i].name}.mp4"


def test_video_packets_are_copied_in_storyboard_order(exported):
    joined = video_packets(exported / "lesson.mp4")
    parts = [video_packets(clip_path(exported, i)) for i in range(3)]
    assert len(joined) == sum(len(p) for p in parts) == round(TOTAL * FPS)
    assert joined == [b for p in parts for b in p]


def test_lesson_decodes_to_the_clips_frames_and_lasts_their_sum(exported):
    lesson = frames(exported / "lesson.mp4")
    clips = [f for i in range(3) for f in frames(clip_path(exported, i))]
    assert len(lesson) == len(clips)
    assert all(np.array_equal(a, b) for a, b in zip(lesson, clips))
    with av.open(str(exported / "lesson.mp4")) as c:
        stream = c.streams.video[0]
        times = [float(f.pts * stream.time_base) for f in c.decode(stream)]
    assert times == sorted(times)
    assert times[-1] + 1 / FPS == pytest.approx(TOTAL, abs=1 / FPS)


def test_chapters_one_per_scene_titled_and_timed(exported):
    with av.open(str(exported / "lesson.mp4")) as c:
        chapters = c.chapters()
    assert [ch["metadata"]["title"] for ch in chapters] == [tr("en", f"{s.section}.title") for s in PICKED]
    starts = [float(ch["start"] * ch["time_base"]) for ch in chapters]
    ends = [float(ch["end"] * ch["time_base"]) for ch in chapters]
    assert starts == pytest.approx(STARTS, abs=1e-3)
    assert ends == pytest.approx([*STARTS[1:], TOTAL], abs=1e-3)
    vtt = (exported / "lesson.chapters.vtt").read_text(encoding="utf-8")
    assert vtt.startswith("WEBVTT\n")
    blocks = re.findall(r"(\d\d:\d\d:\d\d\.\d{3}) --> (\d\d:\d\d:\d\d\.\d{3})\n(.+)", vtt)
    assert [b[2] for b in blocks] == [tr("en", f"{s.section}.title") for s in PICKED]
    assert [b[0] for b in blocks] == ["00:00:00.000", "00:00:02.000", "00:00:04.500"]
    assert blocks[-1][1] == "00:00:07.500"


def test_mp4_is_web_ready(exported):
    data = (exported / "lesson.mp4").read_bytes()
    atoms, i = [], 0
    while i < len(data):
        size = int.from_bytes(data[i:i + 4], "big")
        atoms.append(data[i + 4:i + 8].decode("latin-1"))
        if size == 1:
            size = int.from_bytes(data[i + 8:i + 16], "big")
        assert size >= 8
        i += size
    assert "moov" in atoms and "mdat" in atoms
    assert atoms.index("moov") < atoms.index("mdat")


def test_voice_of_one_clip_plays_at_its_place(exported):
    with av.open(str(exported / "lesson.mp4")) as c:
        stream = c.streams.audio[0]
        rate = stream.rate
        samples = np.concatenate([f.to_ndarray()[0] for f in c.decode(stream)])
    assert len(samples) / rate == pytest.approx(TOTAL, abs=2048 / rate)

    def rms(a: float, b: float) -> float:
        return float(np.sqrt(np.mean(samples[int(a * rate):int(b * rate)] ** 2)))

    # away from the joins (AAC smears a few ms): silence, the tone, silence
    assert rms(0.1, STARTS[1] - 0.1) < 0.01
    assert rms(STARTS[1] + 0.1, STARTS[2] - 0.1) > 0.15
    assert rms(STARTS[2] + 0.1, TOTAL - 0.1) < 0.01


def test_subtitles_shifted_by_each_clip_start(exported):
    joined = list(srt.parse((exported / "lesson.srt").read_text(encoding="utf-8")))
    expected = []
    for i in range(3):
        for cue in srt.parse((exported / f"{PICKED[i].name}.srt").read_text(encoding="utf-8")):
            expected.append((cue.start.total_seconds() + STARTS[i], cue.end.total_seconds() + STARTS[i],
                             cue.content))
    assert len(joined) == len(expected) == sum(2 * len(c[2]) for c in CLIPS)
    assert [c.index for c in joined] == list(range(1, len(joined) + 1))
    for cue, (start, end, text) in zip(joined, expected):
        assert cue.start.total_seconds() == pytest.approx(start, abs=1e-3)
        assert cue.end.total_seconds() == pytest.approx(end, abs=1e-3)
        assert cue.content == text
    vtt = (exported / "lesson.vtt").read_text(encoding="utf-8")
    times = re.findall(r"(\d\d):(\d\d):(\d\d)\.(\d{3}) -->", vtt)
    assert [int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000 for h, m, s, ms in times] == \
        pytest.approx([e[0] for e in expected], abs=1e-3)


def test_deck_has_a_title_slide_and_one_movie_slide_per_scene(exported):
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    deck = Presentation(str(exported / "lesson.pptx"))
    slides = list(deck.slides)
    assert len(slides) == 1 + len(PICKED)
    assert slides[0].shapes.title.text == tr("en", "lesson.title")
    chapters = load_lesson(LESSON).chapters
    assert slides[0].placeholders[1].text.split("\n") == [ch.title.name("en") for ch in chapters[:2]]
    for slide, scene, (_, _, sentences) in zip(slides[1:], PICKED, CLIPS):
        assert slide.shapes.title.text == tr("en", f"{scene.section}.title")
        movies = [s for s in slide.shapes if s.shape_type == MSO_SHAPE_TYPE.MEDIA]
        assert len(movies) == 1
        assert movies[0].width / movies[0].height == pytest.approx(SIZE[0] / SIZE[1], rel=0.01)
        assert slide.notes_slide.notes_text_frame.text == "\n".join(sentences)


def test_deck_package_embeds_each_clip_with_its_poster(exported):
    with zipfile.ZipFile(exported / "lesson.pptx") as z:
        names = z.namelist()
        media = {n: z.read(n) for n in names if n.startswith("ppt/media/")}
        types = z.read("[Content_Types].xml").decode()
        rels = {n: z.read(n).decode() for n in names if re.fullmatch(r"ppt/slides/_rels/slide\d+\.xml\.rels", n)}
    movies = [b for n, b in media.items() if n.endswith(".mp4")]
    assert sorted(movies) == sorted(clip_path(exported, i).read_bytes() for i in range(3))
    posters = [(exported / f"{s.name}.png").read_bytes() for s in PICKED]
    assert all(p in media.values() for p in posters)
    assert re.search(r'Extension="mp4"\s+ContentType="video/mp4"', types)
    for i in range(2, 2 + len(PICKED)):   # the scene slides: each links a movie and a poster
        rel = rels[f"ppt/slides/_rels/slide{i}.xml.rels"]
        assert re.search(r'relationships/video" Target="../media/[^"]+\.mp4"', rel)
        assert re.search(r'relationships/image" Target="../media/[^"]+\.png"', rel)


def test_handout_has_one_page_per_scene(exported):
    pdf = (exported / "lesson.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == len(PICKED)


def test_handout_wraps_chinese_and_english_inside_the_width():
    measure = len   # one unit per character
    text = "平行光把立方体的每个角投到墙上，影子就是 x 乘投影矩阵 P。墙一转"
    zh = export.wrap(text, 10, measure, "zh")
    assert len(zh) > 2 and all(len(line) <= 10 for line in zh)
    assert "".join(zh).replace(" ", "") == text.replace(" ", "")
    assert not any(line[0] in "，。" for line in zh)
    en = export.wrap("Training pulls each output towards the right partner", 16, measure, "en")
    assert en == ["Training pulls", "each output", "towards the", "right partner"]


def test_silent_clips_give_a_silent_lesson(tmp_path):
    make_renders(tmp_path, clips=[(s, None, t) for s, _, t in CLIPS])
    assert run(tmp_path, "--lang", "en") == 0
    with av.open(str(tmp_path / "en" / "480p15" / "lesson.mp4")) as c:
        assert not c.streams.audio
        assert len(c.chapters()) == 3


def test_chinese_titles_notes_and_handout(tmp_path):
    zh = [(s, t, ["第一句话在这里", "第二句话接着说"]) for s, t, _ in CLIPS]
    make_renders(tmp_path, "zh", clips=zh)
    assert run(tmp_path, "--lang", "zh", "--pdf") == 0
    folder = tmp_path / "zh" / "480p15"
    titles = [tr("zh", f"{s.section}.title") for s in PICKED]
    with av.open(str(folder / "lesson.mp4")) as c:
        assert [ch["metadata"]["title"] for ch in c.chapters()] == titles
    from pptx import Presentation
    slides = list(Presentation(str(folder / "lesson.pptx")).slides)
    assert [s.shapes.title.text for s in slides[1:]] == titles
    # a Chinese sentence split into two cues is joined again without a space
    assert [s.notes_slide.notes_text_frame.text for s in slides[1:]] == ["第一句话在这里\n第二句话接着说"] * 3
    assert len(re.findall(rb"/Type\s*/Page\b", (folder / "lesson.pdf").read_bytes())) == len(PICKED)


def test_missing_render_is_one_line_and_writes_nothing(tmp_path, capsys):
    make_renders(tmp_path)
    entries = manifest.load(tmp_path)
    del entries[manifest.entry_id(PICKED[1].name, "en", "480p15", "mp4")]
    manifest.save(tmp_path, entries)
    assert run(tmp_path, "--lang", "en") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"render it first: qkv-lens render {PICKED[1].name} --lang en -q l --out {tmp_path}" in err
    assert leftovers(tmp_path) == []


def test_missing_listed_file_is_named(tmp_path, capsys):
    make_renders(tmp_path)
    poster = tmp_path / "en" / "480p15" / f"{PICKED[2].name}.png"
    poster.unlink()
    assert run(tmp_path, "--lang", "en") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{poster}: missing" in err and "render it first" in err
    assert leftovers(tmp_path) == []


def test_a_missing_language_stops_the_other_too(tmp_path, capsys):
    make_renders(tmp_path, "en")
    assert run(tmp_path, "--lang", "all") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{PICKED[0].name} has no 480p15 mp4 render in zh" in err
    assert leftovers(tmp_path) == []


def test_no_manifest_is_one_line(tmp_path, capsys):
    assert run(tmp_path, "--lang", "en") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "manifest.json: not found" in err


def test_clips_that_differ_are_refused_not_reencoded(tmp_path, capsys):
    make_renders(tmp_path, fps=(FPS, FPS, 2 * FPS))
    assert run(tmp_path, "--lang", "en") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "10 fps vs" in err and "20 fps" in err and "qkv-lens render --force --lang en -q l" in err
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("fault", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failure_late_in_the_export_leaves_the_previous_files(tmp_path, monkeypatch, capsys, fault):
    make_renders(tmp_path)
    folder = tmp_path / "en" / "480p15"
    (folder / "lesson.mp4").write_bytes(b"the previous export")

    def fail(*args):   # after the video and subtitles are staged
        assert any(p.name.startswith(".lesson.mp4.") for p in folder.iterdir())
        raise fault

    monkeypatch.setattr(export, "build_deck", fail)
    status = run(tmp_path, "--lang", "en")
    assert status == (130 if isinstance(fault, KeyboardInterrupt) else 1)
    assert capsys.readouterr().err.count("\n") == 1
    assert leftovers(tmp_path) == ["lesson.mp4"]
    assert (folder / "lesson.mp4").read_bytes() == b"the previous export"


def test_default_language_is_the_lessons(tmp_path, monkeypatch):
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('language = "en"\n', encoding="utf-8")
    make_renders(tmp_path / "out")
    assert cli.main(["export", *NAMES, "--out", str(tmp_path / "out"), "--lesson", str(lesson)]) == 0
    assert sorted(leftovers(tmp_path / "out")) == sorted(OUTPUTS)


def test_offsets_are_exact_sums():
    probes = [export.Probe(export.Stream("h264", 1, 1, "yuv420p", Fraction(15), b""), Fraction(1, 15360), 0, n, None)
              for n in (1024 * 1073, 1024 * 555)]
    assert export.offsets(probes) == [0, Fraction(1073, 15), Fraction(1073 + 555, 15)]
