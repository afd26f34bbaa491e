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
    Create,
    Dot,
    FadeIn,
    Indicate,
    Line,
    MathTex,
    Mobject,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
    Write,
)

import qkv_math as qm
from qkv_lens.numbers import percent, plain_number, sci_text, tex_number
from qkv_lens.runs import training_runs
from qkv_math.training import Run
from scenes.kit import palette
from scenes.kit.glyphs import number_tex
from scenes.kit.motion import crossfade
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
        panels = self.s.panels
        with self.beat("probe_say"):
            self.play(*[FadeIn(panel.dots) for panel in panels.values()], run_time=0.4)
            self._show(0, run_time=1.0)
            # the sentence is about the sliders: highlight them, one panel at a
            # time (so each scales about its own centre); the beat's filler
            # then keeps highlighting them
            self.play(*[Indicate(VGroup(panel.tracks, panel.dots), scale_factor=1.06, color=palette.AREA)
                        for panel in panels.values()], run_time=0.8)

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
                                               color=palette.Q_GOLD, buff=0.12)
                    tag = text(self.tr("asker"), lang, size=20, color=palette.Q_GOLD)
                    tag.next_to(box, DOWN, buff=0.06).align_to(box, RIGHT)
                    badges.add(box, tag)
        names = {f: ", ".join(n.replace("_", "") for n in askers[f]) or "-" for f in runs}
        with self.beat("result_say", std=names["standard"], swp=names["swapped"],
                       q=plain_number(final["standard"]["W_Q"], 2, pad=True),
                       v=plain_number(final["swapped"]["W_V"], 2, pad=True),
                       acc_std=percent(runs["standard"].heldout_accuracy),
                       acc_swp=percent(runs["swapped"].heldout_accuracy)):
            self.play(Create(badges), run_time=1.0)
        self.key_moment("roles", askers=askers, settled=settled)

    def _outro(self, settled: bool) -> None:
        moral = text(self.tr("moral" if settled else "moral_unsettled"), self.lang, size=30,
                     color=palette.AREA if settled else palette.ALERT)
        moral.move_to([0, MORAL_BOTTOM, 0], aligned_edge=DOWN)
        with self.beat("outro_say" if settled else "outro_unsettled_say",
                       need=percent(qm.LEARNED_ACCURACY)):
            self.play(FadeIn(moral, shift=UP * 0.2), run_time=0.8)
            self.wait(0.5)
        self.key_moment("end", settled=settled)
