"""Scene 7, QKVProjection: one word, three filters.

Chapter 2 opens here: chapter 1's recipes become W_Q, W_K and W_V.  The
focus token's embedding x (a row over named traits) is multiplied by W_Q,
W_K and W_V (heat-maps, one row per trait) into q, k and v, each drawn as
labelled bars in its own colour; the tallest bar of q is what the word looks
for.  All numbers from ``qkv_math.project``.

    manim -ql scenes/qkv_projection.py QKVProjection
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    MathTex,
    Mobject,
    SurroundingRectangle,
    VGroup,
    Write,
    config,
)

import qkv_math as qm
from qkv_lens.beats import MAX_CHOICES, MIN_CHOICES
from qkv_lens.cues import cue_seconds, split_cues
from qkv_lens.numbers import tex_number
from scenes.kit import palette
from scenes.kit.charts import HeatMap, TraitBars
from scenes.kit.glyphs import number_tex
from scenes.kit.legible import floor_width, shrink_to_fit
from scenes.kit.motion import swap
from scenes.kit.scene import LessonScene
from scenes.kit.sections import AttentionParams
from scenes.kit.text import TITLE_BUFF, text, title, wrapped_text

HEAT_SIZE = 22      # W's column names (its numbers 4 points larger)
LEFT_X = -config.frame_width / 2 + TITLE_BUFF   # the title's left edge: the x bars align with it
RIGHT_X = config.frame_width / 2 - 0.3          # the q, k, v column's right edge
TOP = config.frame_height / 2 - 0.4             # the highest a many-row q, k, v column rises
FLOOR = -2.95                                   # just above the subtitle band (y >= -3.04)
LANE = 1.1          # right of the heat-map: the products and the lane their arrows run down
MIN_SPAN = 1.0      # scene units the bars of a chart span at the least, however large its values
FLOW_TIME = 3.0     # seconds one output bar takes to build (write, flow, grow, clear)
MOST_HOLD = 2.0     # seconds the shares are held at most before they flow (the beat's pulses fill the rest)
ROLES = tuple((role.lower(), f"W_{role}", color) for role, color in palette.QKV.items())  # ("q", "W_Q", gold), ...


def _span(values: np.ndarray) -> float:
    """How far a TraitBars of ``values`` reaches at unit 1: its negative bars
    left of the zero line, and as far right as its longest bar (a negative
    bar's number stands right of the line, as far out as the bar reaches)."""
    values = np.asarray(values, dtype=float)
    return float(max(0.0, -values.min()) + np.abs(values).max()) if values.size else 0.0


@dataclass
class _Stage:
    """What the beats share: the focus token's word, the x bars, the q, k, v
    column, where W's heat-maps stand, and what the beats have shown."""
    mats: dict[str, np.ndarray]   # W_Q, W_K, W_V
    word: str                     # the focus token's name
    traits: list[str]             # x's traits (W's rows)
    dims: dict[str, list[str]]    # q, k, v -> its dimensions' names (W's columns)
    row: float                    # row pitch of x's traits and of W's rows
    heading: Mobject
    word_label: VGroup
    x_bars: TraitBars
    right: dict[str, tuple[VGroup, TraitBars]]   # q, k, v -> its heading and its bars
    column: VGroup                # the q, k, v column
    gap_left: float               # left edge of the room between the x bars and the column
    cell_w: float                 # width of W's columns
    heat_left: float              # left edge of W's cells
    heat: HeatMap | None = None   # the W on screen
    names: Mobject | None = None  # W_Q, W_K, W_V named where their heat-maps come, until W_Q's comes
    right_groups: VGroup = field(default_factory=VGroup)    # each heading and bars shown, in order
    shown: dict[str, TraitBars] = field(default_factory=dict)   # q, k, v -> its bars, once shown


class QKVProjection(LessonScene):
    params: AttentionParams
    chapter = 2
    number = 7
    sparse_moments = {"embedding": "the embedding table opens alone; W_Q fills the right next",
                      "chapter": "chapter 2 opens on the three names alone, where their heat-maps will stand"}
    s: _Stage

    def construct(self):
        self.s = self._stage()
        self._intro()
        for name, wname, color in ROLES:
            self._matrix(name, wname, color)
            if name == "q":
                self._ask_largest()
            self._product(name, wname, color)
            if name == "q":
                self._sought()
        self._outro()

    # --- the stage: the lesson's vectors and where everything stands --------
    def _stage(self) -> _Stage:
        p, lang = self.params, self.lang
        X, *Ws = p.arrays()
        mats = dict(zip(("W_Q", "W_K", "W_V"), Ws))
        Q, K, V = qm.project(X, *Ws)
        results = {"q": Q[p.focus], "k": K[p.focus], "v": V[p.focus]}
        word = p.tokens[p.focus].name(lang)
        traits = [t.name(lang) for t in p.traits]
        dims = {"q": [d.name(lang) for d in p.qk_dims], "k": [d.name(lang) for d in p.qk_dims],
                "v": [d.name(lang) for d in p.v_dims]}

        heading = title(self.tr("title"), lang)
        word_label = VGroup(text(word, lang, size=40, color=palette.EMBED),
                            MathTex(r"x", font_size=44, color=palette.EMBED)).arrange(RIGHT, buff=0.3)
        row = 0.46 if len(traits) <= 8 else 3.7 / len(traits)
        # rows never closer than the trait names are tall, nor lower than the subtitles
        row = max(row, max(text(t, lang, size=24).height for t in traits) + 0.03)
        x_top = heading.get_bottom()[1] - 0.35 - word_label.height - 0.5
        row = min(row, (x_top - FLOOR) / (len(traits) - 0.1))
        heads = {name: VGroup(MathTex(rf"{name} = x\,W_{{{name.upper()}}}", font_size=36, color=color),
                              text(self.tr(f"{name}_role"), lang, size=24, color=color)).arrange(RIGHT, buff=0.3)
                 for name, _, color in ROLES}
        x_bars, right, column = self._bars(X[p.focus], results, mats, traits, dims, heads, row, heading, word_label)
        gap_left, cell_w, heat_left = self._heat_place(mats, traits, dims, row, word_label, x_bars, column)
        return _Stage(mats, word, traits, dims, row, heading, word_label, x_bars, right, column,
                      gap_left, cell_w, heat_left)

    def _bars(self, x: np.ndarray, results: dict[str, np.ndarray], mats: dict[str, np.ndarray], traits: list[str],
              dims: dict[str, list[str]], heads: dict[str, VGroup], row: float, heading: Mobject, word_label: VGroup
              ) -> tuple[TraitBars, dict[str, tuple[VGroup, TraitBars]], VGroup]:
        """The x bars under the word and the q, k, v column at the right edge,
        their bars as long as the frame's width leaves room for, with W's
        columns between them: (x bars, column's headings and bars, column)."""
        lang = self.lang
        cols = max(len(d) for d in dims.values())
        # W's columns: at least as wide as its numbers, and as its column names at the floor (on two levels)
        names_floor = max(floor_width(text(d, lang, size=HEAT_SIZE)) for ds in dims.values() for d in ds)
        heat_numbers = [number_tex(tex_number(float(v), 1, pad=True), font_size=HEAT_SIZE + 4).width
                        for M in mats.values() for v in np.ravel(M) if v != 0]
        cell_least = max(0.6, max(heat_numbers, default=0.0) + 0.1,
                         min(names_floor / 0.92, (names_floor + 0.15) / 2))
        units = {"x": 1.0, "q": 0.7}
        span_x = _span(x)
        span_q = max(_span(v) for v in results.values())
        total = 0.0
        for step in ("as drawn", "q under its heads", "x fitted", "q fitted"):
            if step == "q under its heads":     # q, k and v bars as long as their headings leave room for
                right, column = self._column(heads, dims, results, 1e-6)
                room = column.get_right()[0] - max(bars.get_right()[0] for _, bars in right.values())
                units["q"] = min(units["q"], max(room, MIN_SPAN) / max(span_q, 1e-9))
            elif step == "x fitted":            # the x bars take what the rest leaves
                over = total - (RIGHT_X - LEFT_X)
                units["x"] = max(MIN_SPAN, span_x * units["x"] - over) / max(span_x, 1e-9)
                units["x"] = min(units["x"], 1.0)
            elif step == "q fitted":
                over = total - (RIGHT_X - LEFT_X)
                units["q"] = max(MIN_SPAN, span_q * units["q"] - over) / max(span_q, 1e-9)
            x_bars = TraitBars(traits, x, lang, palette.EMBED, unit=units["x"], row=row, size=24)
            right, column = self._column(heads, dims, results, units["q"])
            total = x_bars.width + 0.3 + cols * cell_least + LANE + column.width
            if total <= RIGHT_X - LEFT_X:
                break
        left = VGroup(word_label, x_bars).arrange(DOWN, aligned_edge=LEFT, buff=0.5)
        left.next_to(heading, DOWN, aligned_edge=LEFT, buff=0.35)
        column.to_edge(RIGHT, buff=0.3).align_to(word_label, UP)
        if column.get_bottom()[1] < FLOOR:      # many dimensions: the column rises, then its gaps close
            column.shift(UP * min(FLOOR - column.get_bottom()[1], TOP - column.get_top()[1]))
            if column.get_bottom()[1] < FLOOR:
                right, column = self._column(heads, dims, results, units["q"], buff=0.12)
                column.to_edge(RIGHT, buff=0.3).align_to([0, TOP, 0], UP)
        return x_bars, right, column

    def _heat_place(self, mats: dict[str, np.ndarray], traits: list[str], dims: dict[str, list[str]], row: float,
                    word_label: VGroup, x_bars: TraitBars, column: VGroup) -> tuple[float, float, float]:
        """Where W's heat-maps stand, between the x bars and the column (the
        word shrinks to leave their names room): (the gap's left edge, the
        width of W's columns, the left edge of W's cells)."""
        lang = self.lang
        cols = max(len(d) for d in dims.values())
        # W's columns wide enough for their names at a readable size (as far as the gap allows)
        # (the products and their lane take the last 1.1 of the gap), the heat-map centred in the rest
        gap_left, gap_right = x_bars.get_right()[0] + 0.3, column.get_left()[0] - LANE
        names_w = max(text(d, lang, size=HEAT_SIZE).width for ds in dims.values() for d in ds) / 0.92
        cell_w = float(np.clip(names_w, 1.0, (gap_right - gap_left) / cols))
        heat_left = gap_left + (gap_right - gap_left - cols * cell_w) / 2
        heat_top = x_bars.bars[0].get_center()[1] + row / 2
        # the word over the x bars: as wide as the room left of the heat-map's names (never under the floor)
        probe = HeatMap(mats["W_Q"], traits, dims["q"], lang, palette.Q_GOLD, cell=row, cell_width=cell_w,
                        size=HEAT_SIZE, name="W_{Q}", show_rows=False)
        probe.shift((heat_left - probe.cells.get_left()[0]) * RIGHT + (heat_top - probe.cells.get_top()[1]) * UP)
        names_left = VGroup(probe.col_labels, probe.title).get_left()[0]
        if word_label.get_right()[0] > names_left - 0.3:
            shrink_to_fit(word_label, width=names_left - 0.3 - word_label.get_left()[0],
                          about=word_label.get_corner(UP + LEFT))
            # still too wide: the heat-map moves right, as far as its gap allows
            heat_left += float(np.clip(word_label.get_right()[0] + 0.3 - names_left, 0.0,
                                       gap_right - cols * cell_w - heat_left))
        return gap_left, cell_w, heat_left

    # --- the beats -----------------------------------------------------------
    def _intro(self) -> None:
        """Chapter 2 opens: W_Q, W_K and W_V, named in their colours where their
        heat-maps will stand; then the word and its embedding x, trait by trait."""
        s = self.s
        names = VGroup(*[MathTex(wname, font_size=64, color=color) for _, wname, color in ROLES])
        # in the room between the x bars and the q, k, v column, side by side or one under another
        room = s.column.get_left()[0] - 0.3 - s.gap_left
        names.arrange(RIGHT, buff=0.8)
        if names.width > room:
            names.arrange(DOWN, buff=0.4)
        shrink_to_fit(names, width=room, height=s.x_bars.height)
        names.move_to([s.gap_left + room / 2, s.x_bars.get_center()[1], 0])
        with self.beat("chapter_say", focus=names):
            self.play(Write(s.heading), run_time=0.8)
            self.play(LaggedStart(*[FadeIn(n, shift=0.3 * UP) for n in names], lag_ratio=0.4), run_time=1.5)
            self.key_moment("chapter", names=[n.tex_string for n in names])
            self.describe("describe_chapter", title=self.tr("title"))
        with self.beat("intro_say", word=s.word):
            self.play(FadeIn(s.word_label), FadeIn(s.x_bars.labels), FadeIn(s.x_bars.axis), run_time=0.8)
            self.play(*s.x_bars.grow(), run_time=1.2)
            self.describe("describe_intro", word=s.word, traits=s.traits, x=s.x_bars.values, places=2)
        self.key_moment("embedding", x=s.x_bars.shown_values())
        s.names = names     # W_Q's heat-map takes their place

    def _ask_largest(self) -> None:
        """With x and W_Q on screen, before q's shares flow: which of q's
        dimensions will be the largest?  The choices q's dimension names, the
        answer the largest entry of x W_Q (``qkv_math``, exact when the lesson
        is).  Names that are not MIN_CHOICES to MAX_CHOICES distinct choices,
        or a largest entry that is tied, ask nothing."""
        s, p = self.s, self.params
        names = s.dims["q"]
        q = list(qm.worked_product(p.embeddings[p.focus], p.W_Q).result)
        if not MIN_CHOICES <= len(set(names)) == len(names) <= MAX_CHOICES or q.count(max(q)) > 1:
            return
        self.checkpoint("largest_ask", choices=list(names), answer=q.index(max(q)), word=s.word)

    def _sought(self) -> None:
        """What the word looks for: the tallest bar of q, boxed as it is named."""
        s, p = self.s, self.params
        bars = s.shown["q"]
        q = qm.project(*p.arrays())[0][p.focus]
        best = int(np.argmax(q))
        box = SurroundingRectangle(VGroup(bars.labels[best], bars.bars[best], bars.numbers[best]),
                                   color=palette.FOCUS, buff=0.08)
        with self.beat("q_best_say", focus=box, names_change=True, word=s.word, best=s.dims["q"][best]):
            self.play(Create(box), run_time=0.6)
            self.key_moment("sought", best=best, box=(box.get_left()[0], box.get_bottom()[1], box.get_right()[0],
                                                      box.get_top()[1]),
                            bar=(bars.bars[best].get_center()[1]), rows=[b.get_center()[1] for b in bars.bars])
        self.play(FadeOut(box), run_time=0.3)

    def _matrix(self, name: str, wname: str, color) -> None:
        """W (as a heat-map, in place of the last W) and the empty bars of x W."""
        s = self.s
        # W's rows level with x's rows (x's trait names name them both), right of the x bars
        new_heat = HeatMap(s.mats[wname], s.traits, s.dims[name], self.lang, color, cell=s.row, cell_width=s.cell_w,
                           size=HEAT_SIZE, name=rf"W_{{{name.upper()}}}", show_rows=False)
        new_heat.shift((s.heat_left - new_heat.cells.get_left()[0]) * RIGHT)
        new_heat.shift((s.x_bars.bars[0].get_center()[1] - new_heat.cells[0].get_center()[1]) * UP)
        head, bars = s.right[name]
        with self.beat(f"{name}_say", word=s.word):
            old = s.heat if s.heat is not None else s.names
            s.heat = swap(self, old, new_heat, run_time=0.8)
            box = SurroundingRectangle(VGroup(s.x_bars.bars, s.x_bars.numbers), color=color, buff=0.08)
            self.play(FadeIn(box), Indicate(new_heat.title, color=color), run_time=0.7)
            self.play(FadeIn(head), FadeIn(bars.labels), FadeIn(bars.axis), run_time=0.6)
            self.play(FadeOut(box), run_time=0.3)
            self.describe("describe_matrix", w=wname, W=new_heat.values, dims=s.dims[name], name=name,
                          role=self.tr(f"{name}_role"), places=1)   # W's cells show one decimal

    def _product(self, name: str, wname: str, color) -> None:
        """The product itself: every trait's share x_i W_ij is written at its row of W, the
        non-zero ones flow into the bar they feed and the zeros fade, column by column, paced
        to the sentence.  After the first product, the bar the sentence names flows while it is
        named, and the others in a beat of their own."""
        s, p = self.s, self.params
        head, bars = s.right[name]
        heat = s.heat
        work = qm.worked_product(p.embeddings[p.focus], getattr(p, wname))
        feeds = {j: [i for i, term in enumerate(col.terms) if term.product != 0]
                 for j, col in enumerate(work.columns)}
        say, fields, named = self.flow_text(name, wname, feeds, s.traits, s.dims[name])
        flows: list[dict] = []
        first = list(feeds) if named is None else [named]
        # the beats pulse the bars built so far (a pulse of all of them would bring in the bars to come)
        with self.beat(say, **fields) as sentence:
            flows += self._flow_columns(first, sentence, work, heat, bars, color, name)
            self.focus_on(self.built(bars, first))
        rest = [j for j in feeds if j not in first]
        if rest:     # the same again for the other bars: quicker
            with self.beat("rest_say", w=wname) as sentence:
                flows += self._flow_columns(rest, sentence, work, heat, bars, color, name, pace=0.6)
                self.focus_on(self.built(bars, list(feeds)))
        s.right_groups.add(VGroup(head, bars))
        s.shown[name] = bars
        self.key_moment(name, x=s.x_bars.shown_values(), heat=heat.values.copy(),
                        heat_numbers=[n.tex_string for n in heat.numbers],
                        flows=flows, heat_rows=[heat.cells[i * heat.values.shape[1]].get_center()[1]
                                                for i in range(heat.values.shape[0])],
                        bar_rows=[b.get_center()[1] for b in bars.bars],
                        **{f"{k}_bars": b.shown_values() for k, b in s.shown.items()})

    def _flow_columns(self, columns: list[int], sentence: str, work: qm.WorkedProduct, heat: HeatMap,
                      bars: TraitBars, color, name: str, pace: float = 1.0) -> list[dict]:
        """Output bars ``columns`` built one after another, sharing the sentence's time
        (``pace``: a share of FLOW_TIME each takes)."""
        # the sentence's reading time, as the beat will last at the least
        need = sum(cue_seconds(c, self.lang) for c in split_cues(sentence, self.lang))
        slot = need / max(len(columns), 1)
        drawn = []
        for j in columns:
            feeders = [i for i, term in enumerate(work.columns[j].terms) if term.product != 0]
            drawn += self.flow_into(j, feeders, work.columns[j], self.s.x_bars, heat, bars, color,
                                    moment=f"{name}_flow_{j}", pace=pace,
                                    hold=min(MOST_HOLD, max(0.0, slot - pace * FLOW_TIME)))
            dim = self.s.dims[name][j]
            if feeders:     # the shares as written at W's rows, the bar as it grows
                self.describe("describe_flow", dim=dim, traits=[self.s.traits[i] for i in feeders],
                              shares=[float(work.columns[j].terms[i].product) for i in feeders],
                              value=bars.values[j], places=2)
            else:
                self.describe("describe_flow_none", dim=dim)
        return drawn

    def _outro(self) -> None:
        """One word, three views: the last W goes, the caption comes and the three headings are lit."""
        s, lang = self.s, self.lang
        with self.beat("outro_say", word=s.word):
            self.play(FadeOut(s.heat), run_time=0.6)
            outro = text(self.tr("outro"), lang, size=30, color=palette.FOCUS)
            outro.next_to(s.x_bars, DOWN, buff=0.45).align_to(s.word_label, LEFT)
            if outro.get_bottom()[1] < FLOOR:   # no room under many traits: where the heat-map was
                outro = wrapped_text(self.tr("outro"), lang, size=30, color=palette.FOCUS,
                                     width=s.column.get_left()[0] - 0.3 - s.gap_left)
                outro.move_to([(s.gap_left + s.column.get_left()[0] - 0.3) / 2, s.heat.cells.get_y(), 0])
            marks = self.view_marks(s.right_groups)
            self.play(FadeIn(outro), run_time=0.6)
            # the three views, one after another: a white box around each heading and its bars
            self.play(LaggedStart(*[Create(m) for m in marks], lag_ratio=0.6), run_time=1.5)
            self.describe("describe_outro", w=ROLES[-1][1], caption=self.tr("outro"), places=2,
                          **{name: s.shown[name].values for name in s.shown})
        self.key_moment("end", marks=[(m.get_left()[0], m.get_right()[0], m.get_bottom()[1], m.get_top()[1])
                                      for m in marks],
                        **{f"{k}_bars": b.shown_values() for k, b in s.shown.items()})

    @staticmethod
    def view_marks(groups: VGroup) -> list[Mobject]:
        """A white box around each view (its heading and bars), kept inside the frame: the outro
        names the three views by boxing them, never by scaling them out of the frame."""
        marks = []
        for g in groups:
            box = SurroundingRectangle(g, color=palette.FOCUS, buff=0.1, stroke_width=3)
            room = config.frame_width / 2 - 0.08
            if box.get_right()[0] > room:     # the column stands at the edge: the box hugs it
                box.stretch_to_fit_width(box.width - (box.get_right()[0] - room), about_edge=LEFT)
            marks.append(box)
        return marks

    def _column(self, heads: dict[str, VGroup], dims: dict[str, list[str]], results: dict[str, np.ndarray],
                unit: float, buff: float = 0.3) -> tuple[dict[str, tuple[VGroup, TraitBars]], VGroup]:
        """The q, k, v column: each heading over its bars (``unit`` scene
        units per 1.0), the three zero lines on one vertical, ``buff`` apart."""
        right = {}
        for name, _, color in ROLES:
            bars = TraitBars(dims[name], results[name], self.lang, color, unit=unit, row=0.4, size=24)
            head = heads[name]
            bars.next_to(head, DOWN, buff=min(0.2, buff)).align_to(head, LEFT).shift(RIGHT * 0.3)
            right[name] = (head, bars)
        # the three zero lines on one vertical, so q, k and v read as one column
        offset = max(bars.axis.get_x() - head.get_left()[0] for head, bars in right.values())
        for head, bars in right.values():
            bars.shift(RIGHT * (offset - (bars.axis.get_x() - head.get_left()[0])))
        column = VGroup(*[VGroup(*hb) for hb in right.values()]).arrange(DOWN, aligned_edge=LEFT, buff=buff)
        return right, column

    def flow_text(self, name: str, wname: str, feeds: dict[int, list[int]], traits: list[str],
                  dims: list[str]) -> tuple[str, dict[str, str], int | None]:
        """The narration of a product and the bar it names: the first one explains the flow
        (every bar, none named); the others name the bar fed by the most traits and those traits."""
        if not any(feeds.values()):
            return "flow_none_say", {"w": wname}, None
        if name == ROLES[0][0]:
            return f"{name}_flow_say", {}, None
        j = max(feeds, key=lambda d: len(feeds[d]))
        names = [self.tr("quoted", name=traits[i]) for i in feeds[j]]
        listed = names[0] if len(names) == 1 else \
            self.tr("sep").join(names[:-1]) + self.tr("and") + names[-1]
        return f"{name}_flow_say", {"dim": dims[j], "traits": listed}, j

    def flow_into(self, j: int, feeders: list[int], column: qm.WorkedColumn, x_bars: TraitBars,
                  heat: HeatMap, bars: TraitBars, color, moment: str, hold: float = 0.0,
                  pace: float = 1.0) -> list[dict]:
        """Output bar j built before the eyes: W's column j is lit and every
        trait's share x_i W_ij is written at the end of its row; the non-zero
        ones (x_i and W_ij both non-zero, their traits lit) flow along arrows
        into bar j while the zeros fade, then the bar grows to their sum.
        ``hold`` seconds more are spent reading the shares; ``pace`` scales
        the animations' times.  Returns what was drawn (for tests)."""
        rows, cols = heat.values.shape
        cell = [heat.cells[i * cols + j] for i in range(rows)]
        lit = [SurroundingRectangle(VGroup(*cell), color=color, buff=0.03, stroke_width=2)]
        lit += [SurroundingRectangle(VGroup(x_bars.labels[i], x_bars.bars[i], x_bars.numbers[i]),
                                     color=color, buff=0.05, stroke_width=3) for i in feeders]
        lit += [SurroundingRectangle(cell[i], color=color, buff=0.0, stroke_width=5) for i in feeders]
        shares = [number_tex(tex_number(float(column.terms[i].product), 2, pad=True), font_size=28,
                             color=color if i in feeders else palette.MUTED) for i in range(rows)]
        for i, m in enumerate(shares):   # at the end of its row, just right of the heat-map
            m.move_to([heat.cells.get_right()[0] + 0.12 + m.width / 2, cell[i].get_center()[1], 0])
        products = [shares[i] for i in feeders]
        zeros = [m for i, m in enumerate(shares) if i not in feeders]
        # each share runs right, down (or up) a lane left of the q/k/v column, then into the bar's name
        lane = max(m.get_right()[0] for m in shares) + 0.12
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
        # every share written, row by row, as its trait meets its cell of W
        self.play(*[Create(b) for b in lit], LaggedStart(*[FadeIn(m, shift=RIGHT * 0.15) for m in shares],
                                                         lag_ratio=0.12), run_time=0.9 * pace)
        if hold > 0.05:
            self.wait(hold)
        # the non-zero shares flow, the zeros send nothing and fade
        flow = [LaggedStart(*[Create(path, lag_ratio=1.0) for path in paths], lag_ratio=0.3)] if paths else []
        self.play(*[FadeOut(m, scale=0.5) for m in zeros], *flow, run_time=1.1 * pace)
        drawn = [{"start": path[0].get_start(), "end": path[-1].get_end(), "value": m.tex_string}
                 for m, path in zip(products, paths)]
        if drawn:
            on_screen = set(self.get_mobject_family_members())
            self.key_moment(moment, flows=drawn, zeros=len(zeros), hold=hold,
                            shown=[k for k, b in enumerate(bars.bars) if b in on_screen and b.width > 1e-3])
        self.play(*self.grow_bar(bars, j), run_time=0.6 * pace)
        self.play(*[FadeOut(m) for m in (*lit, *products, *paths)], run_time=0.4 * pace)
        return drawn

    @staticmethod
    def built(bars: TraitBars, columns: list[int]) -> VGroup:
        """Bars ``columns`` with their numbers: what a beat that built them pulses."""
        return VGroup(*[VGroup(bars.bars[j], bars.numbers[j]) for j in columns])

    @staticmethod
    def grow_bar(bars: TraitBars, j: int) -> list:
        """Bar j grows out of the zero line and shows its value."""
        bar = bars.bars[j]
        side = LEFT if bar.get_center()[0] >= bars.axis.get_center()[0] else RIGHT
        return [GrowFromEdge(bar, side), FadeIn(bars.numbers[j])]
