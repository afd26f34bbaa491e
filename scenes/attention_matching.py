"""Scene 9, AttentionMatching: the tools of scene 8 on a whole sentence,
softmax(Q K^T / sqrt(d_k)) V, one piece at a time.

Each token's q and k (rows of Q = X W_Q and K = X W_K, from
``qkv_math.project``) stand beside it; one cell of the score grid is worked
term by term (``qkv_math.worked_product`` of q_i and k_j), then every cell
fills as the dot product of its row's q and its column's k.  The later grids
are values of ``qkv_math.attention_steps`` (scaled scores, the optional
causal mask, weights: each rounded on its own, as the caption says); the
output row of the lesson's query token is the weighted sum of the value
vectors.  It ends on W_Q, W_K and W_V as written by hand, and the question
of who writes them in a real model.  Row vectors: Q = X W_Q, one row per token.

    manim -ql scenes/attention_matching.py AttentionMatching
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Arc,
    Arrow,
    Circle,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromEdge,
    Line,
    MathTex,
    Mobject,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    Text,
    Transform,
    TransformFromCopy,
    VGroup,
    Wait,
    Write,
    config,
)

import qkv_math as qm
from qkv_lens.beats import MAX_CHOICES, MIN_CHOICES
from qkv_lens.cues import cue_seconds, split_cues
from qkv_lens.numbers import plain_number, tex_number
from scenes.kit import palette
from scenes.kit.charts import HeatMap
from scenes.kit.glyphs import NumberTex, number_tex
from scenes.kit.grids import GRID_FONT, NAME_SIZE, WEIGHT, ScoreGrid, VectorRows, widest_number
from scenes.kit.layout import bounds, overlaps
from scenes.kit.legible import floor_width, least_scale, shrink_to_fit
from scenes.kit.motion import Emphasize, swap
from scenes.kit.scene import LessonScene
from scenes.kit.sections import AttentionParams
from scenes.kit.text import text, title, wrapped_text

FORMULA = (r"\mathrm{softmax}", r"\Big(", r"\,Q", r"K^{\top}\,", r"/\sqrt{d_k}\,", r"\Big)", r"V")
EDGE = 0.4           # free margin at the left and right edges of the frame
GRID_TOP = 2.25      # top of the grid and of the q / k rows
WORK_FONT = 34       # the worked cell
STEP_SIZE = 26       # the step captions under the formula
RESERVE = 3.35      # room right of the grid: the row sums, then the worked cell and captions
BAR_ROW = 0.42       # row pitch of the output bars
OUTPUT_BOTTOM = -2.95   # the output's bars stay above the subtitles
FLOOR = -2.95        # just above the subtitle band (y >= -3.04)
CLAUSE_ENDS = ";；:：。"   # where a clause of a sentence ends (and ". ")


@dataclass
class _Worked:
    """The worked cell: q_i . k_j term by term and its sum, then that sum over sqrt(d_k)."""
    head: VGroup          # the query's name . the key's name
    terms: VGroup         # one MathTex per term: q_c, \times, k_c, =, product
    total: MathTex        # \Sigma, =, the sum
    rule: Line            # over the sum
    whole: VGroup         # head, terms, total and rule
    scaled: MathTex       # the sum \div \sqrt{d}, \approx the scaled score
    q_box: SurroundingRectangle   # around q_i in the table (then the row's q)
    k_box: SurroundingRectangle   # around k_j in the table (then the column's k)
    cell_box: SurroundingRectangle   # around the worked cell in the grid


@dataclass
class _ExpColumn:
    """The softmax of the query's row, worked: e^s of each score and their total, then each e^s over the total."""
    rows: VGroup          # one MathTex per key: e^{s}, =, e^s
    total: MathTex        # \Sigma, =, the total
    rule: Line            # over the total
    divs: VGroup          # in place of rows: e^s, \div, the total, =, the weight
    whole: VGroup         # all of them, to place and fit
    exps: np.ndarray      # e^s of the row

    def shown(self) -> list[list[str]]:
        """The TeX of e^{s}, e^s, the total and the weight, row by row."""
        return [[r[0].tex_string, r[2].tex_string, d[2].tex_string, d[4].tex_string]
                for r, d in zip(self.rows, self.divs)]


@dataclass
class _Output:
    """The output beat's pictures: each token's weight times its value vector,
    the scaled vectors, and their sum drawn as bars laid end to end, one lane per value dimension."""
    names: VGroup         # the tokens, one row each
    weights: VGroup       # the query's weight of each token (flown from the grid)
    times: VGroup         # \times between weight and value
    values: VectorRows    # v of each token
    equals: VGroup        # = between v and w v
    scaled: VectorRows    # w v of each token, right of its v
    head: MathTex         # \sum_j w_j v_j
    labels: VGroup        # the value dimensions' names, one lane each
    axis: Line            # the lanes' zero
    segments: list[list[Rectangle | None]]   # [token][dimension]: w v as a bar from where the last one ended
    totals: VGroup        # the output's numbers at the lanes' ends
    unit: float           # scene units per 1.0
    inline: bool          # the scaled rows replace the values (no room beside them)
    content: VGroup       # the metaphor's "content" box back over the values: what each token brings

    def shown(self) -> np.ndarray:
        """The output as drawn: where each lane's chain of bars ends, read from the bars."""
        x0 = self.axis.get_x()
        ends = []
        for d in range(len(self.labels)):
            tip = x0
            for row in self.segments:
                bar = row[d]
                if bar is not None:   # a bar starts at the tip it is nearest to and ends at its other side
                    left, right = bar.get_left()[0], bar.get_right()[0]
                    tip = right if abs(left - tip) <= abs(right - tip) else left
            ends.append((tip - x0) / self.unit)
        return np.array(ends)


@dataclass
class _Meet:
    """q and a key's k drawn from one origin in the plane the two span (their
    true lengths and the true angle between them): the shadow of k on q's line,
    times |q|, is the score q . k.  One key at a time: ``keys[j]`` holds k_j's
    arrow and name, its shadow (the drop and the segment on q's line), the
    angle's arc and the score."""
    origin: np.ndarray
    unit: float
    plane: VGroup         # q's line through the origin (muted) and the origin's dot
    q: VGroup             # q's arrow and the query's name
    keys: dict[int, VGroup]   # j: VGroup(arrow, name, drop, shadow, arc, score)
    tips: dict[int, np.ndarray]   # j: where k_j's arrow ends, in plane coordinates (|q| along x)


@dataclass
class _Stage:
    """What the beats share: the attention steps, the table and grid, and the pictures later beats take down."""
    steps: qm.AttentionSteps
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    names: list[str]      # the tokens' names
    qi: int               # the query token
    best: int             # the best score the query may look at
    right_edge: float
    heading: Mobject
    formula: MathTex
    heads: dict[str, MathTex]   # q = x W_Q, k = ..., v = ... over the table's columns
    token_labels: VGroup
    q_rows: VectorRows
    k_rows: VectorRows
    v_rows: VectorRows
    grid: ScoreGrid
    top: float            # top of the grid and of the table
    name_right: float     # right edge of the token names
    region_left: float    # left edge of the captions (and of the output)
    work_left: float      # left edge of the worked cell
    step: Mobject = field(default_factory=VGroup)   # the step caption under the formula
    box: Mobject | None = None    # the box on the formula's part at work
    work: _Worked | None = None
    meet: _Meet | None = None
    bars: VGroup = field(default_factory=VGroup)    # under each score its size (the scale beat)
    bar_unit: float = 0.0                            # the bars' scene units per 1.0
    sums: VGroup = field(default_factory=VGroup)    # each row's sum of weights
    sum_head: MathTex | None = None
    tags: dict[str, VGroup] = field(default_factory=dict)   # sign, label, content over the headings
    sum_rows: dict[int, Mobject] = field(default_factory=dict)   # the sums shown so far, by row
    boxed: list[tuple[tuple[int, ...], tuple[float, float, float, float]]] = field(default_factory=list)
    role_times: dict[str, float] = field(default_factory=dict)   # when q, k and v came on in the intro
    pours: list[tuple[float, float]] = field(default_factory=list)   # when each token's products poured into the output
    out: _Output | None = None

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def d(self) -> int:
        return self.Q.shape[1]

    @property
    def out_best(self) -> int:
        """The token the query weighs most."""
        return int(np.argmax(self.steps.weights[self.qi]))


class AttentionMatching(LessonScene):
    params: AttentionParams
    chapter = 2
    number = 9
    s: _Stage

    def construct(self):
        self.s = self._stage()
        self._intro()
        self._ask_which_key()
        self._worked()
        self._scores()
        self._scale()
        if self.params.causal_mask:
            self._mask()
        self._softmax()
        self._output()
        self._handoff(self._outro())

    def _ask_which_key(self) -> None:
        """Before the query's best cell is worked out: which word will the
        query attend to most?  The tokens, the answer the largest weight of
        its row (qkv_math).  A party of one, of more guests than a question
        offers choices, with two guests of one name, or with two keys tied
        for the largest weight (two right answers), asks nothing."""
        s = self.s
        weights = s.steps.weights[s.qi]
        if not MIN_CHOICES <= len(set(s.names)) == len(s.names) <= MAX_CHOICES \
                or np.isclose(weights, weights.max()).sum() > 1:
            return
        self.checkpoint("which_key", choices=list(s.names), answer=int(np.argmax(weights)), word=s.names[s.qi])

    # --- the stage: the lesson's numbers, the table and the grid ------------
    def _stage(self) -> _Stage:
        p, lang = self.params, self.lang
        Q, K, V = qm.project(*p.arrays())
        mask = qm.causal_mask(len(Q)) if p.causal_mask else None
        steps = qm.attention_steps(Q, K, V, mask=mask, temperature=float(p.temperature))
        names = [t.name(lang) for t in p.tokens]
        qi = p.query
        best = int(np.argmax(steps.masked[qi]))   # the best score the query may look at

        heading = title(self.tr("title"), lang)
        formula = MathTex(*FORMULA, font_size=40).to_corner(UR, buff=0.4)
        for part, role in ((2, "Q"), (3, "K"), (6, "V")):
            formula[part].set_color(palette.QKV[role])
        heads = {role: MathTex(f"{role.lower()} = x\\,W_{role}", font_size=32, color=palette.QKV[role])
                 for role in ("Q", "K", "V")}
        exps = np.exp(steps.masked[qi] / float(p.temperature))[None, :]   # the softmax's worked row, in its cells
        token_labels, q_rows, k_rows, v_rows, grid, top, name_right = self._layout(Q, K, V, steps, exps, names,
                                                                                    formula, heads)
        return _Stage(steps, Q, K, V, names, qi, best, config.frame_width / 2 - EDGE, heading, formula, heads,
                      token_labels, q_rows, k_rows, v_rows, grid, top, name_right,
                      region_left=grid.cells.get_right()[0] + 0.9,   # clear of the row sums
                      work_left=grid.cells.get_right()[0] + 0.3)     # the worked cell is gone before the sums come

    def _layout(self, Q: np.ndarray, K: np.ndarray, V: np.ndarray, steps: qm.AttentionSteps, exps: np.ndarray,
                names: list[str], formula: MathTex, heads: dict[str, MathTex]):
        """The table (token | q | k | v, one row per token) and the score grid
        in place of its v column, under the formula and above the subtitles:
        (token names, q, k and v rows, grid, the grid's top, the names' right edge)."""
        lang, n = self.lang, len(names)
        left_edge, right_edge = -config.frame_width / 2 + EDGE, config.frame_width / 2 - EDGE
        need_w = max(0.8, widest_number(steps.scores, steps.scaled, steps.masked, steps.weights, exps) + 0.15)
        # columns at least half as wide as the widest key name at the floor (they stand on two levels)
        need_w = max(need_w, (max(floor_width(text(nm, lang, size=NAME_SIZE)) for nm in names) + 0.15) / 2)
        h = min(1.15, 4.6 / n)
        for _ in range(2):     # a second time with lower rows when the key names pushed the grid into the subtitles
            ys = [GRID_TOP - (i + 0.5) * h for i in range(n)]
            token_labels = VGroup(*[text(nm, lang, size=NAME_SIZE) for nm in names])
            name_right = left_edge + max(t.width for t in token_labels)
            for t, y in zip(token_labels, ys):
                t.move_to([name_right, y, 0], aligned_edge=RIGHT)
            # q and k side by side when the grid still fits beside them, else q over k in each row
            stacked = False
            for stacked in (False, True):
                q_rows, k_rows, v_rows = self._table(Q, K, V, name_right, ys, h, heads, stacked)
                if (right_edge - RESERVE - (k_rows.get_right()[0] + 0.45)) / n >= need_w \
                        and VGroup(v_rows, heads["V"]).get_right()[0] <= right_edge:
                    break
            # --- the grid takes the place of the v column -------------------
            grid_left = k_rows.get_right()[0] + 0.45
            w = min(max(0.9, need_w + 0.05), (right_edge - RESERVE - grid_left) / n)
            grid = ScoreGrid(names, lang, w, h)
            grid.shift(np.array([grid_left, GRID_TOP, 0]) - grid.cells.get_corner(UP + LEFT))
            # the first key's name, wider than its column, kept clear of the q and k headings
            reach = max(heads[role].get_right()[0] for role in ("Q", "K")) + 0.15 - grid.col_labels[0].get_left()[0]
            if reach > 0:
                grid.shift(RIGHT * reach)
            # key names staggered on two levels: everything on the left moves down clear of the formula
            drop = max(0.0, grid.col_labels.get_top()[1] - (formula.get_bottom()[1] - 0.12))
            VGroup(token_labels, q_rows, k_rows, v_rows, *heads.values(), grid).shift(DOWN * drop)
            top = GRID_TOP - drop
            if grid.cells.get_bottom()[1] >= FLOOR:
                break
            h = (top - FLOOR) / n
        return token_labels, q_rows, k_rows, v_rows, grid, top, name_right

    # --- what every beat does to the caption, the formula and the grid ------
    def _set_step(self, key: str, formula_tex: str | None = None, **fields) -> None:
        """The step caption ``key`` (and ``formula_tex`` under it) in place of the last one."""
        self.s.step = swap(self, self.s.step, self._step_mob(key, formula_tex, **fields), run_time=0.4)

    def _step_mob(self, key: str, formula_tex: str | None = None, note: str | None = None, **fields) -> VGroup:
        """The step caption ``key``, ``formula_tex`` under it, then the text ``note`` (muted), under the formula."""
        s = self.s
        width = s.right_edge - s.region_left
        parts = [wrapped_text(self.tr(key, **fields), self.lang, size=STEP_SIZE, width=width, color=palette.INK)]
        if formula_tex is not None:
            parts.append(MathTex(formula_tex, font_size=32, color=palette.INK))
        if note is not None:
            parts.append(wrapped_text(self.tr(note), self.lang, size=24, width=width, color=palette.MUTED))
        new = VGroup(*parts).arrange(DOWN, aligned_edge=RIGHT, buff=0.15)
        return new.next_to(s.formula, DOWN, buff=0.3).align_to(s.formula, RIGHT)

    def _highlight(self, *parts: int) -> None:
        """A box around ``parts`` of the formula: the new ``s.box``."""
        s = self.s
        s.box = SurroundingRectangle(VGroup(*[s.formula[i] for i in parts]), color=palette.FOCUS, buff=0.06)
        s.boxed.append((parts, bounds(s.box)))
        self.play(FadeIn(s.box), run_time=0.3)

    def _show(self, M: np.ndarray) -> None:
        """The grid's numbers become those of ``M``."""
        grid = self.s.grid
        old = grid.numbers
        new = self._outlined(grid.make_numbers(M))
        self.play(ReplacementTransform(old, new), run_time=0.9)

    # --- the beats -----------------------------------------------------------
    def _intro(self) -> None:
        """Every token with its q, k and v: the sign it holds, the label it wears, what it brings,
        each shown as the sentence's clause names it."""
        s = self.s
        tags = self._tags()
        with self.beat("intro_say") as said:
            t0 = self.renderer.time
            total = sum(cue_seconds(c, self.lang) for c in split_cues(said, self.lang))
            # the sentence ends on three clauses, one per role: each role comes as its clause is read
            clauses = [0] + [i + 1 for i, ch in enumerate(said[:-1])
                             if ch in CLAUSE_ENDS or (ch == "." and said[i + 1] == " ")]
            self.play(Write(s.heading), FadeIn(s.formula), run_time=1.0)
            self.play(FadeIn(s.token_labels, lag_ratio=0.2), run_time=0.8)
            for k, (role, rows) in enumerate((("Q", s.q_rows), ("K", s.k_rows), ("V", s.v_rows))):
                if len(clauses) >= 3:
                    self.wait_until(t0 + total * clauses[k - 3] / len(said), s.token_labels)
                s.role_times[role] = self.renderer.time
                self.play(FadeIn(s.heads[role]), FadeIn(tags[role]), FadeIn(rows, lag_ratio=0.15), run_time=1.2)
            self.describe("describe_intro", words=s.names, q=s.Q, k=s.K, v=s.V, places=2)
        s.tags = tags
        self.key_moment("vectors", q=s.q_rows.shown(), k=s.k_rows.shown(), v=s.v_rows.shown(), roles=s.role_times,
                        tags={role: (bounds(tag[0]), bounds(s.heads[role])) for role, tag in s.tags.items()},
                        tag_shapes=[bounds(tag[1]) for tag in s.tags.values()], title=bounds(s.heading),
                        grid_shown=self._shown_count(s.grid.cells))

    def _worked(self) -> None:
        """One cell worked term by term; its sum lands in the grid."""
        s = self.s
        qi, best = s.qi, s.best
        work = qm.worked_product(s.Q[qi], s.K[best][:, None]).columns[0]
        nums = s.grid.make_numbers(s.steps.scores)
        worked_cell = nums[qi * s.n + best]
        w = s.work = self._worked_cell(work)
        with self.beat("worked_say", word=s.names[qi], other=s.names[best], d=s.d,
                       score=plain_number(work.total, 2, pad=True)):
            # v waits for the output; q's sign and k's label stay over their columns while q and k are used
            self.play(FadeOut(s.v_rows), FadeOut(s.heads["V"]), FadeOut(s.tags["V"]), run_time=0.5)
            self._set_step("scores", r"Q\,K^{\top}")
            self._place_worked(w)
            self.play(FadeIn(w.q_box), FadeIn(w.k_box), FadeIn(w.head), run_time=0.6)
            for c, row in enumerate(w.terms):
                self.play(TransformFromCopy(s.q_rows.entry(qi, c), row[0]),
                          TransformFromCopy(s.k_rows.entry(best, c), row[2]), FadeIn(row[1]), run_time=0.7)
                self.play(FadeIn(row[3]), Write(row[4]), run_time=0.5)
            self.play(FadeIn(w.rule), FadeIn(w.total[:2]), run_time=0.3)
            flying = [row[4].copy() for row in w.terms]   # every product slides into the sum
            self.play(*[Transform(f, w.total[2].copy()) for f in flying], run_time=0.8)
            self.remove(*flying)
            self.add(w.total[2])
            # the grid appears with its first number: the sum lands in its cell
            self.play(FadeIn(s.grid), FadeIn(w.cell_box), run_time=0.6)
            self.play(TransformFromCopy(w.total[2], worked_cell), run_time=0.8)
            self.describe("describe_worked", q=s.Q[qi], k=s.K[best], products=s.Q[qi] * s.K[best], places=2)
        self.key_moment("worked", cell=(qi, best),
                        terms=[[r[k].tex_string for k in (0, 2, 4)] for r in w.terms],
                        total=w.total[2].tex_string, in_cell=worked_cell.get_tex_string(),
                        filled=self._shown_count(nums))

    def _scores(self) -> None:
        """Every other cell: the row's q with the column's k."""
        s, w, n = self.s, self.s.work, self.s.n
        nums = s.grid.numbers
        with self.beat("scores_say") as said:
            cues = self.cue_starts(said)
            self._highlight(2, 3)
            rest = [(i, j) for i in range(n) for j in range(n) if (i, j) != (s.qi, s.best)]
            each = min(0.35, max(0.12, 4.5 / max(len(rest), 1)))
            self.play(FadeOut(w.cell_box), run_time=0.2)
            for i, j in rest:
                self.play(w.q_box.animate.move_to(s.q_rows.rows[i]), w.k_box.animate.move_to(s.k_rows.rows[j]),
                          FadeIn(nums[i * n + j]), run_time=each)
            self.remove(*nums)
            self.add(nums)
            # "the better they match": q and k meet as arrows, a poor key first, then the best one
            self.wait_until(cues[-1], s.grid.cells)
            self._meeting()
            self.describe("describe_scores", S=s.steps.scores, places=2)
            if s.meet is not None:
                self.describe("describe_meeting", word=s.names[s.qi], best=s.names[s.best])
        self.key_moment("scores", shown=s.grid.shown(), values=s.grid.values.copy(), meet=self._meet_probe(s.best),
                        boxed=[self._row_at(w.q_box, s.q_rows) if self._shown_count(VGroup(w.q_box)) else None,
                               self._row_at(w.k_box, s.k_rows) if self._shown_count(VGroup(w.k_box)) else None,
                               self._cell_at(w.cell_box)], table=self._shown_count(VGroup(s.q_rows, s.k_rows)),
                        box_color=w.cell_box.get_stroke_color().to_hex(),
                        q=s.q_rows.shown(), k=s.k_rows.shown())

    def _meeting(self) -> None:
        """q of the query and k of a poor key as arrows from one origin, with the
        poor key's cell boxed; then k swings to the best key's: nearly along q,
        a longer shadow, the highest score of the row."""
        s, w, n = self.s, self.s.work, self.s.n
        meet = s.meet = self._meet_picture()
        if meet is None:   # q is zero: no angle to draw; the best pair is boxed alone
            self.play(w.q_box.animate.move_to(s.q_rows.rows[s.qi]),
                      w.k_box.animate.move_to(s.k_rows.rows[s.best]), FadeIn(w.cell_box), run_time=0.6)
            self.play(Emphasize(s.grid.numbers[s.qi * n + s.best], scale_factor=1.3), run_time=0.8)
            return
        order = list(meet.keys)          # the poor key (if any), then the best
        self._outlined(VGroup(meet.q, *meet.keys.values()))
        first = meet.keys[order[0]]
        cell = SurroundingRectangle(s.grid.cell_at(s.qi, order[0]), color=palette.FOCUS, buff=0.0)
        w.cell_box.become(cell)
        self.play(FadeOut(w.whole), w.q_box.animate.move_to(s.q_rows.rows[s.qi]),
                  w.k_box.animate.move_to(s.k_rows.rows[order[0]]), FadeIn(w.cell_box), run_time=0.6)
        self.play(FadeIn(meet.plane), GrowArrow(meet.q[0]), FadeIn(meet.q[1]), run_time=0.6)
        self._into([(s.k_rows.rows[order[0]], first[0])], FadeIn(first[1]), run_time=0.8)
        meet = self._zoom_meeting(meet, order[0])   # q and k are read: the meeting takes the table's room
        first = meet.keys[order[0]]
        self.play(Create(first[4]), Create(first[2]), FadeIn(first[3]), run_time=0.6)
        self._into([(s.grid.numbers[s.qi * n + order[0]], first[5][3])], FadeIn(first[5][:3]), run_time=0.6)
        self.key_moment("meet_first", meet=self._meet_probe(order[0]), cell=self._cell_at(w.cell_box))
        if len(order) > 1:
            best = meet.keys[order[1]]
            w.k_box.move_to(s.k_rows.rows[order[1]])   # off screen with the table: where it would be
            self.play(w.cell_box.animate.move_to(s.grid.cell_at(s.qi, order[1])),
                      *[ReplacementTransform(a, b) for a, b in zip(first, best)], run_time=1.2)
        self.play(Emphasize(s.grid.numbers[s.qi * n + s.best], scale_factor=1.3), run_time=0.8)

    def _zoom_meeting(self, small: _Meet, j: int) -> _Meet:
        """The table's q and k columns (and their boxes) leave, the grid slides left
        beside the token names, and the meeting of q and k_j grows into the room they leave."""
        s, w, grid = self.s, self.s.work, self.s.grid
        table = VGroup(s.q_rows, s.k_rows, s.heads["Q"], s.heads["K"], s.tags["Q"], s.tags["K"], w.q_box, w.k_box)
        shift = s.name_right + 0.45 - grid.cells.get_left()[0]
        s.work_left += shift
        s.region_left += shift
        big = s.meet = self._meet_picture(wide=True)
        self._outlined(VGroup(big.q, *big.keys.values()))
        self.play(FadeOut(table), VGroup(grid, grid.numbers, w.cell_box).animate.shift(RIGHT * shift),
                  ReplacementTransform(small.plane, big.plane), ReplacementTransform(small.q, big.q),
                  ReplacementTransform(small.keys[j][0], big.keys[j][0]),
                  ReplacementTransform(small.keys[j][1], big.keys[j][1]), run_time=1.2)
        return big

    def _meet_probe(self, j: int) -> dict | None:
        """The meeting as drawn: q's arrow (start, end), the arrow on screen for
        key ``j`` (start, end), its score's TeX and the names; None when not drawn."""
        meet = self.s.meet
        if meet is None:
            return None
        shown = {id(m) for m in self.get_mobject_family_members()}
        k = next(g for g in meet.keys.values() if id(g[0]) in shown)
        return {"q": (tuple(meet.q[0].get_start()[:2]), tuple(meet.q[0].get_end()[:2])),
                "k": (tuple(k[0].get_start()[:2]), tuple(k[0].get_end()[:2])), "key": j,
                "score": k[5][3].tex_string, "names": (meet.q[1].text, k[1].text),
                "box": bounds(VGroup(meet.plane, meet.q, k))}

    def _meet_picture(self, wide: bool = False) -> _Meet | None:
        """The meeting of q and k (``_Meet``) right of the grid, in the worked cell's
        place: the query's q along the x axis, each key's k at its angle to q.
        The keys: the row's lowest score among keys with a k (when it is not the
        best), then the best.  None when q is zero.  ``wide``: the table has left, the
        picture reaches up to the formula, left of the step caption."""
        s, lang, qi = self.s, self.lang, self.s.qi
        q = s.Q[qi]
        q_len = float(np.linalg.norm(q))
        if q_len < 1e-9:
            return None
        visible = [j for j in range(s.n) if np.isfinite(s.steps.masked[qi, j]) and np.linalg.norm(s.K[j]) > 1e-9]
        poor = [j for j in visible if j != s.best]
        keys = ([min(poor, key=lambda j: s.steps.scores[qi, j])] if poor else []) + [s.best]
        tips = {}
        for j in keys:
            k_len = float(np.linalg.norm(s.K[j]))
            along = float(s.steps.scores[qi, j]) / q_len            # the shadow of k on q's line
            tips[j] = np.array([along, math.sqrt(max(k_len ** 2 - along ** 2, 0.0))])
        pts = np.array([[0.0, 0.0], [q_len, 0.0], *tips.values()])
        under = 1.25    # under q's line: the query's name, then the score
        left, right = s.work_left + 0.1, s.right_edge - 0.1
        top, bottom = s.step.get_bottom()[1] - 0.45, FLOOR + under
        if wide:   # the table is gone: up to the formula, left of the step caption
            top, right = s.formula.get_bottom()[1] - 0.6, s.step.get_left()[0] - 0.6
        span = np.maximum(pts.max(axis=0) - pts.min(axis=0), 1e-9)
        unit = float(min((right - left - 0.5) / span[0], (top - bottom - 0.3) / max(span[1], 0.3 * span[0]), 2.6))
        mid = (pts.max(axis=0) + pts.min(axis=0)) / 2
        origin = np.array([(left + right) / 2 - mid[0] * unit, (top + bottom) / 2 - mid[1] * unit, 0])

        def at(p: np.ndarray) -> np.ndarray:
            return origin + np.array([p[0], p[1], 0]) * unit

        lo, hi = min(0.0, float(pts[:, 0].min())), max(q_len, float(pts[:, 0].max()))
        plane = VGroup(Line(at(np.array([lo - 0.15, 0])), at(np.array([hi + 0.15, 0])), stroke_width=2,
                            color=palette.MUTED),
                       Dot(origin, radius=0.05, color=palette.INK))
        q_arrow = Arrow(origin, at(np.array([q_len, 0])), buff=0, color=palette.Q_GOLD, stroke_width=6,
                        max_tip_length_to_length_ratio=0.12)
        q_name = text(s.names[qi], lang, size=NAME_SIZE, color=palette.Q_GOLD).next_to(q_arrow, DOWN, buff=0.3)
        group = {}
        for j, tip in tips.items():
            end = at(tip)
            arrow = Arrow(origin, end, buff=0, color=palette.K_TEAL, stroke_width=6,
                          max_tip_length_to_length_ratio=0.12)
            name = text(s.names[j], lang, size=NAME_SIZE, color=palette.K_TEAL)
            name.next_to(end, UP, buff=0.12)
            name.shift(RIGHT * (max(0.0, left - name.get_left()[0]) + min(0.0, right - name.get_right()[0])))
            foot = at(np.array([tip[0], 0]))
            below = DOWN * 0.14    # the shadow runs just under q's line, so both stay in sight
            drop = DashedLine(end, foot + below, stroke_width=2, color=palette.MUTED, dash_length=0.08)
            shadow = Line(origin + below, foot + below, stroke_width=8, color=palette.K_TEAL)
            angle = math.atan2(tip[1], tip[0])
            arc = Arc(radius=0.45, start_angle=0, angle=angle, arc_center=origin, color=palette.INK, stroke_width=2)
            score = MathTex(r"q\cdot", "k", "=", tex_number(float(s.steps.scores[qi, j]), 2, pad=True), font_size=34)
            score[0].set_color(palette.Q_GOLD)
            score[1].set_color(palette.K_TEAL)
            score.next_to(q_name, DOWN, buff=0.15).set_x((left + right) / 2)
            group[j] = VGroup(arrow, name, drop, shadow, arc, score)
        return _Meet(origin, unit, plane, VGroup(q_arrow, q_name), group, tips)

    def _scale(self) -> None:
        """Every score over sqrt(d_k): a bar under each score shrinks by the same
        factor as the number becomes the scaled one; the worked cell's division written out."""
        s, w, d = self.s, self.s.work, self.s.d
        root = plain_number(math.sqrt(d), 2, pad=True)
        with self.beat("scale_say", d=d, root=root):
            meet = [] if s.meet is None else [s.meet.plane, s.meet.q, *s.meet.keys.values()]
            self.play(*self._off(s.box, w.q_box, w.k_box, w.cell_box, *meet), run_time=0.3)
            rel = "=" if math.isqrt(d) ** 2 == d else r"\approx"   # sqrt(4) is 2 exactly
            self._set_step("scale", rf"\div\sqrt{{d_k}} = \sqrt{{{d}}} {rel} {tex_number(math.sqrt(d), 2, pad=True)}")
            self._highlight(4)
            s.bars = self._bars(s.steps.scores)
            self.play(*[GrowFromEdge(b, LEFT) for b in s.bars], run_time=0.8)
            self.key_moment("scale_start", bars=[b.width for b in s.bars], unit=s.bar_unit)
            w.scaled.next_to(s.step, DOWN, buff=0.45).align_to([s.work_left, 0, 0], LEFT)
            cell = s.grid.numbers[s.qi * s.n + s.best]
            self._into([(cell, w.scaled[0])], FadeIn(w.scaled[1:]), run_time=0.8)
            scaled_bars = self._bars(s.steps.scaled)
            old = s.grid.numbers
            new = self._outlined(s.grid.make_numbers(s.steps.scaled))
            self.play(ReplacementTransform(old, new), Transform(s.bars, scaled_bars), run_time=1.4)
            self.describe("describe_scale", S=s.steps.scaled, places=2)
        self.key_moment("scaled", shown=s.grid.shown(), values=s.grid.values.copy(),
                        scale=s.step[-1].get_tex_string(), worked=w.scaled.get_tex_string(),
                        bars=[b.width for b in s.bars], unit=s.bar_unit)

    def _bars(self, M: np.ndarray) -> VGroup:
        """A bar along the bottom of each cell, as long as |M[i, j]| (``s.bar_unit`` per 1.0;
        a negative one muted, none for minus infinity)."""
        s, grid = self.s, self.s.grid
        if s.bar_unit == 0.0:
            finite = np.abs(s.steps.scores[np.isfinite(s.steps.scores)])
            s.bar_unit = (grid.w - 0.2) / max(float(finite.max()) if finite.size else 1.0, 1e-9)
        bars = VGroup()
        for i in range(s.n):
            for j in range(s.n):
                v = float(M[i, j])
                cell = grid.cell_at(i, j)
                width = abs(v) * s.bar_unit if math.isfinite(v) else 0.0
                bar = Rectangle(width=max(width, 1e-4), height=0.08, stroke_width=0,
                                fill_color=palette.INK if v >= 0 else palette.MUTED, fill_opacity=0.75)
                bar.move_to(cell.get_corner(DOWN + LEFT) + np.array([0.1, 0.1, 0]), aligned_edge=DOWN + LEFT)
                bars.add(bar)
        return bars

    def _mask(self) -> None:
        """The causal mask: no token looks at a later one."""
        s, w = self.s, self.s.work
        with self.beat("mask_say", names_change=True):
            self.play(*self._off(s.box, w.whole, w.scaled), run_time=0.3)
            self._set_step("mask")
            self._highlight(4)
            masked_bars = self._bars(s.steps.masked)
            self.play(Transform(s.bars, masked_bars), run_time=0.6)
            self._show(s.steps.masked)
        self.key_moment("masked", shown=s.grid.shown(), values=s.grid.values.copy())

    def _softmax(self) -> None:
        """Each row's softmax, worked on the query's row: e^s of every score,
        their total, each divided by it; then every row at once, shaded by weight."""
        s, w, n, grid, qi = self.s, self.s.work, self.s.n, self.s.grid, self.s.qi
        T = float(self.params.temperature)
        col = self._exp_column()
        row_box = SurroundingRectangle(VGroup(*[grid.cell_at(qi, j) for j in range(n)]), color=palette.FOCUS,
                                       buff=0.04)
        with self.beat("softmax_say", focus=s.sums) as said:
            cues = self.cue_starts(said)
            self.play(*self._off(s.box, w.whole, w.scaled, s.bars), run_time=0.3)
            # each weight rounded on its own (equal weights show equal numbers), and the caption says so
            self._set_step("softmax" if T == 1 else "softmax_t", r"w_j = e^{s_j} \big/ \textstyle\sum_k e^{s_k}",
                           note="rounded_weights", t=plain_number(T, 2, pad=True))
            self._highlight(0, 1, 5)
            self._place_column(col)
            self.play(FadeIn(row_box), run_time=0.4)
            if len(cues) > 2:   # the cue that names the exponent (the sentence's second of three)
                self.wait_until(cues[1], row_box)
            self._exponentiate(col)
            self._divide(col)
            self.wait_until(cues[-1], row_box)
            self._every_row(s.steps.weights)
            self.play(FadeOut(row_box), FadeOut(VGroup(col.divs, col.total, col.rule)), run_time=0.4)
            self.describe("describe_softmax", word=s.names[qi], exps=col.exps,
                          total=float(sum(_as_shown(v) for v in col.exps)), weights=s.steps.weights[qi],
                          W=s.steps.weights, places=2)
        self.key_moment("weights", shown=grid.shown(), values=grid.values.copy(),
                        sums=[m.get_tex_string() for m in s.sums], exp=col.shown(),
                        caption=" ".join(m.text for m in s.step.get_family() if isinstance(m, Text)),
                        shade=[[grid.cell_at(i, j).get_fill_opacity() for j in range(n)] for i in range(n)],
                        shade_color=grid.cells[0].get_fill_color().to_hex())

    def _exponentiate(self, col: _ExpColumn) -> None:
        """The query row's scores fly up into exponents; e^s replaces each score in its cell."""
        grid, n, qi = self.s.grid, self.s.n, self.s.qi
        cells = [grid.numbers[qi * n + j] for j in range(n)]
        self.play(*[TransformFromCopy(cells[j], r[0][1:]) for j, r in enumerate(col.rows)],
                  *[FadeIn(r[0][0]) for r in col.rows], run_time=0.8)
        self.play(*[FadeIn(r[1]) for r in col.rows], *[Write(r[2]) for r in col.rows], run_time=0.6)
        new = [self._outlined(grid.number(float(col.exps[j]), qi, j)) for j in range(n)]
        self.play(*[ReplacementTransform(cells[j], new[j]) for j in range(n)],
                  *[TransformFromCopy(r[2], new[j]) for j, r in enumerate(col.rows)], run_time=0.8)
        for j in range(n):
            grid.numbers.submobjects[qi * n + j] = new[j]
        self.play(FadeIn(col.rule), FadeIn(col.total[:2]), run_time=0.3)
        flying = [r[2].copy() for r in col.rows]   # every e^s slides into the row's total
        self.play(*[Transform(f, col.total[2].copy()) for f in flying], run_time=0.8)
        self.remove(*flying)
        self.add(col.total[2])

    def _divide(self, col: _ExpColumn) -> None:
        """Each e^s divided by the total: the weights land in the query's row, which sums to 1."""
        s, grid, n, qi = self.s, self.s.grid, self.s.n, self.s.qi
        self.play(*[ReplacementTransform(r[2], d[0]) for r, d in zip(col.rows, col.divs)],
                  *[FadeOut(r[:2]) for r in col.rows], run_time=0.7)
        self.play(*[FadeIn(d[1]) for d in col.divs],
                  *[TransformFromCopy(col.total[2], d[2]) for d in col.divs], run_time=0.8)
        self.play(*[FadeIn(d[3]) for d in col.divs], *[Write(d[4]) for d in col.divs], run_time=0.6)
        new = [self._outlined(grid.number(float(s.steps.weights[qi, j]), qi, j)) for j in range(n)]
        self.play(*[ReplacementTransform(grid.numbers[qi * n + j], new[j]) for j in range(n)],
                  *[TransformFromCopy(d[4], new[j]) for j, d in enumerate(col.divs)],
                  *[grid.cell_at(qi, j).animate.set_fill(WEIGHT, opacity=0.6 * s.steps.weights[qi, j])
                    for j in range(n)], run_time=0.8)
        for j in range(n):
            grid.numbers.submobjects[qi * n + j] = new[j]
        self.play(FadeIn(self._sum_of(qi)), FadeIn(self._sum_head()), run_time=0.5)

    def _every_row(self, shown: np.ndarray) -> None:
        """The other rows become weights in one go, shaded by weight, each with its sum."""
        s, grid, n, qi = self.s, self.s.grid, self.s.n, self.s.qi
        others = [i for i in range(n) if i != qi]
        if not others:
            return
        old = VGroup(*[grid.numbers[i * n + j] for i in others for j in range(n)])
        worked_row = [grid.numbers[qi * n + j] for j in range(n)]
        numbers = grid.make_numbers(shown)
        new = self._outlined(VGroup(*[numbers[i * n + j] for i in others for j in range(n)]))
        shades = [grid.cell_at(i, j).animate.set_fill(WEIGHT, opacity=0.6 * s.steps.weights[i, j])
                  for i in others for j in range(n)]
        sums = VGroup(*[self._sum_of(i) for i in others])
        self.play(ReplacementTransform(old, new), *shades, FadeIn(sums), run_time=1.2)
        self.remove(new, *worked_row)
        self.add(numbers)

    def _sum_of(self, i: int) -> Mobject:
        """Row ``i``'s sum of weights as shown, right of the grid (added to ``s.sums`` in row order)."""
        s, grid, n = self.s, self.s.grid, self.s.n
        total = float(s.steps.weights[i].sum())   # 1, or 0 for a row that sees nothing
        num = number_tex(tex_number(total, 2, pad=True), font_size=GRID_FONT, color=palette.MUTED)
        num.next_to(grid.cell_at(i, n - 1), RIGHT, buff=0.2)
        s.sum_rows[i] = num
        s.sums.submobjects = [s.sum_rows[k] for k in sorted(s.sum_rows)]
        return num

    def _sum_head(self) -> MathTex:
        """The Σ over the column of row sums (under it when the key names reach over it)."""
        s, grid, n = self.s, self.s.grid, self.s.n
        head = s.sum_head = MathTex(r"\Sigma", font_size=32, color=palette.MUTED)
        x = grid.cell_at(0, n - 1).get_right()[0] + 0.2 + s.sum_rows[s.qi].width / 2
        head.move_to([x, s.top + 0.3, 0])
        if any(overlaps(bounds(head), bounds(lab)) for lab in grid.col_labels):
            head.next_to(grid.cell_at(n - 1, n - 1), DOWN, buff=0.2).set_x(x)
        return head

    def _output(self) -> None:
        """The query's row mixes the values: each v scaled by its weight, the
        scaled vectors added end to end.  q and k are done: the grid moves left."""
        s, grid, qi, n = self.s, self.s.grid, self.s.qi, self.s.n
        table = VGroup(s.q_rows, s.k_rows, s.heads["Q"], s.heads["K"], s.tags["Q"], s.tags["K"])
        moving = VGroup(grid, grid.numbers, s.sums, s.sum_head)
        shift = LEFT * (grid.cells.get_left()[0] - (s.name_right + 0.45))
        with self.beat("output_say", word=s.names[qi]) as said:
            cues = self.cue_starts(said)
            self.play(*self._off(s.box, table), run_time=0.4)
            if abs(shift[0]) > 0.01:   # the grid is still beside the table (no meeting was drawn)
                self.play(moving.animate.shift(shift), run_time=0.8)
            s.region_left = s.sums.get_right()[0] + 0.5
            # the note that the products are of the numbers shown, when the lanes still fit above the subtitles
            last = s.step
            for note in ("rounded", None):
                s.step = self._step_mob("output", note=note, word=s.names[qi])
                out = s.out = self._mix_layout()
                drawn = VGroup(out.names, out.weights, out.times, out.values, out.scaled, out.totals, out.labels,
                               out.content)
                if drawn.get_bottom()[1] >= FLOOR - 0.05 and drawn.get_right()[0] <= s.right_edge + 0.05:
                    break
            s.step = swap(self, last, s.step, run_time=0.4)
            self._highlight(6)
            self._outlined(VGroup(out.scaled, out.weights))
            row_box = SurroundingRectangle(VGroup(*[grid.cell_at(qi, j) for j in range(n)]),
                                           color=palette.FOCUS, buff=0.04)
            # the values come back with the word that named them at the start: each token's content
            self.play(FadeIn(row_box), FadeIn(out.names, lag_ratio=0.1), FadeIn(out.values, lag_ratio=0.1),
                      FadeIn(out.content, shift=DOWN * 0.15), run_time=0.8)
            self.play(*[TransformFromCopy(grid.numbers[qi * n + j], out.weights[j]) for j in range(n)],
                      FadeIn(out.times), run_time=1.0)
            self.wait_until(max(cues[min(1, len(cues) - 1)], self.renderer.time + 1.0), out.weights)
            gone = [FadeOut(VGroup(out.weights, out.times, out.values))] if out.inline else []
            self._into([(VGroup(out.weights[j], out.values.rows[j]), out.scaled.rows[j]) for j in range(n)],
                       FadeIn(out.equals), *gone, run_time=1.2)
            self.wait_until(cues[-1], out.scaled)
            self.play(FadeIn(out.head), FadeIn(out.labels), FadeIn(out.axis), FadeOut(row_box), run_time=0.5)
            # each token's scaled vector pours into the lanes where the last one ended, one after another
            # over the time the sentence's last cue is read ("... add up, end to end, into the output")
            pours = [(j, [(d, bar) for d, bar in enumerate(out.segments[j]) if bar is not None]) for j in range(n)]
            pours = [(j, bars) for j, bars in pours if bars]
            cue_end = cues[-1] + cue_seconds(split_cues(said, self.lang)[-1], self.lang)
            each = max(0.6, (cue_end - self.renderer.time - 0.5) / max(len(pours), 1))
            for j, bars in pours:
                start = self.renderer.time
                self._into([(out.scaled.entry(j, d), bar) for d, bar in bars], run_time=each)
                s.pours.append((start, self.renderer.time))
            self.play(FadeIn(out.totals), run_time=0.5)
            shown = self._shown_products()   # the products and their sum as the lanes show them
            self.describe("describe_output", scaled=shown, output=shown.sum(axis=0), places=2)
        self.key_moment("output", shown=grid.shown(), weights=[m.get_tex_string() for m in out.weights],
                        values=out.values.shown(), scaled=out.scaled.shown(), output=out.shown(),
                        totals=[m.get_tex_string() for m in out.totals], best=s.names[s.out_best],
                        content=(out.content[0].text, s.tags["V"][0].text, bounds(out.content[0]), bounds(out.values),
                                 self._shown_count(VGroup(out.content))),
                        note=len(s.step) == 2, pours=list(s.pours))

    def _outro(self) -> VGroup:
        """Why: the dimension on which the query and the winning key agree most;
        then the whole formula for the query's row, built from the formula's own
        parts, equals the output the lanes added up.  Returns what it leaves right of the grid."""
        s, out = self.s, self.s.out
        c = int(np.argmax(s.Q[s.qi] * s.K[s.out_best]))
        dim = self.params.qk_dims[c].name(self.lang)
        pair, pair_vecs, picks, dim_label = self._pair(c, dim)
        summary = self._summary(out)
        summary.next_to(dim_label, DOWN, buff=0.45)
        shrink_to_fit(summary, width=s.right_edge - s.region_left)
        summary.set_x((s.region_left + s.right_edge) / 2)
        summary.shift(UP * max(0.0, FLOOR + 0.05 - summary.get_bottom()[1]))
        cell_box = SurroundingRectangle(s.grid.cell_at(s.qi, s.out_best), color=palette.FOCUS, buff=0.0)
        with self.beat("outro_say", focus=VGroup(picks, dim_label), word=s.names[s.qi], best=s.names[s.out_best],
                       dim=dim):
            bars = [bar for row in out.segments for bar in row if bar is not None]
            self.play(FadeOut(s.box), FadeOut(VGroup(out.names, out.weights, out.times, out.values, out.equals)),
                      FadeOut(out.scaled), FadeOut(out.head), FadeOut(out.labels), FadeOut(out.content),
                      FadeOut(out.axis), FadeOut(VGroup(*bars)), FadeOut(s.step), run_time=0.5)
            self.play(FadeIn(pair), run_time=0.6)
            self.play(FadeIn(picks), FadeIn(dim_label), Create(cell_box), run_time=0.6)
            # the formula's parts come down into the query's row of it
            self.play(*[TransformFromCopy(s.formula[k], summary[k]) for k in range(len(FORMULA))], run_time=1.2)
            self._into([(out.totals[d], summary[len(FORMULA) + 2 + 2 * d]) for d in range(len(out.totals))],
                       FadeOut(out.totals), FadeIn(summary[len(FORMULA)]), FadeIn(summary[len(FORMULA) + 1]),
                       *[FadeIn(summary[len(FORMULA) + 3 + 2 * d]) for d in range(len(out.totals))], run_time=1.0)
            self.describe("describe_outro", word=s.names[s.qi], best=s.names[s.out_best], dim=dim,
                          q=s.Q[s.qi][c], k=s.K[s.out_best][c], output=self._shown_products().sum(axis=0), places=2)
        self.key_moment("end", boxed=s.boxed, formula=[bounds(part) for part in s.formula], dim=dim,
                        picked=[pair_vecs.entry(i, c).get_tex_string() for i in range(2)],
                        summary=[part.tex_string for part in summary], totals=[t.get_tex_string() for t in out.totals],
                        summary_box=bounds(summary), cell=self._cell_at(cell_box))
        return VGroup(pair, picks, dim_label, summary)

    def _handoff(self, shown: VGroup) -> None:
        """What comes next: W_Q, W_K and W_V as the lesson wrote them by hand
        (shaded by size, their non-zero numbers in their cells), then emptied,
        a question mark in each: who writes them in a real model?"""
        s, p, lang = self.s, self.params, self.lang
        mats = {role: np.array(getattr(p, f"W_{role}"), dtype=float) for role in ("Q", "K", "V")}
        rows = len(p.traits)
        cols = sum(M.shape[1] for M in mats.values())
        left, right = s.region_left, s.right_edge
        top = s.formula.get_bottom()[1] - 0.95           # room for the matrices' names under the formula
        note = text(self.tr("by_hand"), lang, size=28, color=palette.INK)
        bottom = FLOOR + note.height + 0.3
        cell = min(0.55, (right - left - 0.5 * 2) / cols, (top - bottom) / rows)
        group, names, marks = VGroup(), VGroup(), VGroup()
        for role, M in mats.items():
            heat = HeatMap(M, [""] * rows, [], lang, palette.QKV[role], cell=cell, size=24, show_rows=False)
            heat.remove(heat.numbers)   # the entries as the lesson writes them (0.25, not 0.3), when they fit
            numbers = [number_tex(tex_number(float(v), 2), font_size=GRID_FONT, color=palette.INK).move_to(sq)
                       for v, sq in zip(M.ravel(), heat.cells) if v != 0]
            heat.numbers = VGroup(*numbers) if all(num.width <= cell * 0.95 for num in numbers) else VGroup()
            heat.add(heat.numbers)
            group.add(heat)
        group.arrange(RIGHT, buff=0.5).next_to([0, top, 0], DOWN, buff=0).set_x((left + right) / 2)
        for role, heat in zip(mats, group):
            names.add(MathTex(f"W_{role}", font_size=40, color=palette.QKV[role]).next_to(heat.cells, UP, buff=0.15))
            marks.add(MathTex("?", font_size=96, color=palette.QKV[role]).move_to(heat.cells))
        note.next_to(group, DOWN, buff=0.3).set_x(group.get_x())
        with self.beat("handoff_say", focus=group):
            self.play(FadeOut(shown), run_time=0.5)
            self.play(FadeIn(names), *[FadeIn(h.cells, lag_ratio=0.02) for h in group],
                      *[FadeIn(h.numbers) for h in group], run_time=1.0)
            self.play(FadeIn(note, shift=UP * 0.15), run_time=0.5)
            self.describe("describe_handoff", W_Q=mats["Q"], W_K=mats["K"], W_V=mats["V"], places=2)
            self.key_moment("by_hand", numbers=[[_tex(n) for n in h.numbers] for h in group], at=self.renderer.time)
        with self.beat("ask_say", focus=marks):
            self.play(*[FadeOut(h.numbers) for h in group], *[h.cells.animate.set_fill(opacity=0.04) for h in group],
                      FadeOut(note), *[FadeIn(m, scale=0.6) for m in marks], run_time=1.0)
            self.describe("describe_ask")
            self.key_moment("asked", at=self.renderer.time, marks=[m.tex_string for m in marks],
                            numbers=sum(self._shown_count(h.numbers) for h in group),
                            fill=[max(c.get_fill_opacity() for c in h.cells) for h in group])

    def _summary(self, out: _Output) -> MathTex:
        """softmax(q K^T / sqrt(d)) V = [the output], for the query's row: the
        formula's parts (q for its Q: one row) and the output's numbers as the lanes show them."""
        s = self.s
        parts = list(FORMULA)
        parts[2], parts[4] = r"\,q", rf"/\sqrt{{{s.d}}}\,"
        entries = [t.get_tex_string() for t in out.totals]
        tail = ["=", r"\big["] + [x for e in entries for x in (e, ",")][:-1] + [r"\big]"]
        summary = MathTex(*parts, *tail, font_size=36)
        for part, role in ((2, "Q"), (3, "K"), (6, "V")):
            summary[part].set_color(palette.QKV[role])
        for d in range(len(entries)):
            summary[len(FORMULA) + 2 + 2 * d].set_color(palette.V_CORAL)
        return summary

    def _into(self, pairs: list[tuple[Mobject, Mobject]], *also, run_time: float) -> None:
        """Copies of each pair's first part turn into its second (which a
        transform would reshape to match: it turns into a stand-in, then
        takes its place), with ``also`` alongside."""
        ghosts = [dst.copy() for _, dst in pairs]
        self.play(*[TransformFromCopy(src, g) for (src, _), g in zip(pairs, ghosts)], *also, run_time=run_time)
        self.remove(*ghosts)
        self.add(*[dst for _, dst in pairs])

    def _shown_products(self) -> np.ndarray:
        """w_j v_j of the query's row from the numbers as shown (each weight and
        value entry at 2 decimals), each product rounded half up to 2 decimals:
        every product on screen checks by hand against its shown factors."""
        s = self.s
        out = np.zeros(s.V.shape)
        for j, w in enumerate(s.steps.weights[s.qi]):
            for d, v in enumerate(s.V[j]):
                exact = _as_shown(w) * _as_shown(v)
                out[j, d] = math.copysign(math.floor(abs(exact) * 100 + Fraction(1, 2)), exact) / 100
        return out

    # --- pictures the beats show ---------------------------------------------
    def _tags(self) -> dict[str, VGroup]:
        """The metaphor over each heading: q a sign (a board), k a label (a tag with its hole),
        v the content (a box); each VGroup(word, its outline)."""
        s, lang = self.s, self.lang
        stacked = abs(s.heads["Q"].get_y() - s.heads["K"].get_y()) > 0.05   # q over k: the words go left
        tags = {}
        for role, key in (("Q", "tag_q"), ("K", "tag_k"), ("V", "tag_v")):
            color = palette.QKV[role]
            word = text(self.tr(key), lang, size=24, color=color)
            if stacked and role != "V":
                word.next_to(s.heads[role], LEFT, buff=0.25)
            else:
                word.next_to(s.heads[role], UP, buff=0.1)
            if role == "V":
                shape = SurroundingRectangle(word, color=color, buff=0.05, stroke_width=2)
            else:
                shape = SurroundingRectangle(word, color=color, buff=0.05, stroke_width=2, corner_radius=0.06)
            if role == "K":   # the label's hole, in room of its own left of the word
                shape.stretch_to_fit_width(shape.width + 0.14, about_edge=RIGHT)
                shape = VGroup(shape, Circle(radius=0.035, color=color, stroke_width=2)
                               .move_to(shape.get_left() + RIGHT * 0.1))
            tags[role] = VGroup(word, shape)
        return tags

    def _exp_column(self) -> _ExpColumn:
        """The query row's softmax worked out: e^s (of s / T when T is not 1)
        and their total; then each e^s over the total = the weight as the grid shows it."""
        s, qi = self.s, self.s.qi
        T = float(self.params.temperature)
        exps = np.exp(s.steps.masked[qi] / T)
        total = tex_number(float(sum(_as_shown(v) for v in exps)), 2, pad=True)   # adding the numbers shown
        over = "" if T == 1 else "/" + tex_number(T, 2)
        rows, divs = VGroup(), VGroup()
        for j, v in enumerate(s.steps.masked[qi]):
            ex = tex_number(float(exps[j]), 2, pad=True)
            rows.add(MathTex(f"e^{{{tex_number(float(v), 2, pad=True)}{over}}}", "=", ex, font_size=WORK_FONT))
            div = MathTex(ex, r"\div", total, "=", tex_number(float(s.steps.weights[qi, j]), 2, pad=True),
                          font_size=WORK_FONT)
            div[4].set_color(WEIGHT)
            divs.add(div)
        tot = MathTex(r"\Sigma", "=", total, font_size=WORK_FONT)
        VGroup(*rows, tot).arrange(DOWN, buff=0.2)
        eq_x = rows[0][1].get_x()
        for row in (*rows, tot):
            row.shift(RIGHT * (eq_x - row[1].get_x()))
        rule = Line(LEFT, RIGHT, stroke_width=2, color=palette.MUTED)
        rule.width = VGroup(*rows, tot).width + 0.2
        rule.move_to(VGroup(rows[-1], tot)).set_x(VGroup(*rows, tot).get_x())
        left = VGroup(*rows, tot).get_left()[0]
        for row, div in zip(rows, divs):
            div.move_to(row, coor_mask=np.array([0, 1, 0]))
        eq_x = max(d[3].get_x() - d.get_left()[0] for d in divs) + left
        for div in divs:
            div.shift(RIGHT * (eq_x - div[3].get_x()))
        return _ExpColumn(rows, tot, rule, divs, VGroup(rows, tot, rule, divs), exps)

    def _place_column(self, col: _ExpColumn) -> None:
        """The worked softmax right of the row sums, under the step caption, smaller when it does not fit."""
        s = self.s
        whole = col.whole
        whole.next_to(s.step, DOWN, buff=0.3).align_to([s.region_left, 0, 0], LEFT)
        fit = min((s.right_edge - s.region_left) / whole.width, (whole.get_top()[1] - FLOOR) / whole.height)
        if fit < 1:
            whole.scale(max(fit, least_scale(whole)), about_edge=UP + LEFT)

    def _worked_cell(self, work: qm.WorkedColumn) -> _Worked:
        """The worked cell of ``work`` (q_i . k_j), the same sum over sqrt(d_k)
        (shown under it in the next beat) and the boxes that point at q_i, k_j
        and the cell."""
        s, lang = self.s, self.lang
        qi, best = s.qi, s.best
        # "q of the query · k of the key", each name in its role's colour
        head = VGroup(text(s.names[qi], lang, size=NAME_SIZE, color=palette.Q_GOLD),
                      MathTex(r"\cdot", font_size=WORK_FONT),
                      text(s.names[best], lang, size=NAME_SIZE, color=palette.K_TEAL)).arrange(RIGHT, buff=0.15)
        if head.width > s.right_edge - s.work_left:   # long names: the key's name under the query's
            head[2].next_to(head[:2], DOWN, buff=0.12).align_to(head[0], LEFT)
        term_rows = VGroup()
        for t in work.terms:
            row = MathTex(tex_number(t.x, 2), r"\times", tex_number(t.w, 2, paren_negative=True), "=",
                          tex_number(t.product, 2),
                          font_size=WORK_FONT)
            row[0].set_color(palette.Q_GOLD)
            row[2].set_color(palette.K_TEAL)
            term_rows.add(row)
        total = MathTex(r"\Sigma", "=", tex_number(work.total, 2, pad=True), font_size=WORK_FONT)
        worked = VGroup(head, *term_rows, total).arrange(DOWN, buff=0.2)
        eq_x = term_rows[0][3].get_x()
        for row in (*term_rows, total):
            eq = row[3] if row is not total else row[1]
            row.shift(RIGHT * (eq_x - eq.get_x()))
        head.set_x(VGroup(*term_rows, total).get_x())
        rule = Line(LEFT, RIGHT, stroke_width=2, color=palette.MUTED)
        rule.width = VGroup(*term_rows, total).width + 0.2
        rule.move_to(VGroup(term_rows[-1], total)).set_x(VGroup(*term_rows, total).get_x())
        worked.add(rule)
        scaled_cell = MathTex(tex_number(work.total, 2, pad=True), r"\div", rf"\sqrt{{{s.d}}}", r"\approx",
                              tex_number(float(s.steps.scaled[qi, best]), 2, pad=True), font_size=WORK_FONT)
        q_box = SurroundingRectangle(s.q_rows.rows[qi], color=palette.Q_GOLD, buff=0.06)
        k_box = SurroundingRectangle(s.k_rows.rows[best], color=palette.K_TEAL, buff=0.06)
        cell_box = SurroundingRectangle(s.grid.cell_at(qi, best), color=palette.FOCUS, buff=0.0)
        return _Worked(head, term_rows, total, rule, worked, scaled_cell, q_box, k_box, cell_box)

    def _place_worked(self, w: _Worked) -> None:
        """The worked cell right of the grid under the step caption, the
        scaled one under it; both smaller when they do not fit."""
        s = self.s
        worked, scaled_cell = w.whole, w.scaled
        worked.next_to([0, s.top - 0.1, 0], DOWN, buff=0).align_to([s.work_left, 0, 0], LEFT)
        if worked.get_top()[1] > s.step.get_bottom()[1] - 0.25:
            worked.shift(DOWN * (worked.get_top()[1] - s.step.get_bottom()[1] + 0.25))
        scaled_cell.next_to(worked, DOWN, buff=0.35).align_to(worked, LEFT)
        fit = (s.right_edge - s.work_left) / max(worked.width, scaled_cell.width)
        if fit < 1:   # long numbers: the worked cell shrinks to fit, never below 28 pt (nor the floor)
            both = VGroup(worked, scaled_cell)
            both.scale(max(fit, 28 / WORK_FONT, least_scale(both)), about_edge=UP + LEFT)
        both = VGroup(worked, scaled_cell)
        if both.get_bottom()[1] < FLOOR:   # many dimensions: shorter too, as far as it stays legible
            both.scale(max((both.get_top()[1] - FLOOR) / both.height, 28 / WORK_FONT, least_scale(both)),
                       about_edge=UP + LEFT)

    def _pair(self, c: int, dim: str) -> tuple[VGroup, VectorRows, VGroup, Mobject]:
        """The query's q over the winning key's k, named, their entries of
        dimension ``c`` boxed and the dimension's name under them: (pair, its
        vectors, boxes, name), right of the grid."""
        s, lang = self.s, self.lang
        qi, out_best, region_left, right_edge = s.qi, s.out_best, s.region_left, s.right_edge
        pair_vecs = VectorRows(np.array([s.Q[qi], s.K[out_best]]), [palette.Q_GOLD, palette.K_TEAL], 0.9, font=40)
        pair_names = VGroup(*[text(s.names[who], lang, size=34, color=col)
                              for who, col in ((qi, palette.Q_GOLD), (out_best, palette.K_TEAL))])
        pair_tags = VGroup(*[MathTex(tag, font_size=42, color=col)
                             for tag, col in (("q", palette.Q_GOLD), ("k", palette.K_TEAL))])
        for i in range(2):
            y = pair_vecs.rows[i].get_y()
            pair_names[i].move_to([pair_vecs.get_left()[0] - 0.3, y, 0], aligned_edge=RIGHT)
        for i in range(2):
            pair_tags[i].move_to([pair_names.get_left()[0] - 0.25, pair_vecs.rows[i].get_y(), 0], aligned_edge=RIGHT)
        pair = VGroup(pair_tags, pair_names, pair_vecs)
        shrink_to_fit(pair, width=right_edge - region_left)   # long names, many entries: smaller, still legible
        pair.move_to([(region_left + right_edge) / 2, s.grid.cells.get_y() + 0.6, 0])
        # a short grid: the pair stays under the formula
        pair.shift(DOWN * max(0.0, pair.get_top()[1] - (s.formula.get_bottom()[1] - 0.3)))
        picks = VGroup(*[SurroundingRectangle(pair_vecs.entry(i, c), color=palette.FOCUS, buff=0.1) for i in range(2)])
        dim_label = text(dim, lang, size=32, color=palette.FOCUS)
        shrink_to_fit(dim_label, width=right_edge - region_left)
        dim_label.next_to(picks, DOWN, buff=0.25)
        dim_label.shift(RIGHT * (min(0.0, right_edge - dim_label.get_right()[0])
                                 + max(0.0, region_left - dim_label.get_left()[0])))
        return pair, pair_vecs, picks, dim_label

    def _table(self, Q: np.ndarray, K: np.ndarray, V: np.ndarray, name_right: float, ys: list[float],
               h: float, heads: dict[str, MathTex], stacked: bool) -> tuple[VectorRows, VectorRows, VectorRows]:
        """The q, k and v rows beside the token names (row i centred on ys[i]),
        and their headings placed over them.  Side by side: q, k, v columns;
        stacked: q above k in each row (narrower), v beside them."""
        top = ys[0] + h / 2
        x = name_right + 0.4
        if stacked:
            both = np.empty((2 * len(Q), Q.shape[1]))
            both[0::2], both[1::2] = Q, K
            qk = VectorRows(both, [palette.Q_GOLD, palette.K_TEAL] * len(Q), h / 2, font=28)
            spill = max(0.0, (max(heads["Q"].width, heads["K"].width) - qk.width) / 2)
            qk.move_to([x + spill, float(np.mean(ys)), 0], aligned_edge=LEFT)
            q_rows, k_rows = qk.every(0, 2), qk.every(1, 2)
            heads["K"].next_to(qk, UP, buff=0.15).set_y(top + 0.25)
            heads["Q"].next_to(heads["K"], UP, buff=0.12)
            x = qk.get_right()[0] + spill + 0.45
        else:
            rows = []
            for role, M in (("Q", Q), ("K", K)):
                block = VectorRows(M, palette.QKV[role], h)
                x = self._column_at(block, heads[role], x, ys, top)
                rows.append(block)
            q_rows, k_rows = rows
        v_rows = VectorRows(V, palette.V_CORAL, h)
        self._column_at(v_rows, heads["V"], x, ys, top)
        return q_rows, k_rows, v_rows

    @staticmethod
    def _column_at(block: VectorRows, head: MathTex, x: float, ys: list[float], top: float) -> float:
        """Put ``block`` (its heading centred over it) from ``x`` on, moved right
        when its heading is wider than it; return where the next column starts."""
        spill = max(0.0, (head.width - block.width) / 2)
        block.move_to([x + spill, float(np.mean(ys)), 0], aligned_edge=LEFT)
        head.next_to(block, UP, buff=0.2).set_y(top + 0.32)
        return block.get_right()[0] + spill + 0.45

    @staticmethod
    def _row_at(box: Mobject, rows: VectorRows) -> int:
        """The row of ``rows`` that ``box`` stands on."""
        return int(np.argmin([abs(r.get_y() - box.get_y()) for r in rows.rows]))

    def _cell_at(self, box: Mobject) -> tuple[int, int]:
        """The grid cell (row, column) that ``box`` surrounds."""
        grid = self.s.grid
        k = int(np.argmin([np.linalg.norm(c.get_center() - box.get_center()) for c in grid.cells]))
        return divmod(k, grid.n)

    def _off(self, *mobs: Mobject | None) -> list[FadeOut | Wait]:
        """FadeOut for each of ``mobs`` with something on screen now: one that is gone is not brought back."""
        shown = {id(m) for m in self.get_mobject_family_members()}
        out = [FadeOut(mob) for mob in mobs if mob is not None and any(id(p) in shown for p in mob.get_family())]
        return out or [Wait(0.01)]

    def _shown_count(self, group: VGroup) -> int:
        """How many members of ``group`` are on screen now."""
        shown = {id(m) for m in self.get_mobject_family_members()}
        return sum(id(m) in shown for m in group)

    def _outlined(self, mob: Mobject) -> Mobject:
        """``mob`` with the labels' dark outline that ``add`` gives (a
        transform's target is never added, so it would show without one)."""
        self.add(mob)
        self.remove(mob)
        return mob

    def _mix_layout(self) -> _Output:
        """Right of ``s.region_left``: a row per token (its name, weight \times v),
        the scaled rows in the place of v, and under them a lane per value
        dimension where the scaled vectors' entries lie end to end."""
        p, lang, s = self.params, self.lang, self.s
        left, right, qi, n = s.region_left, s.right_edge, s.qi, s.n
        C = self._shown_products()                        # what each token brings: w_j v_j, as shown
        m = C.shape[1]
        content = s.tags["V"].copy()
        top_y = s.step.get_bottom()[1] - 0.3 - content.height - 0.1   # room for the content box over the values
        head = MathTex(r"\textstyle\sum_j w_j\, v_j", font_size=34, color=palette.V_CORAL)
        fixed = 0.3 + m * BAR_ROW + 0.1          # the lanes under the table, the sign left of them
        gap = float(np.clip((top_y - OUTPUT_BOTTOM - fixed) / n, 0.36, 0.55))
        names = VGroup(*[text(nm, lang, size=NAME_SIZE) for nm in s.names])
        weights = VGroup(*[number_tex(tex_number(float(w), 2, pad=True), font_size=GRID_FONT, color=WEIGHT)
                           for w in s.steps.weights[qi]])
        times = VGroup(*[MathTex(r"\times", font_size=GRID_FONT) for _ in range(n)])
        equals = VGroup(*[MathTex("=", font_size=GRID_FONT) for _ in range(n)])
        values = VectorRows(s.V, palette.V_CORAL, row=gap, font=GRID_FONT)
        scaled = VectorRows(C, palette.V_CORAL, row=gap, font=GRID_FONT)
        name_right = left + max(t.width for t in names)
        w_right = name_right + 0.25 + max(t.width for t in weights)
        for j in range(n):
            y = top_y - gap * (j + 0.5)
            names[j].move_to([name_right, y, 0], aligned_edge=RIGHT)
            weights[j].move_to([w_right, y, 0], aligned_edge=RIGHT)
            times[j].next_to(weights[j], RIGHT, buff=0.12)
        x = times.get_right()[0] + 0.3
        for rows in (values, scaled):
            rows.move_to([x, top_y - gap / 2, 0], aligned_edge=LEFT)
            rows.shift(UP * (top_y - gap / 2 - rows.rows[0].get_y()))
            x = rows.get_right()[0] + 0.7
        for j, eq in enumerate(equals):
            eq.move_to([(values.get_right()[0] + scaled.get_left()[0]) / 2, values.rows[j].get_y(), 0])
        inline = VGroup(names, weights, times, values, equals, scaled).width > right - left
        if inline:   # no room for "= w v" beside "w x v": the scaled rows take the place of the values
            scaled.shift(RIGHT * (values.get_left()[0] - scaled.get_left()[0]))
            equals = VGroup()
        table = VGroup(names, weights, times, values, equals, scaled)
        # long names, many tokens: smaller (never under the floor) so that the lanes stay above the subtitles
        shrink_to_fit(table, width=right - left, height=top_y - OUTPUT_BOTTOM - fixed, about=np.array([left, top_y, 0]))
        # still too wide at the legibility floor (long names, wide products): into the room left of the caption's edge
        table.shift(LEFT * min(max(0.0, table.get_right()[0] - right), max(0.0, left - s.sums.get_right()[0] - 0.15)))
        labels = VGroup(*[text(dm.name(lang), lang, size=24) for dm in p.v_dims])
        lab_right = left + head.width + 0.3 + max(t.width for t in labels)
        ys = [table.get_bottom()[1] - 0.3 - BAR_ROW * (d + 0.5) for d in range(m)]
        head.move_to([left, (ys[0] + ys[-1]) / 2, 0], aligned_edge=LEFT)
        for lab, y in zip(labels, ys):
            lab.move_to([lab_right, y, 0], aligned_edge=RIGHT)
        P = np.vstack([np.zeros(m), np.cumsum(C, axis=0)])   # where each token's bar starts (and the last ends)
        lo, hi = min(0.0, float(P.min())), max(0.0, float(P.max()))
        out = C.sum(axis=0)   # the shown products added: a sum a learner can check (the note says they are rounded)
        totals = VGroup(*[number_tex(tex_number(float(v), 2, pad=True), font_size=28, color=palette.V_CORAL)
                          for v in out])
        unit = min(2.5, (right - lab_right - 0.3 - totals.width / m * 1.2 - 0.2) / max(hi - lo, 1e-9))
        zero_x = lab_right + 0.2 - lo * unit
        axis = Line([zero_x, ys[0] + BAR_ROW * 0.45, 0], [zero_x, ys[-1] - BAR_ROW * 0.45, 0], stroke_width=2,
                    color=palette.MUTED)
        segments: list[list[Rectangle | None]] = []
        for j in range(n):
            row: list[Rectangle | None] = []
            for d in range(m):
                x0, x1 = zero_x + P[j, d] * unit, zero_x + P[j + 1, d] * unit
                if abs(x1 - x0) < 1e-3:
                    row.append(None)
                    continue
                row.append(Rectangle(width=abs(x1 - x0), height=BAR_ROW * 0.62, fill_color=palette.V_CORAL,
                                     fill_opacity=0.95 if j % 2 == 0 else 0.6, stroke_color=palette.BACKGROUND,
                                     stroke_width=1.5).move_to([(x0 + x1) / 2, ys[d], 0]))
            segments.append(row)
        for d, num in enumerate(totals):
            num.move_to([zero_x + max(P[:, d].max(), 0.0) * unit + 0.12, ys[d], 0], aligned_edge=LEFT)
        content.next_to(values, UP, buff=0.1)
        return _Output(names, weights, times, values, equals, scaled, head, labels, axis, segments, totals, unit,
                       inline, content)


def _as_shown(v: float) -> Fraction:
    """``v`` as the frame writes it (2 decimals, half away from zero), exactly."""
    return Fraction(tex_number(float(v), 2))


def _tex(m: Mobject) -> str:
    """The TeX a number or formula shows."""
    return m.get_tex_string() if isinstance(m, NumberTex) else m.tex_string
