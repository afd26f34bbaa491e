"""`make bench`: figures of the render pipeline, printed (never asserted).

From one run, in a scratch folder: a cold render of the whole lesson at -ql
serial and with --jobs 2 (and the ratio), the no-op re-render, a
one-parameter edit of one scene (which scenes it re-rendered, and its time
against that scene's solo render), and seconds of render per second of
video for each scene at -ql and -qh.  Pass --no-high to skip -qh.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def qkv(*args: str) -> tuple[float, str]:
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "qkv_lens", *args], cwd=ROOT, capture_output=True, text=True)
    took = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"bench: qkv-lens {' '.join(args)} failed:\n{p.stderr[-2000:]}")
    return took, p.stdout + p.stderr


def manifest(out: Path) -> list[dict]:
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))["renders"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--no-high", action="store_true", help="skip the -qh figures")
    ap.add_argument("--lang", default="zh")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="qkv-bench-"))
    lesson = tmp / "lesson.toml"
    shutil.copyfile(ROOT / "lesson.toml", lesson)
    common = ["--lang", args.lang, "--lesson", str(lesson)]
    try:
        serial, _ = qkv("render", *common, "--out", str(tmp / "serial"), "--jobs", "1")
        parallel, _ = qkv("render", *common, "--out", str(tmp / "par"), "--jobs", "2")
        print(f"cold render, whole lesson, -ql, {args.lang}:")
        print(f"  serial (--jobs 1)   {serial:7.1f} s")
        print(f"  parallel (--jobs 2) {parallel:7.1f} s   speed-up {serial / parallel:.2f}x")
        noop, said = qkv("render", *common, "--out", str(tmp / "par"))
        print(f"no-op re-render       {noop:7.2f} s   ({said.strip().splitlines()[-1]})")

        solo = {e["scene"]: e["render_seconds"] for e in manifest(tmp / "serial")}
        before = {e["scene"]: e["key"] for e in manifest(tmp / "par")}
        text = lesson.read_text(encoding="utf-8")
        lesson.write_text(text.replace("x = [3, 4]", "x = [3, 5]"), encoding="utf-8")
        edit, _ = qkv("render", *common, "--out", str(tmp / "par"))
        after = {e["scene"]: e["key"] for e in manifest(tmp / "par")}
        redone = sorted(s for s in after if after[s] != before.get(s))
        ratio = " / ".join(f"{s}: {edit / solo[s]:.2f}x its solo render ({solo[s]:.1f} s)" for s in redone)
        print(f"one-parameter edit (worked_example.x) {edit:6.1f} s; re-rendered {redone}; {ratio}")

        print("render seconds per video second:")
        rows = {e["scene"]: [e["render_seconds"] / e["duration"], e["duration"]] for e in manifest(tmp / "serial")}
        if not args.no_high:
            qkv("render", *common, "--out", str(tmp / "high"), "-q", "h", "--jobs", "1")
            for e in manifest(tmp / "high"):
                rows[e["scene"]].append(e["render_seconds"] / e["duration"])
        for scene, r in rows.items():
            high = f"   -qh {r[2]:6.2f}" if len(r) > 2 else ""
            print(f"  {scene:<20} ({r[1]:5.1f} s of video)   -ql {r[0]:6.2f}{high}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
