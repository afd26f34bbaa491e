"""Scene 8, AttentionMatching: softmax(Q K^T / sqrt(d_k)) V, one piece at a time.

Each token's q and k (rows of Q = X W_Q and K = X W_K, from
``qkv_math.project``) stand beside it; one cell of the score grid is worked
term by term (``qkv_math.worked_product`` of q_i and k_j), then every cell
fills as the dot product of its row's q and its column's k.  The later grids
are values of ``qkv_math.attention_steps`` (scaled scores, the optional
causal mask, weights); the output row of the lesson's query token is the
weighted sum of the value vectors.  Row vectors: Q = X W_Q, one row per token.

    manim -ql scenes/attention_matching.py AttentionMatching
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Circumscribe,
    FadeIn,
    FadeOut,
    Indicate,
    Line,
    MathTex,
    Mobject,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    VGroup,
    Write,
    config,
)

import qkv_math as qm
from qkv_lens.numbers import plain_number, tex_number
from scenes.kit import palette
from scenes.kit.charts import TraitBars
from scenes.kit.glyphs import number_tex
from scenes.kit.grids import GRID_FONT, NAME_SIZE, ScoreGrid, VectorRows, widest_number
from scenes.kit.layout import bounds, overlaps
from scenes.kit.legible import floor_width, least_scale, shrink_to_fit
from scenes.kit.motion import swap
from scenes.kit.scene import LessonScene
from scenes.kit.sections import AttentionParams
from scenes.kit.text import text, title, wrapped_text

FORMULA = (r"\mathrm{softmax}", r"\Big(", r"Q", r"K^{\top}", r"/\sqrt{d_k}", r"\Big)", r"V")
MAX_LINE = 14.0      # stroke width of a line of weight 1
EDGE = 0.4           # free margin at the left and right edges of the frame
GRID_TOP = 2.25      # top of the grid and of the q / k rows
WORK_FONT = 34       # the worked cell
STEP_SIZE = 26       # the step captions under the formula
RESERVE = 3.35      # room right of the grid: the row sums, then the worked cell and captions
BAR_ROW = 0.42       # row pitch of the output bars
OUTPUT_BOTTOM = -2.95   # the output's bars stay above the subtitles
FLOOR = -2.95        # just above the subtitle band (y >= -3.04)


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
class _Output:
    """The output beat's pictures: the query's name, lines by weight to every token, the output as bars."""
    lines: VGroup
    targets: VGroup
    src: Mobject
    bars: TraitBars
    head: MathTex         # \sum_j w_j v_j


@dataclass
class _Stage:
    """What the beats share: the attention steps, the table and grid, and the pictures later beats take down."""
    steps: qm.AttentionSteps
    Q: np.ndarray
    K: np.ndarray
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
    sums: VGroup = field(default_factory=VGroup)    # each row's sum of weights
    sum_head: MathTex | None = None
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
    number = 8
    s: _Stage

    def construct(self):
        self.s = self._stage()
        self._intro()
        self._worked()
        self._scores()
        self._scale()
        if self.params.causal_mask:
            self._mask()
        self._softmax()
        self._output()
        self._outro()

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
        token_labels, q_rows, k_rows, v_rows, grid, top, name_right = self._layout(Q, K, V, steps, names, formula,
                                                                                    heads)
        return _Stage(steps, Q, K, names, qi, best, config.frame_width / 2 - EDGE, heading, formula, heads,
                      token_labels, q_rows, k_rows, v_rows, grid, top, name_right,
                      region_left=grid.cells.get_right()[0] + 0.9,   # clear of the row sums
                      work_left=grid.cells.get_right()[0] + 0.3)     # the worked cell is gone before the sums come

    def _layout(self, Q: np.ndarray, K: np.ndarray, V: np.ndarray, steps: qm.AttentionSteps, names: list[str],
                formula: MathTex, heads: dict[str, MathTex]):
        """The table (token | q | k | v, one row per token) and the score grid
        in place of its v column, under the formula and above the subtitles:
        (token names, q, k and v rows, grid, the grid's top, the names' right edge)."""
        lang, n = self.lang, len(names)
        left_edge, right_edge = -config.frame_width / 2 + EDGE, config.frame_width / 2 - EDGE
        need_w = max(0.8, widest_number(steps.scores, steps.scaled, steps.masked, steps.weights) + 0.15)
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
        s = self.s
        width = s.right_edge - s.region_left
        parts = [wrapped_text(self.tr(key, **fields), self.lang, size=STEP_SIZE, width=width, color=palette.AREA)]
        if formula_tex is not None:
            parts.append(MathTex(formula_tex, font_size=32, color=palette.AREA))
        new = VGroup(*parts).arrange(DOWN, aligned_edge=RIGHT, buff=0.15)
        new.next_to(s.formula, DOWN, buff=0.3).align_to(s.formula, RIGHT)
        s.step = swap(self, s.step, new, run_time=0.4)

    def _highlight(self, *parts: int) -> None:
        """A box around ``parts`` of the formula: the new ``s.box``."""
        s = self.s
        s.box = SurroundingRectangle(VGroup(*[s.formula[i] for i in parts]), color=palette.AREA, buff=0.06)
        self.play(FadeIn(s.box), run_time=0.3)

    def _show(self, M: np.ndarray) -> None:
        """The grid's numbers become those of ``M``."""
        grid = self.s.grid
        old = grid.numbers
        new = self._outlined(grid.make_numbers(M))
        self.play(ReplacementTransform(old, new), run_time=0.9)

    # --- the beats -----------------------------------------------------------
    def _intro(self) -> None:
        """Every token with its q, k and v."""
        s = self.s
        with self.beat("intro_say"):
            self.play(Write(s.heading), FadeIn(s.formula), run_time=1.0)
            self.play(FadeIn(s.token_labels, lag_ratio=0.2), run_time=0.8)
            for role, rows in (("Q", s.q_rows), ("K", s.k_rows), ("V", s.v_rows)):
                self.play(FadeIn(s.heads[role]), FadeIn(rows, lag_ratio=0.15), run_time=1.2)
        self.key_moment("vectors", q=s.q_rows.shown(), k=s.k_rows.shown(), v=s.v_rows.shown(),
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
            self.play(FadeOut(s.v_rows), FadeOut(s.heads["V"]), run_time=0.5)
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
        self.key_moment("worked", cell=(qi, best),
                        terms=[[r[k].tex_string for k in (0, 2, 4)] for r in w.terms],
                        total=w.total[2].tex_string, in_cell=worked_cell.get_tex_string(),
                        filled=self._shown_count(nums))

    def _scores(self) -> None:
        """Every other cell: the row's q with the column's k."""
        s, w, n = self.s, self.s.work, self.s.n
        nums = s.grid.numbers
        with self.beat("scores_say"):
            self._highlight(2, 3)
            rest = [(i, j) for i in range(n) for j in range(n) if (i, j) != (s.qi, s.best)]
            each = min(0.35, max(0.12, 4.5 / max(len(rest), 1)))
            self.play(FadeOut(w.cell_box), run_time=0.2)
            for i, j in rest:
                self.play(w.q_box.animate.move_to(s.q_rows.rows[i]), w.k_box.animate.move_to(s.k_rows.rows[j]),
                          FadeIn(nums[i * n + j]), run_time=each)
            self.remove(*nums)
            self.add(nums)
            self.play(Circumscribe(s.grid.cell_at(s.qi, s.best), color=palette.AREA), run_time=0.8)
        self.key_moment("scores", shown=s.grid.shown(), values=s.grid.values.copy(),
                        q=s.q_rows.shown(), k=s.k_rows.shown())

    def _scale(self) -> None:
        """Every score over sqrt(d_k), the worked one under its sum."""
        s, w, d = self.s, self.s.work, self.s.d
        root = plain_number(math.sqrt(d), 2, pad=True)
        with self.beat("scale_say", d=d, root=root):
            self.play(FadeOut(s.box), FadeOut(w.q_box), FadeOut(w.k_box), run_time=0.2)
            rel = "=" if math.isqrt(d) ** 2 == d else r"\approx"   # sqrt(4) is 2 exactly
            self._set_step("scale", rf"\div\sqrt{{d_k}} = \sqrt{{{d}}} {rel} {tex_number(math.sqrt(d), 2, pad=True)}")
            self._highlight(4)
            self.play(TransformFromCopy(w.total[2], w.scaled[0]), run_time=0.6)
            self.play(FadeIn(w.scaled[1:]), run_time=0.6)
            self._show(s.steps.scaled)
            self.play(Indicate(s.grid.numbers[s.qi * s.n + s.best], color=palette.AREA), run_time=0.6)
        self.key_moment("scaled", shown=s.grid.shown(), values=s.grid.values.copy(),
                        scale=s.step[-1].get_tex_string(), worked=w.scaled.get_tex_string())

    def _mask(self) -> None:
        """The causal mask: no token looks at a later one."""
        s, w = self.s, self.s.work
        with self.beat("mask_say"):
            self.play(FadeOut(s.box), FadeOut(w.whole), FadeOut(w.scaled), run_time=0.3)
            self._set_step("mask")
            self._highlight(4)
            self._show(s.steps.masked)
        self.key_moment("masked", shown=s.grid.shown(), values=s.grid.values.copy())

    def _softmax(self) -> None:
        """Each row's softmax: the weights shade their cells, each row sums to 1."""
        s, w, n, grid = self.s, self.s.work, self.s.n, self.s.grid
        T = float(self.params.temperature)
        sums = s.sums
        sum_head = s.sum_head = MathTex(r"\Sigma", font_size=32, color=palette.MUTED)
        sum_head.next_to(grid.cells[n - 1], RIGHT, buff=0.3).match_y(grid.col_labels[-1])
        sum_head.set_y(s.top + 0.3)
        with self.beat("softmax_say", focus=sums):
            self.play(FadeOut(s.box), FadeOut(w.whole), FadeOut(w.scaled), run_time=0.3)
            self._set_step("softmax" if T == 1 else "softmax_t", t=plain_number(T, 2, pad=True))
            self._highlight(0, 1, 5)
            self._show(s.steps.weights)
            shades = [grid.cell_at(i, j).animate.set_fill(palette.Q_GOLD, opacity=0.6 * s.steps.weights[i, j])
                      for i in range(n) for j in range(n)]
            for i in range(n):
                num = number_tex(tex_number(float(s.steps.weights[i].sum()), 2, pad=True), font_size=GRID_FONT,
                                 color=palette.MUTED)
                sums.add(num.next_to(grid.cell_at(i, n - 1), RIGHT, buff=0.2))
            sum_head.set_x(sums.get_x())
            if any(overlaps(bounds(sum_head), bounds(lab)) for lab in grid.col_labels):
                # the key names reach over the sums: the sign goes under them
                sum_head.next_to(sums, DOWN, buff=0.2)
            self.play(*shades, FadeIn(sums), FadeIn(sum_head), run_time=1.2)
        self.key_moment("weights", shown=grid.shown(), values=grid.values.copy(),
                        sums=[m.get_tex_string() for m in sums])

    def _output(self) -> None:
        """The query's row: lines by weight, and the weighted sum of values.
        q and k are done: the grid moves left, the right side shows the output."""
        s, grid, qi = self.s, self.s.grid, self.s.qi
        table = VGroup(s.q_rows, s.k_rows, s.heads["Q"], s.heads["K"])
        moving = VGroup(grid, grid.numbers, s.sums, s.sum_head)
        shift = LEFT * (grid.cells.get_left()[0] - (s.name_right + 0.45))
        with self.beat("output_say", word=s.names[qi]):
            self.play(FadeOut(s.box), FadeOut(table), run_time=0.4)
            self.play(moving.animate.shift(shift), run_time=0.8)
            s.region_left = s.sums.get_right()[0] + 0.5
            self._set_step("output", word=s.names[qi])
            self._highlight(6)
            row_box = SurroundingRectangle(VGroup(*[grid.cell_at(qi, j) for j in range(s.n)]),
                                           color=palette.Q_GOLD, buff=0.04)
            self.play(FadeIn(row_box), run_time=0.4)
            out = s.out = self._output_row()
            self.play(FadeIn(out.src), FadeIn(out.targets), run_time=0.5)
            self.play(*[FadeIn(line) for line in out.lines], run_time=1.0)
            self.play(FadeIn(out.head), FadeIn(out.bars.labels), FadeIn(out.bars.axis), run_time=0.5)
            self.play(*out.bars.grow(), run_time=1.0)
            self.play(Indicate(out.targets[s.best], color=palette.AREA), run_time=0.8)
        self.key_moment("output", shown=grid.shown(),
                        line_weights=[line.get_stroke_width() / MAX_LINE for line in out.lines],
                        output=out.bars.shown_values(), best=s.names[s.out_best])

    def _outro(self) -> None:
        """Why: the dimension on which the query and the winning key agree most."""
        s, out = self.s, self.s.out
        c = int(np.argmax(s.Q[s.qi] * s.K[s.out_best]))
        dim = self.params.qk_dims[c].name(self.lang)
        pair, pair_vecs, picks, dim_label = self._pair(c, dim)
        with self.beat("outro_say", focus=VGroup(picks, dim_label), word=s.names[s.qi], best=s.names[s.out_best],
                       dim=dim):
            self.play(FadeOut(s.box), FadeOut(out.lines), FadeOut(out.src), FadeOut(out.targets), FadeOut(out.bars),
                      FadeOut(out.head), FadeOut(s.step), run_time=0.5)
            self.play(FadeIn(pair), run_time=0.6)
            self.play(FadeIn(picks), FadeIn(dim_label), run_time=0.6)
            self.play(Circumscribe(s.grid.cell_at(s.qi, s.out_best), color=palette.AREA), run_time=0.8)
        self.key_moment("end", dim=dim, picked=[pair_vecs.entry(i, c).get_tex_string() for i in range(2)])

    # --- pictures the beats show ---------------------------------------------
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
        cell_box = SurroundingRectangle(s.grid.cell_at(qi, best), color=palette.AREA, buff=0.0)
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
        picks = VGroup(*[SurroundingRectangle(pair_vecs.entry(i, c), color=palette.AREA, buff=0.1) for i in range(2)])
        dim_label = text(dim, lang, size=32, color=palette.AREA)
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

    def _output_row(self) -> _Output:
        """The query's name, lines to every token as thick as its weight, and
        the output as bars: what the output beat shows, right of ``s.region_left``."""
        p, lang, s = self.params, self.lang, self.s
        steps, names, qi, left, right = s.steps, s.names, s.qi, s.region_left, s.right_edge
        n = len(names)
        top_y = s.step.get_bottom()[1] - 0.35
        # the names, the heading and the bars share the height down to the subtitles
        out_head = MathTex(r"\textstyle\sum_j w_j\, v_j", font_size=34, color=palette.V_CORAL)
        fixed = 0.2 + 0.25 + out_head.height + 0.15 + (len(p.v_dims) - 1) * BAR_ROW + 0.35
        gap = float(np.clip((top_y - OUTPUT_BOTTOM - fixed) / max(n - 1, 1), 0.36, 0.5))
        src = text(names[qi], lang, size=30, color=palette.Q_GOLD)
        targets = VGroup(*[text(nm, lang, size=NAME_SIZE, color=palette.K_TEAL) for nm in names])
        for j, t in enumerate(targets):
            t.move_to([right, top_y - gap * j, 0], aligned_edge=RIGHT)
        src.move_to([left, top_y - gap * (n - 1) / 2, 0], aligned_edge=LEFT)
        room = right - left - 0.8      # the query's name and the tokens' names, with room for the lines
        if src.width + targets.width > room:   # long names: both shrink alike (never under the floor)
            factor = max(room / (src.width + targets.width), least_scale(src), least_scale(targets))
            src.scale(factor, about_edge=LEFT)
            for t in targets:
                t.scale(factor, about_edge=RIGHT)
        lines = VGroup(*[Line(src.get_right() + RIGHT * 0.15, t.get_left() + LEFT * 0.15,
                              color=palette.V_CORAL,
                              stroke_width=max(0.5, MAX_LINE * float(steps.weights[qi, j])))
                         for j, t in enumerate(targets)])
        out = steps.output[qi]
        v_dims = [dm.name(lang) for dm in p.v_dims]
        probe = TraitBars(v_dims, out, lang, palette.V_CORAL, unit=1.0, row=BAR_ROW, size=24)
        spare = right - left - probe.labels.width - 0.3 - 0.8   # room for the bars and their numbers
        unit = min(1.2, spare / max(float(np.ptp(np.append(out, 0.0))), 1e-9))
        bars = TraitBars(v_dims, out, lang, palette.V_CORAL, unit=unit, row=BAR_ROW, size=24)
        over = left - bars.labels.get_left()[0] + bars.get_right()[0] - right
        if over > 0:   # the numbers reach past the edge: shorter bars (a negative bar's number stands
            span = float(max(0.0, -out.min()) + np.abs(out).max())   # right of the zero line, as far out)
            unit = max(unit - over / max(span, 1e-9), 1e-3)
            bars = TraitBars(v_dims, out, lang, palette.V_CORAL, unit=unit, row=BAR_ROW, size=24)
        out_head.next_to(VGroup(src, targets), DOWN, buff=0.25).align_to([left, 0, 0], LEFT)
        bars.next_to(out_head, DOWN, buff=0.15)
        bars.shift(RIGHT * (left - bars.labels.get_left()[0]))
        return _Output(lines, targets, src, bars, out_head)
