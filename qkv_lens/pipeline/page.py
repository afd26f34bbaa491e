"""renders/index.html: the lesson page, built from the manifest.

Plain static HTML and CSS (a few lines of inline script for the language
switch), relative links only, so it works opened from disk with no network;
subtitle tracks are inlined as data: URLs because browsers will not load
<track> files from a file:// page.
Each language shows, per scene, its best-quality render.  A .mov (the
transparent "mp4", which browsers cannot play) is shown as its poster,
linked to the file.
A file the page needs that is missing, or a damaged manifest, is a PageError
and the previous page stays as it was.
"""
from __future__ import annotations

import base64
import html
from pathlib import Path

from qkv_lens.lesson import LANGUAGES
from qkv_lens.pipeline import manifest
from qkv_lens.registry import QUALITIES, SCENES
from qkv_lens.texts import tr

QUALITY_RANK = {folder: i for i, folder in enumerate(QUALITIES.values())}
MIME = {"mp4": "video/mp4", "webm": "video/webm"}


class PageError(Exception):
    """The page cannot be built: a damaged manifest or a missing file (one line)."""

CSS = """
body { margin: 0; font-family: "Noto Sans CJK SC", "Noto Sans", sans-serif; background: #0d1117; color: #e6e6e6; }
header { padding: 1.5rem 2rem 0.5rem; }
h1 { margin: 0 0 0.5rem; font-size: 1.6rem; }
nav button { background: #1f2937; color: #e6e6e6; border: 1px solid #374151; padding: 0.3rem 0.9rem;
  border-radius: 4px; cursor: pointer; font-size: 1rem; }
nav button[aria-pressed="true"] { background: #f2c14e; color: #111; }
main { padding: 0 2rem 2rem; max-width: 1100px; }
h2 { border-bottom: 1px solid #374151; padding-bottom: 0.3rem; margin-top: 2rem; }
figure { margin: 1.2rem 0 2rem; }
figure h3 { margin: 0 0 0.5rem; }
video, img.clip { width: 100%; max-width: 960px; background: #000; border-radius: 6px; }
figcaption { max-width: 960px; line-height: 1.6; color: #c9d1d9; }
footer { color: #8a9ba8; font-size: 0.85rem; padding: 1rem 2rem; }
[hidden] { display: none !important; }
"""

SCRIPT = """
function showLang(lang) {
  document.querySelectorAll('section.lesson').forEach(function (s) { s.hidden = s.lang !== lang; });
  document.querySelectorAll('nav button').forEach(function (b) {
    b.setAttribute('aria-pressed', String(b.dataset.lang === lang)); });
  document.querySelectorAll('video').forEach(function (v) { if (!v.closest('[hidden]')) return; v.pause(); });
  document.documentElement.lang = lang;
}
"""


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


def _track_src(out_root: Path, vtt: str) -> str:
    """The subtitle track as a data: URL.  Browsers refuse <track> files
    from file:// pages (each file is its own origin), so the page carries
    the cues itself; the .vtt file stays beside the video for other uses."""
    data = base64.b64encode((out_root / vtt).read_bytes()).decode("ascii")
    return f"data:text/vtt;charset=utf-8;base64,{data}"


def _clip(e: dict, lang: str, out_root: Path) -> str:
    files = {Path(f).suffix.lstrip("."): f for f in e["files"]}
    title = html.escape(tr(lang, f"{e['section']}.title"))
    poster = files.get("png", "")
    video_ext = next((x for x in ("mp4", "webm", "mov", "gif") if x in files), None)
    if video_ext == "gif":
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
                     f'data-file="{html.escape(files["vtt"])}" srclang="{lang}" label="{label}" default>')
        media = (f'<video controls preload="metadata" poster="{html.escape(poster)}" '
                 f'data-duration="{e["duration"]:.3f}" data-scene="{e["scene"]}">'
                 f'<source src="{html.escape(files[video_ext])}" type="{MIME[video_ext]}">{track}</video>')
    summary = html.escape(tr(lang, f"{e['section']}.summary"))
    return (f'<figure id="{lang}-{e["scene"]}"><h3>{title}</h3>{media}'
            f'<figcaption>{summary}</figcaption></figure>')


def build(out_root: Path) -> Path:
    """Write ``out_root/index.html`` from the manifest; return its path.
    Raises PageError (and writes nothing) when the manifest is damaged or a
    file it lists for a clip on the page is missing."""
    try:
        entries = manifest.load_checked(out_root)
    except manifest.ManifestError as err:
        raise PageError(str(err)) from None
    best = best_entries(entries)
    langs = [l for l in LANGUAGES if l in best]
    first = langs[0] if langs else LANGUAGES[0]
    sections = []
    for lang in langs:
        parts = []
        chapter = None
        for info in SCENES:
            e = best[lang].get(info.name)
            if e is None:
                continue
            if info.chapter != chapter:
                chapter = info.chapter
                parts.append(f"<h2>{html.escape(tr(lang, f'lesson.chapter{chapter}'))}</h2>")
            missing = [f for f in e["files"] if not (out_root / f).is_file()]
            if missing:
                raise PageError(f"{out_root / missing[0]}: missing (listed in {out_root / manifest.NAME} "
                                f"for {info.name}, {lang}); render it again")
            try:
                parts.append(_clip(dict(e, section=info.section), lang, out_root))
            except OSError as err:
                raise PageError(f"{err.filename}: cannot read it ({err.strerror})") from None
        hidden = "" if lang == first else " hidden"
        sections.append(f'<section class="lesson" lang="{lang}"{hidden}>'
                        f'<h1>{html.escape(tr(lang, "lesson.title"))}</h1>{"".join(parts)}</section>')
    nav = ""
    if len(langs) > 1:
        nav = "<nav>" + "".join(
            f'<button type="button" data-lang="{l}" aria-pressed="{str(l == first).lower()}" '
            f'onclick="showLang(\'{l}\')">{html.escape(tr(l, "lesson.language"))}</button> ' for l in langs
        ) + "</nav>"
    footer = html.escape(tr(first, "lesson.generated"))
    page = (f'<!DOCTYPE html>\n<html lang="{first}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{html.escape(tr(first, "lesson.title"))}</title><style>{CSS}</style>'
            f'<script>{SCRIPT}</script></head>\n<body><header>{nav}</header><main>'
            f'{"".join(sections)}</main><footer>{footer}</footer></body></html>\n')
    path = out_root / "index.html"
    try:
        manifest.write_atomic(path, page.encode("utf-8"))
    except OSError as err:
        raise PageError(f"{path}: cannot write it ({err.strerror or err})") from None
    return path
