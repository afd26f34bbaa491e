"""The lesson page for every learner (issue 42), in real Chromium: each
clip's descriptions track and its transcript's descriptions, the
"describe" switch that speaks them (a stubbed ``speechSynthesis`` records
what is said and lets the test end an utterance), pausing the clip while a
description runs past its beat and playing on when it ends; and WCAG 2.1
AA: axe-core (npm, ``.npm/``, injected into the page) finds nothing on the
lesson page, presenter mode, the overview and the speaker window, a
focused control shows its outline, and the page's text colours read at
4.5:1 on their backgrounds."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from qkv_lens.app import page
from qkv_lens.beats import Beat, Cue
from qkv_lens.texts import tr
from tests.checkpoint_site import make_site
from tests.helpers import ROOT
from tests.test_page import CHAPTERS, lesson_data

LONG = "W is two by two: first row 1, 0; second row 0, 1. " * 3   # longer than a one-second beat when spoken
DESCRIBED = {
    "SpaceDeformation": {0: ("The plane: a grid, i green and j red.", 0.0), 2: ("W_Q <b>flat</b> & done.", 0.5)},
    "WorkedExample": {0: (LONG, 0.0), 1: ("y is 3, 4.", 0.0), 3: ("The sum is 7.", 0.4)},
}
AXE = ROOT / ".npm" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

# speechSynthesis as the test sees it: every utterance spoken is kept in window.said; the test ends one
STUB = """(() => {
  window.said = []; window.hushed = 0;
  const synth = { speak(u) { window.said.push(u); }, cancel() { window.hushed++; }, pause() {}, resume() {},
                  getVoices() { return []; }, speaking: false, pending: false };
  Object.defineProperty(window, 'speechSynthesis', { value: synth, configurable: true });
})();"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = make_site(tmp_path_factory.mktemp("renders"), described=DESCRIBED)
    page.build(out, CHAPTERS, language="en")
    return out


@pytest.fixture
def context(context):
    """conftest's ``context``, each page with STUB first unless ``stub=False``."""
    return lambda stub=True, **kwargs: context(init_script=STUB if stub else None, **kwargs)


def open_site(context, site: Path, query: str = "?lang=en", **kwargs):
    pg = context(**kwargs).new_page()
    pg.goto((site / "index.html").as_uri() + query)
    return pg


def quiet(scene: str, i: int) -> tuple[float, float]:
    """When beat ``i`` of ``scene``'s description is spoken (``Beat.quiet``, as the site's beats file has it)."""
    from tests.checkpoint_site import CLIPS
    ends = CLIPS[scene][1]
    start = ends[i - 1] if i else 0.0
    text, voice = DESCRIBED[scene][i]
    return Beat("b", "k", start, ends[i], "s", (Cue(start, ends[i], "s"),), voice, describe=text).quiet


# -- descriptions: the track, the transcript ---------------------------------------------

def test_each_clip_has_a_descriptions_track_and_its_transcript_the_descriptions(context, site):
    pg = open_site(context, site)
    for scene, described in DESCRIBED.items():
        cues = pg.evaluate("""s => { const v = document.querySelector(`#en-${s} video`);
            const t = [...v.textTracks].find(x => x.kind === 'descriptions');
            t.mode = 'hidden';
            return new Promise(done => { const read = () => t.cues && t.cues.length
                ? done([t.label, t.language, [...t.cues].map(c => [c.id, c.startTime, c.endTime,
                                                                   c.getCueAsHTML().textContent])])
                : setTimeout(read, 20); read(); }); }""", scene)
        label, lang, found = cues
        assert (label, lang) == (tr("en", "export.described_track"), "en")
        want = [[f"d{i}", *quiet(scene, i), text] for i, (text, _) in sorted(described.items())]
        assert [[c[0], pytest.approx(c[1], abs=1e-3), pytest.approx(c[2], abs=1e-3), c[3]] for c in found] == want
        items = pg.locator(f"#en-{scene} details.transcript li")
        for i in range(items.count()):
            mark = items.nth(i).locator(".described")
            if i in described:      # marked as a description, after the beat's sentence; W_Q with its subscript
                text = described[i][0].replace("W_Q", "WQ")
                assert mark.text_content() == f"{tr('en', 'page.described')} {text}"
            else:
                assert mark.count() == 0
    # the data the script speaks from, and the quiet part (after the voice and a breath) in it
    beats = {c["scene"]: c["beats"] for c in lesson_data(site / "index.html")["clips"]["en"]}
    assert beats["SpaceDeformation"][2]["quiet"] == pytest.approx([2.7, 3.0])
    assert beats["SpaceDeformation"][2]["describe"] == page.math_runs("W_Q <b>flat</b> & done.")


def test_a_clip_without_descriptions_has_no_such_track_and_no_switch(tmp_path, browser):
    out = make_site(tmp_path / "plain")
    page.build(out, CHAPTERS, language="en")
    text = (out / "index.html").read_text(encoding="utf-8")
    assert 'kind="descriptions"' not in text and 'id="describe"' not in text


# -- the describe switch ------------------------------------------------------------------

def play_from(pg, scene: str, t: float) -> None:
    pg.evaluate("""([s, t]) => { const v = document.querySelector(`#en-${s} video`); v.currentTime = t;
        return v.play(); }""", [scene, t])


def video(pg, scene: str) -> dict:
    return pg.evaluate("""s => { const v = document.querySelector(`#en-${s} video`);
        return {t: v.currentTime, paused: v.paused}; }""", scene)


def spoken(pg) -> list[dict]:
    return pg.evaluate("window.said.map(u => ({text: u.text, lang: u.lang}))")


def test_the_switch_speaks_each_description_and_the_clip_waits_for_a_long_one(context, site):
    pg = open_site(context, site)
    switch = pg.get_by_role("checkbox", name=tr("en", "page.describe"))
    assert not switch.is_checked()
    pg.evaluate("localStorage.setItem('qkv-lens.learner', '0')")      # no checkpoint stops the clip here
    pg.reload()
    play_from(pg, "WorkedExample", 0.0)
    pg.wait_for_timeout(1500)
    assert spoken(pg) == []                                            # off: nothing is said
    pg.evaluate("document.querySelector('#en-WorkedExample video').pause()")
    switch.focus()
    pg.keyboard.press("Space")                                         # by keyboard
    assert switch.is_checked()
    play_from(pg, "WorkedExample", 0.0)
    pg.wait_for_function("window.said.length === 1")
    assert spoken(pg) == [{"text": LONG, "lang": "en"}]
    # the description is still being said when its beat ends (1.0 s): the clip waits there
    pg.wait_for_function("document.body.dataset.describing === 'held'", timeout=5000)
    v = video(pg, "WorkedExample")
    assert v["paused"] and 0.9 <= v["t"] <= 1.0
    pg.wait_for_timeout(400)
    assert video(pg, "WorkedExample")["t"] == pytest.approx(v["t"], abs=1e-3) and len(spoken(pg)) == 1
    pg.evaluate("window.said[0].dispatchEvent(new Event('end'))")      # the voice ends: the clip plays on
    pg.wait_for_function("!document.querySelector('#en-WorkedExample video').paused")
    assert "describing" not in pg.evaluate("({...document.body.dataset})")
    # the next beat's description (at 1.0 s) is said as the clip plays into it, in the page's language
    pg.wait_for_function("window.said.length === 2", timeout=3000)
    assert spoken(pg)[1] == {"text": "y is 3, 4.", "lang": "en"}
    pg.evaluate("window.said[1].dispatchEvent(new Event('end'))")      # a short one: the clip never waits
    pg.wait_for_function("document.querySelector('#en-WorkedExample video').currentTime > 2.2", timeout=5000)
    assert not video(pg, "WorkedExample")["paused"]
    # beat 3's description comes after its voice and a breath (3.6 s): not yet at 3.5 s
    pg.evaluate("document.querySelector('#en-WorkedExample video').pause()")
    play_from(pg, "WorkedExample", 3.45)
    pg.wait_for_function("window.said.length === 3", timeout=3000)
    assert video(pg, "WorkedExample")["t"] >= quiet("WorkedExample", 3)[0] - 0.3
    assert spoken(pg)[2]["text"] == "The sum is 7."


def test_a_seek_stops_the_voice_and_the_switch_is_remembered(context, site):
    pg = open_site(context, site)
    pg.evaluate("localStorage.setItem('qkv-lens.learner', '0')")      # no checkpoint stops the clip here
    pg.reload()
    pg.get_by_role("checkbox", name=tr("en", "page.describe")).check()
    play_from(pg, "WorkedExample", 0.0)
    pg.wait_for_function("window.said.length === 1")
    hushed = pg.evaluate("window.hushed")
    play_from(pg, "WorkedExample", 2.5)                                # a seek: the description stops
    assert pg.evaluate("window.hushed") > hushed
    pg.reload()
    assert pg.get_by_role("checkbox", name=tr("en", "page.describe")).is_checked()
    pg.get_by_role("checkbox", name=tr("en", "page.describe")).uncheck()
    pg.reload()
    assert not pg.get_by_role("checkbox", name=tr("en", "page.describe")).is_checked()
    play_from(pg, "WorkedExample", 0.0)
    pg.wait_for_timeout(600)
    assert spoken(pg) == []


def test_without_speech_synthesis_the_switch_is_not_offered(context, site):
    pg = context(stub=False).new_page()
    pg.add_init_script("delete window.SpeechSynthesisUtterance; window.SpeechSynthesisUtterance = undefined;")
    pg.goto((site / "index.html").as_uri() + "?lang=en")
    assert not pg.locator("#describe").is_visible()
    assert pg.locator("#en-WorkedExample details.transcript .described").count() == 3   # the text is there


def test_presenter_mode_never_holds_a_beat_for_a_description(context, site):
    """A presenter steps beat by beat: a long description goes on, the beat stops where it ends."""
    pg = open_site(context, site, "?lang=en")
    pg.get_by_role("checkbox", name=tr("en", "page.describe")).check()
    pg.keyboard.press("p")
    pg.keyboard.press("n")                      # WorkedExample, beat 0
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("document.body.dataset.state === 'done'", timeout=8000)
    assert spoken(pg)[0]["text"] == LONG
    assert pg.evaluate("document.body.dataset.describing") == "speaking"
    pg.evaluate("window.said[0].dispatchEvent(new Event('end'))")
    pg.wait_for_timeout(300)
    assert pg.evaluate("document.body.dataset.state") == "done"
    assert pg.evaluate("document.querySelector('figure.current video').paused")
    # captions still toggle the subtitles alone
    modes = "[...document.querySelector('figure.current video').textTracks].map(t => [t.kind, t.mode])"
    pg.keyboard.press("c")
    assert pg.evaluate(modes) == [["subtitles", "hidden"], ["descriptions", "hidden"]]
    pg.keyboard.press("c")
    assert pg.evaluate(modes) == [["subtitles", "showing"], ["descriptions", "hidden"]]


# -- WCAG 2.1 AA: axe-core on every state of the page ----------------------------------------

def axe(pg) -> list[str]:
    """axe-core's WCAG 2.0/2.1 A and AA violations on ``pg`` as it is now: one line each (rule, nodes)."""
    if not pg.evaluate("typeof window.axe === 'object'"):
        pg.add_script_tag(path=str(AXE))
    found = pg.evaluate("t => axe.run(document, {runOnly: {type: 'tag', values: t}})"
                        ".then(r => r.violations.map(v => [v.id, v.help, v.nodes.map(n => n.target.join(' '))]))",
                        WCAG_AA)
    return [f"{rule} ({help}): {', '.join(nodes)}" for rule, help, nodes in found]


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> Path:
    """The site in English and Chinese: a language switch in the header."""
    out = tmp_path_factory.mktemp("both")
    for lang in ("zh", "en"):
        make_site(out, lang, described=DESCRIBED)
    page.build(out, CHAPTERS, language="en")
    return out


def test_axe_finds_nothing_on_the_page_a_question_presenter_mode_the_overview_or_the_speaker_window(context, both):
    assert AXE.is_file(), f"{AXE} is missing: run tools/bootstrap.sh"
    c = context()
    pg = c.new_page()
    pg.goto((both / "index.html").as_uri() + "?lang=en")
    pg.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")   # the transcripts too
    found = {"the lesson page": axe(pg)}
    play_from(pg, "WorkedExample", 1.5)                                # learner mode: the clip stops and asks
    pg.wait_for_function("document.body.dataset.asking === 'WorkedExample/2'", timeout=8000)
    found["a checkpoint asking"] = axe(pg)
    pg.locator(".checkpoint input").fill("12345")                     # a wrong number: the feedback shows
    pg.keyboard.press("Enter")
    pg.wait_for_function("document.body.dataset.answered === 'wrong'")
    found["a checkpoint answered"] = axe(pg)
    pg.goto((both / "index.html").as_uri() + "?lang=zh&present=1")
    pg.wait_for_function("document.body.classList.contains('help')")
    found["presenter mode (zh, its key help)"] = axe(pg)
    pg.keyboard.press("o")
    found["the overview"] = axe(pg)
    pg.keyboard.press("Escape")
    with c.expect_page() as opened:
        pg.keyboard.press("s")
    notes = opened.value
    notes.wait_for_function("document.body.dataset.beat === 'SpaceDeformation/0'")
    found["the speaker window"] = axe(notes)
    alone = c.new_page()                                               # before the presenter's first state
    alone.goto((both / "index.html").as_uri() + "?speaker=1")
    found["the speaker window, opened alone"] = axe(alone)
    assert found == {state: [] for state in found}


# -- keyboard: every control shows where the focus is -------------------------------------------

FOCUSED = """() => { const el = document.activeElement, s = getComputedStyle(el);
    return {tag: el.tagName, own: el.matches(':focus'), style: s.outlineStyle, width: parseFloat(s.outlineWidth),
            color: s.outlineColor, name: el.matches('video') ? el.getAttribute('aria-label') : null,
            text: (el.textContent || '').trim().slice(0, 40)}; }"""


def luminance(css: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def ratio(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_every_control_reached_by_tab_shows_a_visible_outline(context, both):
    """Tab through the page: each control, link, clip and transcript shows an outline at least 2 px
    wide at 3:1 against the page (WCAG 2.4.7, 1.4.11).  Inside a clip's own controls (the
    browser's, in the video's closed shadow tree) the browser draws the ring; Tab goes on past them."""
    pg = context().new_page()
    pg.goto((both / "index.html").as_uri() + "?lang=en")
    seen = []
    for _ in range(80):
        pg.keyboard.press("Tab")
        f = pg.evaluate(FOCUSED)
        if f["tag"] == "BODY":          # past the last control
            break
        if f["tag"] == "VIDEO" and not f["own"]:
            continue
        seen.append(f)
        assert f["style"] != "none" and f["width"] >= 2 and ratio(f["color"], "rgb(13, 17, 23)") >= 3, f
    tags = {f["tag"] for f in seen}
    assert f["tag"] == "BODY" and {"BUTTON", "INPUT", "A", "VIDEO", "SUMMARY"} <= tags, tags
    # a clip is named by its title for a screen reader
    assert {f["name"] for f in seen if f["tag"] == "VIDEO"} == {tr("en", "space_deformation.title"),
                                                               tr("en", "worked_example.title")}


# -- contrast: the page's text colours ------------------------------------------------------

def css_rules(css: str) -> list[tuple[str, dict[str, str]]]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return [(sel.strip(), dict(re.findall(r"([-\w]+)\s*:\s*([^;]+)", body)))
            for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css)]


def hex_rgb(value: str) -> str:
    h = re.search(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b", value).group(1)
    h = "".join(c * 2 for c in h) if len(h) == 3 else h
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


def test_the_pages_text_colours_read_at_4_5_to_1():
    """Every text colour page.css sets, against the background its rule sets, or else against every
    dark background of the page (the page, its panels, the speaker window): at least 4.5:1 (WCAG 1.4.3)."""
    rules = css_rules((ROOT / "qkv_lens" / "app" / "page.css").read_text(encoding="utf-8"))
    backgrounds = {hex_rgb(d[k]) for _, d in rules for k in ("background", "background-color")
                   if k in d and "#" in d[k]}
    dark = {b for b in backgrounds if luminance(b) < 0.05}
    assert "rgb(13, 17, 23)" in dark and len(dark) >= 4, dark
    low = []
    for selector, d in rules:
        if "color" not in d or "#" not in d["color"]:
            continue
        own = next((hex_rgb(d[k]) for k in ("background", "background-color") if k in d and "#" in d[k]), None)
        for bg in [own] if own else dark:
            if ratio(hex_rgb(d["color"]), bg) < 4.5:
                low.append(f"{selector}: {d['color']} on {bg}: {ratio(hex_rgb(d['color']), bg):.2f}")
    assert not low, low
