"""``qkv-lens export`` on a fake renders folder: tiny synthetic clips made with
PyAV (no manim), their subtitles, posters, beats and a manifest."""
import html
import json
import os
import re
import zipfile
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest
import srt
from PIL import Image

from qkv_lens.app import cli, export, handout, joined, manifest
from qkv_lens.languages import offered
from qkv_lens.lesson import load_lesson
from qkv_lens.registry import SCENES
from qkv_lens.texts import FORMULAS, tr
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
OUTPUTS = ("lesson.mp4", "lesson.srt", "lesson.vtt", "lesson.chapters.vtt", "lesson.pptx", "lesson.export.json")


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


def boxes_apart(a, b) -> bool:
    """Two shapes' rectangles do not overlap."""
    return (a.left + a.width <= b.left or b.left + b.width <= a.left
            or a.top + a.height <= b.top or b.top + b.height <= a.top)


def test_deck_shapes_sit_inside_the_slide_one_beside_another(exported):
    from pptx import Presentation

    deck = Presentation(str(exported / "lesson.pptx"))
    W, H = deck.slide_width, deck.slide_height
    assert (W, H) == (12192000, 6858000)
    for n, slide in enumerate(deck.slides):
        shapes = list(slide.shapes)
        for shape in shapes:   # every position and size written out, inside the slide
            assert None not in (shape.left, shape.top, shape.width, shape.height), (n, shape.name)
            assert shape.width > 0 and shape.height > 0, (n, shape.name)
            assert 0 <= shape.left and shape.left + shape.width <= W, (n, shape.name)
            assert 0 <= shape.top and shape.top + shape.height <= H, (n, shape.name)
        for i, a in enumerate(shapes):
            for b in shapes[i + 1:]:
                assert boxes_apart(a, b), (n, a.name, b.name)
    cover = deck.slides[0]
    title, subtitle = cover.shapes.title, cover.placeholders[1]
    # the title above the chapters, neither at the top edge
    assert H // 10 < title.top and title.top + title.height <= subtitle.top
    assert title.height > H // 10 and subtitle.height > H // 10


def test_deck_asks_each_question_and_names_its_lesson(exported):
    from pptx import Presentation

    deck = Presentation(str(exported / "lesson.pptx"))
    props = deck.core_properties
    assert props.title == tr("en", "lesson.title")
    assert props.author == "qkv-lens" and props.subject == tr("en", "lesson.generated")
    assert props.language == "en"
    for slide, scene in zip(list(deck.slides)[1:], PICKED):
        texts = [s.text_frame.text for s in slide.shapes if s.has_text_frame and s != slide.shapes.title]
        assert texts == [f"{tr('en', 'page.think')} {tr('en', f'page.ask.{scene.section}')}"]
        # the question sits between the title and the clip
        ask = next(s for s in slide.shapes if s.has_text_frame and s != slide.shapes.title)
        movie = next(s for s in slide.shapes if not s.has_text_frame)
        assert slide.shapes.title.top + slide.shapes.title.height <= ask.top
        assert ask.top + ask.height <= movie.top


def test_deck_clips_play_when_their_slide_appears(exported):
    from lxml import etree
    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    ns = {"p": "http://schemas.openxmlformats.org/presentationml/2006/main"}

    def xp(element, path: str) -> list:
        return etree.XPath(path, namespaces=ns)(element)

    deck = Presentation(str(exported / "lesson.pptx"))
    for slide, (seconds, _, _) in zip(list(deck.slides)[1:], CLIPS):
        [movie] = [s for s in slide.shapes if s.shape_type == MSO_SHAPE_TYPE.MEDIA]
        timing = slide.element.find("p:timing", ns)
        ids = [int(i) for i in xp(timing, ".//p:cTn/@id")]
        assert len(ids) == len(set(ids))
        [main] = xp(timing, ".//p:cTn[@nodeType='mainSeq']")
        [step] = xp(main, "./p:childTnLst/p:par/p:cTn")
        # the first step starts when the main sequence begins (slide entry), not on a click
        [begin] = xp(step, "./p:stCondLst/p:cond[@evt='onBegin']")
        assert xp(begin, "./p:tn/@val") == [main.get("id")]
        [call] = xp(step, ".//p:cTn[@presetClass='mediacall']")
        assert call.get("nodeType") == "afterEffect"
        [cmd] = xp(call, ".//p:cmd")
        assert (cmd.get("type"), cmd.get("cmd")) == ("call", "playFrom(0.0)")
        assert xp(cmd, ".//p:spTgt/@spid") == [str(movie.shape_id)]
        assert xp(cmd, "./p:cBhvr/p:cTn/@dur") == [str(round(seconds * 1000))]
        assert not xp(timing, ".//p:cTn[@nodeType='clickEffect']")
        [video] = xp(timing, ".//p:video//p:spTgt/@spid")
        assert video == str(movie.shape_id)


def test_deck_title_slide_renders_apart_in_libreoffice(exported, tmp_path):
    """LibreOffice draws the title slide: its texts are in their boxes, and
    the top edge (where the title and subtitle once both sat) is empty."""
    import shutil
    import subprocess
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed: the deck's shapes are read back with python-pptx "
                    "above; apt-get install libreoffice-impress to render its slides too")
    from pptx import Presentation
    subprocess.run([soffice, "--headless", f"-env:UserInstallation=file://{tmp_path / 'profile'}",
                    "--convert-to", "png", "--outdir", str(tmp_path), str(exported / "lesson.pptx")],
                   check=True, capture_output=True, timeout=180)
    picture = np.asarray(Image.open(tmp_path / "lesson.png").convert("L"), dtype=float)   # the first slide
    deck = Presentation(str(exported / "lesson.pptx"))
    sy = picture.shape[0] / deck.slide_height
    background = np.median(picture)

    def ink(top: float, bottom: float) -> int:
        band = picture[int(top * sy):int(bottom * sy)]
        return int((np.abs(band - background) > 60).sum())

    title, subtitle = deck.slides[0].shapes.title, deck.slides[0].placeholders[1]
    assert ink(0, title.top) == 0   # nothing drawn above the title
    assert ink(title.top, title.top + title.height) > 0
    assert ink(subtitle.top, subtitle.top + subtitle.height) > 0


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


def writer(lang: str):
    import cairo
    return handout.Writer(cairo.Context(cairo.ImageSurface(cairo.FORMAT_RGB24, 10, 10)), lang)


def test_handout_fills_chinese_and_english_lines_inside_the_width():
    w = writer("zh")
    text = "平行光把立方体的每个角投到墙上，影子就是 x 乘投影矩阵 P。墙一转、光一斜，影子跟着变。"
    zh = w.lines(text, 120, 10)
    assert len(zh) > 2 and all(w.width(line, 10) <= 120 for line in zh)
    assert "".join(zh).replace(" ", "") == text.replace(" ", "")
    assert not any(line[0] in "，。、" for line in zh)               # punctuation stays with its word
    w = writer("en")
    words = "Training pulls each output towards the right partner's content, step by step".split()
    en = w.lines(" ".join(words), 100, 10)
    assert " ".join(en).split() == words
    for line, after in zip(en, en[1:]):                              # filled: the next word did not fit
        assert w.width(line, 10) <= 100 < w.width(f"{line} {after.split()[0]}", 10)


def page_texts(path: Path) -> list[str]:
    import pypdf
    return [" ".join(p.extract_text().split()) for p in pypdf.PdfReader(str(path)).pages]


def flat(text: str) -> str:
    return "".join(text.split())


def test_handout_is_real_text_with_each_scenes_words(exported):
    """Searchable: each page's own title, question, summary, key formula
    words and every sentence the clip says are text in the PDF."""
    pages = page_texts(exported / "lesson.pdf")
    assert len(pages) == len(PICKED)
    for page, scene, (_, _, sentences) in zip(pages, PICKED, CLIPS):
        for key in (f"{scene.section}.title", f"page.ask.{scene.section}", f"{scene.section}.summary",
                    f"export.formula.{scene.section}", "export.summary", "export.formula"):
            assert flat(tr("en", key)) in flat(page), key
        for sentence in sentences:
            assert flat(sentence) in flat(page)


def test_handout_formulas_are_typeset_outlines_not_text(exported):
    """The key formula is LaTeX's glyph outlines (curves in the page), never plain text."""
    import pypdf
    for page, scene in zip(pypdf.PdfReader(str(exported / "lesson.pdf")).pages, PICKED):
        assert FORMULAS[scene.section]
        curves = len(re.findall(rb"\sc\s", page.get_contents().get_data()))
        assert curves > 20, (scene.name, curves)


def long_text(lang: str, tag: str, n: int = 1000) -> str:
    """A text of exactly ``n`` characters (the most a text may have) whose
    words are numbered (``ask001``), so each can be found in order."""
    sep = "" if lang == "zh" else " "
    filler = "投影矩阵把每个向量换个说法" if lang == "zh" else "and the matrix moves"
    words, i = [], 0
    while len(sep.join(words)) < n:
        words.append(f"{tag}{i:03d}{sep}{filler}")
        i += 1
    return sep.join(words)[:n].rstrip()


def text_runs(path: Path) -> list[list[tuple[str, float, float]]]:
    """Per page: each run of text with its baseline y (from the top) and size, as pypdf reads it."""
    import pypdf
    pages = []
    for page in pypdf.PdfReader(str(path)).pages:
        runs: list[tuple[str, float, float]] = []

        def visit(text, cm, tm, font, size, runs=runs):
            if text.strip():
                scale = abs(tm[3] * cm[3]) * size
                runs.append((text, handout.A4[1] - (cm[3] * tm[5] + cm[5]), scale))    # PDF's y is up
        page.extract_text(visitor_text=visit)
        pages.append(runs)
    return pages


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_long_texts_flow_onto_continuation_pages_clear_of_the_footer(tmp_path, lang):
    """A scene whose question, summary, formula words and two beats each have
    1000 characters: the text flows onto continuation pages headed by the
    scene's title, every word is there in order, and no text reaches the
    footer or leaves the page; a scene of short texts keeps its one page."""
    import io as io_
    buf = io_.BytesIO()
    Image.new("RGB", (640, 360), (30, 60, 90)).save(buf, format="PNG")
    texts = {tag: long_text(lang, tag) for tag in ("ask", "sum", "eq", "one", "two")}
    formula = handout.typeset(FORMULAS["space_deformation"])
    long_page = handout.PageContent("The lesson", "A long scene", texts["ask"], buf.getvalue(), texts["sum"],
                                    texts["eq"], formula, (texts["one"], "A short beat.", texts["two"]),
                                    "Scene 1 of 2 · 0:09")
    short_page = handout.PageContent("The lesson", "A short scene", "Why?", buf.getvalue(), "Short.", "So:",
                                     formula, ("One.", "Two."), "Scene 2 of 2 · 0:03")
    dest = tmp_path / "handout.pdf"
    handout.write_pdf([long_page, short_page], lang, dest, "The lesson")
    pages = page_texts(dest)
    assert len(pages) > 2                                            # more pages than scenes
    assert all(p.startswith("The lesson A long scene") for p in pages[:-1]), [p[:40] for p in pages]
    assert pages[-1].startswith("The lesson A short scene")          # the short scene: one page
    document = flat(" ".join(pages))
    at = 0
    for tag, text in texts.items():                                  # every word, in order
        for word in re.findall(rf"{tag}\d\d\d", text):
            found = document.find(word, at)
            assert found >= 0, (tag, word)
            at = found
        at = 0
    assert all(flat(t) in document for t in ("A short beat.", "Why?", "Short.", "So:", "One.", "Two."))
    for n, runs in enumerate(text_runs(dest)):
        [footer] = [(y, size) for text, y, size in runs if text.startswith("Scene ")]
        footer_top = footer[0] - 0.8 * footer[1]
        for text, y, size in runs:
            if text.startswith("Scene "):
                continue
            assert y + 0.3 * size < footer_top, (n, text[:30], y, footer)   # above the footer, never over it
            assert y - size > 0


def test_handout_picture_is_the_end_of_the_last_beat(exported):
    """The key frame: the frame at the end of the clip's last beat (the clips'
    bar grows every frame, so each frame is told apart by its bar)."""
    import pypdf
    for page, i in zip(pypdf.PdfReader(str(exported / "lesson.pdf")).pages, range(len(PICKED))):
        [picture] = page.images
        shown = np.asarray(picture.image.convert("L"), dtype=float)
        clip = [np.asarray(Image.fromarray(f).convert("L"), dtype=float) for f in frames(clip_path(exported, i))]
        diffs = [np.abs(shown - f).mean() for f in clip]
        beats = json.loads((exported / f"{PICKED[i].name}.beats.json").read_text(encoding="utf-8"))["beats"]
        want = round(beats[-1]["end"] * FPS) - 1
        assert int(np.argmin(diffs)) == want, (i, int(np.argmin(diffs)), want)


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


def _and(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1]


def test_missing_render_is_one_line_and_writes_nothing(tmp_path, capsys):
    make_renders(tmp_path)
    entries = manifest.load(tmp_path)
    del entries[manifest.entry_id(PICKED[1].name, "en", "480p15", "mp4")]
    manifest.save(tmp_path, entries)
    assert run(tmp_path, "--lang", "en") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"no 480p15 mp4 render of {PICKED[1].name} in en" in err
    assert err.rstrip().endswith(f"render it first: qkv-lens render {PICKED[1].name} --lang en -q l --out {tmp_path}")
    assert leftovers(tmp_path) == []


def test_every_missing_render_is_named_with_one_command_for_all(tmp_path, capsys):
    for lang in offered():                      # every language rendered, then three renders taken away
        make_renders(tmp_path, lang)
    entries = manifest.load(tmp_path)
    for name, lang in ((PICKED[2].name, "en"), (PICKED[0].name, "en"), (PICKED[1].name, "zh")):
        del entries[manifest.entry_id(name, lang, "480p15", "mp4")]
    manifest.save(tmp_path, entries)
    assert run(tmp_path, "--lang", "en") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"no 480p15 mp4 render of {NAMES[0]} and {NAMES[2]} in en (" in err   # in the lesson's order
    assert err.rstrip().endswith(f"render them first: qkv-lens render {NAMES[0]} {NAMES[2]} --lang en -q l "
                                 f"--out {tmp_path}")
    assert run(tmp_path, "--lang", "all") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{NAMES[1]} in zh; {NAMES[0]} and {NAMES[2]} in en (" in err   # languages in --lang all order
    assert err.rstrip().endswith(f"qkv-lens render {' '.join(NAMES)} --lang all -q l --out {tmp_path}")
    # the command it names is one the parser takes
    args = cli.build_parser().parse_args(err.rstrip().split("render them first: qkv-lens ")[1].split())
    assert (args.scenes, args.lang, args.quality, args.out) == (NAMES, "all", "l", str(tmp_path))
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
    for lang in offered():
        if lang != "zh":                        # every language but zh rendered
            make_renders(tmp_path, lang)
    assert run(tmp_path, "--lang", "all") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"no 480p15 mp4 render of {_and(NAMES)} in zh (" in err
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


def previous_export(folder: Path) -> dict[str, tuple[bytes, int]]:
    """An earlier export's files (one absent: lesson.chapters.vtt), each's bytes and mtime."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("lesson.mp4", "lesson.srt", "lesson.vtt", "lesson.pptx"):
        (folder / name).write_bytes(f"the previous {name}".encode())
        os.utime(folder / name, ns=(1_000_000_000, 1_000_000_000))
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir() if p.name.startswith("lesson.")}


@pytest.mark.parametrize("fault", ["pdf_is_a_folder", "rename_of_the_pptx_fails", "interrupt_at_the_pptx"])
def test_a_failure_while_the_files_are_renamed_into_place_leaves_every_previous_file(tmp_path, monkeypatch, capsys,
                                                                                     fault):
    """All or nothing: the outputs are renamed into place only together; when
    one rename fails, those already renamed are put back (the earlier export's
    files with their bytes and times, a file that was not there removed)."""
    make_renders(tmp_path)
    folder = tmp_path / "en" / "480p15"
    before = previous_export(folder)
    if fault == "pdf_is_a_folder":
        (folder / "lesson.pdf").mkdir()
        (folder / "lesson.pdf" / "notes.txt").write_text("kept", encoding="utf-8")
    else:
        real, failed = os.replace, []

        def replace(src, dst, *args, **kw):     # the new pptx's rename fails, once
            if Path(dst).name == "lesson.pptx" and not failed:
                failed.append(src)
                raise OSError(5, "Input/output error") if fault == "rename_of_the_pptx_fails" else KeyboardInterrupt()
            return real(src, dst, *args, **kw)

        monkeypatch.setattr(export.os, "replace", replace)
    status = run(tmp_path, "--lang", "en", "--pdf")
    assert status == (130 if fault.startswith("interrupt") else 1)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("nothing was exported" in err or status == 130), err
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir() if p.name.startswith("lesson.")
             and p.is_file()}
    assert after == before
    assert not [p.name for p in tmp_path.rglob(".lesson.*")]           # no temporary file left
    if fault == "pdf_is_a_folder":
        assert (folder / "lesson.pdf" / "notes.txt").read_text(encoding="utf-8") == "kept"


def test_default_language_is_the_lessons(tmp_path, monkeypatch):
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('language = "en"\n', encoding="utf-8")
    make_renders(tmp_path / "out")
    assert cli.main(["export", *NAMES, "--out", str(tmp_path / "out"), "--lesson", str(lesson)]) == 0
    assert sorted(leftovers(tmp_path / "out")) == sorted(OUTPUTS)


OWN_LESSON = """language = "en"
[[chapters]]
title = { zh = "三段", en = "Three scenes of mine", es = "Tres escenas mías" }
scenes = [%s]
"""


def test_a_lesson_of_its_own_is_titled_by_its_chapters_not_the_shipped_title(tmp_path):
    """The deck and the handout of a lesson of three scenes do not carry the
    shipped lesson's title (which promises its eleven scenes)."""
    import pypdf
    from pptx import Presentation
    lesson = tmp_path / "lesson.toml"
    lesson.write_text(OWN_LESSON % ", ".join(f'"{n}"' for n in NAMES), encoding="utf-8")
    make_renders(tmp_path / "out")
    assert cli.main(["export", "--out", str(tmp_path / "out"), "--lesson", str(lesson), "--pdf"]) == 0
    folder = tmp_path / "out" / "en" / "480p15"
    deck = Presentation(str(folder / "lesson.pptx"))
    assert deck.core_properties.title == deck.slides[0].shapes.title.text == "Three scenes of mine"
    assert pypdf.PdfReader(str(folder / "lesson.pdf")).metadata.title.startswith("Three scenes of mine · ")
    assert tr("en", "lesson.title") not in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")


def test_offsets_are_exact_sums():
    probes = [export.Probe(export.Stream("h264", 1, 1, "yuv420p", Fraction(15), b""), Fraction(1, 15360), 0, n, None)
              for n in (1024 * 1073, 1024 * 555)]
    assert export.offsets(probes) == [0, Fraction(1073, 15), Fraction(1073 + 555, 15)]


def text_tracks(path: Path) -> dict[str, list[tuple[float, float, str]]]:
    """Each mov_text track of an mp4 by language: (start, end, text) per
    sample, read from the raw samples (a 16-bit length, then UTF-8 text);
    the empty samples that fill the gaps are left out."""
    tracks = {}
    with av.open(str(path)) as c:
        for stream in c.streams.subtitles:
            assert stream.codec_context.name == "mov_text"
            cues = []
            for p in c.demux(stream):
                data = bytes(p)
                if len(data) > 2 and int.from_bytes(data[:2], "big"):
                    start = float(p.pts * p.time_base)
                    text = data[2:2 + int.from_bytes(data[:2], "big")].decode("utf-8")
                    cues.append((start, start + float(p.duration * p.time_base), text))
            c.seek(0)
            tracks[stream.metadata.get("language")] = cues
    return tracks


def test_the_lesson_carries_its_subtitles_as_a_text_track(exported):
    """Players list it as captions: the same cues as lesson.srt, at the same times."""
    tracks = text_tracks(exported / "lesson.mp4")
    assert list(tracks) == ["eng"]                  # no other language was rendered
    joined = list(srt.parse((exported / "lesson.srt").read_text(encoding="utf-8")))
    assert [t[2] for t in tracks["eng"]] == [c.content for c in joined]
    for (start, end, _), cue in zip(tracks["eng"], joined):
        assert start == pytest.approx(cue.start.total_seconds(), abs=1e-3)
        assert end == pytest.approx(cue.end.total_seconds(), abs=1e-3)


def test_another_rendered_language_rides_along_timed_by_the_beats(tmp_path):
    """The Chinese clips last 1.5 times as long; in the English lesson their
    cues still fall inside the same beat of the English picture, in order."""
    make_renders(tmp_path, "en")
    zh = [(s * 1.5, t, ["第一句话在这里", "第二句话接着说"]) for s, t, _ in CLIPS]
    make_renders(tmp_path, "zh", clips=zh)
    assert run(tmp_path, "--lang", "en") == 0
    tracks = text_tracks(tmp_path / "en" / "480p15" / "lesson.mp4")
    assert list(tracks) == ["eng", "chi"]
    expected = [part for _ in CLIPS for sentence in zh[0][2] for part in cue_split(sentence)]
    assert [t[2] for t in tracks["chi"]] == expected
    k = 0
    for i, (seconds, _, sentences) in enumerate(CLIPS):
        beat = seconds / len(sentences)                      # each English beat's length (make_renders)
        for j in range(len(sentences)):
            window = (STARTS[i] + j * beat, STARTS[i] + (j + 1) * beat)
            for start, end, _ in tracks["chi"][k:k + 2]:
                assert window[0] - 1e-3 <= start < end <= window[1] + 1e-3, (i, j, start, end, window)
            k += 2


def test_burned_captions_are_drawn_in_the_bottom_band_only(tmp_path):
    """--burn-captions: the picture is encoded again with each cue drawn in
    the band at the bottom; above it the frames are the clips' own (up to
    encoding noise), and the band changes when the cue does."""
    make_renders(tmp_path, "en", sizes=((320, 180),) * 3)
    assert run(tmp_path, "--lang", "en", "--burn-captions") == 0
    folder = tmp_path / "en" / "480p15"
    burned = frames(folder / "lesson.mp4")
    plain = [f for i in range(3) for f in frames(clip_path(folder, i))]
    assert len(burned) == len(plain) == round(TOTAL * FPS)
    band = slice(180 - 40, 180)
    for k in (2, 7, 25, 60):                                   # inside a cue, in each clip
        b, p = burned[k].astype(int), plain[k].astype(int)
        assert np.abs(b[:120] - p[:120]).mean() < 3, k          # the picture above the band is untouched
        changed = np.abs(b[band] - p[band]).max(axis=2) > 60
        assert changed.sum() > 80, k                             # the caption's glyphs
    cue_a, cue_b = burned[2][band].astype(int), burned[7][band].astype(int)   # "First beat" / "of one, ..."
    assert np.abs(cue_a - cue_b).max(axis=2).__gt__(60).sum() > 100
    assert text_tracks(folder / "lesson.mp4")["eng"]            # the text track stays too


WORD_91 = "Pneumonoultramicroscopicsilicovolcanoconiosis" * 2 + "s"


@pytest.mark.parametrize("lang, text, size", [
    ("en", WORD_91, (320, 180)),
    ("en", f"A word of 91 letters, {WORD_91}, burned", (640, 360)),
    ("en", "W" * 42, (1920, 1080)),                        # a full cue line of the widest letter
    ("en", "x" * 42 + "\n" + "W" * 42, (854, 480)),
    ("zh", "投影矩阵就是一套固定的滤镜规则。", (320, 180)),
])
def test_a_burned_caption_stays_inside_the_frame(lang, text, size):
    """--burn-captions: a cue line wider than the frame (a 91-letter word,
    which cannot break at a space) is broken inside itself, with a hyphen in
    a spaced script, and every line is drawn inside the frame, all of it."""
    width, height = size
    captions = export.Captions([], lang, height)
    lines = captions.lines(text, width)
    joined = "".join(line[:-1] if line.endswith("-") and lang == "en" else line for line in lines)
    assert flat(joined) == flat(text.replace("-", "")), lines
    for line in lines:
        assert captions.pen.length(line) <= width * (1 - 2 * export.Captions.SIDE), line
    drawn = captions.overlay(text, width, height).getchannel("A").getbbox()
    assert drawn is not None
    left, top, right, bottom = drawn
    assert 0 < left and right < width and 0 < top and bottom <= height, (drawn, size)


def test_the_page_links_the_exports_after_an_export(exported):
    index = (exported.parents[1] / "index.html").read_text(encoding="utf-8")
    for name in ("lesson.mp4", "lesson.pptx", "lesson.pdf", "lesson.srt"):
        assert f'<a href="en/480p15/{name}" download>' in index, name


def download_links(root: Path, lang: str = "en") -> dict[str, bool]:
    """The page's download links of ``lang``: file name -> whether it says the export is older than the clips."""
    index = (root / "index.html").read_text(encoding="utf-8")
    section = index.split(f'<section class="lesson" lang="{lang}"')[1].split("</section>")[0]
    links = re.findall(r'<a href="[a-z]+/480p15/([^"]+)" download>.*?</a> <span class="dur">480p15</span>'
                       r'( <span class="stale">)?', section)
    stale = html.escape(tr(lang, "page.dl_stale"))
    assert section.count(stale) == sum(1 for _, mark in links if mark)
    return {name: bool(mark) for name, mark in links}


def test_the_page_says_when_an_export_is_older_than_the_clips(tmp_path):
    """An export records the renders it joined; the page marks each export
    file whose clips were rendered again, or whose lesson lists other scenes
    now, with "older than the clips: export again"."""
    make_renders(tmp_path)
    lesson = tmp_path / "lesson.toml"
    lesson.write_text(OWN_LESSON % ", ".join(f'"{n}"' for n in NAMES[:2]), encoding="utf-8")

    def export_(*extra: str) -> None:
        assert cli.main(["export", "--out", str(tmp_path), "--lesson", str(lesson), *extra]) == 0

    def page_again() -> dict[str, bool]:
        assert cli.main(["lesson", "--out", str(tmp_path), "--lesson", str(lesson)]) == 0
        return download_links(tmp_path)

    export_("--pdf")
    fresh = {"lesson.mp4": False, "lesson.pptx": False, "lesson.pdf": False, "lesson.srt": False}
    assert download_links(tmp_path) == fresh
    entries = manifest.load(tmp_path)                   # the second scene is rendered again
    second = manifest.entry_id(NAMES[1], "en", "480p15", "mp4")
    entries[second] = dict(entries[second], key="rendered again")
    manifest.save(tmp_path, entries)
    assert page_again() == dict.fromkeys(fresh, True)
    export_()                                           # exported again, without the handout
    assert download_links(tmp_path) == dict(fresh, **{"lesson.pdf": True})
    lesson.write_text(OWN_LESSON % ", ".join(f'"{n}"' for n in NAMES), encoding="utf-8")   # a scene added
    assert page_again() == {"lesson.mp4": True, "lesson.pptx": True, "lesson.pdf": True, "lesson.srt": True}
    export_("--pdf", "--deck", "beats")
    assert download_links(tmp_path) == {"lesson.mp4": False, "lesson.pptx": True, "lesson.beats.pptx": False,
                                        "lesson.pdf": False, "lesson.srt": False}
    record = tmp_path / "en" / "480p15" / joined.NAME      # a damaged record: nothing is taken as fresh
    record.write_text('{"lesson.mp4": 3}', encoding="utf-8")
    assert set(page_again().values()) == {True}
    (tmp_path / "elsewhere").write_text("x", encoding="utf-8")      # a record naming files beyond the exports
    record.write_text(json.dumps({"../../elsewhere": {"lesson": []}, "lesson.pdf": {"lesson": []}}), encoding="utf-8")
    export_()
    assert sorted(json.loads(record.read_text(encoding="utf-8"))) == [       # the files written, and lesson.pdf
        "lesson.chapters.vtt", "lesson.mp4", "lesson.pdf", "lesson.pptx", "lesson.srt", "lesson.vtt"]


def test_a_deck_of_beats_plays_each_beat_on_its_own_slide(tmp_path):
    """--deck beats, as manim-slides does it: after the cover, one slide per
    beat, each embedding the beat's part of its clip (its frames, its sound),
    previewed by a frame of that beat (the last), and carrying the beat's
    sentence as its notes; it is lesson.beats.pptx, beside the scenes' deck."""
    import io

    from pptx import Presentation
    from pptx.enum.shapes import MSO_SHAPE_TYPE
    make_renders(tmp_path)
    assert run(tmp_path, "--lang", "en") == 0
    assert run(tmp_path, "--lang", "en", "--deck", "beats") == 0
    folder = tmp_path / "en" / "480p15"
    assert len(Presentation(str(folder / "lesson.pptx")).slides) == 1 + len(CLIPS)    # the scenes' deck stays
    slides = list(Presentation(str(folder / "lesson.beats.pptx")).slides)[1:]
    assert len(slides) == sum(len(c[2]) for c in CLIPS)
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<a href="en/480p15/lesson.pptx" download>' in index and \
        '<a href="en/480p15/lesson.beats.pptx" download>' in index
    k = 0
    for i, (seconds, _, sentences) in enumerate(CLIPS):
        whole = frames(clip_path(folder, i))
        beat = seconds / len(sentences)
        for j in range(len(sentences)):
            [movie] = [s for s in slides[k].shapes if s.shape_type == MSO_SHAPE_TYPE.MEDIA]
            poster = np.asarray(Image.open(io.BytesIO(movie.poster_frame.blob)).convert("RGB")).astype(int)
            last = max(f for f in range(len(whole)) if f / FPS < (j + 1) * beat - 1e-6)   # the beat's last frame
            assert poster.shape == whole[last].shape
            differences = [np.abs(poster - f.astype(int)).mean() for f in whole]
            assert differences[last] < 3 and int(np.argmin(differences)) == last, (k, differences[last])
            k += 1
    with zipfile.ZipFile(folder / "lesson.beats.pptx") as z:
        media = {n: z.read(n) for n in z.namelist() if n.startswith("ppt/media/") and n.endswith(".mp4")}
        rels = [z.read(f"ppt/slides/_rels/slide{i}.xml.rels").decode() for i in range(2, 2 + len(slides))]
    k = 0
    for i, (seconds, tone, sentences) in enumerate(CLIPS):
        whole = frames(clip_path(folder, i))
        beat = seconds / len(sentences)
        for j, sentence in enumerate(sentences):
            slide = slides[k]
            assert slide.shapes.title.text.endswith(f"· {j + 1}/{len(sentences)}")
            assert slide.notes_slide.notes_text_frame.text == sentence
            [name] = [n for n in media if n.rsplit("/", 1)[1] in rels[k]]
            part = tmp_path / f"part{k}.mp4"
            part.write_bytes(media[name])
            got = frames(part)
            shown = [f for f in range(len(whole)) if j * beat - 1e-6 <= f / FPS < (j + 1) * beat - 1e-6]
            first = shown[0]
            assert len(got) == len(shown)                                # the beat's frames, no more
            assert np.abs(got[0].astype(int) - whole[first].astype(int)).mean() < 6      # its first frame
            with av.open(str(part)) as c:
                assert bool(c.streams.audio) == (tone is not None)       # the clip's sound comes along
                if tone:
                    sound = c.streams.audio[0]
                    assert float(sound.duration * sound.time_base) == pytest.approx(beat, abs=0.05)
            k += 1
