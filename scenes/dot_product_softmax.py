"""Scene 8, DotProductSoftmax: the tools attention is built from.  How a
query a (gold) compares with a key b (teal): their dot product reads
alignment; softmax as exp, total, then divide; why attention divides by
sqrt(d_k); last, the formula that puts the tools together.

Every value comes from ``qkv_math`` (``dot_and_angle``, ``softmax``,
``dot_product_samples``, ``histogram``, ``saturation``) with the lesson's
vectors, scores, temperatures, dimensions and seed.

    manim -ql scenes/dot_product_softmax.py DotProductSoftmax
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arc,
    Arrow,
    Axes,
    BarChart,
    Brace,
    DashedLine,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromCenter,
    Line,
    ManimColor,
    MathTex,
    Mobject,
    NumberPlane,
    Rectangle,
    ReplacementTransform,
    TransformFromCopy,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
    config,
    interpolate,
    linear,
)

import qkv_math as qm
from qkv_lens.lesson.keys import Integer, Integers, Number, Params, Vector
from qkv_lens.numbers import plain_number, tex_number
from scenes.kit import palette
from scenes.kit.charts import bar_values, baseline
from scenes.kit.glyphs import FastDecimal, NumberTex, number_tex, set_shown
from scenes.kit.layout import SIDES, bounds, lift_clear, overlaps, place_clear
from scenes.kit.legible import least_scale
from scenes.kit.live import LiveMap, Unchanged, aim_arrow
from scenes.kit.motion import Emphasize
from scenes.kit.scene import LessonScene
from scenes.kit.text import outline_labels, text, title, wrapped_text

AXIS_SIZE = 28                   # the numbers along a chart's axis
SCORE_BARS = palette.COLUMNS[2]  # scores and weights: not Q, K or V, so none of their colours
HIST_BARS = palette.COLUMNS[2]   # a histogram's bins (one colour: a bin is a bin)
ZOOM = 3.0                       # once scaled, the axis shows [-ZOOM, ZOOM]: three spreads of one
A_COLOR, B_COLOR = palette.Q_GOLD, palette.K_TEAL   # a is a query, b a key: the scene says so from its first sentence
START_DEG = 60                   # b starts this far from a, then turns to each case as its sentence starts
# the cases of the dot product, each with its sentence: b's angle from a (degrees) and the key moment there
CASES = (("same_say", 0, "aligned"), ("right_say", 90, "perpendicular"), ("apart_say", 180, "opposite"))
TURN = 1.5                       # seconds b takes to turn to a case
TOOLS_TEX = (r"\mathrm{softmax}", r"\Big(", r"\,Q", r"K^{\top}\,", r"/\sqrt{d_k}\,", r"\Big)", r"V")
THETA_RADII = (0.9, 1.3, 1.7, 2.1)   # the angle's name on its bisector, this far out (the first that is clear)


class DotProductParams(Params):
    """[dot_product_softmax]: the dot product, softmax and temperature, and
    why scores are divided by the root of d_k."""
    section = "dot_product_softmax"
    vector_a: tuple[Fraction, Fraction] = Vector("arrow", 2, nonzero="vector", doc="the fixed vector a")
    vector_b_length: Fraction = Number("arrow_length", doc="b has this length and turns a full circle")
    scores: tuple[Fraction, ...] = Vector("score", least=2, most=8, doc="one row of scores for the softmax bars")
    temperatures: tuple[Fraction, ...] = Vector("temperature", most=4, doc="shown one after another")
    d_k: tuple[int, ...] = Integers(1, 4096, least=1, most=3, shape="a list of 1 to 3 dimensions",
                                    doc="dimensions whose random dot products are sampled")
    samples: int = Integer(100, 200000, doc="samples per histogram")
    seed: int = Integer(0, 2**32 - 1, doc="the random samples are reproducible")
    bins: int = Integer(5, 60, doc="histogram bins")
    saturation_tokens: int = Integer(2, 8, doc="the row whose softmax saturates without the scaling")


@dataclass
class _Dot:
    """The dot product's picture: a fixed, b turning about the origin."""
    a: np.ndarray
    blen: float                # b's length
    base: float                # a's angle
    heading: Mobject
    plane: NumberPlane
    origin: np.ndarray
    a_hat: np.ndarray
    arrow_a: Arrow
    arrow_b: Arrow
    label_a: MathTex
    label_b: MathTex
    nums: dict[str, FastDecimal]   # the readouts |a|, |b|, theta, a . b
    deg: MathTex
    panel: VGroup              # the roles (a = q, b = k), the readouts, the law
    line_a: DashedLine
    arc: Arc
    theta_label: MathTex
    drop: DashedLine
    proj: Line


@dataclass
class _Bars:
    """The softmax chart on screen, with its numbers, names and step."""
    chart: BarChart | None
    labels: VGroup
    step: Mobject
    names: VGroup


@dataclass
class _Temps:
    """The scale of T under the step: the lesson's temperatures in order, each
    numbered; over each, as its sentence is said, a small chart of its weights."""
    line: VGroup               # the arrow of T, its name and a tick per temperature
    numbers: dict[float, Mobject]
    slots: dict[float, float]  # T: the x of its slot
    base: float                # the small charts' base line
    width: float               # of a small chart
    height: float = 1.7        # a weight of 1, in a small chart
    minis: VGroup = field(default_factory=VGroup)
    shown: dict[float, VGroup] = field(default_factory=dict)


@dataclass
class _Hist:
    """One histogram of random dot products per d_k, squeezed by 1 / sqrt(d_k)."""
    dims: list[int]
    samples: dict[int, np.ndarray]
    hists: dict[int, tuple]
    shares: dict[int, np.ndarray]  # each bin's share of the samples
    bin_w: float
    limit: float               # the axis runs over q.k in [-limit, limit]
    width: float               # of a panel
    squeeze: ValueTracker      # 0: raw q.k, 1: every q.k divided by sqrt(d_k)
    view: ValueTracker         # the axis shows q.k in [-view, view]: limit, then ZOOM once scaled
    count: ValueTracker        # how many of the samples are counted so far
    panels: VGroup
    ticks: VGroup              # each panel's numbers under its axis, for the range shown
    scales: VGroup             # each panel's height scale at its left edge: a line, its ticks and numbers
    bars: dict[int, VGroup] = field(default_factory=dict)
    shown: VGroup = field(default_factory=VGroup)   # the panels and their bars
    caps: VGroup = field(default_factory=VGroup)   # the captions shown, over the panels
    note: Mobject | None = None                    # the axis's range shown, under them


class DotProductSoftmax(LessonScene):
    params: DotProductParams
    chapter = 2
    number = 8
    sparse_moments = {"tools": "the closing formula stands alone, large, under the title: one line to take away"}

    def construct(self):
        heading = title(self.tr("title"), self.lang)
        self.dot_product(heading)
        self.softmax_bars()
        self.tools(self.scaling())

    # --- 1. the dot product reads alignment ------------------------------
    def dot_product(self, heading):
        d = self._dot_stage(heading)
        unchanged = Unchanged()

        def show(theta: float) -> None:
            whole = math.radians(round(math.degrees(theta)))   # whole degrees: the shown angle is the drawn one
            if not unchanged(whole):     # b has turned since the last frame
                self._draw_b(d, whole)

        live = LiveMap(show, start=math.radians(START_DEG), z=0)

        def probes():
            return {**self._dot_probes(d, self._b(d, _whole(live.path(live.tracker.get_value())))),
                    "at": self.renderer.time}

        self.add(live.driver)
        live.follow()
        drawn = VGroup(d.line_a, d.proj, d.drop, d.arc, d.theta_label)
        with self.beat("dot_say", focus=d.panel[0]) as sentence:
            answer_at = self.cue_starts(sentence)[-1]
            # the question: one word's query (a, gold) and another's key (b, teal)
            self.play(Write(heading), FadeIn(d.plane), FadeIn(d.line_a), run_time=1.0)
            self.play(GrowArrow(d.arrow_a), FadeIn(d.label_a), GrowArrow(d.arrow_b), FadeIn(d.label_b), run_time=1.0)
            # the answer: a is a query, b a key, and their dot product
            self.wait_until(answer_at, VGroup(d.arrow_a, d.arrow_b))
            self.add(d.proj, d.drop, d.arc, d.theta_label)
            live.attach()
            self.play(FadeIn(d.panel[0], shift=DOWN * 0.2), FadeIn(d.panel[1]), FadeIn(d.deg), FadeIn(drawn),
                      run_time=0.8)
            self.key_moment("start", roles=d.panel[0][1].tex_string, **probes())
            self.describe("describe_dot", a=d.a, **self._readouts(d), places=2)
        # each case in its own sentence: b turns to it as the sentence starts and stays there while it is read
        now = START_DEG
        for key, stop, name in CASES:
            with self.beat(key, focus=d.panel[1][3]):
                self.key_moment(f"{name}_from", **probes())
                live.play(self, _turn(math.radians(now), math.radians(stop)), TURN)
                self.remove(live.tracker)   # a number, not a picture: off the scene once it has moved b
                self.key_moment(name, **probes())
                self.describe(f"describe_{name}", **self._readouts(d), places=2)
                self.play(Emphasize(d.panel[1][3], scale_factor=1.15), run_time=0.8)
            now = stop
        # the law: written as it is said, while b goes once round the rest of the circle
        with self.beat("law_say", focus=d.panel[2]):
            self.play(Write(d.panel[2]), run_time=1.0)
            live.play(self, _turn(math.radians(now), math.radians(360)), 3.0)
            self.remove(live.tracker)
            self.key_moment("law", law=d.panel[2].tex_string, draw=lambda theta: self._draw_at(d, theta),
                            **probes())
            self.describe("describe_law", **self._readouts(d), places=2)
        live.driver.clear_updaters()
        self.play(FadeOut(VGroup(d.plane, d.arrow_a, d.arrow_b, d.label_a, d.label_b, d.panel, d.deg, drawn)),
                  run_time=0.6)

    def _dot_stage(self, heading: Mobject) -> _Dot:
        """The plane with a and b, a's line, and the panel: the roles, the
        readouts and the law (each shown as its sentence comes)."""
        p = self.params
        a = np.array(p.vector_a, dtype=float)
        blen = float(p.vector_b_length)
        unit = 1.0
        plane = NumberPlane(x_range=(-3, 3, 1), y_range=(-3, 3, 1), x_length=6 * unit, y_length=6 * unit,
                            background_line_style={"stroke_color": palette.MUTED, "stroke_opacity": 0.35})
        plane.scale(0.92).move_to([-3.4, -0.2, 0])   # clear of the subtitle band
        base = math.atan2(a[1], a[0])
        b = blen * np.array([math.cos(base + math.radians(START_DEG)), math.sin(base + math.radians(START_DEG))])

        arrow_a = Arrow(plane.c2p(0, 0), plane.c2p(*a), buff=0, color=A_COLOR, stroke_width=6)
        arrow_b = Arrow(plane.c2p(0, 0), plane.c2p(*b), buff=0, color=B_COLOR, stroke_width=6)
        label_a = MathTex("a", color=A_COLOR, font_size=40)
        a_out = np.array([*(a / np.linalg.norm(a)), 0.0])
        # over a's tip, or beyond it, or beside it: clear of the title and of the subtitles
        place_clear(label_a, arrow_a.get_end(), (UP, a_out, *SIDES), avoid=[bounds(heading)])
        label_b = MathTex("b", color=B_COLOR, font_size=40)
        place_clear(label_b, arrow_b.get_end(), (UP, np.array([*(b / np.linalg.norm(b)), 0.0]), *SIDES),
                    avoid=[bounds(heading), bounds(label_a)])
        law = MathTex("a", r"\cdot", "b", "=", "|a|", r"\,|b|", r"\cos\theta", font_size=44)
        _paint(law, {0: A_COLOR, 2: B_COLOR, 4: A_COLOR, 5: B_COLOR})
        rows = VGroup()
        nums = {}
        for key, parts, colors in (("na", (r"|a|", "="), {0: A_COLOR}), ("nb", (r"|b|", "="), {0: B_COLOR}),
                                   ("theta", (r"\theta", "="), {}),
                                   ("dot", ("a", r"\cdot", "b", "="), {0: A_COLOR, 2: B_COLOR})):
            num = FastDecimal(0, num_decimal_places=2 if key != "theta" else 0, font_size=40,
                              color=palette.FOCUS if key == "dot" else palette.INK)
            nums[key] = num
            rows.add(VGroup(_paint(MathTex(*parts, font_size=40), colors), num).arrange(RIGHT, buff=0.2))
        rows.arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        deg = MathTex(r"^\circ", font_size=40).next_to(nums["theta"], RIGHT, buff=0.05).align_to(nums["theta"], UP)
        # what a and b stand for in attention: a query and a key
        roles = VGroup(text(self.tr("roles"), self.lang, size=28, color=palette.MUTED),
                       _paint(MathTex("a", "=", "q", r",\quad", "b", "=", "k", font_size=40),
                              {0: A_COLOR, 2: A_COLOR, 4: B_COLOR, 6: B_COLOR})).arrange(RIGHT, buff=0.25)
        panel = VGroup(roles, rows, law).arrange(DOWN, aligned_edge=LEFT, buff=0.5).move_to([3.2, 0.2, 0])

        origin = plane.c2p(0, 0)
        a_hat = a / np.linalg.norm(a)
        span = 3.0 / max(abs(a_hat[0]), abs(a_hat[1]))   # the line of a, across the plane
        line_a = DashedLine(plane.c2p(*(-span * a_hat)), plane.c2p(*(span * a_hat)), color=A_COLOR,
                            stroke_width=2, stroke_opacity=0.5, dash_length=0.08)
        arc = Arc(radius=0.55, start_angle=base, angle=0.0, arc_center=origin, color=palette.INK, stroke_width=3)
        theta_label = MathTex(r"\theta", font_size=34)
        drop = DashedLine(origin, origin, color=B_COLOR, stroke_width=3, dash_length=0.08)
        proj = Line(origin, origin, color=B_COLOR, stroke_width=7)
        return _Dot(a, blen, base, heading, plane, origin, a_hat, arrow_a, arrow_b, label_a, label_b, nums,
                    deg, panel, line_a, arc, theta_label, drop, proj)

    @staticmethod
    def _readouts(d: _Dot) -> dict[str, float]:
        """The readouts as shown now (|a|, |b|, theta, a . b), for a description."""
        return {k: n.get_value() for k, n in d.nums.items()}

    @staticmethod
    def _b(d: _Dot, theta: float) -> np.ndarray:
        """b at angle ``theta`` from a."""
        ang = d.base + theta
        return d.blen * np.array([math.cos(ang), math.sin(ang)])

    def _draw_at(self, d: _Dot, theta: float) -> dict:
        """Draw b as a frame at angle ``theta`` draws it, and read back what is shown (a probe for tests)."""
        self._draw_b(d, _whole(theta))
        return self._dot_probes(d, self._b(d, _whole(theta)))

    def _draw_b(self, d: _Dot, theta: float) -> None:
        """Draw b at angle ``theta`` from a: its arrow and name, the readouts,
        the angle and b's projection onto a."""
        b = self._b(d, theta)
        plane, origin = d.plane, d.origin
        aim_arrow(d.arrow_b, plane.c2p(0, 0), plane.c2p(*b))
        dot, na, nb, ang = qm.dot_and_angle(d.a, b)
        for key, v in (("na", na), ("nb", nb), ("theta", math.degrees(ang)), ("dot", dot)):
            set_shown(d.nums[key], v)
        d.deg.next_to(d.nums["theta"], RIGHT, buff=0.05).align_to(d.nums["theta"], UP)
        # the angle: the short way from a to b, so its size is the angle of dot_and_angle
        turn = (theta + math.pi) % (2 * math.pi) - math.pi
        sign = 1.0 if turn >= 0 else -1.0
        if abs(math.degrees(ang) - 90) < 1e-6:   # a right angle: its square corner
            ua, ub = (np.array([math.cos(t), math.sin(t), 0.0]) for t in (d.base, d.base + sign * ang))
            d.arc.become(VMobject(color=palette.INK, stroke_width=3).set_points_as_corners(
                [origin + 0.4 * ua, origin + 0.4 * (ua + ub), origin + 0.4 * ub]))
        else:
            d.arc.become(Arc(radius=0.55, start_angle=d.base, angle=sign * ang, arc_center=origin,
                             color=palette.INK, stroke_width=3))
        mid = d.base + sign * ang / 2
        way = np.array([math.cos(mid), math.sin(mid), 0.0])
        # the angle's name on its bisector, further out when a's name is there
        for radius in THETA_RADII:
            d.theta_label.move_to(origin + radius * way)
            if not overlaps(bounds(d.theta_label), bounds(d.label_a)):
                break
        else:
            d.theta_label.move_to(origin + THETA_RADII[0] * way)
        # too narrow an angle has no room for its name: it fades out as b closes on a's line
        d.theta_label.set_opacity(float(np.clip((math.degrees(ang) - 8) / 10, 0, 1)))
        # b's name over (or under) its tip, else beyond it or beside it: clear of the other names
        b_out = np.array([*(b / np.linalg.norm(b)), 0.0])
        place_clear(d.label_b, d.arrow_b.get_end(), (DOWN if b[1] < 0 else UP, UP if b[1] < 0 else DOWN, b_out,
                                                     *SIDES), avoid=[bounds(m) for m in (d.label_a, d.theta_label,
                                                                                         d.heading)])
        # b's projection onto a: its foot on the line of a, |a| times its signed length is a . b
        foot = (dot / na) * d.a_hat
        d.drop.become(DashedLine(plane.c2p(*b), plane.c2p(*foot), color=B_COLOR, stroke_width=3,
                                 dash_length=0.08))
        d.proj.become(Line(origin, plane.c2p(*foot), color=B_COLOR, stroke_width=7))

    @staticmethod
    def _dot_probes(d: _Dot, b: np.ndarray) -> dict:
        """The readouts (their values, and ``shown``: the text each one shows),
        and what is drawn read back in plane coordinates: b's tip, the projection
        segment (start, end), the drop line's ends, the arc's angle; the colours of a and b."""
        def coords(point):
            return [float(v) for v in d.plane.p2c(point)[:2]]
        center = d.plane.c2p(0, 0)
        u, v = d.arc.get_start() - center, d.arc.get_end() - center
        arc_deg = math.degrees(math.acos(np.clip(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)), -1, 1)))
        return {"a": d.a, "b": b, "b_tip": coords(d.arrow_b.get_end()), **{k: n.get_value() for k, n in d.nums.items()},
                "shown": {k: n._get_num_string(n.get_value()) for k, n in d.nums.items()},
                "proj": [coords(d.proj.get_start()), coords(d.proj.get_end())],
                "drop": [coords(d.drop.get_start()), coords(d.drop.get_end())], "arc_deg": arc_deg,
                "colors": {name: m.get_color().to_hex() for name, m in (("a", d.arrow_a), ("b", d.arrow_b),
                                                                        ("a_name", d.label_a), ("b_name", d.label_b))}}

    # --- 2. softmax: exponentiate, then normalise ---------------------------
    def softmax_bars(self):
        p = self.params
        scores = np.array(p.scores, dtype=float)
        expd = np.exp(scores)
        weights = qm.softmax(scores)
        total = float(sum(Fraction(tex_number(float(v), 2)) for v in expd))   # what adding the shown numbers gives
        bars = _Bars(None, VGroup(), text(" ", self.lang, size=28), VGroup())

        def probes():
            return dict(bars=bar_values(bars.chart), labels=_texs(bars.labels), at=self.renderer.time)

        with self.beat("softmax_say"):
            self._show_bars(bars, scores, "raw", r"s_i")
            self.key_moment("scores", **probes())
            self.describe("describe_softmax", n=len(scores), scores=scores, places=2)
        # each step held while its own sentence is read: e^s, their total, each divided by it
        with self.beat("exp_say"):
            self._show_bars(bars, expd, "exp", r"e^{s_i} > 0", morph=True)
            self.key_moment("exp", **probes())
            self.describe("describe_exp", exps=expd, places=2)
        with self.beat("sum_say", names_change=True, total=plain_number(total, 2, pad=True)):
            self._add_up(bars, total)
            self.key_moment("sum", total=bars.step[2].tex_strings[2], **probes())
        with self.beat("divide_say"):
            self.key_moment("divide_start", **probes())
            self._divide(bars, weights)
            self.key_moment("weights", **probes())
            self.describe("describe_divide", total=total, weights=weights, sum=float(weights.sum()), places=2)
        temps = self._temperature_scale()
        self._ask_temperature(scores)
        self._temperatures(bars, temps, scores, probes)
        self.play(FadeOut(VGroup(bars.chart, bars.names, bars.labels, bars.step, temps.line, temps.minis,
                                 *temps.numbers.values())), run_time=0.6)

    def _ask_temperature(self, scores: np.ndarray) -> None:
        """Before the temperatures play: at the lesson's highest T (its
        lowest, when none is above 1), does the largest weight grow or
        shrink against plain softmax?  No question when every T is 1."""
        temps = sorted({float(T) for T in self.params.temperatures})
        t = temps[-1] if temps[-1] > 1 else temps[0]
        if t == 1:
            return
        grows = float(qm.softmax(scores, temperature=t).max()) > float(qm.softmax(scores).max())
        self.checkpoint("temperature_ask", choices=[self.tr("grow"), self.tr("shrink")], answer=0 if grows else 1,
                        t=plain_number(t, 2))

    def _temperature_scale(self) -> _Temps:
        """Under the step, a line of T going up to the right with the lesson's
        temperatures in order, each numbered in its slot (no chart over it yet)."""
        temps = sorted({float(T) for T in self.params.temperatures})
        left, right, y = 2.2, 6.5, -2.3
        pitch = (right - left - 0.5) / len(temps)
        slots = {t: left + pitch * (k + 0.5) for k, t in enumerate(temps)}
        arrow = Arrow([left, y, 0], [right, y, 0], buff=0, color=palette.MUTED, stroke_width=3,
                      max_tip_length_to_length_ratio=0.05)
        name = MathTex("T", font_size=36, color=palette.MUTED).next_to(arrow, RIGHT, buff=0.1)
        ticks = VGroup(*[Line([x, y - 0.08, 0], [x, y + 0.08, 0], color=palette.MUTED, stroke_width=3)
                         for x in slots.values()])
        numbers = {t: number_tex(tex_number(t, 1, pad=True), font_size=AXIS_SIZE, color=palette.MUTED)
                   .next_to([x, y, 0], DOWN, buff=0.18) for t, x in slots.items()}
        line = VGroup(arrow, name, ticks)
        if line.get_right()[0] > config.frame_width / 2 - 0.3:
            line.shift(LEFT * (line.get_right()[0] - config.frame_width / 2 + 0.3))
        return _Temps(line, numbers, slots, y + 0.12, min(1.1, pitch - 0.2))

    def _temperatures(self, bars: _Bars, temps: _Temps, scores: np.ndarray, probes) -> None:
        """The rule (the formula with T, the scale of T with the lesson's
        temperatures, every score's name over T), then, as the sentence goes
        on to what T does, the chart at each temperature in turn and a small
        copy of it left over that temperature on the scale."""
        with self.beat("temperature_say") as sentence:
            cues = self.cue_starts(sentence)
            self._show_step(bars, "temperature", r"w_i = \frac{e^{s_i / T}}{\sum_j e^{s_j / T}}",
                            GrowArrow(temps.line[0]), FadeIn(temps.line[1:]), FadeIn(VGroup(*temps.numbers.values())))
            over = VGroup(*[MathTex(rf"s_{{{i + 1}}} / T", font_size=36, color=palette.MUTED)
                            .move_to(m, aligned_edge=UP) for i, m in enumerate(bars.names)])
            outline_labels(over)   # a transform's target is never added, so it gets no outline by itself
            self.play(ReplacementTransform(bars.names, over), run_time=0.6)
            bars.names = over
            self.key_moment("temperature_rule", names=_texs(bars.names), formula=bars.step[1].tex_string,
                            numbers={t: _tex(m) for t, m in temps.numbers.items()})
            self.describe("describe_temperature", temps=list(temps.numbers), places=1)
            if len(cues) > 1:   # the cue that says what T does
                self.wait_until(cues[1], bars.step)
            for T in self.params.temperatures:
                t = float(T)
                w = qm.softmax(scores, temperature=t)
                self._show_bars(bars, w, "temperature",
                                rf"T = {tex_number(t, 1, pad=True)}:\ w_i \propto e^{{s_i / T}}",
                                top=1.0, morph=True, run_time=0.6)
                self.key_moment(f"temperature_{plain_number(t, 2, pad=True)}", t=t, **probes())
                mini = self._mini(temps, w, t)
                self.play(TransformFromCopy(VGroup(*bars.chart.bars), mini[1]), FadeIn(mini[0]),
                          temps.numbers[t].animate.set_color(palette.INK), run_time=0.5)
                temps.minis.add(mini)
                temps.shown[t] = mini
                # t as its tick reads it
                self.describe("describe_at_temperature", t=plain_number(t, 1), weights=w, places=2)
                self.key_moment(f"mini_{plain_number(t, 2, pad=True)}", heights=[b.height for b in mini[1]],
                                unit=temps.height, x=mini.get_x(), slot=temps.slots[t], at=self.renderer.time)

    @staticmethod
    def _mini(temps: _Temps, w: np.ndarray, t: float) -> VGroup:
        """The weights ``w`` as a small chart over ``t``'s slot: a base line and a bar per score (a weight of 1 is
        ``temps.height`` tall)."""
        x, n = temps.slots[t], len(w)
        pitch = temps.width / n
        base = Line([x - temps.width / 2, temps.base, 0], [x + temps.width / 2, temps.base, 0], color=palette.MUTED,
                    stroke_width=2)
        rects = VGroup(*[Rectangle(width=pitch * 0.8, height=max(float(v) * temps.height, 1e-3), stroke_width=0,
                                   fill_color=SCORE_BARS, fill_opacity=0.9)
                         .move_to([x - temps.width / 2 + pitch * (i + 0.5), temps.base, 0], aligned_edge=DOWN)
                         for i, v in enumerate(w)])
        return VGroup(base, rects)

    def _add_up(self, bars: _Bars, total: float) -> None:
        """The total of e^s (``total``, the sum of the numbers shown over the bars):
        under the step's words, each bar's number flies into it."""
        line = MathTex(r"\textstyle\sum_j e^{s_j}", "=", tex_number(total, 2, pad=True), font_size=40,
                       color=palette.FOCUS)
        words = wrapped_text(self.tr("sum"), self.lang, size=28, width=4.6, color=palette.FOCUS)
        step = VGroup(words, bars.step[1].copy(), line).arrange(DOWN, aligned_edge=LEFT, buff=0.35)
        step.move_to(bars.step, aligned_edge=UP + LEFT)
        outline_labels(step)   # shown in parts: the whole gets its outline here
        self.play(FadeOut(bars.step[0]), FadeIn(words), bars.step[1].animate.move_to(step[1]), FadeIn(line[:2]),
                  run_time=0.8)
        ghosts = [line[2].copy() for _ in bars.labels]   # every e^s slides into the total
        self.play(*[TransformFromCopy(lab, g) for lab, g in zip(bars.labels, ghosts)], run_time=1.2)
        self.remove(*ghosts)
        self.add(line[2])
        bars.step = VGroup(words, bars.step[1], line)

    def _divide(self, bars: _Bars, weights: np.ndarray) -> None:
        """Each e^s over the total: the total comes down into the division, then
        every bar is divided by it and becomes its weight (the weights sum to 1)."""
        words, exp_rule, line = bars.step
        div = MathTex("w_i", "=", r"e^{s_i}", r"\div", line.tex_strings[2], font_size=40, color=palette.FOCUS)
        new_words = wrapped_text(self.tr("normalised", total=plain_number(float(weights.sum()), 2, pad=True)),
                                 self.lang, size=28, width=4.6, color=palette.FOCUS)
        step = VGroup(new_words, line.copy(), div).arrange(DOWN, aligned_edge=LEFT, buff=0.35)
        step.move_to(bars.step, aligned_edge=UP + LEFT)
        outline_labels(step)
        self.play(FadeOut(words), FadeIn(new_words), FadeOut(exp_rule), line.animate.move_to(step[1]),
                  FadeIn(div[:4]), TransformFromCopy(line[2], div[4]), run_time=1.0)
        bars.step = VGroup(new_words, line, div)
        self._show_bars(bars, weights, None, None, top=1.0, morph=True)

    def _show_bars(self, bars: _Bars, values, key: str | None, tex: str | None, top: float | None = None,
                   morph: bool = False, run_time: float = 1.2, **fields) -> None:
        """Replace what ``bars`` shows by the chart of ``values`` with its step:
        the words of text ``key`` over the formula ``tex`` (None: the step stays).
        ``morph``: the same bars rise or fall to their new values, the names move with them."""
        chart = _bar_chart(values, top)
        new_step = self._step(key, tex, **fields) if key is not None and tex is not None else bars.step
        labels = _bar_labels(chart, values)
        names = VGroup(*[MathTex(f"s_{{{i + 1}}}", font_size=40, color=palette.MUTED)
                         .next_to(chart.c2p(i + 0.5, min(0.0, float(np.min(values)))), DOWN, buff=0.2)
                         for i in range(len(values))])
        if morph and bars.chart is not None:
            old = bars.chart
            outline_labels(chart)
            self.remove(old)
            self.add(old.x_axis, old.y_axis, old.bars)   # the bars move; the axes (and their numbers) cross-fade
            moved = [bars.names[i].animate.move_to(names[i], aligned_edge=UP) for i in range(len(names))]
            step = [FadeOut(bars.step), FadeIn(new_step)] if new_step is not bars.step else []
            self.play(ReplacementTransform(old.bars, chart.bars), FadeOut(VGroup(old.x_axis, old.y_axis)),
                      FadeIn(VGroup(chart.x_axis, chart.y_axis)), FadeOut(bars.labels), *moved, *step,
                      run_time=run_time)
            self.remove(chart.bars, chart.x_axis, chart.y_axis)
            self.add(chart)
            self.play(FadeIn(labels), run_time=run_time / 3)
            bars.chart, bars.labels, bars.step = chart, labels, new_step
            return
        old = VGroup(*[m for m in (bars.chart, bars.labels, bars.step, bars.names) if m])
        self.play(FadeOut(old), FadeIn(chart), FadeIn(names), FadeIn(new_step), run_time=0.9)
        self.play(FadeIn(labels), run_time=0.4)
        bars.chart, bars.labels, bars.step, bars.names = chart, labels, new_step, names

    def _step(self, key: str, tex: str, **fields) -> VGroup:
        """A step's words (text ``key``) over its formula ``tex``, right of the chart."""
        step = VGroup(wrapped_text(self.tr(key, **fields), self.lang, size=28, width=4.6, color=palette.FOCUS),
                      MathTex(tex, font_size=40, color=palette.FOCUS)).arrange(DOWN, aligned_edge=LEFT, buff=0.35)
        return step.move_to([4.3, 1.2, 0])

    def _show_step(self, bars: _Bars, key: str, tex: str, *also) -> None:
        """Only the step changes: its words and formula, the chart stays (``also`` alongside)."""
        new_step = self._step(key, tex)
        self.play(FadeOut(bars.step, shift=UP * 0.2), FadeIn(new_step, shift=UP * 0.2), *also, run_time=0.8)
        bars.step = new_step

    # --- 3. why divide by sqrt(d_k) -----------------------------------------
    def scaling(self) -> VGroup:
        """The spread of random dot products, its squeeze by sqrt(d_k), and the
        saturation it prevents; returns the saturation's charts (still on screen)."""
        h = self._histograms()
        self._spread(h)
        self._squeeze(h)
        return self._saturation(h)

    def _histograms(self) -> _Hist:
        """One histogram per d_k on one axis q.k in [-limit, limit]; bar heights
        are densities (share / bin width), so dividing by sqrt(d_k) narrows
        each bar and raises it, area kept."""
        p = self.params
        dims = list(p.d_k)
        samples = {d: qm.dot_product_samples(d, p.samples, p.seed) for d in dims}
        limit = 3.0 * math.sqrt(max(dims))
        width = min(5.4, (12.6 - 0.8 * (len(dims) - 1)) / len(dims) - 0.6)   # room for each height scale
        hists = {d: qm.histogram(samples[d], p.bins, limit) for d in dims}
        shares = {d: hists[d][0] / p.samples for d in dims}
        bin_w = 2 * limit / p.bins
        top = max(float(shares[d].max()) / (bin_w / math.sqrt(d)) for d in dims)
        y_top = math.ceil(top * 1.1 * 10) / 10
        squeeze = ValueTracker(0.0)
        panels = VGroup()
        for _d in dims:
            # the line at q.k = 0 marks the centre; the heights are read on the scale at the left edge
            ax = Axes(x_range=[-limit, limit, limit / 3], y_range=[0, y_top, 0.1], x_length=width, y_length=3.0,
                      tips=False, axis_config={"include_numbers": False, "color": palette.MUTED},
                      y_axis_config={"include_ticks": False, "stroke_opacity": 0.5})
            panels.add(ax)
        scales = VGroup(*[self._height_scale(ax, limit, y_top) for ax in panels])
        VGroup(*[VGroup(ax, sc) for ax, sc in zip(panels, scales)]).arrange(RIGHT, buff=0.8).move_to([0, -0.45, 0])
        h = _Hist(dims, samples, hists, shares, bin_w, limit, width, squeeze, ValueTracker(limit),
                  ValueTracker(p.samples), panels, self._ticks(panels, limit, limit), scales)
        for d, ax in zip(dims, panels):
            h.bars[d] = self._bar_group(h, d, ax)
        h.shown = VGroup(panels, scales, *h.bars.values())
        return h

    @staticmethod
    def _height_scale(ax: Axes, limit: float, y_top: float) -> VGroup:
        """At the left edge of ``ax``: a line up to ``y_top`` with a tick and its
        number every nice step (the bars' heights: share of the samples per unit of q.k)."""
        step = _nice_step(y_top / 3)
        digits = max(0, -math.floor(math.log10(step) + 1e-9))
        line = Line(ax.c2p(-limit, 0), ax.c2p(-limit, y_top), color=palette.MUTED, stroke_width=2)
        marks, numbers = VGroup(), VGroup()
        for k in range(1, int(y_top / step + 1e-9) + 1):
            at = ax.c2p(-limit, k * step)
            marks.add(Line(at + LEFT * 0.08, at + RIGHT * 0.08, color=palette.MUTED, stroke_width=2))
            numbers.add(number_tex(tex_number(k * step, digits), font_size=AXIS_SIZE, color=palette.MUTED)
                        .next_to(at, LEFT, buff=0.15))
        return VGroup(line, marks, numbers)

    @staticmethod
    def _ticks(panels: VGroup, limit: float, view: float) -> VGroup:
        """Under each axis, the value of q.k at each of its ticks when it shows [-view, view]."""
        def number(v: float) -> NumberTex:
            digits = 0 if abs(v - round(v)) < 1e-9 else 1
            return number_tex(tex_number(v, digits), font_size=AXIS_SIZE, color=palette.MUTED)

        pitch = abs(panels[0].c2p(limit / 3, 0)[0] - panels[0].c2p(0, 0)[0])
        widest = max(number(k * view / 3).width for k in range(-3, 4))
        # every tick numbered when the numbers fit between them, else the ends and zero
        ks = range(-3, 4) if widest + 0.15 <= pitch else (-3, 0, 3)
        ticks = VGroup()
        for ax in panels:
            for k in ks:
                ticks.add(number(k * view / 3).next_to(ax.c2p(k * limit / 3, 0), DOWN, buff=0.15))
        return ticks

    def _bar_group(self, h: _Hist, d: int, ax: Axes) -> VGroup:
        """The bars of d_k = ``d`` on ``ax``, following ``h.squeeze``, ``h.view`` and ``h.count``."""
        group = VGroup(*[VMobject(fill_opacity=0.85, stroke_width=1, stroke_color=palette.BACKGROUND,
                                  fill_color=HIST_BARS) for _ in range(self.params.bins)])

        unchanged = Unchanged()
        edges0 = h.hists[d][1]
        clipped = np.clip(h.samples[d], -h.limit, h.limit)

        def place(g):
            f = 1.0 + h.squeeze.get_value() * (1.0 / math.sqrt(d) - 1.0)
            z = h.limit / h.view.get_value()        # axis units per unit of q.k
            n = int(round(h.count.get_value()))
            if unchanged(f, z, n):
                return      # not squeezed, zoomed nor sampled since the last frame
            shares = np.histogram(clipped[:n], bins=edges0)[0] / self.params.samples if n < len(clipped) \
                else h.shares[d]
            edges = np.clip(edges0 * f * z, -h.limit, h.limit)
            for i, bar in enumerate(g):
                height = shares[i] / (h.bin_w * f)
                bl, br = ax.c2p(edges[i], 0), ax.c2p(edges[i + 1], 0)
                tr, tl = ax.c2p(edges[i + 1], height), ax.c2p(edges[i], height)
                bar.set_points_as_corners([bl, br, tr, tl, bl])
        place(group)
        group.add_updater(place)
        return group

    def _spread(self, h: _Hist) -> None:
        """Raw q.k: the spread grows as sqrt(d_k)."""
        raw_caps = self._captions(h, False)
        bound = tex_number(h.limit, 0)
        axis_note = MathTex(rf"q\cdot k \in [-{bound}, {bound}]", font_size=28,
                            color=palette.MUTED).next_to(VGroup(h.panels, h.ticks), DOWN, buff=0.15)
        with self.beat("spread_say", focus=raw_caps, n=self.params.samples):
            h.count.set_value(0)
            self.play(FadeIn(h.shown), FadeIn(h.ticks), FadeIn(axis_note), run_time=1.0)
            # the samples come in: each pair's q.k drops into its bin
            self.play(h.count.animate(rate_func=linear).set_value(self.params.samples), run_time=3.0)
            self.remove(h.count)   # the trackers are numbers the bars follow, not pictures
            self.play(FadeIn(raw_caps), run_time=0.6)
            self.describe("describe_spread", dims=h.dims, limit=round(h.limit), places=0)   # the axis's bound as shown
            self.describe("describe_spread_sigmas", stds=[float(h.samples[d].std()) for d in h.dims],
                          roots=[math.sqrt(d) for d in h.dims], places=2)
        h.caps, h.note = raw_caps, axis_note
        self.key_moment("spread", stds=[float(h.samples[d].std()) for d in h.dims], captions=_texs(raw_caps),
                        hist=[list(h.shares[d]) for d in h.dims], heights=_heights(h),
                        drawn=[_drawn(h, d, ax) for d, ax in zip(h.dims, h.panels)])

    def _squeeze(self, h: _Hist) -> None:
        """Every q.k divided by sqrt(d_k): the histograms narrow to one spread."""
        scaled_caps = self._captions(h, True)
        bound = tex_number(h.limit, 0)
        note = MathTex(rf"q\cdot k / \sqrt{{d_k}} \in [-{bound}, {bound}]", font_size=28, color=palette.MUTED)
        note.move_to(h.note)
        view = min(ZOOM, h.limit)
        zoomed = self._ticks(h.panels, h.limit, view)
        zoom_note = MathTex(rf"q\cdot k / \sqrt{{d_k}} \in [-{tex_number(view, 0)}, {tex_number(view, 0)}]",
                            font_size=28, color=palette.MUTED).move_to(h.note)
        with self.beat("scaled_say", focus=scaled_caps):
            # the captions cross-fade (morphing glyphs into other glyphs is unreadable on the way)
            self.play(h.squeeze.animate.set_value(1.0), FadeOut(h.caps), FadeIn(scaled_caps),
                      FadeOut(h.note), FadeIn(note), run_time=2.5)
            self.remove(h.squeeze)
            self.key_moment("scaled", captions=_texs(scaled_caps),
                            stds=[float((h.samples[d] / math.sqrt(d)).std()) for d in h.dims],
                            hist=[[float(v) for v in _drawn(h, d, ax)["areas"]] for d, ax in zip(h.dims, h.panels)],
                            drawn=[_drawn(h, d, ax) for d, ax in zip(h.dims, h.panels)])
            # the axis zooms in on the narrow spikes: both are one bell of spread one
            self.play(h.view.animate.set_value(view), FadeOut(h.ticks), FadeIn(zoomed),
                      FadeOut(note), FadeIn(zoom_note), run_time=2.0)
            self.remove(h.view)
            self.describe("describe_scaled", stds=[float((h.samples[d] / math.sqrt(d)).std()) for d in h.dims],
                          view=view, places=2)
        for g in h.bars.values():
            g.clear_updaters()
        h.caps, h.note, h.ticks = scaled_caps, zoom_note, zoomed
        self.key_moment("zoomed", view=view, ticks=_texs(zoomed), heights=_heights(h),
                        drawn=[_drawn(h, d, ax) for d, ax in zip(h.dims, h.panels)])

    def _captions(self, h: _Hist, scale: bool) -> VGroup:
        """Over each panel, its d_k and the spread of its q.k (``scale``: divided by sqrt(d_k))."""
        caps = VGroup()
        for d, c in zip(h.dims, h.panels):
            s = h.samples[d] / (math.sqrt(d) if scale else 1.0)
            cap = MathTex(rf"d_k = {d}:\ \sigma = {tex_number(float(s.std()), 2, pad=True)}" +
                          (r"" if scale else rf"\approx\sqrt{{{d}}} = {tex_number(math.sqrt(d), 2, pad=True)}"),
                          font_size=30)
            if cap.width > h.width:
                cap.scale_to_fit_width(h.width)
            caps.add(cap.next_to(c, UP, buff=0.2))
        return caps

    def _saturation(self, h: _Hist) -> VGroup:
        """The row of the largest d_k: its softmax saturates without the scaling."""
        p, lang = self.params, self.lang
        d = max(h.dims)
        hard, soft = qm.saturation(d, p.saturation_tokens, p.seed)
        pair = VGroup()
        root = rf"\sqrt{{d_k}} = \sqrt{{{d}}} = {tex_number(math.sqrt(d), 2)}"
        for w, key, tex, color in ((hard, "unscaled", rf"\sqrt{{d_k}}\ \ (d_k = {d})", palette.ALERT),
                                   (soft, "scaled_row", root, SCORE_BARS)):
            c = BarChart(list(w), y_range=[0, 1, 0.5], x_length=5.0, y_length=3.0,
                         bar_colors=[color], y_axis_config={"font_size": AXIS_SIZE})
            # the words in Pango, the formula and the number typeset
            cap = VGroup(VGroup(text(self.tr(key), lang, size=28), MathTex(tex, font_size=34)).arrange(RIGHT, buff=0.2),
                         VGroup(text(self.tr("largest"), lang, size=28),
                                number_tex(tex_number(float(w.max()), 2, pad=True), font_size=36, color=palette.FOCUS)
                                ).arrange(RIGHT, buff=0.2)).arrange(DOWN, buff=0.2)
            number = cap[1][1]   # the number's digits sit on the words' baseline
            number.shift(UP * (baseline(cap[1][0]) - number.get_bottom()[1]))
            if cap.width > 5.8:
                cap.scale_to_fit_width(5.8)
            pair.add(VGroup(cap, c).arrange(DOWN, buff=0.3))
        pair.arrange(RIGHT, buff=1.0).move_to([0, -0.55, 0])
        outline_labels(pair)   # its charts come in by a transform, not by add
        # both rows start even (every weight 1/n) and reach their softmax as the sentence names them
        even = []
        for g, color in zip(pair, (palette.ALERT, SCORE_BARS)):
            c = g[1]
            e = BarChart([1.0 / len(hard)] * len(hard), y_range=[0, 1, 0.5], x_length=5.0, y_length=3.0,
                         bar_colors=[color], y_axis_config={"font_size": AXIS_SIZE})
            even.append(e.shift(c.c2p(0, 0) - e.c2p(0, 0)))
        with self.beat("saturate_say", d=d) as sentence:
            starts = self.cue_starts(sentence)
            self.play(FadeOut(h.shown), FadeOut(h.caps), FadeOut(h.note), FadeOut(h.ticks), run_time=0.5)
            self.play(FadeIn(VGroup(*[g[0][0] for g in pair])), *[FadeIn(e) for e in even], run_time=1.0)
            self.key_moment("saturation_even", hard=bar_values(even[0]), soft=bar_values(even[1]))
            for k, t in enumerate((starts[-2] if len(starts) > 2 else self.renderer.time, starts[-1])):
                self.wait_until(t, even[k])
                self.play(ReplacementTransform(even[k], pair[k][1]), FadeIn(pair[k][0][1]), run_time=1.5)
            self.describe("describe_saturate", n=len(hard), even=1.0 / len(hard), d=d, root=math.sqrt(d), hard=hard,
                          hard_max=float(hard.max()), soft=soft, soft_max=float(soft.max()), places=2)
        self.key_moment("saturation", hard=bar_values(pair[0][1]), soft=bar_values(pair[1][1]),
                        captions=[[_tex(part) if isinstance(part, (MathTex, NumberTex)) else part.text
                                   for line in g[0] for part in line] for g in pair])
        return pair

    # --- 4. the tools together: what the next scene does with them ----------
    def tools(self, shown: VGroup) -> None:
        """The attention formula, each tool of this scene named under its part."""
        formula = MathTex(*TOOLS_TEX, font_size=72)
        for part, role in ((2, "Q"), (3, "K"), (6, "V")):
            formula[part].set_color(palette.QKV[role])
        formula.move_to([0, 0.3, 0])
        named = VGroup()
        for parts, key, side in (((2, 3), "tool_dot", DOWN), ((4,), "tool_scale", DOWN), ((0, 5), "tool_softmax", UP)):
            target = VGroup(*[formula[k] for k in range(parts[0], parts[-1] + 1)])
            brace = Brace(target, side, color=palette.MUTED)
            word = text(self.tr(key), self.lang, size=32, color=palette.INK)
            word.next_to(brace, side, buff=0.15)
            named.add(VGroup(brace, word))
        # the two names under the formula side by side, the second lower when they would touch
        if overlaps(bounds(named[0][1]), bounds(named[1][1]), pad=0.15):
            named[1][1].next_to(named[0][1], DOWN, buff=0.1).set_x(named[1][0].get_x())
        with self.beat("tools_say", focus=formula):
            self.play(FadeOut(shown), run_time=0.5)
            self.play(Write(formula), run_time=1.2)
            for group in named:
                self.play(GrowFromCenter(group[0]), FadeIn(group[1]), run_time=0.6)
            self.describe("describe_tools", dot=self.tr("tool_dot"), scale=self.tr("tool_scale"),
                          softmax=self.tr("tool_softmax"))
        self.key_moment("tools", formula=list(formula.tex_strings),
                        names=[g[1].text for g in named])


def _whole(theta: float) -> float:
    """``theta`` (radians) rounded to a whole degree: b is drawn only there,
    so the angle shown is the angle drawn and a . b = |a| |b| cos(theta) holds for the numbers shown."""
    return math.radians(round(math.degrees(theta)))


def _paint(tex: MathTex, colors: dict[int, ManimColor]) -> MathTex:
    """``tex`` with its parts ``colors`` keys in their colours."""
    for k, c in colors.items():
        tex[k].set_color(c)
    return tex


def _turn(start: float, stop: float) -> Callable[[float], float]:
    """b's angle from ``start`` to ``stop`` over [0, 1], as a ValueTracker runs it (manim's ``interpolate``)."""
    return lambda t: interpolate(start, stop, t)


def _bar_chart(values, top: float | None = None) -> BarChart:
    """A bar chart of ``values`` with its own y range (up to ``top`` if given)."""
    top = top or max(float(np.max(values)), 1e-9)
    low = math.floor(min(0.0, float(np.min(values))))
    step = _nice_step((top - low) / 4)
    c = BarChart(list(values), y_range=[low, math.ceil(top * 1.15 / step - 1e-9) * step, step],
                 x_length=min(7.0, 1.4 * len(values)), y_length=4.4,
                 bar_colors=[SCORE_BARS], y_axis_config={"font_size": AXIS_SIZE})
    c.move_to([-2.0, -0.25, 0])
    return c


def _bar_labels(chart: BarChart, values) -> VGroup:
    """Each bar's value over it: numbers wider than a bar's pitch shrink (never
    under the floor), then stand on two levels."""
    labels = VGroup(*[number_tex(tex_number(v, 2, pad=True), font_size=28) for v in values])
    pitch = chart.c2p(1, 0)[0] - chart.c2p(0, 0)[0]
    widest = max(lab.width for lab in labels)
    if widest > pitch - 0.1:   # one size for all: the widest fits, or is at the floor
        factor = max((pitch - 0.1) / widest, max(least_scale(lab) for lab in labels))
        for lab in labels:
            lab.scale(min(factor, 1.0))
    for i, (lab, v) in enumerate(zip(labels, values)):
        lab.next_to(chart.c2p(i + 0.5, max(v, 0.0)), UP, buff=0.12)
    lift_clear(labels, max(lab.height for lab in labels) + 0.1,
               avoid=[bounds(m) for m in chart.y_axis.numbers])
    return labels


def _drawn(h: _Hist, d: int, ax: Axes) -> dict:
    """The drawn bars of d_k = ``d`` read back in axis units: (left edge, right edge, areas, centres)."""
    g = h.bars[d]
    lefts = [float(ax.p2c(bar.get_corner(DOWN + LEFT))[0]) for bar in g]
    rights = [float(ax.p2c(bar.get_corner(DOWN + RIGHT))[0]) for bar in g]
    heights = [float(ax.p2c(bar.get_top())[1]) for bar in g]
    areas = [(r - le) * ht for le, r, ht in zip(lefts, rights, heights)]
    centres = [(r + le) / 2 for le, r in zip(lefts, rights)]
    return {"extent": [min(lefts), max(rights)], "areas": areas, "centres": centres}


def _heights(h: _Hist) -> list[list[tuple[str, float, float]]]:
    """Each panel's height scale read back: (number, the height its number stands at
    and the height of its tick, both in axis units)."""
    return [[(_tex(num), float(ax.p2c(num.get_center())[1]), float(ax.p2c(mark.get_center())[1]))
             for mark, num in zip(sc[1], sc[2])] for ax, sc in zip(h.panels, h.scales)]


def _tex(m: Mobject) -> str:
    """The TeX a number or formula shows."""
    return m.get_tex_string() if isinstance(m, NumberTex) else m.tex_string


def _texs(group) -> list[str]:
    return [_tex(m) for m in group]


def _nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``raw``: a tick step."""
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
