"""Checkpoints on the lesson page (issue 41), in real Chromium: learner mode
(a clip stops at its checkpoint, asks, keeps the answer, says right or wrong
with the feedback sentence, then plays the beat that shows the answer; a
score under the clip; keyboard, touch and a live region), the switch that
turns it off, and presenter mode (the question as a title card, its answer
only in the speaker window until A reveals it)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qkv_lens.app import page
from qkv_lens.texts import tr
from tests.checkpoint_site import make_site, the_checkpoints
from tests.test_page import CHAPTERS, lesson_data

ASKED = the_checkpoints()
WHICH = ASKED["SpaceDeformation"][1]      # a choice, before beat 2 (index 1)
FLAT = ASKED["SpaceDeformation"][2]       # a number, before beat 3
THIRD = ASKED["WorkedExample"][2]         # a number, before beat 3
HAIR = 0.002


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = make_site(tmp_path_factory.mktemp("renders"))
    page.build(out, CHAPTERS, language="en")
    return out


def open_site(context, site: Path, query: str = "", **kwargs):
    pg = context(**kwargs).new_page()
    pg.goto((site / "index.html").as_uri() + query)
    return pg


def video(pg, scene: str) -> dict:
    return pg.evaluate("""s => { const v = document.querySelector(`#en-${s} video`);
        return {t: v.currentTime, paused: v.paused}; }""", scene)


def play_to_question(pg, scene: str, beat: int, start_at: float = 0.0) -> None:
    """Play ``scene``'s clip from ``start_at`` until it stops at the checkpoint before beat ``beat``."""
    pg.evaluate("""([s, t]) => { const v = document.querySelector(`#en-${s} video`);
        v.currentTime = t; return v.play(); }""", [scene, start_at])
    pg.wait_for_function(f"document.body.dataset.asking === '{scene}/{beat}'", timeout=8000)


def test_the_page_carries_each_checkpoint_on_the_beat_that_answers_it(site, tmp_path):
    data = lesson_data(site / "index.html")
    assert data["asking"] is True
    by_scene = {c["scene"]: c for c in data["clips"]["en"]}
    for scene, asked in ASKED.items():
        beats = by_scene[scene]["beats"]
        assert [i for i, b in enumerate(beats) if "ask" in b] == sorted(asked)
        for i, check in asked.items():
            ask = beats[i]["ask"]
            assert ask["key"] == check["key"] and page.math_runs(check["question"]) == ask["q"]
            if "choices" in check:
                assert ask["options"] == check["choices"] and ask["answer"] == check["answer"]
            else:
                assert ask["number"] == check["number"] and ask["places"] == check["places"]
    # checkpoints = false: the same renders, no question anywhere on the page
    import shutil
    off = tmp_path / "off"
    shutil.copytree(site, off)
    page.build(off, CHAPTERS, language="en", checkpoints=False)
    data = lesson_data(off / "index.html")
    assert data["asking"] is False
    assert not any("ask" in b for c in data["clips"]["en"] for b in c["beats"])
    text = (off / "index.html").read_text(encoding="utf-8")
    assert 'id="learner"' not in text and 'class="cp-score"' not in text


def test_a_clip_stops_at_its_checkpoint_asks_and_plays_the_answer(context, site):
    pg = open_site(context, site, "?lang=en")
    score = pg.locator("#en-WorkedExample .cp-score")
    assert score.inner_text() == tr("en", "page.cp_score", right=0, total=1)
    play_to_question(pg, "WorkedExample", 2)
    # stopped at the end of the beat before the one that shows the answer
    v = video(pg, "WorkedExample")
    assert v["paused"] and v["t"] == pytest.approx(2.0 - HAIR, abs=1e-3)
    box = pg.locator("#en-WorkedExample .checkpoint")
    assert box.get_attribute("role") == "dialog"
    heading = box.get_attribute("aria-labelledby")
    assert pg.locator(f"#{heading}").inner_text() == tr("en", "page.cp_heading")
    assert pg.locator("#" + box.get_attribute("aria-describedby")).inner_text() == THIRD["question"]
    # a number, its rounding said; the field has the focus
    field = box.locator("input")
    assert pg.evaluate("document.activeElement.tagName") == "INPUT"
    label = box.locator("label").inner_text()
    assert label == tr("en", "page.cp_your") + " (" + tr("en", "page.cp_whole") + ")"
    assert pg.locator("#cp-live").inner_text() == tr("en", "page.cp_heading") + ": " + THIRD["question"]
    # not a number: said, nothing kept
    field.fill("two")
    field.press("Enter")
    assert box.locator(".cp-hint").inner_text() == tr("en", "page.cp_not_number")
    assert pg.evaluate("document.body.dataset.answered") is None
    # a wrong number: "Not quite." and the feedback sentence, in the live region too
    field.fill("7")
    field.press("Enter")
    verdict = tr("en", "page.cp_wrong") + " " + THIRD["wrong"]
    assert box.locator(".cp-verdict").inner_text() == verdict
    assert not pg.locator(".checkpoint u, .checkpoint img").count()     # a colleague's text is text
    assert pg.locator("#cp-live").inner_text() == verdict
    assert score.inner_text() == tr("en", "page.cp_score", right=0, total=1)
    assert field.is_disabled()
    # Enter on the focused button plays on into the beat that shows the answer
    assert pg.evaluate("document.activeElement.className") == "cp-continue"
    pg.keyboard.press("Enter")
    pg.wait_for_function("document.querySelector('#en-WorkedExample video').currentTime > 2.3", timeout=8000)
    assert pg.evaluate("document.body.dataset.asking") is None and not box.count()
    # the answer is kept: after a reload the clip plays through and the score stays
    kept = pg.evaluate("Object.entries(localStorage).filter(([k]) => k.startsWith('qkv-lens.answers.'))")
    assert [json.loads(v) for _, v in kept] == [{"en/WorkedExample/b3": "7"}]
    pg.reload()
    assert pg.locator("#en-WorkedExample .cp-score").inner_text() == tr("en", "page.cp_score", right=0, total=1)
    pg.evaluate("() => { const v = document.querySelector('#en-WorkedExample video'); v.currentTime = 1.5; "
                "return v.play(); }")
    pg.wait_for_function("document.querySelector('#en-WorkedExample video').currentTime > 2.4", timeout=8000)
    assert pg.evaluate("document.body.dataset.asking") is None


def test_choices_by_number_key_and_by_touch(context, site):
    pg = open_site(context, site, "?lang=en", has_touch=True)
    play_to_question(pg, "SpaceDeformation", 1)
    box = pg.locator("#en-SpaceDeformation .checkpoint")
    buttons = box.locator("button.choice")
    # the choices are the lesson's names, as text (markup in a name is shown, never run)
    assert buttons.evaluate_all("bs => bs.map(b => b.querySelector('.t').textContent)") == WHICH["choices"]
    assert buttons.evaluate_all("bs => bs.map(b => b.querySelector('.n').textContent)") == ["1", "2", "3", "4"]
    assert not pg.locator("#en-SpaceDeformation .checkpoint i").count()
    assert pg.evaluate("document.activeElement.classList.contains('choice')")
    assert box.locator(".cp-hint").inner_text() == tr("en", "page.cp_choose")
    for b in buttons.all():              # a finger's target
        size = b.bounding_box()
        assert size["width"] >= 44 and size["height"] >= 44
    pg.keyboard.press(str(WHICH["answer"] + 1))       # the right one, by its number
    assert box.locator(".cp-verdict").inner_text() == tr("en", "page.cp_right")
    assert buttons.nth(WHICH["answer"]).get_attribute("aria-pressed") == "true"
    assert pg.evaluate("document.body.dataset.answered") == "right"
    pg.keyboard.press("1")                            # answered: another key changes nothing
    assert buttons.nth(0).get_attribute("aria-pressed") is None
    box.locator(".cp-continue").tap()
    # the next checkpoint (a number), answered right by touch and the on-screen keyboard
    pg.wait_for_function("document.body.dataset.asking === 'SpaceDeformation/2'", timeout=8000)
    box = pg.locator("#en-SpaceDeformation .checkpoint")
    box.locator("input").fill(" 0,0 ")               # a comma before the decimals, spaces: read as typed
    box.locator("form button").tap()
    assert box.locator(".cp-verdict").inner_text() == tr("en", "page.cp_right")
    assert pg.locator("#en-SpaceDeformation .cp-score").inner_text() == tr("en", "page.cp_score", right=2, total=2)


def test_learner_mode_can_be_turned_off_and_stays_off(context, site):
    pg = open_site(context, site, "?lang=en")
    switch = pg.locator("#learner input")
    assert switch.is_checked()
    assert pg.locator("#learner").inner_text().strip() == tr("en", "page.learner")
    switch.uncheck()
    assert not pg.locator("#en-WorkedExample .cp-score").is_visible()
    pg.evaluate("() => { const v = document.querySelector('#en-WorkedExample video'); v.currentTime = 1.7; "
                "return v.play(); }")
    pg.wait_for_function("document.querySelector('#en-WorkedExample video').currentTime > 2.5", timeout=8000)
    assert pg.evaluate("document.body.dataset.asking") is None
    pg.reload()
    assert not pg.locator("#learner input").is_checked()
    pg.locator("#learner input").check()
    play_to_question(pg, "WorkedExample", 2, start_at=1.7)
    pg.locator("#learner input").uncheck()            # off with a question open: it goes
    assert not pg.locator(".checkpoint").count() and pg.evaluate("document.body.dataset.asking") is None


def test_presenter_shows_the_question_and_reveals_its_answer_on_a_key(context, site):
    ctx = context()
    pg = ctx.new_page()
    pg.goto((site / "index.html").as_uri() + "?lang=en&present=1#en-SpaceDeformation/0")
    pg.keyboard.press("Escape")                       # the key help shown on entering
    assert tr("en", "page.key_answer") in pg.evaluate("document.getElementById('help').textContent")
    pg.keyboard.press("ArrowRight")                   # beat 1 plays ...
    pg.wait_for_function("document.body.dataset.state === 'done'", timeout=8000)
    pg.keyboard.press("ArrowRight")                   # ... and beat 2 waits on its question
    assert pg.evaluate("[document.body.dataset.beat, document.body.dataset.state, document.body.dataset.card]") == [
        "SpaceDeformation/1", "ready", "ask"]
    card = pg.locator("#card")
    assert card.is_visible()
    assert card.locator(".question").inner_text() == WHICH["question"]
    assert card.locator(".choices li").all_text_contents() == WHICH["choices"]
    answer = tr("en", "page.cp_answer") + " " + WHICH["choices"][WHICH["answer"]]
    assert answer not in pg.evaluate("document.body.innerText")
    assert not card.locator(".choices li.right").count()
    # the speaker window has the answer
    with ctx.expect_page() as opened:
        pg.keyboard.press("s")
    notes = opened.value
    notes.wait_for_function("document.body.dataset.beat === 'SpaceDeformation/1'")
    assert notes.locator("#speaker .cp").is_visible()
    assert notes.locator("#speaker .cp-q").inner_text() == WHICH["question"]
    assert notes.locator("#speaker .cp-a").inner_text() == WHICH["choices"][WHICH["answer"]]
    # A, pressed in the speaker window, reveals it on the class's screen
    notes.keyboard.press("a")
    pg.wait_for_function("document.querySelector('#card .answer').textContent !== ''")
    assert card.locator(".answer").inner_text() == answer
    assert card.locator(".choices li.right").inner_text() == WHICH["choices"][WHICH["answer"]]
    assert answer in pg.locator("#live").inner_text()
    # → plays the beat that shows the answer
    pg.bring_to_front()
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate("[document.body.dataset.state, document.body.dataset.card]") == ["playing", ""]
    assert not card.is_visible()
    pg.wait_for_function("document.body.dataset.state === 'done'", timeout=8000)
    # back to it: the question again, its answer hidden again
    pg.keyboard.press("End")
    pg.keyboard.press("ArrowLeft")
    assert pg.evaluate("[document.body.dataset.beat, document.body.dataset.card]") == ["SpaceDeformation/1", "ask"]
    assert card.locator(".answer").inner_text() == ""
    # a number question says its rounding on the card
    pg.keyboard.press("n")
    pg.keyboard.press("End")
    pg.keyboard.press("ArrowLeft")
    assert pg.evaluate("document.body.dataset.beat") == "WorkedExample/2"
    assert card.locator(".round").inner_text() == tr("en", "page.cp_whole")
    pg.keyboard.press("a")
    assert card.locator(".answer").inner_text() == tr("en", "page.cp_answer") + " " + f"{THIRD['number']:g}"


def test_learner_mode_stays_out_of_presenter_mode(context, site):
    pg = open_site(context, site, "?lang=en")
    play_to_question(pg, "WorkedExample", 2, start_at=1.6)
    pg.keyboard.press("p")                            # the question has the keys: no presenter mode under it
    assert pg.evaluate("document.body.classList.contains('presenting')") is False
    pg.locator("#present-btn").click()                # the button leaves the question for presenter mode
    assert pg.evaluate("document.body.dataset.asking") is None and not pg.locator(".checkpoint").count()
    assert re.fullmatch(r"\w+/0", pg.evaluate("document.body.dataset.beat"))
