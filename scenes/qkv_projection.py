"""Scene 7, QKVProjection: one word, three filters.

The focus token's embedding x (a row over named traits) is multiplied by
W_Q, W_K and W_V (heat-maps, one row per trait) into q, k and v, each drawn
as labelled bars in its own colour.  All numbers from ``qkv_math.project``.

    manim -ql scenes/qkv_projection.py QKVProjection
"""
from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    MathTex,
    SurroundingRectangle,
    VGroup,
    Write,
)

import qkv_math as qm
from scenes.kit import palette
from scenes.kit.charts import HeatMap, TraitBars
from scenes.kit.displays import number_tex, text, title
from scenes.kit.numbers import tex_number
from scenes.kit.scene import LessonScene
from scenes.kit.sections import AttentionParams

HEAT_SIZE = 22      # W's column names (its numbers 4 points larger)
ROLES = tuple((role.lower(), f"W_{role}", color) for role, color in palette.QKV.items())  # ("q", "W_Q", gold), ...


class QKVProjection(LessonScene):
    params: AttentionParams
    chapter = 2
    number = 7
    def construct(self):
        p, lang = self.params, self.lang
        X, *Ws = p.arrays()
        mats = dict(zip(("W_Q", "W_K", "W_V"), Ws))
        Q, K, V = qm.project(X, *Ws)
        x = X[p.focus]
        results = {"q": Q[p.focus], "k": K[p.focus], "v": V[p.focus]}
        word = p.tokens[p.focus].name(lang)
        traits = [t.name(lang) for t in p.traits]
        dims = {"q": [d.name(lang) for d in p.qk_dims], "k": [d.name(lang) for d in p.qk_dims],
                "v": [d.name(lang) for d in p.v_dims]}

        heading = title(self.tr("title"), lang)
        word_label = VGroup(text(word, lang, size=40, color=palette.EMBED),
                            MathTex(r"x", font_size=44, color=palette.EMBED)).arrange(RIGHT, buff=0.3)
        row = 0.46 if len(traits) <= 8 else 3.7 / len(traits)
        x_bars = TraitBars(traits, x, lang, palette.EMBED, unit=1.0, row=row, size=24)
        left = VGroup(word_label, x_bars).arrange(DOWN, aligned_edge=LEFT, buff=0.5)
        left.next_to(heading, DOWN, aligned_edge=LEFT, buff=0.35)

        with self.beat("intro_say", word=word):
            self.play(Write(heading), run_time=0.8)
            self.play(FadeIn(word_label), FadeIn(x_bars.labels), FadeIn(x_bars.axis), run_time=0.8)
            self.play(*x_bars.grow(), run_time=1.2)
        self.key_moment("embedding", x=x_bars.shown_values())

        # The q, k, v column on the right, laid out whole before anything shows.
        right = {}
        for name, _, color in ROLES:
            bars = TraitBars(dims[name], results[name], lang, color, unit=0.7, row=0.4, size=24)
            head = VGroup(MathTex(rf"{name} = x\,W_{{{name.upper()}}}", font_size=36, color=color),
                          text(self.tr(f"{name}_role"), lang, size=24, color=color)).arrange(RIGHT, buff=0.3)
            bars.next_to(head, DOWN, buff=0.2).align_to(head, LEFT).shift(RIGHT * 0.3)
            right[name] = (head, bars)
        # the three zero lines on one vertical, so q, k and v read as one column
        offset = max(bars.axis.get_x() - head.get_left()[0] for head, bars in right.values())
        for head, bars in right.values():
            bars.shift(RIGHT * (offset - (bars.axis.get_x() - head.get_left()[0])))
        column = VGroup(*[VGroup(*hb) for hb in right.values()]).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        column.to_edge(RIGHT, buff=0.3).align_to(word_label, UP)
        # W's columns wide enough for their names at a readable size (as far as the gap allows)
        # (the products and their lane take the last 1.1 of the gap), the heat-map centred in the rest
        gap_left, gap_right = x_bars.get_right()[0] + 0.3, column.get_left()[0] - 1.1
        names_w = max(text(d, lang, size=HEAT_SIZE).width for ds in dims.values() for d in ds) / 0.92
        cols = max(len(d) for d in dims.values())
        cell_w = float(np.clip(names_w, 1.0, (gap_right - gap_left) / cols))
        heat_left = gap_left + (gap_right - gap_left - cols * cell_w) / 2

        right_groups = VGroup()
        shown = {}
        heat = None
        for name, wname, color in ROLES:
            # W's rows level with x's rows (x's trait names name them both), right of the x bars
            new_heat = HeatMap(mats[wname], traits, dims[name], lang, color, cell=row, cell_width=cell_w,
                               size=HEAT_SIZE, name=rf"W_{{{name.upper()}}}", show_rows=False)
            new_heat.shift((heat_left - new_heat.cells.get_left()[0]) * RIGHT)
            new_heat.shift((x_bars.bars[0].get_center()[1] - new_heat.cells[0].get_center()[1]) * UP)
            head, bars = right[name]
            group = VGroup(head, bars)
            with self.beat(f"{name}_say", word=word):
                if heat is None:
                    self.play(FadeIn(new_heat), run_time=0.8)
                else:
                    self.play(FadeOut(heat), FadeIn(new_heat), run_time=0.8)
                heat = new_heat
                box = SurroundingRectangle(VGroup(x_bars.bars, x_bars.numbers), color=color, buff=0.08)
                self.play(FadeIn(box), Indicate(new_heat.title, color=color), run_time=0.7)
                self.play(FadeIn(head), FadeIn(bars.labels), FadeIn(bars.axis), run_time=0.6)
                self.play(FadeOut(box), run_time=0.3)

            # the product itself: each trait's share flows from its row of W into the bar it feeds
            work = qm.worked_product(p.embeddings[p.focus], getattr(p, wname))
            feeds = {j: [i for i, term in enumerate(col.terms) if term.product != 0]
                     for j, col in enumerate(work.columns)}
            say, fields = self.flow_text(name, wname, feeds, traits, dims[name])
            flows = []
            with self.beat(say, focus=bars.bars, **fields):
                for j in [j for j in feeds if feeds[j]]:
                    flows += self.flow_into(j, feeds[j], work.columns[j], x_bars, new_heat, bars, color,
                                            moment=f"{name}_flow_{j}")
                rest = [j for j in feeds if not feeds[j]]
                if rest:   # bars nothing feeds stay at zero
                    self.play(*[a for j in rest for a in self.grow_bar(bars, j)], run_time=0.6)
            right_groups.add(group)
            shown[name] = bars
            self.key_moment(name, x=x_bars.shown_values(), heat=new_heat.values.copy(),
                            heat_numbers=[n.get_tex_string() for n in new_heat.numbers],
                            flows=flows, heat_rows=[new_heat.cells[i * new_heat.values.shape[1]].get_center()[1]
                                                    for i in range(new_heat.values.shape[0])],
                            bar_rows=[b.get_center()[1] for b in bars.bars],
                            **{f"{k}_bars": b.shown_values() for k, b in shown.items()})
        with self.beat("outro_say", word=word):
            self.play(FadeOut(heat), run_time=0.6)
            outro = text(self.tr("outro"), lang, size=30, color=palette.AREA)
            outro.next_to(x_bars, DOWN, buff=0.45).align_to(word_label, LEFT)
            self.play(FadeIn(outro), *[Indicate(g[0], color=c) for g, (_, _, c) in zip(right_groups, ROLES)],
                      run_time=1.5)
        self.key_moment("end", **{f"{k}_bars": b.shown_values() for k, b in shown.items()})

    def flow_text(self, name: str, wname: str, feeds: dict[int, list[int]], traits: list[str],
                  dims: list[str]) -> tuple[str, dict[str, str]]:
        """The narration of a product: the first one explains the flow; the
        others name the bar fed by the most traits and those traits."""
        if not any(feeds.values()):
            return "flow_none_say", {"w": wname}
        if name == ROLES[0][0]:
            return f"{name}_flow_say", {}
        j = max(feeds, key=lambda d: len(feeds[d]))
        names = [self.tr("quoted", name=traits[i]) for i in feeds[j]]
        listed = names[0] if len(names) == 1 else \
            self.tr("sep").join(names[:-1]) + self.tr("and") + names[-1]
        return f"{name}_flow_say", {"dim": dims[j], "traits": listed}

    def flow_into(self, j: int, feeders: list[int], column: qm.WorkedColumn, x_bars: TraitBars,
                  heat: HeatMap, bars: TraitBars, color, moment: str) -> list[dict]:
        """Output bar j built before the eyes: each trait that feeds it (x_i
        and W_ij both non-zero) is lit with its cell of W, its product x_i W_ij
        is written at the end of its row and flows along an arrow into bar j,
        then the bar grows to their sum.  Returns what was drawn (for tests)."""
        cols = heat.values.shape[1]
        cell = [heat.cells[i * cols + j] for i in range(heat.values.shape[0])]
        lit = [SurroundingRectangle(VGroup(*cell), color=color, buff=0.03, stroke_width=2)]
        lit += [SurroundingRectangle(VGroup(x_bars.labels[i], x_bars.bars[i], x_bars.numbers[i]),
                                     color=color, buff=0.05, stroke_width=3) for i in feeders]
        lit += [SurroundingRectangle(cell[i], color=color, buff=0.0, stroke_width=5) for i in feeders]
        products = [number_tex(tex_number(column.terms[i].product, 2, pad=True), font_size=28, color=color)
                    for i in feeders]
        for i, m in zip(feeders, products):   # at the end of its row, just right of the heat-map
            m.move_to([heat.cells.get_right()[0] + 0.12 + m.width / 2, cell[i].get_center()[1], 0])
        # each share runs right, down (or up) a lane left of the q/k/v column, then into the bar's name
        lane = max(m.get_right()[0] for m in products) + 0.12
        end = np.array([bars.labels[j].get_left()[0] - 0.1, bars.bars[j].get_center()[1], 0.0])
        paths = []
        for m in products:
            start = m.get_right() + RIGHT * 0.05
            corner = np.array([lane, end[1], 0.0])
            path = VGroup(Line(start, [lane, start[1], 0]), Line([lane, start[1], 0], corner),
                          Arrow(corner, end, buff=0, stroke_width=3, tip_length=0.14,
                                max_stroke_width_to_length_ratio=20))
            path.set_color(color)
            paths.append(path)
        self.play(*[Create(b) for b in lit], run_time=0.6)
        self.play(LaggedStart(*[AnimationGroup(FadeIn(m), Create(path, lag_ratio=1.0))
                                for m, path in zip(products, paths)], lag_ratio=0.3), run_time=1.2)
        drawn = [{"start": path[0].get_start(), "end": path[-1].get_end(), "value": m.get_tex_string()}
                 for m, path in zip(products, paths)]
        self.key_moment(moment, flows=drawn)
        self.play(*self.grow_bar(bars, j), run_time=0.7)
        self.play(*[FadeOut(m) for m in (*lit, *products, *paths)], run_time=0.4)
        return drawn

    @staticmethod
    def grow_bar(bars: TraitBars, j: int) -> list:
        """Bar j grows out of the zero line and shows its value."""
        bar = bars.bars[j]
        side = LEFT if bar.get_center()[0] >= bars.axis.get_center()[0] else RIGHT
        return [GrowFromEdge(bar, side), FadeIn(bars.numbers[j])]
