"""Scene 10, RolesEmerge: W_Q, W_K, W_V start random and learn their roles.

Plays the snapshots of a real training run (``qkv_math.train_matching``,
cached by ``qkv_lens.runs``) on one held-out party: the attention grid,
the referee's flags on wrong matches, what each person's query asks for, key
says and value brings (``qkv_math.readouts``), the loss curve and the
held-out accuracy.  Row vectors: Q = X W_Q, one row per person.

    manim -ql scenes/roles_emerge.py RolesEmerge
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    Indicate,
    MathTex,
    Mobject,
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
from qkv_math.training import Run
from scenes.kit import palette
from scenes.kit.boards import LossAxes
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
WEIGHT_FILL = palette.COLUMNS[3]   # attention weights shade their cells (not Q, K or V: no role colour)


def _width(content: str, lang: str, size: float) -> float:
    """How wide ``content`` is drawn at ``size`` (at least at the legibility floor)."""
    return legible(text(content, lang, size=size)).width


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
    curve: VGroup = field(default_factory=VGroup)
    flags: list[Mobject] = field(default_factory=list)   # the red boxes of the last snapshot
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
        """The run, its party, the table and the loss axes."""
        p, lang = self.params, self.lang
        run = training_runs(p)["standard"]
        X, match = run.display_party
        n_jobs = len(p.jobs)
        profile, wish = X[:, :n_jobs].argmax(1), X[:, n_jobs:].argmax(1)
        job = [j.name(lang) for j in p.jobs]
        names = [job[k] for k in profile]
        heading = title(self.tr("title"), lang)
        table, grid, wants, col_x = self._table(heading, job, names, wish)

        # --- the loss curve and the read-out of the run
        ax = LossAxes(run.losses, p.steps, lang, self.tr("steps_axis"), self.tr("loss_axis"), height=1.6)
        ax.to_edge(LEFT, buff=0.4)
        ax.align_to([0, FLOOR, 0], DOWN)
        marker = Dot(ax.point(0, run.snapshots[0].loss), radius=0.06, color=palette.AREA)
        n = len(names)
        for i in range(n):
            for j in range(n):
                grid.cell_at(i, j).set_fill(WEIGHT_FILL if i != j else palette.MUTED, opacity=0)
        return _Stage(run, X, match, profile, wish, job, names, heading, table, grid, wants, col_x, ax,
                      ax.get_right()[0] + 0.5, marker)

    def _table(self, heading: Mobject, job: list[str], names: list[str], wish: np.ndarray):
        """The table: who | wants | attention grid | Q asks | K says | V brings, laid out
        from the widths of its words, every label at a readable size, just under the title.
        Returns the table, its grid, the wants column and the read-out columns' centres."""
        lang, n = self.lang, len(names)
        cell = min(0.66, 2.7 / n)
        size = 24 if n <= 4 else 20
        number_size = 28 if n <= 4 else 26
        who_w = max([_width(nm, lang, size) for nm in job] + [_width(self.tr("who"), lang, HEAD_SIZE)])
        wants_w = max(_width(nm, lang, NAME_SIZE) for nm in [*job, self.tr("wants")])
        names_w = max(_width(nm, lang, NAME_SIZE) for nm in job)
        read_w = [max(names_w, _width(self.tr(f"{key}_head"), lang, HEAD_SIZE)) for key, _ in READOUTS]
        col_x, right = [], EDGE
        for w in reversed(read_w):      # the read-out columns from the right edge, each as wide as it needs
            col_x.insert(0, right - w / 2)
            right -= w + 0.3
        wants_x = -EDGE + who_w + 0.3 + wants_w / 2
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
        y = FLOOR + 0.17 + 0.42 * (3 - r)
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
        slots.place(("info", "loss"), loss_tex, lambda: MathTex(loss_tex, font_size=30, color=palette.AREA)
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

    def _show(self, k: int, run_time: float = 0.8) -> dict:
        """Snapshot k: its labels, the grid's shading and the loss curve up to its step."""
        s, ax = self.s, self.s.ax
        snaps = s.run.snapshots
        probes = self._place(k)
        snap = snaps[k]
        prev = snaps[k - 1].step if k else 0
        stop = min(snap.step, self.params.steps - 1)
        pts = [ax.point(t, s.run.losses[t]) for t in range(prev, stop + 1)]
        pts.append(ax.point(snap.step, snap.loss))
        segment = VMobject(color=palette.AREA, stroke_width=3)
        segment.set_points_as_corners(pts if len(pts) > 1 else pts * 2)
        s.curve.add(segment)
        out, new = s.slots.commit()
        self.add(*new)
        self.play(self._fills(k), Create(segment), s.marker.animate.move_to(ax.point(snap.step, snap.loss)),
                  crossfade(VGroup(*out), VGroup(*new)), run_time=run_time)
        self.remove(*out)
        s.flags = [m for key, (sig, m) in s.slots.current.items() if key[0] == "pick" and not sig[1]]
        # where the marker and the curve's end sit, in the axes' coordinates
        # (log10(step + 1), log10(loss))
        self.key_moment(f"snapshot_{k}", **probes, marker=ax.value(s.marker.get_center()),
                        curve_end=ax.value(s.curve[-1].get_end()))
        return probes

    def _shown(self, key) -> Mobject:
        """The label on screen at slot ``key``."""
        return self.s.slots.current[key][1]

    # --- the beats ----------------------------------------------------------
    def _intro(self) -> None:
        """The party and what each person wants."""
        s = self.s
        with self.beat("intro_say", n=s.n, jobs=len(self.params.jobs)):
            self.play(Write(s.heading), run_time=0.8)
            self.play(FadeIn(s.table), run_time=1.2)
        self.key_moment("party", names=s.names, wants=[w.text for w in s.wants])

    def _start(self) -> None:
        s = self.s
        with self.beat("start_say"):
            self.play(FadeIn(s.ax), FadeIn(s.marker), run_time=0.6)
            self._show(0, run_time=1.0)
            # the sentence is about what the signs seek, the labels claim and the
            # contents bring (grey where wrong): highlight those columns, each
            # about its own centre; the beat's filler keeps highlighting them
            columns = [VGroup(*[self._shown((key, i)) for i in range(s.n)]) for key, _ in READOUTS]
            self.play(*[Indicate(c, scale_factor=1.06, color=palette.AREA) for c in columns], run_time=1.0)

    def _referee(self) -> None:
        """The referee's marks on the first wrong picks, if any."""
        s = self.s
        first = s.run.snapshots[0].attention.argmax(1)
        wrong_rows = [i for i in range(s.n) if first[i] != s.match[i]]
        if wrong_rows:
            i = wrong_rows[0]
            # the referee's marks: the red boxes and the dashed right answers
            marks = VGroup(*s.flags, *[m for key, (_, m) in s.slots.current.items() if key[0] == "should"])
            with self.beat("referee_say", focus=marks, who=s.names[i], right=s.names[s.match[i]],
                           picked=s.names[first[i]]):
                self.play(*[Indicate(f, color=palette.ALERT, scale_factor=1.15) for f in s.flags], run_time=1.0)

    def _chance(self) -> None:
        """Chance: each guest picks one of the n - 1 others (nobody picks themself)."""
        s, n = self.s, self.s.n
        snap = s.run.snapshots[0]
        first = snap.attention.argmax(1)
        acc_line = self._shown(("info", 2))
        with self.beat("chance_say", focus=acc_line, n=n, right=n - int(np.sum(first != s.match)),
                       acc=percent(snap.accuracy), others=n - 1, chance=percent(1 / (n - 1))):
            self.play(Indicate(acc_line, color=palette.AREA, scale_factor=1.08), run_time=1.0)
        self.key_moment("chance", accuracy=snap.accuracy, chance=1 / (n - 1))

    def _train(self) -> dict:
        """The snapshots, the early ones slower; the read-outs of the last, which stay on screen."""
        s = self.s
        snaps = s.run.snapshots
        half = max(1, len(snaps) // 2)
        # the referee's count over the early snapshots, as this run measured it: it
        # may rise before it falls (the loss averages many parties)
        wrong = [int(np.sum(snap.attention.argmax(1) != s.match)) for snap in snaps[:half]]
        peak = int(np.argmax(wrong))
        rise = wrong[peak] > wrong[0]
        with self.beat("train_rise_say" if rise else "train_say", peak=wrong[peak], step=snaps[peak].step):
            for k in range(1, half):   # the early snapshots, where the change happens, go slower
                self._show(k, run_time=1.1)
            # while the text is read: the red boxes it speaks of (not the curve's last short step)
            self.focus_on(VGroup(*s.flags) if s.flags else s.grid)
        # The verdict follows the measured held-out accuracy, never the script.
        learned = s.run.learned
        with self.beat("emerge_say" if learned else "stuck_say"):
            for k in range(half, len(snaps)):
                shown = self._show(k)["readouts"]   # the last snapshot's read-outs stay on screen
        return shown

    def _outro(self, shown: dict) -> None:
        """The verdict: a guest's ask and its match's answer boxed, or the accuracy short of the mark."""
        s, run = self.s, self.s.run
        learned = run.learned
        snaps = run.snapshots
        last = snaps[-1]
        i = 0
        result = dict(steps=self.params.steps, start=sci_text(snaps[0].loss), end=sci_text(last.loss),
                      ratio=f"{snaps[0].loss / last.loss:,.0f}", acc=percent(run.heldout_accuracy))
        if learned:
            with self.beat("outro_say", **result, who=s.names[i], asks=shown["asks"][i],
                           says=shown["says"][s.match[i]]):
                # the guest's sign (Q column) and the sign's target's label (K column)
                asks_cell = self._shown(("asks", i))
                says_cell = self._shown(("says", int(s.match[i])))
                box = VGroup(*[SurroundingRectangle(m, color=palette.AREA, buff=0.08)
                               for m in (asks_cell, says_cell)])
                self.play(Create(box), run_time=0.8)
                self.wait(0.5)
        else:
            with self.beat("outro_stuck_say", **result,
                           need=percent(qm.LEARNED_ACCURACY)):
                # the accuracy line is the verdict: it stays short of the mark
                acc_line = self._shown(("info", 2))
                self.play(Create(SurroundingRectangle(acc_line, color=palette.ALERT, buff=0.08)),
                          run_time=0.8)
                self.wait(0.5)
        self.key_moment("end", heldout_accuracy=run.heldout_accuracy, learned=learned)
