"""renders/index.html: the lesson page, built from the manifest.

Static HTML with its CSS and script inlined (``page.css``, ``page.js`` beside
this module) and relative links only, so it works opened from disk with no
network.  Subtitle tracks are inlined as data: URLs (browsers will not load
<track> files from a file:// page), and so are the beats: a JSON block with
every clip's beats and narration drives presenter mode (``?present=1`` or P).
The page is a lesson per language: the lesson's title and introduction
(``lesson_intro``), a table of contents with durations, per clip a question
to think about before playing, and links to the exports (each saying when
it is older than the clips, ``qkv_lens.app.joined``).  It opens in the
lesson's language; ``?lang=en`` and ``#en-WorkedExample`` open a language
at a clip, and the choice is remembered in localStorage.
A beat's checkpoint (``qkv_lens.beats.Ask``) rides with its beat: in learner
mode the clip stops before that beat and asks, and presenter mode shows it
as a title card (``checkpoints=False``, the lesson's key, leaves them out).
A beat's description (what its picture shows that its sentence does not
say) rides with it too: a descriptions track per clip (WebVTT, ``kind=
"descriptions"``, each cue the beat's quiet part, ``Beat.quiet``), which the
"describe" switch speaks with the browser's speech synthesis (no browser
voices such a track itself), and a line of the clip's transcript.
Each language shows, per scene, its best-quality render.  A .mov (the
transparent "mp4", which browsers cannot play) is shown as its poster,
linked to the file; gif and mov clips are left out of presenter mode.
A file the page needs that is missing or damaged, or a damaged manifest, is
a PageError and the previous page stays as it was.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from qkv_lens import beats as beats_file
from qkv_lens.app import joined, manifest
from qkv_lens.app.subtitles import cue_text
from qkv_lens.languages import TEXTS, current, language, offered
from qkv_lens.lesson import Chapter, defaults
from qkv_lens.registry import QUALITIES, by_class
from qkv_lens.store import Unsafe, inside, read_inside, regular_file, shown, write_atomic
from qkv_lens.texts import tr

QUALITY_RANK = {folder: i for i, folder in enumerate(QUALITIES.values())}
MIME = {"mp4": "video/mp4", "webm": "video/webm"}
BEATS = beats_file.SUFFIX
# the texts the script needs per language (presenter mode, title, footer, buttons)
UI_KEYS = ("title", "footer", "present", "step", "ready", "playing", "done", "next", "last", "think",
           "next_clip", "speaker", "timer", "clock", "blanked", "captions_off", "blocked", "leave", "overview",
           "goto", "transcript", "key_step", "key_back", "key_ends", "key_clip", "key_goto", "key_blank",
           "key_captions", "key_full", "key_speaker", "key_leave", "touch_step", "touch_back", "touch_leave",
           "learner", "cp_heading", "cp_choose", "cp_your", "cp_places", "cp_place", "cp_whole", "cp_check",
           "cp_not_number", "cp_right", "cp_wrong", "cp_continue", "cp_score", "cp_answer", "key_answer",
           "describe")


class PageError(Exception):
    """The page cannot be built: a damaged manifest or a missing file (one line)."""


def _asset(name: str) -> str:
    return resources.files("qkv_lens.app").joinpath(name).read_text(encoding="utf-8")


_SUB = re.compile(r"(?<=[A-Za-z0-9)])_(?:\{([^}]*)\}|([A-Za-z0-9]+))")
_SQRT = re.compile(r"\\sqrt\{([^}]*)\}|\\sqrt\b")


# a text as runs: str (text) and {"sub": str} (a subscript); page.js sets each as text, never as markup
Runs = list[str | dict[str, str]]


def math_runs(text: str) -> Runs:
    """``text`` with TeX-like math as plain typography, as runs of text:
    ``W_Q`` -> ["W", {"sub": "Q"}], ``√d_k`` -> ["√d", {"sub": "k"}],
    ``\\sqrt{x}`` -> ["√x"].  Every run is text, never markup."""
    text = _SQRT.sub(lambda m: "√" + (m.group(1) or ""), text)
    out: Runs = []
    last = 0
    for m in _SUB.finditer(text):
        out += [text[last:m.start()], {"sub": m.group(1) or m.group(2)}]
        last = m.end()
    out.append(text[last:])
    return [r for r in out if r]


def runs_html(runs: Runs) -> str:
    """``runs`` (``math_runs``) as HTML: each run escaped, subscripts in <sub>."""
    return "".join(html.escape(r) if isinstance(r, str) else f"<sub>{html.escape(r['sub'])}</sub>" for r in runs)


def math_html(text: str) -> str:
    """``text`` escaped for HTML, with TeX-like math as plain typography:
    ``W_Q`` -> W<sub>Q</sub>, ``√d_k`` -> √d<sub>k</sub>, ``\\sqrt{x}`` -> √x."""
    return runs_html(math_runs(text))


def clock(seconds: float) -> str:
    """A duration as m:ss, rounded to the nearest second."""
    s = round(seconds)
    return f"{s // 60}:{s % 60:02d}"


def best_entries(entries: dict[str, dict]) -> dict[str, dict[str, dict]]:
    """For each language, the best render of each scene: highest quality,
    then a browser-playable format."""
    fmt_rank = {"mp4": 0, "webm": 1, "gif": 2, "mov": 3}

    def rank(e: dict) -> tuple[int, int]:
        return -QUALITY_RANK.get(e["quality"], -1), fmt_rank.get(e["format"], 9)

    best: dict[str, dict[str, dict]] = {}
    for e in entries.values():
        cur = best.setdefault(e["language"], {}).get(e["scene"])
        if cur is None or rank(e) < rank(cur):
            best[e["language"]][e["scene"]] = e
    return best


SUBTITLE_BYTES = 4 << 20   # a clip's WebVTT is a few KiB


def _track_src(out_root: Path, vtt: str) -> str:
    """The subtitle track as a data: URL.  Browsers refuse <track> files
    from file:// pages (each file is its own origin), so the page carries
    the cues itself; the .vtt file stays beside the video for other uses.
    Read only inside ``out_root`` (no symlink out), UTF-8 text of bounded size."""
    data = read_inside(out_root, vtt, SUBTITLE_BYTES, "subtitle file")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise PageError(f"{shown(out_root / vtt)}: damaged subtitles (not UTF-8 text); render it again") from None
    return f"data:text/vtt;charset=utf-8;base64,{base64.b64encode(data).decode('ascii')}"


def _files(e: dict) -> dict[str, str]:
    """The entry's files by kind: "beats", else the extension."""
    return {("beats" if f.endswith(BEATS) else Path(f).suffix.lstrip(".")): f for f in e["files"]}


def ask_data(ask: beats_file.Ask) -> dict:
    """A beat's checkpoint for the page's script: the question and the
    feedback as runs (``math_runs``), the choices as runs and as written
    (``options``: what a learner's answer is kept as) with the right one's
    index, or the number, its places and the answer as written."""
    doc: dict = {"key": ask.key, "q": math_runs(ask.question), "wrong": math_runs(ask.wrong), "shown": ask.shown}
    if ask.number is None:
        doc.update(choices=[math_runs(c) for c in ask.choices], options=list(ask.choices), answer=ask.answer)
    else:
        doc.update(number=ask.number, places=ask.places)
    return doc


def beats(e: dict, lang: str, out_root: Path, checkpoints: bool = True) -> list[dict]:
    """The clip's beats for presenter mode: id, start, end (seconds) and the
    narration (``say``: runs of text, ``math_runs``), with ``checkpoints``
    a beat's checkpoint (``ask``: ``ask_data``), and a beat's description
    (``describe``: runs, and ``quiet``: when it is spoken); a clip
    without a beats file is one beat, its summary.
    The file is checked (``qkv_lens.beats``): PageError when it is damaged."""
    name = _files(e).get("beats")
    if name is None:
        return [{"id": e["scene"], "start": 0.0, "end": float(e["duration"]),
                 "say": math_runs(tr(lang, f"{e['section']}.summary"))}]
    try:
        found = beats_file.read(out_root, name, float(e["duration"]))
    except beats_file.BeatsError as err:
        raise PageError(str(err)) from None
    return [{"id": b.id, "start": b.start, "end": b.end, "say": math_runs(b.say),
             **({"ask": ask_data(b.ask)} if checkpoints and b.ask is not None else {}),
             **({"describe": math_runs(b.describe), "quiet": list(b.quiet)} if b.describe.strip() else {})}
            for b in found]


def _transcript(lang: str, said: list[dict]) -> str:
    """The beats' sentences, each with its description (marked as such),
    folded under the clip: the clip as text, for a reader of the page
    without the video or with a screen reader (WCAG 1.2.3, 1.2.8)."""
    tag = html.escape(tr(lang, "page.described"))
    items = "".join(f"<li>{runs_html(b['say'])}"
                    + (f'<p class="described"><span class="tag">{tag}</span> {runs_html(b["describe"])}</p>'
                       if "describe" in b else "") + "</li>" for b in said)
    return (f'<details class="transcript"><summary>{html.escape(tr(lang, "page.transcript"))}</summary>'
            f'<ol>{items}</ol></details>')


def descriptions_vtt(said: list[dict]) -> str:
    """The clip's descriptions as WebVTT: one cue per described beat, over
    its quiet part, named ``d<beat index>``, its text as written (a
    subscript after ``_``) and escaped (``cue_text``)."""
    def t(seconds: float) -> str:
        ms = round(seconds * 1000)
        return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"

    out = ["WEBVTT", ""]
    for i, b in enumerate(said):
        if "describe" in b and b["quiet"][1] > b["quiet"][0]:
            text = "".join(r if isinstance(r, str) else "_" + (r["sub"] if len(r["sub"]) == 1 else f"{{{r['sub']}}}")
                           for r in b["describe"])
            out += [f"d{i}", f"{t(b['quiet'][0])} --> {t(b['quiet'][1])}", cue_text(text), ""]
    return "\n".join(out)


def _clip(e: dict, lang: str, out_root: Path, said: list[dict]) -> str:
    files = _files(e)
    title = html.escape(tr(lang, f"{e['section']}.title"))
    poster = files.get("png", "")
    video_ext = next((x for x in ("mp4", "webm", "mov", "gif") if x in files), None)
    if video_ext is None:  # nothing to play: the poster
        media = f'<img class="clip" src="{html.escape(poster)}" alt="{title}">'
    elif video_ext == "gif":
        media = f'<img class="clip" src="{html.escape(files["gif"])}" alt="{title}">'
    elif video_ext == "mov":  # browsers cannot play it: the poster, linked to the file
        mov = html.escape(files["mov"])
        media = (f'<a class="download" href="{mov}" download><img class="clip" src="{html.escape(poster)}" '
                 f'alt="{title}"></a><p><a href="{mov}" download>{html.escape(Path(files["mov"]).name)}</a></p>')
    else:
        track = ""
        if "vtt" in files:
            label = html.escape(tr(lang, "lesson.language"))
            track = (f'<track kind="subtitles" src="{_track_src(out_root, files["vtt"])}" '
                     f'data-file="{html.escape(files["vtt"])}" srclang="{html.escape(lang)}" label="{label}" '
                     f'default>')
        if any("describe" in b for b in said):   # the page speaks it (the "describe" switch): no browser does
            data = base64.b64encode(descriptions_vtt(said).encode("utf-8")).decode("ascii")
            track += (f'<track kind="descriptions" src="data:text/vtt;charset=utf-8;base64,{data}" '
                      f'srclang="{html.escape(lang)}" label="{html.escape(tr(lang, "export.described_track"))}">')
        media = (f'<video controls preload="metadata" poster="{html.escape(poster)}" aria-label="{title}" '
                 f'data-duration="{e["duration"]:.3f}" data-scene="{html.escape(e["scene"])}">'
                 f'<source src="{html.escape(files[video_ext])}" type="{MIME[video_ext]}">{track}</video>')
    ask = (f'<p class="ask"><strong>{html.escape(tr(lang, "page.think"))}</strong>'
           f'{math_html(tr(lang, "page.ask." + e["section"]))}</p>')
    summary = math_html(tr(lang, f"{e['section']}.summary"))
    # the checkpoints' score, filled by the script (learner mode)
    score = '<p class="cp-score" hidden></p>' if video_ext in MIME and any("ask" in b for b in said) else ""
    return (f'<figure id="{html.escape(lang)}-{html.escape(e["scene"])}" data-scene="{html.escape(e["scene"])}">'
            f'<h3>{title}</h3>{ask}{media}{score}'
            f'<figcaption>{summary}</figcaption>{_transcript(lang, said)}</figure>')


@dataclass(frozen=True)
class Intro:
    """What the page says of its lesson: its title, the lead sentence, the
    heading of the list and the list (goals, or the chapters)."""
    title: str
    lead: str
    heading: str
    points: tuple[str, ...]


_GOAL = re.compile(r"page\.goal([0-9]+)")


def lesson_intro(lang: str, chapters: Sequence[Chapter]) -> Intro:
    """The lesson's title and introduction in ``lang``.  A text the lesson's
    ``texts.toml`` sets is used (``lesson.title``, ``page.lead``,
    ``page.goals``, ``page.goal1`` ... ``page.goalN``); the shipped lesson's
    title and goals, which promise its scenes, only for a lesson that
    teaches exactly the shipped lesson's scenes.  Any other lesson is titled
    by its chapters (their titles) and, without goals of its own, lists its
    chapters under ``page.outline``.  A text left empty is left out."""
    shipped = {name for chapter in defaults()["chapters"] for name in chapter["scenes"]}
    the_shipped = {name for chapter in chapters for name in chapter.scenes} == shipped
    laid = current().laid.get(lang, set())

    def own(key: str) -> str:
        """The text of ``key`` when this lesson may show it, else ''."""
        return tr(lang, key).strip() if key in laid or (the_shipped and key in TEXTS[lang]) else ""

    names = tuple(chapter.title.name(lang) for chapter in chapters)
    goals = sorted((int(m.group(1)), key) for key in TEXTS[lang] if (m := _GOAL.fullmatch(key)))
    points = tuple(text for _, key in goals if (text := own(key)))
    return Intro(title=own("lesson.title") or " · ".join(names), lead=tr(lang, "page.lead").strip(),
                 heading=tr(lang, "page.goals" if points else "page.outline").strip(), points=points or names)


def _intro(lang: str, intro: Intro, on_page: list[dict]) -> str:
    """The introduction (what the learner will be able to do) and the table
    of contents: every clip with its duration, and the total."""
    goals = "".join(f"<li>{math_html(point)}</li>" for point in intro.points)
    paragraphs = "".join(f"<p>{html.escape(text)}</p>" for text in (intro.lead, intro.heading) if text)
    items = "".join(f'<li><a href="#{html.escape(lang)}-{html.escape(e["scene"])}">'
                    f'{html.escape(tr(lang, e["section"] + ".title"))}</a>'
                    f'<span class="dur">{clock(e["duration"])}</span></li>' for e in on_page)
    total = html.escape(tr(lang, "page.total", count=len(on_page),
                           time=clock(sum(e["duration"] for e in on_page))))
    return (f'<div class="intro">{paragraphs}<ul>{goals}</ul></div>'
            f'<nav class="toc"><h2>{html.escape(tr(lang, "page.contents"))}</h2>'
            f'<p class="total">{total}</p><ol>{items}</ol></nav>')


# what `qkv-lens export` writes beside the clips, each with its link's text key (page.dl_*)
EXPORTS = (("lesson.mp4", "dl_video"), ("lesson.described.mp4", "dl_described"), ("lesson.pptx", "dl_deck"),
           ("lesson.beats.pptx", "dl_beats"), ("lesson.pdf", "dl_handout"), ("lesson.srt", "dl_subtitles"),
           ("lesson.scorm.zip", "dl_scorm"))
LIVE_FILE = "build.js"     # `watch`: the page's build id, polled by the open page, which reloads when it changes


def _downloads(out_root: Path, lang: str, entries: dict[str, dict], lesson: list[str]) -> str:
    """Links to the exports of ``lang`` that are there (``qkv-lens export``),
    at each quality; each a regular file inside ``out_root``.  One that its
    export record (``qkv_lens.app.joined``) does not show made from the
    ``lesson``'s scenes and the clips' current renders (the manifest's
    ``entries``) says it is older than the clips."""
    links = []
    for quality in QUALITIES.values():
        made = joined.read(out_root, f"{lang}/{quality}/{joined.NAME}")
        keys = {e["scene"]: e["key"] for e in entries.values()
                if (e["language"], e["quality"], e["format"]) == (lang, quality, "mp4")}
        for name, key in EXPORTS:
            rel = f"{lang}/{quality}/{name}"
            try:
                regular_file(inside(out_root, rel, "export"), 1 << 50, "export")
            except (OSError, Unsafe):
                continue
            stale = "" if joined.fresh(made.get(name), lesson, keys) else \
                f' <span class="stale">{html.escape(tr(lang, "page.dl_stale"))}</span>'
            links.append(f'<a href="{html.escape(rel)}" download>{html.escape(tr(lang, f"page.{key}"))}</a>'
                         f' <span class="dur">{quality}</span>{stale}')
    if not links:
        return ""
    return (f'<p class="downloads"><b>{html.escape(tr(lang, "page.downloads"))}</b> '
            + " · ".join(links) + "</p>")


def _json_script(data: object) -> str:
    """``data`` as JSON that is safe inside a <script> element."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


LATIN_FONTS = ("Noto Sans", "DejaVu Sans")   # a space-separated script's page text: its own quotes and widths


def css_string(text: str) -> str:
    """``text`` as a CSS string: every character but a letter, a digit, a
    space, ``-`` or ``_`` written as a hex escape, so nothing in it can end
    the string, the rule or the <style> element."""
    return '"' + "".join(c if c.isascii() and (c.isalnum() or c in " -_") else f"\\{ord(c):x} " for c in text) + '"'


def font_css(langs: Sequence[str]) -> str:
    """Each language's font stack for the elements in that language (the
    page, a section, a switch button): a space-separated script starts with
    a Latin font (a CJK font draws its quotes full width), then the
    language's fonts (``qkv_lens.languages``); a CJK script starts with its own."""
    rules = []
    for lang in langs:
        known = language(lang)
        fonts = (*LATIN_FONTS, *known.fonts) if known.spaced else (*known.fonts, *LATIN_FONTS)
        stack = ", ".join(css_string(f) for f in dict.fromkeys(fonts))
        rules.append(f':lang({known.code}) {{ font-family: {stack}, sans-serif; }}')
    return "\n" + "\n".join(rules) if rules else ""


def missing_names(chapters: Sequence[Chapter], lang: str) -> str:
    """What keeps the page from showing the lesson in ``lang`` (its chapter
    titles are the lesson's own names): "" when nothing does."""
    lacking = [i for i, chapter in enumerate(chapters, 1) if lang not in chapter.title.languages]
    return f"chapter {lacking[0]}'s title has no {lang} name" if lacking else ""


def build(out_root: Path, chapters: Sequence[Chapter], lesson_dir: Path | None = None,
          live: bool = False, language: str | None = None,
          warn: Callable[[str], None] = lambda message: None, checkpoints: bool = True) -> Path:
    """Write ``out_root/index.html`` from the manifest, in the order of the
    lesson's ``chapters`` (a scene rendered but not listed is left off;
    ``lesson_dir``: the lesson's folder, whose own scenes it may list), with
    links to the exports that are there; return its path.  It opens in
    ``language`` (the lesson file's), else the first language rendered; a
    ``?lang=``, a link to a clip or a remembered choice wins.  ``live`` (while
    ``watch`` runs): the page also writes ``build.js`` with its build id, and
    an open page that polls it reloads, at the same place, when it changes.
    ``checkpoints`` (the lesson's key): the scenes' questions are asked.
    Clips in a language the lesson's names lack are left out, each language
    told to ``warn`` in one line.  Raises PageError (and writes nothing) when the manifest is damaged or a
    file it lists for a clip on the page is missing or damaged."""
    page, data = page_html(out_root, chapters, lesson_dir, live, language, warn, checkpoints)
    path = out_root / "index.html"
    try:
        write_atomic(path, page.encode("utf-8"))
        if live:          # after the page: a poll never sees a new id before the page it names
            write_atomic(out_root / LIVE_FILE, f'window.qkvBuild = "{data["build"]}";\n'.encode())
    except OSError as err:
        raise PageError(f"{shown(path)}: cannot write it ({err.strerror or err})") from None
    return path


def page_html(out_root: Path, chapters: Sequence[Chapter], lesson_dir: Path | None = None,
              live: bool = False, language: str | None = None,
              warn: Callable[[str], None] = lambda message: None, checkpoints: bool = True,
              only: tuple[str, str] | None = None, scorm: dict | None = None) -> tuple[str, dict]:
    """The page ``build`` writes, and its data (the JSON its script reads).
    ``only`` (a language and a quality folder): that language's mp4 clips at
    that quality alone, and no links to exports (a course package's page,
    ``qkv_lens.app.scorm``); ``scorm`` (``{"pass": share}``): the page
    reports to a learning platform's SCORM 1.2 API when it finds one."""
    try:
        entries = manifest.load_checked(out_root)
    except manifest.ManifestError as err:
        raise PageError(str(err)) from None
    if only is not None:
        entries = {k: e for k, e in entries.items() if (e["language"], e["quality"], e["format"]) == (*only, "mp4")}
    best = best_entries(entries)
    langs = [l for l in offered() if l in best]     # a render in a language the tables no longer have is left off
    for lang in [l for l in langs if missing_names(chapters, l)]:   # clips of a lesson that had the names
        warn(f"the page leaves out the {lang} clips: {missing_names(chapters, lang)} (give it one in lesson.toml)")
        langs.remove(lang)
    first = language if language in langs else langs[0] if langs else offered()[0]
    sections = []
    clips: dict[str, list[dict]] = {l: [] for l in langs}
    intros = {l: lesson_intro(l, chapters) for l in langs or [first]}
    lesson = [name for chapter in chapters for name in chapter.scenes]
    for lang in langs:
        parts = []
        heading = None
        listed_here = []
        for chapter, info in ((ch, by_class(name, lesson_dir)) for ch in chapters for name in ch.scenes):
            e = best[lang].get(info.name)
            if e is None:
                continue
            e = dict(e, section=info.section)
            listed_here.append(e)
            if chapter is not heading:
                heading = chapter
                parts.append(f"<h2>{html.escape(chapter.title.name(lang))}</h2>")
            try:
                for f in e["files"]:      # each inside out_root and a regular file, or the page is not built
                    manifest.listed(out_root, f)
                said = beats(e, lang, out_root, checkpoints and e["format"] in MIME)
                parts.append(_clip(e, lang, out_root, said))
            except FileNotFoundError as err:
                raise PageError(f"{shown(err.filename)}: missing (listed in {shown(out_root / manifest.NAME)} "
                                f"for {info.name}, {lang}); render it again") from None
            except Unsafe as err:
                raise PageError(f"{err} (listed in {shown(out_root / manifest.NAME)} for {info.name}, "
                                f"{lang})") from None
            except OSError as err:
                raise PageError(f"{shown(err.filename)}: cannot read it ({err.strerror})") from None
            if e["format"] in MIME:
                clips[lang].append({"scene": info.name, "title": tr(lang, f"{info.section}.title"),
                                    "ask": math_runs(tr(lang, f"page.ask.{info.section}")),
                                    "beats": said})
        hidden = "" if lang == first else " hidden"
        downloads = "" if only is not None else _downloads(out_root, lang, entries, lesson)
        sections.append(f'<section class="lesson" lang="{html.escape(lang)}"{hidden}>'
                        f'<h1>{html.escape(intros[lang].title)}</h1>{_intro(lang, intros[lang], listed_here)}'
                        f'{downloads}{"".join(parts)}</section>')
    ui = {l: {k: intros[l].title if k == "title" else tr(l, f"page.{k}") for k in UI_KEYS} for l in langs or [first]}
    asking = any("ask" in b for by_lang in clips.values() for c in by_lang for b in c["beats"])
    # what a learner's answers are kept under: the lesson (its title and scenes), not the folder it is in
    lesson_id = hashlib.sha256(json.dumps([intros[first].title, lesson]).encode("utf-8")).hexdigest()[:12]
    data = {"first": first, "langs": langs, "ui": ui, "clips": clips, "live": live, "asking": asking,
            "id": lesson_id, "scorm": scorm}
    if live:     # the build id: what the page shows and the renders' keys (a render, a text, the chapters)
        keys = sorted(str(e.get("key")) for by_scene in best.values() for e in by_scene.values())
        data["build"] = hashlib.sha256("\n".join([_json_script(data), *sections, *keys]).encode("utf-8")
                                       ).hexdigest()[:16]
    nav = ""
    if len(langs) > 1:
        nav = '<nav class="langs">' + "".join(
            f'<button type="button" lang="{html.escape(l)}" data-lang="{html.escape(l)}" '
            f'aria-pressed="{str(l == first).lower()}">'
            f'{html.escape(tr(l, "lesson.language"))}</button> ' for l in langs) + "</nav>"
    present = (f'<button type="button" id="present-btn" data-t="present">'
               f'{html.escape(tr(first, "page.present"))}</button>')
    # learner mode (the clips stop at their checkpoints): a switch, unless a course package always asks
    learner = "" if not asking or scorm is not None else (
        f'<label id="learner"><input type="checkbox" checked> <span data-t="learner">'
        f'{html.escape(tr(first, "page.learner"))}</span></label>')
    # descriptions spoken aloud (off until the learner turns them on; remembered)
    described = any("describe" in b for by_lang in clips.values() for c in by_lang for b in c["beats"])
    learner += "" if not described else (
        f'<label id="describe"><input type="checkbox"> <span data-t="describe">'
        f'{html.escape(tr(first, "page.describe"))}</span></label>')
    # presenter mode: the title card, the blank screen, the overview, the key help, the exit for touch,
    # the live region; the speaker panel is shown only in the speaker window (?speaker=1)
    speaker = ('<div id="card" aria-hidden="true"><h2 class="title"></h2><p class="question"></p>'
               '<ol class="choices"></ol><p class="round"></p><p class="answer"></p></div>'
               '<div id="blank"></div>'
               '<div id="overview" role="dialog" aria-labelledby="overview-h" hidden><h2 id="overview-h" '
               'data-t="overview"></h2><label><span data-t="goto"></span> <input type="number" min="1"></label>'
               '<ol></ol></div><p id="help"></p>'
               '<button type="button" id="exit" data-t-label="leave">×</button>'
               '<div id="live" role="status" aria-live="polite"></div>'
               '<div id="cp-live" role="status" aria-live="polite"></div>'
               '<aside id="speaker"><div class="where"><span class="title"></span> · <span class="step"></span>'
               # each time named by a text a screen reader reads before it (aria-label on a plain span is not read)
               '<span class="state"></span><span class="times"><span class="timer"><span class="sr" data-t="timer">'
               '</span> <span class="t"></span></span><span class="clock"><span class="sr" data-t="clock"></span> '
               '<span class="t"></span></span></span></div><div class="say"></div>'
               '<div class="side"><p><b data-t="think"></b> <span class="question"></span></p>'
               '<p class="cp" hidden><b data-t="cp_heading"></b> <span class="cp-q"></span> '
               '<b data-t="cp_answer"></b> <span class="cp-a"></span></p>'
               '<p><b data-t="next"></b> <span class="next"></span></p></div>'
               '<div class="keys"></div></aside>')
    page = (f'<!DOCTYPE html>\n<html lang="{html.escape(first)}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{html.escape(intros[first].title)}</title>'
            f'<style>{_asset("page.css")}{font_css(langs)}</style>'
            f'</head>\n<body data-lang="{html.escape(first)}"><header>{nav}{present}{learner}</header><main>'
            f'{"".join(sections)}</main>{speaker}'
            f'<footer data-t="footer">{html.escape(tr(first, "page.footer"))}</footer>\n'
            f'<script type="application/json" id="lesson-data">{_json_script(data)}</script>\n'
            f'<script>{_asset("page.js")}</script></body></html>\n')
    return page, data
