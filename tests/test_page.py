"""The lesson page as a lesson and its presenter mode, in real Chromium.

No manim: the fixture writes a renders/ folder by hand (tiny h264 clips made
with PyAV, posters, subtitles, beats files, a manifest written through
qkv_lens.app.manifest) for three scenes in zh and en, then builds the
page and drives it from file:// with the keyboard."""
from __future__ import annotations

import html
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


def opens_in_remembered(pg, lang: str):
    """``pg``, a page opened after another page of the same browser chose
    ``lang``, reloaded once its own document reads that choice in the store
    (it may open before the browser's store has it): it opens in ``lang``."""
    pg.wait_for_function(f"localStorage.getItem('qkv-lens.lang') === {lang!r}", timeout=10000)
    pg.reload()
    assert pg.evaluate("document.documentElement.lang") == lang, \
        pg.evaluate("[location.href, localStorage.getItem('qkv-lens.lang')]")
    return pg


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
    assert page.math_runs(r"W_Q < \sqrt{d_k}") == ["W", {"sub": "Q"}, " < √d", {"sub": "k"}]
    assert page.math_html("<b>x_<i></b>") == "&lt;b&gt;x_&lt;i&gt;&lt;/b&gt;"


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
    assert clip["beats"][0]["say"] == page.math_runs(tr("en", "worked_example.summary"))


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
    pg.keyboard.press("ArrowUp")
    assert state(pg) == ("SpaceDeformation/0", "ready")
    pg.keyboard.press("ArrowUp")  # no scene before the first
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
    pg.keyboard.press("ArrowDown")
    pg.keyboard.press("N")  # no scene after the last
    assert state(pg) == ("DotProductSoftmax/0", "ready")
    play_beat(pg, "ArrowRight", "DotProductSoftmax/0", 1.2)


def test_the_speaker_window_follows_the_projected_one(open_page, browser):
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    try:
        pg = open_page("?lang=en&present=1", context=context)
        # the class's screen shows the clip and nothing of the notes
        assert not pg.locator("#speaker").is_visible()
        assert tr("en", "page.next") not in visible_text(pg)
        with context.expect_page() as opened:
            pg.keyboard.press("s")
        notes = opened.value
        notes.wait_for_function("document.body.dataset.beat === 'SpaceDeformation/0'")
        assert notes.locator("#speaker").is_visible()
        assert notes.locator("video:visible").count() == 0
        assert notes.title() == tr("en", "page.speaker") + " · " + tr("en", "lesson.title")
        assert notes.locator("#speaker .say").inner_text() == SEEN["en"].format(i=1, scene="SpaceDeformation")
        assert notes.locator("#speaker .next").inner_text() == SEEN["en"].format(i=2, scene="SpaceDeformation")
        assert notes.locator("#speaker .step").inner_text() == tr("en", "page.step", n=1, total=3)
        assert tr("en", "page.ask.space_deformation") in notes.locator("#speaker .side").inner_text()
        assert re.fullmatch(r"\d+:\d\d", notes.locator("#speaker .timer .t").inner_text())
        assert re.search(r"\d\d:\d\d", notes.locator("#speaker .clock .t").inner_text())
        # the main window steps: the speaker window follows
        pg.bring_to_front()
        pg.keyboard.press("End")
        notes.wait_for_function("document.body.dataset.beat === 'SpaceDeformation/2'")
        assert notes.evaluate("document.body.dataset.state") == "done"
        assert notes.locator("#speaker .say").inner_text() == SEEN["en"].format(i=3, scene="SpaceDeformation")
        assert notes.locator("#speaker .next").inner_text() == (
            tr("en", "page.next_clip") + " " + tr("en", "worked_example.title"))
        # keys pressed in the speaker window step the projected one
        notes.bring_to_front()
        notes.keyboard.press("ArrowRight")
        pg.wait_for_function("document.body.dataset.beat === 'WorkedExample/0'")
        notes.wait_for_function("document.body.dataset.beat === 'WorkedExample/0'")
        notes.keyboard.press("b")
        pg.wait_for_function("document.body.classList.contains('blank')")
        notes.wait_for_function(f"document.querySelector('#speaker .state').innerText.includes("
                                f"{json.dumps(tr('en', 'page.blanked'))})")
        # S again brings the same window back rather than a second one
        pg.bring_to_front()
        pg.keyboard.press("b")
        pg.keyboard.press("s")
        assert len(context.pages) == 2
        # a reload of the projected window resumes its place, and the speaker window finds it again
        pg.reload()
        assert state(pg) == ("WorkedExample/0", "ready")
        pg.keyboard.press("End")
        notes.wait_for_function("document.body.dataset.beat === 'WorkedExample/3'", timeout=5000)
        # the language follows too
        pg.keyboard.press("Escape")
        pg.click("nav.langs button[data-lang=zh]")
        pg.keyboard.press("p")
        notes.wait_for_function("document.documentElement.lang === 'zh'")
        assert notes.locator("#speaker .say").inner_text() == SEEN["zh"].format(i=1, scene="SpaceDeformation")
        # a link followed on the page, then a reload (presenting again, ?present=1): found again
        pg.keyboard.press("Escape")                 # closes the key help shown on entering
        pg.keyboard.press("Escape")
        pg.click("section[lang=zh] nav.toc a[href='#zh-WorkedExample']")
        pg.reload()
        assert state(pg) == ("WorkedExample/0", "ready")
        notes.wait_for_function("document.body.dataset.beat === 'WorkedExample/0'", timeout=5000)
        assert len(context.pages) == 2
    finally:
        context.close()


def test_presenter_keys_blank_captions_overview_and_go_to(open_page):
    pg = open_page("?lang=en&present=1")
    pg.wait_for_function("document.querySelector('figure.current video').readyState >= 1")
    modes = "() => [...document.querySelector('figure.current video').textTracks].map(t => t.mode)"
    assert pg.evaluate(modes) == ["showing"]
    pg.keyboard.press("c")
    assert pg.evaluate(modes) == ["hidden"]
    assert tr("en", "page.captions_off") in pg.locator("#live").inner_text()
    pg.keyboard.press("C")
    assert pg.evaluate(modes) == ["showing"]
    for key in ("b", "."):
        pg.keyboard.press(key)
        assert pg.locator("#blank").is_visible()
        assert tr("en", "page.blanked") in pg.locator("#live").inner_text()
        pg.keyboard.press(key)
        assert not pg.locator("#blank").is_visible()
    # on a blank screen any key lights it again and does nothing else
    pg.keyboard.press("B")
    pg.keyboard.press("ArrowRight")
    assert not pg.locator("#blank").is_visible()
    assert state(pg) == ("SpaceDeformation/0", "ready")
    # G: a clip by its number
    pg.keyboard.press("g")
    assert pg.locator("#overview").is_visible()
    assert pg.evaluate("document.activeElement.type") == "number"
    pg.keyboard.type("3")
    pg.keyboard.press("Enter")
    assert not pg.locator("#overview").is_visible()
    assert state(pg) == ("DotProductSoftmax/0", "ready")
    # O: every clip, the current one marked; Esc closes it and stays in presenter mode
    pg.keyboard.press("o")
    items = pg.locator("#overview li button")
    assert items.all_inner_texts() == [tr("en", f"{CLIPS[s][0]}.title") for s in ORDER]
    assert pg.locator("#overview button[aria-current]").inner_text() == tr("en", "dot_product_softmax.title")
    pg.keyboard.press("Escape")
    assert not pg.locator("#overview").is_visible()
    assert state(pg) == ("DotProductSoftmax/0", "ready")
    pg.keyboard.press("O")
    items.nth(1).click()
    assert state(pg) == ("WorkedExample/0", "ready")
    # F: full screen, and again to leave it
    pg.keyboard.press("f")
    pg.wait_for_function("document.fullscreenElement === document.documentElement")
    pg.keyboard.press("F")
    pg.wait_for_function("document.fullscreenElement === null")


def test_a_cued_clip_shows_its_question_until_it_plays(open_page):
    pg = open_page("?lang=en&present=1")
    card = pg.locator("#card")
    assert card.is_visible()
    assert card.locator(".title").inner_text() == tr("en", "space_deformation.title")
    assert card.locator(".question").inner_text() == tr("en", "page.ask.space_deformation")
    play_beat(pg, "ArrowRight", "SpaceDeformation/0", 1.0)
    assert not card.is_visible()
    pg.keyboard.press("End")
    pg.keyboard.press("ArrowRight")   # the next clip is cued: its card, not a frame of it
    assert state(pg) == ("WorkedExample/0", "ready")
    assert card.is_visible()
    assert card.locator(".question").inner_text() == tr("en", "page.ask.worked_example")
    # the class sees the question, never the narration or what comes next
    text = visible_text(pg)
    assert SEEN["en"].format(i=1, scene="WorkedExample") not in text and tr("en", "page.next") not in text
    pg.keyboard.press("ArrowRight")
    assert state(pg)[1] == "playing" and not card.is_visible()


def test_the_place_is_kept_in_the_url_and_resumed(open_page):
    pg = open_page("?lang=en&present=1")
    assert pg.evaluate("location.hash") == "#en-SpaceDeformation/0"
    pg.keyboard.press("n")
    play_beat(pg, "ArrowRight", "WorkedExample/0", 1.0)
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("document.body.dataset.state === 'done'", timeout=8000)
    assert pg.evaluate("location.hash") == "#en-WorkedExample/1"
    pg.reload()
    assert state(pg) == ("WorkedExample/1", "ready")
    pg.wait_for_function("document.querySelector('figure.current video').readyState >= 1")
    assert current_video(pg)["t"] == pytest.approx(1.0, abs=0.05)
    play_beat(pg, "ArrowRight", "WorkedExample/1", 2.0)
    # a link to a place opens presenter mode there; leaving keeps the clip, not the beat
    pg = open_page("#zh-DotProductSoftmax/1")
    assert state(pg) == ("DotProductSoftmax/1", "ready")
    assert pg.evaluate("document.documentElement.lang") == "zh"
    pg.keyboard.press("Escape")                     # closes the key help shown on entering
    pg.keyboard.press("Escape")
    assert pg.evaluate("location.hash") == "#zh-DotProductSoftmax"
    pg.reload()
    assert pg.evaluate("document.body.dataset.beat") is None
    assert scrolled_to(pg, "zh-DotProductSoftmax")
    # a beat past the clip's end is its last beat
    assert state(open_page("#en-SpaceDeformation/9")) == ("SpaceDeformation/2", "ready")


def swipe(pg, x0: float, x1: float, y: float) -> None:
    """A one-finger swipe from x0 to x1, as real touch events."""
    cdp = pg.context.new_cdp_session(pg)
    steps = [x0 + (x1 - x0) * i / 5 for i in range(6)]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y}]})
    for x in steps[1:]:
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_touch_steps_and_leaves(open_page, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        pg = open_page("?lang=en", context=context)
        pg.tap("#present-btn")
        assert state(pg) == ("SpaceDeformation/0", "ready")
        # the key help names the gestures, not keys a phone does not have
        help_text = pg.locator("#help").inner_text()
        assert tr("en", "page.touch_step") in help_text and tr("en", "page.touch_back") in help_text
        assert tr("en", "page.key_step") not in help_text and tr("en", "page.key_full") not in help_text
        pg.tap("#card")   # the title card covers the clip until it plays
        assert state(pg) == ("SpaceDeformation/0", "playing")
        pg.wait_for_function("document.body.dataset.state === 'done'", timeout=8000)
        swipe(pg, 300, 60, 400)    # to the left: on
        assert state(pg) == ("SpaceDeformation/1", "playing")
        swipe(pg, 60, 300, 400)    # to the right: back
        assert state(pg) == ("SpaceDeformation/0", "ready")
        exit_button = pg.locator("#exit")
        assert exit_button.is_visible()
        assert exit_button.get_attribute("aria-label") == tr("en", "page.leave")
        box = exit_button.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44   # a finger's target
        exit_button.tap()
        assert pg.evaluate("document.body.dataset.beat") is None
        assert pg.locator("nav.toc:visible").count() == 1
    finally:
        context.close()
    # a desktop shows keys, no gestures and no exit button
    pg = open_page("?lang=en&present=1")
    help_text = pg.locator("#help").inner_text()
    assert tr("en", "page.key_step") in help_text and tr("en", "page.touch_step") not in help_text
    assert not pg.locator("#exit").is_visible()


def contrast(pg, selector: str) -> float:
    """WCAG contrast of the element's text colour against the first opaque background behind it."""
    fg, bg = pg.evaluate(r"""sel => { let el = document.querySelector(sel);
        const fg = getComputedStyle(el).color;
        while (el && getComputedStyle(el).backgroundColor.replace(/\s/g, '').match(/rgba\(.*,0\)|transparent/))
            el = el.parentElement;
        return [fg, el ? getComputedStyle(el).backgroundColor : 'rgb(255, 255, 255)']; }""", selector)

    def luminance(css: str) -> float:
        r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_accessibility_live_region_transcript_contrast_and_fonts(open_page, browser):
    pg = open_page("?lang=en")
    # every clip has its beats' sentences under it, in order
    for scene, (_, ends) in CLIPS.items():
        items = pg.locator(f"#en-{scene} details.transcript li").evaluate_all("li => li.map(x => x.textContent)")
        assert items == [SEEN["en"].format(i=i + 1, scene=scene) for i in range(len(ends))]
    assert pg.locator("#en-WorkedExample details.transcript summary").inner_text() == tr("en", "page.transcript")
    # fonts: English text is set in a Latin font first, Chinese in a CJK one
    family = "s => getComputedStyle(document.querySelector(s)).fontFamily.split(',')[0].trim()"
    assert "CJK" not in pg.evaluate(family, "section[lang=en] .intro")
    assert "CJK" not in pg.evaluate(family, "body")
    pg.click("nav.langs button[data-lang=zh]")
    assert "CJK" in pg.evaluate(family, "section[lang=zh] .intro")
    pg.click("nav.langs button[data-lang=en]")
    # the live region says where the presenter is
    live = pg.locator("#live")
    assert live.get_attribute("role") == "status" and live.get_attribute("aria-live") == "polite"
    pg.keyboard.press("p")
    assert live.inner_text() == " · ".join([tr("en", "space_deformation.title"), tr("en", "page.step", n=1, total=3),
                                            tr("en", "page.ready")])
    pg.keyboard.press("End")
    assert live.inner_text().endswith(tr("en", "page.step", n=3, total=3) + " · " + tr("en", "page.done"))
    # the key help (shown on entering, and by ?), on the class's screen and in the speaker window, reads at 4.5:1
    assert not pg.locator("#help").is_visible()
    pg.keyboard.press("?")
    assert pg.locator("#help").is_visible()
    assert contrast(pg, "#help") >= 4.5
    notes = open_page("?speaker=1")
    assert contrast(notes, "#speaker .keys") >= 4.5
    assert contrast(notes, "#speaker .where .state") >= 4.5


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
    assert pg.locator("#card .title").inner_text() == tr("en", "worked_example.title")
    pg = open_page("#zh-DotProductSoftmax")
    assert pg.evaluate("document.documentElement.lang") == "zh"
    assert scrolled_to(pg, "zh-DotProductSoftmax") and pg.evaluate("window.scrollY") > 100


def test_language_choice_is_remembered(open_page, browser):
    """A language chosen on the page is what the page opens in next time, in
    the same browser; a link to a clip in the other language wins, without
    changing it.  The page that chose stays open: a tab navigated away at
    once can lose its last write to the store (Chromium; twice in CI), which
    no reader, who reloads seconds later, meets."""
    context = browser.new_context()
    try:
        pg = open_page("", context=context)
        assert pg.evaluate("document.documentElement.lang") == "zh"
        assert pg.title() == tr("zh", "lesson.title")
        pg.click("nav.langs button[data-lang=en]")
        assert pg.title() == tr("en", "lesson.title")
        later = opens_in_remembered(open_page("", context=context), "en")
        assert later.locator("footer").inner_text() == tr("en", "page.footer")
        assert later.locator("nav.langs button[aria-pressed=true]").inner_text() == tr("en", "lesson.language")
        # a link to the other language wins over the remembered choice, without changing it
        assert open_page("#zh-WorkedExample", context=context).evaluate("document.documentElement.lang") == "zh"
        opens_in_remembered(open_page("", context=context), "en")
    finally:
        context.close()
    # a fresh browser profile starts in the first language
    assert open_page("").evaluate("document.documentElement.lang") == "zh"


def test_the_page_opens_in_the_lessons_language(site, tmp_path, browser):
    """A lesson in English opens its page in English; ?lang=, a link to a
    clip and a remembered choice still win."""
    from qkv_lens.app import cli
    out = copy_site(site, tmp_path / "renders")
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('language = "en"\n', encoding="utf-8")
    assert cli.main(["lesson", "--out", str(out), "--lesson", str(lesson)]) == 0
    assert lesson_data(out / "index.html")["first"] == "en"
    context = browser.new_context()
    try:
        pg = context.new_page()
        url = (out / "index.html").as_uri()
        pg.goto(url)
        assert pg.evaluate("document.documentElement.lang") == "en"
        assert pg.title() == tr("en", "lesson.title")
        assert pg.locator("section.lesson:visible").evaluate_all("s => s.map(x => x.lang)") == ["en"]
        # each in a page of its own: the page that chose stays open (test_language_choice_is_remembered)
        asked = context.new_page()
        asked.goto(url + "?lang=zh")
        assert asked.evaluate("document.documentElement.lang") == "zh"
        linked = context.new_page()
        linked.goto(url + "#zh-WorkedExample")
        assert linked.evaluate("document.documentElement.lang") == "zh"
        later = context.new_page()                      # ?lang= was remembered
        later.goto(url)
        opens_in_remembered(later, "zh")
    finally:
        context.close()
    # a lesson in a language with no renders: the first language rendered
    page.build(out, CHAPTERS, language="es")
    assert lesson_data(out / "index.html")["first"] == "zh"


def test_render_builds_the_page_in_the_lessons_language(tmp_path, fake):
    """render --lang all (the stand-in renderer) of a lesson in English: its page opens in English."""
    from qkv_lens.app import cli
    lesson = tmp_path / "lesson.toml"
    lesson.write_text('language = "en"\n', encoding="utf-8")
    out = tmp_path / "out"
    assert cli.main(["render", "SpaceDeformation", "--lang", "all", "--out", str(out), "--lesson", str(lesson)]) == 0
    data = lesson_data(out / "index.html")
    assert data["langs"][0] != "en" and data["first"] == "en"


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
            pg.keyboard.press("ArrowRight")   # past the title card
            seen.append(visible_text(pg))
            pg.keyboard.press("End")
            seen.append(visible_text(pg))
            pg.keyboard.press("n")
        pg.keyboard.press("Escape")
        for t in seen:
            assert "_" not in t and "\\sqrt" not in t, t
        sub = pg.locator(f"#{lang}-DotProductSoftmax figcaption sub")
        assert sub.evaluate_all("s => s.map(x => x.innerText)") == ["k"]


# -- the exports' links, and the page that follows `watch` -------------------------------------

def copy_site(site: Path, dest: Path) -> Path:
    import shutil
    shutil.copytree(site, dest)
    return dest


def test_the_page_links_the_exports_that_are_there(site, tmp_path):
    out = copy_site(site, tmp_path / "renders")
    (out / "en" / "480p15" / "lesson.mp4").write_bytes(b"mp4")
    (out / "en" / "480p15" / "lesson.pdf").write_bytes(b"%PDF")
    (out / "zh" / "480p15" / "lesson.pdf").symlink_to(tmp_path / "elsewhere.pdf")   # leads out: never linked
    (tmp_path / "elsewhere.pdf").write_bytes(b"%PDF")
    html_text = page.build(out, CHAPTERS).read_text(encoding="utf-8")
    en = html_text.split('<section class="lesson" lang="en"')[1].split("</section>")[0]
    zh = html_text.split('<section class="lesson" lang="zh"')[1].split("</section>")[0]
    assert re.findall(r'<a href="([^"]+)" download>', en) == ["en/480p15/lesson.mp4", "en/480p15/lesson.pdf"]
    assert tr("en", "page.dl_video") in en and tr("en", "page.downloads") in en
    assert "download>" not in zh                                    # nothing of zh's is there (the link led out)


def test_a_watched_page_reloads_at_its_place_when_it_is_built_again(site, tmp_path, browser):
    out = copy_site(site, tmp_path / "renders")
    page.build(out, CHAPTERS, live=True)
    assert (out / page.LIVE_FILE).is_file()
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    try:
        pg = context.new_page()
        scene = next(iter(CLIPS))
        pg.goto((out / "index.html").as_uri() + f"#en-{scene}")
        pg.evaluate("window.marker = 1")
        polls = "Number(document.body.dataset.polls || 0)"
        pg.wait_for_function(f"{polls} >= 2", timeout=10000)        # polled twice, nothing changed: no reload
        assert pg.evaluate("window.marker") == 1
        entries = manifest.load(out)                                # a scene rendered again: a new key
        first = next(iter(entries))
        entries[first] = dict(entries[first], key="another")
        manifest.save(out, entries)
        page.build(out, CHAPTERS, live=True)
        pg.wait_for_function("window.marker === undefined", timeout=10000)
        assert pg.evaluate("location.hash") == f"#en-{scene}"      # back at its place
    finally:
        context.close()


# counts the build.js scripts the page adds (the poll), as it adds them
COUNT_POLLS = """window.__polls = 0;
new MutationObserver(ms => ms.forEach(m => m.addedNodes.forEach(n => {
  if (n.tagName === 'SCRIPT' && /build[.]js/.test(n.src)) window.__polls++; })))
  .observe(document, {childList: true, subtree: true});"""


def test_a_page_not_watched_polls_nothing(site, tmp_path, browser):
    live = copy_site(site, tmp_path / "renders")
    page.build(live, CHAPTERS, live=True)
    seen = {}
    for name, out in (("watched", live), ("not watched", site)):
        context = browser.new_context()
        try:
            pg = context.new_page()
            pg.add_init_script(COUNT_POLLS)
            pg.clock.install()
            pg.goto((out / "index.html").as_uri())
            pg.clock.run_for(15_000)                                # ten polls' time, at once
            seen[name] = pg.evaluate("window.__polls")
        finally:
            context.close()
    assert seen["watched"] >= 9                                     # the count sees polls where there are some
    assert seen["not watched"] == 0


# -- the page's title and introduction are the lesson's own ----------------------------------------

OWN_SCENES = ("SpaceDeformation", "WorkedExample", "DotProductSoftmax")    # a lesson of three scenes
OWN_CHAPTER = {"zh": "我的矩阵课", "en": "My matrix lesson", "es": "Mi clase de matrices"}


def intro_of(browser, out: Path, lang: str) -> dict:
    """What the page shows of its lesson in ``lang``: window title, heading, introduction."""
    pg = browser.new_page()
    try:
        pg.goto((out / "index.html").as_uri() + f"?lang={lang}")
        sec = pg.locator(f"section[lang={lang}]")
        return {"title": pg.title(), "h1": sec.locator("h1").inner_text(),
                "intro": sec.locator(".intro > p").all_inner_texts(),
                "goals": sec.locator(".intro li").all_inner_texts(), "text": visible_text(pg)}
    finally:
        pg.close()


def with_texts(folder: Path, tables: dict[str, dict[str, str]]) -> None:
    """A lesson folder's texts.toml with ``tables`` (language -> key -> text), in use."""
    from qkv_lens import texts
    from tests.helpers import toml_text
    (folder / "texts.toml").write_text(toml_text(tables), encoding="utf-8")
    texts.use_lesson_texts(folder)


def test_a_lesson_of_its_own_scenes_gets_neutral_texts_or_its_own(site, tmp_path, browser):
    """A lesson that teaches other scenes than the shipped one promises none
    of the shipped lesson's content: titled and outlined by its chapters,
    until its texts.toml gives it a title and goals (an empty goal is no bullet)."""
    from qkv_lens import texts
    from qkv_lens.lesson import Chapter
    from qkv_lens.lesson.schema import Named
    out = copy_site(site, tmp_path / "renders")
    chapters = [Chapter(Named.of(OWN_CHAPTER), OWN_SCENES)]
    page.build(out, chapters)
    for lang in ("zh", "en"):
        seen = intro_of(browser, out, lang)
        assert seen["title"] == seen["h1"] == OWN_CHAPTER[lang]
        assert seen["intro"] == [tr(lang, "page.lead"), tr(lang, "page.outline")]
        assert seen["goals"] == [OWN_CHAPTER[lang]]
        for key in ("lesson.title", "page.goal1", "page.goal2", "page.goal5", "page.goals"):
            assert tr(lang, key) not in seen["text"], key
    assert lesson_data(out / "index.html")["ui"]["en"]["title"] == OWN_CHAPTER["en"]
    own = {lang: {"lesson.title": f"{lang}: shear and stretch", "page.lead": f"{lang}: watch, then try",
                  "page.goal1": f"{lang}: shear a plane", "page.goal2": "", "page.goal3": f"{lang}: undo a stretch",
                  "page.goal7": " "} for lang in ("zh", "en", "es")}
    try:
        with_texts(tmp_path, own)
        page.build(out, chapters)
        data = lesson_data(out / "index.html")
    finally:
        texts.use_lesson_texts(None)
    for lang in ("zh", "en"):
        seen = intro_of(browser, out, lang)
        assert seen["title"] == seen["h1"] == f"{lang}: shear and stretch"
        assert seen["intro"] == [f"{lang}: watch, then try", tr(lang, "page.goals")]
        assert seen["goals"] == [f"{lang}: shear a plane", f"{lang}: undo a stretch"]   # no empty bullet
        assert data["ui"][lang]["title"] == f"{lang}: shear and stretch"


def test_a_text_the_lesson_sets_is_its_own_even_when_it_repeats_the_shipped_one(tmp_path):
    """A lesson of two chapters keeps one shipped goal by writing it out: that goal is shown."""
    from qkv_lens import texts
    from qkv_lens.lesson import Chapter
    from qkv_lens.lesson.schema import Named
    chapters = [Chapter(Named.of({l: f"{l} one" for l in ("zh", "en", "es")}), OWN_SCENES[:2]),
                Chapter(Named.of({l: f"{l} two" for l in ("zh", "en", "es")}), OWN_SCENES[2:])]
    assert page.lesson_intro("en", chapters) == page.Intro(
        "en one · en two", tr("en", "page.lead"), tr("en", "page.outline"), ("en one", "en two"))
    try:
        with_texts(tmp_path, {lang: {"page.goal3": tr(lang, "page.goal3")} for lang in ("zh", "en", "es")})
        intro = page.lesson_intro("en", chapters)
    finally:
        texts.use_lesson_texts(None)
    assert (intro.title, intro.heading, intro.points) == ("en one · en two", tr("en", "page.goals"),
                                                          (tr("en", "page.goal3"),))


def test_the_shipped_lesson_keeps_its_texts_and_a_blank_goal_is_no_bullet(site, tmp_path, browser):
    from qkv_lens import texts
    out = copy_site(site, tmp_path / "renders")
    seen = intro_of(browser, site, "en")              # the shipped lesson's chapters: its own title and goals
    assert seen["title"] == seen["h1"] == tr("en", "lesson.title")
    assert seen["intro"] == [tr("en", "page.lead"), tr("en", "page.goals")]
    assert seen["goals"] == [tr("en", f"page.goal{i}") for i in range(1, 6)]
    shipped = [tr("en", f"page.goal{i}") for i in (1, 3, 4, 5)]
    try:
        with_texts(tmp_path, {lang: {"page.goal2": ""} for lang in ("zh", "en", "es")})
        page.build(out, CHAPTERS)
    finally:
        texts.use_lesson_texts(None)
    seen = intro_of(browser, out, "en")
    assert seen["title"] == tr("en", "lesson.title")
    assert seen["goals"] == shipped


# -- a colleague's texts and rows are data: shown as text, never run -------------------------------

# markup in every text: an image whose error runs script, an element, a closed style and a script
MARK = ('<img src=x onerror=window.__pwned=1><b class=pwn>&amp;</b>'
        '</style><script>window.__pwned=1</script>"\'')


def marked(key: str) -> str:
    """The text of ``key`` in the marked tables (no ``_``: W_Q-like math would be typeset)."""
    return MARK + key.replace("_", "-")


def assert_nothing_ran(pg) -> None:
    """No script of the texts ran in ``pg``, and none of their markup is an element."""
    # an image that fails like the texts' ones: its error comes after theirs would have
    pg.evaluate("() => new Promise(r => { const i = new Image(); i.onerror = i.onload = r; i.src = 'x'; })")
    assert pg.evaluate("window.__pwned") is None
    assert pg.evaluate("document.querySelectorAll('.pwn, [onerror], img[src=x]').length") == 0
    assert pg.evaluate("[document.scripts.length, document.querySelectorAll('style').length]") == [2, 1]


@pytest.fixture
def marked_site(site, tmp_path):
    """The site built again with markup in every text of the tables (a
    teacher's texts.toml laid over the shipped ones), in every field of the
    zh and en rows (put there past the loader, which refuses it: the page
    must not rely on that), in the chapter titles and the beats' sentences."""
    from qkv_lens import languages, texts
    from qkv_lens.lesson import Chapter
    from qkv_lens.lesson.schema import Named
    from tests.helpers import toml_text
    out = copy_site(site, tmp_path / "renders")
    doc = {lang: {key: marked(key) for key in texts.TEXTS[lang]} for lang in languages.offered()}
    doc["glossary"] = {term: {lang: marked(term) for lang in entry} for term, entry in texts.GLOSSARY.items()}
    (tmp_path / "texts.toml").write_text(toml_text(doc), encoding="utf-8")
    for lang in ("zh", "en"):
        for scene in CLIPS:
            path = out / lang / "480p15" / f"{scene}.beats.json"
            beats = json.loads(path.read_text(encoding="utf-8"))
            for i, b in enumerate(beats["beats"]):
                b["say"] = marked(f"say {scene} {i + 1}")
            path.write_text(json.dumps(beats), encoding="utf-8")
    (out / "en" / "480p15" / "lesson.mp4").write_bytes(b"mp4")
    chapters = [Chapter(Named.of({lang: marked(f"chapter {i}") for lang in ("zh", "en")}), ch.scenes)
                for i, ch in enumerate(CHAPTERS)]
    texts.use_lesson_texts(tmp_path)
    try:
        tables = languages.current()
        for lang in ("zh", "en"):
            tables.rows[lang].update({"name": MARK, "voice": MARK, "font_package": MARK, "fonts": [MARK, "Noto Sans"],
                                      "end_bad": [MARK], "start_good": [MARK]})
        languages.install(tables)
        page.build(out, chapters)
    finally:
        texts.use_lesson_texts(None)
    return out


def test_texts_and_rows_are_shown_as_text_never_run(marked_site, browser):
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    errors: list[str] = []
    context.on("weberror", lambda e: errors.append(str(e.error)))
    try:
        pg = context.new_page()
        pg.goto((marked_site / "index.html").as_uri() + "?lang=en")
        assert_nothing_ran(pg)
        assert pg.title() == marked("lesson.title")
        en = pg.locator("section[lang=en]")
        assert en.locator("h1").inner_text() == marked("lesson.title")
        assert en.locator("> h2").first.inner_text() == marked("chapter 0")
        assert en.locator("nav.toc h2").inner_text() == marked("page.contents")
        assert en.locator(".intro li").first.inner_text() == marked("page.goal1")
        assert en.locator(".total").inner_text() == marked("page.total")
        assert en.locator(".downloads a").inner_text() == marked("page.dl_video")
        assert en.locator(".downloads .stale").inner_text() == marked("page.dl_stale")   # no export record
        fig = pg.locator("#en-WorkedExample")
        assert fig.locator("h3").inner_text() == marked("worked_example.title")
        assert fig.locator(".ask").inner_text() == marked("page.think") + marked("page.ask.worked_example")
        assert fig.locator("figcaption").inner_text() == marked("worked_example.summary")
        assert fig.locator(".transcript li").all_text_contents() == [marked(f"say WorkedExample {i}")
                                                                     for i in (1, 2, 3, 4)]
        assert fig.evaluate("f => f.querySelector('track').label") == marked("lesson.language")
        assert pg.locator("nav.langs button[data-lang=en]").inner_text() == marked("lesson.language")
        assert pg.locator("footer").inner_text() == marked("page.footer")
        # the font stack keeps the row's font as a font name
        family = pg.evaluate("getComputedStyle(document.querySelector('section[lang=en] .intro')).fontFamily")
        assert "</style><script>" in family
        # presenter mode: the title card, the live region, the key help, the overview
        pg.keyboard.press("p")
        assert pg.locator("#card .title").inner_text() == marked("space_deformation.title")
        assert pg.locator("#card .question").inner_text() == marked("page.ask.space_deformation")
        assert pg.locator("#live").inner_text().startswith(marked("space_deformation.title") + " · "
                                                           + marked("page.step"))
        assert marked("page.key_step") in pg.locator("#help").inner_text()
        pg.keyboard.press("o")
        assert pg.locator("#overview li button").all_inner_texts() == [
            marked(f"{CLIPS[s][0]}.title") for s in ORDER]
        assert pg.locator("#overview h2").inner_text() == marked("page.overview")
        pg.keyboard.press("Escape")
        # the speaker window: a beat, the next beat, then the next clip and the last
        with context.expect_page() as opened:
            pg.keyboard.press("s")
        notes = opened.value
        notes.wait_for_function("document.body.dataset.beat === 'SpaceDeformation/0'")
        assert notes.title() == marked("page.speaker") + " · " + marked("lesson.title")
        speaker = notes.locator("#speaker")
        assert speaker.locator(".title").inner_text() == marked("space_deformation.title")
        assert speaker.locator(".say").inner_text() == marked("say SpaceDeformation 1")
        assert speaker.locator(".next").inner_text() == marked("say SpaceDeformation 2")
        assert speaker.locator(".question").inner_text() == marked("page.ask.space_deformation")
        assert speaker.locator(".step").inner_text() == marked("page.step")
        assert speaker.locator(".state").inner_text() == marked("page.ready")
        pg.bring_to_front()
        pg.keyboard.press("End")
        notes.wait_for_function("document.body.dataset.beat === 'SpaceDeformation/2'")
        assert speaker.locator(".next").inner_text() == marked("page.next_clip") + " " + marked("worked_example.title")
        pg.keyboard.press("n")
        pg.keyboard.press("n")
        pg.keyboard.press("End")
        notes.wait_for_function("document.body.dataset.beat === 'DotProductSoftmax/1'")
        assert speaker.locator(".next").inner_text() == marked("page.last")
        for window in (pg, notes):
            assert_nothing_ran(window)
    finally:
        context.close()
    assert not errors, errors


def test_the_page_script_writes_no_markup():
    """page.js puts text into the page as text: no HTML parser is reached from it."""
    script = (Path(page.__file__).parent / "page.js").read_text(encoding="utf-8")
    assert not re.findall(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|"
                          r"DOMParser|srcdoc", script)


def test_a_font_name_stays_one_css_string(browser):
    """A row's font, whatever its characters, is one family name in one rule
    (Chromium's own CSS parser reads it back; CSS.escape says what it must be)."""
    from qkv_lens import languages
    tables = languages.current()
    row = dict(tables.rows["en"])
    hostile = ['a"; } body { display: none } :lang(en) { x: "', "</style><script>alert(1)</script>", "b\\", "c\nd",
               "e'f", "/* g */"]
    tables.rows["en"] = dict(row, fonts=hostile)
    languages.install(tables)
    try:
        css = page.font_css(["en"])
    finally:
        tables.rows["en"] = row
        languages.install(tables)
    pg = browser.new_page()
    try:
        pg.set_content(f"<!DOCTYPE html><html><head><style>{css}</style></head><body></body></html>")
        rules, selector, got, want = pg.evaluate("""families => {
            const rules = [...document.styleSheets].flatMap(s => [...s.cssRules]);
            const e = document.createElement('p');
            e.style.fontFamily = [...families.map(f => CSS.escape(f)), 'sans-serif'].join(', ');
            return [rules.length, rules[0].selectorText, rules[0].style.fontFamily, e.style.fontFamily]; }""",
                                                 [*page.LATIN_FONTS, *hostile])
        assert (rules, selector) == (1, ":lang(en)")
        assert got == want
        assert pg.evaluate("[document.scripts.length, document.body.children.length]") == [0, 0]
    finally:
        pg.close()


# -- the speaker window is the one the lesson opened, and speaks with its secret -------------------

ATTACK = """<!DOCTYPE html><html><body><script>
  // a window of the attacker's named as the lesson's speaker window used to be, then the lesson
  if (location.search === '?via=opener') {   // the lesson in this very tab: the planted window's opener is the lesson
    window.open('drive.html?via=opener', 'qkv-lens-speaker');
    location.href = LESSON;
  } else {
    window.trap = window.open('about:blank', 'qkv-lens-speaker');
    window.lesson = window.open(LESSON, 'qkv-lens-lesson');
  }
</script></body></html>"""
DRIVE = """<!DOCTYPE html><html><body><script>
  // sends the lesson keys, hellos and a state, without the secret and with guesses of it
  var via = new URLSearchParams(location.search).get('via');
  var lesson = via === 'opener' ? window.opener : window.open('', 'qkv-lens-lesson');
  var guesses = [undefined, '', 'null', '00000000000000000000000000000000', 'qkv-lens-speaker'];
  window.sent = 0;
  setInterval(function () {
    guesses.forEach(function (token) {
      ['hello', 'key'].forEach(function (kind) {
        lesson.postMessage({ qkv: kind, key: 'ArrowRight', token: token }, '*');
        lesson.postMessage({ qkv: kind, key: 'b', token: token }, '*');
        window.sent += 2;
      });
    });
  }, 50);
</script></body></html>"""


def speaker_page(context):
    """The window showing the speaker notes, once it shows them."""
    for _ in range(100):
        found = [p for p in context.pages if "speaker=1" in p.url]
        if found:
            found[0].wait_for_function("document.body.dataset.beat !== undefined")
            return found[0]
        context.pages[0].wait_for_timeout(50)
    raise AssertionError(f"no speaker window among {[p.url for p in context.pages]}")


def lesson_page(context):
    for _ in range(100):
        found = [p for p in context.pages if "present=1" in p.url]
        if found:
            found[0].wait_for_function("document.body.dataset.beat === 'SpaceDeformation/0'")
            return found[0]
        context.pages[0].wait_for_timeout(50)
    raise AssertionError(f"no lesson among {[p.url for p in context.pages]}")


@pytest.mark.parametrize("via", ["name", "opener"])
def test_a_planted_window_cannot_drive_the_class_screen(site, browser, tmp_path, via):
    """A page that opens a window named like the speaker window, then the
    lesson (in a window of its own, or in its own tab), and sends keys from
    that window: the lesson never takes it for its speaker window, and the
    speaker window it opens itself still steps it."""
    lesson_url = (site / "index.html").as_uri() + "?lang=en&present=1"
    (tmp_path / "attack.html").write_text(ATTACK.replace("LESSON", json.dumps(lesson_url)), encoding="utf-8")
    (tmp_path / "drive.html").write_text(DRIVE, encoding="utf-8")
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    errors: list[str] = []
    context.on("weberror", lambda e: errors.append(str(e.error)))
    try:
        attacker = context.new_page()
        attacker.goto((tmp_path / "attack.html").as_uri() + ("?via=opener" if via == "opener" else ""))
        lesson = lesson_page(context)
        lesson.evaluate("window.heard = 0; addEventListener('message', () => { window.heard++; })")
        lesson.bring_to_front()
        lesson.keyboard.press("s")                  # the presenter opens the speaker window
        notes = speaker_page(context)
        if via == "name":                           # the attacker takes over the window it planted
            attacker.evaluate("trap.location.href = 'drive.html'")
        lesson.wait_for_function("window.heard >= 200", timeout=10000)
        assert state(lesson) == ("SpaceDeformation/0", "ready")
        assert not lesson.evaluate("document.body.classList.contains('blank')")
        # the lesson's own speaker window still steps it
        notes.bring_to_front()
        notes.keyboard.press("ArrowRight")
        lesson.wait_for_function("document.body.dataset.state === 'playing'")
        notes.wait_for_function("document.body.dataset.state !== 'ready'")
    finally:
        context.close()
    assert not errors, errors


def test_the_speaker_window_takes_state_only_with_its_secret(open_page, browser):
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    try:
        pg = open_page("?lang=en&present=1", context=context)
        with context.expect_page() as opened:
            pg.keyboard.press("s")
        notes = opened.value
        notes.wait_for_function("document.body.dataset.beat === 'SpaceDeformation/0'")
        notes.evaluate("window.heard = 0; addEventListener('message', () => { window.heard++; })")
        name, secret = notes.evaluate("[window.name, location.hash.slice(1)]")
        assert name != "qkv-lens-speaker" and len(secret) >= 32
        # from the presenting window itself (the right source), a state without the secret or with another
        tell = """([name, token]) => { const w = window.open('', name);
            w.postMessage({ qkv: 'state', lang: 'en', scene: 2, beat: 1, status: 'done', blank: true,
                            captions: true, started: 0, token: token }, '*'); }"""
        for token in (None, "", "0" * len(secret), secret.upper()):
            pg.evaluate(tell, [name, token])
        notes.wait_for_function("window.heard >= 4")
        assert notes.evaluate("document.body.dataset.beat") == "SpaceDeformation/0"
        pg.evaluate(tell, [name, secret])           # with it: followed (the message was right otherwise)
        notes.wait_for_function("document.body.dataset.beat === 'DotProductSoftmax/1'")
        # a second presenting window has a secret of its own
        other = open_page("?lang=en&present=1", context=context)
        with context.expect_page() as opened:
            other.keyboard.press("s")
        other_notes = opened.value
        other_notes.wait_for_function("document.body.dataset.beat !== undefined")
        assert other_notes.evaluate("[window.name, location.hash.slice(1)]") != [name, secret]
    finally:
        context.close()


def test_the_caption_track_shows_the_narration_as_written(site, tmp_path, browser):
    """Narration WebVTT would take for tags, entities or a timing line is, in
    Chromium's own reading of the track, the narration as written."""
    from qkv_lens.app.subtitles import srt_to_vtt
    said = ["a<b: 1 < 2 & 3 > 2", "x --> y", "<c.red>tag</c> <v Bob>hi</v> &amp; &lt;", "W_Q · √d_k\nline two"]
    subrip = "".join(f"{i + 1}\n00:00:0{i},000 --> 00:00:0{i},900\n{text}\n\n" for i, text in enumerate(said))
    out = copy_site(site, tmp_path / "renders")
    (out / "en" / "480p15" / "WorkedExample.vtt").write_text(srt_to_vtt(subrip), encoding="utf-8")
    page.build(out, CHAPTERS)
    pg = browser.new_page()
    try:
        pg.goto((out / "index.html").as_uri() + "?lang=en")
        track = "document.querySelector('#en-WorkedExample video').textTracks[0]"
        pg.evaluate(f"{track}.mode = 'hidden'")
        pg.wait_for_function(f"{track}.cues && {track}.cues.length >= {len(said)}")
        cues = pg.evaluate(f"[...{track}.cues].map(c => [c.startTime, c.text, c.getCueAsHTML().textContent])")
    finally:
        pg.close()
    assert [c[0] for c in cues] == [0, 1, 2, 3]
    assert [c[2] for c in cues] == said                      # what the viewer reads
    assert [html.unescape(c[1]) for c in cues] == said       # the cue text, its references resolved


# -- presenting: captions are never covered, and a paused beat shows its own -----------------------

@pytest.fixture(scope="module")
def cued_site(site, tmp_path_factory) -> Path:
    """The site with each clip's subtitles made of its beats' cues (as a
    render writes them: one cue ends where the next starts, at a beat's edge too)."""
    import shutil

    from qkv_lens.app.subtitles import srt_to_vtt
    out = tmp_path_factory.mktemp("cued") / "renders"
    shutil.copytree(site, out)
    for lang in ("zh", "en"):
        for scene, (_, ends) in CLIPS.items():
            cues = [c for b in beats_doc(scene, lang, ends)["beats"] for c in b["cues"]]
            srt = "".join(f"{i + 1}\n{stamp(c['start'])} --> {stamp(c['end'])}\n{c['text']}\n\n"
                          for i, c in enumerate(cues))
            (out / lang / "480p15" / f"{scene}.vtt").write_text(srt_to_vtt(srt), encoding="utf-8")
    page.build(out, CHAPTERS)
    return out


def stamp(seconds: float) -> str:
    ms = round(seconds * 1000)
    return f"00:00:{ms // 1000:02d},{ms % 1000:03d}"


def shown_cues(pg) -> list[str]:
    """The texts of the active cues of the current clip's showing track, once its seek is done."""
    return pg.evaluate("""() => new Promise(done => {
        const v = document.querySelector('figure.current video');
        const read = () => { const t = [...v.textTracks].find(x => x.mode === 'showing');
            done([...t.activeCues].map(c => c.text)); };
        if (v.seeking) v.addEventListener('seeked', () => setTimeout(read, 50), {once: true});
        else setTimeout(read, 50); })""")


def beat_cues(scene: str, beat: int, lang: str = "en") -> list[str]:
    return [c["text"] for c in beats_doc(scene, lang, CLIPS[scene][1])["beats"][beat]["cues"]]


def test_a_paused_beat_shows_its_own_caption(cued_site, browser):
    """Cued at a beat (by ←, a reload, Home, End, after playing it), the
    paused clip shows that beat's caption alone: never the cue of the beat
    before, which ends where this one starts."""
    pg = browser.new_page(viewport={"width": 1000, "height": 700})
    try:
        pg.goto((cued_site / "index.html").as_uri() + "#en-SpaceDeformation/1")
        pg.wait_for_function("document.querySelector('figure.current video').readyState >= 2")
        assert state(pg) == ("SpaceDeformation/1", "ready")
        first, last = beat_cues("SpaceDeformation", 1)[0], beat_cues("SpaceDeformation", 1)[-1]
        assert shown_cues(pg) == [first]
        assert 1.0 <= current_video(pg)["t"] < 1.0 + 1 / FPS            # the beat's own first frame
        play_beat(pg, "ArrowRight", "SpaceDeformation/1", 2.0)
        assert shown_cues(pg) == [last]
        pg.keyboard.press("ArrowLeft")
        assert state(pg) == ("SpaceDeformation/0", "ready")
        assert shown_cues(pg) == [beat_cues("SpaceDeformation", 0)[0]]
        play_beat(pg, "ArrowRight", "SpaceDeformation/0", 1.0)
        play_beat(pg, "ArrowRight", "SpaceDeformation/1", 2.0)
        pg.keyboard.press("ArrowRight")                                  # the third beat plays
        pg.keyboard.press("ArrowLeft")                                   # back while it plays
        assert state(pg) == ("SpaceDeformation/1", "ready")
        assert shown_cues(pg) == [first]
        pg.reload()
        pg.wait_for_function("document.querySelector('figure.current video').readyState >= 2")
        assert state(pg) == ("SpaceDeformation/1", "ready")
        assert shown_cues(pg) == [first]
        pg.keyboard.press("End")
        assert shown_cues(pg) == [beat_cues("SpaceDeformation", 2)[-1]]
        pg.keyboard.press("n")
        pg.keyboard.press("ArrowRight")
        pg.keyboard.press("ArrowLeft")                                   # back across the clip: its last beat
        assert state(pg) == ("SpaceDeformation/2", "ready")
        assert shown_cues(pg) == [beat_cues("SpaceDeformation", 2)[0]]
    finally:
        pg.close()


def cue_boxes(pg) -> list[dict]:
    """The boxes of the caption cues Chromium draws (in the video's
    user-agent shadow tree, which only the DevTools protocol reaches)."""
    cdp = pg.context.new_cdp_session(pg)
    try:
        found = []

        def walk(node: dict) -> None:
            attrs = node.get("attributes", [])
            if dict(zip(attrs[::2], attrs[1::2])).get("pseudo") == "cue":
                found.append(node["nodeId"])
            for child in node.get("children", []) + node.get("shadowRoots", []):
                walk(child)

        walk(cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})["root"])
        boxes = []
        for node in found:
            try:
                quad = cdp.send("DOM.getBoxModel", {"nodeId": node})["model"]["border"]
            except Exception:  # noqa: BLE001 - a cue of a clip that is not drawn has no box
                continue
            boxes.append({"x": quad[0], "y": quad[1], "width": quad[2] - quad[0], "height": quad[5] - quad[1]})
        return boxes
    finally:
        cdp.detach()


def overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


@pytest.mark.parametrize("size", [(1000, 700), (1920, 1080), (1400, 600), (390, 844)])
def test_the_key_help_never_covers_a_caption(cued_site, browser, size):
    width, height = size
    pg = browser.new_page(viewport={"width": width, "height": height})
    try:
        pg.goto((cued_site / "index.html").as_uri() + "?lang=en#en-WorkedExample/1")
        pg.wait_for_function("document.querySelector('figure.current video').readyState >= 2")
        assert pg.locator("#help").is_visible()                         # shown on entering
        assert len(shown_cues(pg)) == 1
        boxes = cue_boxes(pg)
        help_box = pg.locator("#help").bounding_box()
        assert boxes and help_box["height"] > 0
        for box in boxes:
            assert box["y"] + box["height"] <= height, box                # the caption is on screen
            assert not overlap(box, help_box), (box, help_box)
        pg.keyboard.press("ArrowRight")                                  # any key hides the help
        assert not pg.locator("#help").is_visible()
        pg.keyboard.press("?")                                           # and ? shows it again
        pg.wait_for_function("document.body.dataset.state === 'done'", timeout=8000)
        assert len(shown_cues(pg)) == 1
        assert all(not overlap(box, pg.locator("#help").bounding_box()) for box in cue_boxes(pg))
    finally:
        pg.close()


def test_escape_closes_the_key_help_first(open_page):
    pg = open_page("?lang=en&present=1")
    assert pg.locator("#help").is_visible()
    pg.keyboard.press("Escape")
    assert not pg.locator("#help").is_visible()
    assert state(pg) == ("SpaceDeformation/0", "ready")                 # still presenting
    pg.keyboard.press("Escape")
    assert pg.evaluate("document.body.dataset.beat") is None


def test_the_overview_reads_from_the_back_of_the_room(open_page, browser):
    """At 1080p every text of the overview is at least 24 px."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        pg = open_page("?lang=en&present=1", context=context)
        pg.keyboard.press("o")
        sizes = pg.evaluate("""() => [...document.querySelectorAll('#overview, #overview *')]
            .filter(e => e.getClientRects().length && (e.tagName === 'INPUT'
                || [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())))
            .map(e => [e.tagName + ' ' + (e.textContent || '').slice(0, 20),
                       parseFloat(getComputedStyle(e).fontSize)])""")
        assert len(sizes) >= 2 + len(ORDER)                              # the heading, the label, each clip
        assert all(size >= 24 for _, size in sizes), sizes
    finally:
        context.close()
