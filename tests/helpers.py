"""Reusable test helpers: dry-run a scene, check its layout, probe a video."""
from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import os
import re
import struct
import sys
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from manim import config, tempconfig

from qkv_lens.app import cli
from qkv_lens.app import render as render_mod
from qkv_lens.app.video import probe
from qkv_lens.lesson import default_lesson
from qkv_lens.registry import find
from scenes.kit.moments import Moment

ROOT = Path(__file__).resolve().parents[1]
LESSON = default_lesson()   # the shipped lesson: every default
# TeX and Pango caches shared by the dry runs of one test process (one per
# pytest-xdist worker, so two workers never typeset into the same file at once)
SHARED_MEDIA = ROOT / "media" / f"tests-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


# The shortest WorkedExample (one entry times one weight: 35 s of video at -ql,
# the shipped example's 49 s), for tests that need a real render, not its picture.
SHORT_LESSON = 'language = "en"\n\n[worked_example]\nx = [2]\nW = [[3]]\n'


def short_lesson(folder: Path) -> Path:
    """SHORT_LESSON written as ``folder/short-lesson.toml`` (once); its path."""
    path = folder / "short-lesson.toml"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(SHORT_LESSON, encoding="utf-8")
    return path


@contextmanager
def lesson_env(lesson: Path | None = None, lang: str | None = None):
    old = {k: os.environ.get(k) for k in ("QKV_LESSON", "QKV_LANG")}
    for k, v in (("QKV_LESSON", lesson), ("QKV_LANG", lang)):
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = str(v)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def dry_run(scene_name: str, tmp: Path, lesson: Path | None = None, lang: str = "zh"):
    """Run a scene's construct with no video written, every animation skipped
    to its end state (updaters still run), and return the scene."""
    info = find(scene_name)
    module = importlib.import_module(f"scenes.{info.module}")
    cls = getattr(module, info.name)
    with lesson_env(lesson or LESSON, lang), tempconfig({
        "dry_run": True, "quality": "low_quality", "disable_caching": True,
        "progress_bar": "none", "media_dir": str(tmp), "verbosity": "ERROR",
        # typeset TeX and Pango text once for the whole suite, not once per test
        "tex_dir": str(SHARED_MEDIA / "Tex"), "text_dir": str(SHARED_MEDIA / "texts"),
    }):
        scene = cls(skip_animations=True)
        scene.render()
    return scene


def dry_run_file(path: Path, scene_name: str, tmp: Path, lesson: Path, lang: str):
    """``dry_run`` of a teacher's scene: its module (outside the scenes
    package, beside the lesson) loaded by path, as manim loads it."""
    spec = importlib.util.spec_from_file_location(f"teacher_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module            # as manim does: dataclasses and annotations look it up
    spec.loader.exec_module(module)
    with lesson_env(lesson, lang), tempconfig({
            "dry_run": True, "quality": "low_quality", "disable_caching": True, "progress_bar": "none",
            "media_dir": str(tmp), "verbosity": "ERROR",
            "tex_dir": str(SHARED_MEDIA / "Tex"), "text_dir": str(SHARED_MEDIA / "texts")}):
        scene = getattr(module, scene_name)(skip_animations=True)
        scene.render()
    return scene


# The bottom band of the frame belongs to the subtitles: no label may reach into it.
SUBTITLE_BAND = 0.12
# The legibility floor: no text drawn smaller than this glyph height at 1080p (a
# label's tallest glyph: a capital, a digit or a Chinese character).
MIN_GLYPH_PX = 24


def layout_problems(moment: Moment, margin: float = 0.02, min_overlap: float = 0.02) -> list[str]:
    """Labels of ``moment`` that leave the frame, reach into the subtitle
    band (the bottom SUBTITLE_BAND of the frame), are drawn smaller than
    MIN_GLYPH_PX at 1080p, lack the dark outline, or overlap another label.
    Two labels overlap when their boxes intersect by more than
    ``min_overlap`` scene units in both directions."""
    half_w, half_h = config.frame_width / 2, config.frame_height / 2
    band_top = -half_h + SUBTITLE_BAND * config.frame_height
    problems = []
    labels = moment.labels
    px_per_unit = 1080 / config.frame_height
    for lab in labels:
        if lab.smudge:
            problems.append(f"{moment.name}: {lab.kind} {lab.content!r} leaves its dark outline on screen "
                            "without its text (faded by hand?)")
        if not lab.outlined:
            problems.append(f"{moment.name}: {lab.kind} {lab.content!r} has no dark outline")
        if lab.glyph * px_per_unit < MIN_GLYPH_PX - 0.5:
            problems.append(f"{moment.name}: {lab.kind} {lab.content!r} is too small to read "
                            f"({lab.glyph * px_per_unit:.1f} px glyphs at 1080p, floor {MIN_GLYPH_PX})")
        l, b, r, t = lab.box
        if l < -half_w + margin or r > half_w - margin or b < -half_h + margin or t > half_h - margin:
            problems.append(f"{moment.name}: {lab.kind} {lab.content!r} leaves the frame {lab.box}")
        elif b < band_top:
            problems.append(f"{moment.name}: {lab.kind} {lab.content!r} reaches into the subtitle band "
                            f"(bottom {b:.2f} < {band_top:.2f})")
    for i, a in enumerate(labels):
        for c in labels[i + 1:]:
            dx = min(a.box[2], c.box[2]) - max(a.box[0], c.box[0])
            dy = min(a.box[3], c.box[3]) - max(a.box[1], c.box[1])
            if dx > min_overlap and dy > min_overlap:
                problems.append(f"{moment.name}: {a.kind} {a.content!r} overlaps {c.kind} {c.content!r}")
    return problems


# A key moment's content (the box of everything visible) fills at least this
# share of the frame above the subtitle band, unless the scene says why not.
MIN_FRAME_USE = 0.5


def frame_use(moment: Moment) -> float:
    """The share of the frame above the subtitle band that the box of
    everything visible at ``moment`` covers (0 when nothing is)."""
    if moment.content is None:
        return 0.0
    half_w, half_h = config.frame_width / 2, config.frame_height / 2
    band_top = -half_h + SUBTITLE_BAND * config.frame_height
    l, b, r, t = moment.content
    w = max(0.0, min(r, half_w) - max(l, -half_w))
    h = max(0.0, min(t, half_h) - max(b, band_top))
    return w * h / (2 * half_w * (half_h - band_top))


def assert_clean_layout(scene, frame_use_floor: bool = False) -> None:
    """Every key moment of ``scene``: labels inside the frame, above the
    subtitle band, at least MIN_GLYPH_PX tall at 1080p, none overlapping;
    with ``frame_use_floor`` (the shipped lesson), content over at least
    MIN_FRAME_USE of the frame, unless the scene's ``sparse_moments`` says
    why that moment holds less.  A lesson of one word or one token is small
    by nature: the floor is for the lesson a teacher is shown first."""
    assert scene.moments, "the scene recorded no key moments"
    problems = [p for m in scene.moments.values() for p in layout_problems(m)]
    why = getattr(scene, "sparse_moments", {}) if frame_use_floor else {m: "" for m in scene.moments}
    problems += [f"{m.name}: its content covers {frame_use(m):.0%} of the frame above the subtitles "
                 f"(at least {MIN_FRAME_USE:.0%}, or say why in sparse_moments)"
                 for m in scene.moments.values() if m.name not in why and frame_use(m) < MIN_FRAME_USE]
    assert not problems, "\n".join(problems)


# WCAG 2.1's floor for text (1.4.3): the contrast of a label's ink with what is behind it
MIN_CONTRAST = 4.5


def contrast(a, b) -> float:
    """WCAG 2.1 contrast ratio of two colours (anything ManimColor takes): (L1 + 0.05) / (L2 + 0.05)."""
    from manim import ManimColor

    def luminance(colour) -> float:
        rgb = ManimColor(colour).to_rgb()
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def faint_labels(scene) -> list[str]:
    """Labels of ``scene``'s key moments whose ink, at its opacity over the
    dark outline behind every label (``palette.BACKGROUND``), reads below
    MIN_CONTRAST: a colour outside the palette, or a label left half faded."""
    from manim import ManimColor

    from scenes.kit import palette

    back = palette.BACKGROUND.to_rgb()
    found = []
    for m in scene.moments.values():
        for lab in m.labels:
            for ink, opacity in lab.inks:
                seen = ManimColor.from_rgb(opacity * ManimColor(ink).to_rgb() + (1 - opacity) * back)
                if contrast(seen, palette.BACKGROUND) < MIN_CONTRAST:
                    found.append(f"{m.name}: {lab.kind} {lab.content[:40]!r} in {ink} at {opacity:.2f} reads "
                                 f"{contrast(seen, palette.BACKGROUND):.2f}:1")
    return found


def undescribed(scene) -> list[str]:
    """The ids of ``scene``'s beats that change the picture with neither a
    description (``describe``) nor a sentence the scene says names the
    change (``names_change``): what a learner who cannot see would miss."""
    return [b.id for b in scene.beats if b.changes and not b.describe and not b.named]


def shown_number(label: str) -> float:
    """The number that ends a label such as "loss 1.22" or "损失4.4×10⁻⁵"."""
    m = re.search(r"([\d.]+)(?:×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+))?$", label)
    assert m, label
    power = (m.group(2) or "⁰").translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
    return float(m.group(1)) * 10 ** int(power)


def probe_video(path: Path) -> dict:
    """Decode a video fully (the pipeline's own probe); its duration (s),
    frame size, frame count and rate."""
    return dataclasses.asdict(probe(path))


def cue_problems(cues, lang: str) -> list[str]:
    """Cues (start, end, text) that break the reading limits: more than two
    lines, a line too long or badly broken (``qkv_lens.cues.check_cue``), or
    faster than CPS characters per second."""
    from qkv_lens.cues import CPS, check_cue

    problems = []
    for start, end, text in cues:
        problems += [f"{text!r}: {p}" for p in check_cue(text, lang)]
        chars = len(text.replace("\n", ""))
        if chars / max(end - start, 1e-6) > CPS[lang] + 1e-6:
            problems.append(f"{text!r}: {chars / (end - start):.1f} characters per second")
    return problems


def assert_readable_beats(scene) -> None:
    """Every beat of a dry-run scene: its cues within the limits and broken
    between phrases (``qkv_lens.cues.break_problems``: no line or cue ends on
    a word that binds to the next), back to back from the beat's start to
    its end, and the beats in order."""
    from qkv_lens.cues import break_problems

    assert scene.beats, "the scene played no beats"
    problems, last_end = [], 0.0
    for beat in scene.beats:
        problems += cue_problems(beat.cues, scene.lang)
        problems += [f"{beat.id}: {p}" for p in break_problems([c[2] for c in beat.cues], scene.lang)]
        assert beat.start >= last_end - 1e-6, f"{beat.id} starts before the previous beat ends"
        assert beat.cues[0][0] == beat.start and abs(beat.cues[-1][1] - beat.end) < 1e-6, beat.id
        last_end = beat.end
    assert not problems, "\n".join(problems)


def toml_value(v) -> str:
    """``v`` (a text, number, boolean, list or table) as an inline TOML value."""
    import json
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)   # a JSON string is a TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_value(str(k))} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"not a TOML value: {v!r}")


def toml_text(doc: dict) -> str:
    """A lesson table as TOML text: top-level values first, then one
    ``[section]`` per table (nested tables inline)."""
    out = [f"{toml_value(k)} = {toml_value(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    for name, table in doc.items():
        if isinstance(table, dict):
            out.append(f"[{name}]")
            out += [f"{toml_value(k)} = {toml_value(v)}" for k, v in table.items()]
    return "\n".join(out) + "\n"


class FakeRenderer:
    """Writes small stand-in outputs; fails for the scenes in ``fail``."""

    def __init__(self, delay=0.0):
        self.calls = []
        self.fail = set()
        self.delay = delay
        self.active = 0
        self.max_active = 0
        self.lock = threading.Lock()

    def __call__(self, job, opts):
        with self.lock:
            self.calls.append(job.scene.name)
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            time.sleep(self.delay)
            if job.scene.name in self.fail:
                return render_mod.Result(job, False, 0.1, error="boom")
            d = render_mod.out_dir(opts, job.lang)
            d.mkdir(parents=True, exist_ok=True)
            files = []
            for ext in ("mp4", "srt", "vtt", "png"):
                f = d / f"{job.scene.name}.{ext}"
                f.write_text(job.key, encoding="utf-8")
                files.append(f)
            return render_mod.Result(job, True, 0.1, files, 30.0, 854, 480)
        finally:
            with self.lock:
                self.active -= 1


def run_cli(tmp_path, *extra, lesson=None):
    lesson = lesson or (LESSON)
    return cli.main(["render", "--lang", "en", "--out", str(tmp_path / "out"),
                     "--lesson", str(lesson), *extra])


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("qkv-lens: error: "), err
    return lines[0]


def assert_misuse_stops(scene_file: Path, run: Callable[[], object], name: str, old: str, new: str, fault: str,
                        capsys) -> None:
    """The scene in ``scene_file`` with ``old`` written as ``new`` (a misuse of the kit) stops when
    ``run`` renders it: exit code 2 and one error line that names the scene ``name`` and says ``fault``."""
    source = scene_file.read_text(encoding="utf-8")
    assert old in source
    scene_file.write_text(source.replace(old, new), encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        run()
    assert stop.value.code == 2
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith(f"qkv-lens: error: {name}: ") and fault in line, line


def mp4_boxes(path: Path) -> list[str]:
    """The types of an MP4 file's top-level boxes, in file order."""
    data = path.read_bytes()
    boxes, i = [], 0
    while i + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        if size == 1:
            size = struct.unpack(">Q", data[i + 8:i + 16])[0]
        elif size == 0:
            size = len(data) - i
        assert size >= 8, f"bad box at {i}"
        boxes.append(kind.decode("latin-1"))
        i += size
    return boxes


def edit(path: Path):
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")


@contextmanager
def watching(lesson: Path, code):
    """``qkv-lens watch`` of ``lesson`` (and the folders ``code``) in a thread,
    each round recorded instead of rendered; yields ``wait_for(n)``: the
    number of rounds once there are ``n`` (or 10 s have passed).  The
    thread is stopped on the way out and must end."""
    from types import SimpleNamespace

    from qkv_lens.app.watch import watch

    calls: list[float] = []
    stop = threading.Event()
    t = threading.Thread(target=watch, args=(SimpleNamespace(lesson=str(lesson)),
                                             lambda a: calls.append(time.monotonic()), stop, code))

    def wait_for(n: int) -> int:
        deadline = time.monotonic() + 10
        while len(calls) < n and time.monotonic() < deadline:
            time.sleep(0.1)
        return len(calls)

    t.start()
    try:
        yield wait_for
    finally:
        stop.set()
        t.join(timeout=10)
    assert not t.is_alive()


def vtt_cues(text: str) -> list[tuple[int, int, str]]:
    """The cues of WebVTT ``text`` as an independent parser reads them
    (webvtt-py, strict: a malformed block is an error), character references
    resolved and cue tags dropped: (start ms, end ms, text)."""
    import html

    import webvtt
    return [(c.start_time.in_milliseconds(), c.end_time.in_milliseconds(), html.unescape(c.text))
            for c in webvtt.from_string(text, strict=True)]


def srt_cues(text: str) -> list[tuple[int, int, str]]:
    """The cues of SubRip ``text`` as the ``srt`` package reads them: (start ms, end ms, text)."""
    import srt
    return [(c.start // timedelta(milliseconds=1), c.end // timedelta(milliseconds=1), c.content)
            for c in srt.parse(text, ignore_errors=False)]


# -- what a learner reads off the picture: whose name a label is, and when a change comes --

LABEL_OWN = 0.09     # a label lies at least this much nearer its own point than any other point
DOT_CLEAR = 0.07     # ... and keeps this far from every other point's centre (a dot's radius)


def _box_distance(box, point) -> float:
    dx = max(box[0] - point[0], 0.0, point[0] - box[2])
    dy = max(box[1] - point[1], 0.0, point[1] - box[3])
    return float((dx * dx + dy * dy) ** 0.5)


def label_owner_problems(labels, margin: float = LABEL_OWN, where: str = "") -> list[str]:
    """Labels a reader would take for another point's name.  ``labels``:
    one (name, dot centre (x, y), label box or None when hidden) per point,
    read from what is drawn.  A shown label covers no other point (within
    DOT_CLEAR of its centre) and lies ``margin`` nearer its own point than
    any point at another spot (points at one spot share their names)."""
    problems = []
    for name, dot, box in labels:
        if box is None:
            continue
        mine = _box_distance(box, dot)
        for other, odot, _ in labels:
            if abs(odot[0] - dot[0]) < 1e-6 and abs(odot[1] - dot[1]) < 1e-6:
                continue
            far = _box_distance(box, odot)
            if far < DOT_CLEAR:
                problems.append(f"{where}: the label {name!r} covers {other!r}'s point")
            elif far < mine + margin:
                problems.append(f"{where}: the label {name!r} is as near {other!r}'s point ({far:.2f}) "
                                f"as its own ({mine:.2f})")
    return problems


def beat_at(scene, t: float):
    """The beat of a dry-run ``scene`` whose time span holds ``t`` (None between beats)."""
    return next((b for b in scene.beats if b.start - 1e-6 <= t <= b.end + 1e-6), None)


def change_problems(scene, moment: str, key: str, most: float | None = None) -> list[str]:
    """A change a sentence names must happen while that sentence is read:
    the key moment ``moment`` (recorded as the change is complete) falls in
    the beat of text key ``key``, and, with ``most``, at most ``most``
    seconds after that beat starts (the picture keeps up with its words)."""
    m = scene.moments.get(moment)
    if m is None or m.time is None:
        return [f"no key moment {moment!r} with a time"]
    beat = beat_at(scene, m.time)
    if beat is None or beat.key != key:
        return [f"{moment} at {m.time:.1f} s falls in {beat.key if beat else 'no beat'}, not in {key}"]
    if most is not None and m.time - beat.start > most + 1e-6:
        return [f"{moment} comes {m.time - beat.start:.1f} s into {key} (at most {most} s)"]
    return []


def _hue_sat(hex_colour: str) -> tuple[float, float]:
    import colorsys
    r, g, b = (int(hex_colour.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4))
    h, _, s = colorsys.rgb_to_hls(r, g, b)
    return h * 360, s


def qkv_colour_problems(scene, hue: float | None = None) -> list[str]:
    """Labels of a scene before QKVProjection drawn in a colour of Q, K or V
    (gold, teal, coral mean those and nothing else): exactly that colour, or
    with ``hue`` (degrees), any saturated colour within ``hue`` of one (a pale
    cyan reads as teal)."""
    from scenes.kit.palette import QKV

    roles = {role: colour.to_hex().upper() for role, colour in QKV.items()}
    problems = []
    for m in scene.moments.values():
        for lab in m.labels:
            for c in lab.colours:
                for role, qkv in roles.items():
                    h, s = _hue_sat(c)
                    rh, _ = _hue_sat(qkv)
                    near = c == qkv or hue is not None and s >= 0.25 and min(abs(h - rh), 360 - abs(h - rh)) <= hue
                    if near:
                        problems.append(f"{m.name}: {lab.kind} {lab.content!r} is drawn in {c}, {role}'s colour")
    return sorted(set(problems))


# Debian's Chromium, as the tests drive it (no sandbox, no GPU, no network of its own)
CHROMIUM = "/usr/bin/chromium"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--autoplay-policy=no-user-gesture-required"]
