"""The ``qkv-lens`` command: list and render the lesson's scenes."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scenes.kit.fonts import FontMissing, font_for
from scenes.kit.lesson import LANGUAGES, LessonError, default_lesson_path, load_lesson
from scenes.registry import QUALITIES, SCENES, find


def _error(message: str, status: int = 2) -> int:
    print(f"qkv-lens: error: {message}", file=sys.stderr)
    return status


def cmd_list(args) -> int:
    for s in SCENES:
        print(f"{s.number:>2}  {s.name:<20} scenes/{s.module}.py  [{s.section}]")
    return 0


def cmd_render(args) -> int:
    from scenes.render import render_one

    lesson_path = Path(args.lesson) if args.lesson else default_lesson_path()
    try:
        base = load_lesson(lesson_path)
        langs = list(LANGUAGES) if args.lang == "all" else [args.lang or base.language]
        for lang in langs:
            load_lesson(lesson_path, language=lang)
            font_for(lang)
        scenes = [find(n) for n in args.scenes] if args.scenes else list(SCENES)
    except (LessonError, FontMissing) as err:
        return _error(str(err))
    except KeyError as err:
        return _error(err.args[0])
    out = Path(args.out)
    jobs = [(s, lang) for lang in langs for s in scenes]
    failed = 0
    for i, (scene, lang) in enumerate(jobs, 1):
        print(f"[{i}/{len(jobs)}] {scene.name} ({lang}, {QUALITIES[args.quality]}) ...", flush=True)
        r = render_one(scene, lang, args.quality, out, lesson_path.resolve())
        if r.ok:
            print(f"    done in {r.seconds:.1f}s -> {', '.join(str(f) for f in r.files)}", flush=True)
        else:
            failed += 1
            print(f"    FAILED after {r.seconds:.1f}s: {r.error}", file=sys.stderr, flush=True)
    if failed:
        print(f"qkv-lens: {failed} of {len(jobs)} renders failed", file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="qkv-lens", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the lesson's scenes").set_defaults(func=cmd_list)
    r = sub.add_parser("render", help="render scenes into renders/<lang>/<quality>/")
    r.add_argument("scenes", nargs="*", metavar="SCENE", help="scene names (default: all)")
    r.add_argument("-q", "--quality", choices=list(QUALITIES), default="l",
                   help="l=480p15, m=720p30, h=1080p60, k=2160p60 (default l)")
    r.add_argument("--lang", choices=[*LANGUAGES, "all"], default=None,
                   help="language (default: the lesson file's)")
    r.add_argument("--lesson", help="lesson file (default: QKV_LESSON or ./lesson.toml)")
    r.add_argument("--out", default="renders", help="output folder (default renders/)")
    r.set_defaults(func=cmd_render)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return _error("interrupted; finished renders are kept", 130)


if __name__ == "__main__":
    raise SystemExit(main())
