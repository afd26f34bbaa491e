"""The lesson page as a lesson and its presenter mode, in real Chromium.

No manim: the fixture writes a renders/ folder by hand (tiny h264 clips made
with PyAV, posters, subtitles, beats files, a manifest written through
qkv_lens.app.manifest) for three scenes in zh and en, then builds the
page and drives it from file:// with the keyboard."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from qkv_lens.app import manifest, page
from qkv_lens.lesson import load_lesson
from qkv_lens.texts import tr
from tests.helpers import LESSON

FPS = 10
W, H = 160, 90
# scene -> (section, beat ends in seconds); each beat starts where the one before ends
CLIPS = {
    "SpaceDeformation": ("space_deformation", [1.0, 2.0, 3.0]),
    "WorkedExample": ("worked_example", [1.0, 2.0, 3.0, 4.0]),
    "DotProductSoftmax": ("dot_product_softmax", [1.2, 2.6]),
}
ORDER = list(CLIPS)  # storyboard order of these three
# the narration of every beat, as cue lines, and what a reader sees of it
LINES = {
    "en": [["Beat {i} of {scene}, where", "the first line ends"], ["and W_Q scales by √d_k."]],
    "zh": [["第 {i} 步 {scene}，这里", "第一行结束"], ["W_Q 除以 √d_k。"]],
}
# the sentence each beat says (the beats file holds it whole)
SAY = {
    "en": "Beat {i} of {scene}, where the first line ends and W_Q scales by √d_k.",
    "zh": "第 {i} 步 {scene}，这里第一行结束 W_Q 除以 √d_k。",
}
SEEN = {
    "en": "Beat {i} of {scene}, where the first line ends and WQ scales by √dk.",
    "zh": "第 {i} 步 {scene}，这里第一行结束 WQ 除以 √dk。",
}
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--autoplay-policy=no-user-gesture-required"]

CHAPTERS = load_lesson(LESSON).chapters   # the shipped lesson's headings and order


def write_clip(path: Path, seconds: float) -> None:
    """An h264 mp4 of ``seconds`` at FPS, a bar growing with time."""
    import av
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=FPS)
        s.width, s.height, s.pix_fmt = W, H, "yuv420p"
        s.codec_context.gop_size = 5
        n = round(seconds * FPS)
        for i in range(n):
            img = np.full((H, W, 3), 40, np.uint8)
            img[30:60, : max(1, W * (i + 1) // n)] = (242, 193, 78)
            for pkt in s.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                c.mux(pkt)
        for pkt in s.encode():
            c.mux(pkt)


def beats_doc(scene: str, lang: str, ends: list[float]) -> dict:
    beats, start = [], 0.0
    for i, end in enumerate(ends):
        lines = [[line.format(i=i + 1, scene=scene) for line in cue] for cue in LINES[lang]]
        mid = (start + end) / 2
        cues = [{"start": start, "end": mid, "text": "\n".join(lines[0])},
                {"start": mid, "end": end, "text": "\n".join(lines[1])}]
        say = SAY[lang].format(i=i + 1, scene=scene)
        beats.append({"id": f"b{i + 1}", "key": "x_say", "start": start, "end": end, "say": say, "voice": 0.0,
                      "cues": cues})
        start = end
    return {"scene": scene, "language": lang, "voice": "none", "beats": beats}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """renders/ with three scenes in zh and en, and its index.html."""
    from PIL import Image
    out = tmp_path_factory.mktemp("renders")
    for lang in ("zh", "en"):
        folder = out / lang / "480p15"
        folder.mkdir(parents=True)
        for order, (scene, (_, ends)) in enumerate(CLIPS.items(), 1):
            write_clip(folder / f"{scene}.mp4", ends[-1])
            Image.new("RGB", (W, H), (20, 20, 60)).save(folder / f"{scene}.png")
            (folder / f"{scene}.vtt").write_text(f"WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n{scene}\n",
                                                 encoding="utf-8")
            (folder / f"{scene}.srt").write_text(f"1\n00:00:00,000 --> 00:00:01,000\n{scene}\n\n",
                                                 encoding="utf-8")
            (folder / f"{scene}.beats.json").write_text(json.dumps(beats_doc(scene, lang, ends), ensure_ascii=False),
                                                        encoding="utf-8")
            files = [f"{lang}/480p15/{scene}.{x}" for x in ("mp4", "srt", "vtt", "beats.json", "png")]
            manifest.record(out, {"scene": scene, "order": order, "key": "k", "language": lang,
                                  "quality": "480p15", "format": "mp4", "voice": "none", "duration": ends[-1],
                                  "width": W, "height": H, "files": files, "bytes": 1, "render_seconds": 0.1})
    page.build(out, CHAPTERS)
    return out


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        yield b
        b.close()


@pytest.fixture
def open_page(browser, site):
    """open_page("?present=1#en-X") -> a Playwright page; fails the test on a script error."""
    contexts, errors = [], []

    def opener(query: str = "", context=None, init_script: str | None = None):
        if context is None:
            context = browser.new_context(viewport={"width": 1000, "height": 700})
            contexts.append(context)
        if init_script:
            context.add_init_script(init_script)
        pg = context.new_page()
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto((site / "index.html").as_uri() + query)
        return pg

    yield opener
    for c in contexts:
        c.close()
    assert not errors, errors


def state(pg) -> tuple[str, str]:
    return tuple(pg.evaluate("[document.body.dataset.beat, document.body.dataset.state]"))


def current_video(pg) -> dict:
    return pg.evaluate("""() => { const v = document.querySelector('figure.current video');
        return {t: v.currentTime, paused: v.paused, scene: v.dataset.scene,
                width: v.getBoundingClientRect().width}; }""")


def play_beat(pg, key: str, beat: str, end: float) -> None:
    pg.keyboard.press(key)
    assert state(pg) == (beat, "playing")
    assert not current_video(pg)["paused"]
    pg.wait_for_function("document.body.dataset.state === 'done'", timeout=8000)
    v = current_video(pg)
    assert state(pg) == (beat, "done")
    assert v["paused"] and v["t"] == pytest.approx(end, abs=0.25)


def test_clock_and_math_typography():
    assert [page.clock(s) for s in (0, 59.4, 59.6, 61.5, 754.2)] == ["0:00", "0:59", "1:00", "1:02", "12:34"]
    assert page.math_html("W_Q, √d_k") == "W<sub>Q</sub>, √d<sub>k</sub>"
    assert page.math_html(r"\sqrt{d_k} < 2") == "√d<sub>k</sub> &lt; 2"
    assert page.math_html("x_{ij} and a_b_c?") == "x<sub>ij</sub> and a<sub>b</sub><sub>c</sub>?"


def test_a_damaged_manifest_or_beats_file_is_a_page_error(site, tmp_path):
    import shutil
    out = tmp_path / "r"
    shutil.copytree(site, out)
    before = (out / "index.html").read_bytes()
    beats = out / "en" / "480p15" / "WorkedExample.beats.json"
    beats.write_text('{"beats": [{"id": "a"}]}', encoding="utf-8")
    with pytest.raises(page.PageError, match=re.escape(f"{beats}: damaged beats file")):
        page.build(out, CHAPTERS)
    (out / manifest.NAME).write_text('{"renders": 3}', encoding="utf-8")
    with pytest.raises(page.PageError, match="manifest.json: damaged"):
        page.build(out, CHAPTERS)
    assert (out / "index.html").read_bytes() == before
    assert not list(out.glob(".index.html.*"))


def lesson_data(index: Path) -> dict:
    text = index.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', text, re.S)
    assert m and "<" not in m.group(1)  # nothing in it can close the element
    return json.loads(m.group(1))


def test_the_beats_are_inlined_and_a_clip_without_them_is_one_beat(site, tmp_path):
    import shutil
    data = lesson_data(site / "index.html")
    assert data["langs"] == ["zh", "en"]
    for lang in ("zh", "en"):
        assert [c["scene"] for c in data["clips"][lang]] == ORDER
        for c in data["clips"][lang]:
            ends = CLIPS[c["scene"]][1]
            assert [(b["start"], b["end"]) for b in c["beats"]] == list(zip([0.0] + ends[:-1], ends))
    out = tmp_path / "r"
    shutil.copytree(site, out)
    doc = json.loads((out / manifest.NAME).read_text(encoding="utf-8"))
    for e in doc["renders"]:
        if e["scene"] == "WorkedExample" and e["language"] == "en":
            e["files"] = [f for f in e["files"] if not f.endswith(".beats.json")]
    (out / manifest.NAME).write_text(json.dumps(doc), encoding="utf-8")
    page.build(out, CHAPTERS)
    [clip] = [c for c in lesson_data(out / "index.html")["clips"]["en"] if c["scene"] == "WorkedExample"]
    assert [(b["start"], b["end"]) for b in clip["beats"]] == [(0.0, 4.0)]
    assert clip["beats"][0]["say"] == page.math_html(tr("en", "worked_example.summary"))


def test_presenter_mode_steps_through_beats(open_page):
    pg = open_page("?present=1")
    pg.wait_for_function("document.querySelector('figure.current video').readyState >= 1")
    assert state(pg) == ("SpaceDeformation/0", "ready")
    # one clip, full width; everything else of the page is out of sight
    assert current_video(pg)["width"] == pytest.approx(1000, abs=2)
    assert pg.locator("figure:visible").count() == 1
    assert not pg.locator("nav.toc").first.is_visible()
    play_beat(pg, "ArrowRight", "SpaceDeformation/0", 1.0)
    play_beat(pg, "Space", "SpaceDeformation/1", 2.0)
    pg.keyboard.press("ArrowLeft")
    assert state(pg) == ("SpaceDeformation/0", "ready")
    assert current_video(pg)["t"] == pytest.approx(0.0, abs=0.05)
    play_beat(pg, "ArrowRight", "SpaceDeformation/0", 1.0)
    pg.keyboard.press("End")
    assert state(pg) == ("SpaceDeformation/2", "done")
    assert current_video(pg)["t"] == pytest.approx(3.0, abs=0.25)
    pg.keyboard.press("Home")
    assert state(pg) == ("SpaceDeformation/0", "ready")
    assert current_video(pg)["t"] == pytest.approx(0.0, abs=0.05)
    pg.keyboard.press("n")
    assert state(pg) == ("WorkedExample/0", "ready")
    assert current_video(pg)["scene"] == "WorkedExample"
    assert pg.locator("figure:visible").count() == 1
    pg.keyboard.press("B")
    assert state(pg) == ("SpaceDeformation/0", "ready")
    pg.keyboard.press("B")  # no scene before the first
    assert state(pg) == ("SpaceDeformation/0", "ready")
    pg.keyboard.press("ArrowLeft")  # nor a beat before its first
    assert state(pg) == ("SpaceDeformation/0", "ready")
    # after the last beat of a clip, the next clip is cued, not played
    pg.keyboard.press("End")
    pg.keyboard.press("ArrowRight")
    assert state(pg) == ("WorkedExample/0", "ready")
    assert current_video(pg)["paused"]
    pg.keyboard.press("ArrowLeft")  # back a beat across clips: the last beat of the one before
    assert state(pg) == ("SpaceDeformation/2", "ready")
    assert current_video(pg)["t"] == pytest.approx(2.0, abs=0.05)
    play_beat(pg, "PageDown", "SpaceDeformation/2", 3.0)  # the clip's last beat ends with the video
    pg.keyboard.press("N")
    pg.keyboard.press("N")
    pg.keyboard.press("N")  # no scene after the last
    assert state(pg) == ("DotProductSoftmax/0", "ready")
    play_beat(pg, "ArrowRight", "DotProductSoftmax/0", 1.2)


def test_speaker_panel_shows_the_beat_narration_and_hides(open_page):
    pg = open_page("?lang=en&present=1")
    panel = pg.locator("#speaker")
    assert panel.is_visible()
    assert pg.locator("#speaker .say").inner_text() == SEEN["en"].format(i=1, scene="SpaceDeformation")
    assert pg.locator("#speaker .next").inner_text() == SEEN["en"].format(i=2, scene="SpaceDeformation")
    assert pg.locator("#speaker .step").inner_text() == tr("en", "page.step", n=1, total=3)
    assert tr("en", "page.ask.space_deformation") in pg.locator("#speaker .side").inner_text()
    before = current_video(pg)
    pg.keyboard.press("s")
    assert not panel.is_visible()
    assert state(pg) == ("SpaceDeformation/0", "ready")  # S changes nothing else
    pg.keyboard.press("End")
    pg.keyboard.press("S")
    assert panel.is_visible()
    assert pg.locator("#speaker .say").inner_text() == SEEN["en"].format(i=3, scene="SpaceDeformation")
    assert pg.locator("#speaker .next").inner_text() == tr("en", "page.last")
    assert current_video(pg)["width"] == pytest.approx(before["width"], abs=2)
    # Chinese narration: cue lines joined without spaces, except next to Latin letters
    pg.keyboard.press("Escape")
    assert pg.evaluate("document.body.dataset.beat") is None
    assert pg.locator("nav.toc:visible").count() == 1
    pg.click("nav.langs button[data-lang=zh]")
    pg.keyboard.press("p")
    assert state(pg) == ("SpaceDeformation/0", "ready")
    assert pg.locator("#speaker .say").inner_text() == SEEN["zh"].format(i=1, scene="SpaceDeformation")
    assert pg.locator("#speaker .keys").inner_text() == tr("zh", "page.keys")


def scrolled_to(pg, fig: str) -> bool:
    """The figure is at the top of the window (or the page is scrolled as far as it goes)."""
    return pg.evaluate("""id => { const top = document.getElementById(id).getBoundingClientRect().top;
        const end = document.documentElement.scrollHeight - window.innerHeight;
        return Math.abs(top) < 5 || (top > 0 && Math.abs(window.scrollY - end) < 2); }""", fig)


def visible_text(pg) -> str:
    return pg.evaluate("document.body.innerText")


def test_lang_parameter_translates_the_page(open_page):
    pg = open_page("?lang=en")
    assert pg.evaluate("document.documentElement.lang") == "en"
    assert pg.title() == tr("en", "lesson.title")
    assert pg.locator("footer").inner_text() == tr("en", "page.footer")
    assert pg.locator("#present-btn").inner_text() == tr("en", "page.present")
    assert pg.locator("section.lesson:visible").evaluate_all("s => s.map(x => x.lang)") == ["en"]
    text = visible_text(pg)
    assert tr("en", "page.goal1") in text and tr("en", "page.lead") in text
    assert not re.search(r"[\u4e00-\u9fff]", text.replace(tr("zh", "lesson.language"), ""))
    # every clip: its question before its video
    for scene, (section, _) in CLIPS.items():
        fig = pg.locator(f"#en-{scene}")
        assert fig.locator(".ask").inner_text() == tr("en", "page.think") + tr("en", f"page.ask.{section}")
        assert fig.evaluate("f => f.querySelector('.ask').compareDocumentPosition(f.querySelector('video')) & 4") == 4


def test_deep_link_opens_that_language_at_that_clip(open_page):
    pg = open_page("#en-WorkedExample")
    assert pg.evaluate("document.documentElement.lang") == "en"
    assert scrolled_to(pg, "en-WorkedExample")
    assert pg.evaluate("window.scrollY") > 100
    pg = open_page("?present=1#en-WorkedExample")
    assert state(pg) == ("WorkedExample/0", "ready")
    assert pg.locator("#speaker .say").inner_text() == SEEN["en"].format(i=1, scene="WorkedExample")
    pg = open_page("#zh-DotProductSoftmax")
    assert pg.evaluate("document.documentElement.lang") == "zh"
    assert scrolled_to(pg, "zh-DotProductSoftmax") and pg.evaluate("window.scrollY") > 100


def test_language_choice_is_remembered(open_page, browser):
    context = browser.new_context()
    try:
        pg = open_page("", context=context)
        assert pg.evaluate("document.documentElement.lang") == "zh"
        assert pg.title() == tr("zh", "lesson.title")
        pg.click("nav.langs button[data-lang=en]")
        assert pg.title() == tr("en", "lesson.title")
        pg.reload()
        assert pg.evaluate("document.documentElement.lang") == "en"
        assert pg.locator("footer").inner_text() == tr("en", "page.footer")
        assert pg.locator("nav.langs button[aria-pressed=true]").inner_text() == tr("en", "lesson.language")
        # a link to the other language wins over the remembered choice, without changing it
        pg.goto(pg.url.split("#")[0].split("?")[0] + "#zh-WorkedExample")
        pg.reload()
        assert pg.evaluate("document.documentElement.lang") == "zh"
        pg.goto(pg.url.split("#")[0])
        pg.reload()
        assert pg.evaluate("document.documentElement.lang") == "en"
    finally:
        context.close()
    # a fresh browser profile starts in the first language
    assert open_page("").evaluate("document.documentElement.lang") == "zh"


def test_works_without_local_storage(open_page):
    deny = ("Object.defineProperty(window, 'localStorage', {get() { "
            "throw new DOMException('denied', 'SecurityError'); }});")
    pg = open_page("", init_script=deny)
    pg.click("nav.langs button[data-lang=en]")
    assert pg.evaluate("document.documentElement.lang") == "en"
    pg.keyboard.press("p")
    assert state(pg)[0] == "SpaceDeformation/0"  # open_page's teardown asserts no script error


def test_table_of_contents_durations_match_the_manifest(open_page, site):
    entries = json.loads((site / manifest.NAME).read_text(encoding="utf-8"))["renders"]
    pg = open_page()
    for lang in ("zh", "en"):
        pg.click(f"nav.langs button[data-lang={lang}]")
        rows = pg.locator(f"section[lang={lang}] nav.toc li").evaluate_all(
            "li => li.map(x => [x.querySelector('a').getAttribute('href'), x.querySelector('.dur').innerText])")
        durations = {e["scene"]: e["duration"] for e in entries if e["language"] == lang}
        want = []
        for scene in ORDER:
            whole = int(durations[scene] + 0.5)
            want.append([f"#{lang}-{scene}", f"{whole // 60}:{whole % 60:02d}"])
        assert rows == want
        assert [r[1] for r in rows] == ["0:03", "0:04", "0:03"]  # 3.0 s, 4.0 s, 2.6 s
        total = int(sum(durations.values()) + 0.5)
        assert pg.locator(f"section[lang={lang}] .total").inner_text() == tr(
            lang, "page.total", count=3, time=f"{total // 60}:{total % 60:02d}")
        # a contents link goes to its clip
        pg.click(f"section[lang={lang}] nav.toc a[href='#{lang}-WorkedExample']")
        assert scrolled_to(pg, f"{lang}-WorkedExample")


def test_no_raw_math_in_visible_text(open_page):
    pg = open_page()
    for lang in ("zh", "en"):
        pg.click(f"nav.langs button[data-lang={lang}]")
        text = visible_text(pg)
        assert tr(lang, "dot_product_softmax.summary") not in text  # it is written with √d_k
        assert "√dk" in text
        seen = [text]
        pg.keyboard.press("p")
        for _ in ORDER:
            seen.append(visible_text(pg))
            pg.keyboard.press("End")
            seen.append(visible_text(pg))
            pg.keyboard.press("n")
        pg.keyboard.press("Escape")
        for t in seen:
            assert "_" not in t and "\\sqrt" not in t, t
        sub = pg.locator(f"#{lang}-DotProductSoftmax figcaption sub")
        assert sub.evaluate_all("s => s.map(x => x.innerText)") == ["k"]
