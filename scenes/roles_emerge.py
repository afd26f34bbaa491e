"""Scene 10, RolesEmerge: W_Q, W_K, W_V start random and learn their roles.

Plays the snapshots of a real training run (``qkv_math.train_matching``,
cached by ``qkv_lens.runs``) on one held-out party.  It opens where
AttentionMatching ended (the matrices were written by hand): the three
matrices as random numbers, then what a guest is (2 n_jobs numbers, who they
are and whom they seek) and what each matrix makes of it (n_jobs numbers:
q, k, v).  Then each guest's query and key as arrows on one fixed plane (a
shadow of their n_jobs-dim space, ``qkv_math.qk_shadow``), the attention
grid with the referee's flags on wrong matches, what each query seeks, each
key is and each value brings (``qkv_math.readouts``), the loss (defined on
screen, the formula the run trains on), the loss curve and the held-out
accuracy; at the end the learning replayed, the red boxes turning green.
Row vectors: Q = X W_Q, one row per person.

    manim -ql scenes/roles_emerge.py RolesEmerge
"""
from __future__ import annotations

import string
from dataclasses import dataclass, field

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Brace,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    Line,
    MathTex,
    Mobject,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    UpdateFromAlphaFunc,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
    config,
)

import qkv_math as qm
from qkv_lens.cues import cue_seconds, split_cues
from qkv_lens.languages import language
from qkv_lens.numbers import about, percent, sci, sci_text, tex_number
from qkv_lens.runs import training_runs
from qkv_lens.spoken import sci_said
from qkv_lens.texts import tr
from qkv_math.training import Run
from scenes.kit import palette
from scenes.kit.boards import LossAxes
from scenes.kit.charts import NumberGrid, baseline
from scenes.kit.glyphs import number_tex
from scenes.kit.layout import bounds, place_clear
from scenes.kit.legible import legible, shrink_to_fit
from scenes.kit.motion import Emphasize, Slots, crossfade
from scenes.kit.scene import LessonScene
from scenes.kit.sections import TrainingParams
from scenes.kit.text import TITLE_BUFF, outline_labels, text, title, wrapped_text

READOUTS = tuple(zip(("asks", "says", "brings"), palette.QKV.values()))   # what Q seeks, K is, V brings
# Each row of the table has two lines: the guest (who they are) and what they seek.  K and V are
# checked against the first, Q against the second, so each read-out stands on the line it should equal.
LINE_OF = {"asks": 1, "says": 0, "brings": 0}
RIGHT_MARK = palette.BASIS_I    # green: a right match
WRONG_READ = palette.MUTED      # a read-out that does not (yet) name the right profession
TRUTH = palette.INK            # who each guest is and what they seek: the truth the read-outs are checked against
CURVE = palette.INK            # the loss curve and its number (no role colour, no emphasis)
INPUT = palette.EMBED          # a guest's input row x (the lesson's colour for inputs)
FLOOR = -2.95                   # the lowest edge of any label: just above the subtitle band (y >= -3.04)
EDGE = 6.85                     # the frame's content runs from -EDGE to EDGE: the plane left, the table right
LINE = 0.4                      # between the info lines under the table
PLANE_GAP = 0.45                # between the plane and the table
TAG_SIZE = 34                   # q_1, k_2 on the plane's arrows and around the grid
HEAD_SIZE = 24                  # the table's column heads
NAME_SIZE = 22                  # professions in the table
LOSS_SIZE = 40                  # the loss: its exponent at the legibility floor
INFO_SIZE = 22                  # the info lines under the table
SLOW = 1.5                      # seconds a snapshot stays while the referee still flags someone
MIN_PLANE_W = 2.6               # the plane beside the table at least this wide, else under it
BOARD_H = 1.9                   # the loss axes and the info lines under the table: their height
AXES_W = 1.6                    # the loss plot's width, at least, when the room under the table is widened for it
WEIGHT_FILL = palette.COLUMNS[3]   # attention weights shade their cells (not Q, K or V: no role colour)


def _width(content: str, lang: str, size: float) -> float:
    """How wide ``content`` is drawn at ``size`` (at least at the legibility floor)."""
    return legible(text(content, lang, size=size)).width


def _turn(v: np.ndarray, degrees: float) -> np.ndarray:
    """``v`` turned by ``degrees`` in the frame's plane."""
    a = np.radians(degrees)
    return np.array([v[0] * np.cos(a) - v[1] * np.sin(a), v[0] * np.sin(a) + v[1] * np.cos(a), 0.0])


def _on_baseline(label: Mobject, x: float, y: float) -> Mobject:
    """``label`` centred at ``x`` with its baseline at ``y`` (two names on one line share it)."""
    label.move_to([x, y, 0])
    return label.shift(UP * (y - baseline(label)))


def _weights_map(M: np.ndarray, color, cell: float) -> VGroup:
    """A matrix as a block of cells, one row of cells per row of ``M`` (``rows[i]``), each cell
    shaded by its entry's size (positive in ``color``, negative grey); no numbers (too many)."""
    top = float(np.abs(M).max()) or 1.0
    rows = VGroup()
    for i, row in enumerate(M):
        rows.add(VGroup(*[Rectangle(width=cell, height=cell, stroke_width=0.8, stroke_color=palette.MUTED,
                                    fill_color=color if v >= 0 else palette.MUTED,
                                    fill_opacity=0.1 + 0.85 * abs(v) / top).move_to([j * cell, -i * cell, 0])
                          for j, v in enumerate(row)]))
    return rows


def _cells_row(values: np.ndarray, color, cell: float, gap_after: int | None = None) -> VGroup:
    """A row vector as a row of cells (its entries' sizes as shades, ``color`` for positive ones,
    grey for negative); with ``gap_after``, a gap after that many cells (the two halves of an input)."""
    top = float(np.abs(values).max()) or 1.0
    row = VGroup()
    for j, v in enumerate(values):
        x = j * cell + (0.5 * cell if gap_after is not None and j >= gap_after else 0.0)
        row.add(Rectangle(width=cell, height=cell, stroke_width=1, stroke_color=palette.MUTED,
                          fill_color=color if v >= 0 else palette.MUTED,
                          fill_opacity=0.06 + 0.85 * abs(v) / top).move_to([x, 0, 0]))
    return row


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
class _Table:
    """The party table, right of the plane: q_i | guest over what they seek | the attention grid
    (columns k_j) | K is over Q seeks | V brings.  ``spot[key]`` is where read-out ``key`` of
    row i goes: (x, baselines by row)."""
    group: VGroup
    grid: NumberGrid
    who: VGroup                   # each guest's profession (line 0 of the row)
    wants: VGroup                 # what each seeks (line 1)
    heads: dict                   # "who", "wants", "keys", "asks", "says", "brings" -> its head
    index: VGroup                 # q_1 .. q_n left of the rows
    keys: VGroup                  # k_1 .. k_n over the grid's columns
    spot: dict
    size: float                   # the names' font size


@dataclass
class _Maps:
    """The three weight matrices as blocks of cells with their names (the bridge, and what a
    guest's row is multiplied by)."""
    maps: VGroup                  # W_Q, W_K, W_V blocks, each a VGroup of rows of cells
    names: VGroup                 # their names over them

    @property
    def group(self) -> VGroup:
        return VGroup(self.maps, self.names)


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
    table: _Table
    ax: LossAxes
    info_x: float                 # the info lines' left edge, right of the loss axes
    under: tuple                  # (left, bottom, right, top): the board's room (the loss defined there first)
    dims_room: tuple              # where the guest's row and the matrices are shown before the plane
    marker: Dot
    plane: _Plane                 # the shadow plane: its axes, caption and the map to the frame
    maps: _Maps                   # the weight matrices at the start (the bridge)
    q_arrows: VGroup              # each guest's query on the plane (gold)
    k_arrows: VGroup              # each guest's key on the plane (teal)
    q_tags: VGroup                # q_1 .. q_n beside the query arrows' tips
    k_tags: VGroup                # k_1 .. k_n beside the key arrows' tips
    next_k: int = 0               # the next snapshot to show
    curve_on: bool = False        # the loss axes are on screen: each snapshot draws its stretch of the curve
    curve: VGroup = field(default_factory=VGroup)
    flags: list[Mobject] = field(default_factory=list)   # the red boxes of the last snapshot
    strikes: VGroup = field(default_factory=VGroup)     # lines through the wrong names at step 0
    verdict: Mobject = field(default_factory=VGroup)    # the box round the accuracy the outro names
    chance: Mobject = field(default_factory=VGroup)     # what guessing gets, beside the accuracy
    shown: dict = field(default_factory=dict)           # the read-outs of the last snapshot shown
    slots: Slots = field(default_factory=Slots)   # numbers, flags, read-outs and info lines
    made: dict = field(default_factory=dict)      # profession names by (name, colour), made once

    @property
    def grid(self) -> NumberGrid:
        return self.table.grid

    @property
    def n(self) -> int:
        return self.X.shape[0]


class RolesEmerge(LessonScene):
    params: TrainingParams
    chapter = 2
    number = 10
    s: _Stage
    sparse_moments = {name: "the table's read-out columns, at its right, are named and filled in the start beat"
                      for name in ("party", "guest_row", "picked_rows")}

    def construct(self):
        self.s = self._stage()
        self._bridge()
        self._intro()
        self._start(self._dims())
        self._referee()
        self._chance()
        self._train()
        if self._outro():
            self._replay()

    @staticmethod
    def count_key(key: str, count: int) -> str:
        """The text of a count in its grammatical number: ``key_one`` for 1, else ``key`` (every
        language has both; one without a plural writes the same text twice)."""
        return f"{key}_one" if count == 1 else key

    def tr_count(self, key: str, count: int, **fields) -> str:
        """Text ``key`` for ``count`` (``count_key``), filled with ``fields``."""
        return self.tr(self.count_key(key, count), **fields)

    # --- the layout -------------------------------------------------------
    def _stage(self) -> _Stage:
        """The run, its party, the table (right), the shadow plane (left), the loss axes and the
        info lines (under the table), the weight matrices (centred, for the bridge)."""
        p, lang = self.params, self.lang
        run = training_runs(p)["standard"]
        X, match = run.display_party
        n_jobs = len(p.jobs)
        profile, wish = X[:, :n_jobs].argmax(1), X[:, n_jobs:].argmax(1)
        job = [j.name(lang) for j in p.jobs]
        names = [job[k] for k in profile]
        n = len(names)
        heading, table = self._top(job, profile, wish, two_lines=True)
        if table.group.get_bottom()[1] < FLOOR + BOARD_H + 0.25:     # too tall to leave the board its room
            heading, table = self._top(job, profile, wish, two_lines=False)
        left = table.group.get_left()[0]
        beside = left - PLANE_GAP + EDGE >= MIN_PLANE_W
        # --- the loss curve and the read-out of the run, under the table (reaching left of it when
        # the table is narrower than the axes and the info lines; the plane then stops above them)
        info_w = self._info_width(n)
        under_top = table.group.get_bottom()[1] - 0.25
        need = info_w + 0.35 + self._axes_overhead(run) + AXES_W
        under = (min(left, EDGE - need) if beside else -EDGE, FLOOR, EDGE, under_top)
        ax = self._axes(run, under, info_w)
        marker = Dot(ax.point(0, run.snapshots[0].loss), radius=0.07, color=palette.FOCUS)
        grid = table.grid
        for i in range(n):
            for j in range(n):
                grid.cell_at(i, j).set_fill(WEIGHT_FILL if i != j else palette.MUTED, opacity=0)
        plane_right = left - PLANE_GAP
        if beside:       # the plane left of the table, down to the floor unless the board reaches under it
            region = (-EDGE, FLOOR if under[0] > plane_right - 0.1 else under_top + 0.2, plane_right,
                      heading.get_bottom()[1] - 0.2)
            board = under
        else:            # the table across the frame: the plane right of the board, under the table
            region = (ax.get_right()[0] + 0.35 + info_w + PLANE_GAP, FLOOR, EDGE, under_top + 0.05)
            board = (-EDGE, FLOOR, region[0] - PLANE_GAP, under_top)
        # the plane's caption stays clear of the board when the board reaches under the plane's column
        plane = self._plane(run, X, region, min(region[2], under[0] - 0.35) if beside else region[2])
        tags = [VGroup(*[MathTex(f"{name}_{{{i + 1}}}", font_size=TAG_SIZE, color=color) for i in range(n)])
                for name, color in (("q", palette.Q_GOLD), ("k", palette.K_TEAL))]
        maps = self._maps(run.snapshots[0].weights, n_jobs, heading)
        # the guest's row and the matrices go where the plane will be (or, the table across, under it)
        dims = (region[0], plane.group[1].get_bottom()[1], region[2], region[3]) if beside else \
            (-EDGE, FLOOR, EDGE, under_top)
        return _Stage(run, X, match, profile, wish, job, names, heading, table, ax,
                      ax.get_right()[0] + 0.35, board, dims, marker, plane, maps, VGroup(), VGroup(), *tags)

    def _top(self, job: list[str], profile: np.ndarray, wish: np.ndarray, two_lines: bool) -> tuple:
        """The title and the table: the table at the top of the frame beside the title (the title
        wrapped to the room left of it), or under the title when it does not fit beside."""
        top = config.frame_height / 2 - 0.4
        table = self._table(top, job, profile, wish, two_lines)
        room = table.group.get_left()[0] - 0.3 - (-config.frame_width / 2 + TITLE_BUFF)
        heading = title(self.tr("title"), self.lang)
        if heading.width > room and room >= 2.5:
            heading = title(self.tr("title"), self.lang, width=room)
        if heading.get_right()[0] > table.group.get_left()[0] - 0.3:
            table = self._table(heading.get_bottom()[1] - 0.25, job, profile, wish, two_lines)
        return heading, table

    def _axes_overhead(self, run: Run) -> float:
        """How much wider the loss axes are drawn than their plot (the decades left, the steps' name right)."""
        names_xy = (self.tr("steps_axis"), self.tr("loss_axis"))
        return LossAxes(run.losses, self.params.steps, self.lang, *names_xy, width=2.0, height=1.0).width - 2.0

    def _axes(self, run: Run, under: tuple, info_w: float) -> LossAxes:
        """The loss axes in the left of the room under the table, their loss's name above the plot
        (where no stretch of the curve can run through it), the info lines' room right of them."""
        left, bottom, right, top = under
        names_xy = (self.tr("steps_axis"), self.tr("loss_axis"))
        probe = LossAxes(run.losses, self.params.steps, self.lang, *names_xy, width=2.0, height=1.0)
        overhead = probe.width - 2.0
        least = _width(names_xy[1], self.lang, 24) - overhead + 0.3
        width = float(np.clip(right - left - info_w - 0.35 - overhead, max(least, 1.6), 3.2))
        name_h = probe.y_label.height + 0.1
        height = float(np.clip(top - bottom - 0.55 - name_h, 0.7, 1.3))
        ax = LossAxes(run.losses, self.params.steps, self.lang, *names_xy, width=width, height=height)
        ax.y_label.next_to(ax.c2p(0, ax.y_range[1]), UP + RIGHT, buff=0.08)
        ax.shift(RIGHT * (left - ax.get_left()[0]))
        ax.align_to([0, bottom, 0], DOWN)
        return ax

    def _info_width(self, n: int) -> float:
        """How wide the widest info line can be drawn (the loss line at its widest number)."""
        p, lang = self.params, self.lang
        widest = max(_width(line, lang, INFO_SIZE) for line in (
            self.tr("step", step=p.steps, steps=p.steps), self.tr("accuracy", acc="100"),
            self.tr("referee", wrong=n, n=n), self.tr("referee_one", wrong=1, n=n), self.tr("referee_ok", n=n),
            self.tr("chance_line", others=n - 1, chance=percent(1 / (n - 1)))))
        return max(widest, _width(self.tr("loss"), lang, INFO_SIZE) + 0.15 + MathTex(sci(4.4e-5),
                                                                                   font_size=LOSS_SIZE).width)

    def _plane(self, run: Run, X: np.ndarray, region: tuple, caption_right: float) -> _Plane:
        """The shadow plane in ``region`` (left, bottom, right, top): its caption at the bottom (left
        of ``caption_right``), faint axes through the origin, the scale that fits every snapshot's q and k."""
        d = X.shape[1] // 2
        _, q, k, kept = qm.qk_shadow([snap.weights for snap in run.snapshots], X)
        left, bottom, right, top = region
        caption = wrapped_text(self.tr("shadow_caption", d=d), self.lang, size=24, width=caption_right - left - 0.1,
                               color=palette.INK)
        caption.move_to([(left + caption_right) / 2, 0, 0]).align_to([0, bottom, 0], DOWN)
        box = (left, caption.get_top()[1] + 0.1, right, top)
        swap, unit, origin = _fit(q, k, box, margin=0.45)
        axes = VGroup(Line([box[0], origin[1], 0], [box[2], origin[1], 0]),
                      Line([origin[0], box[1], 0], [origin[0], box[3], 0])).set_stroke(palette.MUTED, 1.5, 0.6)
        return _Plane(q, k, kept, origin, unit, swap, box, VGroup(axes, caption))

    def _maps(self, W: dict, n_jobs: int, heading: Mobject) -> _Maps:
        """W_Q, W_K, W_V of the random start, side by side under the title, named over them."""
        cell = min(0.28, 4.5 / (2 * n_jobs), 6.6 / (3 * n_jobs))
        maps, names = VGroup(), VGroup()
        for name, color in palette.W_COLORS.items():
            maps.add(_weights_map(W[name], color, cell))
            names.add(MathTex(name.replace("_", "_{") + "}", font_size=40, color=color))
        maps.arrange(RIGHT, buff=max(0.8, 6 * cell))
        maps.move_to([0, (heading.get_bottom()[1] - 0.55 + FLOOR) / 2, 0])
        for name, block in zip(names, maps):
            name.next_to(block, UP, buff=0.2)
        return _Maps(maps, names)

    def _table(self, top: float, job: list[str], profile: np.ndarray, wish: np.ndarray,
               two_lines: bool) -> _Table:
        """The party table at the right edge, its top at ``top``, laid out from the
        widths of its words (every label at a readable size).  With ``two_lines`` each row has two
        lines, who the guest is over what they seek, and each read-out stands on the line it should
        equal: q_i | guest over seeks | the attention grid (columns k_j) | K is over Q seeks |
        V brings.  Otherwise one line a row: q_i | guest | seeks | grid | Q seeks | K is | V brings."""
        lang, n = self.lang, len(profile)
        size = NAME_SIZE if n <= 4 else NAME_SIZE - 2 if two_lines else NAME_SIZE - 4   # (at least the floor)
        gap = 0.25 if two_lines else 0.2
        number_size = 28 if n <= 4 else 26
        heads = {key: text(self.tr(f"{key}_head"), lang, size=HEAD_SIZE, color=color) for key, color in READOUTS}
        heads["who"] = text(self.tr("who"), lang, size=HEAD_SIZE, color=TRUTH)
        heads["wants"] = text(self.tr("wants"), lang, size=HEAD_SIZE, color=TRUTH)
        heads["keys"] = text(self.tr("keys"), lang, size=HEAD_SIZE, color=palette.INK)
        made = [legible(text(nm, lang, size=size)) for nm in job]
        asc = max(m.get_top()[1] - baseline(m) for m in made)        # the names' tallest rise over their line
        desc = max(baseline(m) - m.get_bottom()[1] for m in made)    # and deepest fall under it
        names_w = max(m.width for m in made)
        party_w = max(made[k].width for k in (*profile, *wish))
        line_h = asc + desc
        # columns from the right edge: (keys, lines), each as wide as its widest name or head
        if two_lines:
            cols = [(("brings",), (0,)), (("says", "asks"), (0, 1))]
            name_cols = [(("who", "wants"), (0, 1))]
            row_h = max(float(np.clip(2.9 / n, 0.6, 0.72)), 2 * line_h + 0.12)
        else:
            cols = [(("brings",), (0,)), (("says",), (0,)), (("asks",), (0,))]
            name_cols = [(("wants",), (0,)), (("who",), (0,))]
            row_h = max(min(0.66, 2.7 / n), line_h + 0.1)
        x, col_x = EDGE, {}
        for keys_, _ in cols:
            w = max([names_w] + [heads[k].width for k in keys_])
            col_x[keys_] = x - w / 2
            x -= w + gap
        grid_right = x + gap - 0.2
        keys = VGroup(*[MathTex(f"k_{{{j + 1}}}", font_size=TAG_SIZE, color=palette.K_TEAL) for j in range(n)])
        cell_w = max(row_h, number_tex("0.00", font_size=number_size).width / 0.9, heads["keys"].width / n,
                     keys[0].width + 0.15)
        party = [job[k] for k in profile]
        grid = NumberGrid(party, party, lang, cell=row_h, size=size, cell_width=cell_w, number_size=number_size)
        grid.remove(grid.col_labels, grid.row_labels)
        grid.col_labels = keys
        grid.add(keys)
        grid.shift(RIGHT * (grid_right - grid.cells.get_right()[0]) + UP * (2.0 - grid.cells.get_top()[1]))
        for j, key in enumerate(keys):
            key.next_to(grid.cell_at(0, j), UP, buff=0.1)
        x = grid.cells.get_left()[0] - 0.2
        for keys_, _ in name_cols:
            w = max([party_w] + [heads[k].width for k in keys_])
            col_x[keys_] = x - w / 2
            x -= w + gap
        # each row's lines: line 0's baseline over line 1's, both clear of the row's edges
        ys = [grid.cell_at(i, 0).get_y() for i in range(n)]
        lines = ([y + 0.03 + desc for y in ys], [y - 0.03 - asc for y in ys]) if two_lines else \
            ([y - (asc - desc) / 2 for y in ys],)
        spot = {key: (cx, lines[line]) for keys_, ls in [*cols, *name_cols] for key, line in zip(keys_, ls)
                for cx in (col_x[keys_],)}
        names_x = {key: spot[key][0] for key in ("who", "wants")}
        who = VGroup(*[_on_baseline(legible(text(job[profile[i]], lang, size=size, color=TRUTH)),
                                    names_x["who"], spot["who"][1][i]) for i in range(n)])
        wants = VGroup(*[_on_baseline(legible(text(job[wish[i]], lang, size=size, color=TRUTH)),
                                      names_x["wants"], spot["wants"][1][i]) for i in range(n)])
        grid.row_labels = who
        index = VGroup(*[MathTex(f"q_{{{i + 1}}}", font_size=TAG_SIZE, color=palette.Q_GOLD)
                         .move_to([x + 0.25 - 0.3, ys[i], 0]) for i in range(n)])
        # the heads over their columns: line 0's above line 1's, the grid's over its keys
        low = grid.cells.get_top()[1] + 0.12
        high = low + max(h.height for h in heads.values()) + 0.08
        for keys_, ls in [*cols, *name_cols]:
            for key, line in zip(keys_, ls):
                level = high if two_lines and line == 0 and len(keys_) > 1 or two_lines and key == "brings" else low
                heads[key].next_to([col_x[keys_], level, 0], UP, buff=0)
        heads["keys"].next_to(keys, UP, buff=0.12).set_x(grid.cells.get_center()[0])
        group = VGroup(grid, who, wants, index, *heads.values())
        shift = UP * (top - group.get_top()[1])
        group.shift(shift)
        spot = {key: (cx, [y + shift[1] for y in ys_]) for key, (cx, ys_) in spot.items()}
        return _Table(group, grid, who, wants, heads, index, keys, spot, size)

    # --- the changing labels of one snapshot --------------------------------
    def _name(self, name: str, color) -> Mobject:
        """A profession's name (made once per name and colour, then copied)."""
        made = self.s.made
        if (name, color) not in made:
            made[name, color] = legible(text(name, self.lang, size=self.s.table.size, color=color))
        return made[name, color].copy()

    def _line(self, r: int, content: str, color=palette.INK) -> Mobject:
        """Info line ``r`` (0 at the top) right of the loss axes."""
        y = FLOOR + 0.17 + LINE * (3 - r)
        return self.s.slots.place(("info", r), (content, color),
                                  lambda: text(content, self.lang, size=INFO_SIZE, color=color)
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
        for key, color in READOUTS:
            x, ys = s.table.spot[key]
            top = r[key].argmax(1)
            shown[key] = [job[t] for t in top]
            for i in range(n):
                c = color if top[i] == truth[key][i] else WRONG_READ
                slots.place((key, i), (top[i], c), lambda t=top[i], c=c, x=x, y=ys[i]:
                            _on_baseline(self._name(job[t], c), x, y))
        wrong = int(np.sum(picked != match))
        step = self._line(0, self.tr("step", step=snap.step, steps=p.steps))
        loss_head = self._line(1, self.tr("loss"))
        loss_tex = sci(snap.loss)
        slots.place(("info", "loss"), loss_tex, lambda: MathTex(loss_tex, font_size=LOSS_SIZE, color=CURVE)
                    .next_to(loss_head, RIGHT, buff=0.15))
        acc = self._line(2, self.tr("accuracy", acc=percent(snap.accuracy)))
        referee = self._line(3, self.tr_count("referee", wrong, wrong=wrong, n=n) if wrong else
                             self.tr("referee_ok", n=n), palette.ALERT if wrong else RIGHT_MARK)
        return {"step": snap.step, "grid": grid.shown(), "picked": picked.tolist(),
                "flags": [i for i in range(n) if picked[i] != match[i]],
                "readouts": shown, "loss": loss_tex, "accuracy": acc.text, "step_line": step.text, "wrong": wrong,
                "referee_line": referee.text}

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

    def _show(self, k: int, run_time: float = 0.8, extra: list | None = None, hold: tuple = (),
              name: str | None = None) -> dict:
        """Snapshot k: its labels, the grid's shading, the arrows and, once the loss axes are on
        screen, the loss curve up to its step (with ``extra`` animations); a pick's box that changes
        slides from its old cell to its new one.  Labels whose slot kind is in ``hold`` are placed
        but left off screen (a later beat brings them in).  The key moment is ``name``
        (default ``snapshot_k``); a replay (``name`` given) draws no new stretch of curve."""
        s, ax = self.s, self.s.ax
        snaps = s.run.snapshots
        probes = self._place(k)
        snap = snaps[k]
        anims = [self._fills(k)]
        if s.curve_on:
            if name is None:
                prev = snaps[k - 1].step if k else 0
                stop = min(snap.step, self.params.steps - 1)
                pts = [ax.point(t, s.run.losses[t]) for t in range(prev, stop + 1)]
                pts.append(ax.point(snap.step, snap.loss))
                segment = VMobject(color=CURVE, stroke_width=3)
                segment.set_points_as_corners(pts if len(pts) > 1 else pts * 2)
                s.curve.add(segment)
                anims.append(Create(segment))
            anims.append(s.marker.animate.move_to(ax.point(snap.step, snap.loss)))
        shown_now = {id(m) for m in self.get_mobject_family_members()}
        slides = [(s.slots.current[key][1], m) for key, (_, m) in s.slots.pending.items()
                  if key[0] == "pick" and key in s.slots.current and s.slots.current[key][1] is not m
                  and id(s.slots.current[key][1]) in shown_now]
        out, new = s.slots.commit()
        sliding = {id(m) for pair in slides for m in pair}
        held = {id(m) for key, (_, m) in s.slots.current.items() if key[0] in hold}
        out = [m for m in out if id(m) not in sliding and id(m) in shown_now]
        new = [m for m in new if id(m) not in sliding and id(m) not in held]
        swing = self._swing(k)
        self.add(*new)
        self.play(*anims, crossfade(VGroup(*out), VGroup(*new)), *[ReplacementTransform(a, b) for a, b in slides],
                  *swing, *(extra or []), run_time=run_time)
        self.remove(*out)
        s.next_k = k + 1
        s.shown = probes["readouts"]
        s.flags = [m for key, (sig, m) in s.slots.current.items() if key[0] == "pick" and not sig[1]]
        # where the marker and the curve's end sit, in the axes' coordinates
        # (log10(step + 1), log10(loss))
        pl = s.plane
        picks = [s.slots.current[("pick", i)][1] for i in range(s.n)]
        on = {id(x) for x in self.get_mobject_family_members()}
        self.key_moment(name or f"snapshot_{k}", **probes, time=self.renderer.time,
                        marker=ax.value(s.marker.get_center()),
                        curve_end=ax.value(s.curve[-1].get_end()) if len(s.curve) else None,
                        pick_colours=[m.get_color().to_hex() for m in picks],
                        picks_on=[id(m) in on for m in picks],
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

    def _describe_snapshot(self, key: str, k: int) -> None:
        """Describe snapshot k as the board and the table show it (``key``: the text)."""
        s, snap = self.s, self.s.run.snapshots[k]
        wrong = int(np.sum(snap.attention.argmax(1) != s.match))
        heads = {f"{r}_head": self.tr(f"{r}_head") for r, _ in READOUTS}
        self.describe(key, step=snap.step, steps=self.params.steps, A=snap.attention, **heads, **s.shown,
                      wrong=wrong, n=s.n, loss=sci_said(snap.loss, self.lang), acc=percent(snap.accuracy), places=2)

    # --- the beats ----------------------------------------------------------
    def _at(self, sentence: str, phrase: str, t0: float) -> float:
        """When ``phrase`` of ``sentence`` (a beat's, read from ``t0``) is read (``phrase_at``)."""
        return self.phrase_at(sentence, phrase, t0)

    def _field_at(self, key: str, name: str, sentence: str, t0: float, **fields) -> float:
        """When the value of field ``name`` of text ``key`` is read in ``sentence`` (the text
        filled with ``fields``): found by the text's template, not by searching for the value."""
        template, at = tr(self.lang, f"{self.section}.{key}"), 0
        for literal, field_name, spec, _ in string.Formatter().parse(template):
            at += len(literal)
            if field_name == name:
                return self.char_at(sentence, at, t0)
            if field_name is not None:
                at += len(format(fields[field_name], spec or ""))
        return t0

    def _bridge(self) -> None:
        """Where scene 9 left off: the three matrices, written by hand there, here blank and then
        filled with random numbers, the start of a real model."""
        s, m = self.s, self.s.maps
        blank = VGroup(*[VGroup(*[cell.copy().set_fill(opacity=0) for row in block for cell in row])
                         for block in m.maps])
        with self.beat("bridge_say") as said:
            t0 = self.renderer.time
            self.play(Write(s.heading), FadeIn(m.names, shift=DOWN * 0.2), Create(blank), run_time=1.2)
            fill = [FadeIn(block, lag_ratio=0.01) for block in m.maps]
            self.reveal([(self._at(said, self.tr("random_word"), t0), fill)], focus=blank, run_time=1.2)
            self.remove(blank)
            self.key_moment("bridge", maps=[[[float(c.get_fill_opacity()) for c in row] for row in block]
                                            for block in m.maps],
                            names=[n.tex_string for n in m.names], time=self.renderer.time)
            rows, cols = s.run.snapshots[0].weights["W_Q"].shape
            self.describe("describe_bridge", title=self.tr("title"), rows=rows, cols=cols)
            self.focus_on(m.maps)

    def _dims_layout(self) -> dict:
        """Where the guest's row x, the three matrices and their outputs go in the dims' room
        (the plane's, before the plane is drawn; with the table across the frame, the room under
        it): x across the top (its two halves named), the matrices under it, each output under
        its matrix (named when there is room).  Returns the cell sizes and the places."""
        s = self.s
        left, bottom, right, top = s.dims_room
        n_jobs = s.X.shape[1] // 2
        w, h = right - left - 0.2, top - bottom
        x_cell = min(0.24, w / (2 * n_jobs + 0.5))
        half_w = n_jobs * x_cell
        # each half's name no wider than the half and its share of the gap (pushed apart, if need be,
        # into the room beyond the row's ends)
        outside = max(0.0, (w - 2 * half_w - 0.5 * x_cell) / 2)
        labels = [wrapped_text(self.tr(key), self.lang, size=INFO_SIZE, color=TRUTH,
                               width=max(half_w + 0.5 * x_cell - 0.15 + outside, 0.5))
                  for key in ("dims_who", "dims_seeks")]
        label_h = max(lab.height for lab in labels)
        x_y = top - label_h - 0.12 - x_cell / 2
        names_h = 0.45
        above = label_h + 0.12 + x_cell + 0.3 + names_h        # from the room's top to the blocks' top
        # the blocks' names as large as three of them fit across the room with the blocks' gaps
        name_size = float(np.clip(34 * ((w - 0.35) / 3 - 0.3) / MathTex("W_{Q}", font_size=34).width, 26, 34))
        name_w = MathTex("W_{Q}", font_size=name_size).width
        cell = min(0.2, (w - 0.95) / (3 * n_jobs), (h - above - 0.85) / (2 * n_jobs))
        named = cell >= 0.06                   # room for the outputs' names under them
        if not named:
            cell = max(0.02, (h - above - 0.25) / (2 * n_jobs + 1))
        # the whole, centred in the room's height
        used = above + 2 * n_jobs * cell + (0.3 + cell + 0.5 if named else 0.15 + cell)
        x_y -= max(0.0, (h - used) / 2)
        return {"x_cell": x_cell, "x_y": x_y, "labels": labels, "cell": cell, "names_h": names_h,
                "centre": (left + right) / 2, "named": named, "buff": max(0.3, name_w - n_jobs * cell + 0.15),
                "name_size": name_size}

    def _intro(self) -> None:
        """The party, built as it is told: the guests, what each seeks, then the grid; the three
        matrices step aside into the plane's room, where the next beat uses them."""
        s, t, g = self.s, self.s.table, self.s.grid
        heads = t.heads
        lay = self._dims_layout()
        maps = s.maps
        target = maps.group.copy()
        for block in target[0]:
            block.scale(lay["cell"] / block[0][0].width)
        target[0].arrange(RIGHT, buff=lay["buff"])
        top_of = lay["x_y"] - lay["x_cell"] / 2 - 0.35 - lay["names_h"]
        target[0].move_to([lay["centre"] + 0.17, 0, 0]).align_to([0, top_of, 0], UP)
        for name, block in zip(target[1], target[0]):
            name.scale(lay["name_size"] / name.font_size).next_to(block, UP, buff=0.12)
        with self.beat("intro_say", focus=g.cells, n=s.n) as said:
            t0 = self.cue_starts(said)
            self.play(Transform(maps.group, target), FadeIn(t.who, heads["who"], t.index, shift=RIGHT * 0.3),
                      run_time=1.2)
            self.reveal([(t0[min(1, len(t0) - 1)], [FadeIn(t.wants, heads["wants"], shift=RIGHT * 0.3)]),
                         (t0[-1], [Create(g.cells), FadeIn(t.keys, heads["keys"])])],
                        focus=t.wants, run_time=1.0)
            self.describe("describe_intro", n=s.n, who=s.names, wants=[s.job[w] for w in s.wish],
                          keys=self.tr("keys"))
        self.key_moment("party", names=s.names, wants=[w.text for w in t.wants],
                        wants_colour=[w.get_color().to_hex() for w in t.wants],
                        table=[float(v) for v in bounds(t.group)])

    def _dims(self) -> tuple[VGroup, VGroup, VGroup]:
        """What a guest is and what each matrix makes of it: guest 1's row x (who they are, whom
        they seek), the rows of each W it picks added up into q, k or v.  Returns what the next beat
        clears: x with its marks, the outputs, their names."""
        s = self.s
        lay = self._dims_layout()
        n_jobs = s.X.shape[1] // 2
        x = s.X[0]
        xrow = _cells_row(x, INPUT, lay["x_cell"], gap_after=n_jobs).move_to([lay["centre"], lay["x_y"], 0])
        halves = (VGroup(*xrow[:n_jobs]), VGroup(*xrow[n_jobs:]))
        labels = lay["labels"]
        for lab, half in zip(labels, halves):
            lab.next_to(half, UP, buff=0.12)
        overlap = labels[0].get_right()[0] + 0.15 - labels[1].get_left()[0]
        if overlap > 0:                          # names wider than their halves: pushed apart
            labels[0].shift(LEFT * overlap / 2)
            labels[1].shift(RIGHT * overlap / 2)
        room = s.dims_room
        for lab in labels:                       # and kept inside the room
            lab.set_x(float(np.clip(lab.get_x(), room[0] + lab.width / 2, room[2] - lab.width / 2)))
        if labels[0].get_right()[0] + 0.1 > labels[1].get_left()[0]:     # no room for both: the row unnamed
            labels = []
        picked = [int(np.argmax(x[:n_jobs])), n_jobs + int(np.argmax(x[n_jobs:]))]
        blocks = s.maps.maps
        marks = VGroup(*[SurroundingRectangle(block[i], color=palette.FOCUS, buff=0.02, stroke_width=2)
                         for block in blocks for i in picked])
        W = s.run.snapshots[0].weights
        outs = VGroup()
        for (name, color), block in zip(palette.W_COLORS.items(), blocks):
            row = _cells_row(x @ W[name], color, lay["cell"]).next_to(block, DOWN, buff=0.3 if lay["named"] else 0.15)
            outs.add(row)
        out_names = VGroup(*[MathTex(f"{r}_{{1}}", font_size=40, color=c).next_to(row, DOWN, buff=0.1)
                             for r, c, row in zip("qkv", palette.QKV.values(), outs)] if lay["named"] else [])
        d = n_jobs
        with self.beat("dims_say", x=2 * n_jobs, d=d) as said:
            t0 = self.renderer.time
            self.play(FadeIn(xrow, shift=DOWN * 0.2), *[FadeIn(lab) for lab in labels],
                      *[Emphasize(m, scale_factor=1.12) for m in (s.table.who[0], s.table.wants[0], s.table.index[0])],
                      run_time=1.2)
            self.key_moment("guest_row", x=[float(c.get_fill_opacity()) for c in xrow], n_jobs=n_jobs,
                            halves=[[float(v) for v in bounds(h)] for h in halves],
                            labels=[" ".join(line.text for line in lab) for lab in labels])
            picks = [row for block in blocks for i in picked for row in (block[i],)]
            # each lit entry of x picks its row of every matrix: it drops beside that row, the rows are boxed
            drops = VGroup(*[xrow[i].copy() for i in picked])
            self.wait_until(self._at(said, self.tr("matrix_word"), t0) - 0.6, xrow)
            self.play(*[d.animate.scale(0.8).next_to(blocks[0][i], LEFT, buff=0.08) for d, i in zip(drops, picked)],
                      run_time=0.8)
            self.play(Create(marks), run_time=0.6)
            self.key_moment("picked_rows", rows=picked, drops=[[float(v) for v in bounds(d)] for d in drops],
                            marks=[[float(v) for v in bounds(m)] for m in marks])
            # the two picked rows of each matrix, added up, are its output: x W
            moving = VGroup(*[row.copy() for row in picks])
            self.play(*[ReplacementTransform(VGroup(moving[2 * b], moving[2 * b + 1]), outs[b])
                        for b in range(3)], FadeIn(out_names), run_time=1.4)
            self.key_moment("outputs", outputs={r: (x @ W[name]).tolist()
                                                 for r, name in zip("qkv", palette.W_COLORS)},
                            shown=[[float(c.get_fill_opacity()) for c in row] for row in outs],
                            cells=len(outs[0]))
            self.describe("describe_dims", cells=len(xrow), d=n_jobs, a=picked[0] + 1, b=picked[1] + 1,
                          who=s.job[picked[0]], seeks=s.job[picked[1] - n_jobs], who_half=self.tr("dims_who"),
                          seeks_half=self.tr("dims_seeks"))
            self.focus_on(outs)
        return VGroup(xrow, *labels, marks, drops), outs, out_names

    def _start(self, dims: tuple[VGroup, VGroup, VGroup]) -> None:
        """The plane: q and k of guest 1 fly to its origin as every guest's q and k grow there, their
        shadow; then step 0 read out: the grid's weights, what each query seeks, each key is, each
        value brings; the wrong names struck through.  The referee and the board come later."""
        s, pl, heads = self.s, self.s.plane, self.s.table.heads
        rest, outs, out_names = dims
        with self.beat("start_say") as said:
            t0 = self.renderer.time
            fly = [FadeOut(VGroup(outs[b], *out_names[b:b + 1]), target_position=pl.origin, scale=0.15) for b in (0, 1)]
            self.play(*fly, FadeOut(VGroup(outs[2], *out_names[2:3], rest, s.maps.group)),
                      Create(pl.group[0]), FadeIn(pl.group[1]), *self._swing(0), run_time=1.4)
            self.key_moment("plane", caption=" ".join(line.text for line in pl.group[1]), kept=pl.kept,
                            plane=dict(origin=pl.origin.tolist(), unit=pl.unit, swap=pl.swap, region=list(pl.region)),
                            q_tips=[pl.coords(a.get_end()) for a in s.q_arrows],
                            k_tips=[pl.coords(a.get_end()) for a in s.k_arrows],
                            lengths=[float(np.linalg.norm(a.get_end() - a.get_start()))
                                     for a in (*s.q_arrows, *s.k_arrows)])
            self.wait_until(self._at(said, self.tr("arrows_word"), t0) + 2.2, VGroup(s.q_arrows, s.k_arrows))
            self.play(FadeIn(*[heads[key] for key, _ in READOUTS]), run_time=0.6)
            shown = self._show(0, run_time=1.2, hold=("pick", "should", "info"))
            wrong = [self._shown((key, i)) for key, _ in READOUTS for i in range(s.n)
                     if self._shown((key, i)).get_color() == WRONG_READ]
            s.strikes = VGroup(*[Line(m.get_left() + LEFT * 0.05, m.get_right() + RIGHT * 0.05,
                                      color=palette.FOCUS, stroke_width=3) for m in wrong])
            self.reveal([(self._at(said, self.tr("grey_word"), t0), [Create(s.strikes)])],
                        focus=s.grid.numbers)
            self.describe("describe_start", caption=self.tr("shadow_caption", d=s.X.shape[1] // 2), n=s.n,
                          A=s.run.snapshots[0].attention, **{f"{r}_head": self.tr(f"{r}_head") for r, _ in READOUTS},
                          **shown["readouts"], struck=len(wrong), all=len(READOUTS) * s.n, start=shown["step"],
                          places=2)
            self.focus_on(VGroup(*wrong) if wrong else s.grid.cells)

    def _marks(self) -> tuple[list[Mobject], list[Mobject]]:
        """The referee's marks of the snapshot placed last: the picks' boxes, the dashed right answers."""
        cur = self.s.slots.current
        return [m for key, (_, m) in cur.items() if key[0] == "pick"], \
            [m for key, (_, m) in cur.items() if key[0] == "should"]

    def _loss_formula(self) -> VGroup:
        """The loss the run trains on, written out in the room under the table: the mean squared miss
        between the output (the values mixed by the weights) and T, the profession sought."""
        s = self.s
        parts = MathTex(r"\mathcal{L}", "=", r"\operatorname{mean}\Big\lVert", r"\mathrm{softmax}\big(", "Q",
                        r"K^{\top}", r"/\sqrt{d_k}\big)", "V", "-", "T", r"\Big\rVert^{2}", font_size=38)
        for part, color in ((4, palette.Q_GOLD), (5, palette.K_TEAL), (7, palette.V_CORAL)):
            parts[part].set_color(color)
        left, bottom, right, top = s.under
        shrink_to_fit(parts, width=right - left - 0.2)
        parts.move_to([(left + right) / 2, 0, 0]).align_to([0, top - 0.1, 0], UP)
        output = VGroup(*parts[3:8])
        braces = VGroup(Brace(output, DOWN, buff=0.08, color=palette.MUTED),
                        Brace(parts[9], DOWN, buff=0.08, color=palette.MUTED))
        words = [wrapped_text(self.tr(key), self.lang, size=INFO_SIZE, width=max(output.width, 2.4), color=palette.INK)
                 for key in ("loss_output", "loss_target")]
        words[0].next_to(braces[0], DOWN, buff=0.08)
        # T's words under its brace, kept inside the room and clear of the output's words (a line lower if need be)
        words[1].next_to(braces[1], DOWN, buff=0.08)
        words[1].shift(LEFT * max(0.0, words[1].get_right()[0] - (right - 0.05)))
        words[1].shift(RIGHT * max(0.0, words[0].get_right()[0] + 0.3 - words[1].get_left()[0]))
        if words[1].get_right()[0] > right - 0.05:
            words[1].next_to(words[0], DOWN, buff=0.1).align_to(braces[1], RIGHT)
        return VGroup(parts, braces, *words)

    def _referee(self) -> None:
        """The loss defined (the formula the run trains on, its parts named), then it becomes the
        number on the board; the referee's line, its red boxes of wrong picks, the dashed right answers."""
        s = self.s
        picks, should = self._marks()
        formula = self._loss_formula()
        line = self._shown(("info", 3))
        board = [self._shown(("info", r)) for r in (0, 1)] + [self._shown(("info", "loss"))]
        first = s.run.snapshots[0].attention.argmax(1)
        wrong = int(np.sum(first != s.match))
        with self.beat("referee_say", focus=VGroup(*s.flags) if s.flags else s.grid.cells) as said:
            t0 = self.renderer.time
            self.play(FadeOut(s.strikes), Write(formula[0]), run_time=1.2)
            self.play(FadeIn(formula[1:], shift=UP * 0.1), run_time=0.8)
            self.key_moment("loss_defined", formula=[p.tex_string for p in formula[0]],
                            words=[" ".join(line.text for line in w) for w in formula[2:]])
            red = self._at(said, self.tr("red_word"), t0)
            self.wait_until(red - 1.6, formula)
            # the formula becomes the board: its L the loss's number, the curve's first point
            outline_labels(board[2])
            self.play(FadeOut(VGroup(formula[0][1:], formula[1:]), shift=DOWN * 0.2),
                      ReplacementTransform(formula[0][0], board[2]), FadeIn(*board[:2], s.ax, s.marker),
                      run_time=1.0)
            s.curve_on = True
            self.wait_until(red, board[2])
            self.play(FadeIn(line, shift=LEFT * 0.3), *[Create(m) for m in picks], run_time=1.0)
            if should:
                self.reveal([(self._at(said, self.tr("dashed_word"), t0), [Create(m) for m in should])],
                            focus=line, run_time=1.0)
            self.key_moment("referee", marks=len(picks) + len(should), wrong=wrong, line=line.text,
                            time=self.renderer.time)
            self.describe("describe_loss", output=self.tr("loss_output"), target=self.tr("loss_target"),
                          start=s.run.snapshots[0].step, steps=self.params.steps,
                          loss=sci_said(s.run.snapshots[0].loss, self.lang))
            flagged = [self.tr("describe_query", i=i + 1) for i in range(s.n) if first[i] != s.match[i]]
            if flagged:
                self.describe("describe_referee", wrong=wrong, n=s.n, flagged=flagged)
            else:
                self.describe("describe_referee_ok", n=s.n)
            self.focus_on(VGroup(*picks, *should))

    def _chance(self) -> None:
        """Still at step 0: the lucky right picks boxed as they are named, then the accuracy on unseen
        parties, then what guessing gets."""
        s, n = self.s, self.s.n
        snap = s.run.snapshots[0]
        first = snap.attention.argmax(1)
        acc_line = self._shown(("info", 2))
        lucky = [self._shown(("pick", i)) for i in range(n) if first[i] == s.match[i]]
        acc, chance = percent(snap.accuracy), percent(1 / (n - 1))
        s.chance = text(self.tr("chance_line", others=n - 1, chance=chance), self.lang, size=INFO_SIZE,
                        color=palette.INK).move_to([s.info_x, acc_line.get_y() + LINE * 3, 0], aligned_edge=LEFT)
        right = len(lucky)
        with self.beat(self.count_key("chance_say", right), focus=acc_line, n=n, right=right, acc=acc,
                       others=n - 1, chance=chance) as said:
            t0 = self.renderer.time
            boxes = VGroup(*[SurroundingRectangle(m, color=palette.FOCUS, buff=0.06) for m in lucky])
            self.play(Create(boxes), run_time=0.8)
            self.key_moment("chance", step_line=self._shown(("info", 0)).text, lucky=len(boxes), right=right,
                            time=self.renderer.time, accuracy=snap.accuracy, chance=1 / (n - 1),
                            boxed=[[float(v) for v in bounds(b)] for b in boxes],
                            picks=[[float(v) for v in bounds(m)] for m in lucky])
            around = SurroundingRectangle(acc_line, color=palette.FOCUS, buff=0.08)
            unseen = self._at(said, self.tr("unseen_word"), t0)
            self.reveal([(unseen - 0.3, [FadeOut(boxes), FadeIn(acc_line, shift=LEFT * 0.3)]),
                         (unseen + 0.5, [Create(around)]),
                         (self._at(said, self.tr("chance_word"), t0) - 0.3,
                          [FadeOut(around), FadeIn(s.chance, shift=UP * 0.2)])],
                        focus=acc_line, run_time=0.8)
            self.key_moment("chance_end", step_line=self._shown(("info", 0)).text, time=self.renderer.time)
            if lucky:
                self.describe("describe_lucky", lucky=[self.tr("describe_query", i=i + 1) for i in range(n)
                                                       if first[i] == s.match[i]])
            self.describe("describe_chance", acc_line=self.tr("accuracy", acc=acc),
                          chance_line=self.tr("chance_line", others=n - 1, chance=chance))
            self.focus_on(s.chance)

    def _early(self, k: int) -> bool:
        """Whether snapshot k is the next one and is early (before the later half and not the last)."""
        snaps = self.s.run.snapshots
        return self.s.next_k == k and k < min(max(2, len(snaps) // 2), len(snaps) - 1)

    def _spread(self, ks: list[int], until: float, first: list | None = None, least: float = 1.2,
                name: str | None = None) -> None:
        """Snapshots ``ks``, one after another (at least ``least`` seconds each), the last one shown
        by scene time ``until``; ``first`` plays with the first.  ``name``: a replay's moments."""
        start = self.renderer.time
        if not ks and first:
            self.play(*first, run_time=0.6)
        gap = max(least, (until - start) / max(1, len(ks)))
        for m, k in enumerate(ks):
            self.wait_until(start + m * gap, self.s.grid.cells)
            self._show(k, run_time=min(1.2, gap), extra=first if m == 0 else None,
                       name=None if name is None else f"{name}_{k}")

    def _train(self) -> None:
        """The early snapshots one by one, as a step is told (the referee's peak while it is named);
        then the rest, slowly while the referee still flags someone, then faster."""
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
        with self.beat("train_rise_say" if rise else "train_say", peak=wrong[peak], step=snaps[peak].step,
                       batch=self.params.batch) as said:
            t0 = self.renderer.time
            need = sum(cue_seconds(c, self.lang) for c in split_cues(said, self.lang))
            if rise:    # the peak is on screen while its number and its step are read
                fields = dict(peak=wrong[peak], step=snaps[peak].step, batch=self.params.batch)
                named = max(self._field_at("train_rise_say", f, said, t0, **fields) for f in ("peak", "step"))
                self._spread(list(range(first, peak + 1)), named - 1.0, leave)
                self.wait_until(named + 1.2, s.grid.cells)
                self._spread(list(range(peak + 1, half)), t0 + need - 1.5)
            else:
                self._spread(list(range(first, half)), t0 + need - 1.5, leave)
            # while the text is read: the red boxes it speaks of
            self.focus_on(VGroup(*s.flags) if s.flags else s.grid.cells)
            self._describe_snapshot("describe_train", s.next_k - 1)
        # The verdict follows the measured held-out accuracy, never the script.
        learned = s.run.learned
        with self.beat("emerge_say" if learned else "stuck_say") as said:
            need = sum(cue_seconds(c, self.lang) for c in split_cues(said, self.lang))
            # slowly while the referee still flags someone (the red boxes slide to the right
            # guests), then faster: the read-outs of the last stay on screen
            ks = list(range(s.next_k, len(snaps)))
            wrong = [int(np.sum(snaps[k].attention.argmax(1) != s.match)) for k in ks]
            settled = next((m + 1 for m, w in enumerate(wrong) if w == 0), len(ks))
            self._spread(ks[:settled], self.renderer.time + SLOW * settled, least=SLOW)
            self._spread(ks[settled:], max(self.renderer.time, self.renderer.time + need - SLOW * settled - 1.0),
                         least=0.6)
            self._describe_snapshot("describe_end", s.next_k - 1)

    def _outro(self) -> bool:
        """The verdict on the board: the loss's fall and the accuracy on unseen parties boxed as they
        are said, or the accuracy short of the mark.  Whether the run learned."""
        s, run = self.s, self.s.run
        learned = run.learned
        snaps = run.snapshots
        result = dict(steps=self.params.steps, start=sci_text(snaps[0].loss), end=sci_text(snaps[-1].loss),
                      ratio=about(snaps[0].loss / snaps[-1].loss, thousands=language(self.lang).thousands),
                      acc=percent(run.heldout_accuracy))
        acc_line = self._shown(("info", 2))
        if learned:
            with self.beat("outro_say", names_change=True, **result) as said:
                t0 = self.renderer.time
                fall = SurroundingRectangle(VGroup(self._shown(("info", "loss")), s.marker), color=palette.FOCUS,
                                            buff=0.08)
                acc_box = SurroundingRectangle(acc_line, color=palette.FOCUS, buff=0.08)
                self.play(Create(fall), Emphasize(s.curve, scale_factor=1.04), run_time=1.0)
                self.reveal([(self._at(said, f"{result['acc']}%", t0) - 0.4, [FadeOut(fall), Create(acc_box)])],
                            focus=s.curve, run_time=0.8)
                self.focus_on(acc_box)
            s.verdict = acc_box
        else:
            with self.beat("outro_stuck_say", names_change=True, **result, need=percent(qm.LEARNED_ACCURACY)):
                # the accuracy line is the verdict: it stays short of the mark
                self.play(Create(SurroundingRectangle(acc_line, color=palette.ALERT, buff=0.08)), run_time=0.8)
                self.wait(0.5)
        self.key_moment("end", heldout_accuracy=run.heldout_accuracy, learned=learned,
                        curve=[[float(x), float(y)] for seg in s.curve for x, y, _ in seg.get_anchors()],
                        y_name=[float(v) for v in bounds(s.ax.y_label)],
                        x_name=[float(v) for v in bounds(s.ax.x_label)])
        return learned

    def _replay(self) -> None:
        """The learning again, fast, while "every wrong match was penalised" is said: from step 0
        the red boxes turn green, snapshot by snapshot, to the run's end; then the table's Q, K, V,
        the names the next scene asks about."""
        s = self.s
        snaps = s.run.snapshots
        wrong = [int(np.sum(snap.attention.argmax(1) != s.match)) for snap in snaps]
        settled = next((k for k, w in enumerate(wrong) if w == 0), len(snaps) - 1)
        ks = list(range(settled + 1)) + ([len(snaps) - 1] if settled < len(snaps) - 1 else [])
        heads = VGroup(*[s.table.heads[key] for key, _ in READOUTS])
        with self.beat("replay_say") as said:
            t0 = self.renderer.time
            start = self._at(said, self.tr("penalty_word"), t0)
            names = self._at(said, self.tr("names_word"), t0)
            self.play(FadeOut(s.verdict), run_time=0.4)
            self.wait_until(start - 0.3, s.grid.cells)
            self._spread(ks, max(self.renderer.time + 0.5 * len(ks), names - 1.2), least=0.45, name="replay")
            columns = [VGroup(*[h for h in heads if abs(h.get_x() - x) < 0.05]) for x in sorted({round(h.get_x(), 2)
                                                                                                for h in heads})]
            boxes = VGroup(*[SurroundingRectangle(c, color=palette.FOCUS, buff=0.06) for c in columns])
            self.wait_until(names - 0.2, s.grid.cells)
            self.play(Create(boxes), run_time=0.8)
            self.key_moment("names", boxed=[h.text for h in heads], time=self.renderer.time)
            self.describe("describe_replay", start=snaps[ks[0]].step, step=snaps[ks[-1]].step,
                          heads=[self.tr(f"{r}_head") for r, _ in READOUTS])
            self.focus_on(boxes)
