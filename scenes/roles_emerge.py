"""Scene 10, RolesEmerge: W_Q, W_K, W_V start random and learn their roles.

Plays the snapshots of a real training run (``qkv_math.train_matching``,
cached by ``qkv_lens.runs``) on one held-out party: the attention grid,
the referee's flags on wrong matches, what each person's query asks for, key
says and value brings (``qkv_math.readouts``), the loss curve and the
held-out accuracy.  Row vectors: Q = X W_Q, one row per person.

    manim -ql scenes/roles_emerge.py RolesEmerge
"""
from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Axes,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    Indicate,
    MathTex,
    SurroundingRectangle,
    UpdateFromAlphaFunc,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
)

import qkv_math as qm
from qkv_lens.numbers import percent, sci, sci_text, tex_number
from qkv_lens.runs import training_runs
from scenes.kit import palette
from scenes.kit.charts import NumberGrid
from scenes.kit.glyphs import number_tex
from scenes.kit.legible import legible
from scenes.kit.motion import Slots, crossfade
from scenes.kit.scene import LessonScene
from scenes.kit.sections import TrainingParams
from scenes.kit.text import text, title

READOUTS = tuple(zip(("asks", "says", "brings"), palette.QKV.values()))   # what Q asks, K says, V brings
RIGHT_MARK = palette.BASIS_I    # green: a right match
WRONG_READ = palette.MUTED      # a read-out that does not (yet) name the right profession
FLOOR = -2.95                   # the lowest edge of any label: just above the subtitle band (y >= -3.04)
EDGE = 6.85                     # the table runs from -EDGE to EDGE
HEAD_SIZE = 24                  # the table's column heads
NAME_SIZE = 22                  # professions in the table
TICK_SIZE = 28                  # the loss axes' numbers
WEIGHT_FILL = palette.COLUMNS[3]   # attention weights shade their cells (not Q, K or V: no role colour)


class LossAxes(Axes):
    """log10(loss) against log10(step + 1), the x axis along the bottom
    (the y coordinate is counted from the lowest decade shown, ``lo``)."""

    def __init__(self, losses: np.ndarray, steps: int, lang: str, tr, width: float = 5.6,
                 height: float = 1.6):
        logs = np.log10(np.maximum(losses, 1e-12))
        self.lo, hi = int(np.floor(logs.min())), int(np.ceil(logs.max()))
        hi = max(hi, self.lo + 1)
        x_max = float(np.log10(steps + 1))
        super().__init__(x_range=[0, x_max, x_max], y_range=[0, hi - self.lo, 1], x_length=width,
                         y_length=height, tips=False, axis_config={"color": palette.MUTED, "stroke_width": 2})
        ticks = VGroup()
        # three decades named at most (the lowest, the highest and one between), and the
        # steps 1, 10, 100, ... (every other power once there are more than four)
        decades = range(self.lo, hi + 1, max(1, -(-(hi - self.lo) // 2)))
        for k in decades:
            ticks.add(MathTex(f"10^{{{k}}}", font_size=TICK_SIZE, color=palette.MUTED)
                      .next_to(self.c2p(0, k - self.lo), LEFT, buff=0.12))
        powers = [10 ** e for e in range(int(np.log10(max(steps, 1))) + 1)]
        for s in powers[::2 if len(powers) > 4 else 1]:
            ticks.add(MathTex(str(s), font_size=TICK_SIZE, color=palette.MUTED)
                      .next_to(self.c2p(np.log10(s + 1), 0), DOWN, buff=0.12))
        x_label = text(tr("steps_axis"), lang, size=HEAD_SIZE, color=palette.MUTED)
        x_label.next_to(self.x_axis, RIGHT, buff=0.15)
        y_label = text(tr("loss_axis"), lang, size=HEAD_SIZE, color=palette.MUTED)
        # in the top right corner, where a falling curve never is
        y_label.move_to(self.c2p(x_max, hi - self.lo), aligned_edge=UR)
        self.add(ticks, x_label, y_label)

    def point(self, step: int, loss: float) -> np.ndarray:
        return self.c2p(np.log10(step + 1), np.log10(max(loss, 1e-12)) - self.lo)

    def value(self, point) -> list[float]:
        """(log10(step + 1), log10(loss)) of a point on screen."""
        x, y = self.p2c(point)
        return [float(x), float(y + self.lo)]


class RolesEmerge(LessonScene):
    params: TrainingParams
    chapter = 2
    number = 10
    def construct(self):
        p, lang = self.params, self.lang
        run = training_runs(p)["standard"]
        X, match = run.display_party
        n, n_jobs = X.shape[0], len(p.jobs)
        profile, wish = X[:, :n_jobs].argmax(1), X[:, n_jobs:].argmax(1)
        job = [j.name(lang) for j in p.jobs]
        names = [job[k] for k in profile]

        heading = title(self.tr("title"), lang)

        # --- the table: who | wants | attention grid | Q asks | K says | V brings, laid out
        # from the widths of its words, every label at a readable size
        cell = min(0.66, 2.7 / n)
        size = 24 if n <= 4 else 20
        number_size = 28 if n <= 4 else 26

        def width(content: str, size: float) -> float:
            return legible(text(content, lang, size=size)).width

        who_w = max([width(nm, size) for nm in job] + [width(self.tr("who"), HEAD_SIZE)])
        wants_w = max(width(nm, NAME_SIZE) for nm in [*job, self.tr("wants")])
        names_w = max(width(nm, NAME_SIZE) for nm in job)
        read_w = [max(names_w, width(self.tr(f"{key}_head"), HEAD_SIZE)) for key, _ in READOUTS]
        col_x, right = [], EDGE
        for w in reversed(read_w):      # the read-out columns from the right edge, each as wide as it needs
            col_x.insert(0, right - w / 2)
            right -= w + 0.3
        wants_x = -EDGE + who_w + 0.3 + wants_w / 2
        grid_left, grid_right = wants_x + wants_w / 2 + 0.35, right - 0.05
        # columns as wide as the names over them (two levels of names when narrower), at least as wide
        # as the grid's numbers and, together, as its heading; as the room allows
        least = max(number_tex("0.00", font_size=number_size).width / 0.9, width(self.tr("keys"), HEAD_SIZE) / n)
        cell_w = float(np.clip(max(who_w / 0.92, least), cell, (grid_right - grid_left) / n))
        grid = NumberGrid(names, names, lang, cell=cell, size=size, cell_width=cell_w, number_size=number_size)
        grid.move_to([(grid_left + grid_right) / 2, 0, 0]).align_to([0, 2.65, 0], UP)
        grid.shift(DOWN * grid.col_labels.height)
        # the grid stays clear of the read-outs' names (which are centred in their columns)
        grid.shift(LEFT * max(0.0, grid.cells.get_right()[0] - (col_x[0] - names_w / 2 - 0.15)))
        wants = VGroup(*[legible(text(job[wish[i]], lang, size=NAME_SIZE, color=palette.MUTED)) for i in range(n)])
        for i, w in enumerate(wants):
            w.move_to([wants_x, grid.cell_at(i, 0).get_y(), 0])
            grid.row_labels[i].shift(RIGHT * (-EDGE + who_w - grid.row_labels[i].get_right()[0]))
        head_y = grid.col_labels.get_top()[1] + 0.3
        wants_head = text(self.tr("wants"), lang, size=HEAD_SIZE, color=palette.MUTED).move_to([wants_x, head_y, 0])
        who_head = text(self.tr("who"), lang, size=HEAD_SIZE, color=palette.Q_GOLD)
        who_head.move_to([0, head_y, 0]).align_to(grid.row_labels, RIGHT)
        keys_head = text(self.tr("keys"), lang, size=HEAD_SIZE, color=palette.K_TEAL).move_to(
            [grid.cells.get_center()[0], head_y, 0])
        read_heads = VGroup(*[text(self.tr(f"{key}_head"), lang, size=HEAD_SIZE, color=color).move_to([x, head_y, 0])
                              for (key, color), x in zip(READOUTS, col_x)])
        table = VGroup(grid, wants, wants_head, who_head, keys_head, read_heads)
        table.shift(UP * (heading.get_bottom()[1] - 0.25 - table.get_top()[1]))   # just under the title

        # --- the loss curve and the read-out of the run
        ax = LossAxes(run.losses, p.steps, lang, self.tr, height=1.6).to_edge(LEFT, buff=0.4)
        ax.align_to([0, FLOOR, 0], DOWN)

        snaps = run.snapshots
        self.curve = VGroup()
        self.marker = Dot(ax.point(0, snaps[0].loss), radius=0.06, color=palette.AREA)
        self.flags = []

        made = {}

        def name_text(name: str, color):
            """A profession's name (made once per name and colour, then copied)."""
            if (name, color) not in made:
                made[name, color] = legible(text(name, lang, size=NAME_SIZE, color=color))
            return made[name, color].copy()

        slots = Slots()   # numbers, flags, read-outs and info lines, each redrawn only when it changes
        line_y = [FLOOR + 0.17 + 0.42 * (3 - r) for r in range(4)]
        info_x = ax.get_right()[0] + 0.5

        def line(r: int, content: str, color=palette.INK):
            return slots.place(("info", r), (content, color), lambda: text(content, lang, size=22, color=color)
                               .move_to([info_x, line_y[r], 0], aligned_edge=LEFT))

        def place(k: int) -> dict:
            """Place every changing label of snapshot k; return what they show."""
            s = snaps[k]
            A = s.attention
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
            r = qm.readouts(s.weights, X, "standard")
            truth = {"asks": wish, "says": profile, "brings": profile}
            shown = {}
            for (key, color), x in zip(READOUTS, col_x):
                top = r[key].argmax(1)
                shown[key] = [job[t] for t in top]
                for i in range(n):
                    c = color if top[i] == truth[key][i] else WRONG_READ
                    slots.place((key, i), (top[i], c), lambda t=top[i], c=c, x=x, i=i: name_text(job[t], c)
                                .move_to([x, grid.cell_at(i, 0).get_y(), 0]))
            wrong = int(np.sum(picked != match))
            line(0, self.tr("step", step=s.step, steps=p.steps))
            loss_head = line(1, self.tr("loss"))
            loss_tex = sci(s.loss)
            slots.place(("info", "loss"), loss_tex, lambda: MathTex(loss_tex, font_size=30, color=palette.AREA)
                        .next_to(loss_head, RIGHT, buff=0.15))
            acc = line(2, self.tr("accuracy", acc=percent(s.accuracy)))
            line(3, self.tr("referee", wrong=wrong, n=n) if wrong else self.tr("referee_ok", n=n),
                 palette.ALERT if wrong else RIGHT_MARK)
            return {"step": s.step, "grid": grid.shown(), "picked": picked.tolist(),
                    "flags": [i for i in range(n) if picked[i] != match[i]],
                    "readouts": shown, "loss": loss_tex, "accuracy": acc.text, "wrong": wrong}

        for i in range(n):
            for j in range(n):
                grid.cell_at(i, j).set_fill(WEIGHT_FILL if i != j else palette.MUTED, opacity=0)

        def fills(k: int):
            """Cells shaded by snapshot k's weights (the masked diagonal stays grey)."""
            A = snaps[k].attention
            start = [c.get_fill_opacity() for c in grid.cells]
            target = [0.7 * A[i, j] if i != j else 0.25 for i in range(n) for j in range(n)]

            def shade(_, alpha):
                for c, a, b in zip(grid.cells, start, target):
                    c.set_fill(opacity=a + (b - a) * alpha)
            return UpdateFromAlphaFunc(ValueTracker(0), shade)

        def show(k: int, run_time: float = 0.8) -> dict:
            probes = place(k)
            s = snaps[k]
            prev = snaps[k - 1].step if k else 0
            stop = min(s.step, p.steps - 1)
            pts = [ax.point(t, run.losses[t]) for t in range(prev, stop + 1)]
            pts.append(ax.point(s.step, s.loss))
            segment = VMobject(color=palette.AREA, stroke_width=3)
            segment.set_points_as_corners(pts if len(pts) > 1 else pts * 2)
            self.curve.add(segment)
            out, new = slots.commit()
            self.add(*new)
            self.play(fills(k), Create(segment), self.marker.animate.move_to(ax.point(s.step, s.loss)),
                      crossfade(VGroup(*out), VGroup(*new)), run_time=run_time)
            self.remove(*out)
            self.flags = [m for key, (sig, m) in slots.current.items() if key[0] == "pick" and not sig[1]]
            # where the marker and the curve's end sit, in the axes' coordinates
            # (log10(step + 1), log10(loss))
            self.key_moment(f"snapshot_{k}", **probes, marker=ax.value(self.marker.get_center()),
                            curve_end=ax.value(self.curve[-1].get_end()))
            return probes

        # --- intro: the party and what each person wants
        with self.beat("intro_say", n=n, jobs=n_jobs):
            self.play(Write(heading), run_time=0.8)
            self.play(FadeIn(table), run_time=1.2)
        self.key_moment("party", names=names, wants=[w.text for w in wants])

        with self.beat("start_say"):
            self.play(FadeIn(ax), FadeIn(self.marker), run_time=0.6)
            show(0, run_time=1.0)
            # the sentence is about what the signs seek, the labels claim and the
            # contents bring (grey where wrong): highlight those columns, each
            # about its own centre; the beat's filler keeps highlighting them
            columns = [VGroup(*[slots.current[(key, i)][1] for i in range(n)]) for key, _ in READOUTS]
            self.play(*[Indicate(c, scale_factor=1.06, color=palette.AREA) for c in columns], run_time=1.0)

        first = snaps[0].attention.argmax(1)
        wrong_rows = [i for i in range(n) if first[i] != match[i]]
        if wrong_rows:
            i = wrong_rows[0]
            # the referee's marks: the red boxes and the dashed right answers
            marks = VGroup(*self.flags, *[m for key, (_, m) in slots.current.items() if key[0] == "should"])
            with self.beat("referee_say", focus=marks, who=names[i], right=names[match[i]],
                           picked=names[first[i]]):
                self.play(*[Indicate(f, color=palette.ALERT, scale_factor=1.15) for f in self.flags], run_time=1.0)

        # chance: each guest picks one of the n - 1 others (nobody picks themself)
        acc_line = slots.current[("info", 2)][1]
        with self.beat("chance_say", focus=acc_line, n=n, right=n - int(np.sum(first != match)),
                       acc=percent(snaps[0].accuracy), others=n - 1, chance=percent(1 / (n - 1))):
            self.play(Indicate(acc_line, color=palette.AREA, scale_factor=1.08), run_time=1.0)
        self.key_moment("chance", accuracy=snaps[0].accuracy, chance=1 / (n - 1))

        half = max(1, len(snaps) // 2)
        # the referee's count over the early snapshots, as this run measured it: it
        # may rise before it falls (the loss averages many parties)
        wrong = [int(np.sum(s.attention.argmax(1) != match)) for s in snaps[:half]]
        peak = int(np.argmax(wrong))
        rise = wrong[peak] > wrong[0]
        with self.beat("train_rise_say" if rise else "train_say", peak=wrong[peak], step=snaps[peak].step):
            for k in range(1, half):   # the early snapshots, where the change happens, go slower
                show(k, run_time=1.1)
            # while the text is read: the red boxes it speaks of (not the curve's last short step)
            self.focus_on(VGroup(*self.flags) if self.flags else grid)
        # The verdict follows the measured held-out accuracy, never the script.
        learned = run.learned
        with self.beat("emerge_say" if learned else "stuck_say"):
            for k in range(half, len(snaps)):
                shown = show(k)["readouts"]   # the last snapshot's read-outs stay on screen

        last = snaps[-1]
        i = 0
        result = dict(steps=p.steps, start=sci_text(snaps[0].loss), end=sci_text(last.loss),
                      ratio=f"{snaps[0].loss / last.loss:,.0f}", acc=percent(run.heldout_accuracy))
        if learned:
            with self.beat("outro_say", **result, who=names[i], asks=shown["asks"][i],
                           says=shown["says"][match[i]]):
                # the guest's sign (Q column) and the sign's target's label (K column)
                asks_cell = slots.current[("asks", i)][1]
                says_cell = slots.current[("says", int(match[i]))][1]
                box = VGroup(*[SurroundingRectangle(m, color=palette.AREA, buff=0.08)
                               for m in (asks_cell, says_cell)])
                self.play(Create(box), run_time=0.8)
                self.wait(0.5)
        else:
            with self.beat("outro_stuck_say", **result,
                           need=percent(qm.LEARNED_ACCURACY)):
                # the accuracy line is the verdict: it stays short of the mark
                acc_line = slots.current[("info", 2)][1]
                self.play(Create(SurroundingRectangle(acc_line, color=palette.ALERT, buff=0.08)),
                          run_time=0.8)
                self.wait(0.5)
        self.key_moment("end", heldout_accuracy=run.heldout_accuracy, learned=learned)
