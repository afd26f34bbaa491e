"""Scene 11, RoleSwap: the role follows the position in the formula, not the name.

Two real training runs of the matchmaking task from the same random start
(``qkv_math.train_matching``, cached by ``qkv_lens.runs``): the standard
softmax(Q K^T / sqrt(d_k)) V and the swapped softmax(V K^T / sqrt(d_k)) Q,
made on screen from the standard one by moving its Q and V to each other's
places.  For
each matrix a slider shows its probe (``qkv_math.training.probes``): the
share of its weight that reads the wish half of the input x = [profile, wish]
rather than the profile half.  Row vectors: Q = X W_Q.

    manim -ql scenes/role_swap.py RoleSwap
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UL,
    UP,
    UR,
    Brace,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    Line,
    MathTex,
    Mobject,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    TipableVMobject,
    VGroup,
    Write,
)

import qkv_math as qm
from qkv_lens.cues import cue_seconds, split_cues
from qkv_lens.numbers import percent, plain_number, sci_text, tex_number
from qkv_lens.runs import training_runs
from qkv_lens.spoken import sci_said
from qkv_math.training import Run
from scenes.kit import palette
from scenes.kit.glyphs import number_tex
from scenes.kit.motion import Emphasize, crossfade
from scenes.kit.scene import LessonScene
from scenes.kit.sections import TrainingParams
from scenes.kit.text import note, text, title

NAMES = tuple(palette.W_COLORS)   # "W_Q", "W_K", "W_V"
TEX = {"standard": (r"\mathrm{softmax}\big(", "Q", "K^{\\top}", r"/\sqrt{d_k}\big)", "V"),
       "swapped": (r"\mathrm{softmax}\big(", "V", "K^{\\top}", r"/\sqrt{d_k}\big)", "Q")}
ARC = -PI / 2     # the swap's arcs: Q passes over the formula, V under it
TRACK = 3.6       # length of a slider's track (probe 0 at its left end, 1 at its right)
ROW_TOP = 1.0     # y of the first slider; the others follow ROW_GAP lower
ROW_GAP = 0.9
STATS_TOP = ROW_TOP - 2 * ROW_GAP - 0.82   # loss and accuracy, under the last slider and its tag
MORAL_BOTTOM = -2.95                       # just above the subtitle band (y >= -3.04)
ASKS = 0.5        # a probe above this reads the wish more than the profile: the asking role
ASK_SLOT, CONTENT_SLOT = 1, 4      # parts of a formula: the slot inside the softmax, the one after it
GAP_X = 0.62      # between the panels: where the swapped panel's slot arrow comes down
PULL_H = 0.5      # the taller of W_Q's two weights under its track (less than the gap to the next track)
HALF_X = 3.55     # the right panel's centre: where W_Q is shown before the swapped run comes


class Panel(VGroup):
    """One run: its formula, a slider per matrix, its loss and accuracy."""

    def __init__(self, formula: str, scene: RoleSwap, center_x: float):
        super().__init__()
        lang = scene.lang
        self.formula = MathTex(*TEX[formula], font_size=40)
        for part in self.formula[1:]:
            part.set_color(palette.QKV.get(part.tex_string[0], palette.INK))
        self.formula.move_to([center_x, 2.15, 0])
        self.caption = note(scene.tr(formula), lang)
        self.caption.next_to(self.formula, UP, buff=0.18)
        left = center_x - TRACK / 2 + 0.2
        self.tracks, self.names, self.dots = VGroup(), VGroup(), VGroup()
        for r, name in enumerate(NAMES):
            y = ROW_TOP - ROW_GAP * r
            track = Line([left, y, 0], [left + TRACK, y, 0], color=palette.MUTED, stroke_width=4)
            mid = Line([left + TRACK * ASKS, y - 0.12, 0], [left + TRACK * ASKS, y + 0.12, 0],
                       color=palette.MUTED, stroke_width=2)
            label = MathTex(name.replace("_", "_{") + "}", font_size=36, color=palette.W_COLORS[name])
            label.next_to(track, LEFT, buff=0.3)
            self.tracks.add(VGroup(track, mid))
            self.names.add(label)
            self.dots.add(Dot(track.get_start(), radius=0.11, color=palette.W_COLORS[name]))
        y_top = self.tracks[0].get_top()[1] + 0.42
        self.ends = VGroup(
            text(scene.tr("profile_end"), lang, size=20, color=palette.MUTED).move_to([left, y_top, 0]),
            text(scene.tr("wish_end"), lang, size=20, color=palette.MUTED).move_to([left + TRACK, y_top, 0]))
        self.left = left
        self.values = VGroup()
        self.stats = VGroup()
        self.add(self.caption, self.formula, self.ends, self.tracks, self.names)

    def at(self, row: int, probe: float) -> np.ndarray:
        return self.tracks[row][0].point_from_proportion(min(max(probe, 0.0), 1.0))

    def values_for(self, probes: dict) -> VGroup:
        return VGroup(*[number_tex(tex_number(probes[name], 2, pad=True), font_size=30,
                                color=palette.W_COLORS[name])
                        .next_to(self.tracks[r][0], RIGHT, buff=0.25) for r, name in enumerate(NAMES)])


def _formula_probe(formula: VGroup) -> dict:
    """A formula's parts as drawn: tex strings, colours, centres (x)."""
    return {"tex": [part.tex_string for part in formula],
            "colors": [part.get_color().to_hex() for part in formula],
            "x": [float(part.get_center()[0]) for part in formula]}


@dataclass
class _Stage:
    """What the beats share: the two runs, their panels and the step label."""
    runs: dict[str, Run]
    steps: list[int]              # the snapshots' steps, the same in both runs
    heading: Mobject
    panels: dict[str, Panel]      # by formula: "standard", "swapped"
    step_label: Mobject = field(default_factory=VGroup)
    badges: VGroup = field(default_factory=VGroup)   # the askers' boxes and tags


class RoleSwap(LessonScene):
    params: TrainingParams
    chapter = 2
    number = 11
    s: _Stage
    sparse_moments = {"balance": "the swapped run's half of the frame is empty until the next beat makes it"}

    def construct(self):
        runs = training_runs(self.params)
        heading = title(self.tr("title"), self.lang)
        panels = {f: Panel(f, self, x) for f, x in (("standard", -3.5), ("swapped", HALF_X))}
        steps = [s.step for s in runs["standard"].snapshots]
        assert steps == [s.step for s in runs["swapped"].snapshots]
        self.s = _Stage(runs, steps, heading, panels)
        self._intro()
        self._probe()
        self._swap()
        askers, settled = self._train()
        self._result(askers, settled)
        self._outro(settled)

    def _stats(self, panel: Panel, snap) -> VGroup:
        """A snapshot's loss and accuracy, under the panel's last slider."""
        lang = self.lang
        lines = VGroup(
            text(self.tr("loss", loss=sci_text(snap.loss)), lang, size=22),
            text(self.tr("accuracy", acc=percent(snap.accuracy)), lang, size=22),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        return lines.move_to([panel.left, STATS_TOP, 0], aligned_edge=UL)

    def _step_label(self, k: int) -> Mobject:
        """"step k of N" in the top-right corner."""
        return text(self.tr("step", step=self.s.steps[k], steps=self.params.steps), self.lang,
                    size=24).to_corner(UR, buff=0.4)

    def _show(self, k: int, run_time: float, extra: list | None = None) -> None:
        """Snapshot k in both panels: the sliders move, the numbers, the loss and accuracy and the
        step label change (with ``extra`` animations)."""
        s = self.s
        anims, olds = list(extra or []), []
        shown = {}
        for f, panel in s.panels.items():
            snap = s.runs[f].snapshots[k]
            for r, name in enumerate(NAMES):
                anims.append(panel.dots[r].animate.move_to(panel.at(r, snap.probes[name])))
            values = panel.values_for(snap.probes)
            stats = self._stats(panel, snap)
            for attr, new in (("values", values), ("stats", stats)):
                olds.append(getattr(panel, attr))
                self.add(new)
                anims.append(crossfade(olds[-1], new))
                setattr(panel, attr, new)
            shown[f] = {"values": [v.tex_string for v in values],
                        "stats": [line.text for line in stats]}
        label = self._step_label(k)
        olds.append(s.step_label)
        self.add(label)
        anims.append(crossfade(s.step_label, label))
        s.step_label = label
        self.play(*anims, run_time=run_time)
        self.remove(*olds)
        # the dots' probes as drawn, once their animations have finished
        for f, panel in s.panels.items():
            shown[f]["dots"] = [(d.get_center()[0] - panel.left) / TRACK for d in panel.dots]
        self.key_moment(f"snapshot_{k}", step=s.steps[k], time=self.renderer.time, **shown)

    def _describe_snapshot(self, k: int) -> None:
        """Describe snapshot k as both panels show it: each slider's probe, the loss and the accuracy."""
        fields: dict = {"step": self.s.steps[k], "steps": self.params.steps}
        for side, f in (("l", "standard"), ("r", "swapped")):
            snap = self.s.runs[f].snapshots[k]
            fields |= {f"{side}{name[-1].lower()}": snap.probes[name] for name in NAMES}
            fields |= {f"{side}_loss": sci_said(snap.loss, self.lang), f"{side}_acc": percent(snap.accuracy)}
        self.describe("describe_snapshot", **fields, places=2)

    def _describe_sliders(self, key: str, f: str) -> None:
        """Describe the sliders of run ``f`` at its start (text ``key``)."""
        probes = self.s.runs[f].snapshots[0].probes
        self.describe(key, caption=self.tr(f), **{name[-1].lower(): probes[name] for name in NAMES}, places=2)

    # --- the beats ----------------------------------------------------------
    def _intro(self) -> None:
        """The question of the last scene, and the left run: its formula, its three sliders."""
        std = self.s.panels["standard"]
        with self.beat("intro_say", focus=std.formula) as said:
            at = self.cue_at(said, 0.6)
            self.play(Write(self.s.heading), run_time=0.8)
            self.play(FadeIn(VGroup(std.ends, std.tracks, std.names), shift=UP * 0.2), run_time=1.0)
            self.wait_until(at[0], std.tracks)
            self.play(FadeIn(VGroup(std.caption, std.formula), shift=DOWN * 0.2), run_time=1.0)
            self.describe("describe_intro", title=self.tr("title"), left_end=self.tr("profile_end"),
                          right_end=self.tr("wish_end"), caption=self.tr("standard"))

    def _weights(self) -> tuple[VGroup, VGroup, VGroup]:
        """W_Q of the start as a block of cells in the right half (where the swapped run comes
        later), one row of cells per row of W_Q, its halves braced: the rows that read who a guest
        is, the rows that read whom they seek.  Returns the block (its rows), the braces and labels,
        and its name."""
        W = self.s.runs["standard"].snapshots[0].weights["W_Q"]
        rows, cols = W.shape
        cell = min(0.19, 3.1 / rows, 1.6 / cols)
        top = float(np.abs(W).max()) or 1.0
        block = VGroup(*[VGroup(*[Rectangle(width=cell, height=cell, stroke_width=0.8, stroke_color=palette.MUTED,
                                            fill_color=palette.Q_GOLD if v >= 0 else palette.MUTED,
                                            fill_opacity=0.1 + 0.85 * abs(v) / top).move_to([j * cell, -i * cell, 0])
                                  for j, v in enumerate(row)]) for i, row in enumerate(W)])
        block.move_to([HALF_X + 1.2, -0.15, 0])
        half = rows // 2
        marks = VGroup()
        for part, key in ((VGroup(*block[:half]), "rows_who"), (VGroup(*block[half:]), "rows_seek")):
            brace = Brace(part, LEFT, buff=0.08, color=palette.MUTED)
            label = note(self.tr(key), self.lang, color=palette.INK)
            label.next_to(brace, LEFT, buff=0.12)
            marks.add(VGroup(brace, label))
        name = MathTex("W_{Q}", font_size=40, color=palette.Q_GOLD).next_to(block, UP, buff=0.15)
        return block, marks, name

    def _probe(self) -> None:
        """What a slider measures, shown on W_Q before its weights become one: the rows that read
        who a guest is pull its dot to the left end, those that read whom they seek to the right
        (each as strongly as its share of the weights, ``qkv_math.training.probes``); the dot sits
        where they balance.  Then every slider of the left run at the start, near the middle."""
        s = self.s
        std = s.panels["standard"]
        W = s.runs["standard"].snapshots[0].weights["W_Q"]
        half = W.shape[0] // 2
        pulls = [float(np.linalg.norm(W[:half])), float(np.linalg.norm(W[half:]))]
        block, marks, name = self._weights()
        track = std.tracks[0][0]
        # each half's weight hangs under its end of the track, as tall as its share (the dot balances them)
        weights = VGroup(*[Rectangle(width=0.16, height=PULL_H * p / max(pulls), stroke_width=0,
                                     fill_color=palette.Q_GOLD, fill_opacity=0.85)
                           .next_to(end, DOWN, buff=0.04)
                           for p, end in zip(pulls, (track.get_start(), track.get_end()))])
        balance = pulls[1] / sum(pulls)
        with self.beat("probe_say") as said:
            t0 = self.renderer.time
            self.play(FadeIn(name), Create(block, lag_ratio=0.002), run_time=1.0)
            self.play(FadeIn(marks), run_time=0.6)
            moves = []
            for part, weight, key in ((VGroup(*block[:half]), weights[0], "left_word"),
                                      (VGroup(*block[half:]), weights[1], "right_word")):
                moves.append((self.phrase_at(said, self.tr(key), t0) - 0.6,
                              [ReplacementTransform(part, weight)]))
            self.reveal(moves, focus=block, run_time=0.9)
            dot = std.dots[0]
            dot.move_to(track.get_start())
            self.play(FadeIn(dot), dot.animate.move_to(std.at(0, balance)), FadeOut(marks, name), run_time=1.0)
            self.key_moment("balance", pulls=pulls, bars=[float(w.height) for w in weights],
                            dot=float((dot.get_center()[0] - std.left) / TRACK), probe=s.runs["standard"]
                            .snapshots[0].probes["W_Q"], ends=[_edges(w) for w in weights], track=_edges(track))
            std.values = std.values_for(s.runs["standard"].snapshots[0].probes)
            for r, d in enumerate(std.dots):
                d.move_to(std.at(r, s.runs["standard"].snapshots[0].probes[NAMES[r]]))
            self.play(FadeOut(weights), FadeIn(std.dots[1:], std.values), run_time=0.8)
            middle = SurroundingRectangle(std.dots, color=palette.FOCUS, buff=0.08)
            self.wait_until(self.phrase_at(said, self.tr("middle_word"), t0) - 0.3, std.dots)
            self.play(Create(middle), run_time=0.6)
            self.describe("describe_probe", rows=W.shape[0], cols=W.shape[1], who=self.tr("rows_who"),
                          seek=self.tr("rows_seek"), balance=balance, places=2)
            self._describe_sliders("describe_start", "standard")
            self.focus_on(middle)
        self.play(FadeOut(middle), run_time=0.4)

    def _swap(self) -> None:
        """The swapped formula is made from the standard one: a copy moves to
        the right panel's place, then its Q and V trade places along arcs; its
        sliders start where the left ones did (the same start)."""
        std, swp = self.s.panels["standard"], self.s.panels["swapped"]
        moving = std.formula.copy()
        start = self.s.runs["swapped"].snapshots[0].probes
        for r, d in enumerate(swp.dots):
            d.move_to(swp.at(r, start[NAMES[r]]))
        swp.values = swp.values_for(start)
        with self.beat("swap_say", focus=swp.formula):
            self.play(moving.animate.move_to(swp.formula), run_time=0.8)
            q_part, v_part = moving[1], moving[4]
            self.key_moment("swap_before", formula=_formula_probe(moving),
                            q_x=float(q_part.get_center()[0]), v_x=float(v_part.get_center()[0]))
            self.play(ReplacementTransform(q_part, swp.formula[4], path_arc=ARC),
                      ReplacementTransform(v_part, swp.formula[1], path_arc=ARC),
                      *[ReplacementTransform(moving[i], swp.formula[i]) for i in (0, 2, 3)],
                      run_time=1.6)
            self.remove(moving, *swp.formula)
            self.add(swp.formula)
            # the Q that moved now stands in the last slot, the V in the first
            self.key_moment("swap_after", formula=_formula_probe(swp.formula),
                            q_x=float(swp.formula[4].get_center()[0]),
                            v_x=float(swp.formula[1].get_center()[0]))
            self.play(FadeIn(VGroup(swp.caption, swp.ends, swp.tracks, swp.names)), run_time=1.0)
            self.play(FadeIn(swp.dots, swp.values), run_time=0.8)
            self._describe_sliders("describe_swapped", "swapped")
            self.key_moment("same_sliders", dots={f: [(d.get_center()[0] - p.left) / TRACK for d in p.dots]
                                                  for f, p in self.s.panels.items()})

    def _train(self) -> tuple[dict[str, list[str]], bool]:
        """The same start yet different losses (the board comes in, the losses boxed as they are
        said), then the snapshots as training is told; the measured roles: which matrices read the
        wish in each run (the askers), and whether that is the swap of roles."""
        runs, steps, panels = self.s.runs, self.s.steps, self.s.panels
        # the narration claims a swap of roles only when both runs learned the task, the probes
        # show exactly that swap and each content matrix brings every guest's own profession
        final = {f: runs[f].snapshots[-1].probes for f in runs}
        askers = {f: [name for name in NAMES if final[f][name] > ASKS] for f in runs}
        settled = (all(r.learned for r in runs.values())
                   and askers == {"standard": ["W_Q"], "swapped": ["W_V"]}
                   and all(self._carries(f) for f in runs))
        loss = {f: sci_text(runs[f].snapshots[0].loss) for f in runs}
        last = len(steps) - 1
        # the snapshots over the training's sentences: the first half while training begins, the
        # rest while the sliders are named, the last few as the result is read
        half = max(2, (last + 1) // 2)
        late = max(half + 1, last - 2)
        with self.beat("train_say", l_std=loss["standard"], l_swp=loss["swapped"]) as said:
            t0 = self.renderer.time
            need = sum(cue_seconds(c, self.lang) for c in split_cues(said, self.lang))
            self._show(0, run_time=0.6)         # the board: each run's loss and accuracy, the step
            stats = [p.stats for p in panels.values()]
            boxes = VGroup(*[SurroundingRectangle(st[0], color=palette.FOCUS, buff=0.08) for st in stats])
            self.play(Create(boxes), run_time=0.6)
            self.key_moment("same_start", boxed=[st[0].text for st in stats],
                            boxes=[_edges(b) for b in boxes], losses=[_edges(st[0]) for st in stats])
            begins = self.phrase_at(said, self.tr("begins_word"), t0)
            self.wait_until(begins - 0.5, boxes)
            self.describe("describe_board", acc_std=percent(runs["standard"].snapshots[0].accuracy),
                          acc_swp=percent(runs["swapped"].snapshots[0].accuracy), step=steps[0],
                          steps=self.params.steps)
            self._spread(list(range(1, half)), t0 + need - 0.3, first=[FadeOut(boxes)])
            self._describe_snapshot(max(0, half - 1))
        if settled:     # a run with one asker on each side: which one, on the right? (the next beat shows it)
            self.checkpoint("asker_ask", choices=list(NAMES), answer=NAMES.index(askers["swapped"][0]))
        with self.beat("emerge_say" if settled else "watch_say") as said:
            need = sum(cue_seconds(c, self.lang) for c in split_cues(said, self.lang))
            self._spread(list(range(half, late)), self.renderer.time + need - 0.3)
            self._describe_snapshot(max(half - 1, late - 1))
        return askers, settled

    def _carries(self, formula: str) -> bool:
        """Whether the run's content matrix brings each guest of the shown party their own
        profession (``qkv_math.readouts``: the largest entry of each content row)."""
        run = self.s.runs[formula]
        X, _ = run.display_party
        n_jobs = X.shape[1] // 2
        brings = qm.readouts(run.snapshots[-1].weights, X, formula)["brings"]
        return bool(np.all(brings.argmax(1) == X[:, :n_jobs].argmax(1)))

    def _spread(self, ks: list[int], until: float, first: list | None = None) -> None:
        """Snapshots ``ks`` one after another, the last shown by scene time ``until`` (``first``
        plays with the first): the time of the sentences goes to the training."""
        start = self.renderer.time
        gap = max(0.6, (until - start) / max(1, len(ks)))
        for m, k in enumerate(ks):
            self.wait_until(start + m * gap, VGroup(*[p.dots for p in self.s.panels.values()]))
            self._show(k, run_time=min(1.0, gap), extra=first if m == 0 else None)

    def _result(self, askers: dict[str, list[str]], settled: bool) -> None:
        """The last snapshots, then the askers badged as the result is read: their final probes
        and the held-out accuracies."""
        runs, lang = self.s.runs, self.lang
        final = {f: runs[f].snapshots[-1].probes for f in runs}
        badges = VGroup()
        for f, panel in self.s.panels.items():
            for r, name in enumerate(NAMES):
                if name in askers[f]:
                    box = SurroundingRectangle(VGroup(panel.names[r], panel.tracks[r], panel.values[r]),
                                               color=palette.FOCUS, buff=0.12)
                    tag = text(self.tr("asker"), lang, size=20, color=palette.FOCUS)
                    tag.next_to(box, DOWN, buff=0.06).align_to(box, RIGHT)
                    badges.add(box, tag)
        names = {f: ", ".join(askers[f]) or "-" for f in runs}     # W_Q: the notation of every sentence
        fields = dict(std=names["standard"], swp=names["swapped"],
                      q=plain_number(final["standard"]["W_Q"], 2, pad=True),
                      v=plain_number(final["swapped"]["W_V"], 2, pad=True),
                      acc_std=percent(runs["standard"].heldout_accuracy),
                      acc_swp=percent(runs["swapped"].heldout_accuracy))
        last = len(self.s.steps) - 1
        late = max(max(2, (last + 1) // 2) + 1, last - 2)
        with self.beat("result_say", **fields) as said:
            t0 = self.renderer.time
            named = self.phrase_at(said, fields["q"], t0)
            self._spread(list(range(late, last + 1)), max(self.renderer.time + 0.6, named - 1.6))
            self.key_moment("final_shown", time=self.renderer.time, named=named)
            self.play(Create(badges), run_time=1.0)
            self._describe_snapshot(last)
            self.focus_on(badges)
        self.s.badges = badges
        self.key_moment("roles", askers=askers, settled=settled)

    def _outro(self, settled: bool) -> None:
        moral = text(self.tr("moral" if settled else "moral_unsettled"), self.lang, size=30,
                     color=palette.FOCUS if settled else palette.ALERT)
        moral.move_to([0, MORAL_BOTTOM, 0], aligned_edge=DOWN)
        if not settled:
            with self.beat("outro_unsettled_say", need=percent(qm.LEARNED_ACCURACY)):
                self.play(FadeIn(moral, shift=UP * 0.2), run_time=0.8)
                self.describe("describe_moral", moral=self.tr("moral_unsettled"))
                self.wait(0.5)
            self.key_moment("end", settled=settled)
            return
        panels = self.s.panels
        std, swp = panels["standard"], panels["swapped"]
        names = VGroup(*[p.names for p in panels.values()])
        # the asking slot of each formula, boxed, and an arrow from it to the matrix standing there
        ask = VGroup(*[SurroundingRectangle(p.formula[ASK_SLOT], color=palette.FOCUS, buff=0.06)
                       for p in (std, swp)])
        arrows = VGroup(self._slot_arrow(std, ask[0], 0), self._slot_arrow(swp, ask[1], 2))
        # the content slot of each formula, dashed, and the matrix standing there dashed the same way
        content = VGroup(*[DashedVMobject(SurroundingRectangle(p.formula[CONTENT_SLOT], color=palette.FOCUS,
                                                               buff=0.06, stroke_width=3), num_dashes=14)
                           for p in (std, swp)])
        carriers = VGroup()
        for p, row in ((std, 2), (swp, 0)):      # W_V stands in the content slot on the left, W_Q on the right
            box = DashedVMobject(SurroundingRectangle(VGroup(p.names[row], p.tracks[row], p.values[row]),
                                                      color=palette.FOCUS, buff=0.12, stroke_width=3), num_dashes=40)
            tag = text(self.tr("carrier"), self.lang, size=20, color=palette.FOCUS)
            tag.next_to(box, DOWN, buff=0.06).align_to(box, RIGHT)
            carriers.add(VGroup(box, tag))
        with self.beat("outro_say") as sentence:
            t0 = self.renderer.time
            self.play(*[Emphasize(n, scale_factor=1.15) for n in names], run_time=0.8)
            self.wait_until(self.phrase_at(sentence, self.tr("ask_word"), t0) - 0.4, names)
            self.play(Create(ask), run_time=0.5)
            self.play(Create(arrows), run_time=0.9)
            self.key_moment("slots", slots=[_edges(b) for b in ask], slot_tex=[p.formula[ASK_SLOT].tex_string
                                                                                  for p in (std, swp)],
                            colors=[m.get_color().to_hex() for m in (*ask, *arrows)],
                            paths=[[(float(x), float(y)) for x, y, _ in a.get_all_points()] for a in arrows],
                            rows=[_edges(std.names[0]), _edges(swp.names[2])])
            self.wait_until(self.phrase_at(sentence, self.tr("content_word"), t0) - 0.4, arrows)
            self.play(Create(content), run_time=0.6)
            self.play(Create(carriers), run_time=0.8)
            self.key_moment("carriers", slot_tex=[p.formula[CONTENT_SLOT].tex_string for p in (std, swp)],
                            rows=[NAMES[2], NAMES[0]], boxes=[_edges(c[0]) for c in carriers],
                            names=[_edges(std.names[2]), _edges(swp.names[0])],
                            tags=[c[1].text for c in carriers], time=self.renderer.time)
            self.wait_until(self.phrase_at(sentence, self.tr("decides_word"), t0) - 0.4, content)
            self.play(FadeIn(moral, shift=UP * 0.2), *[Emphasize(b, scale_factor=1.15) for b in ask], run_time=0.8)
            # the matrix standing in each slot: W_ and the letter the formula shows there
            slot = {f"{kind}_{side}": f"W_{p.formula[part].tex_string[0]}" for kind, part in
                    (("ask", ASK_SLOT), ("carry", CONTENT_SLOT)) for side, p in (("std", std), ("swp", swp))}
            self.describe("describe_outro", **slot, carrier=self.tr("carrier"), moral=self.tr("moral"))
            self.focus_on(ask, arrows)
        self.key_moment("end", settled=settled)

    @staticmethod
    def _slot_arrow(panel: Panel, slot: Mobject, row: int) -> TipableVMobject:
        """From a formula's boxed ``slot`` to the box round slider ``row``: straight
        down when nothing stands between, else round the left of the names."""
        target = SurroundingRectangle(VGroup(panel.names[row], panel.tracks[row], panel.values[row]), buff=0.12)
        start = slot.get_bottom()
        arrow = _Path(color=palette.FOCUS, stroke_width=4)
        if row == 0:
            arrow.set_points_as_corners([start, [start[0], target.get_top()[1] + 0.02, 0]])
        else:
            left = target.get_left()[0]
            # down past the end label under the slot, then left over the first track and down the gap
            below = panel.ends[0].get_bottom()[1] - 0.12
            arrow.set_points_smoothly([start, [start[0] - 0.1, below, 0], [panel.ends[0].get_x(), below - 0.06, 0],
                                       [GAP_X + 0.05, 0.6, 0], [GAP_X, -0.2, 0], [left - 0.02, target.get_y(), 0]])
        arrow.add_tip(tip_length=0.2, tip_width=0.2)
        return arrow


class _Path(TipableVMobject):
    """A path that can carry an arrow tip."""


def _edges(mob: Mobject) -> list[float]:
    """left, bottom, right, top"""
    return [float(mob.get_left()[0]), float(mob.get_bottom()[1]), float(mob.get_right()[0]), float(mob.get_top()[1])]
