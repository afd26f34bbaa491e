"""The ``qkv-lens`` command: list, render, lesson, preview, watch."""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from pathlib import Path

from scenes.kit.fonts import FontMissing, font_for
from scenes.kit.lesson import LANGUAGES, Lesson, LessonError, default_lesson_path, load_lesson
from scenes.pipeline.registry import QUALITIES, SCENES, SceneInfo, find


class UsageError(Exception):
    """A bad request (lesson, scene name, font): exit status 2, one line."""


def _error(message: str, status: int = 2) -> int:
    print(f"qkv-lens: error: {message}", file=sys.stderr)
    return status


def resolve(args) -> tuple[Path, dict[str, Lesson], list[SceneInfo]]:
    """Validate the lesson in every requested language, the fonts and the
    scene names; raise UsageError before anything is rendered."""
    lesson_path = (Path(args.lesson) if args.lesson else default_lesson_path()).resolve()
    try:
        base = load_lesson(lesson_path)
        lang_arg = getattr(args, "lang", None)
        langs = list(LANGUAGES) if lang_arg == "all" else [lang_arg or base.language]
        # The language is the only field that depends on it: no second read.
        lessons = {lang: dataclasses.replace(base, language=lang) for lang in langs}
        for lang in langs:
            font_for(lang)
        names = getattr(args, "scenes", None) or []
        scenes = [find(n) for n in names] if names else list(SCENES)
    except (LessonError, FontMissing) as err:
        raise UsageError(str(err)) from None
    except KeyError as err:
        raise UsageError(err.args[0]) from None
    return lesson_path, lessons, scenes


def cmd_list(args) -> int:
    for s in SCENES:
        print(f"{s.number:>2}  {s.name:<20} scenes/{s.module}.py  [{s.lesson_section}]")
    return 0


def render_lesson(args, quiet: bool = False) -> int:
    """Render what changed; print a summary; rebuild the lesson page."""
    from scenes.pipeline import manifest, page
    from scenes.pipeline.cache import cache_key, code_digests, manim_version
    from scenes.pipeline.progress import Display
    from scenes.pipeline import render as render_mod
    from scenes.pipeline.render import Job, Options, run_jobs

    t0 = time.monotonic()
    lesson_path, lessons, scenes = resolve(args)
    out = Path(args.out)
    opts = Options(args.quality, args.format, args.transparent, out, lesson_path)
    digests, mversion = code_digests(), manim_version()
    entries = manifest.load(out)
    jobs, cached = [], []
    for lang, lesson in lessons.items():
        for scene in scenes:
            key = cache_key(scene, lesson, lang, args.quality, args.format, args.transparent,
                            digests, mversion)
            job = Job(scene, lang, key)
            old = entries.get(manifest.entry_id(scene.name, lang, QUALITIES[args.quality], args.format))
            fresh = old and old["key"] == key and all((out / f).exists() for f in old["files"])
            (cached if fresh and not args.force else jobs).append(job)

    display = Display(total=len(jobs) + len(cached), cached=len(cached), quiet=quiet)

    def record(result):
        display.done(result)
        if not result.ok:
            return
        job = result.job
        manifest.record(out, {
            "scene": job.scene.name, "order": job.scene.number, "key": job.key,
            "language": job.lang, "quality": QUALITIES[args.quality], "format": args.format,
            "duration": round(result.duration, 3), "width": result.width, "height": result.height,
            "files": [str(f.relative_to(out)) for f in result.files],
            "bytes": sum(f.stat().st_size for f in result.files),
            "render_seconds": round(result.seconds, 2),
        })

    results = []
    if jobs:
        with display:
            results = run_jobs(jobs, opts, args.jobs, render=render_mod.render_job,
                               on_start=display.started, on_done=record)
    failed = [r for r in results if not r.ok]
    if jobs or not (out / "index.html").exists():
        page.build(out)
    elapsed = time.monotonic() - t0
    if not jobs:
        display.say(f"nothing changed: {len(cached)} render(s) up to date (hash check, {elapsed:.2f}s)")
    else:
        display.say(f"{len(results) - len(failed)} rendered, {len(cached)} cached, "
                    f"{len(failed)} failed in {elapsed:.1f}s; lesson page: {out / 'index.html'}")
    for r in failed:
        display.say(f"FAILED {r.job.scene.name} ({r.job.lang}): {r.error}", error=True)
    return 1 if failed else 0


def cmd_render(args) -> int:
    return render_lesson(args)


def cmd_lesson(args) -> int:
    from scenes.pipeline import page
    path = page.build(Path(args.out))
    print(path)
    return 0


def cmd_preview(args) -> int:
    """Render only the last frame of one scene (manim -s) and save it as PNG."""
    import shutil
    import subprocess
    import tempfile

    lesson_path, lessons, scenes = resolve(args)
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
            print("\n".join((proc.stderr or proc.stdout).strip().splitlines()[-12:]), file=sys.stderr)
            return _error(f"preview of {scene.name} failed (manim status {proc.returncode})", 1)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(pngs[0], dest)
    print(dest)
    return 0


def cmd_watch(args) -> int:
    from scenes.pipeline.watch import watch
    return watch(args, render_lesson)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="qkv-lens", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the lesson's scenes").set_defaults(func=cmd_list)

    def common(sp, scenes_nargs="*"):
        sp.add_argument("--lesson", help="lesson file (default: QKV_LESSON or ./lesson.toml)")
        sp.add_argument("--out", default="renders", help="output folder (default renders/)")

    r = sub.add_parser("render", help="render what changed into renders/<lang>/<quality>/")
    r.add_argument("scenes", nargs="*", metavar="SCENE", help="scene names (default: all)")
    r.add_argument("-q", "--quality", choices=list(QUALITIES), default="l",
                   help="l=480p15, m=720p30, h=1080p60, k=2160p60 (default l)")
    r.add_argument("--lang", choices=[*LANGUAGES, "all"], default=None,
                   help="language, or all (default: the lesson file's)")
    r.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1,
                   help="scenes rendered at once (default: number of cores)")
    r.add_argument("--format", choices=["mp4", "webm", "gif"], default="mp4")
    r.add_argument("--transparent", action="store_true", help="transparent background (mp4 gives .mov)")
    r.add_argument("--force", action="store_true", help="render even when the cache is up to date")
    common(r)
    r.set_defaults(func=cmd_render)

    les = sub.add_parser("lesson", help="rebuild renders/index.html from the manifest")
    les.add_argument("--out", default="renders")
    les.set_defaults(func=cmd_lesson)

    pv = sub.add_parser("preview", help="the last frame of one scene as PNG, in seconds")
    pv.add_argument("scenes", nargs=1, metavar="SCENE")
    pv.add_argument("--lang", choices=list(LANGUAGES), default=None)
    pv.add_argument("-q", "--quality", choices=list(QUALITIES), default="l")
    common(pv)
    pv.set_defaults(func=cmd_preview)

    w = sub.add_parser("watch", help="re-render (at -q l) what changes on disk; refresh the page")
    w.add_argument("--lang", choices=[*LANGUAGES, "all"], default=None)
    w.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    common(w)
    w.set_defaults(func=cmd_watch, scenes=[], quality="l", format="mp4", transparent=False,
                   force=False)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "jobs", 1) < 1:
        return _error("--jobs must be at least 1")
    try:
        return args.func(args)
    except UsageError as err:
        return _error(str(err))
    except KeyboardInterrupt:
        return _error("interrupted; the previous renders and manifest are kept", 130)


if __name__ == "__main__":
    raise SystemExit(main())
