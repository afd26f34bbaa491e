"""Scene 2, ThreeLenses: one word cloud through three matrices.

It opens with the lesson's definition, on screen: a projection matrix is a
weight matrix W that turns a row vector x of n numbers into x W, of m.
Each word is a row vector over named traits (the table at the top left);
each lens is a (n_traits, 2) matrix, so a word lands at ``traits @ M`` on
that lens's plane.  One word's product with the first lens is worked out
term by term (``qkv_math.worked_product``), the other two show only their
results; each panel is titled by what the lens keeps and what it throws away.

    manim -ql scenes/three_lenses.py ThreeLenses
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations
from types import SimpleNamespace

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Axes,
    Create,
    DashedLine,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Line,
    MathTex,
    MoveToTarget,
    ReplacementTransform,
    SurroundingRectangle,
    Text,
    Transform,
    TransformFromCopy,
    VGroup,
    Wait,
    Write,
    interpolate_color,
)

import qkv_math as qm
from qkv_lens.beats import MAX_CHOICES, MIN_CHOICES
from qkv_lens.lesson.keys import (
    MAX_LENS_TRAITS,
    MAX_LENS_WORDS,
    Items,
    Matrix,
    Name,
    Named,
    Names,
    Params,
    Record,
    Vector,
)
from qkv_lens.numbers import plain_vector, tex_number
from scenes.kit import palette
from scenes.kit.glyphs import number_tex
from scenes.kit.layout import WordPoint, bounds, within
from scenes.kit.legible import glyph_px, least_scale, legible, shrink_to_fit
from scenes.kit.matrices import matrix_mob
from scenes.kit.motion import Emphasize
from scenes.kit.scene import LessonScene
from scenes.kit.text import outline_labels, text, title, wrapped_text
from scenes.kit.worked import column_line, term_line, write_column

# three colours of their own, far from gold, teal and coral (Q, K and V, which come in scene 7)
LENS_COLOURS = palette.LENSES
FRAME_LEFT, FRAME_RIGHT = -6.95, 6.95   # what the scene uses of the frame's width
TOP = 3.1                # top of the table and of the work, under the title
UPPER_BOTTOM = 0.45      # the table and the work stay above this line ...
WORK_TABLE_LOW = -0.7    # ... or the table alone down to this one, while the product beside it still reads:
WORK_PRODUCT_PX = 25     # its digits this tall at 1080p at least
WORK_TABLE_WIDTH = 7.4   # (the table never wider than this during the work)
BIG_PANEL_WIDTH = 7.75  # and each lens's large panel beside it at least this wide (its axes over half the frame)
PANELS_TOP = 0.3         # ... and the three panels below this one
PANELS_BOTTOM = -2.95    # the subtitle band starts at -3.04
PANEL_GAP = 0.45
MATH_SIZE = 30           # every number of the table and the work
NEAREST_MARGIN = 0.1     # a label is this much nearer its own dot than any other
LEADER_CLEAR = 0.26      # a label at the end of a leader line keeps this far from every other dot
NEAR_GAPS = (0.07, 0.14, 0.2)   # how far from its dot a label without a leader line may stand
DEFINE_SIZE = 76         # the definition's formula
LABEL_GAP = 0.14         # between two labels (two names side by side must not read as one)
MATS_MOST = 2.5          # the lens matrices, shown with the table, grow at most this much
TABLE_MOST = 1.4         # the table grows at most this much from the intro as the matrices come in
LENSES_GAP = 0.35        # between the table and the lens matrices, and around them
DROPPED = interpolate_color(palette.MUTED, palette.BACKGROUND, 0.45)   # a term multiplied by 0, once dropped


def _range(values, right: float = 0.1) -> tuple[float, float, float]:
    """An axis range holding 0, 1 and ``values``, with room below and left
    of the axes for the worked point's coordinates and ``right`` (a share of
    the span) past the largest value (no ticks are drawn)."""
    lo, hi = min(0.0, float(np.min(values))), max(1.0, float(np.max(values)))
    span = hi - lo
    return (lo - 0.2 * span, hi + right * span, 0.5)


def unflattened(X, M) -> tuple[np.ndarray, int] | None:
    """For a lens that flattens the plane onto a line (rank below 2): the
    matrix with the spread it throws away put back, ``M0 = M + e_t n`` (``n``
    the unit normal of the line, ``t`` the dropped trait, a zero row of ``M``,
    along which the words spread most), and ``t``.  The words at ``X @ M0``
    are the plane before it collapses; ``X @ ((1 - s) M0 + s M)`` moves each
    straight onto the line.  None for a lens of rank 2 (or words that do not
    spread along any dropped trait)."""
    X, M = np.asarray(X, dtype=float), np.asarray(M, dtype=float)
    if qm.rank(M) >= 2:
        return None
    rows = [r for r in M if np.any(r)]
    d = rows[0] / np.linalg.norm(rows[0]) if rows else np.array([1.0, 0.0])
    n = np.array([-d[1], d[0]])
    if n[0] < -1e-12 or (abs(n[0]) <= 1e-12 and n[1] < 0):
        n = -n
    dropped = [i for i in range(len(M)) if not np.any(M[i])] or list(range(len(M)))
    t = max(dropped, key=lambda i: (float(np.var(X[:, i])), -i))
    if np.var(X[:, t]) == 0:
        return None
    return M + np.outer(np.eye(len(M))[t], n), t


def worked_word(traits: list[tuple]) -> int:
    """The word whose product is worked out: the one with the most non-zero
    traits (every term then counts), the first of those on a tie."""
    return max(range(len(traits)), key=lambda i: (sum(v != 0 for v in traits[i]), -i))


def _clear(a, b, pad: float = 0.05) -> bool:
    return a[2] + pad <= b[0] or b[2] + pad <= a[0] or a[3] + pad <= b[1] or b[3] + pad <= a[1]


def _leader(c, box) -> tuple[np.ndarray, np.ndarray] | None:
    """The leader line from dot centre ``c`` to ``box``, or None when the
    box sits close enough to the dot to need none."""
    end = np.clip(c, [box[0], box[1], 0], [box[2], box[3], 0])
    return (np.array(c), end) if np.linalg.norm(end[:2] - c[:2]) > 0.2 else None


def _hits(seg, box, pad: float = 0.03) -> bool:
    """Whether the segment ``seg`` passes through ``box`` (sampled every
    0.05 units or closer, from 0.1 past its start: a leader leaves its own dot)."""
    a, b = seg
    length = float(np.linalg.norm(b[:2] - a[:2]))
    if length <= 0.1:
        return False
    for t in np.linspace(0.1 / length, 1.0, max(18, int(length / 0.05) + 2)):
        x, y = (a + t * (b - a))[:2]
        if box[0] - pad < x < box[2] + pad and box[1] - pad < y < box[3] + pad:
            return True
    return False


def _grow(box, d: float):
    return (box[0] - d, box[1] - d, box[2] + d, box[3] + d)


def _box_dist(p, box) -> float:
    """How far the point ``p`` lies from ``box`` (0 inside it)."""
    dx = max(box[0] - p[0], 0.0, p[0] - box[2])
    dy = max(box[1] - p[1], 0.0, p[1] - box[3])
    return float(np.hypot(dx, dy))


def owns(c, box, others, margin: float = NEAREST_MARGIN) -> bool:
    """Whether the dot at ``c`` is unmistakably the nearest of all dots to
    ``box``: every dot of ``others`` (at another spot) lies ``margin`` further."""
    d = _box_dist(c, box)
    return all(_box_dist(o, box) >= d + margin for o in others if np.hypot(o[0] - c[0], o[1] - c[1]) > 1e-6)


def _spots(c, w: float, h: float) -> list[tuple[float, float]]:
    """Label centres around the dot at ``c``: beside, above, below and at its
    corners, nearest first."""
    spots = []
    for g in NEAR_GAPS:
        for dy in (0.0, h / 2, -h / 2, h / 2 + g, -h / 2 - g):
            spots += [(c[0] + g + w / 2, c[1] + dy), (c[0] - g - w / 2, c[1] + dy)]
        for dx in (0.0, w / 4, -w / 4, w / 2, -w / 2, w / 2 + g, -w / 2 - g):
            spots += [(c[0] + dx, c[1] + g + h / 2), (c[0] + dx, c[1] - g - h / 2)]
    return sorted(dict.fromkeys(spots),
                  key=lambda q: _box_dist(c, (q[0] - w / 2, q[1] - h / 2, q[0] + w / 2, q[1] + h / 2)))


def _size(mob) -> tuple[float, float]:
    b = bounds(mob)
    return b[2] - b[0], b[3] - b[1]


def _put(mob, box) -> None:
    """Move ``mob`` so its drawn box (``bounds``) starts at ``box``'s lower left corner."""
    b = bounds(mob)
    mob.shift([box[0] - b[0], box[1] - b[1], 0])


def place_word_labels(points: list[WordPoint], avoid, inside, lines=()) -> None:
    """Put each word's label next to its own dot: clear of every dot, of the
    other labels, of ``avoid`` (mobjects) and of ``lines`` (boxes: the axes),
    inside ``inside`` (left, bottom, right, top), and nearer its own dot than
    any other dot by NEAREST_MARGIN, so it cannot be read as another's.  The
    placement that labels the most words so is searched for; a word left
    over (a crowd on one line) gets its label in the nearest free spot with
    a clear leader line from its dot (its label LEADER_CLEAR from every other
    dot, the line crossing no label: the leaders are placed first and the
    labels beside their dots around them, when that labels them all), and is
    hidden only if nothing is free."""
    every = points
    points = [pt for pt in every if getattr(pt, "holder", None) is None]     # one label a point
    for pt in every:
        pt.leader = None
    names = [_grow(bounds(m), 0.06) for m in avoid]     # a gap from names and coordinates: no leader crosses them
    taken = names + list(lines)
    centres = [pt.dot.get_center() for pt in points]
    dots = [(c[0] - 0.09, c[1] - 0.09, c[0] + 0.09, c[1] + 0.09) for c in centres]
    options = []
    for i, pt in enumerate(points):
        c, (w, h) = centres[i], _size(pt.label)
        others = [o for j, o in enumerate(centres) if j != i]
        opts = []
        for x, y in _spots(c, w, h):
            box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
            if (within(box, inside) and all(_clear(box, t, pad=0.02) for t in taken)
                    and all(_clear(box, d, pad=0.0) for d in dots) and owns(c, box, others)):
                opts.append(box)
        options.append(opts)
    placed = _most_placed(options)

    def spots(i: int, labels: list) -> Iterator[tuple[tuple, tuple | None]]:
        """Where word i's label may go with a leader (``_free_spots``), clear of ``labels``."""
        c, (w, h) = centres[i], _size(points[i].label)
        grid = [(x, y) for x in np.arange(inside[0] + w / 2, inside[2] - w / 2 + 1e-9, 0.08)
                for y in np.arange(inside[1] + h / 2, inside[3] - h / 2 + 1e-9, 0.08)]
        grid.sort(key=lambda q: (q[0] - c[0]) ** 2 + (q[1] - c[1]) ** 2)
        far = [j for j in range(len(points)) if j != i and np.linalg.norm(centres[j] - c) > 1e-6]
        return _free_spots(c, w, h, grid, taken, dots, labels, [centres[j] for j in range(len(points)) if j != i],
                           [centres[j] for j in far], [_grow(dots[j], 0.03) for j in far] + names)

    def crosses(line, boxes) -> bool:
        return line is not None and any(_hits(line, b, pad=0.02) for b in boxes)

    leaders: dict[int, tuple] = {}
    left = [i for i in range(len(points)) if i not in placed]
    if left:     # the leaders first (each at one of its nearest free spots), then every other label around them
        def around(chosen: dict) -> dict:
            return _most_placed([[b for b in opts if all(_clear(b, box, pad=LABEL_GAP) and not crosses(line, [b])
                                                         for box, line in chosen.values())] if i in placed else []
                                 for i, opts in enumerate(options)])

        budget = [400]     # full placements tried, over the whole search (per level, two leaders tried 400 x 400)

        def lead(k: int, chosen: dict) -> dict | None:
            """Leaders for the words left[k:], given ``chosen``, that leave every other label a place."""
            if k == len(left):
                budget[0] -= 1
                again = around(chosen)
                return {**chosen, "placed": again} if len(again) == len(placed) else None
            i = left[k]
            for box, line in spots(i, [b for b, _ in chosen.values()]):
                if budget[0] <= 0:
                    break
                if any(crosses(ln, [box]) or crosses(line, [b]) for b, ln in chosen.values()):
                    continue
                found = lead(k + 1, {**chosen, i: (box, line)})
                if found is not None:
                    return found
            return None

        found = lead(0, {}) if len(left) <= 2 else None
        if found is not None:
            placed = found.pop("placed")
            leaders = found
    labels = {**placed, **{i: box for i, (box, _) in leaders.items()}}     # whose label stands where
    plan: dict[int, tuple] = {i: (box, None) for i, box in placed.items()}
    for i in range(len(points)):
        if i in placed:
            continue
        chosen = leaders.get(i)
        if chosen is None:
            chosen = next(((box, line) for box, line in spots(i, list(labels.values()))
                           if not crosses(line, labels.values())), None)
        if chosen is None:     # a leader across a label only when nothing else is free
            chosen = next(spots(i, list(labels.values())), None)
        if chosen is not None:
            plan[i] = chosen
            labels[i] = chosen[0]
    tangled = len(plan) < len(points) or any(crosses(line, [b for j, (b, _) in plan.items() if j != i])
                                               for i, (_, line) in plan.items())
    leads = sum(line is not None for _, line in plan.values())
    if (tangled or leads > 1) and np.ptp([c[1] for c in centres]) < 1e-6:     # words on one line: a ladder over it
        plan = _ladder(centres, [_size(pt.label) for pt in points], taken, dots, inside, names) or plan
    for i, pt in enumerate(points):
        if i not in plan:     # nowhere free: left out (its dot stays), rather than over another label
            pt.label.set_opacity(0)
            continue
        box, line = plan[i]
        _put(pt.label, box)
        if line is not None:
            pt.leader = Line(line[0], line[1], color=palette.INK, stroke_width=3, buff=0.1)
            pt.leader_ends = (tuple(pt.leader.get_start()[:2]), tuple(pt.leader.get_end()[:2]))
            pt.add(pt.leader)
    hide_shared(every)


def _ladder(centres, sizes, taken, dots, inside, names=()) -> dict[int, tuple] | None:
    """Labels for dots on one horizontal line, stacked over and under it:
    each starts just right of its dot (or against the right edge of
    ``inside``), narrow ones first, on the side and as near the line as it
    is clear of the other labels and of ``taken`` and its leader (from its
    dot, straight up or down) crosses no label: beyond every label on its
    side whose dot it spans, short of every label on its side that spans its
    dot.  A label that reads as its dot's alone sits close; any other stands
    LEADER_CLEAR off the other dots, its leader crossing none of ``names``
    (boxes).  None when some label finds no place ``inside``."""
    y0 = centres[0][1]
    spans = {}
    for i in range(len(centres)):
        w = sizes[i][0]
        left = min(centres[i][0] + 0.06, inside[2] - w)
        if left < inside[0]:
            return None
        spans[i] = (left, left + w)
    rivals = {i: [c for j, c in enumerate(centres) if j != i] for i in spans}
    plan: dict[int, tuple] = {}

    def spans_dot(i: int, j: int) -> bool:
        return spans[i][0] - 0.04 <= centres[j][0] <= spans[i][1] + 0.04

    def fits(box) -> bool:
        return (inside[1] <= box[1] and box[3] <= inside[3]
                and all(_clear(box, b, pad=LABEL_GAP) for b, _ in plan.values())
                and all(_clear(box, t, pad=0.02) for t in taken) and all(_clear(box, d, pad=0.0) for d in dots))

    reach: dict[int, tuple[int, float, float]] = {}     # side (+1 over, -1 under), near and far distance from the line
    for i in sorted(spans, key=lambda i: (spans[i][1] - spans[i][0], centres[i][0])):
        w, h = sizes[i]
        x = centres[i][0]
        best = None
        for side in (1, -1):
            same = [j for j in plan if reach[j][0] == side]
            # beyond the labels whose dots it spans (their leaders end short of it), short of those spanning its dot
            least = max([reach[j][2] + LABEL_GAP for j in same if spans_dot(i, j)], default=0.12)
            most = min([reach[j][1] - LABEL_GAP for j in same if spans_dot(j, i)], default=99.0)
            for d in np.arange(least, 8.0, 0.05):
                if d + h > most:
                    break
                box = (spans[i][0], y0 + d, spans[i][1], y0 + d + h) if side > 0 else \
                    (spans[i][0], y0 - d - h, spans[i][1], y0 - d)
                if not owns(centres[i], box, rivals[i]) and any(_box_dist(r, box) < LEADER_CLEAR for r in rivals[i]):
                    continue
                end = float(np.clip(x, box[0] + 0.05, box[2] - 0.05))
                lead = (np.array([x, y0, 0.0]), np.array([end, y0 + side * d, 0.0]))
                if not (inside[1] <= box[1] and box[3] <= inside[3]):
                    break
                if not fits(box) or any(_hits(lead, b, pad=0.02) for b in names):
                    continue
                if best is None or d < best[0]:
                    best = (d, side, box)
                break
        if best is None:
            return None
        d, side, box = best
        end = float(np.clip(x, box[0] + 0.05, box[2] - 0.05))
        close = owns(centres[i], box, rivals[i]) and abs(end - x) < 0.2 and d < 0.2
        plan[i] = (box, None if close else (np.array([x, y0, 0.0]), np.array([end, y0 + side * d, 0.0])))
        reach[i] = (side, d, d + h)
    return plan


def _most_placed(options: list[list[tuple]], budget: int = 20000) -> dict[int, tuple]:
    """A choice of one box from ``options[i]`` for as many words i as can
    have one, no two closer than LABEL_GAP (a search, words with fewer
    options first, within ``budget`` steps): {word: box}."""
    order = sorted(range(len(options)), key=lambda i: len(options[i]))
    best: dict = {"n": -1, "pick": {}}
    left = [budget]

    def search(k: int, pick: dict, n: int) -> None:
        if left[0] <= 0 or n + (len(order) - k) <= best["n"]:
            return
        left[0] -= 1
        if k == len(order):
            best["n"], best["pick"] = n, dict(pick)
            return
        i = order[k]
        for box in options[i]:
            if all(_clear(box, b, pad=LABEL_GAP) for b in pick.values()):
                pick[i] = box
                search(k + 1, pick, n + 1)
                del pick[i]
        search(k + 1, pick, n)       # this word's label left for a leader line

    search(0, {}, 0)
    return best["pick"]


def _free_spots(c, w: float, h: float, grid, taken, dots, labels, own, rivals, others):
    """Where a label ``w`` x ``h`` for the dot at ``c`` may go, nearest first
    (``grid``: centres): (its box, its leader line or None).  Clear of
    ``taken``, the ``dots`` and the ``labels``; without a leader, nearer its
    dot than any of ``own`` (the other dots); with one, LEADER_CLEAR from
    every one of ``rivals`` (the dots at other spots), the leader passing
    none of ``others`` (their boxes)."""
    for x, y in grid:
        box = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        if not (all(_clear(box, t, pad=0.02) for t in taken) and all(_clear(box, d, pad=0.0) for d in dots)
                and all(_clear(box, b, pad=LABEL_GAP) for b in labels)):
            continue
        line = _leader(c, box)
        if line is None and not owns(c, box, own):
            continue     # close to its dot with no leader, but as close to another
        if line is not None and any(_box_dist(r, box) < LEADER_CLEAR for r in rivals):
            continue     # at the end of its leader, but beside another dot: read as that one's
        if line is not None and any(_hits(line, t, pad=0.02) for t in others):
            continue
        yield box, line


def share_labels(points: list[WordPoint], names: list[str], lang: str, sep: str, size: float,
                 width: float | None = None) -> None:
    """Words (``names``) that land on one point get one label naming them all (``sep``
    between the names; on lines no wider than ``width``, if given), held by the
    first of them; the others' labels are hidden and they record which word
    holds theirs (``holder``)."""
    for pt in points:
        pt.holder = None
    for i, pt in enumerate(points):
        if pt.holder is not None:
            continue
        same = [j for j in range(i + 1, len(points)) if points[j].holder is None
                and np.allclose(points[j].coords, pt.coords, atol=1e-9)]
        if not same:
            continue
        content = sep.join([names[i], *(names[j] for j in same)])
        shared = legible(text(content, lang, size=size, color=pt.label.get_color()))
        if width is not None and shared.width > width:     # a long list of names: on two lines or more
            shared = legible(wrapped_text(content, lang, size=size, width=width, color=pt.label.get_color()))
        pt.remove(pt.label)
        pt.label = shared
        pt.add(shared)
        for j in same:
            points[j].holder = i
            points[j].label.set_opacity(0)


def hide_shared(points: list[WordPoint]) -> None:
    """A hidden label (its word's name is in another's) sits where the shared one does."""
    for pt in points:
        if getattr(pt, "holder", None) is not None:
            pt.label.move_to(points[pt.holder].label)


def axis_lines(axes) -> list[tuple[float, float, float, float]]:
    """The boxes of the axes' two lines (a little thicker than drawn)."""
    return [(b[0] - 0.02, b[1] - 0.02, b[2] + 0.02, b[3] + 0.02) for b in (bounds(axes.x_axis), bounds(axes.y_axis))]


def _label_text(pt: WordPoint) -> str:
    """The words of a point's label (a label on several lines read as one, without spaces)."""
    return "".join(m.text for m in pt.label.get_family() if isinstance(m, Text))


def _shown(pt: WordPoint) -> bool:
    """Whether a point's label is drawn (not hidden)."""
    return any(m.get_fill_opacity() > 0 for m in pt.label.family_members_with_points())


def _drawn(pt: WordPoint) -> dict:
    """Where a word point is drawn: its dot's centre, its label's box (None if hidden), its leader's ends."""
    lead = getattr(pt, "leader", None)
    return {"name": _label_text(pt), "dot": tuple(pt.dot.get_center()[:2]),
            "holder": getattr(pt, "holder", None),
            "label": bounds(pt.label) if _shown(pt) else None,
            "leader": None if lead is None else (pt.leader_ends, lead.get_stroke_width(), lead in pt.submobjects)}


def _greyed(mob) -> bool:
    """Whether every glyph of ``mob`` is drawn in DROPPED."""
    return all(m.get_color().to_hex() == DROPPED.to_hex() for m in mob.family_members_with_points())


def fit(mob, width: float, height: float):
    """Shrink ``mob`` (never enlarge it) to fit a ``width`` x ``height`` box."""
    s = min(1.0, width / mob.width, height / mob.height)
    return mob.scale(s)


def fill(mob, width: float, height: float, most: float):
    """Scale ``mob`` so its drawn box fills a ``width`` x ``height`` box, growing it at most ``most`` times."""
    w, h = _size(mob)
    return mob.scale(min(most, width / w, height / h))


class ThreeLensesParams(Params):
    """[three_lenses]: a word cloud (each word's value on every trait) seen
    through three lens matrices (one row per trait, two columns)."""
    section = "three_lenses"
    traits: tuple[Named, ...] = Names(
        MAX_LENS_TRAITS, noun="traits", doc="the traits every word is measured on",
        room=f"each lens matrix has a row per trait and its worked product a term per trait, and the frame "
             f"holds {MAX_LENS_TRAITS} at a readable size")
    words: tuple[Record, ...] = Items({"traits": Vector("weight", "traits")},
                                      MAX_LENS_WORDS, noun="words", named=True,
                                      doc="each word: its name and its value on every trait",
                                      room="the table shows a row per word above the lenses at a readable size")
    lenses: tuple[Record, ...] = Items(
        {"keep": Name(), "drop": Name(), "axes": Names(2, 2),
         "matrix": Matrix("weight", "traits", 2, why="one row per trait in {rows} ({nrows}), 2 columns")},
        3, 3, noun="lenses", doc="exactly three lenses: what each keeps and drops, its axes and its matrix")


@dataclass
class _Work:
    """One word's product with one lens, written out (``ThreeLenses._block``)."""
    block: VGroup              # all of it: the word's name, the row x M = result, the lines
    work: qm.WorkedProduct
    vec: VGroup
    M: VGroup
    res: VGroup
    word_name: VGroup
    lines: VGroup              # one line of arithmetic per output
    times: MathTex
    eq: MathTex

    def terms(self, j: int) -> list[VGroup]:
        """Line j's terms, each ``[+] x_i \\times M_ij`` (a ``term_line``; none in a compact line)."""
        line = self.lines[j]
        return [VGroup(*line[max(4 * i - 1, 0):4 * i + 3]) for i in range(getattr(line, "terms", 0))]

    def dropped(self) -> list[VGroup]:
        """The terms whose product is 0, in every line."""
        return [term for j, col in enumerate(self.work.columns)
                for term, t in zip(self.terms(j), col.terms) if t.product == 0]


@dataclass
class _Stage:
    """What the beats share."""
    names: list[str]
    traits: list[tuple]
    X: np.ndarray              # the words' traits, one row per word
    heading: VGroup
    table: VGroup
    w: int                     # the word whose product is worked out
    mats: VGroup               # the three lens matrices, shown as the intro names them
    table_big: VGroup | None = None   # where the table stands beside the matrices (it moves aside for the work)
    table_work: VGroup | None = None  # where it stands during the work: top left, as large as leaves the product room
    table_lens: VGroup | None = None  # beside a lens's panel (smaller if need be: the panel takes over half the frame)
    wide: bool = False         # the table and the work take the frame in turn
    work_left: float = 0.0     # the work's (and each lens's large panel's) left edge, right of the table
    big: list = field(default_factory=list)       # each lens's panel, large, right of the table
    row_box: SurroundingRectangle | None = None
    works: list[_Work] = field(default_factory=list)   # one per lens
    definition: VGroup | None = None   # the definition, large: its head, x W = y with the sizes, its note
    reminder: MathTex | None = None    # what stays of it in the top right corner: x -> x W, n -> m


class ThreeLenses(LessonScene):
    params: ThreeLensesParams
    chapter = 1
    number = 2
    sparse_moments = {"intro": "the word table opens alone, as large as it reads; a lesson of one or two short "
                               "words leaves room around it, which the three matrices fill in the next sentence"}
    def construct(self):
        self.s = self._stage()
        self._lay_out()
        self._define()
        self._intro()
        for k in range(len(self.params.lenses)):
            self._work(k)
            self._lens(k)
        self._outro()

    def _stage(self) -> _Stage:
        """The words, the title, the table of their traits (large, in the middle) and the lens matrices."""
        p, lang = self.params, self.lang
        traits = [w.traits for w in p.words]
        X = np.array(traits, dtype=float)
        names = [w.name(lang) for w in p.words]
        heading = title(self.tr("title"), lang)
        table = self._table(names, traits, lang)
        room = heading.get_bottom()[1] - 0.5 - PANELS_BOTTOM
        big = min(12.0 / table.width, room / table.height, 2.5)     # (a table of few words reads large)
        if big < least_scale(table):    # a wide table takes the frame's whole width
            big = min((FRAME_RIGHT - FRAME_LEFT) / table.width, room / table.height, 1.5)
        table.scale(big)
        table.move_to([0, (heading.get_bottom()[1] + PANELS_BOTTOM) / 2, 0])
        mats = VGroup(*[matrix_mob(lens.matrix, font_size=MATH_SIZE).set_color(c)
                        for lens, c in zip(p.lenses, LENS_COLOURS)]).arrange(RIGHT, buff=0.35)
        outline_labels(table, mats)      # before their targets are copied (MoveToTarget, transforms)
        stage = _Stage(names, traits, X, heading, table, worked_word(traits), mats)
        stage.definition, stage.reminder = self._definition(heading, len(p.traits))
        return stage

    def _definition(self, heading, n: int) -> tuple[VGroup, MathTex]:
        """The lesson's definition, large in the middle: "projection matrix W",
        x (1 x n) times W (n x m) = x W (1 x m), and its note (n numbers in,
        m out); and the reminder the intro leaves of it in the top right
        corner, beside the title: x -> x W, n -> 2 (these lenses' sizes)."""
        lang = self.lang
        head = legible(text(self.tr("define_head"), lang, size=48, color=palette.INK))
        formula = MathTex(r"\underbrace{x}_{1\times n}", r"\;", r"\underbrace{W}_{n\times m}", r"\;=\;",
                          r"\underbrace{x\,W}_{1\times m}", font_size=DEFINE_SIZE)
        note_ = wrapped_text(self.tr("define_note"), lang, size=36, width=FRAME_RIGHT - FRAME_LEFT - 1.0,
                             color=palette.MUTED)
        block = VGroup(head, formula, note_).arrange(DOWN, buff=0.55)
        block.move_to([0, (heading.get_bottom()[1] + PANELS_BOTTOM) / 2, 0])
        reminder = MathTex(r"x \mapsto x\,W:\ ", str(n), r"\to", "2", font_size=40, color=palette.INK)
        right = FRAME_RIGHT - 0.1
        reminder.move_to([right - reminder.width / 2, heading.get_center()[1], 0])
        if reminder.get_left()[0] < heading.get_right()[0] + 0.4:     # a long title: the reminder shrinks to its room
            shrink_to_fit(reminder, width=right - heading.get_right()[0] - 0.4, about=reminder.get_right())
        outline_labels(block, reminder)
        return block, reminder

    # --- the definition, once, on screen: a projection matrix re-expresses x as x W
    def _define(self) -> None:
        s = self.s
        head, formula, note_ = s.definition
        with self.beat("define_say", names_change=True) as said:
            formula_at, note_at = self.cue_at(said, 0.45, 0.8)
            self.play(Write(s.heading), FadeIn(head, shift=0.2 * DOWN), run_time=1.0)
            self.reveal([(formula_at, [Write(formula)]), (note_at, [FadeIn(note_, shift=0.2 * UP)])],
                        focus=s.definition, run_time=1.2)
            self.key_moment("define", formula=formula.get_tex_string(), note=[m.text for m in note_],
                            head=head.text)

    # --- the input: every word as a row of numbers, one column per trait; then the three lenses
    def _intro(self) -> None:
        s = self.s
        table = s.table
        with self.beat("intro_say", n=len(self.params.traits), m=2) as said:
            lenses_at = self.cue_at(said, 0.6)[0]      # "... three such matrices ..."
            # the definition goes to the corner, as x -> x W with these lenses' sizes, and the words come in
            self.play(FadeOut(s.definition, target_position=s.reminder.get_center(), scale=0.2),
                      FadeIn(s.reminder, shift=0.3 * RIGHT), run_time=1.0)
            self.play(FadeIn(table.header), run_time=0.6)
            self.play(LaggedStart(*[FadeIn(VGroup(table.names[i], *table.rows[i]), shift=0.2 * RIGHT)
                                    for i in range(len(s.names))], lag_ratio=0.25), run_time=2.0)
            self.key_moment("intro", table=[[e.get_tex_string() for e in row] for row in table.rows])
            self.wait_until(lenses_at, table)
            # the table steps to the left, still large, and the three matrices come in beside it (or in its place)
            self.play(LaggedStart(FadeOut(table) if s.wide else Transform(table, s.table_big),
                                  LaggedStart(*[FadeIn(m, shift=0.4 * UP) for m in s.mats], lag_ratio=0.35),
                                  lag_ratio=0.45), run_time=1.8)
            self.focus_on(s.mats)     # (a pulse of the table, at the frame's left edge, would cross it)
            p = self.params
            self.describe("describe_intro", n=len(p.traits), words=s.names,
                          traits=[t.name(self.lang) for t in p.traits], X=s.traits)
            for k, lens in enumerate(p.lenses):
                self.describe("describe_matrix", k=k + 1, M=lens.matrix)
        self.key_moment("lenses", mats=[[[e.get_tex_string() for e in row] for row in m.get_rows()] for m in s.mats],
                        box=bounds(s.mats), table=bounds(table), digit=glyph_px(table.rows[0][0]))

    def _lay_out(self) -> None:
        """The table's place from the intro on: top left, as large as leaves the
        product its room to the right (the lines of arithmetic run under both);
        when either would be too small to read there, each takes the frame in
        turn (wide).  The lens matrices, each lens's work and its large panel."""
        s, p = self.s, self.params
        table = s.table
        w = s.w
        table_floor = least_scale(table) * table.height
        # the product with the word's name above its row (the table's marked row names it too): narrower
        works = [self._block(s.traits[w], s.names[w], lens, colour, name_above=True, worked=k == 0)
                 for k, (lens, colour) in enumerate(zip(p.lenses, LENS_COLOURS))]
        products = [VGroup(*[m for m in b.block if m is not b.lines]) for b in works]
        product_px = glyph_px(works[0].vec.get_entries()[0])
        for low in np.arange(WORK_TABLE_LOW, UPPER_BOTTOM + 1e-9, 0.1):     # the largest table that leaves room
            table.generate_target()
            fit(table.target, WORK_TABLE_WIDTH, TOP - low)
            room = FRAME_RIGHT - 0.25 - (FRAME_LEFT + table.target.width + 0.6)
            grow = min(room / pr.width for pr in products)
            if grow * product_px >= WORK_PRODUCT_PX:
                break
        s.wide = table.target.height < table_floor - 1e-9
        if s.wide:     # as large as it reads, as wide as it needs
            table.target.scale(table_floor / table.target.height)
        table.target.align_to([FRAME_LEFT, TOP, 0], UP + LEFT)
        s.work_left = table.target.get_right()[0] + 0.6

        s.row_box = self._row_box(table.target)
        # while a lens's panel is shown the table steps back to leave the panel over half the frame
        s.table_lens = table.target.copy()
        fit(s.table_lens, FRAME_RIGHT - BIG_PANEL_WIDTH - 0.35 - FRAME_LEFT, s.table_lens.height)
        if s.table_lens.height < table_floor - 1e-9:
            s.table_lens.scale(table_floor / s.table_lens.height)
        s.table_lens.align_to([FRAME_LEFT, TOP, 0], UP + LEFT)
        s.table_work = table.target.copy()
        if not s.wide:
            s.wide = any(not self._fits(pr, FRAME_RIGHT - 0.25 - s.work_left) or
                         not self._fits(b.lines, FRAME_RIGHT - FRAME_LEFT - 0.5) for pr, b in zip(products, works))
        if s.wide:     # the work alone in the band: its name beside the row, as before
            works = [self._block(s.traits[w], s.names[w], lens, colour, worked=k == 0)
                     for k, (lens, colour) in enumerate(zip(p.lenses, LENS_COLOURS))]
        left = FRAME_LEFT if s.wide else s.work_left
        # too wide even for the whole band: the name above the row, each line without its products
        s.works = [b if not s.wide or self._fits(b.block, FRAME_RIGHT - 0.25 - left) else
                   self._block(s.traits[w], s.names[w], lens, colour, compact=True, worked=k == 0)
                   for k, (b, lens, colour) in enumerate(zip(works, p.lenses, LENS_COLOURS))]
        middle = [(left + FRAME_RIGHT) / 2, (TOP + PANELS_BOTTOM) / 2, 0]
        for b in s.works:     # as large as the room right of the table allows (up to 1.4 times; a pulse stays inside)
            b.block.scale(min(1.4, (FRAME_RIGHT - 0.25 - left) / b.block.width,
                              (TOP - PANELS_BOTTOM) / b.block.height))
            b.block.move_to(middle)
            if not s.wide:
                self._spread(b, left)
        self._lay_out_lenses()
        # each lens's panel, as large as the room right of the table
        left = FRAME_LEFT if s.wide else bounds(s.table_lens)[2] + 0.35
        s.big = [self._panels([k], left, FRAME_RIGHT, TOP, size=26, large=True)[0] for k in range(len(p.lenses))]

    def _row_box(self, table) -> SurroundingRectangle:
        """The box round the worked word's row of ``table``."""
        w = self.s.w
        return SurroundingRectangle(VGroup(table[1][w], table[2 + w]), color=palette.AREA, buff=0.08)

    def _table_to(self, size) -> list:
        """The table (and the box on its worked row) growing or shrinking to ``size`` (a copy of it), if it differs."""
        s = self.s
        if s.wide or abs(s.table.height - size.height) < 1e-6:
            return []
        return [Transform(s.table, size.copy()), Transform(s.row_box, self._row_box(size))]

    def _spread(self, b: _Work, left: float) -> None:
        """The work across the frame while the table waits at the top left: the
        product right of the table, as large as its room allows, and the lines of
        arithmetic under both, across the frame's width (where they read larger
        there; else the block stays as it is)."""
        table = self.s.table.target
        product = VGroup(*[m for m in b.block if m is not b.lines])
        grow = min(1.25, (FRAME_RIGHT - 0.25 - left) / product.width, (TOP - UPPER_BOTTOM) / product.height)
        top = min(bounds(table)[1], table.get_center()[1] - grow * product.height / 2) - 0.3
        lines = b.lines
        if not len(lines):     # worked to its result only: larger, in the middle of the room right of the table
            grow = min(1.6, (FRAME_RIGHT - 0.25 - left) / product.width, (TOP - PANELS_BOTTOM) / product.height)
            if grow >= least_scale(product):
                product.scale(grow).move_to([(left + FRAME_RIGHT) / 2, (TOP + PANELS_BOTTOM) / 2, 0])
            return
        lines_grow = min(1.45, (FRAME_RIGHT - FRAME_LEFT - 0.5) / lines.width,
                         (top - PANELS_BOTTOM - 0.2) / lines.height)
        if grow < least_scale(product) or lines_grow < max(1.0, least_scale(lines)):
            return
        product.scale(grow).move_to([(left + FRAME_RIGHT) / 2, table.get_center()[1], 0])
        lines.scale(lines_grow).move_to([(FRAME_LEFT + FRAME_RIGHT) / 2, (top + PANELS_BOTTOM) / 2, 0])

    def _lay_out_lenses(self) -> None:
        """Where the intro shows the table and the three lens matrices: the table
        on the left, as large as leaves the matrices their room, both centred in
        the height under the title; the matrices as large as the rest allows (or
        alone, in the middle of the frame, when the table is wide)."""
        s = self.s
        height, middle_y = TOP - PANELS_BOTTOM, (TOP + PANELS_BOTTOM) / 2
        if s.wide:
            fill(s.mats, FRAME_RIGHT - FRAME_LEFT, height, MATS_MOST)
            s.mats.move_to([(FRAME_LEFT + FRAME_RIGHT) / 2, middle_y, 0])
            return
        big = s.table.copy()
        fill(big, FRAME_RIGHT - FRAME_LEFT - _size(s.mats)[0] - 2 * LENSES_GAP, height, TABLE_MOST)
        if big.height < s.table.target.height:     # never smaller than where it waits during the work
            big.scale(s.table.target.height / big.height)
        big.align_to([FRAME_LEFT, 0, 0], LEFT).set_y(middle_y)
        s.table_big = big
        right = bounds(big)[2] + LENSES_GAP
        fill(s.mats, FRAME_RIGHT - 0.15 - right, height, MATS_MOST)
        s.mats.move_to([(right + FRAME_RIGHT) / 2, middle_y, 0])

    # --- one word's product with lens k: the first term by term, the others their results
    def _work(self, k: int) -> None:
        s = self.s
        b, colour = s.works[k], LENS_COLOURS[k]
        res_entries = b.res.get_entries()
        res_entries.set_opacity(0)
        fields = {"word": s.names[s.w], "n": len(self.params.traits), "point": plain_vector(b.work.result)}
        with self.beat(f"work{k + 1}_say", focus=b.res if k else b.lines, **fields):
            if k == 0:     # the other two lenses wait their turn; the table steps aside, the worked word's row marked
                self.play(FadeOut(s.mats[1:]), *([] if s.wide else [MoveToTarget(s.table)]), run_time=0.8)
                if not s.wide:
                    self.play(Create(s.row_box), run_time=0.5)
            if s.wide:    # the table steps aside for the work
                self.play(FadeOut(s.table), FadeOut(s.row_box), run_time=0.6)
                self.play(FadeIn(b.vec), FadeIn(b.word_name), run_time=1.0)
            else:     # (the table grows back from its size beside the last lens's panel)
                grow = self._table_to(s.table_work)
                if grow:
                    self.play(*grow, run_time=0.6)
                self.play(TransformFromCopy(s.table.rows[s.w], b.vec.get_entries()), FadeIn(b.vec.get_brackets()),
                          FadeIn(b.word_name), run_time=1.0)
            # the first lens's matrix moves from where the intro showed it into the product
            self.play(FadeIn(b.times), ReplacementTransform(s.mats[0], b.M) if k == 0 else FadeIn(b.M),
                      FadeIn(b.eq), FadeIn(b.res), run_time=0.8)
            for j, column in enumerate(b.M.get_columns()):
                box = SurroundingRectangle(column, color=colour, buff=0.08)
                self.play(Create(box), run_time=0.4)
                if len(b.lines):     # written out, term by term
                    write_column(self, b.lines[j], res_entries[j], 1.4, 0.7, FadeOut(box))
                else:                # the same arithmetic, its result only: the column's total lands in y
                    shown = res_entries[j].copy().set_opacity(1)
                    self.play(TransformFromCopy(column, shown), FadeOut(box), run_time=0.7)
                    res_entries[j].set_opacity(1)
                    self.remove(shown)
            if len(b.lines):
                self.describe("describe_work", word=s.names[s.w], x=s.traits[s.w], k=k + 1,
                              P=[[t.product for t in col.terms] for col in b.work.columns], y=b.work.result)
            else:
                self.describe("describe_work_result", word=s.names[s.w], x=s.traits[s.w], k=k + 1,
                              M=self.params.lenses[k].matrix)
        if len(b.lines):
            self._ask_dropped(b)
            self._drop_zeros(b)
        self.key_moment(f"work{k + 1}", word=s.names[s.w], lines=[ln.get_tex_string() for ln in b.lines],
                        result=[e.get_tex_string() for e in res_entries],
                        matrix=[[e.get_tex_string() for e in row] for row in b.M.get_rows()],
                        greyed=[[_greyed(term) for term in b.terms(j)] for j in range(len(b.lines))],
                        table=bounds(s.table), product=bounds(VGroup(b.vec, b.M, b.res)), lines_box=bounds(b.lines),
                        table_digit=glyph_px(s.table.rows[0][0]),
                        digits=(glyph_px(b.vec.get_entries()[0]), glyph_px(b.lines)))

    def _ask_dropped(self, b: _Work) -> None:
        """With the product written out, before its zero terms grey: which of
        the word's traits drop out of both sums?  Each choice as many of the
        lesson's traits as the answer, every such set; the answer the traits
        whose every product is 0 (``qkv_math.worked_product``).  None dropped,
        all dropped, two sets that read alike (traits of one name), or more
        sets than a question offers choices: no question."""
        names = [t.name(self.lang) for t in self.params.traits]
        gone = tuple(i for i in range(len(names)) if all(col.terms[i].product == 0 for col in b.work.columns))
        if not gone:
            return
        sets = list(combinations(range(len(names)), len(gone)))
        labels = [self._listed([names[i] for i in c]) for c in sets]
        if len(set(labels)) < len(labels) or not MIN_CHOICES <= len(sets) <= MAX_CHOICES:
            return
        self.checkpoint("dropped_ask", choices=labels, answer=sets.index(gone), word=self.s.names[self.s.w])

    def _listed(self, names: list[str]) -> str:
        """Names as a sentence lists them: "red", "red and round", "food, red and round"."""
        return names[0] if len(names) == 1 else self.tr("sep").join(names[:-1]) + self.tr("and") + names[-1]

    def _drop_zeros(self, b: _Work) -> None:
        """The terms multiplied by 0 grey out as their own sentence says they
        drop out, and the product's result is named where the word lands."""
        s = self.s
        dropped = b.dropped()
        fields = {"word": s.names[s.w], "point": plain_vector(b.work.result)}
        # what the sentence names changes: the dropped terms grey (a landing alone is named by its result)
        focus = VGroup(*dropped) if dropped else b.res
        with self.beat("zero_say" if dropped else "land_say", focus=focus, names_change=True, **fields):
            if dropped:
                self.play(*[m.animate.set_color(DROPPED) for m in dropped], run_time=0.8)
            self.key_moment("zero", greyed=[[_greyed(term) for term in b.terms(j)] for j in range(len(b.lines))])
            self.play(Emphasize(b.res, scale_factor=1.15), run_time=0.8)

    # --- the whole cloud lands on lens k's plane, shown large
    def _lens(self, k: int) -> None:
        s, lang = self.s, self.lang
        lens, big, colour, b = self.params.lenses[k], s.big[k], LENS_COLOURS[k], s.works[k]
        w = s.w
        guides, coords = self._guides(big, big.words[w], b.work.result, colour)
        place_word_labels(big.words, avoid=[big.x_name, big.y_name, *coords, *guides],
                          inside=self._room(big, 0.05), lines=axis_lines(big.axes))
        before = self._before_collapse(k)
        with self.beat(f"lens{k + 1}_say", keep=lens.keep.name(lang), drop=lens.drop.name(lang)) as said:
            collapse_at = self.cue_at(said, 0.7)[0]     # "... the plane collapses to a line ..."
            # the work steps aside (its result too, on a flattening lens: its coordinates come back on the line);
            # the lens's matrix stays, under the table, beside the plane it makes
            keep = self._matrix_spot(b.M)
            big.M_shown = b.M if keep else VGroup()
            self.play(FadeOut(VGroup(b.word_name, b.vec, b.times, b.eq, b.lines,
                                     *([] if before is None else [b.res]), *([] if keep else [b.M]))),
                      *([MoveToTarget(b.M)] if keep else []), *self._table_to(s.table_lens),
                      *[FadeIn(m) for m in (big.axes, big.heading, big.x_name,
                                            big.y_name if before is None else before.y_name)], run_time=0.8)
            if before is not None:     # the words land on the plane before the lens drops a direction ...
                self._fly_names(before.words, range(len(s.names)))
                self.key_moment(f"lens{k + 1}_plane", words=np.array([big.axes.p2c(pt.dot.get_center())
                                                                      for pt in before.words]))
                self.wait_until(collapse_at, VGroup(*before.words))
                # ... and each moves straight onto the line: X ((1 - t) M0 + t M), t from 0 to 1
                self._collapse(before, big)
            if before is None:     # the worked word's result lands on its point
                land = big.words[w].dot.copy()
                self.play(ReplacementTransform(b.res, land), FadeIn(big.words[w].label), run_time=0.9)
                self.remove(land)
                self.add(big.words[w])
            self.play(*[Create(g) for g in guides], FadeIn(coords), run_time=0.7)
            if before is None:
                self._fly_names(big.words, [i for i in range(len(s.names)) if i != w])
            groups = qm.collisions(s.X, big.M, tol=1e-9)
            shown = {i for g in groups for i in g if _shown(big.words[i])}
            if shown:     # (the one label of a shared point)
                self.play(*[Indicate(big.words[i].label, color=palette.ALERT) for i in sorted(shown)], run_time=0.8)
            axes_named = {"x_axis": lens.axes[0].name(lang), "y_axis": lens.axes[1].name(lang)}
            landed = {"word": s.names[w], "point": b.work.result, "points": qm.apply(s.X, big.M)}
            if before is None:
                self.describe("describe_lens", **axes_named, **landed)
            else:
                self.describe("describe_lens_flat", gone=self.params.traits[before.trait].name(lang), **axes_named,
                              **landed)
            for g in groups:
                self.describe("describe_pile", words=[s.names[i] for i in g], at=qm.apply(s.X, big.M)[g[0]])
        self.key_moment(f"lens{k + 1}", words=np.array([big.axes.p2c(pt.dot.get_center()) for pt in big.words]),
                        drawn=[_drawn(pt) for pt in big.words], axes=axis_lines(big.axes), panel=bounds(big.axes),
                        others=[bounds(m) for m in (big.x_name, big.y_name, *coords) if m.get_fill_opacity() > 0],
                        coords=[c.get_tex_string() for c in coords],
                        collisions=qm.collisions(s.X, big.M))
        last = k == len(self.params.lenses) - 1     # the last stays, to take its place at the end
        self.play(FadeOut(guides), FadeOut(coords), *([] if last else [
            FadeOut(m) for m in (big.axes, big.heading, big.x_name, big.y_name, big.M_shown, *big.words)]),
            run_time=0.5)

    def _matrix_spot(self, M) -> bool:
        """Give ``M`` a target under the table, as large as reads there (up to its
        size in the work); False when there is no such room (a wide table)."""
        s = self.s
        if s.wide:
            return False
        table = bounds(s.table_lens)
        width, height = table[2] - FRAME_LEFT, table[1] - 0.4 - PANELS_BOTTOM
        M.generate_target()
        fit(M.target, width, height)
        if M.target.height < least_scale(M) * M.height - 1e-9:
            return False
        M.target.move_to([(FRAME_LEFT + table[2]) / 2, (table[1] - 0.4 + PANELS_BOTTOM) / 2, 0])
        return True

    def _fly_names(self, points: list[WordPoint], which) -> None:
        """Each word's name flies from the table to its point, one after another
        (the dot and its leader appear as it lands); without the table, they fade in."""
        s = self.s
        shown = s.table in self.mobjects
        anims = []
        for i in which:
            pt = points[i]
            lead = getattr(pt, "leader", None)
            if getattr(pt, "holder", None) is not None:     # its name is in another's label: it flies there
                label = FadeOut(s.table.names[i].copy(), target_position=points[pt.holder].label.get_center()) \
                    if shown else Wait(0)
            else:
                label = TransformFromCopy(s.table.names[i], pt.label) if shown else FadeIn(pt.label, shift=0.2 * UP)
            anims.append(AnimationGroup(label, FadeIn(pt.dot, scale=0.5), *([] if lead is None else [Create(lead)])))
        if anims:
            self.play(LaggedStart(*anims, lag_ratio=0.4), run_time=min(2.4, 0.6 + 0.35 * len(anims)))
        for i in which:     # each point one group again, for what moves or fades it next
            self.remove(*points[i].submobjects)
            self.add(points[i])

    def _collapse(self, before, big) -> None:
        """Each word moves straight from the plane onto the line (its dot along
        ``X ((1 - t) M0 + t M)``, its label with it); the collapsing axis's name
        fades to the lens's."""
        olds = [getattr(a, "leader", None) for a in before.words]
        self.play(*[FadeOut(ld) for ld in olds if ld is not None], FadeOut(before.y_name), run_time=0.3)
        # words that land on one point: their names gather into the one label that names them all
        shared = {i for i, z in enumerate(big.words) if getattr(z, "holder", None) is not None}
        shared |= {big.words[i].holder for i in shared}
        self.play(*[ReplacementTransform(a.dot, z.dot) for a, z in zip(before.words, big.words)],
                  *[ReplacementTransform(a.label, z.label) for i, (a, z) in enumerate(zip(before.words, big.words))
                    if i not in shared],
                  *[a.label.animate.move_to(big.words[i].label) for i, a in enumerate(before.words) if i in shared],
                  FadeIn(big.y_name), run_time=1.8)
        if shared:
            holders = [big.words[i].label for i in sorted(shared) if getattr(big.words[i], "holder", None) is None]
            self.play(*[FadeOut(before.words[i].label) for i in shared], *[FadeIn(h) for h in holders], run_time=0.5)
        news = [ld for z in big.words if (ld := getattr(z, "leader", None)) is not None]
        if news:
            self.play(*[Create(ld) for ld in news], run_time=0.4)
        for a, z in zip(before.words, big.words):
            self.remove(*a.submobjects, *z.submobjects)
            self.add(z)

    def _before_collapse(self, k: int):
        """For a lens that flattens the plane (``unflattened``): the words on the
        plane before the collapse, on the same axes, with the dropped trait's name
        on the axis that collapses (or None)."""
        s = self.s
        flat = unflattened(s.X, s.big[k].M)
        if flat is None:
            return None
        M0, t = flat
        big = s.big[k]
        words = [WordPoint(nm, y, self.lang, color=palette.EMBED, size=26) for nm, y in zip(s.names, qm.apply(s.X, M0))]
        for pt in words:
            legible(pt.label)
            pt.dot.move_to(big.axes.c2p(*pt.coords))
        share_labels(words, s.names, self.lang, self.tr("sep"), 26)
        y_name = legible(text(self.params.traits[t].name(self.lang), self.lang, size=24, color=LENS_COLOURS[k]))
        y_name.move_to(big.y_name)
        place_word_labels(words, avoid=[big.x_name, y_name], inside=self._room(big, 0.05), lines=axis_lines(big.axes))
        outline_labels(y_name, *words)
        return SimpleNamespace(words=words, y_name=y_name, M0=M0, trait=t)

    # --- the same input, three matrices, three views side by side
    def _outro(self) -> None:
        """The three views side by side, each panel as tall as the frame
        under the title allows and its words as large as in the lens's own
        panel: the same words, three matrices, three views."""
        s, lenses = self.s, self.params.lenses
        ends = self._panels(list(range(len(lenses))), FRAME_LEFT, FRAME_RIGHT, TOP, size=26, heading=20)
        for panel in ends:
            place_word_labels(panel.words, avoid=[panel.x_name, panel.y_name], inside=self._room(panel, 0.05),
                              lines=axis_lines(panel.axes))

        def parts(panel):
            return [panel.heading, panel.axes, panel.x_name, panel.y_name, *panel.words]

        with self.beat("outro_say"):
            # the last lens's panel shrinks into its place beside the other two
            self.play(FadeOut(s.table), FadeOut(s.row_box), FadeOut(s.big[-1].M_shown),
                      *[ReplacementTransform(a, z) for a, z in zip(parts(s.big[-1]), parts(ends[-1]))], run_time=1.2)
            self.play(LaggedStart(*[FadeIn(VGroup(*parts(p)), shift=0.3 * RIGHT) for p in ends[:-1]],
                                  lag_ratio=0.5), run_time=1.4)
            self.focus_on(*[p.axes for p in ends])
            self.describe("describe_outro")
        self.key_moment("end", drawn=[[_drawn(pt) for pt in p.words] for p in ends],
                        axes=[axis_lines(p.axes) for p in ends], panels=[bounds(p.axes) for p in ends],
                        others=[[bounds(p.x_name), bounds(p.y_name)] for p in ends],
                        label_px=min(glyph_px(pt.label) for p in ends for pt in p.words))

    def _block(self, x, name: str, lens, colour, compact: bool = False, name_above: bool = False,
               worked: bool = True) -> _Work:
        """One word's product with a lens matrix, written out: its name, the
        row x times M = the result, and one line of arithmetic per output,
        a term per trait (``compact``: the name above the row x, each line
        without the step of its products; not ``worked``: no lines, the
        product's row alone)."""
        work = qm.worked_product(x, lens.matrix)
        vec = matrix_mob([x], font_size=MATH_SIZE)
        M = matrix_mob(lens.matrix, font_size=MATH_SIZE)
        M.set_color(colour)
        res = matrix_mob([work.result], font_size=MATH_SIZE)
        res.get_entries().set_color(colour)
        times, eq = MathTex(r"\times", font_size=MATH_SIZE + 6), MathTex("=", font_size=MATH_SIZE + 6)
        product = VGroup(vec, times, M, eq, res).arrange(RIGHT, buff=0.25)
        word_name = legible(text(name, self.lang, size=26, color=palette.EMBED),
                               glyph_px(number_tex("0", font_size=MATH_SIZE)))     # as tall as the digits
        word_name.next_to(vec, LEFT, buff=0.2)
        if compact or name_above:
            word_name.next_to(vec, UP, aligned_edge=LEFT, buff=0.15)
        lines = VGroup(*[column_line(c, MATH_SIZE, colour, form="ends") if compact else
                         term_line(c, MATH_SIZE, colour) for c in work.columns] if worked else [])
        if worked:
            lines.arrange(DOWN, aligned_edge=LEFT, buff=0.22)
            lines.scale(max(1.0, min(1.35, product.width / lines.width)))     # the numbers as large as room allows
            lines.next_to(product, DOWN, buff=0.3)
        outline_labels(product, word_name)     # the matrix may come in by a transform
        return _Work(VGroup(word_name, product, lines), work, vec, M, res, word_name, lines, times, eq)

    @staticmethod
    def _fits(mob, width: float) -> bool:
        """Whether ``mob`` fits ``width`` by the frame's height (under the title) at a readable size."""
        if not mob.has_points() and not any(m.has_points() for m in mob.get_family()):
            return True     # nothing to fit (a product worked to its result only has no lines)
        return min(1.0, width / mob.width, (TOP - PANELS_BOTTOM) / mob.height) >= least_scale(mob) - 1e-9

    def _table(self, names, traits, lang) -> VGroup:
        """The words as a table: a header of trait names, then one row per
        word (its name, then one number per trait)."""
        # names of short letters only ("mmm") as tall as the digits: the numbers set how far the table shrinks
        digit = glyph_px(number_tex("0", font_size=MATH_SIZE))
        header = VGroup(*[legible(text(t.name(lang), lang, size=24, color=palette.MUTED), digit)
                          for t in self.params.traits])
        name_mobs = VGroup(*[legible(text(nm, lang, size=28, color=palette.EMBED), digit) for nm in names])
        rows = [VGroup(*[number_tex(tex_number(v), font_size=MATH_SIZE) for v in row]) for row in traits]
        col_w = [max(header[j].width, *(r[j].width for r in rows)) + 0.3 for j in range(len(header))]
        name_w = max(m.width for m in name_mobs)
        row_h = 0.45
        xs = [name_w + 0.35 + sum(col_w[:j]) + col_w[j] / 2 for j in range(len(col_w))]
        for j, h in enumerate(header):
            h.move_to([xs[j], 0, 0])
        for i, nm in enumerate(name_mobs):
            y = -(i + 1) * row_h
            nm.move_to([0, y, 0], aligned_edge=LEFT)
            for j, e in enumerate(rows[i]):
                e.move_to([xs[j], y, 0])
        table = VGroup(header, name_mobs, *rows)
        table.header, table.names, table.rows = header, name_mobs, rows
        return table

    def _panels(self, ks: list[int], left: float, right: float, top: float, size: float = 22,
                heading: float | None = None, large: bool = False) -> VGroup:
        """One panel per lens of ``ks``, side by side from ``left`` to ``right``,
        from ``top`` down to the subtitle band: its heading (keeps / drops, at
        ``heading``, default ``size``), axes sized to its points (and, for a
        ``large`` panel, to the plane a flattening lens collapses), axis names
        and the words at ``X @ M`` with ``size`` labels (placed later, beside
        the worked point's guides)."""
        p, lang, names, X = self.params, self.lang, self.s.names, self.s.X
        lenses, colours = [p.lenses[k] for k in ks], [LENS_COLOURS[k] for k in ks]
        width = (right - left - (len(ks) - 1) * PANEL_GAP) / len(ks)

        def wrap(content: str, size: float, colour) -> VGroup:
            # as wide as the panel, or as its axes (under which it is aligned) if a line would overhang them
            lines = wrapped_text(content, lang, size=size, width=width, color=colour)
            most = width - 0.3
            while True:
                if lines.width > most:
                    lines = wrapped_text(content, lang, size=size, width=most, color=colour)
                heights = [line.height for line in lines]
                for line in lines:     # a line of short letters only ("mmm"), lifted to a readable size
                    legible(line)
                if [line.height for line in lines] != heights:
                    lines.arrange(DOWN, aligned_edge=LEFT, buff=0.12)
                if lines.width <= width - 0.3 or most < 2.0:
                    return lines
                most *= 0.9

        headings = [VGroup(
            wrap(self.tr("keep", what=lens.keep.name(lang)), (heading or size) + 2, colour),
            wrap(self.tr("drop", what=lens.drop.name(lang)), heading or size, palette.MUTED),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.08) for lens, colour in zip(lenses, colours)]
        axes_h = top - max(h.height for h in headings) - 0.2 - PANELS_BOTTOM
        panels = VGroup()
        for i, (lens, heading, colour) in enumerate(zip(lenses, headings, colours)):
            M = np.array(lens.matrix, dtype=float)
            Y = qm.apply(X, M)
            flat = unflattened(X, M) if large else None
            spread = Y if flat is None else np.vstack([Y, qm.apply(X, flat[0])])
            # a small panel of a lens that flattens onto its x-axis: the line across the middle, room over and under
            line_only = flat is None and np.ptp(Y[:, 1]) < 1e-9 and np.ptp(Y[:, 0]) > 0
            y_range = (-1.0, 1.0, 0.5) if line_only else _range(spread[:, 1], right=0.3)
            axes = Axes(x_range=_range(spread[:, 0], right=0.35), y_range=y_range,
                        x_length=width - 0.3, y_length=axes_h, tips=False,
                        axis_config={"stroke_color": palette.MUTED, "include_ticks": False})
            heading.align_to([0, top, 0], UP)
            axes.align_to([0, PANELS_BOTTOM, 0], DOWN)
            axes.set_x(left + width / 2 + i * (width + PANEL_GAP))
            heading.align_to(axes, LEFT)
            panel = VGroup(heading, axes)
            panel.heading, panel.axes, panel.M = heading, axes, M
            panel.x_name = legible(text(lens.axes[0].name(lang), lang, size=24, color=colour))
            panel.x_name.next_to(axes.x_axis.get_right(), UP, buff=0.1).align_to(axes, RIGHT)
            panel.y_name = legible(text(lens.axes[1].name(lang), lang, size=24, color=colour))
            panel.y_name.next_to(axes.y_axis.get_top(), RIGHT, buff=0.1)
            panel.words = [WordPoint(nm, y, lang, color=palette.EMBED, size=size) for nm, y in zip(names, Y)]
            for pt in panel.words:
                legible(pt.label)
                pt.dot.move_to(axes.c2p(*pt.coords))
            share_labels(panel.words, names, lang, self.tr("sep"), size, width=0.55 * width)   # one point: one label
            # the axes' names never cover a point (nor, on a flattening lens, where one was before)
            panel.dots = [(x - 0.07, y - 0.07, x + 0.07, y + 0.07)
                          for x, y, _ in (axes.c2p(*q) for q in spread)]
            self._name_axes(panel)
            panel.add(panel.x_name, panel.y_name)
            outline_labels(panel, *panel.words)     # they come in by transforms too, not only by add
            panels.add(panel)
        return panels

    @staticmethod
    def _name_axes(panel, avoid: tuple = ()) -> bool:
        """Keep the axes' names (above the x-axis's end, beside the y-axis's top)
        inside the panel and clear of each other: below the x-axis, or left of
        the y-axis, when the axes meet near a corner."""
        x_name, y_name, ax = panel.x_name, panel.y_name, panel.axes
        room = ThreeLenses._room(panel)
        dots = getattr(panel, "dots", [])

        def fine() -> bool:
            return (within(bounds(x_name), room) and within(bounds(y_name), room)
                    and _clear(bounds(x_name), bounds(y_name), pad=-0.02)
                    and all(_clear(bounds(m), b, pad=-0.01) for m in (x_name, y_name) for b in avoid)
                    and all(_clear(bounds(m), b, pad=0.03) for m in (x_name, y_name) for b in dots))

        if fine():
            return True
        # further along the x-axis (to the left) and further down beside the y-axis, as far as need be
        for x_side in (UP, DOWN):
            for along in range(8):
                x_name.next_to(ax.x_axis.get_right(), x_side, buff=0.1).align_to(ax, RIGHT)
                x_name.shift(LEFT * along * 0.3)
                if not within(bounds(x_name), room):
                    continue
                for lower in range(6):
                    for y_side in (RIGHT, LEFT, None):
                        y_name.next_to(ax.y_axis.get_top(), y_side if y_side is not None else RIGHT, buff=0.1)
                        y_name.shift(DOWN * lower * (y_name.height + 0.1))     # down beside the axis's top
                        if y_side is None:     # too wide for either side: across the axis, inside the panel
                            b = bounds(y_name)
                            y_name.shift(LEFT * max(0.0, b[2] - room[2]) + RIGHT * max(0.0, room[0] - b[0]))
                        if fine():
                            return True
        x_name.next_to(ax.x_axis.get_right(), UP, buff=0.1).align_to(ax, RIGHT)
        y_name.next_to(ax.y_axis.get_top(), RIGHT, buff=0.1)
        if avoid:     # nowhere clear of ``avoid``: where they go without it
            ThreeLenses._name_axes(panel)
        return False

    def _guides(self, panel, point: WordPoint, result, colour) -> tuple[VGroup, VGroup]:
        """Dashed lines from the worked word's point to both axes, with its
        two coordinates written where they meet the axes."""
        ax = panel.axes
        x, y = (float(v) for v in result)
        foot_x, foot_y = ax.c2p(x, 0), ax.c2p(0, y)
        off_axes = x != 0 and y != 0     # a point on an axis needs no guide to it
        guides = VGroup(*[DashedLine(point.dot.get_center(), f, color=colour, stroke_width=3)
                          for f in (foot_x, foot_y) if off_axes])
        cx = number_tex(tex_number(result[0]), font_size=28, color=colour).next_to(foot_x, DOWN, buff=0.1)
        cy = number_tex(tex_number(result[1]), font_size=28, color=colour).next_to(foot_y, LEFT, buff=0.1)
        # inside the panel, clear of each other and of the axes' names: above the x-axis, right of
        # the y-axis, when below and left are taken (a point near the origin, an axis near the edge)
        room = self._room(panel)
        names = [bounds(panel.x_name), bounds(panel.y_name)]

        def faults(a, b, names) -> int:
            """Leaving the panel counts most, then covering a name, then each other."""
            return sum(10 * (not within(bounds(m), room)) + sum(not _clear(bounds(m), t, pad=-0.01) for t in names)
                       for m in (a, b)) + (not _clear(bounds(a), bounds(b), pad=-0.01))

        if faults(cx, cy, names):
            tries = [(sx, nx, sy, ny) for nx in (0, 1, -1, 2, -2) for ny in (0, 1, -1, 2, -2)
                     for sx, sy in ((DOWN, LEFT), (DOWN, RIGHT), (UP, LEFT), (UP, RIGHT))]
            best = None
            for sx, nx, sy, ny in tries:   # each beside its foot, nudged along its axis if need be
                cx.next_to(foot_x, sx, buff=0.1).shift(RIGHT * nx * (cx.width / 2 + 0.1))
                cy.next_to(foot_y, sy, buff=0.1).shift(UP * ny * (cy.height / 2 + 0.1))
                n = faults(cx, cy, names)
                # in the panel and clear of each other, but on a name: the names step aside if they can
                if n and not faults(cx, cy, ()) and self._name_axes(panel, avoid=(bounds(cx), bounds(cy))):
                    names = [bounds(panel.x_name), bounds(panel.y_name)]
                    n = 0
                if best is None or n < best[0]:
                    best = (n, sx, nx, sy, ny)
                if not n:
                    break
            _, sx, nx, sy, ny = best
            cx.next_to(foot_x, sx, buff=0.1).shift(RIGHT * nx * (cx.width / 2 + 0.1))
            cy.next_to(foot_y, sy, buff=0.1).shift(UP * ny * (cy.height / 2 + 0.1))
            # a crowded panel: a coordinate with nowhere to go is left out (its guide still shows it)
            for m, other in ((cy, cx), (cx, cy)):
                shown = [bounds(other)] if other.get_fill_opacity() > 0 else []
                if not within(bounds(m), room) or not all(_clear(bounds(m), t, pad=-0.01) for t in names + shown):
                    m.set_opacity(0)
        if not off_axes:     # a point on an axis: its 0 coordinate would sit at the origin, saying nothing
            for m, v in ((cx, x), (cy, y)):
                if v == 0:
                    m.set_opacity(0)
        return guides, VGroup(cx, cy)

    @staticmethod
    def _room(panel, below: float = -0.01) -> tuple[float, float, float, float]:
        """Where a panel's labels may go: over its axes (and half the gap to the next panel), under
        its heading, inside the frame."""
        ax = panel.axes
        return (max(ax.get_left()[0] - PANEL_GAP / 2 + 0.05, FRAME_LEFT),
                PANELS_BOTTOM, min(ax.get_right()[0] + PANEL_GAP / 2 - 0.05, FRAME_RIGHT),
                panel.heading.get_bottom()[1] - below)    # (the check allows 0.02 of overlap)
