"""Scene 10, RolesEmerge: W_Q, W_K, W_V start random and learn their roles.

Plays the snapshots of a real training run (``qkv_math.train_matching``,
cached by ``qkv_lens.runs``) on one held-out party: the attention grid,
the referee's flags on wrong matches, what each person's query asks for, key
says and value brings (``qkv_math.readouts``), the loss curve and the
held-out accuracy.  Row vectors: Q = X W_Q, one row per person.

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
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    Line,
    MathTex,
    Mobject,
    ReplacementTransform,
    SurroundingRectangle,
    UpdateFromAlphaFunc,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
)

import qkv_math as qm
from qkv_lens.cues import cue_seconds, split_cues
from qkv_lens.numbers import about, percent, sci, sci_text, tex_number
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
TRUTH = palette.INK            # what each guest seeks: the truth the read-outs are checked against
CURVE = palette.INK            # the loss curve and its number (no role colour, no emphasis)
FLOOR = -2.95                   # the lowest edge of any label: just above the subtitle band (y >= -3.04)
EDGE = 6.85                     # the table runs from -EDGE to EDGE
HEAD_SIZE = 24                  # the table's column heads
NAME_SIZE = 22                  # professions in the table
LOSS_SIZE = 40                  # the loss: its exponent at the legibility floor
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
        marker = Dot(ax.point(0, run.snapshots[0].loss), radius=0.07, color=palette.FOCUS)
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
        wants = VGroup(*[legible(text(job[wish[i]], lang, size=NAME_SIZE, color=TRUTH)) for i in range(n)])
        for i, w in enumerate(wants):
            w.move_to([wants_x, grid.cell_at(i, 0).get_y(), 0])
            grid.row_labels[i].shift(RIGHT * (-EDGE + who_w - grid.row_labels[i].get_right()[0]))
        head_y = grid.col_labels.get_top()[1] + 0.3
        wants_head = text(self.tr("wants"), lang, size=HEAD_SIZE, color=TRUTH).move_to([wants_x, head_y, 0])
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
        self.add(*new)
        self.play(self._fills(k), Create(segment), s.marker.animate.move_to(ax.point(snap.step, snap.loss)),
                  crossfade(VGroup(*out), VGroup(*new)), *[ReplacementTransform(a, b) for a, b in slides],
                  *(extra or []), run_time=run_time)
        self.remove(*out)
        s.shown = probes["readouts"]
        s.flags = [m for key, (sig, m) in s.slots.current.items() if key[0] == "pick" and not sig[1]]
        # where the marker and the curve's end sit, in the axes' coordinates
        # (log10(step + 1), log10(loss))
        self.key_moment(f"snapshot_{k}", **probes, time=self.renderer.time, marker=ax.value(s.marker.get_center()),
                        curve_end=ax.value(s.curve[-1].get_end()))
        return probes

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
            self.reveal([(t[1], [FadeIn(s.wants, wants_head, shift=RIGHT * 0.3)]),
                         (t[-1], [Create(g.cells), FadeIn(g.col_labels, keys_head, read_heads)])],
                        focus=s.wants, run_time=1.0)
        self.key_moment("party", names=s.names, wants=[w.text for w in s.wants],
                        wants_colour=[w.get_color().to_hex() for w in s.wants])

    def _marks(self) -> list[Mobject]:
        """The referee's marks on screen: the picks' boxes, then the dashed right answers."""
        cur = self.s.slots.current
        return [m for key, (_, m) in cur.items() if key[0] == "pick"] + \
            [m for key, (_, m) in cur.items() if key[0] == "should"]

    def _start(self) -> None:
        """Step 0: noise in the grid, gibberish in the read-outs, the wrong names struck through."""
        s = self.s
        with self.beat("start_say") as said:
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
        i = wrong_rows[0]
        with self.beat("referee_say", focus=VGroup(*s.flags), who=s.names[i],
                       right=s.names[s.match[i]], picked=s.names[first[i]]) as said:
            t0 = self.renderer.time
            self.play(FadeOut(s.strikes), FadeIn(line, shift=LEFT * 0.3), run_time=0.8)
            boxed = self._at(said, self.tr("red_word"), t0) - 0.6
            steps = [(boxed, [Create(m) for m in picks])]
            if should:
                steps.append((self._at(said, self.tr("dashed_word"), t0), [Create(m) for m in should]))
            self.reveal(steps, focus=line, run_time=1.0)
        self.key_moment("referee", marks=len(self._marks()))

    def _chance(self) -> None:
        """Chance: the lucky right picks boxed, then the accuracy line, then what guessing gets."""
        s, n = self.s, self.s.n
        snap = s.run.snapshots[0]
        first = snap.attention.argmax(1)
        acc_line = self._shown(("info", 2))
        lucky = [self._shown(("pick", i)) for i in range(n) if first[i] == s.match[i]]
        acc, chance = percent(snap.accuracy), percent(1 / (n - 1))
        s.chance = text(self.tr("chance_line", others=n - 1, chance=chance), self.lang, size=22,
                        color=palette.INK).move_to([s.info_x, acc_line.get_y() + 0.42 * 3 + 0.1, 0],
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
            self.focus_on(s.chance)
        self.key_moment("chance", accuracy=snap.accuracy, chance=1 / (n - 1))

    def _spread(self, ks: list[int], until: float, first: list | None = None, least: float = 1.2) -> None:
        """Snapshots ``ks``, one after another (at least ``least`` seconds each), the last one shown
        by scene time ``until``; ``first`` plays with the first."""
        start = self.renderer.time
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
        rise = wrong[peak] > wrong[0]
        leave = [FadeOut(s.chance)]
        with self.beat("train_rise_say" if rise else "train_say", peak=wrong[peak], step=snaps[peak].step) as said:
            t0 = self.renderer.time
            need = sum(cue_seconds(c, self.lang) for c in split_cues(said, self.lang))
            if rise:    # the peak is on screen while its number is read
                named = self._at(said, re.search(r"\d+", said).group(), t0)
                self._spread(list(range(1, peak + 1)), named - 1.0, leave)
                self.wait_until(named + 2.5, s.grid.cells)
                self._spread(list(range(peak + 1, half)), t0 + need - 1.5)
            else:
                self._spread(list(range(1, half)), t0 + need - 1.5, leave)
            # while the text is read: the red boxes it speaks of
            self.focus_on(VGroup(*s.flags) if s.flags else s.grid.cells)
        # The verdict follows the measured held-out accuracy, never the script.
        learned = s.run.learned
        with self.beat("emerge_say" if learned else "stuck_say") as said:
            need = sum(cue_seconds(c, self.lang) for c in split_cues(said, self.lang))
            # slowly while the referee still flags someone (the red boxes slide to the right
            # guests), then faster: the read-outs of the last stay on screen
            ks = list(range(half, len(snaps)))
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
                      ratio=about(snaps[0].loss / last.loss), acc=percent(run.heldout_accuracy))
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
                               for m in (asks_cell, says_cell)])
                self.reveal([(self._at(said, s.names[i], t0) - 0.5, [FadeOut(fall), Create(box[0])]),
                             (self._at(said, s.names[i], t0) + 1.5, [Create(box[1])])],
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
