"""The ``qkv-lens`` command: init, new, list, render, lesson, export, preview, watch, script, doctor.

``new NAME`` writes a scene of the teacher's beside the lesson (``my_scenes/``,
its section, its texts in ``texts.toml`` and its test; docs/tutorial.md).

``--voice`` (render, watch) gives the narration a voice: ``none`` (silent
clips, the default unless the lesson's ``voice`` says otherwise),
``espeak`` (a robotic draft voice made offline by espeak-ng, to time the
clips before anyone records) or ``recorded`` (the author's recordings,
``voice/<lang>/<Scene>/<beat-id>.wav`` beside the lesson; ``qkv-lens script``
lists the beats to record).

Ctrl-C (SIGINT) and SIGTERM stop it the same way: the manim children are
stopped, temporary folders removed, the previous renders and manifest kept,
and the exit status is 128 + the signal number (130 for SIGINT, 143 for
SIGTERM), as a shell reports a process killed by that signal.
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import tempfile
import threading
import time
from functools import partial
from pathlib import Path

from qkv_lens import voice
from qkv_lens.app import cluster, doctor, export, manifest, page, segments
from qkv_lens.app import render as render_mod
from qkv_lens.app.cache import cache_key, code_digests, manim_version
from qkv_lens.app.manifest import listed
from qkv_lens.app.progress import Display, lines, say
from qkv_lens.app.render import MEDIA_PREFIX, Job, Options, clean_stale_media, run_jobs, video_format
from qkv_lens.app.watch import watch
from qkv_lens.beats import Beats
from qkv_lens.beats import parse as parse_beats
from qkv_lens.languages import LanguageError, check_fonts, offered
from qkv_lens.lesson import VOICES, Lesson, LessonError, default_lesson, default_lesson_path, for_language, load_lesson
from qkv_lens.lesson.reference import reference
from qkv_lens.registry import QUALITIES, SceneInfo, find, in_lesson, scenes_for
from qkv_lens.store import Unsafe, clean_parts, escaped, folder_inside, shown, write_atomic
from qkv_lens.texts import use_lesson_texts
from qkv_lens.voice import VoiceError, voice_key, voice_mode


class UsageError(Exception):
    """A bad request (lesson, scene name, font, --out): exit status 2, one line."""


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; unwinds like Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _error(message: str, status: int = 2) -> int:
    """Print ``message`` as one error line (every character a terminal acts
    on escaped, newlines too); return ``status``."""
    say(f"error: {escaped(message)}", error=True)
    return status


def lesson_file(args) -> Path:
    """The lesson file the command reads, as an absolute path: ``--lesson``,
    else QKV_LESSON, else ./lesson.toml, else the shipped lesson.  An empty
    ``--lesson`` or a symlink loop is a UsageError, not the default lesson
    or a traceback."""
    arg = getattr(args, "lesson", None)
    if arg is not None and not arg.strip():
        raise UsageError("--lesson: an empty file name; name a lesson file, or leave --lesson out "
                         "for ./lesson.toml")
    path = Path(arg) if arg is not None else default_lesson_path()
    try:
        return path.resolve()
    except (OSError, RuntimeError):        # Python 3.11 raises RuntimeError on a symlink loop
        raise UsageError(f"{shown(path)}: cannot read the lesson file (a symlink loop)") from None


def resolve(args) -> tuple[Path, dict[str, Lesson], list[SceneInfo]]:
    """Validate the lesson in every requested language, the fonts and the
    scene names (each scene once, however often or however spelt it is
    named); raise UsageError before anything is rendered."""
    lesson_path = lesson_file(args)
    try:
        base = open_lesson(lesson_path)
        lessons = in_languages(base, getattr(args, "lang", None))
        for lang in lessons:
            check_fonts(lang)
        names = getattr(args, "scenes", None) or []
        scenes = pick_scenes(names, base)
    except (LessonError, LanguageError) as err:
        raise UsageError(str(err)) from None
    except KeyError as err:
        raise UsageError(err.args[0]) from None
    return lesson_path, lessons, scenes


def in_languages(lesson: Lesson, lang_arg: str | None) -> dict[str, Lesson]:
    """The lesson in each language ``--lang`` asks for: one language of the
    text tables, ``all`` of them, or (None) the lesson's own.  The language
    is the only field that depends on it: no second read; each is checked
    (its texts complete, every name given in it) by ``for_language``.  With
    ``all``, a language the lesson cannot be shown in (a name it lacks) is
    skipped with one warning line naming what is missing; LessonError only
    when none is left."""
    if lang_arg != "all":
        lang = lang_arg or lesson.language
        return {lang: for_language(lesson, lang)}
    lessons, skipped = {}, []
    for lang in offered():      # all: every language the lesson can be shown in; the others named, skipped
        try:
            lessons[lang] = for_language(lesson, lang)
        except LessonError as err:
            skipped.append((lang, err))
    if not lessons:
        raise skipped[0][1]
    for lang, err in skipped:
        say(f"warning: {lang} skipped: {escaped(str(err))}", error=True)
    return lessons


def one_language(text: str) -> str:
    """``--lang`` of a command that works in one language (not ``all``)."""
    if text == "all":
        raise argparse.ArgumentTypeError("one language of the text tables (this command does not take all)")
    return text


def pick_scenes(names: list[str], lesson: Lesson) -> list[SceneInfo]:
    """The scenes ``names`` names (each once, however often or however
    spelt), else the lesson's own, in its order; KeyError for an unknown name."""
    return list(dict.fromkeys(find(n, lesson.path.parent) for n in names)) if names else in_lesson(lesson)


def open_lesson(path: Path) -> Lesson:
    """The lesson at ``path``, its texts (the teacher's ``texts.toml`` over the
    shipped table) in use; LessonError (one line) for a bad one."""
    use_lesson_texts(path.parent)     # first: a teacher's texts may add the lesson's language
    return load_lesson(path)


def base_lesson(lessons: dict[str, Lesson]) -> Lesson:
    """The lesson behind ``lessons`` (one per language; only the language differs)."""
    return next(iter(lessons.values()))


def check_out(out: Path) -> None:
    """Make sure ``out`` is a folder we can write into (create it, write and
    remove a probe file) before anything renders; UsageError if not."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {shown(out)}: not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        if not os.access(out, os.W_OK | os.X_OK):
            raise UsageError(f"--out {shown(out)}: not writable")
        fd, probe = tempfile.mkstemp(dir=out, prefix=".qkv-lens-probe-")
        try:
            os.write(fd, b"probe")
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as err:
        raise UsageError(f"--out {shown(out)}: cannot write there ({err.strerror or err})") from None


def resolve_voice(args, lesson: Lesson) -> str:
    """--voice, else QKV_VOICE, else the lesson's ``voice``; refused if unknown."""
    mode = getattr(args, "voice", None) or voice_mode(lesson.voice)
    if mode not in VOICES:
        raise UsageError(f"QKV_VOICE={mode!r}: expected one of {', '.join(map(repr, VOICES))}")
    return mode


def check_voice(mode: str, lesson_path: Path, langs, scenes: list[SceneInfo]) -> None:
    """Before anything renders: espeak-ng is there for ``espeak``; every
    recording of the requested scenes is audio for ``recorded`` (UsageError:
    one line, exit status 2)."""
    if mode == "recorded" and lesson_path.resolve() == default_lesson().resolve():
        raise UsageError("--voice recorded reads your recordings from voice/<lang>/<Scene>/ beside your lesson "
                         "file, and this is the shipped lesson: run qkv-lens init here first, then record "
                         "into ./voice/")
    try:
        if mode == "espeak":
            voice.espeak_version()
        elif mode == "recorded":
            for lang in langs:
                for scene in scenes:
                    voice.check_recordings(lesson_path.parent, lang, scene.name)
    except VoiceError as err:
        raise UsageError(str(err)) from None


def check_tools() -> None:
    """Before a manim child runs: LaTeX and dvisvgm are there (UsageError:
    one line with the install command, pointing to ``qkv-lens doctor``)."""
    missing = doctor.first_missing()
    if missing:
        raise UsageError(missing)


def cmd_doctor(args) -> int:
    """Check every system piece qkv-lens uses, for the languages of the
    lesson's text tables (its ``texts.toml`` too); print the install line
    of each missing one."""
    try:
        use_lesson_texts(lesson_file(args).parent)
    except LessonError as err:
        raise UsageError(str(err)) from None
    text, status = doctor.report(doctor.examine())
    sys.stdout.write(lines(text))
    return status


def cmd_keys(args) -> int:
    """Every key of a lesson: what it accepts, its shipped value and what it is."""
    sys.stdout.write(reference())
    return 0


def cmd_list(args) -> int:
    """The lesson's chapters and scenes in order; with --all, every scene there is."""
    try:
        lesson = open_lesson(lesson_file(args))
    except LessonError as err:
        raise UsageError(str(err)) from None
    here = lesson.path.parent
    n = 0
    for chapter in lesson.chapters:
        print(shown(chapter.title.name(lesson.language)))
        for name in chapter.scenes:
            n += 1
            print(f"{n:>4}  {_listed_scene(find(name, here))}")
    rest = [s for s in scenes_for(here) if s.name not in lesson.scene_names]
    if args.all and rest:
        print("not in this lesson:")
        for s in rest:
            print(f"   -  {_listed_scene(s)}")
    return 0


def _listed_scene(s: SceneInfo) -> str:
    """A scene as ``list`` writes it: its class, file and section (each
    shown escaped), and "(yours)" after a teacher's scene."""
    return (f"{shown(s.name):<20} {shown(f'{s.path.parent.name}/{s.module}.py')}  [{shown(s.lesson_section)}]"
            f"{'  (yours)' if s.teacher else ''}")


def page_warning(message: str) -> None:
    say(f"warning: {escaped(message)}", error=True)


def render_lesson(args, quiet: bool = False) -> int:
    """Render what changed; print a summary; rebuild the lesson page."""

    t0 = time.monotonic()
    dask, split = getattr(args, "dask", None), not getattr(args, "no_split", False)
    if dask:
        try:
            cluster.check_address(dask)     # at once: a malformed address never reaches distributed
        except cluster.ClusterError as err:
            return _error(str(err), err.status)
    lesson_path, lessons, scenes = resolve(args)
    mode = resolve_voice(args, next(iter(lessons.values())))
    out = Path(args.out)
    check_voice(mode, lesson_path, lessons, scenes)   # a refused voice creates nothing
    check_tools()
    check_out(out)
    clean_stale_media()
    clean_parts(out)          # temporary files a killed render or export left
    opts = Options(args.quality, args.format, args.transparent, out, lesson_path, mode)
    fmt = video_format(args.format, args.transparent)
    digests, mversion = code_digests(), manim_version()
    entries = manifest.load(out)
    jobs, cached = [], []
    for lang, lesson in lessons.items():
        for scene in scenes:
            key = cache_key(scene, lesson, lang, args.quality, args.format, args.transparent,
                            digests, mversion, voice=voice_key(mode, lesson_path.parent, lang, scene.name))
            job = Job(scene, lang, key)
            old = entries.get(manifest.entry_id(scene.name, lang, QUALITIES[args.quality], fmt))
            fresh = old and old["key"] == key and all(_listed(out, f) for f in old["files"])
            (cached if fresh and not args.force else jobs).append(job)

    display = Display(total=len(jobs) + len(cached), cached=len(cached), quiet=quiet)

    def record(result):
        display.done(result)
        for warning in result.warnings:   # a missing recording: that beat is silent
            display.say(f"warning: {warning}", error=True)
        if not result.ok:
            return
        job = result.job
        manifest.record(out, {
            "scene": job.scene.name, "order": job.scene.number, "key": job.key,
            "language": job.lang, "quality": QUALITIES[args.quality], "format": fmt, "voice": mode,
            "duration": round(result.duration, 3), "width": result.width, "height": result.height,
            "files": [str(f.relative_to(out)) for f in result.files],
            "bytes": sum(f.stat().st_size for f in result.files),
            "render_seconds": round(result.seconds, 2), "pieces": result.pieces,
        })

    results = []
    if jobs and dask:     # on a Dask cluster (qkv_lens.app.cluster); --jobs does not apply
        try:
            with cluster.session(dask, jobs, opts, split) as run, display:
                results = run(on_start=display.started, on_done=record)
        except cluster.ClusterError as err:
            return _error(str(err), err.status)
    elif jobs:
        # longest first; a job that would hold up the rest (or leave cores idle) in pieces at once
        costs = segments.expected_costs(jobs, opts, entries)
        counts = segments.counts(jobs, costs, args.jobs, opts, split)
        pieces = dict(zip(jobs, counts))
        jobs = [job for _, job in sorted(zip(costs, jobs), key=lambda p: -p[0])]
        with display:
            results = run_jobs(jobs, opts, args.jobs, render=partial(render_pieces, pieces=pieces),
                               on_start=display.started, on_done=record)
    failed = [r for r in results if not r.ok]
    page_error = ""
    try:        # always: the lesson's chapters may have changed with nothing to render
        page.build(out, base_lesson(lessons).chapters, lesson_path.parent, warn=page_warning,
                   live=getattr(args, "live_page", False),
                   language=base_lesson(lessons).sections["language"], checkpoints=base_lesson(lessons).checkpoints)
    except page.PageError as err:
        page_error = str(err)
    elapsed = time.monotonic() - t0
    if not jobs:
        display.say(f"nothing changed: {len(cached)} render(s) up to date (hash check, {elapsed:.2f}s)")
    else:
        display.say(f"{len(results) - len(failed)} rendered, {len(cached)} cached, "
                    f"{len(failed)} failed in {elapsed:.1f}s; lesson page: {shown(out / 'index.html')}")
    for r in failed:
        display.say(f"FAILED {shown(r.job.scene.name)} ({r.job.lang}): {r.error}", error=True)
    if page_error:
        display.say(f"error: lesson page not rebuilt: {page_error}", error=True)
    return 1 if failed or page_error else 0


def render_pieces(job: Job, opts: Options, pieces: dict[Job, int]) -> render_mod.Result:
    """``job`` rendered whole, or in ``pieces[job]`` pieces at once (``segments.render_split``)."""
    count = pieces[job]
    return render_mod.render_job(job, opts) if count == 1 else segments.render_split(job, opts, count)


def _listed(out: Path, name: str) -> bool:
    """Whether the file a manifest entry lists is there, inside ``out``."""
    try:
        listed(out, name)
        return True
    except (OSError, Unsafe):
        return False


def cmd_render(args) -> int:
    return render_lesson(args)


def cmd_lesson(args) -> int:
    """Rebuild the page; a missing or damaged manifest, or a missing file it
    lists, is one error line, exit status 1, and the old page stays."""
    out = Path(args.out)
    if not (out / manifest.NAME).is_file():
        return _error(f"{shown(out / manifest.NAME)}: not found; render first (qkv-lens render --out {shown(out)})",
                      1)
    check_out(out)
    try:
        lesson = open_lesson(lesson_file(args))
    except LessonError as err:
        raise UsageError(str(err)) from None
    try:
        path = page.build(out, lesson.chapters, lesson.path.parent, language=lesson.language, warn=page_warning,
                          checkpoints=lesson.checkpoints)
    except page.PageError as err:
        return _error(str(err), 1)
    print(shown(path))
    return 0


def cmd_export(args) -> int:
    """The lesson as lesson.mp4 (chapters), .srt/.vtt, lesson.pptx (and
    --pdf) per language, then the page again, with links to them; a missing
    render is one error line, exit status 1, and nothing is written."""
    try:
        lesson = open_lesson(lesson_file(args))
        scenes = pick_scenes(args.scenes, lesson)
        langs = list(in_languages(lesson, args.lang))
    except LessonError as err:
        raise UsageError(str(err)) from None
    except KeyError as err:
        raise UsageError(err.args[0]) from None
    out = Path(args.out)
    if not (out / export.manifest.NAME).is_file():
        return _error(f"{shown(out / export.manifest.NAME)}: not found; render first "
                      f"(qkv-lens render --out {shown(out)})", 1)
    try:
        written = export.export(out, langs, args.quality, lesson.chapters, scenes, pdf=args.pdf,
                                out_arg=args.out, burn_captions=args.burn_captions, deck=args.deck,
                                checkpoints=lesson.checkpoints, scorm_zip=args.scorm, pass_score=lesson.pass_score,
                                lesson_dir=lesson.path.parent)
    except export.ExportError as err:
        return _error(str(err), 1)
    for path in written:
        print(shown(path))
    try:        # the page links the exports
        print(shown(page.build(out, lesson.chapters, lesson.path.parent, language=lesson.language,
                               warn=page_warning, checkpoints=lesson.checkpoints)))
    except page.PageError as err:
        say(f"warning: the lesson page was not rebuilt: {err}", error=True)
    return 0


def cmd_preview(args) -> int:
    """Render only the last frame of one scene (manim -s) and save it as PNG."""
    import shutil
    import subprocess

    lesson_path, lessons, scenes = resolve(args)
    check_out(Path(args.out))
    check_tools()
    scene = scenes[0]
    lang = next(iter(lessons))
    dest = Path(args.out) / "preview" / lang / f"{scene.name}.png"
    with tempfile.TemporaryDirectory(prefix="qkv-preview-") as tmp:
        cmd = [sys.executable, "-m", "manim", "render", f"-q{args.quality}", "-s", "--progress_bar",
               "none", "--disable_caching", "--media_dir", tmp, str(scene.path), scene.name]
        env = dict(os.environ, QKV_LANG=lang, QKV_LESSON=str(lesson_path))
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        pngs = list(Path(tmp).glob(f"images/**/{scene.name}*.png"))
        if proc.returncode != 0 or not pngs:
            print(lines("\n".join((proc.stderr or proc.stdout).strip().splitlines()[-12:])), file=sys.stderr)
            return _error(f"preview of {shown(scene.name)} failed (manim status {proc.returncode})", 1)
        try:     # renders/preview/<lang>/ inside --out, the file replaced (never written through)
            folder_inside(Path(args.out), f"preview/{lang}")
            write_atomic(dest, lambda tmp: shutil.copyfile(pngs[0], tmp))
        except Unsafe as err:
            return _error(str(err), 1)
    print(shown(dest))
    return 0


def cmd_watch(args) -> int:
    resolve(args)  # a bad lesson, missing LaTeX or a bad --out is refused before watching
    check_tools()
    check_out(Path(args.out))
    args.live_page = True       # an open lesson page reloads when a render changes it
    return watch(args, render_lesson)


def cmd_script(args) -> int:
    """The recording script of one scene: every beat's id, its text, the time
    it has now (from a dry run of the scene in a manim child) and where its
    recording goes."""
    import subprocess


    lesson_path, lessons, scenes = resolve(args)
    scene, (lang, lesson) = scenes[0], next(iter(lessons.items()))
    mode = resolve_voice(args, lesson)
    check_voice(mode, lesson_path, [lang], [scene])
    check_tools()
    with tempfile.TemporaryDirectory(prefix=f"{MEDIA_PREFIX}{os.getpid()}-") as tmp:
        beats_file = Path(tmp) / "beats.json"
        cmd = [sys.executable, "-m", "manim", "render", "--dry_run", "-ql", "--progress_bar", "none",
               "--disable_caching", "--media_dir", tmp, str(scene.path), scene.name]
        env = dict(os.environ, QKV_LANG=lang, QKV_LESSON=str(lesson_path), QKV_VOICE=mode,
                   QKV_BEATS_OUT=str(beats_file))
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0 or not beats_file.is_file():
            print(lines("\n".join((proc.stderr or proc.stdout).strip().splitlines()[-12:])), file=sys.stderr)
            return _error(f"dry run of {shown(scene.name)} failed (manim status {proc.returncode})", 1)
        beats = parse_beats(beats_file.read_bytes(), shown(beats_file))
    text = script_text(scene.name, lang, mode, lesson_path.parent, beats)
    if args.out:
        try:
            write_atomic(Path(args.out), text.encode("utf-8"))
        except OSError as err:
            raise UsageError(f"--out {shown(args.out)}: cannot write it ({err.strerror or err})") from None
        print(shown(args.out))
    else:
        sys.stdout.write(lines(text))
    return 0


def _shown(path: Path) -> str:
    """``path`` relative to the current folder when it lies inside it (escaped for a message)."""
    try:
        return shown(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return shown(path)


def script_text(scene: str, lang: str, mode: str, lesson_dir: Path, beats: Beats) -> str:
    """The recording script: a header, then per beat ``[id] seconds s -> path
    (state)`` and its sentence."""
    total = sum(b.end - b.start for b in beats)
    folder = voice.recordings_dir(lesson_dir, lang, scene)
    out = [f"# Recording script: {scene} ({lang}), {len(beats)} beats, {total:.1f} s of narration "
           f"now (voice: {mode})",
           f"# One recording per beat in {_shown(folder)}/, named <beat-id>.wav (or .mp3, .m4a);",
           "# a beat lasts at least as long as its recording plus a short pause.",
           "# Render with it: qkv-lens render --voice recorded", ""]
    for b in beats:
        found = voice.recording_path(lesson_dir, lang, scene, b.id)
        if found is None:
            state, where = "missing", voice.expected_recording(lesson_dir, lang, scene, b.id)
        else:
            state, where = f"recorded, {voice.recorded_clip(found).seconds:.2f} s", found
        out += [f"[{b.id}] {b.end - b.start:.2f} s -> {_shown(where)} ({state})", b.say, ""]
    strays = voice.stray_recordings(lesson_dir, lang, scene, [b.id for b in beats])
    out += [f"# warning: {line}" for line in strays]
    return "\n".join(out) + ("\n" if strays else "")


def version_text() -> str:
    from importlib.metadata import version
    return f"qkv-lens {version('qkv-lens')} (manim {version('manim')})"


# What ``qkv-lens init`` writes: the shipped lesson to edit, and manim's
# settings for the plain manim CLI (manim's own cache off, media in ./media).
INIT_FILES = ("lesson.toml", "manim.cfg")


_LANGUAGE_LINE = re.compile(r'^language = "[a-z]+"', re.M)


def lesson_in(lang: str | None) -> bytes:
    """The shipped lesson.toml, with its ``language`` set to ``lang`` (None:
    as shipped); the rest of the file, its comments too, as it is."""
    from importlib import resources

    text = resources.files("qkv_lens").joinpath("lesson.toml").read_text(encoding="utf-8")
    if lang is not None:
        text, n = _LANGUAGE_LINE.subn(f'language = "{lang}"', text, count=1)
        if n != 1:
            raise RuntimeError("the shipped lesson.toml has no language line")
    return text.encode("utf-8")


def cmd_init(args) -> int:
    """Write the shipped lesson.toml (in --lang) and manim.cfg into a folder
    (default: here); never overwrites a file unless --force."""
    from importlib import resources

    folder = Path(args.folder)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{shown(folder)}: not a folder; name a folder to write the lesson into")
    existing = [name for name in INIT_FILES if os.path.lexists(folder / name)]
    if existing and not args.force:
        raise UsageError(f"{shown(folder / existing[0])} exists; keep it, or write over it with --force")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name in INIT_FILES:
            data = lesson_in(args.lang) if name == "lesson.toml" else \
                resources.files("qkv_lens").joinpath(name).read_bytes()
            write_atomic(folder / name, data)
            print(shown(folder / name))
    except OSError as err:
        raise UsageError(f"{shown(err.filename or folder)}: cannot write there ({err.strerror or err})") from None
    lang = args.lang or load_lesson(folder / "lesson.toml").language
    here = "" if folder.resolve() == Path.cwd().resolve() else f"cd {shown(folder)} && "
    print(f"next: {here}qkv-lens render   (the lesson in {lang}, 720p30, into renders/; then open "
          f"renders/index.html)\n      qkv-lens new MyScene   (a scene of your own: docs/tutorial.md)")
    return 0


def cmd_new(args) -> int:
    """Write a new scene of the teacher's beside the lesson (``qkv_lens.app.scaffold``)."""
    from qkv_lens.app.scaffold import ScaffoldError, new_scene

    try:
        written = new_scene(lesson_file(args), args.name)
    except ScaffoldError as err:
        raise UsageError(str(err)) from None
    for path in written:
        print(shown(path))
    return 0


CLASS_QUALITY = "m"     # 720p30: what a projector shows sharp and smooth; l (480p15) is the draft


def default_quality() -> str:
    """The quality ``render`` and ``export`` use unless ``-q`` says: QKV_QUALITY
    (one of l, m, h, k; anything else is ignored), else 720p30 (m).  ``watch``
    and ``preview`` draw drafts (l)."""
    env = os.environ.get("QKV_QUALITY", "")
    return env if env in QUALITIES else CLASS_QUALITY


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="qkv-lens", description=__doc__.replace("``", ""),   # plain text, not rST
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=version_text())
    sub = p.add_subparsers(dest="command", required=True)
    ini = sub.add_parser("init", help="write lesson.toml (the default lesson) and manim.cfg to edit")
    ini.add_argument("folder", nargs="?", default=".", help="where (default: here)")
    ini.add_argument("--force", action="store_true", help="write over existing files")
    ini.add_argument("--lang", choices=list(offered()), default=None,
                     help="the lesson's language: what render, the page and export use by default "
                          "(default: as shipped, en)")
    ini.set_defaults(func=cmd_init)
    nw = sub.add_parser("new", help="write a scene of your own beside the lesson: my_scenes/<name>.py, its "
                                    "lesson section, its texts in every language and its test")
    nw.add_argument("name", help="the scene's name: CamelCase (MyScene) or snake_case (my_scene)")
    nw.add_argument("--lesson", help="lesson file (default: QKV_LESSON or ./lesson.toml)")
    nw.set_defaults(func=cmd_new)
    ls = sub.add_parser("list", help="the lesson's scenes, in order, under its chapters")
    ls.add_argument("--all", action="store_true", help="also the scenes the lesson leaves out")
    ls.add_argument("--lesson", help="lesson file (default: QKV_LESSON or ./lesson.toml)")
    ls.set_defaults(func=cmd_list)
    doc = sub.add_parser("doctor", help="check LaTeX, dvisvgm, the fonts and espeak-ng voices of the lesson's "
                                        "languages, and Chromium; print how to install what is missing")
    doc.add_argument("--lesson", help="lesson file whose languages are checked (default: QKV_LESSON or "
                                      "./lesson.toml)")
    doc.set_defaults(func=cmd_doctor)
    sub.add_parser("keys", help="every key of a lesson: what it accepts, its shipped value, what it is"
                   ).set_defaults(func=cmd_keys)

    def common(sp):
        sp.add_argument("--lesson", help="lesson file (default: QKV_LESSON or ./lesson.toml)")
        sp.add_argument("--out", default="renders", help="output folder (default renders/)")

    r = sub.add_parser("render", help="render what changed into renders/<lang>/<quality>/")
    r.add_argument("scenes", nargs="*", metavar="SCENE", help="scene names (default: the lesson's)")
    r.add_argument("-q", "--quality", choices=list(QUALITIES), default=default_quality(),
                   help="l=480p15 (a draft), m=720p30 (for class), h=1080p60, k=2160p60 "
                        "(default: QKV_QUALITY, else m)")
    r.add_argument("--lang", default=None, metavar="LANG",
                   help="a language of the text tables (zh, en, ...), or all (default: the lesson file's)")
    r.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                   help="scenes rendered at once (default: number of cores)")
    r.add_argument("--format", choices=["mp4", "webm", "gif"], default="mp4")
    r.add_argument("--transparent", action="store_true",
                   help="transparent background: webm is VP9 with alpha; mp4 cannot carry alpha, so it "
                        "becomes a QuickTime .mov (lossless Animation/qtrle codec, argb) for video "
                        "editors and slides, which the lesson page links instead of playing")
    r.add_argument("--force", action="store_true", help="render even when the cache is up to date")
    r.add_argument("--no-split", action="store_true",
                   help="render every scene whole: never cut a scene into pieces rendered at once (which "
                        "happens with fewer scenes than --jobs or Dask threads, or one scene that would hold "
                        "up the rest; docs/design.md, One scene in pieces)")
    r.add_argument("--dask", metavar="ADDRESS", default=os.environ.get("QKV_DASK") or None,
                   help="render on a Dask cluster: the scheduler's address, like tcp://HOST:8786 "
                        "(default: QKV_DASK; needs pip install qkv-lens[cluster]; see docs/cluster.md)")
    voice_option(r)
    common(r)
    r.set_defaults(func=cmd_render)

    les = sub.add_parser("lesson", help="rebuild renders/index.html from the manifest")
    les.add_argument("--out", default="renders")
    les.add_argument("--lesson", help="lesson file whose chapters the page follows "
                                      "(default: QKV_LESSON or ./lesson.toml)")
    les.set_defaults(func=cmd_lesson)

    ex = sub.add_parser("export", help="the whole lesson as one video with chapters, subtitles and a "
                                       "slide deck, into renders/<lang>/<quality>/lesson.*")
    ex.add_argument("scenes", nargs="*", metavar="SCENE",
                    help="export these scenes only, in the lesson's order (default: the lesson's)")
    ex.add_argument("--lang", default=None, metavar="LANG",
                    help="a language of the text tables (zh, en, ...), or all (default: the lesson file's)")
    ex.add_argument("-q", "--quality", choices=list(QUALITIES), default=default_quality(),
                    help="the renders to join: l=480p15, m=720p30, h=1080p60, k=2160p60 "
                         "(default: QKV_QUALITY, else m)")
    ex.add_argument("--pdf", action="store_true", help="also a PDF handout: poster, summary, key formula")
    ex.add_argument("--scorm", action="store_true",
                    help="also lesson.scorm.zip: the page and its clips as a SCORM 1.2 package for a learning "
                         "platform (Moodle, Canvas)")
    ex.add_argument("--deck", choices=["scenes", "beats"], default="scenes",
                    help="the deck: lesson.pptx, one slide per scene (default), or lesson.beats.pptx, one per "
                         "beat, each playing its beat's part of the clip with its sentence in the notes, as "
                         "manim-slides does (slower: the clips are cut and encoded again)")
    ex.add_argument("--burn-captions", action="store_true",
                    help="draw the subtitles into lesson.mp4's picture, for players that ignore its text "
                         "tracks (the video is encoded again: slower)")
    common(ex)
    ex.set_defaults(func=cmd_export)

    pv = sub.add_parser("preview", help="the last frame of one scene as PNG, in seconds")
    pv.add_argument("scenes", nargs=1, metavar="SCENE")
    pv.add_argument("--lang", default=None, metavar="LANG", type=one_language,
                    help="a language of the text tables (zh, en, ...)")
    pv.add_argument("-q", "--quality", choices=list(QUALITIES), default="l")
    common(pv)
    pv.set_defaults(func=cmd_preview)

    w = sub.add_parser("watch", help="re-render (at -q l) what changes on disk; refresh the page")
    w.add_argument("--lang", default=None, metavar="LANG", help="a language of the text tables, or all")
    w.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    voice_option(w)
    common(w)
    w.set_defaults(func=cmd_watch, scenes=[], quality="l", format="mp4", transparent=False,
                   force=False)

    sc = sub.add_parser("script", help="the recording script of one scene: beat ids, texts, times, file names")
    sc.add_argument("scenes", nargs=1, metavar="SCENE")
    sc.add_argument("--lang", default=None, metavar="LANG", type=one_language,
                    help="a language of the text tables (zh, en, ...)")
    sc.add_argument("--lesson", help="lesson file (default: QKV_LESSON or ./lesson.toml)")
    sc.add_argument("--out", metavar="FILE", help="write the script there (default: print it)")
    voice_option(sc, "the voice the times are measured with")
    sc.set_defaults(func=cmd_script)
    return p


def voice_option(sp, what: str = "the narration's voice") -> None:
    sp.add_argument("--voice", choices=list(VOICES), default=None,
                    help=f"{what}: none (silent), espeak (a robotic draft voice made offline by espeak-ng, "
                         "to time the clips before recording) or recorded (your recordings, "
                         "voice/<lang>/<Scene>/<beat-id>.wav beside the lesson; see qkv-lens script); "
                         "default: QKV_VOICE or the lesson's voice key")


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "jobs", 1) < 1:
        return _error("--jobs must be at least 1")
    handled = (signal.SIGINT, signal.SIGTERM)
    in_main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, _raise_interrupted) for sig in handled} if in_main else {}
    try:
        return args.func(args)
    except UsageError as err:
        return _error(str(err))
    except KeyboardInterrupt as err:
        signum = getattr(err, "signum", signal.SIGINT)
        return _error(f"interrupted ({signal.Signals(signum).name}); the previous renders and "
                      f"manifest are kept", 128 + signum)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


if __name__ == "__main__":
    raise SystemExit(main())
