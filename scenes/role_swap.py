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
    Arrow,
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
    TipableVMobject,
    Transform,
    VGroup,
    Write,
)

import qkv_math as qm
from qkv_lens.numbers import percent, plain_number, sci_text, tex_number
from qkv_lens.runs import training_runs
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

    def construct(self):
        runs = training_runs(self.params)
        heading = title(self.tr("title"), self.lang)
        panels = {f: Panel(f, self, x) for f, x in (("standard", -3.5), ("swapped", 3.55))}
        steps = [s.step for s in runs["standard"].snapshots]
        assert steps == [s.step for s in runs["swapped"].snapshots]
        self.s = _Stage(runs, steps, heading, panels)
        self._intro()
        self._swap()
        self._probe()
        self._same_start()
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

    def _show(self, k: int, run_time: float) -> None:
        """Snapshot k in both panels: the sliders move, the numbers and the step label change."""
        s = self.s
        anims, olds = [], []
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
            shown[f] = {"values": [v.get_tex_string() for v in values],
                        "stats": [line.text for line in stats]}
        label = text(self.tr("step", step=s.steps[k], steps=self.params.steps), self.lang, size=24)
        label.to_corner(UR, buff=0.4)
        olds.append(s.step_label)
        self.add(label)
        anims.append(crossfade(s.step_label, label))
        s.step_label = label
        self.play(*anims, run_time=run_time)
        self.remove(*olds)
        # the dots' probes as drawn, once their animations have finished
        for f, panel in s.panels.items():
            shown[f]["dots"] = [(d.get_center()[0] - panel.left) / TRACK for d in panel.dots]
        self.key_moment(f"snapshot_{k}", step=s.steps[k], **shown)

    # --- the beats ----------------------------------------------------------
    def _intro(self) -> None:
        std = self.s.panels["standard"]
        with self.beat("intro_say", focus=std.formula):
            self.play(Write(self.s.heading), run_time=0.8)
            self.play(FadeIn(std), run_time=1.2)

    def _swap(self) -> None:
        """The swapped formula is made from the standard one: a copy moves to
        the right panel's place, then its Q and V trade places along arcs."""
        std, swp = self.s.panels["standard"], self.s.panels["swapped"]
        moving = std.formula.copy()
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

    def _probe(self) -> None:
        """The sliders: what each reads (an arrow along the first track
        towards "whom I seek", the end labels boxed), then where they start."""
        panels = self.s.panels.values()
        with self.beat("probe_say") as sentence:
            at = self.cue_at(sentence, 0.4, 0.85)
            self.play(*[FadeIn(panel.dots) for panel in panels], run_time=0.4)
            self._show(0, run_time=1.0)
            towards = VGroup()      # per panel: towards "whom I seek" (white), towards "who I am" (grey)
            for panel in panels:
                track = panel.tracks[0][0]
                y = track.get_y() + 0.24
                mid = track.point_from_proportion(ASKS)[0]
                towards.add(Arrow([mid, y, 0], [track.get_end()[0], y, 0], buff=0, color=palette.FOCUS,
                                  stroke_width=4, tip_length=0.16, max_tip_length_to_length_ratio=1),
                            Arrow([mid, y, 0], [track.get_start()[0], y, 0], buff=0, color=palette.MUTED,
                                  stroke_width=3, tip_length=0.16, max_tip_length_to_length_ratio=1))
            ends = [e for p in panels for e in p.ends]
            self.wait_until(at[0], VGroup(*[p.dots for p in panels]))
            self.play(Create(towards), *[Emphasize(e, scale_factor=1.08) for e in ends], run_time=0.8)
            self.key_moment("probe_reads", towards=[(float(a.get_start()[0]), float(a.get_end()[0]),
                                                     a.get_color().to_hex()) for a in towards],
                            tracks=[_edges(p.tracks[0][0]) for p in panels],
                            wish_ends=[_edges(p.ends[1]) for p in panels])
            self.wait_until(at[1], towards)
            middle = VGroup(*[SurroundingRectangle(p.dots, color=palette.FOCUS, buff=0.08) for p in panels])
            self.play(FadeOut(towards), Create(middle), run_time=0.8)
            self.focus_on(middle)
        self.play(FadeOut(middle), run_time=0.4)

    def _same_start(self) -> None:
        """The same start (the sliders match) yet different losses: the same
        matrices in other places compute something else."""
        runs, panels = self.s.runs, self.s.panels
        loss = {f: sci_text(runs[f].snapshots[0].loss) for f in runs}
        with self.beat("start_say", l_std=loss["standard"], l_swp=loss["swapped"]) as sentence:
            at = self.cue_at(sentence, 0.45)
            boxes = VGroup(*[SurroundingRectangle(p.values, color=palette.FOCUS, buff=0.08) for p in panels.values()])
            self.play(Create(boxes), run_time=0.6)
            self.wait_until(at[0], boxes)
            on_loss = VGroup(*[SurroundingRectangle(p.stats[0], color=palette.FOCUS, buff=0.08)
                               for p in panels.values()])
            self.play(Transform(boxes, on_loss), run_time=0.8)
            self.key_moment("same_start", boxed=[p.stats[0].text for p in panels.values()],
                            boxes=[_edges(b) for b in boxes], losses=[_edges(p.stats[0]) for p in panels.values()])
            self.focus_on(boxes)
        self.play(FadeOut(boxes), run_time=0.4)

    def _train(self) -> tuple[dict[str, list[str]], bool]:
        """The snapshots, and the measured roles: which matrices read the wish
        in each run (the askers), and whether that is the swap of roles."""
        runs, steps = self.s.runs, self.s.steps
        # the narration claims a swap of roles only when both runs learned the
        # task and the probes show exactly that swap
        final = {f: runs[f].snapshots[-1].probes for f in runs}
        askers = {f: [name for name in NAMES if final[f][name] > ASKS] for f in runs}
        settled = (all(r.learned for r in runs.values())
                   and askers == {"standard": ["W_Q"], "swapped": ["W_V"]})

        half = max(1, len(steps) // 2)
        with self.beat("train_say"):
            for k in range(1, half):
                self._show(k, run_time=0.7)
        with self.beat("emerge_say" if settled else "watch_say"):
            for k in range(half, len(steps)):
                self._show(k, run_time=0.7)
        return askers, settled

    def _result(self, askers: dict[str, list[str]], settled: bool) -> None:
        """The askers badged, their final probes and the held-out accuracies said."""
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
        with self.beat("result_say", std=names["standard"], swp=names["swapped"],
                       q=plain_number(final["standard"]["W_Q"], 2, pad=True),
                       v=plain_number(final["swapped"]["W_V"], 2, pad=True),
                       acc_std=percent(runs["standard"].heldout_accuracy),
                       acc_swp=percent(runs["swapped"].heldout_accuracy)):
            self.play(Create(badges), run_time=1.0)
        self.s.badges = badges
        self.key_moment("roles", askers=askers, settled=settled)

    def _outro(self, settled: bool) -> None:
        moral = text(self.tr("moral" if settled else "moral_unsettled"), self.lang, size=30,
                     color=palette.FOCUS if settled else palette.ALERT)
        moral.move_to([0, MORAL_BOTTOM, 0], aligned_edge=DOWN)
        if not settled:
            with self.beat("outro_unsettled_say", need=percent(qm.LEARNED_ACCURACY)):
                self.play(FadeIn(moral, shift=UP * 0.2), run_time=0.8)
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
        content = VGroup(*[DashedVMobject(SurroundingRectangle(p.formula[CONTENT_SLOT], color=palette.FOCUS,
                                                               buff=0.06, stroke_width=2))
                           for p in (std, swp)])
        with self.beat("outro_say") as sentence:
            at = self.cue_at(sentence, 0.15, 0.45, 0.7)   # who asks, who carries content, what decides
            self.play(*[Emphasize(n, scale_factor=1.15) for n in names], run_time=0.8)
            self.wait_until(at[0], names)
            self.play(Create(ask), run_time=0.5)
            self.play(Create(arrows), run_time=0.9)
            self.key_moment("slots", slots=[_edges(b) for b in ask], slot_tex=[p.formula[ASK_SLOT].tex_string
                                                                                  for p in (std, swp)],
                            colors=[m.get_color().to_hex() for m in (*ask, *arrows)],
                            paths=[[(float(x), float(y)) for x, y, _ in a.get_all_points()] for a in arrows],
                            rows=[_edges(std.names[0]), _edges(swp.names[2])])
            self.wait_until(at[1], arrows)
            self.play(Create(content), run_time=0.6)
            self.wait_until(at[2], content)
            self.play(FadeIn(moral, shift=UP * 0.2), *[Emphasize(b, scale_factor=1.15) for b in ask], run_time=0.8)
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
