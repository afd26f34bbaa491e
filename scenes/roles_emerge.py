"""Scene 10, RolesEmerge: W_Q, W_K, W_V start random and learn their roles.

Plays the snapshots of a real training run (``qkv_math.train_matching``,
cached by ``qkv_lens.runs``) on one held-out party: each guest's query
and key as arrows on one fixed plane (a shadow of their d-dim space,
``qkv_math.qk_shadow``), the attention grid with the referee's flags on wrong
matches, what each person's query asks for, key says and value brings
(``qkv_math.readouts``), the loss curve and the held-out accuracy.  Row
vectors: Q = X W_Q, one row per person.

    manim -ql scenes/roles_emerge.py RolesEmerge
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    Line,
    MathTex,
    Mobject,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    UpdateFromAlphaFunc,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
)

import qkv_math as qm
from qkv_lens.cues import cue_seconds, split_cues
from qkv_lens.languages import language
from qkv_lens.numbers import about, percent, sci, sci_text, tex_number
from qkv_lens.runs import training_runs
from qkv_math.training import Run
from scenes.kit import palette
from scenes.kit.boards import LossAxes
from scenes.kit.charts import NumberGrid
from scenes.kit.glyphs import number_tex
from scenes.kit.layout import bounds, place_clear
from scenes.kit.legible import legible
from scenes.kit.motion import Slots, crossfade
from scenes.kit.scene import LessonScene
from scenes.kit.sections import TrainingParams
from scenes.kit.text import text, title, wrapped_text

READOUTS = tuple(zip(("asks", "says", "brings"), palette.QKV.values()))   # what Q asks, K says, V brings
RIGHT_MARK = palette.BASIS_I    # green: a right match
WRONG_READ = palette.MUTED      # a read-out that does not (yet) name the right profession
TRUTH = palette.INK            # what each guest seeks: the truth the read-outs are checked against
CURVE = palette.INK            # the loss curve and its number (no role colour, no emphasis)
FLOOR = -2.95                   # the lowest edge of any label: just above the subtitle band (y >= -3.04)
EDGE = 6.85                     # the frame's content runs from -EDGE to EDGE: the plane left, the table right
LINE = 0.4                      # between the info lines under the table
PLANE_GAP = 0.45                # between the plane and the table
INDENT = -EDGE + 0.4            # the full-width table's names, right of its row numbers
TAG_SIZE = 34                   # q_1, k_2 on the plane's arrows
HEAD_SIZE = 24                  # the table's column heads
NAME_SIZE = 22                  # professions in the table
LOSS_SIZE = 40                  # the loss: its exponent at the legibility floor
WEIGHT_FILL = palette.COLUMNS[3]   # attention weights shade their cells (not Q, K or V: no role colour)


def _width(content: str, lang: str, size: float) -> float:
    """How wide ``content`` is drawn at ``size`` (at least at the legibility floor)."""
    return legible(text(content, lang, size=size)).width


def _turn(v: np.ndarray, degrees: float) -> np.ndarray:
    """``v`` turned by ``degrees`` in the frame's plane."""
    a = np.radians(degrees)
    return np.array([v[0] * np.cos(a) - v[1] * np.sin(a), v[0] * np.sin(a) + v[1] * np.cos(a), 0.0])


@dataclass
class _Plane:
    """The shadow plane: every snapshot's queries and keys (``qkv_math.qk_shadow``) on one
    fixed plane, drawn at one scale (lengths and angles in the plane are true)."""
    q: np.ndarray                 # (S, n, 2) the queries' shadows, one (n, 2) per snapshot
    k: np.ndarray                 # (S, n, 2) the keys'
    kept: float                   # the share of the trained q and k the plane keeps
    origin: np.ndarray            # where (0, 0) is drawn
    unit: float                   # frame units per unit of the shadow
    swap: bool                    # the plane's first direction drawn upright (it fits the region better)
    region: tuple                 # (left, bottom, right, top): the plane's part of the frame
    group: VGroup                 # its axes and caption

    def point(self, c) -> np.ndarray:
        """Where plane coordinates ``c`` are drawn."""
        x, y = (c[1], c[0]) if self.swap else (c[0], c[1])
        return self.origin + self.unit * np.array([x, y, 0.0])

    def coords(self, point) -> list[float]:
        """The plane coordinates of a drawn ``point``."""
        x, y = (np.asarray(point)[:2] - self.origin[:2]) / self.unit
        return [float(y), float(x)] if self.swap else [float(x), float(y)]


def _fit(q: np.ndarray, k: np.ndarray, region: tuple, margin: float) -> tuple[bool, float, np.ndarray]:
    """(swap, unit, origin): the largest scale at which every snapshot's q, k and the origin fit
    ``region`` (``margin`` inside, room for the tags), either way round."""
    pts = np.concatenate([q.reshape(-1, 2), k.reshape(-1, 2), np.zeros((1, 2))])
    left, bottom, right, top = region
    w, h = right - left - 2 * margin, top - bottom - 2 * margin
    best: tuple[bool, float, np.ndarray] | None = None
    for swap in (False, True):
        P = pts[:, ::-1] if swap else pts
        lo, hi = P.min(0), P.max(0)
        span = np.maximum(hi - lo, 1e-9)
        unit = float(min(w / span[0], h / span[1]))
        if best is None or unit > best[1]:
            c = (lo + hi) / 2
            best = (swap, unit, np.array([(left + right) / 2 - unit * c[0], (bottom + top) / 2 - unit * c[1], 0.0]))
    assert best is not None
    return best


@dataclass
class _Stage:
    """What the beats share: the run and its party, the table, the loss axes and the labels that change."""
    run: Run
    X: np.ndarray                 # the held-out party, one row per person: [profile, wish]
    match: np.ndarray             # whom each person should pick
    profile: np.ndarray           # each person's profession (index into job)
    wish: np.ndarray              # the profession each wants
    job: list[str]                # the professions' names
    names: list[str]              # each person's profession's name
    heading: Mobject
    table: VGroup
    grid: NumberGrid
    wants: VGroup
    col_x: list[float]            # the read-out columns' centres
    ax: LossAxes
    info_x: float                 # the info lines' left edge, right of the loss axes
    marker: Dot
    plane: _Plane                 # the shadow plane: its axes, caption and the map to the frame
    q_arrows: VGroup              # each guest's query on the plane (gold)
    k_arrows: VGroup              # each guest's key on the plane (teal)
    q_tags: VGroup                # q_1 .. q_n beside the query arrows' tips
    k_tags: VGroup                # k_1 .. k_n beside the key arrows' tips
    next_k: int = 0               # the next snapshot to show
    curve: VGroup = field(default_factory=VGroup)
    flags: list[Mobject] = field(default_factory=list)   # the red boxes of the last snapshot
    strikes: VGroup = field(default_factory=VGroup)     # lines through the wrong names at step 0
    chance: Mobject = field(default_factory=VGroup)     # what guessing gets, beside the accuracy
    shown: dict = field(default_factory=dict)           # the read-outs of the last snapshot shown
    slots: Slots = field(default_factory=Slots)   # numbers, flags, read-outs and info lines
    made: dict = field(default_factory=dict)      # profession names by (name, colour), made once

    @property
    def n(self) -> int:
        return self.X.shape[0]


class RolesEmerge(LessonScene):
    params: TrainingParams
    chapter = 2
    number = 10
    s: _Stage

    def construct(self):
        self.s = self._stage()
        self._intro()
        self._start()
        self._referee()
        self._chance()
        shown = self._train()
        self._outro(shown)

    # --- the layout -------------------------------------------------------
    def _stage(self) -> _Stage:
        """The run, its party, the table (right), the shadow plane (left), the loss axes and the
        info lines (under the table)."""
        p, lang = self.params, self.lang
        run = training_runs(p)["standard"]
        X, match = run.display_party
        n_jobs = len(p.jobs)
        profile, wish = X[:, :n_jobs].argmax(1), X[:, n_jobs:].argmax(1)
        job = [j.name(lang) for j in p.jobs]
        names = [job[k] for k in profile]
        heading = title(self.tr("title"), lang)
        n = len(names)
        info_w = self._info_width(n)
        names_xy = (self.tr("steps_axis"), self.tr("loss_axis"))
        # the loss axes: wider than the loss's name in their corner, beside the info lines
        least = _width(names_xy[1], lang, 24) + 0.45
        overhead = LossAxes(run.losses, p.steps, lang, *names_xy, width=2.0, height=1.0).width - 2.0
        table, grid, wants, col_x = self._table(heading, job, names, wish)
        rows_clear = all(grid.row_labels[i].get_bottom()[1] > wants[i].get_top()[1] + 0.03 for i in range(n)) and \
            all(wants[i].get_bottom()[1] > grid.row_labels[i + 1].get_top()[1] + 0.03 for i in range(n - 1))
        # the table's column, with the axes and the info lines under it (wider than a narrow table)
        left = min(table.get_left()[0], EDGE - (info_w + 0.35 + least + overhead))
        beside = rows_clear and left >= -EDGE + 4.2 and table.get_bottom()[1] >= -1.0
        if not beside:      # too many guests or names too wide: the table across, the plane under it
            table, grid, wants, col_x = self._table_full(heading, job, names, wish)
            left = -EDGE

        # --- the loss curve and the read-out of the run, under the table
        height = float(np.clip(table.get_bottom()[1] - 0.25 - FLOOR - 0.6, 0.8, 1.3))
        room_w = EDGE - left if beside else 0.55 * 2 * EDGE
        width = float(np.clip(room_w - info_w - 0.35 - overhead, least, 3.2))
        ax = LossAxes(run.losses, p.steps, lang, *names_xy, width=width, height=height)
        ax.shift(RIGHT * (left - ax.get_left()[0]))
        ax.align_to([0, FLOOR, 0], DOWN)
        marker = Dot(ax.point(0, run.snapshots[0].loss), radius=0.07, color=palette.FOCUS)
        for i in range(n):
            for j in range(n):
                grid.cell_at(i, j).set_fill(WEIGHT_FILL if i != j else palette.MUTED, opacity=0)
        region = (-EDGE, FLOOR, left - PLANE_GAP, heading.get_bottom()[1] - 0.2) if beside else \
            (ax.get_right()[0] + 0.35 + info_w + PLANE_GAP, FLOOR, EDGE, table.get_bottom()[1] - 0.2)
        plane = self._plane(run, X, region)
        tags = [VGroup(*[MathTex(f"{name}_{{{i + 1}}}", font_size=TAG_SIZE, color=color) for i in range(n)])
                for name, color in (("q", palette.Q_GOLD), ("k", palette.K_TEAL))]
        return _Stage(run, X, match, profile, wish, job, names, heading, table, grid, wants, col_x, ax,
                      ax.get_right()[0] + 0.35, marker, plane, VGroup(), VGroup(), *tags)

    def _info_width(self, n: int) -> float:
        """How wide the widest info line can be drawn (the loss line at its widest number)."""
        p, lang = self.params, self.lang
        widest = max(_width(line, lang, 22) for line in (
            self.tr("step", step=p.steps, steps=p.steps), self.tr("accuracy", acc="100"),
            self.tr("referee", wrong=n, n=n), self.tr("referee_ok", n=n),
            self.tr("chance_line", others=n - 1, chance=percent(1 / (n - 1)))))
        return max(widest, _width(self.tr("loss"), lang, 22) + 0.15 + MathTex(sci(4.4e-5), font_size=LOSS_SIZE).width)

    def _plane(self, run: Run, X: np.ndarray, region: tuple) -> _Plane:
        """The shadow plane in ``region`` (left, bottom, right, top): its caption at the bottom, faint
        axes through the origin, the scale that fits every snapshot's q and k."""
        d = X.shape[1] // 2
        _, q, k, kept = qm.qk_shadow([snap.weights for snap in run.snapshots], X)
        left, bottom, right, top = region
        caption = wrapped_text(self.tr("shadow_caption", d=d), self.lang, size=24, width=right - left,
                               color=palette.INK)
        caption.move_to([(left + right) / 2, 0, 0]).align_to([0, bottom, 0], DOWN)
        box = (left, caption.get_top()[1] + 0.1, right, top)
        swap, unit, origin = _fit(q, k, box, margin=0.45)
        axes = VGroup(Line([box[0], origin[1], 0], [box[2], origin[1], 0]),
                      Line([origin[0], box[1], 0], [origin[0], box[3], 0])).set_stroke(palette.MUTED, 1.5, 0.6)
        return _Plane(q, k, kept, origin, unit, swap, box, VGroup(axes, caption))

    def _table(self, heading: Mobject, job: list[str], names: list[str], wish: np.ndarray):
        """The table, right of the plane: # | who (what they seek under it) | attention grid |
        Q asks | K says | V brings, laid out from the right edge by the widths of its words, every
        label at a readable size, just under the title.
        Returns the table, its grid, the wants labels and the read-out columns' centres."""
        lang, n = self.lang, len(names)
        cell = float(np.clip(2.9 / n, 0.6, 0.72))      # two lines a row: the guest, what they seek
        size = 24 if n <= 4 else 20
        number_size = 28 if n <= 4 else 26
        read_w, col_x, _ = self._readout_columns(job, gap=0.25)
        # columns at least as wide as the grid's numbers and, together, as its heading (two levels of
        # names over them when the names are wider)
        cell_w = max(cell, number_tex("0.00", font_size=number_size).width / 0.9,
                     _width(self.tr("keys"), lang, HEAD_SIZE) / n)
        grid = NumberGrid(names, names, lang, cell=cell, size=size, cell_width=cell_w, number_size=number_size)
        grid.shift(RIGHT * (col_x[0] - read_w[0] / 2 - 0.2 - grid.cells.get_right()[0]))   # clear of the Q column
        grid.align_to([0, 2.65, 0], UP).shift(DOWN * grid.col_labels.height)
        wants = VGroup(*[legible(text(job[wish[i]], lang, size=NAME_SIZE, color=TRUTH)) for i in range(n)])
        for i, w in enumerate(wants):   # the guest above, what they seek below, right-aligned by the grid
            y = grid.cell_at(i, 0).get_y()
            grid.row_labels[i].shift(UP * (y + 0.03 - grid.row_labels[i].get_bottom()[1]))
            w.next_to([grid.row_labels[i].get_right()[0], y - 0.03, 0], DOWN + LEFT, buff=0)
            w.align_to(grid.row_labels[i], RIGHT)
        who_x = min(grid.row_labels.get_left()[0], wants.get_left()[0])
        index = VGroup(*[MathTex(str(i + 1), font_size=TAG_SIZE, color=palette.INK)
                         .move_to([who_x - 0.3, grid.cell_at(i, 0).get_y(), 0]) for i in range(n)])
        head_y = grid.col_labels.get_top()[1] + 0.3
        who_head = text(self.tr("who"), lang, size=HEAD_SIZE, color=palette.Q_GOLD)
        heads_y = grid.cells.get_top()[1] + 0.12      # the two heads stacked over the column's two lines
        wants_head = text(self.tr("wants"), lang, size=HEAD_SIZE, color=TRUTH)
        wants_head.next_to([grid.row_labels.get_right()[0], heads_y, 0], UP + LEFT, buff=0)
        who_head.next_to(wants_head, UP, buff=0.08).align_to(wants_head, RIGHT)
        keys_head = text(self.tr("keys"), lang, size=HEAD_SIZE, color=palette.K_TEAL).move_to(
            [grid.cells.get_center()[0], head_y, 0])
        read_heads = VGroup(*[text(self.tr(f"{key}_head"), lang, size=HEAD_SIZE, color=color).move_to([x, head_y, 0])
                              for (key, color), x in zip(READOUTS, col_x)])
        table = VGroup(grid, wants, wants_head, who_head, keys_head, read_heads, index)
        table.shift(UP * (heading.get_bottom()[1] - 0.25 - table.get_top()[1]))   # just under the title
        return table, grid, wants, col_x

    def _readout_columns(self, job: list[str], gap: float) -> tuple[list[float], list[float], float]:
        """The Q asks | K says | V brings columns, laid from the right edge, each as wide as its widest
        name or heading, ``gap`` apart: (widths, centres' x, the x left of them)."""
        names_w = max(_width(nm, self.lang, NAME_SIZE) for nm in job)
        read_w = [max(names_w, _width(self.tr(f"{key}_head"), self.lang, HEAD_SIZE)) for key, _ in READOUTS]
        col_x, right = [], EDGE
        for w in reversed(read_w):
            col_x.insert(0, right - w / 2)
            right -= w + gap
        return read_w, col_x, right

    def _table_full(self, heading: Mobject, job: list[str], names: list[str], wish: np.ndarray):
        """The table across the frame (when it does not fit beside the plane): # | who | wants |
        attention grid | Q asks | K says | V brings, one line a row, laid out from the widths of its
        words, every label at a readable size, just under the title (the plane goes under it).
        Returns the table, its grid, the wants column and the read-out columns' centres."""
        lang, n = self.lang, len(names)
        cell = min(0.66, 2.7 / n)
        size = 24 if n <= 4 else 20
        number_size = 28 if n <= 4 else 26
        who_w = max([_width(nm, lang, size) for nm in job] + [_width(self.tr("who"), lang, HEAD_SIZE)])
        wants_w = max(_width(nm, lang, NAME_SIZE) for nm in [*job, self.tr("wants")])
        names_w = max(_width(nm, lang, NAME_SIZE) for nm in job)
        read_w, col_x, right = self._readout_columns(job, gap=0.3)
        wants_x = INDENT + who_w + 0.3 + wants_w / 2
        grid_left, grid_right = wants_x + wants_w / 2 + 0.35, right - 0.05
        # columns as wide as the names over them (two levels of names when narrower), at least as wide
        # as the grid's numbers and, together, as its heading; as the room allows
        least = max(number_tex("0.00", font_size=number_size).width / 0.9,
                    _width(self.tr("keys"), lang, HEAD_SIZE) / n)
        cell_w = float(np.clip(max(who_w / 0.92, least), cell, (grid_right - grid_left) / n))
        grid = NumberGrid(names, names, lang, cell=cell, size=size, cell_width=cell_w, number_size=number_size)
        grid.move_to([(grid_left + grid_right) / 2, 0, 0]).align_to([0, 2.65, 0], UP)
        grid.shift(DOWN * grid.col_labels.height)
        # the grid stays clear of the read-outs' names (which are centred in their columns)
        grid.shift(LEFT * max(0.0, grid.cells.get_right()[0] - (col_x[0] - names_w / 2 - 0.15)))
        wants = VGroup(*[legible(text(job[wish[i]], lang, size=NAME_SIZE, color=TRUTH)) for i in range(n)])
        for i, w in enumerate(wants):
            w.move_to([wants_x, grid.cell_at(i, 0).get_y(), 0])
            grid.row_labels[i].shift(RIGHT * (INDENT + who_w - grid.row_labels[i].get_right()[0]))
        head_y = grid.col_labels.get_top()[1] + 0.3
        wants_head = text(self.tr("wants"), lang, size=HEAD_SIZE, color=TRUTH).move_to([wants_x, head_y, 0])
        who_head = text(self.tr("who"), lang, size=HEAD_SIZE, color=palette.Q_GOLD)
        who_head.move_to([0, head_y, 0]).align_to(grid.row_labels, RIGHT)
        keys_head = text(self.tr("keys"), lang, size=HEAD_SIZE, color=palette.K_TEAL).move_to(
            [grid.cells.get_center()[0], head_y, 0])
        read_heads = VGroup(*[text(self.tr(f"{key}_head"), lang, size=HEAD_SIZE, color=color).move_to([x, head_y, 0])
                              for (key, color), x in zip(READOUTS, col_x)])
        index = VGroup(*[MathTex(str(i + 1), font_size=TAG_SIZE, color=palette.INK)
                         .move_to([-EDGE + 0.15, grid.cell_at(i, 0).get_y(), 0]) for i in range(n)])
        table = VGroup(grid, wants, wants_head, who_head, keys_head, read_heads, index)
        table.shift(UP * (heading.get_bottom()[1] - 0.25 - table.get_top()[1]))   # just under the title
        return table, grid, wants, col_x

    # --- the changing labels of one snapshot --------------------------------
    def _name(self, name: str, color) -> Mobject:
        """A profession's name (made once per name and colour, then copied)."""
        made = self.s.made
        if (name, color) not in made:
            made[name, color] = legible(text(name, self.lang, size=NAME_SIZE, color=color))
        return made[name, color].copy()

    def _line(self, r: int, content: str, color=palette.INK) -> Mobject:
        """Info line ``r`` (0 at the top) right of the loss axes."""
        y = FLOOR + 0.17 + LINE * (3 - r)
        return self.s.slots.place(("info", r), (content, color), lambda: text(content, self.lang, size=22, color=color)
                                  .move_to([self.s.info_x, y, 0], aligned_edge=LEFT))

    def _place(self, k: int) -> dict:
        """Place every changing label of snapshot k; return what they show."""
        s, p = self.s, self.params
        grid, slots, match, n, job = s.grid, s.slots, s.match, s.n, s.job
        snap = s.run.snapshots[k]
        A = snap.attention
        grid.values = A
        grid.numbers = VGroup(*[slots.place(("num", i, j), tex_number(A[i, j], 2, pad=True),
                                            lambda i=i, j=j: grid.number(A[i, j], i, j))
                                for i in range(n) for j in range(n)])
        picked = A.argmax(1)
        for i in range(n):
            right = picked[i] == match[i]
            slots.place(("pick", i), (int(picked[i]), right), lambda i=i, right=right: SurroundingRectangle(
                grid.cell_at(i, picked[i]), color=RIGHT_MARK if right else palette.ALERT, buff=0.0,
                stroke_width=5 if right else 6))
            if not right:  # the referee also marks where the match should have gone
                slots.place(("should", i), int(match[i]), lambda i=i: DashedVMobject(SurroundingRectangle(
                    grid.cell_at(i, match[i]), color=RIGHT_MARK, buff=-0.04, stroke_width=3), num_dashes=16))
        r = qm.readouts(snap.weights, s.X, "standard")
        truth = {"asks": s.wish, "says": s.profile, "brings": s.profile}
        shown = {}
        for (key, color), x in zip(READOUTS, s.col_x):
            top = r[key].argmax(1)
            shown[key] = [job[t] for t in top]
            for i in range(n):
                c = color if top[i] == truth[key][i] else WRONG_READ
                slots.place((key, i), (top[i], c), lambda t=top[i], c=c, x=x, i=i: self._name(job[t], c)
                            .move_to([x, grid.cell_at(i, 0).get_y(), 0]))
        wrong = int(np.sum(picked != match))
        self._line(0, self.tr("step", step=snap.step, steps=p.steps))
        loss_head = self._line(1, self.tr("loss"))
        loss_tex = sci(snap.loss)
        slots.place(("info", "loss"), loss_tex, lambda: MathTex(loss_tex, font_size=LOSS_SIZE, color=CURVE)
                    .next_to(loss_head, RIGHT, buff=0.15))
        acc = self._line(2, self.tr("accuracy", acc=percent(snap.accuracy)))
        self._line(3, self.tr("referee", wrong=wrong, n=n) if wrong else self.tr("referee_ok", n=n),
                   palette.ALERT if wrong else RIGHT_MARK)
        return {"step": snap.step, "grid": grid.shown(), "picked": picked.tolist(),
                "flags": [i for i in range(n) if picked[i] != match[i]],
                "readouts": shown, "loss": loss_tex, "accuracy": acc.text, "wrong": wrong}

    def _fills(self, k: int) -> UpdateFromAlphaFunc:
        """Cells shaded by snapshot k's weights (the masked diagonal stays grey)."""
        cells, n = self.s.grid.cells, self.s.n
        A = self.s.run.snapshots[k].attention
        start = [c.get_fill_opacity() for c in cells]
        target = [0.7 * A[i, j] if i != j else 0.25 for i in range(n) for j in range(n)]

        def shade(_, alpha):
            for c, a, b in zip(cells, start, target):
                c.set_fill(opacity=a + (b - a) * alpha)
        return UpdateFromAlphaFunc(ValueTracker(0), shade)

    def _show(self, k: int, run_time: float = 0.8, extra: list | None = None) -> dict:
        """Snapshot k: its labels, the grid's shading and the loss curve up to its step (with ``extra``
        animations); a pick's box that changes slides from its old cell to its new one."""
        s, ax = self.s, self.s.ax
        snaps = s.run.snapshots
        probes = self._place(k)
        snap = snaps[k]
        prev = snaps[k - 1].step if k else 0
        stop = min(snap.step, self.params.steps - 1)
        pts = [ax.point(t, s.run.losses[t]) for t in range(prev, stop + 1)]
        pts.append(ax.point(snap.step, snap.loss))
        segment = VMobject(color=CURVE, stroke_width=3)
        segment.set_points_as_corners(pts if len(pts) > 1 else pts * 2)
        s.curve.add(segment)
        slides = [(s.slots.current[key][1], m) for key, (_, m) in s.slots.pending.items()
                  if key[0] == "pick" and key in s.slots.current and s.slots.current[key][1] is not m]
        out, new = s.slots.commit()
        sliding = {id(m) for pair in slides for m in pair}
        out, new = [m for m in out if id(m) not in sliding], [m for m in new if id(m) not in sliding]
        swing = self._swing(k)
        self.add(*new)
        self.play(self._fills(k), Create(segment), s.marker.animate.move_to(ax.point(snap.step, snap.loss)),
                  crossfade(VGroup(*out), VGroup(*new)), *[ReplacementTransform(a, b) for a, b in slides],
                  *swing, *(extra or []), run_time=run_time)
        self.remove(*out)
        s.next_k = k + 1
        s.shown = probes["readouts"]
        s.flags = [m for key, (sig, m) in s.slots.current.items() if key[0] == "pick" and not sig[1]]
        # where the marker and the curve's end sit, in the axes' coordinates
        # (log10(step + 1), log10(loss))
        pl = s.plane
        self.key_moment(f"snapshot_{k}", **probes, time=self.renderer.time, marker=ax.value(s.marker.get_center()),
                        curve_end=ax.value(s.curve[-1].get_end()),
                        q_tips=[pl.coords(a.get_end()) for a in s.q_arrows],
                        k_tips=[pl.coords(a.get_end()) for a in s.k_arrows],
                        q_tags=[t.get_center().tolist() for t in s.q_tags],
                        k_tags=[t.get_center().tolist() for t in s.k_tags])
        return probes

    def _arrow(self, c, color) -> Arrow:
        """An arrow from the plane's origin to plane coordinates ``c``."""
        pl = self.s.plane
        tip = pl.point(c)
        if np.linalg.norm(tip - pl.origin) < 0.06:     # too short to draw: a stub the same way
            tip = pl.origin + RIGHT * 0.06
        return Arrow(pl.origin, tip, buff=0, color=color, stroke_width=5, tip_length=0.22,
                     max_tip_length_to_length_ratio=0.35, max_stroke_width_to_length_ratio=25)

    def _tag_spots(self, k: int) -> list[tuple[np.ndarray, bool]]:
        """Where the tags of snapshot k go (the keys', then the queries'): beside each arrow's tip,
        outward first, clear of the tips and of each other, inside the plane; and whether a clear
        spot was found (a crowded small plane hides the tags that find none)."""
        pl = self.s.plane
        tips = [pl.point(c) for c in (*pl.k[k], *pl.q[k])]
        taken = [(p[0] - 0.1, p[1] - 0.1, p[0] + 0.1, p[1] + 0.1) for p in tips]
        left, bottom, right, top = pl.region
        inside = (left + 0.15, bottom, right - 0.15, top - 0.15)    # room for a box around a tag
        spots = []
        for tag, tip in zip((*self.s.k_tags, *self.s.q_tags), tips):
            out = tip - pl.origin
            d = out / np.linalg.norm(out) if np.linalg.norm(out) > 1e-6 else UP
            probe = tag.copy()
            clear = place_clear(probe, tip, [d, _turn(d, 45), _turn(d, -45), _turn(d, 90), _turn(d, -90),
                                             _turn(d, 135), _turn(d, -135), -d],
                                avoid=taken, region=inside, buffs=(0.06, 0.25, 0.5))
            if clear:
                taken.append(bounds(probe))
            spots.append((probe.get_center(), clear))
        return spots

    def _swing(self, k: int) -> list:
        """Snapshot k's q and k arrows (grown at the first, then swung from the last shown) and
        their tags beside the tips."""
        s, pl = self.s, self.s.plane
        keys, queries = (VGroup(*[self._arrow(c, color) for c in tips])
                         for tips, color in ((pl.k[k], palette.K_TEAL), (pl.q[k], palette.Q_GOLD)))
        spots = self._tag_spots(k)
        tags = [*s.k_tags, *s.q_tags]
        if not len(s.q_arrows):
            s.k_arrows, s.q_arrows = keys, queries
            for tag, (spot, clear) in zip(tags, spots):
                tag.move_to(spot).set_opacity(1.0 if clear else 0.0)
            return [*[GrowArrow(a) for a in (*keys, *queries)], FadeIn(s.k_tags, s.q_tags)]
        return [*[Transform(a, b) for a, b in zip((*s.k_arrows, *s.q_arrows), (*keys, *queries))],
                *[tag.animate.move_to(spot).set_opacity(1.0 if clear else 0.0)
                  for tag, (spot, clear) in zip(tags, spots)]]

    def _shown(self, key) -> Mobject:
        """The label on screen at slot ``key``."""
        return self.s.slots.current[key][1]

    # --- the beats ----------------------------------------------------------
    def _at(self, sentence: str, phrase: str, t0: float) -> float:
        """When ``phrase`` of ``sentence`` (a beat's, its reading started at ``t0``) is read:
        its cue's start plus its share of that cue's reading time, by characters."""
        cues = split_cues(sentence, self.lang)
        flat = [re.sub(r"\s", "", c) for c in cues]
        at = re.sub(r"\s", "", sentence).find(re.sub(r"\s", "", phrase))
        t = t0
        for cue, chars in zip(cues, flat):
            if 0 <= at < len(chars):
                return t + cue_seconds(cue, self.lang) * at / max(1, len(chars))
            at -= len(chars)
            t += cue_seconds(cue, self.lang)
        return t0

    def _intro(self) -> None:
        """The party, built as it is told: the guests, what each seeks, then the grid and the read-outs."""
        s, g = self.s, self.s.grid
        who_head, wants_head, keys_head, read_heads = s.table[3], s.table[2], s.table[4], s.table[5]
        with self.beat("intro_say", focus=g.cells, n=s.n, jobs=len(self.params.jobs)) as said:
            t = self.cue_starts(said)
            self.play(Write(s.heading), FadeIn(g.row_labels, who_head, shift=RIGHT * 0.3), run_time=1.0)
            self.reveal([(t[1], [FadeIn(s.wants, wants_head, s.table[6], shift=RIGHT * 0.3)]),
                         (t[-1], [Create(g.cells), FadeIn(g.col_labels, keys_head, read_heads),
                                  Create(s.plane.group[0]), FadeIn(s.plane.group[1])])],
                        focus=s.wants, run_time=1.0)
        pl = s.plane
        self.key_moment("party", names=s.names, wants=[w.text for w in s.wants],
                        wants_colour=[w.get_color().to_hex() for w in s.wants],
                        caption=" ".join(line.text for line in pl.group[1]), kept=pl.kept,
                        plane=dict(origin=pl.origin.tolist(), unit=pl.unit, swap=pl.swap, region=list(pl.region)),
                        table=[float(v) for v in bounds(s.table)])

    def _marks(self) -> list[Mobject]:
        """The referee's marks on screen: the picks' boxes, then the dashed right answers."""
        cur = self.s.slots.current
        return [m for key, (_, m) in cur.items() if key[0] == "pick"] + \
            [m for key, (_, m) in cur.items() if key[0] == "should"]

    def _start(self) -> None:
        """Step 0: noise in the grid, gibberish in the read-outs, the wrong names struck through."""
        s = self.s
        with self.beat("start_say", d=s.X.shape[1] // 2) as said:
            t = self.cue_starts(said)
            self.play(FadeIn(s.ax), FadeIn(s.marker), run_time=0.6)
            self._show(0, run_time=1.2)
            self.remove(*self._marks(), self._shown(("info", 3)))   # the referee speaks in the next beat
            wrong = [self._shown((key, i)) for key, _ in READOUTS for i in range(s.n)
                     if self._shown((key, i)).get_color() == WRONG_READ]
            s.strikes = VGroup(*[Line(m.get_left() + LEFT * 0.05, m.get_right() + RIGHT * 0.05,
                                      color=palette.FOCUS, stroke_width=3) for m in wrong])
            self.reveal([(self._at(said, self.tr("grey_word"), t[0]), [Create(s.strikes)])],
                        focus=s.grid.numbers)
            self.focus_on(VGroup(*wrong))

    def _referee(self) -> None:
        """The referee's line, then its marks: the red box of a wrong pick, the dashed right answer."""
        s = self.s
        first = s.run.snapshots[0].attention.argmax(1)
        wrong_rows = [i for i in range(s.n) if first[i] != s.match[i]]
        picks = [m for key, (_, m) in s.slots.current.items() if key[0] == "pick"]
        should = [m for key, (_, m) in s.slots.current.items() if key[0] == "should"]
        line = self._shown(("info", 3))
        if not wrong_rows:      # nothing to point at: the marks come back with the referee's line
            self.play(FadeOut(s.strikes), FadeIn(line), *[Create(m) for m in picks], run_time=1.0)
            return
        with self.beat("referee_say", focus=VGroup(*s.flags)) as said:
            t0 = self.renderer.time
            self.play(FadeOut(s.strikes), FadeIn(line, shift=LEFT * 0.3), run_time=0.8)
            boxed = self._at(said, self.tr("red_word"), t0) - 0.6
            steps = [(boxed, [Create(m) for m in picks])]
            if should:
                steps.append((self._at(said, self.tr("dashed_word"), t0), [Create(m) for m in should]))
            self.reveal(steps, focus=line, run_time=1.0)
            self.key_moment("referee", marks=len(self._marks()))
            if self._early(1):      # the first step, once the right answer is marked
                self.wait(0.4)
                self._show(1, run_time=1.2)
                self.focus_on(VGroup(*s.flags) if s.flags else s.grid.cells)

    def _chance(self) -> None:
        """Chance: the lucky right picks boxed, then the accuracy line, then what guessing gets."""
        s, n = self.s, self.s.n
        snap = s.run.snapshots[0]
        first = snap.attention.argmax(1)
        acc_line = self._shown(("info", 2))
        lucky = [self._shown(("pick", i)) for i in range(n) if first[i] == s.match[i]]
        acc, chance = percent(snap.accuracy), percent(1 / (n - 1))
        s.chance = text(self.tr("chance_line", others=n - 1, chance=chance), self.lang, size=22,
                        color=palette.INK).move_to([s.info_x, acc_line.get_y() + LINE * 3, 0],
                                                   aligned_edge=LEFT)
        with self.beat("chance_say", focus=acc_line, n=n, right=len(lucky), acc=acc, others=n - 1,
                       chance=chance) as said:
            t0 = self.renderer.time
            boxes = VGroup(*[SurroundingRectangle(m, color=palette.FOCUS, buff=0.06) for m in lucky])
            self.play(Create(boxes), run_time=0.8)
            around = SurroundingRectangle(acc_line, color=palette.FOCUS, buff=0.08)
            self.reveal([(self._at(said, f"{acc}%", t0) - 1.0, [ReplacementTransform(boxes, around)]),
                         (self._at(said, f"{chance}%", t0) - 1.2, [FadeOut(around), FadeIn(s.chance, shift=UP * 0.2)])],
                        focus=acc_line, run_time=1.0)
            self.key_moment("chance", accuracy=snap.accuracy, chance=1 / (n - 1))
            if self._early(2):      # the next step, once guessing is said
                self.wait(0.6)
                self._show(2, run_time=1.2)
            self.focus_on(s.chance)

    def _early(self, k: int) -> bool:
        """Whether snapshot k is the next one and is early (before the later half and not the last)."""
        snaps = self.s.run.snapshots
        return self.s.next_k == k and k < min(max(2, len(snaps) // 2), len(snaps) - 1)

    def _spread(self, ks: list[int], until: float, first: list | None = None, least: float = 1.2) -> None:
        """Snapshots ``ks``, one after another (at least ``least`` seconds each), the last one shown
        by scene time ``until``; ``first`` plays with the first."""
        start = self.renderer.time
        if not ks and first:
            self.play(*first, run_time=0.6)
        gap = max(least, (until - start) / max(1, len(ks)))
        for m, k in enumerate(ks):
            self.wait_until(start + m * gap, self.s.grid.cells)
            self._show(k, run_time=min(1.2, gap), extra=first if m == 0 else None)

    def _train(self) -> dict:
        """The early snapshots one by one, as the sentence is read (the referee's peak while it is
        named); then the rest; the read-outs of the last stay on screen."""
        s = self.s
        snaps = s.run.snapshots
        half = max(2, len(snaps) // 2)
        # the referee's count over the early snapshots, as this run measured it: it
        # may rise before it falls (the loss averages many parties)
        wrong = [int(np.sum(snap.attention.argmax(1) != s.match)) for snap in snaps[:half]]
        peak = int(np.argmax(wrong))
        rise = wrong[peak] > wrong[0] and peak >= s.next_k    # a rise not shown yet
        first = s.next_k
        leave = [FadeOut(s.chance)]
        with self.beat("train_rise_say" if rise else "train_say", peak=wrong[peak], step=snaps[peak].step) as said:
            t0 = self.renderer.time
            need = sum(cue_seconds(c, self.lang) for c in split_cues(said, self.lang))
            if rise:    # the peak is on screen while its number is read
                named = self._at(said, re.search(r"\d+", said).group(), t0)
                self._spread(list(range(first, peak + 1)), named - 1.0, leave)
                self.wait_until(named + 2.5, s.grid.cells)
                self._spread(list(range(peak + 1, half)), t0 + need - 1.5)
            else:
                self._spread(list(range(first, half)), t0 + need - 1.5, leave)
            # while the text is read: the red boxes it speaks of
            self.focus_on(VGroup(*s.flags) if s.flags else s.grid.cells)
        # The verdict follows the measured held-out accuracy, never the script.
        learned = s.run.learned
        with self.beat("emerge_say" if learned else "stuck_say") as said:
            need = sum(cue_seconds(c, self.lang) for c in split_cues(said, self.lang))
            # slowly while the referee still flags someone (the red boxes slide to the right
            # guests), then faster: the read-outs of the last stay on screen
            ks = list(range(s.next_k, len(snaps)))
            wrong = [int(np.sum(snaps[k].attention.argmax(1) != s.match)) for k in ks]
            settled = next((m + 1 for m, w in enumerate(wrong) if w == 0), len(ks))
            self._spread(ks[:settled], self.renderer.time + 2.0 * settled, least=2.0)
            self._spread(ks[settled:], max(self.renderer.time, self.renderer.time + need - 2.0 * settled - 1.0),
                         least=0.8)
        return s.shown

    def _outro(self, shown: dict) -> None:
        """The verdict: a guest's ask and its match's answer boxed, or the accuracy short of the mark."""
        s, run = self.s, self.s.run
        learned = run.learned
        snaps = run.snapshots
        last = snaps[-1]
        i = 0
        result = dict(steps=self.params.steps, start=sci_text(snaps[0].loss), end=sci_text(last.loss),
                      ratio=about(snaps[0].loss / last.loss, thousands=language(self.lang).thousands),
                      acc=percent(run.heldout_accuracy))
        if learned:
            with self.beat("outro_say", **result, who=s.names[i], asks=shown["asks"][i],
                           says=shown["says"][s.match[i]]) as said:
                t0 = self.renderer.time
                # the loss's fall on the curve, then the guest's sign (Q column) and its target's label (K column)
                fall = SurroundingRectangle(self._shown(("info", "loss")), color=palette.FOCUS, buff=0.08)
                self.play(Create(fall), run_time=0.8)
                asks_cell = self._shown(("asks", i))
                says_cell = self._shown(("says", int(s.match[i])))
                box = VGroup(*[SurroundingRectangle(m, color=palette.FOCUS, buff=0.08)
                               for m in (asks_cell, says_cell, s.q_tags[i], s.k_tags[int(s.match[i])])])
                self.reveal([(self._at(said, s.names[i], t0) - 0.5, [FadeOut(fall), Create(box[0]), Create(box[2])]),
                             (self._at(said, s.names[i], t0) + 1.5, [Create(box[1]), Create(box[3])])],
                            focus=self._shown(("info", 2)), run_time=0.8)
                self.focus_on(box)
        else:
            with self.beat("outro_stuck_say", **result,
                           need=percent(qm.LEARNED_ACCURACY)):
                # the accuracy line is the verdict: it stays short of the mark
                acc_line = self._shown(("info", 2))
                self.play(Create(SurroundingRectangle(acc_line, color=palette.ALERT, buff=0.08)),
                          run_time=0.8)
                self.wait(0.5)
        self.key_moment("end", heldout_accuracy=run.heldout_accuracy, learned=learned)
