"""`make bench`: figures of the render pipeline, printed (never asserted).

One run, in a scratch folder, with its own cache folder (QKV_CACHE_DIR:
training runs and typeset formulas start empty, as on a fresh machine):

1. a cold render of the whole lesson in one language at -ql, serial and
   with --jobs 2, and the speed-up;
2. the no-op re-render, and a one-parameter edit (which scenes it
   re-rendered, its time against rendering that scene alone, --force, from
   the same cache: both typeset the edited numbers);
3. the whole lesson in every language with --jobs 2 at -ql and at -qm, and
   `make render`'s default (the lesson's language at -qm, --jobs 2) against
   the old default (every language at -ql) from the same run;
4. render seconds per second of video for each scene: -ql from the serial
   cold render, -ql again with the typesetting cache warm, -qm serial (the
   scene's own cost), from the every-language run (two jobs at once: each
   job's time, with the other job's encoder on the same cores) and from
   make render's default run (-qm, --jobs 2: a long scene in two pieces),
   and -qh (serial, one language);
5. the same -ql render on a loopback Dask cluster (a scheduler and two
   single-threaded workers on this machine) against --jobs 2;
6. the longest scene alone, whole (--jobs 1) against split in two pieces
   at once (--jobs 2, qkv_lens.app.segments), at -ql and -qm, paired;
7. on a loopback cluster of two single-threaded workers (--dask-workers):
   the longest scene whole (--no-split) against in pieces, one a worker,
   at -ql and -qm; and the whole lesson in one language at -qh, whole
   scenes (--no-split) against the pieces the rule chooses
   (segments.pieces_for, from the -ql render's manifest): each run's time,
   its longest job (what bounds it once there are as many workers as jobs)
   and its work over the workers (what bounds it with fewer).

--no-high skips -qh (and 7's lesson), --no-dask skips 5 and 7, --quick does
only 1, 2 and the -ql ratios; --split SCENE does only 6, for SCENE, three rounds (the full run: one);
--dask-split does only 7 (after a -ql render that finds the longest scene
and seeds the costs; with --quick its scene only at -ql; --dask-quality
sets its lesson's quality, -qh by default).  Compare ratios within one run:
machines are noisy.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from qkv_lens.lesson import default_lesson
from qkv_lens.registry import QUALITIES

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ)


def qkv(*args: str) -> tuple[float, str]:
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "qkv_lens", *args], cwd=ROOT, capture_output=True, text=True,
                       env=ENV)
    took = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"bench: qkv-lens {' '.join(args)} failed:\n{p.stderr[-2000:]}")
    return took, p.stdout + p.stderr


def manifest(out: Path) -> list[dict]:
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))["renders"]


def ratios(out: Path, lang: str | None = None) -> dict[str, float]:
    """Render seconds per video second, by scene (one language)."""
    return {e["scene"]: e["render_seconds"] / e["duration"] for e in manifest(out)
            if lang is None or e["language"] == lang}


def default_lesson_language(lesson: Path) -> str:
    from qkv_lens.lesson import load_lesson
    return load_lesson(lesson).language


def step(what: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {what} ...", file=sys.stderr, flush=True)


def dask_render(common: list[str], out: Path, tmp: Path) -> float:
    """Seconds to render ``common`` on a loopback cluster (a scheduler and
    two single-threaded workers on this machine)."""
    from qkv_lens.app.cluster import loopback_cluster
    with loopback_cluster(tmp, 2, cwd=ROOT, env=ENV) as address:
        took, _ = qkv("render", *common, "--out", str(out), "--dask", address)
    return took


def whole_against_pieces(args: list[str], whole: list[str], pieces: list[str], count: int,
                         rounds: int) -> dict[str, list[float]]:
    """Seconds of ``render args`` with the ``whole`` options and with the
    ``pieces`` options (``count`` pieces), ``rounds`` times each,
    alternating, after one untimed whole render (it warms the cache and
    leaves the beats file the cuts are planned from); exits when a render
    meant to be split was not."""
    qkv("render", *args, *whole)
    times: dict[str, list[float]] = {"whole": [], "pieces": []}
    for _ in range(rounds):
        for how, extra in (("whole", whole), ("pieces", pieces)):
            took, said = qkv("render", *args, *extra)
            if how == "pieces" and f"in {count} pieces at once" not in said:
                sys.exit(f"bench: {args[0]} was not split: {said.strip().splitlines()[-1]}")
            times[how].append(took)
    return times


def split_figures(scene: str, lang: str, lesson: Path, tmp: Path, qualities=("l", "m"), rounds: int = 3) -> None:
    """``render SCENE --jobs 1`` against ``--jobs 2`` (two pieces at once),
    ``rounds`` times each, alternating (``whole_against_pieces``): the best
    of each, and the median of the ratios of each split to the whole
    render before it (steadier on a machine whose speed drifts)."""
    for q in qualities:
        out = tmp / f"split-{q}"
        args = [scene, "--lang", lang, "--lesson", str(lesson), "--out", str(out), "-q", q, "--force"]
        step(f"{scene} -q{q}: whole against two pieces")
        times = whole_against_pieces(args, ["--jobs", "1"], ["--jobs", "2"], 2, rounds)
        one, two = min(times["whole"]), min(times["pieces"])
        paired = [b / a for a, b in zip(times["whole"], times["pieces"])]   # each split against the whole before it
        print(f"{scene} -q{q} {lang}: --jobs 1 (whole) {one:6.1f} s, --jobs 2 (two pieces) {two:6.1f} s: "
              f"{two / one:.2f}x best of {rounds}, {statistics.median(paired):.2f}x paired median "
              f"(all: {times['whole']} / {times['pieces']})")


def dask_split(common: list[str], lang: str, lesson: Path, tmp: Path, seed: Path, lesson_quality: str | None,
               qualities=("l", "m"), rounds: int = 1, workers: int = 2) -> None:
    """Figure 7 on one loopback cluster of ``workers`` single-threaded
    workers: the longest scene of ``seed`` (a -ql render of ``common``)
    whole against in pieces; then ``common`` at ``lesson_quality`` (None:
    not), each run from a copy of ``seed``, whose manifest gives the rule
    its costs."""
    from qkv_lens.app.cluster import loopback_cluster
    scene = max(manifest(seed), key=lambda e: e["render_seconds"])["scene"]
    (tmp / "dask-split").mkdir()
    with loopback_cluster(tmp / "dask-split", workers, cwd=ROOT, env=ENV) as address:
        for q in qualities:
            args = [scene, "--lang", lang, "--lesson", str(lesson), "--out", str(tmp / f"dask-split-{q}"),
                    "-q", q, "--force", "--dask", address]
            step(f"{scene} -q{q} on the loopback cluster: whole against {workers} pieces")
            times = whole_against_pieces(args, ["--no-split"], [], workers, rounds)
            whole, pieces = min(times["whole"]), min(times["pieces"])
            print(f"{scene} -q{q} {lang} on {workers} loopback workers: whole (--no-split) {whole:6.1f} s, "
                  f"{workers} pieces {pieces:6.1f} s: {pieces / whole:.2f}x  (best of {rounds})")
        if lesson_quality is None:
            return
        quality = QUALITIES[lesson_quality]
        print(f"the lesson, {lang}, -q{lesson_quality}, on {workers} loopback workers, costs from a -ql render:")
        for how, name, extra in (("whole scenes", "whole", ["--no-split"]), ("segments", "pieces", [])):
            out = tmp / f"lesson-{lesson_quality}-{name}"
            shutil.copytree(seed, out)
            step(f"the lesson -q{lesson_quality} on the loopback cluster, {how}")
            took, _ = qkv("render", *common, "--out", str(out), "-q", lesson_quality, "--force", "--dask", address,
                          *extra)
            entries = [e for e in manifest(out) if e["quality"] == quality]
            longest = max(entries, key=lambda e: e["render_seconds"])
            work = sum(e["render_seconds"] * e.get("pieces", 1) for e in entries)
            cut = ", ".join(f"{e['scene']} in {e['pieces']}" for e in entries if e.get("pieces", 1) > 1)
            print(f"  {how:<13} {took:7.1f} s; longest job {longest['scene']} {longest['render_seconds']:.1f} s; "
                  f"work / {workers} workers {work / workers:.1f} s; pieces: {cut or 'none'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-high", action="store_true", help="skip the -qh figures")
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask figures")
    ap.add_argument("--quick", action="store_true", help="only the -ql figures (1, 2 and -ql ratios)")
    ap.add_argument("--lang", default="en", help="the language of the one-language figures (default en)")
    ap.add_argument("--split", metavar="SCENE", help="only the whole-against-split figures, for SCENE")
    ap.add_argument("--dask-split", action="store_true",
                    help="only the whole-against-pieces figures on a loopback cluster (7)")
    ap.add_argument("--dask-quality", choices=list(QUALITIES), default="h",
                    help="the quality of 7's whole-lesson figure (default h)")
    ap.add_argument("--dask-workers", type=int, default=2, metavar="N",
                    help="the loopback workers of 7 (default 2; one a core)")
    ap.add_argument("--scenes", nargs="+", default=[], metavar="SCENE",
                    help="only these scenes (WorkedExample among them): a quick check of this tool")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="qkv-bench-"))
    ENV["QKV_CACHE_DIR"] = str(tmp / "cache")
    lesson = tmp / "lesson.toml"
    shutil.copyfile(default_lesson(), lesson)
    common = [*args.scenes, "--lang", args.lang, "--lesson", str(lesson)]
    both = [*args.scenes, "--lang", "all", "--lesson", str(lesson)]
    cols: dict[str, dict[str, float]] = {}
    if args.split:
        try:
            split_figures(args.split, args.lang, lesson, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    if args.dask_split:
        try:
            step("cold -ql, --jobs 2 (the costs)")
            qkv("render", *common, "--out", str(tmp / "seed"), "--jobs", "2")
            dask_split(common, args.lang, lesson, tmp, tmp / "seed", None if args.no_high else args.dask_quality,
                       qualities=("l",) if args.quick else ("l", "m"), workers=args.dask_workers)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    try:
        step("cold -ql, serial")
        serial, _ = qkv("render", *common, "--out", str(tmp / "serial"), "--jobs", "1")
        cols["-ql cold"] = ratios(tmp / "serial")
        ENV["QKV_CACHE_DIR"] = str(tmp / "cache2")          # cold again, for the parallel render
        step("cold -ql, --jobs 2")
        parallel, _ = qkv("render", *common, "--out", str(tmp / "par"), "--jobs", "2")
        what = ", ".join(args.scenes) if args.scenes else "whole lesson"
        print(f"cold render, {what}, -ql, {args.lang}:")
        print(f"  serial (--jobs 1)   {serial:7.1f} s")
        print(f"  parallel (--jobs 2) {parallel:7.1f} s   speed-up {serial / parallel:.2f}x")
        noop, said = qkv("render", *common, "--out", str(tmp / "par"))
        print(f"no-op re-render       {noop:7.2f} s   ({said.strip().splitlines()[-1]})")

        solo = {e["scene"]: e["render_seconds"] for e in manifest(tmp / "serial")}
        before = {e["scene"]: e["key"] for e in manifest(tmp / "par")}
        # the edit, against the edited scene rendered alone (--force, a fresh
        # folder) from the same cache: both typeset the edited numbers
        shutil.copytree(ENV["QKV_CACHE_DIR"], tmp / "cache-before-edit")
        text = lesson.read_text(encoding="utf-8")
        lesson.write_text(text.replace("x = [3, 4]", "x = [3, 5]"), encoding="utf-8")
        step("one-parameter edit")
        edit, _ = qkv("render", *common, "--out", str(tmp / "par"))
        after = {e["scene"]: e["key"] for e in manifest(tmp / "par")}
        redone = sorted(s for s in after if after[s] != before.get(s))
        if redone != ["WorkedExample"]:
            sys.exit(f"bench: the edit of worked_example.x re-rendered {redone}, not WorkedExample alone")
        cache_now, ENV["QKV_CACHE_DIR"] = ENV["QKV_CACHE_DIR"], str(tmp / "cache-before-edit")
        alone, _ = qkv("render", *redone, "--lang", args.lang, "--lesson", str(lesson), "--out", str(tmp / "alone"),
                       "--force")
        ENV["QKV_CACHE_DIR"] = cache_now
        lesson.write_text(text, encoding="utf-8")
        print(f"one-parameter edit (worked_example.x) {edit:6.1f} s, re-rendered {redone}: {edit / alone:.2f}x "
              f"rendering {' '.join(redone)} alone from the same cache ({alone:.1f} s)")

        step("warm -ql, serial")
        qkv("render", *common, "--out", str(tmp / "warm"), "--jobs", "1")
        cols["-ql warm"] = ratios(tmp / "warm")
        if not args.quick:
            print(f"{what}, every language, --jobs 2 (typesetting cache warm from the runs above):")
            step("-ql, every language, --jobs 2")
            low, _ = qkv("render", *both, "--out", str(tmp / "both-l"), "--jobs", "2")
            step("-qm, every language, --jobs 2")
            mid, _ = qkv("render", *both, "--out", str(tmp / "both-m"), "--jobs", "2", "-q", "m")
            print(f"  -ql (480p15)        {low:7.1f} s")
            print(f"  -qm (720p30)        {mid:7.1f} s   ({mid / low:.2f}x the -ql time)")
            cols["-qm (2 jobs)"] = ratios(tmp / "both-m", args.lang)
            # make render now: the lesson's own language at 720p30, against the old default (every
            # language at 480p15, the -ql run above), from the same typesetting cache
            step("make render: the lesson's language, -qm, --jobs 2")
            default, _ = qkv("render", *args.scenes, "--lesson", str(lesson), "--out", str(tmp / "default"),
                             "--jobs", "2", "-q", "m")
            print(f"make render ({default_lesson_language(lesson)}, -qm, --jobs 2) {default:7.1f} s against the old "
                  f"default, every language at -ql ({low:.1f} s): {default / low:.2f}x")
            cols["make render"] = ratios(tmp / "default")
            step("-qm, serial")
            qkv("render", *common, "--out", str(tmp / "mid"), "-q", "m", "--jobs", "1")
            cols["-qm"] = ratios(tmp / "mid")
            if not args.no_high:
                step("-qh, serial")
                qkv("render", *common, "--out", str(tmp / "high"), "-q", "h", "--jobs", "1")
                cols["-qh"] = ratios(tmp / "high")
            if not args.no_dask:
                step("-ql on a loopback Dask cluster")
                ENV["QKV_CACHE_DIR"] = str(tmp / "cache3")     # cold, as the --jobs 2 figure
                on_dask = dask_render(common, tmp / "dask", tmp)
                longest = max(solo.values())
                print(f"Dask, loopback scheduler + 2 single-threaded workers, cold -ql {args.lang}: "
                      f"{on_dask:.1f} s ({on_dask / parallel:.2f}x local --jobs 2); with a worker per scene "
                      f"the lesson is bounded by its longest scene ({longest:.1f} s cold)")

        if not args.quick:
            longest = max(solo, key=lambda scene: solo[scene])
            split_figures(longest, args.lang, lesson, tmp, rounds=1)
            if not args.no_dask:
                dask_split(common, args.lang, lesson, tmp, tmp / "serial", None if args.no_high else args.dask_quality,
                           workers=args.dask_workers)

        durations = {e["scene"]: e["duration"] for e in manifest(tmp / "serial")}
        print("render seconds per video second, by scene:")
        print(f"  {'scene':<20} {'video':>7}" + "".join(f" {c:>13}" for c in cols))
        for scene, duration in durations.items():
            cells = "".join(f" {cols[c][scene]:13.2f}" if scene in cols[c] else f" {'-':>13}" for c in cols)
            print(f"  {scene:<20} {duration:6.1f}s{cells}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
