"""Compare two render folders frame by frame: did a change that was meant to
leave the pictures alone leave them alone?

usage: python tools/compare_renders.py BEFORE AFTER [--tolerance N]

For every clip (``<lang>/<quality>/<Scene>.mp4``) found in both folders it
decodes both videos and compares them frame by frame (RGB); it prints per
clip the frame count of each, how many frames differ by more than
``--tolerance`` grey levels in any pixel (default 0: identical), the first
such frame and the largest difference; then the subtitles and beats files
byte for byte.  Exit status 0 when every clip and file agrees, 1 otherwise.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import av
import numpy as np


def frames(path: Path):
    with av.open(str(path)) as c:
        for frame in c.decode(video=0):
            yield frame.to_ndarray(format="rgb24")


def compare_clip(a: Path, b: Path, tolerance: int) -> tuple[int, int, int, int | None, int]:
    """(frames in a, frames in b, frames that differ, first differing frame, largest difference)."""
    na = nb = differ = worst = 0
    first = None
    fa, fb = frames(a), frames(b)
    while True:
        x, y = next(fa, None), next(fb, None)
        if x is None and y is None:
            break
        na += x is not None
        nb += y is not None
        if x is None or y is None or x.shape != y.shape:
            differ += 1
            first = na - 1 if first is None else first
            continue
        d = int(np.abs(x.astype(np.int16) - y.astype(np.int16)).max())
        if d > tolerance:
            differ += 1
            first = na - 1 if first is None else first
        worst = max(worst, d)
    return na, nb, differ, first, worst


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before", type=Path)
    p.add_argument("after", type=Path)
    p.add_argument("--tolerance", type=int, default=0, help="grey levels a pixel may differ by (default 0)")
    args = p.parse_args(argv)
    clips = sorted(c.relative_to(args.before) for c in args.before.glob("*/*/*.mp4") if c.stem != "lesson")
    if not clips:
        print(f"no clips under {args.before}", file=sys.stderr)
        return 1
    bad = 0
    for rel in clips:
        other = args.after / rel
        if not other.is_file():
            print(f"{rel}: missing in {args.after}")
            bad += 1
            continue
        na, nb, differ, first, worst = compare_clip(args.before / rel, other, args.tolerance)
        same = differ == 0 and na == nb
        bad += not same
        where = "" if same else f", first at frame {first}"
        print(f"{rel}: {na} / {nb} frames, {differ} differ{where}, largest difference {worst}")
        for suffix in (".srt", ".beats.json"):
            x, y = (args.before / rel).with_suffix(suffix), other.with_suffix(suffix)
            if x.is_file() and (not y.is_file() or x.read_bytes() != y.read_bytes()):
                print(f"  {x.name}: differs")
                bad += 1
    print(f"{len(clips)} clips compared, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
