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


class AttentionMatching(LessonScene):
    params: AttentionParams
    chapter = 2
    number = 8
    def construct(self):
        p, lang = self.params, self.lang
        Q, K, V = qm.project(*p.arrays())
        n, d = Q.shape
        mask = qm.causal_mask(n) if p.causal_mask else None
        T = float(p.temperature)
        steps = qm.attention_steps(Q, K, V, mask=mask, temperature=T)
        names = [t.name(lang) for t in p.tokens]
        qi = p.query
        best = int(np.argmax(steps.masked[qi]))   # the best score the query may look at
        left_edge, right_edge = -config.frame_width / 2 + EDGE, config.frame_width / 2 - EDGE

        heading = title(self.tr("title"), lang)
        formula = MathTex(*FORMULA, font_size=40).to_corner(UR, buff=0.4)
        for part, role in ((2, "Q"), (3, "K"), (6, "V")):
            formula[part].set_color(palette.QKV[role])

        # --- the table: token | q | k (| v), one row per token -------------
        heads = {role: MathTex(f"{role.lower()} = x\\,W_{role}", font_size=32, color=palette.QKV[role])
                 for role in ("Q", "K", "V")}
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

        # the region right of the grid: captions, the worked cell, the output
        region_left = grid.cells.get_right()[0] + 0.9   # clear of the row sums
        work_left = grid.cells.get_right()[0] + 0.3     # the worked cell is gone before the sums come
        self.step_label: Mobject = VGroup()

        def set_step(key, formula_tex=None, **fields):
            width = right_edge - region_left
            parts = [wrapped_text(self.tr(key, **fields), lang, size=STEP_SIZE, width=width, color=palette.AREA)]
            if formula_tex is not None:
                parts.append(MathTex(formula_tex, font_size=32, color=palette.AREA))
            new = VGroup(*parts).arrange(DOWN, aligned_edge=RIGHT, buff=0.15)
            new.next_to(formula, DOWN, buff=0.3).align_to(formula, RIGHT)
            self.play(FadeOut(self.step_label), FadeIn(new), run_time=0.4)
            self.step_label = new

        def highlight(*parts):
            box = SurroundingRectangle(VGroup(*[formula[i] for i in parts]), color=palette.AREA, buff=0.06)
            self.play(FadeIn(box), run_time=0.3)
            return box

        def show(M):
            old = grid.numbers
            new = self._outlined(grid.make_numbers(M))
            self.play(ReplacementTransform(old, new), run_time=0.9)

        # --- intro: every token with its q, k and v --------------------------
        with self.beat("intro_say"):
            self.play(Write(heading), FadeIn(formula), run_time=1.0)
            self.play(FadeIn(token_labels, lag_ratio=0.2), run_time=0.8)
            for role, rows in (("Q", q_rows), ("K", k_rows), ("V", v_rows)):
                self.play(FadeIn(heads[role]), FadeIn(rows, lag_ratio=0.15), run_time=1.2)
        self.key_moment("vectors", q=q_rows.shown(), k=k_rows.shown(), v=v_rows.shown(),
                        grid_shown=self._shown_count(grid.cells))

        # --- one cell worked term by term ------------------------------------
        work = qm.worked_product(Q[qi], K[best][:, None]).columns[0]
        nums = grid.make_numbers(steps.scores)
        worked_cell = nums[qi * n + best]
        # "q of the query · k of the key", each name in its role's colour
        head = VGroup(text(names[qi], lang, size=NAME_SIZE, color=palette.Q_GOLD),
                      MathTex(r"\cdot", font_size=WORK_FONT),
                      text(names[best], lang, size=NAME_SIZE, color=palette.K_TEAL)).arrange(RIGHT, buff=0.15)
        if head.width > right_edge - work_left:   # long names: the key's name under the query's
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
        worked_top = top - 0.1
        # the same cell divided by sqrt(d_k), shown under it in the next beat
        scaled_cell = MathTex(tex_number(work.total, 2, pad=True), r"\div", rf"\sqrt{{{d}}}", r"\approx",
                              tex_number(float(steps.scaled[qi, best]), 2, pad=True), font_size=WORK_FONT)

        q_box = SurroundingRectangle(q_rows.rows[qi], color=palette.Q_GOLD, buff=0.06)
        k_box = SurroundingRectangle(k_rows.rows[best], color=palette.K_TEAL, buff=0.06)
        cell_box = SurroundingRectangle(grid.cell_at(qi, best), color=palette.AREA, buff=0.0)
        with self.beat("worked_say", word=names[qi], other=names[best], d=d,
                       score=plain_number(work.total, 2, pad=True)):
            self.play(FadeOut(v_rows), FadeOut(heads["V"]), run_time=0.5)
            set_step("scores", r"Q\,K^{\top}")
            worked.next_to([0, worked_top, 0], DOWN, buff=0).align_to([work_left, 0, 0], LEFT)
            if worked.get_top()[1] > self.step_label.get_bottom()[1] - 0.25:
                worked.shift(DOWN * (worked.get_top()[1] - self.step_label.get_bottom()[1] + 0.25))
            scaled_cell.next_to(worked, DOWN, buff=0.35).align_to(worked, LEFT)
            fit = (right_edge - work_left) / max(worked.width, scaled_cell.width)
            if fit < 1:   # long numbers: the worked cell shrinks to fit, never below 28 pt (nor the floor)
                both = VGroup(worked, scaled_cell)
                both.scale(max(fit, 28 / WORK_FONT, least_scale(both)), about_edge=UP + LEFT)
            both = VGroup(worked, scaled_cell)
            if both.get_bottom()[1] < FLOOR:   # many dimensions: shorter too, as far as it stays legible
                both.scale(max((both.get_top()[1] - FLOOR) / both.height, 28 / WORK_FONT, least_scale(both)),
                           about_edge=UP + LEFT)
            self.play(FadeIn(q_box), FadeIn(k_box), FadeIn(head), run_time=0.6)
            for c, row in enumerate(term_rows):
                self.play(TransformFromCopy(q_rows.entry(qi, c), row[0]),
                          TransformFromCopy(k_rows.entry(best, c), row[2]), FadeIn(row[1]), run_time=0.7)
                self.play(FadeIn(row[3]), Write(row[4]), run_time=0.5)
            self.play(FadeIn(rule), FadeIn(total[:2]), run_time=0.3)
            flying = [row[4].copy() for row in term_rows]   # every product slides into the sum
            self.play(*[Transform(f, total[2].copy()) for f in flying], run_time=0.8)
            self.remove(*flying)
            self.add(total[2])
            # the grid appears with its first number: the sum lands in its cell
            self.play(FadeIn(grid), FadeIn(cell_box), run_time=0.6)
            self.play(TransformFromCopy(total[2], worked_cell), run_time=0.8)
        self.key_moment("worked", cell=(qi, best),
                        terms=[[r[k].tex_string for k in (0, 2, 4)] for r in term_rows],
                        total=total[2].tex_string, in_cell=worked_cell.get_tex_string(),
                        filled=self._shown_count(nums))

        # --- every other cell: the row's q with the column's k ---------------
        box = None
        with self.beat("scores_say"):
            box = highlight(2, 3)
            rest = [(i, j) for i in range(n) for j in range(n) if (i, j) != (qi, best)]
            each = min(0.35, max(0.12, 4.5 / max(len(rest), 1)))
            self.play(FadeOut(cell_box), run_time=0.2)
            for i, j in rest:
                self.play(q_box.animate.move_to(q_rows.rows[i]), k_box.animate.move_to(k_rows.rows[j]),
                          FadeIn(nums[i * n + j]), run_time=each)
            self.remove(*nums)
            self.add(nums)
            self.play(Circumscribe(grid.cell_at(qi, best), color=palette.AREA), run_time=0.8)
        self.key_moment("scores", shown=grid.shown(), values=grid.values.copy(),
                        q=q_rows.shown(), k=k_rows.shown())

        root = plain_number(math.sqrt(d), 2, pad=True)
        with self.beat("scale_say", d=d, root=root):
            self.play(FadeOut(box), FadeOut(q_box), FadeOut(k_box), run_time=0.2)
            rel = "=" if math.isqrt(d) ** 2 == d else r"\approx"   # sqrt(4) is 2 exactly
            set_step("scale", rf"\div\sqrt{{d_k}} = \sqrt{{{d}}} {rel} {tex_number(math.sqrt(d), 2, pad=True)}")
            box = highlight(4)
            self.play(TransformFromCopy(total[2], scaled_cell[0]), run_time=0.6)
            self.play(FadeIn(scaled_cell[1:]), run_time=0.6)
            show(steps.scaled)
            self.play(Indicate(grid.numbers[qi * n + best], color=palette.AREA), run_time=0.6)
        self.key_moment("scaled", shown=grid.shown(), values=grid.values.copy(),
                        scale=self.step_label[-1].get_tex_string(), worked=scaled_cell.get_tex_string())

        if mask is not None:
            with self.beat("mask_say"):
                self.play(FadeOut(box), FadeOut(worked), FadeOut(scaled_cell), run_time=0.3)
                set_step("mask")
                box = highlight(4)
                show(steps.masked)
            self.key_moment("masked", shown=grid.shown(), values=grid.values.copy())

        sums = VGroup()
        sum_head = MathTex(r"\Sigma", font_size=32, color=palette.MUTED)
        sum_head.next_to(grid.cells[n - 1], RIGHT, buff=0.3).match_y(grid.col_labels[-1])
        sum_head.set_y(top + 0.3)
        with self.beat("softmax_say", focus=sums):
            self.play(FadeOut(box), FadeOut(worked), FadeOut(scaled_cell), run_time=0.3)
            set_step("softmax" if T == 1 else "softmax_t", t=plain_number(T, 2, pad=True))
            box = highlight(0, 1, 5)
            show(steps.weights)
            shades = [grid.cell_at(i, j).animate.set_fill(palette.Q_GOLD, opacity=0.6 * steps.weights[i, j])
                      for i in range(n) for j in range(n)]
            for i in range(n):
                s = number_tex(tex_number(float(steps.weights[i].sum()), 2, pad=True), font_size=GRID_FONT,
                            color=palette.MUTED)
                sums.add(s.next_to(grid.cell_at(i, n - 1), RIGHT, buff=0.2))
            sum_head.set_x(sums.get_x())
            if any(overlaps(bounds(sum_head), bounds(lab)) for lab in grid.col_labels):
                # the key names reach over the sums: the sign goes under them
                sum_head.next_to(sums, DOWN, buff=0.2)
            self.play(*shades, FadeIn(sums), FadeIn(sum_head), run_time=1.2)
        self.key_moment("weights", shown=grid.shown(), values=grid.values.copy(),
                        sums=[s.get_tex_string() for s in sums])

        # --- the query's row: lines by weight, and the weighted sum of values -
        # q and k are done: the grid moves left, the right side shows the output
        table = VGroup(q_rows, k_rows, heads["Q"], heads["K"])
        moving = VGroup(grid, grid.numbers, sums, sum_head)
        shift = LEFT * (grid.cells.get_left()[0] - (name_right + 0.45))
        with self.beat("output_say", word=names[qi]):
            self.play(FadeOut(box), FadeOut(table), run_time=0.4)
            self.play(moving.animate.shift(shift), run_time=0.8)
            region_left = sums.get_right()[0] + 0.5
            set_step("output", word=names[qi])
            box = highlight(6)
            row_box = SurroundingRectangle(VGroup(*[grid.cell_at(qi, j) for j in range(n)]),
                                           color=palette.Q_GOLD, buff=0.04)
            self.play(FadeIn(row_box), run_time=0.4)
            lines, targets, src, bars, out_head = self._output_row(steps, names, region_left, right_edge)
            self.play(FadeIn(src), FadeIn(targets), run_time=0.5)
            self.play(*[FadeIn(line) for line in lines], run_time=1.0)
            self.play(FadeIn(out_head), FadeIn(bars.labels), FadeIn(bars.axis), run_time=0.5)
            self.play(*bars.grow(), run_time=1.0)
            self.play(Indicate(targets[best], color=palette.AREA), run_time=0.8)
        out_best = int(np.argmax(steps.weights[qi]))
        self.key_moment("output", shown=grid.shown(),
                        line_weights=[line.get_stroke_width() / MAX_LINE for line in lines],
                        output=bars.shown_values(), best=names[out_best])

        # --- why: the dimension on which the query and the winning key agree most
        c = int(np.argmax(Q[qi] * K[out_best]))
        dim = p.qk_dims[c].name(lang)
        pair_vecs = VectorRows(np.array([Q[qi], K[out_best]]), [palette.Q_GOLD, palette.K_TEAL], 0.9, font=40)
        pair_names = VGroup(*[text(names[who], lang, size=34, color=col)
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
        pair.move_to([(region_left + right_edge) / 2, grid.cells.get_y() + 0.6, 0])
        # a short grid: the pair stays under the formula
        pair.shift(DOWN * max(0.0, pair.get_top()[1] - (formula.get_bottom()[1] - 0.3)))
        picks = VGroup(*[SurroundingRectangle(pair_vecs.entry(i, c), color=palette.AREA, buff=0.1) for i in range(2)])
        dim_label = text(dim, lang, size=32, color=palette.AREA)
        shrink_to_fit(dim_label, width=right_edge - region_left)
        dim_label.next_to(picks, DOWN, buff=0.25)
        dim_label.shift(RIGHT * (min(0.0, right_edge - dim_label.get_right()[0])
                                 + max(0.0, region_left - dim_label.get_left()[0])))
        with self.beat("outro_say", focus=VGroup(picks, dim_label), word=names[qi], best=names[out_best],
                       dim=dim):
            self.play(FadeOut(box), FadeOut(lines), FadeOut(src), FadeOut(targets), FadeOut(bars),
                      FadeOut(out_head), FadeOut(self.step_label), run_time=0.5)
            self.play(FadeIn(pair), run_time=0.6)
            self.play(FadeIn(picks), FadeIn(dim_label), run_time=0.6)
            self.play(Circumscribe(grid.cell_at(qi, out_best), color=palette.AREA), run_time=0.8)
        self.key_moment("end", dim=dim, picked=[pair_vecs.entry(i, c).get_tex_string() for i in range(2)])

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

    def _output_row(self, steps: qm.AttentionSteps, names: list[str], left: float, right: float):
        """The query's name, lines to every token as thick as its weight, and
        the output as bars: what the output beat shows, right of ``left``."""
        p, lang, qi = self.params, self.lang, self.params.query
        n = len(names)
        top_y = self.step_label.get_bottom()[1] - 0.35
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
        return lines, targets, src, bars, out_head
