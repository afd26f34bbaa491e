"""What a scene costs to render in pieces, and where to cut it so the
pieces cost the same (``qkv_lens.app.segments``).

A piece that begins at ``a`` skips through the scene's first ``a`` seconds
(its state computed, nothing drawn) and draws the rest of its stretch.  So
a scene's cost is two curves of scene time: ``drawn(t)``, the CPU seconds
to draw its first ``t`` seconds, and ``skipped(t)``, to skip through them.
Piece k between cuts ``a`` and ``b`` costs ``skipped(a) + drawn(b) -
drawn(a)``.

Until a scene has been split once, both are straight lines: drawing a
second of any stretch costs the same, and skipping it ``STEP`` of that.
Each split measures them (every piece records the CPU seconds at each play,
``scenes/kit/segments.py``), and the next split of the scene in that
language and quality cuts by what it measured.  The measured curves are
kept in the cache folder (``store.cache_dir()/pieces``); read back, they are
checked (sizes, finite numbers, times and costs that never decrease) and
ignored when off: a cut only balances the pieces, it never changes what
they draw.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from qkv_lens.store import Unsafe, cache_dir, read_regular, shown, write_atomic

# a second a piece skips through costs about a tenth of a drawn one
# (SpaceDeformation -ql: 1.5 s of CPU to skip its first 38.5 s, 11.6 s to draw them)
STEP = 0.1
LIMIT = 1 << 20          # bytes: a kept curve is a few kilobytes
MOST = 20_000            # points in a curve


@dataclass(frozen=True)
class Costs:
    """The cumulative CPU seconds to draw (``drawn``) and to skip through
    (``skipped``) a scene of ``seconds``, each as (times, costs), both
    non-decreasing, from time 0."""
    seconds: float
    drawn: tuple[np.ndarray, np.ndarray]
    skipped: tuple[np.ndarray, np.ndarray]

    @classmethod
    def even(cls, seconds: float, step: float = STEP) -> Costs:
        """Every second costs 1 to draw and ``step`` to skip."""
        t = np.array([0.0, seconds])
        return cls(seconds, (t, t.copy()), (t, step * t))

    def draw(self, t: float) -> float:
        return float(np.interp(t, *self.drawn))

    def skip(self, t: float) -> float:
        """Skipping to ``t``; past the measured stretch, at its mean rate."""
        times, costs = self.skipped
        if t <= times[-1] or times[-1] <= 0:
            return float(np.interp(t, times, costs))
        return float(costs[-1] * t / times[-1])

    def piece(self, a: float, b: float) -> float:
        """The cost of the piece that draws ``[a, b)``."""
        return self.skip(a) + self.draw(b) - self.draw(a)

    def scaled(self, seconds: float) -> Costs:
        """These costs for the scene at a new length (an edit changed it):
        times stretched to ``seconds``."""
        k = seconds / self.seconds
        return Costs(seconds, (self.drawn[0] * k, self.drawn[1]), (self.skipped[0] * k, self.skipped[1]))


def cuts(costs: Costs, pieces: int) -> list[float]:
    """Where ``pieces`` pieces begin so that the dearest costs the least:
    the smallest budget at which pieces, each drawing as far as the budget
    lets it, reach the end (found by bisection); fewer pieces when a piece
    would draw nothing."""
    total = costs.seconds
    if pieces <= 1 or total <= 0:
        return [0.0]
    times, drawn = costs.drawn

    def reach(budget: float) -> list[float]:
        starts = [0.0]
        for _ in range(pieces - 1):
            a = starts[-1]
            left = budget - costs.skip(a) + costs.draw(a)      # what this piece may draw up to
            b = float(np.interp(left, drawn, times)) if left < drawn[-1] else total
            if b <= a or b >= total:
                break
            starts.append(b)
        return starts

    low, high = costs.draw(total) / pieces, costs.draw(total) + costs.skip(total)
    for _ in range(60):
        mid = (low + high) / 2
        starts = reach(mid)
        if costs.piece(starts[-1], total) <= mid:
            high = mid
        else:
            low = mid
    return reach(high)


def learned(records: list[dict]) -> Costs | None:
    """The curves the pieces of one split measured (their records, in
    order: ``plays`` is [scene time, CPU seconds] at each play and at the
    end; a piece after the first skipped until its ``start``); None when
    they do not tile the scene."""
    drawn: list[tuple[float, float, float]] = []        # (from, to, CPU seconds)
    skipped: list[tuple[float, float, float]] = []
    for record in records:
        try:
            start = float(record["start"]["time"]) if "start" in record else 0.0
            plays = _checked([[0.0, 0.0], *record.get("plays", [])])
        except (TypeError, ValueError, KeyError):
            return None
        if plays is None:
            return None
        for t0, t1, c0, c1 in zip(plays[0][1:], plays[0][2:], plays[1][1:], plays[1][2:]):
            (drawn if t0 >= start else skipped).append((t0, t1, c1 - c0))
    if not drawn:
        return None
    seconds = max(t1 for _, t1, _ in drawn)
    skip_curve = _curve(skipped) if skipped else (np.array([0.0]), np.array([0.0]))
    return Costs(seconds, _curve(drawn), skip_curve)


def _curve(spans: list[tuple[float, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative cost at the span ends, from 0 (spans of one time summed)."""
    points: dict[float, float] = {0.0: 0.0}
    total = 0.0
    for _, t1, cost in sorted(spans):
        total += cost
        points[t1] = total
    times = np.array(sorted(points))
    return times, np.array([points[t] for t in times])


def _path(scene: str, lang: str, quality: str):
    return cache_dir() / "pieces" / f"{scene}.{lang}.{quality}.json"


def keep(costs: Costs, scene: str, lang: str, quality: str) -> str | None:
    """Keep what a split of ``scene`` measured, for its next split; a
    warning (one line) when the cache folder cannot take it (read-only,
    full): a cost file only balances pieces, so the render goes on."""
    data = {"seconds": costs.seconds,
            "drawn": np.column_stack(costs.drawn).tolist(), "skipped": np.column_stack(costs.skipped).tolist()}
    path = _path(scene, lang, quality)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(data).encode("utf-8"), sync=False)
    except OSError as err:
        return (f"{scene} ({lang}): what its pieces cost is not kept ({shown(path.parent)}: "
                f"{err.strerror or err}); its next split is cut evenly")
    return None


def kept(scene: str, lang: str, quality: str) -> Costs | None:
    """What the last split of ``scene`` measured, if kept and sound."""
    try:
        data = json.loads(read_regular(_path(scene, lang, quality), LIMIT, "cost file"))
        seconds = float(data["seconds"])
        curves = [_checked(data[name]) for name in ("drawn", "skipped")]
    except (OSError, Unsafe, ValueError, KeyError, TypeError):
        return None
    if not (math.isfinite(seconds) and seconds > 0) or any(c is None for c in curves):
        return None
    return Costs(seconds, curves[0], curves[1])


def _checked(points) -> tuple[np.ndarray, np.ndarray] | None:
    a = np.asarray(points, dtype=float)
    if a.ndim != 2 or a.shape[1] != 2 or not 1 <= len(a) <= MOST or not np.isfinite(a).all():
        return None
    if a[0, 0] != 0 or (np.diff(a, axis=0) < 0).any() or (a < 0).any():
        return None
    return a[:, 0].copy(), a[:, 1].copy()
