"""Scene 9, DotProductSoftmax: the dot product as alignment, softmax as
exp-then-normalise, and why attention divides by sqrt(d_k).

Every value comes from ``qkv_math`` (``dot_and_angle``, ``softmax``,
``dot_product_samples``, ``histogram``, ``saturation``) with the lesson's
vectors, scores, temperatures, dimensions and seed.

    manim -ql scenes/dot_product_softmax.py DotProductSoftmax
"""
from __future__ import annotations

import math
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
    DashedLine,
    FadeIn,
    FadeOut,
    Line,
    MathTex,
    NumberPlane,
    ValueTracker,
    VGroup,
    VMobject,
    Write,
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
from scenes.kit.live import Unchanged, aim_arrow
from scenes.kit.scene import LessonScene
from scenes.kit.text import text, title, wrapped_text

AXIS_SIZE = 28                   # the numbers along a chart's axis
SCORE_BARS = palette.COLUMNS[2]  # scores and weights: not Q, K or V, so none of their colours
HIST_BARS = (palette.COLUMNS[2], palette.COLUMNS[3])   # a histogram's bins, alternating
A_COLOR, B_COLOR = palette.INGREDIENTS[0], palette.INGREDIENTS[3]   # the vectors a and b
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


class DotProductSoftmax(LessonScene):
    params: DotProductParams
    chapter = 2
    number = 9
    def construct(self):
        heading = title(self.tr("title"), self.lang)
        self.dot_product(heading)
        self.softmax_bars()
        self.scaling()

    # --- 1. the dot product reads alignment ------------------------------
    def dot_product(self, heading):
        p = self.params
        a = np.array(p.vector_a, dtype=float)
        blen = float(p.vector_b_length)
        unit = 1.0
        plane = NumberPlane(x_range=(-3, 3, 1), y_range=(-3, 3, 1), x_length=6 * unit, y_length=6 * unit,
                            background_line_style={"stroke_color": palette.MUTED, "stroke_opacity": 0.35})
        plane.scale(0.92).move_to([-3.4, -0.2, 0])   # clear of the subtitle band
        base = math.atan2(a[1], a[0])
        theta = ValueTracker(0.0)  # angle of b measured from a

        def b_vec():
            ang = base + theta.get_value()
            return blen * np.array([math.cos(ang), math.sin(ang)])

        arrow_a = Arrow(plane.c2p(0, 0), plane.c2p(*a), buff=0, color=A_COLOR, stroke_width=6)
        arrow_b = Arrow(plane.c2p(0, 0), plane.c2p(*b_vec()), buff=0, color=B_COLOR, stroke_width=6)
        label_a = MathTex("a", color=A_COLOR, font_size=40)
        a_out = np.array([*(a / np.linalg.norm(a)), 0.0])
        # over a's tip, or beyond it, or beside it: clear of the title and of the subtitles
        place_clear(label_a, arrow_a.get_end(), (UP, a_out, *SIDES), avoid=[bounds(heading)])
        label_b = MathTex("b", color=B_COLOR, font_size=40)
        law = MathTex(r"a\cdot b = |a|\,|b|\cos\theta", font_size=44)
        rows = VGroup()
        nums = {}
        for key, tex in (("na", r"|a| ="), ("nb", r"|b| ="), ("theta", r"\theta ="), ("dot", r"a\cdot b =")):
            num = FastDecimal(0, num_decimal_places=2 if key != "theta" else 0, font_size=40,
                              color=palette.AREA if key == "dot" else palette.INK)
            nums[key] = num
            rows.add(VGroup(MathTex(tex, font_size=40), num).arrange(RIGHT, buff=0.2))
        rows.arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        deg = MathTex(r"^\circ", font_size=40).next_to(nums["theta"], RIGHT, buff=0.05).align_to(nums["theta"], UP)
        panel = VGroup(law, rows).arrange(DOWN, aligned_edge=LEFT, buff=0.5).move_to([3.2, 0.2, 0])

        origin = plane.c2p(0, 0)
        a_hat = a / np.linalg.norm(a)
        span = 3.0 / max(abs(a_hat[0]), abs(a_hat[1]))   # the line of a, across the plane
        line_a = DashedLine(plane.c2p(*(-span * a_hat)), plane.c2p(*(span * a_hat)), color=A_COLOR,
                            stroke_width=2, stroke_opacity=0.5, dash_length=0.08)
        arc = Arc(radius=0.55, start_angle=base, angle=0.0, arc_center=origin, color=palette.INK, stroke_width=3)
        theta_label = MathTex(r"\theta", font_size=34)
        drop = DashedLine(origin, origin, color=B_COLOR, stroke_width=3, dash_length=0.08)
        proj = Line(origin, origin, color=B_COLOR, stroke_width=7)

        unchanged = Unchanged()

        def update(_mob):
            if unchanged(theta.get_value()):
                return          # b has not turned since the last frame
            b = b_vec()
            aim_arrow(arrow_b, plane.c2p(0, 0), plane.c2p(*b))
            dot, na, nb, ang = qm.dot_and_angle(a, b)
            for key, v in (("na", na), ("nb", nb), ("theta", math.degrees(ang)), ("dot", dot)):
                set_shown(nums[key], v)
            deg.next_to(nums["theta"], RIGHT, buff=0.05).align_to(nums["theta"], UP)
            # the angle: the short way from a to b, so its size is the angle of dot_and_angle
            turn = (theta.get_value() + math.pi) % (2 * math.pi) - math.pi
            sign = 1.0 if turn >= 0 else -1.0
            arc.become(Arc(radius=0.55, start_angle=base, angle=sign * ang, arc_center=origin,
                           color=palette.INK, stroke_width=3))
            mid = base + sign * ang / 2
            way = np.array([math.cos(mid), math.sin(mid), 0.0])
            # the angle's name on its bisector, further out when a's name is there
            for radius in THETA_RADII:
                theta_label.move_to(origin + radius * way)
                if not overlaps(bounds(theta_label), bounds(label_a)):
                    break
            else:
                theta_label.move_to(origin + THETA_RADII[0] * way)
            # b's name over (or under) its tip, else beyond it or beside it: clear of the other names
            b_out = np.array([*(b / np.linalg.norm(b)), 0.0])
            place_clear(label_b, arrow_b.get_end(), (DOWN if b[1] < 0 else UP, UP if b[1] < 0 else DOWN, b_out,
                                                     *SIDES), avoid=[bounds(m) for m in (label_a, theta_label,
                                                                                         heading)])
            # b's projection onto a: its foot on the line of a, |a| times its signed length is a . b
            foot = (dot / na) * a_hat
            drop.become(DashedLine(plane.c2p(*b), plane.c2p(*foot), color=B_COLOR, stroke_width=3,
                                   dash_length=0.08))
            proj.become(Line(origin, plane.c2p(*foot), color=B_COLOR, stroke_width=7))

        driver = VGroup()
        self.add(driver)
        update(None)
        drawn = VGroup(line_a, proj, drop, arc, theta_label)
        with self.beat("dot_say", focus=law):
            self.play(Write(heading), FadeIn(plane), FadeIn(line_a), FadeIn(arrow_a), FadeIn(label_a),
                      FadeIn(arrow_b), FadeIn(label_b), FadeIn(panel), FadeIn(deg), run_time=1.0)
            self.add(proj, drop, arc, theta_label)
            driver.add_updater(update)
            self.key_moment("aligned", **self._dot_probes(a, b_vec(), nums, plane, arc, proj, drop))
            for stop, name in ((math.pi / 3, "acute"), (math.pi / 2, "perpendicular"),
                               (2 * math.pi / 3, "obtuse"), (math.pi, "opposite")):
                self.play(theta.animate.set_value(stop), run_time=1.2, rate_func=linear)
                self.wait(0.4)
                self.key_moment(name, **self._dot_probes(a, b_vec(), nums, plane, arc, proj, drop))
            self.play(theta.animate.set_value(2 * math.pi), run_time=2.5, rate_func=linear)
        driver.clear_updaters()
        self.play(FadeOut(VGroup(plane, arrow_a, arrow_b, label_a, label_b, panel, deg, drawn)), run_time=0.6)

    @staticmethod
    def _dot_probes(a, b, nums, plane, arc, proj, drop):
        """The readouts, and what is drawn read back in plane coordinates: the
        projection segment (start, end), the drop line's ends and the arc's angle."""
        def coords(point):
            return [float(v) for v in plane.p2c(point)[:2]]
        center = plane.c2p(0, 0)
        u, v = arc.get_start() - center, arc.get_end() - center
        arc_deg = math.degrees(math.acos(np.clip(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)), -1, 1)))
        return {"a": a, "b": b, **{k: n.get_value() for k, n in nums.items()},
                "proj": [coords(proj.get_start()), coords(proj.get_end())],
                "drop": [coords(drop.get_start()), coords(drop.get_end())], "arc_deg": arc_deg}

    # --- 2. softmax: exponentiate, then normalise ---------------------------
    def softmax_bars(self):
        p, lang = self.params, self.lang
        scores = np.array(p.scores, dtype=float)
        n = len(scores)
        expd = np.exp(scores)
        weights = qm.softmax(scores)

        def make_chart(values, top=None):
            """A bar chart of ``values`` with its own y range (up to ``top`` if given)."""
            top = top or max(float(np.max(values)), 1e-9)
            low = math.floor(min(0.0, float(np.min(values))))
            step = _nice_step((top - low) / 4)
            c = BarChart(list(values), y_range=[low, math.ceil(top * 1.15 / step - 1e-9) * step, step],
                         x_length=min(7.0, 1.4 * n), y_length=4.4,
                         bar_colors=[SCORE_BARS], y_axis_config={"font_size": AXIS_SIZE})
            c.move_to([-2.0, -0.25, 0])
            return c

        state = {"chart": None, "labels": VGroup(), "step": text(" ", lang, size=28), "names": VGroup()}

        def show(values, key, tex, top=None, **fields):
            """The chart of ``values`` with its step: the words of text ``key`` over the formula ``tex``."""
            chart = make_chart(values, top)
            new_step = VGroup(wrapped_text(self.tr(key, **fields), lang, size=28, width=4.6, color=palette.AREA),
                              MathTex(tex, font_size=40, color=palette.AREA)).arrange(DOWN, aligned_edge=LEFT,
                                                                                      buff=0.35)
            new_step.move_to([4.3, 1.2, 0])
            labels = VGroup(*[number_tex(tex_number(v, 2, pad=True), font_size=28) for v in values])
            # numbers wider than a bar's pitch shrink (never under the floor), then stand on two levels
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
            names = VGroup(*[MathTex(f"s_{{{i + 1}}}", font_size=40, color=palette.MUTED)
                             .next_to(chart.c2p(i + 0.5, min(0.0, float(np.min(values)))), DOWN, buff=0.2)
                             for i in range(n)])
            old = VGroup(*[m for m in (state["chart"], state["labels"], state["step"], state["names"]) if m])
            self.play(FadeOut(old), FadeIn(chart), FadeIn(names), FadeIn(new_step), run_time=0.9)
            self.play(FadeIn(labels), run_time=0.4)
            state.update(chart=chart, labels=labels, step=new_step, names=names)

        def probes():
            return dict(bars=bar_values(state["chart"]), labels=_texs(state["labels"]))

        with self.beat("softmax_say"):
            show(scores, "raw", r"s_i")
            self.key_moment("scores", **probes())
            show(expd, "exp", r"e^{s_i} > 0")
            self.key_moment("exp", **probes())
            show(weights, "normalised", r"w_i = \frac{e^{s_i}}{\sum_j e^{s_j}}", top=1.0,
                 total=plain_number(float(weights.sum()), 2, pad=True))
            self.key_moment("weights", **probes())
        with self.beat("temperature_say"):
            for T in p.temperatures:
                show(qm.softmax(scores, temperature=float(T)), "temperature",
                     rf"T = {tex_number(float(T), 1, pad=True)}:\ w_i \propto e^{{s_i / T}}", top=1.0)
                self.wait(0.4)
                self.key_moment(f"temperature_{plain_number(float(T), 2, pad=True)}", t=float(T), **probes())
        self.play(FadeOut(VGroup(state["chart"], state["names"], state["labels"], state["step"])),
                  run_time=0.6)

    # --- 3. why divide by sqrt(d_k) -----------------------------------------
    def scaling(self):
        p, lang = self.params, self.lang
        dims = list(p.d_k)
        samples = {d: qm.dot_product_samples(d, p.samples, p.seed) for d in dims}
        limit = 3.0 * math.sqrt(max(dims))
        width = min(5.6, 12.6 / len(dims) - 0.6)
        # one histogram per d_k on one axis q.k in [-limit, limit]; bar heights are densities
        # (share / bin width), so dividing by sqrt(d_k) narrows each bar and raises it, area kept
        hists = {d: qm.histogram(samples[d], p.bins, limit) for d in dims}
        shares = {d: hists[d][0] / p.samples for d in dims}
        bin_w = 2 * limit / p.bins
        top = max(float(shares[d].max()) / (bin_w / math.sqrt(d)) for d in dims)
        y_top = math.ceil(top * 1.1 * 10) / 10
        squeeze = ValueTracker(0.0)   # 0: raw q.k, 1: every q.k divided by sqrt(d_k)
        panels, bars = VGroup(), {}
        for _d in dims:
            ax = Axes(x_range=[-limit, limit, limit / 3], y_range=[0, y_top, 0.1], x_length=width, y_length=3.0,
                      tips=False, axis_config={"include_numbers": False, "color": palette.MUTED})
            panels.add(ax)
        panels.arrange(RIGHT, buff=0.7).move_to([0, -0.65, 0])

        def factor(d):
            return 1.0 + squeeze.get_value() * (1.0 / math.sqrt(d) - 1.0)

        def bar_group(d, ax):
            group = VGroup(*[VMobject(fill_opacity=0.85, stroke_width=1,
                                      color=HIST_BARS[i % 2]) for i in range(p.bins)])

            unchanged = Unchanged()

            def place(g):
                f = factor(d)
                if unchanged(f):
                    return      # not squeezed since the last frame
                edges = hists[d][1] * f
                for i, bar in enumerate(g):
                    h = shares[d][i] / (bin_w * f)
                    bl, br = ax.c2p(edges[i], 0), ax.c2p(edges[i + 1], 0)
                    tr, tl = ax.c2p(edges[i + 1], h), ax.c2p(edges[i], h)
                    bar.set_points_as_corners([bl, br, tr, tl, bl])
            place(group)
            group.add_updater(place)
            return group

        for d, ax in zip(dims, panels):
            bars[d] = bar_group(d, ax)
        shown = VGroup(panels, *bars.values())

        def drawn(d, ax):
            """The drawn bars read back in axis units: (left edge, right edge, areas, centres)."""
            g = bars[d]
            lefts = [float(ax.p2c(bar.get_corner(DOWN + LEFT))[0]) for bar in g]
            rights = [float(ax.p2c(bar.get_corner(DOWN + RIGHT))[0]) for bar in g]
            heights = [float(ax.p2c(bar.get_top())[1]) for bar in g]
            areas = [(r - le) * h for le, r, h in zip(lefts, rights, heights)]
            centres = [(r + le) / 2 for le, r in zip(lefts, rights)]
            return {"extent": [min(lefts), max(rights)], "areas": areas, "centres": centres}

        def captions(group, scale):
            caps = VGroup()
            for d, c in zip(dims, group):
                s = samples[d] / (math.sqrt(d) if scale else 1.0)
                cap = MathTex(rf"d_k = {d}:\ \sigma = {tex_number(float(s.std()), 2, pad=True)}" +
                              (r"" if scale else rf"\approx\sqrt{{{d}}} = {tex_number(math.sqrt(d), 2, pad=True)}"),
                              font_size=30)
                if cap.width > width:
                    cap.scale_to_fit_width(width)
                caps.add(cap.next_to(c, UP, buff=0.2))
            return caps

        raw_caps = captions(panels, False)
        bound = tex_number(limit, 0)
        axis_note = MathTex(rf"q\cdot k \in [-{bound}, {bound}]", font_size=28,
                            color=palette.MUTED).next_to(panels, DOWN, buff=0.25)
        with self.beat("spread_say", focus=raw_caps, n=p.samples):
            self.play(FadeIn(shown), FadeIn(raw_caps), FadeIn(axis_note), run_time=1.2)
            self.wait(1.0)
        self.key_moment("spread", stds=[float(samples[d].std()) for d in dims], captions=_texs(raw_caps),
                        hist=[list(shares[d]) for d in dims],
                        drawn=[drawn(d, ax) for d, ax in zip(dims, panels)])
        scaled_caps = captions(panels, True)
        note = MathTex(rf"q\cdot k / \sqrt{{d_k}} \in [-{bound}, {bound}]", font_size=28, color=palette.MUTED)
        note.next_to(panels, DOWN, buff=0.25)
        with self.beat("scaled_say", focus=scaled_caps):
            # the captions cross-fade (morphing glyphs into other glyphs is unreadable on the way)
            self.play(squeeze.animate.set_value(1.0), FadeOut(raw_caps), FadeIn(scaled_caps),
                      FadeOut(axis_note), FadeIn(note), run_time=2.5)
            self.wait(1.0)
        for g in bars.values():
            g.clear_updaters()
        self.key_moment("scaled", captions=_texs(scaled_caps),
                        stds=[float((samples[d] / math.sqrt(d)).std()) for d in dims],
                        hist=[[float(v) for v in drawn(d, ax)["areas"]] for d, ax in zip(dims, panels)],
                        drawn=[drawn(d, ax) for d, ax in zip(dims, panels)])
        scaled = shown

        d = max(dims)
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
                                number_tex(tex_number(float(w.max()), 2, pad=True), font_size=36, color=palette.AREA)
                                ).arrange(RIGHT, buff=0.2)).arrange(DOWN, buff=0.2)
            number = cap[1][1]   # the number's digits sit on the words' baseline
            number.shift(UP * (baseline(cap[1][0]) - number.get_bottom()[1]))
            if cap.width > 5.8:
                cap.scale_to_fit_width(5.8)
            pair.add(VGroup(cap, c).arrange(DOWN, buff=0.3))
        pair.arrange(RIGHT, buff=1.0).move_to([0, -0.55, 0])
        with self.beat("saturate_say", d=d):
            self.play(FadeOut(scaled), FadeOut(scaled_caps), FadeOut(note), run_time=0.5)
            self.play(FadeIn(pair), run_time=1.0)
            self.wait(1.5)
        self.key_moment("saturation", hard=bar_values(pair[0][1]), soft=bar_values(pair[1][1]),
                        captions=[[part.get_tex_string() if isinstance(part, (MathTex, NumberTex)) else part.text
                                   for line in g[0] for part in line] for g in pair])


def _texs(group) -> list[str]:
    return [m.get_tex_string() for m in group]


def _nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``raw``: a tick step."""
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
