"""Scene 9, DotProductSoftmax: the dot product as alignment, softmax as
exp-then-normalise, and why attention divides by sqrt(d_k).

Every value comes from ``qkv_math`` (``dot_and_angle``, ``softmax``,
``dot_product_samples``, ``histogram``, ``saturation``) with the lesson's
vectors, scores, temperatures, dimensions and seed.

    manim -ql scenes/dot_product_softmax.py DotProductSoftmax
"""
from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    BarChart,
    FadeIn,
    FadeOut,
    MathTex,
    NumberPlane,
    ValueTracker,
    VGroup,
    Write,
    linear,
)

import qkv_math as qm
from scenes.kit import palette
from scenes.kit.charts import bar_values
from scenes.kit.displays import FastDecimal, set_shown, text, title
from scenes.kit.numbers import plain_number, tex_number
from scenes.kit.scene import LessonScene
from scenes.kit.wrap import wrapped_text


class DotProductSoftmax(LessonScene):
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

        arrow_a = Arrow(plane.c2p(0, 0), plane.c2p(*a), buff=0, color=palette.Q_GOLD, stroke_width=6)
        arrow_b = Arrow(plane.c2p(0, 0), plane.c2p(*b_vec()), buff=0, color=palette.K_TEAL, stroke_width=6)
        label_a = MathTex("a", color=palette.Q_GOLD, font_size=40).next_to(arrow_a.get_end(), UP, buff=0.1)
        label_b = MathTex("b", color=palette.K_TEAL, font_size=40)
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

        def update(_mob):
            b = b_vec()
            arrow_b.become(Arrow(plane.c2p(0, 0), plane.c2p(*b), buff=0, color=palette.K_TEAL, stroke_width=6))
            label_b.next_to(arrow_b.get_end(), DOWN if b[1] < 0 else UP, buff=0.1)
            dot, na, nb, ang = qm.dot_and_angle(a, b)
            for key, v in (("na", na), ("nb", nb), ("theta", math.degrees(ang)), ("dot", dot)):
                set_shown(nums[key], v)
            deg.next_to(nums["theta"], RIGHT, buff=0.05).align_to(nums["theta"], UP)

        driver = VGroup()
        self.add(driver)
        update(None)
        with self.beat("dot_say", focus=law):
            self.play(Write(heading), FadeIn(plane), FadeIn(arrow_a), FadeIn(label_a), FadeIn(arrow_b), FadeIn(label_b),
                      FadeIn(panel), FadeIn(deg), run_time=1.0)
            driver.add_updater(update)
            self.key_moment("aligned", **self._dot_probes(a, b_vec(), nums))
            for stop, name in ((math.pi / 2, "perpendicular"), (math.pi, "opposite")):
                self.play(theta.animate.set_value(stop), run_time=2.0, rate_func=linear)
                self.wait(0.5)
                self.key_moment(name, **self._dot_probes(a, b_vec(), nums))
            self.play(theta.animate.set_value(2 * math.pi), run_time=2.5, rate_func=linear)
        driver.clear_updaters()
        self.play(FadeOut(VGroup(plane, arrow_a, arrow_b, label_a, label_b, panel, deg)), run_time=0.6)

    @staticmethod
    def _dot_probes(a, b, nums):
        return {"a": a, "b": b, **{k: n.get_value() for k, n in nums.items()}}

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
                         bar_colors=[palette.Q_GOLD, palette.K_TEAL], y_axis_config={"font_size": 24})
            c.move_to([-2.0, -0.25, 0])
            return c

        state = {"chart": None, "labels": VGroup(), "step": text(" ", lang, size=28), "names": VGroup()}

        def show(values, key, top=None, **fields):
            chart = make_chart(values, top)
            new_step = wrapped_text(self.tr(key, **fields), lang, size=28, width=4.6, color=palette.AREA)
            new_step.move_to([4.3, 1.4, 0])
            labels = VGroup(*[MathTex(tex_number(v, 2, pad=True), font_size=28).next_to(
                chart.c2p(i + 0.5, max(v, 0.0)), UP, buff=0.12) for i, v in enumerate(values)])
            names = VGroup(*[MathTex(f"s_{{{i + 1}}}", font_size=32, color=palette.MUTED)
                             .next_to(chart.c2p(i + 0.5, min(0.0, float(np.min(values)))), DOWN, buff=0.2)
                             for i in range(n)])
            old = VGroup(*[m for m in (state["chart"], state["labels"], state["step"], state["names"]) if m])
            self.play(FadeOut(old), FadeIn(chart), FadeIn(names), FadeIn(new_step), run_time=0.9)
            self.play(FadeIn(labels), run_time=0.4)
            state.update(chart=chart, labels=labels, step=new_step, names=names)

        def probes():
            return dict(bars=bar_values(state["chart"]), labels=_texs(state["labels"]))

        with self.beat("softmax_say"):
            show(scores, "raw")
            self.key_moment("scores", **probes())
            show(expd, "exp")
            self.key_moment("exp", **probes())
            show(weights, "normalised", top=1.0, total=plain_number(float(weights.sum()), 2, pad=True))
            self.key_moment("weights", **probes())
        with self.beat("temperature_say"):
            for T in p.temperatures:
                show(qm.softmax(scores, temperature=float(T)), "temperature", top=1.0,
                     t=plain_number(float(T), 1, pad=True))
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

        def charts(limit, scale):
            group = VGroup()
            for d in dims:
                counts, _ = qm.histogram(samples[d] / (math.sqrt(d) if scale else 1.0), p.bins, limit)
                c = BarChart(list(counts / p.samples), y_range=[0, 0.3 if scale else 0.6, 0.1],
                             x_length=width, y_length=3.0, bar_colors=[palette.K_TEAL, palette.Q_GOLD],
                             bar_width=0.9, y_axis_config={"include_numbers": False})
                group.add(c)
            group.arrange(RIGHT, buff=0.7).move_to([0, -0.65, 0])
            return group

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

        raw = charts(limit, False)
        raw_caps = captions(raw, False)
        bound = tex_number(limit, 0)
        axis_note = MathTex(rf"q\cdot k \in [-{bound}, {bound}]", font_size=28,
                            color=palette.MUTED).next_to(raw, DOWN, buff=0.25)
        with self.beat("spread_say", focus=raw_caps, n=p.samples):
            self.play(FadeIn(raw), FadeIn(raw_caps), FadeIn(axis_note), run_time=1.2)
            self.wait(1.0)
        self.key_moment("spread", stds=[float(samples[d].std()) for d in dims], captions=_texs(raw_caps),
                        hist=[bar_values(c) for c in raw])
        scaled = charts(3.0, True)
        scaled_caps = captions(scaled, True)
        note = MathTex(r"q\cdot k / \sqrt{d_k} \in [-3, 3]", font_size=28, color=palette.MUTED)
        note.next_to(scaled, DOWN, buff=0.25)
        with self.beat("scaled_say", focus=scaled_caps):
            self.play(FadeOut(raw), FadeOut(raw_caps), FadeOut(axis_note), run_time=0.5)
            self.play(FadeIn(scaled), FadeIn(scaled_caps), FadeIn(note), run_time=1.0)
            self.wait(1.0)
        self.key_moment("scaled", captions=_texs(scaled_caps), hist=[bar_values(c) for c in scaled])

        d = max(dims)
        hard, soft = qm.saturation(d, p.saturation_tokens, p.seed)
        pair = VGroup()
        for w, key in ((hard, "unscaled"), (soft, "scaled_row")):
            c = BarChart(list(w), y_range=[0, 1, 0.25], x_length=5.0, y_length=3.0,
                         bar_colors=[palette.V_CORAL, palette.Q_GOLD], y_axis_config={"font_size": 22})
            cap = text(self.tr(key, d=d, top=plain_number(float(w.max()), 2, pad=True)), lang, size=24)
            if cap.width > 5.6:
                cap.scale_to_fit_width(5.6)
            pair.add(VGroup(cap, c).arrange(DOWN, buff=0.25))
        pair.arrange(RIGHT, buff=1.0).move_to([0, -0.55, 0])
        with self.beat("saturate_say", d=d):
            self.play(FadeOut(scaled), FadeOut(scaled_caps), FadeOut(note), run_time=0.5)
            self.play(FadeIn(pair), run_time=1.0)
            self.wait(1.5)
        self.key_moment("saturation", hard=bar_values(pair[0][1]), soft=bar_values(pair[1][1]),
                        captions=[g[0].text for g in pair])


def _texs(group) -> list[str]:
    return [m.get_tex_string() for m in group]


def _nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``raw``: a tick step."""
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
